"""What kind of value a flag takes, read once from its declaration.

A flag's `type` is source text: a field annotation (``Optional[List[int]]``,
``Literal['a', 'b']``) or argparse's ``type=`` (``int``, ``json.loads``). It is parsed
here with the stdlib ``ast`` (so `check` and `explain` never load libcst), together with the
flag's action and nargs, into a `ValueType`; the witness search asks it which values to try.
Nothing else re-reads the type text.
"""
from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from typing import Any

from analyzers.flags import Flag
from extractor import parse
from extractor.ast_names import ast_full_name
from extractor.compat import StrEnum


class ValueKind(StrEnum):
    BOOL = "bool"
    INT = "int"
    FLOAT = "float"
    STR = "str"
    LIST = "list"
    DICT = "dict"


SCALARS = (ValueKind.BOOL, ValueKind.INT, ValueKind.FLOAT)  # the first a type names decides its kind
BOOL_ACTIONS = ("store_true", "store_false", "BooleanOptionalAction")  # how an action's name ends
_LISTS = frozenset({"List", "list", "Tuple", "tuple"})
# a mapping type, or a JSON parser (``type=json.loads`` mostly reads objects)
_DICTS = frozenset({"Dict", "dict", "json"})
_OPTIONAL = "Optional"
_UNION = "Union"
_LITERAL = "Literal"


@dataclass(frozen=True, slots=True)
class ValueType:
    """`kind` of the values a flag takes; `item_kind` of a list's items (STR unless its
    type says int, float or bool); `literal_choices`: the strings and ints of the first
    ``Literal[...]`` in its type (the values its Python API takes)."""

    kind: ValueKind = ValueKind.STR
    item_kind: ValueKind = ValueKind.STR
    literal_choices: tuple[Any, ...] = ()

    @classmethod
    def of(cls, type_text: str | None, action: str | None = None, nargs: Any = None) -> ValueType:
        """A flag of action `action` (a bool action decides) taking `nargs` values (a
        count, ``*`` or ``+``: a list) of type `type_text`."""
        parsed = _parse(type_text or "")
        if action and action.endswith(BOOL_ACTIONS):
            return ValueType(ValueKind.BOOL, parsed.item_kind, parsed.literal_choices)
        if parsed.kind is not ValueKind.BOOL and (nargs in ("*", "+") or isinstance(nargs, int)):
            # argparse applies a scalar type to each item (``type=int, nargs="+"``)
            item = parsed.kind if parsed.kind in SCALARS else parsed.item_kind
            return ValueType(ValueKind.LIST, item, parsed.literal_choices)
        return parsed


def value_type(flag: Flag | None) -> ValueType:
    """What `flag` takes (None, a flag nobody declared: a string)."""
    return ValueType() if flag is None else ValueType.of(flag.type, flag.action, flag.nargs)


@functools.lru_cache(maxsize=1024)
def _parse(text: str) -> ValueType:
    """The type text alone; text that is no expression takes strings."""
    try:
        node = parse.python_expression(text)
    except SyntaxError:
        return ValueType()
    reader = _Reader()
    reader.visit(node)
    return ValueType(_kind(_unwrap_optional(node), reader.names), _item_kind(reader.first_list),
                     _choices(reader.first_literal))


class _Reader(ast.NodeVisitor):
    """Every name in an annotation (attribute and keyword names too), and its first list and
    ``Literal`` subscripts (source order)."""

    def __init__(self) -> None:
        self.names: set[str] = set()
        self.first_list: ast.Subscript | None = None
        self.first_literal: ast.Subscript | None = None

    def visit_Name(self, node: ast.Name) -> None:
        self.names.add(node.id)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.generic_visit(node)
        self.names.add(node.attr)

    def visit_keyword(self, node: ast.keyword) -> None:
        if node.arg is not None:
            self.names.add(node.arg)
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        origin = _origin(node)
        if origin in _LISTS and self.first_list is None:
            self.first_list = node
        elif origin == _LITERAL and self.first_literal is None:
            self.first_literal = node
        self.generic_visit(node)


def _origin(node: ast.expr) -> str:
    """The last part of the name a type is (``typing.List[int]`` -> ``List``); "" if none."""
    base = node.value if isinstance(node, ast.Subscript) else node
    return (ast_full_name(base) or "").rpartition(".")[2]


def _items(node: ast.Subscript) -> list[ast.expr]:
    inner = node.slice
    items = inner.elts if isinstance(inner, ast.Tuple) else [inner]
    return [item for item in items if not isinstance(item, ast.Slice)]


def _unwrap_optional(node: ast.expr) -> ast.expr:
    """``Optional[X]``, ``Union[X, None]``, ``X | None`` -> ``X`` (nested ones too)."""
    while (inner := _optional_of(node)) is not None:
        node = inner
    return node


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _optional_of(node: ast.expr) -> ast.expr | None:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        pair = [node.left, node.right]
    elif isinstance(node, ast.Subscript) and _origin(node) in (_OPTIONAL, _UNION):
        pair = _items(node) + ([ast.Constant(None)] if _origin(node) == _OPTIONAL else [])
    else:
        return None
    rest = [item for item in pair if not _is_none(item)]
    return rest[0] if len(pair) == 2 and len(rest) == 1 else None


def _kind(top: ast.expr, names: set[str]) -> ValueKind:
    """A list where the type is one; a dict where it names a mapping or JSON anywhere
    (``Union[str, Dict]``); else the first scalar it names; else a string."""
    if _origin(top) in _LISTS:
        return ValueKind.LIST
    if names & _DICTS:
        return ValueKind.DICT
    return next((kind for kind in SCALARS if kind in names), ValueKind.STR)


def _item_kind(found: ast.Subscript | None) -> ValueKind:
    """The kind its first item type names (``List[int]`` -> INT), if a scalar."""
    items = _items(found) if found is not None else []
    first = items[0] if items else None
    name = first.id if isinstance(first, ast.Name) else ""
    return next((kind for kind in SCALARS if kind == name), ValueKind.STR)


def _choices(found: ast.Subscript | None) -> tuple[Any, ...]:
    """The strings and ints a ``Literal[...]`` lists (None and others are no value to write)."""
    values = (_literal_value(item) for item in (_items(found) if found is not None else []))
    return tuple(v for v in values if v is not None)


def _literal_value(node: ast.expr) -> str | int | None:
    negative = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
    number = node.operand if isinstance(node, ast.UnaryOp) and negative else node
    if not isinstance(number, ast.Constant):
        return None
    value = number.value
    if isinstance(value, str) and not negative:
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return -value if negative else value
    return None


def one_word_list(flag: Flag | None) -> bool:
    """A list field its own type parser reads from one word (``type_parser=json_list_type``:
    no nargs, no action): a command line gives it as JSON text."""
    return flag is not None and flag.nargs is None and flag.action is None and value_type(flag).kind is ValueKind.LIST
