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
    fields = _fields(node, scope)
    if fields is not None:
        value = fields.get(key)
        return missing if value is None else term(value, scope)
    if isinstance(node, cst.Name) and node.value not in scope.aliases:
        bound = scope.lookup(node.value)
        return row_field(bound, key, missing, scope, term, depth + 1) if isinstance(bound, cst.BaseExpression) \
            else None
    if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
        rows = _fields(node.value, scope)
        if rows is None:
            return None
        return _picked(rows, term(node.slice[0].slice.value, scope), key, missing, scope, term, depth)
    return None


def _fields(node: cst.BaseExpression, scope: Scope) -> dict[str, cst.BaseExpression] | None:
    """The value per key of the dict literal `node` is or names, where every row is there
    whatever the path and keyed by a string (a later row of a key wins, as in a dict
    literal); None for anything else."""
    found: object = node
    if isinstance(node, cst.Name) and node.value not in scope.aliases:
        found = scope.lookup(node.value)
    table = table_of(found) if isinstance(found, cst.Dict) else found
    if not isinstance(table, Table) or not table.is_dict:
        return None
    fields = {}
    for row in table.rows:
        name = string_value(row.node[0]) if not row.guards and isinstance(row.node, tuple) else None
        if name is None or not isinstance(row.node, tuple):
            return None
        fields[name] = row.node[1]
    return fields


def _picked(rows: dict[str, cst.BaseExpression], index: Expr, key: str, missing: Expr | None, scope: Scope,
            term: Term, depth: int) -> Expr | None:
    """The field of the row `index` picks from `rows` (value per key): that row's where
    `index` is known, else an `IF` over the keys."""
    values: dict[Expr, list[str]] = {}
    for name, node in rows.items():
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
