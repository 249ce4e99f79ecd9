"""What a reader of an entry needs beyond the facts: meaning, solutions, a checked example fix.

Everything is derived from the code: the meaning by `analyzers.meaning`; solutions
from the trigger's conjuncts, one per user-controllable part, innermost first (the
condition the message is about); the example fix from `analyzers.witness`, its
outcome predicted by `analyzers.evaluate` (`predicted`); `verified` belongs to the
real program (`errcat confirm`) and is "not-run" here.
"""
from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from analyzers.candidate_values import NOT_GIVEN, constants_in, takes_json
from analyzers.counts import adds_nonpositive, positive_sizes
from analyzers.dead import never_fails
from analyzers.entries import (
    MAX_LISTED_PRIORS,
    Entry,
    Reach,
    entry_fix,
    launch_can_raise,
    nearest_priors,
    with_example_row,
)
from analyzers.eval_model import Model
from analyzers.evaluate import evaluate, undecided
from analyzers.examples import Examples, is_made_up
from analyzers.feeding import feeding_leaves
from analyzers.flag_types import ValueKind, value_type
from analyzers.kleene import Truth
from analyzers.launch import Launch, command
from analyzers.listed_values import values_past
from analyzers.meaning import meaning, row_meaning
from analyzers.message_advice import advised
from analyzers.readable import states_code
from analyzers.related import with_related
from analyzers.rivals import Rivals
from analyzers.rules import rules_from_adjustments
from analyzers.settings import base_dest
from analyzers.situations import situations
from analyzers.solution import NO_GOAL, Solution, ValueChoice
from analyzers.solution_reach import checked_against_reach
from analyzers.stated_model import one_architecture, stated_model
from analyzers.trigger import MAX_OPERANDS, Renderer, more
from analyzers.well_formed import form_text, json_form, object_form, parse_form
from analyzers.witness import Leaf, assign, base_launch, candidates, fact_leaves, falsify, satisfy, settable_leaves
from extractor.ir import (
    MIRRORED_OP,
    NEGATED_OP,
    TRUE,
    Apply,
    Compare,
    Const,
    Expr,
    Not,
    Ref,
    RefKind,
    Truthy,
    conj,
    conjuncts,
    disj,
    is_number,
    negate,
    refs,
    simplify,
    unknowns,
    walk,
)
from extractor.ir_reduce import factored
from extractor.profile import ExampleRules
from extractor.records import GuardOrigin

MAX_LISTED = 8  # values named in one solution
MAX_SOLUTIONS = MAX_OPERANDS  # solutions (and undecided terms) listed; the rest are counted
MAX_GOAL = 240  # characters of a condition a solution states ("… so that <goal>")
RESTATES = " so that "  # in a solution's words where they restate a condition, not a concrete change


@dataclass(frozen=True, slots=True)
class Context:
    """Everything advice reads besides the entry."""

    model: Model
    renderer: Renderer
    launch_prefix: str = ""
    docstrings: Mapping[tuple[str, str], str] = field(default_factory=dict)  # (path, qualname) -> first line
    # models without some adjustments, by the indices left out (see `_at_site`)
    models: dict[frozenset[int], Model] = field(default_factory=dict, compare=False)
    rivals: Rivals = field(default_factory=Rivals)  # every entry's condition: what examples must not raise
    # entry id -> when each earlier check of its `Trigger.reach` fires (the checks that fire first)
    reach: Mapping[str, tuple[Expr, ...]] = field(default_factory=dict)
    program: str = "the program"  # what the meanings call the program that refuses (the profile's name)
    rule_at: Mapping[int, int] = field(default_factory=dict)  # id of a rule -> when a launch runs it, where known
    platform_settings: frozenset[str] = frozenset()  # settings choosing the device (the profile's)


# ------------------------------------------------------------------ solutions


def parts_of(expr: Expr) -> list[Expr]:
    """The operands of `expr` that must all hold; none for "always". Shared operands said once
    first: a list of reasons repeats the path to each append in every row (``a and (a and x
    or a and y)``), and the change a person makes is to `x or y`, not to the path."""
    expr = factored(expr)
    return [] if expr == TRUE else list(conjuncts(expr))


