"""extractor.tables: condition tables, from the literal to one site with a variant per row."""
from __future__ import annotations

import libcst as cst
import pytest

from extractor.ir import Ref, RefKind, Truthy
from extractor.records import Guard, GuardOrigin, RaiseSite, SiteKind, Variant
from extractor.tables import (
    Pending,
    Row,
    RowContext,
    Table,
    grown,
    iterated,
    merge_rows,
    row_bindings,
    row_parts,
    table_of,
    target_names,
    unconditional_items,
)
from extractor.templates import Template

CODE = cst.Module([]).code_for_node
GUARD = Guard(Truthy(Ref(RefKind.FLAG, "a", "cfg.a")), "cfg.a", GuardOrigin.IF)


def code(node: cst.CSTNode | tuple[cst.CSTNode, ...]) -> object:
    """Source text of a node, or of each part of a (key, value) pair."""
    if isinstance(node, tuple):
        return tuple(CODE(n) for n in node)
    return CODE(node)


def loop_target(target: str) -> cst.BaseAssignTargetExpression:
    return cst.ensure_type(cst.parse_statement(f"for {target} in t: pass"), cst.For).target


def rows_text(rows: tuple[Row, ...] | None) -> list[object] | None:
    return None if rows is None else [code(r.node) for r in rows]


@pytest.mark.parametrize(
    "literal, rows, is_dict",
    [
        ("[1, 2]", ["1", "2"], False),
        ("(a, (b, c))", ["a", "(b, c)"], False),
        ("{'x', 'y'}", ["'x'", "'y'"], False),
        ("{'k': v}", [("'k'", "v")], True),
        ("[*xs, 1]", None, None),  # starred: its rows are not known
        ("{**d, 'k': 1}", None, None),
        ("f()", None, None),
    ],
)
def test_table_of_literals(literal: str, rows: list[object] | None, is_dict: bool | None) -> None:
    table = table_of(cst.parse_expression(literal))
    if rows is None:
        assert table is None
    else:
        assert table is not None
        assert (rows_text(table.rows), table.is_dict) == (rows, is_dict)


def test_rows_carry_the_guards_they_were_added_under() -> None:
    table = table_of(cst.parse_expression("[1]"), (GUARD,))
    assert table is not None and table.rows[0].guards == (GUARD,)


@pytest.mark.parametrize(
    "literal, items",
    [("[a, b]", ["a", "b"]), ("{'k': v, 'j': w}", ["'k'", "'j'"])],
)
def test_items_are_what_iterating_yields(literal: str, items: list[str]) -> None:
    table = table_of(cst.parse_expression(literal))
    assert table is not None and [CODE(n) for n in table.items()] == items


@pytest.mark.parametrize(
    "literal, guards, items",
    [
        ("[a, b]", (), ["a", "b"]),
        ("{'k': v}", (), ["'k'"]),  # a dict yields its keys
        ("[a]", (GUARD,), None),  # a row added under a condition may be missing
    ],
)
def test_unconditional_items(literal: str, guards: tuple[Guard, ...], items: list[str] | None) -> None:
    table = table_of(cst.parse_expression(literal), guards)
    assert table is not None
    found = unconditional_items(table)
    assert (None if found is None else [CODE(n) for n in found]) == items


@pytest.mark.parametrize(
    "value, rows",
    [("[3]", ["1", "3"]), ("f()", None)],
)
def test_grown_appends_literal_rows_under_their_guards(value: str, rows: list[str] | None) -> None:
    table = table_of(cst.parse_expression("[1]"))
    assert table is not None
    bigger = grown(table, cst.parse_expression(value), (GUARD,))
    assert rows_text(None if bigger is None else bigger.rows) == rows
    if bigger is not None:
        assert [r.guards for r in bigger.rows] == [(), (GUARD,)]


TABLES = {"T": cst.parse_expression("{'a': 1, 'b': 2}"), "L": cst.parse_expression("['x']"), "N": cst.Name("n")}


