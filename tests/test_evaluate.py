"""Three-valued evaluation of the condition IR: Kleene logic, defaults, env typing, adjustments."""
from __future__ import annotations

import pytest

from analyzers.evaluate import Model, Rule, Truth, evaluate, rules_from_adjustments, undecided_leaves
from analyzers.flags import build_flag_model
from analyzers.launch import Launch
from extractor.ir import (
    FALSE, TRUE, And, Apply, Compare, Const, In, Not, Or, Ref, RefKind, Seq, Truthy, Unknown,
)

ARGS = '''
def add_cli_args(parser):
    parser.add_argument("--model-path", type=str, required=True)
    parser.add_argument("--enable-lora", action="store_true")
    parser.add_argument("--lora-paths", type=str, nargs="*", default=None)
    parser.add_argument("--speculative-algorithm", type=str, choices=["EAGLE", "EAGLE3", "NGRAM"], default=None)
    parser.add_argument("--tp-size", type=int, default=1)
    parser.add_argument("--device", type=str, default="cuda")
'''
ENV = '''
class Envs:
    SGLANG_PLAN = EnvBool(False)
    SGLANG_MODE = EnvStr("static")
    SGLANG_LIMIT = EnvInt(4)
'''
FLAGS = build_flag_model({"p/args.py": ARGS, "p/environ.py": ENV})


def flag(name: str, text: str | None = None) -> Ref:
    return Ref(RefKind.FLAG, name, text or f"cfg.{name}")


def env(name: str) -> Ref:
    return Ref(RefKind.ENV, name, f"envs.{name}.get()")


HIP = Ref(RefKind.PLATFORM, "is_hip", "is_hip()")
LORA = Truthy(flag("enable_lora"))
SPEC = flag("speculative_algorithm")
IMPLIES_LORA = Rule("enable_lora", TRUE, Truthy(flag("lora_paths")))
MODEL = Model(FLAGS, (IMPLIES_LORA,))


@pytest.mark.parametrize(
    ("expr", "flags", "envs", "expected"),
    [
        # Kleene logic: a decided operand decides, an unknown one only when it must
        (And((LORA, Truthy(HIP))), {}, {}, Truth.FALSE),
        (And((Not(LORA), Truthy(HIP))), {}, {}, Truth.UNKNOWN),
        (Or((Not(LORA), Truthy(HIP))), {}, {}, Truth.TRUE),
        (Or((LORA, Truthy(HIP))), {}, {}, Truth.UNKNOWN),
        (Not(Truthy(HIP)), {}, {}, Truth.UNKNOWN),
        (Truthy(Unknown("x()")), {}, {}, Truth.UNKNOWN),
        (TRUE, {}, {}, Truth.TRUE),
        (FALSE, {}, {}, Truth.FALSE),
        # defaults from the flag model, command line wins
        (Compare("==", flag("tp_size"), Const(1)), {}, {}, Truth.TRUE),
        (Compare(">", flag("tp_size"), Const(1)), {"tp_size": 4}, {}, Truth.TRUE),
        (Compare("is", SPEC, Const(None)), {}, {}, Truth.TRUE),
        (In(SPEC, Const(("EAGLE", "EAGLE3"))), {"speculative_algorithm": "EAGLE"}, {}, Truth.TRUE),
        (Not(In(SPEC, Const(("NGRAM", None)))), {}, {}, Truth.FALSE),
        # a Seq container decides on its known items
        (In(Const("a"), Seq((Unknown("u"), Const("a")))), {}, {}, Truth.TRUE),
        (In(Const("b"), Seq((Unknown("u"), Const("a")))), {}, {}, Truth.UNKNOWN),
        # functions of flags
        (Compare("==", Apply("%", (flag("tp_size"), Const(3)), "tp % 3"), Const(1)), {"tp_size": 4}, {}, Truth.TRUE),
        (Truthy(Apply("startswith", (flag("device"), Const("cu")), "d.startswith('cu')")), {}, {}, Truth.TRUE),
        (Truthy(Apply("frobnicate", (flag("device"),), "frobnicate(d)")), {}, {}, Truth.UNKNOWN),
        (Truthy(flag("device.startswith()", 'cfg.device.startswith("npu")')), {}, {}, Truth.FALSE),
        (Compare("==", flag("device.upper()", "cfg.device.upper()"), Const("NPU")), {"device": "npu"}, {}, Truth.TRUE),
        # env vars typed by their declaration, defaulted when unset
        (Truthy(env("SGLANG_PLAN")), {}, {}, Truth.FALSE),
        (Truthy(env("SGLANG_PLAN")), {}, {"SGLANG_PLAN": "1"}, Truth.TRUE),
        (Truthy(env("SGLANG_PLAN")), {}, {"SGLANG_PLAN": "false"}, Truth.FALSE),
        (Compare("!=", env("SGLANG_MODE"), Const("static")), {}, {}, Truth.FALSE),
        (Compare(">", env("SGLANG_LIMIT"), Const(2)), {}, {"SGLANG_LIMIT": "3"}, Truth.TRUE),
        (Compare(">", env("SGLANG_LIMIT"), Const(2)), {}, {"SGLANG_LIMIT": "many"}, Truth.UNKNOWN),
        (Truthy(env("UNDECLARED")), {}, {}, Truth.UNKNOWN),
        # a derived name no rule sets is unknown
        (Truthy(flag("attention_backends_of()", "attention_backends_of(cfg)")), {}, {}, Truth.UNKNOWN),
        # adjustments: --lora-paths implies --enable-lora
        (LORA, {"lora_paths": ("a",)}, {}, Truth.TRUE),
        (LORA, {}, {}, Truth.FALSE),
    ],
)
def test_evaluate(expr, flags, envs, expected):
    assert evaluate(expr, Launch(flags, envs), MODEL) is expected


