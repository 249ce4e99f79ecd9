"""The shipped JSON Schema of catalog.json: valid itself, accepts the contract, rejects breaks."""
from __future__ import annotations

import copy
import json
from importlib import resources

import jsonschema
import pytest

from errcat.cli import main
from output import schema as schema_module
from output.schema import SCHEMA_VERSION, catalog_problem, entry_schema, load_schema, schema_problem

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
    "example_fix": {"before": None, "after": None, "verified": "not-run", "predicted": "unknown"},
    "related": ["fedcba9876543210"],
}
REACH = {"entry": "fedcba9876543210", "text": "also needs `--a` is not set, else “x” (line 1) "
         "fires first", "expr": {"op": "truthy", "term": {"op": "ref", "kind": "flag", "name": "a", "text": "cfg.a"}}}
CATALOG = {
    "schema_version": 2,
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
        ("entries.0.example_fix.verified", "true"),             # confirmed by the real program
        ("entries.0.example_fix.verified", "false"),
        ("entries.0.example_fix.needs", ["platform:get_platform().is_hip=true"]),
        ("entries.0.example_fix.assuming", {"facts": ["f"], "predicted": "true"}),
        # schema 1, still read: `verified` was the prediction
        ("entries.0.example_fix", {"before": None, "after": None, "verified": "unknown"}),
        ("entries.0.example_fix", {"before": "s", "after": "s", "verified": "true",
                                   "assuming": {"facts": ["f"], "verified": "true"}}),
        ("entries", []),
        ("commit_date", None),
        ("source", {"kind": "release", "ref": "0.5.23", "commit": None, "commit_date": None, "release": "0.5.23"}),
        ("entries.0.trigger.expr", {"op": "future-op", "whatever": 1}),
        ("entries.0.trigger.reach", [REACH, {**REACH, "entry": None}]),  # an earlier check with no entry
        ("entries.0.trigger.reach_more", 3),
    ],
)
def test_accepts(path, value):
    doc = _set(CATALOG, path, value)
    assert _errors(doc) == [] and catalog_problem(doc) is None  # jsonschema and our reader agree


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
        ("entries.0.example_fix.verified", True),               # a string: "true" / "false" / "not-run"
        ("entries.0.example_fix.verified", "unknown"),          # with `predicted`: only the real program verifies
        ("entries.0.example_fix.predicted", "maybe"),
        ("entries.0.example_fix.needs", ["is_hip"]),            # "platform:NAME=VALUE"
        ("entries.0.example_fix.assuming", {"facts": ["f"]}),   # its prediction
        ("entries.0.example_fix", {"before": None, "after": None, "verified": "not-run"}),  # schema 1 had no not-run
        ("entries.0.related.0", "not-an-id"),
        ("entries.0.solutions", "one"),
        ("entries.0.trigger.expr", {"op": "and", "args": [{"no": "op"}]}),
        ("entries.0.trigger.expr", {"op": "compare", "cmp": "<"}),
        ("source.commit", "abc"),
        ("source.kind", "svn"),
        ("commit_date", "yesterday"),
        ("tool", DELETE),
        ("targets", DELETE),
        ("entries.0.trigger.reach", [{**REACH, "entry": "0123"}]),
        ("entries.0.trigger.reach", [{"entry": None, "text": "t"}]),  # its condition
        ("entries.0.trigger.reach_more", 0),
    ],
)
def test_rejects(path, value):
    doc = _set(CATALOG, path, value)
    assert _errors(doc) and catalog_problem(doc) is not None  # jsonschema and our reader agree


@pytest.mark.parametrize(("doc", "ok"), [(ENTRY, True), (_set(ENTRY, "id", "x"), False), ({}, False)])
def test_entry_schema_for_entry_files(doc, ok):
    valid = jsonschema.Draft202012Validator(entry_schema()).is_valid(doc)
    assert valid is ok


# ------------------------------------------------------------------ reading catalogs


@pytest.mark.parametrize(
    ("doc", "problem"),
    [
        (_set(CATALOG, "entries", [1, 2]), "not a valid errcat catalog: entries[0]: expected object, got integer"),
        (_set(CATALOG, "entries.0.source.line", "3"), "entries[0].source.line: expected integer, got string"),
        (_set(CATALOG, "entries.0.kind", "warning"), 'entries[0].kind: "warning" is not "raise" or "assert"'),
        (_set(CATALOG, "schema_version", DELETE), "document: missing 'schema_version'"),
        (_set(CATALOG, "schema_version", True), "schema_version: expected integer, got boolean"),
        (_set(CATALOG, "stats", {"a\nb": -1}), 'stats["a\\nb"]: -1 is less than 0'),
        ([1, 2], "document: expected object, got array"),
        (_set(CATALOG, "schema_version", 99),
         f"schema_version 99 is newer than this errcat reads (up to {SCHEMA_VERSION})"),
    ],
)
def test_catalog_problem_names_the_place(doc, problem):
    found = catalog_problem(doc)
    assert found is not None and problem in found and "\n" not in found


def test_unknown_schema_keyword_is_an_error():
    with pytest.raises(ValueError, match="not supported"):
        schema_problem({}, {"type": "object", "dependentRequired": {}})


@pytest.mark.parametrize(("version", "readable"), [(1, True), (2, True), (3, False)])
def test_readers_take_every_version_up_to_theirs(monkeypatch, version, readable):
    monkeypatch.setattr(schema_module, "SCHEMA_VERSION", 2)
    assert (catalog_problem(_set(CATALOG, "schema_version", version)) is None) is readable


@pytest.fixture()
def catalogs(tmp_path):
    """write(name, doc) -> a catalog directory holding `doc` as catalog.json."""
    def write(name: str, doc: object) -> str:
        (tmp_path / name).mkdir()
        (tmp_path / name / "catalog.json").write_text(json.dumps(doc))
        return str(tmp_path / name)
    return write


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        (_set(CATALOG, "entries", [1, 2]), "not a valid errcat catalog: entries[0]: expected object"),
        (_set(CATALOG, "schema_version", 99), "schema_version 99 is newer than this errcat reads"),
        (_set(CATALOG, "entries.0.trigger", "x"), "entries[0].trigger: expected object, got string"),
        ({"entries": []}, "missing 'schema_version'"),
    ],
)
def test_diff_of_a_bad_catalog_is_one_line(catalogs, capsys, doc, message):
    good, bad = catalogs("good", CATALOG), catalogs("bad", doc)
    for argv in (["diff", good, bad], ["diff", bad, good]):
        assert main(argv) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.startswith(f"errcat: {bad}/catalog.json: ") and err.count("\n") == 1
        assert message in err


def test_diff_reads_a_valid_catalog(catalogs, capsys):
    assert main(["diff", catalogs("a", CATALOG), catalogs("b", CATALOG), "--fail-on", "any"]) == 0
