"""Command line: parse arguments, call one library function, map errors to exit codes.

Exit codes: 0 ok, 1 "differences found" where a command asks for it, 2 bad input.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from errcat import __version__
from errcat import pipeline
from extractor.errors import ErrcatError

EXIT_OK, EXIT_DIFF, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as one line and exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise _UsageError(message)


class _UsageError(Exception):
    pass


def _add_source_args(parser: argparse.ArgumentParser) -> None:
    src = parser.add_argument_group("source (one of; default: the profile's newest release)")
    src.add_argument("--repo", help="git repository: local path or URL (https, ssh, file://)")
    src.add_argument("--commit", help="revision in --repo: full/short SHA, tag or branch (default HEAD)")
    src.add_argument("--release", help="a release on the package index, e.g. 0.5.23")
    src.add_argument("--path", help="a directory (a checkout)")
    parser.add_argument("--profile", default="sglang", help="target profile name or YAML file (default: sglang)")
    parser.add_argument("--cache-dir", help="downloads, mirrors and results (default: $ERRCAT_CACHE_DIR or XDG cache)")


def _spec(args: argparse.Namespace) -> pipeline.SourceSpec:
    return pipeline.SourceSpec(repo=args.repo, commit=args.commit, release=args.release, path=args.path)


def _cmd_extract(args: argparse.Namespace) -> int:
    catalog = pipeline.extract(_spec(args), profile=args.profile, out=args.out, cache_dir=args.cache_dir)
    stats = catalog.stats()
    snap = catalog.snapshot
    print(
        f"{catalog.profile.repo}@{snap.pin}: {stats['entries']} entries "
        f"({stats['raise']} raise, {stats['assert']} assert, {stats['variants']} variants) "
        f"from {stats['files']} files -> {args.out}"
    )
    for line in catalog.diagnostics:
        print(f"note: {line}", file=sys.stderr)
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="errcat", description="Turn a project's validation code into an error catalog.")
    parser.add_argument("--version", action="version", version=f"errcat {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    extract = sub.add_parser("extract", help="extract a catalog from a source")
    _add_source_args(extract)
    extract.add_argument("--out", default="catalog", help="output directory (default: ./catalog)")
    extract.set_defaults(func=_cmd_extract)
    return parser


def _fail(message: object) -> int:
    """The one place errors reach the user: a single `errcat: ...` line on stderr, exit 2."""
    text = " ".join(part.strip() for part in str(message).splitlines() if part.strip())
    print(f"errcat: {text or 'error'}", file=sys.stderr)
    return EXIT_USAGE


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except _UsageError as exc:
        return _fail(exc)
    except SystemExit as exc:  # --help / --version: argparse printed them already
        return exc.code if isinstance(exc.code, int) else EXIT_OK
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        return func(args)
    except ErrcatError as exc:
        return _fail(exc)
    except OSError as exc:  # the file system refused (cache or output location), not a bug
        return _fail(f"{exc.strerror or exc}: {exc.filename}" if exc.filename else exc.strerror or exc)
    except KeyboardInterrupt:
        print("errcat: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
