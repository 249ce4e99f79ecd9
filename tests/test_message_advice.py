"""The message's own advice as changes: "Disable --x", "use --y v", "set --z to 4",
"--a requires --b" (a switch), "set ENV_X=1", "unset ENV_Y"; judged like any solution."""
from __future__ import annotations

import textwrap

import pytest

from analyzers.flag_build import build_flag_model
from analyzers.message_advice import advised
from analyzers.solution import Change, Solution
from analyzers.solution_check import check_solutions
from extractor.ir import Truthy
from tests.test_example_check import LORA_SPEC, PP_FIRST, PREFIX, SPEC, _fix, _judge
from tests.test_solution_check import _entry

FLAGS = build_flag_model({"p/args.py": textwrap.dedent('''
    def add_cli_args(parser):
        parser.add_argument("--enable-dynamic-chunking", action="store_true")
        parser.add_argument("--enable-tbo", action="store_true")
        parser.add_argument("--enable-sbo", action="store_true")
        parser.add_argument("--mode", type=str, choices=["auto", "low_latency", "normal"], default="auto")
        parser.add_argument("--attn-dp-size", type=int, default=1)
        parser.add_argument("--chunked-prefill-size", type=int, default=None)
''')})


@pytest.mark.parametrize(("message", "said"), [
    ("Sharding does not support dynamic chunks: scratch overflows. Disable --enable-dynamic-chunking.",
     [("Do not pass `--enable-dynamic-chunking`, as the message advises.", {"drop": ["--enable-dynamic-chunking"]})]),
    ("No overlap hooks yet; disable --enable-tbo and --enable-sbo.",
     [("Pass neither `--enable-tbo` nor `--enable-sbo`, as the message advises.",
       {"drop": ["--enable-tbo", "--enable-sbo"]})]),
    ("--x requires --enable-tbo.", [("Pass `--enable-tbo`, as the message advises.", {"set": {"--enable-tbo": ""}})]),
    ("Only low-latency dispatch; set --mode to 'low_latency' or 'auto'.",
     [("Set `--mode` to low_latency, as the message advises.", {"set": {"--mode": "low_latency"}})]),
    ("MLA needs plain TP; set --attn-dp-size=1.",
     [("Set `--attn-dp-size` to 1, as the message advises.", {"set": {"--attn-dp-size": "1"}})]),
    ("Needs lazy compaction; unset SGLANG_DISABLE_LAZY.",
     [("Unset `SGLANG_DISABLE_LAZY`, as the message advises.", {"env": {"SGLANG_DISABLE_LAZY": None}})]),
    ("On ROCm, set FOO_USE_FLY=1.", [("Set `FOO_USE_FLY=1`, as the message advises.", {"env": {"FOO_USE_FLY": "1"}})]),
    # not advice: a rule with values, negated, a value the message fills in, words where a value would be,
    # a value outside the choices, an option the program does not declare, a switch "set" to a value
    ("--x requires --mode in {{auto, normal}}", []),
    ("You cannot use --enable-tbo with --y.", []),
    ("Set --chunked-prefill-size to {size}.", []),
    ("Set --chunked-prefill-size to a positive value.", []),
    ("Use --mode fast.", []),
    ("Disable --enable-unknown-thing.", []),
    ("Disable --attn-dp-size.", []),
])
def test_the_messages_advice_is_a_change(message, said):
    assert [(s.text, s.change.as_dict()) for s in advised(message, FLAGS) if s.change] == said


def test_the_messages_advice_is_judged_and_listed_once():
    drop_spec = Solution("Drop spec, as the message advises.", change=Change(drop=("--enable-spec",)))
    drop_pp = Solution("Drop pp, as the message advises.", change=Change(drop=("--pp-size",)))
    same = Solution("Do not pass `--enable-spec`.", Truthy(SPEC))  # the same change in the trigger's words
    fix = _fix("--enable-lora --enable-spec", "--enable-lora")
    (done,) = check_solutions([_entry((drop_spec, drop_pp, same), fix)], _judge(PP_FIRST, LORA_SPEC))
    assert [(s.text, s.command, s.predicted) for s in done.solutions] == [
        ("Drop spec, as the message advises.", f"{PREFIX} --enable-lora", "true"),
        ("Drop pp, as the message advises.", None, "unknown")]  # the command gives no --pp-size: nothing to try
