"""libcst expressions -> condition IR, in terms of the config object, env and platform.

One handler per node kind; shapes it does not understand become `Unknown` with their
source text, never an exception.
"""
from __future__ import annotations

import functools
import itertools
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, cast

import libcst as cst

from extractor.cstutil import dotted, last_name, literal_value, norm_code, string_value
from extractor.frozen import FrozenMap
from extractor.imported_values import MODEL, PARSES
from extractor.ir import (
    ATTRIBUTE,
    IF,
    KEYWORD,
    ON_COMMAND_LINE,
    OR_FALLBACK,
    PARSE_RECORD,
    SOME_ITEM,
    UNSET_OR,
    And,
    Apply,
    Compare,
    Const,
    Expr,
    In,
    Not,
    Or,
    Ref,
    RefKind,
    Seq,
    Truthy,
    Unknown,
    as_condition,
    conj,
    described,
    disj,
    is_member_text,
    negate,
    unknowns,
    walk,
)
from extractor.row_fields import row_field
from extractor.scope import Binding, Conditional, Opaque, Scope
from extractor.tables import Table

_CMP = {
    cst.Equal: "==", cst.NotEqual: "!=", cst.LessThan: "<", cst.LessThanEqual: "<=",
    cst.GreaterThan: ">", cst.GreaterThanEqual: ">=", cst.Is: "is", cst.IsNot: "is not",
}
_ENV_GETTERS = {"os.environ.get", "os.getenv", "environ.get", "getenv"}
_RUNTIME_PREFIXES = ("os.path.", "pathlib.", "shutil.which", "importlib.", "Path(")
_RUNTIME_HINTS = ("installed", "available", "exists", "find_spec")
# Methods whose result is a simple function of the receiver: kept as `Apply`.
_STR_METHODS = {"startswith", "endswith", "lower", "upper", "strip", "lstrip", "rstrip", "split", "encode",
                "get", "keys", "values", "items"}
_TYPE_NAMES = {"dict", "list", "tuple", "set", "str", "int", "float", "bool", "bytes", "type"}
_EMPTY_COLLECTIONS = {"set", "frozenset", "list", "tuple", "dict"}
_BUILTINS = {"len", "isinstance", "any", "all", "bool", "int", "str", "min", "max", "sum", "set", "frozenset",
             "json.loads"}


# Levels of IR built from one expression; deeper parts become one `Unknown` leaf, so every
# consumer (evaluation, rendering, JSON) can recurse over any condition.
MAX_DEPTH = 64
MAX_VALUE_TERMS = 400  # IR nodes in a local's value before it is read as unknown
# Expressions interpreted for one outermost expression. Locals built from earlier locals
# (``x1 = f(x0, y0); y1 = g(x0, y0); ...``, as in unrolled kernel code) form a DAG whose
# expansion doubles per step; past this budget the rest reads as unknown, so no file costs
# more than linear time.
MAX_STEPS = 20_000
_UNKNOWN_TEXT = 200  # characters of source kept in such a leaf
_level = threading.local()


def _bounded(fn: Callable[[cst.BaseExpression, Scope], Expr]) -> Callable[[cst.BaseExpression, Scope], Expr]:
    @functools.wraps(fn)
    def nested(node: cst.BaseExpression, scope: Scope) -> Expr:
        level = getattr(_level, "n", 0)
        steps = 0 if level == 0 else _level.steps + 1
        _level.steps = steps
        if level == 0:
            _level.values = {}
        if level >= MAX_DEPTH or steps > MAX_STEPS:
            text = norm_code(node)
            return Unknown(text if len(text) <= _UNKNOWN_TEXT else text[:_UNKNOWN_TEXT] + " …")
        _level.n = level + 1
        try:
            return fn(node, scope)
        finally:
            _level.n = level
    return nested


@_bounded
def to_ir(node: cst.BaseExpression, scope: Scope) -> Expr:
    """The condition `node` states, as IR."""
    handler = _HANDLERS.get(type(node))
    if handler is None:
        return Truthy(term(node, scope))
    return handler(node, scope)


def chain_operands(node: cst.BooleanOperation) -> list[cst.BaseExpression]:
    """The operands of a chain of one boolean operator, in order: libcst nests ``a and b and c``
    one level per operand, and a long chain must not cost a level (or a walk) per operand."""
    kind = type(node.operator)
    operands: list[cst.BaseExpression] = []
    stack: list[cst.BaseExpression] = [node]
    while stack:
        part = stack.pop()
        if isinstance(part, cst.BooleanOperation) and type(part.operator) is kind:
            stack += (part.right, part.left)
        else:
            operands.append(part)
    return operands


