"""Build a local git repository whose commits are releases from the package index.

    python scripts/release_history.py OUT_DIR --versions 0.4.10 0.5.18 0.5.23 \\
        [--profile sglang] [--cache-dir D] [--paths GLOB ...]

Prints one line per commit: `<tag> <sha>`. Exit 2 with one line on bad input.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

# Runnable from a checkout without installing the package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from errcat.exits import Exit
from extractor.errors import ErrcatError
from extractor.history_repo import build_release_history
from extractor.profile import load_profile
from extractor.source import PYPI


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="release_history.py", description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", metavar="OUT_DIR", help="new (or empty) directory for the repository")
    parser.add_argument("--versions", nargs="+", required=True, metavar="VERSION")
    parser.add_argument("--profile", default="sglang", help="profile name or YAML file (default: sglang)")
    parser.add_argument("--cache-dir", default=None, help="download cache (default: errcat's cache)")
    parser.add_argument("--paths", nargs="+", default=None, metavar="GLOB",
                        help="repository-layout globs to commit (default: derived from the profile)")
    parser.add_argument("--index-url", default=PYPI, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    try:
        profile = load_profile(args.profile)
        commits = build_release_history(args.out_dir, args.versions, profile=profile,
                                        cache_dir=args.cache_dir, paths=args.paths,
                                        index_url=args.index_url)
    except ErrcatError as exc:
        print(f"release_history: {exc}", file=sys.stderr)
        return Exit.USAGE
    for version, sha in commits:
        print(f"{profile.tag(version)} {sha}")
    return Exit.OK


if __name__ == "__main__":
    sys.exit(main())
