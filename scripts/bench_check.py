"""`errcat check` cost relative to loading the catalog it checks against, measured in one run.

    python scripts/bench_check.py --catalog DIR [--repeat 5]

Loads the catalog `--repeat` times: `catalog.json` parsed, the checker built and every
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analyzers.launch import CommandLine
from errcat.check import Checker, platform_of
from extractor.profile import load_profile

PROGRAM = ("python", "-m", "sglang.launch_server")
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
    args = parser.parse_args(argv)
    profile = load_profile("sglang")
    platform = platform_of(profile, "generic")
    raw = (Path(args.catalog) / "catalog.json").read_bytes()
    def loaded() -> Checker:
        return Checker.of(json.loads(raw), profile, platform).warm()

    loads = []
    for _ in range(args.repeat):
        start = time.process_time()
        loaded()
        loads.append(time.process_time() - start)
    load = min(loads)
    print(f"load (parse catalog.json, build the checker, compile the checks): {load:.3f} s")
    print(f"{'command':<10} {'status':<10} {'check s':>8} {'check/load':>10}")
    for kind, words in COMMANDS.items():
        times = []
        for _ in range(args.repeat):
            fresh = loaded()  # no memo of an earlier run's searches
            start = time.process_time()
            checked = fresh.check(CommandLine((), PROGRAM, tuple(words)))
            times.append(time.process_time() - start)
        best = min(times)
        print(f"{kind:<10} {checked.status:<10} {best:>8.3f} {best / load:>9.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
