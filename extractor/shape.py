"""Typed reads of decoded JSON, for data errcat stores and reads back (the cache).

Stored data may have been written by another version, truncated or planted: a
reader checks every field's type and the exact key set, and a value of another
shape raises `ShapeError` (a ValueError), which callers treat as absent.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from functools import cache
from typing import Any


class ShapeError(ValueError):
    """Stored data that does not have the shape its reader expects."""


def record(data: object, cls: type) -> Mapping[str, Any]:
    """`data` as the ``as_dict`` of dataclass `cls`: a dict with exactly its init fields."""
    if not isinstance(data, dict) or data.keys() != _init_fields(cls):
        raise ShapeError(f"not a stored {cls.__name__}")
    return data


@cache
def _init_fields(cls: type) -> frozenset[str]:
    return frozenset(f.name for f in dataclasses.fields(cls) if f.init)


def text(value: object) -> str:
    if not isinstance(value, str):
        raise ShapeError(f"expected a string, got {type(value).__name__}")
    return value


def optional_text(value: object) -> str | None:
    return None if value is None else text(value)


def integer(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ShapeError(f"expected an integer, got {type(value).__name__}")
    return value


def boolean(value: object) -> bool:
    if not isinstance(value, bool):
        raise ShapeError(f"expected a boolean, got {type(value).__name__}")
    return value


def array(value: object) -> list[Any]:
    if not isinstance(value, list):
        raise ShapeError(f"expected a list, got {type(value).__name__}")
    return value


def texts(value: object) -> tuple[str, ...]:
    return tuple(text(v) for v in array(value))


def mapping(value: object) -> dict[str, Any]:
    """A JSON object (string keys)."""
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise ShapeError(f"expected an object, got {type(value).__name__}")
    return value
