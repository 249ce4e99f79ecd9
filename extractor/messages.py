"""libcst message expressions -> `Template`s, rendered as Python would render them.

A message may have several renderings (``"a" if c else "b"``): each is an `Option`
with the condition under which it is the one shown. Parts that cannot be known
statically stay holes named by their (whitespace-normalised) source expression; no
text is dropped. Only the message expression is visited, never the whole tree.
"""
from __future__ import annotations

import ast
import inspect
import itertools
import re
import string
import textwrap
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeGuard

import libcst as cst

from extractor.cst_ir import to_ir
from extractor.cstutil import (
    code,
    fast_code,
    literal_value,
    norm_code,
    norm_text,
    python_value,
    string_value,
)
from extractor.ir import TRUE, Expr, conj, negate
from extractor.scope import Conditional, Opaque, Scope
from extractor.tables import Table, table_of, unconditional_items
from extractor.templates import Hole, Part, Template

MAX_OPTIONS = 16  # renderings per message; beyond that the message is one hole
_MAX_REPEAT = 1000  # "-" * n and widths: render literally only when small


@dataclass(frozen=True, slots=True)
class Option:
    template: Template
    cond: Expr = TRUE


def build(node: cst.BaseExpression, scope: Scope) -> list[Option]:
    """Every rendering of the message expression `node`."""
    options = _build(node, scope)
    if len(options) > MAX_OPTIONS:
        return [_whole(node)]  # too many to list: keep the expression itself
    return options


def _build(node: cst.BaseExpression, scope: Scope) -> list[Option]:
    if isinstance(node, cst.SimpleString):
        text = string_value(node)  # fast path; bytes literals fall through
        if text is not None:
            return [_lit(text)]
        value = node.evaluated_value
        return [_lit(value if isinstance(value, str) else repr(value))]  # str(b"x") == "b'x'"
    if isinstance(node, cst.ConcatenatedString):
        if isinstance(node.left, cst.SimpleString) and "b" in node.left.prefix.lower():
            return [_lit(repr(node.evaluated_value))]  # b"a" b"b" is one bytes object
        return _product(build(node.left, scope), build(node.right, scope))
    if isinstance(node, cst.FormattedString):
        return [Option(_fstring(node))]
    if isinstance(node, cst.BinaryOperation):
        return _binary(node, scope)
    if isinstance(node, cst.Call):
        return _call(node, scope)
    if isinstance(node, cst.Name):
        return _name(node, scope)
    if isinstance(node, cst.IfExp):
        test = to_ir(node.test, scope)
        yes = [Option(o.template, conj([test, o.cond])) for o in build(node.body, scope)]
        no = [Option(o.template, conj([negate(test), o.cond])) for o in build(node.orelse, scope)]
        return yes + no
    if isinstance(node, cst.Tuple):
        return [Option(_tuple(node))]
    return [_whole(node)]


def _lit(text: str) -> Option:
    return Option(Template.literal(text))


def _expr(node: cst.BaseExpression) -> str:
    """Hole name: the normalised source, without redundant outer parentheses."""
    if getattr(node, "lpar", None):
        node = node.with_changes(lpar=[], rpar=[])
    return norm_code(node)


def _whole(node: cst.BaseExpression, conversion: str | None = None) -> Option:
    return Option(Template.hole(_expr(node), conversion))


def _product(left: list[Option], right: list[Option]) -> list[Option]:
    return [
        Option(a.template + b.template, conj([a.cond, b.cond]))
        for a, b in itertools.product(left, right)
    ]


def _has_text(options: list[Option]) -> bool:
    """Is this more than one opaque value (some rendering with known text, maybe empty)?"""
    return any(len(o.template.parts) != 1 or isinstance(o.template.parts[0], str) for o in options)


def _conditional(node: cst.Name, bound: Conditional, scope: Scope) -> list[Option]:
    """``msg = "a"; if c: msg += " b"``: one rendering per branch, with its condition."""
    yes = [Option(o.template, conj([bound.cond, o.cond])) for o in _branch_value(node, bound.value, scope)]
    no = [Option(o.template, conj([negate(bound.cond), o.cond])) for o in _branch_value(node, bound.previous, scope)]
    return (yes + no)[: MAX_OPTIONS + 1]


