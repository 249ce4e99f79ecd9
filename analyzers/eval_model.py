"""The evaluator's model (declared flags/env and adjustments) and what evaluation over it remembers."""
from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, NamedTuple, Protocol, TypeVar

from analyzers.examples import Examples
from analyzers.flags import DeclKind
from analyzers.kleene import UNKNOWN
from analyzers.launch import Launch
from analyzers.reads import Reads
from analyzers.rules import Rule, RuleGraph, program_order, rewrites_itself
from analyzers.semantics import Code, Compiler, compile_truth, compile_value, runtime_ref
from analyzers.settings import base_dest, derived_fact, literal_default, record_of, setting_key
from extractor.ir import (
    ENV_SETTING,
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
    distinct_nodes,
    refs,
)


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

    @property
    def compiler(self) -> Compiler:
        """Compiles conditions over this model (equal sub-trees share their code: `EvalCache.key`)."""
        return self.cache.compiler

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
        view.cache.rule_reads, view.cache.rule_steps, view.cache.rule_keys = (cache.rule_reads, cache.rule_steps,
                                                                               cache.rule_keys)
        # a rule set is its rules whichever view chose them: shared, keyed by the indices in this model;
        # a node's key is its shape's whatever the model: numbered once for all views
        view.cache.rule_sets, view.cache.shapes, view.cache.keys = cache.rule_sets, cache.shapes, cache.keys
        view.cache.leaf_reads = cache.leaf_reads
        view.cache.origin = tuple(cache.origin[i] for i in kept) if cache.origin is not None else tuple(kept)
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
                known[dest] = literal_default(flag.default)
        return known[dest]

    def env_default(self, name: str) -> Any:
        known = self.cache.env_defaults
        if name not in known:
            var = self.flags.env_var(name) if self.flags is not None else None
            known[name] = UNKNOWN if var is None else literal_default(var.default)
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
            return self.rule_set_of(refs(expr))
        found = known[expr] = self.rule_set_of(refs(expr))
        return found

    def rule_set_of(self, found: Iterable[Ref]) -> RuleSet:
        chosen: set[int] = set()
        for ref in found:
            if ref.kind is RefKind.FLAG:
                chosen |= self._rules_for(base_dest(ref.name)) | self._rules_for(record_of(ref.name))
            elif ref.kind is RefKind.ENV and self.adjusts(ENV_SETTING + ref.name):
                chosen |= self._rules_for(ENV_SETTING + ref.name)
        key = tuple(sorted(chosen))
        origin = self.cache.origin
        if origin is not None:  # a view's: the same rules chosen in another view are the same set
            key = tuple(origin[i] for i in key)
        known = self.cache.rule_sets
        rules = known.get(key)
        if rules is None:  # one per set: what it remembers is shared by every condition it serves
            rules = known[key] = RuleSet.of(key, tuple(self.rules[i] for i in sorted(chosen)), self.cache)
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
    rule_sets: dict[tuple[int, ...], RuleSet] = field(default_factory=dict)  # rule indices (`origin`'s) -> their set
    origin: tuple[int, ...] | None = None  # a view's (`Model.subset`): its rules' indices in the model it was cut from
    relevant: dict[Expr, RuleSet] = field(default_factory=dict)  # condition -> the rules it depends on
    rule_steps: Identity[Rule, Step] = field(default_factory=Identity)  # compiled rules; shared with views
    flag_defaults: dict[str, Any] = field(default_factory=dict)
    env_defaults: dict[str, Any] = field(default_factory=dict)
    env_types: dict[str, str | None] = field(default_factory=dict)
    shapes: dict[tuple[Hashable, ...], int] = field(default_factory=dict)  # node shape -> its key
    keys: Identity[Expr, int] = field(default_factory=Identity)  # nodes below and/or/not -> key
    recent: Identity[Expr, int] = field(default_factory=Identity)  # and/or/not -> key (at most RECENT)
    plans: dict[int, Decider] = field(default_factory=dict)  # key of a condition -> its plan (`deciders.Plan`)
    leaf_reads: dict[int, Any] = field(default_factory=dict)  # key -> its leaves and own reads (`deciders`); shared
    nodes: Identity[Expr, Decider] = field(default_factory=Identity)  # node -> its decider
    code: dict[tuple[int, bool], Code] = field(default_factory=dict)  # (key, truth?) -> compiled code
    reads: dict[Reads, Reads] = field(default_factory=dict)  # one object per content
    searches: dict[Hashable, Any] = field(default_factory=dict)  # for searches over the model (witness)
    views: dict[int, Model] = field(default_factory=dict)  # `Model.before`: timed rules run before -> model
    timed: list[int] | None = None  # `Model.before`: the times of the timed rules, sorted
    at: dict[int, Model] = field(default_factory=dict)  # `Model.before`: time -> model (a check asks often)
    bare: Model | None = None  # `Model.unadjusted`
    rule_reads: Identity[Rule, Reads] = field(default_factory=Identity)  # `_rule_reads`; shared with `before`'s views
    rule_keys: Identity[Rule, frozenset[str]] = field(default_factory=Identity)  # `_rule_keys`; shared too
    compiler: Compiler = field(init=False, repr=False)  # compiles into `code`

    def __post_init__(self) -> None:
        self.compiler = Compiler(self)

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


