"""Leaving a loop early: ``for x in items: if found(x): return x`` followed by a ``raise``.

What follows such a loop runs only where no pass took the exit (a ``return``; for the
loop's ``else`` block, a ``break`` too). Over items the source writes out, with a body of
nothing but such exits, that is a condition on each item; otherwise it stays unknown,
never "always".
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import libcst as cst

from extractor.cst_ir import to_ir, written_out
from extractor.cstutil import norm_code
from extractor.ir import Compare, Const, Expr, Unknown, conj, described, negate
from extractor.scope import Binding, Scope
from extractor.suite_facts import suite_statements
from extractor.writes import OwnBody

RETURN = (cst.Return,)
BREAK = (cst.Return, cst.Break)  # what keeps a loop's ``else`` block from running


@dataclass(frozen=True, slots=True)
class _Exits:
    tests: tuple[cst.BaseExpression, ...]  # of top-level ``if``s whose block leaves
    plain: bool  # the body is nothing but those ``if``s: the tests say when a pass leaves


def _leaves(suite: cst.BaseSuite, kinds: tuple[type, ...]) -> bool:
    body = suite_statements(suite)
    last = body[-1] if body else None
    if isinstance(last, cst.SimpleStatementLine):
        last = last.body[-1] if last.body else None
    return isinstance(last, kinds)


class _Finder(OwnBody):
    """Any statement of `kinds` in a loop body: not in a nested definition, nor (a ``break``)
    in a nested loop, which it would leave instead."""

    def __init__(self, kinds: tuple[type, ...]) -> None:
        self.kinds, self.found = kinds, False

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.found |= isinstance(node, self.kinds)
        return not self.found and super().on_visit(node)

    def visit_For(self, node: cst.For) -> bool:
        return self._loop(node.body)

    def visit_While(self, node: cst.While) -> bool:
        return self._loop(node.body)

    def _loop(self, body: cst.BaseSuite) -> bool:
        if cst.Break not in self.kinds:
            return True
        self.found |= _Finder((cst.Return,)).within(body)  # a return there still leaves ours
        return False

    def within(self, suite: cst.BaseSuite) -> bool:
        suite.visit(self)
        return self.found


def _exits(body: cst.BaseSuite, kinds: tuple[type, ...]) -> _Exits | None:
    """The ways a loop body leaves by `kinds` (None: it never does)."""
    if not _Finder(kinds).within(body):
        return None
    statements = suite_statements(body)
    tests = tuple(s.test for s in statements if isinstance(s, cst.If) and s.orelse is None and _leaves(s.body, kinds))
    return _Exits(tests, len(tests) == len(statements))


def not_left(node: cst.For, scope: Scope, kinds: tuple[type, ...]) -> tuple[Expr, str] | None:
    """The condition (and its text) under which loop `node` ran every pass without leaving by
    `kinds`; None: its body never leaves so."""
    exits = _exits(node.body, kinds)
    if exits is None:
        return None
    items = norm_code(node.iter)
    text = f"no pass of the loop over `{items}` left it early"
    values = written_out(node.iter, scope) if exits.plain and isinstance(node.target, cst.Name) else None
    if values is None:
        return Compare("is", Unknown(described(f"of `{items}` that ends the loop early")), Const(None)), text
    name = node.target.value if isinstance(node.target, cst.Name) else ""
    return conj([negate(to_ir(test, _with(scope, name, v))) for v in values for test in exits.tests]), text


def _with(scope: Scope, name: str, value: Binding) -> Scope:
    return replace(scope, bindings={**scope.bindings, name: value})

