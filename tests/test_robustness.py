"""Every Python file of a real release goes through the site extractor without an exception."""
from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from extractor.profile import load_profile
from extractor.sites import extract_file

pytestmark = pytest.mark.network


def _extract(item: tuple[str, str]) -> tuple[str, int, str | None]:
    path, text = item
    result = extract_file(path, text, load_profile("sglang"))
    return path, len(result.sites), result.parse_error


def test_whole_release_0523_extracts_without_exceptions(release) -> None:
    snap = release("0.5.23")
    # Read in this process: archive readers must not be shared across forked workers.
    items = [(p, snap.text(p)) for p in sorted(snap.blobs) if p.endswith(".py")]
    assert len(items) > 4000
    # forkserver: workers start from a clean process, not a fork of this one (which may hold
    # locks of other tests' threads, e.g. a local HTTP server).
    context = multiprocessing.get_context("forkserver")
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 2, mp_context=context) as pool:
        results = list(pool.map(_extract, items, chunksize=32))
    failures = [(p, err) for p, _, err in results if err]
    assert failures == []
    assert sum(n for _, n, _ in results) > 20000


_DEEP = "(" * 2000 + "1" + ")" * 2000
_ARGS = '''import argparse
from dataclasses import dataclass


@dataclass
class ServerArgs:
    tp_size: int = 1

    def check_server_args(self):
        if self.tp_size < 1:
            raise ValueError(f"tp_size must be >= 1, got {self.tp_size}")

    @staticmethod
    def add_cli_args(parser: argparse.ArgumentParser):
        parser.add_argument("--tp-size", type=int, default=1)
'''
_HOOK = 'def check(cfg):\n    if cfg.tp_size > 8:\n        raise ValueError("tp_size must be at most 8")\n'


@pytest.mark.parametrize("deep", ["python/sglang/srt/server_args.py", "python/sglang/srt/arg_groups/a_hook.py"])
def test_a_file_python_refuses_for_its_nesting_is_one_diagnostic_and_exit_3(tmp_path, deep) -> None:
    """Issue 39: 2,000 nested parentheses in a target (the flag model's file or a hook) never
    kill the process: the file is named once, the rest of the catalog is written, exit 3."""
    import json
    import subprocess
    import sys

    files = {"python/sglang/srt/server_args.py": _ARGS, "python/sglang/srt/arg_groups/a_hook.py": _HOOK}
    for path, text in files.items():
        (tmp_path / "src" / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "src" / path).write_text(text + (f"\nX = {_DEEP}\n" if path == deep else ""))
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "errcat", "extract", "--path", str(tmp_path / "src"), "--out",
                           str(out), "--no-cache", "--jobs", "2", "--quiet"], capture_output=True, text=True,
                          check=False, cwd=Path(__file__).resolve().parents[1])
    assert proc.returncode == 3, proc.stderr
    data = json.loads((out / "catalog.json").read_text())
    assert [i["path"] for i in data["incomplete"]] == [deep]
    assert sum(deep in d for d in data["diagnostics"]) == 1, data["diagnostics"]
    assert data["entries"], "the other file's errors are catalogued"
