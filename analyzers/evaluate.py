"""Three-valued evaluation of the condition IR on a launch (true / false / unknown).

Shared by example-fix prediction and the preflight command. A leaf is known when
the launch gives it, or when the flag/env model declares a literal default; automatic
adjustments (``if self.lora_paths: self.enable_lora = True``) are applied to a fixed
point first. Platform, model and runtime leaves are unknown unless the launch states
them as facts. Unknown propagates by Kleene logic: ``false and unknown`` is false.

`evaluate` is asked tens of thousands of times per catalog by the witness search, so it
is memoised on the `Model`: a condition other than and/or/not keeps its result per
what the launch gives for the settings it (and its adjustments) can read, and/or/not
are decided from their operands; conditions asked often are compiled to closures.
`truth`/`value` are the reference semantics (the tests check the memoised and compiled
forms against them).
"""
from __future__ import annotations

import ast
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from analyzers.examples import Examples
from analyzers.launch import Launch
from extractor.compat import StrEnum
from extractor.ir import (
    COMPARE,
    IF,
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
    children,
    from_dict,
    refs,
)

MAX_ROUNDS = 8  # adjustment passes before a still-changing setting is given up as unknown


class Truth(StrEnum):
    TRUE = "true"
    FALSE = "false"
    UNKNOWN = "unknown"

    @classmethod
    def of(cls, value: bool | None) -> Truth:
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
    origin: tuple[str, str, int] | None = None  # (path, function, order) of the assignment, when known

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rule:
        """From catalog.json's ``adjustments`` items."""
        return cls(data["dest"], from_dict(data["value"]), from_dict(data["when"]["expr"]))

    def after(self, path: str, function: str, order: int) -> bool:
        """Is this the function's own assignment at or below a statement that saw `order`
        adjustments of its file? Then it runs after that statement, not before."""
        return self.origin is not None and self.origin[:2] == (path, function) and self.origin[2] >= order


