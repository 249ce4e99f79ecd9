"""Caller guards: a function's sites fire only when something calls it, under the
guards at those call sites (several call sites -> OR), up a bounded call chain.
"""
from __future__ import annotations

import copy
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial

from extractor.crash_sites import user_value
from extractor.enum_self import with_chain_meanings, with_self_meanings
from extractor.exceptions import catches
from extractor.init_attributes import written_once_as_attribute
from extractor.ir import (
    FALSE,
    Expr,
    Ref,
    RefKind,
    Unknown,
    conj,
    disj,
    refs,
    simplify,
    substitute,
    unknowns,
)
from extractor.param_binding import ParamBinding, bind_guards, crossed_binding, per_binding, read_with, within
from extractor.records import (
    AT_START,
    CALLS_CATCH,
    MAYBE_REACHED,
    MODULE,
    NEVER_CALLED,
    NOT_REACHED,
    ON_IMPORT,
    REACHED,
    TRY_RAISES,
    UNPACKED,
    CallSite,
    FileSites,
    Guard,
    GuardOrigin,
    RaiseSite,
    SiteKind,
    Variant,
    bound_by_callers,
    parameter_ref,
)
from extractor.source_set import SourceSet

MAX_DEPTH = 4  # call-chain levels followed above the enclosing function
MAX_CALL_SITES = 12  # call sites OR-ed per function before we stop listing them
MAX_BINDINGS = 8  # distinct call-site bindings of a function made variants of its sites; more stay unknown
# calls a function may make and still raise only at its raise sites (`CallGraph.try_raises`)
_PURE_BUILTINS = frozenset({"int", "float", "str", "bool", "len", "isinstance", "repr", "type", "sorted", "list",
                            "dict", "set", "tuple", "min", "max", "any", "all", "range", "enumerate", "zip", "abs"})

Func = tuple[str, str]  # (path, qualified name)


@dataclass(frozen=True, slots=True)
class CallerGuard:
    expr: Expr
    text: str


def _in_module(path: str, dotted: str) -> bool:
    """Is `path` the file of module `dotted` (``a/b.py``, or a package's ``a/b/__init__.py``)?"""
    base = dotted.replace(".", "/")
    return path.endswith((f"{base}.py", f"{base}/__init__.py"))


def _private(name: str) -> bool:
    return name.startswith("_") and not name.endswith("__")


def _text(runs: Expr) -> str:
    return runs.text if isinstance(runs, Unknown) else NEVER_CALLED


def written_once(names: Collection[str], texts: Mapping[str, str]) -> set[str]:
    """Of `names` (identifiers), those `texts` write exactly once in all (as a whole word,
    code, comment or string alike: any other mention may be a use)."""
    if not names:
        return set()
    pattern = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(names))) + r")\b")
    counts: Counter[str] = Counter()
    for path in texts:
        counts.update(pattern.findall(texts[path]))
    return {n for n in names if counts[n] == 1}


WrittenOnce = Callable[[Collection[str], Mapping[str, str]], set[str]]  # `written_once` or a memo of it


