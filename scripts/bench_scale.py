"""Extraction of generated files of growing size, against a libcst parse of the same file.

    python scripts/bench_scale.py [--sizes 1000 10000 100000] [--shapes one-if many server-args]
                                  [--root CHECKOUT] [--timeout S]

For each shape (`scripts/scale_shapes.py`) and size it runs, each in its own process,
a plain `libcst.parse_module` of the file and `errcat extract --no-cache --jobs 1` on it,
and prints the extraction time over the parse time (a ratio, measured in the same run),
both peak RSS values and the size of catalog.json. `--root` runs the errcat of another
checkout (e.g. main) for before/after numbers.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from errcat.exits import Exit
from scripts import scale_shapes

ROOT = Path(__file__).resolve().parents[1]
PARSE = "import libcst, sys; libcst.parse_module(open(sys.argv[1], encoding='utf-8').read())"


def measure(argv: list[str], env: dict[str, str], timeout: float, cwd: Path) -> tuple[float | None, float, int]:
    """(seconds or None on timeout, peak RSS in MB, exit code) of one child process."""
    start = time.perf_counter()
    # cwd outside any checkout: `python -m errcat` would import the errcat of the cwd first
    proc = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = start + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return time.perf_counter() - start, usage.ru_maxrss / 1024, proc.returncode
        if time.perf_counter() > deadline:
            proc.kill()
            _, status, usage = os.wait4(proc.pid, 0)
            return None, usage.ru_maxrss / 1024, -9
        time.sleep(0.05)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--shapes", nargs="+", default=["one-if", "many", "server-args"], choices=scale_shapes.SHAPES)
    parser.add_argument("--root", type=Path, default=ROOT, help="errcat checkout to run (default: this one)")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per process before it is stopped")
    args = parser.parse_args(argv)
    env = {**os.environ, "PYTHONPATH": str(args.root.resolve())}
    print(f"errcat from {args.root.resolve()}")
    print(f"{'shape':<10} {'lines':>7} {'parse s':>8} {'extract s':>9} {'ratio':>6} "
          f"{'parse MB':>8} {'extract MB':>10} {'exit':>4} {'catalog MB':>10} {'B/entry':>7}")
    for shape in args.shapes:
        for size in args.sizes:
            with tempfile.TemporaryDirectory(prefix="errcat-scale-") as tmp:
                root = Path(tmp)
                profile = scale_shapes.write(shape, size, root)
                target = root / scale_shapes.target(shape)
                parse_s, parse_mb, _ = measure([sys.executable, "-c", PARSE, str(target)], env, args.timeout, root)
                out = root / "out"
                cmd = [sys.executable, "-m", "errcat", "extract", "--path", str(root), "--profile", profile,
                       "--no-cache", "--jobs", "1", "--out", str(out)]
                extract_s, extract_mb, code = measure(cmd, env, args.timeout, root)
                catalog = out / "catalog.json"
                size_mb = catalog.stat().st_size / 2**20 if catalog.is_file() else 0.0
                entries = len(list((out / "entries").glob("*.json"))) if catalog.is_file() else 0
                per_entry = f"{catalog.stat().st_size // entries:>7}" if entries else f"{'-':>7}"
                ratio = f"{extract_s / parse_s:>5.2f}x" if extract_s and parse_s else f"{'-':>6}"
                shown = f"{extract_s:>9.1f}" if extract_s is not None else f"{'timeout':>9}"
                print(f"{shape:<10} {size:>7} {parse_s or 0:>8.1f} {shown} {ratio} "
                      f"{parse_mb:>8.0f} {extract_mb:>10.0f} {code:>4} {size_mb:>10.1f} {per_entry}", flush=True)
    return Exit.OK


if __name__ == "__main__":
    sys.exit(main())
