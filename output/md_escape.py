"""Catalog strings into GitHub Markdown: every string errcat did not write itself goes through here.

Catalog strings come from the analysed source (messages, file and function names,
values) or from a catalog file someone handed us, so they may hold Markdown or HTML
meant to inject headings, links or script. One function per context:

* `text`: plain text on one line (Markdown punctuation escaped, ``<`` and ``&`` as entities);
* `code`: an inline code span (fence longer than any backtick run inside);
* `prose`: errcat's own sentences, whose backtick spans are code and the rest text;
* `fence`: a fenced code block (fence longer than any run inside);
* `link` / `page`: a link to an http(s) URL / to another page of ours, else plain text;
* `row`: a table row (pipes escaped in every cell, including inside code spans).

Inline results never contain a line break: a newline in a file name cannot start a
heading. Rules follow cmark-gfm (GitHub's renderer), which the tests use as oracle.
"""
from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote, urlsplit

_BREAK = re.compile(r"[ \t]*[\r\n]+[ \t]*")
_SPACE = re.compile(r"\s+")
_RUN = re.compile(r"`+")
# Characters that start a block when they open a line: heading, list, quote, setext, list number.
_BLOCK_START = re.compile(r"^(?:[#+\-=>]|\d{1,9}(?=[.)]))")
_ENTITY = {"&": "&amp;", "<": "&lt;"}  # no tag, autolink or entity can start; ">" only quotes at a line start
_ESCAPED = set("\\`*[]|~")
_URL_SAFE = ":/?#@!$&'*+,;=%~-._"
_PAGE_SAFE = "/-._~"


def _one_line(value: Any) -> str:
    return _BREAK.sub(" ", str(value))


def text(value: Any, *, inline: bool = False) -> str:
    """Plain text on one line: no emphasis, link, HTML, table pipe or block can come out of it.

    ``inline=True`` when other text precedes it on its line (a heading, a table cell, a
    link label, after a code span): no block can start there, so a leading ``-`` or ``>``
    needs no backslash.
    """
    s = _SPACE.sub(" ", str(value)).strip()
    out: list[str] = []
    for i, ch in enumerate(s):
        if ch in _ENTITY:
            out.append(_ENTITY[ch])
        elif ch in _ESCAPED:
            out.append("\\" + ch)
        elif ch == "_" and not (0 < i < len(s) - 1 and s[i - 1].isalnum() and s[i + 1].isalnum()):
            out.append("\\_")  # an underscore inside a word never emphasises (tp_size stays readable)
        else:
            out.append(ch)
    escaped = "".join(out)
    start = None if inline else _BLOCK_START.match(escaped)
    if start:  # only the first character can open a block: the text never spans lines
        end = start.end()
        escaped = escaped[:end] + "\\" + escaped[end:] if start.group().isdigit() else "\\" + escaped
    return escaped


def code(value: Any, *, cell: bool = False) -> str:
    """An inline code span showing `value` verbatim (line breaks become spaces); "" for empty."""
    s = _one_line(value)
    if not s:
        return ""
    fence = "`" * (max((len(m) for m in _RUN.findall(s)), default=0) + 1)
    pad = " " if s[0] in "` " or s[-1] in "` " else ""  # a space each side is stripped again
    if cell:  # GitHub splits table rows before parsing code spans; it unescapes \| inside them
        s = s.replace("|", "\\|")
    return f"{fence}{pad}{s}{pad}{fence}"


def prose(value: Any, *, cell: bool = False, inline: bool = False) -> str:
    """errcat's sentences quoting code in backticks: the spans stay code, the rest is text.

    Spans are found as CommonMark finds them (a run of n backticks up to the next run of
    exactly n), so a docstring's double-backtick span reads as it did; unmatched backticks
    are text.
    """
    s = _one_line(value).strip()
    out: list[str] = []
    last = 0
    for start, end, content in _code_spans(s):
        if start > last:
            out.append(_part(s[last:start], inline=inline or cell or bool(out)))
        out.append(code(content, cell=cell))
        last = end
    if last < len(s):
        out.append(_part(s[last:], inline=inline or cell or bool(out)))
    return "".join(out).strip()


def _code_spans(s: str) -> list[tuple[int, int, str]]:
    """(start, end, content) of each code span of `s`, CommonMark's pairing of backtick runs."""
    runs = list(_RUN.finditer(s))
    by_length: dict[int, list[int]] = {}
    for k, m in enumerate(runs):
        by_length.setdefault(len(m.group()), []).append(k)
    spans: list[tuple[int, int, str]] = []
    k = 0
    while k < len(runs):
        same = by_length[len(runs[k].group())]
        after = bisect.bisect_right(same, k)
        if after == len(same):  # no closing run: these backticks are text
            k += 1
            continue
        opening, closing = runs[k], runs[same[after]]
        content = s[opening.end() : closing.start()]
        if len(content) > 1 and content[0] == content[-1] == " " and content.strip():
            content = content[1:-1]
        if content:
            spans.append((opening.start(), closing.end(), content))
        k = same[after] + 1
    return spans


def _part(s: str, *, inline: bool) -> str:
    """Text between code spans, keeping one space either side (it separates the text from the code)."""
    core = text(s, inline=inline)
    lead = " " if s[:1].isspace() else ""
    trail = " " if s[-1:].isspace() and core else ""
    return lead + core + trail


def fence(value: Any, lang: str = "") -> str:
    """A fenced code block showing `value` verbatim; no line of it can close the fence."""
    s = str(value).replace("\r\n", "\n").replace("\r", "\n").rstrip()
    ticks = "`" * max(3, max((len(m) for m in _RUN.findall(s)), default=0) + 1)
    info = re.sub(r"[^\w+.-]", "", lang)
    return f"{ticks}{info}\n{s}\n{ticks}"


def link(label: str, url: Any) -> str:
    """``[label](url)`` for an http(s) URL, else the label alone; `label` is Markdown already escaped."""
    raw = str(url or "").strip()
    try:
        parts = urlsplit(raw)
    except ValueError:
        return label
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return label
    return f"[{label}]({quote(raw, safe=_URL_SAFE)})"


def page(label: str, path: str) -> str:
    """A link to another page errcat wrote, by relative path (percent-encoded)."""
    return f"[{label}]({quote(str(path), safe=_PAGE_SAFE)})"


def row(cells: Iterable[str]) -> str:
    """A table row of cells already escaped for a cell (`text`, `code(cell=True)`, `prose(cell=True)`)."""
    return "| " + " | ".join(c.strip() or " " for c in cells) + " |"
