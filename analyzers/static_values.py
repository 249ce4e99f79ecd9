"""A small static evaluator over parsed sources (nothing is imported or run).

- `SourceSet`: the files of one analysis; each is outlined with the stdlib ``ast``
  (fast) and parsed with libcst only when a reader or a name needs it;
- `SourceModule`: one parsed file, with exact line numbers (`LineIndex`) that come
  from ``ast`` instead of libcst's PositionProvider;
- `Symbols`: names each module binds at top level (constants, classes, imports),
  so a name resolves across the files;
- `evaluate`: the value of a constant expression, or `UNKNOWN`; `literal`,
  `choices_of`, `render_text` and `function_locals` build on it;
- `Json`: how values are kept (tuples, `FrozenMap`, scalars: immutable and
  hashable); `json_value` turns them into JSON proper.

Declaration readers (`analyzers.flag_decls`, `analyzers.env_decls`) share it.
"""
from __future__ import annotations

import ast
import bisect
import gc
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import libcst as cst
import libcst.matchers as m
from libcst.helpers import get_full_name_for_node
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from extractor import shape

Json = Any  # None | bool | int | float | str | tuple | FrozenMap — what `jsonable` returns


class FrozenMap(Mapping):
    """An immutable, hashable mapping: how `Json` keeps objects (``{"expr": src}``, dicts).

    Equal to any mapping with the same items, so ``flag.default == {"expr": "f()"}``
    holds; `json_value` turns it into a plain dict.
    """

    __slots__ = ("_hash", "_items")

    def __init__(self, items: Mapping | Iterable[tuple[Any, Any]] = ()) -> None:
        self._items = dict(items)
        self._hash: int | None = None

    def __getitem__(self, key: Any) -> Any:
        return self._items[key]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset(self._items.items()))
        return self._hash

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FrozenMap):
            return self._items == other._items
        if isinstance(other, Mapping):
            return self._items == dict(other.items())
        return NotImplemented

    def __repr__(self) -> str:
        return f"FrozenMap({self._items!r})"

    def __str__(self) -> str:  # as the plain dict it stands for (text outputs show it)
        return str(self._items)

    def __reduce__(self) -> tuple[type, tuple[dict]]:
        return (FrozenMap, (self._items,))


# ---------------------------------------------------------------------------
# Parsed sources and their line numbers
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A declaration we could not understand, so the model may miss it."""

    path: str
    line: int
    message: str

    def as_dict(self) -> dict[str, object]:
        return {"path": self.path, "line": self.line, "message": self.message}

    @classmethod
    def from_dict(cls, data: object) -> Diagnostic:
        """Inverse of `as_dict`; `extractor.shape.ShapeError` for data of another shape."""
        d = shape.record(data, cls)
        return cls(shape.text(d["path"]), shape.integer(d["line"]), shape.text(d["message"]))

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


# Fields of statement nodes that hold nested statements, in document order
# (``ast``: incl. except handlers and match cases; libcst: suites, Else, Finally).
_AST_BODIES = ("body", "handlers", "orelse", "finalbody", "cases")
_CST_BLOCKS = ("body", "handlers", "cases", "orelse", "finalbody")


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

    # (line, column, first line, last line) of every statement in document order;
    # the span includes decorators.
    statements: tuple[tuple[int, int, int, int], ...]
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
            tree = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    statements: list[tuple[int, int, int, int]] = []
    classes: list[tuple[int, int, ClassOutline]] = []
    top = set(map(id, tree.body))
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.stmt):
            decorators = getattr(node, "decorator_list", ())
            first = min([node.lineno, *(d.lineno for d in decorators)])
            statements.append((node.lineno, node.col_offset, first, node.end_lineno or node.lineno))
            if isinstance(node, ast.ClassDef):
                classes.append((node.lineno, node.col_offset, _class_outline(node, id(node) in top)))
        for name in _AST_BODIES:
            stack.extend(getattr(node, name, ()))
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
        bases=tuple(_ast_full_name(b) or "" for b in node.bases),
        subscripted_fields=any(isinstance(s, ast.AnnAssign) and isinstance(s.annotation, ast.Subscript)
                               for s in node.body),
        call_assigns=any(isinstance(s, ast.Assign) and isinstance(s.value, ast.Call) for s in node.body),
    )


def _ast_full_name(node: ast.AST) -> str | None:
    """libcst's ``get_full_name_for_node`` on the ``ast`` twin of a node."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_ast_full_name(node.value)}.{node.attr}"
    if isinstance(node, (ast.Call, ast.Subscript, ast.Starred)):  # libcst keeps a base's star on its Arg
        return _ast_full_name(node.func if isinstance(node, ast.Call) else node.value)
    return None


