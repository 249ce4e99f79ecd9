"""extractor.scope: what a name means at a point in a function."""
from __future__ import annotations

import libcst as cst
import pytest

from extractor.ir import Expr, Ref, RefKind, conj
from extractor.profile import load_profile
from extractor.scope import MAX_BRANCH_VALUES, MAX_REBINDS, Binding, Conditional, Opaque, Scope, joined, values_of
from extractor.tables import Table

PROFILE = load_profile("sglang")


def expr(code: str) -> cst.BaseExpression:
    return cst.parse_expression(code)


def bound(*assignments: str, consts: dict[str, str] | None = None) -> Scope:
    """A scope with `cfg` as the config after ``name = value`` lines, in order."""
    scope = Scope(PROFILE, {k: expr(v) for k, v in (consts or {}).items()}, aliases={"cfg"})
    for line in assignments:
        name, _, value = line.partition(" = ")
        scope.bind(name, expr(value))
    return scope


@pytest.mark.parametrize(
    "code, is_config",
    [
        ("cfg", True),
        ("other", False),
        ("resolving_view(cfg)", True),  # a view the profile names
        ("make_view(cfg)", True),  # the general shape of a view's name
        ("resolving_view(other)", False),  # a view of something else
        ("cfg._resolved()", True),  # a view method of the config
        ("other._resolved()", False),
        ("x or resolving_view(cfg)", True),  # cfg = cfg or view(server_args)
        ("f(cfg)", False),  # any function of the config is not the config
        ("cfg.a", False),
    ],
)
def test_is_config(code: str, is_config: bool) -> None:
    assert bound().is_config(expr(code)) is is_config


@pytest.mark.parametrize(
    "assignments, name, is_alias",
    [
        (["c = cfg"], "c", True),
        (["c = resolving_view(cfg)"], "c", True),
        (["c = cfg", "c = 1"], "c", False),  # rebinding to something else ends the alias
        (["c = cfg.a"], "c", False),
    ],
)
def test_binding_a_config_or_view_makes_an_alias(assignments: list[str], name: str, is_alias: bool) -> None:
    assert (name in bound(*assignments).aliases) is is_alias


@pytest.mark.parametrize(
    "assignment, rows, is_dict",
    [
        ("t = [1, 2]", 2, False),
        ("t = ('a', 'b', 'c')", 3, False),
        ("t = {'a': 1}", 1, True),
    ],
)
def test_binding_a_literal_collection_makes_a_table(assignment: str, rows: int, is_dict: bool) -> None:
    table = bound(assignment).lookup("t")
    assert isinstance(table, Table)
    assert (len(table.rows), table.is_dict) == (rows, is_dict)


def test_binding_a_starred_literal_keeps_the_expression() -> None:
    assert isinstance(bound("t = [*xs, 1]").lookup("t"), cst.List)


def test_lambda_is_recorded_by_name() -> None:
    assert set(bound("check = lambda: cfg.a").lambdas) == {"check"}


def test_rebinding_from_itself_substitutes_the_old_value() -> None:
    value = bound("w = cfg.width", "w = int(w)").lookup("w")
    assert isinstance(value, cst.BaseExpression)
    assert cst.Module([]).code_for_node(value) == "int(cfg.width)"


def test_substitution_keeps_attribute_and_keyword_names() -> None:
    value = bound("x = cfg.a", "x = g(x=x.x)").lookup("x")
    assert isinstance(value, cst.BaseExpression)
    assert cst.Module([]).code_for_node(value) == "g(x=cfg.a.x)"


def test_a_long_self_rebinding_chain_becomes_opaque() -> None:
    chain = ["x = cfg.a"] + ["x = x + 1"] * (MAX_REBINDS + 1)
    assert bound(*chain).lookup("x") == Opaque(f"a value recomputed from itself {MAX_REBINDS + 1} times")


@pytest.mark.parametrize(
    "assignments, consts, name, expected",
    [
        ([], {"LIMIT": "8"}, "LIMIT", "8"),  # a module constant
        (["LIMIT = 4"], {"LIMIT": "8"}, "LIMIT", "4"),  # a local shadows it
        ([], {}, "missing", None),
    ],
)
def test_lookup_prefers_locals_over_module_constants(
    assignments: list[str], consts: dict[str, str], name: str, expected: str | None,
) -> None:
    found = bound(*assignments, consts=consts).lookup(name)
    assert (None if found is None else cst.Module([]).code_for_node(found)) == expected  # type: ignore[arg-type]


C, D = Ref(RefKind.FLAG, "c", "cfg.c"), Ref(RefKind.FLAG, "d", "cfg.d")
A, B, E = expr("'a'"), expr("'b'"), expr("'e'")


@pytest.mark.parametrize("branches, otherwise, expected", [
    ([(C, B)], A, Conditional(C, B, A)),  # if c: x = b
    ([(C, B), (D, E)], A, Conditional(C, B, Conditional(D, E, A))),  # if c: ... elif d: ...
    ([(C, None)], A, A),  # a branch that does not bind it
    ([(C, A)], A, A),  # nor one that leaves it as it was
    ([(C, B)], None, B),  # unbound before: Python would raise NameError on the other path
    ([(C, Conditional(D, B, A))], A, Conditional(conj([C, D]), B, A)),  # nested: no second copy of `a`
])
def test_joined_is_the_first_branch_whose_test_holds(branches, otherwise, expected) -> None:
    assert joined("x", branches, otherwise) == expected


def test_joined_past_the_cap_is_opaque() -> None:
    branches: list[tuple[Expr, Binding | None]] = [(C, expr(f"'v{i}'")) for i in range(MAX_BRANCH_VALUES)]
    assert values_of(joined("x", branches[:-1], A)) == MAX_BRANCH_VALUES  # type: ignore[arg-type]
    assert joined("x", branches, A) == Opaque(f"a value chosen between more than {MAX_BRANCH_VALUES} values")


def test_joined_counts_a_value_repeated_under_many_tests_once() -> None:
    branches: list[tuple[Expr, Binding | None]] = [(C, expr("'cpu'")) for _ in range(MAX_BRANCH_VALUES)]
    branches.append((C, expr("'gpu'")))
    found = joined("x", branches, A)
    assert isinstance(found, Conditional) and values_of(found) == MAX_BRANCH_VALUES + 2


def test_rebinding_a_joined_name_from_itself_applies_to_each_value() -> None:
    scope = bound("x = cfg.a")
    scope.bindings["x"] = Conditional(C, B, scope.bindings["x"])
    scope.bind("x", expr("x.lower()"))
    value = scope.lookup("x")
    assert isinstance(value, Conditional) and value.cond == C
    code = cst.Module([]).code_for_node
    assert (code(value.value), code(value.previous)) == ("'b'.lower()", "cfg.a.lower()")  # type: ignore[arg-type]
