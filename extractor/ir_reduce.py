"""Logical reduction of a condition for a person to read: what the rest of a condition
already decides is folded away, and operands repeated across a conjunction of disjunctions
(or a disjunction of conjunctions) are said once.

`simplify` normalises one node at a time; a trigger built from a chain of guards repeats
whole guards inside one another (``a and (a and x or a and not x)``, five clauses each
starting "`--kv-cache-dtype` is not nvfp4 or ..."). Python's tests are two-valued, so the
reductions are the usual laws: an operand of ``and`` is read knowing the others hold, one
of ``or`` knowing the others fail (absorption, unit propagation), and the distributive law
read backwards (``(a or x) and (a or y)`` is ``a or (x and y)``).
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from extractor.ir import And, Compare, Const, Expr, In, Not, Or, conj, disj, negate, simplify
from extractor.ir_bounds import Bounds, bound, decided, term_of

# rounds of `reduced`: each folds what the previous one's factoring exposed
_ROUNDS = 3


@lru_cache(maxsize=4096)  # a trigger's parts are rendered for its text, its reach and its rows
def reduced(expr: Expr) -> Expr:
    """`expr` with what its own operands decide folded away and shared operands factored out,
    equivalent to it wherever each test is true or false."""
    out = simplify(expr)
    for _ in range(_ROUNDS):
        step = simplify(_factored(_folded(out, {})))
        if step == out:
            break
        out = step
    return out


def factored(expr: Expr) -> Expr:
    """`expr` with operands shared across the operands of a conjunction of disjunctions (or
    a disjunction of conjunctions) said once, nothing folded: every test the code makes stays."""
    return simplify(_factored(simplify(expr)))


@dataclass(frozen=True, slots=True)
class _Value:
    """The key of what an operand ``x == c`` (or a failing ``x != c``) says of ``x``: other
    tests of ``x`` against constants (``x != d``, ``x in (c, d)``) are decided by it."""

    term: Expr


@dataclass(frozen=True, slots=True)
class _Range:
    """The key of the numbers operands ``x >= c``, ``x < d`` (holding, or failing) leave ``x``."""

    term: Expr


Facts = Mapping[Any, Any]  # a condition -> its truth; a `_Value` -> the term's value; a `_Range` -> its `Bounds`


def _known(expr: Expr, facts: Facts) -> Const | None:
    if expr in facts:
        return Const(facts[expr])
    opposite = negate(expr)
    if opposite in facts:
        return Const(not facts[opposite])
    if (term := term_of(expr)) is not None and _Range(term) in facts:
        truth = decided(expr, facts[_Range(term)])
        if truth is not None:
            return Const(truth)
    if isinstance(expr, Compare) and isinstance(expr.right, Const) and _Value(expr.left) in facts:
        found = simplify(Compare(expr.op, Const(facts[_Value(expr.left)]), expr.right))
    elif isinstance(expr, In) and isinstance(expr.container, Const) and _Value(expr.item) in facts:
        found = simplify(In(Const(facts[_Value(expr.item)]), expr.container))
    elif isinstance(expr, In) and isinstance(expr.item, Const) and _Value(expr.container) in facts:
        found = simplify(In(expr.item, Const(facts[_Value(expr.container)])))  # ``"B" in arch``, arch known
    else:
        return None
    return found if isinstance(found, Const) else None


class _Layer:
    """What the operands of one conjunction (`holds`) or disjunction say to each other, on top
    of `facts`: each fact with the operands it comes from, so that an operand is read without
    what it says of itself and without what the operands read away before it said (linear in
    the operands: a condition may have thousands)."""

    def __init__(self, args: tuple[Expr, ...], holds: bool, facts: Facts) -> None:
        self.facts = facts
        self.said: dict[Any, list[tuple[int, Any]]] = {}  # fact -> (operand, what it says)
        self.dropped: set[int] = set()  # operands read away (the neutral element of the junction)
        # ``x == c`` holding, or ``x != c`` failing, gives ``x``'s value
        equal = "==" if holds else "!="
        for i, arg in enumerate(args):
            self.said.setdefault(arg, []).append((i, holds))
            if isinstance(arg, Compare) and arg.op == equal and isinstance(arg.right, Const) \
                    and not isinstance(arg.left, Const):
                self.said.setdefault(_Value(arg.left), []).append((i, arg.right.value))
            if (found := bound(arg, holds)) is not None:
                self.said.setdefault(_Range(found[0]), []).append((i, found[1]))

    def without(self, i: int) -> _Read:
        return _Read(self, i)


class _Read(Mapping[Any, Any]):
    """The facts operand `skip` of a `_Layer` is read with: the others', then the outer ones."""

    def __init__(self, layer: _Layer, skip: int) -> None:
        self.layer, self.skip = layer, skip

    def __getitem__(self, key: Any) -> Any:
        said = [v for i, v in self.layer.said.get(key, ()) if i != self.skip and i not in self.layer.dropped]
        if isinstance(key, _Range):  # the bounds of a number are narrowed, never replaced
            outer = self.layer.facts.get(key)
            if not said and outer is None:
                raise KeyError(key)
            found: Bounds = outer or Bounds()
            for bounds in said:
                found = found.meet(bounds)
            return found
        if said:
            return said[0]
        return self.layer.facts[key]

    def __contains__(self, key: object) -> bool:
        try:
            self[key]
        except KeyError:
            return False
        return True

    def __iter__(self) -> Iterator[Any]:
        seen = {k for k, said in self.layer.said.items()
                if any(i != self.skip and i not in self.layer.dropped for i, _ in said)}
        yield from seen
        yield from (k for k in self.layer.facts if k not in seen)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def _folded(expr: Expr, facts: Facts) -> Expr:
    """`expr` with each sub-condition `facts` decides replaced by its truth."""
    known = _known(expr, facts)
    return known if known is not None else _inside(expr, facts)