class CallGraph:
    """Resolves call sites to the functions they call, across the analysed files."""

    def __init__(self, files: Sequence[FileSites], callers: Sequence[FileSites] = ()) -> None:
        """`callers`: files read only for their calls (the profile's `config.callers`)."""
        files = [*files, *callers]
        self.defined: set[Func] = set()
        self.params: dict[Func, tuple[str, ...]] = {}
        self.constants: dict[str, dict[str, Expr]] = {fs.path: dict(fs.constants) for fs in files}
        self.by_name: dict[str, list[Func]] = defaultdict(list)
        self.imports: dict[str, dict[str, str]] = {}
        self.registered: set[Func] = {(fs.path, q) for fs in files for q in fs.registered}  # run by a registry
        self.never: set[Func] = set()  # private functions nothing in the program names (`find_never_run`)
        self._bound: dict[Func, dict[Ref, Expr]] = {}  # `bindings`, once per function
        self.silenced: frozenset[Func] = frozenset()  # every call catches the error (`catching`)
        self.defaults: dict[Func, dict[str, Expr]] = {}  # literal defaults of parameters
        # functions handed to a call (``run_hook(fn, cfg)``), and where
        self.handed_at: dict[Func, list[tuple[str, CallSite]]] = defaultdict(list)
        for fs in files:
            self.imports[fs.path] = dict(fs.imports)
            for qual, names in fs.params:
                self.params[(fs.path, qual)] = names
            for qual, found in fs.defaults:
                self.defaults[(fs.path, qual)] = dict(found)
            for qual in fs.functions:
                self.defined.add((fs.path, qual))
                self.by_name[qual.rsplit(".", 1)[-1]].append((fs.path, qual))
        self.callers: dict[Func, list[tuple[str, CallSite]]] = defaultdict(list)
        # ``Cls(...)`` calls of ``Cls.__init__``: what they pass binds its parameters; they add
        # no caller guard (a class is built in many places, under conditions of its own)
        self.constructed: dict[Func, list[tuple[str, CallSite]]] = defaultdict(list)
        # ``(path, "Cls.attr")`` -> what ``__init__`` sets it to (`extractor.init_attributes`)
        self.attributes: dict[Func, Expr] = {(fs.path, q): e for fs in files for q, e in fs.attributes}
        self.by_class: dict[Func, dict[str, Expr]] = {}  # (path, class) -> attribute -> value
        self.keep_attributes(None)
        self.calls_in: dict[Func, list[CallSite]] = defaultdict(list)  # the calls each function makes
        self.sites_in: dict[Func, list[RaiseSite]] = defaultdict(list)  # its raise sites, own guards only
        for fs in files:
            for site in fs.sites:
                self.sites_in[(fs.path, site.function)].append(site)
            for call in fs.calls:
                self.calls_in[(fs.path, call.caller)].append(call)
                if call.ref:
                    for target in self.resolve(fs.path, call):
                        self.handed_at[target].append((fs.path, call))
                    continue
                targets = self.resolve(fs.path, call)
                for target in targets:
                    self.callers[target].append((fs.path, call))
                if not targets:
                    for target in self.constructs(fs.path, call):
                        self.constructed[target].append((fs.path, call))

    def _by_import(self, path: str, local: str, attr: str | None) -> list[Func]:
        target = self.imports.get(path, {}).get(local)
        if target is None:
            return []
        if attr is not None:  # ``mod.fn`` where ``mod`` was imported
            module, name = target, attr
        else:
            module, _, name = target.rpartition(".")
        return [(p, q) for p, q in self.by_name.get(name, []) if _in_module(p, module) and q == name]

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
            return self._by_import(path, head, rest) or self._static_member(path, head, rest)
        return []

    def keep_attributes(self, names: Collection[str] | None) -> None:
        """Keep the `attributes` of `names` (None: all), indexed by class."""
        self.attributes = {f: e for f, e in self.attributes.items()
                           if names is None or f[1].rpartition(".")[2] in names}
        self.by_class = defaultdict(dict)
        for (path, qual), value in self.attributes.items():
            cls, _, attr = qual.rpartition(".")
            self.by_class[(path, cls)][attr] = value

    def constructs(self, path: str, call: CallSite) -> list[Func]:
        """The ``__init__`` a call ``Cls(...)`` (``cls(...)`` in a class method) runs."""
        head = call.caller.split(".", 1)[0] if call.callee == "cls" else call.callee
        return self.class_members(path, head, ("__init__",)) if "." not in head else []

    def _static_member(self, path: str, cls: str, name: str) -> list[Func]:
        """``Cls.m(...)`` for a static or class method ``m`` (``NetworkAddress.parse(cfg.addr)``);
        an instance method called through its class takes the object first, which `passed`
        would bind to the wrong parameter."""
        return [f for f in self.class_members(path, cls, (name,)) if self.params.get(f, ("self",))[:1] != ("self",)]

    def class_members(self, path: str, cls: str, names: Sequence[str]) -> list[Func]:
        """The methods `names` of the class `cls` defined in `path`, else of the class the name
        `cls` imports there."""
        found = [(path, f"{cls}.{n}") for n in names if (path, f"{cls}.{n}") in self.defined]
        target = self.imports.get(path, {}).get(cls)
        if found or target is None:
            return found
        module, _, real = target.rpartition(".")
        return [(p, q) for n in names for p, q in self.by_name.get(n, [])
                if _in_module(p, module) and q == f"{real}.{n}"]

    def try_raises(self, func: Func, ref: Ref) -> Expr | None:
        """What the ``try`` block `ref` names (`try_raises_ref`) in `func` raises of its
        classes, where every call the block makes is to an analysed function making no call
        of its own beyond the builtins: the OR over its calls of the call's guard and a raise
        site of the callee the handler catches, the call's arguments bound (a function's
        raises are its raise sites, as everywhere in the catalog). None: not known."""
        found = TRY_RAISES.fullmatch(ref.name)
        if found is None:
            return None
        caught = tuple(n.strip() for n in found["caught"].split(","))
        path, line = func[0], int(found["line"])
        calls = [c for c in self.calls_in.get(func, ()) if c.try_line == line and not c.ref]
        if not calls:
            return None
        options: list[Expr] = []
        for call in calls:
            targets = self.resolve(path, call)
            if len(targets) != 1 or any(c.callee not in _PURE_BUILTINS and not c.ref
                                        for c in self.calls_in.get(targets[0], ())):
                return None
            callee = targets[0]
            mapping = {parameter_ref(name): value for name, value in self.passed(callee, call).items()
                       if value is not _MISSING}
            raised = [substitute(conj([g.expr for g in site.guards]), mapping)
                      for site in self.sites_in.get(callee, ()) if catches(caught, site.exception)]
            guard = [g.expr for g in call.guards if g.origin is not GuardOrigin.PRIOR_RAISE]
            options.append(conj([*guard, disj(raised)]))
        return simplify(disj(options))

    def catching(self, exception: str) -> CallGraph:
        """This graph without the call sites inside a ``try`` that catches `exception` for
        good: how such an error reaches the user. A function all of whose calls catch it
        never raises it to the user (`guard`: false). Itself where no call catches it."""
        dropped = {func: [(p, c) for p, c in sites if not catches(c.caught, exception)]
                   for func, sites in self.callers.items() if any(c.caught for _, c in sites)}
        dropped = {func: kept for func, kept in dropped.items() if len(kept) < len(self.callers[func])}
        if not dropped:
            return self
        other = copy.copy(self)
        other.callers = defaultdict(list, {**self.callers, **dropped})
        other.silenced = self.silenced | {func for func, kept in dropped.items() if not kept}
        other._bound = {}
        return other

    def guard(self, func: Func, depth: int = 0, stack: frozenset[Func] = frozenset()) -> CallerGuard | None:
        """The condition under which `func` runs, from its callers (None: nobody calls it).
        A registered pass nothing calls directly runs where it is handed to its runner
        (``run_post_process_pass(cfg, fn)``), under that call's guard: the registry itself is
        not run."""
        if func in self.silenced:
            return CallerGuard(FALSE, CALLS_CATCH)
        sites = self.callers.get(func) or (self.handed_at.get(func) if func in self.registered else None)
        if not sites:
            return None
        found = [self.call_guard(func, path, call, depth, stack) for path, call in sites[:MAX_CALL_SITES]]
        return CallerGuard(disj([g.expr for g in found]), "; or ".join(g.text for g in found))

    def call_guard(self, func: Func, path: str, call: CallSite, depth: int = 0,
                   stack: frozenset[Func] = frozenset()) -> CallerGuard:
        """The condition under which one call site (`call` in `path`) calls `func`."""
        # Earlier raises in the caller concern other errors; they would only bloat this.
        guards = [g for g in call.guards if g.origin is not GuardOrigin.PRIOR_RAISE]
        caller: Func = (path, call.caller)
        bound = self.bindings(caller) if caller != func else {}  # the caller's own parameters, as bound
        parts = [simplify(substitute(g.expr, bound)) if bound else g.expr for g in guards]
        text = " and ".join(g.text for g in guards) or "always"
        if depth + 1 < MAX_DEPTH and caller not in stack and caller != func:
            up = self.guard(caller, depth + 1, stack | {func})
            if up is not None:
                parts.append(up.expr)
                text = f"{text}, itself {up.text}" if guards else up.text
            elif (runs := self.runs_unseen(caller)) is not None:  # not every launch runs it
                parts.append(runs)
                said = NEVER_CALLED if runs == FALSE else f"if {_text(runs)}"
                text = f"{text}, {said}" if guards else said
        return CallerGuard(conj(parts), f"called from {call.caller} when {text}")

    def uncalled_private(self) -> set[Func]:
        """Private functions nothing analysed calls or registers: code we do not read may
        call them, or nothing does."""
        return {f for f in self.defined if _private(f[1].rsplit(".", 1)[-1])
                and not self.callers.get(f) and f not in self.registered}

    def find_never_run(self, texts: Mapping[str, str], once_in: WrittenOnce = written_once) -> None:
        """Of `uncalled_private`, those whose name the program's source (`texts`: all of its
        Python files) writes only once, at the definition: nothing calls, registers or
        exports them, so they never run. `once_in`: `written_once`, or a memo of it."""
        candidates = self.uncalled_private()
        once = once_in({f[1].rsplit(".", 1)[-1] for f in candidates}, texts)
        self.never = {f for f in candidates if f[1].rsplit(".", 1)[-1] in once}

    def runs_unseen(self, func: Func) -> Expr | None:
        """For a private function nothing analysed calls or registers: when it runs (FALSE
        where nothing in the program names it, else unknown); None for any other function."""
        if func in self.never:
            return FALSE
        name = func[1].rsplit(".", 1)[-1]
        if _private(name) and not self.callers.get(func) and func not in self.registered:
            return Unknown(f"{func[1]} runs (called from outside the analysed files)")
        return None

    def imported_constants(self, path: str) -> dict[Ref, Expr]:
        """Names imported into `path` that are literal constants of another analysed file."""
        out: dict[Ref, Expr] = {}
        for local, target in self.imports.get(path, {}).items():
            module, _, name = target.rpartition(".")
            for other, consts in self.constants.items():
                if _in_module(other, module) and name in consts:
                    out[Ref(RefKind.UNKNOWN, local, local)] = consts[name]
        return out

    def enclosing(self, func: Func) -> Func | None:
        """The function `func` is defined in (``f`` for ``f.g``; None for a method or a
        module-level function): its parameters are free names of `func`."""
        path, name = func
        outer = name.rpartition(".")[0]
        return (path, outer) if outer and (path, outer) in self.params else None

    def passed(self, func: Func, call: CallSite) -> dict[str, Expr]:
        """What one call site passes for each parameter of `func` (`_MISSING`: nothing)."""
        names = self.params.get(func, ())
        skip_self = 1 if "." in func[1] and names and names[0] in ("self", "cls") else 0
        passed: dict[str, Expr] = {}
        for key, value in call.args:
            name = names[int(key) + skip_self] if key.isdigit() and int(key) + skip_self < len(names) else key
            passed[name] = value
        # ``f(**kw)`` may pass any parameter it does not name: none takes its default
        defaults = self.defaults.get(func, {}) if UNPACKED not in passed else {}
        return {name: passed.get(name, defaults.get(name, _MISSING)) for name in names[skip_self:]}

    def passed_on(self, func: Func, path: str, call: CallSite, stack: frozenset[Func] = frozenset()) -> dict[str, Expr]:
        """`passed`, where the caller passes on a parameter of its own: what that caller's
        call sites bind it to (`bindings`)."""
        passed = self.passed(func, call)
        caller: Func = (path, call.caller)
        if caller == func or caller in stack or len(stack) >= MAX_DEPTH or not any(
                v is not _MISSING and unknowns(v) for v in passed.values()):
            return passed
        up = self.bindings(caller, stack | {func})
        if not up:
            return passed
        return {name: v if v is _MISSING else simplify(substitute(v, up)) for name, v in passed.items()}

    def live_callers(self, func: Func) -> list[tuple[str, CallSite]]:
        """The call sites of `func`, but those in a function that never runs (`never`): what
        a retired shim passes binds nothing."""
        return [(path, call) for path, call in self.callers.get(func) or [] if (path, call.caller) not in self.never]

    def bindings(self, func: Func, stack: frozenset[Func] = frozenset()) -> dict[Ref, Expr]:
        """Parameters every call site passes the same known value for (e.g. ``cfg.tp_size``),
        a caller's own parameter passed on read as what that caller is bound to
        (``load(cfg.x)`` calling ``_read(source)``: ``cfg.x``).
        A function only handed to other calls or registered (a hook: ``run_hook(fn, cfg)``)
        gets its literal defaults: what runs it passes the hook's arguments, not its tuning
        parameters (``gpu_mem=None``), an assumption."""
        if not stack and func in self._bound:
            return self._bound[func]
        built = [(p, c) for p, c in self.constructed.get(func, ()) if (p, c.caller) not in self.never]
        sites = self.live_callers(func) + built
        if not sites and (func in self.handed_at or func in self.registered):
            return {parameter_ref(name): value for name, value in self.defaults.get(func, {}).items()}
        if not self.params.get(func) or not sites:
            return {}
        seen: dict[str, set[Expr]] = defaultdict(set)
        for path, call in sites:
            for name, value in self.passed_on(func, path, call, stack).items():
                seen[name].add(value)
        out: dict[Ref, Expr] = {}
        for name, values in seen.items():
            if len(values) == 1:
                (value,) = values
                if value is not _MISSING and not unknowns(value):
                    out[parameter_ref(name)] = value
        if not stack:
            self._bound[func] = out
        return out

    def per_call(self, func: Func) -> tuple[ParamBinding, ...]:
        """For the parameters the call sites of `func` bind to different known values (a
        literal, a config read): one `ParamBinding` per distinct binding, under the guard
        of the call sites passing it. Empty where there are none, or more call sites or
        distinct bindings than `MAX_CALL_SITES` / `MAX_BINDINGS` (they stay unknown)."""
        sites = self.live_callers(func)
        if len(sites) < 2 or len(sites) > MAX_CALL_SITES:
            return ()
        passed = [self.passed_on(func, path, call) for path, call in sites]
        # every call site must pass a known value; in a nested function (whose variants are
        # crossed with the enclosing function's: `_Context.per_call`) one that is known up to
        # the enclosing function's parameters will do, and the others then pass what they
        # pass, unknown as it is (validate_ib_devices's ``_normalize_device_group(device_str.strip())``
        # and ``(gpu_devices)``): the parameter is not left unknown where a call site binds it
        nested = self.enclosing(func) is not None
        names = [name for name in passed[0] if _varies([p[name] for p in passed], nested)]
        if not names:
            return ()
        groups: dict[tuple[Expr, ...], list[tuple[CallerGuard, Func]]] = {}
        for (path, call), p in zip(sites, passed, strict=True):
            values = tuple(_as_passed(n, p[n], nested) for n in names)
            groups.setdefault(values, []).append((self.call_guard(func, path, call), (path, call.caller)))
        if len(groups) > MAX_BINDINGS:
            return ()
        return tuple(_binding(names, values, found) for values, found in groups.items())