def solutions(expr: Expr, ctx: Context, passed: frozenset[Expr] = frozenset()) -> list[Solution]:
    """One change per user-controllable part of `expr` (parts on the same leaves are
    one part), innermost first; then the facts no flag changes. `passed`: the parts that say
    an earlier raise of the block did not fire (``--kv-events-config`` is set, past "requires
    --kv-events-config"): a solution making only those false is marked (`Solution.passed`)."""
    groups: dict[tuple[Leaf, ...], list[Expr]] = {}
    facts: list[Expr] = []
    derived: list[tuple[Expr, tuple[Leaf, ...]]] = []
    for part in reversed(parts_of(expr)):
        leaves = tuple(settable_leaves(part, ctx.model))
        if leaves:
            groups.setdefault(leaves, []).insert(0, part)
        elif feeding := feeding_leaves(part, ctx.model):
            derived.append((part, feeding))
        else:
            facts.append(part)
    out: list[Solution] = []
    for leaves, group in groups.items():
        part = conj(group)
        choice = value_choice(part, leaves[0], ctx) if len(leaves) == 1 and not _phrased(part, leaves[0], ctx) \
            else None
        text = choice_text(choice, ctx)
        if text is None:  # no value to name: the words say what to change
            choice, text = None, phrase(part, leaves, ctx)
        if text and all(text != s.text for s in out):
            out.append(Solution(text, part, choice=choice, passed=all(p in passed for p in group)))
    for part, leaves in derived:  # a setting the code derives: changed through the options it is derived from
        names = ", ".join(_option(x, ctx) for x in leaves)
        goal = _goal(part, ctx) or "it no longer holds"
        out.append(Solution(f"Change {names}{RESTATES}{goal} "
                            "(the code derives it from them).", part, leaves=leaves, note=fact_text(part, ctx)))
    for part in facts:
        out.append(Solution(fact_text(part, ctx), None))
    hidden = more(len(out) - MAX_SOLUTIONS, "and", "solution").lstrip()
    return out[:MAX_SOLUTIONS] + [Solution(hidden, None)] if hidden else out


def fact_text(part: Expr, ctx: Context) -> str:
    kinds = {r.kind for r in refs(part)}
    what = ctx.renderer.text(part)
    if kinds & {RefKind.PLATFORM, RefKind.MODEL, RefKind.RUNTIME}:
        return f"Not changeable by flags: this happens only when {what}."
    if unknowns(part) and not kinds - {RefKind.UNKNOWN}:
        return f"Depends on a value errcat could not resolve: {what}."
    return f"Depends on settings derived by the code: {what}."


def _option(leaf: Leaf, ctx: Context) -> str:
    if leaf.kind is RefKind.ENV:
        return f"`{leaf.name}`"
    return f"`{ctx.renderer.option(leaf.name) or leaf.name}`"


def _flag(leaf: Leaf, ctx: Context) -> Any:
    flags = ctx.model.flags
    return flags.by_dest(leaf.name) if flags is not None and leaf.kind is RefKind.FLAG else None


def shown_value(value: Any) -> str:
    if value is None:
        return "none"
    if value == "" and isinstance(value, str):  # as typed on a command line, not nothing
        return '""'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return " ".join(shown_value(v) for v in value)
    return str(value)


def _is_switch(leaf: Leaf, ctx: Context) -> bool:
    flag = _flag(leaf, ctx)
    return flag is not None and (flag.action or "").endswith(("store_true", "BooleanOptionalAction"))


def phrase(part: Expr, leaves: Sequence[Leaf], ctx: Context) -> str:
    """The change that makes `part` false, in user terms."""
    if len(leaves) == 1:
        text = _single_leaf(part, leaves[0], ctx) or _affix_words(part, leaves[0], ctx)
        if text:
            return text
    names = ", ".join(_option(x, ctx) for x in leaves)
    # where the goal is no sentence a person reads, the trigger states it
    return f"Change {names}{RESTATES}{_goal(part, ctx) or NO_GOAL}."


def _affix_words(part: Expr, leaf: Leaf, ctx: Context) -> str | None:
    """``not x.startswith("[")``: "Set `--x` to a value starting with `[`" (and the negation)."""
    holds = not isinstance(part, Not)
    test = part.arg if isinstance(part, Not) else part
    call = test.term if isinstance(test, Truthy) else None
    if not isinstance(call, Apply):
        return None
    tested = _affix_test(call)
    if tested is None:
        return None
    subject = call.args[0]
    if not (len(tested) == 1 and isinstance(tested[0], str)
            and isinstance(subject, Ref) and (subject.kind, subject.name) == (leaf.kind, leaf.name)):
        return None
    where = "starting" if call.fn == "startswith" else "ending"
    return f"Set {_option(leaf, ctx)} to a value {'not ' if holds else ''}{where} with `{tested[0]}`."


def _affix_test(call: Apply) -> tuple[Any, ...] | None:
    """The constants `call` tests a text's start or end against (``x.startswith(("[", "("))``);
    None where `call` is no such test with a constant."""
    if call.fn not in ("startswith", "endswith") or len(call.args) != 2 or not isinstance(call.args[1], Const):
        return None
    value = call.args[1].value
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def _goal(part: Expr, ctx: Context) -> str | None:
    """What must hold instead of `part`, as a sentence a person reads; None where it would state code or run long."""
    goal = ctx.renderer.text(Not(part))
    return None if len(goal) > MAX_GOAL or states_code(goal) else goal


