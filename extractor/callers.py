"""Caller guards: a function's sites fire only when something calls it, under the
guards at those call sites (several call sites -> OR), up a bounded call chain.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace

from extractor.ir import Expr, conj, disj
from extractor.records import CallSite, FileSites, Guard, GuardOrigin

MAX_DEPTH = 4  # call-chain levels followed above the enclosing function
MAX_CALL_SITES = 12  # call sites OR-ed per function before we stop listing them

Func = tuple[str, str]  # (path, qualified name)


@dataclass(frozen=True, slots=True)
class CallerGuard:
    expr: Expr
    text: str


def _module_path(dotted: str) -> str:
    return dotted.replace(".", "/")


class CallGraph:
    """Resolves call sites to the functions they call, across the analysed files."""

    def __init__(self, files: Sequence[FileSites]) -> None:
        self.defined: set[Func] = set()
        self.by_name: dict[str, list[Func]] = defaultdict(list)
        self.imports: dict[str, dict[str, str]] = {}
        for fs in files:
            self.imports[fs.path] = dict(fs.imports)
            for qual in fs.functions:
                self.defined.add((fs.path, qual))
                self.by_name[qual.rsplit(".", 1)[-1]].append((fs.path, qual))
        self.callers: dict[Func, list[tuple[str, CallSite]]] = defaultdict(list)
        for fs in files:
            for call in fs.calls:
                for target in self.resolve(fs.path, call):
                    self.callers[target].append((fs.path, call))

    def _by_import(self, path: str, local: str, attr: str | None) -> list[Func]:
        target = self.imports.get(path, {}).get(local)
        if target is None:
            return []
        if attr is not None:  # ``mod.fn`` where ``mod`` was imported
            module, name = target, attr
        else:
            module, _, name = target.rpartition(".")
        suffix = _module_path(module) + ".py"
        return [(p, q) for p, q in self.by_name.get(name, []) if p.endswith(suffix) and q == name]

    def resolve(self, path: str, call: CallSite) -> list[Func]:
        head, _, rest = call.callee.partition(".")
        if head == "self" and rest and "." not in rest:
            cls = call.caller.split(".", 1)[0]
            if (path, f"{cls}.{rest}") in self.defined:
                return [(path, f"{cls}.{rest}")]
            methods = [(p, q) for p, q in self.by_name.get(rest, []) if q.count(".") == 1]
            return methods if len(methods) == 1 else []
        if not rest:
            for local in (f"{call.caller}.{head}", head):  # nested function, then module level
                if (path, local) in self.defined:
                    return [(path, local)]
            found = self._by_import(path, head, None)
            if found:
                return found
            module_level = [(p, q) for p, q in self.by_name.get(head, []) if q == head]
            return module_level if len(module_level) == 1 else []
        if "." not in rest:
            found = self._by_import(path, head, rest)
            if found:
                return found
        return []

    def guard(self, func: Func, depth: int = 0, stack: frozenset[Func] = frozenset()) -> CallerGuard | None:
        """The condition under which `func` runs, from its callers (None: nobody calls it)."""
        sites = self.callers.get(func)
        if not sites:
            return None
        options: list[Expr] = []
        texts: list[str] = []
        for path, call in sites[:MAX_CALL_SITES]:
            # Earlier raises in the caller concern other errors; they would only bloat this.
            guards = [g for g in call.guards if g.origin is not GuardOrigin.PRIOR_RAISE]
            parts = [g.expr for g in guards]
            text = " and ".join(g.text for g in guards) or "always"
            caller: Func = (path, call.caller)
            if depth + 1 < MAX_DEPTH and caller not in stack and caller != func:
                up = self.guard(caller, depth + 1, stack | {func})
                if up is not None:
                    parts.append(up.expr)
                    text = f"{text}, itself {up.text}" if guards else up.text
            options.append(conj(parts))
            texts.append(f"called from {call.caller} when {text}")
        return CallerGuard(disj(options), "; or ".join(texts))


def with_caller_guards(files: Sequence[FileSites]) -> list[FileSites]:
    """Each site's guards plus the guard of its enclosing function's callers."""
    graph = CallGraph(files)
    memo: dict[Func, CallerGuard | None] = {}
    out: list[FileSites] = []
    for fs in files:
        sites = []
        for site in fs.sites:
            key = (fs.path, site.function)
            if key not in memo:
                memo[key] = graph.guard(key)
            found = memo[key]
            if found is not None:
                site = replace(site, guards=(Guard(found.expr, found.text, GuardOrigin.CALLER), *site.guards))
            sites.append(site)
        out.append(replace(fs, sites=tuple(sites)))
    return out
