"""`spy(calls, real)`: `real`, noting each call in `calls` first (what `note` makes of its arguments)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

R = TypeVar("R")


def spy(calls: list[Any], real: Callable[..., R], note: Callable[..., Any] = lambda *a, **k: 1) -> Callable[..., R]:
    def call(*args: Any, **kwargs: Any) -> R:
        calls.append(note(*args, **kwargs))
        return real(*args, **kwargs)

    return call
