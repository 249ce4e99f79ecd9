"""``explain-index.json``: what `errcat explain` needs of a catalog, written beside it.

A catalog.json is tens of megabytes; explain reads only each template's words, text and
site. `extract` writes them here (`index_text`), with catalog.json's size and sha256, so
explain loads a small file and then only the ``entries/<id>.json`` of the entries it
names. `read_index` trusts the index only while catalog.json is the one it was written
with: the same size, and (when catalog.json is newer than the index, e.g. edited or
copied) the same sha256; otherwise explain reads catalog.json as before.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analyzers.explain import Target
from output.catalog_stamp import CATALOG, stamp_holds

NAME = "explain-index.json"
VERSION = 1


@dataclass(frozen=True, slots=True)
class ExplainIndex:
    release: str | None  # the target release the catalog is of (`analyzers.outcomes.release_of`)
    targets: tuple[Target, ...]


def index_text(targets: Iterable[Target], release: str | None, catalog: Mapping[str, Any]) -> str:
    """The index file of a catalog whose catalog.json is stamped `catalog` (`catalog_stamp.stamp`)."""
    rows = [[t.entry, t.row, t.text, t.exception, t.path, t.line, t.end, t.own, list(t.words)] for t in targets]
    data = {"explain_index": VERSION, "catalog": dict(catalog), "release": release, "targets": rows}
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"


def read_index(catalog_dir: str | Path) -> ExplainIndex | None:
    """The index beside `catalog_dir`'s catalog.json; None where there is none, it is not one
    errcat writes, or catalog.json changed since."""
    root = Path(catalog_dir)
    try:
        index_at = (root / NAME).stat()
        data = json.loads((root / NAME).read_bytes())
        if not isinstance(data, dict) or data.get("explain_index") != VERSION:
            return None
        if not stamp_holds(index_at, root / CATALOG, data["catalog"]):
            return None
        release = data["release"]
        return ExplainIndex(None if release is None else str(release), tuple(_target(row) for row in data["targets"]))
    except (OSError, ValueError, KeyError, TypeError):  # unreadable or another shape: read catalog.json
        return None


def _target(row: list[Any]) -> Target:
    entry, number, text, exception, path, line, end, own, words = row
    return Target(str(entry), None if number is None else int(number), str(text), str(exception), str(path),
                  int(line), int(end), int(own), tuple(str(w) for w in words))
