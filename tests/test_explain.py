"""`errcat explain`: the errors in a pasted text, and the entry (and row) each one is."""
from __future__ import annotations

import pytest

from analyzers.explain import ErrorText, MessageIndex, best, error_texts, explained

TRACEBACK = """Traceback (most recent call last):
  File "/venv/lib/python3.11/site-packages/sglang/launch_server.py", line 9, in <module>
    main()
  File "/venv/lib/python3.11/site-packages/sglang/srt/arg_groups/lora_hook.py", line 300, in check
    raise ValueError(
ValueError: LoRA with speculative decoding does not support --speculative-adaptive: static draft.
"""


@pytest.mark.parametrize(("text", "found"), [
    ("--tp-size must be positive", [ErrorText("--tp-size must be positive")]),  # a bare message
    (TRACEBACK, [ErrorText("LoRA with speculative decoding does not support --speculative-adaptive: static draft.",
                           "ValueError", "/venv/lib/python3.11/site-packages/sglang/srt/arg_groups/lora_hook.py",
                           300)]),
    # a multi-line assert message runs to the next blank line; its trailing spaces are kept
    ("AssertionError: Invalid quantization 'awq'. \nFlashInfer supports only: 'fp8'.\n\nmore log",
     [ErrorText("Invalid quantization 'awq'. \nFlashInfer supports only: 'fp8'.", "AssertionError")]),
    # a log: the last error first (the one that stopped the launch)
    ("[info] starting\nsglang.errors.WatermarkConfigError: bad key\n[info] retry\nValueError: too big\n",
     [ErrorText("too big", "ValueError"), ErrorText("bad key", "WatermarkConfigError")]),
    ("", []),
])
def test_the_errors_of_a_text(text, found):
    assert error_texts(text) == found


def _entry(id_: str, template: str, line: int = 1, exception: str = "ValueError", rows: tuple[str, ...] = (),
           path: str = "python/sglang/srt/arg_groups/lora_hook.py") -> dict:
    return {"id": id_, "exception": exception, "template": template,
            "source": {"path": path, "line": line}, "excerpt": {"start_line": line, "code": "raise ValueError(\n  x)"},
            "variants": [{"template": t, "values": {"reason": t}} for t in rows]}


INDEX = MessageIndex([
    _entry("lora", "LoRA with speculative decoding {reason}.", 299,
           rows=("LoRA with speculative decoding does not support --speculative-adaptive: static draft.",
                 "LoRA with speculative decoding does not support SGLANG_X={mode!r}: no.")),
    _entry("tp", "--tp-size must be positive, got {cfg.tp_size}", 10, path="python/sglang/srt/a.py"),
    _entry("tp-again", "--tp-size must be positive, got {cfg.tp_size}", 20, path="python/sglang/srt/b.py"),
    _entry("any", "{reason}", 30, path="python/sglang/srt/c.py"),
    _entry("own", "{error}", 40, exception="WatermarkConfigError", path="python/sglang/srt/d.py"),
])


@pytest.mark.parametrize(("error", "entry", "row"), [
    (error_texts(TRACEBACK)[0], "lora", 0),  # its table row, not only the entry's general template
    (ErrorText("LoRA with speculative decoding does not support SGLANG_X='cap': no."), "lora", 1),
    (ErrorText("--tp-size must be positive, got 0", "ValueError", "/v/site-packages/sglang/srt/b.py", 21), "tp-again",
     None),  # the traceback's line (inside the statement) tells two sites of one message apart
    (ErrorText("bad key", "WatermarkConfigError"), "own", None),  # a message-only template of its own class
])
def test_the_entry_and_row_a_message_is(error, entry, row):
    found = best(INDEX.find(error))
    assert found is not None and (found.entry, found.row) == (entry, row)


def test_the_raise_that_wrote_the_words_comes_before_the_handler_that_passed_them_on():
    """config.py:98 ``raise WatermarkConfigError(str(error)) from error`` named by the traceback,
    the words ``parse_watermark_key``'s at config.py:46."""
    path = "python/p/config.py"
    index = MessageIndex([_entry("inner", "watermark key must be a hex string", 46, path=path),
                          _entry("handler", "{<caught exception>}", 98, "WatermarkConfigError", path=path)])
    found = index.find(ErrorText("watermark key must be a hex string", "WatermarkConfigError",
                                 "/v/site-packages/p/config.py", 98))
    assert [m.entry for m in found] == ["inner", "handler"]


def test_a_row_that_renders_the_message_is_its_entrys_only_match():
    found = INDEX.find(ErrorText("LoRA with speculative decoding does not support SGLANG_X='cap': no."))
    assert [(m.entry, m.row) for m in found if m.entry == "lora"] == [("lora", 1)]


def test_rows_repeating_their_entrys_message_do_not_outrank_another_site_of_it():
    """Rows per call-site binding that keep the message say nothing more: two sites of
    "Torch not compiled with CUDA enabled" tie on the message alone."""
    index = MessageIndex([_entry("query-a", "no CUDA here", 5, rows=("no CUDA here", "no CUDA here")),
                          _entry("query-b", "no CUDA here", 9, path="python/sglang/srt/b.py")])
    found = index.find(ErrorText("no CUDA here", "ValueError"))
    assert {m.entry for m in found if m.score == found[0].score} == {"query-a", "query-b"}


