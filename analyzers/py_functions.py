"""The Python functions and operators the evaluator computes on known values, and what they raise."""
from __future__ import annotations

import ast
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from analyzers.kleene import UNKNOWN
from extractor import parse
from extractor.ir import (
    ATTRIBUTE,
    PARSE_RECORD,
    frozen_json,
)


@lru_cache(maxsize=4096)
def method_call(text: str) -> tuple[str, tuple[Any, ...]] | None:
    """``cfg.device.startswith("cuda")`` -> ("startswith", ("cuda",))."""
    try:
        node = parse.python_expression(text.strip())
    except SyntaxError:
        return None
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)) or node.keywords:
        return None
    try:
        args = tuple(ast.literal_eval(a) for a in node.args)
    except ValueError:
        return None
    return node.func.attr, args


def _isinstance(value: Any, kind: Any) -> bool:
    names = kind if isinstance(kind, tuple) else (kind,)
    types: dict[str, type | tuple[type, ...]] = {
        "dict": Mapping, "str": str, "int": int, "float": float, "bool": bool, "list": (list, tuple),
        "tuple": (list, tuple), "set": (set, frozenset, list, tuple)}
    if not all(isinstance(n, str) and n in types for n in names):
        raise TypeError("unknown type")
    return any(isinstance(value, types[n]) for n in names)


def _power(a: Any, b: Any) -> Any:
    if isinstance(b, (int, float)) and abs(b) > 256:
        raise OverflowError("exponent too large")
    return a**b


def _times(a: Any, b: Any) -> Any:
    if isinstance(a, (str, list, tuple)) or isinstance(b, (str, list, tuple)):
        raise TypeError("sequence repetition")
    return a * b


def _attribute(record: Any, name: str) -> Any:
    """A field of a record a fact states (a helper's measured result); anything else: unknown."""
    return record[name] if isinstance(record, Mapping) else UNKNOWN


def _as_set(a: Any) -> Any:
    return set(a) if isinstance(a, (list, tuple, set, frozenset)) else a


class ValidationError(ValueError):
    """What a pydantic model raises on JSON it refuses (a ValueError, as pydantic's is)."""


def _parse_record(model: Mapping[str, Any], text: Any) -> Any:
    """The record a pydantic model (`model`: its fields, `extractor.imported_values`) parses
    JSON `text` into: the defaults with the object's fields over them; `ValidationError`
    where it surely refuses it (not JSON, not an object, a required field missing, a value
    outside a ``Literal``); UNKNOWN where its coercions decide (a value of another type)."""
    fields = model["fields"]
    try:
        raw = json.loads(text)
    except ValueError as exc:
        raise ValidationError(str(exc)) from None
    if not isinstance(raw, dict):
        raise ValidationError("input should be an object")
    out: dict[str, Any] = {}
    for name, field_ in fields.items():
        if name not in raw:
            if field_["required"]:
                raise ValidationError(f"{name}: field required")
            out[name] = field_["default"]
            continue
        value, kind = raw[name], field_["type"]
        if value is None and field_["optional"]:
            out[name] = None
        elif kind == "literal" and isinstance(value, str) and value not in field_["choices"]:
            raise ValidationError(f"{name}: input should be one of {list(field_['choices'])}")
        elif _of_field_type(value, kind, field_["choices"]):
            out[name] = value
        else:
            return UNKNOWN  # pydantic's lax coercions decide ("5" for an int field)
    return frozen_json(out)  # fields it does not declare are ignored, as pydantic does by default


def _of_field_type(value: Any, kind: str, choices: Any) -> bool:
    if kind == "literal":
        return value in choices
    if kind == "bool":
        return isinstance(value, bool)
    if kind in ("int", "float"):
        return isinstance(value, (int, float) if kind == "float" else int) and not isinstance(value, bool)
    return kind == "str" and isinstance(value, str)


