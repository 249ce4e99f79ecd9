"""Entry lineage over a sequence of catalogs (commits or releases, oldest first).

Consecutive catalogs are diffed (`analyzers.diff`); an entry paired across a step
continues its lineage even when its id changes. Per lineage: where it was first
seen, when it last changed and how, every move, and where it disappeared.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from analyzers.diff import ChangeKind, Diff, EntryChange, diff_catalogs


@dataclass(frozen=True, slots=True)
class Rev:
    """One point of the history."""

    label: str  # what the user named it: tag, version or short SHA
    commit: str | None = None
    date: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"label": self.label, "commit": self.commit, "date": self.date}


@dataclass(frozen=True, slots=True)
class Move:
    rev: str
    from_path: str
    from_function: str
    to_path: str
    to_function: str

    def as_dict(self) -> dict[str, Any]:
        return {"rev": self.rev, "from": {"path": self.from_path, "function": self.from_function},
                "to": {"path": self.to_path, "function": self.to_function}}


@dataclass(frozen=True, slots=True)
class Lineage:
    first_id: str
    last_id: str  # the id at the last revision it existed in
    current_id: str | None  # None when removed
    template: str  # as last seen
    path: str
    function: str
    first_seen: str
    last_changed: str | None = None
    last_change_kinds: tuple[str, ...] = ()
    moves: tuple[Move, ...] = ()
    removed: str | None = None
    ids: tuple[str, ...] = ()  # every id it had, oldest first

    def as_dict(self) -> dict[str, Any]:
        return {
            "first_id": self.first_id, "last_id": self.last_id, "current_id": self.current_id,
            "template": self.template, "path": self.path, "function": self.function,
            "first_seen": self.first_seen, "last_changed": self.last_changed,
            "last_change_kinds": list(self.last_change_kinds), "moves": [m.as_dict() for m in self.moves],
            "removed": self.removed, "ids": list(self.ids),
        }


@dataclass(frozen=True, slots=True)
class Step:
    """What one revision changed relative to the previous one."""

    rev: Rev
    entries: int
    added: int = 0
    removed: int = 0
    changed: int = 0  # entries with any change (moves included)
    moved: int = 0
    counts: Mapping[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"rev": self.rev.as_dict(), "entries": self.entries, "added": self.added, "removed": self.removed,
                "changed": self.changed, "moved": self.moved, "counts": dict(self.counts)}


@dataclass(frozen=True, slots=True)
class History:
    revs: tuple[Rev, ...]
    steps: tuple[Step, ...]
    lineages: tuple[Lineage, ...]
    cache: Mapping[str, int] = field(default_factory=dict)  # result-cache hits/misses while extracting

    def as_dict(self) -> dict[str, Any]:
        return {
            "revs": [r.as_dict() for r in self.revs],
            "steps": [s.as_dict() for s in self.steps],
            "lineages": [lin.as_dict() for lin in self.lineages],
            "cache": dict(self.cache),
        }


@dataclass
class _Open:
    """A lineage being built (mutable while walking the revisions)."""

    first_id: str
    first_seen: str
    entry: Mapping[str, Any]
    ids: list[str]
    last_changed: str | None = None
    kinds: tuple[str, ...] = ()
    moves: list[Move] = field(default_factory=list)
    removed: str | None = None

    def freeze(self) -> Lineage:
        src = self.entry.get("source") or {}
        return Lineage(
            first_id=self.first_id, last_id=self.ids[-1], current_id=None if self.removed else self.ids[-1],
            template=str(self.entry.get("template", "")), path=str(src.get("path", "")),
            function=str(src.get("function", "")), first_seen=self.first_seen, last_changed=self.last_changed,
            last_change_kinds=self.kinds, moves=tuple(self.moves), removed=self.removed, ids=tuple(self.ids),
        )

    def advance(self, rev: str, new_id: str, entry: Mapping[str, Any], changes: Sequence[EntryChange]) -> None:
        """Continue into revision `rev` as `entry` (id `new_id`), changed by `changes`."""
        if changes:
            self.last_changed = rev
            self.kinds = tuple(sorted({str(c.kind) for c in changes}))
            self.moves += [Move(rev, c.old.path, c.old.function, c.new.path, c.new.function)
                           for c in changes if c.kind is ChangeKind.MOVED]
        if new_id != self.ids[-1]:
            self.ids.append(new_id)
        self.entry = entry


def _id(entry: Mapping[str, Any]) -> str:
    return str(entry.get("id", ""))


@dataclass
class _Walk:
    """The lineages while walking the revisions: open ones by current id, closed ones in
    the order they were closed."""

    live: dict[str, _Open]
    done: list[_Open] = field(default_factory=list)

    def step(self, rev: Rev, prev: Mapping[str, Any], catalog: Mapping[str, Any], diff: Diff | None = None) -> Step:
        """Carry every open lineage from catalog `prev` into `catalog` (revision `rev`); `diff`:
        theirs, when the caller has it already."""
        diff = diff if diff is not None else diff_catalogs(prev, catalog)
        new_entries = {_id(e): e for e in catalog.get("entries") or ()}
        touched = _changes_by_old_id(diff)
        for change in diff.of_kind(ChangeKind.REMOVED):
            lin = self.live.pop(change.subject, None)
            if lin is not None:
                self._close(lin, rev.label)
        carried: dict[str, _Open] = {}
        for old_id, lin in self.live.items():
            changes = touched.get(old_id, [])
            new_id = changes[-1].new.id if changes else old_id
            if new_id not in new_entries:  # cannot happen with a consistent diff; keep it safe
                self._close(lin, rev.label)
                continue
            lin.advance(rev.label, new_id, new_entries[new_id], changes)
            carried[new_id] = lin
        for change in diff.of_kind(ChangeKind.ADDED):
            carried[change.subject] = _Open(change.subject, rev.label, new_entries[change.subject], [change.subject])
        self.live = carried
        counts = diff.count()
        return Step(
            rev, len(new_entries), counts[str(ChangeKind.ADDED)], counts[str(ChangeKind.REMOVED)],
            len(touched), counts[str(ChangeKind.MOVED)], {k: v for k, v in counts.items() if v},
        )

    def _close(self, lin: _Open, rev: str) -> None:
        lin.removed = rev
        self.done.append(lin)


def _changes_by_old_id(diff: Diff) -> dict[str, list[EntryChange]]:
    touched: dict[str, list[EntryChange]] = {}
    for change in diff.changes:
        if isinstance(change, EntryChange):
            touched.setdefault(change.old.id, []).append(change)
    return touched


def build_history(
    steps: Sequence[tuple[Rev, Mapping[str, Any]]], cache: Mapping[str, int] | None = None,
    diffs: Sequence[Diff] | None = None,
) -> History:
    """Lineages over `steps` = (revision, catalog data), oldest first; `diffs`: the diffs of
    consecutive steps, when the caller has them already (`errcat site` shows them too)."""
    if not steps:
        return History((), (), (), dict(cache or {}))
    first_rev, first = steps[0]
    entries = first.get("entries") or ()
    walk = _Walk({_id(e): _Open(_id(e), first_rev.label, e, [_id(e)]) for e in entries})
    records = [Step(first_rev, len(entries), added=len(walk.live))]
    given: Sequence[Diff | None] = diffs if diffs is not None else [None] * (len(steps) - 1)
    records += [walk.step(rev, prev, catalog, diff)
                for ((_, prev), (rev, catalog)), diff in zip(pairwise(steps), given, strict=True)]
    lineages = sorted((lin.freeze() for lin in (*walk.done, *walk.live.values())),
                      key=lambda lin: (lin.removed is not None, lin.path, lin.function, lin.first_id, lin.ids))
    return History(tuple(r for r, _ in steps), tuple(records), tuple(lineages), dict(cache or {}))
