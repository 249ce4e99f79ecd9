"""Constants a file imports: module constants and plain-class attributes, read from the
other files of the program, and how the site walker uses them."""
from __future__ import annotations

import textwrap
from collections.abc import Mapping

import pytest

from analyzers.entries import site_trigger
from analyzers.trigger import Renderer
from extractor.imported_values import digest, imported_values, skeleton
from extractor.profile import load_profile
from extractor.sites import extract_file

PROFILE = load_profile("sglang")
RENDER = Renderer()

CONFIG = textwrap.dedent('''
    import enum
    import json
    from enum import StrEnum
    from .base import BASE_LIMIT

    class Phase:
        """The phases."""
        DECODE = "decode"
        PREFILL = "prefill"
        ALL = (DECODE, PREFILL)

        def method(self):
            return 1

    class Color(Enum):
        RED = "red"

    class Scheme(str, enum.Enum):
        FS = "filesystem"
        NUMBERED = 1

    class Mode(StrEnum):
        STATIC = "static"

    @dataclass
    class Settings:
        backend: str = "full"

    class Derived(Phase):
        EXTRA = "x"

    ALLOWED = {Phase.DECODE: ("full", "off"), Phase.PREFILL: ("off",)}
    LIMIT = BASE_LIMIT * 2
    KEYS = frozenset({"b", "a"})
    INT_KEYS = {1: "one"}
    computed = helper()

    def helper():
        return 3
''')
FILES = {
    "pkg/config.py": CONFIG,
    "pkg/base.py": "BASE_LIMIT = 4\n",
}


def values(importer: str) -> dict[str, object]:
    files = {**FILES, "pkg/user.py": textwrap.dedent(importer)}
    return dict(imported_values(["pkg/user.py"], files)["pkg/user.py"])


@pytest.mark.parametrize("importer, expected", [
    ("from pkg.config import LIMIT\nx = LIMIT\n", {"LIMIT": 8}),  # followed into another module
    ("from .config import KEYS\nx = KEYS\n", {"KEYS": ("a", "b")}),  # relative; a set is sorted
    ("from pkg.config import ALLOWED\nx = ALLOWED\n",
     {"ALLOWED": {"decode": ("full", "off"), "prefill": ("off",)}}),
    ("from pkg.config import Phase as P\nx = P.ALL\n",
     {"P.DECODE": "decode", "P.PREFILL": "prefill", "P.ALL": ("decode", "prefill")}),
    ("from pkg.config import Color, Settings, Derived\nx = (Color, Settings, Derived)\n", {}),  # not plain
    # a str enum's member equals its value (one that is a string)
    ("from pkg.config import Scheme, Mode\nx = (Scheme, Mode)\n", {"Scheme.FS": "filesystem", "Mode.STATIC": "static"}),
    ("from pkg.config import INT_KEYS, computed\nx = (INT_KEYS, computed)\n", {}),  # no exact value
    ("from pkg.config import helper\nx = helper()\n", {}),  # only called: a function
    ("def f():\n    from pkg.config import LIMIT\n    return LIMIT\n", {"LIMIT": 8}),  # any depth
    ("from pkg.config import LIMIT\nfrom pkg.base import BASE_LIMIT as LIMIT\nx = LIMIT\n", {}),  # two sources
])
def test_imported_values(importer, expected):
    assert values(importer) == expected


def test_skeleton_keeps_bindings_only():
    cut = skeleton(CONFIG)
    assert "def helper" not in cut and "def method" not in cut and "class Settings" not in cut
    assert 'ALL = (DECODE, PREFILL)' in cut and "from .base import BASE_LIMIT" in cut
    assert skeleton("def f(:\n") == ""


def test_digest_changes_with_values():
    assert digest(()) == ""
    assert digest((("A", 1),)) != digest((("A", 2),))


def trigger(code: str, imported: tuple[tuple[str, object], ...]) -> list[str]:
    fs = extract_file("m.py", textwrap.dedent(code), PROFILE, imported)
    return [RENDER.text(site_trigger(site)) for site in fs.sites]


def test_imported_class_constant_is_its_value():
    code = '''
        from conf import Backend
        def check(cfg):
            if cfg.backend == Backend.FULL:
                raise ValueError("no")
    '''
    assert trigger(code, (("Backend.FULL", "full"),)) == ["`--backend` is full"]
    assert trigger(code, ()) == ["`--backend` is Backend.FULL"]  # unknown class: its member's name


def test_loop_over_imported_constant_is_walked_per_item():
    code = '''
        from conf import ALLOWED, Phase
        def check(cfg):
            for phase in Phase.ALL:
                if getattr(cfg.graph, phase).backend not in ALLOWED[phase]:
                    raise ValueError(f"{phase} not allowed")
    '''
    imported = (("ALLOWED", {"decode": ("full",), "prefill": ("off",)}), ("Phase.ALL", ("decode", "prefill")))
    fs = extract_file("m.py", textwrap.dedent(code), PROFILE, imported)
    (site,) = fs.sites
    assert [v.template.text for v in site.variants] == ["decode not allowed", "prefill not allowed"]
    assert [" and ".join(RENDER.text(g.expr) for g in v.guards) for v in site.variants] == [
        "`--graph.decode.backend` is not full", "`--graph.prefill.backend` is not off"]


def test_local_name_shadows_imported_class():
    code = '''
        from conf import Backend
        def check(cfg, Backend):
            if cfg.backend == Backend.FULL:
                raise ValueError("no")
    '''
    assert "full" not in trigger(code, (("Backend.FULL", "full"),))[0]


EVENTS = textwrap.dedent('''
    from typing import Literal, Optional
    from pydantic import BaseModel

    class EventsConfig(BaseModel):
        """Events."""
        publisher: str = "null"
        endpoint: str = "tcp://*:5557"
        port: Optional[int] = None
        format: Literal["default", "dynamo"] = "default"

        @classmethod
        def from_cli(cls, cli_value: str) -> "EventsConfig":
            """Parse the CLI value."""
            return EventsConfig.model_validate_json(cli_value)
''')
CHECK_EVENTS = '''
    from pkg.events import EventsConfig
    def check(cfg):
        try:
            events = EventsConfig.from_cli(cfg.events)
        except Exception as e:
            raise ValueError(f"not parseable: {e}")
        if events.publisher == "null":
            raise ValueError("needs a publisher")
'''


def test_a_pydantic_model_is_read_as_the_record_its_json_parses_into():
    found = dict(imported_values(["pkg/user.py"], {"pkg/events.py": EVENTS,
                                                   "pkg/user.py": textwrap.dedent(CHECK_EVENTS)})["pkg/user.py"])
    assert found["EventsConfig.from_cli()"] == "model_validate_json"
    record = found["EventsConfig.__model__()"]
    assert isinstance(record, Mapping)
    fields = record["fields"]
    assert fields["publisher"]["default"] == "null" and fields["port"]["optional"]
    assert fields["format"]["choices"] == ("default", "dynamo")
    assert trigger(CHECK_EVENTS, tuple(found.items())) == [
        "computing the EventsConfig read from the JSON in `--events` raises Exception",
        "field `publisher` of the JSON in `--events` is null"]
