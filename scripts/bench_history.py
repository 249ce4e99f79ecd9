"""What a history costs per revision and per distinct file, against the libcst parse floor.

    python scripts/bench_history.py REPO --revs v0.5.9..v0.5.23 [--jobs 2] [--json]
        [--cache-dir D] [--work-dir W]

REPO is a git repository whose commits are releases (`scripts/release_history.py`) or any
checkout. In one run: the distinct target blobs over the revisions and the one-core time of
a plain `libcst.parse_module` of each once (the floor), then `errcat history --repo REPO
--revs ... --jobs N` cold (private, empty results cache; process start included). Prints
seconds per revision, per distinct blob and per 1,000 of their lines, and the ratio to the
floor: what tells when a batch outgrows one machine. Exit 2 with one line on bad input.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from errcat.exits import Exit
from extractor.errors import ErrcatError
from scripts.bench_cache import scratch_cache, timed
from scripts.bench_extract import best_of, parse_all


def distinct_targets(repo: str, revs: list[str], profile_name: str) -> tuple[list[str], int, dict[str, str]]:
    """(revision labels, target files summed over them, text per distinct target blob id)."""
    from extractor.profile import load_profile
    from extractor.source import list_revisions, open_git

    profile = load_profile(profile_name)
    listed = list_revisions(repo, revs)
    texts: dict[str, str] = {}
    files = 0
    for rev in listed:
        snapshot = open_git(repo, rev.commit)
        targets = snapshot.glob(profile.targets)
        files += len(targets)
        for path in targets:
            if snapshot.blobs[path] not in texts:
                texts[snapshot.blobs[path]] = snapshot.text(path)
    return [r.label for r in listed], files, texts


def measure(args: argparse.Namespace) -> dict[str, Any]:
    labels, files, texts = distinct_targets(args.repo, args.revs, args.profile)
    lines = sum(t.count("\n") for t in texts.values())
    floor = best_of(1, partial(parse_all, texts))
    load = os.getloadavg()[0]
    with scratch_cache(args.cache_dir, args.work_dir) as (_, cache):
        seconds, out = timed(["-m", "errcat", "history", "--repo", args.repo, "--revs", *args.revs, "--profile",
                              args.profile, "--cache-dir", str(cache), "--jobs", str(args.jobs), "--quiet"])
    return {"revisions": len(labels), "first": labels[0], "last": labels[-1], "target_files": files,
            "distinct_blobs": len(texts), "lines": lines, "floor_s": floor, "jobs": args.jobs,
            "history_s": seconds, "per_revision_s": seconds / len(labels), "per_blob_s": seconds / len(texts),
            "per_kline_s": seconds / lines * 1000, "ratio_to_floor": seconds / floor,
            "cache": json.loads(out)["cache"], "cores": os.cpu_count(),
            "load_before": load, "load_after": os.getloadavg()[0]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench_history.py", description=__doc__.splitlines()[0])
    parser.add_argument("repo", metavar="REPO")
    parser.add_argument("--revs", nargs="+", required=True, metavar="REV", help="A..B or revisions, oldest first")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--profile", default="sglang")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--cache-dir", help="where downloads are (default: errcat's cache)")
    parser.add_argument("--work-dir", help="scratch space (default: next to the cache)")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        print("bench_history: --jobs must be at least 1", file=sys.stderr)
        return Exit.USAGE
    try:
        figures = measure(args)
    except ErrcatError as exc:
        print(f"bench_history: {exc}", file=sys.stderr)
        return Exit.USAGE
    if args.json:
        print(json.dumps(figures, indent=2))
        return Exit.OK
    f = figures
    print(f"history {f['first']}..{f['last']}: {f['revisions']} revisions, {f['target_files']} target files, "
          f"{f['distinct_blobs']} distinct blobs, {f['lines']} lines of them")
    print(f"  one-core libcst floor of the distinct blobs {f['floor_s']:.1f}s; history --jobs {f['jobs']} cold "
          f"{f['history_s']:.1f}s = {f['ratio_to_floor']:.1f}x the floor")
    print(f"  {f['per_revision_s']:.2f}s per revision, {f['per_blob_s']:.2f}s per distinct blob, "
          f"{f['per_kline_s']:.3f}s per 1,000 lines; cache {f['cache']}")
    print(f"  {f['cores']} cores, load {f['load_before']:.2f} before, {f['load_after']:.2f} after")
    return Exit.OK


if __name__ == "__main__":
    sys.exit(main())
