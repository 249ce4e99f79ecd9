"""One progress display for every long command: tqdm's bar with an ETA on a terminal, silence otherwise.

Callers get a plain `Progress` (done, total, label); a phase ends when it reaches its total,
and a call that counts from lower again or with another total starts a new bar (its own ETA):
one command may have phases (examples, then repairs; files, then stages).
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TextIO

from tqdm import tqdm

from extractor.observe import STAGES, Progress, StageTime

__all__ = ["Bars", "Progress", "progress_bar", "stage_progress"]

_FORMAT = "{percentage:3.0f}%|{bar:24}| {n_fmt}/{total_fmt} [{elapsed}, eta {remaining}{postfix}]"
_LABEL = 40  # characters of the label shown: a long path must not wrap the line


class Bars:
    """A `Progress` drawing one tqdm bar at a time on `stream`. A phase's clock starts where the
    one before ended (or at creation): its first item's time counts towards the ETA."""

    def __init__(self, stream: TextIO, clock: Callable[[], float] = time.time) -> None:
        self._stream, self._clock = stream, clock
        self._bar: tqdm[Any] | None = None
        self._since = clock()

    def __call__(self, done: int, total: int, label: str) -> None:
        bar = self._bar
        if bar is None or bar.total != total or done < bar.n:
            self.close()
            bar = self._bar = self._open(total)
        bar.set_postfix_str(label[-_LABEL:], refresh=False)
        bar.update(done - bar.n)
        if done >= total:
            self.close()
        self._since = self._clock()

    def close(self) -> None:
        """Ends the bar shown (if any) with its line: what is printed next starts a new line."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def _open(self, total: int) -> tqdm[Any]:
        # smoothing=0: the average rate; items (revisions, files) differ too much for a recent one to tell
        bar: tqdm[Any] = tqdm(total=total, file=self._stream, bar_format=_FORMAT, dynamic_ncols=True,
                               smoothing=0, mininterval=0.2, delay=0)
        bar._time = self._clock  # type: ignore[attr-defined]  # tqdm's only clock; tests pass their own
        bar.start_t = bar.last_print_t = self._since
        return bar


def progress_bar(
    stream: TextIO, *, quiet: bool = False, clock: Callable[[], float] = time.time,
) -> Bars | None:
    """A `Progress` drawing on `stream` when it is a terminal (None otherwise, or when `quiet`):
    logs and pipes get no carriage-return noise."""
    if quiet or not stream.isatty():
        return None
    return Bars(stream, clock)


def stage_progress(progress: Progress) -> StageTime:
    """An `extractor.observe` stage listener that shows a run's stages as one more phase."""
    seen: list[str] = []

    def ended(name: str, _seconds: float) -> None:
        if name not in seen:  # a stage entered twice (sites: targets, then callers) counts once
            seen.append(name)
        progress(min(len(seen), len(STAGES)), len(STAGES), name)

    return ended
