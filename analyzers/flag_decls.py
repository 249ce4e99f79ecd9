"""Read flag declarations statically: argparse calls and config-class fields.

Three shapes are understood (see DESIGN.md, analyzers.flags):
- ``parser.add_argument("--x", ...)`` anywhere in a file (argparse era);
- fields of classes (``x: int = 1``), the record the CLI fills in;
- fields annotated ``Annotated[T, "help"]`` / ``Annotated[T, Arg(...)]``, which a
  registrar such as sglang's ``add_cli_args_from_dataclass`` turns into options
  (its rules are mirrored in `_annotated_cli`).
This module only reports declarations; `analyzers.flags` merges them into flags.
It also holds the small static evaluator (`Symbols`, `evaluate`, `render_text`)
that env declarations share. Nothing here imports or runs the target code.
"""
from __future__ import annotations

import ast
import itertools
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import libcst as cst
import libcst.matchers as m
from libcst.helpers import get_full_name_for_node
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from extractor.compat import StrEnum

Json = Any  # None | bool | int | float | str | tuple | dict — what `jsonable` accepts


# ---------------------------------------------------------------------------
# Parsed sources
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A declaration we could not understand, so the model may miss it."""

    path: str
    line: int
    message: str

    def as_dict(self) -> dict[str, object]:
        return {"path": self.path, "line": self.line, "message": self.message}

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


@dataclass(frozen=True, slots=True)
class SourceModule:
    """One parsed file; positions are resolved once because they cost a parse."""

    path: str
    name: str  # dotted module name derived from the path
    tree: cst.Module = field(repr=False, compare=False)
    positions: Mapping[cst.CSTNode, CodeRange] = field(repr=False, compare=False)

    def line(self, node: cst.CSTNode) -> int:
        pos = self.positions.get(node)
        return pos.start.line if pos is not None else 0


def module_name(path: str) -> str:
    """``python/sglang/srt/x.py`` -> ``python.sglang.srt.x`` (packages drop ``__init__``)."""
    stem = path[:-3] if path.endswith(".py") else path
    parts = [p for p in stem.split("/") if p]
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def parse_sources(files: Mapping[str, str]) -> tuple[tuple[SourceModule, ...], tuple[Diagnostic, ...]]:
    modules: list[SourceModule] = []
    diagnostics: list[Diagnostic] = []
    for path in sorted(files):
        try:
            tree = cst.parse_module(files[path])
        except cst.ParserSyntaxError as exc:
            diagnostics.append(Diagnostic(path, exc.raw_line, f"cannot parse: {exc.message}"))
            continue
        # unsafe_skip_copy: we never mutate the tree, and the copy doubles the cost.
        wrapper = MetadataWrapper(tree, unsafe_skip_copy=True)
        positions = wrapper.resolve(PositionProvider)
        modules.append(SourceModule(path, module_name(path), tree, positions))
    return tuple(modules), tuple(diagnostics)


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


def expr_ref(node: cst.CSTNode) -> dict[str, str]:
    """How a value that is not a literal is recorded: its source text."""
    return {"expr": source_text(node)}


# ---------------------------------------------------------------------------
# Symbols: module-level constants, classes and imports across the given files
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Import:
    module: str  # dotted, already made absolute
    name: str


@dataclass(frozen=True, slots=True)
class Symbols:
    """Names each module binds at top level, so constants resolve across files."""

    modules: Mapping[str, SourceModule]  # by path
    assigns: Mapping[str, Mapping[str, cst.BaseExpression]]
    classes: Mapping[str, Mapping[str, Mapping[str, cst.BaseExpression]]]  # class attributes
    imports: Mapping[str, Mapping[str, _Import]]
    class_defs: Mapping[str, Mapping[str, cst.ClassDef]]

    def module_for(self, dotted: str) -> str | None:
        """Path of the analysed module an import names (matched by dotted suffix)."""
        hits = [p for p, mod in self.modules.items() if mod.name == dotted or mod.name.endswith("." + dotted)]
        return min(hits, key=len) if hits else None

    def resolve(self, path: str, name: str, _seen: frozenset = frozenset()) -> tuple[str, str] | None:
        """The (path, name) that really binds `name` as seen from `path`."""
        key = (path, name)
        if key in _seen:
            return None
        if name in self.assigns.get(path, {}) or name in self.class_defs.get(path, {}):
            return key
        imp = self.imports.get(path, {}).get(name)
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
            imp = self.imports.get(path, {}).get(full)
            if imp is not None:
                target = self.module_for(imp.module)
                if target is None:
                    return imp.name
                path, node = target, cst.Name(imp.name)
                continue
            value = self.assigns.get(path, {}).get(full)
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
        return self.class_defs.get(where[0], {}).get(where[1]) if where else None

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


def _top_level_bindings(path: str, tree: cst.Module) -> tuple[dict, dict, dict, dict]:
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
    return assigns, classes, imports, class_defs


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
            elif isinstance(small, cst.AnnAssign) and small.value is not None:
                if isinstance(small.target, cst.Name):
                    yield small.target.value, small.value


def build_symbols(modules: Iterable[SourceModule]) -> Symbols:
    by_path = {mod.path: mod for mod in modules}
    assigns, classes, imports, class_defs = {}, {}, {}, {}
    for path, mod in by_path.items():
        assigns[path], classes[path], imports[path], class_defs[path] = _top_level_bindings(path, mod.tree)
    return Symbols(by_path, assigns, classes, imports, class_defs)


# ---------------------------------------------------------------------------
# Static evaluation
# ---------------------------------------------------------------------------


class _Unknown:
    __slots__ = ()

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()
_MAX_DEPTH = 40
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
        return frozenset(items) if isinstance(node, cst.Set) else tuple(items)
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
    value = scope.symbols.assigns.get(path, {}).get(real)
    return UNKNOWN if value is None else evaluate(value, scope.at(path))


def _attribute_value(node: cst.Attribute, scope: Scope) -> object:
    """``Cls.ATTR`` for a class defined in the analysed files."""
    if not isinstance(node.value, cst.Name):
        return UNKNOWN
    where = scope.symbols.resolve(scope.path, node.value.value)
    if where is None:
        return UNKNOWN
    path, cls = where
    body = scope.symbols.classes.get(path, {}).get(cls)
    if body is None or node.attr.value not in body:
        return UNKNOWN
    return evaluate(body[node.attr.value], scope.at(path))


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
        if key is UNKNOWN or value is UNKNOWN or isinstance(key, dict):
            return UNKNOWN
        out[key] = value
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
        return frozenset(arg)
    return UNKNOWN


def jsonable(value: object) -> Json:
    """Plain JSON value: sets become sorted lists' tuples, dict keys strings."""
    if isinstance(value, frozenset):
        return tuple(jsonable(v) for v in sorted(value, key=_sort_key))
    if isinstance(value, (tuple, list)):
        return tuple(jsonable(v) for v in value)
    if isinstance(value, dict):
        return {k if isinstance(k, str) else str(k): jsonable(v) for k, v in value.items()}
    return value


