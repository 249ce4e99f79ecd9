"""A digest of a value's content: the key of a result computed from records.

Two values get the same digest exactly when they hold the same content: frozen dataclasses
field by field (by class), strings, numbers, enums, sequences, dicts and `FrozenMap`s in their
order, sets sorted. Sharing does not count (a record read back from the results cache equals the one
parsed, so keys agree across cold and warm runs), and nothing depends on hash seeds.
Anything else (an object with state a digest cannot see) gives None: no key, no caching.
"""
from __future__ import annotations

import dataclasses
import hashlib
from enum import Enum
from typing import Any

from extractor.frozen import FrozenMap

_FIELDS: dict[type, tuple[str, ...]] = {}
IN_MEMORY = "in_memory"  # a dataclass field's metadata key: what a stored record does not hold
_SHORT = 48  # a record's encoding longer than this is replaced by its hash in its parent's


class _Opaque(Exception):
    pass


def value_digest(*values: Any) -> str | None:
    """64 hex digits for `values`' content, or None when one holds something not describable."""
    memo: dict[int, tuple[Any, str]] = {}  # id -> (the record, kept alive; its encoding)
    try:
        text = _encode(values, memo)
    except (_Opaque, RecursionError):
        return None
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _encode(value: Any, memo: dict[int, tuple[Any, str]]) -> str:
    kind = type(value)
    if kind is str:
        return f"s{len(value)}:{value}"
    if value is None:
        return "N"
    if kind is bool:
        return "T" if value else "F"
    if kind is int:
        return f"i{value}"
    if kind is float:
        return f"f{value!r}"
    if kind is tuple:
        return "(" + ",".join([_encode(v, memo) for v in value]) + ")"
    if kind is list:
        return "[" + ",".join([_encode(v, memo) for v in value]) + "]"
    if kind is dict or kind is FrozenMap:
        items = ",".join([f"{_encode(k, memo)}:{_encode(v, memo)}" for k, v in value.items()])
        return ("{" if kind is dict else "M{") + items + "}"
    if isinstance(value, Enum):  # before str: a StrEnum is one
        return f"e{kind.__module__}.{kind.__qualname__}.{value.name}"
    if kind is frozenset or kind is set:
        return "<" + ",".join(sorted(_encode(v, memo) for v in value)) + ">"
    if kind is bytes:
        return f"b{value.hex()}"
    seen = memo.get(id(value))
    if seen is not None:
        return seen[1]
    names = _FIELDS.get(kind)
    if names is None:
        if not dataclasses.is_dataclass(value) or isinstance(value, type):  # a dataclass itself is no record
            raise _Opaque(kind.__qualname__)
        # a field kept in memory only (`IN_MEMORY`) is no content: a record read back lacks it
        names = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(value) if not f.metadata.get(IN_MEMORY))
    text = f"{kind.__module__}.{kind.__qualname__}(" + ",".join([_encode(getattr(value, n), memo) for n in names]) + ")"
    if len(text) > _SHORT:
        text = "#" + hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    memo[id(value)] = (value, text)
    return text