def rules_from_adjustments(adjustments: Iterable[Any]) -> tuple[Rule, ...]:
    """Rules from `extractor.records.Adjustment` records or catalog dicts (either works)."""
    from analyzers.adjustments import adjustment_guard

    out = []
    for adj in adjustments:
        if isinstance(adj, Mapping):
            out.append(Rule.from_dict(adj))
        else:
            out.append(Rule(adj.flag, adj.value, adjustment_guard(adj), (adj.path, adj.function, adj.order)))
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
    examples: Examples = field(default_factory=Examples)  # how examples write values (the witness search reads it)
    # memos (the witness search asks the same questions many times); ids are safe as keys
    # because each memo holds the object whose id it uses
    _writers: dict[str, tuple[int, ...]] = field(init=False, repr=False, compare=False)  # dest -> rule indices
    _reads: tuple[tuple[str, ...], ...] = field(init=False, repr=False, compare=False)  # per rule: flags read
    _closure: dict[str, frozenset[int]] = field(init=False, repr=False, compare=False)  # dest -> rules that matter
    _relevant: dict[Expr, tuple[Rule, ...]] = field(init=False, repr=False, compare=False)
    _rule_sets: dict[tuple[int, ...], tuple[Rule, ...]] = field(
        init=False, repr=False, compare=False)  # one tuple per set of relevant rules (ids stay meaningful)
    _resolved: dict[int, _Inputs] = field(
        init=False, repr=False, compare=False)  # id of a rule tuple -> its inputs and adjustments per launch
    _keys: dict[int, int] = field(init=False, repr=False, compare=False)  # id of a node -> its key
    _held: list[Expr] = field(init=False, repr=False, compare=False)  # every node in _keys (ids stay unique)
    _recent: dict[int, tuple[Expr, int]] = field(init=False, repr=False, compare=False)  # and/or/not nodes
    _shapes: dict[tuple[Any, ...], int] = field(init=False, repr=False, compare=False)  # node shape -> key
    _plans: dict[int, Any] = field(init=False, repr=False, compare=False)  # key of a condition -> its plan
    _nodes: dict[int, tuple[Expr, Any]] = field(
        init=False, repr=False, compare=False)  # id of a node -> (it, its decider)
    _code: dict[int, tuple[Any, Any]] = field(
        init=False, repr=False, compare=False)  # id of a rule (or rule tuple) -> (it, its compiled code)
    _pool: dict[Any, Any] = field(init=False, repr=False, compare=False)  # one `_Reads` per content
    _compiled: dict[tuple[int, bool], Any] = field(
        init=False, repr=False, compare=False)  # (key of a node, truth?) -> its code
    _defaults: dict[tuple[str, str], Any] = field(init=False, repr=False, compare=False)
    memo: dict[Any, Any] = field(init=False, repr=False, compare=False)  # for searches over this model

    def __post_init__(self) -> None:
        writers: dict[str, list[int]] = {}
        for i, rule in enumerate(self.rules):
            writers.setdefault(rule.dest, []).append(i)
        reads = tuple(
            tuple(_base_dest(r.name) for e in (rule.when, rule.value) for r in refs(e) if r.kind is RefKind.FLAG)
            for rule in self.rules
        )
        object.__setattr__(self, "_writers", {k: tuple(v) for k, v in writers.items()})
        object.__setattr__(self, "_reads", reads)
        for name in ("_closure", "_relevant", "_rule_sets", "_resolved", "_keys", "_recent", "_shapes", "_plans",
                     "_nodes", "_code", "_pool", "_compiled", "_defaults", "memo"):
            object.__setattr__(self, name, {})
        object.__setattr__(self, "_held", [])

    def forget_nodes(self) -> None:
        """Drop what is remembered per condition object (results stay: they are kept per
        condition shape). Call between unrelated questions, e.g. per catalog entry, so
        the conditions already asked about can be freed."""
        self._keys.clear()
        self._held.clear()
        self._nodes.clear()
        self._recent.clear()

    def adjusts(self, dest: str) -> bool:
        """Does some automatic adjustment write `dest`?"""
        return dest in self._writers

    def flag_default(self, dest: str) -> Any:
        key = ("flag", dest)
        try:
            return self._defaults[key]
        except KeyError:
            pass
        flag = self.flags.by_dest(dest) if self.flags is not None else None
        if flag is None or flag.derived:  # a derived field is whatever code sets it to
            found = UNKNOWN
        elif flag.action and flag.action.endswith("store_true") and flag.default is None and flag.type == "bool":
            found = False
        else:
            found = _literal_default(flag.default)
        self._defaults[key] = found
        return found

    def env_default(self, name: str) -> Any:
        key = ("env", name)
        try:
            return self._defaults[key]
        except KeyError:
            pass
        var = self.flags.env_var(name) if self.flags is not None else None
        found = self._defaults[key] = UNKNOWN if var is None else _literal_default(var.default)
        return found

    def env_type(self, name: str) -> str | None:
        key = ("type", name)
        try:
            return self._defaults[key]
        except KeyError:
            pass
        var = self.flags.env_var(name) if self.flags is not None else None
        found = self._defaults[key] = var.type if var is not None else None
        return found

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
        return self._collect_refs(refs(expr))

    def _collect_refs(self, found: Iterable[Ref]) -> tuple[Rule, ...]:
        chosen: set[int] = set()
        for ref in found:
            if ref.kind is RefKind.FLAG:
                chosen |= self._rules_for(_base_dest(ref.name))
        key = tuple(sorted(chosen))
        rules = self._rule_sets.get(key)
        if rules is None:  # one tuple per set: memos keyed by its id are shared by every condition
            rules = self._rule_sets[key] = tuple(self.rules[i] for i in key)
        return rules

    def _rules_for(self, dest: str) -> frozenset[int]:
        """Indices of the rules that can change `dest`, transitively."""
        found = self._closure.get(dest)
        if found is not None:
            return found
        wanted: set[str] = set()
        todo = [dest]
        while todo:
            name = todo.pop()
            if name in wanted:
                continue
            wanted.add(name)
            for i in self._writers.get(name, ()):
                todo += self._reads[i]
        found = self._closure[dest] = frozenset(i for name in wanted for i in self._writers.get(name, ()))
        return found


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
        if expr.fn == IF and len(expr.args) == 3:
            return _choose(truth(expr.args[0], values), lambda i: value(expr.args[i], values))
        return _apply(expr.fn, [value(a, values) for a in expr.args])
    if isinstance(expr, (And, Or)):
        return _value_and_or(expr, values)
    if isinstance(expr, Truthy) and not isinstance(expr.term, (Truthy, Compare, In, Not, And, Or)):
        return value(expr.term, values)  # operand of `a or b` in value position
    result = truth(expr, values)
    return UNKNOWN if result is None else result