def _single_leaf(part: Expr, leaf: Leaf, ctx: Context) -> str | None:
    said = _phrased(part, leaf, ctx)
    if said is not None:
        return said
    return choice_text(value_choice(part, leaf, ctx), ctx)


def _phrased(part: Expr, leaf: Leaf, ctx: Context) -> str | None:
    """The words of a change by the part's shape (unset, pass, a bound), or None: values
    to name (`value_choice`)."""
    name = _option(leaf, ctx)
    shape = _shape(part)
    if leaf.kind is RefKind.ENV:
        if shape == "truthy":
            return f"Unset {name} (or set `{leaf.name}=0`)."
        if shape == "falsy":
            return f"Set `{leaf.name}=1`."
    elif _is_switch(leaf, ctx):
        flag = _flag(leaf, ctx)
        if shape == "truthy":
            return f"Do not pass {name}."
        if shape == "falsy":
            negation = f" (or pass `{flag.negations[0]}`)" if flag is not None and flag.negations else ""
            return f"Pass {name}{negation}."
    else:
        if shape == "truthy":
            return f"Leave {name} unset."
        if shape == "falsy":
            return f"Add the missing {name}."
        bound = _bound(part)
        if bound is not None:
            return f"Set {name} to {bound}."
    return None


def _shape(part: Expr) -> str | None:
    """"truthy": the part holds when the leaf is set; "falsy": when it is not."""
    if isinstance(part, Ref) or (isinstance(part, Truthy) and isinstance(part.term, Ref)):
        return "truthy"
    if isinstance(part, Not) and _shape(part.arg) == "truthy":
        return "falsy"
    if isinstance(part, Compare) and isinstance(part.right, Const) and part.right.value is None \
            and isinstance(part.left, Ref):
        return "truthy" if part.op in ("is not", "!=") else "falsy"
    return None


_WORDS = {">=": "at least", ">": "more than", "<=": "at most", "<": "less than"}


def _bound(part: Expr) -> str | None:
    """``x > 8`` -> "at most 8" (the negation of a numeric bound)."""
    if not isinstance(part, Compare) or part.op not in _WORDS:
        return None
    left, right, op = part.left, part.right, part.op
    if isinstance(left, Const):
        left, right, op = right, left, MIRRORED_OP[op]
    if not isinstance(right, Const) or isinstance(left, Const):
        return None
    if not is_number(right.value):
        return None
    return f"{_WORDS[NEGATED_OP[op]]} {shown_value(right.value)}"


def value_choice(part: Expr, leaf: Leaf, ctx: Context) -> ValueChoice | None:
    """The values of `leaf` that avoid `part`, tried one by one (the evaluator decides), and
    those that do not; None where none avoids it."""
    good, bad = _tried(part, leaf, ctx)
    if (formed := _form_choice(part, leaf, ctx, good)) is not None:
        return formed
    if not good:
        return None
    consts = constants_in(part)
    values = _whole_values(good, part)
    listed = _listed(values, part, leaf, ctx, consts)
    offending = [shown_value(v) for v in bad if v is not NOT_GIVEN and _is_const_in(v, part, consts)]
    unset = any(v is NOT_GIVEN for v in good)
    others = [v for v in values if not any(v is x for x in listed)]
    if not listed and others and all(is_made_up(v) for v in others):
        # only values the search made up ("example", ""): a person's own text goes there, so the
        # words say what it must be (`phrase`), or where they cannot, to leave it unset
        return None if _goal(part, ctx) is not None or not unset else ValueChoice(leaf, (), (), (), True)
    others = [v for v in others if not is_made_up(v)]
    return ValueChoice(leaf, tuple(listed), tuple(others), tuple(offending), unset)


def _whole_values(good: Sequence[Any], part: Expr) -> list[Any]:
    """The values of `good` a person would pass: not unset, and no prefix the check tests
    (``addr.startswith("[")``): that is no whole value."""
    affixes = _affixes(part)
    return [v for v in good if v is not NOT_GIVEN and not any(type(v) is type(a) and v == a for a in affixes)]


def _affixes(part: Expr) -> list[Any]:
    """The constants `part` tests a text's start or end against (`_affix_test`)."""
    return [v for node in walk(part) if isinstance(node, Apply) for v in _affix_test(node) or ()]


def _listed(values: Sequence[Any], part: Expr, leaf: Leaf, ctx: Context, consts: Sequence[Any]) -> list[Any]:
    """Of `values`, those a person would name: the option's choices, else the part's own constants."""
    flag = _flag(leaf, ctx)
    if flag is not None and isinstance(flag.choices, tuple):
        return [v for v in values if v in flag.choices]
    return [v for v in values if _is_const_in(v, part, consts)]


