"""First docstring lines of functions, by qualified name (for an entry's meaning)."""
from __future__ import annotations

import ast


def first_lines(tree: ast.Module | None) -> tuple[tuple[str, str], ...]:
    """``(("ServerArgs.check", "Check the arguments."), ...)`` for every documented function
    of a file's `ast` (none when Python could not parse it), sorted by name."""
    if tree is None:
        return ()
    out: dict[str, str] = {}
    stack: list[tuple[ast.AST, str]] = [(tree, "")]
    while stack:
        node, prefix = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                qual = f"{prefix}{child.name}"
                doc = ast.get_docstring(child) if not isinstance(child, ast.ClassDef) else None
                line = doc.strip().splitlines()[0].strip() if doc and doc.strip() else ""
                if line:
                    out[qual] = line
                stack.append((child, qual + "."))
    return tuple(sorted(out.items()))
