"""The ways a condition can hold: its disjunctive form as tuples of literals (bounded), with
the parts a launch's stated facts decide read as that launch states them. The example search
(`analyzers.witness`) fixes one way literal by literal."""
from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

from analyzers.deciders import node
from analyzers.eval_model import Model
from analyzers.launch import Launch
from extractor.ir import FALSE, TRUE, And, Expr, Not, Or, as_condition, conj, disj, negate, simplify

MAX_DISJUNCTS = 16


def literals(expr: Expr) -> list[tuple[Expr, ...]]:
    """Disjuncts (each a tuple of literals) of `expr`, at most `MAX_DISJUNCTS`."""
    return _dnf(simplify(expr), negated=False)


def _dnf(expr: Expr, negated: bool) -> list[tuple[Expr, ...]]:
    expr = as_condition(expr)
    if isinstance(expr, Not):
        return _dnf(expr.arg, not negated)
    if isinstance(expr, (And, Or)):
        parts = [_dnf(a, negated) for a in expr.args]
        if isinstance(expr, And) != negated:  # a conjunction after De Morgan
            return _products(parts)
        return [d for part in parts for d in part][:MAX_DISJUNCTS]
    return [(negate(expr) if negated else expr,)]


def _products(parts: Sequence[list[tuple[Expr, ...]]]) -> list[tuple[Expr, ...]]:
    """The disjuncts of an ``and`` of disjunctive forms: one disjunct of each, joined
    (bounded); a join holding a literal and its negation is no way to make it hold, and
    is dropped before it takes the place of one that is (the bound would cut those). The
    parts with fewest ways are joined first, so that a literal every way needs rules out
    the ways contradicting it before the bound is reached; each disjunct keeps the
    literals in the order of `parts`."""
    order = sorted(range(len(parts)), key=lambda i: len(parts[i]))
    out: list[tuple[tuple[Expr, ...], tuple[int, ...]]] = [((), ())]  # literals, chosen way per part in `order`
    for i in order:
        joined = ((j, chosen + (w,)) for (left, chosen), (w, way) in itertools.product(out, enumerate(parts[i]))
                  if (j := _joined(left, way)) is not None)
        out = list(itertools.islice(joined, MAX_DISJUNCTS))
    return [_in_order(parts, dict(zip(order, chosen, strict=True))) for _, chosen in out]


def _in_order(parts: Sequence[list[tuple[Expr, ...]]], chosen: Mapping[int, int]) -> tuple[Expr, ...]:
    """The `chosen` way of each part joined in the order of `parts` (they agree: joined once)."""
    out: tuple[Expr, ...] = ()
    for i, part in enumerate(parts):
        out = _joined(out, part[chosen[i]]) or out
    return out


def _joined(left: tuple[Expr, ...], right: tuple[Expr, ...]) -> tuple[Expr, ...] | None:
    """``left and right`` as one disjunct (a literal once), None where it contradicts itself."""
    seen = set(left)
    added = []
    for literal in right:
        if literal in seen:
            continue
        if negate(literal) in seen:
            return None
        seen.add(literal)
        added.append(literal)
    return left + tuple(added)


def fixed_on(expr: Expr, model: Model, launch: Launch) -> Expr:
    """`expr` with each part that reads no flag or env var (a model or platform fact) as
    `launch` decides it: the search changes flags and env vars only, so a way through a
    fact that is false there is no way, and the bounded disjuncts are spent on real ones."""
    expr = as_condition(expr)
    if isinstance(expr, (And, Or)):
        parts = [fixed_on(a, model, launch) for a in expr.args]
        return conj(parts) if isinstance(expr, And) else disj(parts)
    if isinstance(expr, Not):
        return negate(fixed_on(expr.arg, model, launch))
    can_true, can_false = node(model, expr).outcomes(launch)
    if can_true != can_false:  # decided without flags or env vars
        return TRUE if can_true else FALSE
    return expr
