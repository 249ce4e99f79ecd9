"""Three-valued evaluation of the condition IR: Kleene logic, defaults, env typing, adjustments."""
from __future__ import annotations

import dataclasses
import random
from dataclasses import FrozenInstanceError

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from analyzers.deciders import can_hold, deciders
from analyzers.eval_model import Model, expr_key
from analyzers.evaluate import evaluate, undecided_leaves
from analyzers.flag_build import build_flag_model
from analyzers.kleene import RAISING, UNKNOWN, Truth, as_truth, kleene, same
from analyzers.launch import Launch, is_placeholder, placeholder_contains
from analyzers.py_functions import FUNCTIONS, apply
from analyzers.resolution import MAX_ROUNDS, resolve, resolved
from analyzers.rules import Rule, rewrites_itself, rules_from_adjustments
from analyzers.semantics import Values, _choose, _method_ref, compile_truth, compile_value
from analyzers.settings import base_dest, literal_default
from extractor.frozen import FrozenMap
from extractor.ir import (
    ATTRIBUTE,
    COMPARE,
    CONDITION_KINDS,
    FALSE,
    IF,
    ON_COMMAND_LINE,
    OR_FALLBACK,
    PARSE_RECORD,
    RAISES,
    STATED_OR,
    TRUE,
    UNSET_OR,
    And,
    Apply,
    Compare,
    Const,
    Expr,
    In,
    Not,
    Or,
    Ref,
    RefKind,
    Seq,
    Truthy,
    Unknown,
    positional,
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


# ``try: base = float(cfg.lora_paths[1]) except (ValueError, IndexError): ...`` (sglang 0.5.23 buckets rules)
SECOND = Apply("float", (Apply("item", (flag("lora_paths"), Const(1)), "v[1]"),), "float(v[1])")
REST = Apply("map", (Const("float"), Apply("slice", (flag("lora_paths"), Const(1), Const(None)), "v[1:]")), "[...]")


@pytest.mark.parametrize(("expr", "paths", "expected"), [
    (Truthy(Apply(RAISES, (Const(("ValueError", "IndexError")), SECOND), "try")), ("tse", "x"), Truth.TRUE),
    (Truthy(Apply(RAISES, (Const(("ValueError", "IndexError")), SECOND), "try")), ("tse",), Truth.TRUE),
    (Truthy(Apply(RAISES, (Const(("ValueError", "IndexError")), SECOND), "try")), ("tse", "1.5"), Truth.FALSE),
    (Truthy(Apply(RAISES, (Const(("ValueError",)), SECOND), "try")), ("tse",), Truth.UNKNOWN),  # not caught
    (Truthy(Apply(RAISES, (Const(("ValueError",)), SECOND), "try")), None, Truth.UNKNOWN),  # None[1]: TypeError
    (Truthy(Apply(RAISES, (Const(("Exception",)), SECOND), "try")), ("tse",), Truth.TRUE),  # a base class catches
    (Truthy(Apply(RAISES, (Const(("ValueError",)), REST), "try")), ("custom", "1", "2"), Truth.FALSE),
    (Truthy(Apply(RAISES, (Const(("ValueError",)), REST), "try")), ("custom", "1", "x"), Truth.TRUE),
    (Compare("==", REST, Const((1.0, 2.0))), ("custom", "1", "2"), Truth.TRUE),
    (Compare("<=", SECOND, Const(1)), ("tse", "1", "2", "3"), Truth.TRUE),
])
def test_what_a_try_block_of_conversions_raises(expr, paths, expected):
    """A step is computed as Python would, and only what the except clause names is caught."""
    launch = Launch({} if paths is None else {"lora_paths": paths})
    assert evaluate(expr, launch, MODEL) is expected


CONFIG = Apply("json.loads", (flag("lora_paths"),), "json.loads(cfg.c)")
FTEXT = Apply("str", (Unknown("f'x {y}'"),), "f'x {y}'")
EVENTS = FrozenMap({"fields": FrozenMap({
    "publisher": FrozenMap({"type": "str", "optional": False, "required": False, "default": "null", "choices": ()}),
    "format": FrozenMap({"type": "literal", "optional": False, "required": False, "default": "default",
                         "choices": ("default", "dynamo")})})})
RECORD = Apply(PARSE_RECORD, (Const(EVENTS), flag("lora_paths")), "Events.from_cli(cfg.c)")


@pytest.mark.parametrize(("expr", "text", "expected"), [
    # JSON text is parsed as Python parses it: an object is a mapping, its fields read by get/[]
    (Apply("isinstance", (CONFIG, Const("dict")), "i"), '{"a": 1}', Truth.TRUE),
    (Apply("isinstance", (CONFIG, Const("dict")), "i"), '["a"]', Truth.FALSE),
    (Compare("==", Apply("get", (CONFIG, Const("a")), "g"), Const(1)), '{"a": 1}', Truth.TRUE),
    (Compare("is", Apply("get", (CONFIG, Const("b")), "g"), Const(None)), '{"a": 1}', Truth.TRUE),
    (Truthy(Apply("-", (Apply("set", (CONFIG,), "s"), Const(("a",))), "d")), '{"a": 1, "z": 2}', Truth.TRUE),
    (Truthy(Apply("-", (Apply("set", (CONFIG,), "s"), Const(("a",))), "d")), '{"a": 1}', Truth.FALSE),
    (Compare("==", Apply("keys", (CONFIG,), "c.keys()"), Const(("a", "z"))), '{"a": 1, "z": 2}', Truth.TRUE),
    (Compare("==", Apply("values", (CONFIG,), "c.values()"), Const((1,))), '{"a": 1}', Truth.TRUE),
    (Truthy(Apply("keys", (CONFIG,), "c.keys()")), '["a"]', Truth.UNKNOWN),  # a list has no keys()
    # a pydantic model's record of JSON text: defaults under the given fields; what it surely refuses raises
    (Compare("==", Apply(ATTRIBUTE, (RECORD, Const("publisher")), "r.publisher"), Const("null")), '{}', Truth.TRUE),
    (Compare("==", Apply(ATTRIBUTE, (RECORD, Const("publisher")), "r.publisher"), Const("zmq")),
     '{"publisher": "zmq", "extra": 1}', Truth.TRUE),  # fields it does not declare are ignored
    (Truthy(Apply(RAISES, (Const(("Exception",)), RECORD), "try")), "not json", Truth.TRUE),
    (Truthy(Apply(RAISES, (Const(("Exception",)), RECORD), "try")), '["a"]', Truth.TRUE),
    (Truthy(Apply(RAISES, (Const(("Exception",)), RECORD), "try")), '{"format": "other"}', Truth.TRUE),
    (Truthy(Apply(RAISES, (Const(("Exception",)), RECORD), "try")), '{"format": "dynamo"}', Truth.FALSE),
    (Truthy(Apply(RAISES, (Const(("Exception",)), RECORD), "try")), '{"publisher": 5}', Truth.UNKNOWN),  # coercion
    # what json.loads raises is the real JSONDecodeError, a ValueError
    (Truthy(Apply(RAISES, (Const(("JSONDecodeError",)), CONFIG), "try")), "{", Truth.TRUE),
    (Truthy(Apply(RAISES, (Const(("ValueError",)), CONFIG), "try")), "{", Truth.TRUE),
    (Truthy(Apply(RAISES, (Const(("ValueError",)), CONFIG), "try")), "{}", Truth.FALSE),
    (Compare(">", Apply("len", (Apply("encode", (Apply("lstrip", (flag("lora_paths"),), "l"), Const("utf-8")), "e"),),
                        "n"), Const(2)), "  ab", Truth.FALSE),
    # ``any(c not in "0123456789abcdef" for c in text)``: the characters of a text outside another
    (Truthy(Apply("-", (flag("lora_paths"), Const("0123456789abcdef")), "any")), "zz", Truth.TRUE),
    (Truthy(Apply("-", (flag("lora_paths"), Const("0123456789abcdef")), "any")), "0a1f", Truth.FALSE),
    (Truthy(Apply("&", (flag("lora_paths"), Const("xyz")), "any")), "abz", Truth.TRUE),
    # items of a list against a text: ``x in text`` is a substring test, as in Python
    (Truthy(Apply("-", (Const(("ab", "bc")), flag("lora_paths")), "any")), "abc", Truth.FALSE),
])
def test_json_text_and_string_methods(expr, text, expected):
    assert evaluate(expr, Launch({"lora_paths": text}), MODEL) is expected


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
        # a dict constant is a dict (`isinstance(x, dict)`, `d[k]`)
        (Truthy(Apply("isinstance", (Const(FrozenMap()), Const("dict")), "isinstance(x, dict)")), {}, {}, Truth.TRUE),
        (Compare("==", Apply("item", (Const(FrozenMap({"a": "b"})), Const("a")), "d['a']"), Const("b")), {}, {},
         Truth.TRUE),
        # a field of a record (what a helper returns, as a fact states it); of anything else unknown
        (Truthy(Apply(ATTRIBUTE, (Const(FrozenMap({"uses": True})), Const("uses")), "s.uses")), {}, {}, Truth.TRUE),
        (Truthy(Apply(ATTRIBUTE, (Const("text"), Const("uses")), "s.uses")), {}, {}, Truth.UNKNOWN),
        # a comparison with ``a if t else b`` where t is unknown: decided when both branches agree
        (Compare("==", Apply(IF, (Truthy(HIP), flag("tp_size"), Const(1)), "x"), Const(2)), {}, {}, Truth.FALSE),
        (Compare("==", Apply(IF, (Truthy(HIP), flag("tp_size"), Const(2)), "x"), Const(2)), {}, {}, Truth.UNKNOWN),
        # a set literal (a tuple constant) compared in order with a set is a set: a subset test
        (Compare("<=", Apply("set", (Seq((flag("device"),)),), "{cfg.device}"), Const(("cuda", "npu"))), {}, {},
         Truth.TRUE),
        (Compare("<=", Apply("set", (Seq((flag("device"),)),), "{cfg.device}"), Const(("npu",))), {}, {},
         Truth.FALSE),
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
        # ordering None raises TypeError: ``a and b`` stops there as Python does (sglang 0.5.23
        # speculative_hook.py:1274 `cfg.speculative_eagle_topk > 1 and view.page_size > 1`)
        (Compare(">", SPEC, Const(1)), {}, {}, Truth.UNKNOWN),
        (And((Compare(">", SPEC, Const(1)), Compare(">", flag("tp_size"), Const(1)))), {}, {}, Truth.UNKNOWN),
        (And((Compare(">", flag("tp_size"), Const(1)), Compare(">", SPEC, Const(1)))), {}, {}, Truth.FALSE),
        (Not(And((Compare(">", SPEC, Const(1)), LORA))), {}, {}, Truth.UNKNOWN),
        (Or((Compare("<", SPEC, Const(1)), Not(LORA))), {}, {}, Truth.UNKNOWN),
        (And((Compare(">", flag("tp_size"), Const(1)), Compare(">", SPEC, Const(1)))), {"tp_size": 2}, {},
         Truth.UNKNOWN),
        (Compare("==", SPEC, Const(1)), {}, {}, Truth.FALSE),  # equality with None never raises
        # a conversion (a formatted string's text) is never None, whatever its value
        (Compare("is not", FTEXT, Const(None)), {}, {}, Truth.TRUE),
        (Compare("is", FTEXT, Const(None)), {}, {}, Truth.FALSE),
        (Compare("==", FTEXT, Const("x")), {}, {}, Truth.UNKNOWN),
        # a derived name no rule sets is unknown
        (Truthy(flag("attention_backends_of()", "attention_backends_of(cfg)")), {}, {}, Truth.UNKNOWN),
        # a private attribute read with a default: the default while nothing sets it
        (Truthy(Apply(UNSET_OR, (flag("_failed"), Const(False)), "getattr(cfg, '_failed', False)")), {}, {},
         Truth.FALSE),
        (Truthy(Apply(UNSET_OR, (flag("_failed"), Const(False)), "getattr(cfg, '_failed', False)")),
         {"_failed": True}, {}, Truth.TRUE),
        # adjustments: --lora-paths implies --enable-lora
        (LORA, {"lora_paths": ("a",)}, {}, Truth.TRUE),
        (LORA, {}, {}, Truth.FALSE),
        # a stand-in's markup is not the path it stands for: a path holds no ":"
        (In(Const(":"), flag("device")), {"device": "<model:Arch>"}, {}, Truth.FALSE),
        (In(Const(":"), flag("device")), {"device": "<model>"}, {}, Truth.FALSE),
        (In(Const("model"), flag("device")), {"device": "<model>"}, {}, Truth.UNKNOWN),
        (In(Const(":"), flag("device")), {"device": "cu:da"}, {}, Truth.TRUE),
    ],
)
def test_evaluate(expr, flags, envs, expected):
    assert evaluate(expr, Launch(flags, envs), MODEL) is expected


