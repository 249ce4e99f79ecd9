"""What names mean at a point in a function: config aliases, local bindings, tables
(`extractor.tables`).

A `Scope` belongs to one function walk (state lives on the walker, not in globals).
Bindings hold CST nodes so every consumer (conditions, templates) interprets the
same expression the same way.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import libcst as cst

from extractor.cstutil import last_name
from extractor.ir import Expr
from extractor.profile import Profile
from extractor.tables import Table, table_of

# General shape of a "view" of the config object when the profile does not list it.


@dataclass(frozen=True, slots=True)
class Opaque:
    """A name whose value is not statically known (e.g. a loop over a call's result)."""

    text: str


@dataclass(frozen=True, slots=True)
class Conditional:
    """A name reassigned under a condition: `value` when `cond` holds, else `previous`."""

    cond: Expr
    value: cst.BaseExpression
    previous: Binding


Binding = cst.BaseExpression | Opaque | Table | Conditional

MAX_REBINDS = 4  # ``x = f(x)`` substitutions per name before its value counts as unknown


@dataclass(slots=True)
class Scope:
    profile: Profile
    module_consts: dict[str, cst.BaseExpression]
    aliases: set[str] = field(default_factory=set)
    bindings: dict[str, Binding] = field(default_factory=dict)
    lambdas: dict[str, cst.Lambda] = field(default_factory=dict)
    resolving: set[str] = field(default_factory=set)  # recursion guard for bindings
    row_targets: set[str] = field(default_factory=set)  # loop variables of a table being expanded
    rebinds: dict[str, int] = field(default_factory=dict)  # x = f(x) chain lengths

    def lookup(self, name: str) -> Binding | None:
        if name in self.bindings:
            return self.bindings[name]
        return self.module_consts.get(name)

    def is_config(self, node: cst.BaseExpression) -> bool:
        """Does `node` denote the config object (an alias, a view of it, ``self._resolved()``)?"""
        if isinstance(node, cst.Name):
            return node.value in self.aliases
        if isinstance(node, cst.BooleanOperation):  # cfg or resolving_view(server_args)
            return self.is_config(node.left) or self.is_config(node.right)
        if isinstance(node, cst.Call):
            name = last_name(node.func)
            if name is None:
                return False
            is_view = name in self.profile.views or bool(
                self.profile.view_pattern and re.search(self.profile.view_pattern, name, re.IGNORECASE))
            if not is_view:
                return False
            if isinstance(node.func, cst.Attribute) and self.is_config(node.func.value) and not node.args:
                return True  # self._resolved()
            return any(self.is_config(a.value) for a in node.args)
        return False

    def bind(self, name: str, value: cst.BaseExpression) -> None:
        """Record ``name = value``; a config alias or view makes `name` an alias."""
        prev = self.bindings.get(name)
        if isinstance(prev, cst.BaseExpression) and _mentions(value, name):
            depth = self.rebinds.get(name, 0) + 1
            if depth > MAX_REBINDS:  # x = x + ... in a long chain: the value grows without bound
                self.bindings[name] = Opaque(f"{name} (reassigned from itself {depth} times)")
                self.aliases.discard(name)
                return
            self.rebinds[name] = depth
            value = _substitute(value, name, prev)  # x = int(x): the new x is int(old x)
        else:
            self.rebinds.pop(name, None)
        self.bindings[name] = value
        if self.is_config(value):
            self.aliases.add(name)
        else:
            self.aliases.discard(name)
        if isinstance(value, cst.Lambda):
            self.lambdas[name] = value
        elif isinstance(value, (cst.List, cst.Tuple, cst.Dict)):
            table = table_of(value)
            if table is not None:
                self.bindings[name] = table


def _mentions(node: cst.BaseExpression, name: str) -> bool:
    return any(n.value == name for n in _names(node))


def _names(node: cst.CSTNode) -> list[cst.Name]:
    found: list[cst.Name] = []

    class _Collect(cst.CSTVisitor):
        def visit_Name(self, n: cst.Name) -> None:
            found.append(n)

        def visit_Attribute(self, n: cst.Attribute) -> bool:
            n.value.visit(self)
            return False

    node.visit(_Collect())
    return found


def _substitute(node: cst.BaseExpression, name: str, value: cst.BaseExpression) -> cst.BaseExpression:
    class _Sub(cst.CSTTransformer):
        def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
            return value if original.value == name else updated

        def visit_Attribute(self, n: cst.Attribute) -> bool:
            return True

        def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
            return updated.with_changes(attr=original.attr)  # keep ``.name`` attributes as written

        def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
            return updated.with_changes(keyword=original.keyword)  # f(x=...) names a parameter

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return False  # its parameters shadow the name

    return node.visit(_Sub())  # type: ignore[return-value]
