"""The condition IR as a table of distinct nodes, for files that hold many conditions.

A compiled judge (`analyzers.judge_data`) holds every check's condition and every
adjustment's; they share most of their sub-trees (the same flag, the same helper's inlined
return). Each row is one node, its children given as indices of earlier rows; equal rows are
written once, so a sub-tree is built once when read back and equal sub-trees come back as one
object. Rows are keyed by their JSON text, not by node equality: ``Const(1) == Const(True)``.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from extractor.ir import (
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
    Visitor,
    frozen_json,
    json_value,
)


class NodeTable(Visitor[int]):
    """Rows of distinct nodes; `add` gives a node's row index (its children's rows first)."""

    def __init__(self) -> None:
        self.rows: list[list[Any]] = []
        self._index: dict[str, int] = {}  # a row's JSON text -> its index
        self._done: dict[int, tuple[Expr, int]] = {}  # id of a node added -> (node, index): shared objects once

    def add(self, expr: Expr) -> int:
        hit = self._done.get(id(expr))
        if hit is not None and hit[0] is expr:
            return hit[1]
        found = self.visit(expr)
        self._done[id(expr)] = (expr, found)
        return found

    def _row(self, row: list[Any]) -> int:
        key = json.dumps(row, ensure_ascii=False, separators=(",", ":"))
        found = self._index.get(key)
        if found is None:
            found = self._index[key] = len(self.rows)
            self.rows.append(row)
        return found

    def visit_Ref(self, e: Ref) -> int:
        return self._row(["ref", str(e.kind), e.name, e.text])

    def visit_Const(self, e: Const) -> int:
        return self._row(["const", json_value(e.value)])

    def visit_Unknown(self, e: Unknown) -> int:
        return self._row(["unknown", e.text])

    def visit_Apply(self, e: Apply) -> int:
        return self._row(["apply", e.fn, e.text, [self.add(a) for a in e.args]])

    def visit_Seq(self, e: Seq) -> int:
        return self._row(["seq", [self.add(i) for i in e.items]])

    def visit_Truthy(self, e: Truthy) -> int:
        return self._row(["truthy", self.add(e.term)])

    def visit_Compare(self, e: Compare) -> int:
        return self._row(["compare", e.op, self.add(e.left), self.add(e.right)])

    def visit_In(self, e: In) -> int:
        return self._row(["in", self.add(e.item), self.add(e.container)])

    def visit_Not(self, e: Not) -> int:
        return self._row(["not", self.add(e.arg)])

    def visit_And(self, e: And) -> int:
        return self._row(["and", [self.add(a) for a in e.args]])

    def visit_Or(self, e: Or) -> int:
        return self._row(["or", [self.add(a) for a in e.args]])


def nodes_of(rows: Sequence[Sequence[Any]]) -> list[Expr]:
    """`NodeTable.rows` read back: the node of each row (ValueError for a row of no known shape)."""
    out: list[Expr] = []
    for row in rows:
        out.append(_node(row, out))
    return out


def _node(row: Sequence[Any], built: list[Expr]) -> Expr:
    op = row[0]
    if op == "ref":
        return Ref(RefKind(row[1]), str(row[2]), str(row[3]))
    if op == "const":
        return Const(frozen_json(row[1]))
    if op == "unknown":
        return Unknown(str(row[1]))
    if op == "apply":
        return Apply(str(row[1]), tuple(built[i] for i in row[3]), str(row[2]))
    if op == "seq":
        return Seq(tuple(built[i] for i in row[1]))
    if op == "truthy":
        return Truthy(built[row[1]])
    if op == "compare":
        return Compare(str(row[1]), built[row[2]], built[row[3]])
    if op == "in":
        return In(built[row[1]], built[row[2]])
    if op == "not":
        return Not(built[row[1]])
    if op in ("and", "or"):
        args = tuple(built[i] for i in row[1])
        return And(args) if op == "and" else Or(args)
    raise ValueError(f"unknown IR row {op!r}")
