"""Triggers in user terms: flags as options, env vars as NAME=value."""
from __future__ import annotations

import pytest

from analyzers.trigger import Renderer
from extractor import ir
from extractor.ir import KINDS, And, Apply, Compare, Const, In, Not, Or, Ref, RefKind, Seq, Truthy, Unknown, Visitor

FLAG = Ref(RefKind.FLAG, "speculative_algorithm", "cfg.speculative_algorithm")
ADAPTIVE = Ref(RefKind.FLAG, "speculative_adaptive", "cfg.speculative_adaptive")
ENV = Ref(RefKind.ENV, "SGLANG_ENABLE_OVERLAP_PLAN_STREAM", "envs.SGLANG_ENABLE_OVERLAP_PLAN_STREAM.get()")
R = Renderer()


@pytest.mark.parametrize(
    "expr, text",
    [
        (Truthy(ADAPTIVE), "`--speculative-adaptive` is set"),
        (Not(Truthy(ADAPTIVE)), "`--speculative-adaptive` is not set"),
        (Compare("is", FLAG, Const(None)), "`--speculative-algorithm` is not given"),
        (Compare("is not", FLAG, Const(None)), "`--speculative-algorithm` is given"),
        (In(FLAG, Const(("EAGLE", "EAGLE3"))), "`--speculative-algorithm` is one of EAGLE, EAGLE3"),
        (Not(In(FLAG, Const(("NGRAM", None)))), "`--speculative-algorithm` is not NGRAM and is given"),
        (Compare("!=", FLAG, Const("EAGLE")), "`--speculative-algorithm` is not EAGLE"),
        (Truthy(ENV), "`SGLANG_ENABLE_OVERLAP_PLAN_STREAM=1`"),
        (Not(Not(Truthy(ENV))), "`SGLANG_ENABLE_OVERLAP_PLAN_STREAM=1`"),
        (Compare("==", ENV, Const("static")), "`SGLANG_ENABLE_OVERLAP_PLAN_STREAM=static`"),
        (And((Truthy(ADAPTIVE), Or((Truthy(ENV), Compare("==", FLAG, Const("X")))))),
         "`--speculative-adaptive` is set and "
         "(`SGLANG_ENABLE_OVERLAP_PLAN_STREAM=1` or `--speculative-algorithm` is X)"),
        (Not(And((Truthy(ADAPTIVE), Truthy(ENV)))),
         "`--speculative-adaptive` is not set or `SGLANG_ENABLE_OVERLAP_PLAN_STREAM=0` or unset"),
        (And((Truthy(ADAPTIVE), Const(True))), "`--speculative-adaptive` is set"),
        # one setting read twice (``cfg.x`` and ``server_args.x``): said once
        (And((Truthy(ADAPTIVE), Truthy(Ref(RefKind.FLAG, ADAPTIVE.name, "server_args.x")), Truthy(ENV))),
         "`--speculative-adaptive` is set and `SGLANG_ENABLE_OVERLAP_PLAN_STREAM=1`"),
        (Truthy(Unknown("f(x)")), "`f(x)` (unknown) is true/non-empty"),
        # a field of JSON text a flag gives, and the text's size
        (Compare("is not", Apply("get", (Apply("json.loads", (FLAG,), "j"), Const("key")), "g"), Const(None)),
         "field `key` of the JSON in `--speculative-algorithm` is given"),
        (Compare(">", Apply("len", (Apply("encode", (FLAG, Const("utf-8")), "e"),), "n"), Const(9)),
         "the size in bytes of `--speculative-algorithm` > 9"),
        # a row of a table the code holds, kept as its keys: named as the source names it
        (Compare("is", Apply("get", (Apply("item", (Const(("A", "B")), FLAG), "PARAMS[arch]"),
                                     Const("algorithm")), "g"), Const(None)),
         "`algorithm` of the code's `PARAMS` entry for `--speculative-algorithm` is not given"),
        # what is given of several values: ``set(x) - {None}``
        (Compare("==", Apply("-", (Apply("set", (FLAG,), "s"), Const((None,))), "d"), Const(("a",))),
         "`--speculative-algorithm` (those given) is a"),
        # duplicates counted once: ``len(set(x)) != len(x)``
        (Compare("!=", Apply("len", (Apply("set", (FLAG,), "s"),), "n"), Apply("len", (FLAG,), "m")),
         "the number of distinct items in `--speculative-algorithm` is not "
         "the number of items in `--speculative-algorithm`"),
        # a function of the program's whose name says what it computes, from what the user gives
        (Compare("!=", Apply("parse_connector_type", (FLAG,), "p"), Const("instance")),
         "the connector type parsed from `--speculative-algorithm` is not instance"),
        (Compare("==", Apply("%", (Apply("utils.derive_size", (Apply(ir.KEYWORD, (Const("tp"), FLAG), "k"),), "d"),
                                   Const(2)), "m"), Const(0)),
         "(the size derived from `--speculative-algorithm`) % 2 is 0"),
        (Compare("==", Apply("check_layout", (FLAG,), "c"), Const(1)),  # no such name: the call
         "check_layout(`--speculative-algorithm`) is 1"),
        # a model property read with getattr, by its field; the default where the config lacks it
        (Truthy(Apply("unset_or", (Ref(RefKind.MODEL, "hf.sink", 'getattr(hf, "sink", False)'), Const(False)), "g")),
         "model property `hf.sink` (false where the config lacks it) is true/non-empty"),
        (In(Apply("item", (Or((Truthy(Apply("unset_or", (Ref(RefKind.MODEL, "hf.archs", 'getattr(hf, "archs", None)'),
                                                          Const(None)), "g")), Truthy(Const((None,))))), Const(0)),
                  "(g or [None])[0]"), Const(("A", "B"))),
         "model property `hf.archs`[0] is one of A, B"),
    ],
)
def test_render(expr, text) -> None:
    assert R.text(expr) == text


