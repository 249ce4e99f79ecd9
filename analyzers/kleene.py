"""Three-valued (Kleene) truth and the values nobody can decide: what every evaluator answer is made of."""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from extractor.compat import StrEnum


class Truth(StrEnum):
    TRUE = "true"
    FALSE = "false"
    UNKNOWN = "unknown"

    @classmethod
    def of(cls, value: bool | None) -> Truth:
        return cls.UNKNOWN if value is None else cls.TRUE if value else cls.FALSE


class _Missing:
    """The value of a leaf nobody can decide (a singleton, never equal to a real value)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Missing()


class _Raising:
    """The truth of a condition whose evaluation raises in Python (``None > 1``: TypeError).
    Compiled truth code returns it so ``a and b`` stops there as Python does (a later false
    operand does not make it false); `Decider.decide`, `truth` and the rules read it as
    unknown (the check raises an error of no entry)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "RAISING"


RAISING: Any = _Raising()


def as_truth(result: Any) -> bool | None:
    """A compiled truth code's result as Kleene truth (`RAISING` is unknown)."""
    return None if result is RAISING else result


def raises_in_python(op: str, a: Any, b: Any) -> bool:
    """Does Python surely raise comparing `a` and `b`? Ordering with None does (what a
    setting left unset holds); other failures may be the evaluator's own values."""
    return op in ("<", "<=", ">", ">=") and (a is None or b is None)


def same(a: Any, b: Any) -> bool:
    if a is UNKNOWN or b is UNKNOWN:
        return a is b
    try:
        if isinstance(a, Mapping) and isinstance(b, Mapping):  # a dict given, a `FrozenMap` declared
            return bool(a == b)
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return False


# The combinators below take their operands as functions of one argument (the settings
# for compiled code, the launch for `node`s), so both evaluate them with the same code;
# compiled code binds the operands with `partial` (positionally: keywords would cost a dict
# per call), which costs no Python frame.


def truthy(get: Callable[[Any], Any], arg: Any) -> bool | None:
    """Python's ``bool(get(arg))``; None when it is unknown or raises."""
    got = get(arg)
    if got is UNKNOWN:
        return None
    try:
        return bool(got)
    except Exception:
        return None


def kleene(parts: Sequence[Callable[[Any], bool | None]], stop: bool, arg: Any) -> bool | None:
    """Kleene ``or`` (`stop` True) or ``and`` (`stop` False) of ``part(arg)`` for each part:
    the first part that is `stop` decides, else unknown if one is, else ``not stop``. A part
    that raises (`RAISING`) ends it as in Python: it raises, or is unknown after an unknown
    part (which may have decided first)."""
    undecided = False
    for part in parts:
        result = part(arg)
        if result is stop:
            return stop
        if result is None:
            undecided = True
        elif result is RAISING:
            return None if undecided else RAISING
    return None if undecided else not stop


def negated(part: Callable[[Any], bool | None], arg: Any) -> bool | None:
    """Kleene ``not`` of ``part(arg)`` (what raises still raises)."""
    result = part(arg)
    return result if result is None or result is RAISING else not result

