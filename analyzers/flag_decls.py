"""Read flag declarations statically: argparse calls and config-class fields.

Three shapes are understood (see DESIGN.md, analyzers.flag_build):
- ``parser.add_argument("--x", ...)`` anywhere in a file (argparse era);
- fields of classes (``x: int = 1``), the record the CLI fills in;
- fields annotated ``Annotated[T, "help"]`` / ``Annotated[T, Arg(...)]``, which a
  registrar such as sglang's ``add_cli_args_from_dataclass`` turns into options
  (its rules are mirrored in `_annotated_cli`).
This module only reports declarations; `analyzers.flag_build` merges them into flags.
Values are read with `extractor.constant_values`. Nothing here imports or runs the
target code.
"""
from __future__ import annotations

import itertools
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import libcst as cst
import libcst.matchers as m
from libcst.helpers import get_full_name_for_node

from analyzers.flags import DeclKind
from analyzers.option_text import deprecated_help, dest_for_option, replacement_option
from extractor.constant_values import (
    NOT_CONSTANT,
    ConstScope,
    choices_of,
    constant_value,
    function_locals,
    literal,
    render_text,
    source_text,
)
from extractor.errors import ProfileError
from extractor.frozen import FrozenMap, Json, jsonable
from extractor.positions import any_within, statement_blocks, word_lines
from extractor.records import Diagnostic
from extractor.source_set import Outline, SourceModule
from extractor.symbols import Symbols

# ---------------------------------------------------------------------------
# Declarations
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Conventions:
    """Names of the declaration helpers; defaults follow sglang's ``arg_utils``."""

    arg_markers: tuple[str, ...] = ("Arg",)  # Annotated[T, Arg(...)] metadata
    derived_markers: tuple[str, ...] = ("Derived",)  # x = Derived(...): computed fields
    field_factories: tuple[str, ...] = ("field",)  # x: T = field(default=...)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any] | None) -> Conventions:
        """From a plain mapping such as a profile's ``declarations: conventions:`` block.

        Keys: ``arg``, ``derived``, ``field``; each a list of names (a single name
        is fine). Missing keys keep the defaults; anything else is a ProfileError.
        """
        if data is None:
            return cls()
        if not isinstance(data, Mapping):
            raise ProfileError("declarations.conventions must be a mapping")
        unknown = sorted(str(k) for k in data if k not in _CONVENTION_KEYS)
        if unknown:
            known = ", ".join(_CONVENTION_KEYS)
            raise ProfileError(f"declarations.conventions: unknown key(s) {', '.join(unknown)} (known: {known})")
        values: dict[str, tuple[str, ...]] = {}
        for key, attr in _CONVENTION_KEYS.items():
            if key not in data:
                continue
            names = [data[key]] if isinstance(data[key], str) else data[key]
            if not isinstance(names, (list, tuple)) or not names or not all(isinstance(n, str) and n for n in names):
                raise ProfileError(f"declarations.conventions.{key} must be a name or a non-empty list of names")
            values[attr] = tuple(names)
        return cls(**values)


_CONVENTION_KEYS = {"arg": "arg_markers", "derived": "derived_markers", "field": "field_factories"}


@dataclass(frozen=True, slots=True)
class ArgparseDecl:
    options: tuple[str, ...]
    dest: str
    type: str | None
    default: Json
    has_default: bool
    default_field: str | None  # field the default is read from (``Cls.x``, ``f("x")``)
    default_owner: str | None  # ``Cls`` of a ``Cls.x`` default: names the record class
    choices: tuple | FrozenMap | None
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
    choices: tuple | FrozenMap | None = None
    nargs: Json = None
    const: Json = None
    required: bool = False
    deprecated: bool = False
    replacement: str | None = None
    path: str = ""
    line: int = 0
    fallback: Json = None  # ``Arg(fallback=...)``: what the program reads while the field is unset
    parser: str | None = None  # ``Arg(type_parser=...)`` as the source names it


@dataclass(frozen=True, slots=True)
class ClassDecl:
    name: str
    path: str
    line: int
    fields: tuple[FieldDecl, ...]
    # ``NAME = <literal>`` in the class body: no field, the same value through every
    # instance (``server_args.LANGUAGE_MODEL_ONLY_ARCHITECTURES``)
    constants: tuple[tuple[str, Json], ...] = ()

    @property
    def annotated(self) -> bool:
        return any(f.kind is DeclKind.ANNOTATED for f in self.fields)