def json_value(value: Json) -> object:
    """`Json` (tuples, for immutability) as JSON proper (lists), for ``as_dict``."""
    if isinstance(value, (tuple, list)):
        return [json_value(v) for v in value]
    if isinstance(value, dict):
        return {k: json_value(v) for k, v in value.items()}
    return value


def literal(node: cst.BaseExpression, scope: Scope) -> Json:
    """JSON value of `node`, or ``{"expr": source}`` when it is not a constant."""
    value = evaluate(node, scope)
    return expr_ref(node) if value is UNKNOWN else jsonable(value)


def choices_of(node: cst.BaseExpression, scope: Scope) -> tuple | dict | None:
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
# Declarations
# ---------------------------------------------------------------------------


class DeclKind(StrEnum):
    ARGPARSE = "argparse"  # parser.add_argument(...)
    FIELD = "field"  # plain record field: no CLI metadata of its own
    ANNOTATED = "annotated"  # Annotated[T, "help" | Arg(...)] field
    COMPUTED = "computed"  # class attribute built by a derived marker, e.g. Derived(...)


@dataclass(frozen=True, slots=True)
class Conventions:
    """Names of the declaration helpers; defaults follow sglang's ``arg_utils``."""

    arg_markers: tuple[str, ...] = ("Arg",)
    derived_markers: tuple[str, ...] = ("Derived",)
    field_factories: tuple[str, ...] = ("field",)


