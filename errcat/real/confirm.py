"""`errcat confirm`: every example of a catalog through the target's own validation.

For each entry's and variant's example the real program runs `before` and `after`
(`errcat.real.runner`, in the target's interpreter); `analyzers.judge` says whether
`before` raised this entry first and `after` nothing. A refuted example is repaired
with the real program's help: the error that fired instead is another catalog entry,
whose own example says which change avoids it; that change is applied and the pair run
again, a few rounds deep. What the real program confirms is recorded as found by it;
triggers and predictions stay derived from source. Results go to `confirm.json` beside
the catalog (merged with earlier ones) and a Markdown report; extract's files are
never touched here.
"""
from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analyzers.judge import CONFIRMED, NOT_RUN, REFUTED, EntryIndex, Real, Verdict, judge
from analyzers.launch import CommandLine, split_command
from analyzers.outcomes import CONFIRM_FILE, Found, Outcome, Outcomes, read_outcomes, release_of
from analyzers.platform_facts import meets
from analyzers.solution_check import is_solution, judged_pairs
from errcat.real.materials import Materials, NotRunnable, unrunnable
from errcat.real.repair import Example, Pair, Search, shell_line
from errcat.real.runner import Launch, Runner, driver_setup, target_version
from extractor.errors import ErrcatError
from extractor.observe import Progress
from extractor.profile import Profile, load_profile
from extractor.real_profile import RealProfile
from output.catalog_dirs import catalog_dir_data

REPORT_FILE = "confirm.md"
REPAIR_ROUNDS = 4  # blockers removed one after another (each round: one more run per example)



@dataclass(frozen=True, slots=True)
class ConfirmRun:
    """What one `confirm` did: every example of the catalog (selected by --only) with its outcome."""

    version: str
    examples: tuple[Example, ...]
    outcomes: Outcomes  # everything confirm.json now holds
    ran: int  # examples run this time (the others reused a recorded outcome)
    launches: int
    seconds: float
    out: Path

    def outcome(self, example: Example) -> Outcome | None:
        return self.outcomes.get(example.entry, example.before, example.after, self.version)


# ------------------------------------------------------------------ the catalog side


def catalog_version(data: Mapping[str, Any], profile: Profile) -> str:
    version = release_of(data.get("source") or {}, profile)
    if version is None:
        raise ErrcatError("cannot tell which release this catalog describes (neither a release nor a commit with one "
                          f"tagged like {profile.release_tag!r}); extract it with --release or at a release tag")
    return version


def examples_of(data: Mapping[str, Any], only: Sequence[str] = ()) -> list[Example]:
    """Every example of the catalog's entries (those in `only`, when given), in catalog order."""
    wanted = set(only)
    known = {e.get("id") for e in data["entries"]}
    if missing := sorted(wanted - known):
        raise ErrcatError(f"--only: no entry {missing[0]} in this catalog")
    out = []
    for entry in data["entries"]:
        if wanted and entry["id"] not in wanted:
            continue
        fixes = [("", entry.get("example_fix") or {})]
        fixes += [(f"variant {i + 1}", v.get("example_fix") or {}) for i, v in enumerate(entry.get("variants") or [])]
        for label, fix in fixes:
            # a found example replaced the static one: judge the static one; a withheld pair
            # (the pipeline refutes it) is not shown but runs, so the real program may repair it
            static = fix.get("static") or (fix.get("withheld") if fix.get("after") is None else None) or fix
            out.append(Example(entry["id"], label, static.get("before"), static.get("after"),
                               str(fix.get("predicted", static.get("predicted", "unknown"))),
                               tuple(static.get("needs") or fix.get("needs") or ()),
                               str(fix.get("note") or "")))
        # each solution's command, on the command it was applied to: judged as an example is
        out += [Example(entry["id"], label, sol.get("before"), sol["command"], str(sol.get("predicted", "unknown")),
                        tuple(fix.get("needs") or ()))
                for label, fix, sol in judged_pairs(entry)]
    return out


