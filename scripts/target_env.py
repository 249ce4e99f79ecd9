"""Build (or reuse) a CPU-only virtualenv in which a release of the profile's target is importable.

    python scripts/target_env.py --release 0.5.23 [--dir D] [--profile sglang] [--wheel W] [--cache-dir C]

Prints the env's python on stdout (progress on stderr). Exit 2 with one line on bad input or a
failing install step. What each release needs is the profile's `real.install` section.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import NoReturn

# Runnable from a checkout without installing the package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from errcat.exits import script_exit
from errcat.real.targetenv import ensure_target_env
from extractor.errors import ErrcatError
from extractor.profile import load_profile


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise ErrcatError(message)  # one line, exit 2, like every errcat CLI


def main(argv: list[str] | None = None) -> int:
    parser = _Parser(prog="target_env.py", description=__doc__.splitlines()[0])
    parser.add_argument("--release", required=True, metavar="X", help="the target's release, e.g. 0.5.23")
    parser.add_argument("--dir", default=None, metavar="D",
                        help="the env's directory (default: <cache>/targets/<dist>-<X>-<plan hash>)")
    parser.add_argument("--profile", default="sglang", help="profile name or YAML file (default: sglang)")
    parser.add_argument("--wheel", default=None, metavar="W",
                        help="the release file to install (default: a cached download, else from the index)")
    parser.add_argument("--cache-dir", default=None, metavar="C", help="errcat's cache (default: ~/.cache/errcat)")
    def work() -> list[str]:
        args = parser.parse_args(argv)
        env = ensure_target_env(load_profile(args.profile), args.release, root=args.dir, wheel=args.wheel,
                                cache_dir=args.cache_dir, log=lambda m: print(f"target_env: {m}", file=sys.stderr))
        return [str(env.python)]

    return script_exit("target_env", work)


if __name__ == "__main__":
    sys.exit(main())