@dataclass(frozen=True, slots=True)
class ArgparseDecl:
    options: tuple[str, ...]
    dest: str
    type: str | None
    default: Json
    has_default: bool
    default_field: str | None  # field the default is read from (``Cls.x``, ``f("x")``)
    default_owner: str | None  # ``Cls`` of a ``Cls.x`` default: names the record class
    choices: tuple | dict | None
    action: str | None
    nargs: Json
    const: Json
    required: bool
    help: str | None
    hidden: bool
    deprecated: bool
    replacement: str | None
    path: str
    line: int


@dataclass(frozen=True, slots=True)
class FieldDecl:
    owner: str
    name: str
    kind: DeclKind
    type: str | None
    default: Json
    has_default: bool
    help: str | None
    cli: bool  # the registrar gives it options (annotated metadata without no_cli)
    cli_name: str | None = None
    aliases: tuple[str, ...] = ()
    action: str | None = None
    choices: tuple | dict | None = None
    nargs: Json = None
    const: Json = None
    required: bool = False
    deprecated: bool = False
    replacement: str | None = None
    path: str = ""
    line: int = 0


@dataclass(frozen=True, slots=True)
class ClassDecl:
    name: str
    path: str
    line: int
    fields: tuple[FieldDecl, ...]

    @property
    def annotated(self) -> bool:
        return any(f.kind is DeclKind.ANNOTATED for f in self.fields)


@dataclass(frozen=True, slots=True)
class ModuleDecls:
    arguments: tuple[ArgparseDecl, ...]
    classes: tuple[ClassDecl, ...]
    renames: tuple[tuple[str, str], ...]  # (argparse dest, record field) copied in from_cli_args-style code
    diagnostics: tuple[Diagnostic, ...]


def dest_for_option(option: str) -> str:
    """argparse's dest for an option string: ``--tp-size`` -> ``tp_size``."""
    return option.lstrip("-").replace("-", "_")


_OPTION = r"--[A-Za-z0-9][\w{},-]*"
_REPLACEMENT = re.compile(
    rf"(?i)\b(?:use|pass|alias (?:for|of)|replaced by|in favou?r of|renamed to|switch to)\s+[\"'`]?({_OPTION})"
)
_DEPRECATED_HELP = re.compile(r"(?i)^\W*(?:deprecated|removed)\b")
_OPTION_RE = re.compile(_OPTION)
# "deprecated" then an option before the sentence ends; "Deprecated. X is automatic
# with --y." names no replacement.
_DEPRECATED_THEN_OPTION = re.compile(rf"(?i)\bdeprecated\b[^.;]*?({_OPTION})")


def replacement_option(texts: Iterable[str | None], own: Iterable[str] = ()) -> str | None:
    """The option a deprecation points to.

    Tried in order: a leading option (``new_flag="--new <n>"``), prose such as
    "Use --new instead" / "alias for --new", then an option later in the same
    sentence as "deprecated" ("Deprecated: --new"). Options of the flag itself
    never count.
    """
    skip = set(own)
    for text in texts:
        if not text:
            continue
        leading = _OPTION_RE.match(text.strip())
        found = [leading.group(0)] if leading else []
        found += [mt.group(1) for mt in _REPLACEMENT.finditer(text)]
        found += [mt.group(1) for mt in _DEPRECATED_THEN_OPTION.finditer(text)]
        for candidate in found:
            candidate = candidate.rstrip(",.")
            if candidate not in skip:
                return candidate
    return None


def deprecated_help(help_text: str | None) -> bool:
    return bool(help_text and _DEPRECATED_HELP.match(help_text))


_ADD_ARGUMENT = m.Call(func=m.Attribute(attr=m.Name("add_argument")))
_SUPPRESS = m.Attribute(attr=m.Name("SUPPRESS")) | m.Name("SUPPRESS")
_STORE_DEFAULTS = {"store_true": False, "store_false": True}
_BOOL_ACTIONS = {"store_true", "store_false", "BooleanOptionalAction"}
_MAX_LOOP_EXPANSION = 256


_GROW_ONE = {"add", "append"}
_GROW_MANY = {"extend", "update"}
_SHRINK = {"remove", "discard", "pop", "clear", "insert", "sort", "reverse", "setdefault", "popitem"}