FALLBACKS = build_flag_model({
    "p/arg_groups/arg_utils.py": "from typing import Annotated\nA = Annotated\nclass Arg: pass\n",
    "p/arg_groups/fields/x.py": (
        "from typing import Optional\nfrom p.arg_groups.arg_utils import A, Arg\nclass X:\n"
        "    ratio: A[Optional[float], Arg(help='h', fallback=0.8)] = None\n"
        "    plain: A[Optional[float], Arg(help='h')] = None\n")})
IN_RANGE = Compare("<=", Apply(OR_FALLBACK, (flag("ratio"),), "resolution_result(cfg, 'ratio')"), Const(1.0))


@pytest.mark.parametrize(("flags", "expected"), [
    ({}, 0.8),  # unset: the declared fallback
    ({"ratio": 1.5}, 1.5),
])
def test_a_reader_call_is_the_field_or_its_declared_fallback(flags, expected):
    values = Values(Model(FALLBACKS, ()), Launch(flags, {}))
    assert compile_value(Apply(OR_FALLBACK, (flag("ratio"),), "r"), Model(FALLBACKS, ()))(values) == expected
    assert evaluate(IN_RANGE, Launch(flags, {}), Model(FALLBACKS, ())) is (Truth.TRUE if expected <= 1 else Truth.FALSE)


