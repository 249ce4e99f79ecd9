"""Markdown injection: hostile catalog strings through the real renderers, checked with GitHub's parser.

Every string of a catalog (message, file, function, flag, solution, meaning, variant value,
URL...) is set to a hostile string; the page must have the shape it has when the string is a
plain word: the same headings, table cells, links and tags, no raw HTML, only http(s) links.
"""
from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options

from analyzers.diff import (
    Added,
    ChoicesChanged,
    DefaultChanged,
    Diff,
    EntryRef,
    ExceptionChanged,
    FlagAdded,
    FlagRef,
    FlagRemoved,
    FlagRenamed,
    MessageChanged,
    Moved,
    Removed,
    Side,
    TriggerChanged,
    VariantRow,
    VariantsChanged,
)
from analyzers.lineage import History, Lineage, Move, Rev, Step
from output import md_escape as md
from output.diff_formats import render_diff, render_history
from output.markdown import render_markdown

HOSTILE = {
    "html": "<script>alert(1)</script> ](javascript:x) |table| <img src=x onerror=alert(1)>",
    "heading": "a.py\n## INJECTED [a](javascript:alert(1))\n# two",
    "data-link": "[x](data:text/html;base64,PHNjcmlwdD4=) ![i](javascript:y)",
    "backticks": "``` ```` `` ` code `x",
    "pipes": "a | b || c \\| d \\",
    "crlf-table": "\r\n| a | b |\r\n|---|---|\r\n---\n===",
    "autolink": "<javascript:alert(1)> <a href='javascript:x'>y</a> &lt;b&gt;",
    "list-quote": "1. one\n- two\n> three\n    four",
    "emphasis": "*a* _b_ __c__ ~~d~~ tp_size",
}
BENIGN = "word"
ALLOWED_TAGS = {"h1", "h2", "h3", "p", "pre", "code", "table", "thead", "tbody", "tr", "th", "td", "ul", "ol",
                "li", "a", "strong", "blockquote"}


