"""What kind of launch a check refuses, read off the shape of its own condition, one
conjunct at a time: `Category` (the entry `meaning`'s categories; `analyzers.meaning` also
reads the message and the code around the check), or None where the shape says nothing a
reader could use."""
from __future__ import annotations

from analyzers.polarity import flag_polarity
from extractor.compat import StrEnum
from extractor.ir import TRUE, Apply, Compare, Const, Expr, In, Not, Or, Ref, RefKind, conjuncts, refs, simplify, walk

_ORDER = ("<", "<=", ">", ">=")


def _kind(part: Expr) -> str:
    """One conjunct's kind: on, off, range, relation, value, type, platform, model, env, other."""
    found = {r.kind for r in refs(part)}
    fact = _fact(part, found)
    if fact:
        return fact
    if isinstance(part, Or) and len({_kind(d) for d in part.args}) == 1:  # ``x <= 0 or x > 1``: a range
        return _kind(part.args[0])
    inner = part.arg if isinstance(part, Not) else part
    if isinstance(inner, In) and isinstance(inner.container, Const):
        return "value"
    compared = _compared(inner) if isinstance(inner, Compare) else None
    if compared:
        return compared
    said = flag_polarity(part)
    if said is not None:
        return "on" if said[1] else "off"
    if found and found <= {RefKind.ENV}:
        return "env"
    return "other"


def _fact(part: Expr, found: set[RefKind]) -> str | None:
    """platform, model: a conjunct on facts no option sets; type: one checking a value's type."""
    if found and found <= {RefKind.PLATFORM, RefKind.RUNTIME}:
        return "platform"
    if found and found <= {RefKind.MODEL}:
        return "model"
    if any(isinstance(node, Apply) and node.fn == "isinstance" for node in walk(part)):
        return "type"
    return None


def _compared(inner: Compare) -> str | None:
    """A comparison's kind: range (against a number), relation (of two settings), value; None: neither."""
    sides = (inner.left, inner.right)
    consts = [side.value for side in sides if isinstance(side, Const)]
    if inner.op in _ORDER:
        return "range" if consts else "relation"
    if not consts and all(isinstance(side, Ref) for side in sides):
        return "relation"
    if consts and not any(v is None or isinstance(v, bool) for v in consts):
        return "value"
    return None


class Category(StrEnum):
    """Why a launch is refused, as the issue's categories name them."""

    PARSE = "does not parse"
    COMPANION = "needs a companion option"
    EXCLUSIVE = "options exclude each other"
    RANGE = "value out of range"
    PLATFORM = "platform not supported"
    MODEL = "model not supported"
    INTERNAL = "internal invariant"
    MISSING = "missing file or package"


def kinds(expr: Expr) -> list[str]:
    """The kind of each conjunct of `expr` (simplified): on, off, range, relation, value,
    type, platform, model, env, other; none for "always"."""
    expr = simplify(expr)
    return [] if expr == TRUE else [_kind(p) for p in conjuncts(expr)]


def restriction(expr: Expr) -> Category | None:
    """The category `expr` (a check's own condition) refuses by its shape, or None."""
    found = kinds(expr)
    # what errcat cannot read (a call it does not model) narrows the case but does not change its kind
    own = [k for k in found if k not in ("platform", "model", "other")]
    if not own:
        if "other" in found:
            return None
        return Category.PLATFORM if "platform" in found else Category.MODEL if "model" in found else None
    return _by_own(own)


def _by_own(own: list[str]) -> Category | None:
    """The category of the conjuncts on settings (`own`: their kinds)."""
    if "type" in own:
        return Category.PARSE
    if "off" in own:  # given without what it needs (or a needed setting left out)
        return Category.COMPANION
    if "relation" in own or ("range" in own and set(own) <= {"range", "on", "value"}):
        return Category.RANGE
    if own.count("value") == 1 and len(own) == 1:  # a value outside the accepted set
        return Category.RANGE
    if len(own) >= 2 and set(own) <= {"on", "value", "env"}:
        return Category.EXCLUSIVE
    return None
