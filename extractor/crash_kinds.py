"""What an operation raises when a user's value breaks it: per kind of operation, Python's
exception and its message template (as CPython 3.10-3.12 words them), and the check that is
missing, written in the style of a validation check. Pure data and pure functions; the walk
that finds the operations is `extractor.crash_sites`."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from extractor.shape import record, text


@dataclass(frozen=True, slots=True)
class CrashKind:
    operation: str  # a name for the kind of operation, as entries and `errcat gaps` group them
    exception: str
    message: str  # the message template (`{hole}`: the source text of a value)


MODULO = CrashKind("modulo", "ZeroDivisionError", "integer modulo by zero")
DIVISION = CrashKind("division", "ZeroDivisionError", "division by zero")
FLOOR_DIVISION = CrashKind("floor-division", "ZeroDivisionError", "integer division or modulo by zero")
DIVMOD = CrashKind("divmod", "ZeroDivisionError", "integer division or modulo by zero")
INT = CrashKind("int", "ValueError", "invalid literal for int() with base 10: {value!r}")
FLOAT = CrashKind("float", "ValueError", "could not convert string to float: {value!r}")
JSON = CrashKind("json", "json.decoder.JSONDecodeError", "{error}: line {line} column {column} (char {position})")
KEY = CrashKind("key", "KeyError", "{key!r}")
INDEX = CrashKind("index", "IndexError", "{kind} index out of range")
NONE_ATTRIBUTE = CrashKind("none-attribute", "AttributeError", "'NoneType' object has no attribute '{name}'")
NONE_ITERATION = CrashKind("none-iteration", "TypeError", "'NoneType' object is not iterable")
NONE_LEN = CrashKind("none-len", "TypeError", "object of type 'NoneType' has no len()")
NONE_SUBSCRIPT = CrashKind("none-subscript", "TypeError", "'NoneType' object is not subscriptable")
NONE_UNPACK = CrashKind("none-unpack", "TypeError", "cannot unpack non-iterable NoneType object")
NONE_MEMBERSHIP = CrashKind("none-membership", "TypeError", "argument of type 'NoneType' is not iterable")
TOO_FEW = CrashKind("split-unpack", "ValueError", "not enough values to unpack (expected {expected}, got {got})")
TOO_MANY = CrashKind("split-unpack", "ValueError", "too many values to unpack (expected {expected})")

ZERO_DIVISORS = (MODULO, DIVISION, FLOOR_DIVISION, DIVMOD)
NONE_KINDS = (NONE_ATTRIBUTE, NONE_ITERATION, NONE_LEN, NONE_SUBSCRIPT, NONE_UNPACK, NONE_MEMBERSHIP)


@dataclass(frozen=True, slots=True)
class Crash:
    """What a crash site adds to a raise site: the operation, the expression that fails, the
    value that breaks it (source text) and the test of that value a check would make."""

    operation: str
    expression: str
    value: str
    test: str  # Python source, true where the operation fails: ``cfg.nnodes < 1``
    wants: str  # what the value must be, in words: "at least 1", "set", "an integer"

    def as_dict(self) -> dict[str, Any]:
        return {"operation": self.operation, "expression": self.expression, "value": self.value,
                "test": self.test, "wants": self.wants}

    @classmethod
    def from_dict(cls, data: object) -> Crash:
        d = record(data, cls)
        return cls(text(d["operation"]), text(d["expression"]), text(d["value"]), text(d["test"]),
                   text(d["wants"]))


def divisor_test(value: str, plain: bool) -> tuple[str, str]:
    """The test a check of a divisor makes, and what it wants: a bare setting is a count
    (``x < 1``, "at least 1"), any other expression only must not be zero."""
    return (f"{value} < 1", "at least 1") if plain else (f"({value}) == 0", "not zero")