def _form_choice(part: Expr, leaf: Leaf, ctx: Context, good: Sequence[Any]) -> ValueChoice | None:
    """Where `part` is a failed conversion (`analyzers.well_formed`): the values of the form
    that parses after which `part` does not hold; for an option taking JSON, the JSON among
    `good` (`well_formed.json_form`); else None."""
    parsed = parse_form(part)
    if parsed is None:
        values, flag = [v for v in good if v is not NOT_GIVEN], _flag(leaf, ctx)
        in_json = (object_form(values) if flag is not None and value_type(flag).kind is ValueKind.DICT else None) or (
            json_form(values) if takes_json(flag) else None)
        return None if in_json is None else ValueChoice(
            leaf, (in_json[1],), (), (), any(v is NOT_GIVEN for v in good), form=in_json[0])
    base = base_launch(ctx.model)
    forms = tuple(v for v in parsed[1] if evaluate(part, assign(base, leaf, v), ctx.model) is Truth.FALSE)
    return ValueChoice(leaf, forms, (), (), any(v is NOT_GIVEN for v in good), form=parsed[0]) if forms else None


def choice_text(choice: ValueChoice | None, ctx: Context) -> str | None:
    """The words of `choice`: the values to set (or to avoid), and whether leaving it unset does."""
    if choice is None:
        return None
    if choice.form:
        return form_text(_option(choice.leaf, ctx), choice.form, shown_value(choice.listed[0]), choice.unset)
    if not choice.listed and choice.others:  # name a value that works, not only the ones refused
        return _other_text(choice, ctx)
    return values_text(_option(choice.leaf, ctx), choice.leaf.kind is RefKind.ENV,
                       [shown_value(v) for v in choice.listed], choice.offending, choice.unset)


def _other_text(choice: ValueChoice, ctx: Context) -> str:
    """"Set `--x` to 1 (refused: 0)", "Pass `--x`": the first value after which the part does
    not hold (the examples' judge tries it through the whole pipeline where a command reaches the error)."""
    name, value = _option(choice.leaf, ctx), choice.others[0]
    if value is True and _is_switch(choice.leaf, ctx):
        return f"Pass {name}."
    refused = f" (refused: {', '.join(choice.offending[:MAX_LISTED])})" if choice.offending else ""
    leave = ("unset it" if choice.leaf.kind is RefKind.ENV else "leave it unset") if choice.unset else ""
    return f"Set {name} to {shown_value(value)}{refused}" + (f", or {leave}." if leave else ".")


def _tried(part: Expr, leaf: Leaf, ctx: Context) -> tuple[list[Any], list[Any]]:
    """`leaf`'s candidate values (`NOT_GIVEN` among them) that make `part` false, and true."""
    base = base_launch(ctx.model)
    good: list[Any] = []
    bad: list[Any] = []
    for value in candidates(leaf, part, ctx.model):
        result = evaluate(part, assign(base, leaf, value), ctx.model)
        if result is Truth.FALSE:
            good.append(value)
        elif result is Truth.TRUE:
            bad.append(value)
    return (positive_sizes(leaf.name, good, ctx.model) if leaf.kind is RefKind.FLAG else good), bad


def values_text(name: str, env: bool, listed: Sequence[str], offending: Sequence[str], unset: bool) -> str | None:
    """The solution naming the values to set (`listed`) or avoid (`offending`), and whether
    not setting `name` at all also works (`unset`: an env var is unset, a flag left unset)."""
    leave = "unset it" if env else "leave it unset"
    if listed:
        hidden = f" (and {len(listed) - MAX_LISTED} more)" if len(listed) > MAX_LISTED else ""
        choice = f"one of {', '.join(listed[:MAX_LISTED])}{hidden}" if len(listed) > 1 else listed[0]
        return f"Set {name} to {choice}" + (f" (or {leave})." if unset else ".")
    if offending:
        text = f"Set {name} to a value other than {', '.join(offending[:MAX_LISTED])}"
        return text + (f", or {leave}." if unset else ".")
    if unset:
        return f"Unset {name}." if env else f"Leave {name} unset."
    return None


def _is_const_in(value: Any, part: Expr, consts: Sequence[Any] | None = None) -> bool:
    """Is `value` one of `part`'s constants (`consts`: those, when already known)?"""
    consts = constants_in(part) if consts is None else consts
    return any(type(value) is type(c) and value == c for c in consts)


# ------------------------------------------------------------------ example fix


NOT_RUN = "not-run"  # `verified` until the real program has run the example (`errcat confirm`)


def _verdict(before: Truth, after: Truth) -> str:
    if before is Truth.TRUE and after is Truth.FALSE:
        return "true"
    if Truth.UNKNOWN in (before, after):
        return "unknown"
    return "false"


def _example(before: str | None, after: str | None, predicted: str, **more: Any) -> dict[str, Any]:
    """An example fix with its keys in their fixed order: `verified` is the real program's
    word (not run yet), `predicted` the evaluator's."""
    return {"before": before, "after": after, "verified": NOT_RUN, "predicted": predicted, **more}