def _bool_op(node: cst.BooleanOperation, scope: Scope) -> Expr:
    """``a and b and c`` as one flat And."""
    parts = [to_ir(part, scope) for part in chain_operands(node)]
    return conj(parts) if isinstance(node.operator, cst.And) else disj(parts)


def _unary(node: cst.UnaryOperation, scope: Scope) -> Expr:
    if isinstance(node.operator, cst.Not):
        return negate(to_ir(node.expression, scope))
    return Truthy(term(node, scope))


def _comparison(node: cst.Comparison, scope: Scope) -> Expr:
    parts: list[Expr] = []
    left = node.left
    for target in node.comparisons:
        op = target.operator
        lhs, rhs = term(left, scope), term(target.comparator, scope)
        if isinstance(op, (cst.In, cst.NotIn)) and dotted(target.comparator) in ("os.environ", "environ"):
            env = string_value(left)  # "X" in os.environ: X is set
            if env is not None:
                is_set = Compare("is not", Ref(RefKind.ENV, env, norm_code(left)), Const(None))
                parts.append(is_set if isinstance(op, cst.In) else negate(is_set))
                left = target.comparator
                continue
        if isinstance(op, (cst.In, cst.NotIn)) and isinstance(rhs, Const) and isinstance(rhs.value, Mapping):
            rhs = Const(tuple(rhs.value))  # membership in a dict sees its keys
        if isinstance(op, cst.In):
            parts.append(In(lhs, rhs))
        elif isinstance(op, cst.NotIn):
            parts.append(Not(In(lhs, rhs)))
        else:
            parts.append(Compare(_CMP.get(type(op), norm_code(op).strip()), lhs, rhs))
        left = target.comparator
    return conj(parts)


def _name_cond(node: cst.Name, scope: Scope) -> Expr:
    name, bound = node.value, _bound(node.value, scope)
    if isinstance(bound, (cst.BaseExpression, Conditional)):
        found = _resolving(name, scope, lambda: _binding_cond(name, bound, scope), Truthy(term(node, scope)))
        return Truthy(_too_large(name)) if larger_than(found, MAX_VALUE_TERMS) else found
    return Truthy(term(node, scope))


def _too_large(name: str) -> Ref:
    """A local whose value has more than `MAX_VALUE_TERMS` terms: copied into each use, it
    would grow conditions past reading (sglang 0.5.23's expert_pack check: 43,000 characters)."""
    return Ref(RefKind.UNKNOWN, name, f"{name} (a value of more than {MAX_VALUE_TERMS} terms)")


def _binding_cond(name: str, bound: Binding, scope: Scope) -> Expr:
    """The condition a local's value states; where branches joined, as `_if_exp` does."""
    if isinstance(bound, Conditional):
        yes, no = _binding_cond(name, bound.value, scope), _binding_cond(name, bound.previous, scope)
        return disj([conj([bound.cond, yes]), conj([negate(bound.cond), no])])
    if isinstance(bound, cst.BaseExpression):
        return to_ir(bound, scope)
    return Truthy(_binding_term(name, bound, scope))


def _if_exp(node: cst.IfExp, scope: Scope) -> Expr:
    test = to_ir(node.test, scope)
    return disj([conj([test, to_ir(node.body, scope)]), conj([negate(test), to_ir(node.orelse, scope)])])


def _named_cond(node: cst.NamedExpr, scope: Scope) -> Expr:
    return to_ir(node.value, scope)


def _call_cond(node: cst.Call, scope: Scope) -> Expr:
    lam = _called_lambda(node, scope)
    if lam is not None:
        return to_ir(lam.body, scope)
    return Truthy(term(node, scope))


_HANDLERS: dict[type, Callable[[cst.BaseExpression, Scope], Expr]] = {
    cst.BooleanOperation: _bool_op,  # type: ignore[dict-item]
    cst.UnaryOperation: _unary,  # type: ignore[dict-item]
    cst.Comparison: _comparison,  # type: ignore[dict-item]
    cst.Name: _name_cond,  # type: ignore[dict-item]
    cst.IfExp: _if_exp,  # type: ignore[dict-item]
    cst.Call: _call_cond,  # type: ignore[dict-item]
    cst.NamedExpr: _named_cond,  # type: ignore[dict-item]
}


# ---------------------------------------------------------------------------- terms