# ------------------------------------------------------------------ commands


# ------------------------------------------------------------------ running


@dataclass(slots=True)
class Session:
    """The launches of one run (a confirm run, a difftest), through one runner; each distinct line runs once."""

    runner: Any
    profile: Profile
    materials: Materials
    progress: Progress | None
    label: str = "launches"
    launches: int = 0
    cache: dict[tuple[tuple[tuple[str, str], ...], tuple[str, ...]], Real] = field(default_factory=dict)

    def run(self, lines: Sequence[CommandLine]) -> list[Real]:
        """The real outcome of each command line (the same line twice: run once)."""
        keys = [(line.env, line.argv) for line in lines]
        todo: dict[Any, Launch] = {}
        for key, line in zip(keys, lines, strict=True):
            if key in self.cache or key in todo:
                continue
            try:
                argv = tuple(self.materials.word(w) for w in line.argv)
                env = tuple((k, self.materials.word(v)) for k, v in line.env)
            except NotRunnable as exc:
                self.cache[key] = Real("not-run", message=str(exc))
                continue
            todo[key] = Launch(argv, env)
        # results come in input order
        for n, (key, (_, result)) in enumerate(zip(list(todo), self.runner.run(list(todo.values())), strict=True), 1):
            self.cache[key] = real_of(result, self.profile)
            self.launches += 1
            if self.progress is not None:
                self.progress(n, len(todo), self.label)
        return [self.cache[k] for k in keys]


def real_of(result: Any, profile: Profile) -> Real:
    """The runner's `Result` in the judge's terms (frame paths in repository layout)."""
    path = (profile.repo_path(result.path) or result.path) if result.path else ""
    message = result.message or ""
    if result.outcome in ("timeout", "crash"):
        message = message or result.detail.strip()[-300:]
    written = result.written_at
    written_at = (profile.repo_path(written[0]) or written[0], written[1]) if written else None
    return Real(result.outcome, result.type or "", message, path, int(result.line or 0), written_at)


def _judged(pairs: Sequence[Pair], session: Session, index: EntryIndex) -> None:
    lines: list[CommandLine] = []
    for pair in pairs:
        lines.append(pair.before)
        if pair.after is not None:
            lines.append(pair.after)
    reals = iter(session.run(lines))
    for pair in pairs:
        pair.real_before = next(reals)
        pair.real_after = next(reals) if pair.after is not None else None
        if pair.real_before.outcome == "not-run":
            pair.verdict = Verdict(NOT_RUN, f"not-run: {pair.real_before.message}")
        elif pair.real_after is not None and pair.real_after.outcome == "not-run":
            pair.verdict = Verdict(NOT_RUN, f"not-run: {pair.real_after.message}")
        else:
            pair.verdict = judge(pair.example.entry, pair.real_before, pair.real_after, index)


def _outcome(pair: Pair, version: str, repaired: Pair | None) -> Outcome:
    assert pair.verdict is not None
    found = None
    if repaired is not None and repaired.real_before is not None and repaired.real_after is not None \
            and repaired.after is not None:
        found = Found(shell_line(repaired.before), shell_line(repaired.after), repaired.real_before,
                      repaired.real_after)
    ex = pair.example
    return Outcome(ex.entry, ex.fingerprint, version, ex.before, ex.after, pair.verdict.status, pair.verdict.why,
                   pair.real_before, pair.real_after, found)


def _stale(recorded: Outcome | None, example: Example, profile: Profile) -> bool:
    """Is there no recorded outcome to reuse? One not run because the example needed another
    machine, which it no longer needs (a platform's `absent` changed), is run again; one refuted
    here, where the example now needs a machine this one is not (a check only such a machine
    passes stopped it), is no evidence: it is recorded again, not run."""
    if recorded is None:
        return True
    assert profile.real is not None  # `confirm` refuses a profile without one
    if recorded.status == REFUTED:
        return any(not _met(n, profile.real) for n in example.needs)
    if recorded.status != NOT_RUN or not recorded.why.startswith(f"not-run: {NEEDS}"):
        return False
    return recorded.why != f"not-run: {_unrunnable(example, profile.real)}"


