"""What category of launch a check refuses, read off its condition's shape alone."""
from __future__ import annotations

import pytest

from analyzers.restriction import Category, restriction
from extractor.ir import TRUE, And, Apply, Compare, Const, In, Not, Or, Ref, RefKind, Truthy


def flag(name: str) -> Ref:
    return Ref(RefKind.FLAG, name, f"cfg.{name}")


LORA, SPEC, TP, EP = Truthy(flag("enable_lora")), Truthy(flag("enable_spec")), flag("tp_size"), flag("ep_size")
HIP = Truthy(Ref(RefKind.PLATFORM, "is_hip", "is_hip()"))
MOE = Truthy(Ref(RefKind.MODEL, "is_moe", "model_config.is_moe"))
ENV = Truthy(Ref(RefKind.ENV, "SGLANG_X", "envs.SGLANG_X.get()"))


@pytest.mark.parametrize(("expr", "refuses"), [
    (TRUE, None),
    (And((LORA, SPEC)), Category.EXCLUSIVE),
    (And((LORA, ENV)), Category.EXCLUSIVE),
    (And((LORA, Not(SPEC))), Category.COMPANION),
    (Not(SPEC), Category.COMPANION),
    (LORA, None),  # one feature: the message or the code around the check says more
    (And((LORA, HIP)), None),
    (HIP, Category.PLATFORM),
    (MOE, Category.MODEL),
    (Compare("<", TP, Const(1)), Category.RANGE),
    (Compare(">", EP, TP), Category.RANGE),  # a bound set by another setting
    # given, and outside (0, 1]: one range, not a feature
    (And((Compare("is not", flag("frac"), Const(None)),
          Or((Compare("<=", flag("frac"), Const(0)), Compare(">", flag("frac"), Const(1)))))),
     Category.RANGE),
    (Not(In(flag("backend"), Const(("a", "b")))), Category.RANGE),  # outside the accepted set
    (Not(Truthy(Apply("isinstance", (flag("paths"), Const("list")), "isinstance(p, list)"))), Category.PARSE),
    (And((LORA, In(flag("algo"), Const(("EAGLE", "NGRAM"))))), Category.EXCLUSIVE),
    (Truthy(Apply("f", (TP,), "f(tp)")), None),  # a function errcat cannot read: says nothing
    (And((Truthy(Apply("f", (TP,), "f(tp)")), Compare(">", TP, Const(8)))), Category.RANGE),
    (And((Truthy(Apply("f", (TP,), "f(tp)")), HIP)), None),
])
def test_restriction(expr, refuses):
    assert restriction(expr) == refuses
