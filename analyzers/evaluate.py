"""Three-valued evaluation of the condition IR on a launch (true / false / unknown).

Shared by example-fix verification and the preflight command. A leaf is known when
the launch gives it, or when the flag/env model declares a literal default; automatic
adjustments (``if self.lora_paths: self.enable_lora = True``) are applied to a fixed
point first. Platform, model and runtime leaves are unknown unless the launch states
them as facts. Unknown propagates by Kleene logic: ``false and unknown`` is false.
"""
from __future__ import annotations

import ast
import math
from functools import lru_cache
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from analyzers.launch import Launch
from extractor.compat import StrEnum
from extractor.ir import (
    COMPARE, And, Apply, Compare, Const, Expr, In, Not, Or, Ref, RefKind, Seq, Truthy, Unknown, children, from_dict,
    refs,
)

MAX_ROUNDS = 8  # adjustment passes before a still-changing setting is given up as unknown


class Truth(StrEnum):
    TRUE = "true"
    FALSE = "false"
    UNKNOWN = "unknown"

    @classmethod
    def of(cls, value: "bool | None") -> "Truth":
        return cls.UNKNOWN if value is None else cls.TRUE if value else cls.FALSE


class _Missing:
    """The value of a leaf nobody can decide (a singleton, never equal to a real value)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Missing()


@dataclass(frozen=True, slots=True)
class Rule:
    """An automatic adjustment: ``dest = value`` whenever ``when`` holds."""

    dest: str
    value: Expr
    when: Expr

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Rule":
        """From catalog.json's ``adjustments`` items."""
        return cls(data["dest"], from_dict(data["value"]), from_dict(data["when"]["expr"]))


def rules_from_adjustments(adjustments: Iterable[Any]) -> tuple[Rule, ...]:
    """Rules from `extractor.records.Adjustment` records or catalog dicts (either works)."""
    from analyzers.adjustments import adjustment_guard

    out = []
    for adj in adjustments:
        if isinstance(adj, Mapping):
            out.append(Rule.from_dict(adj))
        else:
            out.append(Rule(adj.flag, adj.value, adjustment_guard(adj)))
    return tuple(out)


# ------------------------------------------------------------------ defaults


def _literal_default(default: Any) -> Any:
    """A declared default as a value; ``{"expr": src}`` (computed at run time) is unknown."""
    if isinstance(default, Mapping) and set(default) == {"expr"}:
        return UNKNOWN
    if isinstance(default, Mapping):
        return dict(default)
    return default


_TRUE_WORDS = frozenset({"1", "true", "yes", "y", "on"})


def env_value(raw: str, type_name: str | None) -> Any:
    """A raw environment string as the typed reader sees it."""
    try:
        if type_name == "bool":
            return raw.strip().lower() in _TRUE_WORDS
        if type_name == "int":
            return int(raw)
        if type_name == "float":
            return float(raw)
    except ValueError:
        return UNKNOWN
    return raw