class LineIndex:
    """Exact first lines of nodes without resolving PositionProvider on the whole file.

    libcst's PositionProvider re-generates the code of the whole tree (a few parses'
    worth of time). Statements get their lines from the stdlib ``ast`` instead: both
    trees list them in document order, so the n-th statement of one is the n-th of
    the other. A node inside a statement is placed by resolving positions on that
    statement alone (`line` with ``within``). If ``ast`` cannot parse the source or
    the statement counts disagree, PositionProvider on the whole tree answers.
    """

    __slots__ = ("_full", "_inside", "_lines", "_outline", "_spans", "_tree")

    def __init__(self, tree: cst.Module, outline: Callable[[], Outline | None]) -> None:
        self._tree = tree
        self._outline = outline
        self._lines: dict[cst.CSTNode, int] | None = None  # built on first use
        self._spans: dict[cst.CSTNode, tuple[int, int]] = {}
        self._inside: dict[cst.CSTNode, Mapping[cst.CSTNode, CodeRange]] = {}
        self._full: Mapping[cst.CSTNode, CodeRange] | None = None

    @property
    def from_ast(self) -> bool:
        """Statement lines come from ``ast`` (False: the PositionProvider fallback)."""
        return bool(self._statement_lines()) or not self._tree.body

    def _statement_lines(self) -> dict[cst.CSTNode, int]:
        if self._lines is not None:
            return self._lines
        self._lines = {}
        outline = self._outline()
        nodes: list[cst.CSTNode] = []
        _cst_statements(self._tree.body, nodes)
        if outline is None or len(outline.statements) != len(nodes):
            return self._lines
        for node, (line, _col, first, last) in zip(nodes, outline.statements):
            self._lines[node] = line
            self._spans[node] = (first, last)
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
            alone = within if isinstance(within, cst.BaseStatement) else cst.SimpleStatementLine(body=[within])
            module = cst.Module(body=[alone])
            positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
            self._inside[within] = positions
        pos, ref = positions.get(node), positions.get(anchor)
        if pos is None or ref is None:
            return None
        return base + pos.start.line - ref.start.line


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
        object.__setattr__(self, "lines", LineIndex(self.tree, outline))

    def line(self, node: cst.CSTNode, within: cst.CSTNode | None = None) -> int:
        return self.lines.line(node, within)


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
            try:
                with gc_paused():
                    tree = cst.parse_module(self.files[path])
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


def word_lines(source: str | None, word: str) -> list[int]:
    """Sorted lines where `word` occurs as a whole word (a cheap pre-screen)."""
    if not source:
        return []
    out: list[int] = []
    line, pos = 1, 0
    for hit in re.finditer(rf"\b{re.escape(word)}\b", source):
        line += source.count("\n", pos, hit.start())
        pos = hit.start()
        out.append(line)
    return out


def any_within(lines: Sequence[int], span: tuple[int, int] | None) -> bool:
    """Whether a sorted line list has a line in `span` (True when the span is unknown)."""
    if span is None:
        return bool(lines)
    i = bisect.bisect_left(lines, span[0])
    return i < len(lines) and lines[i] <= span[1]


# ---------------------------------------------------------------------------
# Source text
# ---------------------------------------------------------------------------

_EMPTY_MODULE = cst.Module(body=[])
_WS = re.compile(r"\s+")


def source_text(node: cst.CSTNode) -> str:
    """One-line source text of an expression (comments and line breaks dropped).

    Re-printed through stdlib ``ast`` so multi-line, commented declarations read
    the same as one-liners; string quotes may come out normalised.
    """
    raw = _EMPTY_MODULE.code_for_node(node).strip()
    try:
        return ast.unparse(ast.parse(f"(\n{raw}\n)", mode="eval"))
    except SyntaxError:
        return _WS.sub(" ", raw)


def expr_ref(node: cst.CSTNode) -> FrozenMap:
    """How a value that is not a literal is recorded: ``{"expr": source text}``."""
    return FrozenMap({"expr": source_text(node)})


