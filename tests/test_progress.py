"""errcat.progress: one bar with an ETA on a terminal, silence otherwise."""
from __future__ import annotations

import io

import pytest

from errcat.progress import progress_bar, stage_progress
from extractor.observe import STAGES


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


class _Clock:
    """A clock the test moves by hand: no wall-clock time in any assertion."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize(("stream", "quiet"), [(io.StringIO(), False), (_Tty(), True), (io.StringIO(), True)],
                         ids=["not a terminal", "quiet on a terminal", "quiet off a terminal"])
def test_no_display_off_a_terminal_or_when_quiet(stream, quiet):
    assert progress_bar(stream, quiet=quiet) is None
    assert stream.getvalue() == ""


def test_an_eta_from_the_rate_so_far():
    stream, clock = _Tty(), _Clock()
    show = progress_bar(stream, clock=clock)
    assert show is not None
    clock.now = 10.0
    show(1, 4, "v0.4.1")  # 1 of 4 after 10 s: 30 s to go
    assert "1/4 [00:10, eta 00:30, v0.4.1]" in stream.getvalue()


def test_a_finished_phase_ends_its_line():
    stream, clock = _Tty(), _Clock()
    show = progress_bar(stream, clock=clock)
    assert show is not None
    clock.now = 4.0
    show(2, 2, "examples")
    assert stream.getvalue().endswith("2/2 [00:04, eta 00:00, examples]\n")


@pytest.mark.parametrize(("second", "why"), [((1, 2, "repairs"), "another total"), ((1, 4, "again"), "counts anew")])
def test_a_new_phase_starts_its_own_clock(second, why):
    stream, clock = _Tty(), _Clock()
    show = progress_bar(stream, clock=clock)
    assert show is not None
    clock.now = 10.0
    show(3, 4, "examples")
    clock.now = 12.0
    show(*second)  # the phase's first item, 2 s after the last one of the phase before
    assert f"{second[0]}/{second[1]} [00:02, eta " in stream.getvalue(), why


def test_a_long_label_shows_its_end():
    stream, clock = _Tty(), _Clock()
    show = progress_bar(stream, clock=clock)
    assert show is not None
    clock.now = 1.0
    show(1, 2, "python/sglang/srt/" + "x" * 60 + "/server_args.py")
    assert "/server_args.py]" in stream.getvalue()
    assert "python/sglang" not in stream.getvalue()


def test_stages_count_once_each_in_the_order_met():
    calls: list[tuple[int, int, str]] = []
    ended = stage_progress(lambda *call: calls.append(call))
    for name in ("sites", "callers", "sites", "flags"):
        ended(name, 0.5)
    assert calls == [(1, len(STAGES), "sites"), (2, len(STAGES), "callers"), (2, len(STAGES), "sites"),
                     (3, len(STAGES), "flags")]


# ------------------------------------------------------------------ the CLI: one --quiet, progress on stderr

PROFILE_YAML = "name: tiny\nrepo: example/tiny\ntargets:\n  - pkg/**/*.py\n"
A_PY = "def check(args):\n    if args.port < 0:\n        raise ValueError(f'port must be >= 0, got {args.port}')\n"


@pytest.fixture()
def tiny(tmp_path):
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "a.py").write_text(A_PY)
    (tmp_path / "tiny.yaml").write_text(PROFILE_YAML)
    return ["extract", "--path", str(tmp_path / "src"), "--profile", str(tmp_path / "tiny.yaml"), "--no-cache",
            "--out", str(tmp_path / "out")]


@pytest.mark.parametrize(
    ("stderr", "before", "after", "shown"),
    [
        (_Tty, [], [], True),
        (io.StringIO, [], [], False),
        (_Tty, ["--quiet"], [], False),
        (_Tty, ["-q"], [], False),
        (_Tty, [], ["--quiet"], False),
    ],
    ids=["terminal", "not a terminal", "global --quiet", "global -q", "command --quiet"],
)
def test_extract_shows_files_and_stages_on_a_terminal_only(tiny, monkeypatch, stderr, before, after, shown):
    from errcat.cli import main

    stream = stderr()
    monkeypatch.setattr("sys.stderr", stream)
    assert main([*before, *tiny, *after]) == 0
    text = stream.getvalue()
    assert ("1/1 [" in text and "pkg/a.py]" in text and f"{len(STAGES)}/{len(STAGES)} [" in text) is shown
    if not shown:
        assert text == ""


@pytest.mark.parametrize(
    ("argv", "quiet"),
    [
        (["history", "--releases", "0.5.23"], False),
        (["--quiet", "history", "--releases", "0.5.23"], True),
        (["history", "--releases", "0.5.23", "--quiet"], True),
        (["-q", "confirm", "c", "--python", "p"], True),
        (["confirm", "c", "--python", "p", "-q"], True),
        (["check", "--", "python", "-q"], False),  # after --: the checked command's own words
        (["-q", "check", "--", "python"], True),
    ],
)
def test_quiet_is_one_flag_before_or_after_the_command(argv, quiet):
    from errcat.cli import _command_after_dashes, build_parser

    own, _ = _command_after_dashes(argv)
    assert build_parser().parse_args(own).quiet is quiet
