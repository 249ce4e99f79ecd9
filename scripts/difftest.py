"""Differential testing: errcat's static first-error prediction against the real program.

    python scripts/difftest.py --release 0.5.23 [--catalog DIR] [--python PY] [--platform generic]
                               --count N --seed S --jobs J --out FILE [--regressions FILE] [--no-minimise]
    python scripts/difftest.py --release 0.5.23 [--catalog DIR] --replay CORPUS --out FILE

Generates N launches from the catalog (`analyzers.launchgen`), runs each through the
target's own validation (`errcat.real`: the driver `errcat confirm` uses, in the
interpreter `--python` or the one `scripts/target_env.py` builds), names the real first
error (`analyzers.judge.EntryIndex`), predicts it statically on the platform
(`analyzers.first_error`, the profile's `real.platforms`), writes every launch as a JSON
line to `--out` and prints the figures. Disagreements are minimised and written to
`--regressions` (default: tests/data/real/difftest-<release>.jsonl), in the recorded
corpus's format. Without --catalog the release is extracted (cached) first.

With --replay, nothing runs: the launches of a corpus written earlier (``.gz`` or not)
keep their recorded real outcomes and are predicted again with the catalog, so a change
to errcat is measured against the real program in seconds (the real first error is named
again too, by the catalog's own messages).
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

# Runnable from a checkout without installing the package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analyzers.difftest import (
    Case,
    Line,
    causes,
    disagreements,
    falsely_sure,
    figures,
    left_open,
    minimise,
    real_first,
    regression_record,
)
from analyzers.examples import MODEL
from analyzers.first_error import Pipeline, Prediction
from analyzers.flags import option_for_dest
from analyzers.judge import EntryIndex, Real
from analyzers.launch import CommandLine
from analyzers.launchgen import Generated, example_lines, generate
from analyzers.platform_facts import Stated
from errcat.exits import script_exit
from errcat.progress import progress_bar
from errcat.real.confirm import Session, catalog_version
from errcat.real.materials import Materials
from errcat.real.runner import Runner, driver_setup, target_version
from extractor.errors import ErrcatError
from extractor.profile import Profile, load_profile
from extractor.real_profile import Platform, RealProfile
from output.catalog_dirs import catalog_dir_data
from output.jsonlines import read_lines, write_lines

ROOT = Path(__file__).resolve().parents[1]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise ErrcatError(message)  # one line, exit 2, like every errcat CLI


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = _Parser(prog="difftest.py", description=__doc__.splitlines()[0])
    parser.add_argument("--release", required=True, metavar="X", help="the target's release, e.g. 0.5.23")
    parser.add_argument("--catalog", default=None, metavar="DIR", help="its catalog (default: extracted now)")
    parser.add_argument("--python", default=None, metavar="PY", help="the target interpreter (default: built)")
    parser.add_argument("--profile", default="sglang", help="profile name or YAML file (default: sglang)")
    parser.add_argument("--platform", default="generic", help="the profile's platform to predict on")
    parser.add_argument("--count", type=int, default=2000, metavar="N")
    parser.add_argument("--seed", type=int, default=0, metavar="S")
    parser.add_argument("--jobs", type=int, default=2, metavar="J")
    parser.add_argument("--timeout", type=float, default=60.0, metavar="S", help="per launch (default 60)")
    parser.add_argument("--replay", default=None, metavar="CORPUS",
                        help="re-predict a recorded corpus's launches (their real outcomes as recorded): no runs")
    parser.add_argument("--out", required=True, metavar="FILE", help="the corpus: one JSON line per launch")
    parser.add_argument("--regressions", default=None, metavar="FILE",
                        help="minimised disagreements (default: tests/data/real/difftest-<release>.jsonl)")
    parser.add_argument("--no-minimise", action="store_true", help="do not minimise disagreements")
    parser.add_argument("--quiet", action="store_true")
    return parser.parse_args(argv)


@dataclass(slots=True)
class _Subject:
    """What a launch is judged with: the catalog as a pipeline, the platform, the real runs."""

    pipeline: Pipeline
    stated: Stated
    index: EntryIndex
    session: Session

    def judge(self, lines: Sequence[Line]) -> list[tuple[Real, str, Prediction]]:
        reals = self.session.run([CommandLine(env, (), argv) for argv, env in lines])
        return [(real, real_first(real, self.index), self.pipeline.predict_on(self.stated, argv, env))
                for (argv, env), real in zip(lines, reals, strict=True)]

    def cases(self, generated: Sequence[Generated]) -> list[Case]:
        judged = self.judge([g.key for g in generated])
        return [Case(g.argv, g.env, g.origin, real, first, prediction)
                for g, (real, first, prediction) in zip(generated, judged, strict=True)]


def _catalog(args: argparse.Namespace, tmp: Path) -> Path:
    if args.catalog is not None:
        return Path(args.catalog)
    from errcat.model import SourceSpec
    from errcat.pipeline import extract

    out = tmp / "catalog"
    extract(SourceSpec(release=args.release), out=out, profile=args.profile)
    return out


def _python(args: argparse.Namespace, profile: Profile) -> str:
    if args.python is not None:
        return str(args.python)
    from errcat.real.targetenv import ensure_target_env

    return str(ensure_target_env(profile, args.release).python)


def _bare(cases: Sequence[Case], model_dest: str) -> list[str]:
    """The bare launch of the default model: predicted and real (it must be predicted ok)."""
    argv = (option_for_dest(model_dest), MODEL)
    found = next((c for c in cases if c.argv == argv and not c.env), None)
    if found is None:
        return []
    return [f"bare launch {' '.join(argv)}: predicted {found.prediction.first}"
            + (f" (sure: {found.prediction.sure})" if found.prediction.sure else "") + f", real {found.first}"]


def _platform(profile: Profile, name: str) -> tuple[RealProfile, Platform]:
    real = profile.real
    if real is None:
        raise ErrcatError(f"profile {profile.name} has no real: section (how to run the target)")
    platform = real.platform(name)
    if platform is None:
        raise ErrcatError(f"profile {profile.name} declares no platform {name!r}")
    return real, platform


def _checked(args: argparse.Namespace, data: dict[str, Any], profile: Profile, real: RealProfile) -> str:
    """The target interpreter, once the catalog and it are known to be of `--release`."""
    version = catalog_version(data, profile)
    if version != args.release:
        raise ErrcatError(f"the catalog describes {version}, not {args.release}")
    python = _python(args, profile)
    if (installed := target_version(python, real.package)) != version:
        raise ErrcatError(f"{python} has {real.package} {installed or '(none)'} installed, not {version}")
    return python


def _report(cases: Sequence[Case], model_dest: str) -> list[str]:
    report = figures(cases).lines() + [f"disagreements: {len(disagreements(cases))}"]
    report += [f"  {n} x {cause}" for cause, n in causes(cases)]
    report += _bare(cases, model_dest)
    report += ["entries most often left unknown (undecided launches):"]
    report += [f"  {n} x {entry}" for entry, n in left_open(cases)]
    report += ["entries most often predicted to fire for sure where another came first:"]
    return report + [f"  {n} x {entry}" for entry, n in falsely_sure(cases)]


def _regressions(path: str | Path, found: Sequence[Case], version: str) -> str:
    """Writes the minimised disagreements (each distinct one once, sorted); the report's line."""
    unique = {json.dumps(r, sort_keys=True): r for r in (regression_record(c, version) for c in found)}
    write_lines(path, [unique[k] for k in sorted(unique)])
    return f"minimised disagreements: {len(unique)} -> {path}"


