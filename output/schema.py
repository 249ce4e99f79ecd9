"""The JSON Schema of catalog.json, shipped as package data (output/schema/*.json)."""
from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

CATALOG_SCHEMA = "catalog.schema.json"


@lru_cache(maxsize=None)
def _text(name: str) -> str:
    return (resources.files("output") / "schema" / name).read_text(encoding="utf-8")


def load_schema(name: str = CATALOG_SCHEMA) -> dict[str, Any]:
    """A fresh copy of the schema (callers may modify it)."""
    return json.loads(_text(name))


def entry_schema() -> dict[str, Any]:
    """Schema for one DIR/entries/<id>.json file: the catalog's entry definition."""
    schema = load_schema()
    return {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": "#/$defs/entry"}
