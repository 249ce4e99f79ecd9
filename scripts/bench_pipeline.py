"""Where a catalog's time goes: each pipeline stage as a multiple of the libcst parse floor.

    python scripts/bench_pipeline.py [--releases 0.5.18 0.5.23] [--repeat 1] [--json]
        [--profile-top N] [--cache-dir D] [--work-dir W]

Per release, in one run: the floor is a plain `libcst.parse_module` of the profile's target
files (best of --repeat, in this process); each catalog is `errcat extract` as a library call
in a fresh process (imports cold, as on the command line), its stages timed by
`extractor.observe` (sites, callers, flags, entries, advice, examples, render, write; "other" is the
rest of the call: opening the source, the profile). Two modes:

- cold: `--no-cache --jobs 1`;
- warm: `--jobs 1` with the results cache (per-file sites, the flag model, advice with judged
  examples, the flag graph) but no whole catalog: what the same target files cost at a new commit.

Ratios to the floor, not seconds, are what to compare across machines and busy hours.
--profile-top N adds a cProfile run per release and mode and prints its N most expensive
functions (cumulative, then own time). Exit 2 with one line on bad input.
"""
from __future__ import annotations

import argparse
import json
import os
import pstats
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from errcat.exits import Exit
from extractor.errors import ErrcatError
from extractor.observe import STAGES
from scripts.bench_cache import drop_catalogs, scratch_cache, timed
from scripts.bench_extract import best_of, parse_all

MODES = ("cold", "warm")


@dataclass(frozen=True, slots=True)
class Run:
    """One catalog built in a fresh process: seconds per stage, the library call, the process."""

    stages: dict[str, float]
    call: float
    process: float

    @property
    def other(self) -> float:
        return max(0.0, self.call - sum(self.stages.values()))


@dataclass(frozen=True, slots=True)
class Figures:
    release: str
    files: int
    lines: int
    floor: float  # seconds: libcst.parse_module of the target files
    runs: dict[str, Run] = field(default_factory=dict)


# ------------------------------------------------------------------ the child: one catalog, timed


def child(order: Mapping[str, Any]) -> dict[str, Any]:
    """Builds and writes one catalog as `errcat extract` does; its stage seconds and call time."""
    from errcat.model import SourceSpec
    from errcat.pipeline import write_catalog
    from extractor.observe import Observer, observing

    stages: dict[str, float] = dict.fromkeys(STAGES, 0.0)

    def ended(name: str, seconds: float) -> None:
        stages[name] = stages.get(name, 0.0) + seconds

    profiler = None
    if order.get("profile"):
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    start = time.perf_counter()
    with observing(Observer(timed=ended)):
        write_catalog(SourceSpec(release=order["release"]), out=order["out"], cache_dir=order["cache"], jobs=1,
                      use_cache=order["use_cache"])
    call = time.perf_counter() - start
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(order["profile"])
    return {"stages": stages, "call": call}


def _in_child(order: Mapping[str, Any]) -> Run:
    seconds, out = timed([str(Path(__file__).resolve()), "--child", json.dumps(order)])
    data = json.loads(out.strip().splitlines()[-1])
    return Run(data["stages"], data["call"], seconds)


# ------------------------------------------------------------------ the parent: floors and runs


def measure(release: str, cache: Path, work: Path, repeat: int, profile_dir: Path | None) -> Figures:
    from extractor.profile import load_profile
    from extractor.source import open_release

    profile = load_profile("sglang")
    snapshot = open_release(profile, release, cache_dir=cache)  # downloaded outside the timings
    targets = snapshot.glob(profile.targets)
    texts = {p: snapshot.text(p) for p in targets}
    floor = best_of(repeat, partial(parse_all, texts))
    figures = Figures(release, len(texts), sum(t.count("\n") for t in texts.values()), floor)

    def run(mode: str, n: int, profile_file: Path | None = None) -> Run:
        if mode == "warm":
            drop_catalogs(cache)
        order = {"release": release, "cache": str(cache), "out": str(work / f"{release}-{mode}-{n}"),
                 "use_cache": mode == "warm", "profile": str(profile_file) if profile_file else None}
        return _in_child(order)

    figures.runs["cold"] = min((run("cold", n) for n in range(repeat)), key=lambda r: r.call)
    run("warm", -1)  # fills the per-file results the warm runs read
    figures.runs["warm"] = min((run("warm", n) for n in range(repeat)), key=lambda r: r.call)
    if profile_dir is not None:
        for mode in MODES:
            run(mode, -2, profile_dir / f"{release}-{mode}.prof")
    return figures


