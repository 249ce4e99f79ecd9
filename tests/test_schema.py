"""The shipped JSON Schema of catalog.json: valid itself, accepts the contract, rejects breaks."""
from __future__ import annotations

import copy
import json
from importlib import resources

import jsonschema
import pytest

from output.schema import entry_schema, load_schema

ENTRY = {
    "id": "0123456789abcdef",
    "kind": "raise",
    "exception": "ValueError",
    "template": "port must be >= 0, got {args.port}",
    "source": {"path": "pkg/a.py", "line": 3, "function": "check",
               "url": "https://github.com/o/r/blob/" + "a" * 40 + "/pkg/a.py#L3"},
    "excerpt": {"start_line": 1, "code": "def check(args):\n"},
    "trigger": {"text": "`--port` < 0", "flags": ["--port"], "env": [], "other": [],
                "expr": {"op": "compare", "cmp": "<", "left": {"op": "ref", "kind": "flag", "name": "port",
                                                               "text": "args.port"},
                         "right": {"op": "const", "value": 0}}},
    "variants": [{"values": {"x": "1"}, "trigger": {"text": "t", "flags": [], "env": [], "other": []}}],
    "meaning": "",
    "solutions": [],
    "example_fix": {"before": None, "after": None, "verified": "unknown"},
    "related": ["fedcba9876543210"],
}
CATALOG = {
    "schema_version": 1,
    "tool": {"name": "errcat", "version": "0.1.0"},
    "repo": "o/r",
    "commit": "a" * 40,
    "commit_date": "2025-01-02T03:04:05+00:00",
    "source": {"kind": "git", "ref": "v1", "commit": "a" * 40, "commit_date": "2025-01-02T03:04:05+00:00",
               "release": None},
    "targets": ["pkg/a.py"],
    "entries": [ENTRY],
}

DELETE = object()


def _set(doc: dict, path: str, value: object) -> dict:
    """Copy of `doc` with dotted `path` set to `value` (`...=DELETE` removes the key)."""
    doc = copy.deepcopy(doc)
    *parents, last = path.split(".")
    node = doc
    for key in parents:
        node = node[int(key)] if key.isdigit() else node[key]
    if value is DELETE:
        del node[last]
    elif last.isdigit():
        node[int(last)] = value
    else:
        node[last] = value
    return doc



def _errors(doc: dict) -> list[str]:
    return [e.message for e in jsonschema.Draft202012Validator(load_schema()).iter_errors(doc)]


def test_schema_is_valid_draft_2020_12():
    jsonschema.Draft202012Validator.check_schema(load_schema())


def test_schema_ships_as_package_data():
    text = (resources.files("output") / "schema" / "catalog.schema.json").read_text(encoding="utf-8")
    assert json.loads(text) == load_schema()


def test_load_schema_returns_a_fresh_copy():
    load_schema()["properties"].clear()
    assert "entries" in load_schema()["properties"]


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("extra_top_level", {"anything": 1}),                   # extended, never renamed
        ("entries.0.extra", [1, 2]),
        ("entries.0.solutions", ["set --port 8000", {"text": "structured"}]),
        ("entries.0.example_fix.verified", "true"),
        ("entries", []),
        ("commit_date", None),
        ("source", {"kind": "release", "ref": "0.5.23", "commit": None, "commit_date": None, "release": "0.5.23"}),
        ("entries.0.trigger.expr", {"op": "future-op", "whatever": 1}),
    ],
)
def test_accepts(path, value):
    assert _errors(_set(CATALOG, path, value)) == []


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("entries.0.id", "0123456789ABCDEF"),
        ("entries.0.id", "0123"),
        ("entries.0.kind", "warning"),
        ("entries.0.source.line", 0),
        ("entries.0.source.url", DELETE),
        ("entries.0.excerpt.start_line", "1"),
        ("entries.0.trigger.expr", DELETE),
        ("entries.0.trigger.flags", "--port"),
        ("entries.0.variants.0.trigger", DELETE),
        ("entries.0.example_fix.after", 3),
        ("entries.0.example_fix.verified", True),               # a string: "true" / "false" / "unknown"
        ("entries.0.related.0", "not-an-id"),
        ("entries.0.solutions", "one"),
        ("entries.0.trigger.expr", {"op": "and", "args": [{"no": "op"}]}),
        ("entries.0.trigger.expr", {"op": "compare", "cmp": "<"}),
        ("source.commit", "abc"),
        ("source.kind", "svn"),
        ("commit_date", "yesterday"),
        ("tool", DELETE),
        ("targets", DELETE),
    ],
)
def test_rejects(path, value):
    assert _errors(_set(CATALOG, path, value))


@pytest.mark.parametrize(("doc", "ok"), [(ENTRY, True), (_set(ENTRY, "id", "x"), False), ({}, False)])
def test_entry_schema_for_entry_files(doc, ok):
    valid = jsonschema.Draft202012Validator(entry_schema()).is_valid(doc)
    assert valid is ok
