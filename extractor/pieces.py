"""libcst trees of very large files, parsed a piece at a time.

libcst's native parser holds the whole token stream and its own tree besides the
Python nodes it returns: parsing 100k lines takes ~2.4 GB at its peak, five times
what the resulting tree keeps. A large file is therefore cut at statement boundaries
(known from the `ast` the caller has anyway) into pieces of at most `PIECE_LINES`
lines, each parsed alone, and the statements are put back together into one module.
A single statement longer than a piece (a 100k-line function) is cut inside its
body: each part of the body is parsed under a copy of the headers that enclose it
(``class C:`` / ``def f(self):``), and the statements found there are put back as
that body.

The result has the same statements as `libcst.parse_module` of the whole file, node
for node; only blank and comment lines between pieces may sit elsewhere (a piece's
header instead of a statement's leading lines), which no analysis reads. Files of at
most `WHOLE_LINES` lines are parsed whole. Statements of a piece are those of the whole
file's parse (`deep_equals`), footers and comments included (tests/test_pieces.py).
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass

import libcst as cst

PIECE_LINES = 4_000  # peak parser memory grows with the piece, not the file
WHOLE_LINES = 20_000  # files up to this size are parsed in one go (every real sglang file)

# Line ends as Python's tokenizer sees them (str.splitlines also splits on \f, \v, U+2028 ...).
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


@dataclass(frozen=True, slots=True)
class Piece:
    """Lines [lo, hi) (0-based) parsed together; or, with `body`, one compound statement
    whose header is lines [lo, head_end) and whose body is cut into `body`."""

    lo: int
    hi: int
    head_end: int = 0
    body_indent: str = ""  # the body's indentation: header + an indented `pass` parse as the statement
    body: tuple[Piece, ...] = ()


# Statements whose body may be cut: their body is the last thing they hold.
_CUTTABLE = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclass(frozen=True, slots=True)
class Cut:
    """A large file's lines (as Python numbers them, line ends kept) and its pieces."""

    lines: list[str]
    pieces: tuple[Piece, ...]


def cut(source: str, tree: ast.Module | None, *, piece: int | None = None, whole: int | None = None) -> Cut | None:
    """How to parse `source`, whose `ast` is `tree`, in pieces (None: whole); sizes in
    lines, by default `PIECE_LINES` and `WHOLE_LINES`.

    Only line numbers are kept, so the caller can drop `tree` before parsing."""
    piece = PIECE_LINES if piece is None else piece
    whole = WHOLE_LINES if whole is None else whole
    if tree is None or not tree.body or source.count("\n") < whole:
        return None
    lines = _LINE.findall(source)
    if len(lines) <= whole:
        return None
    return Cut(lines, _cut(tree.body, 0, len(lines), piece, lines))


def _start(stmt: ast.stmt) -> int:
    """0-based first line of a statement, its decorators included."""
    decorators = getattr(stmt, "decorator_list", ())
    return min([stmt.lineno, *(d.lineno for d in decorators)]) - 1


def _end(stmt: ast.stmt) -> int:
    return stmt.end_lineno or stmt.lineno


def _cut(stmts: list[ast.stmt], lo: int, hi: int, piece: int, lines: list[str]) -> tuple[Piece, ...]:
    """Pieces covering lines [lo, hi) that hold `stmts`: consecutive statements up to
    `piece` lines each, cut only between lines (never between `a; b`); blank and comment
    lines go with the statement after them."""
    out: list[Piece] = []
    group_lo = lo
    group: list[ast.stmt] = []
    for i, stmt in enumerate(stmts):
        group.append(stmt)
        nxt = stmts[i + 1] if i + 1 < len(stmts) else None
        cut_at = hi if nxt is None else _after_block_comments(lines, stmt, _end(stmt), _start(nxt))
        if nxt is not None and (_start(nxt) < cut_at or _end(nxt) - group_lo <= piece):
            continue  # same line as the next one, or the next one still fits
        out.append(_piece(group, group_lo, cut_at, piece, lines))
        group_lo, group = cut_at, []
    return tuple(out)


def _after_block_comments(lines: list[str], prev: ast.stmt, end: int, nxt: int) -> int:
    """Where to cut between `prev`, ending at line `end`, and the next statement at line
    `nxt`: after the comments libcst keeps at the end of the block `prev` ends (those
    indented at least as deep as that block), so the lines after go with the next one."""
    indent = _ending_indent(prev, lines)
    cut = end
    for i in range(end, nxt):
        text = lines[i].strip()
        if indent is None or (text and (not text.startswith("#") or _indent(lines[i]) < indent)):
            break
        if text:
            cut = i + 1
    return cut


