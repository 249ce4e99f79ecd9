"""One progress display for every long command: a bar with an ETA on a terminal, silence otherwise."""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

Progress = Callable[[int, int, str], None]  # (done, total, label)


def progress_bar(
    stream: TextIO, *, quiet: bool = False, clock: Callable[[], float] = time.monotonic,
) -> Progress | None:
    """A `Progress` drawing on `stream` when it is a terminal (None otherwise, or when `quiet`).

    A new label starts a new bar (its own ETA): one command may have phases."""
    if quiet or not stream.isatty():
        return None
    state: dict[str, float | str] = {"label": "", "start": clock()}

    def show(done: int, total: int, label: str) -> None:
        if label != state["label"]:
            state["label"], state["start"] = label, clock()
        width = 30
        filled = width * done // max(total, 1)
        elapsed = clock() - float(state["start"])
        eta = f"eta {elapsed * (total - done) / done:4.0f}s" if 0 < done < total else " " * 8
        stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {eta} {label[:40]:<40}")
        if done == total:
            stream.write("\n")
        stream.flush()

    return show