def _choose(test: bool | None, branch: Callable[[int], Any]) -> Any:
    """``then if test else other`` (branches 1 and 2); an unknown test decides nothing
    unless both branches agree."""
    if test is not None:
        return branch(1 if test else 2)
    then, other = branch(1), branch(2)
    return then if then is not UNKNOWN and _same(then, other) else UNKNOWN


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


# ------------------------------------------------------------------ compiled evaluation
# `value`/`truth` walk the IR on every call; the search asks the same conditions tens of
# thousands of times, so each condition is translated once into closures with exactly
# the same semantics (`tests/test_evaluate.py` checks both agree).

_CONDITIONS = (Truthy, Compare, In, Not, And, Or)

Code = Callable[[Values], Any]


def compile_value(expr: Expr, model: Model | None = None) -> Code:
    """`value` of `expr` as a function of the settings (with `model`, equal sub-trees
    share their code: see `expr_key`)."""
    return _compiled(expr, model, False)


def compile_truth(expr: Expr, model: Model | None = None) -> Code:
    """`truth` of `expr` as a function of the settings (with `model`, equal sub-trees
    share their code: see `expr_key`)."""
    return _compiled(expr, model, True)


def _compiled(expr: Expr, model: Model | None, condition: bool) -> Code:
    build = _truth_code if condition else _value_code
    if model is None:
        return build(expr, model)
    key = (expr_key(model, expr), condition)
    code = model._compiled.get(key)
    if code is None:
        code = model._compiled[key] = build(expr, model)
    return code


def _value_code(expr: Expr, model: Model | None) -> Code:
    if isinstance(expr, Const):
        const = expr.value
        return lambda values: const
    if isinstance(expr, Ref):
        name = expr.name
        if expr.kind is RefKind.FLAG:
            if _base_dest(name) == name:
                return lambda values: values.flag(name)
            ref = expr

            def method_flag(values: Values) -> Any:
                got = values.flag(name)
                return _method_ref(ref, values) if got is UNKNOWN else got
            return method_flag
        if expr.kind is RefKind.ENV:
            return lambda values: values.env(name)
        key = f"{expr.kind}:{name}"
        return lambda values: values.launch.facts.get(key, UNKNOWN)
    if isinstance(expr, Unknown):
        return lambda values: UNKNOWN
    if isinstance(expr, Seq):
        items = tuple(compile_value(i, model) for i in expr.items)

        def seq(values: Values) -> Any:
            out = []
            for item in items:
                got = item(values)
                if got is UNKNOWN:
                    return UNKNOWN
                out.append(got)
            return tuple(out)
        return seq
    if isinstance(expr, Apply):
        fn = expr.fn
        args = tuple(compile_value(a, model) for a in expr.args)
        if fn == IF and len(args) == 3:
            test = compile_truth(expr.args[0], model)
            return lambda values: _choose(test(values), lambda i: args[i](values))
        if fn not in _FUNCTIONS:
            return lambda values: UNKNOWN
        return lambda values: _apply(fn, [a(values) for a in args])
    if isinstance(expr, (And, Or)):
        parts = tuple(compile_value(a, model) for a in expr.args)
        stop_on = not isinstance(expr, And)  # `and` stops at a falsy operand, `or` at a truthy one

        def and_or(values: Values) -> Any:
            last: Any = UNKNOWN
            for part in parts:
                last = part(values)
                if last is UNKNOWN:
                    return UNKNOWN
                try:
                    decided = bool(last)
                except Exception:
                    return UNKNOWN
                if decided == stop_on:
                    return last
            return last
        return and_or
    if isinstance(expr, Truthy) and not isinstance(expr.term, _CONDITIONS):
        return compile_value(expr.term, model)
    check = compile_truth(expr, model)

    def condition(values: Values) -> Any:
        result = check(values)
        return UNKNOWN if result is None else result
    return condition


