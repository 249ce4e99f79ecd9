"""Settings after automatic adjustments (`resolve`), by difference from the latest resolution of the same rules."""
from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from heapq import heappop, heappush
from typing import Any

from analyzers.eval_model import Model, RuleSet, Step, Trace
from analyzers.kleene import UNKNOWN, as_truth, same
from analyzers.launch import Launch
from analyzers.semantics import Values
from analyzers.settings import derived_fact, given_field, setting_key
from extractor.ir import (
    ENV_SETTING,
)

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
    values = Values(model, launch)
    steps = rules.steps(model)
    skipped = tuple(i for i in rules.derived if _stated(steps[i].dest, launch)) if rules.derived else ()
    plan = rules.schedule(model, skipped)
    run, starts, ends, first_free = plan.run, plan.starts, plan.ends, plan.first_free
    size = len(run)
    # By difference from the set's latest resolution: a rule whose keys hold what they held
    # there at the same step writes what it wrote there (see `Trace`).
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
                        if fires is None and not same(new, current):
                            new = UNKNOWN
                        if same(new, current):
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
        changed |= {d for d, v in values.adjusted.items() if d not in before or not same(v, before[d])}
        if not changed:
            break
    else:
        for dest in changed:
            values.adjusted[dest] = UNKNOWN
    traces.pop(id(launch.facts), None)
    traces[id(launch.facts)] = Trace(launch, skipped, rounds, writers)  # holds the facts: their id stays theirs
    if len(traces) > _TRACES:
        del traces[next(iter(traces))]
    return values


_TRACES = 4  # traces kept per rule set: a search moves among a few sets of facts
_NEVER = itertools.repeat(-1)  # `changed_at` of a key that never changed


_NO_WRITE: Any = object()  # a step that wrote nothing


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