def _varies(passed: Sequence[Expr], nested: bool) -> bool:
    """Do the call sites bind a parameter to different values, some known (up to the enclosing
    function's parameters, in a nested function: see `CallGraph.per_call`)? Those passing an
    unknown leave it a parameter (`_as_passed`): ``parse(cfg.addr)`` in one caller
    still says which option reaches the check from there."""
    if len(set(passed)) < 2 or any(p is _MISSING for p in passed):
        return False
    return any(not unknowns(p) for p in passed) or (nested and any(bound_by_callers(p) for p in passed))


def _as_passed(name: str, value: Expr, nested: bool) -> Expr:
    """What a call site binds parameter `name` to in its variant: the value it passes where
    known (in a nested function, whatever it passes), else the parameter itself (what its
    caller passes, not the caller's local)."""
    return value if nested or not unknowns(value) else parameter_ref(name)


def _binding(names: Sequence[str], values: tuple[Expr, ...], found: Sequence[tuple[CallerGuard, Func]]) -> ParamBinding:
    """The parameters `names` bound to `values` by the call sites `found` (their guard, and the
    function making the call)."""
    guard = Guard(disj([g.expr for g, _ in found]), "; or ".join(g.text for g, _ in found), GuardOrigin.CALLER)
    return ParamBinding(tuple(zip(names, values, strict=True)), guard, tuple(dict.fromkeys(f for _, f in found)))


