"""Output formats of `errcat extract --format`: json (the contract), yaml, md."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from extractor.errors import ErrcatError

FORMATS = ("json", "yaml", "md")
# A file each format always writes: what marks a directory as an earlier errcat output.
MARKERS = {"json": "catalog.json", "yaml": "catalog.yaml", "md": "md/README.md"}


def parse_formats(text: str | Sequence[str]) -> tuple[str, ...]:
    """``"json,md"`` -> ("json", "md"), in `FORMATS` order; ErrcatError on an unknown name."""
    parts = text.split(",") if isinstance(text, str) else list(text)
    names = {p.strip().lower() for p in parts if p.strip()}
    unknown = sorted(names - set(FORMATS))
    if unknown:
        raise ErrcatError(f"unknown format {unknown[0]!r} (known: {', '.join(FORMATS)})")
    if not names:
        raise ErrcatError("--format: no format given")
    return tuple(f for f in FORMATS if f in names)


def render_extra(data: Mapping[str, Any], formats: Sequence[str]) -> dict[str, str]:
    """The non-JSON files for catalog data `data`."""
    files: dict[str, str] = {}
    if "yaml" in formats:
        from output.yaml_out import dumps_yaml

        files["catalog.yaml"] = dumps_yaml(data)
    if "md" in formats:
        from output.markdown import render_markdown

        files.update(render_markdown(data))
    return files