def test_no_declared_fallback_leaves_none():
    model = Model(FALLBACKS, ())
    assert compile_value(Apply(OR_FALLBACK, (flag("plain"),), "r"), model)(Values(model, Launch({}, {}))) is None


TP1 = Compare("==", flag("tp_size"), Const(1))
ON_CUDA = Compare("==", flag("device"), Const("cuda"))


@pytest.mark.parametrize(
    ("rules", "flags", "expr", "expected"),
    [
        ((Rule("tp_size", Const(8), Truthy(HIP)),), {}, TP1, Truth.UNKNOWN),        # undecided condition
        ((Rule("tp_size", Const(1), Truthy(HIP)),), {}, TP1, Truth.TRUE),           # both outcomes agree
        ((Rule("tp_size", Unknown("auto()"), TRUE),), {}, TP1, Truth.UNKNOWN),      # value not computable
        ((Rule("tp_size", Const(8), TRUE),), {"tp_size": 1}, TP1, Truth.FALSE),     # a sure rule overrides it
        ((Rule("tp_size", Const(8), Truthy(HIP)),), {"tp_size": 1}, TP1, Truth.TRUE),  # an unknown one keeps it
        # ... but a rule reading the setting it writes normalises the given value
        ((Rule("device", Const("cuda"), Compare("==", flag("device"), Const("gpu"))),), {"device": "gpu"},
         ON_CUDA, Truth.TRUE),
        ((Rule("device", Apply("lower", (flag("device"),), "device.lower()"), TRUE),), {"device": "CUDA"},
         ON_CUDA, Truth.TRUE),
        # ... or a helper of the project's, summarised (``device = resolve_alias(device)``)
        ((Rule("device", Apply(STATED_OR, (Apply("resolve_alias", (flag("device"),), "resolve_alias(device)"),
                                           Apply(IF, (Compare("==", flag("device"), Const("gpu")), Const("cuda"),
                                                      flag("device")), "alias")), "r"), TRUE),),
         {"device": "gpu"}, ON_CUDA, Truth.TRUE),
        # ... not one choosing the new value by other conditions: the given value is kept
        # while the condition is unknown
        ((Rule("device", Apply(IF, (Truthy(HIP), Const("cuda"), Const("cpu")), "c"),
               And((Truthy(HIP), Compare("==", flag("device"), Const("gpu"))))),), {"device": "gpu"}, ON_CUDA,
         Truth.FALSE),
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


def test_a_later_rule_overrides_an_earlier_one_in_program_order():
    # ``x = False`` always, then ``x = True`` always (a resolution declaring it later)
    ordered = (Rule("enable_lora", TRUE, TRUE, at=2), Rule("enable_lora", FALSE, TRUE, at=1))
    assert evaluate(LORA, Launch(), Model(FLAGS, ordered)) is Truth.TRUE


def test_rules_in_program_order_run_once_on_what_the_earlier_ones_left():
    # ``if enable_lora: tp_size = 2`` then ``if not enable_lora: enable_lora = True`` (later)
    ordered = (Rule("tp_size", Const(2), LORA, at=1), Rule("enable_lora", TRUE, Not(LORA), at=2))
    assert evaluate(Compare("==", flag("tp_size"), Const(1)), Launch(), Model(FLAGS, ordered)) is Truth.TRUE


def test_rules_from_catalog_dicts():
    when = {"text": "t", "expr": Truthy(flag("lora_paths")).as_dict()}
    data = {"dest": "enable_lora", "value": TRUE.as_dict(), "when": when}
    assert rules_from_adjustments([data]) == (IMPLIES_LORA,)


def test_undecided_leaves_name_the_reason():
    expr = And((Not(LORA), Truthy(HIP), Truthy(Unknown("f(x)"))))
    assert undecided_leaves(expr, Launch(), MODEL) == ["platform:is_hip", "f(x)"]


def test_no_flag_model_means_unknown_defaults():
    assert evaluate(Compare("==", flag("tp_size"), Const(1)), Launch(), Model()) is Truth.UNKNOWN
    assert evaluate(Compare("==", flag("tp_size"), Const(1)), Launch({"tp_size": 1}), Model()) is Truth.TRUE


# ------------------------------------------------------------------ the fast path against a plain walk
# `analyzers.evaluate` defines the semantics once, as compiled code, and memoises per
# condition shape and launch. This is the same semantics as a plain tree walk, written
# independently of it: the fast path must give exactly its answers.


def _ref(expr: Expr) -> Ref:
    assert isinstance(expr, Ref)  # the rules these tests walk name a setting here
    return expr


def _with_side(expr: Compare, side: str, value: Expr) -> Compare:
    return dataclasses.replace(expr, left=value) if side == "left" else dataclasses.replace(expr, right=value)


def walk_value(expr, values):
    """The Python value a term has (UNKNOWN when it cannot be decided)."""
    if isinstance(expr, Const):
        return expr.value
    if isinstance(expr, Ref):
        return walk_ref(expr, values)
    if isinstance(expr, Unknown):  # a call the launch may state: fact ``runtime:<text>``
        return values.launch.facts.get(f"runtime:{expr.text}", UNKNOWN)
    if isinstance(expr, Seq):
        items = tuple(walk_value(i, values) for i in expr.items)
        return UNKNOWN if any(i is UNKNOWN for i in items) else items
    if isinstance(expr, Apply):
        if expr.fn == IF and len(expr.args) == 3:
            return _choose(walk_truth(expr.args[0], values), lambda i: walk_value(expr.args[i], values))
        if expr.fn == ON_COMMAND_LINE:
            return _ref(expr.args[0]).name in values.launch.flags
        if expr.fn == UNSET_OR:
            name, flags = _ref(expr.args[0]).name, values.model.flags
            declared = flags is not None and flags.by_dest(name) is not None
            if name in values.adjusted or name in values.launch.flags or declared or flags is None:
                return walk_value(expr.args[0], values)
            return walk_value(expr.args[1], values)
        if expr.fn == STATED_OR:
            found = walk_value(expr.args[0], values)
            return found if found is not UNKNOWN else walk_value(expr.args[1], values)
        if expr.fn == OR_FALLBACK:
            found = walk_value(expr.args[0], values)
            flag = values.model.flags.by_dest(_ref(expr.args[0]).name) if values.model.flags is not None else None
            return found if found is not None else literal_default(flag.fallback) if flag is not None else UNKNOWN
        if expr.fn not in FUNCTIONS:
            return walk_runtime(expr, values)
        return apply(expr.fn, [walk_value(a, values) for a in expr.args])
    if isinstance(expr, (And, Or)):
        return walk_and_or(expr, values)
    if isinstance(expr, Truthy) and not isinstance(expr.term, CONDITION_KINDS):
        return walk_value(expr.term, values)
    result = walk_truth(expr, values)
    return UNKNOWN if result is None or result is RAISING else result


def walk_runtime(expr, values):
    """A function the evaluator cannot compute: the row of fact ``runtime:<fn>`` for its
    leading arguments (None: any), else unknown."""
    args = [walk_value(a, values) for a in positional(expr.args)]
    for wanted, result in values.launch.facts.get(f"runtime:{expr.fn}") or ():
        if wanted is None or (len(wanted) <= len(args)
                              and all(same(w, a) for w, a in zip(wanted, args[:len(wanted)], strict=True))):
            return result
    return UNKNOWN


def walk_ref(ref, values):
    if ref.kind is RefKind.FLAG:
        got = values.flag(ref.name)
        return _method_ref(ref, values) if got is UNKNOWN and base_dest(ref.name) != ref.name else got
    if ref.kind is RefKind.ENV:
        return values.env(ref.name)
    return values.fact(ref)


def walk_and_or(expr, values):
    """Python's ``a and b`` / ``a or b``: the deciding operand's value."""
    last = UNKNOWN
    for arg in expr.args:
        last = walk_value(arg, values)
        if last is UNKNOWN:
            return UNKNOWN
        try:
            decided = bool(last)
        except Exception:  # noqa: BLE001 (raising here means unknown, as in the evaluator)
            return UNKNOWN
        if decided != isinstance(expr, And):
            return last
    return last


def walk_truth(expr, values):
    """Kleene truth of a condition: True, False or None (unknown)."""
    if isinstance(expr, Not):
        inner = walk_truth(expr.arg, values)
        return inner if inner is None or inner is RAISING else not inner
    if isinstance(expr, (And, Or)):
        stop, undecided = isinstance(expr, Or), False
        for arg in expr.args:  # in order: an operand that raises ends it, as in Python
            result = walk_truth(arg, values)
            if result is RAISING:
                return None if undecided else RAISING
            if result is stop:
                return stop
            undecided = undecided or result is None
        return None if undecided else not stop
    if isinstance(expr, Compare) and expr.op in ("is", "is not") and Const(None) in (expr.left, expr.right) \
            and any(isinstance(s, Apply) and s.fn in ("int", "float", "str", "bool", "len")
                    for s in (expr.left, expr.right)):
        return expr.op == "is not"  # a conversion gives a value (or raises): never None
    if isinstance(expr, Compare) and expr.op in COMPARE:
        for side, name in ((expr.left, "left"), (expr.right, "right")):
            if isinstance(side, Apply) and side.fn == IF and len(side.args) == 3:  # decided per branch
                test = walk_truth(side.args[0], values)
                if test is RAISING:
                    return RAISING
                then, other = (walk_truth(_with_side(expr, name, b), values) for b in side.args[1:])
                return (then if test else other) if test is not None else then if then == other else None
    if isinstance(expr, Compare):
        left, right = walk_value(expr.left, values), walk_value(expr.right, values)
        if left is UNKNOWN or right is UNKNOWN or expr.op not in COMPARE:
            return None
        try:
            return bool(COMPARE[expr.op](left, right))
        except Exception:  # noqa: BLE001 (Python raises ordering None; otherwise unknown, as in the evaluator)
            return RAISING if expr.op in ("<", "<=", ">", ">=") and None in (left, right) else None
    if isinstance(expr, In):
        return walk_contains(expr, values)
    term = expr.term if isinstance(expr, Truthy) else expr
    if isinstance(term, CONDITION_KINDS):
        return walk_truth(term, values)
    got = walk_value(term, values)
    if got is UNKNOWN:
        return None
    try:
        return bool(got)
    except Exception:  # noqa: BLE001 (raising here means unknown, as in the evaluator)
        return None


def walk_contains(expr, values):
    item = walk_value(expr.item, values)
    if isinstance(expr.container, Seq):  # decided by the known items even if some are not
        found = [None if got is UNKNOWN or item is UNKNOWN else got == item
                 for got in (walk_value(e, values) for e in expr.container.items)]
        return True if True in found else None if None in found else False
    container = walk_value(expr.container, values)
    if item is UNKNOWN or container is UNKNOWN:
        return None
    if is_placeholder(container) and isinstance(item, str):
        return placeholder_contains(item)
    try:
        return item in container
    except Exception:  # noqa: BLE001 (raising here means unknown, as in the evaluator)
        return None


def walk_resolve(model, launch, rules):
    """The adjustment fixed point, walking each rule."""
    values = Values(model, launch)
    for _ in range(MAX_ROUNDS):
        changed = set()
        for rule in rules:
            fires = walk_truth(rule.when, values)
            fires = None if fires is RAISING else fires
            if fires is False or (fires is None and rule.dest in launch.flags and not rewrites_itself(rule)):
                continue
            current = values.flag(rule.dest)
            new = walk_value(rule.value, values)
            if fires is None and not same(new, current):
                new = UNKNOWN
            if not same(new, current):
                values.adjusted[rule.dest] = new
                changed.add(rule.dest)
        if not changed:
            return values
    for dest in changed:
        values.adjusted[dest] = UNKNOWN
    return values


def reference(expr, launch, model):
    result = walk_truth(expr, walk_resolve(model, launch, model.relevant_rules(expr)))
    return Truth.of(None if result is RAISING else result)


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
TERMS: list[Expr] = [
         flag("tp_size"), flag("device"), flag("enable_lora"), flag("lora_paths"), SPEC, X, env("SGLANG_PLAN"),
         ENV_LIMIT, env("SGLANG_MODE"), HIP, Unknown("f(x)"),
         flag("device.startswith()", 'cfg.device.startswith("cu")'),
         Apply("len", (flag("lora_paths"),), "len(p)"), Apply("str", (flag("tp_size"),), "str(tp)"),
         Apply("%", (flag("tp_size"), Const(2)), "tp % 2"), Apply("frobnicate", (flag("device"),), "frobnicate(d)")]
CONSTS = [Const(v) for v in (1, True, 1.0, 2, 0, None, "cuda", "1", "1.0", "EAGLE", ("EAGLE", "EAGLE3"), ("a",), -0.0)]
VALUES = {
    "tp_size": [1, True, 1.0, 2, 4, "1", -0.0],
    "device": ["cuda", "cpu", "npu", 1, "<model:A>"],
    "enable_lora": [True, False, 1, None],
    "lora_paths": [("a",), (), ("a", "b"), ["a"], {"k": "v"}],
    "speculative_algorithm": ["EAGLE", "NGRAM", None, ("EAGLE",)],
    "x_mode": [True, False, 0],
}
ENVS = {"SGLANG_PLAN": ["1", "0", "yes"], "SGLANG_LIMIT": ["3", "7", "many"], "SGLANG_MODE": ["static", "x"]}
OPS = ["==", "!=", "is", "is not", "<", ">=", "~"]  # "~": no comparison we know


def random_condition(rng, depth=0):
    roll = rng.random()
    if depth > 2 or roll < 0.35:
        kind = rng.randrange(4)
        term, const = rng.choice(TERMS), rng.choice(CONSTS)
        if kind == 0:
            return Compare(rng.choice(OPS), term, const)
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
    if rng.random() < 0.5:  # what runtime helpers return: launches differing only there must not share a memo
        facts["runtime:f(x)"] = rng.choice([True, False])
        facts["runtime:frobnicate"] = rng.choice([((("cuda",), True),), ((None, False),)])
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


# Resolution by difference (`resolve` from the rule set's latest trace) against resolution from
# scratch: rules of one time and of unknown time, fields of a JSON setting, an env var the code
# sets, a derived setting a platform states; launches in a walk that changes a setting or two.
FIELD, CODE_ENV, DERIVED = flag("lora_paths.k"), "env:SGLANG_LIMIT", flag("is_fancy()", "is_fancy(cfg)")
WALK_TERMS: list[Expr] = [*TERMS, FIELD, DERIVED]
WALK_DESTS = [*VALUES, "lora_paths.k", CODE_ENV, "is_fancy()"]


def random_rules(rng):
    rules = []
    for _ in range(rng.randrange(4, 14)):
        value = rng.choice(WALK_TERMS + CONSTS + [random_condition(rng, 2)])
        when = rng.choice([random_condition(rng), Truthy(rng.choice(WALK_TERMS))])
        rules.append(Rule(rng.choice(WALK_DESTS), value, when, at=rng.choice([None, 1, 2, 2, 3, 5])))
    return tuple(rules)


def walk_step(rng, launch):
    for _ in range(rng.randrange(1, 3)):
        roll = rng.random()
        if roll < 0.6:
            dest = rng.choice(list(VALUES))
            value = rng.choice(VALUES[dest])
            launch = launch.without_flag(dest) if rng.random() < 0.2 else launch.with_flag(dest, value)
        elif roll < 0.8:
            name = rng.choice(list(ENVS))
            launch = launch.with_env(name, rng.choice([*ENVS[name], None]))
        else:
            key = rng.choice(["platform:is_hip", "runtime:is_fancy()", "runtime:f(x)"])
            launch = launch.with_fact(key, rng.choice([True, False, None]))
    return launch


@pytest.mark.parametrize("seed", range(80))
def test_resolution_by_difference_matches_resolution_from_scratch(seed):
    rng = random.Random(seed)
    rules = random_rules(rng)
    wanted = Seq(tuple(WALK_TERMS))
    model = Model(FLAGS, rules)
    launch = random_launch(rng)
    for _ in range(25):
        launch = walk_step(rng, launch)
        got = resolve(model, launch, model.rule_set(wanted)).adjusted
        scratch = Model(FLAGS, rules)  # no trace to start from
        want = resolve(scratch, launch, scratch.rule_set(wanted)).adjusted
        assert repr(list(got.items())) == repr(list(want.items())), (rules, launch)


def test_a_schedule_groups_the_rules_of_one_time_and_indexes_who_reads_each_key():
    rules = (Rule("device", Const("cpu"), LORA, at=1), Rule("tp_size", Const(2), LORA, at=1),
             Rule("x_mode", TRUE, Truthy(flag("device")), at=2), Rule("enable_lora", TRUE, Truthy(X)))
    model = Model(FLAGS, rules)
    plan = model.rule_set(Seq((flag("x_mode"), flag("tp_size")))).schedule(model, ())
    assert (plan.starts, plan.ends, plan.first_free) == ((0, 0, 2, 3), (1, 1, 2, 3), 3)
    assert plan.readers["device"] == (0, 2)  # the rule writing it, the one reading it
    assert (plan.readers["x_mode"], plan.free_readers["x_mode"]) == ((2, 3), (3,))


def test_a_setting_written_alike_again_differs_where_a_field_of_it_was_written_differently():
    rules = (Rule("lora_paths.k", Const("x"), LORA, at=1), Rule("lora_paths", Const(("a",)), TRUE, at=2),
             Rule("device", Const("cpu"), Compare("==", FIELD, Const("x")), at=3))
    model = Model(FLAGS, rules)
    rule_set = model.rule_set(flag("device"))
    assert resolve(model, Launch({"enable_lora": True}), rule_set).adjusted["device"] == "cpu"
    assert resolve(model, Launch({"enable_lora": False}), rule_set).adjusted["device"] is UNKNOWN  # not replayed


def test_rules_of_unknown_time_writing_one_setting_in_turn_leave_it_unknown():
    rules = (Rule("device", Const("cpu"), TRUE), Rule("device", Const("npu"), TRUE))  # neither reads it
    model = Model(FLAGS, rules)
    assert resolve(model, Launch(), model.rule_set(flag("device"))).adjusted["device"] is UNKNOWN


# hypothesis: terms and conditions of every kind, nested in each other
_LEAVES = st.sampled_from(TERMS + CONSTS)
_UNARY = st.sampled_from(["len", "str", "int", "bool", "lower", "sorted", "list", "abs", "frobnicate"])
_BINARY = st.sampled_from(["+", "-", "*", "%", "//", "**", "|", "startswith", "get", "item", "isinstance", "max"])


def _atoms(terms):
    return st.one_of(
        st.builds(Compare, st.sampled_from(OPS), terms, st.one_of(terms, st.sampled_from(CONSTS))),
        st.builds(In, terms, st.one_of(st.sampled_from(CONSTS), terms,
                                       st.builds(lambda i: Seq(tuple(i)), st.lists(terms, max_size=3)))),
        st.builds(Truthy, terms),
        st.sampled_from([TRUE, FALSE]),
    )


def _conditions(terms):
    return st.recursive(_atoms(terms), lambda inner: st.one_of(
        st.builds(Not, inner),
        st.builds(Truthy, inner),
        st.builds(lambda a: And(tuple(a)), st.lists(inner, min_size=2, max_size=3)),
        st.builds(lambda a: Or(tuple(a)), st.lists(inner, min_size=2, max_size=3)),
    ), max_leaves=8)


def _terms(inner):
    return st.one_of(
        st.builds(lambda f, a: Apply(f, (a,), f"{f}(a)"), _UNARY, inner),
        st.builds(lambda f, a, b: Apply(f, (a, b), f"{f}(a, b)"), _BINARY, inner, inner),
        st.builds(lambda t, a, b: Apply(IF, (t, a, b), "a if t else b"), _atoms(_LEAVES), inner, inner),
        st.builds(lambda a: Seq(tuple(a)), st.lists(inner, max_size=3)),
        st.builds(lambda a: And(tuple(a)), st.lists(inner, min_size=2, max_size=3)),  # `a and b` as a value
        st.builds(lambda a: Or(tuple(a)), st.lists(inner, min_size=2, max_size=3)),
        st.builds(Truthy, inner),
        st.builds(Not, _atoms(_LEAVES)),
    )


TERM_TREES = st.recursive(_LEAVES, _terms, max_leaves=6)
CONDITIONS = _conditions(TERM_TREES)


def _settings(table):
    return st.lists(st.sampled_from([(k, v) for k, vs in table.items() for v in vs]), max_size=4).map(dict)


LAUNCHES = st.builds(Launch, _settings(VALUES), _settings(ENVS), _settings({
    "platform:is_hip": [True, False, 0], "runtime:f(x)": [True, 0, None, "cuda"],
    "runtime:frobnicate": [((None, 2),), ((("cuda",), True), (("<model:A>",), None)), ((("a",), "cpu"),)]}))
SHARED = Model(FLAGS, CHAINED)  # across examples too: what it remembers must never change an answer


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(CONDITIONS, st.lists(LAUNCHES, min_size=1, max_size=4))
@example(And((And((Compare("<", flag("tp_size"), flag("lora_paths")), In(flag("tp_size"), Const(1)))),  # raises first
              Truthy(flag("enable_lora")))), [Launch({}, {}, {"platform:is_hip": True})])
def test_fast_path_matches_the_walk_on_any_condition(expr, launches):
    for model in (SHARED, Model(FLAGS, CHAINED)):
        for launch in launches:
            want = reference(expr, launch, model)
            assert evaluate(expr, launch, model) is want
            parts = deciders(model, expr)  # an operand that raises ends the ``and`` (attempt, not decide)
            assert Truth.of(as_truth(kleene(tuple(p.attempt for p in parts), False, launch))) is want
            if want is Truth.TRUE:
                assert can_hold(model, expr, launch)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(TERM_TREES, CONDITIONS), LAUNCHES)
def test_compiled_code_matches_the_walk_on_any_node(expr, launch):
    values = walk_resolve(SHARED, launch, SHARED.relevant_rules(expr))
    for model in (None, SHARED):
        assert compile_truth(expr, model)(values) == walk_truth(expr, values)
        got, want = compile_value(expr, model)(values), walk_value(expr, values)
        assert got is want or same(got, want)


def test_the_model_is_frozen_and_its_cache_apart():
    model = Model(FLAGS, CHAINED)
    evaluate(And((LORA, Truthy(HIP))), Launch(), model)
    assert model.cache.plans and model == Model(FLAGS, CHAINED)  # what it remembers is not its value
    with pytest.raises(FrozenInstanceError):
        model.rules = ()  # type: ignore[misc]  # what the test checks: the runtime refuses it too
    model.forget_nodes()
    assert not model.cache.nodes and model.cache.plans  # results are kept per shape


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        (Compare("==", flag("tp_size"), Const(1)), Compare("==", flag("tp_size"), Const(1)), True),
        (Compare("==", flag("tp_size"), Const(1)), Compare("==", flag("tp_size"), Const(True)), False),
        (Compare("==", flag("tp_size"), Const(1)), Compare("==", flag("tp_size"), Const(1.0)), False),
        (And((LORA, Truthy(HIP))), And((LORA, Truthy(HIP))), True),
        (And((LORA, Truthy(HIP))), Or((LORA, Truthy(HIP))), False),
        (Not(LORA), Not(Truthy(flag("enable_lora"))), True),
        (Truthy(flag("tp_size")), Truthy(flag("tp_size", "args.tp_size")), False),  # source text is part of it
    ],
)
def test_expr_key_is_equal_exactly_for_the_same_tree(a, b, same):
    model = Model(FLAGS)
    assert (expr_key(model, a) == expr_key(model, b)) is same
    model.forget_nodes()
    assert (expr_key(model, a) == expr_key(model, b)) is same


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


