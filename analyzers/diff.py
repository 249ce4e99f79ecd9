"""What changed between two catalogs: one small class per kind of change.

`find_changes(old, new)` takes two catalogs as published (``catalog.json`` data) and
yields `Change` objects; `diff_catalogs` collects them into a `Diff`. Detection
only: rendering lives in `output.diff_formats`.

Entries are paired by `analyzers.matching` (equal ids, then optimal assignment on
similarity), so a moved or edited error is one entry with changes, not a removal
and an addition. Flag-level changes come from the catalog's ``flags`` section (the
flag model, `FlagModel.as_dict()`); a catalog without it yields none.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from analyzers.matching import (
    Matching,
    match_entries,
    normalize_code_spans,
    normalize_template,
    strip_receivers,
)
from extractor.compat import StrEnum


class ChangeKind(StrEnum):
    ADDED = "added"
    REMOVED = "removed"
    MESSAGE_CHANGED = "message-changed"
    TRIGGER_CHANGED = "trigger-changed"
    EXCEPTION_CHANGED = "exception-changed"
    MOVED = "moved"
    VARIANTS_CHANGED = "variants-changed"
    FLAG_ADDED = "flag-added"
    FLAG_REMOVED = "flag-removed"
    FLAG_RENAMED = "flag-renamed"
    DEFAULT_CHANGED = "default-changed"
    CHOICES_CHANGED = "choices-changed"


def parse_kinds(text: str) -> frozenset[ChangeKind]:
    """``"removed,moved"`` -> kinds; ``any``/``all`` means every kind. ValueError names a bad one."""
    names = [t.strip() for t in text.split(",") if t.strip()]
    if any(n in ("any", "all") for n in names):
        return frozenset(ChangeKind)
    known = {str(k): k for k in ChangeKind}
    bad = [n for n in names if n not in known]
    if bad:
        raise ValueError(f"unknown change kind {bad[0]!r} (known: {', '.join(known)}, any)")
    return frozenset(known[n] for n in names)


# ------------------------------------------------------------------ subjects


@dataclass(frozen=True, slots=True)
class EntryRef:
    """An entry as the diff reports it."""

    id: str
    path: str
    line: int
    function: str
    exception: str
    template: str
    url: str | None = None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> EntryRef:
        src = entry.get("source") or {}
        return cls(
            id=str(entry.get("id", "")), path=str(src.get("path", "")), line=int(src.get("line") or 0),
            function=str(src.get("function", "")), exception=str(entry.get("exception", "")),
            template=str(entry.get("template", "")), url=src.get("url"),
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "path": self.path, "line": self.line, "function": self.function,
            "exception": self.exception, "template": self.template, "url": self.url,
        }


@dataclass(frozen=True, slots=True)
class VariantRow:
    values: tuple[tuple[str, str], ...]
    template: str

    @classmethod
    def of(cls, variant: Mapping[str, Any]) -> VariantRow:
        values = variant.get("values") or {}
        return cls(tuple(sorted((strip_receivers(k), str(v)) for k, v in values.items())),
                   normalize_template(str(variant.get("template", ""))))

    def as_dict(self) -> dict[str, Any]:
        return {"values": dict(self.values), "template": self.template}


# ------------------------------------------------------------------ changes


def _plain(value: Any) -> Any:
    if hasattr(value, "as_dict"):
        return value.as_dict()
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


@dataclass(frozen=True, slots=True)
class Change:
    """Base of every change; `kind` is the stable name tools filter on."""

    kind: ClassVar[ChangeKind]

    @property
    def subject(self) -> str:
        """What changed: an entry id (the new one when both exist) or a flag."""
        where = self.where
        if where is None:
            raise NotImplementedError
        return where.id

    @property
    def where(self) -> EntryRef | None:
        """The entry to point at (the newer side when both exist)."""
        return None

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": str(self.kind), "subject": self.subject}
        data.update({f.name: _plain(getattr(self, f.name)) for f in fields(self)})
        return data


@dataclass(frozen=True, slots=True)
class EntryChange(Change):
    old: EntryRef
    new: EntryRef

    @property
    def where(self) -> EntryRef | None:
        return self.new


@dataclass(frozen=True, slots=True)
class Added(Change):
    kind: ClassVar[ChangeKind] = ChangeKind.ADDED
    new: EntryRef

    @property
    def where(self) -> EntryRef | None:
        return self.new


@dataclass(frozen=True, slots=True)
class Removed(Change):
    kind: ClassVar[ChangeKind] = ChangeKind.REMOVED
    old: EntryRef

    @property
    def where(self) -> EntryRef | None:
        return self.old


@dataclass(frozen=True, slots=True)
class MessageChanged(EntryChange):
    """The text a user reads differs (receivers of shown values do not count)."""

    kind: ClassVar[ChangeKind] = ChangeKind.MESSAGE_CHANGED


@dataclass(frozen=True, slots=True)
class TriggerChanged(EntryChange):
    """The conditions differ: rendered trigger text, flags or env vars."""

    kind: ClassVar[ChangeKind] = ChangeKind.TRIGGER_CHANGED
    old_text: str = ""
    new_text: str = ""
    flags_added: tuple[str, ...] = ()
    flags_removed: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ExceptionChanged(EntryChange):
    kind: ClassVar[ChangeKind] = ChangeKind.EXCEPTION_CHANGED


@dataclass(frozen=True, slots=True)
class Moved(EntryChange):
    """Another file or another function raises it (a shifted line is not a move)."""

    kind: ClassVar[ChangeKind] = ChangeKind.MOVED


@dataclass(frozen=True, slots=True)
class VariantsChanged(EntryChange):
    kind: ClassVar[ChangeKind] = ChangeKind.VARIANTS_CHANGED
    rows_added: tuple[VariantRow, ...] = ()
    rows_removed: tuple[VariantRow, ...] = ()


@dataclass(frozen=True, slots=True)
class FlagRef:
    """A flag (by canonical option) or an env var (by name)."""

    name: str
    scope: str  # "flag" or "env"
    dest: str | None = None
    path: str | None = None
    line: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "scope": self.scope, "dest": self.dest, "path": self.path, "line": self.line}


@dataclass(frozen=True, slots=True)
class FlagAdded(Change):
    kind: ClassVar[ChangeKind] = ChangeKind.FLAG_ADDED
    flag: FlagRef

    @property
    def subject(self) -> str:
        return self.flag.name


@dataclass(frozen=True, slots=True)
class FlagRemoved(Change):
    kind: ClassVar[ChangeKind] = ChangeKind.FLAG_REMOVED
    flag: FlagRef

    @property
    def subject(self) -> str:
        return self.flag.name


@dataclass(frozen=True, slots=True)
class FlagRenamed(Change):
    """`old` now spells `new`: an alias, a deprecation pointing there, or the same field."""

    kind: ClassVar[ChangeKind] = ChangeKind.FLAG_RENAMED
    old: FlagRef
    new: FlagRef
    evidence: str  # "alias", "deprecated", "same-dest"

    @property
    def subject(self) -> str:
        return self.new.name


@dataclass(frozen=True, slots=True)
class DefaultChanged(Change):
    kind: ClassVar[ChangeKind] = ChangeKind.DEFAULT_CHANGED
    flag: FlagRef
    old_value: Any = field(default=None, compare=False)
    new_value: Any = field(default=None, compare=False)

    @property
    def subject(self) -> str:
        return self.flag.name


@dataclass(frozen=True, slots=True)
class ChoicesChanged(Change):
    kind: ClassVar[ChangeKind] = ChangeKind.CHOICES_CHANGED
    flag: FlagRef
    old_value: Any = field(default=None, compare=False)
    new_value: Any = field(default=None, compare=False)

    @property
    def subject(self) -> str:
        return self.flag.name


# ------------------------------------------------------------------ entry changes


def _trigger(entry: Mapping[str, Any]) -> tuple[str, frozenset[str]]:
    trig = entry.get("trigger") or {}
    refs = frozenset([*trig.get("flags", ()), *(f"env:{e}" for e in trig.get("env", ()))])
    return normalize_code_spans(str(trig.get("text", ""))), refs


def _rows(entry: Mapping[str, Any]) -> set[VariantRow]:
    return {VariantRow.of(v) for v in entry.get("variants") or ()}


def entry_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> Iterator[Change]:
    """Every aspect in which a paired entry differs, one change per aspect."""
    a, b = EntryRef.of(old), EntryRef.of(new)
    if (a.path, a.function) != (b.path, b.function):
        yield Moved(a, b)
    if normalize_template(a.template) != normalize_template(b.template):
        yield MessageChanged(a, b)
    if a.exception != b.exception:
        yield ExceptionChanged(a, b)
    (old_text, old_refs), (new_text, new_refs) = _trigger(old), _trigger(new)
    if old_text != new_text or old_refs != new_refs:
        yield TriggerChanged(
            a, b, old_text, new_text,
            tuple(sorted(new_refs - old_refs)), tuple(sorted(old_refs - new_refs)),
        )
    old_rows, new_rows = _rows(old), _rows(new)
    if old_rows != new_rows:
        def order(r: VariantRow) -> tuple:
            return (r.values, r.template)

        yield VariantsChanged(a, b, tuple(sorted(new_rows - old_rows, key=order)),
                              tuple(sorted(old_rows - new_rows, key=order)))


# ------------------------------------------------------------------ flag changes


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _flag_table(model: Mapping[str, Any] | None) -> dict[str, Mapping[str, Any]]:
    """Canonical option -> flag, env name -> var (``env:`` prefix); derived fields skipped."""
    table: dict[str, Mapping[str, Any]] = {}
    if not isinstance(model, Mapping):
        return table
    for flag in model.get("flags") or ():
        option = flag.get("option")
        if option and not flag.get("derived"):
            table.setdefault(str(option), flag)
    for var in model.get("env") or ():
        if var.get("name"):
            table.setdefault(f"env:{var['name']}", var)
    return table


def _ref(name: str, decl: Mapping[str, Any]) -> FlagRef:
    if name.startswith("env:"):
        return FlagRef(name[4:], "env", None, decl.get("path"), decl.get("line"))
    return FlagRef(name, "flag", decl.get("dest"), decl.get("path"), decl.get("line"))


def _spellings(name: str, decl: Mapping[str, Any]) -> set[str]:
    if name.startswith("env:"):
        return {f"env:{n}" for n in decl.get("deprecated_names") or ()}
    return {str(a) for a in (*(decl.get("aliases") or ()), *(decl.get("negations") or ()))}


_Rename = tuple[str, str, str]  # (old name, new name, evidence)


def _renames(old: Mapping[str, Mapping[str, Any]], new: Mapping[str, Mapping[str, Any]]) -> list[_Rename]:
    """(old name, new name, evidence) for flags whose spelling changed, by the strongest
    evidence first; each new flag is the target of one rename at most."""
    gone = sorted(n for n in old if n not in new)
    fresh = sorted(n for n in new if n not in old)
    taken: set[str] = set()
    out = [(o, n, "alias") for o, n in _pair_up(gone, fresh, taken, lambda o, c: o in _spellings(c, new[c]))]
    out += _deprecated_renames(old, new, fresh, taken)
    renamed = {o for o, _, _ in out}
    fields_gone = [n for n in gone if n not in renamed and not n.startswith("env:") and old[n].get("dest")]
    out += [(o, n, "same-dest") for o, n in _pair_up(
        fields_gone, fresh, taken,
        lambda o, c: not c.startswith("env:") and new[c].get("dest") == old[o].get("dest"),
    )]
    return out


def _pair_up(gone: Sequence[str], fresh: Sequence[str], taken: set[str],
             fits: Callable[[str, str], bool]) -> list[tuple[str, str]]:
    """Each old name with the first new name not yet `taken` that `fits` it (which it takes)."""
    pairs: list[tuple[str, str]] = []
    for name in gone:
        cand = next((c for c in fresh if c not in taken and fits(name, c)), None)
        if cand is not None:
            pairs.append((name, cand))
            taken.add(cand)
    return pairs


def _deprecated_renames(old: Mapping[str, Mapping[str, Any]], new: Mapping[str, Mapping[str, Any]],
                        fresh: Sequence[str], taken: set[str]) -> list[_Rename]:
    """Flags kept but deprecated, whose ``replacement`` is a new flag (which they take)."""
    out: list[_Rename] = []
    for name, decl in sorted(new.items()):
        target = decl.get("replacement")
        if decl.get("deprecated") and name in old and target in fresh and target not in taken:
            out.append((name, str(target), "deprecated"))
            taken.add(str(target))
    return out


def flag_changes(old_model: Mapping[str, Any] | None, new_model: Mapping[str, Any] | None) -> Iterator[Change]:
    """Flag-level changes; nothing when either catalog has no flag model."""
    if not isinstance(old_model, Mapping) or not isinstance(new_model, Mapping):
        return
    old, new = _flag_table(old_model), _flag_table(new_model)
    renames = _renames(old, new)
    renamed_old = {o for o, _, ev in renames if ev != "deprecated"}
    renamed_new = {n for _, n, _ in renames}
    for o, n, evidence in renames:
        yield FlagRenamed(_ref(o, old[o]), _ref(n, new[n]), evidence)
    for name in sorted(new):
        if name not in old and name not in renamed_new:
            yield FlagAdded(_ref(name, new[name]))
    for name in sorted(old):
        if name not in new and name not in renamed_old:
            yield FlagRemoved(_ref(name, old[name]))
    pairs = [(n, n) for n in sorted(old) if n in new] + [(o, n) for o, n, ev in renames if ev != "deprecated"]
    for o, n in pairs:
        before, after = old[o], new[n]
        if _canon(before.get("default")) != _canon(after.get("default")):
            yield DefaultChanged(_ref(n, after), before.get("default"), after.get("default"))
        if _canon(before.get("choices")) != _canon(after.get("choices")):
            yield ChoicesChanged(_ref(n, after), before.get("choices"), after.get("choices"))


# ------------------------------------------------------------------ the diff


def find_changes(old: Mapping[str, Any], new: Mapping[str, Any], matching: Matching | None = None) -> Iterator[Change]:
    """Every change from catalog `old` to catalog `new` (``catalog.json`` data)."""
    old_entries: Sequence[Mapping[str, Any]] = old.get("entries") or ()
    new_entries: Sequence[Mapping[str, Any]] = new.get("entries") or ()
    if matching is None:
        matching = match_entries(old_entries, new_entries)
    for pair in matching.pairs:
        yield from entry_changes(old_entries[pair.old], new_entries[pair.new])
    for i in matching.removed:
        yield Removed(EntryRef.of(old_entries[i]))
    for j in matching.added:
        yield Added(EntryRef.of(new_entries[j]))
    yield from flag_changes(old.get("flags"), new.get("flags"))


_ORDER = {k: i for i, k in enumerate(ChangeKind)}


def sort_key(change: Change) -> tuple[Any, ...]:
    """(kind, file, line, subject), then the whole change: a total order, so no tie keeps input order."""
    where = change.where
    return (_ORDER[change.kind], where.path if where else "", where.line if where else 0, change.subject,
            _canon(change.as_dict()))


@dataclass(frozen=True, slots=True)
class Side:
    """Which catalog a side of the diff is."""

    repo: str | None
    commit: str | None
    commit_date: str | None = None
    label: str | None = None

    @classmethod
    def of(cls, catalog: Mapping[str, Any], label: str | None = None) -> Side:
        return cls(catalog.get("repo"), catalog.get("commit"), catalog.get("commit_date"), label)

    @property
    def name(self) -> str:
        return self.label or self.commit or "?"

    def as_dict(self) -> dict[str, Any]:
        return {"repo": self.repo, "commit": self.commit, "commit_date": self.commit_date, "label": self.label}


@dataclass(frozen=True, slots=True)
class Diff:
    old: Side
    new: Side
    changes: tuple[Change, ...]
    matching: dict[str, int] = field(default_factory=dict, compare=False)
    flags_compared: bool = False

    def kinds(self) -> frozenset[ChangeKind]:
        return frozenset(c.kind for c in self.changes)

    def count(self) -> dict[str, int]:
        counts = {str(k): 0 for k in ChangeKind}
        for change in self.changes:
            counts[str(change.kind)] += 1
        return counts

    def of_kind(self, *kinds: ChangeKind) -> list[Change]:
        return [c for c in self.changes if c.kind in kinds]

    def as_dict(self) -> dict[str, Any]:
        return {
            "old": self.old.as_dict(),
            "new": self.new.as_dict(),
            "counts": self.count(),
            "matching": dict(self.matching),
            "flags_compared": self.flags_compared,
            "changes": [c.as_dict() for c in self.changes],
        }


def diff_catalogs(
    old: Mapping[str, Any], new: Mapping[str, Any], *, old_label: str | None = None, new_label: str | None = None
) -> Diff:
    """`find_changes`, sorted (kind, file, line), with the matching counts."""
    matching = match_entries(old.get("entries") or (), new.get("entries") or ())
    changes = sorted(find_changes(old, new, matching), key=sort_key)
    return Diff(
        Side.of(old, old_label), Side.of(new, new_label), tuple(changes), matching.counts(),
        isinstance(old.get("flags"), Mapping) and isinstance(new.get("flags"), Mapping),
    )


def matched_share(old: Mapping[str, Any], new: Mapping[str, Any], diff: Diff | None = None) -> dict[str, Any]:
    """Of the old errors whose message exists in `new` too, how many were paired.

    The acceptance figure for moves: an error whose message still exists must be
    reported as moved/changed, not as removed + added. Messages compare as users
    read them (`normalize_template`).
    """
    diff = diff or diff_catalogs(old, new)
    new_messages = {normalize_template(str(e.get("template", ""))) for e in new.get("entries") or ()}
    removed = {c.subject for c in diff.of_kind(ChangeKind.REMOVED)}
    both = [e for e in old.get("entries") or () if normalize_template(str(e.get("template", ""))) in new_messages]
    kept = [e for e in both if str(e.get("id")) not in removed]
    return {
        "old_entries": len(old.get("entries") or ()),
        "message_in_both": len(both),
        "paired": len(kept),
        "share": round(len(kept) / len(both), 4) if both else 1.0,
    }
