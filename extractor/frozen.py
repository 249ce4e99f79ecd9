"""Immutable, hashable values (`Json`: tuples, `FrozenMap`, scalars), in a module of their own:
what reads profiles and catalogs uses them without loading libcst (a warm run, `check` and
`explain` load no parser)."""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any


class FrozenMap(Mapping):
    """An immutable, hashable mapping: how `Json` keeps objects (``{"expr": src}``, dicts).

    Equal to any mapping with the same items, so ``flag.default == {"expr": "f()"}``
    holds; `json_value` turns it into a plain dict.
    """

    __slots__ = ("_hash", "_items")

    def __init__(self, items: Mapping | Iterable[tuple[Any, Any]] = ()) -> None:
        self._items = dict(items)
        self._hash: int | None = None

    def __getitem__(self, key: Any) -> Any:
        return self._items[key]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset(self._items.items()))
        return self._hash

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FrozenMap):
            return self._items == other._items
        if isinstance(other, Mapping):
            return self._items == dict(other.items())
        return NotImplemented

    def __repr__(self) -> str:
        return f"FrozenMap({self._items!r})"

    def __str__(self) -> str:  # as the plain dict it stands for (text outputs show it)
        return str(self._items)

    def __reduce__(self) -> tuple[type, tuple[dict]]:
        return (FrozenMap, (self._items,))


Json = Any  # None | bool | int | float | str | tuple | FrozenMap — what `jsonable` returns


def sort_key(value: object) -> tuple[str, str]:
    """An order for values of mixed types (a set's items): by type name, then repr."""
    return (type(value).__name__, repr(value))


def jsonable(value: object) -> Json:
    """An evaluated value as `Json`: sets become sorted tuples, dicts `FrozenMap`s with string keys."""
    if isinstance(value, frozenset):
        return tuple(jsonable(v) for v in sorted(value, key=sort_key))
    if isinstance(value, (tuple, list)):
        return tuple(jsonable(v) for v in value)
    if isinstance(value, Mapping):
        return FrozenMap((k if isinstance(k, str) else str(k), jsonable(v)) for k, v in value.items())
    return value


def json_value(value: Json) -> object:
    """`Json` (tuples and FrozenMaps, for immutability) as JSON proper (lists, dicts), for ``as_dict``."""
    if isinstance(value, (tuple, list)):
        return [json_value(v) for v in value]
    if isinstance(value, Mapping):
        return {k: json_value(v) for k, v in value.items()}
    return value