@_bounded
def term(node: cst.BaseExpression, scope: Scope) -> Expr:
    """A value-producing expression: a reference, a constant, a known function of those."""
    ok, value = literal_value(node)
    if ok:
        return Const(value)
    if isinstance(node, cst.NamedExpr):  # (x := v) is v; `extractor.sites` binds x for what follows
        return term(node.value, scope)
    if isinstance(node, cst.Name):
        return _name_term(node, scope)
    if isinstance(node, cst.Attribute):
        return _attribute_term(node, scope)
    if isinstance(node, cst.Call):
        return _call_term(node, scope)
    if isinstance(node, cst.Subscript):
        return _subscript_term(node, scope)
    if isinstance(node, cst.ListComp) and (mapped := _mapped(node, scope)) is not None:
        return mapped
    if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
        items = [term(el.value, scope) for el in node.elements if not isinstance(el, cst.StarredElement)]
        if len(items) == len(node.elements):
            return Seq(tuple(items))
    if isinstance(node, cst.BinaryOperation):
        op = norm_code(node.operator).strip()
        return Apply(op, (term(node.left, scope), term(node.right, scope)), norm_code(node))
    if isinstance(node, cst.UnaryOperation) and not isinstance(node.operator, cst.Not):
        op = norm_code(node.operator).strip()  # -x, ~x, +x
        return Apply(op, (term(node.expression, scope),), norm_code(node))
    if isinstance(node, cst.IfExp):  # a value chosen by a condition: `x if x else cfg.base`
        return Apply(IF, (to_ir(node.test, scope), term(node.body, scope), term(node.orelse, scope)), norm_code(node))
    if isinstance(node, (cst.BooleanOperation, cst.Comparison, cst.UnaryOperation)):
        return to_ir(node, scope)
    if isinstance(node, (cst.FormattedString, cst.ConcatenatedString)):  # text with holes: some str
        return Apply("str", (Unknown(norm_code(node)),), norm_code(node))
    return Unknown(norm_code(node))


def _bound(name: str, scope: Scope) -> object | None:
    if name in scope.aliases:
        return None
    return scope.lookup(name)


def _resolving(name: str, scope: Scope, fn: Callable[[], Expr], fallback: Expr) -> Expr:
    """Interpret a binding once per chain, so ``x = x + 1`` cannot loop forever."""
    if name in scope.resolving:
        return fallback
    scope.resolving.add(name)
    try:
        return fn()
    finally:
        scope.resolving.discard(name)


def _name_term(node: cst.Name, scope: Scope) -> Expr:
    name = node.value
    if name in scope.aliases:
        return Ref(RefKind.FLAG, "*", name)  # the whole config object
    bound = _bound(name, scope)
    if isinstance(bound, Opaque):
        return Ref(RefKind.UNKNOWN, bound.name or name, bound.text)
    if isinstance(bound, (Table, cst.BaseExpression, Conditional)):
        if name in scope.resolving:
            return Unknown(name)
        # One value per binding within an outermost expression: a local read by many later
        # locals is interpreted once (the objects keyed are alive for the whole call).
        key = (id(scope), name, id(bound))
        found = _level.values.get(key)
        if found is None:
            found = _resolving(name, scope, lambda: _binding_term(name, bound, scope), Unknown(name))
            found = _too_large(name) if larger_than(found, MAX_VALUE_TERMS) else found
            _level.values[key] = found
        return found
    if name in scope.profile.model_roots:
        return Ref(RefKind.MODEL, name, name)
    if scope.profile.is_platform(name.lstrip("_")):
        return Ref(RefKind.PLATFORM, name.lstrip("_"), name)
    if name in _TYPE_NAMES:
        return Const(name)  # isinstance(x, dict): the type, by name
    return Ref(RefKind.UNKNOWN, name, name)


def larger_than(expr: Expr, limit: int) -> bool:
    return next(itertools.islice(walk(expr), limit, None), None) is not None


def _binding_term(name: str, bound: Binding, scope: Scope) -> Expr:
    """A local's value: where branches joined, ``then if test else other`` (`IF`)."""
    if isinstance(bound, Conditional):
        then, other = _binding_term(name, bound.value, scope), _binding_term(name, bound.previous, scope)
        return Apply(IF, (bound.cond, then, other), name)
    if isinstance(bound, Opaque):
        return Ref(RefKind.UNKNOWN, bound.name or name, bound.text)
    if isinstance(bound, Table):
        return _table_term(bound, scope)
    return term(bound, scope)


