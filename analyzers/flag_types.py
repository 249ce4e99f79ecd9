"""What kind of value a flag takes, read once from its declaration.

A flag's `type` is source text: a field annotation (``Optional[List[int]]``,
``Literal['a', 'b']``) or argparse's ``type=`` (``int``, ``json.loads``). It is parsed
here with libcst, together with the flag's action and nargs, into a `ValueType`; the
witness search asks it which values to try. Nothing else re-reads the type text.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import libcst as cst
from libcst.helpers import get_full_name_for_node

from analyzers.flags import Flag
from extractor import parse
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
        node = parse.expression(text)
    except (cst.ParserSyntaxError, parse.Refused):
        return ValueType()
    reader = _Reader()
    node.visit(reader)
    return ValueType(_kind(_unwrap_optional(node), reader.names), _item_kind(reader.first_list),
                     _choices(reader.first_literal))


class _Reader(cst.CSTVisitor):
    """Every name in an annotation, and its first list and ``Literal`` subscripts (source order)."""

    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()
        self.first_list: cst.Subscript | None = None
        self.first_literal: cst.Subscript | None = None

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        origin = _origin(node)
        if origin in _LISTS and self.first_list is None:
            self.first_list = node
        elif origin == _LITERAL and self.first_literal is None:
            self.first_literal = node


def _origin(node: cst.BaseExpression) -> str:
    """The last part of the name a type is (``typing.List[int]`` -> ``List``); "" if none."""
    base = node.value if isinstance(node, cst.Subscript) else node
    return (get_full_name_for_node(base) or "").rpartition(".")[2]


def _items(node: cst.Subscript) -> list[cst.BaseExpression]:
    return [el.slice.value for el in node.slice if isinstance(el.slice, cst.Index)]


def _unwrap_optional(node: cst.BaseExpression) -> cst.BaseExpression:
    """``Optional[X]``, ``Union[X, None]``, ``X | None`` -> ``X`` (nested ones too)."""
    while (inner := _optional_of(node)) is not None:
        node = inner
    return node


def _optional_of(node: cst.BaseExpression) -> cst.BaseExpression | None:
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
        pair = [node.left, node.right]
    elif isinstance(node, cst.Subscript) and _origin(node) in (_OPTIONAL, _UNION):
        pair = _items(node) + ([cst.Name("None")] if _origin(node) == _OPTIONAL else [])
    else:
        return None
    rest = [item for item in pair if not (isinstance(item, cst.Name) and item.value == "None")]
    return rest[0] if len(pair) == 2 and len(rest) == 1 else None


def _kind(top: cst.BaseExpression, names: set[str]) -> ValueKind:
    """A list where the type is one; a dict where it names a mapping or JSON anywhere
    (``Union[str, Dict]``); else the first scalar it names; else a string."""
    if _origin(top) in _LISTS:
        return ValueKind.LIST
    if names & _DICTS:
        return ValueKind.DICT
    return next((kind for kind in SCALARS if kind in names), ValueKind.STR)


def _item_kind(found: cst.Subscript | None) -> ValueKind:
    """The kind its first item type names (``List[int]`` -> INT), if a scalar."""
    items = _items(found) if found is not None else []
    first = items[0] if items else None
    name = first.value if isinstance(first, cst.Name) else ""
    return next((kind for kind in SCALARS if kind == name), ValueKind.STR)


def _choices(found: cst.Subscript | None) -> tuple[Any, ...]:
    """The strings and ints a ``Literal[...]`` lists (None and others are no value to write)."""
    values = (_literal_value(item) for item in (_items(found) if found is not None else []))
    return tuple(v for v in values if v is not None)


def _literal_value(node: cst.BaseExpression) -> str | int | None:
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    negative = isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus)
    number = node.expression if isinstance(node, cst.UnaryOperation) and negative else node
    if isinstance(number, cst.Integer):
        return -int(number.evaluated_value) if negative else int(number.evaluated_value)
    return None


def one_word_list(flag: Flag | None) -> bool:
    """A list field its own type parser reads from one word (``type_parser=json_list_type``:
    no nargs, no action): a command line gives it as JSON text."""
    return flag is not None and flag.nargs is None and flag.action is None and value_type(flag).kind is ValueKind.LIST
