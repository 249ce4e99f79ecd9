"""What kind of launch a check refuses, in words that name no setting (the trigger names
them): "a combination of features that cannot be used together", "a value outside its
allowed range", ... . Read off the shape of the check's own condition, one conjunct at a
time; "" where the shape says nothing a reader could use."""
from __future__ import annotations

from analyzers.polarity import flag_polarity
from extractor.ir import TRUE, Apply, Compare, Const, Expr, In, Not, Or, Ref, RefKind, conjuncts, refs, simplify, walk

_ORDER = ("<", "<=", ">", ">=")


def _kind(part: Expr) -> str:
    """One conjunct's kind: on, off, range, relation, value, type, platform, model, env, other."""
    found = {r.kind for r in refs(part)}
    if found and found <= {RefKind.PLATFORM, RefKind.RUNTIME}:
        return "platform"
    if found and found <= {RefKind.MODEL}:
        return "model"
    if any(isinstance(node, Apply) and node.fn == "isinstance" for node in walk(part)):
        return "type"
    if isinstance(part, Or) and len({_kind(d) for d in part.args}) == 1:  # ``x <= 0 or x > 1``: a range
        return _kind(part.args[0])
    inner = part.arg if isinstance(part, Not) else part
    if isinstance(inner, In) and isinstance(inner.container, Const):
        return "value"
    if isinstance(inner, Compare):
        sides = (inner.left, inner.right)
        consts = [side.value for side in sides if isinstance(side, Const)]
        if inner.op in _ORDER:
            return "range" if consts else "relation"
        if not consts and all(isinstance(side, Ref) for side in sides):
            return "relation"
        if consts and not any(v is None or isinstance(v, bool) for v in consts):
            return "value"
    said = flag_polarity(part)
    if said is not None:
        return "on" if said[1] else "off"
    if found and found <= {RefKind.ENV}:
        return "env"
    return "other"


def restriction(expr: Expr) -> str:
    """What `expr` (a check's own condition) refuses, as a noun phrase, or ""."""
    expr = simplify(expr)
    if expr == TRUE:
        return "every launch that reaches it"
    kinds = [_kind(p) for p in conjuncts(expr)]
    # what errcat cannot read (a call it does not model) narrows the case but does not change its kind
    own = [k for k in kinds if k not in ("platform", "model", "other")]
    where = (" on this platform" if "platform" in kinds else "") + (" for this model" if "model" in kinds else "")
    if not own:
        return ("a launch" + where) if where and "other" not in kinds else ""
    if "type" in own:
        text = "a value of the wrong type or form"
    elif "relation" in own:
        text = "settings whose values do not fit together"
    elif "range" in own and set(own) <= {"range", "on", "value"}:
        text = "a value outside its allowed range"
    elif "off" in own and "on" in own:
        text = "a feature given without a setting it needs"
    elif "value" in own and ("on" in own or "env" in own or own.count("value") >= 2):
        text = "a combination of settings that cannot be used together"
    elif "value" in own:
        text = "a value this code path does not accept"
    elif own.count("on") >= 2 or (own.count("on") == 1 and "env" in own):
        text = "a combination of features that cannot be used together"
    elif own == ["on"]:
        text = "a feature that cannot be used here"
    elif set(own) == {"off"}:
        text = "a launch that leaves out a setting it needs"
    elif set(own) == {"env"}:
        text = "an environment variable setting"
    else:
        return ""
    return text + where
