"""Triggers in user terms: flags as options, env vars as NAME=value."""
from __future__ import annotations

import pytest

from analyzers.trigger import Renderer, trigger_dict
from extractor.ir import And, Compare, Const, In, Not, Or, Ref, RefKind, Truthy, Unknown

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
         "`--speculative-adaptive` is set and (`SGLANG_ENABLE_OVERLAP_PLAN_STREAM=1` or `--speculative-algorithm` is X)"),
        (Not(And((Truthy(ADAPTIVE), Truthy(ENV)))), "`--speculative-adaptive` is not set or `SGLANG_ENABLE_OVERLAP_PLAN_STREAM=0` or unset"),
        (And((Truthy(ADAPTIVE), Const(True))), "`--speculative-adaptive` is set"),
        (Truthy(Unknown("f(x)")), "`f(x)` (unknown) is true/non-empty"),
    ],
)
def test_render(expr, text) -> None:
    assert R.text(expr) == text


def test_trigger_lists_flags_env_and_other_references() -> None:
    expr = And((Truthy(ADAPTIVE), Truthy(ENV), Truthy(Ref(RefKind.PLATFORM, "is_hip", "is_hip()")), Truthy(Unknown("g()"))))
    trig = trigger_dict(expr, R)
    assert (trig["flags"], trig["env"], trig["other"]) == (
        ["--speculative-adaptive"], ["SGLANG_ENABLE_OVERLAP_PLAN_STREAM"], ["platform:is_hip", "unknown:g()"]
    )


def test_nested_tuples_render_as_tuples() -> None:
    pair = Ref(RefKind.FLAG, "tp_size", "tp")
    assert R.text(Not(In(pair, Const(((4, 4), (8, 8)))))) == "`--tp-size` is not one of (4, 4), (8, 8)"
