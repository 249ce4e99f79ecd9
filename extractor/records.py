"""Frozen records produced by the site extractor (one `FileSites` per file)."""
from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from extractor import shape
from extractor.compat import StrEnum
from extractor.crash_kinds import Crash
from extractor.ir import Expr, Ref, RefKind, conj, disj, from_dict, refs, substitute, unknowns
from extractor.templates import Template, called, parse_template

MODULE = "<module>"  # the "function" of a module's top-level code
PARAMETER = "parameter "  # text of a parameter's Ref until call sites bind it
UNPACKED = "*"  # a call's argument key where it unpacks arguments (``f(**kw)``): what it passes is not known
# Whether a launch runs a function (`extractor.callers.reachability`)
REACHED, NOT_REACHED, MAYBE_REACHED = "true", "false", "unknown"
ON_IMPORT = "import"  # reached, but only by module-level code: it runs before any argument is read
AT_START = "start"  # reached only through what the launcher runs after validation, as the server starts
LAUNCHED = frozenset({REACHED, AT_START})  # what a launch runs once the command line is read


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A declaration we could not understand, so the model may miss it."""

    path: str
    line: int
    message: str

    def as_dict(self) -> dict[str, object]:
        return {"path": self.path, "line": self.line, "message": self.message}

    @classmethod
    def from_dict(cls, data: object) -> Diagnostic:
        """Inverse of `as_dict`; `extractor.shape.ShapeError` for data of another shape."""
        d = shape.record(data, cls)
        return cls(shape.text(d["path"]), shape.integer(d["line"]), shape.text(d["message"]))

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


def try_raises_ref(caught: Sequence[str], line: int, text: str) -> Ref:
    """What the ``try`` block at `line` raises of the classes `caught`, where the block does
    more than compute values: stated by what the functions it calls raise
    (`extractor.callers`), else unknown."""
    return Ref(RefKind.RUNTIME, f"raises {', '.join(caught)} (try at line {line})", text)


TRY_RAISES = re.compile(r"raises (?P<caught>.+) \(try at line (?P<line>\d+)\)")


def parameter_ref(name: str) -> Ref:
    """How a parameter reads in a function's guards until a call site binds it."""
    return Ref(RefKind.UNKNOWN, name, f"{PARAMETER}{name}")


def bound_by_callers(expr: Expr) -> bool:
    """Is every unknown leaf of `expr` a parameter of its function (bound where it is called)?"""
    return all(u.text.startswith(PARAMETER) for u in unknowns(expr))


class SiteKind(StrEnum):
    RAISE = "raise"
    ASSERT = "assert"
    CRASH = "crash"  # Python itself raises on a value the user controls (`extractor.crash_sites`)


ExprMap = Callable[[Expr], Expr]


class GuardOrigin(StrEnum):
    IF = "if"  # the site is in the body of ``if c`` / ``elif c``
    ELSE = "else"  # an earlier ``if``/``elif`` test of the same chain was false
    WHILE = "while"
    CASE = "case"
    EARLY_EXIT = "early-exit"  # ``if c: return/continue/break`` earlier in the block
    PRIOR_RAISE = "prior-raise"  # ``if c: raise`` / ``assert c`` earlier in the block
    ASSERT = "assert"  # the assert's own test is false
    EXCEPT = "except"  # inside ``except E:``
    CALLER = "caller"  # the guard at the call sites of the enclosing function
    MESSAGE = "message"  # which rendering of a conditional message is shown


# what a guard that never holds says (`analyzers.dead` reads them as why an entry is unreachable)
CAUGHT_BY = "caught by"  # ... `except E` at line N: the error is handled where it is raised
CALLS_CATCH = "never: each call of it catches the error"
NEVER_CALLED = "never (nothing in the program calls it)"