def _truth_code(expr: Expr, model: Model | None) -> Code:
    if isinstance(expr, Not):
        inner = compile_truth(expr.arg, model)

        def negation(values: Values) -> bool | None:
            result = inner(values)
            return None if result is None else not result
        return negation
    if isinstance(expr, And):
        parts = tuple(compile_truth(a, model) for a in expr.args)

        def conjunction(values: Values) -> bool | None:
            undecided = False
            for part in parts:  # evaluation has no side effects: a false operand decides
                result = part(values)
                if result is False:
                    return False
                if result is None:
                    undecided = True
            return None if undecided else True
        return conjunction
    if isinstance(expr, Or):
        parts = tuple(compile_truth(a, model) for a in expr.args)

        def disjunction(values: Values) -> bool | None:
            undecided = False
            for part in parts:
                result = part(values)
                if result is True:
                    return True
                if result is None:
                    undecided = True
            return None if undecided else False
        return disjunction
    if isinstance(expr, Compare):
        left, right = compile_value(expr.left, model), compile_value(expr.right, model)
        op = _CMP.get(expr.op)
        if op is None:
            return lambda values: None

        def comparison(values: Values) -> bool | None:
            a = left(values)
            if a is UNKNOWN:
                return None
            b = right(values)
            if b is UNKNOWN:
                return None
            try:
                return bool(op(a, b))
            except Exception:
                return None
        return comparison
    if isinstance(expr, In):
        return _compile_contains(expr, model)
    term = expr.term if isinstance(expr, Truthy) else expr
    if isinstance(term, _CONDITIONS):
        return compile_truth(term, model)
    get = compile_value(term, model)

    def truthy(values: Values) -> bool | None:
        got = get(values)
        if got is UNKNOWN:
            return None
        try:
            return bool(got)
        except Exception:
            return None
    return truthy


def _compile_contains(expr: In, model: Model | None) -> Code:
    item = compile_value(expr.item, model)
    if isinstance(expr.container, Seq):  # decided by the known items even if some are not
        elems = tuple(compile_value(e, model) for e in expr.container.items)

        def among(values: Values) -> bool | None:
            wanted = item(values)
            found: list[Any] = []
            for elem in elems:
                got = elem(values)
                found.append(None if got is UNKNOWN or wanted is UNKNOWN else got == wanted)
            return True if True in found else None if None in found else False
        return among
    container = compile_value(expr.container, model)

    def contains(values: Values) -> bool | None:
        wanted = item(values)
        if wanted is UNKNOWN:
            return None
        within = container(values)
        if within is UNKNOWN:
            return None
        try:
            return wanted in within
        except Exception:
            return None
    return contains


# ------------------------------------------------------------------ memoised evaluation
# A condition's truth depends only on what the launch gives for the settings it and its
# relevant adjustments read, so results are kept per (condition, those settings).
# And/Or/Not are decided from their operands' results: an operand's relevant rules are
# closed (they read only settings whose writers are among them), so applying the other
# operands' rules as well changes none of the values it reads.


@dataclass(frozen=True, slots=True)
class _Reads:
    """Launch keys an evaluation can read: flag dests, env names, fact keys."""

    flags: frozenset[str]
    env: frozenset[str]
    facts: frozenset[str]

    @classmethod
    def of(cls, found: Iterable[Ref], dests: Iterable[str] = ()) -> _Reads:
        flags: set[str] = set(dests)
        env: set[str] = set()
        facts: set[str] = set()
        for ref in found:
            if ref.kind is RefKind.FLAG:
                flags.add(ref.name)
                flags.add(_base_dest(ref.name))
            elif ref.kind is RefKind.ENV:
                env.add(ref.name)
            else:
                facts.add(f"{ref.kind}:{ref.name}")
        return cls(_frozen(flags), _frozen(env), _frozen(facts))

    def __or__(self, other: _Reads) -> _Reads:
        return _Reads(_frozen(self.flags | other.flags), _frozen(self.env | other.env),
                      _frozen(self.facts | other.facts))

    def key(self, launch: Launch) -> str:
        """What `launch` gives for these keys (see `_items`)."""
        items = launch.memo
        if items is None:
            items = _items(launch)
        wanted = self.flags
        names, atoms = items[0]
        key = "" if wanted.isdisjoint(names) else "".join([a for name, a in zip(names, atoms) if name in wanted])
        if items[1] is None:
            return key
        env, facts = self.env, self.facts
        return "".join([key, *(atom for name, atom in zip(*items[1]) if name in env),
                        *(atom for name, atom in zip(*items[2]) if name in facts)])


