"""What a plain function returns, as one expression of its parameters.

``_resolve_alias(algo, draft)`` with ``if algo == "NEXTN" or algo == "EAGLE": return
"EAGLE"`` and a final ``return algo`` returns ``"EAGLE" if algo in (...) else algo``
(`IF` terms). Settings the code computes through such a function
(``speculative_algorithm=_resolve_alias(cfg.speculative_algorithm, ...)``) are then
known wherever the arguments are (`extractor.inline`).

Followed: local assignments, ``if``/``elif``/``else``, ``return``, ``raise`` (a path
that raises returns nothing: the value is the other paths'), and statements kept for
their effect (a log call, an import). Anything else (a loop, ``try``, ``with``, a
nested function), or more than `MAX_PATHS` paths, leaves the function unsummarised.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import libcst as cst

from extractor.cst_ir import term, to_ir
from extractor.cstutil import norm_code
from extractor.ir import IF, Apply, Const, Expr, simplify
from extractor.scope import Scope

MAX_PATHS = 16  # paths through a function's branches before it is left unsummarised

_EFFECTS = (cst.Expr, cst.Import, cst.ImportFrom, cst.Pass)  # statements that bind nothing we read


class _GiveUp(Exception):
    """A statement this module does not follow, or too many paths."""


class _Raises:
    """The value of a path that raises: no value at all."""


RAISES = _Raises()


def return_value(body: Sequence[cst.BaseStatement], scope: Scope) -> Expr | None:
    """What a function with `body` returns, its parameters bound in `scope` (copied, never
    changed); None when some statement is not followed or every path raises."""
    paths = [0]
    try:
        found = _value(list(body), _copy(scope), paths)
    except (_GiveUp, RecursionError):
        return None
    return None if isinstance(found, _Raises) else simplify(found)


def _value(stmts: list[cst.BaseStatement], scope: Scope, paths: list[int]) -> Expr | _Raises:
    for i, stmt in enumerate(stmts):
        if isinstance(stmt, cst.If):
            paths[0] += 1
            if paths[0] > MAX_PATHS:
                raise _GiveUp
            rest = stmts[i + 1:]
            test = to_ir(stmt.test, scope)
            then = _value([*stmt.body.body, *rest], _copy(scope), paths)
            other = _value([*_orelse(stmt.orelse), *rest], _copy(scope), paths)
            if isinstance(then, _Raises):
                return other
            if isinstance(other, _Raises):
                return then
            return Apply(IF, (test, then, other), norm_code(stmt.test))
        if not isinstance(stmt, cst.SimpleStatementLine):
            raise _GiveUp
        for small in stmt.body:
            if isinstance(getattr(small, "value", None), (cst.Yield, cst.Await)):
                raise _GiveUp  # a generator: a call returns no value
            if isinstance(small, cst.Return):
                return term(small.value, scope) if small.value is not None else Const(None)
            if isinstance(small, cst.Raise):
                return RAISES
            if isinstance(small, cst.Assign) and len(small.targets) == 1 \
                    and isinstance(small.targets[0].target, cst.Name):
                scope.bind(small.targets[0].target.value, small.value)
            elif isinstance(small, cst.AnnAssign) and small.value is not None and isinstance(small.target, cst.Name):
                scope.bind(small.target.value, small.value)
            elif not isinstance(small, _EFFECTS):
                raise _GiveUp
    return Const(None)  # falls off the end


def _orelse(node: cst.If | cst.Else | None) -> list[cst.BaseStatement]:
    if node is None:
        return []
    if isinstance(node, cst.If):  # elif
        return [node]
    return list(node.body.body)  # type: ignore[arg-type]


def _copy(scope: Scope) -> Scope:
    """A scope a branch can bind in without changing `scope`."""
    return replace(scope, aliases=set(scope.aliases), bindings=dict(scope.bindings), lambdas=dict(scope.lambdas),
                   resolving=set(scope.resolving), row_targets=set(scope.row_targets), rebinds=dict(scope.rebinds))


__all__ = ["MAX_PATHS", "return_value"]
