"""What the result cache and the worker pool buy, measured as whole processes.

    python scripts/bench_cache.py [--release 0.5.18] [--repeat 3]
        [--history 0.4.10 0.5.18 0.5.19 0.5.23] [--work-dir D] [--cache-dir C]

Every figure is a `python -m errcat ...` subprocess, process start included, with
the release downloads shared (they are cached either way) and a private results
cache. Medians of --repeat runs; ratios are what to compare across machines.

- extract cold: no analysis results cached;
- extract warm, fresh --out: the same release again, written to a new directory;
- extract warm, same --out: again into the directory it wrote (nothing rewritten);
- extract warm, no whole catalog: catalog cache dropped, the rest kept (per-file sites, flag
  model, advice, flag graph: what an unchanged file set at another commit costs);
- history --jobs 1 vs --jobs 2 over --history releases, cold, then warm.
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from errcat.exits import Exit
from extractor.cache import cache_root
from extractor.profile import load_profile
from extractor.source import open_release

ROOT = Path(__file__).resolve().parents[1]


def timed(argv: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, *argv], cwd=ROOT, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"bench: {' '.join(argv[:3])} failed: {proc.stderr.strip().splitlines()[-1:]}")
    return elapsed, proc.stdout


@contextmanager
def scratch_cache(cache_dir: str | None, work_dir: str | None) -> Iterator[tuple[Path, Path]]:
    """(scratch directory, private cache in it): the release downloads are shared with
    `cache_dir` (cached either way), the analysis results start empty; all removed at the end."""
    downloads = cache_root(cache_dir) / "downloads"
    scratch_parent = Path(work_dir) if work_dir else cache_root(cache_dir)
    scratch_parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="bench-", dir=scratch_parent))
    try:
        cache = work / "cache"
        cache.mkdir()
        downloads.mkdir(parents=True, exist_ok=True)
        (cache / "downloads").symlink_to(downloads, target_is_directory=True)
        yield work, cache
    finally:
        shutil.rmtree(work, ignore_errors=True)


def drop_catalogs(cache: Path) -> None:
    """Forget whole catalogs, keep the rest (per-file sites, flag model, advice, flag graph): what an
    unchanged file set at a new commit finds."""
    for d in (cache / "results").glob("*/catalog"):
        shutil.rmtree(d)


def median_of(repeat: int, setup: Callable[[int], object], argv_for: Callable[[int], list[str]]) -> float:
    times = []
    for i in range(repeat):
        setup(i)
        times.append(timed(argv_for(i))[0])
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--release", default="0.5.18")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--history", nargs="*", default=["0.4.10", "0.5.18", "0.5.19", "0.5.23"], metavar="V")
    parser.add_argument("--cache-dir", help="where release downloads are (default: errcat's cache)")
    parser.add_argument("--work-dir", help="scratch space (default: next to the cache; some /tmp are slow)")
    args = parser.parse_args(argv)

    with scratch_cache(args.cache_dir, args.work_dir) as (work, cache):
        results = cache / "results"
        profile = load_profile("sglang")
        for version in dict.fromkeys([args.release, *args.history]):  # download outside the timings
            open_release(profile, version, cache_dir=cache)
        base = ["-m", "errcat", "extract", "--release", args.release, "--cache-dir", str(cache), "--jobs", "1"]
        start = min(timed(["-c", "pass"])[0] for _ in range(args.repeat))
        imports = min(timed(["-c", "import errcat.cli"])[0] for _ in range(args.repeat))

        def wipe(_: int) -> None:
            shutil.rmtree(results, ignore_errors=True)

        def keep(_: int) -> None:
            pass

        cold = median_of(args.repeat, wipe, lambda i: [*base, "--out", str(work / f"cold{i}")])
        timed([*base, "--out", str(work / "same")])
        fresh = median_of(args.repeat, keep, lambda i: [*base, "--out", str(work / f"fresh{i}")])
        same = median_of(args.repeat, keep, lambda i: [*base, "--out", str(work / "same")])
        per_file = median_of(args.repeat, lambda _: drop_catalogs(cache),
                             lambda i: [*base, "--out", str(work / f"pf{i}")])

        print(f"extract --release {args.release} (median of {args.repeat}, process start included)")
        print(f"  python start {start:6.3f}s   import errcat.cli {imports:6.3f}s")
        rows = [("cold (no results cached)", cold), ("warm, fresh --out", fresh), ("warm, same --out", same),
                ("warm, no whole catalog", per_file)]
        for label, seconds in rows:
            print(f"  {label:<30} {seconds:7.3f}s   {seconds / cold:6.1%} of cold")

        if len(args.history) >= 2:
            hist = ["-m", "errcat", "history", "--releases", *args.history, "--cache-dir", str(cache)]
            runs = {}
            for jobs in ("1", "2"):
                wipe(0)
                seconds, out = timed([*hist, "--jobs", jobs])
                runs[jobs] = (seconds, json.loads(out)["cache"])
            warm_seconds, warm_out = timed([*hist, "--jobs", "2"])
            print(f"history --releases {' '.join(args.history)} (cold: no results cached)")
            for jobs, (seconds, stats) in runs.items():
                print(f"  --jobs {jobs}  {seconds:7.3f}s   files extracted {stats['files_extracted']}, "
                      f"reused {stats['files_cached']}")
            print(f"  speed-up 1 -> 2 workers: {runs['1'][0] / runs['2'][0]:.2f}x")
            share = warm_seconds / runs['1'][0]
            print(f"  warm (catalogs cached)  {warm_seconds:7.3f}s   {share:6.1%} of cold --jobs 1"
                  f"   {json.loads(warm_out)['cache']}")
    return Exit.OK


if __name__ == "__main__":
    sys.exit(main())