@dataclass(frozen=True, slots=True)
class ModuleDecls:
    arguments: tuple[ArgparseDecl, ...]
    classes: tuple[ClassDecl, ...]
    renames: tuple[tuple[str, str], ...]  # (argparse dest, record field) copied in from_cli_args-style code
    diagnostics: tuple[Diagnostic, ...]


_ADD_ARGUMENT = m.Call(func=m.Attribute(attr=m.Name("add_argument")))
_SUPPRESS = m.Attribute(attr=m.Name("SUPPRESS")) | m.Name("SUPPRESS")
_STORE_DEFAULTS = {"store_true": False, "store_false": True}
_BOOL_ACTIONS = {"store_true", "store_false", "BooleanOptionalAction"}
_MAX_LOOP_EXPANSION = 256



Keywords = Mapping[str, cst.BaseExpression]  # a call's keyword arguments by name


def _kwargs(call: cst.Call) -> dict[str, cst.BaseExpression]:
    return {a.keyword.value: a.value for a in call.args if a.keyword is not None}


def _action_name(action: str | None) -> str:
    return (action or "").rsplit(".", 1)[-1]


def _argparse_replacement(
    kw: Keywords, help_text: str | None, options: tuple[str, ...], scope: ConstScope
) -> str | None:
    """The option a deprecated argparse flag points to (its ``new_flag``/``error_message``, else its help)."""
    pointers = (kw[k] for k in ("new_flag", "error_message") if k in kw)
    texts = [render_text(node, scope) for node in pointers if constant_value(node, scope) is not None]
    return replacement_option([*texts, help_text], options)


class _AddArgumentCalls(cst.CSTVisitor):
    """``x.add_argument(...)`` calls in one statement's own code, in document order.

    Nested statements (suites, an ``elif``) are left to the statement walker.
    """

    def __init__(self, root: cst.CSTNode) -> None:
        super().__init__()
        self.root = root
        self.calls: list[cst.Call] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if node is not self.root and isinstance(node, (cst.BaseSuite, cst.BaseCompoundStatement)):
            return False
        if isinstance(node, cst.Call) and m.matches(node, _ADD_ARGUMENT):
            self.calls.append(node)
        return True