def _not_run(example: Example, version: str, why: str) -> Outcome:
    return Outcome(example.entry, example.fingerprint, version, example.before, example.after, NOT_RUN,
                   f"not-run: {why}")


def confirm(
    catalog_dir: str | Path,
    python: str | Path,
    *,
    jobs: int | None = None,
    only: Sequence[str] = (),
    timeout: float = 60.0,
    repair: bool = True,
    progress: Progress | None = None,
    record: str | Path | None = None,
) -> ConfirmRun:
    """Run the examples of the catalog in `catalog_dir` through the target installed for `python`."""
    started = time.monotonic()
    data = catalog_dir_data(catalog_dir)
    profile = load_profile(str(data.get("profile") or "sglang"))
    real = profile.real
    if real is None:
        raise ErrcatError(f"profile {profile.name} has no real: section (how to run the target)")
    version = catalog_version(data, profile)
    try:
        recorded = read_outcomes(catalog_dir)
    except ValueError as exc:
        raise ErrcatError(str(exc)) from None
    examples = examples_of(data, only)
    todo = [e for e in examples if _stale(recorded.get(e.entry, e.before, e.after, version), e, profile)]
    installed = target_version(python, real.package)
    if installed != version:
        raise ErrcatError(f"{python} has {real.package} {installed or '(none)'} installed, the catalog describes "
                          f"{version}; build a matching one with scripts/target_env.py --release {version}")
    new: list[Outcome] = []
    launches = 0
    if todo:
        index = EntryIndex(data["entries"])
        with tempfile.TemporaryDirectory(prefix="errcat-confirm-") as tmp, \
                Runner(str(python), driver_setup(real, version), jobs=jobs or 2, timeout=timeout) as runner:
            session = Session(runner, profile, Materials(real, Path(tmp)), progress)
            new = _run_examples(todo, data, profile, version, session, index, repair, record, recorded)
            launches = session.launches
    outcomes = recorded.with_(new)
    return ConfirmRun(version, tuple(examples), outcomes, len(todo), launches, time.monotonic() - started,
                      Path(catalog_dir))


def _run_examples(todo: Sequence[Example], data: Mapping[str, Any], profile: Profile, version: str,
                  session: Session, index: EntryIndex, repair: bool, record: str | Path | None,
                  recorded: Outcomes) -> list[Outcome]:
    """Run `todo` (each example once, then repairs of the refuted ones), in `todo`'s order."""
    outcomes: dict[int, Outcome] = {}
    pairs: dict[int, Pair] = {}
    for i, example in enumerate(todo):
        pair_or_why = _pair(example, profile)
        if isinstance(pair_or_why, str):
            outcomes[i] = _not_run(example, version, pair_or_why)
        else:
            pairs[i] = pair_or_why
    session.label = "examples"
    _judged(list(pairs.values()), session, index)
    search = Search.of(data, index, pairs.values(), recorded, version, profile.launch)
    repaired = _repaired(pairs, search, session, index, REPAIR_ROUNDS if repair else 0)
    for i, pair in pairs.items():
        outcomes[i] = _outcome(pair, version, repaired.get(i))
    if record is not None:
        _record(record, session, version, index)
    return [outcomes[i] for i in sorted(outcomes)]


def _pair(example: Example, profile: Profile) -> Pair | str:
    """The example's command lines to run, or why it cannot run here."""
    real = profile.real
    assert real is not None  # `confirm` refuses a profile without one
    why = _unrunnable(example, real)
    if why is not None:
        return why
    try:
        before = split_command(example.before or "", profile.launch)
        after = split_command(example.after, profile.launch) if example.after else None
    except ValueError as exc:
        return f"not a command line ({exc})"
    return Pair(example, before, after)


