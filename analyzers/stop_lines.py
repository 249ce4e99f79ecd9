"""Where the real program stopped, against the catalog: of the distinct lines where real
launches raised (innermost frame inside the target package, with a message of the target's
own or without), the share that are catalog entries.

A line is covered when every launch stopping there is an entry (`analyzers.judge.EntryIndex`:
the line lies in the entry's statement and, where the entry has a message matcher, it
accepts the message), so a raise whose message is none of the entry's variants stays out.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from analyzers.judge import EntryIndex, Real

Line = tuple[str, int]  # (repository path, line)


@dataclass(frozen=True, slots=True)
class StopLine:
    path: str
    line: int
    type: str  # the exception type of the first launch stopping there
    message: str  # ... and its message
    launches: int
    covered: bool  # every launch stopping there is an entry


@dataclass(frozen=True, slots=True)
class Coverage:
    lines: tuple[StopLine, ...]
    unlocated: int  # errors with no frame inside the target package

    @property
    def covered(self) -> int:
        return sum(s.covered for s in self.lines)

    @property
    def share(self) -> float:
        return self.covered / len(self.lines) if self.lines else 1.0

    def missing(self) -> list[StopLine]:
        return [s for s in self.lines if not s.covered]


def coverage(reals: Iterable[Real], index: EntryIndex) -> Coverage:
    """The distinct stop lines of `reals` (errors only: argparse refusals, timeouts and
    crashed workers never reach the checks) and whether the catalog has each."""
    first: dict[Line, Real] = {}
    counts: dict[Line, int] = {}
    named: dict[Line, bool] = {}
    unlocated = 0
    for real in reals:
        if real.outcome != "error":
            continue
        if not real.path:
            unlocated += 1
            continue
        at = (real.path, real.line)
        first.setdefault(at, real)
        counts[at] = counts.get(at, 0) + 1
        named[at] = named.get(at, True) and index.which(real) is not None
    lines = tuple(StopLine(p, n, first[(p, n)].type, first[(p, n)].message, counts[(p, n)], named[(p, n)])
                  for p, n in sorted(first))
    return Coverage(lines, unlocated)
