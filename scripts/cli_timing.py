"""Wall-clock (and CPU) medians of errcat commands as multiples of ``python -c pass`` in the same venv.

Issue 38 states its speed targets as such multiples, so a machine's speed (and, mostly, its
load) cancels out: the baseline is measured in the same run, interleaved with the commands
(one round runs the baseline, then each command once), so both see the same load. errcat's
own packages are byte-compiled first, as an installed package is (this machine sets
PYTHONDONTWRITEBYTECODE: without it every run would compile errcat's sources again). The CPU
time of each run (user + system) is given as a multiple too: on a machine shared with other
work, wall-clock time mostly measures the others.
"""
from __future__ import annotations

import compileall
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("errcat", "analyzers", "extractor", "output")
BASELINE = "python -c pass"


@dataclass(frozen=True, slots=True)
class Timing:
    name: str
    median: float  # seconds, wall clock
    ratio: float  # median / the baseline's median
    code: int  # the command's exit code (its last run)
    cpu_ratio: float = 0.0  # median CPU time (user + system) / the baseline's: what other load disturbs least


def byte_compile() -> None:
    for package in PACKAGES:
        compileall.compile_dir(str(ROOT / package), quiet=1)


def _run(argv: Sequence[str]) -> tuple[float, float, int]:
    """Wall-clock and CPU seconds (user + system of the child) of one run, and its exit code."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
                          env={**os.environ, "NO_COLOR": "1"})
    took = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return took, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, done.returncode


def errcat_argv(*args: str) -> list[str]:
    """An errcat command run as a user runs it (this interpreter, this checkout)."""
    return [sys.executable, "-m", "errcat", *args]


def startup_ratios(commands: Mapping[str, Sequence[str]], repeat: int) -> list[Timing]:
    """The baseline's median, then each command's, with its multiple of the baseline."""
    byte_compile()
    runs: dict[str, list[float]] = {BASELINE: [], **{name: [] for name in commands}}
    cpus: dict[str, list[float]] = {name: [] for name in runs}
    codes: dict[str, int] = {}
    argvs = {BASELINE: [sys.executable, "-c", "pass"], **commands}
    for _ in range(repeat):
        for name, argv in argvs.items():
            took, cpu, codes[name] = _run(argv)
            runs[name].append(took)
            cpus[name].append(cpu)
    base, base_cpu = statistics.median(runs[BASELINE]), statistics.median(cpus[BASELINE])
    return [Timing(name, statistics.median(times), statistics.median(times) / base, codes[name],
                   statistics.median(cpus[name]) / max(base_cpu, 1e-6))
            for name, times in runs.items()]


def print_ratios(timings: Sequence[Timing], target: float) -> bool:
    """The table; True when every command's median is within `target` times the baseline."""
    print(f"{'command':<22} {'median s':>9} {'x pass':>7} {'cpu x pass':>11} {'exit':>5}")
    for t in timings:
        print(f"{t.name:<22} {t.median:>9.3f} {t.ratio:>7.1f} {t.cpu_ratio:>11.1f} {t.code:>5}")
    measured = [t for t in timings if t.name != BASELINE]
    worst = max((t.ratio for t in measured), default=0.0)
    print(f"worst: {worst:.1f}x python -c pass (target <= {target:g}x)")
    return worst <= target
