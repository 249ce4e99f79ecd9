"""The condition IR: normalisation and the JSON round trip every consumer relies on."""
from __future__ import annotations

import json

import pytest

from extractor.ir import (
    FALSE,
    TRUE,
    And,
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
    conj,
    disj,
    from_dict,
    negate,
    refs,
    simplify,
    unknowns,
)

A = Truthy(Ref(RefKind.FLAG, "a", "cfg.a"))
B = Truthy(Ref(RefKind.FLAG, "b", "cfg.b"))
X = Ref(RefKind.FLAG, "x", "cfg.x")
ENV = Ref(RefKind.ENV, "SGLANG_E", "envs.SGLANG_E.get()")


@pytest.mark.parametrize(
    "expr, expected",
    [
        (Not(Not(A)), A),
        (And((A, And((B, TRUE)))), And((A, B))),
        (Or((A, FALSE)), A),
        (And((A, FALSE)), FALSE),
        (Or((A, TRUE)), TRUE),
        (And((A, A)), A),
        (Not(Compare("==", X, Const(1))), Compare("!=", X, Const(1))),
        (Not(Compare("is", X, Const(None))), Compare("is not", X, Const(None))),
        (Truthy(Const(0)), FALSE),
        (In(Const("t"), Seq((X, ENV))), Or((Compare("==", X, Const("t")), Compare("==", ENV, Const("t"))))),
    ],
)
def test_simplify(expr, expected) -> None:
    assert simplify(expr) == expected


def test_negate_keeps_unknown_comparisons_wrapped() -> None:
    assert negate(Compare("<", X, Const(2))) == Not(Compare("<", X, Const(2)))


@pytest.mark.parametrize("expr", [A, And((A, Not(B))), In(X, Const(("a", None))), Unknown("f()"), conj([A, disj([B, ENV])])])
def test_json_round_trip(expr) -> None:
    assert from_dict(expr.as_dict()) == expr


def test_refs_and_unknowns_are_listed_once_in_source_order() -> None:
    expr = And((B, A, B, Truthy(Unknown("g()")), Truthy(Ref(RefKind.UNKNOWN, "p", "p"))))
    assert [r.name for r in refs(expr)] == ["b", "a", "p"]
    assert [u.text for u in unknowns(expr)] == ["g()", "p"]


@pytest.mark.parametrize(
    "parts, expected",
    [
        ([Not(In(X, Const(("NGRAM", None)))), In(X, Const(("EAGLE", "DSPARK")))], In(X, Const(("EAGLE", "DSPARK")))),
        ([In(X, Const(("a", "b"))), Compare("!=", X, Const("a"))], Compare("==", X, Const("b"))),
        ([Compare("==", X, Const("a")), Compare("==", X, Const("b"))], FALSE),
        ([Compare("!=", X, Const("a")), A], And((Compare("!=", X, Const("a")), A))),
    ],
)
def test_membership_constraints_on_one_term_merge(parts, expected) -> None:
    assert simplify(And(tuple(parts))) == expected


def test_nested_tuples_survive_the_json_round_trip() -> None:
    expr = Not(In(Seq((X, X)), Const(((4, 4), (8, 8)))))
    assert from_dict(json.loads(json.dumps(expr.as_dict()))) == expr


@pytest.mark.parametrize("value, member", [
    ("ConnectorType.INSTANCE", True),
    ("Backend.FULL_2", True),
    ("Backend.full", False),  # a method or attribute, not a member by the IR's rule
    ("backend.FULL", False),
    ("EAGLE", False),
    ("a.b.C", False),
    ("1.5", False),
    (3, False),
])
def test_is_member_text(value, member):
    from extractor.ir import is_member_text
    assert is_member_text(value) is member