@dataclass(frozen=True, slots=True)
class Guard:
    expr: Expr
    text: str  # the condition as written in the source (negations as ``not (...)``)
    origin: GuardOrigin

    def as_dict(self) -> dict[str, Any]:
        return {"expr": self.expr.as_dict(), "text": self.text, "origin": str(self.origin)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Guard:
        return cls(from_dict(data["expr"]), data["text"], GuardOrigin(data["origin"]))

    def map_expr(self, fn: ExprMap) -> Guard:
        return replace(self, expr=fn(self.expr))


def map_guards(guards: tuple[Guard, ...], fn: ExprMap) -> tuple[Guard, ...]:
    return tuple(g.map_expr(fn) for g in guards)


@dataclass(frozen=True, slots=True)
class Variant:
    """One row of a condition table (or one rendering of a conditional message)."""

    values: tuple[tuple[str, str], ...]  # hole expression -> rendered template text
    guards: tuple[Guard, ...]
    template: Template
    # a row of one binding of the function's parameters: the functions whose calls pass it
    # (path, qualified name); () for a row of a table or message
    callers: tuple[tuple[str, str], ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "values": dict(self.values),
            "guards": [g.as_dict() for g in self.guards],
            "template": self.template.text,
            "callers": [list(c) for c in self.callers],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Variant:
        return cls(
            tuple(data["values"].items()),
            tuple(Guard.from_dict(g) for g in data["guards"]),
            parse_template(data["template"]),
            tuple((str(path), str(func)) for path, func in data["callers"]),
        )


Run = tuple[int, int, int, int]  # (at, block, start, end): see `RaiseSite.prior_runs`


@dataclass(frozen=True, slots=True)
class PriorTable:
    """The earlier raises of one file, each recorded once.

    ``blocks[b]`` is (function, guards): the negated ``if c: raise`` / ``assert c`` met
    in one block, in order. Sites name the ranges in force at them (`RaiseSite.prior_runs`)
    instead of copying them, so N checks in one function cost O(N), not O(N²).
    """

    blocks: tuple[tuple[str, tuple[Guard, ...]], ...] = ()
    # parallel to `blocks`: ``lines[b][pos]`` is the line of the raise/assert site that
    # ``blocks[b][1][pos]`` stands for (the check that fires first); 0 where not known
    lines: tuple[tuple[int, ...], ...] = ()
    # (block, ref) -> positions of the block's guards that read `ref`; filled on first use
    _reading: dict[tuple[int, Ref], list[int]] = field(default_factory=dict, compare=False, repr=False)

    def map_blocks(self, fn: Callable[[str, tuple[Guard, ...]], tuple[Guard, ...]]) -> PriorTable:
        return PriorTable(tuple((function, fn(function, guards)) for function, guards in self.blocks), self.lines)

    def line(self, block: int, pos: int) -> int:
        """The line of the site that earlier raise `pos` of `block` stands for (0: unknown)."""
        lines = self.lines[block] if block < len(self.lines) else ()
        return lines[pos] if pos < len(lines) else 0

    def reading(self, block: int, ref: Ref, start: int, end: int) -> list[int]:
        """Positions in [start, end) of `block` whose guard reads `ref`."""
        if not self._reading and self.blocks:
            for b, (_, guards) in enumerate(self.blocks):
                for pos, guard in enumerate(guards):
                    for r in dict.fromkeys(refs(guard.expr)):
                        self._reading.setdefault((b, r), []).append(pos)
        found = self._reading.get((block, ref), ())
        return list(found[bisect.bisect_left(found, start):bisect.bisect_left(found, end)])

    def as_dict(self) -> list[Any]:
        return [[function, [g.as_dict() for g in guards], [self.line(b, pos) for pos in range(len(guards))]]
                for b, (function, guards) in enumerate(self.blocks)]

    @classmethod
    def from_dict(cls, data: list[Any]) -> PriorTable:
        """Reads both shapes: ``[function, guards, lines]`` and the older ``[function, guards]``."""
        return cls(tuple((item[0], tuple(Guard.from_dict(g) for g in item[1])) for item in data),
                   tuple(tuple(item[2]) if len(item) > 2 else (0,) * len(item[1]) for item in data))


NO_PRIORS = PriorTable()


def merge_runs(direct: Sequence[Guard], runs: Sequence[Run], table: PriorTable,
               pick: Callable[[Run], Sequence[Guard]] | None = None) -> list[Guard]:
    """`direct` with the earlier raises of `runs` in their places, in the order they were
    on the path (`pick`: what to put in a run's place, default all its guards)."""
    out: list[Guard] = []
    done = 0
    for run in runs:
        at, block, start, end = run
        out.extend(direct[done:at])
        done = max(done, at)
        out.extend(table.blocks[block][1][start:end] if pick is None else pick(run))
    out.extend(direct[done:])
    return out


@dataclass(frozen=True, slots=True)
class RaiseSite:
    path: str
    line: int
    function: str
    kind: SiteKind
    exception: str
    template: Template
    direct: tuple[Guard, ...]  # the guards on the path, except the earlier raises (`prior_runs`)
    variants: tuple[Variant, ...] = ()
    notes: tuple[str, ...] = ()  # what could not be known statically
    hole_refs: tuple[tuple[str, Expr], ...] = ()  # message hole -> what it shows (flag, env ...)
    # adjustments of the file recorded before this statement (`Adjustment.order` below
    # it): those of the same function at or above it run after the check, not before
    adjusted_before: int = 0
    # earlier raises on the path: (at, block, start, end) = ``priors.blocks[block][start:end]``
    # come before ``direct[at]``; `priors` is the file's table, shared by all its sites
    prior_runs: tuple[Run, ...] = ()
    priors: PriorTable = field(default=NO_PRIORS, compare=False, repr=False)
    comment: str = ""  # the source's comments above/beside the check (`extractor.docstrings`)
    query: str = ""  # a device query that fails here (the profile's `platform.raises`), not a check
    # the distinct bindings of the parameters its path reads (`extractor.callers.per_binding`):
    # the guard of the call sites passing each, and parameter -> value passed
    bindings: tuple[tuple[Guard, tuple[tuple[str, Expr], ...]], ...] = ()
    crash: Crash | None = None  # of a crash site: the operation that fails and the check it lacks

    @property
    def called(self) -> str:
        """How another entry's words name this error (`templates.called`)."""
        return called(self.template, self.exception, self.path, self.line)

    @property
    def guards(self) -> tuple[Guard, ...]:
        """Every guard on the path in order, earlier raises included (O(path) per call)."""
        if not self.prior_runs:
            return self.direct
        return tuple(merge_runs(self.direct, self.prior_runs, self.priors))

    @property
    def prior_count(self) -> int:
        return sum(end - start for _, _, start, end in self.prior_runs)

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "line": self.line,
            "function": self.function,
            "kind": str(self.kind),
            "exception": self.exception,
            "template": self.template.text,
            "guards": [g.as_dict() for g in self.direct],
            "variants": [v.as_dict() for v in self.variants],
            "notes": list(self.notes),
            "hole_refs": [[h, e.as_dict()] for h, e in self.hole_refs],
            "adjusted_before": self.adjusted_before,
            "prior_runs": [list(r) for r in self.prior_runs],
            **({"comment": self.comment} if self.comment else {}),
            **({"query": self.query} if self.query else {}),
            **({"bindings": [[g.as_dict(), [[n, e.as_dict()] for n, e in values]] for g, values in self.bindings]}
               if self.bindings else {}),
            **({"crash": self.crash.as_dict()} if self.crash is not None else {}),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], priors: PriorTable = NO_PRIORS) -> RaiseSite:
        return cls(
            data["path"], data["line"], data["function"], SiteKind(data["kind"]),
            data["exception"], parse_template(data["template"]),
            tuple(Guard.from_dict(g) for g in data["guards"]),
            tuple(Variant.from_dict(v) for v in data["variants"]),
            tuple(data["notes"]),
            tuple((h, from_dict(e)) for h, e in data.get("hole_refs", [])),
            data.get("adjusted_before", 0),
            tuple((a, b, s, e) for a, b, s, e in data.get("prior_runs", [])),
            priors,
            data.get("comment", ""),
            data.get("query", ""),
            tuple((Guard.from_dict(g), tuple((n, from_dict(e)) for n, e in values))
                  for g, values in data.get("bindings", [])),
            Crash.from_dict(data["crash"]) if "crash" in data else None,
        )

    def with_first_guard(self, guard: Guard) -> RaiseSite:
        """The site with `guard` before every other (e.g. when its function runs at all)."""
        return replace(self, direct=(guard, *self.direct),
                       prior_runs=tuple((at + 1, b, s, e) for at, b, s, e in self.prior_runs))

    def map_exprs(self, fn: ExprMap) -> RaiseSite:
        """The site with `fn` applied to its own conditions and hole references (the
        shared `priors` table is mapped once per file, by `FileSites.map_exprs`)."""
        return replace(
            self, direct=map_guards(self.direct, fn),
            variants=tuple(replace(v, guards=map_guards(v.guards, fn)) for v in self.variants),
            hole_refs=tuple((h, fn(e)) for h, e in self.hole_refs),
            bindings=tuple((g.map_expr(fn), tuple((n, fn(e)) for n, e in values)) for g, values in self.bindings),
        )

    def bound(self, guard: Guard) -> Guard:
        """`guard` of its path as the call sites bind the parameters it reads: under each
        binding, its call sites' guard and the values substituted (itself where it reads none)."""
        if not self.bindings:
            return guard
        read = set(refs(guard.expr))
        mappings = [(g, {parameter_ref(n): e for n, e in values}) for g, values in self.bindings]
        if not any(read.intersection(m) for _, m in mappings):
            return guard
        return replace(guard, expr=disj([conj([g.expr, substitute(guard.expr, m)]) for g, m in mappings]))


