"""errcat.progress: one bar with an ETA on a terminal, silence otherwise."""
from __future__ import annotations

import io

import pytest

from errcat.progress import progress_bar


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("stream", "quiet"), [(io.StringIO(), False), (_Tty(), True)])
def test_silent_off_a_terminal_or_when_quiet(stream, quiet):
    assert progress_bar(stream, quiet=quiet) is None


def test_a_bar_with_an_eta_per_phase():
    stream, now = _Tty(), iter([0.0, 0.0, 10.0, 10.0, 10.0, 12.0])
    show = progress_bar(stream, clock=lambda: next(now))
    assert show is not None
    show(1, 4, "examples")  # 1 of 4 after 10 s: 30 s to go
    assert stream.getvalue().endswith("1/4 eta   30s examples" + " " * 32)
    show(4, 4, "examples")
    assert stream.getvalue().endswith("\n")
    show(1, 2, "repairs")  # a new phase starts its own clock: 1 of 2 after 2 s
    assert "1/2 eta    2s repairs" in stream.getvalue()