def example_fix(fire: Expr, full: Expr, sols: Sequence[Solution], ctx: Context, own: str = "") -> dict[str, Any]:
    """`before` fires `fire`; `after` applies the first solution that stops `full`.

    `predicted` is "true" only when the evaluator says `before` fires and `after` does not;
    an "unknown" prediction lists what could not be decided (`undecided`), and a trigger no
    searched launch fires says so (`note`) instead of showing a launch that does not.
    Where platform checks or model properties leave it unknown, an example that holds
    for a stated machine and model is shown instead: the model's architecture is stated
    by the command (``<model:Arch>``), other facts are listed in `assuming` with the
    prediction under them, and the platform facts among them in `needs`.
    Both commands avoid raising any other entry of the catalog (`own`: this entry's id)
    where the search can.
    """
    plain, fired = _before(fire, ctx, own)
    sols = _machine_last(sols, ctx)
    fix = _plain_fix(fire, full, sols, ctx, plain, fired)
    if fix["predicted"] == "unknown" and fact_leaves(fire):
        fix = _assumed_fix(fire, full, sols, ctx, plain) or _architecture_fix(fire, full, sols, ctx, plain) or fix
    if fix.get("before") and "needs" not in fix and (needs := platform_needs(fire, ctx)):
        fix["needs"] = needs
    return fix


def _machine_last(sols: Sequence[Solution], ctx: Context) -> list[Solution]:
    """`sols` with those that only change the setting choosing the device (``--device npu``)
    last: a user fixes the launch on the machine they have, and only such a machine runs it."""
    def machine(sol: Solution) -> bool:
        names = {base_dest(r.name) for r in refs(sol.part)} if sol.part is not None else set()
        return bool(names) and names <= ctx.platform_settings
    return sorted(sols, key=machine)


def _only(part: Expr, kinds: Sequence[RefKind], ctx: Context, architecture: bool = False) -> bool:
    """Does `part` read facts of `kinds` only (some; of model facts, the architecture only)?"""
    found = refs(part)
    return bool(found) and all(r.kind in kinds and (not architecture or ctx.model.examples.is_architecture(r.name))
                               for r in found)


def _facts_for(parts: Sequence[Expr], ctx: Context) -> Launch | None:
    """The facts that make `parts` (reading facts only) all hold, or None."""
    if not parts:
        return None
    target = conj(list(parts))
    found, holds = satisfy(target, ctx.model, Launch(), fact_leaves(target))
    return found if holds is Truth.TRUE and found.facts else None


def platform_needs(fire: Expr, ctx: Context) -> list[str]:
    """``platform:NAME=value`` for the platform facts `fire` holds only under: the operands
    of it (an ``and``) that read platform checks alone, made to hold."""
    found = _facts_for([p for p in parts_of(fire) if _only(p, (RefKind.PLATFORM,), ctx)], ctx)
    return sorted(f"{key}={json.dumps(value)}" for key, value in found.facts.items()) if found else []


def _architecture_fix(fire: Expr, full: Expr, sols: Sequence[Solution], ctx: Context,
                      plain: Launch) -> dict[str, Any] | None:
    """The plain example on a model of the architecture `fire` names, where the rest of it
    stays undecided: the operands reading the architecture alone, made to hold."""
    if not ctx.model.examples.model:
        return None
    found = _facts_for([p for p in parts_of(fire) if _only(p, (RefKind.MODEL,), ctx, architecture=True)], ctx)
    found = one_architecture(fire, found, ctx.model) if found else None
    stated = stated_model(Launch(plain.flags, plain.env, found.facts), ctx.model.examples) if found else None
    if stated is None or not stated.facts:
        return None
    fired = evaluate(fire, stated, ctx.model)
    return _plain_fix(fire, full, sols, ctx, stated, fired) if fired is not Truth.FALSE else None


def _assumed_fix(
    fire: Expr, full: Expr, sols: Sequence[Solution], ctx: Context, plain: Launch,
) -> dict[str, Any] | None:
    # the facts only, on the launch the plain search found (the flags it set stay); where those
    # alone leave it open (a backend the code picks when none is given), the options it tests too
    before, fired = satisfy(fire, ctx.model, plain, fact_leaves(fire))
    if fired is not Truth.TRUE:
        before, fired = satisfy(fire, ctx.model, plain, [*settable_leaves(fire, ctx.model), *fact_leaves(fire)])
    if fired is not Truth.TRUE or not before.facts:
        return None
    before = one_architecture(fire, before, ctx.model)
    for sol in sols:
        if sol.part is None:
            continue
        after, still = falsify(full, sol.part, ctx.model, before)  # the facts stay as assumed
        if _same_command(before, after, ctx) or _verdict(fired, still) != "true":
            continue
        after = _after(full, sol.part, after, ctx)
        shown_before, shown_after = stated_model(before, ctx.model.examples), stated_model(after, ctx.model.examples)
        fix = _fix(shown_before, evaluate(fire, shown_before, ctx.model), shown_after,
                   evaluate(full, shown_after, ctx.model), sol, fire, full, ctx)
        assumed = {key: value for key, value in before.facts.items() if key not in shown_before.facts}
        if assumed:
            fix["assuming"] = {"facts": [_fact_text(key, value, ctx) for key, value in assumed.items()],
                               "predicted": "true"}
        needs = sorted(f"{key}={json.dumps(value)}" for key, value in assumed.items()
                       if key.startswith(f"{RefKind.PLATFORM}:"))
        if needs:
            fix["needs"] = needs
        return fix
    return None


