"""Extraction cost relative to a plain libcst parse of the same files, measured in one run.

    python scripts/bench_extract.py [--repeat 3] [--cache-dir D]

Prints, per file set, the best-of-N time of `libcst.parse_module` over the files, the
best-of-N time of `extract_file` (parse + site walk + templates + guards) and the ratio.
Ratios, not seconds, are what to compare across machines.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import libcst as cst

from errcat.exits import Exit
from extractor.callers import with_caller_guards
from extractor.profile import Profile, load_profile
from extractor.sites import extract_file
from extractor.source import open_release


def best_of(repeat: int, fn: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def parse_all(texts: Mapping[str, str]) -> None:
    for text in texts.values():
        cst.parse_module(text)


def extract_all(texts: Mapping[str, str], profile: Profile) -> None:
    with_caller_guards([extract_file(p, t, profile) for p, t in texts.items()])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cache-dir")
    args = parser.parse_args(argv)
    profile = load_profile("sglang")
    sets = [
        ("0.5.18 server_args.py", "0.5.18", ["python/sglang/srt/server_args.py"]),
        ("0.5.23 target set", "0.5.23", None),
    ]
    print(f"{'file set':<24} {'files':>5} {'lines':>7} {'parse s':>8} {'extract s':>9} {'ratio':>6}")
    for label, version, paths in sets:
        snap = open_release(profile, version, cache_dir=args.cache_dir)
        paths = paths or snap.glob(profile.targets)
        texts = {p: snap.text(p) for p in paths}
        lines = sum(t.count("\n") for t in texts.values())
        parse = best_of(args.repeat, partial(parse_all, texts))
        extract = best_of(args.repeat, partial(extract_all, texts, profile))
        print(f"{label:<24} {len(paths):>5} {lines:>7} {parse:>8.3f} {extract:>9.3f} {extract / parse:>5.2f}x")
    return Exit.OK


if __name__ == "__main__":
    sys.exit(main())
