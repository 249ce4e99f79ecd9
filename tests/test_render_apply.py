"""Computed values: `x if c else y` in value position is a term (`Apply(IF, ...)`) that
the evaluator decides lazily, and computed terms render in user terms."""
from __future__ import annotations

import textwrap

import pytest

from analyzers.eval_model import Model
from analyzers.evaluate import evaluate
from analyzers.flag_build import build_flag_model
from analyzers.kleene import UNKNOWN, Truth, same
from analyzers.launch import Launch
from analyzers.semantics import Values, compile_truth, compile_value, truth, value
from analyzers.trigger import Renderer
from extractor.ir import IF, KEYWORD, And, Apply, Compare, Const, Not, Or, Ref, RefKind, Seq, Truthy
from extractor.profile import load_profile
from extractor.sites import extract_file

PROFILE = load_profile("sglang")
R = Renderer()  # options from field names: tp_size -> --tp-size


def flag(name: str) -> Ref:
    return Ref(RefKind.FLAG, name, f"cfg.{name}")


TP, PP, NNODES, PATHS, DEVICE = flag("tp_size"), flag("pp_size"), flag("nnodes"), flag("lora_paths"), flag("device")
HIP = Ref(RefKind.PLATFORM, "is_hip", "is_hip()")


def guard(condition: str):
    """The IR of `condition` as the guard of a raise.

    Not of a crash the condition itself may raise: the guard that it did not crash comes first.
    """
    code = f"def f(cfg):\n    if {condition}:\n        raise ValueError('x')\n"
    [site] = [s for s in extract_file("m.py", code, PROFILE).sites if s.crash is None]
    return site.guards[-1].expr


# ------------------------------------------------------------------ extraction


@pytest.mark.parametrize(
    "condition, expected",
    [
        ("(cfg.a if cfg.a else cfg.b) > 2",
         Compare(">", Apply(IF, (Truthy(flag("a")), flag("a"), flag("b")), "(cfg.a if cfg.a else cfg.b)"), Const(2))),
        ("(cfg.a if cfg.a is not None else 4) == cfg.b",
         Compare("==", Apply(IF, (Compare("is not", flag("a"), Const(None)), flag("a"), Const(4)),
                             "(cfg.a if cfg.a is not None else 4)"), flag("b"))),
        ("max(cfg.a, cfg.b if cfg.c else 1) > 2",
         Compare(">", Apply("max", (flag("a"), Apply(IF, (Truthy(flag("c")), flag("b"), Const(1)),
                                                           "cfg.b if cfg.c else 1")),
                            "max(cfg.a, cfg.b if cfg.c else 1)"),
                 Const(2))),
    ],
)
def test_an_if_expression_in_value_position_is_an_if_term(condition, expected):
    assert guard(condition) == expected


def test_an_if_expression_as_the_condition_itself_stays_a_condition():
    # `if (a if c else b):` is (c and a) or (not c and b): no term is chosen
    assert guard("(cfg.a if cfg.c else cfg.b)") == Or((
        And((Truthy(flag("c")), Truthy(flag("a")))), And((Not(Truthy(flag("c"))), Truthy(flag("b"))))))


def test_a_call_with_a_keyword_argument_keeps_it_by_name_and_runtime_facts_read_the_positional_ones():
    """A keyword argument binds the parameter of that name where errcat computes the function
    (`extractor.inline`); a platform's `runtime` facts are stated for the positional ones."""
    found = guard("frob(cfg.a, mode=1) > 2")
    call = Apply("frob", (flag("a"), Apply(KEYWORD, (Const("mode"), Const(1)), "mode")), "frob(cfg.a, mode=1)")
    assert found == Compare(">", call, Const(2))
    assert evaluate(found, Launch({"a": 1}), Model(FLAGS)) is Truth.UNKNOWN
    stated = Launch({"a": 1}, facts={"runtime:frob": (((1,), 3),)})
    assert evaluate(found, stated, Model(FLAGS)) is Truth.TRUE


# ------------------------------------------------------------------ evaluation

FLAGS = build_flag_model({"p/args.py": textwrap.dedent('''
    def add_cli_args(parser):
        parser.add_argument("--tp-size", type=int, default=1)
        parser.add_argument("--pp-size", type=int, default=1)
        parser.add_argument("--page-size", type=int, default=None)
''')})
PAGE = flag("page_size")
FROB = Apply("frob", (TP,), "frob(cfg.tp_size)")  # a function the evaluator does not know


