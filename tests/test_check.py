"""`errcat check`'s verdict on one command line: refused, fails (with fixes), undecided, ok."""
from __future__ import annotations

import textwrap
from typing import Any

import pytest

from analyzers.argv import launch_of_argv
from analyzers.check import FAILS, REFUSED, Checked, check_launch
from analyzers.check_report import check_report
from analyzers.eval_model import Model
from analyzers.example_check import ExampleJudge
from analyzers.examples import Examples
from analyzers.first_error import OK, UNDECIDED, Check, Pipeline
from analyzers.flag_build import build_flag_model
from analyzers.platform_facts import Stated
from analyzers.rules import Rule
from analyzers.solution import Change
from extractor.ir import Compare, Const, Ref, RefKind, Truthy, conj
from extractor.profile import ExampleRules
from extractor.real_profile import Platform, RealProfile
from output.check_text import check_text

FLAGS = build_flag_model({"p/args.py": textwrap.dedent('''
    def add_cli_args(parser):
        parser.add_argument("--model-path", type=str, required=True)
        parser.add_argument("--device", type=str, default=None)
        parser.add_argument("--tp-size", type=int, default=1)
        parser.add_argument("--page-size", type=int, default=None)
        parser.add_argument("--enable-lora", action="store_true")
        parser.add_argument("--enable-spec", action="store_true")
        parser.add_argument("--old-spec", action="store_true", help="Deprecated: use --enable-spec.")
''')})
TP = Ref(RefKind.FLAG, "tp_size", "cfg.tp_size")
PAGE = Ref(RefKind.FLAG, "page_size", "cfg.page_size")
LORA = Ref(RefKind.FLAG, "enable_lora", "cfg.enable_lora")
SPEC = Ref(RefKind.FLAG, "enable_spec", "cfg.enable_spec")
HIP = Ref(RefKind.PLATFORM, "is_hip", "is_hip()")
EXAMPLES = Examples(ExampleRules(model="model_path"))
REAL = RealProfile("pkg", default_model="Llama", model_configs=(("Llama", "{}"),))
GENERIC = Platform("generic", ("--device", "cuda"), False, absent=(("device", ("npu",)),))
# LoRA with speculative decoding fails; then a tensor-parallel width over 4 fails
LORA_SPEC = Check("lora", "a.py", 1, "hook", conj([Truthy(LORA), Truthy(SPEC)]), 1)
BIG_TP = Check("tp", "a.py", 2, "hook", Compare(">", TP, Const(4)), 2)
ON_HIP = Check("hip", "a.py", 3, "hook", conj([Truthy(HIP), Truthy(LORA)]), 3)
PAGE_RULE = Rule("page_size", Const(1), Compare("is", PAGE, Const(None)))  # the program fills the page size
ENTRIES = {"lora": {"id": "lora", "exception": "ValueError", "template": "LoRA with tp={cfg.tp_size} and spec",
                    "source": {"path": "a.py", "line": 1}, "trigger": {"text": "lora and spec"}},
           "tp": {"id": "tp", "exception": "ValueError", "template": "tp too big",
                  "source": {"path": "a.py", "line": 2}}}


def _judge(*checks: Check, platform: Platform = GENERIC) -> ExampleJudge:
    pipeline = Pipeline(checks, Model(FLAGS, (PAGE_RULE,), EXAMPLES))
    stated = Stated.of(pipeline.conditions(), FLAGS, platform, REAL, EXAMPLES)
    return ExampleJudge(pipeline, stated, FLAGS, "serve")


def _check(argv: str, *checks: Check, platform: Platform = GENERIC) -> Checked:
    words = ["--model-path", "<model>", *argv.split()]
    return check_launch(_judge(*checks, platform=platform), words, launch_of_argv(words, FLAGS))


def test_a_command_argparse_refuses_goes_no_further():
    found = _check("--tp-size x", LORA_SPEC)
    assert found.status == REFUSED and found.refusal is not None and "invalid int value" in found.refusal.message


def test_a_failing_command_gets_each_error_on_the_way_and_the_change_after_which_it_works():
    found = _check("--enable-lora --enable-spec --tp-size 8", LORA_SPEC, BIG_TP)
    assert found.status == FAILS and [s.entry for s in found.steps] == ["lora", "tp"]
    assert found.fixed is not None and found.steps[-1].then is not None and found.steps[-1].then.status == OK
    assert found.fixed.flags.get("tp_size", 1) <= 4 and not (found.fixed.flags.get("enable_lora")
                                                              and found.fixed.flags.get("enable_spec"))


def test_a_fix_never_changes_the_model():
    found = _check("--enable-lora --enable-spec", LORA_SPEC)
    assert found.fixed is not None and found.fixed.flags["model_path"] == "<model>"


def test_a_command_a_platform_fact_decides_is_undecided_with_that_fact():
    found = _check("--enable-lora", ON_HIP, platform=Platform("somewhere", ("--device", "cuda"), None))
    assert (found.status, found.deciding, found.may_fire) == (UNDECIDED, ("platform:is_hip",), ("hip",))


