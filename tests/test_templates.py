"""Templates: published text (str.format escaping), parsing it back, matchers, filling holes."""
from __future__ import annotations

import re

import pytest

from extractor.templates import Hole, Template, any_of, parse_template

H = Hole


@pytest.mark.parametrize(
    "parts, text",
    [
        (("plain",), "plain"),
        (("requires --kv-canary in {log, raise}",), "requires --kv-canary in {{log, raise}}"),
        (("got ", H("cfg.speculative_algorithm"), "."), "got {cfg.speculative_algorithm}."),
        ((H("x", "r"),), "{x!r}"),
        ((H("v", None, ".2f"),), "{v:.2f}"),
        ((H("v", "s", "<{width}"),), "{v!s:<{width}}"),
        (("}", H("x"), "{"), "}}{x}{{"),
        ((H("{1: 2}[k]"),), "{ {1: 2}[k]}"),  # a space, or "{{" would read as a brace
    ],
)
def test_text_doubles_literal_braces_and_shows_holes(parts: tuple, text: str) -> None:
    assert Template.of(*parts).text == text


def test_adjacent_literals_merge_and_empty_ones_vanish() -> None:
    assert Template.of("a", "", "b", H("x"), "") == Template.literal("ab") + Template.hole("x")


@pytest.mark.parametrize(
    "template",
    [
        Template.of("a {b} ", H("x"), " }"),
        Template.of(H("y", "r", ">{w}"), H("z", "a")),
        Template.of(H("v", None, "{width}.{prec}f"), H("x", "r", "^{w!r}")),
        Template.of(H('d["}"]'), " ", H("x[1:2]"), " ", H("a != b"), " ", H("f(a, b=1)", "s")),
        Template.of(H("{1: 2}[k]"), "{{"),
        Template.of(H("x", None, "'^10"), H("t", None, "%Y-%m-%d")),
        Template.of("(", H("a", "r"), ", 'b')"),
        Template.of(H("<caught exception>")),
        Template.literal(""),
    ],
)
def test_parse_template_reads_back_text(template: Template) -> None:
    assert parse_template(template.text) == template


@pytest.mark.parametrize(
    "template, message, values",
    [
        (Template.of("got ", H("x"), "."), "got 3.", {"{x}": "3"}),
        (Template.of("a.b", H("x")), "a.b(1)", {"{x}": "(1)"}),  # regex metacharacters are literal
        (Template.of(H("a"), "-", H("b")), "x-y-z", {"{a}": "x", "{b}": "y-z"}),
        (Template.of("line1\n", H("x")), "line1\nmulti\nline", {"{x}": "multi\nline"}),
        (Template.literal("{x}"), "{x}", {}),
    ],
)
def test_matcher_accepts_renderings_and_returns_hole_values(template: Template, message: str, values: dict) -> None:
    assert template.match(message) == values


@pytest.mark.parametrize(
    "template, message",
    [
        (Template.of("got ", H("x"), "."), "got 3"),  # trailing literal missing
        (Template.of("got ", H("x")), "Got 3"),
        (Template.literal("a.b"), "aXb"),
        (Template.literal("ab"), "abc"),  # anchored at the end
    ],
)
def test_matcher_rejects_other_text(template: Template, message: str) -> None:
    assert template.match(message) is None


@pytest.mark.parametrize(
    "hole, value, result",
    [
        (H("r"), Template.literal("x {y}"), "x {{y}}"),
        (H("r", "r"), Template.literal("it's"), '"it\'s"'),
        (H("r", "a"), Template.literal("é"), "'\\xe9'"),
        (H("r", None, ">4"), Template.literal("x"), "   x"),
        (H("r", "s", "<3"), Template.literal("x"), "x  "),
        (H("r", None, ".2f"), Template.literal("x"), "{r:.2f}"),  # Python would fail: keep the hole
        (H("r", None, ">{w}"), Template.literal("x"), "{r:>{w}}"),  # width unknown
        (H("r"), Template.of("a ", H("b")), "a {b}"),
        (H("r", "s"), Template.of("a ", H("b")), "a {b}"),
        (H("r", "r"), Template.of("a ", H("b")), "{r!r}"),
        (H("other"), Template.literal("x"), "{other}"),
    ],
)
def test_fill_renders_row_values_through_conversion_and_spec(hole: Hole, value: Template, result: str) -> None:
    filled = Template.of("<", hole, ">").fill({"r": value})
    assert filled.text == "<" + result + ">"


@pytest.mark.parametrize(("message", "matches"), [
    ("FlashInfer missing.", True),  # the plain row
    ("FlashInfer missing. Needs float16.", True),  # the row with the suffix
    ("FlashInfer missing. Something else.", False),
])
def test_an_entry_matcher_accepts_every_row(message, matches):
    rows = [Template(("FlashInfer missing. Needs float16.",)), Template(("FlashInfer missing.",))]
    assert (re.match(any_of(rows), message, re.DOTALL) is not None) is matches