def if_(test, then, other):
    return Apply(IF, (test, then, other), "then if test else other")


@pytest.mark.parametrize(
    "term, flags, facts, expected",
    [
        # `x if x else y`: the given value, else the fallback
        (if_(Truthy(TP), TP, Const(8)), {"tp_size": 4}, {}, 4),
        (if_(Truthy(TP), TP, Const(8)), {}, {}, 1),  # the default decides
        (if_(Truthy(TP), TP, Const(8)), {"tp_size": 0}, {}, 8),
        (if_(Compare("is not", PAGE, Const(None)), PAGE, Const(16)), {}, {}, 16),
        (if_(Compare("is not", PAGE, Const(None)), PAGE, Const(16)), {"page_size": 32}, {}, 32),
        # lazy: the branch not taken may be unknown
        (if_(Truthy(TP), TP, FROB), {"tp_size": 4}, {}, 4),
        (if_(Compare(">", TP, Const(1)), FROB, PP), {}, {}, 1),
        (if_(Truthy(HIP), TP, PP), {}, {"platform:is_hip": True}, 1),
        # an unknown test decides only when both branches agree
        (if_(Truthy(HIP), Const(2), Const(2)), {}, {}, 2),
        (if_(Truthy(HIP), TP, PP), {}, {}, 1),  # both default to 1
        (if_(Truthy(HIP), TP, PP), {"pp_size": 2}, {}, UNKNOWN),
        (if_(Truthy(HIP), Const(1), Const(True)), {}, {}, UNKNOWN),  # equal in Python, not the same value
        (if_(Truthy(HIP), FROB, FROB), {}, {}, UNKNOWN),
        (if_(Truthy(TP), FROB, Const(2)), {}, {}, UNKNOWN),  # the taken branch is unknown
    ],
)
def test_an_if_term_has_the_value_of_the_branch_its_test_picks(term, flags, facts, expected):
    model = Model(FLAGS)
    values = Values(model, Launch(flags, {}, facts))
    for found in (value(term, values), compile_value(term)(values), compile_value(term, model)(values)):
        assert found is expected or same(found, expected)


@pytest.mark.parametrize(
    "expr, flags, expected",
    [
        (Compare(">", if_(Truthy(TP), TP, Const(8)), Const(2)), {"tp_size": 4}, Truth.TRUE),
        (Compare(">", if_(Truthy(TP), TP, Const(8)), Const(2)), {}, Truth.FALSE),
        (Compare(">", if_(Truthy(TP), TP, Const(8)), Const(2)), {"tp_size": 0}, Truth.TRUE),
        # an unknown test, but both branches pass: decided
        (Compare(">", if_(Truthy(HIP), Const(4), Const(5)), Const(2)), {}, Truth.TRUE),
        (Compare(">", if_(Truthy(HIP), Const(4), Const(1)), Const(2)), {}, Truth.UNKNOWN),  # they disagree
        (Truthy(if_(Truthy(TP), Const(0), FROB)), {}, Truth.FALSE),
    ],
)
def test_evaluate_the_memoised_and_compiled_paths_agree_on_if_terms(expr, flags, expected):
    launch = Launch(flags)
    values = Values(Model(FLAGS), launch)
    assert truth(expr, values) is {Truth.TRUE: True, Truth.FALSE: False, Truth.UNKNOWN: None}[expected]
    assert compile_truth(expr, Model(FLAGS))(values) == truth(expr, values)
    model = Model(FLAGS)  # asked often enough to be compiled
    others = [Launch({"tp_size": n}) for n in range(10)]
    for launch_ in [*others, launch]:
        evaluate(expr, launch_, model)
    assert evaluate(expr, launch, model) is expected
    assert evaluate(expr, launch, Model(FLAGS)) is expected


def test_an_extracted_if_term_evaluates_like_python():
    expr = guard("(cfg.tp_size if cfg.tp_size else cfg.pp_size) > 2")
    assert [evaluate(expr, Launch(flags), Model(FLAGS)) for flags in ({"tp_size": 4}, {"tp_size": 0, "pp_size": 3},
                                                                      {"tp_size": 0}, {})] == [
        Truth.TRUE, Truth.TRUE, Truth.FALSE, Truth.FALSE]


# ------------------------------------------------------------------ rendering


