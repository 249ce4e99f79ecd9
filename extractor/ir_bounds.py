"""The numbers a comparison with a constant leaves a term (``x >= 1``: [1, ∞)), and what such
bounds decide of another comparison (``x != 0`` holds wherever ``x >= 1`` does).

Read as real numbers, never as integers: ``1 < x < 2`` is not taken to be empty, so a
comparison is decided only where it is decided for every real number.
"""
from __future__ import annotations

from dataclasses import dataclass
from math import inf

from extractor.ir import MIRRORED_OP, NEGATED_OP, Compare, Const, Expr, Not, is_number

_NUMERIC = frozenset({">", ">=", "<", "<=", "==", "!="})


@dataclass(frozen=True, slots=True)
class Bounds:
    """The numbers between `low` and `high` (each left out where it is open)."""

    low: float = -inf
    low_open: bool = True
    high: float = inf
    high_open: bool = True

    @classmethod
    def of(cls, op: str, number: float) -> Bounds | None:
        """The numbers ``v`` with ``v op number`` (None: ``!=``, not one range)."""
        return {">": cls(low=number), ">=": cls(low=number, low_open=False),
                "<": cls(high=number), "<=": cls(high=number, high_open=False),
                "==": cls(number, False, number, False)}.get(op)

    def meet(self, other: Bounds) -> Bounds:
        low = max((self.low, not self.low_open), (other.low, not other.low_open))
        high = min((self.high, self.high_open), (other.high, other.high_open))
        return Bounds(low[0], not low[1], high[0], high[1])

    @property
    def empty(self) -> bool:
        return self.low > self.high or (self.low == self.high and (self.low_open or self.high_open))

    def within(self, other: Bounds) -> bool:
        """Is every number of these bounds one of `other`'s?"""
        return self.empty or (
            (other.low < self.low or (other.low == self.low and (not other.low_open or self.low_open)))
            and (self.high < other.high or (self.high == other.high and (not other.high_open or self.high_open))))


def bound(expr: Expr, holds: bool) -> tuple[Expr, Bounds] | None:
    """The term `expr` compares with a number, and the numbers it is among where `expr`
    holds (or, not `holds`, fails); None for any other test."""
    if isinstance(expr, Not):  # ``not (x < 1)``: kept negated, as ``x`` may be no number
        return bound(expr.arg, not holds)
    found = _compared(expr)
    if found is None:
        return None
    term, op, number = found
    bounds = Bounds.of(op if holds else NEGATED_OP[op], number)
    return (term, bounds) if bounds is not None else None


def decided(expr: Expr, bounds: Bounds) -> bool | None:
    """`expr`'s truth wherever its term lies within `bounds` (None: it depends on where)."""
    if isinstance(expr, Not):
        truth = decided(expr.arg, bounds)
        return None if truth is None else not truth
    found = _compared(expr)
    if found is None:
        return None
    _, op, number = found
    passing = Bounds.of(NEGATED_OP[op] if op == "!=" else op, number)  # ``x != c``: not ``x == c``
    assert passing is not None
    if bounds.within(passing):
        equal = True
    elif bounds.meet(passing).empty:
        equal = False
    else:
        return None
    return equal != (op == "!=")


def term_of(expr: Expr) -> Expr | None:
    """The term `expr` compares with a number, if it does."""
    if isinstance(expr, Not):
        return term_of(expr.arg)
    found = _compared(expr)
    return found[0] if found is not None else None


def _compared(expr: Expr) -> tuple[Expr, str, float] | None:
    """``x op number``, with a number on the left read mirrored (``1 < x`` is ``x > 1``)."""
    if not isinstance(expr, Compare) or expr.op not in _NUMERIC:
        return None
    left, op, right = expr.left, expr.op, expr.right
    if isinstance(left, Const) and not isinstance(right, Const):
        left, op, right = right, MIRRORED_OP[op], left
    if not isinstance(right, Const) or isinstance(left, Const) or not is_number(right.value):
        return None
    return left, op, right.value