class _Shape(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.hrefs += [v or "" for k, v in attrs if k in ("href", "src")]


def html_of(text: str) -> str:
    """GitHub's renderer with raw HTML let through (so that any raw HTML shows)."""
    return cmarkgfm.markdown_to_html_with_extensions(
        text, options=Options.CMARK_OPT_UNSAFE, extensions=["table", "autolink", "strikethrough"])


def shape(text: str) -> tuple[list[str], list[str]]:
    parser = _Shape()
    parser.feed(html_of(text))
    return [t for t in parser.tags if t != "code"], parser.hrefs  # backticks may split spans: code is free


def outside_fences(text: str) -> list[str]:
    """The Markdown lines, code blocks left out (any line may be in a code block)."""
    lines, fence = [], ""
    for line in text.splitlines():
        if fence:
            fence = "" if re.fullmatch(rf"{fence}`*\s*", line) else fence
        elif m := re.match(r"(`{3,})[^`]*$", line):  # an info string never holds a backtick
            fence = m.group(1)
        else:
            lines.append(line)
    return lines


def headings(text: str) -> list[str]:
    return [line.split(" ", 1)[0] for line in outside_fences(text) if line.startswith("#")]


def table_widths(text: str) -> list[int]:
    return [len(re.findall(r"(?<!\\)\|", line)) for line in outside_fences(text) if line.startswith("|")]


def assert_same_shape(hostile: str, benign: str) -> None:
    assert "<script" not in html_of(hostile) and "<img" not in html_of(hostile)
    tags, hrefs = shape(hostile)
    assert set(tags) <= ALLOWED_TAGS, set(tags) - ALLOWED_TAGS
    assert tags == shape(benign)[0]
    assert all(h.startswith(("https://", "http://")) or re.fullmatch(r"[\w/.%-]+\.md", h) for h in hrefs), hrefs
    assert len(hrefs) == len(shape(benign)[1])
    assert headings(hostile) == headings(benign)
    assert table_widths(hostile) == table_widths(benign)


# ------------------------------------------------------------------ the catalog pages


def catalog(s: str) -> dict[str, Any]:
    def entry(id: str, url: str, **extra: Any) -> dict[str, Any]:
        data = {
            "id": id, "kind": "raise", "exception": f"{s}Error", "template": f"{s} {{value}} {s}",
            "source": {"path": f"pkg/{s}.py", "line": 3, "function": f"check_{s}", "url": url},
            "excerpt": {"code": f"raise ValueError({s!r})\n{s}"}, "meaning": f"{s} means `{s}` {s}",
            "trigger": {"text": f"`--{s}` is {s} and {s}", "flags": [f"--{s}"], "env": [f"ENV_{s}"]},
            "situations": [s, f"`{s}`"], "solutions": [s, f"Set `--{s}` to {s}."],
            "variants": [{"values": {s: s, "k": s}, "template": s, "trigger": {"text": f"{s} `{s}`", "flags": [s]},
                          "solutions": [s, s]}],
            "related": [], "fingerprint": s,
        }
        return {**data, **extra}

    first = entry("0" * 16, f"https://example.com/{s}", related=["1" * 16], example_fix={
        "before": f"serve {s}", "after": f"serve\n{s}", "solution": s, "verified": s, "predicted": s,
        "assuming": {"facts": [s, f"`{s}`"], "predicted": s}, "needs": [s], "undecided": [s, f"`{s}`"]},
        overlay={"status": "applied", "notes": [s, f"`{s}`"]})
    second = entry("1" * 16, f"javascript:{s}", example_fix={"note": s},
                   overlay={"status": "stale", "written_for": s})
    return {"repo": f"o/{s}", "commit": s, "entries": [first, second]}


@pytest.mark.parametrize("name", HOSTILE)
def test_catalog_pages_keep_their_shape(name):
    hostile, benign = render_markdown(catalog(HOSTILE[name])), render_markdown(catalog(BENIGN))
    assert hostile.keys() == benign.keys()
    for path in hostile:
        assert_same_shape(hostile[path], benign[path])


def test_entry_page_reads_well():
    page = render_markdown(catalog("tp_size"))["md/entries/" + "0" * 16 + ".md"]
    assert "Trigger: `--tp_size` is tp_size and tp_size" in page
    assert "[pkg/tp_size.py:3](https://example.com/tp_size)" in page


# ------------------------------------------------------------------ diffs and histories


def diff_of(s: str) -> Diff:
    a = EntryRef(s, f"pkg/{s}.py", 3, f"f_{s}", f"{s}Error", f"{s} {{x}}", f"https://e.com/{s}")
    b = EntryRef(s + "2", f"pkg/b{s}.py", 4, f"g_{s}", f"{s}Warning", f"{s} {{y}} {s}", None)
    flag = FlagRef(f"--{s}", "flag", s, f"args/{s}.py", 7)
    rows = (VariantRow(((s, s),), s),)
    return Diff(Side("o/r", s, None, s), Side("o/r", s, None, f"{s} new"), (
        Added(b), Removed(a), MessageChanged(a, b), TriggerChanged(a, b, s, f"`{s}` {s}", (s,), (f"--{s}",)),
        ExceptionChanged(a, b), Moved(a, b), VariantsChanged(a, b, rows, rows),
        FlagAdded(flag), FlagRemoved(flag), FlagRenamed(flag, flag, s),
        DefaultChanged(flag, s, [s]), ChoicesChanged(flag, [s, "a"], [s]), ChoicesChanged(flag, {"x": s}, s),
    ))


def history_of(s: str) -> History:
    rev = Rev(s, s, s)
    lineage = Lineage(s, s, None, f"{s} {{x}}", f"pkg/{s}.py", s, s, s, (s, s), (Move(s, s, s, s, s),), s, (s,))
    return History((rev, Rev(f"{s}2")), (Step(rev, 1, 1, 1, 1, 1, {s: 1}),), (lineage, lineage))


@pytest.mark.parametrize("name", HOSTILE)
def test_diff_markdown_keeps_its_shape(name):
    assert_same_shape(render_diff(diff_of(HOSTILE[name]), "markdown"), render_diff(diff_of(BENIGN), "markdown"))


@pytest.mark.parametrize("name", HOSTILE)
def test_history_markdown_keeps_its_shape(name):
    assert_same_shape(render_history(history_of(HOSTILE[name]), "markdown"),
                      render_history(history_of(BENIGN), "markdown"))


_COMMAND = re.compile(r"::(?:notice|warning) ([^:\r\n]*)::[^\r\n]*\n")


def command_keys(text: str) -> list[list[str]]:
    """Property names of each workflow command, as the runner splits them (on "," then the first "=")."""
    assert "".join(m.group(0) for m in _COMMAND.finditer(text)) == text  # nothing outside the commands
    return [[p.split("=", 1)[0] for p in m.group(1).split(",")] for m in _COMMAND.finditer(text)]


@pytest.mark.parametrize("name", HOSTILE)
def test_github_annotations_are_one_command_per_change(name):
    diff = diff_of(HOSTILE[name])
    keys = command_keys(render_diff(diff, "github"))
    assert len(keys) == len(diff.changes) and keys == command_keys(render_diff(diff_of(BENIGN), "github"))


def test_github_annotation_line_cannot_add_properties():
    flag = FlagRef("--x", "flag", "x", "a.py", "1,title=forged")  # type: ignore[arg-type]  # a catalog file may hold anything
    [keys] = command_keys(render_diff(Diff(Side(None, "a"), Side(None, "b"), (FlagAdded(flag),)), "github"))
    assert keys == ["file", "line", "title"]


# ------------------------------------------------------------------ the escaping functions


@pytest.mark.parametrize("value, expected", [
    ("plain words", "plain words"),
    ("tp_size > 1 & <b>", "tp_size > 1 &amp; &lt;b>"),
    ("> quote", "\\> quote"),
    ("_x_ *y* [a](b) |c| ~d~ `e`", "\\_x\\_ \\*y\\* \\[a\\](b) \\|c\\| \\~d\\~ \\`e\\`"),
    ("# h\n## i", "\\# h ## i"),
    ("- item", "\\- item"),
    ("12. item", "12\\. item"),
    ("  \tindented", "indented"),
])
def test_text(value, expected):
    assert md.text(value) == expected


@pytest.mark.parametrize("value, expected", [
    ("x", "`x`"),
    ("a `b` c", "``a `b` c``"),
    ("`a`` b", "``` `a`` b ```"),
    ("line\none", "`line one`"),
    ("a|b", "`a|b`"),
    ("", ""),
])
def test_code(value, expected):
    assert md.code(value) == expected


def test_code_in_a_table_cell_escapes_pipes():
    cell = md.code("a|b", cell=True)
    html = html_of(md.row(["h"]) + "\n|---|\n" + md.row([cell]))
    assert cell == "`a\\|b`" and "<td><code>a|b</code></td>" in html


@pytest.mark.parametrize("value, expected", [
    ("`--tp` is 2 and `x.y` < 1", "`--tp` is 2 and `x.y` &lt; 1"),
    ("`a` `b`", "`a` `b`"),
    ("unbalanced ` tick", "unbalanced \\` tick"),
    ("# `x`", "\\# `x`"),
])
def test_prose_keeps_code_spans_and_escapes_the_rest(value, expected):
    assert md.prose(value) == expected


@pytest.mark.parametrize("url, expected", [
    ("https://e.com/a b(c)", "[t](https://e.com/a%20b%28c%29)"),
    ("HTTP://e.com/", "[t](HTTP://e.com/)"),
    ("javascript:alert(1)", "t"),
    ("data:text/html,x", "t"),
    ("//e.com/x", "t"),
    ("", "t"),
    (None, "t"),
])
def test_only_http_links(url, expected):
    assert md.link("t", url) == expected


def test_fence_is_longer_than_any_run_inside():
    block = md.fence("a\n````\nb\r\n```", "python")
    assert block.startswith("`````python\n") and block.endswith("\n`````")
    assert "<pre><code" in html_of(block) and html_of(block).count("<pre>") == 1