class _DeclWalker:
    """Collects add_argument calls, record classes and dest renames of one module.

    Walks statements only (a full libcst visit rebuilds every node and dominated
    the cost); expressions are searched only in statements whose lines mention
    ``add_argument``.
    """

    def __init__(self, mod: SourceModule, symbols: Symbols, conventions: Conventions) -> None:
        self.mod = mod
        self.symbols = symbols
        self.conventions = conventions
        self.mentions = word_lines(mod.source, "add_argument") if mod.source is not None else None
        self.anchor: cst.CSTNode | None = None  # the statement being read, for line numbers
        self.loops: list[cst.For] = []
        self.namespaces: list[frozenset[str]] = []
        self.functions: list[cst.FunctionDef] = []
        self._locals: dict[int, dict[str, object]] = {}
        self.arguments: list[ArgparseDecl] = []
        self.classes: list[ClassDecl] = []
        self.renames: list[tuple[str, str]] = []
        self.diagnostics: list[Diagnostic] = []

    # -- helpers -----------------------------------------------------------
    def scope(self, env: Mapping[str, object] | None = None) -> ConstScope:
        return ConstScope(self.mod.path, self.symbols, dict(env or {}))

    def local_scope(self, env: Mapping[str, object] | None = None) -> ConstScope:
        """Scope seeing the enclosing function's constant locals (computed on demand)."""
        if not self.functions:
            return self.scope(env)
        func = self.functions[-1]
        if id(func) not in self._locals:
            self._locals[id(func)] = function_locals(func, self.scope())
        return ConstScope(self.mod.path, self.symbols, {**self._locals[id(func)], **(env or {})})

    def report(self, node: cst.CSTNode, message: str) -> None:
        self.diagnostics.append(Diagnostic(self.mod.path, self.mod.line(node, self.anchor), message))

    # -- statements ----------------------------------------------------------
    def run(self) -> None:
        self._statements(self.mod.tree.body)

    def _statements(self, body: Sequence[cst.CSTNode]) -> None:
        for stmt in body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    self._small(small)
            elif isinstance(stmt, cst.BaseCompoundStatement):
                self._compound(stmt)
            else:  # a small statement of a one-line suite
                self._small(stmt)

    def _small(self, small: cst.CSTNode) -> None:
        self.anchor = small
        if isinstance(small, cst.Assign):
            self._rename(small)
        self._calls(small)

    def _compound(self, stmt: cst.BaseCompoundStatement) -> None:
        if isinstance(stmt, cst.ClassDef):
            self._class(stmt)
        if isinstance(stmt, cst.FunctionDef):
            self._enter_function(stmt)
        elif isinstance(stmt, cst.For):
            self.loops.append(stmt)  # loops bind names that option strings may use
        self.anchor = stmt
        self._calls(stmt)  # decorators, conditions, loop iterables...
        for block in statement_blocks(stmt):
            self._statements(block)
        if isinstance(stmt, cst.FunctionDef):
            self.namespaces.pop()
            self.functions.pop()
        elif isinstance(stmt, cst.For):
            self.loops.pop()

    def _calls(self, stmt: cst.CSTNode) -> None:
        """add_argument calls in a statement's own code (skipped unless its lines mention one)."""
        screened = self.mentions is not None  # None: no text to screen with
        if screened and (not self.mentions or not any_within(self.mentions, self.mod.lines.span(stmt))):
            return
        found = _AddArgumentCalls(stmt)
        stmt.visit(found)
        for call in found.calls:
            self.anchor = stmt
            self._add_argument(call)

    def _loop_envs(self) -> list[dict[str, object]]:
        """One binding of the loop variables per iteration (loops over constants only)."""
        bound: list[tuple[str, tuple[object, ...]]] = []
        for loop in self.loops:
            values = constant_value(loop.iter, self.local_scope())
            if isinstance(loop.target, cst.Name) and isinstance(values, (tuple, frozenset)):
                bound.append((loop.target.value, tuple(values)))
        if not bound:
            return [{}]
        names = [name for name, _ in bound]
        combos = itertools.islice(itertools.product(*(v for _, v in bound)), _MAX_LOOP_EXPANSION)
        return [dict(zip(names, combo, strict=True)) for combo in combos]

    # -- functions taking an argparse Namespace may copy dests onto fields ---
    def _enter_function(self, node: cst.FunctionDef) -> None:
        names = frozenset(
            p.name.value
            for p in node.params.params
            if p.annotation is not None
            and self.symbols.origin_name(self.mod.path, p.annotation.annotation) == "Namespace"
        )
        self.namespaces.append(names)
        self.functions.append(node)

    def _rename(self, node: cst.Assign) -> None:
        if not self.namespaces or not self.namespaces[-1] or len(node.targets) != 1:
            return
        target, value = node.targets[0].target, node.value
        ns = m.OneOf(*(m.Name(n) for n in self.namespaces[-1]))
        if m.matches(target, m.Attribute(value=ns)) and m.matches(value, m.Attribute(value=ns)):
            src, dst = cst.ensure_type(value, cst.Attribute), cst.ensure_type(target, cst.Attribute)
            if src.attr.value != dst.attr.value:
                self.renames.append((src.attr.value, dst.attr.value))

    # -- argparse ----------------------------------------------------------
    def _add_argument(self, node: cst.Call) -> None:
        positional = [a for a in node.args if a.keyword is None]
        if positional and all(a.star for a in positional):
            return  # a wrapper forwarding *names/**kwargs is not a declaration
        seen: set[tuple[str, ...]] = set()
        for env in self._loop_envs():
            values = [constant_value(a.value, self.local_scope(env)) for a in positional]
            key = tuple(v for v in values if isinstance(v, str))
            if not values or any(a.star for a in positional) or len(key) != len(values):
                self.report(node, f"add_argument with option names not known statically: {source_text(node)[:120]}")
                return
            if key not in seen:
                seen.add(key)
                self.arguments.append(self._argparse_decl(node, key, self.local_scope(env)))

    def _argparse_decl(self, node: cst.Call, options: tuple[str, ...], scope: ConstScope) -> ArgparseDecl:
        given = _kwargs(node)
        dest = self._dest(node, given, options, scope)
        action, kw = self._action(given, scope)
        short_action = _action_name(action)
        help_node = kw.get("help")
        hidden = help_node is not None and m.matches(help_node, _SUPPRESS)
        help_text = None if help_node is None or hidden else render_text(help_node, scope)
        default, default_field, default_owner = self._default(kw, dest, short_action, scope)
        const_node = kw.get("const", kw.get("const_value"))
        deprecated = short_action.startswith("Deprecated") or deprecated_help(help_text)
        return ArgparseDecl(
            options=options,
            dest=dest,
            type=source_text(kw["type"]) if "type" in kw else ("bool" if short_action in _BOOL_ACTIONS else None),
            default=default,
            has_default="default" in kw,
            default_field=default_field,
            default_owner=default_owner,
            choices=choices_of(kw["choices"], scope) if "choices" in kw else None,
            action=action,
            nargs=literal(kw["nargs"], scope) if "nargs" in kw else None,
            const=literal(const_node, scope) if const_node is not None else None,
            required="required" in kw and constant_value(kw["required"], scope) is True,
            help=help_text,
            hidden=hidden,
            deprecated=deprecated,
            replacement=_argparse_replacement(kw, help_text, options, scope) if deprecated else None,
            path=self.mod.path,
            line=self.mod.line(node, self.anchor),
        )

    def _dest(self, node: cst.Call, kw: Keywords, options: tuple[str, ...], scope: ConstScope) -> str:
        """argparse's dest: the ``dest=`` given, else derived from the first long option."""
        named = constant_value(kw["dest"], scope) if "dest" in kw else NOT_CONSTANT
        if isinstance(named, str):
            return named
        if "dest" in kw:
            self.report(node, f"dest not known statically: {source_text(kw['dest'])}")
        longs = [o for o in options if o.startswith("--")]
        return dest_for_option((longs or list(options))[0])

    def _action(self, kw: Keywords, scope: ConstScope) -> tuple[str | None, Keywords]:
        """The action's name, and the call's keywords with a custom action's own defaults under them."""
        node = kw.get("action")
        if node is None:
            return None, kw
        named = constant_value(node, scope)  # "store_true" and friends
        if isinstance(named, str):
            return named, kw
        # A custom action's own __init__ defaults apply when the call omits them.
        return source_text(node), {**self.symbols.init_defaults(self.mod.path, node), **kw}

    def _default(
        self, kw: Keywords, dest: str, short_action: str, scope: ConstScope
    ) -> tuple[Json, str | None, str | None]:
        """The default, the field it is read from and the class owning that field (`ArgparseDecl`)."""
        node = kw.get("default")
        if node is None:
            return _STORE_DEFAULTS.get(short_action), None, None
        owner = None
        if m.matches(node, m.Attribute(value=m.Name())):
            owner = cst.ensure_type(cst.ensure_type(node, cst.Attribute).value, cst.Name).value
        return literal(node, scope), self._field_reference(node, dest, scope), owner

    def _field_reference(self, node: cst.BaseExpression, dest: str, scope: ConstScope) -> str | None:
        """Field a default reads: ``Cls.dest`` or a helper called with ``"dest"``."""
        if m.matches(node, m.Attribute(value=m.Name(), attr=m.Name(dest))):
            return dest
        if isinstance(node, cst.Call) and len(node.args) == 1 and constant_value(node.args[0].value, scope) == dest:
            return dest
        return None

    # -- classes -------------------------------------------------------------
    def _class(self, node: cst.ClassDef) -> None:
        fields: list[FieldDecl] = []
        constants: list[tuple[str, Json]] = []
        for stmt in node.body.body:
            if not isinstance(stmt, cst.SimpleStatementLine):
                continue
            for small in stmt.body:
                self.anchor = small
                decl = self._field(node.name.value, small, stmt)
                if decl is not None:
                    fields.append(decl)
                elif (found := self._constant(small)) is not None:
                    constants.append(found)
        if fields or constants:  # a record class may take its fields from elsewhere (sglang 0.5.19+)
            self.classes.append(ClassDecl(node.name.value, self.mod.path, self.mod.line(node), tuple(fields),
                                          tuple(constants)))

    def _constant(self, small: cst.BaseSmallStatement) -> tuple[str, Json] | None:
        """``NAME = <literal>``: named as a constant, so no method is expected to rebind it
        on an instance (``_cache = None`` set later is no constant)."""
        if not (isinstance(small, cst.Assign) and len(small.targets) == 1
                and isinstance(target := small.targets[0].target, cst.Name) and target.value.isupper()):
            return None
        value = constant_value(small.value, self.scope())
        return None if value is NOT_CONSTANT else (target.value, jsonable(value))

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

    def _computed_field(self, owner: str, name: str, call: cst.Call, stmt: cst.CSTNode, scope: ConstScope) -> FieldDecl:
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
        self, owner: str, name: str, node: cst.AnnAssign, stmt: cst.CSTNode, scope: ConstScope
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
        self, metadata: list[cst.BaseExpression], scope: ConstScope
    ) -> dict[str, cst.BaseExpression] | None:
        """Arg keyword -> node for the first ``Arg(...)`` or string, as the registrar picks it."""
        for item in metadata:
            if isinstance(item, cst.Call):
                if self.symbols.origin_name(self.mod.path, item.func) in self.conventions.arg_markers:
                    return self._arg_kwargs(item)
                continue
            is_text = m.matches(item, m.SimpleString() | m.ConcatenatedString() | m.FormattedString())
            if is_text or isinstance(constant_value(item, scope), str):
                return {"help": item}  # a bare string is Arg(help=that string)
        return None

    def _arg_kwargs(self, call: cst.Call) -> dict[str, cst.BaseExpression]:
        out: dict[str, cst.BaseExpression] = {}
        positional = [a for a in call.args if a.keyword is None]
        for fname, arg in zip(_ARG_FIELDS, positional, strict=False):
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

    def _field_default(self, value: cst.BaseExpression | None, scope: ConstScope) -> tuple[Json, bool]:
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
_EMPTY_FACTORIES: dict[str, Json] = {"list": (), "tuple": (), "dict": FrozenMap(), "set": (), "frozenset": ()}