def _fact_text(key: str, value: Any, ctx: Context) -> str:
    kind, _, name = key.partition(":")
    ref = Ref(RefKind(kind), name, name)
    if isinstance(value, bool):
        return ctx.renderer.text(Truthy(ref) if value else Not(Truthy(ref)))
    return ctx.renderer.text(Compare("==", ref, Const(value)))


MAX_RIVALS = 4  # other entries' conditions a launch is moved off, tried one by one


def _before(fire: Expr, ctx: Context, own: str) -> tuple[Launch, Truth]:
    """A launch where `fire` holds, and no other entry's condition where the search finds one;
    then each earlier check of `own`'s `Trigger.reach` that fires on it for sure (it would
    fire first) made to pass where the search can without `fire`, or a check that passed,
    failing. One left undecided is left as it is: making it pass for sure adds settings
    that are likely to raise something else."""
    before, fired = satisfy(fire, ctx.model, base_launch(ctx.model))
    before = _clear(fire, before, fired, own, ctx)
    # where `fire` is left unknown (a part no option decides), its prerequisites still go in
    reach = ctx.reach.get(own, ()) if fired is not Truth.FALSE else ()
    passing = [negate(r) for r in reach if evaluate(r, before, ctx.model) is Truth.FALSE]
    changed: list[Expr] = []
    for first in reach:
        if evaluate(first, before, ctx.model) is not Truth.TRUE:
            continue
        moved, passes = satisfy(negate(first), ctx.model, before)
        if passes is Truth.TRUE and evaluate(conj([fire, *passing, negate(first)]), moved, ctx.model) is fired:
            before = moved
            passing.append(negate(first))
            changed.append(negate(first))
    if changed:  # moved: off the other entries again, what it changed staying
        before = _clear(fire, before, fired, own, ctx, conj([fire, *changed]))
    return before, fired


def _after(full: Expr, part: Expr, after: Launch, ctx: Context) -> Launch:
    """`after` (where `full` is false) moved off every entry's condition where it can,
    `part` staying false (the solution it shows)."""
    return _clear(Not(full), after, Truth.TRUE, "", ctx, negate(part))


def _clear(target: Expr, launch: Launch, wanted: Truth, own: str, ctx: Context, change: Expr | None = None) -> Launch:
    """`launch` moved off the other entries' conditions that hold on it, one at a time
    (one that cannot be avoided is left: the same condition as this one's, or implied
    by it; the launch where the fewest hold is kept), while `target` stays `wanted`
    (true, or unknown); `change` (default `target`) is what the search makes hold
    besides: a narrower condition implying it."""
    if wanted is Truth.FALSE or not ctx.rivals.rivals:
        return launch
    found = ctx.rivals.holding(launch, own)
    best = (len(found), launch)
    kept: list[Expr] = [target if change is None else change]
    tried: set[str] = set()
    while found and len(tried) < MAX_RIVALS:
        rival = next((r for r in found if r.id not in tried), None)
        if rival is None:
            break
        tried.add(rival.id)
        avoid = negate(rival.expr)
        moved, _ = satisfy(conj([*kept, avoid]), ctx.model, launch)
        if moved is launch or adds_nonpositive(launch, moved, ctx.model) or evaluate(target, moved, ctx.model) \
                is not wanted:
            continue
        left = ctx.rivals.holding(moved, own)
        if rival in left:
            continue
        # moving off one may land on others: go on from there, keep the launch with fewest
        launch, found = moved, left
        kept.append(avoid)
        if len(found) < best[0]:
            best = (len(found), launch)
    return best[1]


def _named_after(sol: Solution, before: Launch, full: Expr, after: Launch, ctx: Context) -> Launch:
    """`before` with the first value `sol`'s words name ("Set `--x` to 1.0"), where `full` is
    false on it and it meets no more other errors than `after` (the search's): what the change
    under the example says; else `after`."""
    choice = sol.choice
    values = choice.named if choice is not None else ()
    if choice is None or not values:
        return after
    named = _after(full, sol.part or TRUE, assign(before, choice.leaf, values[0]), ctx)
    if evaluate(full, named, ctx.model) is not Truth.FALSE \
            or len(ctx.rivals.holding(named, "")) > len(ctx.rivals.holding(after, "")):
        return after
    return named


