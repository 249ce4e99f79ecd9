"""`extractor.value_digest`: equal content, equal key; any difference, another key; else no key."""
from __future__ import annotations

import copy
from dataclasses import dataclass
from enum import Enum
from typing import Any

import pytest

from extractor.frozen import FrozenMap
from extractor.ir import And, Compare, Const, Ref, RefKind, Truthy
from extractor.value_digest import value_digest


@dataclass(frozen=True, slots=True)
class Pair:
    left: object
    right: object = None


@dataclass(frozen=True, slots=True)
class Other:
    left: object
    right: object = None


class Colour(Enum):
    RED = "red"


PORT = Compare("<", Ref(RefKind.FLAG, "port", "args.port"), Const(0))


def _colour(module: str) -> Any:
    """An enum named Colour, defined in `module`."""
    return Enum("Colour", "RED", module=module)


@pytest.mark.parametrize(("one", "two"), [
    (Pair("a", 1), Pair("a", 1)),
    (Pair(PORT, PORT), Pair(PORT, copy.deepcopy(PORT))),  # shared or copied: the same content
    ({"b", "a", "c"}, {"c", "a", "b"}),  # a set in any iteration order
    (frozenset({("x", 1), ("y", 2)}), frozenset({("y", 2), ("x", 1)})),
    (FrozenMap({"a": 1}), FrozenMap([("a", 1)])),
    (And((Truthy(Ref(RefKind.ENV, "X", "X")), PORT)), And((Truthy(Ref(RefKind.ENV, "X", "X")), PORT))),
])
def test_equal_content_gives_the_same_digest(one, two):
    assert value_digest(one) == value_digest(two) is not None


@pytest.mark.parametrize(("one", "two"), [
    (Pair("a", 1), Pair("a", 2)),
    (Pair("a", 1), Other("a", 1)),  # another class with the same fields
    (Pair(1), Pair(True)),  # equal in Python, not the same value
    (Pair(1), Pair(1.0)),
    (Pair("red"), Pair(Colour.RED)),
    (_colour("a").RED, _colour("b").RED),  # same name, other module
    ({"a": 1, "b": 2}, {"b": 2, "a": 1}),  # a dict's order is part of what it gives
    ({"a": 1}, FrozenMap({"a": 1})),
    ((1, 2), [1, 2]),
    (("ab", "c"), ("a", "bc")),  # strings are delimited
    (PORT, Compare("<=", PORT.left, PORT.right)),
    (Pair("x" * 100), Pair("x" * 101)),  # a long record is hashed, still by all its content
])
def test_any_difference_gives_another_digest(one, two):
    assert value_digest(one) != value_digest(two)


def test_several_values_are_one_key_in_order():
    assert value_digest("a", "b") != value_digest("b", "a")
    assert value_digest("a", "b") == value_digest("a", "b")


@pytest.mark.parametrize("opaque", [object(), Pair(object()), [lambda: 1], {"k": bytearray(b"x")}, Pair(Pair)])
def test_a_value_with_state_it_cannot_see_has_no_digest(opaque):
    assert value_digest(opaque) is None


def test_a_field_kept_in_memory_only_is_no_content():
    """A solution's trigger part is in memory only: one read back from the cache (no part)
    has the same key as the one advice just made."""
    from analyzers.solution import Solution
    from extractor.ir import TRUE

    assert value_digest(Solution("t", TRUE, note="n")) == value_digest(Solution("t"))
    assert value_digest(Solution("t")) != value_digest(Solution("u"))