# ---------------------------------------------------------------------------
# Symbols: module-level constants, classes and imports across the given files
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Import:
    module: str  # dotted, already made absolute
    name: str


@dataclass(frozen=True, slots=True)
class Bindings:
    """Names one module binds at top level."""

    assigns: Mapping[str, cst.BaseExpression]  # NAME = value (later ones win)
    classes: Mapping[str, Mapping[str, cst.BaseExpression]]  # class -> its attributes
    imports: Mapping[str, _Import]  # local name -> where it comes from
    class_defs: Mapping[str, cst.ClassDef]


_NO_BINDINGS = Bindings({}, {}, {}, {})


class Symbols:
    """Names each module binds at top level, so constants resolve across files.

    A module is parsed (through its `SourceSet`) when a name first leads into it.
    """

    __slots__ = ("_bindings", "cache", "sources")

    def __init__(self, sources: SourceSet) -> None:
        self.sources = sources
        # Answers that only depend on the files, kept by the readers (e.g. module_for).
        self.cache: dict[object, Any] = {}
        self._bindings: dict[str, Bindings] = {}

    def bindings(self, path: str) -> Bindings:
        """What `path` binds at top level (nothing if it is not in the set or unparsable)."""
        found = self._bindings.get(path)
        if found is None:
            mod = self.sources.module(path)
            found = _top_level_bindings(path, mod.tree) if mod is not None else _NO_BINDINGS
            self._bindings[path] = found
        return found

    def module_for(self, dotted: str) -> str | None:
        """Path of the analysed module an import names (matched by dotted suffix)."""
        key = ("module_for", dotted)
        if key not in self.cache:
            names = self.sources.names
            hits = [p for p, name in names.items() if name == dotted or name.endswith("." + dotted)]
            self.cache[key] = min(hits, key=len) if hits else None
        return self.cache[key]

    def resolve(self, path: str, name: str, _seen: frozenset = frozenset()) -> tuple[str, str] | None:
        """The (path, name) that really binds `name` as seen from `path`."""
        key = (path, name)
        if key in _seen:
            return None
        here = self.bindings(path)
        if name in here.assigns or name in here.class_defs:
            return key
        imp = here.imports.get(name)
        if imp is None:
            return None
        target = self.module_for(imp.module)
        if target is None:
            return None
        return self.resolve(target, imp.name, _seen | {key})

    def origin_name(self, path: str, node: cst.BaseExpression) -> str | None:
        """Last component of the name `node` finally refers to.

        Follows imports and plain aliases (``A = Annotated``); a name imported from
        a module we were not given keeps its imported name.
        """
        seen: set[tuple[str, str]] = set()
        while True:
            full = get_full_name_for_node(node)
            if full is None:
                return None
            if "." in full:
                return full.rsplit(".", 1)[1]
            if (path, full) in seen:
                return full
            seen.add((path, full))
            here = self.bindings(path)
            imp = here.imports.get(full)
            if imp is not None:
                target = self.module_for(imp.module)
                if target is None:
                    return imp.name
                path, node = target, cst.Name(imp.name)
                continue
            value = here.assigns.get(full)
            if value is not None and m.matches(value, m.Name() | m.Attribute()):
                node = value
                continue
            return full

    def class_def(self, path: str, node: cst.BaseExpression) -> cst.ClassDef | None:
        """The analysed class a (possibly imported) name refers to."""
        name = get_full_name_for_node(node)
        if name is None or "." in name:
            return None
        where = self.resolve(path, name)
        return self.bindings(where[0]).class_defs.get(where[1]) if where else None

    def init_defaults(self, path: str, node: cst.BaseExpression) -> dict[str, cst.BaseExpression]:
        """Keyword defaults of an analysed class's ``__init__`` (e.g. a custom argparse action)."""
        cls = self.class_def(path, node)
        if cls is None:
            return {}
        for stmt in cls.body.body:
            if m.matches(stmt, m.FunctionDef(name=m.Name("__init__"))):
                params = cst.ensure_type(stmt, cst.FunctionDef).params
                every = [*params.params, *params.kwonly_params]
                return {p.name.value: p.default for p in every if p.default is not None}
        return {}


def _absolute_module(importer: str, node: cst.ImportFrom) -> str:
    target = get_full_name_for_node(node.module) if node.module is not None else ""
    level = len(node.relative)
    if not level:
        return target or ""
    is_package = importer.endswith("__init__.py")
    package = module_name(importer).split(".")
    drop = level - 1 if is_package else level
    base = package[: len(package) - drop] if drop else package
    return ".".join([*base, target] if target else base)


