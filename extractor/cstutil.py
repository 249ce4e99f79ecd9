"""Small libcst helpers shared by the extractor modules."""
from __future__ import annotations

import re

import libcst as cst

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
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, (cst.Integer, cst.Float)):
        return node.value
    if isinstance(node, cst.SimpleString):
        return node.value if "\n" not in node.value else None
    if isinstance(node, cst.Attribute):
        base = _fast(node.value)
        return None if base is None else f"{base}.{node.attr.value}"
    if isinstance(node, cst.Call):
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
    if isinstance(node, cst.Comparison):
        parts = [_fast(node.left)]
        for target in node.comparisons:
            op = _BINARY_TEXT.get(type(target.operator))
            parts += [op, _fast(target.comparator)]
        return None if None in parts else " ".join(parts)  # type: ignore[arg-type]
    if isinstance(node, (cst.BooleanOperation, cst.BinaryOperation)):
        left, right = _fast(node.left), _fast(node.right)
        op = _BINARY_TEXT.get(type(node.operator))
        return None if None in (left, right, op) else f"{left} {op} {right}"
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        inner = _fast(node.expression)
        return None if inner is None else f"not {inner}"
    return None


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
    """(True, value) for literals and tuples/lists of literals; (False, None) otherwise."""
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        value = string_value(node)
        return (value is not None, value)
    if isinstance(node, cst.Integer):
        return _int(node.value.replace("_", ""))
    if isinstance(node, cst.Float):
        return True, float(node.value.replace("_", ""))
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return True, {"True": True, "False": False, "None": None}[node.value]
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        ok, value = literal_value(node.expression)
        if ok and isinstance(value, (int, float)):
            return True, -value
    if isinstance(node, cst.Dict):  # membership tests see the keys
        keys = []
        for el in node.elements:
            if not isinstance(el, cst.DictElement):
                return False, None
            ok, key = literal_value(el.key)
            if not ok:
                return False, None
            keys.append(key)
        return True, tuple(keys)
    if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
        values = []
        for el in node.elements:
            if isinstance(el, cst.StarredElement):
                return False, None
            ok, value = literal_value(el.value)
            if not ok:
                return False, None
            values.append(value)
        return True, tuple(values)
    return False, None