HIP = Ref(RefKind.PLATFORM, "is_hip", "is_hip()")
ARCH = Ref(RefKind.MODEL, "hf_config.architectures", "hf_config.architectures")


@pytest.mark.parametrize(
    "expr, text",
    [
        (Truthy(HIP), "platform check `is_hip()` is true"),
        (Not(Truthy(HIP)), "platform check `is_hip()` is false"),
        (Truthy(ARCH), "model property `hf_config.architectures` is true/non-empty"),
        (Not(Truthy(Seq((ADAPTIVE,)))), "`--speculative-adaptive` is false/empty"),
        (Truthy(Apply("isinstance", (FLAG, Const("dict")), "isinstance(x, dict)")),
         "`--speculative-algorithm` is a dict"),
        (Not(Truthy(Apply("isinstance", (FLAG, Const("dict")), "isinstance(x, dict)"))),
         "`--speculative-algorithm` is not a dict"),
        (Compare("<", Const(1), FLAG), "`--speculative-algorithm` > 1"),  # the constant goes right
        (Not(Compare("<", Const(1), FLAG)), "`--speculative-algorithm` <= 1"),
        (Compare("is not", ENV, Const(None)), "`SGLANG_ENABLE_OVERLAP_PLAN_STREAM` is set"),
        (Not(Compare("is not", ENV, Const(None))), "`SGLANG_ENABLE_OVERLAP_PLAN_STREAM` is unset"),
        (In(FLAG, Const(("A", None))), "`--speculative-algorithm` is A or is not given"),
        (In(FLAG, Const((None,))), "`--speculative-algorithm` is not given"),
        (Not(In(FLAG, Const((None,)))), "`--speculative-algorithm` is given"),
        (In(FLAG, Seq((ADAPTIVE, Const("X")))), "`--speculative-algorithm` is one of `--speculative-adaptive`, X"),
        # ``any(a in C for a in archs)`` and kin: items shared with, or outside, a constant
        (Truthy(Apply("&", (ARCH, Const(("A", "B"))), "any(...)")),
         "an item of model property `hf_config.architectures` is one of A, B"),
        (Not(Truthy(Apply("&", (ARCH, Const(("A", "B"))), "any(...)"))),
         "no item of model property `hf_config.architectures` is one of A, B"),
        (Truthy(Apply("-", (ARCH, Const(("A",))), "any(...)")),
         "an item of model property `hf_config.architectures` is not one of A"),
        (Not(Truthy(Apply("-", (ARCH, Const(("A",))), "all(...)"))),
         "every item of model property `hf_config.architectures` is one of A"),
        (Not(Or((Truthy(ADAPTIVE), And((Truthy(ENV), Truthy(HIP)))))),
         "`--speculative-adaptive` is not set and (`SGLANG_ENABLE_OVERLAP_PLAN_STREAM=0` or unset "
         "or platform check `is_hip()` is false)"),
    ],
)
def test_render_each_kind_as_a_condition(expr, text) -> None:
    assert R.text(expr) == text


