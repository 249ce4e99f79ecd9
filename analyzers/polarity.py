"""Whether a condition says a flag is set or unset: the basis of flag-to-flag relations."""
from __future__ import annotations

from extractor.ir import Compare, Const, Expr, In, Not, Ref, RefKind, Truthy, Visitor

# (term, True) if a condition says the term is set / given a value, (term, False) if unset.
Polarity = tuple[Expr, bool]


class _Says(Visitor[Polarity | None]):
    """What one condition says about a term: one handler per kind that says anything."""

    def generic(self, expr: Expr) -> Polarity | None:
        return None  # and/or, plain terms: no single term's polarity

    def visit_Not(self, expr: Not) -> Polarity | None:
        found = self.visit(expr.arg)
        return (found[0], not found[1]) if found is not None else None

    def visit_Truthy(self, expr: Truthy) -> Polarity | None:
        return expr.term, True

    def visit_Compare(self, expr: Compare) -> Polarity | None:
        if not isinstance(expr.right, Const):
            return None
        value = expr.right.value
        if expr.op in ("is", "=="):
            return expr.left, value not in (None, False, 0, "")
        if expr.op in ("is not", "!=") and value in (None, False):
            return expr.left, True
        return None  # `x != "a"`, `x > 1`: neither

    def visit_In(self, expr: In) -> Polarity | None:
        values = expr.container.value if isinstance(expr.container, Const) else None
        if not isinstance(values, tuple) or not values or None in values:
            return None
        return expr.item, True


_SAYS = _Says()


def says(conjunct: Expr) -> Polarity | None:
    """(term, True) if the condition says the term is set / true, (term, False) if unset /
    false; None when it says neither."""
    return _SAYS.visit(conjunct)


def flag_polarity(conjunct: Expr) -> tuple[Ref, bool] | None:
    """(flag, True) if the condition says the flag is set / given a value, (flag, False)
    if it says unset; None when it says neither (``x != "a"``, ``x > 1``, non-flags)."""
    found = _SAYS.visit(conjunct)
    if found is None or not isinstance(found[0], Ref) or found[0].kind is not RefKind.FLAG:
        return None
    return found[0], found[1]
