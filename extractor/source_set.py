"""The files of one analysis, outlined with the stdlib ``ast`` and parsed with libcst on demand.

- `Outline`: what ``ast`` (fast: C) tells about a file before libcst parses it
  (statement spans, classes, dict tables), so readers can skip most files;
- `SourceModule`: one parsed file, with exact line numbers from the shared
  `extractor.positions.LineIndex`;
- `SourceSet`: the files by repo path, each outlined and parsed at most once;
- `Diagnostic`: a file or declaration a reader could not understand.

Names across the files are resolved by `extractor.symbols`, constant values by
`extractor.constant_values`. Nothing here imports or runs the target code.
"""
from __future__ import annotations

import ast
import gc
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from extractor import parse
from extractor.ast_names import ast_full_name
from extractor.positions import LineIndex, StatementSpan, ast_statements, statement_span
from extractor.records import Diagnostic

if TYPE_CHECKING:  # trees are made by `extractor.parse`; `Diagnostic` readers load no libcst
    import libcst as cst


@dataclass(frozen=True, slots=True)
class ClassOutline:
    name: str
    top_level: bool
    bases: tuple[str, ...]  # full names as libcst's get_full_name_for_node gives them ("" if none)
    subscripted_fields: bool  # some ``x: T[...]`` in the body (Annotated fields are)
    call_assigns: bool  # some ``x = f(...)`` in the body


@dataclass(frozen=True, slots=True)
class Outline:
    """What the stdlib ``ast`` (fast: C) tells about a file before libcst parses it."""

    statements: tuple[StatementSpan, ...]  # every statement, document order
    classes: tuple[ClassOutline, ...]  # at any depth, document order
    dict_tables: bool  # a module-level ``NAME = {key: f(...), ...}``


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a parser builds a tree.

    Parsers allocate many objects and no cycles; with large trees already alive
    (e.g. parsed for site extraction) every automatic collection re-scans them:
    a third of libcst's parse time and half of ``ast.parse``'s. The previous
    state is restored on exit.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def read_outline(source: str) -> Outline | None:
    """The `Outline` of a source text; None when ``ast`` cannot parse it."""
    try:
        with gc_paused():
            tree = parse.python(source)
    except SyntaxError:
        return None
    statements: list[StatementSpan] = []
    classes: list[tuple[int, int, ClassOutline]] = []
    top = set(map(id, tree.body))
    for node in ast_statements(tree):
        span = statement_span(node)
        statements.append(span)
        if isinstance(node, ast.ClassDef):
            classes.append((span.line, span.column, _class_outline(node, id(node) in top)))
    statements.sort()
    classes.sort(key=lambda c: c[:2])
    tables = any(
        isinstance(stmt, (ast.Assign, ast.AnnAssign))
        and isinstance(stmt.value, ast.Dict)
        and any(isinstance(v, ast.Call) for v in stmt.value.values)
        for stmt in tree.body
    )
    return Outline(tuple(statements), tuple(c for _, _, c in classes), tables)


def _class_outline(node: ast.ClassDef, top_level: bool) -> ClassOutline:
    return ClassOutline(
        name=node.name,
        top_level=top_level,
        bases=tuple(ast_full_name(b) or "" for b in node.bases),
        subscripted_fields=any(isinstance(s, ast.AnnAssign) and isinstance(s.annotation, ast.Subscript)
                               for s in node.body),
        call_assigns=any(isinstance(s, ast.Assign) and isinstance(s.value, ast.Call) for s in node.body),
    )


@dataclass(frozen=True, slots=True)
class SourceModule:
    """One parsed file, its text, and the line numbers of its nodes."""

    path: str
    name: str  # dotted module name derived from the path
    tree: cst.Module = field(repr=False, compare=False)
    source: str | None = field(default=None, repr=False, compare=False)
    # Where statement lines come from (default: `read_outline` of `source`).
    outline: Callable[[], Outline | None] | None = field(default=None, repr=False, compare=False)
    lines: LineIndex = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        source = self.source
        outline = self.outline or (lambda: read_outline(source) if source is not None else None)
        object.__setattr__(self, "lines", LineIndex(self.tree, lambda: _statements(outline())))

    def line(self, node: cst.CSTNode, within: cst.CSTNode | None = None) -> int:
        return self.lines.line(node, within)


def _statements(outline: Outline | None) -> tuple[StatementSpan, ...] | None:
    return outline.statements if outline is not None else None


def module_name(path: str) -> str:
    """``python/sglang/srt/x.py`` -> ``python.sglang.srt.x`` (packages drop ``__init__``)."""
    stem = path[:-3] if path.endswith(".py") else path
    parts = [p for p in stem.split("/") if p]
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


class SourceSet:
    """The files of one analysis by repo path; outline and tree each made on first use.

    Parsing with libcst is most of the cost, and most files of a target only hold
    code the readers never look at: a file is parsed when a reader asks for it
    (its outline says it may declare something) or when a name leads into it.
    `trees` lends trees a caller already parsed from the same text; they are only
    read.
    """

    def __init__(self, files: Mapping[str, str], trees: Mapping[str, cst.Module] | None = None) -> None:
        self.files = files
        self.paths = tuple(sorted(files))
        self.names = {path: module_name(path) for path in self.paths}
        self._trees = {path: tree for path, tree in (trees or {}).items() if path in files}
        self._outlines: dict[str, Outline | None] = {}
        self._modules: dict[str, SourceModule | None] = {}
        self._failures: dict[str, Diagnostic] = {}

    def outline(self, path: str) -> Outline | None:
        if path not in self._outlines:
            self._outlines[path] = read_outline(self.files[path]) if path in self.files else None
        return self._outlines[path]

    def module(self, path: str) -> SourceModule | None:
        """The parsed file (None if it is not in the set or libcst cannot parse it)."""
        if path not in self._modules:
            self._modules[path] = self._parse(path)
        return self._modules[path]

    def _parse(self, path: str) -> SourceModule | None:
        if path not in self.files:
            return None
        tree = self._trees.get(path)
        if tree is None:
            import libcst as cst  # its parse errors: only where a file is parsed

            try:
                with gc_paused():
                    tree = parse.module(self.files[path])
            except parse.Refused as exc:  # too deep to parse safely: said, never a crash
                where = f"{path}:{exc.line}" if exc.line else path
                self._failures[path] = Diagnostic(path, exc.line or 0, f"not analysed ({where}): {exc.reason}")
                return None
            except cst.ParserSyntaxError as exc:
                self._failures[path] = Diagnostic(path, exc.raw_line, f"cannot parse: {exc.message}")
                return None
            except Exception as exc:  # noqa: BLE001 - libcst raises a few other kinds on odd input
                self._failures[path] = Diagnostic(path, 0, f"cannot parse: {type(exc).__name__}: {exc}")
                return None
        return SourceModule(path, self.names[path], tree, self.files[path], lambda: self.outline(path))

    def parsed(self) -> tuple[SourceModule, ...]:
        """The files parsed so far, in path order."""
        return tuple(mod for path, mod in sorted(self._modules.items()) if mod is not None)

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        """Files that were needed but could not be parsed."""
        return tuple(self._failures[path] for path in sorted(self._failures))

