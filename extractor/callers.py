"""Caller guards: a function's sites fire only when something calls it, under the
guards at those call sites (several call sites -> OR), up a bounded call chain.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial

from extractor.ir import (
    Expr,
    Ref,
    RefKind,
    Unknown,
    conj,
    disj,
    simplify,
    substitute,
    unknowns,
)
from extractor.records import CallSite, FileSites, Guard, GuardOrigin, map_guards
from extractor.sites import PARAMETER

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
        self.params: dict[Func, tuple[str, ...]] = {}
        self.constants: dict[str, dict[str, Expr]] = {fs.path: dict(fs.constants) for fs in files}
        self.by_name: dict[str, list[Func]] = defaultdict(list)
        self.imports: dict[str, dict[str, str]] = {}
        self.registered: set[Func] = {(fs.path, q) for fs in files for q in fs.registered}  # run by a registry
        for fs in files:
            self.imports[fs.path] = dict(fs.imports)
            for qual, names in fs.params:
                self.params[(fs.path, qual)] = names
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


    def imported_constants(self, path: str) -> dict[Ref, Expr]:
        """Names imported into `path` that are literal constants of another analysed file."""
        out: dict[Ref, Expr] = {}
        for local, target in self.imports.get(path, {}).items():
            module, _, name = target.rpartition(".")
            suffix = _module_path(module) + ".py"
            for other, consts in self.constants.items():
                if other.endswith(suffix) and name in consts:
                    out[Ref(RefKind.UNKNOWN, local, local)] = consts[name]
        return out

    def bindings(self, func: Func) -> dict[Ref, Expr]:
        """Parameters every call site passes the same known value for (e.g. ``cfg.tp_size``)."""
        names = self.params.get(func, ())
        sites = self.callers.get(func)
        if not names or not sites:
            return {}
        skip_self = 1 if "." in func[1] and names[0] in ("self", "cls") else 0
        seen: dict[str, set[Expr]] = {}
        for _, call in sites:
            passed = {}
            for key, value in call.args:
                name = names[int(key) + skip_self] if key.isdigit() and int(key) + skip_self < len(names) else key
                passed[name] = value
            for name in names[skip_self:]:
                seen.setdefault(name, set()).add(passed.get(name, _MISSING))
        out: dict[Ref, Expr] = {}
        for name, values in seen.items():
            if len(values) == 1:
                (value,) = values
                if value is not _MISSING and not unknowns(value):
                    out[Ref(RefKind.UNKNOWN, name, f"{PARAMETER}{name}")] = value
        return out


_MISSING = Ref(RefKind.UNKNOWN, "<missing>", "<missing>")


def _bind_guards(guards: tuple[Guard, ...], mapping: dict[Ref, Expr]) -> tuple[Guard, ...]:
    if not mapping:
        return guards
    return map_guards(guards, lambda expr: simplify(substitute(expr, mapping)))


class _Context:
    """Per function: parameter/constant bindings and the callers' guard, computed once."""

    def __init__(self, files: Sequence[FileSites]) -> None:
        self.graph = CallGraph(files)
        self.constants = {fs.path: self.graph.imported_constants(fs.path) for fs in files}
        self.memo: dict[Func, tuple[dict[Ref, Expr], Guard | None]] = {}

    def of(self, path: str, function: str) -> tuple[dict[Ref, Expr], Guard | None]:
        key = (path, function)
        if key not in self.memo:
            found = self.graph.guard(key)
            caller = Guard(found.expr, found.text, GuardOrigin.CALLER) if found is not None else None
            self.memo[key] = ({**self.constants[path], **self.graph.bindings(key)}, caller)
        return self.memo[key]

    def bound(self, path: str, function: str, guards: tuple[Guard, ...]) -> tuple[Guard, ...]:
        """`guards` with the function's known parameters and imported constants substituted."""
        return _bind_guards(guards, self.of(path, function)[0])

    def guards(self, path: str, function: str, guards: tuple[Guard, ...]) -> tuple[Guard, ...]:
        """`bound` guards after the callers' guard."""
        caller = self.of(path, function)[1]
        bound = self.bound(path, function, guards)
        return (caller, *bound) if caller is not None else bound

    def adjustment_guards(self, path: str, function: str, guards: tuple[Guard, ...]) -> tuple[Guard, ...]:
        """`guards`, and for a private function nothing analysed calls (it is called from
        code we do not read, e.g. a registry), an unknown "when it runs": its changes
        are not applied to every launch. A site there still shows its own conditions."""
        found = self.guards(path, function, guards)
        name = function.rsplit(".", 1)[-1]
        if name.startswith("_") and not name.endswith("__") and not self.graph.callers.get((path, function)) \
                and (path, function) not in self.graph.registered:
            runs = f"{function} runs (called from outside the analysed files)"
            found = (Guard(Unknown(runs), runs, GuardOrigin.CALLER), *found)
        return found


def with_caller_guards(files: Sequence[FileSites]) -> list[FileSites]:
    """Each site's (and config adjustment's) guards plus the guard of its enclosing
    function's callers; parameters that all call sites bind to the same known value, and
    constants imported from other analysed files, are replaced by that value."""
    ctx = _Context(files)
    out: list[FileSites] = []
    for fs in files:
        # the file's earlier raises once, each block with its own function's bindings
        priors = fs.priors.map_blocks(partial(ctx.bound, fs.path))
        sites = []
        for site in fs.sites:
            direct = ctx.guards(fs.path, site.function, site.direct)
            shift = len(direct) - len(site.direct)  # the caller guard goes first: runs move up
            sites.append(replace(
                site,
                direct=direct,
                variants=tuple(replace(v, guards=ctx.bound(fs.path, site.function, v.guards)) for v in site.variants),
                prior_runs=tuple((at + shift, b, s, e) for at, b, s, e in site.prior_runs),
                priors=priors,
            ))
        adjustments = tuple(
            replace(adj, guards=ctx.adjustment_guards(fs.path, adj.function, adj.guards),
                    value=simplify(substitute(adj.value, ctx.of(fs.path, adj.function)[0])))
            for adj in fs.adjustments
        )
        out.append(replace(fs, sites=tuple(sites), adjustments=adjustments, priors=priors))
    return out
