"""The JSON Schema of catalog.json, shipped as package data (output/schema/*.json)."""
from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Any

CATALOG_SCHEMA = "catalog.schema.json"


@cache
def _text(name: str) -> str:
    return (resources.files("output") / "schema" / name).read_text(encoding="utf-8")


def load_schema(name: str = CATALOG_SCHEMA) -> dict[str, Any]:
    """A fresh copy of the schema (callers may modify it)."""
    return json.loads(_text(name))


def entry_schema() -> dict[str, Any]:
    """Schema for one DIR/entries/<id>.json file: the catalog's entry definition."""
    schema = load_schema()
    return {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": "#/$defs/entry"}


# ------------------------------------------------------------------ validation
#
# Readers validate every catalog.json they load against the shipped schema. jsonschema
# is a test-only dependency (with its Rust extension), so this is a small validator for
# the keywords the schema uses; tests check it agrees with jsonschema, and an unknown
# keyword is an error, so a schema edit cannot be silently half-checked.

SCHEMA_VERSION = 2  # what `errcat extract` writes; readers take any version up to it

_ANNOTATIONS = frozenset({"$schema", "$id", "$defs", "$comment", "title", "description", "default", "examples"})
_TYPES: dict[str, Any] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def _kind(value: Any) -> str:
    return next((name for name, test in _TYPES.items() if name != "number" and test(value)), "number")


def _canonical(value: Any) -> Any:
    """A key for JSON equality: 1 and true differ, key order does not matter."""
    if isinstance(value, bool) or value is None or isinstance(value, str):  # the common case, kept cheap
        return (type(value).__name__, value)
    if isinstance(value, (int, float)):
        return ("number", value)
    return json.dumps(value, sort_keys=True)


# (path, innermost key first; what is wrong): the message is formatted only when shown,
# as most failures are expected ones (the `if` of an if/then) and are discarded.
Problem = tuple[list[str | int], Callable[[], str]]
Check = Callable[[Any], "Problem | None"]


def _inside(key: str | int, problem: Problem | None) -> Problem | None:
    if problem is not None:
        problem[0].append(key)
    return problem


def _where(path: list[str | int]) -> str:
    out = ""
    for key in reversed(path):
        if isinstance(key, int) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", key):
            out += f"[{json.dumps(key)[:60]}]"  # keys from the data: quoted, one line
        else:
            out += f".{key}" if out else key
    return out or "document"


class _Compiler:
    """Turns a schema into nested closures once; validating is then one call per node.
    One method per keyword (`_KEYWORDS` names them); each gets the keyword's argument and
    the schema it sits in (for keywords read together: additionalProperties, if/then/else)."""

    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self.refs: dict[str, Check | None] = {}

    def ref(self, ref: str) -> Check:
        if not ref.startswith("#"):
            raise ValueError(f"only local $ref is supported, not {ref!r}")
        if ref not in self.refs:
            self.refs[ref] = None  # recursive schemas (expr) refer to themselves
            node: Any = self.root
            for part in filter(None, ref[1:].split("/")):
                node = node[part.replace("~1", "/").replace("~0", "~")]
            self.refs[ref] = self.compile(node)
        done = self.refs[ref]
        if done is not None:
            return done
        refs = self.refs

        def deferred(v: Any) -> Problem | None:
            check = refs[ref]
            assert check is not None, "compiled by the time it runs"
            return check(v)

        return deferred

    def compile(self, schema: Any) -> Check:
        if schema is True:
            return lambda v: None
        if schema is False:
            return lambda v: ([], lambda: "not allowed")
        checks: list[Check] = []
        kinds = schema.get("type")
        if kinds is not None:
            checks.append(self.type_(kinds))
        for key, arg in schema.items():
            if key in _ANNOTATIONS or key in ("type", "then", "else"):
                continue
            checks.append(self.keyword(key, arg, schema))

        def check(value: Any) -> Problem | None:
            for c in checks:
                problem = c(value)
                if problem is not None:
                    return problem
            return None

        return checks[0] if len(checks) == 1 else check

    def keyword(self, key: str, arg: Any, schema: dict[str, Any]) -> Check:
        method = _KEYWORDS.get(key)
        if method is None:
            raise ValueError(f"schema keyword {key!r} is not supported by output.schema")
        return method(self, arg, schema)

    # ---- one per keyword

    def type_(self, kinds: str | list[str]) -> Check:
        names = [kinds] if isinstance(kinds, str) else list(kinds)
        tests = [_TYPES[n] for n in names]
        expected = " or ".join(names)
        return lambda v: None if any(t(v) for t in tests) else ([], lambda: f"expected {expected}, got {_kind(v)}")

    def dollar_ref(self, arg: str, schema: dict[str, Any]) -> Check:
        return self.ref(arg)

    def properties(self, arg: dict[str, Any], schema: dict[str, Any]) -> Check:
        props = [(name, self.compile(sub)) for name, sub in arg.items()]

        def properties(v: Any) -> Problem | None:
            if isinstance(v, dict):
                for name, check in props:
                    if name in v and (problem := check(v[name])) is not None:
                        return _inside(name, problem)
            return None

        return properties

    def additional_properties(self, arg: Any, schema: dict[str, Any]) -> Check:
        known, extra = set(schema.get("properties", {})), self.compile(arg)

        def additional(v: Any) -> Problem | None:
            if isinstance(v, dict):
                for name, x in v.items():
                    if name not in known and (problem := extra(x)) is not None:
                        return _inside(name, problem)
            return None

        return additional

    def required(self, arg: list[str], schema: dict[str, Any]) -> Check:
        def required(v: Any) -> Problem | None:
            missing = next((n for n in arg if n not in v), None) if isinstance(v, dict) else None
            return None if missing is None else ([], lambda: f"missing {missing!r}")

        return required

    def items(self, arg: Any, schema: dict[str, Any]) -> Check:
        item = self.compile(arg)

        def items(v: Any) -> Problem | None:
            if isinstance(v, list):
                for i, x in enumerate(v):
                    if (problem := item(x)) is not None:
                        return _inside(i, problem)
            return None

        return items

    def unique_items(self, arg: bool, schema: dict[str, Any]) -> Check:
        return lambda v: ([], lambda: "items are not unique") if (
            arg and isinstance(v, list) and len({_canonical(x) for x in v}) < len(v)) else None

    def const(self, arg: Any, schema: dict[str, Any]) -> Check:
        return self.enum([arg], schema)

    def enum(self, arg: list[Any], schema: dict[str, Any]) -> Check:
        allowed = {_canonical(a) for a in arg}
        shown = " or ".join(json.dumps(a) for a in arg)
        return lambda v: None if _canonical(v) in allowed else ([], lambda: f"{json.dumps(v)[:60]} is not {shown}")

    def min_length(self, arg: int, schema: dict[str, Any]) -> Check:
        return lambda v: (([], lambda: f"shorter than {arg} character(s)")
                          if isinstance(v, str) and len(v) < arg else None)

    def minimum(self, arg: float, schema: dict[str, Any]) -> Check:
        return lambda v: ([], lambda: f"{v} is less than {arg}") if _TYPES["number"](v) and v < arg else None

    def pattern(self, arg: str, schema: dict[str, Any]) -> Check:
        rx = re.compile(arg)
        return lambda v: (([], lambda: f"{v[:60]!r} does not match {arg!r}")
                          if isinstance(v, str) and not rx.search(v) else None)

    def all_of(self, arg: list[Any], schema: dict[str, Any]) -> Check:
        subs = [self.compile(s) for s in arg]
        return lambda v: next((p for c in subs if (p := c(v)) is not None), None)

    def any_of(self, arg: list[Any], schema: dict[str, Any]) -> Check:
        return self._alternatives(arg, one=False)

    def one_of(self, arg: list[Any], schema: dict[str, Any]) -> Check:
        return self._alternatives(arg, one=True)

    def _alternatives(self, arg: list[Any], *, one: bool) -> Check:
        subs = [self.compile(s) for s in arg]

        def alternatives(v: Any) -> Problem | None:
            problems = [c(v) for c in subs]
            matches = problems.count(None)
            if matches and (matches == 1 or not one):
                return None
            if matches:
                return [], lambda: "matches more than one of the allowed forms"
            # None fits: say why the likeliest one (of the right type) does not.
            return next((p for p in problems if p and not p[1]().startswith("expected ")), problems[0])

        return alternatives

    def not_(self, arg: Any, schema: dict[str, Any]) -> Check:
        sub = self.compile(arg)
        return lambda v: ([], lambda: "matches a form that is not allowed") if sub(v) is None else None

    def if_(self, arg: Any, schema: dict[str, Any]) -> Check:
        cond = self.compile(arg)
        then = self.compile(schema.get("then", True))
        other = self.compile(schema.get("else", True))
        return lambda v: then(v) if cond(v) is None else other(v)


# Keyword -> its method on _Compiler ("then"/"else" are read by "if"; "type" comes first).
_KEYWORDS: dict[str, Callable[[_Compiler, Any, dict[str, Any]], Check]] = {
    "$ref": _Compiler.dollar_ref,
    "properties": _Compiler.properties,
    "additionalProperties": _Compiler.additional_properties,
    "required": _Compiler.required,
    "items": _Compiler.items,
    "uniqueItems": _Compiler.unique_items,
    "const": _Compiler.const,
    "enum": _Compiler.enum,
    "minLength": _Compiler.min_length,
    "minimum": _Compiler.minimum,
    "pattern": _Compiler.pattern,
    "allOf": _Compiler.all_of,
    "anyOf": _Compiler.any_of,
    "oneOf": _Compiler.one_of,
    "not": _Compiler.not_,
    "if": _Compiler.if_,
}


def schema_problem(data: Any, schema: dict[str, Any]) -> str | None:
    """The first place `data` breaks `schema` ("entries[0].id: ..."), or None."""
    return _first(_Compiler(schema).compile(schema), data)


def _first(check: Check, data: Any) -> str | None:
    problem = check(data)
    return None if problem is None else f"{_where(problem[0])}: {problem[1]()}"


@cache
def _catalog_check() -> Check:
    schema = load_schema()
    return _Compiler(schema).compile(schema)


def catalog_problem(data: Any) -> str | None:
    """Why `data` is not a catalog this errcat can read (None: it is): a newer
    schema_version, or the first place it breaks the shipped schema."""
    version = data.get("schema_version") if isinstance(data, dict) else None
    if isinstance(version, int) and not isinstance(version, bool) and version > SCHEMA_VERSION:
        return f"schema_version {version} is newer than this errcat reads (up to {SCHEMA_VERSION}): upgrade errcat"
    problem = _first(_catalog_check(), data)
    return None if problem is None else f"not a valid errcat catalog: {problem}"


@cache
def _subset_check(top_keys: tuple[str, ...], entry_keys: tuple[str, ...]) -> Check:
    """The catalog schema narrowed to a catalog that keeps its entries, `top_keys` and, per entry,
    `entry_keys` (e.g. the compact catalogs that diffs cache): those the schema knows are
    required, every other one is absent."""
    schema = load_schema()
    entry = schema["$defs"]["entry"]
    entry["required"] = list(entry_keys)
    entry["properties"] = {k: v for k, v in entry["properties"].items() if k in entry_keys}
    entry["additionalProperties"] = False
    keys = (*top_keys, "entries")
    schema["required"] = [k for k in keys if k in schema["properties"]]
    # Keys the schema does not describe (the flag model: null when the profile declares none)
    # must at least be objects.
    schema["properties"] = {k: schema["properties"].get(k, {"type": ["object", "null"]}) for k in keys}
    schema["additionalProperties"] = False
    return _Compiler(schema).compile(schema)


def subset_problem(data: Any, top_keys: tuple[str, ...], entry_keys: tuple[str, ...]) -> str | None:
    """Why `data` is not such a narrowed catalog (see `_subset_check`), or None."""
    return _first(_subset_check(top_keys, entry_keys), data)
