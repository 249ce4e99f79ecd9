"""Who watches a run: stage timings (benchmarks) and progress (the CLI), both off by default.

The library never prints; it names its stages and counts its items here, and whoever set an
`Observer` (with `observing`) hears about them. Nobody listening costs one context-variable
read per stage or item, so the hooks stay in the code for good.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from contextvars import ContextVar
from dataclasses import dataclass

Progress = Callable[[int, int, str], None]  # (done, total, label): called after each item
StageTime = Callable[[str, float], None]  # (stage, seconds): called as a stage ends

# A catalog's stages in the order a cold run meets them (`errcat.pipeline`); "examples" is the
# advice's examples judged by the whole pipeline (`analyzers.example_check`), timed on its own.
STAGES = ("sites", "callers", "flags", "entries", "advice", "examples", "render", "write")


@dataclass(frozen=True, slots=True)
class Observer:
    timed: StageTime | None = None
    progress: Progress | None = None


_NOBODY = Observer()
_CURRENT: ContextVar[Observer] = ContextVar("errcat_observer", default=_NOBODY)


@contextmanager
def observing(observer: Observer) -> Iterator[None]:
    """`observer` hears the stages and items of what runs inside (this thread or task only)."""
    token = _CURRENT.set(observer)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def stage(name: str) -> AbstractContextManager[None]:
    """Times the block as stage `name` when an observer listens; a stage entered twice adds up."""
    timed = _CURRENT.get().timed
    return nullcontext() if timed is None else _timing(name, timed)


@contextmanager
def _timing(name: str, timed: StageTime) -> Iterator[None]:
    start = time.perf_counter()
    try:
        yield
    finally:
        timed(name, time.perf_counter() - start)


def advance(done: int, total: int, label: str) -> None:
    """One more item of `total` is done (`label`: which); heard by the observer's `progress`."""
    progress = _CURRENT.get().progress
    if progress is not None:
        progress(done, total, label)