def _branch_value(node: cst.Name, value: object, scope: Scope) -> list[Option]:
    """The renderings of one value a joined local may have, the name no longer resolving."""
    if isinstance(value, Conditional):
        return _conditional(node, value, scope)
    if not isinstance(value, cst.BaseExpression):
        return [_whole(node)]
    scope.resolving.add(node.value)
    try:
        return build(value, scope)
    finally:
        scope.resolving.discard(node.value)


def _name(node: cst.Name, scope: Scope) -> list[Option]:
    """A name bound to a message expression renders as that expression; a name bound to
    something opaque (a call result, a parameter) stays a hole named by the name."""
    name = node.value
    bound = scope.lookup(name)
    if name in scope.row_targets:  # a table row's value: the entry keeps the hole, rows fill it
        return [_whole(node)]
    if isinstance(bound, Conditional) and name not in scope.resolving:
        return _conditional(node, bound, scope)
    if bound is None or isinstance(bound, (Opaque, Table, Conditional)) or name in scope.resolving:
        return [_whole(node)]
    scope.resolving.add(name)
    try:
        options = build(bound, scope)
    finally:
        scope.resolving.discard(name)
    return options if _has_text(options) else [_whole(node)]


def _tuple(node: cst.Tuple) -> Template:
    """``str((a, "b"))`` is the tuple's repr: ``(<repr of a>, 'b')``."""
    items: list[Part] = []
    for i, el in enumerate(node.elements):
        if isinstance(el, cst.StarredElement):
            return Template.hole(_expr(node))
        items.append(", " if i else "")
        ok, value = literal_value(el.value)
        items.append(repr(python_value(value)) if ok else Hole(_expr(el.value), "r"))
    trail = "," if len(node.elements) == 1 else ""
    return Template.of("(", *items, trail + ")")


# ------------------------------------------------------------------------ f-strings


def _unescape(text: str, prefix: str, quote: str) -> str:
    """A literal chunk of an f-string as Python reads it: ``{{`` -> ``{``, escapes decoded."""
    text = text.replace("{{", "{").replace("}}", "}")
    if "\\" not in text or "r" in prefix.lower():
        return text
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # invalid escapes such as "\d" stay as written
        try:
            return ast.literal_eval(quote + text + quote)
        except (SyntaxError, ValueError):  # e.g. a triple-quoted chunk ending in a quote
            try:
                return text.encode("latin-1", "backslashreplace").decode("unicode_escape")
            except UnicodeDecodeError:
                return text


def _fstring(node: cst.FormattedString) -> Template:
    parts: list[Part] = []
    for part in node.parts:
        if isinstance(part, cst.FormattedStringText):
            parts.append(_unescape(part.value, node.prefix, node.quote))
        elif isinstance(part, cst.FormattedStringExpression):
            parts.extend(_field(part, node))
    return Template.of(*parts)


def _field(part: cst.FormattedStringExpression, node: cst.FormattedString) -> list[Part]:
    """``{expr!c:spec}``; ``{expr=}`` also renders its own source text, then the repr."""
    out: list[Part] = []
    conversion = part.conversion
    if part.equal is not None:
        out.append(
            code(part.whitespace_before_expression) + code(part.expression)
            + code(part.whitespace_after_expression) + code(part.equal)
        )
        if conversion is None and part.format_spec is None:
            conversion = "r"
    out.append(Hole(norm_code(part.expression), conversion, _spec(part, node) or None))
    return out


def _spec(part: cst.FormattedStringExpression, node: cst.FormattedString) -> str:
    """The text after ``:`` in ``{expr:spec}``, nested fields written as their holes' text."""
    chunks: list[str] = []
    for p in part.format_spec or ():
        if isinstance(p, cst.FormattedStringText):
            chunks.append(_unescape(p.value, node.prefix, node.quote))
        elif isinstance(p, cst.FormattedStringExpression):
            chunks.extend(x.text if isinstance(x, Hole) else x for x in _field(p, node))
    return "".join(chunks)


# ------------------------------------------------------------- operators