def _plain_fix(fire: Expr, full: Expr, sols: Sequence[Solution], ctx: Context, before: Launch,
               fired: Truth) -> dict[str, Any]:
    best: tuple[Launch, Truth, Launch, Truth, Solution] | None = None
    for sol in sols:
        if sol.part is None:
            continue
        after, still = falsify(full, sol.part, ctx.model, before)
        if _same_command(before, after, ctx):
            continue
        if _verdict(fired, still) == "true":
            after = _after(full, sol.part, after, ctx)
            return _fix(before, fired, _named_after(sol, before, full, after, ctx), still, sol, fire, full, ctx)
        best = best or (before, fired, after, still, sol)
    if best is not None and fired is not Truth.FALSE:
        return _fix(*best, fire, full, ctx)
    if fired is Truth.FALSE:
        searched = ", ".join(dict.fromkeys(_option(leaf, ctx) for leaf in settable_leaves(fire, ctx.model)))
        return _example(None, None, "false",
                        note="No command line the search tried triggers this"
                        + (f" (it varied {searched})" if searched else "")
                        + ": it may be reachable only through the Python API, or not at all.")
    if not settable_leaves(fire, ctx.model):  # no command to show: say why in one line
        fix = _with_undecided(_example(None, None, "unknown"), [(fire, before)], ctx)
        said = ", ".join(fix.get("undecided", [])[:3])
        fix["note"] = ("No command line is shown: no option or environment variable decides this check"
                       + (f"; it depends on {said}." if said else "."))
        return fix
    return _with_undecided(_example(command(before, ctx.model.flags, ctx.launch_prefix), None, "unknown"),
                           [(fire, before)], ctx)


def _same_command(a: Launch, b: Launch, ctx: Context) -> bool:
    flags = ctx.model.flags
    return a == b or command(a, flags, ctx.launch_prefix) == command(b, flags, ctx.launch_prefix)


def _fix(before: Launch, fired: Truth, after: Launch, still: Truth, sol: Solution, fire: Expr, full: Expr,
         ctx: Context) -> dict[str, Any]:
    flags = ctx.model.flags
    fix = _example(command(before, flags, ctx.launch_prefix), command(after, flags, ctx.launch_prefix),
                   _verdict(fired, still), solution=sol.text)
    return _with_undecided(fix, [(fire, before), (full, after)], ctx)


def _undecided_text(term: Expr, ctx: Context) -> str:
    text = ctx.renderer.value(term)
    if isinstance(term, Ref) and term.kind is RefKind.FLAG and ctx.model.adjusts(term.name):
        return f"{text} (set automatically when not given)"
    return text


def _with_undecided(fix: dict[str, Any], checked: Sequence[tuple[Expr, Launch]], ctx: Context) -> dict[str, Any]:
    """An "unknown" prediction names the terms that decided nothing, in user terms."""
    if fix["predicted"] != "unknown":
        return fix
    found = [_undecided_text(t, ctx) for expr, launch in checked for t in undecided(expr, launch, ctx.model)]
    if found:
        found = list(dict.fromkeys(found))
        hidden = more(len(found) - MAX_SOLUTIONS, "and", "term").lstrip()
        fix["undecided"] = found[:MAX_SOLUTIONS] + [hidden] if hidden else found
    return fix


# ------------------------------------------------------------------ entries


def _at_site(entry: Entry, full: Expr, ctx: Context) -> Context:
    """`ctx` evaluating as the code stands at the raise: without the adjustments its own
    function makes further down (``if x is None: raise ...`` then ``x = default``), where
    they would change what the trigger reads."""
    site = entry.site
    later = {id(r) for r in ctx.model.relevant_rules(full) if r.after(site.path, site.function, site.adjusted_before)}
    if not later:
        return ctx
    key = frozenset(i for i, r in enumerate(ctx.model.rules) if id(r) in later)
    model = ctx.models.get(key)
    if model is None:
        model = ctx.models[key] = ctx.model.subset([i for i in range(len(ctx.model.rules)) if i not in key])
    return replace(ctx, model=model)


def _full(entry: Entry) -> Expr:
    """When `entry` is raised: its trigger, and one of its rows when it has a table."""
    trigger = entry.trigger.expr
    return conj([trigger, disj([v.trigger.expr for v in entry.variants])]) if entry.variants else trigger


def _split(sols: Sequence[Solution]) -> tuple[tuple[Solution, ...], tuple[str, ...]]:
    """The changes a user makes, and the notes on what no option changes (a fact)."""
    changes = tuple(s for s in sols if s.part is not None or s.change is not None)
    return changes, tuple(s.text for s in sols if s.part is None and s.change is None)


