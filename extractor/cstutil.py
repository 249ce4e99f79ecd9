"""Small libcst helpers shared by the extractor modules."""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

import libcst as cst

from extractor.frozen import FrozenMap

_EMPTY = cst.Module(body=[])
_OPEN_WS = re.compile(r"([(\[{])\s+")
_CLOSE_WS = re.compile(r"\s+([)\]}])")
_WS = re.compile(r"\s+")


def code(node: cst.CSTNode) -> str:
    """Source text of a node as written."""
    return _EMPTY.code_for_node(node)


_BINARY_TEXT = {
    cst.And: "and", cst.Or: "or", cst.Equal: "==", cst.NotEqual: "!=", cst.LessThan: "<",
    cst.LessThanEqual: "<=", cst.GreaterThan: ">", cst.GreaterThanEqual: ">=", cst.In: "in",
    cst.NotIn: "not in", cst.Is: "is", cst.IsNot: "is not", cst.Add: "+", cst.Subtract: "-",
    cst.Multiply: "*", cst.Divide: "/", cst.FloorDivide: "//", cst.Modulo: "%",
}


def _fast(node: cst.CSTNode) -> str | None:
    """Normalised text of common expression shapes without libcst's code generator.

    Code generation dominates extraction time on large files; these shapes cover most
    conditions. Anything else (or anything parenthesised) returns None.
    """
    if getattr(node, "lpar", None):
        return None
    render = _FAST.get(type(node))
    return None if render is None else render(node)


def _fast_leaf(node: cst.Name | cst.Integer | cst.Float) -> str:
    return node.value


def _fast_string(node: cst.SimpleString) -> str | None:
    return node.value if "\n" not in node.value else None


def _fast_attribute(node: cst.Attribute) -> str | None:
    base = _fast(node.value)
    return None if base is None else f"{base}.{node.attr.value}"


def _fast_call(node: cst.Call) -> str | None:
    func = _fast(node.func)
    if func is None:
        return None
    args = []
    for arg in node.args:
        value = _fast(arg.value)
        if value is None or arg.star:
            return None
        args.append(f"{arg.keyword.value}={value}" if arg.keyword else value)
    return f"{func}({', '.join(args)})"


def _fast_comparison(node: cst.Comparison) -> str | None:
    parts = [_fast(node.left)]
    for target in node.comparisons:
        parts += [_BINARY_TEXT.get(type(target.operator)), _fast(target.comparator)]
    return None if None in parts else " ".join(p for p in parts if p is not None)


def _fast_binary(node: cst.BooleanOperation | cst.BinaryOperation) -> str | None:
    left, right = _fast(node.left), _fast(node.right)
    op = _BINARY_TEXT.get(type(node.operator))
    return None if left is None or right is None or op is None else f"{left} {op} {right}"


def _fast_not(node: cst.UnaryOperation) -> str | None:
    if not isinstance(node.operator, cst.Not):
        return None
    inner = _fast(node.expression)
    return None if inner is None else f"not {inner}"


# One renderer per node class (exact classes: libcst's node classes are not subclassed).
_FAST: dict[type[cst.CSTNode], Callable[[Any], str | None]] = {
    cst.Name: _fast_leaf, cst.Integer: _fast_leaf, cst.Float: _fast_leaf,
    cst.SimpleString: _fast_string,
    cst.Attribute: _fast_attribute,
    cst.Call: _fast_call,
    cst.Comparison: _fast_comparison,
    cst.BooleanOperation: _fast_binary, cst.BinaryOperation: _fast_binary,
    cst.UnaryOperation: _fast_not,
}


def norm_code(node: cst.CSTNode) -> str:
    """Source text with whitespace normalised: one line, no padding inside brackets."""
    fast = _fast(node)
    if fast is not None:
        return fast
    return norm_text(code(node))


def fast_code(node: cst.CSTNode) -> str | None:
    """`norm_code`'s text for common shapes, without code generation; None for the others."""
    return _fast(node)


def norm_text(text: str) -> str:
    """`norm_code` of source text already generated."""
    if "#" in text:  # comments inside a multi-line expression
        text = _strip_comments(text)
    text = _WS.sub(" ", text.strip())
    text = _OPEN_WS.sub(r"\1", text)
    return _CLOSE_WS.sub(r"\1", text)


_TRIPLES = ("'" * 3, '"' * 3)


def _strip_comments(text: str) -> str:
    """Drop ``# ...`` comments, leaving ``#`` inside string literals alone."""
    out: list[str] = []
    quote: str | None = None
    i = 0
    while i < len(text):
        ch = text[i]
        if quote is not None:
            if ch == "\\":
                out.append(text[i : i + 2])
                i += 2
                continue
            if text.startswith(quote, i):
                out.append(quote)
                i += len(quote)
                quote = None
                continue
        elif ch in "'\"":
            quote = text[i : i + 3] if text[i : i + 3] in _TRIPLES else ch
            out.append(quote)
            i += len(quote)
            continue
        elif ch == "#":
            while i < len(text) and text[i] != "\n":
                i += 1
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def dotted(node: cst.CSTNode) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