_MISSING = Ref(RefKind.UNKNOWN, "<missing>", "<missing>")


class _Context:
    """Per function: parameter/constant bindings and the callers' guard, computed once."""

    def __init__(self, graph: CallGraph, constants: dict[str, dict[Ref, Expr]]) -> None:
        self.graph = graph
        self.constants = constants
        self.memo: dict[Func, tuple[dict[Ref, Expr], Guard | None]] = {}
        self.splits: dict[Func, tuple[ParamBinding, ...]] = {}

    def per_call(self, path: str, function: str) -> tuple[ParamBinding, ...]:
        """The function's distinct bindings (`CallGraph.per_call`); a nested function with
        none of its own takes those of the function it is defined in (its free names)."""
        key = (path, function)
        if key not in self.splits:
            found = self.graph.per_call(key)
            outer = self.graph.enclosing(key)
            around = self.per_call(*outer) if outer is not None else ()
            if around:
                crossed = tuple(crossed_binding(b, o) for o in around for b in found)
                found = crossed if found and len(crossed) <= MAX_BINDINGS else \
                    tuple(within(b, self.of(*key)[1]) for b in around)
            elif outer is not None:  # what every call of the enclosing function binds alike
                found = tuple(read_with(b, self.of(*outer)[0]) for b in found)
            self.splits[key] = found
        return self.splits[key]

    def of(self, path: str, function: str) -> tuple[dict[Ref, Expr], Guard | None]:
        key = (path, function)
        if key not in self.memo:
            found = self.graph.guard(key)
            caller = Guard(found.expr, found.text, GuardOrigin.CALLER) if found is not None else None
            outer = self.graph.enclosing(key)
            free = self.of(*outer)[0] if outer is not None else {}  # what the enclosing function is bound to
            mapping = {**self.constants[path], **free, **self.graph.bindings(key)}
            mapping.update(self._attributes(key, mapping))
            self.memo[key] = ({**mapping, **self._try_raises(key, mapping)}, caller)
        return self.memo[key]

    def _attributes(self, func: Func, mapping: dict[Ref, Expr]) -> dict[Ref, Expr]:
        """In a method: ``self.attr`` as ``__init__`` sets it (`CallGraph.attributes`), with
        what its constructions pass bound (`mapping`, in ``__init__`` itself), where that is known."""
        path, name = func
        cls = name.rpartition(".")[0]
        init: Func = (path, f"{cls}.__init__")
        if not cls or init not in self.graph.defined:
            return {}
        attributes = self.graph.by_class.get((path, cls))
        if not attributes:
            return {}
        bound = mapping if func == init else self.of(*init)[0]
        out: dict[Ref, Expr] = {}
        for attr, value in attributes.items():
            if not unknowns(found := simplify(substitute(value, bound))):
                out[Ref(RefKind.UNKNOWN, f"self.{attr}", f"self.{attr}")] = found
        return out

    def _try_raises(self, func: Func, mapping: dict[Ref, Expr]) -> dict[Ref, Expr]:
        """The ``try`` blocks of `func` whose raises its calls state (`CallGraph.try_raises`),
        bound as the function's own guards are."""
        out: dict[Ref, Expr] = {}
        sites = self.graph.sites_in.get(func, ())
        # each guard once: a site's own, and the function's earlier raises from the file's shared
        # table (every later site names them again: N checks are O(N) here, not O(N²))
        guards = [g for site in sites for g in (*site.direct, *(g for v in site.variants for g in v.guards))]
        blocks = {(id(site.priors), block): site.priors for site in sites for _, block, _, _ in site.prior_runs}
        guards += [g for (_, block), table in blocks.items() for g in table.blocks[block][1]]
        for guard in guards:
            for ref in refs(guard.expr):
                    if ref.kind is RefKind.RUNTIME and ref not in out and TRY_RAISES.fullmatch(ref.name):
                        found = self.graph.try_raises(func, ref)
                        if found is not None:
                            out[ref] = simplify(substitute(found, mapping)) if mapping else found
        return out

    def bound(self, path: str, function: str, guards: tuple[Guard, ...]) -> tuple[Guard, ...]:
        """`guards` with the function's known parameters and imported constants substituted."""
        return bind_guards(guards, self.of(path, function)[0])

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
        if (runs := self.graph.runs_unseen((path, function))) is not None:
            found = (Guard(runs, _text(runs), GuardOrigin.CALLER), *found)
        return found


