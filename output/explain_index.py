"""``explain-index.json``: what `errcat explain` needs of a catalog, written beside it.

A catalog.json is tens of megabytes; explain reads only each template's words, text and
site. `extract` writes them here (`index_text`), with catalog.json's size and sha256, so
explain loads a small file and then only the ``entries/<id>.json`` of the entries it
names. `read_index` trusts the index only while catalog.json is the one it was written
with: the same size, and (when catalog.json is newer than the index, e.g. edited or
copied) the same sha256; otherwise explain reads catalog.json as before.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analyzers.explain import Target

NAME = "explain-index.json"
VERSION = 1


@dataclass(frozen=True, slots=True)
class ExplainIndex:
    release: str | None  # the target release the catalog is of (`analyzers.outcomes.release_of`)
    targets: tuple[Target, ...]


def index_text(targets: Iterable[Target], release: str | None, catalog_chunks: Iterable[bytes]) -> str:
    """The index file of a catalog whose catalog.json is `catalog_chunks` (its bytes, in order)."""
    digest, size = hashlib.sha256(), 0
    for chunk in catalog_chunks:
        digest.update(chunk)
        size += len(chunk)
    rows = [[t.entry, t.row, t.text, t.exception, t.path, t.line, t.end, t.own, list(t.words)] for t in targets]
    data = {"explain_index": VERSION, "catalog": {"size": size, "sha256": digest.hexdigest()},
            "release": release, "targets": rows}
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"


def read_index(catalog_dir: str | Path) -> ExplainIndex | None:
    """The index beside `catalog_dir`'s catalog.json; None where there is none, it is not one
    errcat writes, or catalog.json changed since."""
    root = Path(catalog_dir)
    try:
        index_at, catalog_at = (root / NAME).stat(), (root / "catalog.json").stat()
        data = json.loads((root / NAME).read_bytes())
        if not isinstance(data, dict) or data.get("explain_index") != VERSION:
            return None
        stamp = data["catalog"]
        if catalog_at.st_size != stamp["size"]:
            return None
        if catalog_at.st_mtime_ns > index_at.st_mtime_ns and _sha256(root / "catalog.json") != stamp["sha256"]:
            return None
        release = data["release"]
        return ExplainIndex(None if release is None else str(release), tuple(_target(row) for row in data["targets"]))
    except (OSError, ValueError, KeyError, TypeError):  # unreadable or another shape: read catalog.json
        return None


def _target(row: list[Any]) -> Target:
    entry, number, text, exception, path, line, end, own, words = row
    return Target(str(entry), None if number is None else int(number), str(text), str(exception), str(path),
                  int(line), int(end), int(own), tuple(str(w) for w in words))


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class EntryFiles(Mapping[str, Mapping[str, Any]]):
    """A catalog's entries by id, each read from ``entries/<id>.json`` when asked for."""

    def __init__(self, catalog_dir: str | Path) -> None:
        self._root = Path(catalog_dir) / "entries"

    def __getitem__(self, entry_id: str) -> Mapping[str, Any]:
        if not entry_id.isalnum():
            raise KeyError(entry_id)
        try:
            data = json.loads((self._root / f"{entry_id}.json").read_bytes())
        except (OSError, ValueError):
            raise KeyError(entry_id) from None
        if not isinstance(data, dict):
            raise KeyError(entry_id)
        return data

    def __iter__(self) -> Iterator[str]:
        return (p.stem for p in sorted(self._root.glob("*.json")))

    def __len__(self) -> int:
        return sum(1 for _ in self._root.glob("*.json"))