def _top_level_bindings(path: str, tree: cst.Module) -> Bindings:
    assigns: dict[str, cst.BaseExpression] = {}
    classes: dict[str, dict[str, cst.BaseExpression]] = {}
    class_defs: dict[str, cst.ClassDef] = {}
    imports: dict[str, _Import] = {}
    for stmt in tree.body:
        if isinstance(stmt, cst.ClassDef):
            classes[stmt.name.value] = dict(_assignments(stmt.body.body))
            class_defs[stmt.name.value] = stmt
        elif isinstance(stmt, cst.SimpleStatementLine):
            assigns.update(_assignments([stmt]))
            for small in stmt.body:
                if isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                    module = _absolute_module(path, small)
                    for alias in small.names:
                        name = get_full_name_for_node(alias.name) or ""
                        local = alias.asname.name.value if alias.asname else name  # type: ignore[union-attr]
                        imports[local] = _Import(module, name)
    return Bindings(assigns, classes, imports, class_defs)


def _assignments(statements: Iterable[cst.CSTNode]) -> Iterator[tuple[str, cst.BaseExpression]]:
    """``NAME = value`` / ``NAME: T = value`` bindings; later ones win."""
    for stmt in statements:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.Assign) and small.value is not None:
                for target in small.targets:
                    if isinstance(target.target, cst.Name):
                        yield target.target.value, small.value
            elif isinstance(small, cst.AnnAssign) and small.value is not None and isinstance(small.target, cst.Name):
                yield small.target.value, small.value


# ---------------------------------------------------------------------------
# Static evaluation
# ---------------------------------------------------------------------------


class _Unknown:
    __slots__ = ()

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()
_MAX_DEPTH = 40
_MAX_EXPONENT = 4096
_SEQ_CALLS = {"list": tuple, "tuple": tuple, "sorted": lambda v: tuple(sorted(v, key=_sort_key))}
_SET_CALLS = {"set", "frozenset"}
_NUM_OPS = {
    cst.Add: lambda a, b: a + b,
    cst.Subtract: lambda a, b: a - b,
    cst.Multiply: lambda a, b: a * b,
    cst.Power: lambda a, b: a**b,
    cst.Divide: lambda a, b: a / b,
    cst.FloorDivide: lambda a, b: a // b,
    cst.Modulo: lambda a, b: a % b,
}


def _set_of(items: Iterable[object]) -> object:
    """A frozenset of `items`, or UNKNOWN when one is unhashable (a dict)."""
    try:
        return frozenset(items)
    except TypeError:
        return UNKNOWN


def _sort_key(value: object) -> tuple[str, str]:
    return (type(value).__name__, repr(value))


@dataclass(frozen=True, slots=True)
class Scope:
    """Where an expression sits: its file, the symbols, and bound loop variables."""

    path: str
    symbols: Symbols
    env: Mapping[str, object] = field(default_factory=dict)
    depth: int = 0

    def at(self, path: str) -> Scope:
        return Scope(path, self.symbols, {}, self.depth + 1)


def evaluate(node: cst.BaseExpression, scope: Scope) -> object:
    """Value of a constant expression, or UNKNOWN.

    Lists and tuples come back as tuples and sets as frozensets, so results are
    immutable; `jsonable` turns them into JSON values.
    """
    if scope.depth > _MAX_DEPTH:
        return UNKNOWN
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        value = node.evaluated_value
        return value if isinstance(value, str) else UNKNOWN
    if isinstance(node, (cst.Integer, cst.Float)):
        return node.evaluated_value
    if isinstance(node, cst.FormattedString):
        return _fstring_value(node, scope)
    if isinstance(node, cst.Name):
        return _name_value(node.value, scope)
    if isinstance(node, cst.Attribute):
        return _attribute_value(node, scope)
    if isinstance(node, cst.UnaryOperation):
        return _unary_value(node, scope)
    if isinstance(node, cst.BinaryOperation):
        return _binary_value(node, scope)
    if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
        items = _elements(node.elements, scope)
        if items is UNKNOWN:
            return UNKNOWN
        return _set_of(items) if isinstance(node, cst.Set) else tuple(items)
    if isinstance(node, cst.Dict):
        return _dict_value(node, scope)
    if isinstance(node, cst.Call):
        return _call_value(node, scope)
    if isinstance(node, cst.Lambda):
        return UNKNOWN
    return UNKNOWN


