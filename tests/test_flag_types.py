"""What kind of value a flag takes, from its type text, action and nargs."""
from __future__ import annotations

import textwrap

import pytest

from analyzers.flag_build import build_flag_model
from analyzers.flag_types import ValueKind, ValueType, value_type

BOOL, INT, FLOAT, STR, LIST, DICT = (ValueKind.BOOL, ValueKind.INT, ValueKind.FLOAT, ValueKind.STR, ValueKind.LIST,
                                     ValueKind.DICT)


@pytest.mark.parametrize("type_text, kind, item_kind", [
    ("int", INT, STR),
    ("Optional[float]", FLOAT, STR),
    ("Optional[bool]", BOOL, STR),
    ("Union[int, float]", INT, STR),  # the first scalar in bool, int, float order
    ("Optional[List[int]]", LIST, INT),
    ("Tuple[int, ...]", LIST, INT),
    ("typing.List[float]", LIST, FLOAT),
    ("Union[List[bool], None]", LIST, BOOL),
    ("List[int] | None", LIST, INT),
    ("Optional[List[dict[str, Any]]]", LIST, STR),  # items of no scalar kind are written as strings
    ("Optional[Dict[str, str]]", DICT, STR),
    ("Optional[Union[str, Dict]]", DICT, STR),  # a mapping anywhere: the value is a JSON object
    ("json.loads", DICT, STR),  # argparse's type: JSON, mostly objects
    ("Optional[Union[set[str], List[str]]]", STR, STR),  # a union is no list (nargs says so where it is)
    ("Optional[CudaGraphConfig]", STR, STR),
    ("Literal[1, 2]", STR, STR),  # a Literal's kind is what it names; its values are its choices
    ("", STR, STR),
    (None, STR, STR),
    ("not an (expression", STR, STR),
])
def test_kind_from_the_type_text(type_text, kind, item_kind):
    found = ValueType.of(type_text)
    assert (found.kind, found.item_kind) == (kind, item_kind)


@pytest.mark.parametrize("type_text, choices", [
    ("Literal['a', 'b']", ("a", "b")),
    ('Literal["x", "y"]', ("x", "y")),
    ("Optional[Literal['full', 'off']]", ("full", "off")),
    ("Literal[None, 'mooncake', 'nixl']", ("mooncake", "nixl")),  # None is no value to write
    ("Literal[-1, 2]", (-1, 2)),
    ("Literal['a, b', 'c]']", ("a, b", "c]")),  # commas and brackets inside the strings
    ("Union[Literal['a'], Literal['b']]", ("a",)),  # the first Literal
    ("str", ()),
])
def test_literal_choices(type_text, choices):
    assert ValueType.of(type_text).literal_choices == choices


@pytest.mark.parametrize("type_text, action, nargs, kind", [
    ("Optional[bool]", "store_true", None, BOOL),
    (None, "store_false", None, BOOL),
    ("bool", "argparse.BooleanOptionalAction", None, BOOL),
    ("str", None, "*", LIST),
    ("Optional[List[int]]", None, "+", LIST),
    (None, "DeprecatedAction", 0, LIST),  # a count of values is a list, even none
    ("float", None, 2, LIST),
    ("str", None, "?", STR),  # at most one: still one value
    ("bool", None, "*", BOOL),  # a bool stays one
])
def test_action_and_nargs(type_text, action, nargs, kind):
    assert ValueType.of(type_text, action, nargs).kind is kind


def test_value_type_of_a_declared_flag():
    flags = build_flag_model({"p/args.py": textwrap.dedent('''
        def add_cli_args(parser):
            parser.add_argument("--sizes", type=int, nargs="+")
            parser.add_argument("--mode", type=Literal["x", "y"])
    ''')})
    assert value_type(flags.by_dest("sizes")) == ValueType(LIST, INT)  # argparse's type is each item's
    assert value_type(flags.by_dest("mode")) == ValueType(STR, STR, ("x", "y"))
    assert value_type(None) == ValueType(STR, STR, ())  # a flag nobody declared takes a string
