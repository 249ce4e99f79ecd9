"""Which local names a block of code writes: rebinds them, or changes the object they hold
in place (``d[k] = v``, ``d.update(...)``, ``del d[k]``); and which attributes a function sets.

A loop body runs more than once, so at its top a name it writes may hold the value the
previous pass left (`extractor.sites` makes such names unknown there); a name whose object
is changed in place no longer holds the literal it was bound to.
"""
from __future__ import annotations

import libcst as cst

from extractor.tables import target_names

# Methods of the builtin containers that change the object they are called on.
MUTATORS = frozenset({
    "append", "extend", "insert", "remove", "pop", "popitem", "clear", "update", "setdefault",
    "add", "discard", "difference_update", "intersection_update", "symmetric_difference_update",
    "sort", "reverse",
})


def mutated_name(node: cst.BaseExpression) -> str | None:
    """The local a target or call changes in place: ``d`` of ``d[k]``, ``d[k][j]``, ``d.update(...)``."""
    if isinstance(node, cst.Call):
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in MUTATORS:
            return None
        node = func.value
    elif isinstance(node, cst.Subscript):
        node = node.value
    else:
        return None
    while isinstance(node, cst.Subscript):
        node = node.value
    return node.value if isinstance(node, cst.Name) else None


class OwnBody(cst.CSTVisitor):
    """Walks a block's own statements: a nested definition's body runs when it is called,
    with names of its own (walked as its own function, if at all)."""

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


class _Writes(OwnBody):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def _target(self, target: cst.BaseExpression) -> None:
        names = target_names(target)
        if names:
            self.names.update(names)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for el in target.elements:
                self._target(el.value)
        elif (name := mutated_name(target)) is not None:
            self.names.add(name)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._target(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._target(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._target(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._target(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._target(node.target)

    def visit_Del(self, node: cst.Del) -> None:
        self._target(node.target)

    def visit_Call(self, node: cst.Call) -> None:
        if (name := mutated_name(node)) is not None:
            self.names.add(name)


def written_names(block: cst.CSTNode) -> set[str]:
    """The local names `block` rebinds or changes in place (not inside nested definitions)."""
    visitor = _Writes()
    block.visit(visitor)
    return visitor.names


class _Attributes(OwnBody):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def _target(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Attribute):
            self.names.add(target.attr.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._target(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._target(node.target)


def written_attributes(node: cst.FunctionDef) -> frozenset[str]:
    """The attributes `node`'s own body assigns (``self._done = True``: ``_done``)."""
    found = _Attributes()
    node.body.visit(found)
    return frozenset(found.names)