def _factory_default(node: cst.BaseExpression, scope: ConstScope) -> Json:
    name = get_full_name_for_node(node)
    if name in _EMPTY_FACTORIES:
        return _EMPTY_FACTORIES[name]
    if isinstance(node, cst.Lambda):
        return literal(node.body, scope)
    return FrozenMap({"expr": source_text(node) + "()"})


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


def _literal_values(node: cst.BaseExpression, symbols: Symbols, scope: ConstScope) -> tuple | None:
    if not isinstance(node, cst.Subscript) or symbols.origin_name(scope.path, node.value) != "Literal":
        return None
    values = [constant_value(el.slice.value, scope) for el in node.slice if isinstance(el.slice, cst.Index)]
    if any(v is NOT_CONSTANT for v in values):
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


@dataclass(frozen=True, slots=True)
class _ArgValues:
    """A field's ``Arg(...)`` keywords (or its help string), read in the field's scope."""

    nodes: Keywords
    scope: ConstScope

    def value(self, key: str) -> object:
        return constant_value(self.nodes[key], self.scope) if key in self.nodes else None

    def given(self, key: str) -> bool:  # present and not a literal None
        return key in self.nodes and self.value(key) is not None

    def literal(self, key: str) -> Json:
        return literal(self.nodes[key], self.scope) if self.given(key) else None

    def choices(self) -> tuple | FrozenMap | None:
        return choices_of(self.nodes["choices"], self.scope) if self.given("choices") else None

    def text(self, key: str) -> str | None:
        return render_text(self.nodes[key], self.scope) if self.given(key) else None