def _table_term(table: Table, scope: Scope) -> Expr:
    if table.is_dict and not any(row.guards for row in table.rows):  # a dict of constants is that dict
        pairs = [(term(row.node[0], scope), _instance(row.node[1]) or term(row.node[1], scope)) for row in table.rows
                 if isinstance(row.node, tuple)]
        if all(isinstance(k, Const) and isinstance(v, Const) for k, v in pairs):
            try:
                return Const(FrozenMap((k.value, v.value) for k, v in pairs))  # type: ignore[union-attr]
            except TypeError:  # an unhashable key
                pass
    if any(row.guards for row in table.rows):  # rows appended under a condition: there only if it held
        return _guarded_rows(table, scope)
    items = [term(item, scope) for item in table.items()]
    values = [i.value for i in items if isinstance(i, Const)]
    return Const(tuple(values)) if len(values) == len(items) else Seq(tuple(items))


def _instance(node: cst.BaseExpression) -> Const | None:
    """``Policy()`` as a dict's value: an object of the class (never None, and true: what a
    registry of policies is read for, ``REGISTRY.get(arch) is not None``), by its name."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value.lstrip("_")[:1].isupper():
        return Const(f"<{node.func.value} object>")
    return None


def _guarded_rows(table: Table, scope: Scope) -> Expr:
    """``rows = []; if c: rows.append(x)``: the concatenation of each row's ``(x,) if c else ()``
    (a dict's keys), so ``if rows:`` holds only where some row's condition does."""
    parts: list[Expr] = []
    for row in table.rows:
        node = row.node[0] if isinstance(row.node, tuple) else row.node
        if isinstance(row.node, tuple) is not table.is_dict:
            continue
        item = term(node, scope)
        one: Expr = Const((item.value,)) if isinstance(item, Const) else Seq((item,))
        if row.guards:
            one = Apply(IF, (conj([g.expr for g in row.guards]), one, Const(())), "row added under a condition")
        parts.append(one)
    found: Expr = Const(())
    for part in parts:
        found = part if found == Const(()) else Apply("+", (found, part), "rows")
    return found


def _config_path(node: cst.BaseExpression, scope: Scope) -> str | None:
    """``a.b`` for ``cfg.a.b`` when the base is the config object."""
    if isinstance(node, cst.Attribute):
        if scope.is_config(node.value):
            return node.attr.value
        inner = _config_path(node.value, scope)
        if inner is not None:
            return f"{inner}.{node.attr.value}"
    return None


def env_registry_name(node: cst.BaseExpression, scope: Scope) -> str | None:
    """``X`` for ``envs.X`` when ``envs`` is a declared env registry."""
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) \
            and node.value.value in scope.profile.env_registries:
        return node.attr.value
    return None


def _is_model(path: str, scope: Scope) -> bool:
    return any(part in scope.profile.model_roots for part in path.split("."))


def _attribute_term(node: cst.Attribute, scope: Scope) -> Expr:
    text = norm_code(node)
    for read in (_env_attribute, _config_attribute, _constant_attribute):
        found = read(node, scope, text)
        if found is not None:
            return found
    return _attribute_of_term(node, scope, text)


def _env_attribute(node: cst.Attribute, scope: Scope, text: str) -> Expr | None:
    """An env var of a registry (``envs.X``, ``envs.X.value``, ``envs.X.get``)."""
    env = env_registry_name(node, scope)
    if env is not None:
        return Ref(RefKind.ENV, env, text)
    if isinstance(node.value, cst.Attribute) and node.attr.value in ("value", "get"):
        env = env_registry_name(node.value, scope)
        if env is not None:
            return Ref(RefKind.ENV, env, text)
    return None


def _config_attribute(node: cst.Attribute, scope: Scope, text: str) -> Expr | None:
    """A field of the config (a setting), or of the model's config."""
    path = _config_path(node, scope)
    if path is None:
        return None
    if _is_model(path, scope) or any(name in path for name in scope.profile.model_calls):
        return Ref(RefKind.MODEL, path, text)
    return Ref(RefKind.FLAG, path, text)


def _constant_attribute(node: cst.Attribute, scope: Scope, text: str) -> Expr | None:
    """A class constant, an enum member, a platform's property or a model property, by name."""
    base = node.value
    if isinstance(base, cst.Name) and isinstance(bound := scope.lookup(f"{base.value}.{node.attr.value}"),
                                                 cst.BaseExpression):
        return term(bound, scope)  # an imported class's constant (``Backend.FULL`` is "full")
    if isinstance(base, cst.Name) and is_member_text(text):
        return Const(text)  # an enum member such as ConnectorType.INSTANCE
    if isinstance(base, cst.Call) and _platform_call(base, scope):
        return Ref(RefKind.PLATFORM, f"{last_name(base.func)}().{node.attr.value}", text)
    if _is_model(text, scope):
        return Ref(RefKind.MODEL, text, text)
    return None


def _attribute_of_term(node: cst.Attribute, scope: Scope, text: str) -> Expr:
    """``x.a`` of whatever ``x`` is: a field of a fact, of what a helper returns, else unknown."""
    base_term = term(node.value, scope)
    if isinstance(base_term, Ref) and base_term.kind in _FIELD_KINDS and base_term.name != "*":
        owner = base_term.name
        if base_term.kind is RefKind.PLATFORM and base_term.text.endswith(")") and not owner.endswith(")"):
            owner += "()"  # ``p = get_platform()`` ... ``p.is_cuda``: as ``get_platform().is_cuda`` is named
        return Ref(base_term.kind, f"{owner}.{node.attr.value}", text)
    if isinstance(base_term, Apply) and base_term.fn.isidentifier():
        return Apply(ATTRIBUTE, (base_term, Const(node.attr.value)), text)  # of what a helper returns
    return Ref(RefKind.UNKNOWN, text, text)


# Refs whose attributes are parts of the same fact: ``x.a`` of a setting, model or platform
# fact ``x`` (reached through a local or ``getattr``) reads the fact ``x.a``.
_FIELD_KINDS = (RefKind.FLAG, RefKind.MODEL, RefKind.PLATFORM)


def _platform_call(node: cst.Call, scope: Scope) -> bool:
    name = last_name(node.func)
    return name is not None and scope.profile.is_platform(name)


def _first_string_arg(node: cst.Call) -> str | None:
    return string_value(node.args[0].value) if node.args else None


def _called_lambda(node: cst.Call, scope: Scope) -> cst.Lambda | None:
    if isinstance(node.func, cst.Name) and not node.args:
        bound = _bound(node.func.value, scope)
        if isinstance(bound, cst.Lambda):
            return bound
    return None


@dataclass(frozen=True, slots=True)
class _Call:
    """A call being read as a term, with the names every reader looks at."""

    node: cst.Call
    scope: Scope
    name: str  # dotted callee, "" when it is not a dotted name
    short: str  # its last part
    text: str


def _call_term(node: cst.Call, scope: Scope) -> Expr:
    """A call as a term: the first reader (in `_CALL_READERS` order) that knows its shape."""
    call = _Call(node, scope, dotted(node.func) or "", last_name(node.func) or "", norm_code(node))
    for read in _CALL_READERS:
        found = read(call)
        if found is not None:
            return found
    return Unknown(_spelled_out(node, scope) or call.text)


def _spelled_out(node: cst.Call, scope: Scope) -> str | None:
    """``algo.p()`` where ``algo = Cls.ctor(cfg.x)``: the call as if written on the value,
    ``Cls.ctor(cfg.x).p()``, so what it means is read as for the chain (`extractor.enum_self`)."""
    func = node.func
    if node.args or not isinstance(func, cst.Attribute) or not isinstance(func.value, cst.Name):
        return None
    bound = _bound(func.value.value, scope)
    if not (isinstance(bound, cst.Call) and isinstance(bound.func, cst.Attribute) and len(bound.args) <= 1):
        return None  # only the shape a chain has (``Cls.ctor(x)``): spelling out costs a codegen
    return f"{norm_code(bound)}.{func.attr.value}()"


# copies of a value: equal to it (what is changed on the copy afterwards is adjusted field by
# field, `extractor.sites`)
_COPIES = frozenset({"copy.deepcopy", "copy.copy", "deepcopy"})


def _copy_call(call: _Call) -> Expr | None:
    args = call.node.args
    if call.name in _COPIES and len(args) == 1 and args[0].keyword is None and not args[0].star:
        return term(args[0].value, call.scope)
    return None


def _lambda_call(call: _Call) -> Expr | None:
    lam = _called_lambda(call.node, call.scope)
    return to_ir(lam.body, call.scope) if lam is not None else None


def _env_call(call: _Call) -> Expr | None:
    """envs.X.get() / os.environ.get("X") / getenv("X") / get_bool_env_var("X")."""
    func = call.node.func
    env = None
    if isinstance(func, cst.Attribute) and func.attr.value in ("get", "value", "is_set"):
        env = env_registry_name(func.value, call.scope)
        if env is not None and func.attr.value == "is_set":  # set in the environment, whatever its default
            return Apply(ON_COMMAND_LINE, (Ref(RefKind.ENV, env, call.text),), call.text)
    if env is None and (call.name in _ENV_GETTERS or call.short in call.scope.profile.env_readers):
        env = _first_string_arg(call.node)
    return Ref(RefKind.ENV, env, call.text) if env is not None else None


def _reader_call(call: _Call) -> Expr | None:
    """A profile `config.readers` call ``f(cfg, "x")``: the field ``x``, or its declared
    fallback while it is None."""
    args = call.node.args
    if call.short not in call.scope.profile.readers or len(args) < 2 or not call.scope.is_config(args[0].value):
        return None
    field = string_value(args[1].value)
    return Apply(OR_FALLBACK, (Ref(RefKind.FLAG, field, call.text),), call.text) if field else None


def _getattr_call(call: _Call) -> Expr | None:
    """getattr(cfg, "x") reads a flag, getattr(<model fact>, "x") a model fact."""
    args, scope = call.node.args, call.scope
    if call.name != "getattr" or len(args) < 2:
        return None
    key = term(args[1].value, scope)  # a literal, or a loop variable bound to one
    attr = key.value if isinstance(key, Const) and isinstance(key.value, str) else None
    if attr is None:
        return None
    if scope.is_config(args[0].value):
        ref = Ref(RefKind.FLAG, attr, call.text)
        if attr.startswith("_") and len(args) >= 3:  # private state, absent until code sets it
            default = term(args[2].value, scope)
            return Apply(UNSET_OR, (ref, default), call.text) if not isinstance(default, Unknown) else ref
        return ref
    owner = term(args[0].value, scope)
    if isinstance(owner, Ref) and owner.kind in _FIELD_KINDS and owner.name != "*":
        field = Ref(owner.kind, f"{owner.name}.{attr}", call.text)  # a field of a setting or model fact
        if owner.kind is RefKind.MODEL and len(args) >= 3:  # a model's config may lack it: the default
            default = term(args[2].value, scope)
            return Apply(UNSET_OR, (field, default), call.text) if not isinstance(default, Unknown) else field
        return field
    return None


def _fact_call(call: _Call) -> Expr | None:
    """A platform check, or a fact of the running machine (files, installed packages)."""
    node = call.node
    if _platform_call(node, call.scope):
        suffix = "(" + ", ".join(norm_code(a.value) for a in node.args) + ")" if node.args else ""
        return Ref(RefKind.PLATFORM, call.short + suffix, call.text)
    if call.name.startswith(_PATH_TESTS) and len(node.args) == 1:
        path = term(node.args[0].value, call.scope)
        if isinstance(path, Const) and isinstance(path.value, str) and path.value.startswith(_MACHINE_DIRS):
            # a device the machine has (``/sys/class/infiniband``): a fact of the platform
            return Ref(RefKind.PLATFORM, f"{call.name}({path.value!r})", call.text)
    if call.name.startswith(_RUNTIME_PREFIXES) or any(h in call.short for h in _RUNTIME_HINTS):
        return Ref(RefKind.RUNTIME, call.text, call.text)
    return None


_PATH_TESTS = ("os.path.isdir", "os.path.exists", "os.path.isfile")
_MACHINE_DIRS = ("/sys/", "/dev/", "/proc/")  # what is there describes the machine, not the launch


def _method_call(call: _Call) -> Expr | None:
    """``receiver.method(...)``: of a flag's value, of the config itself, or a string method."""
    func, scope, short, text = call.node.func, call.scope, call.short, call.text
    if not isinstance(func, cst.Attribute):
        return None
    path = _config_path(func, scope)
    if path is not None and "." in path and not _is_model(path, scope):
        # cfg.model_path.lower(): a method of a flag's value, not of the config
        receiver = term(func.value, scope)
        return Apply(short, (receiver, *(term(a.value, scope) for a in call.node.args if a.keyword is None)), text)
    if path is not None:  # a method of the config object: a derived setting, or model data
        if _is_model(path, scope) or any(name in path for name in scope.profile.model_calls):
            return Ref(RefKind.MODEL, text, text)
        return Ref(RefKind.FLAG, f"{path}()", text)
    if short == "get" and (field := _row_get(call)) is not None:
        return field
    if short in _STR_METHODS:
        receiver = term(func.value, scope)
        if not isinstance(receiver, Unknown):
            return Apply(short, (receiver, *(term(a.value, scope) for a in call.node.args)), text)
    return None


def _of_config(call: _Call, is_plain: bool) -> Expr | None:
    """``set()``: empty; ``f(cfg)``: a setting derived from the config (not ``set(cfg.f())``:
    the set of what f gives)."""
    if call.name in _EMPTY_COLLECTIONS:
        return Const(()) if not call.node.args else None  # set(), dict() ...: as the literals `{}` and `[]` read
    if is_plain and any(call.scope.is_config(a.value) for a in call.node.args):
        return Ref(RefKind.FLAG, f"{call.short}()", call.text)
    return None


def _row_get(call: _Call) -> Expr | None:
    """``row.get("key", default)`` of a dict literal's row (`extractor.row_fields`)."""
    args = call.node.args
    key = string_value(args[0].value) if 1 <= len(args) <= 2 and all(a.keyword is None for a in args) else None
    if key is None:
        return None
    missing = term(args[1].value, call.scope) if len(args) == 2 else Const(None)
    return row_field(cast(cst.Attribute, call.node.func).value, key, missing, call.scope, term)


def _function_call(call: _Call) -> Expr | None:
    """``f(cfg)``: a setting derived from the whole config; a builtin or a plain function
    of values we can name (``parse_connector_type(cfg.model_path)``): evaluable only as
    far as its name is known."""
    node, scope, name = call.node, call.scope, call.name
    is_plain = isinstance(node.func, cst.Name)
    if (of_config := _of_config(call, is_plain)) is not None:
        return of_config
    # A builtin is computed on its positional arguments; any other function through what it
    # returns (`extractor.inline`, keyword arguments bound by name: `KEYWORD`), else what a
    # platform states it returns for its positional ones (`runtime` facts, checked against
    # the real call as the source makes it).
    if name in _BUILTINS:
        return Apply(name, tuple(term(a.value, scope) for a in node.args if a.keyword is None and not a.star),
                     call.text)
    if not node.args and name and not is_plain and _of_module(name, scope):  # ``current_platform.is_oot()``
        return Apply(name, (), call.text)  # what a platform states it returns
    if is_plain and not any(a.star for a in node.args):  # also `use_mlx()`: through what it returns
        args = tuple(term(a.value, scope) if a.keyword is None
                     else Apply(KEYWORD, (Const(a.keyword.value), term(a.value, scope)), a.keyword.value)
                     for a in node.args)
        if not any(isinstance(a, Unknown) or (isinstance(a, Apply) and a.fn == KEYWORD
                   and isinstance(a.args[1], Unknown)) for a in args):
            return Apply(name, args, call.text)
    return None


def _of_module(name: str, scope: Scope) -> bool:
    """Is the dotted callee `name` read from a module-level name (an imported object such as
    ``current_platform``), not a local, a parameter or ``self``?"""
    root = name.partition(".")[0]
    return root not in ("self", "cls") and root not in scope.aliases and scope.lookup(root) is None


def _any_all_call(call: _Call) -> Expr | None:
    """``any(c(x) for x in (a, b))`` over a tuple or list the source writes out (or a local
    bound to one): ``c(a) or c(b)``; ``all``: ``and``."""
    node, scope = call.node, call.scope
    if call.name not in ("any", "all") or len(node.args) != 1 or not isinstance(gen := node.args[0].value,
                                                                                  cst.GeneratorExp):
        return None
    loop = gen.for_in
    if loop.inner_for_in is not None or not isinstance(loop.target, cst.Name):
        return None
    if loop.ifs:
        return _quantified(call, gen, loop.target.value)
    values = written_out(loop.iter, scope)
    if values is None:
        return _membership_over(call, gen, loop.target.value) or _quantified(call, gen, loop.target.value)
    name = loop.target.value
    parts = [to_ir(gen.elt, replace(scope, bindings={**scope.bindings, name: v})) for v in values]
    return disj(parts) if call.name == "any" else conj(parts)


def written_out(items: cst.BaseExpression, scope: Scope) -> list[Any] | None:
    """The items of a tuple or list the source writes out (or a local bound to one, or to a
    table with no row under a condition), as expressions to bind a loop variable to; None:
    not written out."""
    found: Any = items
    if isinstance(found, cst.Name):
        bound = _bound(found.value, scope)
        found = bound if isinstance(bound, (cst.BaseExpression, Table)) else found
    if isinstance(found, Table) and not found.is_dict and not any(row.guards for row in found.rows):
        return list(found.items())
    if isinstance(found, (cst.Tuple, cst.List)) and not any(isinstance(e, cst.StarredElement)
                                                           for e in found.elements):
        return [e.value for e in found.elements]
    return None


def _membership_over(call: _Call, gen: cst.GeneratorExp, name: str) -> Expr | None:
    """``any(x in C for x in items)`` over items not written out: the two share an item
    (``items & C`` is non-empty); ``all``: none of the items is outside C; ``not in``
    likewise. C must not read the loop variable."""
    elt = gen.elt
    if not (isinstance(elt, cst.Comparison) and len(elt.comparisons) == 1 and isinstance(elt.left, cst.Name)
            and elt.left.value == name and isinstance(elt.comparisons[0].operator, (cst.In, cst.NotIn))):
        return None
    container = elt.comparisons[0].comparator
    if name in {n.value for n in _names_in(container)}:
        return None
    items, within = term(gen.for_in.iter, call.scope), term(container, call.scope)
    if isinstance(items, Unknown) or isinstance(within, Unknown):
        return None
    inside = isinstance(elt.comparisons[0].operator, cst.In)
    if (call.name == "any") == inside:  # any(x in C) / all(x not in C): do they share an item?
        shared = Truthy(Apply("&", (items, within), call.text))
        return shared if call.name == "any" else Not(shared)
    outside = Truthy(Apply("-", (items, within), call.text))  # an item not in C
    return outside if call.name == "any" else Not(outside)


def _quantified(call: _Call, gen: cst.GeneratorExp, name: str) -> Expr | None:
    """``any(c(x) for x in items if f(x))`` over a setting's items not written out: `c`
    holds for some item (`SOME_ITEM`, decided per item); ``all``: no item fails it."""
    items = term(gen.for_in.iter, call.scope)
    if unknowns(items):
        return None
    item = Opaque(described("taken from a collection"))
    inner = replace(call.scope, bindings={**call.scope.bindings, name: item})
    test = as_condition(to_ir(gen.elt, inner))
    kept = [as_condition(to_ir(f.test, inner)) for f in gen.for_in.ifs]
    if call.name == "any":
        return Truthy(Apply(SOME_ITEM, (items, Const(name), conj([*kept, test])), call.text))
    return Not(Truthy(Apply(SOME_ITEM, (items, Const(name), conj([*kept, negate(test)])), call.text)))


def _names_in(node: cst.CSTNode) -> list[cst.Name]:
    found: list[cst.Name] = []

    class _Names(cst.CSTVisitor):
        def visit_Name(self, n: cst.Name) -> None:
            found.append(n)

    node.visit(_Names())
    return found


def _record_call(call: _Call) -> Expr | None:
    """``Cls.from_cli(text)`` / ``Cls.model_validate_json(text)`` of an imported record model
    (`extractor.imported_values`): the record the JSON text parses into (`PARSE_RECORD`)."""
    func, scope = call.node.func, call.scope
    if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and len(call.node.args) == 1):
        return None
    owner = func.value.value
    said = scope.imported.get(f"{owner}.{func.attr.value}{PARSES}")
    parses = func.attr.value == PARSE_RECORD or (said is not None and string_value(said) == PARSE_RECORD)
    model = scope.imported.get(f"{owner}.{MODEL}")
    if not parses or model is None:
        return None
    return Apply(PARSE_RECORD, (term(model, scope), term(call.node.args[0].value, scope)), call.text)