def _recorded(path: str, version: str) -> list[dict[str, Any]]:
    """The launches of a corpus `write_lines` wrote, all of `version`."""
    records = read_lines(path)
    if not all(isinstance(r, dict) and r.get("version") == version for r in records):
        raise ErrcatError(f"{path} is not a difftest corpus of {version}")
    return records


def replay(args: argparse.Namespace) -> list[str]:
    """Predicts a recorded corpus's launches again; returns the report's lines."""
    profile = load_profile(args.profile)
    real, platform = _platform(profile, args.platform)
    records = _recorded(args.replay, args.release)
    with tempfile.TemporaryDirectory(prefix="errcat-difftest-") as tmp:
        data = catalog_dir_data(_catalog(args, Path(tmp)))
    if (version := catalog_version(data, profile)) != args.release:
        raise ErrcatError(f"the catalog describes {version}, not {args.release}")
    validation = real.validation_for(version)
    pipeline = Pipeline.of_catalog(data, [s.name for s in validation.steps] if validation else [], profile.examples)
    stated = Stated.of(pipeline.conditions(), pipeline.model.flags, platform, real, pipeline.model.examples,
                        version)
    index = EntryIndex(data["entries"])
    cases = []
    for record in records:
        argv, env = tuple(record["argv"]), tuple(sorted(record["env"].items()))
        outcome = Real.from_dict(record)
        cases.append(Case(argv, env, record["origin"], outcome, real_first(outcome, index),
                          pipeline.predict_on(stated, argv, env)))
    write_lines(args.out, [c.as_dict(version) for c in cases])
    return _report(cases, pipeline.model.examples.model)