TP1 = Compare("==", flag("tp_size"), Const(1))
ON_CUDA = Compare("==", flag("device"), Const("cuda"))


@pytest.mark.parametrize(
    ("rules", "flags", "expr", "expected"),
    [
        ((Rule("tp_size", Const(8), Truthy(HIP)),), {}, TP1, Truth.UNKNOWN),        # undecided condition
        ((Rule("tp_size", Const(1), Truthy(HIP)),), {}, TP1, Truth.TRUE),           # both outcomes agree
        ((Rule("tp_size", Unknown("auto()"), TRUE),), {}, TP1, Truth.UNKNOWN),      # value not computable
        ((Rule("tp_size", Const(8), TRUE),), {"tp_size": 1}, TP1, Truth.TRUE),      # the command line wins
        ((Rule("tp_size", Const(2), TRUE), Rule("device", Const("cpu"), Compare("==", flag("tp_size"), Const(2)))),
         {}, ON_CUDA, Truth.FALSE),                                                  # chained
        ((Rule("device", Const("cpu"), Compare("==", flag("tp_size"), Const(2))), Rule("tp_size", Const(2), TRUE)),
         {}, ON_CUDA, Truth.FALSE),                                                  # in any order
    ],
)
def test_adjustments(rules, flags, expr, expected):
    assert evaluate(expr, Launch(flags), Model(FLAGS, rules)) is expected


def test_oscillating_adjustments_end_unknown():
    flip = (Rule("enable_lora", TRUE, Not(LORA)), Rule("enable_lora", FALSE, LORA))
    assert evaluate(LORA, Launch(), Model(FLAGS, flip)) is Truth.UNKNOWN


def test_rules_from_catalog_dicts():
    data = {"dest": "enable_lora", "value": TRUE.as_dict(), "when": {"text": "t", "expr": Truthy(flag("lora_paths")).as_dict()}}
    assert rules_from_adjustments([data]) == (IMPLIES_LORA,)


def test_undecided_leaves_name_the_reason():
    expr = And((Not(LORA), Truthy(HIP), Truthy(Unknown("f(x)"))))
    assert undecided_leaves(expr, Launch(), MODEL) == ["platform:is_hip", "f(x)"]


def test_no_flag_model_means_unknown_defaults():
    assert evaluate(Compare("==", flag("tp_size"), Const(1)), Launch(), Model()) is Truth.UNKNOWN
    assert evaluate(Compare("==", flag("tp_size"), Const(1)), Launch({"tp_size": 1}), Model()) is Truth.TRUE
