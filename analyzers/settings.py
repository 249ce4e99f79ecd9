"""Settings by name: fields and methods of a setting, derived settings, facts, env values and declared defaults."""
from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from analyzers.kleene import UNKNOWN
from analyzers.launch import Launch
from extractor.ir import (
    RefKind,
)


def derived_fact(name: str) -> str:
    """The fact stating a derived setting ``f()`` (``f(server_args)``): what a platform says
    the helper returns (`analyzers.platform_facts.runtime_facts`)."""
    return f"{RefKind.RUNTIME}:{name}"


def item_path(value: Any, path: str) -> Any:
    """`value`'s item at the dotted `path` (``decode.backend``); unknown where it has none."""
    for key in path.split("."):
        if not isinstance(value, Mapping) or key not in value:
            return UNKNOWN
        value = value[key]
    return value


def record_of(name: str) -> str:
    """The setting a field ``x.a.b`` is part of (``x``); a setting is its own."""
    return base_dest(name).partition(".")[0]


def given_field(launch: Launch, name: str) -> Any:
    """What the command line gives for the field ``x.a.b`` (its JSON for ``x`` has the path:
    a dict, or the JSON text of an object)."""
    base, _, path = name.partition(".")
    if not path or base not in launch.flags:
        return UNKNOWN
    return item_path(json_object(launch.flags[base]), path)


def json_object(value: Any) -> Any:
    """`value`, or the object its text holds where it is the JSON text of one (``'{"a": 1}'``)."""
    if not isinstance(value, str) or not value.lstrip().startswith("{"):
        return value
    try:
        found = json.loads(value)
    except ValueError:
        return UNKNOWN
    return found if isinstance(found, dict) else UNKNOWN


def base_dest(name: str) -> str:
    """``device.startswith()`` reads ``device``."""
    head, _, method = name.rpartition(".")
    return head if head and method.endswith("()") else name


# ------------------------------------------------------------------ defaults


def literal_default(default: Any) -> Any:
    """A declared default as a value; ``{"expr": src}`` (computed at run time) is unknown."""
    if isinstance(default, Mapping) and set(default) == {"expr"}:
        return UNKNOWN
    return default  # a dict default stays the immutable `FrozenMap` the flag model holds


_TRUE_WORDS = frozenset({"1", "true", "yes", "y", "on"})


def env_value(raw: str, type_name: str | None) -> Any:
    """A raw environment string as the typed reader sees it."""
    try:
        if type_name == "bool":
            return raw.strip().lower() in _TRUE_WORDS
        if type_name == "int":
            return int(raw)
        if type_name == "float":
            return float(raw)
    except ValueError:
        return UNKNOWN
    return raw


def absent_fact(name: str) -> str:
    """The fact that the model's config lacks the attribute ``name`` (a model property)."""
    return f"absent:{RefKind.MODEL}:{name}"


def setting_key(name: str) -> str:
    """What resolution by difference tracks a setting as: with its fields and methods
    (``x`` for ``x.a.b`` and ``x.startswith()``), an env var as the code's view of it."""
    return name.partition(".")[0]
