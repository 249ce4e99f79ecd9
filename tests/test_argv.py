"""A command line read as a launch: each option's words as its declaration takes them."""
from __future__ import annotations

import pytest

from analyzers.argv import launch_of_argv
from analyzers.flag_build import build_flag_model
from analyzers.launch import flag_words

FLAGS = build_flag_model({
    "p/arg_groups/arg_utils.py": "from typing import Annotated\nA = Annotated\nclass Arg: pass\n",
    "p/arg_groups/fields/x.py": (
        "from typing import List, Optional\nfrom p.arg_groups.arg_utils import A, Arg\nclass X:\n"
        "    sidecar_args: A[Optional[List[str]], Arg(help='JSON array', type_parser=json_list_type)] = None\n"
        "    paths: A[Optional[List[str]], Arg(help='paths')] = None\n"
        "    tp_size: A[int, Arg(help='tp')] = 1\n"
        "    mm_config: A[Optional[Dict[str, Any]], Arg(help='config', type_parser=json.loads)] = None\n")})


@pytest.mark.parametrize(("argv", "dest", "value"), [
    (["--tp-size", "2"], "tp_size", 2),
    (["--tp-size", "two"], "tp_size", "two"),  # not its type: text, for the real program to refuse
    (["--paths", "a", "b"], "paths", ("a", "b")),  # nargs "+": the words up to the next option
    # a list field whose own parser reads one word: JSON text is the JSON value, whatever it is
    (["--sidecar-args", '["a", "b"]'], "sidecar_args", ("a", "b")),
    (["--sidecar-args", '{"key": "value"}'], "sidecar_args", {"key": "value"}),
    (["--sidecar-args", "word"], "sidecar_args", "word"),
])
def test_an_option_takes_its_words_as_its_declaration_reads_them(argv, dest, value):
    assert launch_of_argv(argv, FLAGS).flags[dest] == value


@pytest.mark.parametrize(("dest", "value", "words"), [
    ("paths", ("a", "b"), ["--paths", "a", "b"]),
    ("sidecar_args", ("a", "b"), ["--sidecar-args", '\'["a", "b"]\'']),  # one word of JSON, quoted for a shell
    ("sidecar_args", (), ["--sidecar-args", "'[]'"]),
    # a mapping option whose parser reads JSON, given a list (to fail its own check): still one word of JSON
    ("mm_config", ("value",), ["--mm-config", '\'["value"]\'']),
])
def test_a_list_is_written_as_its_option_reads_it(dest, value, words):
    assert flag_words(dest, value, FLAGS.by_dest(dest)) == words
