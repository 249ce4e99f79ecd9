"""Three-valued evaluation of the condition IR on a launch (true / false / unknown).

Shared by example-fix prediction and the preflight command. A leaf is known when
the launch gives it, or when the flag/env model declares a literal default; automatic
adjustments (``if self.lora_paths: self.enable_lora = True``) are applied to a fixed
point first. Platform, model and runtime leaves are unknown unless the launch states
them as facts. Unknown propagates by Kleene logic: ``false and unknown`` is false.

The semantics are defined once, by `_ValueCode` and `_TruthCode`: one handler per IR
kind, each turning a node into a function of the resolved settings (`Values`).
`evaluate` is asked tens of thousands of times per catalog by the witness search, so
its answers are memoised in the model's `EvalCache`: a condition other than
and/or/not (a `_Plan`) keeps its result per what the launch gives for the settings it
(and its adjustments) can read, and/or/not are decided from their operands with the
same Kleene combinator the compiled code uses. `tests/test_evaluate.py` keeps a plain
tree walk of the same semantics and checks this fast path against it.
"""
from __future__ import annotations

import ast
import itertools
import json
import math
from bisect import bisect_left
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache, partial
from heapq import heappop, heappush
from typing import Any, Generic, NamedTuple, Protocol, TypeVar

from analyzers.adjustments import adjustment_guard
from analyzers.examples import Examples
from analyzers.flag_decls import DeclKind
from analyzers.launch import Launch, is_placeholder, placeholder_contains
from extractor import parse
from extractor.compat import StrEnum
from extractor.ir import (
    ATTRIBUTE,
    COMPARE,
    ENV_SETTING,
    IF,
    ON_COMMAND_LINE,
    OR_FALLBACK,
    PARSE_RECORD,
    RAISES,
    SOME_ITEM,
    STATED_OR,
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
    Visitor,
    as_condition,
    children,
    conjuncts,
    from_dict,
    frozen_json,
    is_condition,
    is_truthiness,
    positional,
    refs,
    walk,
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


class _Raising:
    """The truth of a condition whose evaluation raises in Python (``None > 1``: TypeError).
    Compiled truth code returns it so ``a and b`` stops there as Python does (a later false
    operand does not make it false); `Decider.decide`, `truth` and the rules read it as
    unknown (the check raises an error of no entry)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "RAISING"


RAISING: Any = _Raising()


def as_truth(result: Any) -> bool | None:
    """A compiled truth code's result as Kleene truth (`RAISING` is unknown)."""
    return None if result is RAISING else result


def _raises_in_python(op: str, a: Any, b: Any) -> bool:
    """Does Python surely raise comparing `a` and `b`? Ordering with None does (what a
    setting left unset holds); other failures may be the evaluator's own values."""
    return op in ("<", "<=", ">", ">=") and (a is None or b is None)


@dataclass(frozen=True, slots=True)
class Rule:
    """An automatic adjustment: ``dest = value`` whenever ``when`` holds."""

    dest: str
    value: Expr
    when: Expr
    origin: tuple[str, str, int] | None = None  # (path, function, order) of the assignment, when known
    at: int | None = None  # when a launch runs it (`extractor.program_order`), when known

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rule:
        """From catalog.json's ``adjustments`` items."""
        at = data.get("order")
        return cls(data["dest"], from_dict(data["value"]), from_dict(data["when"]["expr"]),
                   at=int(at) if at is not None else None)

    def after(self, path: str, function: str, order: int) -> bool:
        """Is this the function's own assignment at or below a statement that saw `order`
        adjustments of its file? Then it runs after that statement, not before."""
        return self.origin is not None and self.origin[:2] == (path, function) and self.origin[2] >= order


def rules_from_adjustments(adjustments: Iterable[Any]) -> tuple[Rule, ...]:
    """Rules from `extractor.records.Adjustment` records or catalog dicts (either works)."""
    out = []
    for adj in adjustments:
        if isinstance(adj, Mapping):
            out.append(Rule.from_dict(adj))
        else:
            out.append(Rule(adj.flag, adj.value, adjustment_guard(adj), (adj.path, adj.function, adj.order)))
    return tuple(out)


def derived_fact(name: str) -> str:
    """The fact stating a derived setting ``f()`` (``f(server_args)``): what a platform says
    the helper returns (`analyzers.platform_facts.runtime_facts`)."""
    return f"{RefKind.RUNTIME}:{name}"


def _item_path(value: Any, path: str) -> Any:
    """`value`'s item at the dotted `path` (``decode.backend``); unknown where it has none."""
    for key in path.split("."):
        if not isinstance(value, Mapping) or key not in value:
            return UNKNOWN
        value = value[key]
    return value


def record_of(name: str) -> str:
    """The setting a field ``x.a.b`` is part of (``x``); a setting is its own."""
    return base_dest(name).partition(".")[0]


def given_field(launch: Launch, name: str) -> Any:
    """What the command line gives for the field ``x.a.b`` (its JSON for ``x`` has the path)."""
    base, _, path = name.partition(".")
    if not path or base not in launch.flags:
        return UNKNOWN
    return _item_path(launch.flags[base], path)


def base_dest(name: str) -> str:
    """``device.startswith()`` reads ``device``."""
    head, _, method = name.rpartition(".")
    return head if head and method.endswith("()") else name


# ------------------------------------------------------------------ defaults


def _literal_default(default: Any) -> Any:
    """A declared default as a value; ``{"expr": src}`` (computed at run time) is unknown."""
    if isinstance(default, Mapping) and set(default) == {"expr"}:
        return UNKNOWN
    return default  # a dict default stays the immutable `FrozenMap` the flag model holds


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


# ------------------------------------------------------------------ the model


@dataclass(frozen=True, slots=True)
class Model:
    """What the evaluator knows besides the launch: declared flags/env and adjustments.

    `flags` is an `analyzers.flags.FlagModel` or None (then every leaf the launch does
    not give is unknown). `cache` is where evaluation and the searches over this model
    remember what they found (see `EvalCache`); it is not part of the model's value.
    """

    flags: Any = None
    rules: tuple[Rule, ...] = ()
    examples: Examples = field(default_factory=Examples)  # how examples write values (the witness search reads it)
    cache: EvalCache = field(default_factory=lambda: EvalCache(), init=False, repr=False, compare=False)

    def forget_nodes(self) -> None:
        """`EvalCache.forget_nodes`: call between unrelated questions, e.g. per catalog entry."""
        self.cache.forget_nodes()

    def before(self, at: int) -> Model:
        """The model a check run at time `at` sees: the adjustments run before it (those of
        unknown time too: they may have run). One model per distinct set, remembered."""
        cache = self.cache
        if (found := cache.at.get(at)) is not None:
            return found
        if cache.timed is None:
            cache.timed = sorted(r.at for r in self.rules if r.at is not None)
        seen = bisect_left(cache.timed, at)  # how many timed rules run before `at`
        views = cache.views
        if seen not in views:
            views[seen] = self.subset([i for i, r in enumerate(self.rules) if r.at is None or r.at < at])
        cache.at[at] = views[seen]
        return views[seen]

    def subset(self, kept: Sequence[int]) -> Model:
        """The model of the rules at indices `kept` (in that order), sharing what is known per
        rule (its reads, its compiled code): each rule's reads are found once."""
        cache = self.cache
        view = Model(self.flags, tuple(self.rules[i] for i in kept), self.examples)
        view.cache.graph = self._graph().subset(self.rules, kept)
        view.cache.rule_refs, view.cache.rule_steps, view.cache.rule_keys = (cache.rule_refs, cache.rule_steps,
                                                                              cache.rule_keys)
        return view

    def unadjusted(self) -> Model:
        """The model before any adjustment runs (what the command line's parsing sees)."""
        if self.cache.bare is None:
            self.cache.bare = Model(self.flags, (), self.examples)
        return self.cache.bare

    def adjusts(self, dest: str) -> bool:
        """Does some automatic adjustment write `dest`?"""
        return dest in self._graph().writers

    def flag_default(self, dest: str) -> Any:
        known = self.cache.flag_defaults
        if dest not in known:
            flag = self.flags.by_dest(dest) if self.flags is not None else None
            if flag is None or (flag.derived and flag.kind == DeclKind.COMPUTED):
                known[dest] = UNKNOWN  # a computed field is whatever its code makes it
            elif flag.action and flag.action.endswith("store_true") and flag.default is None and flag.type == "bool":
                known[dest] = False
            else:
                known[dest] = _literal_default(flag.default)
        return known[dest]

    def env_default(self, name: str) -> Any:
        known = self.cache.env_defaults
        if name not in known:
            var = self.flags.env_var(name) if self.flags is not None else None
            known[name] = UNKNOWN if var is None else _literal_default(var.default)
        return known[name]

    def env_type(self, name: str) -> str | None:
        known = self.cache.env_types
        if name not in known:
            var = self.flags.env_var(name) if self.flags is not None else None
            known[name] = var.type if var is not None else None
        return known[name]

    def relevant_rules(self, expr: Expr) -> tuple[Rule, ...]:
        """Adjustments that can change a flag `expr` reads, transitively, in model order."""
        return self.rule_set(expr).rules

    def rule_set(self, expr: Expr) -> RuleSet:
        """`relevant_rules` with what they read and their results per launch."""
        known = self.cache.relevant
        try:
            return known[expr]
        except KeyError:
            pass
        except TypeError:  # a constant holding a list: not hashable, not memoised
            return self._rule_set_of(refs(expr))
        found = known[expr] = self._rule_set_of(refs(expr))
        return found

    def _rule_set_of(self, found: Iterable[Ref]) -> RuleSet:
        chosen: set[int] = set()
        for ref in found:
            if ref.kind is RefKind.FLAG:
                chosen |= self._rules_for(base_dest(ref.name)) | self._rules_for(record_of(ref.name))
            elif ref.kind is RefKind.ENV and self.adjusts(ENV_SETTING + ref.name):
                chosen |= self._rules_for(ENV_SETTING + ref.name)
        key = tuple(sorted(chosen))
        known = self.cache.rule_sets
        rules = known.get(key)
        if rules is None:  # one per set: what it remembers is shared by every condition it serves
            rules = known[key] = RuleSet.of(key, tuple(self.rules[i] for i in key), self.cache)
        return rules

    def _rules_for(self, dest: str) -> frozenset[int]:
        """Indices of the rules that can change `dest`, transitively."""
        found = self.cache.closure.get(dest)
        if found is not None:
            return found
        graph = self._graph()
        wanted: set[str] = set()
        todo = [dest]
        while todo:
            name = todo.pop()
            if name in wanted:
                continue
            wanted.add(name)
            for i in graph.writers.get(name, ()):
                todo += graph.reads[i]
        found = self.cache.closure[dest] = frozenset(i for name in wanted for i in graph.writers.get(name, ()))
        return found

    def _graph(self) -> RuleGraph:
        graph = self.cache.graph
        if graph is None:
            graph = self.cache.graph = RuleGraph.of(self.rules)
        return graph


_SETTINGS = (RefKind.FLAG, RefKind.ENV)  # what adjustments write


@dataclass(frozen=True, slots=True)
class RuleGraph:
    """Which rules write each setting, and which settings each rule reads."""

    writers: Mapping[str, tuple[int, ...]]  # dest -> indices of the rules that write it
    reads: tuple[tuple[str, ...], ...]  # per rule: the flags its condition and value read

    @classmethod
    def of(cls, rules: Sequence[Rule]) -> RuleGraph:
        writers: dict[str, list[int]] = {}
        for i, rule in enumerate(rules):
            writers.setdefault(rule.dest, []).append(i)
        reads = tuple(
            tuple({n: None for e in (rule.when, rule.value) for r in refs(e) if r.kind in _SETTINGS
                   for n in ((base_dest(r.name), record_of(r.name)) if r.kind is RefKind.FLAG
                             else (ENV_SETTING + r.name,))})
            for rule in rules
        )
        return cls({k: tuple(v) for k, v in writers.items()}, reads)

    def subset(self, rules: Sequence[Rule], kept: Sequence[int]) -> RuleGraph:
        """The graph of `rules` (this graph's) at indices `kept`, renumbered from 0 in that order."""
        writers: dict[str, list[int]] = {}
        for new, old in enumerate(kept):
            writers.setdefault(rules[old].dest, []).append(new)
        return RuleGraph({k: tuple(v) for k, v in writers.items()}, tuple(self.reads[i] for i in kept))


# ------------------------------------------------------------------ the cache

K = TypeVar("K")
V = TypeVar("V")


class Identity(Generic[K, V]):
    """A map keyed by object identity: the one place where ids are keys.

    For IR nodes, whose structural hash walks the whole tree on every look-up. Each entry
    holds its key object, so no other object can take its id while the entry lives.
    """

    __slots__ = ("_items",)

    def __init__(self) -> None:
        self._items: dict[int, tuple[K, V]] = {}

    def get(self, obj: K) -> V | None:
        hit = self._items.get(id(obj))
        return hit[1] if hit is not None and hit[0] is obj else None

    def put(self, obj: K, value: V) -> V:
        self._items[id(obj)] = (obj, value)
        return value

    def clear(self) -> None:
        self._items.clear()

    def __len__(self) -> int:
        return len(self._items)


RECENT = 1024  # and/or/not nodes whose key is remembered (then forgotten, not to keep them alive)
_REBUILT = (And, Or, Not)  # the kinds a search rebuilds freely around the literals it reuses

# A node's shape without its children: with the children's keys it makes the node's key.
# Constants by repr: `Const(1) == Const(True)` as dataclasses, not to the evaluator.
_OWN_SHAPE: dict[type, Callable[[Any], tuple[Hashable, ...]]] = {
    Const: lambda e: ("c", repr(e.value)), Ref: lambda e: ("r", str(e.kind), e.name, e.text),
    Unknown: lambda e: ("u", e.text), Apply: lambda e: ("a", e.fn, e.text), Compare: lambda e: ("p", e.op),
    Seq: lambda e: ("s",), Truthy: lambda e: ("t",), In: lambda e: ("i",), Not: lambda e: ("n",),
    And: lambda e: ("&",), Or: lambda e: ("|",),
}


@dataclass(slots=True)
class EvalCache:
    """What evaluation over one `Model` remembers (the witness search asks the same
    questions many times). Owned by the model (`Model.cache`); nothing in it changes
    an answer. Keys are structural, except the `Identity` maps (see there), and IR
    nodes are interned by `key`."""

    graph: RuleGraph | None = None  # built from the model's rules on first use
    closure: dict[str, frozenset[int]] = field(default_factory=dict)  # dest -> indices of the rules that matter
    rule_sets: dict[tuple[int, ...], RuleSet] = field(default_factory=dict)  # rule indices -> their set
    relevant: dict[Expr, RuleSet] = field(default_factory=dict)  # condition -> the rules it depends on
    rule_steps: Identity[Rule, _Step] = field(default_factory=Identity)  # compiled rules; shared with views
    flag_defaults: dict[str, Any] = field(default_factory=dict)
    env_defaults: dict[str, Any] = field(default_factory=dict)
    env_types: dict[str, str | None] = field(default_factory=dict)
    shapes: dict[tuple[Hashable, ...], int] = field(default_factory=dict)  # node shape -> its key
    keys: Identity[Expr, int] = field(default_factory=Identity)  # nodes below and/or/not -> key
    recent: Identity[Expr, int] = field(default_factory=Identity)  # and/or/not -> key (at most RECENT)
    plans: dict[int, _Plan] = field(default_factory=dict)  # key of a condition -> its plan
    nodes: Identity[Expr, Decider] = field(default_factory=Identity)  # node -> its decider
    code: dict[tuple[int, bool], Code] = field(default_factory=dict)  # (key, truth?) -> compiled code
    reads: dict[Reads, Reads] = field(default_factory=dict)  # one object per content
    searches: dict[Hashable, Any] = field(default_factory=dict)  # for searches over the model (witness)
    views: dict[int, Model] = field(default_factory=dict)  # `Model.before`: timed rules run before -> model
    timed: list[int] | None = None  # `Model.before`: the times of the timed rules, sorted
    at: dict[int, Model] = field(default_factory=dict)  # `Model.before`: time -> model (a check asks often)
    bare: Model | None = None  # `Model.unadjusted`
    rule_refs: Identity[Rule, tuple[Ref, ...]] = field(default_factory=Identity)  # shared with `before`'s views
    rule_keys: Identity[Rule, frozenset[str]] = field(default_factory=Identity)  # `_rule_keys`; shared too
    compiler: _Compiler = field(init=False, repr=False)  # compiles into `code`

    def __post_init__(self) -> None:
        self.compiler = _Compiler(self)

    def forget_nodes(self) -> None:
        """Drop what is remembered per condition object (results stay: they are kept per
        condition shape). Call between unrelated questions, e.g. per catalog entry, so
        the conditions already asked about can be freed."""
        self.keys.clear()
        self.nodes.clear()
        self.recent.clear()

    def key(self, expr: Expr) -> int:
        """A number equal for two conditions exactly when they are the same tree with the
        same constants, types included. Remembered per node object below and/or/not (the
        literals a search keeps reusing); the and/or/not above them are rebuilt freely by
        the search, so only the `RECENT` latest are kept alive."""
        rebuilt = type(expr) in _REBUILT
        held = self.recent if rebuilt else self.keys
        found = held.get(expr)
        if found is not None:
            return found
        shape = _OWN_SHAPE[type(expr)](expr) + tuple([self.key(c) for c in children(expr)])
        found = self.shapes.setdefault(shape, len(self.shapes))
        if rebuilt and len(self.recent) >= RECENT:
            self.recent.clear()
        return held.put(expr, found)

    def intern(self, reads: Reads) -> Reads:
        return self.reads.setdefault(reads, reads)


def expr_key(model: Model, expr: Expr) -> int:
    """`EvalCache.key` of the model's cache."""
    return model.cache.key(expr)


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
        found = self.model.flag_default(name)
        if found is not UNKNOWN:
            return found
        if name.startswith(ENV_SETTING):  # an env var the code sets (the rules' view of it)
            return self.env(name[len(ENV_SETTING):])
        if name[-1:] == ")":  # a helper of the whole config: what the platform states
            return self.launch.facts.get(derived_fact(name), UNKNOWN)
        if "." in name:
            return self._field(name)
        return found

    def _field(self, name: str) -> Any:
        """``x.a.b`` no adjustment set, of a setting ``x`` holding a record (a dict: JSON
        given, or what a helper returns): what the command line gives for it, else the item
        of the record's value (an unknown path is unknown)."""
        base, _, path = name.partition(".")
        given = given_field(self.launch, name)
        return given if given is not UNKNOWN else _item_path(self.flag(base), path)

    def env(self, name: str) -> Any:
        if self.adjusted and (ENV_SETTING + name) in self.adjusted:  # set by the code
            return self.adjusted[ENV_SETTING + name]
        if name in self.launch.env:
            return env_value(self.launch.env[name], self.model.env_type(name))
        return self.model.env_default(name)

    def fact(self, ref: Ref) -> Any:
        return self.launch.facts.get(f"{ref.kind}:{ref.name}", UNKNOWN)


@lru_cache(maxsize=4096)
def _method_call(text: str) -> tuple[str, tuple[Any, ...]] | None:
    """``cfg.device.startswith("cuda")`` -> ("startswith", ("cuda",))."""
    try:
        node = parse.python_expression(text.strip())
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
    types: dict[str, type | tuple[type, ...]] = {
        "dict": Mapping, "str": str, "int": int, "float": float, "bool": bool, "list": (list, tuple),
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


def _attribute(record: Any, name: str) -> Any:
    """A field of a record a fact states (a helper's measured result); anything else: unknown."""
    return record[name] if isinstance(record, Mapping) else UNKNOWN


def _as_set(a: Any) -> Any:
    return set(a) if isinstance(a, (list, tuple, set, frozenset)) else a


class ValidationError(ValueError):
    """What a pydantic model raises on JSON it refuses (a ValueError, as pydantic's is)."""


def _parse_record(model: Mapping[str, Any], text: Any) -> Any:
    """The record a pydantic model (`model`: its fields, `extractor.imported_values`) parses
    JSON `text` into: the defaults with the object's fields over them; `ValidationError`
    where it surely refuses it (not JSON, not an object, a required field missing, a value
    outside a ``Literal``); UNKNOWN where its coercions decide (a value of another type)."""
    fields = model["fields"]
    try:
        raw = json.loads(text)
    except ValueError as exc:
        raise ValidationError(str(exc)) from None
    if not isinstance(raw, dict):
        raise ValidationError("input should be an object")
    out: dict[str, Any] = {}
    for name, field_ in fields.items():
        if name not in raw:
            if field_["required"]:
                raise ValidationError(f"{name}: field required")
            out[name] = field_["default"]
            continue
        value, kind = raw[name], field_["type"]
        if value is None and field_["optional"]:
            out[name] = None
        elif kind == "literal" and isinstance(value, str) and value not in field_["choices"]:
            raise ValidationError(f"{name}: input should be one of {list(field_['choices'])}")
        elif _of_field_type(value, kind, field_["choices"]):
            out[name] = value
        else:
            return UNKNOWN  # pydantic's lax coercions decide ("5" for an int field)
    return frozen_json(out)  # fields it does not declare are ignored, as pydantic does by default


def _of_field_type(value: Any, kind: str, choices: Any) -> bool:
    if kind == "literal":
        return value in choices
    if kind == "bool":
        return isinstance(value, bool)
    if kind in ("int", "float"):
        return isinstance(value, (int, float) if kind == "float" else int) and not isinstance(value, bool)
    return kind == "str" and isinstance(value, str)


def _minus(a: Any, b: Any) -> Any:
    """``a - b`` of sets; where a side is text it is ``any(x not in b for x in a)`` made a
    set (`extractor.cst_ir`): the items of `a` not in `b`, with Python's ``in`` (a
    character of a text, a substring of one)."""
    if isinstance(a, str) or isinstance(b, str):
        return {x for x in a if x not in b}
    return _as_set(a) - _as_set(b)


def _both(a: Any, b: Any) -> Any:
    """``a & b``; with text, the items of `a` in `b` (as `_minus`)."""
    if isinstance(a, str) or isinstance(b, str):
        return {x for x in a if x in b}
    return _as_set(a) & _as_set(b)


_CONVERSIONS: dict[str, Callable[[Any], Any]] = {"int": int, "float": float, "str": str, "bool": bool, "len": len}


def _map(fn: str, items: Any) -> Any:
    """``[f(x) for x in items]`` of a conversion ``f``; any other function: unknown."""
    convert = _CONVERSIONS.get(fn)
    return UNKNOWN if convert is None else tuple(convert(x) for x in items)


def _slice(items: Any, lower: Any, upper: Any) -> Any:
    got = items[lower:upper]
    return tuple(got) if isinstance(got, list) else got


_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "len": len, "int": int, "float": float, "str": str, "bool": bool, "abs": abs,
    "min": min, "max": max, "sorted": lambda a: tuple(sorted(a)), "any": any, "all": all,
    "set": frozenset, "frozenset": frozenset, "list": tuple, "tuple": tuple,
    "lower": lambda s: s.lower(), "upper": lambda s: s.upper(), "strip": lambda s, *c: s.strip(*c),
    "lstrip": lambda s, *c: s.lstrip(*c), "rstrip": lambda s, *c: s.rstrip(*c), "encode": lambda s, *a: s.encode(*a),
    "json.loads": lambda s: frozen_json(json.loads(s)), PARSE_RECORD: _parse_record,
    "startswith": lambda s, p: s.startswith(tuple(p) if isinstance(p, list) else p),
    "endswith": lambda s, p: s.endswith(tuple(p) if isinstance(p, list) else p),
    "split": lambda s, *a: tuple(s.split(*a)), "item": lambda c, k: c[k],
    "get": lambda c, k, d=None: c.get(k, d), "isinstance": _isinstance, ATTRIBUTE: _attribute,
    "keys": lambda c: tuple(c.keys()), "values": lambda c: tuple(c.values()),
    "items": lambda c: tuple(c.items()),
    "map": _map, "slice": _slice,
    "+": lambda a, b: a + b, "-": _minus, "*": _times,
    "/": lambda a, b: a / b, "//": lambda a, b: a // b, "%": lambda a, b: a % b, "**": _power,
    "|": lambda a, b: _as_set(a) | _as_set(b), "&": _both,
}


# Functions whose exceptions are the real program's (``float("x")``, ``v[9]``, ``1 / 0``);
# another one raising means only that the evaluator cannot compute it.
_EXACT = frozenset({"int", "float", "len", "item", "map", "slice", "/", "//", "%", "json.loads", PARSE_RECORD})


@dataclass(frozen=True, slots=True)
class _Raised:
    """What computing a value raised (see `RAISES`)."""

    exception: BaseException

    def caught_by(self, names: Any) -> bool:
        wanted = set(names) if isinstance(names, (tuple, list, frozenset)) else {names}
        return any(c.__name__ in wanted for c in type(self.exception).__mro__)


def _attempted(func: Callable[..., Any], exact: bool, args: tuple[Code, ...], values: Values) -> Any:
    """``func(*args)``: its value, UNKNOWN, or `_Raised` where `exact` and it raises."""
    got = []
    for arg in args:
        value = arg(values)
        if value is UNKNOWN or isinstance(value, _Raised):
            return value
        got.append(value)
    try:
        result = func(*got)
    except Exception as exc:
        return _Raised(exc) if exact else UNKNOWN
    return result


def _raises(caught: Any, steps: tuple[Code, ...], values: Values) -> Any:
    """Does computing `steps` in order raise one of `caught`? (An exception it does not catch, or a
    step that cannot be computed: unknown.)"""
    for step in steps:
        got = step(values)
        if isinstance(got, _Raised):
            return True if got.caught_by(caught) else UNKNOWN
        if got is UNKNOWN:
            return UNKNOWN
    return False


def _some_item(items: Code, key: str, holds: Code, values: Values) -> Any:
    """Does `holds` hold for some item of `items`, the loop variable (fact `key`) bound to it?"""
    found = items(values)
    if found is UNKNOWN or isinstance(found, (str, bytes, Mapping)) or not isinstance(found, Iterable):
        return UNKNOWN
    verdicts = [as_truth(holds(Values(values.model, values.launch.with_fact(key, item), values.adjusted)))
                for item in found]
    return True if True in verdicts else (UNKNOWN if None in verdicts else False)


def _apply(fn: str, args: Sequence[Any]) -> Any:
    func = _FUNCTIONS.get(fn)
    if func is None or any(a is UNKNOWN for a in args):
        return UNKNOWN
    return _called(func, *args)


def _called(func: Callable[..., Any], *args: Any) -> Any:
    """``func(*args)`` on known arguments, unknown where it raises or gives no finite number."""
    try:
        result = func(*args)
    except Exception:  # the real code would raise here: nothing we can decide
        return UNKNOWN
    if isinstance(result, float) and not math.isfinite(result):
        return UNKNOWN
    return result


def _apply1(func: Callable[..., Any], arg: Code, values: Values) -> Any:
    """`_apply` of a function of one argument, compiled (the most common call)."""
    got = arg(values)
    return UNKNOWN if got is UNKNOWN else _called(func, got)


def _apply2(func: Callable[..., Any], left: Code, right: Code, values: Values) -> Any:
    a, b = left(values), right(values)
    return UNKNOWN if a is UNKNOWN or b is UNKNOWN else _called(func, a, b)


def _choose(test: bool | None, branch: Callable[[int], Any]) -> Any:
    """``then if test else other`` (branches 1 and 2); an unknown test decides nothing
    unless both branches agree (a test that raises: unknown)."""
    if test is RAISING:
        return UNKNOWN
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
    return _apply(call[0], [values.flag(base_dest(ref.name)), *call[1]])


def _same(a: Any, b: Any) -> bool:
    if a is UNKNOWN or b is UNKNOWN:
        return a is b
    try:
        if isinstance(a, Mapping) and isinstance(b, Mapping):  # a dict given, a `FrozenMap` declared
            return bool(a == b)
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return False


# The combinators below take their operands as functions of one argument (the settings
# for compiled code, the launch for `node`s), so both evaluate them with the same code;
# compiled code binds the operands with `partial` (positionally: keywords would cost a dict
# per call), which costs no Python frame.


def _truthy(get: Callable[[Any], Any], arg: Any) -> bool | None:
    """Python's ``bool(get(arg))``; None when it is unknown or raises."""
    got = get(arg)
    if got is UNKNOWN:
        return None
    try:
        return bool(got)
    except Exception:
        return None


def kleene(parts: Sequence[Callable[[Any], bool | None]], stop: bool, arg: Any) -> bool | None:
    """Kleene ``or`` (`stop` True) or ``and`` (`stop` False) of ``part(arg)`` for each part:
    the first part that is `stop` decides, else unknown if one is, else ``not stop``. A part
    that raises (`RAISING`) ends it as in Python: it raises, or is unknown after an unknown
    part (which may have decided first)."""
    undecided = False
    for part in parts:
        result = part(arg)
        if result is stop:
            return stop
        if result is None:
            undecided = True
        elif result is RAISING:
            return None if undecided else RAISING
    return None if undecided else not stop


def negated(part: Callable[[Any], bool | None], arg: Any) -> bool | None:
    """Kleene ``not`` of ``part(arg)`` (what raises still raises)."""
    result = part(arg)
    return result if result is None or result is RAISING else not result


# ------------------------------------------------------------------ the semantics
# Each kind's meaning, once: a handler turns a node into a function of the settings.
# `_ValueCode` gives the Python value of a node (UNKNOWN when it cannot be decided),
# `_TruthCode` its Kleene truth (True, False or None for unknown).

Code = Callable[[Values], Any]


class _Compiler:
    """Compiles nodes; with a cache, equal sub-trees share their code (see `EvalCache.key`)."""

    __slots__ = ("_truth", "_value", "cache")

    def __init__(self, cache: EvalCache | None) -> None:
        self.cache = cache
        self._value = _ValueCode(self)
        self._truth = _TruthCode(self)

    def value(self, expr: Expr) -> Code:
        return self._code(expr, False)

    def truth(self, expr: Expr) -> Code:
        return self._code(expr, True)

    def _code(self, expr: Expr, condition: bool) -> Code:
        visitor: Visitor[Code] = self._truth if condition else self._value
        if self.cache is None:
            return visitor.visit(expr)
        key = (self.cache.key(expr), condition)
        code = self.cache.code.get(key)
        if code is None:
            code = self.cache.code[key] = visitor.visit(expr)
        return code


def _unknown(values: Values) -> Any:
    return UNKNOWN


def _undecided(values: Values) -> bool | None:
    return None


def _unset_or(name: str, value: Code, default: Code, values: Values) -> Any:
    """A private attribute read with a default: the default while no option declares it,
    the launch does not give it and no adjustment run so far has set it."""
    flags = values.model.flags
    if name in values.adjusted or name in values.launch.flags or flags is None or flags.by_dest(name) is not None:
        return value(values)
    return default(values)


def absent_fact(name: str) -> str:
    """The fact that the model's config lacks the attribute ``name`` (a model property)."""
    return f"absent:{RefKind.MODEL}:{name}"


def _absent_or(key: str, value: Code, default: Code, values: Values) -> Any:
    """``getattr(hf_config, "x", default)``: the default where the model is known to lack x."""
    return default(values) if values.launch.facts.get(key) else value(values)


def _or_fallback(name: str, value: Code, values: Values) -> Any:
    """A field's effective value: its value, else (None) the fallback its declaration gives."""
    found = value(values)
    if found is not None:
        return found
    flag = values.model.flags.by_dest(name) if values.model.flags is not None else None
    return _literal_default(flag.fallback) if flag is not None else UNKNOWN


def _flag_code(ref: Ref) -> Code:
    name = ref.name
    if base_dest(name) == name:
        return lambda values: values.flag(name)

    def method_flag(values: Values) -> Any:  # set by an adjustment, else the method applied
        got = values.flag(name)
        return _method_ref(ref, values) if got is UNKNOWN else got
    return method_flag


def _env_code(ref: Ref) -> Code:
    name = ref.name
    return lambda values: values.env(name)


def _fact_code(ref: Ref) -> Code:
    key = f"{ref.kind}:{ref.name}"
    return lambda values: values.launch.facts.get(key, UNKNOWN)


def _runtime_code(fn: str, args: tuple[Code, ...]) -> Code:
    """A call of a function the evaluator cannot compute (``check_gguf_file(cfg.model_path)``):
    what the launch states it returns there. The fact ``runtime:<fn>`` holds rows of
    (arguments, result), arguments None for any (`analyzers.platform_facts.runtime_facts`);
    arguments no row names leave it unknown."""
    key = f"{RefKind.RUNTIME}:{fn}"

    def call(values: Values) -> Any:
        rows = values.launch.facts.get(key)
        if not rows:
            return UNKNOWN
        given: tuple[Any, ...] | None = None
        for wanted, result in rows:
            if wanted is None:
                return result
            if given is None:
                given = tuple(a(values) for a in args)
            if len(wanted) == len(given) and all(_same(w, g) for w, g in zip(wanted, given, strict=True)):
                return result
        return UNKNOWN
    return call


def runtime_refs(expr: Expr) -> list[Ref]:
    """The facts `expr` reads besides its `Ref`s, as refs of kind runtime: a call of a
    function the evaluator cannot compute (``runtime:<fn>``) and a leaf it could not
    read (``runtime:<its text>``, e.g. ``runtime:is_in_ci()``)."""
    out: dict[Ref, None] = {}
    for node in walk(expr):
        if isinstance(node, Apply) and node.fn not in _FUNCTIONS and node.fn not in (IF, ON_COMMAND_LINE, RAISES,
                                                                                   SOME_ITEM):
            out[Ref(RefKind.RUNTIME, node.fn, node.text)] = None
        elif isinstance(node, Unknown):
            out[Ref(RefKind.RUNTIME, node.text, node.text)] = None
    return list(out)


_REF_CODE: dict[RefKind, Callable[[Ref], Code]] = {RefKind.FLAG: _flag_code, RefKind.ENV: _env_code}


class _ValueCode(Visitor[Code]):
    """The value of a node; a condition's is its truth (UNKNOWN for unknown)."""

    def __init__(self, sub: _Compiler) -> None:
        self.sub = sub

    def visit_Const(self, expr: Const) -> Code:
        const = expr.value
        return lambda values: const

    def visit_Ref(self, expr: Ref) -> Code:
        return _REF_CODE.get(expr.kind, _fact_code)(expr)

    def visit_Unknown(self, expr: Unknown) -> Code:  # a call the launch may state (``is_in_ci()``)
        return _fact_code(Ref(RefKind.RUNTIME, expr.text, expr.text))

    def visit_Seq(self, expr: Seq) -> Code:
        items = tuple(self.sub.value(i) for i in expr.items)

        def seq(values: Values) -> Any:
            out = []
            for item in items:
                got = item(values)
                if got is UNKNOWN:
                    return UNKNOWN
                out.append(got)
            return tuple(out)
        return seq

    def visit_Apply(self, expr: Apply) -> Code:
        fn = expr.fn
        args = tuple(self.sub.value(a) for a in expr.args)
        if fn == IF and len(args) == 3:  # ``then if test else other``, decided lazily
            test = self.sub.truth(expr.args[0])
            return lambda values: _choose(test(values), lambda i: args[i](values))
        if fn == ON_COMMAND_LINE and len(expr.args) == 1 and isinstance(expr.args[0], Ref):
            name = expr.args[0].name
            if expr.args[0].kind is RefKind.ENV:
                return lambda values: name in values.launch.env or ENV_SETTING + name in values.adjusted
            return lambda values: name in values.launch.flags
        if fn == UNSET_OR and len(expr.args) == 2 and isinstance(expr.args[0], Ref):
            if expr.args[0].kind is RefKind.MODEL:
                return partial(_absent_or, absent_fact(expr.args[0].name), args[0], args[1])
            return partial(_unset_or, expr.args[0].name, args[0], args[1])
        if fn == OR_FALLBACK and len(expr.args) == 1 and isinstance(expr.args[0], Ref):
            return partial(_or_fallback, expr.args[0].name, args[0])
        if fn == STATED_OR and len(args) == 2:
            stated, computed = args
            return lambda values: found if (found := stated(values)) is not UNKNOWN else computed(values)
        if fn == RAISES and expr.args and isinstance(expr.args[0], Const):
            return partial(_raises, expr.args[0].value, tuple(self._attempt(a) for a in expr.args[1:]))
        if fn == SOME_ITEM and len(expr.args) == 3 and isinstance(expr.args[1], Const):
            return partial(_some_item, args[0], f"{RefKind.UNKNOWN}:{expr.args[1].value}", self.sub.truth(expr.args[2]))
        if fn not in _FUNCTIONS:  # stated per positional arguments
            return _runtime_code(fn, tuple(self.sub.value(a) for a in positional(expr.args)))
        if len(args) == 1:
            return partial(_apply1, _FUNCTIONS[fn], args[0])
        if len(args) == 2:
            return partial(_apply2, _FUNCTIONS[fn], *args)
        return lambda values: _apply(fn, [a(values) for a in args])

    def _attempt(self, expr: Expr) -> Code:
        """The value of `expr`, or `_Raised` where one of its functions raises as the real one would."""
        if not (isinstance(expr, Apply) and expr.fn in _FUNCTIONS):
            return self.sub.value(expr)
        args = tuple(self._attempt(a) for a in expr.args)
        return partial(_attempted, _FUNCTIONS[expr.fn], expr.fn in _EXACT, args)

    def visit_And(self, expr: And) -> Code:
        return self._deciding(expr.args, stop=False)

    def visit_Or(self, expr: Or) -> Code:
        return self._deciding(expr.args, stop=True)

    def _deciding(self, args: tuple[Expr, ...], stop: bool) -> Code:
        """Python's ``a and b`` (`stop` False: a falsy operand decides) or ``a or b``
        (`stop` True: a truthy one does): the deciding operand's value."""
        parts = tuple(self.sub.value(a) for a in args)

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
                if decided == stop:
                    return last
            return last
        return and_or

    def visit_Truthy(self, expr: Truthy) -> Code:
        if is_truthiness(expr):  # an operand of ``a or b`` in value position
            return self.sub.value(expr.term)
        return self.generic(expr)

    def generic(self, expr: Expr) -> Code:
        """A condition (compare, in, not, truthy of a condition): its truth as a value."""
        check = self.sub.truth(expr)

        def condition(values: Values) -> Any:
            result = check(values)
            return UNKNOWN if result is None or result is RAISING else result
        return condition


class _TruthCode(Visitor[Code]):
    """The Kleene truth of a node; a term's is its truthiness."""

    def __init__(self, sub: _Compiler) -> None:
        self.sub = sub

    def visit_Not(self, expr: Not) -> Code:
        return partial(negated, self.sub.truth(expr.arg))

    def visit_And(self, expr: And) -> Code:
        return partial(kleene, tuple(self.sub.truth(a) for a in expr.args), False)

    def visit_Or(self, expr: Or) -> Code:
        return partial(kleene, tuple(self.sub.truth(a) for a in expr.args), True)

    def visit_Compare(self, expr: Compare) -> Code:
        op = COMPARE.get(expr.op)  # one comparison semantics for constant folding and evaluation
        if op is None:
            return _undecided
        if expr.op in ("is", "is not") and Const(None) in (expr.left, expr.right) \
                and any(isinstance(s, Apply) and s.fn in _CONVERSIONS for s in (expr.left, expr.right)):
            never = expr.op == "is not"  # ``str(x) is None``: a conversion gives a value (or raises)
            return lambda values: never
        for side, field_name in ((expr.left, "left"), (expr.right, "right")):
            if isinstance(side, Apply) and side.fn == IF and len(side.args) == 3:
                # ``(a if t else b) == c``: where t is unknown, decided if both branches agree
                then, other = (replace(expr, left=b) if field_name == "left" else replace(expr, right=b)
                               for b in side.args[1:])
                return self._branches(side.args[0], then, other)
        left, right, cmp = self.sub.value(expr.left), self.sub.value(expr.right), expr.op

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
                return RAISING if _raises_in_python(cmp, a, b) else None
        return comparison

    def _branches(self, test: Expr, then: Expr, other: Expr) -> Code:
        decide, yes, no = self.sub.truth(test), self.sub.truth(then), self.sub.truth(other)

        def branches(values: Values) -> bool | None:
            found = decide(values)
            if found is RAISING:
                return found
            if found is not None:
                return yes(values) if found else no(values)
            one = yes(values)
            return one if one is not None and one == no(values) else None
        return branches

    def visit_In(self, expr: In) -> Code:
        item = self.sub.value(expr.item)
        if isinstance(expr.container, Seq):  # decided by the known items even if some are not
            elems = tuple(self.sub.value(e) for e in expr.container.items)

            def among(values: Values) -> bool | None:
                wanted = item(values)
                found: list[Any] = []
                for elem in elems:
                    got = elem(values)
                    found.append(None if got is UNKNOWN or wanted is UNKNOWN else got == wanted)
                return True if True in found else None if None in found else False
            return among
        container = self.sub.value(expr.container)

        def contains(values: Values) -> bool | None:
            wanted = item(values)
            if wanted is UNKNOWN:
                return None
            within = container(values)
            if within is UNKNOWN:
                return None
            if is_placeholder(within) and isinstance(wanted, str):
                return placeholder_contains(wanted)  # the path it stands for decides, not its markup
            try:
                return wanted in within
            except Exception:
                return None
        return contains

    def visit_Truthy(self, expr: Truthy) -> Code:
        return self.sub.truth(expr.term)  # a term's truthiness, or the condition's truth

    def generic(self, expr: Expr) -> Code:
        """A term (a leaf, a call, a tuple, ``a and b`` as a value): its truthiness."""
        return partial(_truthy, self.sub.value(expr))


_UNSHARED = _Compiler(None)


def compile_value(expr: Expr, model: Model | None = None) -> Code:
    """The value of `expr` as a function of the settings (UNKNOWN when undecided; with
    `model`, equal sub-trees share their code: see `EvalCache.key`)."""
    return (model.cache.compiler if model is not None else _UNSHARED).value(expr)


def compile_truth(expr: Expr, model: Model | None = None) -> Code:
    """The truth of `expr` as a function of the settings (True, False, None or `RAISING`:
    `as_truth` reads it)."""
    return (model.cache.compiler if model is not None else _UNSHARED).truth(expr)


def value(expr: Expr, values: Values) -> Any:
    """The Python value a term has (UNKNOWN when it cannot be decided)."""
    return compile_value(expr, values.model)(values)


def truth(expr: Expr, values: Values) -> bool | None:
    """Kleene truth of a condition: True, False or None (unknown)."""
    return as_truth(compile_truth(expr, values.model)(values))


# ------------------------------------------------------------------ memoised evaluation
# A condition's truth depends only on what the launch gives for the settings it and its
# relevant adjustments read, so results are kept per (condition, those settings).
# And/Or/Not are decided from their operands' results: an operand's relevant rules are
# closed (they read only settings whose writers are among them), so applying the other
# operands' rules as well changes none of the values it reads.


_NOTHING: frozenset[str] = frozenset()


def _frozen(names: Iterable[str]) -> frozenset[str]:
    """`names` frozen; one shared object when empty (most conditions read no env or fact)."""
    return frozenset(names) if names else _NOTHING


@dataclass(frozen=True, slots=True)
class Reads:
    """Launch keys an evaluation can read: flag dests, env names, fact keys."""

    flags: frozenset[str]
    env: frozenset[str]
    facts: frozenset[str]
    _sorted: tuple[tuple[str, ...], ...] = field(init=False, repr=False, compare=False)  # each kind's names, sorted

    def __post_init__(self) -> None:
        object.__setattr__(self, "_sorted", (tuple(sorted(self.flags)), tuple(sorted(self.env)),
                                             tuple(sorted(self.facts))))

    @classmethod
    def of(cls, found: Iterable[Ref], dests: Iterable[str] = ()) -> Reads:
        flags: set[str] = set(dests)
        env: set[str] = set()
        facts: set[str] = set()
        for ref in found:
            if ref.kind is RefKind.FLAG:
                record = record_of(ref.name)
                flags.add(ref.name)
                flags.add(base_dest(ref.name))
                flags.add(record)
                # a helper's result is a stated fact, its fields too (``f().a.b`` reads ``f()``)
                for called in {ref.name, record}:
                    if called[-1:] == ")":
                        facts.add(derived_fact(called))
            elif ref.kind is RefKind.ENV:
                env.add(ref.name)
            else:
                facts.add(f"{ref.kind}:{ref.name}")
                if ref.kind is RefKind.MODEL:
                    facts.add(absent_fact(ref.name))
        return cls(_frozen(flags), _frozen(env), _frozen(facts))

    def __or__(self, other: Reads) -> Reads:
        return Reads(_frozen(self.flags | other.flags), _frozen(self.env | other.env),
                     _frozen(self.facts | other.facts))

    def key(self, launch: Launch) -> str:
        """What `launch` gives for these keys (see `_items`)."""
        items = launch.memo
        if items is None:
            items = _items(launch)
        key = _atoms(self.flags, self._sorted[0], items[0])
        if items[1] is None:
            return key
        return key + _atoms(self.env, self._sorted[1], items[1]) + _atoms(self.facts, self._sorted[2], items[2])


# A launch's settings of one kind: names in order, name -> atom (see `_items`).
_Given = tuple[tuple[str, ...], dict[str, str]]


def _atoms(wanted: frozenset[str], ordered: tuple[str, ...], given: _Given) -> str:
    """The atoms of the names in `wanted` (`ordered`: sorted) that `given` has, in name
    order; walking the smaller of the two (a launch states hundreds of facts, a condition
    reads a few; a rule set may read more than a launch gives)."""
    names, atoms = given
    if not wanted or not names:
        return ""
    if len(ordered) <= len(names):
        return "".join([atoms[n] for n in ordered if n in atoms])
    return "".join([atoms[n] for n in names if n in wanted])


def _items(launch: Launch) -> tuple[Any, ...]:
    """A launch's settings per kind as (names in order, name -> atom), kept on the launch;
    a memo key joins the atoms of the names it reads. An atom is the name and the value's
    repr (``1``, ``1.0`` and ``True`` are equal in Python but not to the evaluator; repr
    tells them apart, and works for unhashable values), so keys are plain strings."""
    if launch.env or launch.facts:
        items: tuple[Any, ...] = (_given("", launch.flags), _shared("$", launch.env), _shared("!", launch.facts))
    else:
        items = (_given("", launch.flags), None, None)
    object.__setattr__(launch, "memo", items)
    return items


def _given(mark: str, given: Mapping[str, Any]) -> _Given:
    names = tuple(sorted(given))
    return names, {n: f"{mark}{len(n)}:{n}={given[n]!r}\x1f" for n in names}


_SHARED: dict[tuple[str, int], tuple[Mapping[str, Any], _Given]] = {}  # (mark, id of the mapping) -> atoms


def _shared(mark: str, given: Mapping[str, Any]) -> _Given:
    """`_given` of env vars or facts: made once per mapping, which the launches a search
    derives share (``with_flag`` keeps them), hundreds of facts with records among them."""
    key = (mark, id(given))
    hit = _SHARED.get(key)
    if hit is not None and hit[0] is given:
        return hit[1]
    if len(_SHARED) >= 256:  # the mappings are kept alive while listed (their ids stay theirs)
        _SHARED.clear()
    found = _given(mark, given)
    _SHARED[key] = (given, found)
    return found


def _rule_refs(rule: Rule, known: Identity[Rule, tuple[Ref, ...]]) -> tuple[Ref, ...]:
    """What `rule` reads: the leaves of its condition and value, and the facts they call for."""
    found = known.get(rule)
    if found is None:
        found = known.put(rule, tuple(x for e in (rule.when, rule.value) for x in (*refs(e), *runtime_refs(e))))
    return found


@dataclass(slots=True, eq=False)
class RuleSet:
    """The rules one condition depends on (one object per set: `Model.rule_set`), what they
    read, and the settings they adjust per what a launch gives for those."""

    indices: tuple[int, ...]  # in the model's rules
    rules: tuple[Rule, ...]
    reads: Reads
    adjusted: dict[str, dict[str, Any]] = field(default_factory=dict)
    ordered: list[_Step] | None = None  # `steps`
    derived: tuple[int, ...] = ()  # the steps writing a derived setting ``f()`` (a launch may state it)
    traces: dict[int, _Trace] = field(default_factory=dict)  # `_Trace`s by the launch's facts (`resolve`)
    schedules: dict[tuple[int, ...], _Schedule] = field(default_factory=dict)  # by the steps skipped

    @classmethod
    def of(cls, indices: tuple[int, ...], rules: tuple[Rule, ...], cache: EvalCache) -> RuleSet:
        reads = Reads.of((x for r in rules for x in _rule_refs(r, cache.rule_refs)), (r.dest for r in rules))
        return cls(indices, rules, cache.intern(reads))

    def steps(self, model: Model) -> list[_Step]:
        """The rules compiled, in the order a launch runs them (`_program_order`), each with
        the settings it reads and writes (`_rule_keys`)."""
        if self.ordered is None:
            self.ordered = [_rule_step(rule, model) for rule in sorted(self.rules, key=_program_order)]
            self.derived = tuple(i for i, step in enumerate(self.ordered) if step.dest[-1:] == ")")
        return self.ordered

    def schedule(self, model: Model, skipped: tuple[int, ...]) -> _Schedule:
        """The steps a launch that states the derived settings of `skipped` runs, indexed."""
        found = self.schedules.get(skipped)
        if found is None:
            steps = self.steps(model)
            found = self.schedules[skipped] = _Schedule.of(
                [step for i, step in enumerate(steps) if i not in skipped] if skipped else steps)
        return found


@dataclass(frozen=True, slots=True)
class _Schedule:
    """Steps in the order `resolve` runs them, indexed so that a pass visits only the steps
    that may do something: the times (`starts`/`ends`: the first and last step of each
    step's), where the rules of unknown time begin (they come last: `_program_order`), and
    per key the steps reading it (`readers`; `free_readers`: those of unknown time)."""

    run: Sequence[_Step]
    starts: tuple[int, ...]
    ends: tuple[int, ...]
    first_free: int
    readers: dict[str, tuple[int, ...]]
    free_readers: dict[str, tuple[int, ...]]

    @classmethod
    def of(cls, run: Sequence[_Step]) -> _Schedule:
        starts, ends = list(range(len(run))), list(range(len(run)))
        for i in range(1, len(run)):
            if run[i].at is not None and run[i].at == run[i - 1].at:
                starts[i] = starts[i - 1]
        for i in range(len(run) - 2, -1, -1):
            if run[i].at is not None and run[i].at == run[i + 1].at:
                ends[i] = ends[i + 1]
        first_free = next((i for i, step in enumerate(run) if step.at is None), len(run))
        readers: dict[str, list[int]] = {}
        for i, step in enumerate(run):
            for key in step.keys:
                readers.setdefault(key, []).append(i)
        return cls(run, tuple(starts), tuple(ends), first_free, {k: tuple(v) for k, v in readers.items()},
                   {k: tuple(j for j in v if j >= first_free) for k, v in readers.items()})


class _Step(NamedTuple):
    """One rule as `resolve` runs it."""

    dest: str
    when: Code
    get: Code
    at: int | None
    rewrites: bool  # `rewrites_itself`
    keys: frozenset[str]  # `_rule_keys`
    writes: str  # the key of `dest`


def _rule_step(rule: Rule, model: Model) -> _Step:
    """`rule` compiled, once per model (rule sets share rules; views share it too: compiled
    code reads only the settings it is given, so any model's will do)."""
    known = model.cache.rule_steps
    one = known.get(rule)
    if one is None:
        cache = model.cache
        one = known.put(rule, _Step(rule.dest, compile_truth(rule.when, model), compile_value(rule.value, model),
                                    rule.at, rewrites_itself(rule), _rule_keys(rule, cache.rule_keys, cache.rule_refs),
                                    setting_key(rule.dest)))
    return one


def setting_key(name: str) -> str:
    """What resolution by difference tracks a setting as: with its fields and methods
    (``x`` for ``x.a.b`` and ``x.startswith()``), an env var as the code's view of it."""
    return name.partition(".")[0]


def _rule_keys(rule: Rule, known: Identity[Rule, frozenset[str]],
               refs_of: Identity[Rule, tuple[Ref, ...]]) -> frozenset[str]:
    """Everything a rule's result depends on besides the model: the settings it reads and
    the one it writes (`setting_key`), env vars (as ``env:NAME``, the name the code sets
    them by) and facts (``!kind:name``)."""
    found = known.get(rule)
    if found is None:
        reads = Reads.of(_rule_refs(rule, refs_of), (rule.dest,))
        dest_fact = {"!" + derived_fact(rule.dest)} if rule.dest[-1:] == ")" else set()
        found = known.put(rule, frozenset({setting_key(n) for n in reads.flags} | {ENV_SETTING + n for n in reads.env}
                                          | {"!" + f for f in reads.facts} | dest_fact))
    return found


class Decider(Protocol):
    """A condition ready to decide launches (`node`)."""

    def decide(self, launch: Launch) -> bool | None:
        """`truth` of the condition on `launch`, with the adjustments it depends on."""

    def attempt(self, launch: Launch) -> Any:
        """`decide`, `RAISING` where evaluating the condition raises (for the operators over it)."""

    def decide_whole(self, launch: Launch) -> bool | None:
        """`decide`, for a whole condition asked again and again (not for each operand)."""

    def all_reads(self) -> Reads:
        """The launch keys the result depends on."""

    def outcomes(self, launch: Launch) -> tuple[bool, bool]:
        """(can be true, can be false) on launches that differ from `launch` only in flags
        and env vars."""


class _Plan:
    """A condition other than and/or/not, with its rules and results per launch; compiled
    on first use (sub-trees shared with every other condition of the model)."""

    __slots__ = ("check", "expr", "model", "reads", "results", "rules")

    def __init__(self, model: Model, expr: Expr, rules: RuleSet, reads: Reads) -> None:
        self.model, self.expr, self.rules, self.reads = model, expr, rules, reads
        self.check: Code | None = None
        self.results: dict[str, Any] = {}

    def attempt(self, launch: Launch) -> Any:
        key = self.reads.key(launch)
        try:
            return self.results[key]
        except KeyError:
            pass
        if self.check is None:
            self.check = compile_truth(self.expr, self.model)
        result = self.results[key] = self.check(resolved(self.model, launch, self.rules))
        return result

    def decide(self, launch: Launch) -> bool | None:
        return as_truth(self.attempt(launch))

    decide_whole = decide

    def all_reads(self) -> Reads:
        return self.reads

    def outcomes(self, launch: Launch) -> tuple[bool, bool]:
        """Anything, unless this reads neither flags nor env vars (then as on `launch`)."""
        if self.reads.flags or self.reads.env:
            return True, True
        result = self.decide(launch)
        return result is True, result is False


class _Junction:
    """``and`` (`stop` False) or ``or`` (`stop` True) decided from its operands' results."""

    __slots__ = ("_decides", "_reads", "cache", "parts", "results", "stop")

    def __init__(self, parts: tuple[Decider, ...], stop: bool, cache: EvalCache) -> None:
        self.parts, self.stop, self.cache = parts, stop, cache
        self._decides = tuple(p.attempt for p in parts)
        self._reads: Reads | None = None
        self.results: dict[str, bool | None] | None = None

    def attempt(self, launch: Launch) -> Any:
        return kleene(self._decides, self.stop, launch)

    def decide(self, launch: Launch) -> bool | None:
        return as_truth(self.attempt(launch))

    def decide_whole(self, launch: Launch) -> bool | None:
        """`decide`, remembered per what the launch gives for everything the operands read."""
        if self.results is None:
            self.results = {}
        key = self.all_reads().key(launch)
        try:
            return self.results[key]
        except KeyError:
            result = self.results[key] = self.decide(launch)
            return result

    def outcomes(self, launch: Launch) -> tuple[bool, bool]:
        found = [part.outcomes(launch) for part in self.parts]
        can_true = [t for t, _ in found]
        can_false = [f for _, f in found]
        if self.stop:  # or: true when one can be, false when all can be
            return any(can_true), all(can_false)
        return all(can_true), any(can_false)

    def all_reads(self) -> Reads:
        if self._reads is None:
            reads = {p.all_reads() for p in self.parts}
            union = reads.pop() if len(reads) == 1 else Reads(
                _frozen(frozenset().union(*(r.flags for r in reads))),
                _frozen(frozenset().union(*(r.env for r in reads))),
                _frozen(frozenset().union(*(r.facts for r in reads))))
            self._reads = self.cache.intern(union)
        return self._reads


class _Negation:
    """``not`` decided from its operand's result."""

    __slots__ = ("part",)

    def __init__(self, part: Decider) -> None:
        self.part = part

    def attempt(self, launch: Launch) -> Any:
        return negated(self.part.attempt, launch)

    def decide(self, launch: Launch) -> bool | None:
        return as_truth(self.attempt(launch))

    decide_whole = decide

    def all_reads(self) -> Reads:
        return self.part.all_reads()

    def outcomes(self, launch: Launch) -> tuple[bool, bool]:
        can_true, can_false = self.part.outcomes(launch)
        return can_false, can_true


class _Deciders(Visitor[Decider]):
    """`node` per kind: and/or/not from their operands, every other condition one plan."""

    def __init__(self, model: Model) -> None:
        self.model = model

    def visit_And(self, expr: And) -> Decider:
        return _Junction(tuple(node(self.model, a) for a in expr.args), False, self.model.cache)

    def visit_Or(self, expr: Or) -> Decider:
        return _Junction(tuple(node(self.model, a) for a in expr.args), True, self.model.cache)

    def visit_Not(self, expr: Not) -> Decider:
        return _Negation(node(self.model, expr.arg))

    def visit_Truthy(self, expr: Truthy) -> Decider:
        return node(self.model, expr.term) if is_condition(expr.term) else self.generic(expr)

    def generic(self, expr: Expr) -> Decider:
        """One plan per condition shape, for as long as the model lives."""
        model, cache = self.model, self.model.cache
        key = cache.key(expr)
        found = cache.plans.get(key)
        if found is None:
            leaves = refs(expr)
            rules = model._rule_set_of(leaves)
            reads = cache.intern(Reads.of([*leaves, *runtime_refs(expr)]) | rules.reads)
            found = cache.plans[key] = _Plan(model, expr, rules, reads)
        return found


def node(model: Model, expr: Expr) -> Decider:
    """`expr` ready to decide launches: ``node(m, e).decide(launch)`` is the truth of `e`
    on `launch` with the adjustments it depends on, memoised (see above)."""
    found = model.cache.nodes.get(expr)
    if found is None:
        found = model.cache.nodes.put(expr, _Deciders(model).visit(expr))
    return found


def deciders(model: Model, expr: Expr) -> tuple[Decider, ...]:
    """The `node`s of the operands of `expr` as an ``and`` (itself if it is none). Not kept
    as a node itself: searches build many conjunctions once."""
    return tuple(node(model, a) for a in conjuncts(as_condition(expr)))


def can_hold(model: Model, expr: Expr, launch: Launch) -> bool:
    """False when no launch that differs from `launch` only in flags and env vars makes
    `expr` true: a part of it reads neither, and that part is not true on `launch`."""
    return node(model, expr).outcomes(launch)[0]


# ------------------------------------------------------------------ adjustments


def resolve(model: Model, launch: Launch, rules: RuleSet) -> Values:
    """Settings after automatic adjustments, applied until nothing changes.

    Rules whose place in the program is known run once, in that order, as the program runs
    them: a later rule overrides an earlier one, and a rule reads what the earlier ones left
    (``if isinstance(x, list): ... elif x is None: x = []`` does not fire its first branch
    on its own result); rules of the same time (one ``declare_resolution(a=..., b=...)``,
    one provider's declarations) all read what came before them. Rules of unknown place
    apply until nothing changes. A rule whose condition is unknown makes its setting unknown
    unless both outcomes agree; a setting still changing after `MAX_ROUNDS` passes is
    unknown. A rule that surely fires overrides what the command line gives, as the program
    does (sglang's `resolution_result` reads the last declaration before the raw input:
    ``if cfg.enable_mixed_chunk and not algo.supports_mixed_chunk(): declare(enable_mixed_chunk=False)``).
    One whose condition is unknown keeps the given value (an assumption: making every given
    setting such a rule writes unknown left examples undecided; measured on 0.5.23 on
    2026-12-02, difftest agreement 97.3% -> 97.7% with undecided unchanged, examples predicted
    true and confirmed 377 -> 374 of 489 -> 479 runnable), but not one reading the setting it
    writes: that one normalises the given value (``mooncake_tcp`` -> ``mooncake``).

    Each resolution is traced on the rule set, and the next one runs only the rules its
    differences reach (`_Trace`): the same result as from scratch, at a fraction of the cost.
    A pass visits only the rules that may do something (`_Schedule`): in the first, those a
    difference reaches and those the trace saw write; in later ones, those of unknown time
    whose keys changed since they last ran (as above) and those the trace saw write.
    """
    values = Values(model, launch)
    steps = rules.steps(model)
    skipped = tuple(i for i in rules.derived if _stated(steps[i].dest, launch)) if rules.derived else ()
    plan = rules.schedule(model, skipped)
    run, starts, ends, first_free = plan.run, plan.starts, plan.ends, plan.first_free
    size = len(run)
    # By difference from the set's latest resolution: a rule whose keys hold what they held
    # there at the same step writes what it wrote there (see `_Trace`).
    traces = rules.traces
    past = traces.get(id(launch.facts)) or (traces[next(reversed(traces))] if traces else None)
    delta = _Delta.of(past.launch, launch) if past is not None and past.skipped == skipped else None
    dirty = delta.dirty if delta is not None else set()
    # what the trace wrote per round, and where (none to go by when the launches differ in the steps run)
    was_rounds, was_writers = (past.rounds, past.writers) if past is not None and delta is not None else ([], [])
    rounds: list[list[Any]] = []
    writers: list[tuple[int, ...]] = []  # per round, the steps that wrote (in order)
    changed: set[str] = set()
    # Rules of unknown time in later rounds: one whose keys did not change since it last ran
    # writes nothing (had it written, its own setting would have changed).
    last = [-1] * size  # per step: the step count when it last ran
    changed_at: dict[str, int] = {}  # per key: the step count when it last changed
    base = latest = 0  # steps run before this round (as if every one were visited); the count of the latest change
    stale: set[int] = set()  # rules of unknown time a change reached after they ran: they run next round
    for round_ in range(MAX_ROUNDS):
        before = dict(values.adjusted)
        changed = set()
        was = was_rounds[round_] if round_ < len(was_rounds) else None
        wrote = [_NO_WRITE] * size
        offset = base + 1 if round_ == 0 else base + 1 - first_free  # step i's count is offset + i
        wrote_at: list[int] = []
        if round_ == 0:  # every step runs: visited are those a difference reaches and the trace's writers
            due: set[int] = set()
            if was is None:
                heap = list(range(size))
            else:
                reached = set(was_writers[0])
                for key in dirty:
                    reached.update(plan.readers.get(key, ()))
                heap = sorted(reached)
        else:
            due = stale  # surely stale: a change reached them after they ran
            heap = sorted(due.union(was_writers[round_]) if was is not None else due)
        stale = set()
        pending: list[tuple[str, Any, str]] = []  # the rules of one time: all read what came before it
        traced = False  # whether the trace wrote in the open time
        pos = end = -1  # the latest step visited; the last step of the open time (-1: none open)
        while True:
            if heap:
                i = heap[0]
                if i <= pos:  # reached twice
                    heappop(heap)
                    continue
            else:
                i = size
            if end >= 0 and i > end:  # the open time ends: its writes land
                count = offset + end
                for name, new, key in pending:
                    values.adjusted[name] = new
                    changed_at[key] = latest = count
                    if end >= first_free:
                        changed.add(name)
                    for j in plan.free_readers.get(key, ()):  # a rule of unknown time reading it runs again
                        if j <= end:
                            stale.add(j)
                        elif round_:
                            due.add(j)
                            heappush(heap, j)
                if (pending or traced) and delta is not None and was is not None:
                    for key in delta.written(run, starts[end], end, was, wrote):
                        if not round_:  # newly different: the rules reading it are run, not replayed
                            for j in plan.readers.get(key, ()):
                                if j > end:
                                    heappush(heap, j)
                pending = []
                traced = False
                end = -1
                continue
            if i == size:
                break
            heappop(heap)
            pos = i
            if end < 0:
                end = ends[i]
            step = run[i]
            count = offset + i
            if round_ and i not in due and (latest < last[i] or max(map(changed_at.get, step.keys, _NEVER)) < last[i]):
                new = _NO_WRITE  # nothing it reads changed since it ran (visited: the trace wrote here)
            else:
                if was is not None and step.keys.isdisjoint(dirty):
                    new = was[i]
                else:
                    new = _NO_WRITE
                    fires = as_truth(step.when(values))
                    # unknown whether it fires: it keeps what the launch gives its setting (see above)
                    if fires is True or (fires is None and (step.rewrites or not _gives(launch, step.dest))):
                        current = values.flag(step.dest)
                        new = step.get(values)
                        if fires is None and not _same(new, current):
                            new = UNKNOWN
                        if _same(new, current):
                            new = _NO_WRITE
                last[i] = count
            if was is not None and was[i] is not _NO_WRITE:
                traced = True
            if new is not _NO_WRITE:
                wrote[i] = new
                wrote_at.append(i)
                pending.append((step.dest, new, step.writes))
        rounds.append(wrote)
        writers.append(tuple(wrote_at))
        base += size if round_ == 0 else size - first_free
        changed |= {d for d, v in values.adjusted.items() if d not in before or not _same(v, before[d])}
        if not changed:
            break
    else:
        for dest in changed:
            values.adjusted[dest] = UNKNOWN
    traces.pop(id(launch.facts), None)
    traces[id(launch.facts)] = _Trace(launch, skipped, rounds, writers)  # holds the facts: their id stays theirs
    if len(traces) > _TRACES:
        del traces[next(iter(traces))]
    return values


_TRACES = 4  # traces kept per rule set: a search moves among a few sets of facts
_NEVER = itertools.repeat(-1)  # `changed_at` of a key that never changed


_NO_WRITE: Any = object()  # a step that wrote nothing


@dataclass(frozen=True, slots=True)
class _Trace:
    """One resolution of a rule set, step by step: per round, what each rule run wrote
    (`_NO_WRITE`: nothing; rules not run in a round wrote nothing). A launch near it is
    resolved by difference: a rule whose keys (`_rule_keys`) hold at its step what they
    held there writes what it wrote there, so only rules downstream of a change run (a
    witness search tries launches that differ from each other in a setting or two)."""

    launch: Launch
    skipped: tuple[int, ...]  # the steps the launch states (`_stated`): not run
    rounds: list[list[Any]]
    writers: list[tuple[int, ...]]  # per round, the steps that wrote


@dataclass(slots=True)
class _Delta:
    """The keys (`_rule_keys`) that may hold something else than in the traced resolution
    at the current step; `fixed`: those that always may (the launches give them differently,
    or a field of the setting was written differently)."""

    dirty: set[str]
    fixed: set[str]

    @classmethod
    def of(cls, traced: Launch, launch: Launch) -> _Delta:
        dirty: set[str] = set()
        for mark, old, new in (("", traced.flags, launch.flags), (ENV_SETTING, traced.env, launch.env),
                               ("!", traced.facts, launch.facts)):
            if old is new:
                continue
            for name in old.keys() | new.keys():
                if name not in old or name not in new or not _identical(old[name], new[name]):
                    dirty.add(setting_key(name) if not mark else mark + name)
        return cls(dirty, set(dirty))

    def written(self, run: Sequence[_Step], start: int, end: int, was: Sequence[Any],
                wrote: Sequence[Any]) -> list[str]:
        """After the steps `start`..`end` (one time) wrote `wrote` where the trace wrote `was`;
        the keys that became dirty."""
        added: list[str] = []
        for j in range(start, end + 1):
            old, new = was[j], wrote[j]
            if old is _NO_WRITE and new is _NO_WRITE:
                continue
            dest = run[j].dest
            key = run[j].writes
            if old is not _NO_WRITE and new is not _NO_WRITE and _identical(old, new):
                if key == dest and key not in self.fixed:  # the whole setting is the same again
                    self.dirty.discard(key)
            else:
                if key not in self.dirty:
                    self.dirty.add(key)
                    added.append(key)
                if key != dest:  # a field: the rest of the setting may differ
                    self.fixed.add(key)
        return added


def _identical(a: Any, b: Any) -> bool:
    """The same to every reader: one type, equal, one repr (``(1,)`` and ``(True,)`` are equal)."""
    if a is b:
        return True
    try:
        return type(a) is type(b) and bool(a == b) and repr(a) == repr(b)
    except Exception:
        return False


def _gives(launch: Launch, dest: str) -> bool:
    """Does the command line give `dest` (or the field of a JSON setting it names)?"""
    return dest in launch.flags or given_field(launch, dest) is not UNKNOWN


def _stated(dest: str, launch: Launch) -> bool:
    """A derived setting ``f()`` the launch states (a platform fact): kept against its definition."""
    return dest[-1:] == ")" and derived_fact(dest) in launch.facts


def _program_order(rule: Rule) -> tuple[bool, int]:
    """Rules in the order a launch runs them where known (`Rule.at`), the others after."""
    at = rule.at
    return at is None, at if at is not None else 0


@lru_cache(maxsize=1 << 16)
def rewrites_itself(rule: Rule) -> bool:
    """A rule renaming one value of its setting to a constant (``if x == "a": x = "b"``) or
    computing it from the setting with a builtin or a helper of the project's (``x = x.upper()``,
    ``x = resolve_alias(x, y)``): it normalises what the command line gave, so it applies to
    it. A rule choosing a value by other conditions (``x = "b" if quant else x`` under
    ``x == "a"``) keeps the given one (an assumption)."""
    def own(expr: Expr) -> bool:
        return isinstance(expr, Ref) and expr.kind is RefKind.FLAG and base_dest(expr.name) == rule.dest

    def value_test(node: Expr) -> bool:  # ``x == "a"``, ``x in ("a", "b")``: not ``x is None`` (a default)
        if isinstance(node, Compare):
            pair = (node.left, node.right)
            return any(own(a) and isinstance(b, Const) and b.value is not None for a, b in (pair, pair[::-1]))
        return isinstance(node, In) and own(node.item) and isinstance(node.container, (Const, Seq))

    value = rule.value
    if isinstance(value, Const):  # a rename: ``if x == "mooncake_tcp": x = "mooncake"``
        return any(value_test(n) for n in walk(rule.when))
    if isinstance(value, Apply) and value.fn == STATED_OR and len(value.args) == 2:
        value = value.args[0]  # ``x = resolve_alias(x, ...)``: a helper of the project's, summarised
        return isinstance(value, Apply) and any(own(a) for a in value.args)
    return isinstance(value, Apply) and value.fn in _FUNCTIONS and any(own(a) for a in value.args)


def resolved(model: Model, launch: Launch, rules: RuleSet) -> Values:
    """`resolve`, memoised per rule set and what the launch gives for the settings those
    rules read (the search asks the same often)."""
    if not rules.rules:
        return Values(model, launch)
    key = rules.reads.key(launch)
    adjusted = rules.adjusted.get(key)
    if adjusted is None:
        adjusted = rules.adjusted[key] = resolve(model, launch, rules).adjusted
    return Values(model, launch, adjusted)  # shared, never written after `resolve`


def evaluate(expr: Expr, launch: Launch, model: Model) -> Truth:
    """Does `expr` hold for `launch`? Only adjustments that can matter are applied."""
    return Truth.of(node(model, expr).decide_whole(launch))


def undecided(expr: Expr, launch: Launch, model: Model) -> list[Ref | Unknown | Apply]:
    """The smallest terms of `expr` whose value is unknown for `launch` (why a result is
    unknown): leaves, and calls of functions we cannot evaluate on known arguments."""
    values = resolved(model, launch, model.rule_set(expr))
    out: list[Ref | Unknown | Apply] = []

    def visit(node: Expr) -> None:
        kids = children(node)
        before = len(out)
        for kid in kids:
            visit(kid)
        if len(out) > before or node in out:
            return
        if isinstance(node, Ref | Unknown | Apply) and _is_unknown(node, values):
            out.append(node)

    visit(expr)
    return out


def _is_unknown(term: Ref | Unknown | Apply, values: Values) -> bool:
    """A leaf nobody gives, or a call with arguments (all known) whose result is not."""
    if isinstance(term, Apply) and not term.args:
        return False
    return value(term, values) is UNKNOWN


def undecided_leaves(expr: Expr, launch: Launch, model: Model) -> list[str]:
    """`undecided`, as text: setting names, ``kind:name`` facts, source text otherwise."""
    out: list[str] = []
    for node in undecided(expr, launch, model):
        if isinstance(node, Ref):
            text = node.name if node.kind in (RefKind.FLAG, RefKind.ENV) else f"{node.kind}:{node.name}"
        else:
            text = node.text
        if text not in out:
            out.append(text)
    return out