def _items(launch: Launch) -> tuple[Any, ...]:
    """A launch's settings as (names, atoms) in name order, kept on the launch; a memo key
    joins the atoms of the names it reads. An atom is the name and the value's repr
    (``1``, ``1.0`` and ``True`` are equal in Python but not to the evaluator; repr
    tells them apart, and works for unhashable values), so keys are plain strings."""
    def atoms(mark: str, given: Mapping[str, Any]) -> tuple[tuple[str, ...], tuple[str, ...]]:
        names = tuple(sorted(given))
        return names, tuple([f"{mark}{len(n)}:{n}={given[n]!r}\x1f" for n in names])

    if launch.env or launch.facts:
        items: tuple[Any, ...] = (atoms("", launch.flags), atoms("$", launch.env), atoms("!", launch.facts))
    else:
        items = (atoms("", launch.flags), None, None)
    object.__setattr__(launch, "memo", items)
    return items


_NOTHING: frozenset[str] = frozenset()


def _frozen(names: Iterable[str]) -> frozenset[str]:
    """`names` frozen; one shared object when empty (most conditions read no env or fact)."""
    return frozenset(names) if names else _NOTHING


@dataclass(slots=True)
class _Inputs:
    """A rule tuple (held so its id stays unique), what it reads and its adjustments per launch."""

    rules: tuple[Rule, ...]
    reads: _Reads
    adjusted: dict[str, dict[str, Any]]


class _Plan:
    """A condition other than and/or/not, with its rules and results per launch; compiled
    once it is evaluated a few times (most are evaluated once or twice: walking the
    tree is cheaper then, and makes fewer objects)."""

    __slots__ = ("check", "expr", "model", "reads", "results", "rules")

    def __init__(self, model: Model, expr: Expr, rules: tuple[Rule, ...], reads: _Reads) -> None:
        self.model, self.expr, self.rules, self.reads = model, expr, rules, reads
        self.check: Code | None = None
        self.results: dict[str, bool | None] = {}

    def decide(self, launch: Launch) -> bool | None:
        key = self.reads.key(launch)
        try:
            return self.results[key]
        except KeyError:
            pass
        values = resolved(self.model, launch, self.rules)
        if self.check is not None:
            result = self.check(values)
        elif len(self.results) < COMPILE_AFTER:
            result = truth(self.expr, values)
        else:
            self.check = compile_truth(self.expr, self.model)
            result = self.check(values)
        self.results[key] = result
        return result

    def all_reads(self) -> _Reads:
        return self.reads

    def outcomes(self, launch: Launch) -> tuple[bool, bool]:
        """(can be true, can be false) on launches that differ from `launch` only in
        flags and env vars: anything, unless this reads neither (then as on `launch`)."""
        if self.reads.flags or self.reads.env:
            return True, True
        result = self.decide(launch)
        return result is True, result is False


class _Junction:
    """``and`` (`stop` False) or ``or`` (`stop` True) decided from its operands' results."""

    __slots__ = ("_pool", "_reads", "parts", "results", "stop")

    def __init__(self, parts: tuple[Any, ...], stop: bool, pool: dict[Any, Any]) -> None:
        self.parts, self.stop, self._reads, self._pool = parts, stop, None, pool
        self.results: dict[str, bool | None] | None = None

    def decide_whole(self, launch: Launch) -> bool | None:
        """`decide`, remembered per what the launch gives for everything the operands read
        (for a whole condition asked again and again, not for each operand)."""
        if self.results is None:
            self.results = {}
        key = self.all_reads().key(launch)
        try:
            return self.results[key]
        except KeyError:
            result = self.results[key] = self.decide(launch)
            return result

    def decide(self, launch: Launch) -> bool | None:
        stop = self.stop
        undecided = False
        for part in self.parts:  # evaluation has no side effects: stopping early changes nothing
            result = part.decide(launch)
            if result is stop:
                return stop
            if result is None:
                undecided = True
        return None if undecided else not stop

    def outcomes(self, launch: Launch) -> tuple[bool, bool]:
        found = [part.outcomes(launch) for part in self.parts]
        can_true = any(t for t, _ in found) if self.stop else all(t for t, _ in found)
        can_false = all(f for _, f in found) if self.stop else any(f for _, f in found)
        return can_true, can_false

    def all_reads(self) -> _Reads:
        if self._reads is None:
            reads = {p.all_reads() for p in self.parts}
            union = reads.pop() if len(reads) == 1 else _Reads(
                _frozen(frozenset().union(*(r.flags for r in reads))),
                _frozen(frozenset().union(*(r.env for r in reads))),
                _frozen(frozenset().union(*(r.facts for r in reads))))
            self._reads = self._pool.setdefault(union, union)
        return self._reads


