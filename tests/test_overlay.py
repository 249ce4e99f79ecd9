"""Curated overlay: applied when written for this entry, flagged stale when the entry changed."""
from __future__ import annotations

import pytest

from analyzers.entries import Entry, Trigger
from analyzers.overlay import OverlayError, apply_overlay, entry_fingerprint, load_overlay, parse_overlay
from analyzers.solution import Solution
from extractor.ir import FALSE, TRUE
from extractor.records import RaiseSite, SiteKind
from extractor.templates import parse_template

ID = "0123456789abcdef"


def make(template="port must be > 0", trigger_text="t", expr=None):
    site = RaiseSite("p.py", 3, "check", SiteKind.RAISE, "ValueError", parse_template(template), ())
    trigger = Trigger(TRUE if expr is None else expr, trigger_text, (), (), (), ())
    return Entry(ID, site, "u", 1, "", trigger, (), meaning="derived", solutions=(Solution("derived fix"),))


FP = entry_fingerprint(make())


@pytest.mark.parametrize(
    ("entry", "item", "meaning", "solutions", "status"),
    [
        (make(), {"fingerprint": FP, "meaning": "curated"}, "curated", ("derived fix",), "applied"),
        (make(), {"fingerprint": FP, "solutions": ["a"], "add_solutions": ["b"]}, "derived", ("a", "b"), "applied"),
        (make(), {"fingerprint": FP, "add_solutions": "c"}, "derived", ("derived fix", "c"), "applied"),
        # the template changed: the curated text is not applied
        (make(template="port must be >= 0"), {"fingerprint": FP, "meaning": "curated"}, "derived",
         ("derived fix",), "stale"),
        # the condition changed
        (make(expr=FALSE), {"fingerprint": FP, "meaning": "curated"}, "derived",
         ("derived fix",), "stale"),
    ],
)
def test_apply(entry, item, meaning, solutions, status):
    (out,), notes = apply_overlay([entry], parse_overlay({ID: item}))
    texts = tuple(s.text for s in out.solutions)
    assert (out.meaning, texts, out.extra["overlay"]["status"], notes) == (meaning, solutions, status, [])


def test_stale_item_is_kept_for_review():
    (out,), _ = apply_overlay([make(template="other")], parse_overlay({ID: {"fingerprint": FP, "notes": ["n"]}}))
    assert out.extra["overlay"] == {"status": "stale", "written_for": FP, "notes": ["n"]}
    assert out.extra["fingerprint"] != FP


def test_fingerprint_ignores_rendering_and_position():
    assert entry_fingerprint(make(trigger_text="reworded")) == FP


def test_every_entry_gets_its_fingerprint_and_unknown_ids_are_reported():
    (out,), notes = apply_overlay([make()], parse_overlay({"fedcba9876543210": {"fingerprint": FP}}))
    assert out.extra == {"fingerprint": FP}
    assert notes == ["overlay: no entry fedcba9876543210"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- a\n- b\n", "expected a mapping of entry id"),
        ("nothex: {fingerprint: 0123456789abcdef}\n", "not an entry id"),
        (f"{ID}: {{meaning: x}}\n", "fingerprint missing"),
        (f"{ID}: {{fingerprint: {FP}, colour: red}}\n", "unknown key 'colour'"),
        (f"{ID}: {{fingerprint: {FP}, solutions: [1]}}\n", "expected a list of strings"),
        (f"{ID}: [unclosed\n", "not valid YAML at line"),
    ],
)
def test_bad_files(tmp_path, text, message):
    path = tmp_path / "overlay.yaml"
    path.write_text(text)
    with pytest.raises(OverlayError, match=message):
        load_overlay(path)


def test_missing_file(tmp_path):
    with pytest.raises(OverlayError, match="cannot read overlay"):
        load_overlay(tmp_path / "nope.yaml")
