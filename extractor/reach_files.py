"""Files outside the targets that a launch reaches: the modules whose functions the launch's
reached functions call through an import (`extractor.callers.reachability`, the call graph
that decides reachability everywhere), followed a file at a time, so that only files a
launch reaches are parsed. Their checks in reached functions are catalog entries like the
targets' own (`reached_sites`).
"""
from __future__ import annotations

from bisect import bisect_right
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import replace

from extractor.callers import CallEdges, EntryPoints, reachability
from extractor.records import LAUNCHED, FileSites

MAX_ROUNDS = 12  # call-chain levels followed into files outside the targets
Place = tuple[str, str, int]  # (path, function, line): a check or assignment (`extractor.program_order`)


class ModuleIndex:
    """The program's Python files by the dotted module they are (``a.b.c`` -> ``…/a/b/c.py``
    or ``…/a/b/c/__init__.py``), the paths `excluded` names left out."""

    def __init__(self, paths: Iterable[str]) -> None:
        self._by_suffix: dict[str, list[str]] = {}
        for path in paths:
            if not path.endswith(".py"):
                continue
            stem = path[: -len("/__init__.py")] if path.endswith("/__init__.py") else path[:-3]
            parts = stem.split("/")
            for n in range(len(parts)):
                self._by_suffix.setdefault(".".join(parts[n:]), []).append(path)

    def paths(self, module: str) -> list[str]:
        """The files that can be `module` (one, unless several roots hold a module of that name)."""
        return self._by_suffix.get(module, [])


def _modules(target: str, rest: str) -> list[str]:
    """The modules a call reaches through the import of `target` (``a.b.name``): ``name``
    defined in ``a.b``, or ``a.b.name`` a module whose ``rest`` (a function or class) is called."""
    out = [target.rpartition(".")[0]] if "." in target else []
    return [*out, target] if rest else out


def called_modules(files: Sequence[FileSites], entry: EntryPoints, index: ModuleIndex) -> set[str]:
    """The files a function `entry` reaches calls through an import, which no file of `files`
    defines (the call resolves to nothing analysed)."""
    graph = CallEdges(files, ())
    reach = reachability(files, (), entry, graph)
    have = {fs.path for fs in files}
    found: set[str] = set()
    for fs in files:
        imports = dict(fs.imports)
        for call in fs.calls:
            if reach.get((fs.path, call.caller)) not in LAUNCHED or graph.targets(fs.path, call):
                continue
            head, _, rest = call.callee.partition(".")
            target = imports.get(head)
            if target is None or "." in rest:
                continue
            found.update(p for m in _modules(target, rest) for p in index.paths(m) if p not in have)
    return found


def reached_sites(files: Sequence[FileSites], targets: Collection[str],
                  reach: Mapping[tuple[str, str], str] | None) -> list[FileSites]:
    """`files` with the sites of files outside `targets` kept only where a launch reaches their
    function (with no reachability known, none), and those files' adjustments and summarised
    functions left out: the predictions stay those the targets' code makes (a setting an
    outside file assigns, or a helper's body published in place of its measured value, would
    change what the targets' checks are predicted to do, unchecked by the real program)."""
    out = []
    for fs in files:
        if fs.path in targets:
            out.append(fs)
            continue
        sites = tuple(s for s in fs.sites if reach is not None and reach.get((fs.path, s.function)) in LAUNCHED)
        out.append(replace(fs, sites=sites, adjustments=(), returns=()))
    return out


def merged_order(own: Mapping[Place, int], wider: Mapping[Place, int], outside: Collection[str]) -> dict[Place, int]:
    """The targets' program order `own` (from their own call graph) with the places of the
    `outside` files put where `wider` (the order over every file) runs them: after the latest
    place of `own` that `wider` runs before them, in `wider`'s order among themselves. The two
    orders agree on `own`'s places (outside code is not taken to call back into the targets),
    so `own`'s order is kept, its times spread out to leave room."""
    anchors = sorted((wider[p], t) for p, t in own.items() if p in wider)
    keys = [w for w, _ in anchors]
    gaps: dict[int, list[Place]] = {}  # own time (-1: before all) -> outside places after it
    for place in sorted((p for p in wider if p[0] in outside), key=wider.__getitem__):
        n = bisect_right(keys, wider[place])
        gaps.setdefault(anchors[n - 1][1] if n else -1, []).append(place)
    room = max((len(v) for v in gaps.values()), default=0) + 1
    out = {p: (t + 1) * room for p, t in own.items()}
    for time, places in gaps.items():
        out.update({p: (time + 1) * room + i + 1 for i, p in enumerate(places)})
    return out
