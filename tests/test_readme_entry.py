"""The example entry of docs/entry-format.md is the catalog's own: made by scripts/readme_entry.py
from the catalog the README's first command builds (sglang 0.5.23), never kept by hand."""
from __future__ import annotations

import pytest

from scripts import readme_entry


@pytest.mark.network
def test_the_docs_show_the_entry_the_first_command_builds(extracted) -> None:
    extracted.catalog("0.5.23")
    page = readme_entry.PAGE.read_text(encoding="utf-8")
    new = readme_entry.block(extracted.root / "0.5.23")
    assert readme_entry.replaced(page, new) == page, "run: python scripts/readme_entry.py catalog --write"


def test_the_abridged_entry_leads_with_the_row_its_example_comes_from() -> None:
    fix = {"before": "b2", "after": "a2", "verified": "not-run", "predicted": "true"}
    rows = [{"values": {"r": str(i)}, "trigger": {"text": f"t{i}"}, "solutions": [{"text": f"s{i}"}],
             "example_fix": fix if i == 2 else {"before": None}} for i in range(4)]
    entry = {"id": "0" * 16, "kind": "raise", "exception": "E", "template": "T {r}", "source": {},
             "trigger": {"text": "t", "flags": []}, "variants": rows, "meaning": "m", "solutions": [],
             "example_fix": fix, "related": ["a", "b", "c", "d"]}
    shown = readme_entry.abridged(entry)
    assert [v["values"] if isinstance(v, dict) else v for v in shown["variants"]] == [
        {"r": "2"}, {"r": "0"}, "… 2 more rows"]
    assert shown["related"] == ["a", "b", "c", "…"]
