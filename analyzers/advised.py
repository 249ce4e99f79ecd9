"""What advice, the overlay and the examples' judge add to an entry, as JSON data and back.

The costly part of a catalog (`errcat.pipeline.build_catalog`) fills in, per entry, its
meaning, solutions, example fix, related ids and extra fields, and per row of its table
the row's meaning, solutions and example fix; nothing else of the entry changes. Kept as
data, they are put back onto the same entries built at another commit (only its links differ).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from analyzers.entries import Entry, EntryVariant


def advised_fields(entry: Entry) -> dict[str, Any]:
    """The fields of `entry` that advice, overlay and judge filled in."""
    return {"id": entry.id, "meaning": entry.meaning, "solutions": list(entry.solutions),
            "example_fix": entry.example_fix, "related": list(entry.related), "extra": entry.extra,
            "variants": [_row_fields(v) for v in entry.variants]}


def _row_fields(variant: EntryVariant) -> dict[str, Any]:
    return {"meaning": variant.meaning,
            "solutions": None if variant.solutions is None else list(variant.solutions),
            "example_fix": variant.example_fix}


def with_advised(entries: Sequence[Entry], fields: Sequence[Mapping[str, Any]]) -> list[Entry]:
    """`entries` (as `build_entries` made them) with `fields` (`advised_fields` of each, in
    order) put back; ValueError when they are not the fields of these entries."""
    if len(fields) != len(entries):
        raise ValueError(f"{len(fields)} advised entries for {len(entries)} entries")
    out = []
    for entry, data in zip(entries, fields, strict=True):
        rows = data["variants"]
        if data["id"] != entry.id or len(rows) != len(entry.variants):
            raise ValueError(f"advised fields of {data['id']} given for entry {entry.id}")
        variants = tuple(replace(v, meaning=_text(r["meaning"]),
                                 solutions=None if r["solutions"] is None else _texts(r["solutions"]),
                                 example_fix=_mapping_or_none(r["example_fix"]))
                         for v, r in zip(entry.variants, rows, strict=True))
        out.append(replace(entry, meaning=_text(data["meaning"]), solutions=_texts(data["solutions"]),
                           example_fix=_mapping(data["example_fix"]), related=_texts(data["related"]),
                           extra=_mapping(data["extra"]), variants=variants))
    return out


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"expected a string, got {type(value).__name__}")
    return value


def _texts(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise ValueError(f"expected a list, got {type(value).__name__}")
    return tuple(_text(v) for v in value)


def _mapping(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"expected an object, got {type(value).__name__}")
    return value


def _mapping_or_none(value: Any) -> dict[str, Any] | None:
    return None if value is None else _mapping(value)