def _binary(node: cst.BinaryOperation, scope: Scope) -> list[Option]:
    op = node.operator
    if isinstance(op, cst.Add):
        return _sum(node, scope)
    if isinstance(op, cst.Modulo):
        formats = _string_options(node.left, scope)
        if formats is not None:
            return [Option(_percent(o.template, node.right), o.cond) for o in formats]
    if isinstance(op, cst.Multiply):  # "-" * 40
        ok_l, left = literal_value(node.left)
        ok_r, right = literal_value(node.right)
        text, count = (left, right) if isinstance(left, str) else (right, left)
        if ok_l and ok_r and isinstance(text, str) and isinstance(count, int) and 0 <= count <= _MAX_REPEAT:
            return [_lit(text * count)]
    return [_whole(node)]


def _is_sum(node: cst.BaseExpression) -> TypeGuard[cst.BinaryOperation]:
    return isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add)


def _sum(node: cst.BinaryOperation, scope: Scope) -> list[Option]:
    """``p1 + p2 + ... + pn``, a left-nested chain in the tree, walked as a list.

    The rule per ``+`` is: when neither side has known text, the sum is one hole named
    by its source; otherwise each rendering of the left followed by each of the right
    (at most MAX_OPTIONS, else one hole). Walking it as a list with parts' source
    rendered once and renderings extended in place keeps long chains linear.
    """
    levels = [node]  # a parenthesised inner sum is built on its own (its hole keeps its parens)
    while _is_sum(inner := levels[-1].left) and not inner.lpar:
        levels.append(inner)
    levels.reverse()
    names = _SumNames([levels[0].left] + [level.right for level in levels], [level.operator for level in levels])
    acc: list[_Rendering] | None = [_Rendering.of(o) for o in build(levels[0].left, scope)]
    whole = -1  # acc is None: the sum up to level `whole` is one hole, named when needed
    for k, level in enumerate(levels):
        right = build(level.right, scope)
        if (acc is not None and any(r.has_text for r in acc)) or _has_text(right):
            if acc is None:
                acc = [_Rendering([Hole(names.of(whole))], TRUE)]
            acc = _extend(acc, right)
            if len(acc) > MAX_OPTIONS:
                acc, whole = None, k
        else:
            acc, whole = None, k
    if acc is None:
        return [Option(Template.hole(names.of(whole)))]
    return [Option(Template(tuple(r.parts)), r.cond) for r in acc]


@dataclass(slots=True)
class _Rendering:
    """A rendering being built: parts kept merged as `Template` keeps them."""

    parts: list[Part]
    cond: Expr

    @classmethod
    def of(cls, option: Option) -> _Rendering:
        return cls(list(option.template.parts), option.cond)

    @property
    def has_text(self) -> bool:
        return len(self.parts) != 1 or isinstance(self.parts[0], str)

    def add(self, template: Template, cond: Expr) -> None:
        parts = template.parts
        if parts and self.parts and isinstance(parts[0], str) and isinstance(self.parts[-1], str):
            self.parts[-1] += parts[0]
            parts = parts[1:]
        self.parts.extend(parts)
        self.cond = conj([self.cond, cond])


def _extend(acc: list[_Rendering], right: list[Option]) -> list[_Rendering]:
    """`_product` of renderings in progress with `right`, in place when `right` is one."""
    if not right:
        return []
    if len(right) > 1:
        acc = [_Rendering(list(a.parts), a.cond) for a in acc for _ in right]
    for i, a in enumerate(acc):
        option = right[i % len(right)]
        a.add(option.template, option.cond)
    return acc


class _SumNames:
    """Hole names of a chain's prefixes (``p1 + ... + pk``) as `_expr` gives them, each
    part's source rendered at most once."""

    def __init__(self, parts: list[cst.BaseExpression], ops: list[cst.BaseBinaryOp]) -> None:
        self.parts, self.ops = parts, ops
        self.fast: list[str | None] = []
        self.raw: list[str] = []

    def of(self, level: int) -> str:
        """Name of the sum of parts 0..level+1 (without its own parentheses)."""
        count = level + 2
        while len(self.fast) < count:  # fast texts first: most chains need no code generation
            self.fast.append(fast_code(self.parts[len(self.fast)]))
        fast = [text for text in self.fast[:count] if text is not None]
        if len(fast) == count:
            return " + ".join(fast)
        while len(self.raw) < count:
            i = len(self.raw)
            self.raw.append((code(self.ops[i - 1]) if i else "") + code(self.parts[i]))
        return norm_text("".join(self.raw[:count]))


