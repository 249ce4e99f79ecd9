"""Values of the constants a file imports from other modules of the program.

``from m import NAME`` where ``m`` binds ``NAME`` to a constant expression, and
``from m import Cls`` where ``Cls`` is a plain class (no bases, no decorators) whose
body binds constants (``Cls.ATTR``): the values the site walker reads in place of the
names, so ``for phase in Phase.ALL`` is walked per phase and ``x == Backend.FULL``
compares with ``"full"``, what a user writes. An ``Enum`` member is not its value
(``Color.RED != "red"``), so enum classes keep their members' names.

Only top-level bindings matter, so an imported module is cut down with the stdlib
``ast`` to its imports, assignments and plain class bodies before libcst parses it
(`skeleton`): a 4,000-line utility module costs a few lines. Nothing is imported or run.
"""
from __future__ import annotations

import ast
import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping

import libcst as cst

from extractor.constant_values import NOT_CONSTANT, ConstScope, constant_value
from extractor.source_set import SourceSet, gc_paused, module_name
from extractor.symbols import Symbols

Value = object  # str | int | float | bool | None | tuple[Value, ...] | dict[str, Value]
ImportedValues = tuple[tuple[str, Value], ...]  # (``NAME`` or ``Cls.ATTR``, value), sorted


def imported_values(paths: Iterable[str], texts: Mapping[str, str]) -> dict[str, ImportedValues]:
    """Per path of `paths`: the constants it imports (`texts`: every Python file of the
    program by repo path, read on demand). A name imported from two places is left out."""
    symbols = Symbols(SourceSet(_Skeletons(texts)))
    out: dict[str, ImportedValues] = {}
    for path in paths:
        try:
            text = texts[path]
        except KeyError:
            continue
        found: dict[str, Value] = {}
        for local, module, name in _unambiguous(_imports(path, text)):
            found.update(_values(symbols, local, module, name))
        out[path] = tuple(sorted(found.items()))
    return out


def digest(values: ImportedValues) -> str:
    """A short stable digest of `values` (part of a file's cache key)."""
    return hashlib.sha256(json.dumps(values, sort_keys=True).encode()).hexdigest()[:16] if values else ""


# ------------------------------------------------------------------ the importer


def _imports(path: str, text: str) -> Iterator[tuple[str, str, str]]:
    """(local name, absolute module, imported name) of every ``from m import x`` in the file,
    at any depth (a function may import what it compares with), except names only ever
    called (functions: no value to read)."""
    try:
        with gc_paused():
            tree = ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return
    package = module_name(path).split(".")
    if not path.endswith("__init__.py"):
        package = package[:-1]
    imports: list[ast.ImportFrom] = []
    loads: dict[str, int] = {}
    calls: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            imports.append(node)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            loads[node.id] = loads.get(node.id, 0) + 1
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            calls[node.func.id] = calls.get(node.func.id, 0) + 1
    for node in imports:
        if node.level:
            base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
            module = ".".join([*base, node.module] if node.module else base)
        else:
            module = node.module or ""
        for alias in node.names:
            local = alias.asname or alias.name
            if alias.name != "*" and loads.get(local, 0) > calls.get(local, 0):
                yield local, module, alias.name


