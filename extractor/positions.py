"""Line numbers of libcst nodes without resolving PositionProvider on the whole file.

The one owner of "node -> line" (and "text offset -> line") for the extractor:
site extraction (`extractor.sites`) and the declaration readers (`extractor.source_set`)
both use `LineIndex`.

PositionProvider re-generates the code of the whole tree with whitespace bookkeeping
(several times the cost of the parse on a 10k-line file). The stdlib `ast` parser is
written in C and reports every statement's first line; both trees list statements in
document order, so the n-th statement of one is the n-th of the other. A node inside
a statement is placed by resolving positions on that statement alone. If `ast` could
not parse the source or the statement counts disagree, PositionProvider on the whole
tree answers (`LineIndex.from_ast` says which).
"""
from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import NamedTuple

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider


class StatementSpan(NamedTuple):
    """Where `ast` puts one statement; sorting spans gives document order."""

    line: int  # the statement's own first line (after its decorators)
    column: int
    first: int  # first line, decorators included
    last: int


# Fields of statement nodes that hold nested statements, in document order
# (``ast``: incl. except handlers and match cases; libcst: suites, Else, Finally).
_AST_BODIES = ("body", "handlers", "orelse", "finalbody", "cases")
_CST_BLOCKS = ("body", "handlers", "cases", "orelse", "finalbody")


def ast_statements(tree: ast.Module) -> Iterator[ast.stmt]:
    """Every statement of `tree` at any depth (not in document order: sort their spans)."""
    stack: list[ast.AST] = list(tree.body)
    while stack:  # statements only: no statement sits inside an expression
        node = stack.pop()
        if isinstance(node, ast.stmt):
            yield node
        for name in _AST_BODIES:
            stack.extend(getattr(node, name, ()))


def statement_span(node: ast.stmt) -> StatementSpan:
    decorators = getattr(node, "decorator_list", ())
    first = min([node.lineno, *(d.lineno for d in decorators)])
    return StatementSpan(node.lineno, node.col_offset, first, node.end_lineno or node.lineno)


def statement_spans(tree: ast.Module | None) -> tuple[StatementSpan, ...] | None:
    """Spans of every statement of a file's `ast` in document order (None when there is no `ast`)."""
    if tree is None:
        return None
    return tuple(sorted(statement_span(node) for node in ast_statements(tree)))


def statement_blocks(stmt: cst.BaseCompoundStatement) -> Iterator[Sequence[cst.CSTNode]]:
    """The statement lists nested in a compound statement, in document order.

    Items are statements (``SimpleStatementLine`` or compound) or, for one-line
    suites (``if x: a; b``), small statements. An ``elif`` comes as a list holding
    its own ``If``.
    """
    for name in _CST_BLOCKS:
        value = getattr(stmt, name, None)
        if value is None:
            continue
        for part in value if isinstance(value, Sequence) else (value,):
            if isinstance(part, cst.BaseCompoundStatement):  # elif
                yield (part,)
            elif isinstance(part, cst.BaseSuite):
                yield part.body
            elif isinstance(getattr(part, "body", None), cst.BaseSuite):  # Else, Finally, handlers, cases
                yield part.body.body


def _cst_statements(body: Sequence[cst.CSTNode], out: list[cst.CSTNode]) -> None:
    """Statements as ``ast`` lists them (small statements, compound ones), document order."""
    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine):
            out.extend(stmt.body)
        elif isinstance(stmt, cst.BaseCompoundStatement):
            out.append(stmt)
            for block in statement_blocks(stmt):
                _cst_statements(block, out)
        else:  # a small statement of a one-line suite
            out.append(stmt)