def _string_options(node: cst.BaseExpression, scope: Scope) -> list[Option] | None:
    """Renderings of a format string (literal, constant, variable); None if not a string."""
    if not isinstance(node, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.Name, cst.IfExp)):
        return None
    options = build(node, scope)
    return options if _has_text(options) else None


# ------------------------------------------------------------------ %-formatting

_PERCENT = re.compile(
    r"%(?:\((?P<key>[^)]*)\))?(?P<flags>[#0\- +]*)(?P<width>\*|\d+)?"
    r"(?:\.(?P<prec>\*|\d*))?[hlL]?(?P<type>[diouxXeEfFgGcrsa%])"
)


@dataclass(slots=True)
class _Args:
    """The right operand of ``%``, consumed left to right by the conversion fields."""

    items: list[cst.BaseExpression] | None  # a tuple literal's elements, else None
    keyed: dict[str, cst.BaseExpression] | None  # a dict literal's entries, else None
    whole: cst.BaseExpression
    single: bool  # one non-tuple operand feeding exactly one field
    index: int = 0

    def next(self) -> tuple[str, tuple[bool, object]]:
        i, self.index = self.index, self.index + 1
        if self.items is not None:
            if i < len(self.items):
                return _arg(self.items[i])
            return f"{_expr(self.whole)}[{i}]", (False, None)
        if self.single:
            return _arg(self.whole)
        return f"{_expr(self.whole)}[{i}]", (False, None)

    def key(self, key: str) -> tuple[str, tuple[bool, object]]:
        if self.keyed is not None and key in self.keyed:
            return _arg(self.keyed[key])
        return f"{_expr(self.whole)}[{key!r}]", (False, None)


def _arg(node: cst.BaseExpression) -> tuple[str, tuple[bool, object]]:
    return _expr(node), literal_value(node)


def _percent_args(args: cst.BaseExpression, fields: int) -> _Args:
    if isinstance(args, cst.Tuple) and not any(isinstance(e, cst.StarredElement) for e in args.elements):
        return _Args([e.value for e in args.elements], None, args, False)
    if isinstance(args, cst.Dict):
        keyed = _string_keyed(args)
        if keyed is not None:
            return _Args(None, keyed, args, False)
    return _Args(None, None, args, fields == 1)


def _string_keyed(node: cst.Dict) -> dict[str, cst.BaseExpression] | None:
    """A dict literal's entries when every key is a string literal (no ``**``)."""
    keyed: dict[str, cst.BaseExpression] = {}
    for el in node.elements:
        key = string_value(el.key) if isinstance(el, cst.DictElement) else None
        if key is None:
            return None
        keyed[key] = el.value
    return keyed


def _percent(fmt: Template, right: cst.BaseExpression) -> Template:
    """``fmt % right`` applied to the literal parts of `fmt`, fields numbered across them."""
    found = [list(_PERCENT.finditer(p)) if isinstance(p, str) else [] for p in fmt.parts]
    fields = sum(
        (m["type"] != "%" and m["key"] is None) + (m["width"] == "*") + (m["prec"] == "*")
        for ms in found for m in ms
    )
    args = _percent_args(right, fields)
    parts: list[Part] = []
    for part, matches in zip(fmt.parts, found, strict=True):
        if isinstance(part, Hole):
            parts.append(part)
            continue
        pos = 0
        for m in matches:
            parts.append(part[pos : m.start()])
            parts.append(_percent_field(m, args))
            pos = m.end()
        parts.append(part[pos:])
    return Template.of(*parts)


