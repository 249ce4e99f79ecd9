"""Crash entries of real sglang 0.5.23: `--nnodes 0` stops with Python's ZeroDivisionError at
arg_groups/validation_hook.py:179, and every verb knows it."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from errcat.cli import main

pytestmark = pytest.mark.network

HOOK = "python/sglang/srt/arg_groups/validation_hook.py"
LAUNCH = ["python", "-m", "sglang.launch_server", "--model-path", "<model>"]


@pytest.fixture(scope="module")
def catalog_dir(extracted) -> Path:
    extracted.catalog("0.5.23")
    return extracted.root / "0.5.23"


@pytest.fixture(scope="module")
def nnodes(catalog_dir: Path) -> dict:
    entries = json.loads((catalog_dir / "catalog.json").read_text())["entries"]
    (entry,) = [e for e in entries if e["kind"] == "crash" and e["source"]["path"] == HOOK
                and e["source"]["line"] == 179]
    return entry


def test_nnodes_0_is_a_crash_entry_with_an_example(nnodes: dict) -> None:
    assert (nnodes["exception"], nnodes["template"]) == ("ZeroDivisionError", "integer modulo by zero")
    assert nnodes["crash"]["expression"] == "(cfg.tp_size * cfg.pp_size) % cfg.nnodes"
    assert nnodes["crash"]["missing"] == "sglang does not check that `--nnodes` is at least 1"
    assert nnodes["meaning"].startswith("sglang does not check that `--nnodes` is at least 1; the modulo divides by it")
    assert "--nnodes 0" in nnodes["example_fix"]["before"] and nnodes["example_fix"]["predicted"] == "true"


def test_the_assert_of_the_same_statement_needs_nnodes_not_0(catalog_dir: Path) -> None:
    entries = json.loads((catalog_dir / "catalog.json").read_text())["entries"]
    (check,) = [e for e in entries if e["kind"] == "assert" and e["source"]["path"] == HOOK
                and e["source"]["line"] == 179]
    assert "`--nnodes` is not 0" in check["trigger"]["text"]


def test_stats_count_crash_entries_and_unreached_candidates(catalog_dir: Path) -> None:
    stats = json.loads((catalog_dir / "catalog.json").read_text())["stats"]
    assert stats["crash"] >= 1 and stats["crash_unreached"] >= 1


@pytest.mark.parametrize("text", [
    'Traceback (most recent call last):\n  File "/venv/lib/python3.11/site-packages/sglang/srt/arg_groups/'
    'validation_hook.py", line 179, in check_server_args\nZeroDivisionError: integer modulo by zero\n',
    "ZeroDivisionError: integer modulo by zero",  # without the traceback: the crashes whose message matches
])
def test_explain_matches_the_pasted_error(catalog_dir: Path, nnodes: dict, capsys, text: str) -> None:
    main(["explain", "--catalog", str(catalog_dir), "--format", "json", text])
    assert nnodes["id"] in capsys.readouterr().out


def test_check_predicts_the_crash(catalog_dir: Path, nnodes: dict, capsys) -> None:
    code = main(["check", "--catalog", str(catalog_dir), "--platform", "generic", "--", *LAUNCH, "--nnodes", "0"])
    out = capsys.readouterr().out
    assert code == 1 and "ZeroDivisionError at validation_hook.py:179" in out and nnodes["id"] in out


def test_gaps_lists_it_with_the_suggested_check(catalog_dir: Path, capsys) -> None:
    assert main(["gaps", str(catalog_dir)]) == 0
    out = capsys.readouterr().out
    assert f"`{HOOK}:179`" in out
    assert 'raise ValueError(f"--nnodes must be >= 1, got {cfg.nnodes}")' in out