@pytest.mark.parametrize(
    "expr, text",
    [
        (Const(None), "not given"),
        (Const(True), "true"),
        (Const(("a", ("b", 1))), "a, (b, 1)"),
        (Unknown("f(x)"), "`f(x)` (unknown)"),
        (Ref(RefKind.FLAG, "x", "cfg.x"), "`--x`"),
        (Ref(RefKind.RUNTIME, "os.path.exists(p)", "os.path.exists(p)"), "`os.path.exists(p)`"),
        (Seq((ADAPTIVE, Const(2))), "`--speculative-adaptive`, 2"),
        (Or((Truthy(ADAPTIVE), Truthy(Const(1)))), "(`--speculative-adaptive` or 1)"),  # Python's value of `a or 1`
        (And((Truthy(ADAPTIVE), Compare(">", FLAG, Const(1)))),
         "(`--speculative-adaptive` is set and `--speculative-algorithm` > 1)"),  # a condition: a sentence
        (Not(Truthy(ADAPTIVE)), "(`--speculative-adaptive` is not set)"),
        (In(FLAG, Const(("A", "B"))), "(`--speculative-algorithm` is one of A, B)"),
    ],
)
def test_render_each_kind_as_a_value(expr, text) -> None:
    assert R.value(expr) == text


def test_the_renderer_is_a_visitor_with_a_handler_for_every_kind() -> None:
    assert isinstance(R, Visitor)
    assert all(hasattr(Renderer, f"visit_{kind.__name__}") for kind in KINDS)


def test_nested_tuples_render_as_tuples() -> None:
    pair = Ref(RefKind.FLAG, "tp_size", "tp")
    assert R.text(Not(In(pair, Const(((4, 4), (8, 8)))))) == "`--tp-size` is not one of (4, 4), (8, 8)"


# ------------------------------------------------------------ long conditions: bounded text

def _flags(n: int) -> tuple[Compare, ...]:
    return tuple(Compare(">", Ref(RefKind.FLAG, f"opt_{i}", f"args.opt_{i}"), Const(i)) for i in range(n))


@pytest.mark.parametrize("expr, tail", [
    (And(_flags(5000)), "`--opt-39` > 39 … and 4,960 more conditions"),
    (Or(_flags(5000)), "`--opt-39` > 39 … or 4,960 more conditions"),
    (Not(And(_flags(5000))), "`--opt-39` <= 39 … or 4,960 more conditions"),  # De Morgan
    (And(_flags(41)), "`--opt-39` > 39 … and 1 more condition"),
    (And(_flags(40)), "`--opt-38` > 38 and `--opt-39` > 39"),  # up to the cap: all shown
])
def test_a_long_chain_renders_its_first_operands_and_counts_the_rest(expr, tail) -> None:
    text = R.text(expr)
    assert text.endswith(tail) and len(text) < 2000


def test_a_long_chain_gives_bounded_entry_texts(tmp_path, capsys) -> None:
    """Through the pipeline: trigger, meaning, solutions and the example fix stay small."""
    import json

    from errcat.cli import main

    terms = " and ".join(f"args.opt_{i} > {i}" for i in range(600))
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "a.py").write_text(
        f"def check(args):\n    if {terms}:\n        raise ValueError('too many')\n")
    (tmp_path / "tiny.yaml").write_text("name: tiny\nrepo: example/tiny\ntargets:\n  - pkg/**/*.py\n")
    argv = ["extract", "--path", str(tmp_path / "src"), "--profile", str(tmp_path / "tiny.yaml"),
            "--no-cache", "--out", str(tmp_path / "out")]
    assert main(argv) == 0
    [entry] = json.loads((tmp_path / "out" / "catalog.json").read_text())["entries"]
    sizes = {"trigger": len(entry["trigger"]["text"]), "meaning": len(entry["meaning"]),
             "solutions": len(json.dumps(entry["solutions"])), "example_fix": len(json.dumps(entry["example_fix"]))}
    assert all(size < 5000 for size in sizes.values()), sizes
    assert entry["trigger"]["text"].endswith("… and 560 more conditions")


TP = Ref(RefKind.FLAG, "tp_size", "cfg.tp_size")


def _upper(term):
    return Apply("upper", (term,), "(x or '').upper()")