def run(args: argparse.Namespace) -> list[str]:
    """The whole test; returns the report's lines."""
    if args.replay is not None:
        return replay(args)
    for name, least in (("count", 1), ("jobs", 1)):
        if getattr(args, name) < least:
            raise ErrcatError(f"--{name} must be at least {least}")
    if args.timeout <= 0:
        raise ErrcatError("--timeout must be positive")
    profile = load_profile(args.profile)
    real, platform = _platform(profile, args.platform)
    with tempfile.TemporaryDirectory(prefix="errcat-difftest-") as tmp:
        data = catalog_dir_data(_catalog(args, Path(tmp)))
        python = _checked(args, data, profile, real)
        version = args.release
        setup = driver_setup(real, version)  # refuses a release the profile cannot validate
        validation = real.validation_for(version)
        steps = [s.name for s in validation.steps] if validation is not None else []
        pipeline = Pipeline.of_catalog(data, steps, profile.examples)
        stated = Stated.of(pipeline.conditions(), pipeline.model.flags, platform, real, pipeline.model.examples,
                        version)
        architectures = [a for a, _ in real.model_configs if a != real.default_model]
        generated = generate(pipeline.checks, example_lines(data["entries"], profile.launch), pipeline.model,
                             architectures, count=args.count, seed=args.seed)
        progress = progress_bar(sys.stderr, quiet=args.quiet)
        with Runner(python, setup, jobs=args.jobs, timeout=args.timeout) as runner, \
                tempfile.TemporaryDirectory(prefix="errcat-difftest-materials-") as materials:
            subject = _Subject(pipeline, stated, EntryIndex(data["entries"]),
                               Session(runner, profile, Materials(real, Path(materials)), progress))
            cases = subject.cases(generated)
            write_lines(args.out, [c.as_dict(version) for c in cases])
            found = [] if args.no_minimise else disagreements(cases)
            if found:
                subject.session.label = "minimising"
                found = minimise(found, subject.judge)
    report = _report(cases, pipeline.model.examples.model)
    if found:
        report.append(_regressions(args.regressions or ROOT / "tests" / "data" / "real" / f"difftest-{version}.jsonl",
                                   found, version))
    return report


def main(argv: list[str] | None = None) -> int:
    return script_exit("difftest", lambda: run(_arguments(argv)))


if __name__ == "__main__":
    sys.exit(main())
