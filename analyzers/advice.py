"""What a reader of an entry needs beyond the facts: meaning, solutions, a checked example fix.

Everything is derived from the code: the meaning by `analyzers.meaning`; solutions
from the trigger's conjuncts, one per user-controllable part, innermost first (the
condition the message is about); the example fix from `analyzers.witness`, its
outcome predicted by `analyzers.evaluate` (`predicted`); `verified` belongs to the
real program (`errcat confirm`) and is "not-run" here.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from analyzers.advice_context import Context, option_name, parts_of
from analyzers.candidate_values import NOT_GIVEN, constants_in, takes_json
from analyzers.counts import positive_sizes
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
from analyzers.evaluate import evaluate
from analyzers.example_search import example_fix, example_record
from analyzers.examples import Examples, is_made_up
from analyzers.feeding import feeding_leaves
from analyzers.flag_types import ValueKind, value_type
from analyzers.kleene import Truth
from analyzers.listed_values import values_past
from analyzers.meaning import meaning, row_meaning
from analyzers.message_advice import advised
from analyzers.readable import states_code
from analyzers.related import with_related
from analyzers.rivals import Rivals
from analyzers.rules import rules_from_adjustments
from analyzers.situations import situations
from analyzers.solution import NO_GOAL, Solution, ValueChoice
from analyzers.solution_reach import checked_against_reach
from analyzers.trigger import MAX_OPERANDS, Renderer, more
from analyzers.well_formed import form_text, json_form, object_form, parse_form
from analyzers.witness import Leaf, assign, base_launch, candidates, settable_leaves
from extractor.inline import inline_returns
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
    disj,
    is_number,
    negate,
    refs,
    simplify,
    unknowns,
    walk,
)
from extractor.profile import ExampleRules
from extractor.records import GuardOrigin

MAX_LISTED = 8  # values named in one solution
MAX_SOLUTIONS = MAX_OPERANDS  # solutions (and undecided terms) listed; the rest are counted
MAX_GOAL = 240  # characters of a condition a solution states ("… so that <goal>")
RESTATES = " so that "  # in a solution's words where they restate a condition, not a concrete change


# ------------------------------------------------------------------ solutions


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
        names = ", ".join(option_name(x, ctx) for x in leaves)
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
    names = ", ".join(option_name(x, ctx) for x in leaves)
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
    return f"Set {option_name(leaf, ctx)} to a value {'not ' if holds else ''}{where} with `{tested[0]}`."


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
    name = option_name(leaf, ctx)
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
        return form_text(option_name(choice.leaf, ctx), choice.form, shown_value(choice.listed[0]), choice.unset)
    if not choice.listed and choice.others:  # name a value that works, not only the ones refused
        return _other_text(choice, ctx)
    return values_text(option_name(choice.leaf, ctx), choice.leaf.kind is RefKind.ENV,
                       [shown_value(v) for v in choice.listed], choice.offending, choice.unset)


def _other_text(choice: ValueChoice, ctx: Context) -> str:
    """"Set `--x` to 1 (refused: 0)", "Pass `--x`": the first value after which the part does
    not hold (the examples' judge tries it through the whole pipeline where a command reaches the error)."""
    name, value = option_name(choice.leaf, ctx), choice.others[0]
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
    none = example_record(None, None, "false", note=(
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
    functions: Mapping[str, tuple[tuple[str, ...], Expr]] | None = None,
) -> list[Entry]:
    """Advice and related ids for every entry (the catalog step after `build_entries`).

    `examples`: how example commands write values (the profile's `examples:`); the values
    every entry's conditions compare flags and env vars against are added to it. `order`: when a
    launch runs each adjustment (`extractor.program_order`), where known. `functions`: what the
    plain functions the checks call return (`extractor.inline.called_functions`)."""
    conditions = (t.expr for e in entries for t in e.triggers)
    known = Examples(examples or ExampleRules()).with_known(conditions)
    model = Model(flags, rules_from_adjustments(adjustments), known)
    rule_at = {id(r): at for r, at in zip(model.rules, order, strict=False) if at is not None}
    derived = {name: f for name, f in (functions or {}).items() if not f[0]}  # see `Context.derived_facts`
    full = ((e.id, _full(e)) for e in entries if launch_can_raise(e.extra))
    ctx = Context(model, renderer, launch_prefix, docstrings or {}, rivals=Rivals.of(full, model),
                  reach={e.id: tuple(inline_returns(r.expr, derived) for r in e.trigger.reach)
                         for e in entries if e.trigger.reach},
                  program=program, rule_at=rule_at, platform_settings=platform_settings,
                  derived_facts=derived)

    def advised() -> Iterator[Entry]:
        for entry in entries:
            yield advise(entry, ctx)
            ctx.model.forget_nodes()  # its conditions are not asked about again: let them go

    return with_related(advised())