def with_caller_guards(files: Sequence[FileSites], callers: Sequence[FileSites] = (),
                       sources: SourceSet | None = None, configs: frozenset[str] = frozenset(),
                       once_in: WrittenOnce = written_once) -> list[FileSites]:
    """Each site's (and config adjustment's) guards plus the guard of its enclosing
    function's callers; parameters that all call sites bind to the same known value, and
    constants imported from other analysed files, are replaced by that value. `callers`:
    files outside the targets read only for their calls (dispatchers of target functions).
    `sources` (the snapshot's files, read on demand): where given, call sites guarded by
    ``self.p()`` in an enum's method get what ``p`` means, and a condition reading
    ``Cls.ctor(cfg.x).p()`` (`configs`: the config object's names) what it means for ``x``
    (`extractor.enum_self`), and the private functions that never run (`find_never_run`, by
    `once_in`)."""
    if sources is not None:
        both = with_self_meanings([*files, *callers], sources)
        both = with_chain_meanings(both, sources, configs)
        files, callers = both[:len(files)], both[len(files):]
    graph = CallGraph(files, callers)
    if sources is not None:
        graph.find_never_run(sources.files, once_in)
        graph.keep_attributes(written_once_as_attribute({q.rpartition(".")[2] for _, q in graph.attributes},
                                                        sources.files))
    constants = {fs.path: graph.imported_constants(fs.path) for fs in files}
    ctx = _Context(graph, constants)
    # per exception class: the context of the graph without the calls that catch it
    by_exception: dict[str, _Context] = {}

    def context_of(exception: str) -> _Context:
        if exception not in by_exception:
            escaping = graph.catching(exception)
            by_exception[exception] = ctx if escaping is graph else _Context(escaping, constants)
        return by_exception[exception]
    out: list[FileSites] = []
    for fs in files:
        # the file's earlier raises once, each block with its own function's bindings
        priors = fs.priors.map_blocks(partial(ctx.bound, fs.path))
        sites = []
        for site in fs.sites:
            site_ctx = context_of(site.exception)
            direct = site_ctx.guards(fs.path, site.function, site.direct)
            variants = tuple(replace(v, guards=ctx.bound(fs.path, site.function, v.guards)) for v in site.variants)
            if site.kind is SiteKind.CRASH and not _fails_on_user_value(direct, variants):
                continue  # a crash on a parameter its callers pass no user value for
            shift = len(direct) - len(site.direct)  # the caller guard goes first: runs move up
            sites.append(per_binding(replace(
                site,
                direct=direct,
                variants=variants,
                prior_runs=tuple((at + shift, b, s, e) for at, b, s, e in site.prior_runs),
                priors=priors,
            ), site_ctx.per_call(fs.path, site.function)))
        adjustments = tuple(
            replace(adj, guards=ctx.adjustment_guards(fs.path, adj.function, adj.guards),
                    value=simplify(substitute(adj.value, ctx.of(fs.path, adj.function)[0])))
            for adj in fs.adjustments
        )
        out.append(replace(fs, sites=tuple(sites), adjustments=adjustments, priors=priors))
    return out