@dataclass(frozen=True, slots=True)
class Model:
    """What the evaluator knows besides the launch: declared flags/env and adjustments.

    `flags` is an `analyzers.flags.FlagModel` or None (then every leaf the launch does
    not give is unknown).
    """

    flags: Any = None
    rules: tuple[Rule, ...] = ()
    _writers: dict[str, tuple[Rule, ...]] = field(init=False, repr=False, compare=False)
    _reads: dict[Rule, tuple[str, ...]] = field(init=False, repr=False, compare=False)
    _relevant: dict[Expr, tuple[Rule, ...]] = field(init=False, repr=False, compare=False)  # memo
    _resolved: dict[tuple[int, str], tuple[tuple[Rule, ...], "Values"]] = field(
        init=False, repr=False, compare=False)  # memo: (id of a rule tuple, launch) -> settings

    def __post_init__(self) -> None:
        writers: dict[str, list[Rule]] = {}
        for rule in self.rules:
            writers.setdefault(rule.dest, []).append(rule)
        reads = {
            rule: tuple(_base_dest(r.name) for e in (rule.when, rule.value) for r in refs(e) if r.kind is RefKind.FLAG)
            for rule in self.rules
        }
        object.__setattr__(self, "_writers", {k: tuple(v) for k, v in writers.items()})
        object.__setattr__(self, "_reads", reads)
        object.__setattr__(self, "_relevant", {})
        object.__setattr__(self, "_resolved", {})

    def flag_default(self, dest: str) -> Any:
        flag = self.flags.by_dest(dest) if self.flags is not None else None
        if flag is None or flag.derived:  # a derived field is whatever code sets it to
            return UNKNOWN
        if flag.action and flag.action.endswith("store_true") and flag.default is None and flag.type == "bool":
            return False
        return _literal_default(flag.default)

    def env_default(self, name: str) -> Any:
        var = self.flags.env_var(name) if self.flags is not None else None
        return UNKNOWN if var is None else _literal_default(var.default)

    def env_type(self, name: str) -> str | None:
        var = self.flags.env_var(name) if self.flags is not None else None
        return var.type if var is not None else None

    def relevant_rules(self, expr: Expr) -> tuple[Rule, ...]:
        """Adjustments that can change a flag `expr` reads, transitively, in model order."""
        try:
            return self._relevant[expr]
        except KeyError:
            pass
        except TypeError:  # a constant holding a list: not hashable, not memoised
            return self._collect(expr)
        found = self._collect(expr)
        self._relevant[expr] = found
        return found

    def _collect(self, expr: Expr) -> tuple[Rule, ...]:
        wanted: set[str] = set()
        todo = [_base_dest(r.name) for r in refs(expr) if r.kind is RefKind.FLAG]
        while todo:
            dest = todo.pop()
            if dest in wanted:
                continue
            wanted.add(dest)
            for rule in self._writers.get(dest, ()):
                todo += self._reads[rule]
        return tuple(r for r in self.rules if r.dest in wanted)


def _base_dest(name: str) -> str:
    """``device.startswith()`` reads ``device``."""
    head, _, method = name.rpartition(".")
    return head if head and method.endswith("()") else name


# ------------------------------------------------------------------ values


@dataclass(slots=True)
class Values:
    """Resolved settings of one launch: given > adjusted > declared default."""

    model: Model
    launch: Launch
    adjusted: dict[str, Any] = field(default_factory=dict)

    def flag(self, name: str) -> Any:
        if name in self.adjusted:
            return self.adjusted[name]
        if name in self.launch.flags:
            return self.launch.flags[name]
        return self.model.flag_default(name)

    def env(self, name: str) -> Any:
        if name in self.launch.env:
            return env_value(self.launch.env[name], self.model.env_type(name))
        return self.model.env_default(name)

    def fact(self, ref: Ref) -> Any:
        return self.launch.facts.get(f"{ref.kind}:{ref.name}", UNKNOWN)


