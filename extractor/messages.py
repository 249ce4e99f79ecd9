"""libcst message expressions -> `Template`s, rendered as Python would render them.

A message may have several renderings (``"a" if c else "b"``): each is an `Option`
with the condition under which it is the one shown. Parts that cannot be known
statically stay holes named by their source expression; no text is dropped.
"""
from __future__ import annotations

import ast
import itertools
import re
import string
from dataclasses import dataclass

import libcst as cst

from extractor.cst_ir import to_ir
from extractor.cstutil import norm_code, string_value
from extractor.ir import TRUE, Expr, conj, negate
from extractor.scope import Opaque, Scope, Table
from extractor.templates import Hole, Template

MAX_OPTIONS = 16  # renderings per message before we stop multiplying them out


@dataclass(frozen=True, slots=True)
class Option:
    template: Template
    cond: Expr = TRUE


def build(node: cst.BaseExpression, scope: Scope) -> list[Option]:
    """Every rendering of the message expression `node`."""
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        text = value if isinstance(value, str) else value.decode("utf-8", "replace")
        return [Option(Template.literal(text))]
    if isinstance(node, cst.ConcatenatedString):
        return _product(build(node.left, scope), build(node.right, scope))
    if isinstance(node, cst.FormattedString):
        return [Option(_fstring(node))]
    if isinstance(node, cst.BinaryOperation):
        if isinstance(node.operator, cst.Add):
            return _product(build(node.left, scope), build(node.right, scope))
        if isinstance(node.operator, cst.Modulo):
            fmt = string_value(node.left)
            if fmt is not None:
                return [Option(_percent(fmt, node.right))]
    if isinstance(node, cst.Call):
        return _call(node, scope)
    if isinstance(node, cst.Name):
        return _name(node, scope)
    if isinstance(node, cst.IfExp):
        test = to_ir(node.test, scope)
        yes = [Option(o.template, conj([test, o.cond])) for o in build(node.body, scope)]
        no = [Option(o.template, conj([negate(test), o.cond])) for o in build(node.orelse, scope)]
        return (yes + no)[:MAX_OPTIONS]
    return [Option(Template.hole(norm_code(node)))]


def _product(left: list[Option], right: list[Option]) -> list[Option]:
    out = [
        Option(a.template + b.template, conj([a.cond, b.cond]))
        for a, b in itertools.product(left, right)
    ]
    return out[:MAX_OPTIONS]


def _name(node: cst.Name, scope: Scope) -> list[Option]:
    name = node.value
    bound = scope.lookup(name)
    if bound is None or isinstance(bound, (Opaque, Table)) or name in scope.resolving:
        return [Option(Template.hole(name))]
    scope.resolving.add(name)
    try:
        return build(bound, scope)
    finally:
        scope.resolving.discard(name)


# ------------------------------------------------------------------------ f-strings


def _fstring_literal(text: str, prefix: str, quote: str) -> str:
    """Decode an f-string's literal chunk: escapes as Python would, ``{{`` -> ``{``."""
    text = text.replace("{{", "{").replace("}}", "}")
    plain_prefix = prefix.lower().replace("f", "")
    if "r" in plain_prefix or "\\" not in text:
        return text  # nothing to unescape: skip the (comparatively slow) literal_eval
    try:
        return ast.literal_eval(f"{plain_prefix}{quote}{text}{quote}")
    except (SyntaxError, ValueError):
        return text


def _fstring(node: cst.FormattedString) -> Template:
    prefix, quote = node.prefix, node.quote
    parts: list[str | Hole] = []
    for part in node.parts:
        if isinstance(part, cst.FormattedStringText):
            parts.append(_fstring_literal(part.value, prefix, quote))
            continue
        expr = norm_code(part.expression)
        conversion = part.conversion
        if part.equal is not None:  # f"{x=}" renders "x=" then repr(x)
            parts.append(expr + "=")
            conversion = conversion or ("r" if part.format_spec is None else None)
        spec = None
        if part.format_spec is not None:
            spec = "".join(
                p.value if isinstance(p, cst.FormattedStringText) else "{" + norm_code(p.expression) + "}"
                for p in part.format_spec
            )
        parts.append(Hole(expr, conversion, spec))
    return Template.of(*parts)