def function_locals(func: cst.FunctionDef, scope: Scope) -> dict[str, object]:
    """Constant locals of a function body: names bound once to a constant.

    Literal growth (``x.add("v")``, ``x.extend([...])``, ``x += [...]``) is folded
    in wherever it happens, conditional or not, so choices built this way are the
    values the option may accept; any other mutation makes the name unknown.
    """
    binds = m.findall(func.body, m.Assign(targets=[m.AssignTarget(target=m.Name())]))
    others = m.findall(func.body, m.For(target=m.Name()) | m.AnnAssign(target=m.Name()) | m.NamedExpr(target=m.Name()))
    counts: dict[str, int] = {}
    for node in [*binds, *others]:
        target = node.targets[0].target if isinstance(node, cst.Assign) else node.target  # type: ignore[union-attr]
        counts[target.value] = counts.get(target.value, 0) + 1  # type: ignore[union-attr]
    env: dict[str, object] = {}
    for node in binds:
        assign = cst.ensure_type(node, cst.Assign)
        name = cst.ensure_type(assign.targets[0].target, cst.Name).value
        if counts[name] == 1:
            value = evaluate(assign.value, Scope(scope.path, scope.symbols, {**scope.env, **env}))
            if value is not UNKNOWN:
                env[name] = value
    for call in m.findall(func.body, m.Call(func=m.Attribute(value=m.Name()))):
        attr = cst.ensure_type(cst.ensure_type(call, cst.Call).func, cst.Attribute)
        name, method = cst.ensure_type(attr.value, cst.Name).value, attr.attr.value
        if name not in env or method not in _GROW_ONE | _GROW_MANY | _SHRINK:
            continue
        args = cst.ensure_type(call, cst.Call).args
        added = evaluate(args[0].value, Scope(scope.path, scope.symbols, env)) if len(args) == 1 else UNKNOWN
        env[name] = _grow(env[name], added, many=method in _GROW_MANY) if method not in _SHRINK else UNKNOWN
    for node in m.findall(func.body, m.AugAssign(target=m.Name())):
        aug = cst.ensure_type(node, cst.AugAssign)
        name = cst.ensure_type(aug.target, cst.Name).value
        if name in env:
            added = evaluate(aug.value, Scope(scope.path, scope.symbols, env))
            ok = m.matches(aug.operator, m.AddAssign() | m.BitOrAssign())
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
        return current | frozenset(items)
    if isinstance(current, tuple):
        return current + items
    return UNKNOWN


def _kwargs(call: cst.Call) -> dict[str, cst.BaseExpression]:
    return {a.keyword.value: a.value for a in call.args if a.keyword is not None}


def _action_name(action: str | None) -> str:
    return (action or "").rsplit(".", 1)[-1]


