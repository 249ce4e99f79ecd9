"""Values of constant expressions in parsed sources (nothing is imported or run).

- `constant_value`: the value of a constant expression as seen from a `ConstScope`
  (its file, the `Symbols` of the analysis, bound loop variables), or `NOT_CONSTANT`;
  names and ``Cls.ATTR`` are followed across files;
- `literal`, `choices_of`, `render_text` and `function_locals` build on it;
- values are kept as `extractor.frozen.Json` (tuples, `FrozenMap`, scalars: immutable
  and hashable).

The declaration readers (`analyzers.flag_decls`, `analyzers.env_decls`) share it. Not
to be confused with `analyzers.evaluate`, which evaluates conditions on a command line.
"""
from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import libcst as cst
from libcst.helpers import get_full_name_for_node

from extractor import parse
from extractor.frozen import FrozenMap, Json, jsonable, sort_key
from extractor.source_set import SourceSet
from extractor.symbols import Bindings, Symbols

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
        return ast.unparse(parse.python_expression(f"(\n{raw}\n)"))
    except SyntaxError:
        return _WS.sub(" ", raw)


def expr_ref(node: cst.CSTNode) -> FrozenMap:
    """How a value that is not a literal is recorded: ``{"expr": source text}``."""
    return FrozenMap({"expr": source_text(node)})


# ---------------------------------------------------------------------------
# Static evaluation
# ---------------------------------------------------------------------------


class _NotConstant:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NOT_CONSTANT"


NOT_CONSTANT: Any = _NotConstant()
_MAX_DEPTH = 40
_MAX_EXPONENT = 4096


def _set_of(items: Iterable[object]) -> object:
    """A frozenset of `items`, or NOT_CONSTANT when one is unhashable (a dict)."""
    try:
        return frozenset(items)
    except TypeError:
        return NOT_CONSTANT


@dataclass(frozen=True, slots=True)
class ConstScope:
    """Where an expression sits: its file, the symbols, and bound loop variables."""

    path: str
    symbols: Symbols
    env: Mapping[str, object] = field(default_factory=dict)
    depth: int = 0

    def at(self, path: str) -> ConstScope:
        """Another file's top level, reached by following a name."""
        return ConstScope(path, self.symbols, {}, self.depth + 1)

    def seeing(self, env: Mapping[str, object]) -> ConstScope:
        """This file with `env` as the bound names."""
        return ConstScope(self.path, self.symbols, env)


def constant_value(node: cst.BaseExpression, scope: ConstScope) -> object:
    """Value of a constant expression, or NOT_CONSTANT.

    Lists and tuples come back as tuples and sets as frozensets, so results are
    immutable; `jsonable` turns them into JSON values.
    """
    value_of = _VALUE_OF.get(type(node))
    if value_of is None or scope.depth > _MAX_DEPTH:
        return NOT_CONSTANT
    return value_of(node, scope)


def _string_value(node: cst.SimpleString | cst.ConcatenatedString, scope: ConstScope) -> object:
    value = node.evaluated_value
    return value if isinstance(value, str) else NOT_CONSTANT  # bytes are not kept


def _number_value(node: cst.Integer | cst.Float, scope: ConstScope) -> object:
    return node.evaluated_value


def _collection_value(node: cst.List | cst.Tuple | cst.Set, scope: ConstScope) -> object:
    items = _elements(node.elements, scope)
    if items is NOT_CONSTANT:
        return NOT_CONSTANT
    return _set_of(items) if isinstance(node, cst.Set) else tuple(items)


def _fstring_value(node: cst.FormattedString, scope: ConstScope) -> object:
    """An f-string whose holes are all constants (e.g. a loop variable)."""
    out: list[str] = []
    for part in node.parts:
        if isinstance(part, cst.FormattedStringText):
            out.append(_fstring_part(node, part))
            continue
        assert isinstance(part, cst.FormattedStringExpression)
        value = constant_value(part.expression, scope)
        if value is NOT_CONSTANT or any(not isinstance(p, cst.FormattedStringText) for p in part.format_spec or ()):
            return NOT_CONSTANT
        convert = _CONVERSIONS.get(part.conversion or "", _as_is)
        spec = "".join(cst.ensure_type(p, cst.FormattedStringText).value for p in part.format_spec or ())
        try:
            out.append(format(convert(value), spec))
        except (TypeError, ValueError):
            return NOT_CONSTANT
    return "".join(out)


