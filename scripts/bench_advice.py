"""Advice cost relative to site extraction of the same release, measured in one run.

    python scripts/bench_advice.py [--release 0.5.23 ...] [--repeat 3] [--cache-dir D]

Builds each release's catalog (no result cache, one process) `--repeat` times and
prints the best time of the site extraction step (`errcat.pipeline.extract_sites`), the
best time of the advice step (`analyzers.advice.complete_entries`: meaning, solutions,
example fixes and their predictions, related ids) and advice / extraction. Ratios, not seconds, are
what to compare across machines and runs (the download is cached; nothing else is).
Times are CPU time of this process (`time.process_time`), so other load on the machine
disturbs them less than wall-clock time would.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import analyzers.advice
import errcat.pipeline
from errcat.exits import Exit
from extractor.profile import load_profile
from extractor.source import open_release


def timed(fn: Callable[..., Any], into: list[float]) -> Callable[..., Any]:
    def run(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            into.append(time.process_time() - start)
    return run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--release", action="append", help="release to build (repeatable; default 0.5.23)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cache-dir", help="where downloads are cached")
    args = parser.parse_args(argv)
    profile = load_profile("sglang")
    extract_times: list[float] = []
    advice_times: list[float] = []
    # build_catalog imports both names when it runs: patching the modules times the steps
    errcat.pipeline.extract_sites = timed(errcat.pipeline.extract_sites, extract_times)
    analyzers.advice.complete_entries = timed(analyzers.advice.complete_entries, advice_times)
    print(f"{'release':<10} {'entries':>7} {'extract s':>9} {'advice s':>8} {'advice/extract':>14}")
    for version in args.release or ["0.5.23"]:
        snap = open_release(profile, version, cache_dir=args.cache_dir)
        extract_times.clear()
        advice_times.clear()
        for _ in range(args.repeat):
            catalog = errcat.pipeline.build_catalog(snap, profile, cache=None, jobs=1)
        extract, advice = min(extract_times), min(advice_times)
        print(f"{version:<10} {len(catalog.entries):>7} {extract:>9.3f} {advice:>8.3f} {advice / extract:>13.2f}x")
    return Exit.OK


if __name__ == "__main__":
    raise SystemExit(main())