def _percent_field(m: re.Match[str], args: _Args) -> Part:
    kind = m["type"]
    if kind == "%":
        return "%"
    flags, width, prec = m["flags"], m["width"] or "", m["prec"]
    if width == "*":  # width and precision taken from the arguments, before the value
        width, (ok, value) = args.next()
        width = str(value) if ok else "{" + width + "}"
    if prec == "*":
        prec, (ok, value) = args.next()
        prec = str(value) if ok else "{" + prec + "}"
    expr, (known, value) = args.key(m["key"]) if m["key"] is not None else args.next()
    if known and "{" not in width + (prec or "") and _small(width + (prec or "")):
        spec = "%" + flags + width + ("" if prec is None else "." + prec) + kind
        try:
            return spec % (value,)
        except (TypeError, ValueError, OverflowError):
            pass
    return Hole(expr, *_format_spec(flags, width, prec, kind))


def _small(spec: str) -> bool:
    """No width or precision so large that rendering it would be silly."""
    return all(int(n) <= _MAX_REPEAT for n in re.findall(r"\d+", spec))


def _format_spec(flags: str, width: str, prec: str | None, kind: str) -> tuple[str | None, str | None]:
    """A %-conversion as the equivalent str.format conversion and spec (``%-10s`` -> ``!s:<10``)."""
    text = kind in "rsa"
    align = "<" if "-" in flags else (">" if text and width else "")
    sign = "+" if "+" in flags else (" " if " " in flags else "")
    alt = "#" if "#" in flags and not text else ""
    zero = "0" if "0" in flags and "-" not in flags and not text else ""
    precision = "" if prec is None else "." + (prec or "0")
    typ = {"i": "d", "u": "d", "r": "", "s": "", "a": ""}.get(kind, kind)
    spec = align + sign + alt + zero + width + precision + typ
    conversion = {"r": "r", "a": "a", "s": "s" if spec else None}[kind] if text else None
    return conversion, spec or None


# ------------------------------------------------------------------- calls

_STR_METHODS = frozenset({"strip", "lstrip", "rstrip", "lower", "upper", "capitalize", "title", "replace"})

# A handler renders one kind of call, or answers None when the call's arguments are not of
# a shape it can read; the call then stays one hole named by its source.
_MethodHandler = Callable[[str, cst.BaseExpression, cst.Call, Scope], list[Option] | None]
_FunctionHandler = Callable[[str, Sequence[cst.BaseExpression], Scope], list[Option] | None]


def _call(node: cst.Call, scope: Scope) -> list[Option]:
    """A call through the handler for its method (``"...".format``, ``sep.join``,
    ``.strip``...) or, failing that, for the function it names (``str``, ``repr``,
    ``dedent``, ``format``...)."""
    func = node.func
    options = None
    if isinstance(func, cst.Attribute) and (method := _METHODS.get(func.attr.value)) is not None:
        options = method(func.attr.value, func.value, node, scope)
    if options is None and isinstance(func, (cst.Name, cst.Attribute)):
        name = norm_code(func)
        function, args = _FUNCTIONS.get(name), _positional(node)
        if function is not None and args is not None:
            options = function(name, args, scope)
    return options if options is not None else [_whole(node)]


def _positional(node: cst.Call) -> list[cst.BaseExpression] | None:
    """The argument values of a call with positional arguments only (no keywords, no ``*``)."""
    if any(a.keyword is not None or a.star for a in node.args):
        return None
    return [a.value for a in node.args]


def _literal_receivers(receiver: cst.BaseExpression, scope: Scope) -> list[Option] | None:
    """Renderings of a string method's receiver, when every one is known text."""
    receivers = _string_options(receiver, scope)
    if receivers is None or not all(o.template.is_literal for o in receivers):
        return None
    return receivers


def _format_method(method: str, receiver: cst.BaseExpression, node: cst.Call, scope: Scope) -> list[Option] | None:
    """``"{} {x}".format(...)`` / ``.format_map(...)``: fields filled from the call's arguments."""
    receivers = _literal_receivers(receiver, scope)
    if receivers is None:
        return None
    fill = _format_call(node) if method == "format" else _format_map(node)
    return [Option(_str_format(o.template.literal_text, node, fill), o.cond) for o in receivers]


