"""`errcat check`'s speed: wall-clock medians as multiples of `python -c pass`, and check / load.

    python scripts/bench_check.py --catalog DIR [--repeat 5] [--in-process]

First runs `errcat check --catalog DIR --platform generic` on command lines of each kind
below, interleaved with `python -c pass` (`cli_timing`), and prints each median as a
multiple of that baseline (issue 38: at most 12x).
With --in-process, then loads the catalog `--repeat` times, from `catalog.json` (parsed, the pipeline built)
and from the compiled `judge.json` extract wrote beside it (what `errcat check` reads), each with every
check's condition compiled (`Checker.warm`), which every `errcat check` run pays first
whatever the command. Then checks a few command lines of different kinds (ok, refused,
failing with a fix search, undecided), each `--repeat` times on a freshly loaded checker
(no memo of an earlier search), and prints the best time of each and check / load.
Ratios, not seconds, are what to compare across machines (issue 14 asks a check to take
at most 5% of the load). CPU time of this process (`time.process_time`), so other load on
the machine disturbs it less than wall-clock time.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analyzers.launch import CommandLine
from errcat.check import Checker, load_compiled, load_data, platform_of
from errcat.exits import Exit
from extractor.profile import load_profile
from scripts.cli_timing import errcat_argv, print_ratios, startup_ratios

PROGRAM = ("python", "-m", "sglang.launch_server")
TARGET = 12.0  # issue 38: check's median at most 12x python -c pass
COMMANDS = {  # what a user checks, one of each kind (sglang 0.5.23's options)
    "ok": ["--model-path", "<model>", "--tp-size", "2"],
    "refused": ["--model-path", "<model>", "--tp-szie", "2"],
    "fails": ["--model-path", "<model>", "--ssl-keyfile", "key.pem", "--tp-size", "2"],
    "undecided": ["--model-path", "org/name", "--enable-lora"],
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", required=True, help="a catalog directory written by errcat extract")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--in-process", action="store_true", help="also the in-process check / load figures")
    args = parser.parse_args(argv)
    commands = {kind: errcat_argv("check", "--catalog", args.catalog, "--platform", "generic", "--", *PROGRAM,
                                  *(w.replace("<model>", "org/name") for w in words))
                for kind, words in COMMANDS.items()}
    within = print_ratios(startup_ratios(commands, args.repeat), TARGET)
    if args.in_process:
        _in_process(args.catalog, args.repeat)
    return Exit.OK if within else Exit.NO


def _in_process(catalog: str, repeat: int) -> None:
    profile = load_profile("sglang")
    platform = platform_of(profile, "generic")
    raw = (Path(catalog) / "catalog.json").read_bytes()
    def from_judge() -> Checker:  # judge.json read and checked against catalog.json each time, as check does
        compiled = load_compiled(catalog, profile)
        assert compiled is not None
        return compiled(platform).warm()

    ways: dict[str, Callable[[], Checker]] = {
        "catalog.json": lambda: load_data(json.loads(raw), profile)(platform).warm()}
    if load_compiled(catalog, profile) is not None:  # extract wrote one that is up to date
        ways["judge.json"] = from_judge
    else:
        print("no up-to-date judge.json in the catalog: only catalog.json is measured")
    for way, loaded in ways.items():
        _measured(way, loaded, repeat)


def _measured(way: str, loaded: Callable[[], Checker], repeat: int) -> None:
    loads = []
    for _ in range(repeat):
        start = time.process_time()
        loaded()
        loads.append(time.process_time() - start)
    load = min(loads)
    print(f"load from {way} (build the checker, compile the checks): {load:.3f} s")
    print(f"{'command':<10} {'status':<10} {'check s':>8} {'check/load':>10}")
    for kind, words in COMMANDS.items():
        times = []
        for _ in range(repeat):
            fresh = loaded()  # no memo of an earlier run's searches
            start = time.process_time()
            checked = fresh.check(CommandLine((), PROGRAM, tuple(words)))
            times.append(time.process_time() - start)
        best = min(times)
        print(f"{kind:<10} {checked.status:<10} {best:>8.3f} {best / load:>9.1%}")

if __name__ == "__main__":
    sys.exit(main())