def _fails_on_user_value(direct: tuple[Guard, ...], variants: tuple[Variant, ...]) -> bool:
    """Does a crash site, its guards bound, fail on a user value: its failing operation (the
    last guard; in a table, each row's) reads options or env vars and nothing unknown?"""
    fails = [direct[-1]] if direct else [v.guards[-1] for v in variants if v.guards]
    return all(user_value(g.expr) for g in fails)


# ------------------------------------------------------------------ reachability

_CONSTRUCTORS = ("__new__", "__init__", "__post_init__")
_WRITE_HOOKS = ("__setattr__", "__delattr__")  # run by writing through an object


@dataclass(frozen=True, slots=True)
class EntryPoints:
    """What the launcher runs: module functions (``(module path suffix, name)``, e.g.
    ``("sglang/srt/server_args.py", "prepare_server_args")``), methods run on the config
    object it returns, and other functions the profile names (qualified names)."""

    functions: tuple[tuple[str, str], ...] = ()
    methods: tuple[str, ...] = ()
    named: tuple[str, ...] = ()
    config_classes: frozenset[str] = frozenset()
    views: frozenset[str] = frozenset()  # read-only views of the config: writes through them are no launch's
    override_runners: frozenset[str] = frozenset()  # functions running every registered model override
    after: frozenset[str] = frozenset()  # what the launcher runs after validation, as the server starts


