"""Provocation launches: every option at boundary values, through the real program.

    python scripts/provoke.py run --catalog DIR --python PY [--pairs N] [--seed S] [--count N]
                                  [--jobs J] [--timeout T] --out FILE
    python scripts/provoke.py measure --catalog DIR --data FILE [--missing]

`run` builds the launches from the catalog's flag model (`analyzers.provoke`: every numeric
option at 0, -1 and huge, every text option empty and malformed, `--pairs` random pairs of
them, seeded; `--count` keeps a seeded sample), runs each through the target's own validation
(`errcat.real`, the driver `errcat confirm` uses) in `--python`, an interpreter where the
catalog's release is installed, and writes the labelled launches as JSON lines (``.gz``
compressed): `argv` (the stand-in `<model>` kept), `origin`, and the real outcome (`outcome`,
`type`, `message`, `path`, `line`: the innermost frame inside the target package).

`measure` reads such a file and a catalog and prints, of the distinct lines where the real
program stopped, the share that are catalog entries (`analyzers.stop_lines`); `--missing`
lists the others.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any, NoReturn

# Runnable from a checkout without installing the package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analyzers.flags import FlagModel
from analyzers.judge import EntryIndex, Real
from analyzers.launch import CommandLine
from analyzers.provoke import provocations, sample
from analyzers.stop_lines import coverage
from errcat.exits import script_exit
from errcat.progress import progress_bar
from errcat.real.confirm import Session, catalog_version
from errcat.real.materials import Materials
from errcat.real.runner import Runner, driver_setup, target_version
from extractor.errors import ErrcatError
from extractor.profile import load_profile
from output.catalog_dirs import catalog_dir_data
from output.jsonlines import read_lines, write_lines

MESSAGE_LIMIT = 2000  # characters of a message kept (a matcher may read its end; the data stays small)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise ErrcatError(message)


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = _Parser(prog="provoke.py", description=__doc__.split("\n\n")[0] if __doc__ else None)
    verbs = parser.add_subparsers(dest="verb", required=True, parser_class=_Parser)
    run = verbs.add_parser("run")
    run.add_argument("--catalog", required=True)
    run.add_argument("--python", required=True, help="an interpreter where the catalog's release is installed")
    run.add_argument("--profile", default="sglang")
    run.add_argument("--pairs", type=int, default=300)
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--count", type=int, default=None, help="a seeded sample of this many launches")
    run.add_argument("--jobs", type=int, default=2)
    run.add_argument("--timeout", type=float, default=60.0)
    run.add_argument("--out", required=True)
    run.add_argument("--quiet", action="store_true")
    measure = verbs.add_parser("measure")
    measure.add_argument("--catalog", required=True)
    measure.add_argument("--data", required=True)
    measure.add_argument("--missing", action="store_true")
    return parser.parse_args(argv)


def _record(argv: tuple[str, ...], origin: str, real: Real, materials: str) -> dict[str, Any]:
    """One labelled launch; the run's own directory of stand-ins named `<materials>` (the data
    does not change from run to run)."""
    message = real.message.replace(materials, "<materials>")[:MESSAGE_LIMIT]
    labelled = replace(real, message=message)
    return {"argv": list(argv), "origin": origin, **labelled.as_dict()}


def run(args: argparse.Namespace) -> list[str]:
    if args.pairs < 0 or args.jobs < 1 or (args.count is not None and args.count < 1):
        raise ErrcatError("--pairs must be at least 0, --jobs and --count at least 1")
    profile = load_profile(args.profile)
    real = profile.real
    if real is None:
        raise ErrcatError(f"profile {profile.name} has no real: section (how to run the target)")
    data = catalog_dir_data(args.catalog)
    version = catalog_version(data, profile)
    if (installed := target_version(args.python, real.package)) != version:
        raise ErrcatError(f"{args.python} has {real.package} {installed or '(none)'} installed, not {version}")
    flags = FlagModel.from_dict(data["flags"])
    found = sample(provocations(flags, profile.examples.model, pairs=args.pairs, seed=args.seed),
                   args.count, args.seed)
    with Runner(args.python, driver_setup(real, version), jobs=args.jobs, timeout=args.timeout) as runner, \
            tempfile.TemporaryDirectory(prefix="errcat-provoke-") as materials:
        session = Session(runner, profile, Materials(real, Path(materials)), progress_bar(sys.stderr, quiet=args.quiet))
        reals = session.run([CommandLine((), (), p.argv) for p in found])
    write_lines(args.out, [_record(p.argv, p.origin, r, materials) for p, r in zip(found, reals, strict=True)])
    return [f"{len(found)} launches of {version} -> {args.out}"] + _figures(reals, EntryIndex(data["entries"]), False)


def _figures(reals: list[Real], index: EntryIndex, missing: bool) -> list[str]:
    found = coverage(reals, index)
    outcomes: dict[str, int] = {}
    for real in reals:
        outcomes[real.outcome] = outcomes.get(real.outcome, 0) + 1
    lines = [f"outcomes: {', '.join(f'{k} {v}' for k, v in sorted(outcomes.items()))}",
             f"distinct stop lines: {len(found.lines)}, entries {found.covered} ({found.share:.1%}); "
             f"errors without a frame in the package: {found.unlocated}"]
    if missing:
        lines += [f"  {s.path}:{s.line} {s.type}: {s.message.splitlines()[0][:120] if s.message else ''}"
                  f" ({s.launches} launch(es))" for s in found.missing()]
    return lines


def measure(args: argparse.Namespace) -> list[str]:
    records = read_lines(args.data)
    if not all(isinstance(r, dict) and "outcome" in r for r in records):
        raise ErrcatError(f"{args.data} is not a provocation corpus")
    index = EntryIndex(catalog_dir_data(args.catalog)["entries"])
    return _figures([Real.from_dict(r) for r in records], index, args.missing)


def main(argv: list[str] | None = None) -> int:
    def work() -> list[str]:
        args = _arguments(argv)
        return run(args) if args.verb == "run" else measure(args)

    return script_exit("provoke", work)


if __name__ == "__main__":
    sys.exit(main())
