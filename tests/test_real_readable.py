"""Whole real catalogs read in user terms: no trigger, `other` item, solution or graph
edge shows a local's bookkeeping, a built collection as code, a private helper call or an
unbound parameter (`analyzers.readable.MARKERS`), and no solution a call of the program's code.
(`example_fix.undecided` of a checked example lists the first-error prediction's leaves in
their machine form: not checked.)"""
from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from analyzers.readable import internal_markers, states_code
from analyzers.solution import solution_text

pytestmark = pytest.mark.network


def _shown(entry: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(field, text) of every text of one entry a reader is shown about its trigger."""
    for part in [entry, *entry.get("variants", [])]:
        trigger = part.get("trigger") or {}
        yield "trigger.text", trigger.get("text", "")
        yield from (("trigger.other", o) for o in trigger.get("other", []))
        yield from (("solutions", solution_text(s)) for s in part.get("solutions") or [])


def _edges(graph: dict[str, Any]) -> Iterator[tuple[str, str]]:
    for link in graph["links"]:
        for key, value in link.items():
            if key not in ("source", "target", "key", "kind"):
                yield from ((f"graph.{key}", v) for v in (value if isinstance(value, list) else [value])
                            if isinstance(v, str))


@pytest.mark.parametrize("version", ["0.5.23", "0.5.18"])
def test_no_internal_marker_reaches_a_reader(extracted, version: str) -> None:
    extracted.catalog(version)
    root = Path(extracted.root / version)
    shown = [(f"{e['source']['path']}:{e['source']['line']} {field}", text)
             for path in sorted((root / "entries").glob("*.json"))
             for e in [json.loads(path.read_text())] for field, text in _shown(e)]
    shown += list(_edges(json.loads((root / "graph.json").read_text())))
    leaks = [(where, kind, found) for where, text in shown for kind, found in internal_markers(text)]
    # a solution says what to change, never a condition through the program's code
    leaks += [(where, "code call", text) for where, text in shown if where.endswith("solutions") and states_code(text)]
    assert not leaks, f"{len(leaks)} internal markers, first: {leaks[:5]}"
