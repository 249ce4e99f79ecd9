"""An immutable, hashable mapping, in a module of its own: what reads profiles and catalogs
uses it without loading libcst (a warm run loads no parser)."""
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