@pytest.mark.parametrize(
    "source, rows",
    [
        ("T", ["'a'", "'b'"]),  # iterating a dict: its keys
        ("T.keys()", ["'a'", "'b'"]),
        ("T.values()", ["1", "2"]),
        ("T.items()", [("'a'", "1"), ("'b'", "2")]),
        ("T.copy()", None),  # another view: not a known set of rows
        ("L", ["'x'"]),
        ("L.items()", None),
        ("[1, 2]", ["1", "2"]),  # a literal in the loop header
        ("N", None),  # a name bound to something else
        ("unbound", None),
        ("f()", None),
    ],
)
def test_iterated_rows_of_a_loop_header(source: str, rows: list[object] | None) -> None:
    assert rows_text(iterated(cst.parse_expression(source), TABLES.get)) == rows


def test_iterated_reads_a_table_already_bound() -> None:
    table = Table((Row(cst.Integer("7")),), is_dict=False)
    assert rows_text(iterated(cst.Name("t"), {"t": table}.get)) == ["7"]


@pytest.mark.parametrize(
    "target, row, bindings",
    [
        ("x", "(1, 2)", [("x", "(1, 2)")]),
        ("a, b", "(1, 2)", [("a", "1"), ("b", "2")]),
        ("a, b, c", "(1, 2)", [("a", "1"), ("b", "2"), ("c", None)]),  # the row has no third part
        ("a, (b, c)", "(1, (2, 3))", [("a", "1")]),  # nested targets are not bound per part
        ("x.y", "1", []),
    ],
)
def test_row_bindings_per_loop_target(target: str, row: str, bindings: list[tuple[str, str | None]]) -> None:
    tgt = loop_target(target)
    got = row_bindings(tgt, Row(cst.parse_expression(row)))
    assert [(name, None if v is None else CODE(v)) for name, v in got] == bindings


def test_a_dict_row_bound_to_one_name_is_a_key_value_pair() -> None:
    row = Row((cst.SimpleString("'k'"), cst.Integer("1")))
    ((name, value),) = row_bindings(cst.Name("kv"), row)
    assert (name, CODE(value)) == ("kv", "('k', 1)")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "row, parts",
    [("(1, 2)", ["1", "2"]), ("[1]", ["1"]), ("x", ["x"])],
)
def test_row_parts(row: str, parts: list[str]) -> None:
    assert [CODE(p) for p in row_parts(Row(cst.parse_expression(row)))] == parts


@pytest.mark.parametrize(
    "target, names",
    [("x", ("x",)), ("a, (b, c)", ("a", "b", "c")), ("x.y", ())],
)
def test_target_names_flatten_nested_tuples(target: str, names: tuple[str, ...]) -> None:
    tgt = loop_target(target)
    assert target_names(tgt) == names


def _site(text: str, direct: tuple[Guard, ...] = ()) -> RaiseSite:
    template = Template.literal(text)
    return RaiseSite("m.py", 1, "f", SiteKind.RAISE, "ValueError", template, direct, (Variant((), (), template),))


def test_merge_rows_folds_one_site_per_row_into_variants() -> None:
    loop = 1
    first, second = (RowContext(loop, i, depth=1, targets=("x",)) for i in (0, 1))
    outer_guard = Guard(Truthy(Ref(RefKind.FLAG, "o", "cfg.o")), "cfg.o", GuardOrigin.IF)
    row_a, row_b = _site("a", (outer_guard, GUARD)), _site("b", (outer_guard, GUARD))
    pending = [Pending(10, row_a, [(first, row_a)]), Pending(10, row_b, [(second, row_b)])]
    (merged,) = merge_rows(pending, loop)
    assert [v.template.text for v in merged.site.variants] == ["a", "b"]
    assert merged.site.direct == (outer_guard,)  # guards from inside the row belong to its variant
    assert merged.rows == []


def test_merge_rows_keeps_sites_of_other_loops_and_order() -> None:
    inner = RowContext(2, 0, depth=0, targets=("y",))
    site = _site("s")
    pending = [Pending(20, site, [(inner, site)]), Pending(10, _site("t"))]
    assert [(p.node, p.rows) for p in merge_rows(pending, 1)] == [(20, [(inner, site)]), (10, [])]