_CONVERSIONS: dict[str, Callable[[object], object]] = {"r": repr, "s": str, "a": ascii}


def _as_is(value: object) -> object:
    return value


def _name_value(node: cst.Name, scope: ConstScope) -> object:
    name = node.value
    if name in scope.env:
        return scope.env[name]
    if name in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[name]
    where = scope.symbols.resolve(scope.path, name)
    if where is None:
        return NOT_CONSTANT
    path, real = where
    value = scope.symbols.bindings(path).assigns.get(real)
    return NOT_CONSTANT if value is None else constant_value(value, scope.at(path))


def _attribute_value(node: cst.Attribute, scope: ConstScope) -> object:
    """``Cls.ATTR`` for a class defined in the analysed files."""
    if not isinstance(node.value, cst.Name):
        return NOT_CONSTANT
    where = scope.symbols.resolve(scope.path, node.value.value)
    if where is None:
        return NOT_CONSTANT
    path, cls = where
    bindings = scope.symbols.bindings(path)
    if node.attr.value == "__struct_fields__" and cls in bindings.class_defs:
        return _struct_fields(bindings.class_defs[cls], bindings)
    body = bindings.classes.get(cls)
    if body is None or node.attr.value not in body:
        return NOT_CONSTANT
    inner = scope.at(path)
    # the class body's own names are in scope there (``ALL = (FULL, BREAKABLE)``)
    return constant_value(body[node.attr.value], replace(inner, env=_ClassNames(body, inner)))


def _struct_fields(cls: cst.ClassDef, bindings: Bindings) -> object:
    """``Cls.__struct_fields__`` of a class deriving ``msgspec.Struct`` directly: its annotated
    names in order (a ``ClassVar`` is no field); a class with other bases may inherit fields: unknown."""
    bases = [get_full_name_for_node(b.value) or "" for b in cls.bases if b.keyword is None]
    imported = bindings.imports.get(bases[0]) if len(bases) == 1 else None
    if bases != ["msgspec.Struct"] and (imported is None or (imported.module, imported.name) != ("msgspec", "Struct")):
        return NOT_CONSTANT
    names: list[str] = []
    for stmt in cls.body.body:
        for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
            if (isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name)
                    and "ClassVar" not in _EMPTY_MODULE.code_for_node(small.annotation.annotation)):
                names.append(small.target.value)
    return tuple(names)


class _ClassNames(Mapping):
    """A class body's attributes as a scope's bound names, each evaluated when first read."""

    __slots__ = ("_body", "_scope", "_values")

    def __init__(self, body: Mapping[str, cst.BaseExpression], scope: ConstScope) -> None:
        self._body, self._scope = body, scope
        self._values: dict[str, object] = {}

    def __contains__(self, name: object) -> bool:
        return name in self._body

    def __getitem__(self, name: str) -> object:
        if name not in self._values:
            if name not in self._body:
                raise KeyError(name)
            self._values[name] = NOT_CONSTANT  # while it is evaluated: a name defined by itself stays unknown
            self._values[name] = constant_value(self._body[name], self._scope)
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._body)

    def __len__(self) -> int:
        return len(self._body)


def _unary_value(node: cst.UnaryOperation, scope: ConstScope) -> object:
    value = constant_value(node.expression, scope)
    if isinstance(node.operator, cst.Not) and value is not NOT_CONSTANT:
        return not value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if isinstance(node.operator, cst.Minus):
            return -value
        if isinstance(node.operator, cst.Plus):
            return value
    return NOT_CONSTANT


def _binary_value(node: cst.BinaryOperation, scope: ConstScope) -> object:
    left, right = constant_value(node.left, scope), constant_value(node.right, scope)
    if left is NOT_CONSTANT or right is NOT_CONSTANT:
        return NOT_CONSTANT
    for kind, join in _JOINS.get(type(node.operator), ()):
        if isinstance(left, kind) and isinstance(right, kind):
            return join(left, right)
    return _arithmetic(node.operator, left, right)