def _repaired(pairs: Mapping[int, Pair], search: Search, session: Session, index: EntryIndex,
              rounds: int) -> dict[int, Pair]:
    """Per refuted pair (by its key in `pairs`), the first repair the real program confirmed: each
    round runs the candidates of the repairs the previous round refuted."""
    open_ = {i: [p] for i, p in pairs.items() if p.verdict is not None and p.verdict.status == REFUTED}
    repaired: dict[int, Pair] = {}
    for round_ in range(rounds):
        tries = {i: [r for p in ps for r in search.candidates(p)] for i, ps in open_.items()}
        tries = {i: rs for i, rs in tries.items() if rs}
        if not tries:
            break
        session.label = f"repairs, round {round_ + 1}"
        _judged([r for rs in tries.values() for r in rs], session, index)
        open_ = {}
        for i, rs in tries.items():
            good = next((r for r in rs if r.verdict is not None and r.verdict.status == CONFIRMED), None)
            if good is not None:
                repaired[i] = good
            else:
                open_[i] = rs
    return repaired


NEEDS = "needs a machine where "  # why an example needing another machine is not run


def _unrunnable(example: Example, real: RealProfile) -> str | None:
    if example.before is None:
        return f"no example ({example.note})" if example.note else "no example"
    unmet = [n for n in example.needs if not _met(n, real)]
    if unmet:
        return NEEDS + ", ".join(unmet)
    bad = unrunnable(f"{example.before} {example.after or ''}")
    return f"placeholder {', '.join(dict.fromkeys(bad))} has no concrete value" if bad else None


def _met(need: str, real: RealProfile) -> bool:
    """Does this machine meet ``platform:NAME=JSON value``? What its platform states (a fact
    such as ``torch.cuda.get_device_capability() fails``), else `platform_default`."""
    return meets(real.here(), need, real.platform_default)


def _record(path: str | Path, session: Session, version: str, index: EntryIndex) -> None:
    """Every launch this run made (placeholders as written), what the real program did and
    which catalog entry that was: test data for the static side."""
    lines = []
    for (env, argv), real in sorted(session.cache.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        if real.outcome == "not-run":
            continue
        entry = index.which(real)
        lines.append(json.dumps({"version": version, "env": dict(env), "argv": list(argv), **real.as_dict(),
                                 **({"entry": entry} if entry else {})}, sort_keys=True, ensure_ascii=False))
    Path(path).write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def write_results(run: ConfirmRun) -> str:
    """`confirm.json` (every outcome recorded so far) and `confirm.md` beside the catalog,
    each replaced atomically; returns a one-line summary."""
    from extractor.atomic import write_bytes_atomically
    from output.confirm_report import confirm_report
    from output.writer import dumps

    every = [(e.entry, e.label, e.predicted, run.outcome(e)) for e in run.examples]
    rows = [r for r in every if not is_solution(r[1])]
    solutions = [r for r in every if is_solution(r[1])]
    write_bytes_atomically(run.out / CONFIRM_FILE, str(dumps(run.outcomes.as_dict())).encode())
    write_bytes_atomically(run.out / REPORT_FILE, confirm_report(run.version, rows, seconds=run.seconds,
                                                                 launches=run.launches, solutions=solutions).encode())
    counts = {s: sum(1 for *_, o in rows if o is not None and o.status == s) for s in (CONFIRMED, REFUTED, NOT_RUN)}
    found = sum(1 for *_, o in rows if o is not None and o.found is not None)
    return (f"{run.version}: {len(rows)} examples, {counts[CONFIRMED]} confirmed as written, {found} replaced by "
            f"examples the real program confirmed, {counts[REFUTED] - found} refuted, "
            f"{counts[NOT_RUN]} not run; {len(solutions)} solutions with a command, "
            f"{sum(1 for *_, o in solutions if o is not None and o.status == CONFIRMED)} confirmed "
            f"({run.ran} run now, {run.launches} launches, {run.seconds:.0f} s) "
            f"-> {run.out / CONFIRM_FILE}")
