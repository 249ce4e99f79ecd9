"""What a file written beside catalog.json knows of the catalog.json it was made from.

`explain-index.json` and `judge.json` are small files extract writes so that explain and
check need not parse catalog.json. Each carries catalog.json's size and sha256 (`stamp`);
a reader trusts it only while `stamp_holds`: the same size, and the same sha256 where
catalog.json is newer than the file (edited or copied since), so a stale file is never used.
"""
from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

CATALOG = "catalog.json"


def stamp(catalog_chunks: Iterable[bytes]) -> dict[str, Any]:
    """The stamp of a catalog.json whose bytes are `catalog_chunks`, in order."""
    digest, size = hashlib.sha256(), 0
    for chunk in catalog_chunks:
        digest.update(chunk)
        size += len(chunk)
    return {"size": size, "sha256": digest.hexdigest()}


def stamp_holds(written: os.stat_result, catalog: Path, said: Mapping[str, Any]) -> bool:
    """Is `catalog` (a catalog.json) the one stamped `said` in a file whose stat is `written`?
    OSError where catalog.json cannot be read."""
    at = catalog.stat()
    if at.st_size != said["size"]:
        return False
    return at.st_mtime_ns <= written.st_mtime_ns or _sha256(catalog) == said["sha256"]


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
