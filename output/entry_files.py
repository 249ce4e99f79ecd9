"""A catalog directory's entries, one ``entries/<id>.json`` read when asked for: what `check`
and `explain` show of the few entries an answer names (a module of its own: they load it
without the site's or the explain index's modules)."""
from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any


class EntryFiles(Mapping[str, Mapping[str, Any]]):
    """A catalog's entries by id, each read from ``entries/<id>.json`` when asked for."""

    def __init__(self, catalog_dir: str | os.PathLike[str]) -> None:
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
