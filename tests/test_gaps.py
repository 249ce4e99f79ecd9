"""errcat gaps: the crash entries as missing checks, the plainest command first; new ones
against an older catalog; the verb's formats and exit codes."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from analyzers.gaps import gaps, new_gaps
from errcat.cli import main
from output.gaps_formats import render_gaps

CHECK = 'if cfg.nnodes < 1:\n    raise ValueError(f"--nnodes must be >= 1, got {cfg.nnodes}")'


def crash(id_: str, before: str | None, line: int = 179, operation: str = "modulo", check: str = CHECK) -> dict:
    return {"id": id_, "kind": "crash", "exception": "ZeroDivisionError", "template": "integer modulo by zero",
            "source": {"path": "python/sglang/srt/arg_groups/validation_hook.py", "line": line,
                       "function": "check_server_args", "url": "u"},
            "crash": {"operation": operation, "expression": "(cfg.tp_size * cfg.pp_size) % cfg.nnodes",
                      "value": "cfg.nnodes", "missing": "sglang does not check that `--nnodes` is at least 1",
                      "missing_check": check, "meaning": "m"},
            "example_fix": {"before": before, "after": None, "verified": "not-run"}}


RAISE = {"id": "r", "kind": "raise", "exception": "ValueError", "template": "x", "source": {"path": "a.py", "line": 1}}


@pytest.mark.parametrize(("entries", "order"), [
    ([crash("a", "launch --a 1 --b 2"), crash("b", "launch --nnodes 0")], ["b", "a"]),  # fewer options first
    ([crash("a", None), crash("b", "launch --x 0")], ["b", "a"]),  # no command last
    ([crash("a", "launch --x 0", 9), crash("b", "launch --x 0", 3)], ["b", "a"]),  # then by line
    ([RAISE, crash("a", "launch --x 0")], ["a"]),  # only crashes
])
def test_gaps_are_ordered_by_how_plain_the_command_is(entries, order):
    assert [g.entry for g in gaps(entries)] == order


@pytest.mark.parametrize(("old", "new_ids"), [
    ([], ["a"]),
    ([crash("a", "x")], []),  # the same id
    ([crash("z", "x", line=12)], []),  # another id, the same place and check (an ordinal moved)
    ([crash("z", "x", check="if other: raise")], ["a"]),
])
def test_new_gaps_are_those_the_older_catalog_lacks(old, new_ids):
    assert [g.entry for g in new_gaps(gaps([crash("a", "launch --nnodes 0")]), gaps(old))] == new_ids


@pytest.mark.parametrize(("fmt", "expected"), [
    ("md", "    raise ValueError(f\"--nnodes must be >= 1, got {cfg.nnodes}\")"),
    ("json", '"suggested_check": "if cfg.nnodes < 1:\\n'),
    ("github", "::warning file=python/sglang/srt/arg_groups/validation_hook.py,line=179,"),
])
def test_each_format_shows_the_line_and_the_suggested_check(fmt, expected):
    assert expected in render_gaps(gaps([crash("a", "launch --nnodes 0")]), fmt)


def _catalog(tmp_path: Path, name: str, entries: list) -> str:
    d = tmp_path / name
    d.mkdir()
    (d / "catalog.json").write_text(json.dumps({"entries": entries, "source": {"release": "0.5.23"}}))
    return str(d)


@pytest.mark.parametrize(("old_entries", "code"), [([], 1), ([crash("a", "x")], 0)])
def test_fail_on_new_exits_1_only_for_a_new_crash(tmp_path, capsys, old_entries, code):
    new, old = _catalog(tmp_path, "new", [crash("a", "launch --nnodes 0")]), _catalog(tmp_path, "old", old_entries)
    assert main(["gaps", new, "--format", "json", "--fail-on", "new", "--against", old]) == code
    assert json.loads(capsys.readouterr().out)["gaps"][0]["new"] is (code == 1)


@pytest.mark.parametrize("argv", [["gaps", "/no/such/dir"], ["gaps", ".", "--fail-on", "new"]])
def test_bad_input_is_one_line_and_exit_2(capsys, argv):
    assert main(argv) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
