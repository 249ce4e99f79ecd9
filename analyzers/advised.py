"""What advice, the overlay and the examples' judge add to an entry, as JSON data and back.

The costly part of a catalog (`errcat.pipeline.build_catalog`) fills in, per entry, its
meaning, solutions, example fix, related ids, extra fields and the notes of its site (why it
is unreachable), and per row of its table
the row's meaning, solutions and example fix; nothing else of the entry changes. Kept as
data, they are put back onto the same entries built at another commit (only its links differ).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from analyzers.entries import Entry, EntryVariant
from analyzers.solution import Solution
from extractor import shape


def advised_fields(entry: Entry) -> dict[str, Any]:
    """The fields of `entry` that advice, overlay and judge filled in."""
    return {"id": entry.id, "meaning": entry.meaning, "solutions": [s.as_dict() for s in entry.solutions],
            "notes": list(entry.advice_notes), "site_notes": list(entry.site.notes),  # "unreachable: ..." added
            "example_fix": entry.example_fix, "related": list(entry.related), "extra": entry.extra,
            "variants": [_row_fields(v) for v in entry.variants]}


def _row_fields(variant: EntryVariant) -> dict[str, Any]:
    return {"meaning": variant.meaning,
            "solutions": None if variant.solutions is None else [s.as_dict() for s in variant.solutions],
            "notes": list(variant.notes), "example_fix": variant.example_fix}


def with_advised(entries: Sequence[Entry], fields: Sequence[Mapping[str, Any]]) -> list[Entry]:
    """`entries` (as `build_entries` made them) with `fields` (`advised_fields` of each, in
    order) put back; ValueError (`shape.ShapeError` for a field of another type) when they are
    not the fields of these entries."""
    if len(fields) != len(entries):
        raise ValueError(f"{len(fields)} advised entries for {len(entries)} entries")
    out = []
    for entry, data in zip(entries, fields, strict=True):
        rows = shape.array(data["variants"])
        if data["id"] != entry.id or len(rows) != len(entry.variants):
            raise ValueError(f"advised fields of {data['id']} given for entry {entry.id}")
        variants = tuple(replace(v, meaning=shape.text(r["meaning"]),
                                 solutions=None if r["solutions"] is None else _solutions(r["solutions"]),
                                 notes=shape.texts(r["notes"]),
                                 example_fix=None if r["example_fix"] is None else shape.mapping(r["example_fix"]))
                         for v, r in zip(entry.variants, rows, strict=True))
        out.append(replace(entry, site=replace(entry.site, notes=shape.texts(data["site_notes"])),
                           meaning=shape.text(data["meaning"]), solutions=_solutions(data["solutions"]),
                           advice_notes=shape.texts(data["notes"]),
                           example_fix=shape.mapping(data["example_fix"]), related=shape.texts(data["related"]),
                           extra=shape.mapping(data["extra"]), variants=variants))
    return out


def _solutions(data: object) -> tuple[Solution, ...]:
    return tuple(Solution.from_dict(item) for item in shape.array(data))