def _join_method(method: str, receiver: cst.BaseExpression, node: cst.Call, scope: Scope) -> list[Option] | None:
    """``sep.join(items)`` with a known separator and statically known items."""
    args = _positional(node)
    if args is None or len(args) != 1:
        return None
    sep = _const_str(receiver, scope)
    return _join(sep, args[0], scope) if sep is not None else None


def _str_method(method: str, receiver: cst.BaseExpression, node: cst.Call, scope: Scope) -> list[Option] | None:
    """``"text".strip()``, ``.replace("a", "b")``...: applied when receiver and arguments are known."""
    args = _positional(node)
    if args is None:
        return None
    receivers = _literal_receivers(receiver, scope)
    consts = [literal_value(a) for a in args]
    if receivers is None or not all(ok and isinstance(v, str) for ok, v in consts):
        return None
    apply: Callable[..., str] = getattr(str, method)
    try:
        return [Option(Template.literal(apply(o.template.literal_text, *(v for _, v in consts))), o.cond)
                for o in receivers]
    except TypeError:  # wrong arity: Python raises too
        return None


_METHODS: dict[str, _MethodHandler] = {
    "format": _format_method,
    "format_map": _format_method,
    "join": _join_method,
    **dict.fromkeys(_STR_METHODS, _str_method),
}


def _str_call(name: str, args: Sequence[cst.BaseExpression], scope: Scope) -> list[Option] | None:
    """``str(x)``: a literal's text, else x's own renderings."""
    if len(args) != 1:
        return None
    ok, value = literal_value(args[0])
    return [_lit(str(python_value(value)))] if ok else build(args[0], scope)


def _repr_call(name: str, args: Sequence[cst.BaseExpression], scope: Scope) -> list[Option] | None:
    """``repr(x)`` / ``ascii(x)``: a literal's repr, else a hole with that conversion."""
    if len(args) != 1:
        return None
    ok, value = literal_value(args[0])
    convert = repr if name == "repr" else ascii
    return [_lit(convert(python_value(value)))] if ok else [_whole(args[0], name[0])]


def _dedent_call(name: str, args: Sequence[cst.BaseExpression], scope: Scope) -> list[Option] | None:
    """``textwrap.dedent(text)`` / ``inspect.cleandoc(text)`` of a known string."""
    text = _const_str(args[0], scope) if len(args) == 1 else None
    if text is None:
        return None
    return [_lit(textwrap.dedent(text) if "dedent" in name else inspect.cleandoc(text))]


def _format_builtin(name: str, args: Sequence[cst.BaseExpression], scope: Scope) -> list[Option] | None:
    """``format(x, "spec")``: a hole with that spec."""
    spec = string_value(args[1]) if len(args) == 2 else None
    if spec is None:
        return None
    return [Option(Template.hole(_expr(args[0]), None, spec or None))]


_FUNCTIONS: dict[str, _FunctionHandler] = {
    "str": _str_call,
    "repr": _repr_call,
    "ascii": _repr_call,
    **dict.fromkeys(("textwrap.dedent", "dedent", "inspect.cleandoc", "cleandoc"), _dedent_call),
    "format": _format_builtin,
}


def _const_str(node: cst.BaseExpression, scope: Scope) -> str | None:
    """The value of a string literal, or of a name bound to one (e.g. a module constant)."""
    options = _string_options(node, scope)
    if options is None or len(options) != 1 or not options[0].template.is_literal:
        return None
    return options[0].template.literal_text


# ------------------------------------------------------------------ str.format

_FIELD_NAME = re.compile(r"(?P<head>[^.\[]*)(?P<rest>(?:\.[^.\[]+|\[[^\]]*\])*)\Z")
_ACCESSOR = re.compile(r"\.([^.\[]+)|\[([^\]]*)\]")

Lookup = Callable[[str, int | None], tuple[str, tuple[bool, object]] | None]


