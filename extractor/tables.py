"""Condition tables: literal lists/tuples/sets/dicts a function loops over before a raise.

One module for the whole life of a table: recognising the literal (`table_of`), growing
it (`grown`), the rows a ``for`` iterates (`iterated`, ``.items()``/``.keys()``/
``.values()`` included), what each loop target is bound to per row (`row_bindings`),
the items it holds as a value (`Table.items`), and folding the sites found once per row
back into one site with a variant per row (`RowContext`, `Pending`, `merge_rows`).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import libcst as cst

from extractor.cstutil import dotted
from extractor.records import Guard, RaiseSite, Variant

Node = cst.BaseExpression | tuple[cst.BaseExpression, cst.BaseExpression]  # element, or (key, value)
_LITERALS = (cst.List, cst.Tuple, cst.Dict, cst.Set)


@dataclass(frozen=True, slots=True)
class Row:
    """One element of a condition table and the guards under which it was added."""

    node: Node
    guards: tuple[Guard, ...] = ()


@dataclass(frozen=True, slots=True)
class Table:
    """A list/tuple/set/dict literal bound to a name, grown by ``|=``/``+=``/update/append."""

    rows: tuple[Row, ...]
    is_dict: bool
    # the table this one was grown from (``rows.append(...)``), not a rebinding to a literal
    base: Table | None = field(default=None, compare=False, repr=False)

    def grown_from(self, other: Table) -> bool:
        """Was this table made from `other` by growing it (any number of times)?"""
        base = self.base
        while base is not None:
            if base is other:
                return True
            base = base.base
        return False

    def items(self) -> list[cst.BaseExpression]:
        """What iterating the table yields: a dict's keys, a sequence's elements."""
        if self.is_dict:
            return [row.node[0] for row in self.rows if isinstance(row.node, tuple)]
        return [row.node for row in self.rows if not isinstance(row.node, tuple)]


def table_of(node: cst.BaseExpression, guards: tuple[Guard, ...] = ()) -> Table | None:
    """Rows of a list/tuple/set/dict literal (None for other shapes, and for ``*xs``/``**d``)."""
    if isinstance(node, cst.Dict):
        pairs: list[Row] = []
        for el in node.elements:
            if not isinstance(el, cst.DictElement):
                return None
            pairs.append(Row((el.key, el.value), guards))
        return Table(tuple(pairs), is_dict=True)
    if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
        rows: list[Row] = []
        for item in node.elements:
            if isinstance(item, cst.StarredElement):
                return None
            rows.append(Row(item.value, guards))
        return Table(tuple(rows), is_dict=False)
    return None


def grown(table: Table, value: cst.BaseExpression, guards: tuple[Guard, ...]) -> Table | None:
    """`table` after ``+= value`` / ``.update(value)`` under `guards` (None: not a literal)."""
    extra = table_of(value, guards)
    return None if extra is None else Table(table.rows + extra.rows, table.is_dict, base=table)


def iterated(node: cst.BaseExpression, lookup: Callable[[str], object]) -> tuple[Row, ...] | None:
    """The rows ``for ... in node`` iterates over, when they are statically known."""
    view = None
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and not node.args:
        view, node = node.func.attr.value, node.func.value
    table = _table_named(node, lookup)
    if table is None:
        return None
    if not table.is_dict:
        return table.rows if view is None else None
    if view == "items":
        return table.rows
    side = {None: 0, "keys": 0, "values": 1}.get(view)
    if side is None:
        return None
    return tuple(Row(r.node[side], r.guards) for r in table.rows if isinstance(r.node, tuple))


def _table_named(node: cst.BaseExpression, lookup: Callable[[str], object]) -> Table | None:
    name = node.value if isinstance(node, cst.Name) else dotted(node) if isinstance(node, cst.Attribute) else None
    if name is not None and name.count(".") <= 1:  # a name, or ``Cls.ATTR`` of an imported class
        bound = lookup(name)
        if isinstance(bound, Table):
            return bound
        node = bound if isinstance(bound, _LITERALS) else node
    return table_of(node) if isinstance(node, _LITERALS) else None


def unconditional_items(table: Table) -> list[cst.BaseExpression] | None:
    """What iterating `table` yields (a pair row's key, else the element) when every row is
    there whatever the path; None when some row was added under a condition (``rows.append``
    inside an ``if``) and so may be missing at run time."""
    if any(row.guards for row in table.rows):
        return None
    return [row.node[0] if isinstance(row.node, tuple) else row.node for row in table.rows]


def row_parts(row: Row) -> tuple[cst.BaseExpression, ...]:
    """The elements of a table row: (key, value) for dicts, tuple items, or the node."""
    if isinstance(row.node, tuple):
        return row.node
    if isinstance(row.node, (cst.Tuple, cst.List)):
        return tuple(el.value for el in row.node.elements)
    return (row.node,)


def row_bindings(target: cst.BaseAssignTargetExpression, row: Row) -> list[tuple[str, cst.BaseExpression | None]]:
    """What each loop target names in `row` (None: the row has no such part)."""
    if isinstance(target, cst.Name):
        node = row.node
        if isinstance(node, tuple):
            node = cst.Tuple([cst.Element(node[0]), cst.Element(node[1])])
        return [(target.value, node)]
    if not isinstance(target, (cst.Tuple, cst.List)):
        return []
    parts = row_parts(row)
    return [
        (el.value.value, parts[i] if i < len(parts) else None)
        for i, el in enumerate(target.elements) if isinstance(el.value, cst.Name)
    ]


def target_names(target: cst.BaseExpression) -> tuple[str, ...]:
    """The names a loop target binds, nested tuples flattened."""
    if isinstance(target, cst.Name):
        return (target.value,)
    if isinstance(target, (cst.Tuple, cst.List)):
        return tuple(name for el in target.elements for name in target_names(el.value))
    return ()


# ------------------------------------------------------------------ rows -> variants


@dataclass(frozen=True, slots=True)
class RowContext:
    """The table row a walk is inside of."""

    loop: int  # id() of the For node
    index: int
    depth: int  # guard-stack depth at the loop: deeper guards belong to the row
    targets: tuple[str, ...]
    blocks: int = 0  # prior-table blocks at the loop: later ones (the body's) belong to the row


@dataclass(slots=True)
class Pending:
    """A site being collected; table rows of the same raise are merged into variants."""

    node: int  # id() of the raise/assert node
    site: RaiseSite
    rows: list[tuple[RowContext, RaiseSite]] = field(default_factory=list)


def merge_rows(pending: Sequence[Pending], loop: int) -> list[Pending]:
    """Sites found once per row of `loop` become one site with a variant per row."""
    merged: dict[int, Pending] = {}
    for found in pending:
        if found.node not in merged:
            merged[found.node] = found
        else:
            merged[found.node].rows.extend(found.rows)
    return [_finish_rows(found, loop) for found in merged.values()]


def _finish_rows(pending: Pending, loop: int) -> Pending:
    rows = [(ctx, s) for ctx, s in pending.rows if ctx.loop == loop]
    if not rows:
        return pending
    first_ctx, first = rows[0]
    variants: list[Variant] = [v for _, site in rows for v in site.variants]
    site = replace(
        first,
        direct=first.direct[: first_ctx.depth],
        prior_runs=tuple(run for run in first.prior_runs if run[1] < first_ctx.blocks),
        variants=tuple(variants),
    )
    outer = [(ctx, s) for ctx, s in pending.rows if ctx.loop != loop]
    return Pending(pending.node, site, outer)