def table(all_figures: Sequence[Figures], *, head: bool = True) -> str:
    """One row per release and mode: each stage, the rest and the whole call as a multiple of the floor."""
    columns = [*STAGES, "other", "call"]
    title = f"{'release':<8} {'mode':<5} {'files':>5} {'lines':>6} {'floor s':>8} " + " ".join(
        f"{c:>7}" for c in columns) + f" {'call s':>7} {'process s':>9} {'of cold':>7}"
    rows = [title, "-" * len(title)] if head else []
    for fig in all_figures:
        for mode, run in fig.runs.items():
            parts = [run.stages.get(s, 0.0) for s in STAGES] + [run.other, run.call]
            share = run.call / fig.runs["cold"].call
            rows.append(f"{fig.release:<8} {mode:<5} {fig.files:>5} {fig.lines:>6} {fig.floor:>8.3f} "
                        + " ".join(f"{p / fig.floor:>6.2f}x" for p in parts)
                        + f" {run.call:>7.2f} {run.process:>9.2f} {share:>7.0%}")
    return "\n".join(rows)


def profile_summary(path: Path, top: int) -> str:
    """The `top` functions by cumulative time, then by own time, of one profiled run."""
    import io

    out = io.StringIO()
    for key in ("cumulative", "tottime"):
        out.write(f"--- {path.stem}: top {top} by {key}\n")
        pstats.Stats(str(path), stream=out).strip_dirs().sort_stats(key).print_stats(top)
    return out.getvalue()


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"{os.cpu_count()} cores, load {one:.2f} (1 min) {five:.2f} (5 min)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench_pipeline.py", description=__doc__.splitlines()[0])
    parser.add_argument("--releases", nargs="+", default=["0.5.18", "0.5.23"], metavar="V")
    parser.add_argument("--repeat", type=int, default=1, help="best of N for the floor and each mode (default 1)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON instead of a table")
    parser.add_argument("--profile-top", type=int, default=0, metavar="N",
                        help="also profile each release and mode (cProfile) and print its N top functions")
    parser.add_argument("--cache-dir", help="where release downloads are (default: errcat's cache)")
    parser.add_argument("--work-dir", help="scratch space (default: next to the cache; some /tmp are slow)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        print(json.dumps(child(json.loads(args.child))))
        return Exit.OK
    if args.repeat < 1 or args.profile_top < 0:
        print("bench_pipeline: --repeat must be at least 1 and --profile-top at least 0", file=sys.stderr)
        return Exit.USAGE
    before = _load()
    if not args.json:
        print(f"machine: {before}; best of {args.repeat}", flush=True)
    figures: list[Figures] = []
    try:
        with scratch_cache(args.cache_dir, args.work_dir) as (work, cache):
            profile_dir = work / "profiles" if args.profile_top else None
            if profile_dir is not None:
                profile_dir.mkdir()
            for version in args.releases:  # each release's rows as soon as they are measured
                figures.append(measure(version, cache, work, args.repeat, profile_dir))
                if not args.json:
                    print(table(figures[-1:], head=len(figures) == 1), flush=True)
                profiles = [profile_dir / f"{version}-{m}.prof" for m in MODES] if profile_dir is not None else []
                for path in profiles:
                    print(profile_summary(path, args.profile_top), file=sys.stderr if args.json else sys.stdout,
                          flush=True)
    except ErrcatError as exc:
        print(f"bench_pipeline: {exc}", file=sys.stderr)
        return Exit.USAGE
    if args.json:
        machine = {"before": before, "after": _load()}
        print(json.dumps({"machine": machine, "releases": [asdict(f) for f in figures]}, indent=2))
    else:
        print(f"machine after: {_load()}")
    return Exit.OK


if __name__ == "__main__":
    sys.exit(main())