_CALL_READERS: tuple[Callable[[_Call], Expr | None], ...] = (
    _any_all_call, _copy_call, _lambda_call, _env_call, _reader_call, _getattr_call, _fact_call, _record_call,
    _method_call, _function_call,
)


def _subscript_term(node: cst.Subscript, scope: Scope) -> Expr:
    text = norm_code(node)
    index = node.slice[0].slice if len(node.slice) == 1 else None
    key = string_value(index.value) if isinstance(index, cst.Index) else None
    if key is not None and dotted(node.value) in ("os.environ", "environ"):
        return Ref(RefKind.ENV, key, text)
    if key is not None and (field := row_field(node.value, key, None, scope, term)) is not None:
        return field
    base = term(node.value, scope)
    if index is None or isinstance(base, Unknown):
        return Unknown(text)
    if isinstance(index, cst.Index):
        return Apply("item", (base, term(index.value, scope)), text)
    if isinstance(index, cst.Slice) and index.step is None:  # v[1:], v[:n]
        bounds = (Const(None) if b is None else term(b, scope) for b in (index.lower, index.upper))
        return Apply("slice", (base, *bounds), text)
    return Unknown(text)


def _mapped(node: cst.ListComp | cst.GeneratorExp, scope: Scope) -> Expr | None:
    """``[float(x) for x in v]``: a plain function applied to each item (Apply("map", (Const(f), v)))."""
    loop, elt = node.for_in, node.elt
    if (loop.inner_for_in is not None or loop.ifs or not isinstance(loop.target, cst.Name)
            or not isinstance(elt, cst.Call) or not isinstance(elt.func, cst.Name) or len(elt.args) != 1):
        return None
    arg = elt.args[0]
    if arg.keyword is not None or arg.star or not (isinstance(arg.value, cst.Name)
                                                   and arg.value.value == loop.target.value):
        return None
    items = term(loop.iter, scope)
    return None if isinstance(items, Unknown) else Apply("map", (Const(elt.func.value), items), norm_code(node))


__all__ = ["And", "Or", "term", "to_ir"]