class CallEdges:
    """The call graph for reachability: resolved calls and function references, with
    methods reached through an object when one class alone defines them, and classes'
    constructors reached by calling the class."""

    def __init__(self, files: Sequence[FileSites], callers: Sequence[FileSites]) -> None:
        self.graph = graph = CallGraph(files, callers)
        self.methods: dict[str, list[Func]] = defaultdict(list)
        for func in graph.defined:
            if func[1].count(".") == 1:
                self.methods[func[1].split(".")[1]].append(func)
        self.edges: dict[Func, set[Func]] = defaultdict(set)
        self.unresolved: set[str] = set()  # last names of calls that resolve to nothing analysed
        self.modules: set[Func] = {(fs.path, MODULE) for fs in (*files, *callers)}  # run on import
        self.paths = frozenset(fs.path for fs in (*files, *callers))
        self._read: dict[str, bool] = {}  # an imported name's module: one errcat reads?
        self.referenced: set[Func] = set()  # passed around as values: may run any time later
        for fs in (*files, *callers):
            for call in fs.calls:
                targets = self.targets(fs.path, call)
                self.edges[(fs.path, call.caller)].update(targets)
                if call.ref:
                    self.referenced.update(targets)
                if not targets and not call.ref and not self._foreign(fs.path, call.callee.partition(".")[0]):
                    self.unresolved.add(call.callee.rpartition(".")[2])  # (a foreign module's is its own)

    def _class_members(self, path: str, call: CallSite) -> list[Func]:
        """``Cls(...)`` -> its constructors; ``Cls.m(...)`` / ``cls(...)`` likewise, in this
        file or through the import of ``Cls``."""
        head, _, rest = call.callee.partition(".")
        if head == "cls":
            head = call.caller.split(".", 1)[0]
        names = (rest,) if rest and "." not in rest else _CONSTRUCTORS if not rest else ()
        return self.graph.class_members(path, head, names)

    def targets(self, path: str, call: CallSite) -> list[Func]:
        found = self.graph.resolve(path, call) or self._class_members(path, call)
        if found or call.ref or "." not in call.callee or self._foreign(path, call.callee.partition(".")[0]):
            return found
        owners = self.methods.get(call.callee.rpartition(".")[2], [])
        return owners if len(owners) == 1 else []  # obj.m(...): one class defines m

    def _foreign(self, path: str, name: str) -> bool:
        """Is `name` imported in `path` from a module errcat does not read (``pkg_version`` of
        ``from packaging import version as pkg_version``)? Its ``.parse(...)`` is that module's,
        not the one analysed class's that defines ``parse``."""
        target = self.graph.imports.get(path, {}).get(name)
        if target is None:
            return False
        if target not in self._read:
            self._read[target] = any(_in_module(p, m) for p in self.paths for m in (target, target.rpartition(".")[0])
                                     if m)
        return not self._read[target]

    def entries(self, entry: EntryPoints) -> set[Func]:
        defined = self.graph.defined
        seeds = {f for f in defined if any(f[0].endswith(m) and f[1] == n for m, n in entry.functions)}
        seeds |= {f for f in defined if f[1] in entry.named}
        for name in entry.methods:
            own = [f for f in self.methods.get(name, []) if f[1].split(".")[0] in entry.config_classes]
            seeds.update(own or self.methods.get(name, []))
        seeds |= {f for n in _CONSTRUCTORS for f in self.methods.get(n, [])
                  if f[1].split(".")[0] in entry.config_classes}  # the launcher builds the config
        return seeds | (self.graph.registered & defined) | self.modules

    def closure(self, seeds: set[Func], skip: frozenset[Func] | set[Func] = frozenset()) -> set[Func]:
        seen = set(seeds) - skip
        todo = list(seen)
        while todo:
            for callee in self.edges.get(todo.pop(), ()):
                if callee not in seen and callee not in skip:
                    seen.add(callee)
                    todo.append(callee)
        return seen