class _Negation:
    """``not`` decided from its operand's result."""

    __slots__ = ("part",)

    def __init__(self, part: Any) -> None:
        self.part = part

    def decide(self, launch: Launch) -> bool | None:
        result = self.part.decide(launch)
        return None if result is None else not result

    def all_reads(self) -> _Reads:
        return self.part.all_reads()

    def outcomes(self, launch: Launch) -> tuple[bool, bool]:
        can_true, can_false = self.part.outcomes(launch)
        return can_false, can_true


COMPILE_AFTER = 6  # evaluations of a condition before it is compiled
RECENT = 1024  # and/or/not nodes whose key is remembered (then forgotten, not to keep them alive)


def expr_key(model: Model, expr: Expr) -> int:
    """A number equal for two conditions exactly when they are the same tree with the same
    constants, types included (`Const(1) == Const(True)` as dataclasses; not here).

    Memoised per node object below and/or/not (the literals a search keeps reusing); the
    and/or/not above them are rebuilt freely by the search, so they are not kept alive.
    """
    kind = type(expr)
    if kind is And or kind is Or or kind is Not:
        recent = model._recent
        hit = recent.get(id(expr))
        if hit is not None and hit[0] is expr:
            return hit[1]
        key = model._shapes.setdefault((_TAGS[kind], *(expr_key(model, c) for c in children(expr))),
                                       len(model._shapes))
        if len(recent) >= RECENT:
            recent.clear()
        recent[id(expr)] = (expr, key)  # holding the node keeps its id from being reused
        return key
    key = model._keys.get(id(expr))
    if key is not None:
        return key
    if kind is Const:
        shape: tuple[Any, ...] = ("c", repr(expr.value))
    elif kind is Ref:
        shape = ("r", str(expr.kind), expr.name, expr.text)
    elif kind is Unknown:
        shape = ("u", expr.text)
    elif kind is Apply:
        shape = ("a", expr.fn, expr.text, *(expr_key(model, a) for a in expr.args))
    elif kind is Compare:
        shape = ("p", expr.op, expr_key(model, expr.left), expr_key(model, expr.right))
    else:
        shape = (_TAGS[kind], *(expr_key(model, c) for c in children(expr)))
    key = model._keys[id(expr)] = model._shapes.setdefault(shape, len(model._shapes))
    model._held.append(expr)  # its id stays its own while it is in `_keys`
    return key


_TAGS = {Seq: "s", Truthy: "t", In: "i", Not: "n", And: "&", Or: "|"}


def node(model: Model, expr: Expr) -> Any:
    """`expr` ready to decide launches: ``node(m, e).decide(launch)`` is
    `truth(e, resolve(m, launch, m.relevant_rules(e)))`, memoised (see above)."""
    hit = model._nodes.get(id(expr))
    if hit is not None and hit[0] is expr:
        return hit[1]
    kind = type(expr)
    if kind is And or kind is Or:
        found: Any = _Junction(tuple(node(model, a) for a in expr.args), kind is Or, model._pool)
    elif kind is Not:
        found = _Negation(node(model, expr.arg))
    elif kind is Truthy and isinstance(expr.term, _CONDITIONS):
        found = node(model, expr.term)
    else:  # one plan per condition shape, for as long as the model lives
        key = expr_key(model, expr)
        found = model._plans.get(key)
        if found is None:
            leaves = refs(expr)
            rules = model._collect_refs(leaves)
            reads = _Reads.of(leaves) | _rule_inputs(model, rules).reads
            found = model._plans[key] = _Plan(model, expr, rules, model._pool.setdefault(reads, reads))
    model._nodes[id(expr)] = (expr, found)  # holding `expr` keeps its id from being reused
    return found


def conjuncts(model: Model, expr: Expr) -> tuple[Any, ...]:
    """The operands of `expr` as an ``and`` (itself if it is none), as `node`s: each has
    ``decide(launch)`` and ``all_reads()`` (the launch keys its result depends on)."""
    while type(expr) is Truthy and isinstance(expr.term, _CONDITIONS):
        expr = expr.term
    if type(expr) is And:  # not kept as a node: searches build many conjunctions once
        return tuple(node(model, a) for a in expr.args)
    return (node(model, expr),)