class LineIndex:
    """Exact first lines of the nodes of one libcst tree (see the module docstring).

    `spans` gives the `ast` statement spans of the same text when first needed
    (None: `ast` could not parse it).
    """

    __slots__ = ("_agrees", "_full", "_inside", "_lines", "_spans", "_statement_spans", "_tree")

    def __init__(self, tree: cst.Module, spans: Callable[[], Sequence[StatementSpan] | None]) -> None:
        self._tree = tree
        self._statement_spans = spans
        self._lines: dict[cst.CSTNode, int] | None = None  # built on first use
        self._agrees = False  # `ast` parsed the text and lists as many statements as the tree
        self._spans: dict[cst.CSTNode, tuple[int, int]] = {}
        self._inside: dict[cst.CSTNode, Mapping[cst.CSTNode, CodeRange]] = {}
        self._full: Mapping[cst.CSTNode, CodeRange] | None = None

    @property
    def from_ast(self) -> bool:
        """Statement lines come from ``ast`` (False: the PositionProvider fallback)."""
        self._statement_lines()
        return self._agrees

    def _statement_lines(self) -> dict[cst.CSTNode, int]:
        if self._lines is not None:
            return self._lines
        self._lines = {}
        spans = self._statement_spans()
        nodes: list[cst.CSTNode] = []
        _cst_statements(self._tree.body, nodes)
        if spans is None or len(spans) != len(nodes):
            return self._lines
        self._agrees = True
        for node, span in zip(nodes, spans, strict=True):
            self._lines[node] = span.line
            self._spans[node] = (span.first, span.last)
        for stmt in self._tree.body:
            self._line_of_lines(stmt)
        return self._lines

    def _line_of_lines(self, stmt: cst.CSTNode) -> None:
        """A ``SimpleStatementLine`` starts where its first small statement does."""
        assert self._lines is not None
        if isinstance(stmt, cst.SimpleStatementLine):
            first, last = self._spans[stmt.body[0]], self._spans[stmt.body[-1]]
            self._lines[stmt] = self._lines[stmt.body[0]]
            self._spans[stmt] = (first[0], last[1])
        elif isinstance(stmt, cst.BaseCompoundStatement):
            for block in statement_blocks(stmt):
                for inner in block:
                    self._line_of_lines(inner)

    def span(self, stmt: cst.CSTNode) -> tuple[int, int] | None:
        """First and last line of a statement (decorators included), if known from ``ast``."""
        self._statement_lines()
        return self._spans.get(stmt)

    def line(self, node: cst.CSTNode, within: cst.CSTNode | None = None) -> int:
        """First line of `node` (0 if it is not in this tree).

        `within`: a statement (small or compound) containing `node`; without it,
        only statements avoid the whole-file fallback.
        """
        known = self._statement_lines().get(node)
        if known is not None:
            return known
        if within is not None and self._full is None:
            found = self._line_inside(node, within)
            if found is not None:
                return found
        if self._full is None:
            # unsafe_skip_copy: positions must be keyed by the very nodes we hold.
            self._full = MetadataWrapper(self._tree, unsafe_skip_copy=True).resolve(PositionProvider)
        pos = self._full.get(node)
        return pos.start.line if pos is not None else 0

    def _line_inside(self, node: cst.CSTNode, within: cst.CSTNode) -> int | None:
        anchor = within.body[0] if isinstance(within, cst.SimpleStatementLine) else within
        base = self._statement_lines().get(anchor)
        if base is None:
            return None
        if isinstance(anchor, cst.Expr) and anchor.value is node and not getattr(node, "lpar", None):
            return base  # ``parser.add_argument(...)`` as a statement
        positions = self._inside.get(within)
        if positions is None:
            positions = MetadataWrapper(_alone(within), unsafe_skip_copy=True).resolve(PositionProvider)
            self._inside[within] = positions
        pos, ref = positions.get(node), positions.get(anchor)
        if pos is None or ref is None:
            return None
        return base + pos.start.line - ref.start.line


def _alone(within: cst.CSTNode) -> cst.Module:
    """A module holding just one statement (small or compound), to resolve positions on."""
    if isinstance(within, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
        return cst.Module(body=[within])
    assert isinstance(within, cst.BaseSmallStatement), within
    return cst.Module(body=[cst.SimpleStatementLine(body=[within])])


def offset_lines(text: str, offsets: Iterable[int]) -> Iterator[int]:
    """The line (1-based) of each offset into `text`; offsets in ascending order."""
    line, pos = 1, 0
    for offset in offsets:
        line += text.count("\n", pos, offset)
        pos = offset
        yield line


def word_lines(source: str | None, word: str) -> list[int]:
    """Sorted lines where `word` occurs as a whole word (a cheap pre-screen)."""
    if not source:
        return []
    return list(offset_lines(source, (hit.start() for hit in re.finditer(rf"\b{re.escape(word)}\b", source))))


def any_within(lines: Sequence[int], span: tuple[int, int] | None) -> bool:
    """Whether a sorted line list has a line in `span` (True when the span is unknown)."""
    if span is None:
        return bool(lines)
    i = bisect.bisect_left(lines, span[0])
    return i < len(lines) and lines[i] <= span[1]