@lru_cache(maxsize=4096)
def _method_call(text: str) -> tuple[str, tuple[Any, ...]] | None:
    """``cfg.device.startswith("cuda")`` -> ("startswith", ("cuda",))."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return None
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)) or node.keywords:
        return None
    try:
        args = tuple(ast.literal_eval(a) for a in node.args)
    except ValueError:
        return None
    return node.func.attr, args


# ------------------------------------------------------------------ functions

def _isinstance(value: Any, kind: Any) -> bool:
    names = kind if isinstance(kind, tuple) else (kind,)
    types = {"dict": Mapping, "str": str, "int": int, "float": float, "bool": bool, "list": (list, tuple),
             "tuple": (list, tuple), "set": (set, frozenset, list, tuple)}
    if not all(isinstance(n, str) and n in types for n in names):
        raise TypeError("unknown type")
    return any(isinstance(value, types[n]) for n in names)


def _power(a: Any, b: Any) -> Any:
    if isinstance(b, (int, float)) and abs(b) > 256:
        raise OverflowError("exponent too large")
    return a**b


def _times(a: Any, b: Any) -> Any:
    if isinstance(a, (str, list, tuple)) or isinstance(b, (str, list, tuple)):
        raise TypeError("sequence repetition")
    return a * b


def _as_set(a: Any) -> Any:
    return set(a) if isinstance(a, (list, tuple, set, frozenset)) else a


_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "len": len, "int": int, "float": float, "str": str, "bool": bool, "abs": abs,
    "min": min, "max": max, "sorted": lambda a: tuple(sorted(a)), "any": any, "all": all,
    "set": frozenset, "frozenset": frozenset, "list": tuple, "tuple": tuple,
    "lower": lambda s: s.lower(), "upper": lambda s: s.upper(), "strip": lambda s, *c: s.strip(*c),
    "startswith": lambda s, p: s.startswith(tuple(p) if isinstance(p, list) else p),
    "endswith": lambda s, p: s.endswith(tuple(p) if isinstance(p, list) else p),
    "split": lambda s, *a: tuple(s.split(*a)), "item": lambda c, k: c[k],
    "get": lambda c, k, d=None: c.get(k, d), "isinstance": _isinstance,
    "+": lambda a, b: a + b, "-": lambda a, b: _as_set(a) - _as_set(b), "*": _times,
    "/": lambda a, b: a / b, "//": lambda a, b: a // b, "%": lambda a, b: a % b, "**": _power,
    "|": lambda a, b: _as_set(a) | _as_set(b), "&": lambda a, b: _as_set(a) & _as_set(b),
}

_CMP = COMPARE  # one comparison semantics for constant folding and evaluation


def _apply(fn: str, args: Sequence[Any]) -> Any:
    func = _FUNCTIONS.get(fn)
    if func is None or any(a is UNKNOWN for a in args):
        return UNKNOWN
    try:
        result = func(*args)
    except Exception:  # the real code would raise here: nothing we can decide
        return UNKNOWN
    if isinstance(result, float) and not math.isfinite(result):
        return UNKNOWN
    return result


# ------------------------------------------------------------------ evaluation


def value(expr: Expr, values: Values) -> Any:
    """The Python value a term has (UNKNOWN when it cannot be decided)."""
    if isinstance(expr, Const):
        return expr.value
    if isinstance(expr, Ref):
        if expr.kind is RefKind.FLAG:
            got = values.flag(expr.name)
            return _method_ref(expr, values) if got is UNKNOWN and _base_dest(expr.name) != expr.name else got
        if expr.kind is RefKind.ENV:
            return values.env(expr.name)
        return values.fact(expr)
    if isinstance(expr, Unknown):
        return UNKNOWN
    if isinstance(expr, Seq):
        items = tuple(value(i, values) for i in expr.items)
        return UNKNOWN if any(i is UNKNOWN for i in items) else items
    if isinstance(expr, Apply):
        return _apply(expr.fn, [value(a, values) for a in expr.args])
    if isinstance(expr, (And, Or)):
        return _value_and_or(expr, values)
    if isinstance(expr, Truthy) and not isinstance(expr.term, (Truthy, Compare, In, Not, And, Or)):
        return value(expr.term, values)  # operand of `a or b` in value position
    result = truth(expr, values)
    return UNKNOWN if result is None else result


def _method_ref(ref: Ref, values: Values) -> Any:
    """A derived ``X.method()`` leaf (e.g. ``cfg.device.startswith("cuda")``): the method
    applied to X's value, when the source text shows literal arguments."""
    call = _method_call(ref.text)
    if call is None or call[0] != ref.name.rpartition(".")[2][:-2]:
        return UNKNOWN
    return _apply(call[0], [values.flag(_base_dest(ref.name)), *call[1]])


def _value_and_or(expr: And | Or, values: Values) -> Any:
    """Python's ``a and b`` / ``a or b``: the deciding operand's value."""
    last: Any = UNKNOWN
    for arg in expr.args:
        last = value(arg, values)
        if last is UNKNOWN:
            return UNKNOWN
        try:
            decided = bool(last)
        except Exception:
            return UNKNOWN
        if decided != isinstance(expr, And):
            return last
    return last


