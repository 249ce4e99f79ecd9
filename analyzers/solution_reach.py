"""Solutions tried against the earlier checks on the error's path: a change after which one of
them surely fires trades this error for that one, and says so (`checked_against_reach`)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import cast

from analyzers.entries import Reach
from analyzers.eval_model import Model
from analyzers.evaluate import evaluate
from analyzers.kleene import Truth
from analyzers.launch import Launch
from analyzers.rivals import Rivals
from analyzers.solution import Solution
from analyzers.witness import assign, base_launch, falsify, satisfy, settable_leaves
from extractor.ir import Expr, conj, negate


def checked_against_reach(sols: Sequence[Solution], full: Expr, reach: Sequence[Reach], model: Model,
                          rivals: Rivals) -> list[Solution]:
    """`sols`, each tried on a launch where the error fires: a change after which an earlier
    check on the path surely fires, whatever values of its settings it picks (``--tp-size 1``
    where ``tp_size <= 1`` is refused before), trades this error for that one; it goes last
    and says so."""
    if not reach:
        return list(sols)
    before, fired = satisfy(full, model, base_launch(model))
    if fired is Truth.FALSE:
        return list(sols)
    whole = {r.id: r.expr for r in rivals.rivals}
    passing = [r for r in reach if evaluate(r.expr, before, model) is not Truth.TRUE]
    good: list[Solution] = []
    trading: list[Solution] = []
    for sol in sols:
        first = _tripped(sol, full, before, passing, whole, model, fired is Truth.TRUE) if sol.part is not None \
            else None
        if first is not None:
            where = (f"entry {first.entry} (line {first.line})" if first.entry else
                     f"the earlier check on {first.text}")
            trading.append(Solution(f"{sol.text.rstrip('.')} — alone, this makes {where} fire first.", sol.part,
                                    passed=sol.passed))
        else:
            good.append(sol)
    return good + trading


def _tripped(sol: Solution, full: Expr, before: Launch, passing: Sequence[Reach], whole: Mapping[str, Expr],
             model: Model, fires_here: bool) -> Reach | None:
    """The earlier check (of `passing`) `sol`'s change surely makes fire on `before`: the one
    value its words name ("valid JSON, e.g. `'{}'`": a launch the error may fire on will do),
    else, where the error surely fires on `before` (`fires_here`), the smallest change where no
    other value of the same settings avoids it."""
    def fires(after: Launch) -> Reach | None:  # on the path only while its guards hold: the whole condition decides
        return next((r for r in passing if evaluate(whole.get(r.entry, r.expr), after, model) is Truth.TRUE), None)

    part, choice = cast(Expr, sol.part), sol.choice
    named = choice.named if choice is not None else ()
    if choice is not None and len(named) == 1:
        after = assign(before, choice.leaf, named[0])
        if evaluate(part, after, model) is Truth.FALSE:
            return fires(after)
    if not fires_here:
        return None
    first = fires(falsify(full, part, model, before)[0])
    if first is not None:  # the smallest change trips it: does another value of the same settings not?
        goal = conj([negate(part), *(negate(r.expr) for r in passing)])
        if satisfy(goal, model, before, settable_leaves(part, model))[1] is Truth.TRUE:
            return None
    return first