class _DeclVisitor(cst.CSTVisitor):
    """Collects add_argument calls, record classes and dest renames of one module."""

    def __init__(self, mod: SourceModule, symbols: Symbols, conventions: Conventions) -> None:
        super().__init__()
        self.mod = mod
        self.symbols = symbols
        self.conventions = conventions
        self.loops: list[cst.For] = []
        self.namespaces: list[frozenset[str]] = []
        self.functions: list[cst.FunctionDef] = []
        self._locals: dict[int, dict[str, object]] = {}
        self.arguments: list[ArgparseDecl] = []
        self.classes: list[ClassDecl] = []
        self.renames: list[tuple[str, str]] = []
        self.diagnostics: list[Diagnostic] = []

    # -- helpers -----------------------------------------------------------
    def scope(self, env: Mapping[str, object] | None = None) -> Scope:
        return Scope(self.mod.path, self.symbols, dict(env or {}))

    def local_scope(self, env: Mapping[str, object] | None = None) -> Scope:
        """Scope seeing the enclosing function's constant locals (computed on demand)."""
        if not self.functions:
            return self.scope(env)
        func = self.functions[-1]
        if id(func) not in self._locals:
            self._locals[id(func)] = function_locals(func, self.scope())
        return Scope(self.mod.path, self.symbols, {**self._locals[id(func)], **(env or {})})

    def report(self, node: cst.CSTNode, message: str) -> None:
        self.diagnostics.append(Diagnostic(self.mod.path, self.mod.line(node), message))

    # -- loops bind names that option strings may use ------------------------
    def visit_For(self, node: cst.For) -> None:
        self.loops.append(node)

    def leave_For(self, original_node: cst.For) -> None:
        self.loops.pop()

    def _loop_envs(self) -> list[dict[str, object]]:
        """One binding of the loop variables per iteration (loops over constants only)."""
        bound: list[tuple[str, tuple[object, ...]]] = []
        for loop in self.loops:
            values = evaluate(loop.iter, self.local_scope())
            if isinstance(loop.target, cst.Name) and isinstance(values, (tuple, frozenset)):
                bound.append((loop.target.value, tuple(values)))
        if not bound:
            return [{}]
        names = [name for name, _ in bound]
        combos = itertools.islice(itertools.product(*(v for _, v in bound)), _MAX_LOOP_EXPANSION)
        return [dict(zip(names, combo)) for combo in combos]

    # -- functions taking an argparse Namespace may copy dests onto fields ---
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        names = frozenset(
            p.name.value
            for p in node.params.params
            if p.annotation is not None
            and self.symbols.origin_name(self.mod.path, p.annotation.annotation) == "Namespace"
        )
        self.namespaces.append(names)
        self.functions.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.namespaces.pop()
        self.functions.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        if not self.namespaces or not self.namespaces[-1] or len(node.targets) != 1:
            return
        target, value = node.targets[0].target, node.value
        ns = m.OneOf(*(m.Name(n) for n in self.namespaces[-1]))
        if m.matches(target, m.Attribute(value=ns)) and m.matches(value, m.Attribute(value=ns)):
            src, dst = cst.ensure_type(value, cst.Attribute), cst.ensure_type(target, cst.Attribute)
            if src.attr.value != dst.attr.value:
                self.renames.append((src.attr.value, dst.attr.value))

    # -- argparse ----------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        if not m.matches(node, _ADD_ARGUMENT):
            return
        positional = [a for a in node.args if a.keyword is None]
        if positional and all(a.star for a in positional):
            return  # a wrapper forwarding *names/**kwargs is not a declaration
        seen: set[tuple[str, ...]] = set()
        for env in self._loop_envs():
            options = [evaluate(a.value, self.local_scope(env)) for a in positional]
            if not options or any(a.star for a in positional) or not all(isinstance(o, str) for o in options):
                self.report(node, f"add_argument with option names not known statically: {source_text(node)[:120]}")
                return
            key = tuple(options)
            if key not in seen:
                seen.add(key)
                self.arguments.append(self._argparse_decl(node, key, self.local_scope(env)))

    def _argparse_decl(self, node: cst.Call, options: tuple[str, ...], scope: Scope) -> ArgparseDecl:
        kw = _kwargs(node)
        longs = [o for o in options if o.startswith("--")]
        dest_value = evaluate(kw["dest"], scope) if "dest" in kw else UNKNOWN
        if isinstance(dest_value, str):
            dest = dest_value
        else:
            if "dest" in kw:
                self.report(node, f"dest not known statically: {source_text(kw['dest'])}")
            dest = dest_for_option((longs or list(options))[0])
        action_node = kw.get("action")
        action: str | None = None
        if action_node is not None:
            named = evaluate(action_node, scope)  # "store_true" and friends
            action = named if isinstance(named, str) else source_text(action_node)
            if not isinstance(named, str):
                # A custom action's own __init__ defaults apply when the call omits them.
                kw = {**self.symbols.init_defaults(self.mod.path, action_node), **kw}
        short_action = _action_name(action)
        help_node = kw.get("help")
        hidden = help_node is not None and m.matches(help_node, _SUPPRESS)
        help_text = None if help_node is None or hidden else render_text(help_node, scope)
        default_field = default_owner = None
        if "default" in kw:
            default = literal(kw["default"], scope)
            default_field = self._field_reference(kw["default"], dest, scope)
            if m.matches(kw["default"], m.Attribute(value=m.Name())):
                default_owner = cst.ensure_type(cst.ensure_type(kw["default"], cst.Attribute).value, cst.Name).value
        else:
            default = _STORE_DEFAULTS.get(short_action)
        type_text = source_text(kw["type"]) if "type" in kw else ("bool" if short_action in _BOOL_ACTIONS else None)
        const_node = kw.get("const", kw.get("const_value"))
        deprecated = short_action.startswith("Deprecated") or deprecated_help(help_text)
        replacement = None
        if deprecated:
            pointers = (kw[k] for k in ("new_flag", "error_message") if k in kw)
            texts = [render_text(node, scope) for node in pointers if evaluate(node, scope) is not None]
            replacement = replacement_option([*texts, help_text], options)
        return ArgparseDecl(
            options=options,
            dest=dest,
            type=type_text,
            default=default,
            has_default="default" in kw,
            default_field=default_field,
            default_owner=default_owner,
            choices=choices_of(kw["choices"], scope) if "choices" in kw else None,
            action=action,
            nargs=literal(kw["nargs"], scope) if "nargs" in kw else None,
            const=literal(const_node, scope) if const_node is not None else None,
            required=evaluate(kw["required"], scope) is True if "required" in kw else False,
            help=help_text,
            hidden=hidden,
            deprecated=deprecated,
            replacement=replacement,
            path=self.mod.path,
            line=self.mod.line(node),
        )

    def _field_reference(self, node: cst.BaseExpression, dest: str, scope: Scope) -> str | None:
        """Field a default reads: ``Cls.dest`` or a helper called with ``"dest"``."""
        if m.matches(node, m.Attribute(value=m.Name(), attr=m.Name(dest))):
            return dest
        if isinstance(node, cst.Call) and len(node.args) == 1:
            if evaluate(node.args[0].value, scope) == dest:
                return dest
        return None

    # -- classes -------------------------------------------------------------
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        fields: list[FieldDecl] = []
        for stmt in node.body.body:
            if not isinstance(stmt, cst.SimpleStatementLine):
                continue
            for small in stmt.body:
                decl = self._field(node.name.value, small, stmt)
                if decl is not None:
                    fields.append(decl)
        if fields:
            self.classes.append(ClassDecl(node.name.value, self.mod.path, self.mod.line(node), tuple(fields)))

    def _field(self, owner: str, small: cst.BaseSmallStatement, stmt: cst.CSTNode) -> FieldDecl | None:
        scope = self.scope()
        if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
            if self.symbols.origin_name(self.mod.path, _subscript_base(small.annotation.annotation)) == "ClassVar":
                return None
            return self._annotated_field(owner, small.target.value, small, stmt, scope)
        if isinstance(small, cst.Assign) and isinstance(small.value, cst.Call) and len(small.targets) == 1:
            target = small.targets[0].target
            marker = self.symbols.origin_name(self.mod.path, small.value.func)
            if isinstance(target, cst.Name) and marker in self.conventions.derived_markers:
                return self._computed_field(owner, target.value, small.value, stmt, scope)
        return None

    def _computed_field(self, owner: str, name: str, call: cst.Call, stmt: cst.CSTNode, scope: Scope) -> FieldDecl:
        kw = _kwargs(call)
        positional = [a.value for a in call.args if a.keyword is None]
        doc = kw.get("doc", positional[0] if positional else None)
        return FieldDecl(
            owner=owner,
            name=name,
            kind=DeclKind.COMPUTED,
            type=None,
            default=literal(kw["default"], scope) if "default" in kw else None,
            has_default="default" in kw,
            help=render_text(doc, scope) if doc is not None else None,
            cli=False,
            path=self.mod.path,
            line=self.mod.line(stmt),
        )

    def _annotated_field(
        self, owner: str, name: str, node: cst.AnnAssign, stmt: cst.CSTNode, scope: Scope
    ) -> FieldDecl:
        type_node, metadata = self._split_annotated(node.annotation.annotation)
        default, has_default = self._field_default(node.value, scope)
        base = _FieldBase(owner, name, source_text(type_node), default, has_default, self.mod.path, self.mod.line(stmt))
        arg = self._arg_metadata(metadata, scope)
        if arg is None:
            # No help/Arg metadata: the registrar skips it; only a manual
            # add_argument can give it options.
            return FieldDecl(kind=DeclKind.FIELD, help=None, cli=False, **base.as_kwargs())
        return _annotated_cli(type_node, arg, base, self.symbols, scope)

    def _split_annotated(self, ann: cst.BaseExpression) -> tuple[cst.BaseExpression, list[cst.BaseExpression]]:
        if not isinstance(ann, cst.Subscript):
            return ann, []
        if self.symbols.origin_name(self.mod.path, ann.value) != "Annotated":
            return ann, []
        items = [el.slice.value for el in ann.slice if isinstance(el.slice, cst.Index)]
        return (items[0], items[1:]) if items else (ann, [])

    def _arg_metadata(
        self, metadata: list[cst.BaseExpression], scope: Scope
    ) -> dict[str, cst.BaseExpression] | None:
        """Arg keyword -> node for the first ``Arg(...)`` or string, as the registrar picks it."""
        for item in metadata:
            if isinstance(item, cst.Call):
                if self.symbols.origin_name(self.mod.path, item.func) in self.conventions.arg_markers:
                    return self._arg_kwargs(item)
                continue
            is_text = m.matches(item, m.SimpleString() | m.ConcatenatedString() | m.FormattedString())
            if is_text or isinstance(evaluate(item, scope), str):
                return {"help": item}  # a bare string is Arg(help=that string)
        return None

    def _arg_kwargs(self, call: cst.Call) -> dict[str, cst.BaseExpression]:
        out: dict[str, cst.BaseExpression] = {}
        positional = [a for a in call.args if a.keyword is None]
        for fname, arg in zip(_ARG_FIELDS, positional):
            out[fname] = arg.value
        for arg in call.args:
            if arg.keyword is None:
                continue
            key = arg.keyword.value
            if key in _ARG_FIELDS:
                out[key] = arg.value
            else:  # the real Arg would reject it; its meaning is unknown to us
                self.report(arg, f"unknown {source_text(call.func)}() keyword {key!r}")
        return out

    def _field_default(self, value: cst.BaseExpression | None, scope: Scope) -> tuple[Json, bool]:
        if value is None:
            return None, False
        if isinstance(value, cst.Call) and (
            self.symbols.origin_name(self.mod.path, value.func) in self.conventions.field_factories
        ):
            kw = _kwargs(value)
            if "default" in kw:
                return literal(kw["default"], scope), True
            if "default_factory" in kw:
                return _factory_default(kw["default_factory"], scope), True
            return None, False
        return literal(value, scope), True