@dataclass(frozen=True, slots=True)
class CallSite:
    """``callee(...)`` called from `caller` under `guards` (for caller guards)."""

    caller: str
    callee: str  # dotted text: "self._handle_x", "check_lora_server_args", "mod.fn"
    guards: tuple[Guard, ...]
    args: tuple[tuple[str, Expr], ...] = ()  # position ("0", "1" ...) or keyword -> value
    # not called here: `callee` is handed to another call (``run_hook(fn, cfg)``), which may
    # call it; counts for reachability only, not for caller guards
    ref: bool = False
    line: int = 0  # first line of the statement making the call (0: not known)
    # exception classes a ``try`` around the call catches without re-raising: what the
    # callee raises of those never reaches the user through this call
    caught: tuple[str, ...] = ()
    try_line: int = 0  # line of the innermost ``try`` whose body makes the call (0: none)

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "caller": self.caller, "callee": self.callee, "guards": [g.as_dict() for g in self.guards],
            "args": [[k, v.as_dict()] for k, v in self.args], "line": self.line,
        }
        if self.caught:
            data["caught"] = list(self.caught)
        if self.try_line:
            data["try_line"] = self.try_line
        if self.ref:
            data["ref"] = True
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CallSite:
        return cls(
            data["caller"], data["callee"], tuple(Guard.from_dict(g) for g in data["guards"]),
            tuple((k, from_dict(v)) for k, v in data.get("args", [])), bool(data.get("ref", False)),
            int(data.get("line", 0)), tuple(data.get("caught", ())), int(data.get("try_line", 0)),
        )