def _fstring_value(node: cst.FormattedString, scope: Scope) -> object:
    """An f-string whose holes are all constants (e.g. a loop variable)."""
    out: list[str] = []
    for part in node.parts:
        if isinstance(part, cst.FormattedStringText):
            out.append(_fstring_part(node, part))
            continue
        assert isinstance(part, cst.FormattedStringExpression)
        value = evaluate(part.expression, scope)
        if value is UNKNOWN or any(not isinstance(p, cst.FormattedStringText) for p in part.format_spec or ()):
            return UNKNOWN
        convert = {"r": repr, "s": str, "a": ascii}.get(part.conversion or "", lambda v: v)
        spec = "".join(cst.ensure_type(p, cst.FormattedStringText).value for p in part.format_spec or ())
        try:
            out.append(format(convert(value), spec))
        except (TypeError, ValueError):
            return UNKNOWN
    return "".join(out)


def _name_value(name: str, scope: Scope) -> object:
    if name in scope.env:
        return scope.env[name]
    if name in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[name]
    where = scope.symbols.resolve(scope.path, name)
    if where is None:
        return UNKNOWN
    path, real = where
    value = scope.symbols.bindings(path).assigns.get(real)
    return UNKNOWN if value is None else evaluate(value, scope.at(path))


def _attribute_value(node: cst.Attribute, scope: Scope) -> object:
    """``Cls.ATTR`` for a class defined in the analysed files."""
    if not isinstance(node.value, cst.Name):
        return UNKNOWN
    where = scope.symbols.resolve(scope.path, node.value.value)
    if where is None:
        return UNKNOWN
    path, cls = where
    body = scope.symbols.bindings(path).classes.get(cls)
    if body is None or node.attr.value not in body:
        return UNKNOWN
    inner = scope.at(path)
    # the class body's own names are in scope there (``ALL = (FULL, BREAKABLE)``)
    return evaluate(body[node.attr.value], Scope(inner.path, inner.symbols, _ClassNames(body, inner), inner.depth))


class _ClassNames(Mapping):
    """A class body's attributes as a scope's bound names, each evaluated when first read."""

    __slots__ = ("_body", "_scope", "_values")

    def __init__(self, body: Mapping[str, cst.BaseExpression], scope: Scope) -> None:
        self._body, self._scope, self._values = body, scope, {}

    def __contains__(self, name: object) -> bool:
        return name in self._body

    def __getitem__(self, name: str) -> object:
        if name not in self._values:
            if name not in self._body:
                raise KeyError(name)
            self._values[name] = UNKNOWN  # while it is evaluated: a name defined by itself stays unknown
            self._values[name] = evaluate(self._body[name], self._scope)
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._body)

    def __len__(self) -> int:
        return len(self._body)


def _unary_value(node: cst.UnaryOperation, scope: Scope) -> object:
    value = evaluate(node.expression, scope)
    if isinstance(node.operator, cst.Not) and value is not UNKNOWN:
        return not value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if isinstance(node.operator, cst.Minus):
            return -value
        if isinstance(node.operator, cst.Plus):
            return value
    return UNKNOWN


def _binary_value(node: cst.BinaryOperation, scope: Scope) -> object:
    left, right = evaluate(node.left, scope), evaluate(node.right, scope)
    if left is UNKNOWN or right is UNKNOWN:
        return UNKNOWN
    if isinstance(node.operator, cst.Add):
        if isinstance(left, tuple) and isinstance(right, tuple):
            return left + right
        if isinstance(left, str) and isinstance(right, str):
            return left + right
    if isinstance(node.operator, cst.BitOr):
        if isinstance(left, frozenset) and isinstance(right, frozenset):
            return left | right
        if isinstance(left, dict) and isinstance(right, dict):
            return {**left, **right}
    op = _NUM_OPS.get(type(node.operator))
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (left, right))
    if isinstance(node.operator, cst.Power) and numbers and abs(right) > _MAX_EXPONENT:  # type: ignore[arg-type]
        return UNKNOWN  # 2 ** 10**9 would take forever
    if op is not None and numbers:
        try:
            return op(left, right)
        except (ArithmeticError, ValueError):
            return UNKNOWN
    return UNKNOWN