# Arg's fields in declaration order (positional arguments map onto them).
_ARG_FIELDS = (
    "help",
    "choices",
    "aliases",
    "cli_name",
    "type_parser",
    "nargs",
    "required",
    "action",
    "action_kwargs",
    "const",
    "no_cli",
    "resolvable",
    "fallback",
)
_EMPTY_FACTORIES = {"list": (), "tuple": (), "dict": {}, "set": (), "frozenset": ()}


def _factory_default(node: cst.BaseExpression, scope: Scope) -> Json:
    name = get_full_name_for_node(node)
    if name in _EMPTY_FACTORIES:
        return _EMPTY_FACTORIES[name]
    if isinstance(node, cst.Lambda):
        return literal(node.body, scope)
    return {"expr": source_text(node) + "()"}


def _subscript_base(node: cst.BaseExpression) -> cst.BaseExpression:
    return node.value if isinstance(node, cst.Subscript) else node


def _unwrap_optional(node: cst.BaseExpression, symbols: Symbols, path: str) -> cst.BaseExpression:
    """``Optional[X]``, ``Union[X, None]``, ``X | None`` -> ``X`` (else unchanged)."""
    none = m.Name("None")
    if isinstance(node, cst.Subscript):
        origin = symbols.origin_name(path, node.value)
        items = [el.slice.value for el in node.slice if isinstance(el.slice, cst.Index)]
        if origin == "Optional" and len(items) == 1:
            return items[0]
        if origin == "Union":
            rest = [i for i in items if not m.matches(i, none)]
            if len(rest) == 1 and len(items) == 2:
                return rest[0]
    if m.matches(node, m.BinaryOperation(operator=m.BitOr())):
        op = cst.ensure_type(node, cst.BinaryOperation)
        if m.matches(op.right, none):
            return op.left
        if m.matches(op.left, none):
            return op.right
    return node