def last_name(node: cst.CSTNode) -> str | None:
    """The final identifier of a Name/Attribute (``c`` in ``a.b.c``)."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return None


def string_value(node: cst.CSTNode) -> str | None:
    """The value of a plain (non-f) string literal or implicit concatenation of them."""
    if isinstance(node, cst.SimpleString):
        return _simple_string(node.value)
    if isinstance(node, cst.ConcatenatedString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def _simple_string(text: str) -> str | None:
    """A string literal's value; plain ones without escapes skip `ast.literal_eval`,
    which libcst's `evaluated_value` calls and which dominates on large files."""
    prefix_len = len(text) - len(text.lstrip("rRuUbBfF"))
    prefix = text[:prefix_len].lower()
    if "b" in prefix or "f" in prefix:
        return None
    body = text[prefix_len:]
    quote = body[:3] if body[:3] in _TRIPLES else body[:1]
    inner = body[len(quote) : len(body) - len(quote)]
    if "\\" not in inner or "r" in prefix:
        return inner
    value = cst.SimpleString(text).evaluated_value
    return value if isinstance(value, str) else None


_SHORT_INT = 100  # digits in any base: far below Python's int/str limit (640 at the least)


def _int(text: str) -> tuple[bool, object]:
    """An integer literal's value; past Python's int/str digit limit (CPython compiles
    such literals, but int() or str() of them raise) an unknown value."""
    try:
        value = int(text, 0)
        if len(text) > _SHORT_INT:
            str(value)  # messages print it: a hex literal may read but not print
    except ValueError:
        return False, None
    return True, value


def literal_value(node: cst.CSTNode) -> tuple[bool, object]:
    """(True, value) for literals, tuples/lists of literals and dicts of them (a `FrozenMap`);
    (False, None) otherwise."""
    read = _LITERAL.get(type(node))
    return (False, None) if read is None else read(node)


def python_value(value: object) -> object:
    """A `literal_value` as Python holds it (`FrozenMap` as a dict), for ``repr``/``str``."""
    if isinstance(value, FrozenMap):
        return {k: python_value(v) for k, v in value.items()}
    return tuple(python_value(v) for v in value) if isinstance(value, tuple) else value


def _literal_string(node: cst.SimpleString | cst.ConcatenatedString) -> tuple[bool, object]:
    value = string_value(node)
    return (value is not None, value)


def _literal_int(node: cst.Integer) -> tuple[bool, object]:
    return _int(node.value.replace("_", ""))


def _literal_float(node: cst.Float) -> tuple[bool, object]:
    return True, float(node.value.replace("_", ""))


_CONSTANTS: dict[str, object] = {"True": True, "False": False, "None": None}


def _literal_name(node: cst.Name) -> tuple[bool, object]:
    return (True, _CONSTANTS[node.value]) if node.value in _CONSTANTS else (False, None)


def _literal_negative(node: cst.UnaryOperation) -> tuple[bool, object]:
    if isinstance(node.operator, cst.Minus):
        ok, value = literal_value(node.expression)
        if ok and isinstance(value, (int, float)):
            return True, -value
    return False, None


def _literal_dict(node: cst.Dict) -> tuple[bool, object]:
    """A dict of literals as an immutable `FrozenMap` (``{}`` too); ``**d`` makes it unknown."""
    items = [(el.key, el.value) if isinstance(el, cst.DictElement) else (None, None) for el in node.elements]
    ok_keys, keys = _all_literal(k for k, _ in items)
    ok_values, values = _all_literal(v for _, v in items)
    if not (ok_keys and ok_values) or not isinstance(keys, tuple) or not isinstance(values, tuple):
        return False, None
    try:
        return True, FrozenMap(zip(keys, values, strict=True))
    except TypeError:  # an unhashable key (a list): Python raises too
        return False, None


def _literal_items(node: cst.Tuple | cst.List | cst.Set) -> tuple[bool, object]:
    return _all_literal(None if isinstance(el, cst.StarredElement) else el.value for el in node.elements)


def _all_literal(nodes: Iterable[cst.BaseExpression | None]) -> tuple[bool, object]:
    """The tuple of the values of `nodes` when each is a literal (None: ``*xs``/``**d``)."""
    values: list[object] = []
    for node in nodes:
        ok, value = (False, None) if node is None else literal_value(node)
        if not ok:
            return False, None
        values.append(value)
    return True, tuple(values)


# One reader per node class, as `_FAST`.
_LITERAL: dict[type[cst.CSTNode], Callable[[Any], tuple[bool, object]]] = {
    cst.SimpleString: _literal_string, cst.ConcatenatedString: _literal_string,
    cst.Integer: _literal_int, cst.Float: _literal_float, cst.Name: _literal_name,
    cst.UnaryOperation: _literal_negative, cst.Dict: _literal_dict,
    cst.Tuple: _literal_items, cst.List: _literal_items, cst.Set: _literal_items,
}
