"""The search index the website ships (output/site_search.py) is explain's MessageIndex."""
from __future__ import annotations

import json

from analyzers.explain import MessageIndex
from output.site_search import entry_flags, search_index, search_script
from tests.site_catalogs import entry

ENTRIES = [entry("aaaa000000000001", "LoRA with EAGLE {reason}.", flags=("--enable-lora",),
                 rows=(("does not support --x", "`--x` is set"),)),
           entry("bbbb000000000002", "{reason}", path="pkg/b.py")]


def test_every_template_of_explains_index_is_exported_with_what_its_score_reads():
    index, data = MessageIndex(ENTRIES), search_index(ENTRIES, "1.0")
    assert [t[:2] for t in data["targets"]] == [[t.entry, t.row] for t in index.targets]
    first = data["targets"][0]
    assert first[2] == ["LoRA with EAGLE ", {"h": "{reason}"}, "."]
    assert first[3:] == ["ValueError", True, "pkg/a.py", 3, 4, len("LoRA with EAGLE .")]
    assert data["by_word"] == dict(sorted(index.by_word.items())) and data["wordless"] == index.wordless == [2]


def test_each_entry_names_its_page_as_the_site_writes_it():
    pages = {i: e["page"] for i, e in search_index([*ENTRIES, entry("../x y", "m")], "1.0")["entries"].items()}
    assert pages["aaaa000000000001"] == "errors/aaaa000000000001.html"
    assert pages["../x y"].startswith("errors/x_y-") and "/" not in pages["../x y"].removeprefix("errors/")


def test_filters_read_the_flags_of_the_entry_and_its_rows():
    assert entry_flags(ENTRIES[0]) == (["--enable-lora"], [])
    assert search_index(ENTRIES, "1.0")["entries"]["aaaa000000000001"]["flags"] == ["--enable-lora"]


def test_the_script_registers_the_index_under_its_release_and_is_stable():
    text = search_script(search_index(ENTRIES, "1.0"))
    head, _, data = text.partition('window.ERRCAT_INDEX["1.0"] = ')
    assert head == "window.ERRCAT_INDEX = window.ERRCAT_INDEX || {};\n"
    assert json.loads(data.rstrip(";\n"))["release"] == "1.0"
    assert text == search_script(search_index(ENTRIES, "1.0"))