# ``+`` and ``|`` on collections: (both operands of this type, what the operator makes)
_JOINS: dict[type[cst.BaseBinaryOp], tuple[tuple[type, Callable[[Any, Any], object]], ...]] = {
    cst.Add: ((tuple, operator.add), (str, operator.add)),
    cst.BitOr: ((frozenset, operator.or_), (dict, lambda a, b: {**a, **b})),
}
_ARITHMETIC: dict[type[cst.BaseBinaryOp], Callable[[Any, Any], object]] = {
    cst.Add: operator.add,
    cst.Subtract: operator.sub,
    cst.Multiply: operator.mul,
    cst.Power: operator.pow,
    cst.Divide: operator.truediv,
    cst.FloorDivide: operator.floordiv,
    cst.Modulo: operator.mod,
}


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _arithmetic(op: cst.BaseBinaryOp, left: object, right: object) -> object:
    apply = _ARITHMETIC.get(type(op))
    if apply is None or not (_is_number(left) and _is_number(right)):
        return NOT_CONSTANT
    if isinstance(op, cst.Power) and isinstance(right, (int, float)) and abs(right) > _MAX_EXPONENT:
        return NOT_CONSTANT  # 2 ** 10**9 would take forever
    try:
        return apply(left, right)
    except (ArithmeticError, ValueError):
        return NOT_CONSTANT


def _elements(elements: Iterable[cst.BaseElement], scope: ConstScope) -> list | Any:
    out: list[object] = []
    for el in elements:
        value = constant_value(el.value, scope)
        if value is NOT_CONSTANT:
            return NOT_CONSTANT
        if isinstance(el, cst.StarredElement):
            if not isinstance(value, (tuple, frozenset)):
                return NOT_CONSTANT
            out.extend(value)
        else:
            out.append(value)
    return out


def _dict_value(node: cst.Dict, scope: ConstScope) -> object:
    out: dict[object, object] = {}
    for el in node.elements:
        if not isinstance(el, cst.DictElement):  # ``**other``
            value = constant_value(el.value, scope)
            if not isinstance(value, dict):
                return NOT_CONSTANT
            out.update(value)
            continue
        key, value = constant_value(el.key, scope), constant_value(el.value, scope)
        if key is NOT_CONSTANT or value is NOT_CONSTANT:
            return NOT_CONSTANT
        try:
            out[key] = value
        except TypeError:  # an unhashable key: Python would refuse it too
            return NOT_CONSTANT
    return out


def _call_value(node: cst.Call, scope: ConstScope) -> object:
    """``list(X)``, ``tuple()``, ``set(X)``, ``sorted(X)``, ``dict()``, ``X.keys()``."""
    if isinstance(node.func, cst.Attribute) and not node.args:
        return _method_value(node.func, scope)
    func = get_full_name_for_node(node.func)
    if func == "dict" and not node.args:
        return {}
    build = _ITERABLE_CALLS.get(func or "")
    if build is None or len(node.args) > 1 or any(a.keyword is not None or a.star for a in node.args):
        return NOT_CONSTANT
    items = _iterated(constant_value(node.args[0].value, scope)) if node.args else ()
    return NOT_CONSTANT if items is None else build(items)


def _method_value(func: cst.Attribute, scope: ConstScope) -> object:
    """``X.keys()``, ``X.values()``, ``X.items()`` of a dict; ``X.copy()`` of a tuple or set."""
    base, method = constant_value(func.value, scope), func.attr.value
    if isinstance(base, dict) and method in ("keys", "values", "items"):
        return tuple(base.keys() if method == "keys" else base.values() if method == "values" else base.items())
    if isinstance(base, (tuple, frozenset)) and method == "copy":
        return base
    return NOT_CONSTANT


def _iterated(value: object) -> tuple[object, ...] | frozenset[object] | None:
    """What iterating a constant gives (a dict its keys, a string its characters); None: not known."""
    if isinstance(value, (dict, str)):
        return tuple(value)
    return value if isinstance(value, (tuple, frozenset)) else None


