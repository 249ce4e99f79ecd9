"""Values of the constants a file imports from other modules of the program.

``from m import NAME`` where ``m`` binds ``NAME`` to a constant expression, and
``from m import Cls`` where ``Cls`` is a plain class (no bases, no decorators) whose
body binds constants (``Cls.ATTR``): the values the site walker reads in place of the
names, so ``for phase in Phase.ALL`` is walked per phase and ``x == Backend.FULL``
compares with ``"full"``, what a user writes. An ``Enum`` member is not its value
(``Color.RED != "red"``), so enum classes keep their members' names; a ``str`` enum's
member equals its value (``ConnectorType.INSTANCE == "instance"``), so its members are
read as their values. A pydantic model's
fields (`MODEL`), and its classmethods that parse JSON text into it (`PARSES`), describe
what ``Cls.from_cli(text)`` gives: a record of the JSON's fields over the defaults.

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

from extractor import parse
from extractor.constant_values import NOT_CONSTANT, ConstScope, constant_value
from extractor.cstutil import dotted
from extractor.ir import PARSE_RECORD
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
            tree = parse.python(text)
    except SyntaxError:
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
    if cls is not None and _is_record_model(cls, symbols, path):
        yield from _record_model(local, cls, scope)
    if cls is None:
        return
    strings = _is_str_enum(cls, symbols, path)  # members read as their values, where they are strings
    if not (strings or _is_plain(cls)):
        return
    for attr in bindings.classes.get(real, {}):
        node = cst.Attribute(value=cst.Name(real), attr=cst.Name(attr))
        value = _plain(constant_value(node, scope))
        if value is not NOT_CONSTANT and (isinstance(value, str) or not strings):
            yield f"{local}.{attr}", value


MODEL = "__model__()"  # ``Cls.__model__()``: the fields of an imported record model (a key no source reads)
PARSES = "()"  # ``Cls.m()``: "model_validate_json" where classmethod ``m(text)`` returns that of ``text``
_RECORD_BASES = frozenset({"BaseModel"})  # pydantic's
_FIELD_TYPES = frozenset({"str", "int", "float", "bool"})


def _is_record_model(cls: cst.ClassDef, symbols: Symbols, path: str) -> bool:
    """A pydantic model: a class whose base is ``BaseModel``, without decorators."""
    return not cls.decorators and any(
        arg.keyword is None and symbols.origin_name(path, arg.value) in _RECORD_BASES for arg in cls.bases)


def _record_model(local: str, cls: cst.ClassDef, scope: ConstScope) -> Iterator[tuple[str, Value]]:
    """The fields of a record model as ``{name: {type, optional, required, default, choices}}``
    (`type`: str, int, float, bool, literal or "" for another), under ``Cls.__model__()``;
    and ``Cls.m()`` for each classmethod ``m(text)`` whose body is ``return
    Cls.model_validate_json(text)`` (or ``cls.``): what parsing the JSON text gives."""
    fields: dict[str, Value] = {}
    for stmt in cls.body.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                    found = _model_field(small, scope)
                    if found is None:
                        return  # a field errcat cannot describe: no record at all
                    fields[small.target.value] = found
        elif isinstance(stmt, cst.FunctionDef) and _parses_json(stmt, cls.name.value):
            yield f"{local}.{stmt.name.value}{PARSES}", PARSE_RECORD
    if fields:
        yield f"{local}.{MODEL}", {"fields": fields}


def _model_field(node: cst.AnnAssign, scope: ConstScope) -> dict[str, Value] | None:
    annotation = node.annotation.annotation
    optional = False
    if isinstance(annotation, cst.Subscript) and dotted(annotation.value) == "Optional" \
            and len(annotation.slice) == 1 and isinstance(annotation.slice[0].slice, cst.Index):
        optional, annotation = True, annotation.slice[0].slice.value
    kind = ""
    choices: tuple[object, ...] = ()
    if isinstance(annotation, cst.Name) and annotation.value in _FIELD_TYPES:
        kind = annotation.value
    elif isinstance(annotation, cst.Subscript) and dotted(annotation.value) == "Literal":
        values = tuple(constant_value(el.slice.value, scope) for el in annotation.slice
                       if isinstance(el.slice, cst.Index))
        if all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in values):
            kind, choices = "literal", values
    if node.value is None:
        return {"type": kind, "optional": optional, "required": True, "default": None, "choices": choices}
    default = _plain(constant_value(node.value, scope))
    if default is NOT_CONSTANT:
        return None  # ``Field(default_factory=...)`` and the like
    return {"type": kind, "optional": optional, "required": False, "default": default, "choices": choices}


def _parses_json(func: cst.FunctionDef, owner: str) -> bool:
    """``@classmethod def m(cls, text): return <owner|cls>.model_validate_json(text)``."""
    params = [p.name.value for p in func.params.params]
    body = func.body.body
    if len(params) != 2 or not any(dotted(d.decorator) == "classmethod" for d in func.decorators):
        return False
    stmt = next((s for s in body if not (isinstance(s, cst.SimpleStatementLine)
                                        and isinstance(s.body[0], cst.Expr))), None)  # past a docstring
    if not isinstance(stmt, cst.SimpleStatementLine) or not isinstance(ret := stmt.body[0], cst.Return):
        return False
    call = ret.value
    return (isinstance(call, cst.Call) and dotted(call.func) in (f"{owner}.model_validate_json",
                                                                      f"{params[0]}.model_validate_json")
            and len(call.args) == 1 and isinstance(call.args[0].value, cst.Name)
            and call.args[0].value.value == params[1])


def _is_plain(cls: cst.ClassDef) -> bool:
    """No decorators (a dataclass's attributes are field defaults) and no bases but
    ``object`` (an enum's members are not their values)."""
    return not cls.decorators and all(
        isinstance(arg.value, cst.Name) and arg.value.value == "object" and arg.keyword is None for arg in cls.bases)


_ENUM_BASES = frozenset({"Enum"})
_STR_ENUM_BASES = frozenset({"StrEnum"})


def _is_str_enum(cls: cst.ClassDef, symbols: Symbols, path: str) -> bool:
    """``class C(str, Enum)`` or ``class C(StrEnum)``, without decorators: a member compares
    equal to its value, which is a string."""
    if cls.decorators or any(arg.keyword is not None for arg in cls.bases):
        return False
    bases = {symbols.origin_name(path, arg.value) for arg in cls.bases}
    return bool(bases & _STR_ENUM_BASES) or ("str" in bases and bool(bases & _ENUM_BASES))


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
            tree = parse.python(text)
    except SyntaxError:
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
    body = [line for stmt in node.body if isinstance(stmt, (ast.Assign, ast.AnnAssign)) or _short_classmethod(stmt)
            for line in _member_lines(lines, stmt)]
    indent = " " * first.col_offset
    return [*header, *(body or [indent + "pass"])]


def _short_classmethod(stmt: ast.stmt) -> bool:
    """A classmethod of a docstring and one statement (``return Cls.model_validate_json(text)``)."""
    return (isinstance(stmt, ast.FunctionDef) and len(stmt.body) <= 2
            and any(isinstance(d, ast.Name) and d.id == "classmethod" for d in stmt.decorator_list))


def _member_lines(lines: list[str], stmt: ast.stmt) -> list[str]:
    start, end = stmt.lineno, stmt.end_lineno or stmt.lineno
    if isinstance(stmt, ast.FunctionDef) and stmt.decorator_list:
        start = min(d.lineno for d in stmt.decorator_list)
    if lines[start - 1][: stmt.col_offset].strip() or _shares_line(lines, stmt):
        return []
    return lines[start - 1:end]