@pytest.mark.parametrize(
    "expr, text",
    [
        # `x or <empty literal>` as a value is x (issue 13: "(`--x` or ).upper()")
        (Compare("==", _upper(Or((Truthy(FLAG), Truthy(Const(""))))), Const("EAGLE")),
         "`--speculative-algorithm`.upper() is EAGLE"),
        (In(Const("W"), Or((Truthy(FLAG), Truthy(Const(()))))), "W is in `--speculative-algorithm`"),
        (In(Const("W"), Or((Truthy(FLAG), Truthy(Seq(()))))), "W is in `--speculative-algorithm`"),
        # a set built from a literal is that literal's items
        (In(Const("W"), Apply("frozenset", (Const(("A", "B")),), "frozenset({'A', 'B'})")), "W is one of A, B"),
        # sets are ordered by inclusion: not (a <= b) is not a > b
        (Not(Compare("<=", Apply("set", (FLAG,), "set(x)"), Const(("A",)))),
         "`--speculative-algorithm` is not a subset of A"),
        # a pair is shown as one
        (In(Seq((Const("prefill"), Const("backend"))), FLAG), "(prefill, backend) is in `--speculative-algorithm`"),
        # a non-empty fallback stays
        (Compare(">", Or((Truthy(TP), Truthy(Const(1)))), Const(2)), "(`--tp-size` or 1) > 2"),
        # an empty literal elsewhere is shown, not dropped
        (Compare("==", FLAG, Const("")), '`--speculative-algorithm` is ""'),
        # membership in a tuple of terms with None in it: (not) given, not "in not given"
        (Not(In(FLAG, Seq((Const(None), Const(1), TP)))),
         "`--speculative-algorithm` is not one of 1, `--tp-size` and is given"),
        (In(FLAG, Seq((Const(None), TP))), "`--speculative-algorithm` is `--tp-size` or is not given"),
        (In(FLAG, Seq((Const(1), TP))), "`--speculative-algorithm` is one of 1, `--tp-size`"),
    ],
)
def test_render_fallbacks_and_memberships(expr, text) -> None:
    assert R.text(expr) == text


def test_an_empty_dict_constant_renders_as_braces() -> None:
    assert R.value(Const({})) == "{}"


JSON_FLAGS = Renderer(
    option={"cuda_graph_config": "--cuda-graph-config", "watermark_config": "--watermark-config"}.get,
    source={"watermark_context_window": "--watermark-config"}.get,
)


@pytest.mark.parametrize(
    "dest, text",
    [
        ("cuda_graph_config", "`--cuda-graph-config`"),
        ("cuda_graph_config.prefill.backend", "`--cuda-graph-config` field `prefill.backend`"),
        ("watermark_context_window", "`--watermark-config` field `context_window`"),
        ("other.field", "`other.field` (derived setting)"),
        ("uses_cache", "`uses_cache` (derived setting)"),
        # what a function of the whole config returns, as its name says
        ("model_dispatch_tokens()", "what `model_dispatch_tokens(…)` returns"),
        ("derive_tp_size()", "the tp size derived from the settings"),
        ("_backends()", "the code's “backends”"),
        # a field of what such a function builds, named by what its name says it builds
        ("model_config_of().is_hybrid_swa", "the model config's `is_hybrid_swa`"),
        ("model_dispatch_plan().size", "what `model_dispatch_plan(…)` returns, field `size`"),
        # the program's own bookkeeping: its words, not its private name
        ("_resolution_finished", "the code's internal state “resolution finished”"),
    ],
)
def test_fields_of_a_json_option_are_named_by_it(dest, text) -> None:
    assert JSON_FLAGS.name(Ref(RefKind.FLAG, dest, f"cfg.{dest}")) == text


def test_for_model_reads_resolved_from_in_a_derived_settings_help() -> None:
    from dataclasses import replace

    from analyzers.flag_build import build_flag_model
    from analyzers.flags import FlagModel

    base = build_flag_model({"p/args.py": (
        "def add_cli_args(parser):\n"
        "    parser.add_argument('--watermark-config', type=str, default=None)\n")})
    json_flag = base.flags[0]
    derived = [replace(json_flag, dest=d, option=None, derived=True, help=h) for d, h in (
        ("watermark_key", "Resolved from --watermark-config."),
        ("watermark_other", "Resolved from --watermark-config and the model."),
        ("watermark_lost", "Resolved from --missing."))]
    r = Renderer.for_model(FlagModel((json_flag, *derived), (), ()))
    assert [r.name(Ref(RefKind.FLAG, f.dest, f.dest)) for f in derived] == [
        "`--watermark-config` field `key`", "`watermark_other` (derived setting)", "`watermark_lost` (derived setting)"]
