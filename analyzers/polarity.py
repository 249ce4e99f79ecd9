"""Whether a condition says a flag is set or unset: the basis of flag-to-flag relations."""
from __future__ import annotations

from extractor.ir import And, Compare, Const, Expr, In, Not, Ref, RefKind, Truthy, simplify


def conjuncts(expr: Expr) -> tuple[Expr, ...]:
    """The top-level parts of a conjunction (the expression itself if it is not one)."""
    expr = simplify(expr)
    return expr.args if isinstance(expr, And) else (expr,)


def flag_polarity(conjunct: Expr) -> tuple[Ref, bool] | None:
    """(flag, True) if the condition says the flag is set / given a value, (flag, False)
    if it says unset; None when it says neither (``x != "a"``, ``x > 1``, non-flags)."""
    negated = False
    while isinstance(conjunct, Not):
        conjunct, negated = conjunct.arg, not negated
    ref: Expr | None = None
    positive = True
    if isinstance(conjunct, Truthy):
        ref = conjunct.term
    elif isinstance(conjunct, Compare) and isinstance(conjunct.right, Const):
        ref, value = conjunct.left, conjunct.right.value
        if conjunct.op in ("is", "=="):
            positive = value not in (None, False, 0, "")
        elif conjunct.op in ("is not", "!=") and value in (None, False):
            positive = True
        else:
            return None
    elif isinstance(conjunct, In) and isinstance(conjunct.container, Const):
        values = conjunct.container.value if isinstance(conjunct.container.value, tuple) else ()
        if not values or None in values:
            return None
        ref = conjunct.item
    if not isinstance(ref, Ref) or ref.kind is not RefKind.FLAG:
        return None
    return ref, positive != negated
