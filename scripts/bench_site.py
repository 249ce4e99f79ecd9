"""`errcat site` build time relative to one cold extract, measured in one run.

    python scripts/bench_site.py CATALOG_DIR... [--release 0.5.23] [--baseline-seconds S]

Issue 15 asks the site of several releases to build from their cached catalogs in at
most the time of one cold extract. This builds the site of the catalogs given into a
temporary directory, then runs a cold extract of `--release` (no result cache, one job:
what a first run on a new release costs; downloads come from the cache) and prints both
wall-clock times, their ratio, and the site's page count, file count and size on disk.
`--baseline-seconds` skips the extract and uses a cold-extract time measured before.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from errcat.exits import Exit
from errcat.model import SourceSpec
from errcat.pipeline import extract
from errcat.site import build_site


def _disk_bytes(root: Path) -> int:
    """Bytes the site takes on disk (allocated blocks, as `du` counts them)."""
    return sum(p.lstat().st_blocks * 512 for p in root.rglob("*") if p.is_file())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("catalogs", nargs="+", help="catalog directories, one per release")
    parser.add_argument("--release", default="0.5.23", help="the release extracted cold as the baseline")
    parser.add_argument("--baseline-seconds", type=float, help="a cold extract's time measured before")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-site-") as tmp:
        started = time.perf_counter()
        built = build_site(args.catalogs, Path(tmp) / "site")
        build = time.perf_counter() - started
        disk = _disk_bytes(Path(tmp) / "site")
        baseline = args.baseline_seconds
        if baseline is None:
            started = time.perf_counter()
            extract(SourceSpec(release=args.release), out=Path(tmp) / "cold", jobs=1, use_cache=False)
            baseline = time.perf_counter() - started
    print(f"site of {', '.join(built.releases)}: {built.pages} pages, {built.files} files, "
          f"{built.bytes / 1e6:.1f} MB of content, {disk / 1e6:.1f} MB on disk")
    print(f"build {build:.1f}s; cold extract of {args.release} {baseline:.1f}s; build / cold extract = "
          f"{build / baseline:.3f} (cpus: {os.cpu_count()})")
    return Exit.OK


if __name__ == "__main__":
    sys.exit(main())