def _ending_indent(stmt: ast.stmt, lines: list[str]) -> int | None:
    """Indentation of the last block `stmt` ends with (None: it ends with no block)."""
    children = [s for name in ("body", "orelse", "finalbody") for s in getattr(stmt, name, ())]
    children += [s for h in getattr(stmt, "handlers", ()) for s in h.body]
    children += [s for c in getattr(stmt, "cases", ()) for s in c.body]
    if not children:
        return None
    last = max(children, key=lambda s: (s.lineno, s.col_offset))
    if isinstance(last, ast.If) and lines[last.lineno - 1].lstrip().startswith("elif"):
        return _ending_indent(last, lines)
    return _indent(lines[_start(last)]) if _starts_line(last, lines) else None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _piece(group: list[ast.stmt], lo: int, hi: int, piece: int, lines: list[str]) -> Piece:
    only = group[0]
    if len(group) == 1 and hi - lo > piece and isinstance(only, _CUTTABLE) and _starts_line(only.body[0], lines):
        first = only.body[0]
        head_end = _start(first)
        while head_end > lo and (not lines[head_end - 1].strip() or lines[head_end - 1].lstrip().startswith("#")):
            head_end -= 1  # blank and comment lines lead the first statement, as in libcst
        indent = lines[_start(first)][:_indent(lines[_start(first)])]
        return Piece(lo, hi, head_end, indent, _cut(only.body, head_end, hi, piece, lines))
    return Piece(lo, hi)


def _starts_line(stmt: ast.stmt, lines: list[str]) -> bool:
    """Is `stmt` the first thing on its line (not ``class C: x = [`` ...)? Columns are
    UTF-8 offsets; a decorator's is after its ``@``."""
    decorators = getattr(stmt, "decorator_list", ())
    column = min([stmt.col_offset, *(d.col_offset - 1 for d in decorators)])
    return not lines[_start(stmt)].encode("utf-8")[:column].strip()


def parse(source: str, how: Cut | None) -> cst.Module:
    """`libcst.parse_module(source)`, in pieces when `how` says so (see `cut`)."""
    if how is None:
        return cst.parse_module(source)
    try:
        return _parse_pieces(how.lines, how.pieces)
    except (AssertionError, ValueError, cst.ParserSyntaxError):  # a shape the cut got wrong: whole
        return cst.parse_module(source)


def _parse_pieces(lines: list[str], pieces: tuple[Piece, ...]) -> cst.Module:
    parsed = [_parse_piece(lines, [], 0, p) for p in pieces]
    body: list[cst.BaseStatement] = list(parsed[0].stmts)
    for later in parsed[1:]:
        # Lines before a piece's first statement are its module's header; in the whole file
        # they lead that statement.
        head, *rest = later.stmts
        assert isinstance(head, (cst.SimpleStatementLine, cst.BaseCompoundStatement))  # every statement kind
        body += [head.with_changes(leading_lines=[*later.module.header, *head.leading_lines]), *rest]
    tail = parsed[-1].tail
    return parsed[0].module.with_changes(body=body, footer=tail.footer, has_trailing_newline=tail.has_trailing_newline)


@dataclass(frozen=True, slots=True)
class _Parsed:
    module: cst.Module  # parsed for the piece's first lines
    stmts: list[cst.BaseStatement]  # the piece's statements
    tail: cst.Module  # parsed for its last lines: the footers of the blocks it ends


def _parse_piece(lines: list[str], prefix: list[str], depth: int, p: Piece) -> _Parsed:
    """Piece `p` parsed under `prefix`, the headers of the `depth` compound statements that
    enclose it."""
    if not p.body:
        module = cst.parse_module("".join(prefix + lines[p.lo:p.hi]))
        return _Parsed(module, _inside(module, depth), module)
    head = lines[p.lo:p.head_end]
    # The statement with a stand-in body: its first statement may itself be a long one.
    module = cst.parse_module("".join([*prefix, *head, p.body_indent + "pass\n"]))
    (shell,) = _inside(module, depth)
    parts = [_parse_piece(lines, prefix + head, depth + 1, q) for q in p.body]
    inner = [stmt for part in parts for stmt in part.stmts]
    assert isinstance(shell, (cst.FunctionDef, cst.ClassDef)) and isinstance(shell.body, cst.IndentedBlock)
    tail = parts[-1].tail
    block = shell.body.with_changes(body=inner, footer=_block(tail, depth + 1).footer)
    return _Parsed(module, [shell.with_changes(body=block)], tail)


def _block(module: cst.Module, depth: int) -> cst.IndentedBlock:
    """The body block of the compound statement `depth` levels down (depth >= 1)."""
    stmts: list[cst.BaseStatement] = list(module.body)
    for _ in range(depth):
        outer = stmts[0]
        assert isinstance(outer, (cst.FunctionDef, cst.ClassDef)) and isinstance(outer.body, cst.IndentedBlock)
        block = outer.body
        stmts = list(block.body)
    return block


def _inside(module: cst.Module, depth: int) -> list[cst.BaseStatement]:
    """The statements `depth` compound statements down (each enclosing one is alone)."""
    return list(_block(module, depth).body) if depth else list(module.body)
