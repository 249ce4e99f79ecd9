"""Exact line numbers of raise/assert statements without libcst's PositionProvider.

PositionProvider re-walks the whole tree with whitespace bookkeeping (several times
the cost of the parse on a 10k-line file). The stdlib `ast` parser is written in C
and reports the same statements' first lines; both trees list them in document
order, so the n-th raise/assert met by the walker is the n-th one `ast` reports.
The walker checks the counts agree and falls back to PositionProvider if not.
"""
from __future__ import annotations

import ast

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider


def statement_lines(tree: ast.Module | None) -> list[int] | None:
    """First lines of every raise/assert statement of the file's `ast`, in document order
    (None when ast could not parse it)."""
    if tree is None:
        return None
    found: list[tuple[int, int]] = []
    stack: list[ast.AST] = [tree]
    while stack:  # statements only: raise/assert never sit inside expressions
        node = stack.pop()
        if isinstance(node, (ast.Raise, ast.Assert)):
            found.append((node.lineno, node.col_offset))
            continue
        for name in _BODIES:
            stack.extend(getattr(node, name, ()))
    found.sort()
    return [line for line, _ in found]


# Fields of statement nodes that hold nested statements (incl. except handlers, match cases).
_BODIES = ("body", "orelse", "finalbody", "handlers", "cases")


class _Collect(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self) -> None:
        self.lines: dict[int, int] = {}

    def visit_Raise(self, node: cst.Raise) -> None:
        self.lines[id(node)] = self.get_metadata(PositionProvider, node).start.line

    def visit_Assert(self, node: cst.Assert) -> None:
        self.lines[id(node)] = self.get_metadata(PositionProvider, node).start.line


def metadata_lines(module: cst.Module) -> dict[int, int]:
    """Fallback: id(node) -> line via PositionProvider, on the same node objects."""
    collector = _Collect()
    MetadataWrapper(module, unsafe_skip_copy=True).visit(collector)
    return collector.lines
