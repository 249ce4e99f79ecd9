"""JSON-lines corpora (one record a line), as the committed launch corpora are kept:
gzip-compressed (reproducibly: no timestamp) for a ``.gz`` path, plain otherwise."""
from __future__ import annotations

import gzip
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from extractor.atomic import write_bytes_atomically
from extractor.errors import ErrcatError


def write_lines(path: str | Path, records: Sequence[dict[str, Any]]) -> None:
    """`records` as JSON lines (keys sorted), written atomically."""
    data = "".join(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n" for r in records).encode("utf-8")
    if str(path).endswith(".gz"):
        data = gzip.compress(data, mtime=0)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    write_bytes_atomically(Path(path), data)


def read_lines(path: str | Path) -> list[Any]:
    """The records `write_lines` wrote; `ErrcatError` (one line) when unreadable."""
    try:
        with (gzip.open if str(path).endswith(".gz") else open)(path, "rt", encoding="utf-8") as fh:
            return [json.loads(line) for line in fh if line.strip()]
    except (OSError, EOFError, ValueError) as exc:
        raise ErrcatError(f"cannot read the corpus {path}: {exc}") from exc
