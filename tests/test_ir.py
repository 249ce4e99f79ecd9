"""The condition IR: normalisation and the JSON round trip every consumer relies on."""
from __future__ import annotations

import json

import pytest

from extractor.ir import (
    FALSE,
    IF,
    KINDS,
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
    Visitor,
    as_condition,
    children,
    conj,
    conjuncts,
    disj,
    disjuncts,
    from_dict,
    is_condition,
    is_truthiness,
    map_children,
    negate,
    rebuild,
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
        (In(X, Const(())), FALSE),  # nothing is in an empty collection
        # a tuple of terms in a table of tuples: row by row
        (In(Seq((X, ENV)), Const(((4, 4), (8, 8)))),
         Or((And((Compare("==", X, Const(4)), Compare("==", ENV, Const(4)))),
             And((Compare("==", X, Const(8)), Compare("==", ENV, Const(8))))))),
        (In(Seq((X, ENV)), Const(((4, 4), (8,)))), In(Seq((X, ENV)), Const(((4, 4), (8,))))),  # rows of another size
        (Not(In(X, Const(()))), TRUE),
        (Or((And((A, B)), Not(A))), Or((And((A, B)), Not(A)))),  # no operand is another's negation
        (Or((B, A, Not(A))), TRUE),  # an operand or its negation holds
        (And((B, Compare("==", X, Const(1)), Compare("!=", X, Const(1)))), FALSE),  # never both
        # a choice between constants compared with a constant is a test of the choice
        (Compare("is not", Apply(IF, (A, Const("v"), Const(None)), "c"), Const(None)), A),
        (Compare("==", Apply(IF, (A, Const("v"), Const(None)), "c"), Const("w")), FALSE),
        (Compare("==", Apply(IF, (A, Const(1), Const(2)), "c"), Const(2)), Not(A)),
        (Compare("==", Apply(IF, (A, Const(1), X), "c"), Const(2)),  # a branch not constant: as it is
         Compare("==", Apply(IF, (A, Const(1), X), "c"), Const(2))),
    ],
)
def test_simplify(expr, expected) -> None:
    assert simplify(expr) == expected


def test_negate_keeps_unknown_comparisons_wrapped() -> None:
    assert negate(Compare("<", X, Const(2))) == Not(Compare("<", X, Const(2)))


@pytest.mark.parametrize(
    "expr", [A, And((A, Not(B))), In(X, Const(("a", None))), Unknown("f()"), conj([A, disj([B, ENV])])]
)
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


def test_dict_constants_survive_the_json_round_trip() -> None:
    from extractor.frozen import FrozenMap
    expr = Compare("==", Ref(RefKind.FLAG, "c", "cfg.c"), Const(FrozenMap({"a": (1, 2), "b": FrozenMap()})))
    back = from_dict(json.loads(json.dumps(expr.as_dict())))
    assert back == expr and isinstance(back, Compare) and isinstance(back.right, Const)
    assert isinstance(back.right.value["b"], FrozenMap)


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


# ------------------------------------------------------------------- dispatch

_A = Ref(RefKind.FLAG, "a", "cfg.a")
_B = Ref(RefKind.FLAG, "b", "cfg.b")
_ONE_OF_EACH = [
    _A, Const(1), Unknown("x()"), Apply("len", (_A,), "len(cfg.a)"), Seq((_A, _B)),
    Truthy(_A), Compare("==", _A, Const(1)), In(_A, Seq((_B,))), Not(_A), And((_A, _B)), Or((_A, _B)),
]


def test_the_table_has_one_node_of_every_kind():
    assert sorted(type(n).__name__ for n in _ONE_OF_EACH) == sorted(k.__name__ for k in KINDS)


@pytest.mark.parametrize("node, condition", [
    (_A, False), (Const(True), False), (Apply("len", (_A,), "len(cfg.a)"), False), (Seq((_A,)), False),
    (Truthy(_A), True), (Compare("==", _A, _B), True), (In(_A, _B), True), (Not(_A), True),
    (And((_A, _B)), True), (Or((_A, _B)), True),
])
def test_is_condition_tells_truth_values_from_terms(node, condition):
    assert is_condition(node) is condition


@pytest.mark.parametrize("node, truthiness", [
    (Truthy(_A), True), (Truthy(Apply("len", (_A,), "len(cfg.a)")), True),
    (Truthy(Compare("==", _A, _B)), False), (Truthy(Truthy(_A)), False), (_A, False),
])
def test_is_truthiness_is_a_truthy_around_a_term(node, truthiness):
    assert is_truthiness(node) is truthiness


def test_as_condition_strips_truthy_around_conditions_only():
    cmp = Compare("==", _A, _B)
    assert as_condition(Truthy(Truthy(cmp))) == cmp
    assert as_condition(Truthy(_A)) == Truthy(_A)


@pytest.mark.parametrize("split, node, parts", [
    (conjuncts, And((_A, _B)), (_A, _B)), (conjuncts, Or((_A, _B)), (Or((_A, _B)),)), (conjuncts, _A, (_A,)),
    (disjuncts, Or((_A, _B)), (_A, _B)), (disjuncts, And((_A, _B)), (And((_A, _B)),)), (disjuncts, _A, (_A,)),
])
def test_junction_parts(split, node, parts):
    assert split(node) == parts


@pytest.mark.parametrize("node", _ONE_OF_EACH)
def test_rebuild_with_the_same_children_is_the_node_itself(node):
    assert rebuild(node, children(node)) is node


@pytest.mark.parametrize("node", _ONE_OF_EACH)
def test_map_children_replaces_every_direct_child(node):
    swapped = map_children(node, lambda c: _B if c == _A else c)
    assert children(swapped) == tuple(_B if c == _A else c for c in children(node))
    assert type(swapped) is type(node)


def test_a_visitor_without_a_handler_for_every_kind_fails_when_defined():
    with pytest.raises(TypeError, match=r"no handler for .*Seq"):
        class _Partial(Visitor[str]):
            def visit_Ref(self, expr: Ref) -> str:
                return expr.name


def test_a_visitor_with_generic_handles_the_kinds_it_leaves_out():
    class _Names(Visitor[str]):
        def visit_Ref(self, expr: Ref) -> str:
            return expr.name

        def generic(self, expr):
            return "+".join(self.visit(c) for c in children(expr))

    assert _Names().visit(And((_A, Not(_B)))) == "a+b"


def test_an_abstract_visitor_base_is_not_checked():
    class _Base(Visitor[int], abstract=True):
        pass

    class _Depth(_Base):
        def generic(self, expr):
            return 1 + max((self.visit(c) for c in children(expr)), default=0)

    assert _Depth().visit(And((_A, Not(_B)))) == 3