def _unambiguous(imports: Iterable[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    seen: dict[str, set[tuple[str, str]]] = {}
    for local, module, name in imports:
        seen.setdefault(local, set()).add((module, name))
    return [(local, *next(iter(sources))) for local, sources in sorted(seen.items()) if len(sources) == 1]


def _values(symbols: Symbols, local: str, module: str, name: str) -> Iterator[tuple[str, Value]]:
    target = symbols.module_for(module) if module else None
    where = symbols.resolve(target, name) if target is not None else None
    if where is None:
        return
    path, real = where
    bindings = symbols.bindings(path)
    scope = ConstScope(path, symbols)
    if real in bindings.assigns:
        value = _plain(constant_value(bindings.assigns[real], scope))
        if value is not NOT_CONSTANT:
            yield local, value
        return
    cls = bindings.class_defs.get(real)
    if cls is None or not _is_plain(cls):
        return
    for attr in bindings.classes.get(real, {}):
        node = cst.Attribute(value=cst.Name(real), attr=cst.Name(attr))
        value = _plain(constant_value(node, scope))
        if value is not NOT_CONSTANT:
            yield f"{local}.{attr}", value


def _is_plain(cls: cst.ClassDef) -> bool:
    """No decorators (a dataclass's attributes are field defaults) and no bases but
    ``object`` (an enum's members are not their values)."""
    return not cls.decorators and all(
        isinstance(arg.value, cst.Name) and arg.value.value == "object" and arg.keyword is None for arg in cls.bases)


def _plain(value: object) -> Value:
    """`value` as JSON-shaped data kept exactly (tuples for sequences and sets, dicts with
    string keys), or NOT_CONSTANT when it has no exact such form."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, frozenset):
        try:
            value = tuple(sorted(value))  # membership is all a set is read for
        except TypeError:
            return NOT_CONSTANT
    if isinstance(value, tuple):
        items = tuple(_plain(v) for v in value)
        return NOT_CONSTANT if any(v is NOT_CONSTANT for v in items) else items
    if isinstance(value, Mapping):
        if not all(isinstance(k, str) for k in value):
            return NOT_CONSTANT
        found = {k: _plain(v) for k, v in value.items()}
        return NOT_CONSTANT if any(v is NOT_CONSTANT for v in found.values()) else found
    return NOT_CONSTANT


# ------------------------------------------------------------------ imported modules, cut down


class _Skeletons(Mapping[str, str]):
    """`texts` with each file cut to its top-level bindings (`skeleton`), on first use."""

    def __init__(self, texts: Mapping[str, str]) -> None:
        self._texts = texts
        self._cut: dict[str, str] = {}

    def __getitem__(self, path: str) -> str:
        if path not in self._cut:
            self._cut[path] = skeleton(self._texts[path])
        return self._cut[path]

    def __iter__(self) -> Iterator[str]:
        return iter(self._texts)

    def __len__(self) -> int:
        return len(self._texts)


_KEPT: tuple[type, ...] = (ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign)


def skeleton(text: str) -> str:
    """The top-level imports and assignments of `text`, and its plain classes with only
    their assignments: all that module-level names can be bound to (empty when ``ast``
    cannot parse it)."""
    try:
        with gc_paused():
            tree = ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return ""
    lines = text.splitlines()
    out: list[str] = []
    for node in tree.body:
        if isinstance(node, _KEPT):
            out.extend(_lines(lines, node))
        elif isinstance(node, ast.ClassDef) and not node.decorator_list:
            out.extend(_class(lines, node))
    return "\n".join(out) + "\n"


def _lines(lines: list[str], node: ast.stmt) -> list[str]:
    """The lines of a top-level statement; none when it shares a line with another
    (``a = 1; b = 2``), which cannot be cut out alone."""
    start, end = node.lineno, node.end_lineno or node.lineno
    if node.col_offset or _shares_line(lines, node):
        return []
    return lines[start - 1:end]


def _shares_line(lines: list[str], node: ast.stmt) -> bool:
    end = node.end_lineno or node.lineno
    rest = lines[end - 1][node.end_col_offset or 0:].strip()
    return bool(rest) and not rest.startswith("#")


def _class(lines: list[str], node: ast.ClassDef) -> list[str]:
    first = node.body[0]
    if first.lineno == node.lineno:  # ``class A: X = 1``: one line, kept whole or not at all
        return _lines(lines, node)
    header = lines[node.lineno - 1:first.lineno - 1]
    body = [line for stmt in node.body if isinstance(stmt, (ast.Assign, ast.AnnAssign))
            for line in _member_lines(lines, stmt)]
    indent = " " * first.col_offset
    return [*header, *(body or [indent + "pass"])]


def _member_lines(lines: list[str], stmt: ast.stmt) -> list[str]:
    start, end = stmt.lineno, stmt.end_lineno or stmt.lineno
    if lines[start - 1][: stmt.col_offset].strip() or _shares_line(lines, stmt):
        return []
    return lines[start - 1:end]

