"""Curated overlay: hand-written meaning, solutions and notes, keyed by entry id.

Each item names the `fingerprint` of the entry it was written for (template and
trigger). When the code changes the entry, the item is reported as stale and not
applied, so a note never silently lands on a different error. File format (YAML)::

    2b5eaca231b8d12f:
      fingerprint: 0f1e2d3c4b5a6978
      meaning: "..."            # replaces the derived meaning
      solutions: ["..."]        # replaces the derived solutions
      add_solutions: ["..."]    # appended to them
      notes: ["..."]
"""
from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from extractor.errors import ErrcatError

if TYPE_CHECKING:  # annotations only: loading an overlay on the warm path must not import libcst
    from analyzers.entries import Entry, EntryVariant, Trigger

_ID = re.compile(r"^[0-9a-f]{16}$")
_KEYS = {"fingerprint", "meaning", "solutions", "add_solutions", "notes"}


class OverlayError(ErrcatError):
    """The overlay file cannot be used (unreadable, not YAML, wrong shape)."""


@dataclass(frozen=True, slots=True)
class OverlayItem:
    id: str
    fingerprint: str
    meaning: str | None = None
    solutions: tuple[str, ...] | None = None
    add_solutions: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"fingerprint": self.fingerprint}
        if self.meaning is not None:
            data["meaning"] = self.meaning
        if self.solutions is not None:
            data["solutions"] = list(self.solutions)
        if self.add_solutions:
            data["add_solutions"] = list(self.add_solutions)
        if self.notes:
            data["notes"] = list(self.notes)
        return data


def fingerprint(template: str, trigger: Trigger, variants: Sequence[EntryVariant] = ()) -> str:
    """16 hex digits over what an overlay text is about: the message and its conditions
    (their IR as the catalog writes it: rewording the rendered text keeps the fingerprint)."""
    key = json.dumps(
        [template, trigger.expr.as_dict(), [[v.template, v.trigger.expr.as_dict()] for v in variants]],
        sort_keys=True, ensure_ascii=False,
    )
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def entry_fingerprint(entry: Entry) -> str:
    return fingerprint(entry.site.template.text, entry.trigger, entry.variants)


def _strings(where: str, value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise OverlayError(f"{where}: expected a list of strings")
    return tuple(value)


def parse_overlay(data: Any, source: str = "overlay") -> dict[str, OverlayItem]:
    """Validate the loaded YAML document; raises `OverlayError` naming the first problem."""
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise OverlayError(f"{source}: expected a mapping of entry id -> item")
    items: dict[str, OverlayItem] = {}
    for key, item in data.items():
        eid = str(key)
        where = f"{source}: {eid}"
        if not _ID.match(eid):
            raise OverlayError(f"{where}: not an entry id (16 hex digits)")
        if not isinstance(item, Mapping):
            raise OverlayError(f"{where}: expected a mapping")
        unknown = sorted(set(map(str, item)) - _KEYS)
        if unknown:
            raise OverlayError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(_KEYS))})")
        fp = item.get("fingerprint")
        if not isinstance(fp, str) or not _ID.match(fp):
            raise OverlayError(f"{where}: fingerprint missing or not 16 hex digits (copy it from the entry)")
        meaning = item.get("meaning")
        if meaning is not None and not isinstance(meaning, str):
            raise OverlayError(f"{where}.meaning: expected a string")
        items[eid] = OverlayItem(
            id=eid, fingerprint=fp, meaning=meaning,
            solutions=_strings(f"{where}.solutions", item["solutions"]) if "solutions" in item else None,
            add_solutions=_strings(f"{where}.add_solutions", item.get("add_solutions", [])),
            notes=_strings(f"{where}.notes", item.get("notes", [])),
        )
    return items


def load_overlay(path: str | Path) -> dict[str, OverlayItem]:
    import yaml

    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise OverlayError(f"cannot read overlay {path}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1}" if mark is not None else ""
        raise OverlayError(f"overlay {path} is not valid YAML{at}") from None
    return parse_overlay(data, str(path))


def apply_overlay(entries: Iterable[Entry], overlay: Mapping[str, OverlayItem]) -> tuple[list[Entry], list[str]]:
    """Entries with their overlay items applied (or flagged stale); diagnostics for ids
    that match no entry. Every entry gets its ``fingerprint``."""
    out = []
    seen: set[str] = set()
    for entry in entries:
        fp = entry_fingerprint(entry)
        extra = {**entry.extra, "fingerprint": fp}
        item = overlay.get(entry.id)
        if item is None:
            out.append(replace(entry, extra=extra))
            continue
        seen.add(entry.id)
        if item.fingerprint != fp:
            extra["overlay"] = {"status": "stale", "written_for": item.fingerprint, **item.as_dict()}
            del extra["overlay"]["fingerprint"]
            out.append(replace(entry, extra=extra))
            continue
        extra["overlay"] = {"status": "applied", "notes": list(item.notes)}
        from analyzers.solution import Solution  # curated words: a person's, not a checked change

        solutions = tuple(Solution(t) for t in item.solutions) if item.solutions is not None else entry.solutions
        out.append(replace(
            entry, meaning=item.meaning if item.meaning is not None else entry.meaning,
            solutions=solutions + tuple(Solution(t) for t in item.add_solutions), extra=extra,
        ))
    diagnostics = [f"overlay: no entry {eid}" for eid in sorted(set(overlay) - seen)]
    return out, diagnostics
