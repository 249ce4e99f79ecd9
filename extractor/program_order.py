"""The order in which a launch runs the analysed functions: from the profile's entry
points in step order, each function's calls (and function references handed to calls,
such as ``run_hook(handle_x, cfg)``) in the order the source makes them, depth first.

A function's rank is when it first starts (depth-first preorder): its own checks are
placed before those of every function it calls, which holds for validation hooks that
check and then delegate, and is approximate where a function calls a helper between its
own checks. Functions no chain of calls from an entry point reaches get no rank (their
order is unknown).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from extractor.callers import CallEdges, EntryPoints, Func
from extractor.records import FileSites

MAX_FUNCTIONS = 100_000  # a bound on the walk (each function is visited once anyway)


@dataclass(frozen=True, slots=True)
class ProgramOrder:
    rank: dict[Func, int]  # first start of each reached function, 0 = the first entry point

    def of(self, func: Func) -> int | None:
        return self.rank.get(func)


def program_order(files: Sequence[FileSites], callers: Sequence[FileSites], entry: EntryPoints,
                  graph: CallEdges | None = None) -> ProgramOrder:
    """`ProgramOrder` of the functions of `files` and `callers` from `entry` (`graph`: their
    `CallEdges`, when already built)."""
    graph = graph or CallEdges(files, callers)
    calls: dict[Func, list[Func]] = {}
    for fs in (*files, *callers):
        for call in fs.calls:  # document order
            calls.setdefault((fs.path, call.caller), []).extend(graph.targets(fs.path, call))
    rank: dict[Func, int] = {}
    for seed in _seeds(graph, entry):
        stack = [seed]
        while stack and len(rank) < MAX_FUNCTIONS:
            func = stack.pop()
            if func in rank:
                continue
            rank[func] = len(rank)
            stack.extend(reversed([f for f in calls.get(func, ()) if f not in rank]))
    return ProgramOrder(rank)


def _seeds(graph: CallEdges, entry: EntryPoints) -> list[Func]:
    """The entry points in the order the launcher runs them: its module functions, then
    the config's constructors (a function builds it), then its methods, as listed."""
    defined = sorted(graph.graph.defined)
    out = [f for module, name in entry.functions for f in defined if f[0].endswith(module) and f[1] == name]
    for name in entry.methods:
        out += [f for f in graph.methods.get(name, []) if f[1].split(".")[0] in entry.config_classes]
    return out