def test_memo_tells_apart_launches_whose_helper_record_differs():
    """A rule reading a field of a helper's result (``model_config_of().is_multimodal``)
    reads the stated record: two launches that differ only there are not one memo entry."""
    field = Ref(RefKind.FLAG, "model_config_of().is_multimodal", "model_config_of(args).is_multimodal")
    model = Model(FLAGS, (Rule("tp_size", Const(8), Not(Truthy(field))),))
    eight = Compare("==", flag("tp_size"), Const(8))
    stated = [Launch({}, {}, {"runtime:model_config_of()": FrozenMap({"is_multimodal": m})}) for m in (True, False)]
    assert [evaluate(eight, launch, model) for launch in stated] == [Truth.FALSE, Truth.TRUE]


# A record setting ``c`` (``cuda_graph_config``): its value is what a helper returns
# (stated), its fields are adjusted one by one, and JSON on the command line is kept
# unless a rule surely rewrites the field.
RECORD_RULES = (
    Rule("c", Unknown("make_config()"), TRUE),
    Rule("c.decode.backend", Const("disabled"), Truthy(flag("enable_lora"))),
)
RECORD_MODEL = Model(FLAGS, RECORD_RULES)
BACKEND = Ref(RefKind.FLAG, "c.decode.backend", "getattr(cfg.c, phase).backend")
MADE = {"runtime:make_config()": {"decode": {"backend": "full"}}}


