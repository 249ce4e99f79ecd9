"""Worker processes that do not outlive the process that started them.

A pool worker blocks on its task queue; when the parent is killed (kill -9, OOM killer)
nothing tells it, and with the fork start method it even holds the queue's write end
itself, so it waits forever. `exit_with_parent` runs as the pool's initializer: on Linux
the kernel sends SIGKILL when the parent dies (``PR_SET_PDEATHSIG``); everywhere, a
daemon thread polls the parent pid and leaves when it changes.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time

POLL_SECONDS = 1.0
_PR_SET_PDEATHSIG = 1


def _death_signal() -> None:
    """Ask Linux to SIGKILL this process when its parent exits (best effort)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # no prctl: the polling thread below still applies


def _watch(parent: int) -> None:
    while True:
        if os.getppid() != parent:
            os._exit(1)  # the parent is gone: no cleanup, nobody waits for our results
        time.sleep(POLL_SECONDS)


def exit_with_parent(parent: int | None = None) -> None:
    """Make this (worker) process exit when `parent` (default: its current parent) dies."""
    parent = os.getppid() if parent is None else parent
    _death_signal()
    if os.getppid() != parent:  # died before the signal was armed
        os._exit(1)
    threading.Thread(target=_watch, args=(parent,), name="errcat-parent-watch", daemon=True).start()