def _rule_inputs(model: Model, rules: tuple[Rule, ...]) -> _Inputs:
    inputs = model._resolved.get(id(rules))
    if inputs is None or inputs.rules is not rules:
        reads = _Reads.of((x for r in rules for e in (r.when, r.value) for x in refs(e)), (r.dest for r in rules))
        inputs = model._resolved[id(rules)] = _Inputs(rules, reads, {})
    return inputs


def can_hold(model: Model, expr: Expr, launch: Launch) -> bool:
    """False when no launch that differs from `launch` only in flags and env vars makes
    `expr` true: a part of it reads neither, and that part is not true on `launch`."""
    return node(model, expr).outcomes(launch)[0]


def _rules_code(model: Model, rules: Sequence[Rule]) -> list[tuple[str, Code, Code]]:
    """(dest, compiled condition, compiled value) per rule, in order (kept per rule tuple)."""
    hit = model._code.get(id(rules))
    if hit is not None and hit[0] is rules:
        return hit[1]
    code = []
    for rule in rules:
        one = model._code.get(id(rule))
        if one is None or one[0] is not rule:
            one = model._code[id(rule)] = (
                rule, [(rule.dest, compile_truth(rule.when, model), compile_value(rule.value, model))])
        code += one[1]
    if isinstance(rules, tuple):  # a list could change
        model._code[id(rules)] = (rules, code)  # holding `rules` keeps its id from being reused
    return code


# ------------------------------------------------------------------ adjustments


def resolve(model: Model, launch: Launch, rules: Sequence[Rule] | None = None) -> Values:
    """Settings after automatic adjustments, applied until nothing changes.

    A rule whose condition is unknown makes its setting unknown unless both outcomes
    agree; a setting still changing after `MAX_ROUNDS` passes is unknown.
    """
    values = Values(model, launch)
    rules = model.rules if rules is None else rules
    given = launch.flags
    code = [c for c in _rules_code(model, rules) if c[0] not in given]  # the command line wins
    for _ in range(MAX_ROUNDS):
        changed: set[str] = set()
        for dest, when, get in code:
            fires = when(values)
            if fires is False:
                continue
            current = values.flag(dest)
            new = get(values)
            if fires is None and not _same(new, current):
                new = UNKNOWN
            if not _same(new, current):
                values.adjusted[dest] = new
                changed.add(dest)
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
    """`resolve`, memoised per rule tuple and what the launch gives for the settings
    those rules read (the search asks the same often)."""
    if not rules:
        return Values(model, launch)
    inputs = _rule_inputs(model, rules)
    key = inputs.reads.key(launch)
    adjusted = inputs.adjusted.get(key)
    if adjusted is None:
        adjusted = inputs.adjusted[key] = resolve(model, launch, rules).adjusted
    return Values(model, launch, adjusted)  # shared, never written after `resolve`


def evaluate(expr: Expr, launch: Launch, model: Model) -> Truth:
    """Does `expr` hold for `launch`? Only adjustments that can matter are applied."""
    found = node(model, expr)
    result = found.decide_whole(launch) if isinstance(found, _Junction) else found.decide(launch)
    return Truth.UNKNOWN if result is None else Truth.TRUE if result else Truth.FALSE


def undecided(expr: Expr, launch: Launch, model: Model) -> list[Expr]:
    """The smallest terms of `expr` whose value is unknown for `launch` (why a result is
    unknown): leaves, and calls of functions we cannot evaluate on known arguments."""
    values = resolved(model, launch, model.relevant_rules(expr))
    out: list[Expr] = []

    def visit(node: Expr) -> None:
        kids = children(node)
        before = len(out)
        for kid in kids:
            visit(kid)
        if len(out) > before or node in out:
            return
        if not kids:
            if isinstance(node, Unknown) or (isinstance(node, Ref) and value(node, values) is UNKNOWN):
                out.append(node)
        elif isinstance(node, Apply) and value(node, values) is UNKNOWN:
            out.append(node)

    visit(expr)
    return out


def undecided_leaves(expr: Expr, launch: Launch, model: Model) -> list[str]:
    """`undecided`, as text: setting names, ``kind:name`` facts, source text otherwise."""
    out: list[str] = []
    for node in undecided(expr, launch, model):
        if isinstance(node, Ref):
            text = node.name if node.kind in (RefKind.FLAG, RefKind.ENV) else f"{node.kind}:{node.name}"
        else:
            text = node.text  # type: ignore[union-attr]
        if text not in out:
            out.append(text)
    return out
