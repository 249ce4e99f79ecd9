"""The target's argument parser rebuilt from its flag model: argparse's own refusals."""
from __future__ import annotations

import textwrap

import pytest

from analyzers.cli_parser import refusal
from analyzers.flag_build import build_flag_model

FLAGS = build_flag_model({"p/args.py": textwrap.dedent('''
    def add_cli_args(parser):
        parser.add_argument("--model-path", "--model", type=str, required=True)
        parser.add_argument("--tp-size", "--tensor-parallel-size", type=int, default=1)
        parser.add_argument("--mem-fraction", type=float, default=None)
        parser.add_argument("--enable-lora", action="store_true")
        parser.add_argument("--lora-paths", type=str, nargs="+", default=None)
        parser.add_argument("--speculative-algorithm", type=str, choices=["EAGLE", "EAGLE3", "NGRAM"])
        parser.add_argument("--enable-dp-attention", action=DeprecatedStoreTrueAction, nargs=0)
        parser.add_argument("--cache", action=argparse.BooleanOptionalAction, default=True)
        parser.add_argument("--mm-config", type=json.loads, default=None)
''')})


@pytest.mark.parametrize(("argv", "message", "suggestion"), [
    (["--model-path", "m"], None, None),
    (["--model=m", "--tensor-parallel-size", "2", "--mem-fraction", "0.5"], None, None),  # = form, alias
    (["--model-path", "m", "--tp", "2"], None, None),  # a prefix argparse accepts
    (["--model-path", "m", "--no-cache", "--lora-paths", "a", "b"], None, None),
    (["--model-path", "m", "--enable-dp-attention"], None, None),  # a custom action taking no words
    (["--model-path", "m", "--enable-dp-attention", "true"], "unrecognized arguments: true", None),
    (["--model-path", "m", "--tp-szie", "2"], "unrecognized arguments: --tp-szie 2", "--tp-size"),
    (["--model-path", "m", "--tp-size", "x"],
     "argument --tp-size/--tensor-parallel-size: invalid int value: 'x'", None),
    (["--model-path", "m", "--speculative-algorithm", "EAGEL"],
     "argument --speculative-algorithm: invalid choice: 'EAGEL' (choose from 'EAGLE', 'EAGLE3', 'NGRAM')", "EAGLE"),
    (["--tp-size", "2"], "the following arguments are required: --model-path/--model", None),
    (["--model-path", "m", "--lora-paths"], "argument --lora-paths: expected at least one argument", None),
    (["--model-path", "m", "--enable-lora=1"], "argument --enable-lora: ignored explicit argument '1'", None),
    (["--model-path", "m", "--mm-config", '{"image": {}}'], None, None),
    (["--model-path", "m", "--mm-config", "value"], "argument --mm-config: invalid loads value: 'value'", None),
])
def test_a_command_line_is_refused_as_argparse_refuses_it(argv, message, suggestion):
    found = refusal(FLAGS, argv)
    assert (found.message if found else None, found.suggestion if found else None) == (message, suggestion)


def test_the_refusal_reads_as_one_line_with_its_suggestion():
    found = refusal(FLAGS, ["--model-path", "m", "--tp-szie", "2"])
    assert found is not None and found.text() == "unrecognized arguments: --tp-szie 2 (did you mean --tp-size?)"
