"""How `errcat confirm` looks for a working example where the written one is refuted.

The real program is the judge; these are only the candidates it judges, built from what
the catalog and the real runs already know:
- another catalog error fired first: apply the change that entry's own examples make
  (to both commands, or to `after` when only `after` failed), or put the example on top of
  commands the real program accepted past that error;
- the check was never reached: put the example on top of commands confirmed to reach its
  function (values varied blindly, one setting at a time, were tried and measured: 5,000 more
  launches on 0.5.23 for 4 more examples, so they are not).
Every candidate keeps the example's own fix (`after` = `before` with the same change).
"""
from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from analyzers.argv import group_words, line_difference, option_groups
from analyzers.judge import CONFIRMED, EntryIndex, Real, Verdict
from analyzers.launch import CommandLine, split_command
from analyzers.outcomes import Outcomes, fingerprint

PER_ROUND = 3  # repairs of one kind tried per refuted example and round


# ------------------------------------------------------------------ commands


@dataclass(frozen=True, slots=True)
class Change:
    """What one example's fix changes: options dropped or set, env vars unset or set."""

    drop: frozenset[str] = frozenset()
    set: tuple[tuple[str, tuple[str, ...]], ...] = ()
    env: tuple[tuple[str, str | None], ...] = ()

    def __bool__(self) -> bool:
        return bool(self.drop or self.set or self.env)

    def options(self) -> frozenset[str]:  # (`set` here is the field, not the builtin)
        """The options this change drops or sets."""
        return self.drop | {o for o, _ in self.set}

    def apply(self, line: CommandLine) -> CommandLine:
        groups = [(o, v) for o, v in option_groups(line.argv) if o not in self.drop]
        for option, values in self.set:
            groups = [(o, v) for o, v in groups if o != option] + [(option, values)]
        env = dict(line.env)
        for name, value in self.env:
            if value is None:
                env.pop(name, None)
            else:
                env[name] = value
        return CommandLine(tuple(sorted(env.items())), line.program, group_words(groups))


def change_between(before: CommandLine, after: CommandLine) -> Change:
    sets, drops, env = line_difference(before, after)
    return Change(frozenset(drops), sets, env)


def shell_line(line: CommandLine) -> str:
    """The shell line a user pastes (placeholders stay as they are)."""
    return " ".join([f"{k}={_quote(v)}" for k, v in line.env] + [_quote(w) for w in (*line.program, *line.argv)])


def _quote(word: str) -> str:
    return word if re.fullmatch(r"<[^<>\s]*>", word) else shlex.quote(word)


def overlay(base: CommandLine, line: CommandLine) -> CommandLine:
    """`base` with every option and env var of `line` set as `line` has it."""
    change = Change(set=tuple((o, v) for o, v in option_groups(line.argv) if o), env=tuple(line.env))
    return change.apply(base)


# ------------------------------------------------------------------ candidates


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


@dataclass(slots=True)
class Pair:
    """One example (or a repair of it) on its way through the real program."""

    example: Example
    before: CommandLine
    after: CommandLine | None
    applied: tuple[str, ...] = ()  # entries whose fixes were applied (repairs)
    real_before: Real | None = None
    real_after: Real | None = None
    verdict: Verdict | None = None


def entry_changes(data: Mapping[str, Any], prefix: str) -> dict[str, list[Change]]:
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


def _blocker(pair: Pair, index: EntryIndex) -> tuple[str, str] | None:
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


def _repairs(pair: Pair, index: EntryIndex, changes: Mapping[str, list[Change]]) -> list[Pair]:
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
        out.append(Pair(pair.example, before, after, pair.applied + (other,)))
        if len(out) == PER_ROUND:
            break
    return out


def _reached(pair: Pair, contexts: Sequence[CommandLine], why: str = "context") -> list[Pair]:
    """`pair` (which the real program accepted: its check was never reached) on top of
    commands that reach the same function (fixes confirmed there), its own fix applied
    to each: the first repair of a "no-error"."""
    if pair.after is None:
        return []
    own = change_between(pair.before, pair.after)
    out = []
    for base in contexts:
        before = overlay(base, pair.before)
        if before == pair.before:
            continue
        out.append(Pair(pair.example, before, own.apply(before), pair.applied + (why,)))
        if len(out) == PER_ROUND:
            break
    return out


def passing_commands(pairs: Iterable[Pair], known: set[str], recorded: Outcomes, version: str,
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


def by_function(passing: Mapping[str, list[CommandLine]], data: Mapping[str, Any]) -> dict[str, list[CommandLine]]:
    """Per entry, the passing commands of every entry in its function (they reach it)."""
    where = {e["id"]: (e["source"]["path"], e["source"].get("function") or "") for e in data["entries"]}
    grouped: dict[tuple[str, str], list[CommandLine]] = {}
    for entry, lines in sorted(passing.items()):
        grouped.setdefault(where[entry], []).extend(lines)
    return {e: sorted(dict.fromkeys(grouped.get(w, [])), key=lambda c: (len(c.argv), c.argv)) for e, w in where.items()}


# ------------------------------------------------------------------ the search


@dataclass(slots=True)
class Search:
    """What the candidates are built from: the catalog, its examples' changes, and the
    commands the real program accepted so far."""

    index: EntryIndex
    changes: Mapping[str, list[Change]]
    passing: Mapping[str, list[CommandLine]]
    reaching: Mapping[str, list[CommandLine]]

    @classmethod
    def of(cls, data: Mapping[str, Any], index: EntryIndex, pairs: Iterable[Pair], recorded: Outcomes,
           version: str, prefix: str) -> Search:
        """`index`: the catalog's `EntryIndex` (the caller has built it already)."""
        passing = passing_commands(pairs, {e["id"] for e in data["entries"]}, recorded, version, prefix)
        return cls(index, entry_changes(data, prefix), passing, by_function(passing, data))

    def candidates(self, pair: Pair) -> list[Pair]:
        """The repairs to try next for a refuted `pair`."""
        if pair.verdict is None:
            return []
        if pair.verdict.why == "no-error":
            return _reached(pair, self.reaching.get(pair.example.entry, []))
        found = _blocker(pair, self.index)
        if found is None or found[1] in pair.applied:
            return []
        return _repairs(pair, self.index, self.changes) + _reached(pair, self.passing.get(found[1], []), found[1])