def _elements(elements: Iterable[cst.BaseElement], scope: Scope) -> list | Any:
    out: list[object] = []
    for el in elements:
        value = evaluate(el.value, scope)
        if value is UNKNOWN:
            return UNKNOWN
        if isinstance(el, cst.StarredElement):
            if not isinstance(value, (tuple, frozenset)):
                return UNKNOWN
            out.extend(value)
        else:
            out.append(value)
    return out


def _dict_value(node: cst.Dict, scope: Scope) -> object:
    out: dict[object, object] = {}
    for el in node.elements:
        if isinstance(el, cst.StarredDictElement):
            value = evaluate(el.value, scope)
            if not isinstance(value, dict):
                return UNKNOWN
            out.update(value)
            continue
        key, value = evaluate(el.key, scope), evaluate(el.value, scope)
        if key is UNKNOWN or value is UNKNOWN:
            return UNKNOWN
        try:
            out[key] = value
        except TypeError:  # an unhashable key: Python would refuse it too
            return UNKNOWN
    return out


def _call_value(node: cst.Call, scope: Scope) -> object:
    """``list(X)``, ``tuple()``, ``set(X)``, ``sorted(X)``, ``dict()``, ``X.keys()``."""
    if isinstance(node.func, cst.Attribute) and not node.args:
        base = evaluate(node.func.value, scope)
        method = node.func.attr.value
        if isinstance(base, dict) and method in ("keys", "values"):
            return tuple(base.keys() if method == "keys" else base.values())
        if isinstance(base, (tuple, frozenset)) and method == "copy":
            return base
        return UNKNOWN
    func = get_full_name_for_node(node.func)
    if func is None or any(a.keyword is not None or a.star for a in node.args) or len(node.args) > 1:
        return UNKNOWN
    arg = evaluate(node.args[0].value, scope) if node.args else ()
    if arg is UNKNOWN:
        return UNKNOWN
    if isinstance(arg, dict):
        arg = tuple(arg)  # iterating a dict yields its keys
    if isinstance(arg, str):
        arg = tuple(arg)
    if func == "dict" and not node.args:
        return {}
    if func in _SEQ_CALLS and isinstance(arg, (tuple, frozenset)):
        return _SEQ_CALLS[func](arg)
    if func in _SET_CALLS and isinstance(arg, (tuple, frozenset)):
        return _set_of(arg)
    return UNKNOWN


def jsonable(value: object) -> Json:
    """An evaluated value as `Json`: sets become sorted tuples, dicts `FrozenMap`s with string keys."""
    if isinstance(value, frozenset):
        return tuple(jsonable(v) for v in sorted(value, key=_sort_key))
    if isinstance(value, (tuple, list)):
        return tuple(jsonable(v) for v in value)
    if isinstance(value, Mapping):
        return FrozenMap((k if isinstance(k, str) else str(k), jsonable(v)) for k, v in value.items())
    return value


def json_value(value: Json) -> object:
    """`Json` (tuples and FrozenMaps, for immutability) as JSON proper (lists, dicts), for ``as_dict``."""
    if isinstance(value, (tuple, list)):
        return [json_value(v) for v in value]
    if isinstance(value, Mapping):
        return {k: json_value(v) for k, v in value.items()}
    return value


def literal(node: cst.BaseExpression, scope: Scope) -> Json:
    """JSON value of `node`, or ``{"expr": source}`` when it is not a constant."""
    value = evaluate(node, scope)
    return expr_ref(node) if value is UNKNOWN else jsonable(value)


def choices_of(node: cst.BaseExpression, scope: Scope) -> tuple | FrozenMap | None:
    """Choices as argparse sees them (iteration order; dicts give their keys)."""
    value = evaluate(node, scope)
    if value is None:
        return None
    if isinstance(value, dict):
        value = tuple(value)
    if isinstance(value, (tuple, frozenset)):
        return jsonable(value)
    return expr_ref(node)


def render_text(node: cst.BaseExpression, scope: Scope) -> str:
    """Text of a string expression; parts we cannot know become ``{expr}`` holes.

    Implicit concatenation and ``+`` are joined; f-strings keep their holes as
    written (conversion and format spec included).
    """
    if isinstance(node, cst.ConcatenatedString):
        return render_text(node.left, scope) + render_text(node.right, scope)
    if isinstance(node, cst.FormattedString):
        return "".join(_fstring_part(node, part) for part in node.parts)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        return render_text(node.left, scope) + render_text(node.right, scope)
    value = evaluate(node, scope)
    if isinstance(value, str):
        return value
    return "{" + source_text(node) + "}"