def _inside(expr: Expr, facts: Facts) -> Expr:
    """`_folded` below `expr`'s own node."""
    if isinstance(expr, Not):
        return negate(_folded(expr.arg, facts))
    if not isinstance(expr, (And, Or)):
        return expr
    holds = isinstance(expr, And)  # an operand of `and` is read where the others hold
    layer = _Layer(expr.args, holds, facts)
    parts = list(expr.args)
    for i, arg in enumerate(parts):
        # never what the operand says of itself (``not x`` would decide its own ``x``); one at a
        # time, without what the operands read away before it said, so two operands that say the
        # same (``x > 1``, ``1 < x``) never both fold away as implied by each other
        context = layer.without(i)
        parts[i] = known if (known := _known(arg, context)) is not None else _inside(arg, context)
        if parts[i] == Const(holds):
            layer.dropped.add(i)
    return simplify(conj(parts) if holds else disj(parts))


def _factored(expr: Expr) -> Expr:
    """`expr` with operands shared by several conjunction (disjunction) operands of a
    disjunction (conjunction) said once, bottom-up."""
    if isinstance(expr, Not):
        return negate(_factored(expr.arg))
    if not isinstance(expr, (And, Or)):
        return expr
    args = [_factored(a) for a in expr.args]
    while (merged := _factor_once(args, isinstance(expr, And))) is not None:
        args = merged
    return conj(args) if isinstance(expr, And) else disj(args)


def _factor_once(args: list[Expr], holds: bool) -> list[Expr] | None:
    """`args` (of a conjunction: `holds`) with the operands that share the most common inner
    operand merged: ``(a or x), (a or y)`` -> ``a or (x and y)``; None where none share one."""
    inner, join, outer = (Or, disj, conj) if holds else (And, conj, disj)
    groups = [a for a in args if isinstance(a, inner)]
    counts = Counter(p for g in groups for p in set(g.args))
    common = [p for p, n in counts.most_common(1) if n > 1]
    if not common:
        return None
    group = [g for g in groups if common[0] in g.args]
    shared = [p for p in group[0].args if all(p in g.args for g in group)]
    rest = [join([p for p in g.args if p not in shared]) for g in group]
    return [join([*shared, outer(rest)]), *(a for a in args if not any(a is g for g in group))]