_MAX_COMPREHENSION = 1000  # items a comprehension makes before it is not computed


def _comprehension_value(node: cst.DictComp | cst.ListComp | cst.SetComp, scope: ConstScope) -> object:
    """A comprehension over constants (``{v: k for k, v in TABLE.items()}``): lists come
    back as tuples, sets as frozensets, like their literals."""
    envs = _comprehension_envs(node.for_in, scope)
    if envs is None:
        return NOT_CONSTANT
    if isinstance(node, cst.DictComp):
        pairs = [(constant_value(node.key, _with(scope, env)), constant_value(node.value, _with(scope, env)))
                 for env in envs]
        if any(NOT_CONSTANT in pair for pair in pairs):
            return NOT_CONSTANT
        try:
            return dict(pairs)
        except TypeError:  # an unhashable key
            return NOT_CONSTANT
    items = [constant_value(node.elt, _with(scope, env)) for env in envs]
    if NOT_CONSTANT in items:
        return NOT_CONSTANT
    return _set_of(items) if isinstance(node, cst.SetComp) else tuple(items)


def _with(scope: ConstScope, env: dict[str, object]) -> ConstScope:
    """`scope` with `env` as its bound names (its depth kept: a name defined by itself ends)."""
    return replace(scope, env=env)


def _comprehension_envs(clause: cst.CompFor | None, scope: ConstScope) -> list[dict[str, object]] | None:
    """The bound names of each iteration of ``for ... in ... if ...`` clauses (None: not known)."""
    envs: list[dict[str, object]] = [dict(scope.env)]
    while clause is not None:
        if clause.asynchronous is not None:
            return None
        found: list[dict[str, object]] = []
        for env in envs:
            items = _iterated(constant_value(clause.iter, _with(scope, env)))
            for item in items if items is not None else ():
                bound = _unpacked(clause.target, item)
                if bound is None:
                    return None
                tests = [constant_value(c.test, _with(scope, {**env, **bound})) for c in clause.ifs]
                if NOT_CONSTANT in tests:
                    return None
                if all(tests):
                    found.append({**env, **bound})
            if items is None or len(found) > _MAX_COMPREHENSION:
                return None
        envs, clause = found, clause.inner_for_in
    return envs


def _unpacked(target: cst.BaseExpression, item: object) -> dict[str, object] | None:
    """The names ``for target in ...`` binds to `item` (a name, or a tuple of them)."""
    if isinstance(target, cst.Name):
        return {target.value: item}
    if not isinstance(target, (cst.Tuple, cst.List)) or not isinstance(item, tuple) \
            or len(target.elements) != len(item):
        return None
    out: dict[str, object] = {}
    for el, value in zip(target.elements, item, strict=True):
        inner = None if isinstance(el, cst.StarredElement) else _unpacked(el.value, value)
        if inner is None:
            return None
        out.update(inner)
    return out


# Builtins called on one iterable (or none): what they make of its items.
_ITERABLE_CALLS: dict[str, Callable[[tuple[object, ...] | frozenset[object]], object]] = {
    "list": tuple,
    "tuple": tuple,
    "sorted": lambda items: tuple(sorted(items, key=sort_key)),
    "set": _set_of,
    "frozenset": _set_of,
}

_VALUE_OF: dict[type[cst.CSTNode], Callable[[Any, ConstScope], object]] = {
    cst.SimpleString: _string_value,
    cst.ConcatenatedString: _string_value,
    cst.Integer: _number_value,
    cst.Float: _number_value,
    cst.FormattedString: _fstring_value,
    cst.Name: _name_value,
    cst.Attribute: _attribute_value,
    cst.UnaryOperation: _unary_value,
    cst.BinaryOperation: _binary_value,
    cst.List: _collection_value,
    cst.Tuple: _collection_value,
    cst.Set: _collection_value,
    cst.Dict: _dict_value,
    cst.Call: _call_value,
    cst.DictComp: _comprehension_value,
    cst.ListComp: _comprehension_value,
    cst.SetComp: _comprehension_value,
}