# ------------------------------------------------------------------ %-formatting

_PERCENT = re.compile(r"%(?:\((?P<key>[^)]*)\))?(?P<flags>[#0\- +]*)(?P<width>\*|\d+)?(?:\.(?P<prec>\*|\d+))?[hlL]?(?P<type>[diouxXeEfFgGcrsa%])")


def _percent(fmt: str, args: cst.BaseExpression) -> Template:
    if isinstance(args, cst.Tuple):
        positional = [el.value for el in args.elements]
    elif isinstance(args, cst.Dict):
        positional = []
    else:
        positional = [args]
    keyed = {
        string_value(el.key): el.value
        for el in (args.elements if isinstance(args, cst.Dict) else [])
        if isinstance(el, cst.DictElement)
    }
    parts: list[str | Hole] = []
    pos, index = 0, 0
    for found in _PERCENT.finditer(fmt):
        parts.append(fmt[pos : found.start()])
        pos = found.end()
        kind = found["type"]
        if kind == "%":
            parts.append("%")
            continue
        if found["key"] is not None:
            value = keyed.get(found["key"])
            expr = norm_code(value) if value is not None else f"{norm_code(args)}[{found['key']!r}]"
        elif index < len(positional):
            expr = norm_code(positional[index])
            index += 1
        else:
            expr = norm_code(args)
        spec = found.group(0)[1:]
        if found["key"] is not None:
            spec = spec[len(found["key"]) + 2 :]
        conversion = "r" if kind == "r" else ("a" if kind == "a" else None)
        parts.append(Hole(expr, conversion, None if kind in "rsa" and spec == kind else spec))
    parts.append(fmt[pos:])
    return Template.of(*parts)


# ------------------------------------------------------------------- calls


def _call(node: cst.Call, scope: Scope) -> list[Option]:
    func = node.func
    if isinstance(func, cst.Attribute):
        method = func.attr.value
        receiver = string_value(func.value)
        if method == "format" and receiver is not None:
            return [Option(_str_format(receiver, node))]
        if method == "join" and receiver is not None and len(node.args) == 1:
            joined = _join(receiver, node.args[0].value, scope)
            if joined is not None:
                return joined
    if isinstance(func, cst.Name) and func.value == "str" and len(node.args) == 1:
        return build(node.args[0].value, scope)
    return [Option(Template.hole(norm_code(node)))]


def _str_format(fmt: str, call: cst.Call) -> Template:
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    parts: list[str | Hole] = []
    auto = 0
    try:
        fields = list(string.Formatter().parse(fmt))
    except ValueError:
        return Template.hole(norm_code(call))
    for literal, field, spec, conversion in fields:
        parts.append(literal)
        if field is None:
            continue
        head = re.match(r"[^.\[]*", field).group(0)  # type: ignore[union-attr]
        rest = field[len(head):]
        if head == "":
            target = positional[auto] if auto < len(positional) else None
            auto += 1
        elif head.isdigit():
            idx = int(head)
            target = positional[idx] if idx < len(positional) else None
        else:
            target = keywords.get(head)
        expr = (norm_code(target) if target is not None else head or "?") + rest
        parts.append(Hole(expr, conversion, spec or None))
    return Template.of(*parts)


def _join(sep: str, arg: cst.BaseExpression, scope: Scope) -> list[Option] | None:
    if isinstance(arg, cst.Name):
        bound = scope.lookup(arg.value)
        if isinstance(bound, Table) and not bound.is_dict:
            elements = [row.node for row in bound.rows if not isinstance(row.node, tuple)]
        else:
            return None
    elif isinstance(arg, (cst.List, cst.Tuple)):
        if any(isinstance(el, cst.StarredElement) for el in arg.elements):
            return None
        elements = [el.value for el in arg.elements]
    else:
        return None
    options = [Option(Template.literal(""))]
    for i, el in enumerate(elements):
        piece = build(el, scope)
        if i:
            piece = [Option(Template.literal(sep) + o.template, o.cond) for o in piece]
        options = _product(options, piece)
    return options