@dataclass(frozen=True, slots=True)
class _CliShape:
    """What the registrar passes to ``add_argument`` for one field, besides names and help."""

    action: str | None = None
    choices: tuple | FrozenMap | None = None
    nargs: Json = None
    const: Json = None
    required: bool = False


def _annotated_cli(
    type_node: cst.BaseExpression,
    nodes: Keywords,
    base: _FieldBase,
    symbols: Symbols,
    scope: ConstScope,
) -> FieldDecl:
    """Mirror of ``add_cli_args_from_dataclass``: the argparse call a field becomes."""
    arg = _ArgValues(nodes, scope)
    help_text = arg.text("help")
    aliases_value, cli_name = arg.value("aliases"), arg.value("cli_name")
    aliases = tuple(a for a in aliases_value if isinstance(a, str)) if isinstance(aliases_value, tuple) else ()
    name = cli_name if isinstance(cli_name, str) else None
    cli = _cli_shape(arg, _unwrap_optional(type_node, symbols, scope.path), base, symbols)
    deprecated = _action_name(cli.action).startswith("Deprecated") or deprecated_help(help_text)
    return FieldDecl(
        kind=DeclKind.ANNOTATED,
        help=help_text,
        cli=arg.value("no_cli") is not True,
        cli_name=name,
        aliases=aliases,
        action=cli.action,
        choices=cli.choices,
        nargs=cli.nargs,
        const=cli.const,
        required=cli.required,
        deprecated=deprecated,
        replacement=_arg_replacement(arg, help_text, (name or "", *aliases)) if deprecated else None,
        fallback=arg.literal("fallback"),
        parser=source_text(arg.nodes["type_parser"]) if "type_parser" in arg.nodes else None,
        **base.as_kwargs(),
    )


