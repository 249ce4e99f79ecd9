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
import re
import shlex
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analyzers.judge import CONFIRMED, NOT_RUN, REFUTED, EntryIndex, Real, Verdict, judge
from analyzers.launch import CommandLine, split_command
from analyzers.outcomes import CONFIRM_FILE, Found, Outcome, Outcomes, fingerprint, read_outcomes, release_of
from errcat.real.materials import Materials, NotRunnable, unrunnable
from errcat.real.runner import Launch, Runner, driver_setup, target_version
from extractor.errors import ErrcatError
from extractor.profile import Profile, load_profile
from extractor.real_profile import RealProfile

REPORT_FILE = "confirm.md"
REPAIR_ROUNDS = 4  # blockers removed one after another (each round: one more run per example)
REPAIRS_PER_ROUND = 3  # candidate repairs tried per refuted example and round

Progress = Callable[[int, int, str], None]


@dataclass(frozen=True, slots=True)
class Example:
    entry: str
    label: str  # "" for the entry's own example, "variant N" for a table row's
    before: str | None
    after: str | None
    predicted: str
    needs: tuple[str, ...] = ()
    note: str = ""  # why there is no example (before None)

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.before, self.after)


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


def load_catalog(directory: str | Path) -> dict[str, Any]:
    path = Path(directory) / "catalog.json"
    if not path.is_file():
        raise ErrcatError(f"{directory} is not a catalog directory (no catalog.json)")
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise ErrcatError(f"cannot read {path}: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("entries"), list):
        raise ErrcatError(f"{path} is not an errcat catalog")
    return data


def catalog_version(data: Mapping[str, Any], profile: Profile) -> str:
    version = release_of(data.get("source") or {}, profile)
    if version is None:
        raise ErrcatError("cannot tell which release this catalog describes (neither a release nor a commit "
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
            static = fix.get("static") or fix  # a found example replaced the static one: judge the static one
            out.append(Example(entry["id"], label, static.get("before"), static.get("after"),
                               str(static.get("predicted", "unknown")), tuple(fix.get("needs") or ()),
                               str(fix.get("note") or "")))
    return out


# ------------------------------------------------------------------ commands


def _groups(argv: Sequence[str]) -> list[tuple[str, tuple[str, ...]]]:
    """argv as (option, values) in order (``--x=v`` is ``--x v``)."""
    out: list[tuple[str, list[str]]] = []
    for word in argv:
        if word.startswith("--"):
            option, eq, value = word.partition("=")
            out.append((option, [value] if eq else []))
        elif out:
            out[-1][1].append(word)
        else:
            out.append(("", [word]))
    return [(o, tuple(v)) for o, v in out]


def _words(groups: Iterable[tuple[str, tuple[str, ...]]]) -> list[str]:
    return [w for option, values in groups for w in ((option,) if option else ()) + values]


@dataclass(frozen=True, slots=True)
class Change:
    """What one example's fix changes: options dropped or set, env vars unset or set."""

    drop: frozenset[str] = frozenset()
    set: tuple[tuple[str, tuple[str, ...]], ...] = ()
    env: tuple[tuple[str, str | None], ...] = ()

    def __bool__(self) -> bool:
        return bool(self.drop or self.set or self.env)

    def options(self) -> set[str]:
        return set(self.drop) | {o for o, _ in self.set}

    def apply(self, line: CommandLine) -> CommandLine:
        groups = [(o, v) for o, v in _groups(line.argv) if o not in self.drop]
        for option, values in self.set:
            groups = [(o, v) for o, v in groups if o != option] + [(option, values)]
        env = dict(line.env)
        for name, value in self.env:
            if value is None:
                env.pop(name, None)
            else:
                env[name] = value
        return CommandLine(tuple(sorted(env.items())), line.program, tuple(_words(groups)))


def change_between(before: CommandLine, after: CommandLine) -> Change:
    old, new = dict(_groups(before.argv)), dict(_groups(after.argv))
    old_env, new_env = dict(before.env), dict(after.env)
    return Change(
        frozenset(o for o in old if o not in new and o),
        tuple((o, v) for o, v in new.items() if o and old.get(o) != v),
        tuple((k, new_env.get(k)) for k in sorted(set(old_env) | set(new_env)) if old_env.get(k) != new_env.get(k)),
    )


def shell_line(line: CommandLine) -> str:
    """The shell line a user pastes (placeholders stay as they are)."""
    return " ".join([f"{k}={_quote(v)}" for k, v in line.env] + [_quote(w) for w in (*line.program, *line.argv)])


def _quote(word: str) -> str:
    return word if re.fullmatch(r"<[^<>\s]*>", word) else shlex.quote(word)


# ------------------------------------------------------------------ running


@dataclass(slots=True)
class _Pair:
    """One example (or a repair of it) on its way through the real program."""

    example: Example
    before: CommandLine
    after: CommandLine | None
    applied: tuple[str, ...] = ()  # entries whose fixes were applied (repairs)
    real_before: Real | None = None
    real_after: Real | None = None
    verdict: Verdict | None = None


@dataclass(slots=True)
class _Session:
    """The launches of one confirm run, through one runner."""

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
        for key, line in zip(keys, lines):
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
        for n, (key, (_, result)) in enumerate(zip(list(todo), self.runner.run(list(todo.values()))), 1):
            self.cache[key] = _real(result, self.profile)
            self.launches += 1
            if self.progress is not None:
                self.progress(n, len(todo), self.label)
        return [self.cache[k] for k in keys]


def _real(result: Any, profile: Profile) -> Real:
    """The runner's `Result` in the judge's terms (frame paths in repository layout)."""
    path = (profile.repo_path(result.path) or result.path) if result.path else ""
    message = result.message or ""
    if result.outcome in ("timeout", "crash"):
        message = message or result.detail.strip()[-300:]
    return Real(result.outcome, result.type or "", message, path, int(result.line or 0))


def _judged(pairs: Sequence[_Pair], session: _Session, index: EntryIndex) -> None:
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


def _entry_changes(data: Mapping[str, Any], prefix: str) -> dict[str, list[Change]]:
    """Per entry, the changes its examples' fixes make (how to get past that error)."""
    out: dict[str, list[Change]] = {}
    for entry in data["entries"]:
        fixes = [entry.get("example_fix") or {}] + [v.get("example_fix") or {} for v in entry.get("variants") or []]
        for fix in fixes:
            for pair in (fix, fix.get("static") or {}):
                if pair.get("before") and pair.get("after"):
                    try:
                        change = change_between(split_command(pair["before"], prefix),
                                                split_command(pair["after"], prefix))
                    except ValueError:
                        continue
                    if change and change not in out.get(entry["id"], []):
                        out.setdefault(entry["id"], []).append(change)
    return out


def _blocker(pair: _Pair, index: EntryIndex) -> tuple[str, str] | None:
    """(which side, entry id) of the other catalog error that stopped `pair`."""
    if pair.real_before is not None and pair.real_before.outcome == "error":
        other = index.which(pair.real_before)
        if other is not None and other != pair.example.entry:
            return ("both", other)
    if pair.verdict is not None and pair.verdict.why.startswith("after-fires") and pair.real_after is not None:
        other = index.which(pair.real_after)
        if other is not None and other != pair.example.entry:
            return ("after", other)
    return None


def _repairs(pair: _Pair, index: EntryIndex, changes: Mapping[str, list[Change]]) -> list[_Pair]:
    """`pair` with the fix of the error that stopped it applied (to both commands when it
    stopped `before`, else to `after`); never a change touching what the example's own fix changes."""
    found = _blocker(pair, index)
    if found is None or pair.after is None or found[1] in pair.applied:
        return []  # a blocker met again: its fix and a later one undo each other
    side, other = found
    own = change_between(pair.before, pair.after).options()
    out = []
    for change in changes.get(other, []):
        if change.options() & own:
            continue
        before = change.apply(pair.before) if side == "both" else pair.before
        after = change.apply(pair.after)
        if (before, after) == (pair.before, pair.after):
            continue
        out.append(_Pair(pair.example, before, after, pair.applied + (other,)))
        if len(out) == REPAIRS_PER_ROUND:
            break
    return out


def _overlay(base: CommandLine, line: CommandLine) -> CommandLine:
    """`base` with every option and env var of `line` set as `line` has it."""
    change = Change(set=tuple((o, v) for o, v in _groups(line.argv) if o), env=tuple(line.env))
    return change.apply(base)


def _reached(pair: _Pair, contexts: Sequence[CommandLine], why: str = "context") -> list[_Pair]:
    """`pair` (which the real program accepted: its check was never reached) on top of
    commands that reach the same function (fixes confirmed there), its own fix applied
    to each: the first repair of a "no-error"."""
    if pair.after is None:
        return []
    own = change_between(pair.before, pair.after)
    out = []
    for base in contexts:
        before = _overlay(base, pair.before)
        if before == pair.before:
            continue
        out.append(_Pair(pair.example, before, own.apply(before), pair.applied + (why,)))
        if len(out) == REPAIRS_PER_ROUND:
            break
    return out


def _candidates(pair: _Pair, index: EntryIndex, changes: Mapping[str, list[Change]],
                passing: Mapping[str, list[CommandLine]], reaching: Mapping[str, list[CommandLine]]) -> list[_Pair]:
    """The repairs to try next for a refuted `pair`: a check never reached, on commands that
    reach its function; another error first, its fix applied, or the example on commands
    known to pass that error."""
    if pair.verdict is None:
        return []
    if pair.verdict.why == "no-error":
        return _reached(pair, reaching.get(pair.example.entry, []))
    found = _blocker(pair, index)
    if found is None or found[1] in pair.applied:
        return []
    return _repairs(pair, index, changes) + _reached(pair, passing.get(found[1], []), found[1])


def _outcome(pair: _Pair, version: str, repaired: _Pair | None) -> Outcome:
    assert pair.verdict is not None
    found = None
    if repaired is not None and repaired.real_before is not None and repaired.real_after is not None \
            and repaired.after is not None:
        found = Found(shell_line(repaired.before), shell_line(repaired.after), repaired.real_before,
                      repaired.real_after)
    ex = pair.example
    return Outcome(ex.entry, ex.fingerprint, version, ex.before, ex.after, pair.verdict.status, pair.verdict.why,
                   pair.real_before, pair.real_after, found)


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
    data = load_catalog(catalog_dir)
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
    todo = [e for e in examples if recorded.get(e.entry, e.before, e.after, version) is None]
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
            session = _Session(runner, profile, Materials(real, Path(tmp)), progress)
            new = _run_examples(todo, data, profile, version, session, index, repair, record, recorded)
            launches = session.launches
    outcomes = recorded.with_(new)
    return ConfirmRun(version, tuple(examples), outcomes, len(todo), launches, time.monotonic() - started,
                      Path(catalog_dir))


def _run_examples(todo: Sequence[Example], data: Mapping[str, Any], profile: Profile, version: str,
                  session: _Session, index: EntryIndex, repair: bool, record: str | Path | None,
                  recorded: Outcomes) -> list[Outcome]:
    real = profile.real
    assert real is not None  # `confirm` refuses a profile without one
    outcomes: dict[int, Outcome] = {}
    pairs: dict[int, _Pair] = {}
    for i, example in enumerate(todo):
        why = _unrunnable(example, real)
        if why is not None:
            outcomes[i] = _not_run(example, version, why)
            continue
        try:
            before = split_command(example.before or "", profile.launch)
            after = split_command(example.after, profile.launch) if example.after else None
        except ValueError as exc:
            outcomes[i] = _not_run(example, version, f"not a command line ({exc})")
            continue
        pairs[i] = _Pair(example, before, after)
    session.label = "examples"
    _judged(list(pairs.values()), session, index)
    changes = _entry_changes(data, profile.launch) if repair else {}
    open_ = {i: [p] for i, p in pairs.items() if p.verdict is not None and p.verdict.status == REFUTED}
    repaired: dict[int, _Pair] = {}
    passing = _passing(pairs.values(), {e["id"] for e in data["entries"]}, recorded, version, profile.launch)
    reaching = _by_function(passing, data)
    for round_ in range(REPAIR_ROUNDS if repair else 0):
        tries = {i: [r for p in ps for r in _candidates(p, index, changes, passing, reaching)] for i, ps in open_.items()}
        tries = {i: rs for i, rs in tries.items() if rs}
        if not tries:
            break
        flat = [r for rs in tries.values() for r in rs]
        session.label = f"repairs, round {round_ + 1}"
        _judged(flat, session, index)
        open_ = {}
        for i, rs in tries.items():
            good = next((r for r in rs if r.verdict is not None and r.verdict.status == CONFIRMED), None)
            if good is not None:
                repaired[i] = good
            else:
                open_[i] = rs
    for i, pair in pairs.items():
        outcomes[i] = _outcome(pair, version, repaired.get(i))
    if record is not None:
        _record(record, session, version, index)
    return [outcomes[i] for i in sorted(outcomes)]


def _passing(pairs: Iterable[_Pair], known: set[str], recorded: Outcomes, version: str,
             prefix: str) -> dict[str, list[CommandLine]]:
    """Per entry, the accepted fixes of its examples the real program confirmed (this run's
    and recorded ones): commands that reach its check and pass it (shortest first)."""
    out: dict[str, list[CommandLine]] = {}
    for pair in pairs:
        if pair.verdict is not None and pair.verdict.status == CONFIRMED and pair.after is not None:
            out.setdefault(pair.example.entry, []).append(pair.after)
    for outcome in recorded.by_key.values():
        after = outcome.found.after if outcome.found is not None else outcome.after
        if outcome.version != version or outcome.entry not in known or not after or (
                outcome.status != CONFIRMED and outcome.found is None):
            continue
        try:
            out.setdefault(outcome.entry, []).append(split_command(after, prefix))
        except ValueError:
            continue
    return {k: sorted(dict.fromkeys(v), key=lambda c: (len(c.argv), c.argv)) for k, v in out.items()}


def _by_function(passing: Mapping[str, list[CommandLine]], data: Mapping[str, Any]) -> dict[str, list[CommandLine]]:
    """Per entry, the passing commands of every entry in its function (they reach it)."""
    where = {e["id"]: (e["source"]["path"], e["source"].get("function") or "") for e in data["entries"]}
    grouped: dict[tuple[str, str], list[CommandLine]] = {}
    for entry, lines in sorted(passing.items()):
        grouped.setdefault(where[entry], []).extend(lines)
    return {e: sorted(dict.fromkeys(grouped.get(w, [])), key=lambda c: (len(c.argv), c.argv)) for e, w in where.items()}


def _unrunnable(example: Example, real: RealProfile) -> str | None:
    if example.before is None:
        return f"no example ({example.note})" if example.note else "no example"
    unmet = [n for n in example.needs if not _met(n, real)]
    if unmet:
        return "needs a machine where " + ", ".join(unmet)
    bad = unrunnable(f"{example.before} {example.after or ''}")
    return f"placeholder {', '.join(dict.fromkeys(bad))} has no concrete value" if bad else None


def _met(need: str, real: RealProfile) -> bool:
    """Does this machine meet ``platform:NAME=JSON value`` (every predicate reads `platform_default`)?"""
    kind, _, fact = need.partition(":")
    value = fact.rpartition("=")[2]
    return kind == "platform" and real.platform_default is not None and value == json.dumps(real.platform_default)


def _record(path: str | Path, session: _Session, version: str, index: EntryIndex) -> None:
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


def iter_outcomes(run: ConfirmRun) -> Iterator[tuple[Example, Outcome | None]]:
    for example in run.examples:
        yield example, run.outcome(example)




def write_results(run: ConfirmRun) -> str:
    """`confirm.json` (every outcome recorded so far) and `confirm.md` beside the catalog,
    each replaced atomically; returns a one-line summary."""
    from extractor.atomic import write_bytes_atomically
    from output.confirm_report import confirm_report
    from output.writer import dumps

    rows = [(e.entry, e.label, e.predicted, run.outcome(e)) for e in run.examples]
    write_bytes_atomically(run.out / CONFIRM_FILE, str(dumps(run.outcomes.as_dict())).encode())
    write_bytes_atomically(run.out / REPORT_FILE, confirm_report(run.version, rows, seconds=run.seconds,
                                                                 launches=run.launches).encode())
    counts = {s: sum(1 for *_, o in rows if o is not None and o.status == s) for s in (CONFIRMED, REFUTED, NOT_RUN)}
    found = sum(1 for *_, o in rows if o is not None and o.found is not None)
    return (f"{run.version}: {len(rows)} examples, {counts[CONFIRMED]} confirmed as written, {found} replaced by "
            f"examples the real program confirmed, {counts[REFUTED] - found} refuted, "
            f"{counts[NOT_RUN]} not run ({run.ran} run now, {run.launches} launches, {run.seconds:.0f} s) "
            f"-> {run.out / CONFIRM_FILE}")
