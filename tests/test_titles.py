"""A message-less assert is named `AssertionError at path:line (no message)` wherever its
message is shown (check, explain, graph, Markdown, the site), never by its entry id."""
from __future__ import annotations

import pytest

from output.titles import headline, label

SRC = {"path": "a.py", "line": 7, "function": "f", "url": "u"}
BARE = {"id": "ab8a9d6ab6357ff8", "kind": "assert", "exception": "AssertionError", "template": "", "source": SRC,
        "excerpt": {"code": "assert x\n"}, "trigger": {"text": "`--x` is set", "flags": ["--x"], "env": []},
        "variants": [], "meaning": "", "solutions": [], "example_fix": {}, "related": []}
SAID = "AssertionError at a.py:7 (no message)"


@pytest.mark.parametrize("exception, message, source, shown", [
    ("ValueError", "bad", SRC, "ValueError: bad"),
    ("AssertionError", "", SRC, SAID),
    ("AssertionError", None, {"path": "a.py", "line": 7}, SAID),
    (None, "", SRC, "Error at a.py:7 (no message)"),
])
def test_headline(exception, message, source, shown):
    assert headline(exception, message, source) == shown


@pytest.mark.parametrize("entry, shown", [
    (BARE, SAID),
    ({**BARE, "template": "x is {x}"}, "x is {x}"),
    ({"exception": "AssertionError", "template": "", "path": "a.py", "line": 7}, SAID),  # a graph node
])
def test_label(entry, shown):
    assert label(entry) == shown


def _check_text() -> str:
    from output.check_text import check_text

    error = {"entry": BARE["id"], "exception": "AssertionError", "message": "", "source": SRC, "fix": None}
    return check_text({"status": "will-fail", "platform": "p", "errors": [error]})


def _markdown() -> str:
    from output.markdown import render_markdown

    return render_markdown({"repo": "o/r", "commit": "c", "entries": [BARE]})["md/entries/ab8a9d6ab6357ff8.md"]


def _search() -> str:
    from output.site_search import search_index

    return str(search_index([BARE], "0.1")["entries"][BARE["id"]]["template"])


@pytest.mark.parametrize("render", [_check_text, _markdown, _search], ids=["check", "markdown", "site-search"])
def test_no_entry_id_as_message(render):
    text = render()
    assert SAID in text
    assert f"AssertionError: {BARE['id']}" not in text
