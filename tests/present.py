"""`present(x)`: `x`, which a test expects to be there (a look-up returning None fails the test here)."""
from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")


def present(value: T | None) -> T:
    assert value is not None
    return value
