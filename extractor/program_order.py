"""The order in which a launch runs the analysed code: from the profile's entry points in
step order, each function's checks, assignments and calls by line (a call's callee,
or a function reference handed to a call such as ``run_hook(handle_x, cfg)``, runs
where the call is), depth first.

Every check (raise/assert site) and config assignment a walk from an entry point meets
gets a time: its position in that walk. A check sees the assignments with smaller times
(`analyzers.first_error`); a launch meets checks in time order. A function runs once, at
its first call (a helper called again later does not move), except for its checks whose
error a ``try`` around that call catches for good: they get their time at the first call
that lets the error through (``parse_key`` validated inside ``try: ... except ValueError``
first, then again unguarded). Code no chain of calls from an entry point reaches gets no
time (its order is unknown).
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from extractor.callers import CallEdges, EntryPoints, Func
from extractor.exceptions import catches
from extractor.records import CallSite, FileSites

Place = tuple[str, str, int]  # (path, function, line) of a check or an assignment


@dataclass(frozen=True, slots=True)
class ProgramOrder:
    time: dict[Place, int]  # 0 = the first thing a launch runs

    def of(self, path: str, function: str, line: int) -> int | None:
        return self.time.get((path, function, line))


# at one line the calls run first: ``cfg.x = f(cfg)``, ``if f(cfg): raise``
_CALL, _OWN = 0, 1
# (line, _CALL or _OWN, callees, what a call's ``try`` catches for good or a check raises ("": an assignment))
Event = tuple[int, int, tuple[Func, ...], tuple[str, ...]]


def _events(files: Sequence[FileSites], callers: Sequence[FileSites], graph: CallEdges,
            runners: frozenset[str] = frozenset()) -> dict[Func, list[Event]]:
    found: dict[Func, list[Event]] = {}
    # a runner's call runs every registered model override there (registration order: files
    # by path, each in document order, as the registering package imports them)
    overrides = tuple((fs.path, q) for fs in sorted(files, key=lambda f: f.path) for q in fs.overrides)
    for fs in (*files, *callers):
        for call in fs.calls:
            if targets := tuple(graph.targets(fs.path, call)):
                if overrides and any(t[1].rpartition(".")[2] in runners for t in targets):
                    targets += overrides
                if not _deferred(call, fs.calls):
                    found.setdefault((fs.path, call.caller), []).append((call.line, _CALL, targets, call.caught))
        own = [(s.line, s.function, s.exception) for s in fs.sites]
        own += [(a.line, a.function, "") for a in fs.adjustments if not a.derived]
        for line, function, raised in own:
            found.setdefault((fs.path, function), []).append((line, _OWN, (), (raised,)))
    return {func: sorted(set(events)) for func, events in found.items()}


def _deferred(call: CallSite, calls: Sequence[CallSite]) -> bool:
    """A call the same caller makes again later under fewer conditions (``if spec: f()`` ...
    ``f()``): placed at the later call, which runs it whatever the extra conditions say."""
    own = {g.expr for g in call.guards}
    return any(c.caller == call.caller and c.callee == call.callee and c.line > call.line and not c.ref
               and {g.expr for g in c.guards} < own for c in calls)


def program_order(files: Sequence[FileSites], callers: Sequence[FileSites], entry: EntryPoints,
                  graph: CallEdges | None = None) -> ProgramOrder:
    """`ProgramOrder` of the checks and assignments of `files` and `callers` from `entry`
    (`graph`: their `CallEdges`, when already built)."""
    graph = graph or CallEdges(files, callers)
    events = _events(files, callers, graph, entry.override_runners)
    time: dict[Place, int] = {}
    # a function runs once per set of errors the trys around its call chain catch for good
    started: set[tuple[Func, frozenset[str]]] = set()
    for seed in _seeds(graph, entry):
        if (seed, frozenset()) in started:
            continue
        started.add((seed, frozenset()))
        stack: list[tuple[Func, frozenset[str], Iterator[Event]]] = [(seed, frozenset(), iter(events.get(seed, ())))]
        while stack:
            func, caught, pending = stack[-1]
            event = next(pending, None)
            if event is None:
                stack.pop()
                continue
            line, kind, callees, names = event
            if kind == _OWN:
                if not (names[0] and caught and catches(tuple(caught), names[0])):
                    time.setdefault((func[0], func[1], line), len(time))
                continue
            inner = caught | frozenset(names)
            fresh = [c for c in callees if (c, inner) not in started and (c, frozenset()) not in started]
            for callee in reversed(fresh):  # the first runs first
                started.add((callee, inner))
                stack.append((callee, inner, iter(events.get(callee, ()))))
    return ProgramOrder(time)


def _seeds(graph: CallEdges, entry: EntryPoints) -> list[Func]:
    """The entry points in the order the launcher runs them: its module functions, then
    the config's methods, as listed."""
    defined = sorted(graph.graph.defined)
    out = [f for module, name in entry.functions for f in defined if f[0].endswith(module) and f[1] == name]
    for name in entry.methods:
        out += [f for f in graph.methods.get(name, []) if f[1].split(".")[0] in entry.config_classes]
    return out
