"""The example fix of a condition: a command that raises it (`before`) and the change
that stops it (`after`), found by `analyzers.witness` on the launches options and env vars
make, moved off the other entries' conditions and past the earlier checks, with the
evaluator's prediction (`predicted`) and, where the example holds only on a stated
machine or model, what it assumes (`assuming`, `needs`)."""
from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from analyzers.advice_context import Context, option_name, parts_of
from analyzers.counts import adds_nonpositive
from analyzers.evaluate import evaluate, undecided
from analyzers.kleene import Truth
from analyzers.launch import Launch, command
from analyzers.settings import base_dest
from analyzers.solution import Solution
from analyzers.stated_model import one_architecture, stated_model
from analyzers.trigger import MAX_OPERANDS, more
from analyzers.witness import assign, base_launch, fact_leaves, falsify, satisfy, settable_leaves
from extractor.inline import inline_returns
from extractor.ir import (
    TRUE,
    Compare,
    Const,
    Expr,
    Not,
    Ref,
    RefKind,
    Truthy,
    conj,
    negate,
    refs,
)

NOT_RUN = "not-run"  # `verified` until the real program has run the example (`errcat confirm`)


def _verdict(before: Truth, after: Truth) -> str:
    if before is Truth.TRUE and after is Truth.FALSE:
        return "true"
    if Truth.UNKNOWN in (before, after):
        return "unknown"
    return "false"


def example_record(before: str | None, after: str | None, predicted: str, **more: Any) -> dict[str, Any]:
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
    if ctx.derived_facts:  # a platform fact derived from others is assumed through those
        fire, full = inline_returns(fire, ctx.derived_facts), inline_returns(full, ctx.derived_facts)
    plain, fired = _before(fire, ctx, own)
    sols = _machine_last(sols, ctx)
    fix = _plain_fix(fire, full, sols, ctx, plain, fired)
    if fix.get("before") and (machine := _platform_of(plain)):
        fix["needs"] = machine
    if fix["predicted"] == "unknown" and fact_leaves(fire):
        fix = _assumed_fix(fire, full, sols, ctx, plain) or _architecture_fix(fire, full, sols, ctx, plain) or fix
    if fix.get("before") and "needs" not in fix and (needs := platform_needs(fire, ctx)):
        fix["needs"] = needs
    return fix


def _platform_of(launch: Launch) -> list[str]:
    """The platform facts `launch` states (``platform:NAME=value``): what an example needs."""
    return sorted(f"{key}={json.dumps(value)}" for key, value in launch.facts.items()
                  if key.startswith(f"{RefKind.PLATFORM}:"))


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
    return _machine_passes(fire, fired, reach, before, ctx), fired


def _machine_passes(fire: Expr, fired: Truth, reach: Sequence[Expr], before: Launch, ctx: Context) -> Launch:
    """`before` on a machine where the earlier checks of `reach` that its options leave to
    the platform pass (InfiniBand present, a platform that snapshots Mamba state): those
    facts are stated in `before` (the example needs such a machine), `fire` staying `fired`.
    Only a check that fires for sure on a machine with none of the facts it reads (no GPU of
    the kind it tests) asks for a machine."""
    for first in reach:
        leaves = [leaf for leaf in fact_leaves(first) if leaf.kind is RefKind.PLATFORM]
        if not leaves or evaluate(first, before, ctx.model) is not Truth.UNKNOWN:
            continue
        bare = before
        for leaf in leaves:
            bare = assign(bare, leaf, False)
        if evaluate(first, bare, ctx.model) is not Truth.TRUE:  # it fires there for sure, or needs no machine
            continue
        moved, passes = satisfy(negate(first), ctx.model, before, leaves)
        if passes is Truth.TRUE and evaluate(fire, moved, ctx.model) is fired:
            before = moved
    return before


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
        searched = ", ".join(dict.fromkeys(option_name(leaf, ctx) for leaf in settable_leaves(fire, ctx.model)))
        return example_record(None, None, "false",
                        note="No command line the search tried triggers this"
                        + (f" (it varied {searched})" if searched else "")
                        + ": it may be reachable only through the Python API, or not at all.")
    if not settable_leaves(fire, ctx.model):  # no command to show: say why in one line
        fix = _with_undecided(example_record(None, None, "unknown"), [(fire, before)], ctx)
        said = ", ".join(fix.get("undecided", [])[:3])
        fix["note"] = ("No command line is shown: no option or environment variable decides this check"
                       + (f"; it depends on {said}." if said else "."))
        return fix
    return _with_undecided(example_record(command(before, ctx.model.flags, ctx.launch_prefix), None, "unknown"),
                           [(fire, before)], ctx)


def _same_command(a: Launch, b: Launch, ctx: Context) -> bool:
    flags = ctx.model.flags
    return a == b or command(a, flags, ctx.launch_prefix) == command(b, flags, ctx.launch_prefix)


def _fix(before: Launch, fired: Truth, after: Launch, still: Truth, sol: Solution, fire: Expr, full: Expr,
         ctx: Context) -> dict[str, Any]:
    flags = ctx.model.flags
    fix = example_record(command(before, flags, ctx.launch_prefix), command(after, flags, ctx.launch_prefix),
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
        hidden = more(len(found) - MAX_OPERANDS, "and", "term").lstrip()
        fix["undecided"] = found[:MAX_OPERANDS] + [hidden] if hidden else found
    return fix