def _minus(a: Any, b: Any) -> Any:
    """``a - b`` of sets; where a side is text it is ``any(x not in b for x in a)`` made a
    set (`extractor.cst_ir`): the items of `a` not in `b`, with Python's ``in`` (a
    character of a text, a substring of one)."""
    if isinstance(a, str) or isinstance(b, str):
        return {x for x in a if x not in b}
    return _as_set(a) - _as_set(b)


def _both(a: Any, b: Any) -> Any:
    """``a & b``; with text, the items of `a` in `b` (as `_minus`)."""
    if isinstance(a, str) or isinstance(b, str):
        return {x for x in a if x in b}
    return _as_set(a) & _as_set(b)


CONVERSIONS: dict[str, Callable[[Any], Any]] = {"int": int, "float": float, "str": str, "bool": bool, "len": len}


def _map(fn: str, items: Any) -> Any:
    """``[f(x) for x in items]`` of a conversion ``f``; any other function: unknown."""
    convert = CONVERSIONS.get(fn)
    return UNKNOWN if convert is None else tuple(convert(x) for x in items)


def _slice(items: Any, lower: Any, upper: Any) -> Any:
    got = items[lower:upper]
    return tuple(got) if isinstance(got, list) else got


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "len": len, "int": int, "float": float, "str": str, "bool": bool, "abs": abs,
    "min": min, "max": max, "sorted": lambda a: tuple(sorted(a)), "any": any, "all": all,
    "set": frozenset, "frozenset": frozenset, "list": tuple, "tuple": tuple,
    "lower": lambda s: s.lower(), "upper": lambda s: s.upper(), "strip": lambda s, *c: s.strip(*c),
    "lstrip": lambda s, *c: s.lstrip(*c), "rstrip": lambda s, *c: s.rstrip(*c), "encode": lambda s, *a: s.encode(*a),
    "json.loads": lambda s: frozen_json(json.loads(s)), PARSE_RECORD: _parse_record,
    "startswith": lambda s, p: s.startswith(tuple(p) if isinstance(p, list) else p),
    "endswith": lambda s, p: s.endswith(tuple(p) if isinstance(p, list) else p),
    "split": lambda s, *a: tuple(s.split(*a)), "item": lambda c, k: c[k],
    "get": lambda c, k, d=None: c.get(k, d), "isinstance": _isinstance, ATTRIBUTE: _attribute,
    "keys": lambda c: tuple(c.keys()), "values": lambda c: tuple(c.values()),
    "items": lambda c: tuple(c.items()),
    "map": _map, "slice": _slice,
    "+": lambda a, b: a + b, "-": _minus, "*": _times,
    "/": lambda a, b: a / b, "//": lambda a, b: a // b, "%": lambda a, b: a % b, "**": _power,
    "|": lambda a, b: _as_set(a) | _as_set(b), "&": _both,
}


# Functions whose exceptions are the real program's (``float("x")``, ``v[9]``, ``1 / 0``);
# another one raising means only that the evaluator cannot compute it.
EXACT = frozenset({"int", "float", "len", "item", "map", "slice", "/", "//", "%", "json.loads", PARSE_RECORD})


@dataclass(frozen=True, slots=True)
class Raised:
    """What computing a value raised (see `RAISES`)."""

    exception: BaseException

    def caught_by(self, names: Any) -> bool:
        wanted = set(names) if isinstance(names, (tuple, list, frozenset)) else {names}
        return any(c.__name__ in wanted for c in type(self.exception).__mro__)


def apply(fn: str, args: Sequence[Any]) -> Any:
    func = FUNCTIONS.get(fn)
    if func is None or any(a is UNKNOWN for a in args):
        return UNKNOWN
    return called(func, *args)


def called(func: Callable[..., Any], *args: Any) -> Any:
    """``func(*args)`` on known arguments, unknown where it raises or gives no finite number."""
    try:
        result = func(*args)
    except Exception:  # the real code would raise here: nothing we can decide
        return UNKNOWN
    if isinstance(result, float) and not math.isfinite(result):
        return UNKNOWN
    return result
