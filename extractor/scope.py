"""What names mean at a point in a function: config aliases, local bindings, tables
(`extractor.tables`).

A `Scope` belongs to one function walk (state lives on the walker, not in globals).
Bindings hold CST nodes so every consumer (conditions, templates) interprets the
same expression the same way.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import libcst as cst
from libcst.helpers import get_full_name_for_node

from extractor.cstutil import last_name
from extractor.ir import Expr, conj, described
from extractor.profile import Profile
from extractor.tables import Table, table_of

# General shape of a "view" of the config object when the profile does not list it.


@dataclass(frozen=True, slots=True)
class Opaque:
    """A name whose value is not statically known (e.g. a loop over a call's result)."""

    text: str
    name: str = ""  # the name it is read as where it was bound under another (``x = x.strip()``)


@dataclass(frozen=True, slots=True)
class Conditional:
    """A name's value where branches join: `value` when `cond` holds, else `previous`
    (Python's ``value if cond else previous``; `cond` is the branch test as IR, read where
    the test was, so a branch rebinding a name its test reads cannot change it)."""

    cond: Expr
    value: Binding
    previous: Binding


Binding = cst.BaseExpression | Opaque | Table | Conditional

MAX_REBINDS = 4  # ``x = f(x)`` substitutions per name before its value counts as unknown
MAX_BRANCH_VALUES = 8  # distinct values a name may have where branches join before it counts as unknown
MAX_BRANCH_LEAVES = 12  # and branches in all (the same value under many tests is cheap, not free)


IN_TRY = "set where the code catches errors"  # a local a try block binds, where a handler goes on


def lost(where: str, value: Binding) -> str:
    """Why a local is unknown after a block: where it was set; one a try block binds to a
    call, by the (public) function it calls, which may fail and leave the value before it."""
    called = get_full_name_for_node(value.func) if where == IN_TRY and isinstance(value, cst.Call) else None
    if called and not called.rpartition(".")[2].startswith("_"):
        return f"returned by `{called}` unless that fails"
    return where


def values_of(binding: Binding) -> int:
    """How many values a binding chooses between (1 unless it is a `Conditional`)."""
    if isinstance(binding, Conditional):
        return values_of(binding.value) + values_of(binding.previous)
    return 1


def _distinct(binding: Binding, seen: set[str]) -> set[str]:
    """The source texts of the values a binding chooses between."""
    if isinstance(binding, Conditional):
        _distinct(binding.value, seen)
        return _distinct(binding.previous, seen)
    seen.add(_code(binding) if isinstance(binding, cst.CSTNode) else repr(binding))
    return seen


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def joined(name: str, branches: list[tuple[Expr, Binding | None]], otherwise: Binding | None) -> Binding | None:
    """`name` after an if/elif/else chain: the value of the first branch whose test holds
    (`branches` in order, each test read as if the earlier ones failed), else `otherwise`.
    A branch that leaves the name unbound takes the other side's value (Python would
    raise NameError there); past `MAX_BRANCH_VALUES` distinct values (or `MAX_BRANCH_LEAVES`
    branches) the name is `Opaque`."""
    result = otherwise
    for cond, value in reversed(branches):
        if value is None or value is result:
            continue
        result = value if result is None else _under(cond, value, result)
    if result is None:
        return None
    count = values_of(result)
    if count > MAX_BRANCH_LEAVES or (count > MAX_BRANCH_VALUES and len(_distinct(result, set())) > MAX_BRANCH_VALUES):
        return Opaque(described(f"chosen between more than {MAX_BRANCH_VALUES} values"))
    return result


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
    # constants the file imports (`extractor.imported_values`), as literals: ``NAME``, ``Cls.ATTR``
    imported: dict[str, cst.BaseExpression] = field(default_factory=dict)
    # what the enclosing code had bound when the function was entered (its free names)
    inherited: dict[str, Binding] = field(default_factory=dict)

    def is_local(self, name: str) -> bool:
        """Has the function being walked bound `name` (a parameter, an assignment)?"""
        return name in self.bindings and self.bindings[name] is not self.inherited.get(name)

    def lookup(self, name: str) -> Binding | None:
        """What `name` (or ``Cls.ATTR`` of an imported class) is bound to: a local, a
        module constant, an imported constant; None when it is none of these."""
        if name in self.bindings:
            return self.bindings[name]
        found = self.module_consts.get(name)
        if found is not None:
            return found
        base = name.partition(".")[0]
        if base in self.bindings or (base != name and base in self.module_consts):
            return None  # ``Cls`` is shadowed here
        return self.imported.get(name)

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

    def _hidden(self, name: str, unknown: Opaque, depth: int) -> cst.Name:
        """`unknown` (what `name` held) kept under a hidden name for a value computed from it:
        it keeps its own name, so a loop over items or a call site binding the parameter
        still binds it (``allowed = allowed - {"x"}`` where `allowed` is a parameter)."""
        hidden, n = f"{name}__before{depth}", 1
        while hidden in self.bindings:  # one per unknown: a choice may hold several
            hidden, n = f"{name}__before{depth}_{n}", n + 1
        self.bindings[hidden] = Opaque(unknown.text, unknown.name or name)
        return cst.Name(hidden)

    def bind(self, name: str, value: cst.BaseExpression) -> None:
        """Record ``name = value``; a config alias or view makes `name` an alias."""
        prev = self.bindings.get(name)
        bound: Binding = value
        if isinstance(prev, (cst.BaseExpression, Conditional)) and _mentions(value, name):
            depth = self.rebinds.get(name, 0) + 1
            if depth > MAX_REBINDS:  # x = x + ... in a long chain: the value grows without bound
                self.bindings[name] = Opaque(described(f"recomputed from itself {depth} times"))
                self.aliases.discard(name)
                return
            self.rebinds[name] = depth
            # x = int(x): the new x is int(old x); f(a if c else b) is f(a) if c else f(b)
            bound = _distributed(value, name, prev, lambda unknown: self._hidden(name, unknown, depth))
        elif isinstance(prev, Opaque) and _mentions(value, name) and self.rebinds.get(name, 0) < MAX_REBINDS:
            # x = x.strip() where x is unknown (a loop's item): the method of that unknown
            depth = self.rebinds.get(name, 0) + 1
            self.rebinds[name] = depth
            bound = _substitute(value, name, self._hidden(name, prev, depth))
        else:
            self.rebinds.pop(name, None)
        self.bindings[name] = bound
        if isinstance(bound, cst.BaseExpression) and self.is_config(bound):
            self.aliases.add(name)
        else:
            self.aliases.discard(name)
        if isinstance(bound, cst.Lambda):
            self.lambdas[name] = bound
        elif isinstance(bound, (cst.List, cst.Tuple, cst.Dict)):
            table = table_of(bound)
            if table is not None:
                self.bindings[name] = table


def _under(cond: Expr, value: Binding, other: Binding) -> Binding:
    """``value if cond else other``; when `value` chose between values falling back to
    `other` itself (a nested ``if``), its tests take `cond` on instead, so nesting adds
    no copies of `other`: ``(v if d else o) if c else o`` is ``v if c and d else o``."""
    flat = _flattened(cond, value, other)
    return flat if flat is not None else Conditional(cond, value, other)


def _flattened(cond: Expr, value: Binding, other: Binding) -> Binding | None:
    if value is other:
        return other
    if not isinstance(value, Conditional):
        return None
    rest = _flattened(cond, value.previous, other)
    return None if rest is None else Conditional(conj([cond, value.cond]), value.value, rest)


def _distributed(value: cst.BaseExpression, name: str, prev: Binding,
                 hide: Callable[[Opaque], cst.Name]) -> Binding:
    """``x = f(x)`` where `x` is `prev`: `f` applied to each value `prev` chooses between (an
    unknown one under the name `hide` keeps it by)."""
    if isinstance(prev, Conditional):
        return Conditional(prev.cond, _distributed(value, name, prev.value, hide),
                           _distributed(value, name, prev.previous, hide))
    if isinstance(prev, cst.BaseExpression):
        return _substitute(value, name, prev)
    if isinstance(prev, Opaque):
        return _substitute(value, name, hide(prev))
    return Opaque(described("computed from a table"))


def _mentions(node: cst.BaseExpression, name: str) -> bool:
    return any(n.value == name for n in names_read(node))


def names_read(node: cst.CSTNode) -> list[cst.Name]:
    """The names `node` reads (not attribute names after a dot)."""
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
