"""Values a person would pass: a flag that counts (a parallel size) gets 1, 2, 4, 8, and
0 or a negative size only where the error is about such a value."""
from __future__ import annotations

import textwrap

import pytest

from analyzers.advice import Context, example_fix, solutions
from analyzers.argv import launch_of_argv
from analyzers.candidate_values import NOT_GIVEN
from analyzers.counts import adds_nonpositive, count_values, person_values, positive_sizes
from analyzers.eval_model import Model
from analyzers.examples import Examples
from analyzers.flag_build import build_flag_model
from analyzers.launch import Launch, split_command
from analyzers.trigger import Renderer
from extractor.ir import And, Apply, Compare, Const, Expr, Ref, RefKind, Truthy
from extractor.profile import ExampleRules

FLAGS = build_flag_model({"p/args.py": textwrap.dedent('''
    def add_cli_args(parser):
        parser.add_argument("--model-path", type=str, required=True)
        parser.add_argument("--tp-size", type=int, default=1)
        parser.add_argument("--pp-size", type=int, default=1)
        parser.add_argument("--chunked-prefill-size", type=int, default=None)
        parser.add_argument("--enable-x", action="store_true")
''')})
EXAMPLES = Examples(ExampleRules(model="model_path", counts=("(tp|pp)_size",)))


def ref(name: str) -> Ref:
    return Ref(RefKind.FLAG, name, f"cfg.{name}")


TP, PP, CHUNK, X = (ref(n) for n in ("tp_size", "pp_size", "chunked_prefill_size", "enable_x"))


def model() -> Model:
    return Model(FLAGS, (), EXAMPLES)


def before_of(expr: Expr) -> dict:
    ctx = Context(model(), Renderer.for_model(FLAGS), "serve")
    fix = example_fix(expr, expr, solutions(expr, ctx), ctx)
    return dict(launch_of_argv(split_command(fix["before"], "serve").argv, FLAGS).flags)


@pytest.mark.parametrize("near, expected", [
    ([1, 2, 0, 2], [1, 2, 4, 8, 3, 0]),  # near `== 1`: the sizes a person passes, 0 last
    ([4, 5, 3, 8], [4, 5, 3, 8, 1, 2]),
    ([0, 1, -1, 0], [1, 2, 4, 8, 3, 0, -1]),
    ([0.5, 1.5], [1, 2, 4, 8, 3]),  # not an int: no size
])
def test_count_values_give_positive_sizes_first(near, expected):
    assert count_values(near) == expected


@pytest.mark.parametrize("dest, lit, expected", [
    # a positive size meets the condition: 0 and -1 would only get past another check
    ("pp_size", Compare("!=", PP, Const(1)), [1, 2, 8]),
    ("tp_size", Compare("!=", TP, PP), [1, 2, 8]),
    # the error is about such a value ("must be positive"): it stays
    ("pp_size", Compare("<", PP, Const(1)), [1, 2, 8, 0, -1]),
    # a flag that does not count keeps every value (-1 disables chunked prefill)
    ("chunked_prefill_size", Compare("!=", CHUNK, Const(1)), [1, 2, 8, 0, -1]),
])
def test_person_values_drop_non_positive_sizes_where_a_positive_one_does(dest, lit, expected):
    assert person_values(dest, [1, 2, 8, 0, -1], lit, Launch({}), model()) == expected


@pytest.mark.parametrize("expr, dest, expected", [
    (And((Truthy(X), Compare("!=", PP, Const(1)))), "pp_size", 2),
    (Compare("<", PP, Const(1)), "pp_size", 0),  # about that value
    (And((Truthy(X), Compare(">", TP, PP))), "tp_size", 2),
])
def test_an_example_gives_a_count_a_value_a_person_passes(expr, dest, expected):
    assert before_of(expr)[dest] == expected


@pytest.mark.parametrize("base, moved, adds", [
    ({"tp_size": 2}, {"tp_size": 0}, True),  # off another check by dividing by 0
    ({}, {"pp_size": -1}, True),
    ({"tp_size": 0}, {"tp_size": 0, "enable_x": True}, False),  # the launch gave it already
    ({}, {"chunked_prefill_size": -1}, False),  # a flag that does not count
    ({}, {"tp_size": 2}, False),
])
def test_a_move_giving_a_count_zero_or_less_is_told(base, moved, adds):
    assert adds_nonpositive(Launch(base), Launch(moved), model()) is adds


def test_a_solution_never_sets_a_count_to_zero():
    """``tp // pp >= 1`` made false by `--tp-size 0` or `--pp-size -1`? No: that solves nothing."""
    from analyzers.witness import falsify

    part = Compare(">=", Apply("//", (TP, PP), "tp // pp"), Const(0))
    before = Launch({"tp_size": 2, "pp_size": 2})
    assert falsify(part, part, model(), before)[0] == before


@pytest.mark.parametrize("dest, values, expected", [
    ("pp_size", [NOT_GIVEN, 1, 0, -1], [NOT_GIVEN, 1]),  # a positive one does it: no 0
    ("pp_size", [0, -1], []),  # only those do it: no size a person runs with (a solution names none)
    ("chunked_prefill_size", [1, 0, -1], [1, 0, -1]),  # does not count
])
def test_positive_sizes_keep_what_a_person_passes(dest, values, expected):
    assert positive_sizes(dest, values, model()) == expected


def test_a_solution_names_a_size_a_person_passes():
    """kv_shard_hook.py's shape (the values of --pp-size avoiding it: 1 and 0): "set it to 1", not "one of 1, 0"."""
    ctx = Context(model(), Renderer.for_model(FLAGS), "serve")
    expr = And((Compare(">", PP, Const(1)), Compare("!=", PP, Const(0)),
                Compare("!=", Apply("%", (TP, PP), "tp % pp"), Const(0)), Truthy(X)))
    assert "Set `--pp-size` to 1 (or leave it unset)." in [s.text for s in solutions(expr, ctx)]
