"""Locals while a function is walked: binding them on branches that join, values updated in
place, bindings simple enough to substitute, and guards pushed for a block."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TypeVar

import libcst as cst

from extractor.cstutil import dotted
from extractor.ir import (
    Expr,
    described,
)
from extractor.scope import Binding, Conditional, Opaque, Scope, joined, lost, names_read
from extractor.suite_facts import calls_in
from extractor.tables import (
    Table,
)

_T = TypeVar("_T")


@contextmanager
def pushed_on(stack: list[_T], item: _T) -> Iterator[_T]:
    """`item` on top of `stack` for the duration of the block."""
    stack.append(item)
    try:
        yield item
    finally:
        stack.pop()


def rebound_since(scope: Scope, before: dict[str, Binding]) -> Iterator[tuple[str, Binding]]:
    """Locals bound to something else than in `before`, except a condition table grown in
    place (``rows.append(...)``): its new rows carry their own conditions, so its growth
    stands after any branch."""
    for name, value in list(scope.bindings.items()):
        old = before.get(name)
        if value is not old and not binding_grew(old, value):
            yield name, value


def binding_grew(old: Binding | None, new: Binding) -> bool:
    """Is `new` `old` grown in place (not a rebinding to another literal, ``errors = ["x"]``)?"""
    return isinstance(old, Table) and isinstance(new, Table) and new.grown_from(old)


@contextmanager
def unknown_after(scope: Scope, where: str, keep: bool = False) -> Iterator[None]:
    """Locals the block rebinds are unknown after it (unless `keep`): a loop may run any
    number of times, a try block stop anywhere."""
    before = dict(scope.bindings)
    yield
    if not keep:
        for name, value in rebound_since(scope, before):
            if not isinstance(value, Opaque):
                scope.bindings[name] = Opaque(described(lost(where, value)))


# IR nodes of an item a table row passes (``raw[name]``): read as long as it is small
MAX_ARG_TERMS = 60

ARG_NODES = (cst.Attribute, cst.SimpleString, cst.ConcatenatedString, cst.Integer, cst.Float)


def simple_arg(node: cst.BaseExpression, scope: Scope) -> bool:
    """A `simple_operand`, a choice between such (``archs[0] if archs else None``), or a plain
    call of the config and such (``attn_dp_enabled_of(cfg)``, ``getattr(cfg, "x", False)``:
    read without looking into the function)."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.args:
        plain = all(a.keyword is None and not a.star and simple_operand(a.value, scope) for a in node.args)
        return plain and any(scope.is_config(a.value) for a in node.args)
    if isinstance(node, cst.IfExp):
        return all(simple_operand(n, scope) for n in (node.test, node.body, node.orelse))
    return simple_operand(node, scope)


AUGMENTED: dict[type, type[cst.BaseBinaryOp]] = {
    cst.AddAssign: cst.Add, cst.SubtractAssign: cst.Subtract, cst.MultiplyAssign: cst.Multiply,
    cst.BitOrAssign: cst.BitOr, cst.BitAndAssign: cst.BitAnd, cst.FloorDivideAssign: cst.FloorDivide,
    cst.DivideAssign: cst.Divide, cst.ModuloAssign: cst.Modulo, cst.PowerAssign: cst.Power,
}
SET_METHODS: dict[str, cst.BaseBinaryOp] = {
    "add": cst.BitOr(), "update": cst.BitOr(), "discard": cst.Subtract(), "remove": cst.Subtract(),
    "difference_update": cst.Subtract(), "intersection_update": cst.BitAnd(),
}
LIST_METHODS: dict[str, cst.BaseBinaryOp] = {"append": cst.Add(), "extend": cst.Add()}
ONE_ITEM = ("add", "discard", "remove", "append")  # the argument is one item, not a collection


def container_kind(binding: Binding) -> str | None:
    """"set" or "list" where a binding is one for sure (a literal, ``set(...)``, an
    operation on one), else None."""
    if isinstance(binding, Conditional):
        kind = container_kind(binding.value)
        return kind if kind == container_kind(binding.previous) else None
    if isinstance(binding, cst.Set) or (isinstance(binding, cst.Call) and dotted(binding.func) in ("set", "frozenset")):
        return "set"
    if isinstance(binding, (cst.List, Table)) or (isinstance(binding, cst.Call) and dotted(binding.func) == "list"):
        return "list"
    if isinstance(binding, cst.BinaryOperation):
        return container_kind(binding.left) or container_kind(binding.right)
    return None