def _fstring_part(owner: cst.FormattedString, part: cst.BaseFormattedStringContent) -> str:
    if isinstance(part, cst.FormattedStringText):
        # The text is raw source: evaluate its escapes with the string's own quotes.
        prefix = owner.prefix.replace("f", "").replace("F", "")
        try:
            text = ast.literal_eval(prefix + owner.quote + part.value + owner.quote)
        except (SyntaxError, ValueError):
            text = part.value
        return text.replace("{{", "{").replace("}}", "}")
    assert isinstance(part, cst.FormattedStringExpression)
    hole = _EMPTY_MODULE.code_for_node(part.expression).strip()
    if part.conversion:
        hole += "!" + part.conversion
    if part.format_spec:
        hole += ":" + "".join(_EMPTY_MODULE.code_for_node(p) for p in part.format_spec)
    return "{" + hole + "}"



# ---------------------------------------------------------------------------
# Constant locals of a function
# ---------------------------------------------------------------------------

_GROW_ONE = {"add", "append"}
_GROW_MANY = {"extend", "update"}
_SHRINK = {"remove", "discard", "pop", "clear", "insert", "sort", "reverse", "setdefault", "popitem"}


class _LocalBindings(cst.CSTVisitor):
    """One pass over a function body: what binds or grows a plain name, in document order."""

    def __init__(self) -> None:
        super().__init__()
        self.binds: list[tuple[str, cst.Assign]] = []  # NAME = value
        self.bound: list[str] = []  # every name a plain binding targets (incl. the above)
        self.calls: list[tuple[str, str, cst.Call]] = []  # NAME.method(...)
        self.augs: list[tuple[str, cst.AugAssign]] = []  # NAME op= value

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            name = node.targets[0].target.value
            self.binds.append((name, node))
            self.bound.append(name)

    def _bind(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.bound.append(target.value)

    def visit_For(self, node: cst.For) -> None:
        self._bind(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._bind(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind(node.target)

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Attribute) and isinstance(node.func.value, cst.Name):
            self.calls.append((node.func.value.value, node.func.attr.value, node))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name):
            self.augs.append((node.target.value, node))


def function_locals(func: cst.FunctionDef, scope: Scope) -> dict[str, object]:
    """Constant locals of a function body: names bound once to a constant.

    Literal growth (``x.add("v")``, ``x.extend([...])``, ``x += [...]``) is folded
    in wherever it happens, conditional or not, so choices built this way are the
    values the option may accept; any other mutation makes the name unknown.
    """
    found = _LocalBindings()
    func.body.visit(found)
    counts: dict[str, int] = {}
    for name in found.bound:
        counts[name] = counts.get(name, 0) + 1
    env: dict[str, object] = {}
    for name, assign in found.binds:
        if counts[name] == 1:
            value = evaluate(assign.value, Scope(scope.path, scope.symbols, {**scope.env, **env}))
            if value is not UNKNOWN:
                env[name] = value
    for name, method, call in found.calls:
        if name not in env or method not in _GROW_ONE | _GROW_MANY | _SHRINK:
            continue
        args = call.args
        added = evaluate(args[0].value, Scope(scope.path, scope.symbols, env)) if len(args) == 1 else UNKNOWN
        env[name] = _grow(env[name], added, many=method in _GROW_MANY) if method not in _SHRINK else UNKNOWN
    for name, aug in found.augs:
        if name in env:
            added = evaluate(aug.value, Scope(scope.path, scope.symbols, env))
            ok = isinstance(aug.operator, (cst.AddAssign, cst.BitOrAssign))
            env[name] = _grow(env[name], added, many=True) if ok else UNKNOWN
    return {k: v for k, v in env.items() if v is not UNKNOWN}


def _grow(current: object, added: object, *, many: bool) -> object:
    if current is UNKNOWN or added is UNKNOWN:
        return UNKNOWN
    if isinstance(current, dict):
        return {**current, **added} if many and isinstance(added, dict) else UNKNOWN
    if many and not isinstance(added, (tuple, frozenset)):
        return UNKNOWN
    items = tuple(added) if many else (added,)  # type: ignore[arg-type]
    if isinstance(current, frozenset):
        return _set_of((*current, *items))
    if isinstance(current, tuple):
        return current + items
    return UNKNOWN