def test_the_values_of_the_holes_are_read_from_the_message():
    found = best(INDEX.find(ErrorText("--tp-size must be positive, got -1")))
    assert found is not None and dict(found.holes) == {"{cfg.tp_size}": "-1"}


def test_a_message_no_template_renders_gets_the_closest_marked_not_exact():
    found = INDEX.find(ErrorText("--tp-size must be a power of two", "ValueError"))
    assert found and not found[0].exact and found[0].entry in ("tp", "tp-again") and best(found) is None


def test_a_template_that_is_only_a_hole_does_not_claim_any_message():
    assert best(INDEX.find(ErrorText("the flux capacitor is empty", "ValueError"))) is None


def test_a_lookup_matches_only_the_templates_sharing_its_words():
    tried, _ = INDEX.candidates(ErrorText("--tp-size must be positive, got 0"))
    assert {INDEX.targets[i].entry for i in tried} == {"tp", "tp-again", "any", "own"}  # + the wordless ones


def test_trailing_spaces_lost_in_a_copy_still_match():
    index = MessageIndex([_entry("q", "Invalid quantization {q!r}. \nFlashInfer supports only: 'fp8'.")])
    found = best(index.find(ErrorText("Invalid quantization 'awq'.\nFlashInfer supports only: 'fp8'.")))
    assert found is not None and found.entry == "q"


def test_each_error_of_a_text_is_explained():
    assert [(e.message, bool(best(m))) for e, m in explained(INDEX, "ValueError: x\nValueError: --tp-size must be "
                                                                     "positive, got 3")] == [
        ("--tp-size must be positive, got 3", True), ("x", False)]


def test_a_rows_message_is_explained_with_that_rows_meaning_and_solutions():
    """Issue 37: every consumer shows a table row's own words, not its entry's general ones."""
    from output.explain_text import explain_report

    entry = {**_entry("lora", "LoRA with speculative decoding {reason}.", 299,
                      rows=("LoRA with speculative decoding does not support --speculative-adaptive: static draft.",)),
             "meaning": "entry meaning", "solutions": [{"text": "Do not pass `--enable-lora`."}]}
    entry["variants"][0].update(meaning="row meaning", solutions=[{"text": "Do not pass `--speculative-adaptive`."}])
    error = error_texts(TRACEBACK)[0]
    report = explain_report([(error, MessageIndex([entry]).find(error))], {"lora": entry}, "0.5.23")
    (match, *_) = report["errors"][0]["matches"]
    assert (match["meaning"], match["solutions"]) == ("row meaning", ["Do not pass `--speculative-adaptive`."])


ASSERT_ENTRIES = [
    _entry("bare-a", "", 5, exception="AssertionError", path="python/sglang/srt/a.py"),
    _entry("bare-b", "", 9, exception="AssertionError", path="python/sglang/srt/b.py"),
    _entry("helper", "{exc}", 7, exception="AssertionError", path="python/sglang/srt/c.py"),
    _entry("value", "{reason}", 3, path="python/sglang/srt/d.py"),
    _entry("topology", "Invalid topology: {detail}.", 4, path="python/sglang/srt/f.py"),  # the helper's own raise
    _entry("tp", "--tp-size must be positive", 11, exception="AssertionError", path="python/sglang/srt/e.py"),
]
ASSERTS = MessageIndex(ASSERT_ENTRIES)


@pytest.mark.parametrize(("error", "first"), [
    # a bare assert: every message-less assert (and a helper's message, here empty) ties; the frame picks one
    (ErrorText("", "AssertionError"), {"bare-a", "bare-b", "helper"}),
    (ErrorText("", "AssertionError", "/v/site-packages/sglang/srt/b.py", 9), {"bare-b"}),
    # a message a helper built and the site asserts: only-a-hole templates of that type
    (ErrorText("Invalid attention topology: tp_size=0.", "AssertionError"), {"helper"}),
    (ErrorText("Invalid topology: tp_size=0.", "AssertionError"), {"helper"}),  # asserted, not the ValueError
    (ErrorText("Invalid topology: tp_size=0.", "ValueError"), {"topology"}),
    (ErrorText("--tp-size must be positive", "AssertionError"), {"tp"}),  # a template of its own text wins
    (ErrorText("anything at all", "RuntimeError"), set()),  # no template of that type: none
])
def test_message_less_and_helper_built_assertions_are_found_by_their_type(error, first):
    found = ASSERTS.find(error)
    top = [m.entry for m in found if m.exact and m.score == found[0].score]
    assert set(top) == first


@pytest.mark.parametrize(("text", "said"), [
    ("AssertionError: ", "Tied first with 2 other(s): the text alone does not say which"),
    ("AssertionError: --tp-size must be positive", "entry tp (AssertionError)"),
])
def test_a_tie_is_said_to_be_one(text, said):
    from output.explain_text import explain_report, render_explanation

    report = explain_report(explained(ASSERTS, text), {e["id"]: e for e in ASSERT_ENTRIES}, "0.5.23")
    assert said in render_explanation(report)