@pytest.mark.parametrize(
    "term, text",
    [
        # binary operators; a binary operand is parenthesised
        (Apply("%", (Apply("*", (TP, PP), "tp * pp"), NNODES), "(tp * pp) % nnodes"),
         "(`--tp-size` * `--pp-size`) % `--nnodes`"),
        (Apply("+", (Apply("*", (TP, PP), "tp * pp"), Const(1)), "tp * pp + 1"), "(`--tp-size` * `--pp-size`) + 1"),
        (Apply("//", (TP, Apply("-", (PP, Const(1)), "pp - 1")), "tp // (pp - 1)"), "`--tp-size` // (`--pp-size` - 1)"),
        (Apply("**", (TP, Const(2)), "tp ** 2"), "`--tp-size` ** 2"),
        # unary minus / invert
        (Apply("-", (TP,), "-tp"), "-`--tp-size`"),
        (Apply("~", (TP,), "~tp"), "~`--tp-size`"),
        (Apply("-", (Apply("+", (TP, PP), "tp + pp"),), "-(tp + pp)"), "-(`--tp-size` + `--pp-size`)"),
        # builtins of the user's values
        (Apply("max", (TP, PP), "max(tp, pp)"), "max(`--tp-size`, `--pp-size`)"),
        (Apply("min", (TP, Const(4)), "min(tp, 4)"), "min(`--tp-size`, 4)"),
        (Apply("len", (PATHS,), "len(paths)"), "the number of items in `--lora-paths`"),
        (Apply("int", (TP,), "int(tp)"), "`--tp-size`"),
        # item and string methods
        (Apply("item", (PATHS, Const(0)), "paths[0]"), "`--lora-paths`[0]"),
        (Apply("item", (Apply("+", (TP, PP), "tp + pp"), Const(0)), "(tp + pp)[0]"), "(`--tp-size` + `--pp-size`)[0]"),
        (Apply("lower", (DEVICE,), "device.lower()"), "`--device`.lower()"),
        (Apply("startswith", (DEVICE, Const("cu")), "device.startswith('cu')"), '`--device`.startswith("cu")'),
        # chosen values
        (if_(Truthy(TP), TP, PP), "`--tp-size` (if given, else `--pp-size`)"),
        (if_(Compare("is not", TP, Const(None)), TP, Const(8)), "`--tp-size` (if given, else 8)"),
        (if_(Truthy(NNODES), TP, PP), "(`--tp-size` if `--nnodes` is set, else `--pp-size`)"),
        # a function of the user's values by name; a call of nothing of theirs as code
        (Apply("frob", (TP, Const(2)), "frob(tp, 2)"), "frob(`--tp-size`, 2)"),
        (Apply("get_int", (Const("X"),), "get_int('X')"), "`get_int('X')`"),
        (Apply("now", (), "now()"), "`now()`"),
        (Apply("+", (TP, Apply("now", (), "now()")), "tp + now()"), "`--tp-size` + `now()`"),
    ],
)
def test_computed_values_render_in_user_terms(term, text):
    assert R.value(term) == text


@pytest.mark.parametrize(
    "condition, text",
    [
        ("(cfg.tp_size * cfg.pp_size) % cfg.nnodes != 0", "(`--tp-size` * `--pp-size`) % `--nnodes` is not 0"),
        ("-cfg.a > ~cfg.b", "-`--a` > ~`--b`"),
        ("(cfg.a if cfg.a else cfg.b) > 2", "`--a` (if given, else `--b`) > 2"),
        ("max(cfg.a, cfg.b) % cfg.c == 1", "max(`--a`, `--b`) % `--c` is 1"),
        ("cfg.paths[0].lower() == 'x'", "`--paths`[0].lower() is x"),
    ],
)
def test_extracted_triggers_render_computed_values_in_user_terms(condition, text):
    assert R.text(guard(condition)) == text


def test_a_tuple_of_computed_values_renders_each():
    assert R.value(Seq((Apply("-", (TP,), "-tp"), Const(1)))) == "-`--tp-size`, 1"


def test_and_or_in_value_position_render_as_values_not_conditions():
    topk = Ref(RefKind.FLAG, "topk", "cfg.topk")
    assert Renderer().text(Compare("!=", Or((Truthy(topk), Truthy(Const(1)))), Const(1))) == "(`--topk` or 1) is not 1"
