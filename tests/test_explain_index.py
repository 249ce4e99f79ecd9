"""explain-index.json: written by extract, read by explain only while catalog.json is the one it indexes."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from analyzers.explain import targets_of
from errcat.cli import main
from output.catalog_stamp import stamp
from output.entry_files import EntryFiles
from output.explain_index import NAME, index_text, read_index

ENTRIES: list[dict[str, Any]] = [
    {"id": "aaaaaaaaaaaaaaaa", "exception": "ValueError", "template": "LoRA with spec {x}", "meaning": "m",
     "source": {"path": "python/sglang/srt/a_hook.py", "line": 3, "function": "hook"},
     "excerpt": {"start_line": 1, "code": "def hook(x):\n\n    raise ValueError(f'LoRA with spec {x}')\n"},
     "variants": [{"values": {"x": "1"}, "template": "LoRA with spec 1", "meaning": "row one"}]},
    {"id": "bbbbbbbbbbbbbbbb", "exception": "AssertionError", "template": "", "meaning": "bare",
     "source": {"path": "python/sglang/srt/b_hook.py", "line": 9, "function": "hook"}},
]


def _catalog(root: Path, *, index: bool) -> Path:
    """A catalog directory as extract writes it (entries/, catalog.json; the index when asked)."""
    (root / "entries").mkdir(parents=True)
    for entry in ENTRIES:
        (root / "entries" / f"{entry['id']}.json").write_text(json.dumps(entry))
    raw = json.dumps({"source": {"kind": "release", "release": "0.5.23"}, "entries": ENTRIES}).encode()
    (root / "catalog.json").write_bytes(raw)
    if index:
        targets = [t for e in ENTRIES for t in targets_of(e)]
        (root / NAME).write_text(index_text(targets, "0.5.23", stamp([raw])))
    return root


@pytest.mark.parametrize("text", [
    "ValueError: LoRA with spec 1",  # a row's own template
    "ValueError: LoRA with spec 7",
    "ValueError: nothing renders this",
    'Traceback (most recent call last):\n  File "/v/site-packages/sglang/srt/a_hook.py", line 3, in hook\n'
    "ValueError: LoRA with spec 2",
])
def test_explain_by_the_index_says_what_explain_by_catalog_json_says(tmp_path, capsys, text):
    said = []
    for name, index in (("with", True), ("without", False)):
        code = main(["explain", "--catalog", str(_catalog(tmp_path / name, index=index)), "--format", "json", text])
        said.append((code, json.loads(capsys.readouterr().out)))
    assert said[0] == said[1]


def _grown(root: Path) -> None:
    (root / "catalog.json").write_bytes((root / "catalog.json").read_bytes() + b" ")


def _same_size_newer(root: Path) -> None:
    raw = (root / "catalog.json").read_bytes()
    (root / "catalog.json").write_bytes(raw.replace(b"LoRA", b"LORA"))
    _newer(root)


def _newer(root: Path) -> None:  # copied without keeping times: the content decides
    later = (root / NAME).stat().st_mtime_ns + 10**9
    os.utime(root / "catalog.json", ns=(later, later))


def _garbage(root: Path) -> None:
    (root / NAME).write_text("[1, 2]")


def _other_version(root: Path) -> None:
    data = json.loads((root / NAME).read_text())
    (root / NAME).write_text(json.dumps({**data, "explain_index": 99}))


@pytest.mark.parametrize(("change", "trusted"), [
    (lambda root: None, True),
    (_newer, True),
    (_grown, False),
    (_same_size_newer, False),
    (_garbage, False),
    (_other_version, False),
    (lambda root: (root / NAME).unlink(), False),
])
def test_the_index_is_read_only_while_catalog_json_is_the_one_it_indexes(tmp_path, change, trusted):
    root = _catalog(tmp_path / "cat", index=True)
    change(root)
    assert (read_index(root) is not None) is trusted


def test_entry_files_are_read_when_asked_for_and_unknown_ids_are_missing(tmp_path):
    entries = EntryFiles(_catalog(tmp_path / "cat", index=False))
    assert entries["aaaaaaaaaaaaaaaa"]["meaning"] == "m"
    assert entries.get("cccccccccccccccc") is None and entries.get("../catalog") is None
    assert sorted(entries) == ["aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb"] and len(entries) == 2
