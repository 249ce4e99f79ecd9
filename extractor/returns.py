"""What a plain function returns, as one expression of its parameters.

``_resolve_alias(algo, draft)`` with ``if algo == "NEXTN" or algo == "EAGLE": return
"EAGLE"`` and a final ``return algo`` returns ``"EAGLE" if algo in (...) else algo``
(`IF` terms). Settings the code computes through such a function
(``speculative_algorithm=_resolve_alias(cfg.speculative_algorithm, ...)``) are then
known wherever the arguments are (`extractor.inline`).

Followed: local assignments, ``if``/``elif``/``else``, ``return``, ``raise`` (a path
that raises returns nothing: the value is the other paths'), and statements kept for
their effect (a log call, an import). A path that meets anything else (a loop, ``try``,
``with``, a nested function) returns an unknown value from there on, so the guard clauses
before it stay known (``if not cfg.enable_x: return False`` decides the call wherever
``--enable-x`` is not given); a function with no known path, a generator, or more than
`MAX_PATHS` paths is left unsummarised.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import libcst as cst
import libcst.matchers as m

from extractor.cst_ir import term, to_ir
from extractor.cstutil import norm_code
from extractor.ir import IF, Apply, Const, Expr, RefKind, Unknown, refs, simplify, unknowns
from extractor.scope import Scope

MAX_PATHS = 16  # paths through a function's branches before it is left unsummarised

_EFFECTS = (cst.Expr, cst.Import, cst.ImportFrom, cst.Pass)  # statements that bind nothing we read


class _GiveUp(Exception):
    """A statement this module does not follow, or too many paths."""


class _Raises:
    """The value of a path that raises: no value at all."""


RAISES = _Raises()


def kept(params: Sequence[str], value: Expr) -> bool:
    """Whether `value`, what a function of `params` returns, stands in for its calls. One of
    no parameters reads global state, known only as the program runs, except where every
    setting it reads is a platform fact: ``return platform.is_cuda or platform.is_hip`` is
    a fact of the machine derived from others, which a launch can be judged on."""
    read = refs(value)
    return bool(params) or (bool(read) and not unknowns(value) and all(r.kind is RefKind.PLATFORM for r in read))


def return_value(body: Sequence[cst.BaseStatement], scope: Scope) -> Expr | None:
    """What a function with `body` returns, its parameters bound in `scope` (copied, never
    changed); None when some statement is not followed or every path raises."""
    paths = [0]
    if any(m.findall(stmt, m.Yield() | m.Await()) for stmt in body):
        return None  # a generator or coroutine: a call returns no value
    try:
        found = _value(list(body), _copy(scope), paths)
    except (_GiveUp, RecursionError):
        return None
    if isinstance(found, _Raises):
        return None
    found = simplify(found)
    return None if all(v == _NOT_FOLLOWED for v in _values(found)) else found  # no path followed


_NOT_FOLLOWED = Unknown("what the function computes past a statement errcat does not follow")


def _values(found: Expr) -> list[Expr]:
    """The values of `found`'s paths (the branches of its `IF` terms)."""
    if isinstance(found, Apply) and found.fn == IF:
        return [v for branch in found.args[1:] for v in _values(branch)]
    return [found]


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
            return _NOT_FOLLOWED  # the path's value from here on
        for small in stmt.body:
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
                return _NOT_FOLLOWED
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
