"""Three-valued evaluation of the condition IR: Kleene logic, defaults, env typing, adjustments."""
from __future__ import annotations

import pytest

from analyzers.evaluate import Model, Rule, Truth, evaluate, rules_from_adjustments, undecided_leaves
from analyzers.flags import build_flag_model
from analyzers.launch import Launch
from extractor.ir import (
    FALSE,
    TRUE,
    And,
    Apply,
    Compare,
    Const,
    In,
    Not,
    Or,
    Ref,
    RefKind,
    Seq,
    Truthy,
    Unknown,
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


# ------------------------------------------------------------------ memoised and compiled forms

import random  # noqa: E402

from analyzers.evaluate import (  # noqa: E402
    MAX_ROUNDS,
    UNKNOWN,
    Values,
    _same,
    compile_truth,
    compile_value,
    truth,
    value,
)

ENV_LIMIT = env("SGLANG_LIMIT")
X = flag("x_mode")  # no declaration: its default is unknown
CHAINED = (
    IMPLIES_LORA,
    Rule("tp_size", Const(2), Truthy(HIP)),                                   # unknown condition
    Rule("device", Const("cpu"), Compare("==", flag("tp_size"), Const(2))),   # chained
    Rule("speculative_algorithm", Const("EAGLE"), Compare(">", ENV_LIMIT, Const(5))),
    Rule("x_mode", TRUE, Not(Truthy(X))),                                     # oscillating
    Rule("x_mode", FALSE, Truthy(X)),
)


def reference_resolve(model, launch, rules):
    """The adjustment fixed point as first written: a plain walk of each rule."""
    values = Values(model, launch)
    for _ in range(MAX_ROUNDS):
        changed = set()
        for rule in rules:
            if rule.dest in launch.flags:
                continue
            fires = truth(rule.when, values)
            if fires is False:
                continue
            current = values.flag(rule.dest)
            new = value(rule.value, values)
            if fires is None and not _same(new, current):
                new = UNKNOWN
            if not _same(new, current):
                values.adjusted[rule.dest] = new
                changed.add(rule.dest)
        if not changed:
            return values
    for dest in changed:
        values.adjusted[dest] = UNKNOWN
    return values


def reference(expr, launch, model):
    return Truth.of(truth(expr, reference_resolve(model, launch, model.relevant_rules(expr))))


TERMS = [flag("tp_size"), flag("device"), flag("enable_lora"), flag("lora_paths"), SPEC, X, env("SGLANG_PLAN"),
         ENV_LIMIT, env("SGLANG_MODE"), HIP, Unknown("f(x)"),
         flag("device.startswith()", 'cfg.device.startswith("cu")'),
         Apply("len", (flag("lora_paths"),), "len(p)"), Apply("str", (flag("tp_size"),), "str(tp)"),
         Apply("%", (flag("tp_size"), Const(2)), "tp % 2")]
CONSTS = [Const(v) for v in (1, True, 1.0, 2, 0, None, "cuda", "1", "1.0", "EAGLE", ("EAGLE", "EAGLE3"), ("a",), -0.0)]
VALUES = {
    "tp_size": [1, True, 1.0, 2, 4, "1", -0.0],
    "device": ["cuda", "cpu", "npu", 1],
    "enable_lora": [True, False, 1, None],
    "lora_paths": [("a",), (), ("a", "b"), ["a"], {"k": "v"}],
    "speculative_algorithm": ["EAGLE", "NGRAM", None, ("EAGLE",)],
    "x_mode": [True, False, 0],
}
ENVS = {"SGLANG_PLAN": ["1", "0", "yes"], "SGLANG_LIMIT": ["3", "7", "many"], "SGLANG_MODE": ["static", "x"]}


def random_condition(rng, depth=0):
    roll = rng.random()
    if depth > 2 or roll < 0.35:
        kind = rng.randrange(4)
        term, const = rng.choice(TERMS), rng.choice(CONSTS)
        if kind == 0:
            return Compare(rng.choice(["==", "!=", "is", "is not", "<", ">=", "~"]), term, const)
        if kind == 1:
            return In(term, const if isinstance(const.value, tuple) else Seq((const, rng.choice(TERMS))))
        if kind == 2:
            return Truthy(term)
        return rng.choice([TRUE, FALSE, Truthy(Unknown("g()"))])
    if roll < 0.5:
        return Not(random_condition(rng, depth + 1))
    if roll < 0.6:
        return Truthy(random_condition(rng, depth + 1))
    args = tuple(random_condition(rng, depth + 1) for _ in range(rng.randrange(2, 4)))
    return And(args) if roll < 0.8 else Or(args)


def random_launch(rng):
    flags = {dest: rng.choice(values) for dest, values in VALUES.items() if rng.random() < 0.4}
    envs = {name: rng.choice(values) for name, values in ENVS.items() if rng.random() < 0.3}
    facts = {"platform:is_hip": rng.choice([True, False])} if rng.random() < 0.3 else {}
    return Launch(flags, envs, facts)


def test_memoised_evaluation_matches_the_reference_walk():
    rng = random.Random(7)
    model = Model(FLAGS, CHAINED)  # one model: its memos fill up across the questions
    launches = [random_launch(rng) for _ in range(12)] + [Launch()]
    for _ in range(400):
        expr = random_condition(rng)
        for launch in rng.sample(launches, 5):
            assert evaluate(expr, launch, model) is reference(expr, launch, model), (expr, launch)
            assert evaluate(expr, launch, Model(FLAGS, CHAINED)) is reference(expr, launch, model), (expr, launch)


def test_compiled_code_matches_the_reference_walk():
    rng = random.Random(11)
    model = Model(FLAGS, CHAINED)
    for _ in range(300):
        expr = random_condition(rng)
        launch = random_launch(rng)
        values = reference_resolve(model, launch, model.relevant_rules(expr))
        assert compile_truth(expr)(values) == truth(expr, values), expr
        assert compile_truth(expr, model)(values) == truth(expr, values), expr
        got, want = compile_value(expr, model)(values), value(expr, values)
        assert got is want or _same(got, want), expr


@pytest.mark.parametrize(
    ("expr", "given", "expected"),
    [
        # 1, 1.0 and True are equal in Python; the evaluator (and so its memo) tells them apart
        (Compare("is", flag("tp_size"), Const(True)), True, Truth.TRUE),
        (Compare("is", flag("tp_size"), Const(True)), 1, Truth.FALSE),
        (Compare("is", flag("tp_size"), Const(1)), 1, Truth.TRUE),
        (Compare("is", flag("tp_size"), Const(1)), True, Truth.FALSE),
        (Compare("==", Apply("str", (flag("tp_size"),), "str(tp)"), Const("1")), 1, Truth.TRUE),
        (Compare("==", Apply("str", (flag("tp_size"),), "str(tp)"), Const("1")), 1.0, Truth.FALSE),
        (Compare("==", Apply("str", (flag("tp_size"),), "str(tp)"), Const("1")), True, Truth.FALSE),
        (Compare("==", flag("tp_size"), Const(1)), "1", Truth.FALSE),
        (Compare("==", flag("tp_size"), Const(1)), 1.0, Truth.TRUE),
    ],
)
def test_memo_tells_equal_values_of_other_types_apart(expr, given, expected):
    model = Model(FLAGS)
    for other in (1, True, 1.0, "1"):  # fill the memo with the look-alikes first
        evaluate(expr, Launch({"tp_size": other}), model)
    assert evaluate(expr, Launch({"tp_size": given}), model) is expected
