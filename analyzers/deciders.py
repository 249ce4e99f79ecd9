"""Conditions ready to decide launches (`node`), memoised per what a launch gives for what they read."""
from __future__ import annotations

from typing import Any

from analyzers.eval_model import Decider, EvalCache, Model, RuleSet
from analyzers.kleene import as_truth, kleene, negated
from analyzers.launch import Launch
from analyzers.path_tests import path_option
from analyzers.reads import Reads, frozen_names
from analyzers.resolution import resolved
from analyzers.semantics import Code, compile_truth, runtime_refs
from extractor.ir import (
    And,
    Expr,
    Not,
    Or,
    Ref,
    RefKind,
    Truthy,
    Visitor,
    as_condition,
    conjuncts,
    is_condition,
    refs,
)


class Plan:
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
                frozen_names(frozenset().union(*(r.flags for r in reads))),
                frozen_names(frozenset().union(*(r.env for r in reads))),
                frozen_names(frozenset().union(*(r.facts for r in reads))))
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
            leaves, own = cache.leaf_reads.get(key) or cache.leaf_reads.setdefault(key, _leaf_reads(expr))
            rules = model.rule_set_of(leaves)
            reads = cache.intern(own | rules.reads)
            found = cache.plans[key] = Plan(model, expr, rules, reads)
        return found


def _leaf_reads(expr: Expr) -> tuple[list[Ref], Reads]:
    """The leaves of a condition and what it reads of a launch itself (its adjustments' reads
    apart): the same in every view of a model, so found once per shape."""
    leaves = refs(expr)
    # a test of an option's path reads that option too: a command line changes it (`<missing>`)
    paths = [Ref(RefKind.FLAG, option, option) for r in leaves if (option := path_option(r.name)) is not None]
    return leaves, Reads.of([*leaves, *runtime_refs(expr), *paths])


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