def _launched(graph: CallEdges, entry: EntryPoints, seeds: set[Func], reached: set[Func]) -> dict[Func, str]:
    """What a launch runs once the command line is read: ``"true"`` what validation runs,
    ``"start"`` what only the launcher's `EntryPoints.after` functions lead to (they run,
    whatever calls them, or none errcat reads). `seeds`: the entry points' functions
    (`CallEdges.entries`); `reached`: what they reach."""
    at_launch = graph.closure((seeds - graph.modules) | graph.referenced) & reached
    late = {f for f in graph.graph.defined if f[1] in entry.after}
    if not late:
        return dict.fromkeys(at_launch, REACHED)
    validated = graph.closure((seeds - graph.modules - late) | (graph.referenced - late), late)
    return {**dict.fromkeys(at_launch, AT_START), **dict.fromkeys(validated & reached, REACHED),
            **dict.fromkeys(graph.closure(late, validated), AT_START)}


def reachability(files: Sequence[FileSites], callers: Sequence[FileSites], entry: EntryPoints,
                 graph: CallEdges | None = None) -> dict[Func, str]:
    """Whether a launch can run each function of `files`: ``"true"`` when a chain of calls
    (or function references) leads to it from an entry point (``"import"`` when only a
    module's top-level code does: it runs on import, before the command line is read); ``"unknown"`` when the code
    does not say (a method or nested function nothing resolved reaches, which may be run
    through an object, a property or a registry; a function named like a call errcat could
    not resolve; anything those call); ``"false"`` otherwise: a module-level function no entry
    point reaches, and the write hooks (``__setattr__``) of the config's read-only views;
    ``"start"`` where only what the launcher runs after validation (`EntryPoints.after`) leads to it.
    Code outside `files` and `callers` is assumed not to call back into them. `graph`: their
    `CallEdges`, when already built."""
    graph = graph or CallEdges(files, callers)
    seeds = graph.entries(entry)
    reached = graph.closure(seeds)
    never = {f for f in graph.graph.defined
             if f[1].count(".") == 1 and f[1].split(".")[1] in _WRITE_HOOKS and f[1].split(".")[0] in entry.views}
    maybe_seeds = {f for f in graph.graph.defined - reached - never
                   if "." in f[1] or f[1].rpartition(".")[2] in graph.unresolved
                   or (f[1].startswith("__") and f[1].endswith("__"))}  # a module's __getattr__: implicit
    maybe = graph.closure(maybe_seeds, reached | never)
    launched = _launched(graph, entry, seeds, reached)
    return {
        (fs.path, q): launched.get((fs.path, q), ON_IMPORT if (fs.path, q) in reached
                                   else MAYBE_REACHED if (fs.path, q) in maybe else NOT_REACHED)
        for fs in files for q in fs.functions
    }