def _cli_shape(arg: _ArgValues, inner: cst.BaseExpression, base: _FieldBase, symbols: Symbols) -> _CliShape:
    """The registrar's branches on the field's type (`inner`: Optional removed); each passes
    only its own keywords (e.g. an explicit ``action`` drops ``choices``; ``bool`` becomes
    store_true)."""
    scope = arg.scope
    if arg.given("action"):
        named = arg.value("action")
        action = named if isinstance(named, str) else source_text(arg.nodes["action"])
        return _CliShape(action=action, nargs=_action_nargs(arg))
    literal_values = _literal_values(inner, symbols, scope)
    if literal_values is not None:
        return _CliShape(choices=arg.choices() or literal_values, const=arg.literal("const"))
    if _is_list(inner, symbols, scope.path) and not arg.given("type_parser"):
        return _CliShape(choices=arg.choices(), nargs=arg.literal("nargs") or "+", const=arg.literal("const"))
    if m.matches(inner, m.Name("bool")):
        return _CliShape(action="store_true")
    required = arg.value("required")
    return _CliShape(
        choices=arg.choices(),
        nargs=arg.literal("nargs"),
        const=arg.literal("const"),
        required=required is True or (required is None and not base.has_default),
    )


def _action_nargs(arg: _ArgValues) -> Json:
    """``nargs`` among the ``action_kwargs`` handed to add_argument with an explicit action."""
    passed = arg.nodes.get("action_kwargs")
    nargs: Json = None
    for el in passed.elements if isinstance(passed, cst.Dict) else ():
        if isinstance(el, cst.DictElement) and constant_value(el.key, arg.scope) == "nargs":
            found = constant_value(el.value, arg.scope)  # the other values may be types: not constants
            nargs = found if isinstance(found, (str, int)) else None
    return nargs


def _arg_replacement(arg: _ArgValues, help_text: str | None, own: tuple[str, ...]) -> str | None:
    """The option a deprecated field points to (its action's ``new_flag``/``error_message``, else its help)."""
    extra = arg.value("action_kwargs")
    texts = [extra.get(k) for k in ("new_flag", "error_message")] if isinstance(extra, dict) else []
    return replacement_option([*(t for t in texts if isinstance(t, str)), help_text], own)


_SCREEN_WORDS = re.compile(r"\b(?:add_argument|Namespace)\b")


def may_declare(source: str, outline: Outline | None, config_classes: Collection[str] = ()) -> bool:
    """Whether `module_declarations` may find something in a file that matters.

    A cheap screen, so only such files are parsed with libcst: the file mentions
    ``add_argument`` (argparse calls) or ``Namespace`` (dest renames), or defines a
    class with a subscripted field annotation (``Annotated[...]``) or one named in
    `config_classes`. Record classes that only argparse defaults name
    (``default=Cls.x``) are found afterwards with `defines_class`. A file ``ast``
    cannot read (``outline`` None) is always read.
    """
    if outline is None or _SCREEN_WORDS.search(source):
        return True
    return any(c.subscripted_fields or c.name in config_classes for c in outline.classes)


def defines_class(outline: Outline | None, names: Collection[str]) -> bool:
    """Whether a file defines (at any depth) a class with one of `names`."""
    return outline is None or any(c.name in names for c in outline.classes)


def module_declarations(mod: SourceModule, symbols: Symbols, conventions: Conventions = Conventions()) -> ModuleDecls:
    walker = _DeclWalker(mod, symbols, conventions)
    walker.run()
    return ModuleDecls(
        arguments=tuple(walker.arguments),
        classes=tuple(walker.classes),
        renames=tuple(walker.renames),
        diagnostics=tuple(walker.diagnostics),
    )