def advise(entry: Entry, ctx: Context) -> Entry:
    """`entry` with meaning, solutions, example fix (and per-variant ones) filled in."""
    trigger = entry.trigger.expr
    full = _full(entry)
    ctx = _at_site(entry, full, ctx)
    entry, never = never_fails(entry, full, ctx.model, ctx.renderer, ctx.rule_at)
    unreached = not launch_can_raise(entry.extra)  # no command raises it: no change of one gets past it
    # the nearest earlier raises of the block only, as listed (the whole pipeline judges each
    # solution besides): linear in the raises
    earlier = [g for g in nearest_priors(entry.site, MAX_LISTED_PRIORS) if g.expr != TRUE]
    passed = frozenset(part for g in earlier for part in parts_of(g.expr))
    sols = [] if unreached else [*advised(entry.site.template.text, ctx.model.flags),
                                 *solutions(trigger, ctx, passed)]
    if not unreached:  # the earlier checks on the path: its reach, and the raises before it in its block
        # a raise earlier in the block fires where the path to the block holds and its own test does
        path = [g.expr for g in entry.site.direct if g.origin is not GuardOrigin.PRIOR_RAISE]
        prior = tuple(Reach("", 0, simplify(conj([*path, negate(g.expr)])), ctx.renderer.text(negate(g.expr)))
                      for g in earlier)
        sols = [values_past(s, path, [negate(g.expr) for g in earlier], ctx.model, lambda c: choice_text(c, ctx))
                for s in sols]
        sols = checked_against_reach(sols, full, (*entry.trigger.reach, *prior), ctx.model, ctx.rivals)
    none = _example(None, None, "false", note=(
        "This check guards the program's own code, not the command line (`internal`): it fires only "
        "if the program breaks the contract it checks, so no command raises it."
        if entry.extra.get("internal") else
        f"No command line fails this check (`reachable: false`): {never}." if never else
        "No entry point of the launch reaches this check (`reachable: false`): launching never raises it."))
    variants = []
    fixes = []
    for variant in entry.variants:
        row_sols = [] if unreached else [*advised(variant.template, ctx.model.flags),
                                         *solutions(variant.trigger.expr, ctx, passed)]
        fixes.append(none if unreached else
                     example_fix(conj([trigger, variant.trigger.expr]), full, row_sols, ctx, entry.id))
        changes, notes = _split(row_sols)
        variants.append(replace(variant, solutions=changes, notes=notes, example_fix=fixes[-1],
                                meaning=row_meaning(variant.template)))
    fix, row = (none, None) if unreached else entry_fix(fixes, lambda: example_fix(full, full, sols, ctx, entry.id))
    found = situations(conj([t.expr for t in entry.triggers]), ctx.model.flags, ctx.renderer)
    changes, notes = _split(sols)
    return replace(
        entry, meaning=meaning(entry, ctx.docstrings, ctx.model.flags, ctx.program, ctx.platform_settings),
        solutions=changes, advice_notes=notes, example_fix=fix, variants=tuple(variants),
        extra=with_example_row({**entry.extra, "situations": found} if found else entry.extra, row),
    )



def complete_entries(
    entries: Sequence[Entry], *, flags: Any, adjustments: Sequence[Any], renderer: Renderer,
    launch_prefix: str = "", docstrings: Mapping[tuple[str, str], str] | None = None,
    examples: ExampleRules | None = None, program: str = "the program", order: Sequence[int | None] = (),
    platform_settings: frozenset[str] = frozenset(),
) -> list[Entry]:
    """Advice and related ids for every entry (the catalog step after `build_entries`).

    `examples`: how example commands write values (the profile's `examples:`); the values
    every entry's conditions compare flags and env vars against are added to it. `order`: when a
    launch runs each adjustment (`extractor.program_order`), where known."""
    conditions = (t.expr for e in entries for t in e.triggers)
    known = Examples(examples or ExampleRules()).with_known(conditions)
    model = Model(flags, rules_from_adjustments(adjustments), known)
    rule_at = {id(r): at for r, at in zip(model.rules, order, strict=False) if at is not None}
    full = ((e.id, _full(e)) for e in entries if launch_can_raise(e.extra))
    ctx = Context(model, renderer, launch_prefix, docstrings or {}, rivals=Rivals.of(full, model),
                  reach={e.id: tuple(r.expr for r in e.trigger.reach) for e in entries if e.trigger.reach},
                  program=program, rule_at=rule_at, platform_settings=platform_settings)

    def advised() -> Iterator[Entry]:
        for entry in entries:
            yield advise(entry, ctx)
            ctx.model.forget_nodes()  # its conditions are not asked about again: let them go

    return with_related(advised())
