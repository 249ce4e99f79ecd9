"""What kind of launch a check refuses, read off its condition's shape, naming no setting."""
from __future__ import annotations

import pytest

from analyzers.restriction import restriction
from extractor.ir import TRUE, And, Apply, Compare, Const, In, Not, Or, Ref, RefKind, Truthy


def flag(name: str) -> Ref:
    return Ref(RefKind.FLAG, name, f"cfg.{name}")


LORA, SPEC, TP, EP = Truthy(flag("enable_lora")), Truthy(flag("enable_spec")), flag("tp_size"), flag("ep_size")
HIP = Truthy(Ref(RefKind.PLATFORM, "is_hip", "is_hip()"))
MOE = Truthy(Ref(RefKind.MODEL, "is_moe", "model_config.is_moe"))
ENV = Truthy(Ref(RefKind.ENV, "SGLANG_X", "envs.SGLANG_X.get()"))


@pytest.mark.parametrize(("expr", "refuses"), [
    (TRUE, "every launch that reaches it"),
    (And((LORA, SPEC)), "a combination of features that cannot be used together"),
    (And((LORA, ENV)), "a combination of features that cannot be used together"),
    (And((LORA, Not(SPEC))), "a feature given without a setting it needs"),
    (LORA, "a feature that cannot be used here"),
    (And((LORA, HIP)), "a feature that cannot be used here on this platform"),
    (And((LORA, MOE)), "a feature that cannot be used here for this model"),
    (HIP, "a launch on this platform"),
    (Compare("<", TP, Const(1)), "a value outside its allowed range"),
    (Compare(">", EP, TP), "settings whose values do not fit together"),
    # given, and outside (0, 1]: one range, not a feature
    (And((Compare("is not", flag("frac"), Const(None)),
          Or((Compare("<=", flag("frac"), Const(0)), Compare(">", flag("frac"), Const(1)))))),
     "a value outside its allowed range"),
    (Not(In(flag("backend"), Const(("a", "b")))), "a value this code path does not accept"),
    (Not(Truthy(Apply("isinstance", (flag("paths"), Const("list")), "isinstance(p, list)"))),
     "a value of the wrong type or form"),
    (And((LORA, In(flag("algo"), Const(("EAGLE", "NGRAM"))))),
     "a combination of settings that cannot be used together"),
    (Truthy(Apply("f", (TP,), "f(tp)")), ""),  # a function errcat cannot read: says nothing
    (And((Truthy(Apply("f", (TP,), "f(tp)")), Compare(">", TP, Const(8)))), "a value outside its allowed range"),
    (And((Truthy(Apply("f", (TP,), "f(tp)")), HIP)), ""),
])
def test_restriction(expr, refuses):
    assert restriction(expr) == refuses