@pytest.mark.parametrize(("flags", "facts", "expected"), [
    ({}, MADE, "full"),  # the record's own field
    ({}, {}, UNKNOWN),  # nobody states what the helper returns
    ({"enable_lora": True}, MADE, "disabled"),  # an adjustment of the field
    ({"c": {"decode": {"backend": "breakable"}}}, MADE, "breakable"),  # the given JSON
    ({"c": {"decode": {"backend": "breakable"}}, "enable_lora": True}, MADE, "disabled"),  # rewritten, as declared
    ({"c": {"prefill": {}}}, MADE, "full"),  # given without the field: the record made for sure replaces it
])
def test_a_field_of_a_record_setting(flags, facts, expected):
    values = resolved(RECORD_MODEL, Launch(flags, {}, facts), RECORD_MODEL.rule_set(BACKEND))
    assert same(compile_value(BACKEND, RECORD_MODEL)(values), expected)


MODE_IS_SET = Apply(ON_COMMAND_LINE, (Ref(RefKind.ENV, "SGLANG_MODE", "e"),), "envs.SGLANG_MODE.is_set()")
ENV_SET = Rule("env:SGLANG_MODE", Const("python"), Not(Truthy(MODE_IS_SET)))
IS_PYTHON = Compare("==", Ref(RefKind.ENV, "SGLANG_MODE", "envs.SGLANG_MODE.get()"), Const("python"))


@pytest.mark.parametrize(("envs", "expected"), [
    ({}, Truth.TRUE),  # unset: the code sets it (its default "static" does not count as set)
    ({"SGLANG_MODE": "rust"}, Truth.FALSE),  # set by the user: kept
])
def test_an_env_var_the_code_sets(envs, expected):
    assert evaluate(IS_PYTHON, Launch({}, envs), Model(FLAGS, (ENV_SET,))) is expected


@pytest.mark.parametrize(("args", "truth"), [
    ((flag("device"),), Truth.TRUE),
    ((flag("device"), Const("rev"), Const(None)), Truth.TRUE),  # arguments after the stated ones are not read
    ((Const("npu"), flag("device")), Truth.UNKNOWN),  # the first differs: no row
])
def test_a_helper_stated_for_its_first_argument_holds_whatever_follows(args, truth):
    """``_target_checkpoint_dspark_subfolder(cfg.model_path, cfg.revision, cfg.download_dir)``:
    the profile states it for a generated model directory, whatever the revision."""
    launch = Launch({"device": "cuda"}, {}, {"runtime:frobnicate": ((("cuda",), True),)})
    assert evaluate(Truthy(Apply("frobnicate", args, "frobnicate(...)")), launch, Model(FLAGS, ())) is truth