def in_place_value(name: str, call: cst.Call, binding: Binding) -> cst.BaseExpression | None:
    """What ``name.method(arg)`` leaves in `name`, as an expression of the old value, when the
    binding is a set or list and the method has one (``s.add(x)`` -> ``s | {x}``)."""
    method = call.func.attr.value if isinstance(call.func, cst.Attribute) else ""
    kind = container_kind(binding)
    ops = SET_METHODS if kind == "set" else LIST_METHODS if kind == "list" else {}
    if method not in ops or len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
        return None
    arg = call.args[0].value
    if method in ONE_ITEM:
        arg = cst.Set([cst.Element(arg)]) if kind == "set" else cst.List([cst.Element(arg)])
    elif kind == "list" and not isinstance(arg, cst.List):
        return None  # l + <any iterable>: no list to add
    return cst.BinaryOperation(left=cst.Name(name), operator=ops[method], right=arg)


def simple_operand(node: cst.BaseExpression, scope: Scope) -> bool:
    """A literal, a config read, the config itself, True/False/None, a local bound to a
    literal or a read, or a literal-indexed item of one of those (``archs[0]``)."""
    if isinstance(node, ARG_NODES):
        return True
    if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
        index = node.slice[0].slice.value
        return isinstance(index, (cst.Integer, cst.SimpleString)) and simple_operand(node.value, scope)
    if not isinstance(node, cst.Name):
        return False
    return node.value in scope.aliases or node.value in ("True", "False", "None") \
        or isinstance(scope.bindings.get(node.value), ARG_NODES)


def reads_no_local(node: cst.BaseExpression, scope: Scope) -> bool:
    """Does `node` name no local of the function (only module and imported constants, the
    config, builtins) and call no function (a method such as ``envs.X.get()`` is read)?
    Then what it means does not depend on the walk so far, and reading it costs its size."""
    return all(not scope.is_local(n.value) or n.value in scope.aliases for n in names_read(node)) \
        and not any(isinstance(c.func, cst.Name) and c.func.value not in CHEAP_BUILTINS
                    for c in calls_in(node, nested=True))


# builtins whose call costs what reading its arguments costs
CHEAP_BUILTINS = frozenset({"bool", "int", "float", "str", "len", "isinstance", "getattr", "hasattr"})


def simple_binding(bound: Binding | None, scope: Scope) -> bool:
    if isinstance(bound, Conditional):
        return simple_binding(bound.value, scope) and simple_binding(bound.previous, scope)
    return isinstance(bound, cst.BaseExpression) and simple_arg(bound, scope)


class Join:
    """The locals of one if/elif/else chain (or match) where its branches meet: each branch
    is walked from the bindings before the chain, and afterwards a local that some branch
    rebinds is ``v1 if t1 else (v2 if t2 else ... before)`` (`extractor.scope.joined`);
    branches that always leave (return, raise, ...) do not reach the join."""

    def __init__(self, scope: Scope) -> None:
        self.scope = scope
        self.before = dict(scope.bindings)
        self.branches: list[tuple[Expr, dict[str, Binding]]] = []  # (test, rebound names) of branches that reach it
        self.otherwise: dict[str, Binding] | None = None  # an else branch that reaches it
        self.has_else = False

    @contextmanager
    def branch(self, test: Expr | None, leaves: bool) -> Iterator[None]:
        """Walk one branch (`test` None: the ``else``) from the bindings before the chain."""
        yield
        scope, before = self.scope, self.before
        rebound = dict(rebound_since(scope, before))
        for name in rebound:
            if name in before:
                scope.bindings[name] = before[name]
            else:
                del scope.bindings[name]
        before.update([(k, v) for k, v in scope.bindings.items() if binding_grew(before.get(k), v)])
        if test is None:
            self.has_else = True
            if not leaves:
                self.otherwise = rebound
        elif not leaves:
            self.branches.append((test, rebound))

    def close(self) -> None:
        """Bind each rebound local to its value where the branches meet."""
        branches, otherwise = list(self.branches), self.otherwise
        if self.has_else and otherwise is None:  # the else branch leaves: the last live branch is the fallback
            if not branches:
                return  # nothing reaches the join
            otherwise = branches.pop()[1]
        names = {n for _, rebound in self.branches for n in rebound} | set(otherwise or ())
        scope, before = self.scope, self.before
        for name in sorted(names):
            old = before.get(name)
            last = (otherwise or {}).get(name, old)
            value = joined(name, [(test, rebound.get(name, old)) for test, rebound in branches], last)
            if value is not None:
                scope.bindings[name] = value
