"""Settings after automatic adjustments (`resolve`), by difference from the latest resolution
of the same rules."""
from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from heapq import heappop, heappush
from typing import Any

from analyzers.eval_model import Model, RuleSet, Schedule, Step, Trace
from analyzers.kleene import UNKNOWN, as_truth, same
from analyzers.launch import Launch
from analyzers.semantics import Values
from analyzers.settings import derived_fact, given_field, setting_key
from extractor.ir import ENV_SETTING

MAX_ROUNDS = 8  # adjustment passes before a still-changing setting is given up as unknown


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
    differences reach (`Trace`): the same result as from scratch, at a fraction of the cost.
    A pass visits only the rules that may do something (`_Schedule`): in the first, those a
    difference reaches and those the trace saw write; in later ones, those of unknown time
    whose keys changed since they last ran (as above) and those the trace saw write.
    """
    return _Resolution.start(model, launch, rules).run()


@dataclass(slots=True)
class _Resolution:
    """One `resolve` under way: the schedule it runs, the trace it goes by (`_Trace`), what it
    wrote per round, and in step counts (as if every step were visited) when each step last
    ran and each key last changed. The fields below `stale` belong to the pass under way."""

    values: Values
    rules: RuleSet
    skipped: tuple[int, ...]  # the steps the launch states (`_stated`): not run
    plan: Schedule
    delta: _Delta | None  # the keys that may differ from the trace's (None: no trace applies)
    was_rounds: list[list[Any]]  # what the trace wrote per round (none when no trace applies)
    was_writers: list[tuple[int, ...]]  # and where
    last: list[int]  # per step: the step count when it last ran
    rounds: list[list[Any]] = field(default_factory=list)  # what each step wrote, per round
    writers: list[tuple[int, ...]] = field(default_factory=list)  # per round, the steps that wrote (in order)
    changed_at: dict[str, int] = field(default_factory=dict)  # per key: the step count when it last changed
    base: int = 0  # steps run before this round (as if every one were visited)
    latest: int = 0  # the step count of the latest change
    stale: set[int] = field(default_factory=set)  # rules of unknown time a change reached after they ran
    was: list[Any] | None = None  # what the trace wrote in this round
    wrote: list[Any] = field(default_factory=list)
    wrote_at: list[int] = field(default_factory=list)
    offset: int = 0  # step i's count is offset + i
    due: set[int] = field(default_factory=set)  # rules of unknown time that surely run this round
    heap: list[int] = field(default_factory=list)  # the steps to visit
    changed: set[str] = field(default_factory=set)  # settings written by rules of unknown time
    pending: list[tuple[str, Any, str]] = field(default_factory=list)  # the open time's writes (land together)
    traced: bool = False  # whether the trace wrote in the open time
    pos: int = -1  # the latest step visited
    end: int = -1  # the last step of the open time (-1: none open)

    @classmethod
    def start(cls, model: Model, launch: Launch, rules: RuleSet) -> _Resolution:
        """By difference from the set's latest resolution: a rule whose keys hold what they held
        there at the same step writes what it wrote there (see `_Trace`)."""
        steps = rules.steps(model)
        skipped = tuple(i for i in rules.derived if _stated(steps[i].dest, launch)) if rules.derived else ()
        plan = rules.schedule(model, skipped)
        traces = rules.traces
        past = traces.get(id(launch.facts)) or (traces[next(reversed(traces))] if traces else None)
        delta = _Delta.of(past.launch, launch) if past is not None and past.skipped == skipped else None
        # none to go by when the launches differ in the steps run
        was_rounds, was_writers = (past.rounds, past.writers) if past is not None and delta is not None else ([], [])
        return cls(Values(model, launch), rules, skipped, plan, delta, was_rounds, was_writers, [-1] * len(plan.run))

    @property
    def dirty(self) -> set[str]:
        return self.delta.dirty if self.delta is not None else _CLEAN

    def run(self) -> Values:
        values = self.values
        changed: set[str] = set()
        for round_ in range(MAX_ROUNDS):
            changed = self._round(round_)
            if not changed:
                break
        else:
            for dest in changed:
                values.adjusted[dest] = UNKNOWN
        self._keep_trace()
        return values

    def _keep_trace(self) -> None:
        traces, launch = self.rules.traces, self.values.launch
        traces.pop(id(launch.facts), None)
        # holds the facts: their id stays theirs
        traces[id(launch.facts)] = Trace(launch, self.skipped, self.rounds, self.writers)
        if len(traces) > _TRACES:
            del traces[next(iter(traces))]

    def _round(self, round_: int) -> set[str]:
        """One pass; the settings it changed (none: done)."""
        values, plan = self.values, self.plan
        before = dict(values.adjusted)
        self._begin(round_)
        self._walk(round_)
        self.rounds.append(self.wrote)
        self.writers.append(tuple(self.wrote_at))
        self.base += len(plan.run) if round_ == 0 else len(plan.run) - plan.first_free
        changed = self.changed
        changed |= {d for d, v in values.adjusted.items() if d not in before or not same(v, before[d])}
        return changed

    def _begin(self, round_: int) -> None:
        """The first pass runs every step, and visits those a difference reaches and the trace's
        writers; later ones visit the rules of unknown time a change reached and the trace's
        writers. A rule of unknown time whose keys did not change since it last ran writes
        nothing (had it written, its own setting would have changed)."""
        plan = self.plan
        size = len(plan.run)
        was = self.was = self.was_rounds[round_] if round_ < len(self.was_rounds) else None
        self.changed = set()
        self.wrote = [_NO_WRITE] * size
        self.wrote_at = []
        self.offset = self.base + 1 if round_ == 0 else self.base + 1 - plan.first_free
        if round_ == 0:
            self.due = set()
            self.heap = list(range(size)) if was is None else sorted(self._reached())
        else:
            self.due = self.stale  # surely stale: a change reached them after they ran
            self.heap = sorted(self.due.union(self.was_writers[round_]) if was is not None else self.due)
        self.stale = set()
        self.pending = []
        self.traced = False
        self.pos = self.end = -1

    def _reached(self) -> set[int]:
        """The steps a difference from the trace reaches, and those the trace saw write first."""
        reached = set(self.was_writers[0])
        for key in self.dirty:
            reached.update(self.plan.readers.get(key, ()))
        return reached

    def _walk(self, round_: int) -> None:
        heap, size = self.heap, len(self.plan.run)
        while True:
            if heap:
                i = heap[0]
                if i <= self.pos:  # reached twice
                    heappop(heap)
                    continue
            else:
                i = size
            if self.end >= 0 and i > self.end:  # the open time ends: its writes land
                self._land(round_)
                self._note_differences(round_)
                self.pending = []
                self.traced = False
                self.end = -1
                continue
            if i == size:
                return
            heappop(heap)
            self._visit(i, round_)

    def _land(self, round_: int) -> None:
        """The open time's writes land; the rules of unknown time reading them run again."""
        plan, end = self.plan, self.end
        count = self.offset + end
        for name, new, key in self.pending:
            self.values.adjusted[name] = new
            self.changed_at[key] = self.latest = count
            if end >= plan.first_free:
                self.changed.add(name)
            for j in plan.free_readers.get(key, ()):
                if j <= end:
                    self.stale.add(j)
                elif round_:
                    self.due.add(j)
                    heappush(self.heap, j)

    def _note_differences(self, round_: int) -> None:
        """The keys the open time made differ from the trace; in the first pass the rules
        reading them are run, not replayed."""
        if not (self.pending or self.traced) or self.delta is None or self.was is None:
            return
        plan, end = self.plan, self.end
        for key in self.delta.written(plan.run, plan.starts[end], end, self.was, self.wrote):
            if not round_:
                for j in plan.readers.get(key, ()):
                    if j > end:
                        heappush(self.heap, j)

    def _visit(self, i: int, round_: int) -> None:
        self.pos = i
        if self.end < 0:
            self.end = self.plan.ends[i]
        step = self.plan.run[i]
        new = self._write_of(i, step, round_)
        if self.was is not None and self.was[i] is not _NO_WRITE:
            self.traced = True
        if new is not _NO_WRITE:
            self.wrote[i] = new
            self.wrote_at.append(i)
            self.pending.append((step.dest, new, step.writes))

    def _write_of(self, i: int, step: Step, round_: int) -> Any:
        """What step `i` writes: nothing when nothing it reads changed since it ran (visited:
        the trace wrote here), what the trace wrote when its keys are as they were there, else
        what its rule gives."""
        last = self.last
        if round_ and i not in self.due and (
                self.latest < last[i] or max(map(self.changed_at.get, step.keys, _NEVER)) < last[i]):
            return _NO_WRITE
        last[i] = self.offset + i
        if self.was is not None and step.keys.isdisjoint(self.dirty):
            return self.was[i]
        return _fired(step, self.values)


def _fired(step: Step, values: Values) -> Any:
    """What `step`'s rule writes on `values` (`_NO_WRITE`: nothing new). Where it is unknown
    whether it fires it keeps what the launch gives its setting (see `resolve`)."""
    fires = as_truth(step.when(values))
    if not (fires is True or (fires is None and (step.rewrites or not _gives(values.launch, step.dest)))):
        return _NO_WRITE
    current = values.flag(step.dest)
    new = step.get(values)
    if fires is None and not same(new, current):
        new = UNKNOWN
    return _NO_WRITE if same(new, current) else new


_TRACES = 4  # traces kept per rule set: a search moves among a few sets of facts
_NEVER = itertools.repeat(-1)  # `changed_at` of a key that never changed


_NO_WRITE: Any = object()  # a step that wrote nothing
_CLEAN: set[str] = set()  # no trace to differ from: nothing is dirty (never written)


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

    def written(self, run: Sequence[Step], start: int, end: int, was: Sequence[Any],
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