def truth(expr: Expr, values: Values) -> bool | None:
    """Kleene truth of a condition: True, False or None (unknown)."""
    if isinstance(expr, Not):
        inner = truth(expr.arg, values)
        return None if inner is None else not inner
    if isinstance(expr, And):
        results = [truth(a, values) for a in expr.args]
        return False if False in results else None if None in results else True
    if isinstance(expr, Or):
        results = [truth(a, values) for a in expr.args]
        return True if True in results else None if None in results else False
    if isinstance(expr, Compare):
        left, right = value(expr.left, values), value(expr.right, values)
        if left is UNKNOWN or right is UNKNOWN or expr.op not in _CMP:
            return None
        try:
            return bool(_CMP[expr.op](left, right))
        except Exception:
            return None
    if isinstance(expr, In):
        return _contains(expr, values)
    term = expr.term if isinstance(expr, Truthy) else expr
    if isinstance(term, (Truthy, Compare, In, Not, And, Or)):
        return truth(term, values)
    got = value(term, values)
    if got is UNKNOWN:
        return None
    try:
        return bool(got)
    except Exception:
        return None


def _contains(expr: In, values: Values) -> bool | None:
    item = value(expr.item, values)
    if isinstance(expr.container, Seq):  # decided by the known items even if some are not
        found: list[bool | None] = []
        for elem in expr.container.items:
            got = value(elem, values)
            found.append(None if got is UNKNOWN or item is UNKNOWN else got == item)
        return True if True in found else None if None in found else False
    container = value(expr.container, values)
    if item is UNKNOWN or container is UNKNOWN:
        return None
    try:
        return item in container
    except Exception:
        return None


# ------------------------------------------------------------------ adjustments


def resolve(model: Model, launch: Launch, rules: Sequence[Rule] | None = None) -> Values:
    """Settings after automatic adjustments, applied until nothing changes.

    A rule whose condition is unknown makes its setting unknown unless both outcomes
    agree; a setting still changing after `MAX_ROUNDS` passes is unknown.
    """
    values = Values(model, launch)
    rules = model.rules if rules is None else rules
    for _ in range(MAX_ROUNDS):
        changed: set[str] = set()
        for rule in rules:
            if rule.dest in launch.flags:  # the command line wins: adjustments fill in the rest
                continue
            fires = truth(rule.when, values)
            if fires is False:
                continue
            current = values.flag(rule.dest)
            new = value(rule.value, values)
            if fires is None and not _same(new, current):
                new = UNKNOWN
            if not _same(new, current):
                values.adjusted[rule.dest] = new
                changed.add(rule.dest)
        if not changed:
            return values
    for dest in changed:
        values.adjusted[dest] = UNKNOWN
    return values


def _same(a: Any, b: Any) -> bool:
    if a is UNKNOWN or b is UNKNOWN:
        return a is b
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return False


def resolved(model: Model, launch: Launch, rules: tuple[Rule, ...]) -> Values:
    """`resolve`, memoised per rule tuple and launch (the search asks the same often)."""
    key = (id(rules), repr((tuple(launch.flags.items()), sorted(launch.env.items()), sorted(launch.facts.items()))))
    hit = model._resolved.get(key)
    if hit is not None and hit[0] is rules:
        return hit[1]
    values = resolve(model, launch, rules)
    model._resolved[key] = (rules, values)  # holding `rules` keeps its id from being reused
    return values


def evaluate(expr: Expr, launch: Launch, model: Model) -> Truth:
    """Does `expr` hold for `launch`? Only adjustments that can matter are applied."""
    return Truth.of(truth(expr, resolved(model, launch, model.relevant_rules(expr))))


def undecided_leaves(expr: Expr, launch: Launch, model: Model) -> list[str]:
    """Leaves of `expr` whose value is unknown for `launch` (why a result is unknown)."""
    values = resolved(model, launch, model.relevant_rules(expr))
    out: list[str] = []
    stack = [expr]
    while stack:
        node = stack.pop()
        kids = children(node)
        if kids:
            stack.extend(reversed(kids))
        elif isinstance(node, Unknown) or (isinstance(node, Ref) and value(node, values) is UNKNOWN):
            text = node.text if isinstance(node, Unknown) else node.name if node.kind in (RefKind.FLAG, RefKind.ENV) \
                else f"{node.kind}:{node.name}"
            if text not in out:
                out.append(text)
    return out
