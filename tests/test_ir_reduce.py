"""extractor.ir_reduce: a condition as a person reads it, with what its own operands decide
folded away and shared operands said once; equivalent to it under every truth of its tests."""
from __future__ import annotations

import itertools

import pytest

from analyzers.trigger import Renderer
from extractor.ir import And, Compare, Const, Expr, In, Not, Or, Ref, RefKind, Truthy, negate
from extractor.ir_reduce import reduced


def flag(name: str) -> Truthy:
    return Truthy(Ref(RefKind.FLAG, name, f"cfg.{name}"))


A, B, C, D = flag("a"), flag("b"), flag("c"), flag("d")
MODE = Ref(RefKind.FLAG, "mode", "cfg.mode")
SIZE = Ref(RefKind.FLAG, "size", "cfg.size")
R = Renderer()


@pytest.mark.parametrize(
    "expr, expected",
    [
        # absorption: an operand the rest of a conjunction holds is no condition
        (And((A, Or((A, B)))), A),
        (Or((A, And((A, B)))), A),
        # an operand read knowing the others hold (fail): `a and (not a or b)` is `a and b`
        (And((A, Or((Not(A), B)))), And((A, B))),
        (Or((A, And((Not(A), B)))), Or((A, B))),
        # the same guard repeated inside a branch of both outcomes: `a and (a and b or a and not b)`
        (And((A, Or((And((A, B)), And((A, Not(B))))))), A),
        # the distributive law backwards: a shared operand is said once
        (And((Or((A, B)), Or((A, C)))), Or((A, And((B, C))))),
        (Or((And((A, B)), And((A, C)))), And((A, Or((B, C))))),
        # a value an operand gives decides the other tests of that value, a substring test too
        (And((Compare("==", MODE, Const("Olmo2")), Not(In(Const("Step3"), MODE)), B)),
         And((Compare("==", MODE, Const("Olmo2")), B))),
        (And((Compare("==", MODE, Const("x")), Or((Compare("!=", MODE, Const("x")), B)))),
         And((Compare("==", MODE, Const("x")), B))),
        (And((Compare("==", MODE, Const("x")), Or((In(MODE, Const(("y", "z"))), B)))),
         And((Compare("==", MODE, Const("x")), B))),
        # ... and where a disjunction's other operand fails, ``x != 0`` failing says ``x`` is 0:
        # ``x < 1 or x != 0`` always holds
        (And((B, Or((Compare("<", SIZE, Const(1)), Compare("!=", SIZE, Const(0)))))), B),
        (Or((Compare(">", SIZE, Const(2)), Compare("!=", SIZE, Const(0)))), Compare("!=", SIZE, Const(0))),
        # the numbers one comparison leaves a value decide another: ``x >= 1`` makes ``x != 0`` hold
        (And((Compare(">=", SIZE, Const(1)), Compare("!=", SIZE, Const(0)))), Compare(">=", SIZE, Const(1))),
        (And((Compare(">", SIZE, Const(2)), Compare("<", SIZE, Const(1)))), Const(False)),
        (Or((Compare("<=", SIZE, Const(0)), Compare("<", SIZE, Const(1)))), Compare("<", SIZE, Const(1))),
        (And((Not(Compare("<", SIZE, Const(1))), Compare("!=", SIZE, Const(0)))), Not(Compare("<", SIZE, Const(1)))),
        # ... read as real numbers: 1 < x < 2 is no contradiction
        (And((Compare(">", SIZE, Const(1)), Compare("<", SIZE, Const(2)))),
         And((Compare(">", SIZE, Const(1)), Compare("<", SIZE, Const(2))))),
        # nothing to fold: the condition as it was
        (And((A, Or((B, C)))), And((A, Or((B, C))))),
        (Not(A), Not(A)),
        (And((Not(A), B)), And((Not(A), B))),
    ],
)
def test_reduced(expr: Expr, expected: Expr) -> None:
    assert reduced(expr) == expected


def _truth(expr: Expr, assigned: dict[Expr, bool]) -> bool:
    if isinstance(expr, And):
        return all(_truth(a, assigned) for a in expr.args)
    if isinstance(expr, Or):
        return any(_truth(a, assigned) for a in expr.args)
    if isinstance(expr, Not):
        return not _truth(expr.arg, assigned)
    if isinstance(expr, Const):
        return bool(expr.value)
    return assigned[expr]


def _conditions(depth: int) -> list[Expr]:
    """Every and/or/not shape over a, b, c up to `depth`, two operands each."""
    found: list[Expr] = [A, B, C, Not(A)]
    for _ in range(depth):
        found += [kind((x, y)) for kind in (And, Or) for x, y in itertools.combinations(found[:12], 2)]
    return found


@pytest.mark.parametrize("expr", _conditions(2)[:400:7])
def test_reduced_is_equivalent_under_every_truth_of_its_tests(expr: Expr) -> None:
    for values in itertools.product((False, True), repeat=3):
        assigned: dict[Expr, bool] = dict(zip((A, B, C), values, strict=True))
        assert _truth(reduced(expr), assigned) == _truth(expr, assigned), expr


def test_two_operands_that_say_the_same_do_not_both_fold_away() -> None:
    # ``x > 1 or 1 < x``: each implies the other; one of them stays
    found = reduced(Or((Compare(">", SIZE, Const(1)), Compare("<", Const(1), SIZE))))
    assert found in (Compare(">", SIZE, Const(1)), Compare("<", Const(1), SIZE))


def test_a_not_operand_is_not_decided_by_itself() -> None:
    assert reduced(And((Not(A), Or((B, C))))) == And((negate(A), Or((B, C))))


def test_triggers_render_the_reduced_condition() -> None:
    assert R.text(And((A, Or((Not(A), B))))) == "`--a` is set and `--b` is set"


def test_the_facts_an_operand_is_read_with_are_the_other_operands_and_the_outer_ones():
    from extractor.ir_reduce import _Layer

    layer = _Layer((A, B), True, {C: False})
    assert dict(layer.without(0)) == {B: True, C: False}
    layer.dropped.add(1)  # an operand read away says nothing to the rest
    assert dict(layer.without(0)) == {C: False}
