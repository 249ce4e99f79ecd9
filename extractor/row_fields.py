"""A field of a dict literal's row the code picks at run time.

``PARAMS = {"A": {"size": 32}, "B": {"size": f(cfg), "algorithm": "X"}}`` then
``params = PARAMS[arch]``: ``params["size"]`` is 32 where ``arch`` is "A" and ``f(cfg)``
where it is "B"; ``params.get("algorithm")`` is None where it is "A". The value of
``PARAMS`` as a whole is its keys alone where a row's value is no constant, which loses
what each row says; read field by field, each row's value stays exact (an `IF` over the
keys, rows giving one value grouped, the largest group last: a row missing from the
table fails at ``PARAMS[arch]`` before any field is read).
"""
from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from extractor.cstutil import string_value
from extractor.ir import IF, Apply, Compare, Const, Expr, In
from extractor.scope import Scope
from extractor.tables import Table, table_of

Term = Callable[[cst.BaseExpression, Scope], Expr]

# names followed from a field to the table (``params`` -> ``PARAMS[arch]`` -> ``PARAMS``)
MAX_DEPTH = 4


def row_field(node: cst.BaseExpression, key: str, missing: Expr | None, scope: Scope, term: Term,
              depth: int = 0) -> Expr | None:
    """``node[key]`` (`missing` None) or ``node.get(key, missing)``, where `node` is a dict
    literal, a name bound to one, or one of its rows picked by a value (``PARAMS[arch]``);
    None where `node` is none of these, or some row lacks `key` and a subscript would fail."""
    if depth > MAX_DEPTH:
        return None
    table = _table(node, scope)
    if table is not None:
        return _in_row(table, key, missing, scope, term)
    if isinstance(node, cst.Name) and node.value not in scope.aliases:
        bound = scope.lookup(node.value)
        return row_field(bound, key, missing, scope, term, depth + 1) if isinstance(bound, cst.BaseExpression) \
            else None
    if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
        rows = _table(node.value, scope)
        if rows is None or not _plain(rows):
            return None
        return _picked(rows, term(node.slice[0].slice.value, scope), key, missing, scope, term, depth)
    return None


def _table(node: cst.BaseExpression, scope: Scope) -> Table | None:
    """The dict literal `node` is or names (None: anything else)."""
    found: object = node
    if isinstance(node, cst.Name) and node.value not in scope.aliases:
        found = scope.lookup(node.value)
    if isinstance(found, cst.Dict):
        found = table_of(found)
    return found if isinstance(found, Table) and found.is_dict else None


def _plain(table: Table) -> bool:
    """Every row is there whatever the path, keyed by a string."""
    return all(not row.guards and isinstance(row.node, tuple) and string_value(row.node[0]) is not None
               for row in table.rows)


def _rows(table: Table) -> dict[str, cst.BaseExpression]:
    """A `_plain` table's value per key: a later row of a key wins, as in a dict literal."""
    return {str(string_value(row.node[0])): row.node[1] for row in table.rows if isinstance(row.node, tuple)}


def _in_row(table: Table, key: str, missing: Expr | None, scope: Scope, term: Term) -> Expr | None:
    if not _plain(table):
        return None
    value = _rows(table).get(key)
    return missing if value is None else term(value, scope)


def _picked(table: Table, index: Expr, key: str, missing: Expr | None, scope: Scope, term: Term,
            depth: int) -> Expr | None:
    """The field of the row `index` picks: that row's where `index` is known, else an `IF`
    over the keys."""
    values: dict[Expr, list[str]] = {}
    for name, node in _rows(table).items():
        if isinstance(index, Const) and index.value != name:
            continue
        value = row_field(node, key, missing, scope, term, depth + 1)
        if value is None:
            return None
        values.setdefault(value, []).append(name)
    if not values:
        return None
    groups = sorted(values.items(), key=lambda g: len(g[1]))
    found = groups[-1][0]
    for value, names in reversed(groups[:-1]):
        test: Expr = Compare("==", index, Const(names[0])) if len(names) == 1 else In(index, Const(tuple(names)))
        found = Apply(IF, (test, value, found), f"the row's {key}")
    return found