DERIVED_LINE = 0  # an `Adjustment` defining a derived setting (see `Adjustment.derived`)


@dataclass(frozen=True, slots=True)
class Adjustment:
    """An automatic change to the config: ``self.flag = value`` or a profile setter call."""

    function: str
    line: int
    flag: str
    value: Expr
    guards: tuple[Guard, ...]
    path: str = ""
    order: int = 0  # position among the file's adjustments, in document order

    @property
    def derived(self) -> bool:
        """The definition of a derived setting (`extractor.inline`, line 0): computed whenever
        it is read, so it has no place in the launch's order."""
        return self.line == DERIVED_LINE

    def as_dict(self) -> dict[str, Any]:
        return {
            "function": self.function, "line": self.line, "flag": self.flag,
            "value": self.value.as_dict(), "guards": [g.as_dict() for g in self.guards],
            "path": self.path, "order": self.order,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Adjustment:
        return cls(
            data["function"], data["line"], data["flag"], from_dict(data["value"]),
            tuple(Guard.from_dict(g) for g in data["guards"]), data.get("path", ""), data.get("order", 0),
        )

    def map_exprs(self, fn: ExprMap) -> Adjustment:
        return replace(self, value=fn(self.value), guards=map_guards(self.guards, fn))


@dataclass(frozen=True, slots=True)
class FileSites:
    """Everything the extractor learned from one file; cacheable by blob id."""

    path: str
    sites: tuple[RaiseSite, ...] = ()
    calls: tuple[CallSite, ...] = ()
    functions: tuple[str, ...] = ()  # qualified names defined in the file
    params: tuple[tuple[str, tuple[str, ...]], ...] = ()  # qualified name -> parameter names
    # qualified name -> (parameter, its default) for defaults that are literal constants
    defaults: tuple[tuple[str, tuple[tuple[str, Expr], ...]], ...] = ()
    constants: tuple[tuple[str, Expr], ...] = ()  # module-level literal constants, for importers
    imports: tuple[tuple[str, str], ...] = ()  # local name -> dotted target
    adjustments: tuple[Adjustment, ...] = ()
    diagnostics: tuple[str, ...] = ()
    parse_error: str | None = None
    helpers: tuple[tuple[str, Expr], ...] = ()  # qualified name -> value returned from the config
    registered: tuple[str, ...] = ()  # functions a profile decorator registers as providers
    overrides: tuple[str, ...] = ()  # those registered as model overrides, in document order
    # plain functions of values: (qualified name, parameters, what a call returns in terms of
    # the parameters' `Ref`s; `extractor.returns`)
    returns: tuple[tuple[str, tuple[str, ...], Expr], ...] = ()
    priors: PriorTable = NO_PRIORS  # the earlier raises its sites' `prior_runs` name
    # why the file could not be analysed although Python accepts it (memory, depth, a bug):
    # the catalog is incomplete. None: analysed, or rejected by Python itself (never runs).
    incomplete: str | None = None
    docstrings: tuple[tuple[str, str], ...] = ()  # qualified name -> first docstring line
    # ``Cls.attr`` -> what ``__init__`` sets ``self.attr`` to, in terms of its parameters' `Ref`s:
    # an assignment at the top of its body, the class's only one (`extractor.callers`)
    attributes: tuple[tuple[str, Expr], ...] = ()

    def map_exprs(self, fn: ExprMap) -> FileSites:
        """`fn` applied to every site's and adjustment's conditions (not to call sites)."""
        priors = self.priors.map_blocks(lambda _, guards: map_guards(guards, fn))
        return replace(self, sites=tuple(replace(s.map_exprs(fn), priors=priors) for s in self.sites),
                       adjustments=tuple(a.map_exprs(fn) for a in self.adjustments), priors=priors)

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "sites": [s.as_dict() for s in self.sites],
            "calls": [c.as_dict() for c in self.calls],
            "functions": list(self.functions),
            "params": [[q, list(ps)] for q, ps in self.params],
            "defaults": [[q, [[n, e.as_dict()] for n, e in ds]] for q, ds in self.defaults],
            "constants": [[n, e.as_dict()] for n, e in self.constants],
            "imports": [list(i) for i in self.imports],
            "adjustments": [a.as_dict() for a in self.adjustments],
            "diagnostics": list(self.diagnostics),
            "parse_error": self.parse_error,
            "helpers": [[q, e.as_dict()] for q, e in self.helpers],
            "registered": list(self.registered),
            "overrides": list(self.overrides),
            "returns": [[q, list(ps), e.as_dict()] for q, ps, e in self.returns],
            "priors": self.priors.as_dict(),
            "incomplete": self.incomplete,
            "docstrings": [list(d) for d in self.docstrings],
            "attributes": [[q, e.as_dict()] for q, e in self.attributes],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FileSites:
        priors = PriorTable.from_dict(data.get("priors", []))
        return cls(
            path=data["path"],
            sites=tuple(RaiseSite.from_dict(s, priors) for s in data["sites"]),
            calls=tuple(CallSite.from_dict(c) for c in data["calls"]),
            functions=tuple(data["functions"]),
            params=tuple((q, tuple(ps)) for q, ps in data.get("params", [])),
            defaults=tuple((q, tuple((n, from_dict(e)) for n, e in ds)) for q, ds in data.get("defaults", [])),
            constants=tuple((n, from_dict(e)) for n, e in data.get("constants", [])),
            imports=tuple((a, b) for a, b in data["imports"]),
            adjustments=tuple(Adjustment.from_dict(a) for a in data["adjustments"]),
            diagnostics=tuple(data["diagnostics"]),
            parse_error=data["parse_error"],
            helpers=tuple((q, from_dict(e)) for q, e in data.get("helpers", [])),
            registered=tuple(data.get("registered", [])),
            overrides=tuple(data.get("overrides", [])),
            returns=tuple((q, tuple(ps), from_dict(e)) for q, ps, e in data.get("returns", [])),
            priors=priors,
            incomplete=data.get("incomplete"),
            docstrings=tuple((q, line) for q, line in data.get("docstrings", [])),
            attributes=tuple((q, from_dict(e)) for q, e in data.get("attributes", [])),
        )