def _rule_reads(rule: Rule, known: Identity[Rule, Reads]) -> Reads:
    """What `rule` reads (the leaves of its condition and value, and the facts they call for)
    and writes: a rule set's reads are the union of its rules' (`Reads.union`), each found once."""
    found = known.get(rule)
    if found is None:
        nodes = distinct_nodes((rule.when, rule.value))
        read = [n for n in nodes if isinstance(n, Ref)] + [r for n in nodes if (r := runtime_ref(n)) is not None]
        found = known.put(rule, Reads.of(read, (rule.dest,)))
    return found


@dataclass(slots=True, eq=False)
class RuleSet:
    """The rules one condition depends on (one object per set: `Model.rule_set`), what they
    read, and the settings they adjust per what a launch gives for those."""

    indices: tuple[int, ...]  # in the model's rules (the whole model's, for a view's set: `EvalCache.origin`)
    rules: tuple[Rule, ...]
    reads: Reads
    adjusted: dict[str, dict[str, Any]] = field(default_factory=dict)
    ordered: list[Step] | None = None  # `steps`
    derived: tuple[int, ...] = ()  # the steps writing a derived setting ``f()`` (a launch may state it)
    traces: dict[int, Trace] = field(default_factory=dict)  # `Trace`s by the launch's facts (`resolve`)
    schedules: dict[tuple[int, ...], Schedule] = field(default_factory=dict)  # by the steps skipped

    @classmethod
    def of(cls, indices: tuple[int, ...], rules: tuple[Rule, ...], cache: EvalCache) -> RuleSet:
        reads = Reads.union([_rule_reads(r, cache.rule_reads) for r in rules])
        return cls(indices, rules, cache.intern(reads))

    def steps(self, model: Model) -> list[Step]:
        """The rules compiled, in the order a launch runs them (`program_order`), each with
        the settings it reads and writes (`_rule_keys`)."""
        if self.ordered is None:
            self.ordered = [_rule_step(rule, model) for rule in sorted(self.rules, key=program_order)]
            self.derived = tuple(i for i, step in enumerate(self.ordered) if step.dest[-1:] == ")")
        return self.ordered

    def schedule(self, model: Model, skipped: tuple[int, ...]) -> Schedule:
        """The steps a launch that states the derived settings of `skipped` runs, indexed."""
        found = self.schedules.get(skipped)
        if found is None:
            steps = self.steps(model)
            found = self.schedules[skipped] = Schedule.of(
                [step for i, step in enumerate(steps) if i not in skipped] if skipped else steps)
        return found


@dataclass(frozen=True, slots=True)
class Schedule:
    """Steps in the order `resolve` runs them, indexed so that a pass visits only the steps
    that may do something: the times (`starts`/`ends`: the first and last step of each
    step's), where the rules of unknown time begin (they come last: `program_order`), and
    per key the steps reading it (`readers`; `free_readers`: those of unknown time)."""

    run: Sequence[Step]
    starts: tuple[int, ...]
    ends: tuple[int, ...]
    first_free: int
    readers: dict[str, tuple[int, ...]]
    free_readers: dict[str, tuple[int, ...]]

    @classmethod
    def of(cls, run: Sequence[Step]) -> Schedule:
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


class Step(NamedTuple):
    """One rule as `resolve` runs it."""

    dest: str
    when: Code
    get: Code
    at: int | None
    rewrites: bool  # `rewrites_itself`
    keys: frozenset[str]  # `_rule_keys`
    writes: str  # the key of `dest`


def _rule_step(rule: Rule, model: Model) -> Step:
    """`rule` compiled, once per model (rule sets share rules; views share it too: compiled
    code reads only the settings it is given, so any model's will do)."""
    known = model.cache.rule_steps
    one = known.get(rule)
    if one is None:
        cache = model.cache
        one = known.put(rule, Step(rule.dest, compile_truth(rule.when, model), compile_value(rule.value, model),
                                    rule.at, rewrites_itself(rule), _rule_keys(rule, cache.rule_keys, cache.rule_reads),
                                    setting_key(rule.dest)))
    return one


def _rule_keys(rule: Rule, known: Identity[Rule, frozenset[str]], reads_of: Identity[Rule, Reads]) -> frozenset[str]:
    """Everything a rule's result depends on besides the model: the settings it reads and
    the one it writes (`setting_key`), env vars (as ``env:NAME``, the name the code sets
    them by) and facts (``!kind:name``)."""
    found = known.get(rule)
    if found is None:
        reads = _rule_reads(rule, reads_of)
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


@dataclass(frozen=True, slots=True)
class Trace:
    """One resolution of a rule set, step by step: per round, what each rule run wrote
    (`_NO_WRITE`: nothing; rules not run in a round wrote nothing). A launch near it is
    resolved by difference: a rule whose keys (`_rule_keys`) hold at its step what they
    held there writes what it wrote there, so only rules downstream of a change run (a
    witness search tries launches that differ from each other in a setting or two)."""

    launch: Launch
    skipped: tuple[int, ...]  # the steps the launch states (`_stated`): not run
    rounds: list[list[Any]]
    writers: list[tuple[int, ...]]  # per round, the steps that wrote
