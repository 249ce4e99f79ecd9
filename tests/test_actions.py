"""analyzers.actions: a custom argparse action's checks run while the command line is
parsed, only for its options that the command line gives, on their values."""
from __future__ import annotations

import textwrap

import pytest

from analyzers.actions import action_options, bind_action_calls, given, reach_action_calls
from analyzers.eval_model import Model
from analyzers.evaluate import evaluate
from analyzers.first_error import Check, pipeline_order
from analyzers.flag_build import build_flag_model
from analyzers.kleene import Truth
from analyzers.launch import Launch
from analyzers.trigger import Renderer
from extractor.ir import TRUE, conj
from extractor.profile import load_profile
from extractor.records import MAYBE_REACHED, REACHED
from extractor.sites import extract_file

ACTIONS = textwrap.dedent('''
    import argparse

    class PathsAction(argparse.Action):
        def __call__(self, parser, namespace, values, option_string=None):
            if values:
                assert isinstance(values, list), "Expected a list of paths."
            setattr(namespace, self.dest, values)
''')
FLAGS = build_flag_model({"p/args.py": textwrap.dedent('''
    def add_cli_args(parser):
        parser.add_argument("--lora-paths", nargs="*", action=PathsAction, default=None)
        parser.add_argument("--tp-size", type=int, default=1)
        parser.add_argument("--enable-x", action=argparse.BooleanOptionalAction)
''')})
MODEL = Model(FLAGS)


def bound_site():
    fs = extract_file("p/actions.py", ACTIONS, load_profile("sglang"))
    (site,) = bind_action_calls(fs, action_options(FLAGS)).sites
    return site


def test_custom_actions_map_to_the_options_declared_with_them() -> None:
    assert action_options(FLAGS) == {"PathsAction": ("lora_paths",)}  # argparse's own actions are not custom


def test_the_values_parameter_is_the_option_and_the_call_needs_it_on_the_command_line() -> None:
    site = bound_site()
    text = Renderer.for_model(FLAGS).text(conj([g.expr for g in site.guards]))
    assert text == "`--lora-paths` is on the command line and `--lora-paths` is set and `--lora-paths` is not a list"


@pytest.mark.parametrize(("flags", "truth"), [
    ({}, Truth.FALSE),  # not on the command line: argparse never calls the action
    ({"lora_paths": ()}, Truth.FALSE),  # given with no value: `if values` is false
    ({"lora_paths": ("a=b",)}, Truth.FALSE),  # nargs="*" parses a list
])
def test_an_action_check_is_decided_by_the_command_line(flags, truth) -> None:
    site = bound_site()
    assert evaluate(conj([g.expr for g in site.guards]), Launch(flags), MODEL) is truth


def test_on_the_command_line_ignores_a_truthy_default() -> None:
    model = Model(build_flag_model({"p/args.py": 'def f(p):\n    p.add_argument("--x", default="on", action=A)\n'}))
    assert evaluate(given("x"), Launch(), model) is Truth.FALSE
    assert evaluate(given("x"), Launch({"x": "on"}), model) is Truth.TRUE


def test_an_actions_call_is_reached_and_checked_while_parsing() -> None:
    reach = reach_action_calls({("p/actions.py", "PathsAction.__call__"): MAYBE_REACHED,
                                ("p/hook.py", "other"): MAYBE_REACHED}, action_options(FLAGS))
    assert reach == {("p/actions.py", "PathsAction.__call__"): REACHED, ("p/hook.py", "other"): MAYBE_REACHED}
    hook = Check("h", "a.py", 1, "prepare_server_args", TRUE)
    parse = Check("a", "z.py", 9, "PathsAction.__call__", conj([given("lora_paths"), TRUE]))
    assert [c.id for c in pipeline_order([hook, parse], ("prepare_server_args", "check_server_args"))] == ["a", "h"]
