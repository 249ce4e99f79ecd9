"""The dotted name an ``ast`` node stands for, spelled as libcst's ``get_full_name_for_node``
spells it for the same code: for readers of outlines and type texts that load no libcst."""
from __future__ import annotations

import ast


def ast_full_name(node: ast.AST) -> str | None:
    """libcst's ``get_full_name_for_node`` on the ``ast`` twin of a node."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{ast_full_name(node.value)}.{node.attr}"
    if isinstance(node, (ast.Call, ast.Subscript, ast.Starred)):  # libcst keeps a base's star on its Arg
        return ast_full_name(node.func if isinstance(node, ast.Call) else node.value)
    return None