def _format_call(call: cst.Call) -> Lookup:
    """Field lookup for ``.format(*args, **kwargs)`` as written at the call."""
    positional: list[cst.BaseExpression] = []
    star: cst.BaseExpression | None = None
    keywords: dict[str, cst.BaseExpression] = {}
    double: cst.BaseExpression | None = None
    for a in call.args:
        if a.star == "*":
            star = star or a.value
        elif a.star == "**":
            double = double or a.value
        elif a.keyword is not None:
            keywords[a.keyword.value] = a.value
        elif star is None:
            positional.append(a.value)

    def lookup(key: str, index: int | None) -> tuple[str, tuple[bool, object]] | None:
        if index is not None:
            if index < len(positional):
                return _arg(positional[index])
            if star is not None:
                return f"{_expr(star)}[{index - len(positional)}]", (False, None)
            return None
        if key in keywords:
            return _arg(keywords[key])
        if double is not None:
            return f"{_expr(double)}[{key!r}]", (False, None)
        return None

    return lookup


def _format_map(call: cst.Call) -> Lookup:
    mapping = call.args[0].value if len(call.args) == 1 else None

    def lookup(key: str, index: int | None) -> tuple[str, tuple[bool, object]] | None:
        if mapping is None:
            return None
        if isinstance(mapping, cst.Dict):
            for el in mapping.elements:
                if isinstance(el, cst.DictElement) and string_value(el.key) == key:
                    return _arg(el.value)
        return f"{_expr(mapping)}[{(index if index is not None else key)!r}]", (False, None)

    return lookup


def _str_format(fmt: str, call: cst.Call, lookup: Lookup) -> Template:
    try:
        parts = _format_parts(fmt, lookup, [0])
    except ValueError:  # malformed format string: Python raises too
        return Template.hole(_expr(call))
    return Template.of(*parts)


def _format_parts(fmt: str, lookup: Lookup, auto: list[int]) -> list[Part]:
    parts: list[Part] = []
    for literal, field, spec, conversion in string.Formatter().parse(fmt):
        parts.append(literal)
        if field is None:
            continue
        found = _FIELD_NAME.match(field)
        if found is None:
            raise ValueError(field)
        head, rest = found["head"], found["rest"]
        if head == "":
            index: int | None = auto[0]
            auto[0] += 1
        else:
            index = int(head) if head.isdigit() else None
        target = lookup(head, index)
        # Nested fields in the spec are numbered after the field itself, as Python does.
        spec_text = "".join(p if isinstance(p, str) else p.text for p in _format_parts(spec or "", lookup, auto))
        parts.append(_format_field(head, rest, target, conversion, spec_text))
    return parts


def _format_field(
    head: str, rest: str, target: tuple[str, tuple[bool, object]] | None,
    conversion: str | None, spec: str,
) -> Part:
    if target is None:  # Python raises IndexError/KeyError here; keep the field visible
        return Hole((head or "?") + rest, conversion, spec or None)
    expr, (known, value) = target
    if known and not rest and "{" not in spec and _small(spec):
        try:
            return ("{0" + (f"!{conversion}" if conversion else "") + ":" + spec + "}").format(value)
        except (ValueError, TypeError):
            pass
    if rest:
        if not re.fullmatch(r"[\w.]+(\(.*\)|\[.*\])?", expr):
            expr = f"({expr})"
        for attr, key in _ACCESSOR.findall(rest):
            expr += f".{attr}" if attr else (f"[{key}]" if key.isdigit() else f"[{key!r}]")
    return Hole(expr, conversion, spec or None)


# ------------------------------------------------------------------- join


def _join(sep: str, arg: cst.BaseExpression, scope: Scope) -> list[Option] | None:
    elements = _elements(arg, scope)
    if elements is None:
        return None
    options = [_lit("")]
    for i, el in enumerate(elements):
        piece = build(el, scope)
        if i:
            piece = [Option(Template.literal(sep) + o.template, o.cond) for o in piece]
        options = _product(options, piece)
        if len(options) > MAX_OPTIONS:
            return None
    return options


def _elements(arg: cst.BaseExpression, scope: Scope) -> Sequence[cst.BaseExpression] | None:
    """The items a join iterates over, when every one of them is statically known: a
    list/tuple literal or a condition table, directly or through a name (a set's order
    is not known statically)."""
    items: object = arg
    if isinstance(arg, cst.Name):
        items = scope.lookup(arg.value)
    if isinstance(items, (cst.List, cst.Tuple)):
        items = table_of(items)
    return unconditional_items(items) if isinstance(items, Table) else None
