"""The one way errcat parses text that comes from a target: whole files with libcst or
``ast``, and fragments of them (an option's type, a message's expression).

Target text is hostile input: libcst's native parser recurses on the C stack and kills
the process past ~1,200 nested brackets, and ``ast`` raises RecursionError or
MemoryError on odd input. Every reader goes through here, so each parse is measured
first (`extractor.depth`), refused with `Refused` (a ValueError naming why) when it
is too deep to analyse, and otherwise run on a thread with room for it. A file holding
NUL bytes is refused too (no parser reads it the same way). `tests/test_layers.py`
fails when a module outside `PARSERS` calls a parser itself.
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from extractor import depth

if TYPE_CHECKING:  # imported where a tree is made: readers of stored results (the warm path) never load libcst
    import libcst as cst

# the modules that call libcst's or ast's parser on target text; everyone else calls these
PARSERS = ("extractor/parse.py", "extractor/depth.py", "extractor/pieces.py")
_FRAGMENT = 64  # brackets a fragment may open before it is measured like a file


class Refused(ValueError):
    """Text errcat does not parse: `reason` says why, `line` where (when known);
    `by_python`: CPython refuses it as well (it can never run)."""

    def __init__(self, reason: str, line: int | None = None, *, by_python: bool = True) -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = line
        self.by_python = by_python


def _guard(source: str) -> ast.Module | None:
    """The `ast` of `source` when Python reads it; `Refused` when it is too deep or holds NUL."""
    if "\0" in source:
        raise Refused("it holds NUL bytes")
    tree, too_deep = depth.refusal(source)
    if too_deep is not None:
        raise Refused(too_deep.reason, too_deep.line, by_python=too_deep.by_python)
    return tree


def module(source: str) -> cst.Module:
    """libcst's tree of a whole file; `Refused`, or libcst's own errors for what it cannot read."""
    from extractor import pieces

    # a large file a piece at a time, as the site walker parses it: the parser's peak memory
    # grows with the piece, and a whole 100k-line file's would be most of a run's (issue 39)
    how = pieces.cut(source, _guard(source))
    return depth.call_deep(pieces.parse, source, how)


def expression(text: str) -> cst.BaseExpression:
    """libcst's tree of an expression taken from a target (an option's ``type=``, a value)."""
    import libcst as cst

    if sum(text.count(c) for c in "([{") > _FRAGMENT:
        _guard(f"(\n{text}\n)")
    return cst.parse_expression(text)


def python(source: str) -> ast.Module:
    """The stdlib `ast` of a file: SyntaxError for what Python does not read, including
    what is too deep or too large for it (never RecursionError or MemoryError)."""
    tree = _ast(source, "exec")
    assert isinstance(tree, ast.Module)
    return tree


def python_expression(text: str) -> ast.expr:
    """The stdlib `ast` of an expression, as `python` reads a file."""
    tree = _ast(text, "eval")
    assert isinstance(tree, ast.Expression)
    return tree.body


def _ast(source: str, mode: str) -> ast.AST:
    if "\0" in source:
        raise SyntaxError("source holds NUL bytes")
    try:
        return ast.parse(source, mode=mode)
    except (RecursionError, MemoryError, ValueError) as exc:
        raise SyntaxError(f"{type(exc).__name__}: {exc}") from None


def python_rejects(source: str) -> bool:
    """Does CPython itself refuse to compile `source` (so the file can never run)?"""
    try:
        compile(source, "<target>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError):
        return True
    except MemoryError:  # undecided: count it as errcat's failure, not the file's
        pass
    return False