def literal(node: cst.BaseExpression, scope: ConstScope) -> Json:
    """JSON value of `node`, or ``{"expr": source}`` when it is not a constant."""
    value = constant_value(node, scope)
    return expr_ref(node) if value is NOT_CONSTANT else jsonable(value)


def computed_literals(path: str, module: cst.Module,
                      names: Mapping[str, cst.BaseExpression]) -> dict[str, cst.BaseExpression]:
    """`names` (what `module` binds at top level) with each comprehension that is computed
    from the module's own constants (``{v: k for k, v in TABLE.items()}``) replaced by
    the literal it makes, for readers that take literals only."""
    comps = {n for n, node in names.items() if isinstance(node, (cst.DictComp, cst.ListComp, cst.SetComp))}
    if not comps:
        return dict(names)
    scope = ConstScope(path, Symbols(SourceSet({path: ""}, {path: module})))
    out = dict(names)
    for name in sorted(comps):
        made = as_literal(constant_value(names[name], scope))
        if made is not None:
            out[name] = made
    return out


def class_constants(path: str, module: cst.Module) -> dict[str, cst.BaseExpression]:
    """``Cls.__struct_fields__`` of the classes `module` defines, as literals (read as
    ``set(raw) - set(Cls.__struct_fields__)`` in a config's own check)."""
    bindings = Symbols(SourceSet({path: ""}, {path: module})).bindings(path)
    out: dict[str, cst.BaseExpression] = {}
    for name, cls in bindings.class_defs.items():
        made = as_literal(_struct_fields(cls, bindings))
        if made is not None:
            out[f"{name}.__struct_fields__"] = made
    return out


def as_literal(value: object) -> cst.BaseExpression | None:
    """The literal of a computed value (None: there is none, e.g. an empty set)."""
    if value is NOT_CONSTANT or (isinstance(value, frozenset) and not value):
        return None
    if isinstance(value, frozenset):
        value = set(value)
    text = repr(value)
    try:
        ast.literal_eval(text)  # only plain literals: no ``frozenset(...)`` inside
    except (ValueError, SyntaxError):
        return None
    return parse.expression(text)


def choices_of(node: cst.BaseExpression, scope: ConstScope) -> tuple | FrozenMap | None:
    """Choices as argparse sees them (iteration order; dicts give their keys)."""
    value = constant_value(node, scope)
    if value is None:
        return None
    if isinstance(value, dict):
        value = tuple(value)
    if isinstance(value, (tuple, frozenset)):
        return jsonable(value)
    return expr_ref(node)


def render_text(node: cst.BaseExpression, scope: ConstScope) -> str:
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
    value = constant_value(node, scope)
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


def function_locals(func: cst.FunctionDef, scope: ConstScope) -> dict[str, object]:
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
            value = constant_value(assign.value, scope.seeing({**scope.env, **env}))
            if value is not NOT_CONSTANT:
                env[name] = value
    for name, method, call in found.calls:
        if name not in env or method not in _GROW_ONE | _GROW_MANY | _SHRINK:
            continue
        args = call.args
        added = constant_value(args[0].value, scope.seeing(env)) if len(args) == 1 else NOT_CONSTANT
        env[name] = _grow(env[name], added, many=method in _GROW_MANY) if method not in _SHRINK else NOT_CONSTANT
    for name, aug in found.augs:
        if name in env:
            added = constant_value(aug.value, scope.seeing(env))
            ok = isinstance(aug.operator, (cst.AddAssign, cst.BitOrAssign))
            env[name] = _grow(env[name], added, many=True) if ok else NOT_CONSTANT
    return {k: v for k, v in env.items() if v is not NOT_CONSTANT}


def _grow(current: object, added: object, *, many: bool) -> object:
    if current is NOT_CONSTANT or added is NOT_CONSTANT:
        return NOT_CONSTANT
    if isinstance(current, dict):
        return {**current, **added} if many and isinstance(added, dict) else NOT_CONSTANT
    items: tuple[object, ...] = (added,)
    if many:
        if not isinstance(added, (tuple, frozenset)):
            return NOT_CONSTANT
        items = tuple(added)
    if isinstance(current, frozenset):
        return _set_of((*current, *items))
    if isinstance(current, tuple):
        return current + items
    return NOT_CONSTANT