def test_a_command_needing_another_machine_is_undecided():
    found = _check("--device npu", LORA_SPEC)
    assert found.status == UNDECIDED and found.deciding == ('platform:device="npu"',)


def test_a_working_command_lists_what_the_program_adjusts():
    found = _check("--tp-size 2", LORA_SPEC, BIG_TP)
    assert found.status == OK and [(a.dest, a.before, a.after) for a in found.adjusted] == [("page_size", None, 1)]


@pytest.mark.parametrize(("argv", "words"), [
    ("--enable-lora --enable-spec --tp-size 8", ["✗ will fail", "1. ValueError: LoRA with tp=8 and spec",
                                                 "2. ValueError: tp too big", "Predicted to work after these"]),
    ("--tp-size 2", ["✓ ok", "--page-size: null -> 1"]),
    # what "ok" covers: argument validation, not memory fit, model shapes or runtime errors
    ("--tp-size 2", ["argument validation passes, the model left open", "Not checked: whether the model fits"]),
    ("--tp-szie 2", ["refused by the argument parser", "(did you mean --tp-size?)"]),
])
def test_the_report_says_it_in_the_users_terms(argv, words):
    judge = _judge(LORA_SPEC, BIG_TP)
    argv_words = ["--model-path", "<model>", *argv.split()]
    checked = check_launch(judge, argv_words, launch_of_argv(argv_words, FLAGS))
    report = check_report(checked, judge, ENTRIES, ["serve"], release="1.0", platform="generic")
    text = check_text(report)
    assert all(w in text for w in words), text
    assert "\033[" not in text and "\033[" in check_text(report, colour=True)


def test_a_fix_is_given_as_options_dropped_and_set_with_the_command_after_it():
    judge = _judge(LORA_SPEC, BIG_TP)
    argv = ["--model-path", "/m", "--enable-lora", "--enable-spec"]
    checked = check_launch(judge, argv, launch_of_argv(argv, FLAGS))
    report = check_report(checked, judge, ENTRIES, ["serve"], release="1.0", platform="generic")
    fix = report["errors"][0]["fix"]
    assert fix["drop"] in (["--enable-lora"], ["--enable-spec"]) and fix["set"] == []
    assert fix["command"].startswith("serve --model-path /m") and report["fixed_command"] == fix["command"]


@pytest.mark.parametrize(("advice", "fixed"), [
    # the entry's own advice that gets past it is the fix, not the search's smallest change
    ([Change(set=(("--tp-size", "2"),))], {"enable_lora": True, "enable_spec": True, "tp_size": 2}),
    # advice that does not get past it (or changes nothing) is passed over
    ([Change(set=(("--page-size", "4"),)), Change(drop=("--unknown",))], None),
])
def test_a_fix_is_the_entrys_own_advice_where_it_works(advice, fixed):
    tp_and_lora = Check("lora", "a.py", 1, "hook", conj([Truthy(LORA), Compare("<", TP, Const(2))]), 1)
    words = ["--model-path", "<model>", "--enable-lora", "--enable-spec"]
    found = check_launch(_judge(tp_and_lora), words, launch_of_argv(words, FLAGS), lambda eid: advice)
    assert found.fixed is not None
    given = {k: v for k, v in found.fixed.flags.items() if k in ("enable_lora", "enable_spec", "tp_size")}
    if fixed is not None:
        assert given == fixed
    else:
        assert not given.get("enable_lora") or given.get("tp_size", 1) >= 2


def test_unrelated_checks_stay_quiet():
    assert _check("", LORA_SPEC, BIG_TP).status == OK


def test_a_deprecated_option_is_noted_with_what_replaces_it():
    judge = _judge(LORA_SPEC)
    argv = ["--model-path", "<model>", "--old-spec"]
    report = check_report(check_launch(judge, argv, launch_of_argv(argv, FLAGS)), judge, ENTRIES, ["serve"],
                          release="1.0", platform="generic")
    assert report["deprecated"] == [{"option": "--old-spec", "replacement": "--enable-spec"}]
    assert "note: --old-spec is deprecated (use --enable-spec)" in check_text(report)


def test_an_error_of_a_table_row_is_shown_in_that_rows_words():
    """Issue 37: `check` shows the row the launch meets: its message and its meaning."""
    rows = [{"template": "LoRA with spec: row about tp", "meaning": "row tp meaning",
             "trigger": {"text": "tp > 4", "expr": Compare(">", TP, Const(4)).as_dict()}},
            {"template": "LoRA with spec: row about pages", "meaning": "row page meaning",
             "trigger": {"text": "page", "expr": Truthy(PAGE).as_dict()}}]
    entries: dict[str, Any] = {**ENTRIES, "lora": {**ENTRIES["lora"], "meaning": "entry meaning", "variants": rows}}
    judge = _judge(LORA_SPEC)
    argv = ["--model-path", "/m", "--enable-lora", "--enable-spec", "--tp-size", "8"]
    report = check_report(check_launch(judge, argv, launch_of_argv(argv, FLAGS)), judge, entries, ["serve"],
                          release="1.0", platform="generic")
    error = report["errors"][0]
    assert (error["message"], error["meaning"]) == ("LoRA with spec: row about tp", "row tp meaning")