def _literal_values(node: cst.BaseExpression, symbols: Symbols, scope: Scope) -> tuple | None:
    if not isinstance(node, cst.Subscript) or symbols.origin_name(scope.path, node.value) != "Literal":
        return None
    values = [evaluate(el.slice.value, scope) for el in node.slice if isinstance(el.slice, cst.Index)]
    if any(v is UNKNOWN for v in values):
        return None
    return tuple(jsonable(v) for v in values)


def _is_list(node: cst.BaseExpression, symbols: Symbols, path: str) -> bool:
    return isinstance(node, cst.Subscript) and symbols.origin_name(path, node.value) in ("List", "list")


@dataclass(frozen=True, slots=True)
class _FieldBase:
    owner: str
    name: str
    type: str
    default: Json
    has_default: bool
    path: str
    line: int

    def as_kwargs(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__slots__}


def _annotated_cli(
    type_node: cst.BaseExpression,
    nodes: Mapping[str, cst.BaseExpression],
    base: _FieldBase,
    symbols: Symbols,
    scope: Scope,
) -> FieldDecl:
    """Mirror of ``add_cli_args_from_dataclass``: the argparse call a field becomes.

    Each branch passes only the keywords the registrar passes in that branch
    (e.g. an explicit ``action`` drops ``choices``; ``bool`` becomes store_true).
    """

    def value(key: str) -> object:
        return evaluate(nodes[key], scope) if key in nodes else None

    def given(key: str) -> bool:  # present and not a literal None
        return key in nodes and value(key) is not None

    help_text = render_text(nodes["help"], scope) if given("help") else None
    aliases_value = value("aliases")
    aliases = tuple(a for a in aliases_value if isinstance(a, str)) if isinstance(aliases_value, tuple) else ()
    cli_name = value("cli_name")
    arg_choices = choices_of(nodes["choices"], scope) if given("choices") else None
    arg_nargs = literal(nodes["nargs"], scope) if given("nargs") else None
    arg_const = literal(nodes["const"], scope) if given("const") else None
    required_flag = value("required")
    inner = _unwrap_optional(type_node, symbols, scope.path)
    literal_vals = _literal_values(inner, symbols, scope)

    action: str | None = None
    choices: tuple | dict | None = None
    nargs: Json = None
    const: Json = None
    required = False
    if given("action"):
        action_value = value("action")
        action = action_value if isinstance(action_value, str) else source_text(nodes["action"])
    elif literal_vals is not None:
        choices, const = arg_choices or literal_vals, arg_const
    elif _is_list(inner, symbols, scope.path) and not given("type_parser"):
        choices, nargs, const = arg_choices, arg_nargs or "+", arg_const
    elif m.matches(inner, m.Name("bool")):
        action = "store_true"
    else:
        choices, nargs, const = arg_choices, arg_nargs, arg_const
        required = required_flag is True or (required_flag is None and not base.has_default)

    deprecated = _action_name(action).startswith("Deprecated") or deprecated_help(help_text)
    replacement = None
    if deprecated:
        extra = value("action_kwargs")
        extra = extra if isinstance(extra, dict) else {}
        texts = [extra.get(k) for k in ("new_flag", "error_message")]
        own = (cli_name if isinstance(cli_name, str) else "", *aliases)
        replacement = replacement_option([*(t for t in texts if isinstance(t, str)), help_text], own)
    return FieldDecl(
        kind=DeclKind.ANNOTATED,
        help=help_text,
        cli=value("no_cli") is not True,
        cli_name=cli_name if isinstance(cli_name, str) else None,
        aliases=aliases,
        action=action,
        choices=choices,
        nargs=nargs,
        const=const,
        required=required,
        deprecated=deprecated,
        replacement=replacement,
        **base.as_kwargs(),
    )


def module_declarations(mod: SourceModule, symbols: Symbols, conventions: Conventions = Conventions()) -> ModuleDecls:
    visitor = _DeclVisitor(mod, symbols, conventions)
    # Positions were resolved on this very tree (no copy), so node identity holds.
    mod.tree.visit(visitor)
    return ModuleDecls(
        arguments=tuple(visitor.arguments),
        classes=tuple(visitor.classes),
        renames=tuple(visitor.renames),
        diagnostics=tuple(visitor.diagnostics),
    )
