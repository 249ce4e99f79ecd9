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
from collections.abc import Callable
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


_Memo = dict[int, tuple[Any, str]]  # id of a record -> (the record, its text)


def _encode(value: Any, memo: _Memo) -> str:
    encode = _BY_TYPE.get(type(value))
    if encode is not None:
        return encode(value, memo)
    if isinstance(value, Enum):  # not by type: a StrEnum's type is its class, not str
        kind = type(value)
        return f"e{kind.__module__}.{kind.__qualname__}.{value.name}"
    return _record(value, memo)


def _items(value: Any, memo: _Memo) -> str:
    return ",".join([_encode(v, memo) for v in value])


def _pairs(value: Any, memo: _Memo) -> str:
    return ",".join([f"{_encode(k, memo)}:{_encode(v, memo)}" for k, v in value.items()])


# Plain values by their exact type (a subclass is a record, or opaque).
_BY_TYPE: dict[type, Callable[[Any, _Memo], str]] = {
    str: lambda v, memo: f"s{len(v)}:{v}",
    type(None): lambda v, memo: "N",
    bool: lambda v, memo: "T" if v else "F",
    int: lambda v, memo: f"i{v}",
    float: lambda v, memo: f"f{v!r}",
    tuple: lambda v, memo: "(" + _items(v, memo) + ")",
    list: lambda v, memo: "[" + _items(v, memo) + "]",
    dict: lambda v, memo: "{" + _pairs(v, memo) + "}",
    FrozenMap: lambda v, memo: "M{" + _pairs(v, memo) + "}",
    frozenset: lambda v, memo: "<" + ",".join(sorted(_encode(x, memo) for x in v)) + ">",
    set: lambda v, memo: "<" + ",".join(sorted(_encode(x, memo) for x in v)) + ">",
    bytes: lambda v, memo: f"b{v.hex()}",
}


def _record(value: Any, memo: _Memo) -> str:
    """A dataclass by its content fields, long ones by a hash (each record once per digest)."""
    kind = type(value)
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
