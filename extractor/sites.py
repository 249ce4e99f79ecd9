"""Raise/assert sites of one file, with message templates, guard paths and table variants.

`SiteWalker` walks statements only (expressions are interpreted on demand by
`cst_ir` and `messages`), in document order, with one handler per statement kind
(`visit_<Kind>`). Blocks are processed in sequence so early exits (``if c: return``)
constrain what follows them. What a function walk carries (guard stack, `Scope`,
table row, ...) is one `Frame`, swapped as a unit on entering and leaving a ``def``;
guard scopes are context managers, so what a branch pushes is gone when it is left.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

import libcst as cst

from extractor import depth, parse, pieces
from extractor.constant_values import as_literal, class_constants, computed_literals
from extractor.cst_ir import env_registry_name, larger_than, term, to_ir
from extractor.cstutil import dotted, last_name, literal_value, norm_code, python_value, string_value
from extractor.docstrings import check_comments, first_lines
from extractor.exceptions import catches
from extractor.imported_values import ImportedValues
from extractor.ir import (
    ENV_SETTING,
    FALSE,
    RAISES,
    SOME_ITEM,
    TRUE,
    Apply,
    Compare,
    Const,
    Expr,
    In,
    Ref,
    RefKind,
    Truthy,
    Unknown,
    conj,
    described,
    disj,
    negate,
    refs,
    replace_refs,
    unknowns,
)
from extractor.local_bindings import (
    AUGMENTED,
    MAX_ARG_TERMS,
    Join,
    in_place_value,
    pushed_on,
    reads_no_local,
    simple_arg,
    simple_binding,
    unknown_after,
)
from extractor.messages import Option, build
from extractor.positions import LineIndex, StatementSpan, statement_spans
from extractor.profile import Profile
from extractor.records import (
    MODULE,
    NO_PRIORS,
    PARAMETER,
    Adjustment,
    CallSite,
    FileSites,
    Guard,
    GuardOrigin,
    PriorTable,
    RaiseSite,
    Run,
    SiteKind,
    Variant,
    bound_by_callers,
    try_raises_ref,
)
from extractor.returns import return_value
from extractor.scope import IN_TRY, MAX_BRANCH_VALUES, Binding, Conditional, Opaque, Scope
from extractor.suite_facts import (
    calls_in,
    caught_names,
    computed_names,
    declared_locals,
    exit_kind,
    handler_catches,
    helper_return_of,
    imported_modules,
    literal_defaults,
    reraises,
    simple_statements,
    suite_statements,
    summarised,
    walruses,
    writes_fields_only,
)
from extractor.tables import (
    Pending,
    Row,
    RowContext,
    Table,
    grown,
    iterated,
    merge_rows,
    row_bindings,
    target_names,
)
from extractor.templates import CAUGHT, Template
from extractor.writes import mutated_name, written_names


@dataclass(slots=True)
class Frame:
    """What the walk of one function carries; a ``def`` swaps in a fresh one and the
    enclosing function's is back, untouched, when the ``def`` is left (`SiteWalker.entered`)."""

    scope: Scope
    # The guards on the path except earlier raises: those go once into the walker's
    # `prior_blocks` (one list per block that has any) and `runs` says which are in force,
    # so a site records O(depth) items however many checks precede it.
    guards: list[Guard] = field(default_factory=list)
    runs: list[list[int]] = field(default_factory=list)  # [at, block, start, end], see `RaiseSite.prior_runs`
    blocks: list[int | None] = field(default_factory=list)  # per open block: its index in prior_blocks, once it has one
    except_types: list[str] = field(default_factory=list)  # exceptions being handled, innermost last
    catching: list[tuple[str, ...]] = field(default_factory=list)  # what the ``try`` blocks walked catch for good
    tries: list[int] = field(default_factory=list)  # lines of the ``try`` blocks being walked, innermost last
    rows: list[RowContext] = field(default_factory=list)  # table rows being expanded, innermost last
    loop_notes: list[str] = field(default_factory=list)  # loops over statically unknown items
    # loops over a known collection of unknown items (a setting's list), innermost last:
    # a check inside holds for some item (`SOME_ITEM`)
    item_loops: list[ItemLoop] = field(default_factory=list)
    helper_return: cst.Return | None = None  # of the function being walked, if a config helper
    declared: set[str] | None = None  # in a registered provider: locals holding its {field: value}
    declared_at: int = 0  # ... and the provider's last line: its declarations apply when it returns
    # ... and per (that local, field): what it was set to so far, each under the guards then
    decided: dict[tuple[str, str], list[tuple[tuple[Guard, ...], cst.BaseExpression]]] = field(default_factory=dict)
    decided_reads: set[str] = field(default_factory=set)  # locals bound to such a read (`_declared_read`)
    # locals built as ``d = {...}; d["field"] = v`` for a setter's ``**d``: per name, the
    # (field, value, guards) items so far, or None once a key is not a literal
    splats: dict[str, list[tuple[str, Expr, tuple[Guard, ...]]] | None] = field(default_factory=dict)
    # locals a setter later declares as a setting (``config = f(); ...; setter(x=config)``):
    # writes to their fields are the setting's (`SiteWalker.field_write`); closures see them
    records: dict[str, str] = field(default_factory=dict)
    # small nested functions that only write fields (``def _set(p, k, v): setattr(...)``),
    # read at each call with its arguments
    writers: dict[str, cst.FunctionDef] = field(default_factory=dict)


@dataclass(slots=True)
class Found:
    """What one file yields besides its sites, in document order."""

    pending: list[Pending] = field(default_factory=list)
    prior_blocks: list[tuple[str, list[Guard]]] = field(default_factory=list)  # (function, earlier raises)
    prior_lines: list[list[int]] = field(default_factory=list)  # per prior block: the line each raise stands for
    calls: list[CallSite] = field(default_factory=list)
    functions: list[str] = field(default_factory=list)
    defined: set[str] = field(default_factory=set)  # `functions`, for lookups
    params: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    defaults: list[tuple[str, tuple[tuple[str, Expr], ...]]] = field(default_factory=list)
    imports: dict[str, str] = field(default_factory=dict)
    adjustments: list[Adjustment] = field(default_factory=list)
    diagnostics: list[str] = field(default_factory=list)
    helpers: list[tuple[str, Expr]] = field(default_factory=list)
    registered: list[str] = field(default_factory=list)  # providers the profile's decorators register
    overrides: list[str] = field(default_factory=list)  # of those, the model overrides
    returns: list[tuple[str, tuple[str, ...], Expr]] = field(default_factory=list)  # see `FileSites.returns`


Handler = Callable[[Any, Any], None]


class SiteWalker:
    """Collects the sites, call sites and config adjustments of one module."""

    HANDLERS: dict[type, Handler]  # statement kind -> its `visit_<Kind>`, filled below the class

    def __init__(self, path: str, module: cst.Module, profile: Profile, spans: Sequence[StatementSpan] | None,
                 imported: ImportedValues = (), source: str | None = None) -> None:
        self.path = path
        self.module = module
        self.profile = profile
        self.source_lines = source.splitlines() if source is not None else None  # the text `module` is of
        self.walruses = source is None or ":=" in source  # else no test needs a walk for one
        self.lines = LineIndex(module, lambda: spans)  # `spans`: the `ast` statements of the same text
        self.qualname: list[str] = []
        self.classes: list[str] = []
        self.found = Found()
        self.statement: cst.CSTNode | None = None  # the innermost statement being walked
        written = _module_constants(module)
        consts = computed_literals(path, module, written)
        self.computed = {id(written[n]): v for n, v in consts.items() if v is not written[n]}  # comprehensions
        consts.update(class_constants(path, module))
        self.frame = Frame(Scope(profile, consts, imported={
            name: node for name, value in imported if (node := as_literal(value)) is not None}))

    # ------------------------------------------------------------------ driver

    def run(self) -> FileSites:
        found = self.found
        self.walk_block(self.module.body)
        if not self.lines.from_ast:  # ast could not parse it or the statement counts disagree
            found.diagnostics.append(f"{self.path}: positions taken from PositionProvider")
        priors = self.priors()
        sites = tuple(sorted((replace(p.site, priors=priors) for p in found.pending),
                             key=lambda s: (s.line, s.function)))
        return FileSites(
            path=self.path,
            sites=sites,
            calls=tuple(found.calls),
            functions=tuple(found.functions),
            params=tuple(found.params),
            defaults=tuple(found.defaults),
            constants=tuple(
                (name, Const(value)) for name, node in sorted(self.frame.scope.module_consts.items())
                for ok, value in [literal_value(node)] if ok
            ),
            imports=tuple(sorted(found.imports.items())),
            adjustments=tuple(found.adjustments),
            diagnostics=tuple(found.diagnostics),
            helpers=tuple(found.helpers),
            registered=tuple(found.registered),
            overrides=tuple(found.overrides),
            returns=tuple(found.returns),
            priors=priors,
        )

    def priors(self) -> PriorTable:
        """The earlier raises found so far (a site's `prior_runs` index into them)."""
        found = self.found
        return PriorTable(tuple((function, tuple(guards)) for function, guards in found.prior_blocks),
                          tuple(tuple(lines) for lines in found.prior_lines))

    @property
    def function(self) -> str:
        return ".".join(self.qualname) or MODULE

    @property
    def scope(self) -> Scope:
        return self.frame.scope

    def line_of(self, node: cst.CSTNode, within: cst.CSTNode | None = None) -> int:
        """`node`'s first line; `within`: a statement holding it, which spares a part of an
        expression or a handler a whole-file position pass (`positions.LineIndex.line`)."""
        return self.lines.line(node, within)

    def named_in(self, stmt: cst.CSTNode, names: frozenset[str]) -> frozenset[str]:
        """The `names` a statement's text holds (all of them when its text is not at hand): a
        walk for a call of one is needed only there (a libcst walk costs a parse's share)."""
        lines = self.source_lines
        span = self.lines.span(stmt) if names and lines is not None else None
        if span is None or lines is None:
            return names
        text = "\n".join(lines[span[0] - 1:span[1]])
        return frozenset(n for n in names if n in text)

    # ------------------------------------------------------------ guard stack

    def push(self, expr: Expr, text: str, origin: GuardOrigin, line: int = 0) -> None:
        """A guard in force until the enclosing guard scope (or block) is left (`line`: of an
        earlier raise, the line of the raise/assert it stands for)."""
        frame, guard = self.frame, Guard(expr, text, origin)
        if origin is not GuardOrigin.PRIOR_RAISE:
            frame.guards.append(guard)
            return
        block = frame.blocks[-1]
        if block is None:
            block = frame.blocks[-1] = len(self.found.prior_blocks)
            self.found.prior_blocks.append((self.function, []))
            self.found.prior_lines.append([])
        listed = self.found.prior_blocks[block][1]
        at = len(frame.guards)
        last = frame.runs[-1] if frame.runs else None
        if last is not None and last[0] == at and last[1] == block and last[3] == len(listed):
            last[3] += 1  # the same run of consecutive checks grows
        else:
            frame.runs.append([at, block, len(listed), len(listed) + 1])
        listed.append(guard)
        self.found.prior_lines[block].append(line)

    def push_else(self, prior: Sequence[tuple[Expr, str]]) -> None:
        """The earlier branches of a chain were not taken."""
        for expr, text in prior:
            self.push(negate(expr), f"not ({text})", GuardOrigin.ELSE)

    @contextmanager
    def guarded(self) -> Iterator[None]:
        """A guard scope: the guards pushed inside it are dropped on leaving it."""
        guards = self.frame.guards
        depth = len(guards)
        try:
            yield
        finally:
            del guards[depth:]

    @contextmanager
    def block(self) -> Iterator[None]:
        """A block: a guard scope whose earlier raises stop being in force when it ends."""
        frame = self.frame
        frame.blocks.append(None)
        with self.guarded():
            yield
        block = frame.blocks.pop()
        while block is not None and frame.runs and frame.runs[-1][1] == block:
            frame.runs.pop()

    @contextmanager
    def entered(self, frame: Frame) -> Iterator[Frame]:
        """Walk a function body in `frame`; the enclosing function's frame is back after."""
        outer, self.frame = self.frame, frame
        try:
            yield frame
        finally:
            self.frame = outer

    def prior_runs(self) -> tuple[Run, ...]:
        return tuple((at, b, start, end) for at, b, start, end in self.frame.runs)

    def path_guards(self, depth: int = 0, blocks: int = 0) -> tuple[Guard, ...]:
        """The guards on the path in order, earlier raises included, from stack depth
        `depth` and prior block `blocks` on (O(path): for rare uses only)."""
        guards = self.frame.guards
        out: list[Guard] = []
        done = depth
        for at, block, start, end in self.frame.runs:
            if block >= blocks:
                out.extend(guards[done:at])
                done = max(done, at)
                out.extend(self.found.prior_blocks[block][1][start:end])
        out.extend(guards[done:])
        return tuple(out)

    # ------------------------------------------------------------------ blocks

    def walk_block(self, stmts: Sequence[cst.CSTNode]) -> None:
        with self.block():
            for stmt in stmts:
                self.walk_stmt(stmt)

    def walk_suite(self, suite: cst.BaseSuite) -> None:
        self.walk_block(suite_statements(suite))

    def walk_stmt(self, stmt: cst.CSTNode) -> None:
        handler = self.HANDLERS.get(type(stmt))
        if handler is not None:
            outer, self.statement = self.statement, stmt
            try:
                handler(self, stmt)
            finally:
                self.statement = outer

    def call_line(self, node: cst.CSTNode) -> int:
        """Where a call runs in program order: its statement's first line (a statement's
        calls run before its own effect, as ``declare_resolution(x=validate(cfg.x))``
        validates before it resolves), else the call's own line."""
        return self.line_of(self.statement if self.statement is not None else node)

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine | cst.SimpleStatementSuite) -> None:
        for small in node.body:
            self.walk_stmt(small)

    visit_SimpleStatementSuite = visit_SimpleStatementLine

    def visit_While(self, node: cst.While) -> None:
        with self.guarded(), unknown_after(self.scope, "computed in a loop"):
            self._carried(node.body, ())
            self.push(to_ir(node.test, self.scope), norm_code(node.test), GuardOrigin.WHILE)
            self.walk_suite(node.body)
        if node.orelse is not None:
            self.walk_suite(node.orelse.body)

    def visit_With(self, node: cst.With) -> None:
        self.walk_suite(node.body)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        with pushed_on(self.qualname, node.name.value), pushed_on(self.classes, node.name.value):
            self.walk_suite(node.body)

    def visit_If(self, node: cst.If) -> None:
        """An if/elif/else chain: each branch under its test and the earlier tests'
        negations; branches that always leave constrain what follows the chain, and the
        locals the others rebind take their merged value where they join (`Join`)."""
        prior: list[tuple[Expr, str]] = []
        exits: list[tuple[Expr, str, GuardOrigin, int]] = []  # (condition, text, kind, line of its last statement)
        join = Join(self.scope)
        current: cst.If | None = node
        while current is not None:
            test, text = to_ir(current.test, self.scope), self._cond_text(current.test)
            self._bind_walrus(current.test)
            kind = exit_kind(current.body)
            with self.guarded(), join.branch(test, leaves=kind is not None):
                self.push_else(prior)
                self.push(test, text, GuardOrigin.IF)
                self.walk_suite(current.body)
            if kind is not None:
                cond = conj([negate(p) for p, _ in prior] + [test])
                exits.append((cond, " and ".join([f"not ({t})" for _, t in prior] + [text]), kind,
                              self._last_line(current.body)))
            prior.append((test, text))
            orelse, current = current.orelse, None
            if isinstance(orelse, cst.If):
                current = orelse
            elif isinstance(orelse, cst.Else):
                kind = exit_kind(orelse.body)
                with self.guarded(), join.branch(None, leaves=kind is not None):
                    self.push_else(prior)
                    self.walk_suite(orelse.body)
                if kind is not None:
                    cond = conj([negate(p) for p, _ in prior])
                    exits.append((cond, " and ".join(f"not ({t})" for _, t in prior), kind,
                                  self._last_line(orelse.body)))
        join.close()
        for cond, text, kind, line in exits:
            self.push(negate(cond), f"not ({text})", kind, line)

    def _last_line(self, suite: cst.BaseSuite) -> int:
        """The line of a block's last statement (the raise an exit stands for)."""
        body: Sequence[cst.CSTNode] = suite.body
        return self.line_of(body[-1]) if body else 0

    def _cond_text(self, node: cst.BaseExpression) -> str:
        """Source text of a test; a table row's variable shows the row's expression."""
        rows = self.frame.rows
        if isinstance(node, cst.Name) and rows and node.value in rows[-1].targets:
            bound = self.scope.lookup(node.value)
            if isinstance(bound, cst.BaseExpression):
                return norm_code(bound)
        return norm_code(node)

    def visit_Try(self, node: cst.Try | cst.TryStar) -> None:
        """The body, then each handler under "the body raised"; a local the body rebinds
        keeps its value after the statement only when every handler leaves (else the
        body may have stopped anywhere), and one a handler rebinds is unknown after it."""
        handlers_leave = all(exit_kind(h.body) is not None for h in node.handlers)
        start = len(self.found.pending)
        computed = computed_names(node.body)
        kept = tuple(n for h in node.handlers if not reraises(h.body) for n in caught_names(h))
        try_line = self.line_of(node)
        with unknown_after(self.scope, IN_TRY, keep=handlers_leave), pushed_on(self.frame.catching, kept), \
                pushed_on(self.frame.tries, try_line):
            self.walk_suite(node.body)
            steps = None if computed is None else tuple(term(cst.Name(n), self.scope) for n in computed)
        raised = [p for p in self.found.pending[start:] if p.site.function == self.function and not p.rows]
        priors = self.priors() if raised else NO_PRIORS
        with unknown_after(self.scope, "set while the code handles an error"):
            for handler in node.handlers:
                raised = self._walk_handler(node, handler, raised, priors, steps, try_line)
        if node.orelse is not None:
            self.walk_suite(node.orelse.body)
        if node.finalbody is not None:
            self.walk_suite(node.finalbody.body)

    visit_TryStar = visit_Try

    def _walk_handler(self, node: cst.Try | cst.TryStar, handler: cst.ExceptHandler | cst.ExceptStarHandler,
                      raised: list[Pending], priors: PriorTable, steps: tuple[Expr, ...] | None,
                      try_line: int) -> list[Pending]:
        """A handler under "the try block raised what it catches"; the body's raises it catches
        are gone unless it re-raises. Returns the raises an outer handler still sees."""
        caught = norm_code(handler.type) if handler.type is not None else "Exception"
        mine = [p for p in raised if handler_catches(handler, p.site.exception)]
        # the body's own raises of that type (their path and earlier raises), or what its calls raise
        body = self._try_raises(node, handler, f"the try block raises {caught}", steps, try_line)
        raises = disj([*(conj([g.expr for g in replace(p.site, priors=priors).guards]) for p in mine), body])
        with self.guarded(), pushed_on(self.frame.except_types, caught):
            self.push(raises, f"except {caught}", GuardOrigin.EXCEPT)
            self.walk_suite(handler.body)
        if not reraises(handler.body):  # what the user sees is the handler's doing, not these
            line = self.line_of(handler, node)
            gone = Guard(FALSE, f"caught by `except {caught}` at line {line}", GuardOrigin.EXCEPT)
            for p in mine:
                p.site = replace(p.site, direct=(*p.site.direct, gone))
        taken = {id(p) for p in mine}
        return [p for p in raised if id(p) not in taken]

    def _try_raises(self, node: cst.Try | cst.TryStar, handler: cst.ExceptHandler | cst.ExceptStarHandler,
                    text: str, steps: tuple[Expr, ...] | None, try_line: int) -> Expr:
        """That the try block raises what `handler` catches: an import failing, what the
        computed locals' steps raise, else what its calls raise."""
        imports = self._imports_fail(node.body, handler)
        if imports is not None:
            return imports
        if steps is None:
            return try_raises_ref(caught_names(handler), try_line, text)
        return Apply(RAISES, (Const(caught_names(handler)), *steps), text)

    def _imports_fail(self, body: cst.BaseSuite, handler: cst.ExceptHandler | cst.ExceptStarHandler) -> Expr | None:
        """A ``try`` block of imports only, under a handler catching what a missing module
        raises: it raises where a package it imports is not installed (a platform fact,
        ``installed(granian)``); the program's own package always is. None: another block."""
        modules = imported_modules(body)
        if modules is None or not catches(caught_names(handler), "ModuleNotFoundError"):
            return None
        own = set(self.path.split("/"))
        return disj([negate(Truthy(Ref(RefKind.PLATFORM, f"installed({m})", f"import {m}")))
                     for m in modules if m not in own])

    def visit_Match(self, node: cst.Match) -> None:
        subject = term(node.subject, self.scope)
        prior: list[tuple[Expr, str]] = []
        join = Join(self.scope)
        for case in node.cases:
            cond, text = self._pattern(subject, case.pattern), f"case {norm_code(case.pattern)}"
            if case.guard is not None:
                cond = conj([cond, to_ir(case.guard, self.scope)])
                text += f" if {norm_code(case.guard)}"
            with self.guarded(), join.branch(cond, leaves=exit_kind(case.body) is not None):
                self.push_else(prior)
                self.push(cond, text, GuardOrigin.CASE)
                self.walk_suite(case.body)
            prior.append((cond, text))
        join.close()

    def _pattern(self, subject: Expr, pattern: cst.MatchPattern) -> Expr:
        if isinstance(pattern, (cst.MatchValue, cst.MatchSingleton)):
            return Compare("==", subject, term(pattern.value, self.scope))
        if isinstance(pattern, cst.MatchOr):
            return disj([self._pattern(subject, p.pattern) for p in pattern.patterns])
        if isinstance(pattern, cst.MatchAs) and pattern.pattern is None:
            return TRUE  # wildcard or capture: always matches
        return Unknown(f"matches {norm_code(pattern)}")

    # --------------------------------------------------------------- functions

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        with pushed_on(self.qualname, node.name.value):
            qual = self.function
            ps = node.params
            params = [p.name.value for p in (*ps.posonly_params, *ps.params, *ps.kwonly_params)]
            self.found.functions.append(qual)
            self.found.defined.add(qual)
            self.found.params.append((qual, tuple(params)))
            if defaults := literal_defaults(ps):
                self.found.defaults.append((qual, defaults))
            outer = self.frame
            with self.entered(self._frame_of(node, params)) as frame:
                frame.records = {**{k: v for k, v in outer.records.items() if k not in params},
                                 **declared_locals(node, self.named_in(node, self.profile.setters))}
                frame.declared = self.provider(node, qual)
                if frame.declared is not None:
                    frame.declared_at = (self.lines.span(node) or (0, 0))[1]
                config_method = len(self.classes) == 1 and self.classes[0] in self.profile.config_classes
                if summarised(node, qual, params, config_method):
                    value = return_value(node.body.body, frame.scope)  # type: ignore[arg-type]
                    if value is not None:
                        self.found.returns.append((qual, tuple(params), value))
                self.walk_suite(node.body)
            if writes_fields_only(node):
                outer.writers[node.name.value] = node

    def _frame_of(self, node: cst.FunctionDef, params: list[str]) -> Frame:
        """A fresh frame for `node`: the enclosing scope minus what its parameters shadow."""
        aliases = {p for p in params if p in self.profile.config_params}
        in_config_class = bool(self.classes) and self.classes[-1] in self.profile.config_classes
        if in_config_class and params and params[0] == "self":
            aliases.add("self")
        outer = self.scope
        scope = Scope(
            self.profile, outer.module_consts, imported=outer.imported,
            aliases=(outer.aliases - set(params)) | aliases,
            bindings={k: v for k, v in outer.bindings.items() if k not in params},
        )
        scope.inherited = dict(scope.bindings)
        for p in params:
            if p not in aliases and p not in self.profile.model_roots:
                scope.bindings[p] = Opaque(f"{PARAMETER}{p}")
        # a function of the config alone (`f(cfg)`, or a config method taking only self):
        # its value can stand in for calls of it (`extractor.inline`)
        is_helper = len(params) == 1 and params[0] in aliases and node.name.value not in self.profile.views
        return Frame(scope, helper_return=helper_return_of(node) if is_helper else None)

    def provider(self, node: cst.FunctionDef, qual: str) -> set[str] | None:
        """For a function a profile decorator registers as returning {field: value}
        decisions: record it, guard a model override by the models it names, and
        start tracking its declaration dicts (else None)."""
        for dec in node.decorators:
            call = dec.decorator if isinstance(dec.decorator, cst.Call) else None
            name = last_name(call.func if call is not None else dec.decorator)
            if name in self.profile.passes or name in self.profile.model_overrides:
                self.found.registered.append(qual)
                if name in self.profile.model_overrides:
                    self.found.overrides.append(qual)
                    args = call.args if call is not None else ()
                    models = tuple(v for a in args if (v := string_value(a.value)))
                    text = f"the model is registered for {name}({', '.join(models)})"
                    name_ref = self.profile.model_architecture
                    arch = Ref(RefKind.MODEL, name_ref, name_ref) if name_ref else None
                    guard: Expr = Unknown(text)
                    if arch is not None and models:
                        guard = In(arch, Const(models))
                    elif arch is not None and len(args) == 1 and isinstance(args[0].value, cst.Lambda):
                        guard, text = self._predicate_of(args[0].value, arch), norm_code(args[0].value.body)
                    self.push(guard, text, GuardOrigin.CALLER)
                return set()
        return None

    def _predicate_of(self, predicate: cst.Lambda, arch: Ref) -> Expr:
        """``@register_...(lambda arch: "X" in arch)``: the lambda's test of the model's
        architecture (unknown unless it takes exactly that one argument)."""
        params = predicate.params
        if len(params.params) != 1 or params.posonly_params or params.kwonly_params \
                or isinstance(params.star_arg, (cst.Param, cst.ParamStar)) or params.star_kwarg is not None:
            return Unknown(norm_code(predicate))
        name = params.params[0].name.value
        if self.scope.lookup(name) is not None:  # shadows a name the module binds: not read here
            return Unknown(norm_code(predicate))
        return replace_refs(to_ir(predicate.body, self.scope),
                            lambda r: arch if r.kind is RefKind.UNKNOWN and r.name == name else r)

    def declare(self, fields: cst.BaseExpression, node: cst.CSTNode) -> None:
        """`{"field": value, ...}` declared by a provider: one adjustment per literal key."""
        if isinstance(fields, cst.Dict):
            for el in fields.elements:
                key = string_value(el.key) if isinstance(el, cst.DictElement) else None
                if key is not None and isinstance(el, cst.DictElement):
                    self.adjust(key, el.value, node)

    # -------------------------------------------------------------- statements

    def visit_Raise(self, node: cst.Raise) -> None:
        line = self.line_of(node)
        notes: list[str] = []
        exc = node.exc
        if isinstance(exc, cst.Name):
            bound = self.scope.lookup(exc.value)
            if isinstance(bound, cst.Call):
                exc = bound
        except_types = self.frame.except_types
        if exc is None and not except_types:
            # A bare raise with no exception being handled: Python raises RuntimeError.
            exception, options = "RuntimeError", [Option(Template.literal("No active exception to reraise"))]
        elif exc is None:
            exception = except_types[-1]
            options = [Option(Template.hole(CAUGHT))]
            notes.append("re-raises the caught exception; its message is not known statically")
        elif isinstance(exc, cst.Call):
            exception = norm_code(exc.func)
            options = self._message(exc, notes)
        else:
            exception = norm_code(exc)
            options = [Option(Template.literal(""))]
        self.add_site(node, line, SiteKind.RAISE, exception, options, (), notes)

    def visit_Assert(self, node: cst.Assert) -> None:
        line = self.line_of(node)
        guard = Guard(negate(to_ir(node.test, self.scope)), f"not ({norm_code(node.test)})", GuardOrigin.ASSERT)
        options = build(node.msg, self.scope) if node.msg is not None else [Option(Template.literal(""))]
        self.add_site(node, line, SiteKind.ASSERT, "AssertionError", options, (guard,), [])
        self.push(to_ir(node.test, self.scope), norm_code(node.test), GuardOrigin.PRIOR_RAISE, line)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None and isinstance(node.target, cst.Name):
            self.scope.bind(node.target.value, node.value)
            self._declaration_dict(node.target.value, node.value, node)

    def visit_Expr(self, node: cst.Expr) -> None:
        self._device_query(node, node.value)
        if isinstance(node.value, cst.Call):
            self.call(node.value)

    def _device_query(self, node: cst.BaseSmallStatement, value: cst.BaseExpression) -> None:
        """A statement calling a device query that raises where the machine lacks the device
        (the profile's `platform.raises`: ``major, _ = torch.cuda.get_device_capability()``):
        a site firing where the query fails, and an earlier raise for what follows. Only a
        statement's own call: one inside a condition (``a and query()[0] >= 10``) may not run."""
        call = value.value if isinstance(value, cst.Subscript) else value
        if not isinstance(call, cst.Call) or not self.profile.platform_raises:
            return
        name = dotted(call.func)
        raised = self.profile.raising_query(name) if name is not None else None
        if name is None or raised is None:
            return
        exception, message = raised
        text = f"{norm_code(call)} fails"
        fails = Truthy(Ref(RefKind.PLATFORM, f"{name}() fails", text))
        line = self.line_of(node)
        self.add_site(node, line, SiteKind.RAISE, exception, [Option(Template.literal(message))],
                      (Guard(fails, text, GuardOrigin.IF),),
                      [f"raised by {name}() where the machine has no such device, not by a check of the project"],
                      query=name)
        self.push(negate(fails), f"not ({text})", GuardOrigin.PRIOR_RAISE, line)

    def visit_Return(self, node: cst.Return) -> None:
        frame = self.frame
        if frame.declared is not None and isinstance(node.value, cst.Dict):
            self.declare(node.value, node)
        elif node is frame.helper_return and node.value is not None:
            self.helper(node.value)
        elif isinstance(node.value, cst.Call):
            self.call(node.value)

    def helper(self, value: cst.BaseExpression) -> None:
        """Record what a config helper returns, when it is all config facts and constants."""
        if isinstance(value, cst.Call):
            self.call(value)
        found = term(value, self.scope)
        if not unknowns(found) and all(r.name != "*" for r in refs(found)):  # not the config itself
            self.found.helpers.append((self.function, found))

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if isinstance(node.names, cst.ImportStar) or (node.module is None and not node.relative):
            return
        module = norm_code(node.module) if node.module is not None else ""
        if node.relative:  # `from .lib import h` in a/b/t.py is a.b.lib: the sibling only
            package = self.path.rsplit("/", len(node.relative))[0].replace("/", ".")
            module = f"{package}.{module}" if module else package
        for alias in node.names:
            local = alias.asname.name.value if alias.asname else norm_code(alias.name)  # type: ignore[union-attr]
            self.found.imports[local] = f"{module}.{norm_code(alias.name)}"

    def _bind_walrus(self, test: cst.BaseExpression) -> None:
        """``if (x := v) ...``: `x` is `v` in the branches and after them (the test runs first)."""
        for named in walruses(test) if self.walruses else ():
            if isinstance(named.target, cst.Name):
                self.rebind(named.target.value, named.value)

    def rebind(self, name: str, value: cst.BaseExpression) -> None:
        """Bind `name` (a branch's rebinding meets the others' where they join: `Join`); a
        module constant's comprehension is the literal it computes to (`computed_literals`)."""
        self.scope.bind(name, self.computed.get(id(value), value))

    def visit_Assign(self, node: cst.Assign) -> None:
        self._device_query(node, node.value)
        for target in node.targets:
            self._assign_to(target.target, node.value, node)
        if isinstance(node.value, cst.Call):
            self.call(node.value)

    def _assign_to(self, tgt: cst.BaseAssignTargetExpression, value: cst.BaseExpression, node: cst.Assign) -> None:
        if isinstance(tgt, cst.Name) and (read := self._declared_read(value)) is not None:
            self.scope.bindings[tgt.value] = read  # a provider reading back what it decided
            self.frame.decided_reads.add(tgt.value)
            self.scope.rebinds.pop(tgt.value, None)
            self.scope.aliases.discard(tgt.value)
            self._splat_start(tgt.value, value)
        elif isinstance(tgt, cst.Name):
            self.frame.decided_reads.discard(tgt.value)
            self.rebind(tgt.value, value)
            self._declaration_dict(tgt.value, value, node)
            self._splat_start(tgt.value, value)
        elif isinstance(tgt, (cst.Tuple, cst.List)):
            self._unpack(tgt, value, node)
        elif isinstance(tgt, cst.Attribute) and self.scope.is_config(tgt.value):
            self.adjust(tgt.attr.value, value, node)
        elif isinstance(tgt, cst.Attribute) and (path := self._field_path(tgt, {})) is not None and len(path) > 1:
            self.adjust(".".join(path), value, node)  # config.decode.max_bs = 8
        elif isinstance(tgt, cst.Subscript):
            key = self._declared_key(tgt)  # declared["field"] = value
            if key is not None:
                self.adjust(key, value, node)
                bound = self.scope.lookup(value.value) if isinstance(value, cst.Name) else None
                entry = (tuple(self.frame.guards), bound if isinstance(bound, cst.BaseExpression) else value)
                self.frame.decided.setdefault((cst.ensure_type(tgt.value, cst.Name).value, key), []).append(entry)
            self._splat_item(tgt, value)
            self._item_set(tgt, value)

    def _item_set(self, tgt: cst.Subscript, value: cst.BaseExpression) -> None:
        """``d[k] = v`` on a dict table: one more row, under the guards in force (a later row
        of the same key wins, as in a dict literal); on anything else, `d` is unknown. Not for
        a provider's declaration dict: its items are adjustments already, and growing it row by
        row under each model's guards makes every read of it a term as large as the provider."""
        name = tgt.value.value if isinstance(tgt.value, cst.Name) else ""
        bound = self.scope.bindings.get(name)
        index = tgt.slice[0].slice if len(tgt.slice) == 1 else None
        if isinstance(bound, Table) and bound.is_dict and name not in (self.frame.declared or ()) \
                and isinstance(index, cst.Index) \
                and isinstance(index.value, (cst.SimpleString, cst.Integer)):
            self._extend(name, bound, cst.Dict([cst.DictElement(index.value, value)]))
        else:
            self._changed_in_place(tgt)

    def _changed_in_place(self, node: cst.BaseExpression) -> None:
        """``s.add(x)``, ``s.discard(x)``, ``s.update(t)`` on a set and ``l.append(x)`` on a
        list rebind the name to what they compute (``s | {x}`` ...); any other change in place
        (``d[k] = v``, ``d.update(...)``) leaves it unknown."""
        name = mutated_name(node)
        bound = self.scope.bindings.get(name) if name is not None else None
        if name is None or bound is None or isinstance(bound, Opaque):
            return
        value = in_place_value(name, node, bound) if isinstance(node, cst.Call) else None
        if value is not None:
            self.rebind(name, value)
        else:
            self.scope.bindings[name] = Opaque(described("changed in place"))

    def visit_Del(self, node: cst.Del) -> None:
        self._changed_in_place(node.target)

    def _unpack(self, tgt: cst.Tuple | cst.List, value: cst.BaseExpression, node: cst.Assign) -> None:
        """``a, b = value``: each name bound to its item; ``cfg.a, cfg.b = f(cfg)`` adjusts."""
        values = value.elements if isinstance(value, (cst.Tuple, cst.List)) else None
        for i, el in enumerate(tgt.elements):
            n = el.value
            if values is not None and i < len(values):
                item: cst.BaseExpression = values[i].value
            else:  # a, b = f(): the i-th item of the value
                item = cst.Subscript(value, [cst.SubscriptElement(cst.Index(cst.Integer(str(i))))])
            if isinstance(n, cst.Name):
                self.scope.bind(n.value, item)
            elif isinstance(n, cst.Attribute) and self.scope.is_config(n.value):
                self.adjust(n.attr.value, item, node)

    def _declared_key(self, tgt: cst.Subscript) -> str | None:
        """``field`` for ``declared["field"]`` where `declared` is a provider's declaration dict."""
        declared = self.frame.declared
        if not declared or not isinstance(tgt.value, cst.Name) or tgt.value.value not in declared:
            return None
        if len(tgt.slice) != 1 or not isinstance(tgt.slice[0].slice, cst.Index):
            return None
        return string_value(tgt.slice[0].slice.value)

    def _declared_read(self, value: cst.BaseExpression) -> Binding | None:
        """``declared.get("field", default)`` in a provider: what it set the field to, under
        the guards it was set under (the latest first), else `default` (None if not given)."""
        read = _declared_get(value, self.frame.declared)
        if read is None:
            return None
        name, key, found = read
        decided = self.frame.decided.get((name, key), [])
        if len(decided) > MAX_BRANCH_VALUES:
            return Opaque(described(f"set in more than {MAX_BRANCH_VALUES} places"))
        here = set(self.frame.guards)  # what holds where it is read need not be tested again
        ruled_out = {negate(g.expr) for g in here}  # a branch that returned before the read
        for guards, set_to in decided:  # a later setting wins where its guards hold
            if not any(g.expr in ruled_out for g in guards):
                cond = conj([g.expr for g in guards if g not in here])
                found = set_to if cond == TRUE else Conditional(cond, set_to, found)
        return found

    def _declaration_dict(self, name: str, value: cst.BaseExpression, node: cst.CSTNode) -> None:
        """In a provider, ``declared = {...}`` starts a dict of decisions it returns."""
        declared = self.frame.declared
        if declared is not None and isinstance(value, cst.Dict):
            declared.add(name)
            self.declare(value, node)

    def _splat_start(self, name: str, value: cst.BaseExpression) -> None:
        """``d = {...}`` (literal keys) may become a setter's ``**d``; any other binding ends that."""
        splats = self.frame.splats
        splats.pop(name, None)
        if isinstance(value, cst.Dict):
            items = [(string_value(el.key), el.value) if isinstance(el, cst.DictElement) else (None, el.value)
                     for el in value.elements]
            guards = tuple(self.frame.guards)
            splats[name] = (None if any(k is None for k, _ in items)
                            else [(k, term(v, self.scope), guards) for k, v in items if k is not None])

    def _splat_item(self, tgt: cst.Subscript, value: cst.BaseExpression) -> None:
        """``d["field"] = v`` (or ``d[k]`` with `k` bound to a string, as a table row binds it)."""
        splats = self.frame.splats
        if not isinstance(tgt.value, cst.Name) or splats.get(tgt.value.value) is None:
            return
        name = tgt.value.value
        index = tgt.slice[0].slice if len(tgt.slice) == 1 else None
        key_node = index.value if isinstance(index, cst.Index) else None
        if isinstance(key_node, cst.Name):
            bound = self.scope.lookup(key_node.value)
            key_node = bound if isinstance(bound, cst.BaseExpression) else None
        key = string_value(key_node) if key_node is not None else None
        items = splats[name]
        if key is None or items is None:
            splats[name] = None
        else:
            items.append((key, term(value, self.scope), tuple(self.frame.guards)))

    def _splat(self, name: str, node: cst.CSTNode) -> None:
        """A setter's ``**name``: one adjustment per item, under the guards of its assignment
        and of the call, except the call's tests of the dict itself (``if fields:``); an item
        whose own guards read the dict (``if d.get(k) == v``) is left out."""
        items = self.frame.splats.get(name)
        if not items:
            return
        mentions = re.compile(rf"\b{re.escape(name)}\b")
        at_call = [g for g in self.frame.guards if not mentions.search(g.text)]
        for key, value, guards in items:
            if any(mentions.search(g.text) for g in guards):
                continue
            extra = [g for g in at_call if not any(g is h for h in guards)]
            self._adjustment(key, value, (*guards, *extra), node)

    # -------------------------------------------------------------- fields of a record setting

    def _field_path(self, node: cst.BaseExpression, params: Mapping[str, cst.BaseExpression],
                    seen: frozenset[str] = frozenset()) -> list[str] | None:
        """``["cuda_graph_config", "decode"]`` for ``getattr(config, phase)`` where ``config``
        is a local declared as ``cuda_graph_config`` and ``phase`` reads "decode" (`params`:
        an inlined function's parameters, by the caller's argument expressions; `seen`: the
        locals followed so far, as ``x = x.view()`` refers to itself)."""
        if not self.frame.records:  # no local of this function becomes a setting
            return None
        if isinstance(node, cst.Name):
            if node.value in params:
                return self._field_path(params[node.value], {}, seen)
            setting = self.frame.records.get(node.value)
            bound = self.scope.lookup(node.value)
            if setting is not None:
                return [setting] if bound is not None else None
            if node.value in seen or not isinstance(bound, (cst.Attribute, cst.Call)):
                return None
            return self._field_path(bound, {}, seen | {node.value})  # a part of one: ``decode = config.decode``
        if isinstance(node, cst.Attribute):
            head = self._field_path(node.value, params, seen)
            return None if head is None else [*head, node.attr.value]
        if isinstance(node, cst.Call) and dotted(node.func) == "getattr" and len(node.args) == 2:
            head = self._field_path(node.args[0].value, params, seen)
            key = self._key(node.args[1].value, params)
            return None if head is None or key is None else [*head, key]
        return None

    def _key(self, node: cst.BaseExpression, params: Mapping[str, cst.BaseExpression]) -> str | None:
        if isinstance(node, cst.Name) and node.value in params:
            node = params[node.value]
        found = term(node, self.scope)
        return found.value if isinstance(found, Const) and isinstance(found.value, str) else None

    def field_write(self, node: cst.Call, params: Mapping[str, cst.BaseExpression]) -> None:
        """``setattr(<field path>, "key", value)``: an adjustment of the field ``x.a.key``."""
        if dotted(node.func) != "setattr" or len(node.args) != 3:
            return
        head = self._field_path(node.args[0].value, params)
        key = self._key(node.args[1].value, params)
        if head is None or key is None:
            return
        value = node.args[2].value
        if isinstance(value, cst.Name) and value.value in params:
            value = params[value.value]
        self.adjust(".".join([*head, key]), value, node)

    def _env_set(self, node: cst.Call, method: str | None) -> None:
        """``envs.X.set(v)``: the code sets an env var later checks read (an adjustment of ``env:X``)."""
        if method != "set" or len(node.args) != 1 or not isinstance(node.func, cst.Attribute):
            return
        env = env_registry_name(node.func.value, self.scope)
        if env is not None:
            self._adjustment(ENV_SETTING + env, term(node.args[0].value, self.scope), tuple(self.frame.guards), node)

    def _inline_writes(self, writer: cst.FunctionDef, call: cst.Call) -> None:
        """A call of a nested function that only writes fields: its writes, with the
        call's arguments for its parameters (``_set(Phase.DECODE, "backend", x)``)."""
        ps = writer.params
        names = [p.name.value for p in (*ps.posonly_params, *ps.params)]
        if any(a.star for a in call.args):
            return
        params: dict[str, cst.BaseExpression] = {}
        for i, arg in enumerate(call.args):
            name = arg.keyword.value if arg.keyword is not None else (names[i] if i < len(names) else None)
            if name is None:
                return
            params[name] = arg.value
        for stmt in simple_statements(writer):
            if isinstance(stmt, cst.Expr) and isinstance(stmt.value, cst.Call):
                self.field_write(stmt.value, params)

    def _functional_update(self, setting: str, value: cst.BaseExpression, node: cst.CSTNode) -> bool:
        """``setter(x=f(cfg.x, "a", k=v))``: a copy of the record ``x`` with field ``a.k``
        changed (``with_phase``, ``dataclasses.replace``): the adjustment of ``x.a.k``."""
        if not isinstance(value, cst.Call) or not value.args or any(a.star for a in value.args):
            return False
        first, rest = value.args[0], value.args[1:]
        base = term(first.value, self.scope)
        if first.keyword is not None or not (isinstance(base, Ref) and base.kind is RefKind.FLAG
                                             and base.name == setting):
            return False
        path = [self._key(a.value, {}) for a in rest if a.keyword is None]
        fields = [a for a in rest if a.keyword is not None]
        if not fields or any(p is None for p in path):
            return False
        for arg in fields:
            assert arg.keyword is not None
            self.adjust(".".join([setting, *(p for p in path if p is not None), arg.keyword.value]), arg.value, node)
        return True

    def adjust(self, flag: str, value: cst.BaseExpression, node: cst.CSTNode) -> None:
        self._adjustment(flag, term(value, self.scope), tuple(self.frame.guards), node)

    def _adjustment(self, flag: str, value: Expr, guards: tuple[Guard, ...], node: cst.CSTNode) -> None:
        adjustments = self.found.adjustments
        # a provider's declarations take effect together when it returns (each reads the view as
        # the provider found it): one place for all, after its own checks
        line = self.frame.declared_at if self.frame.declared is not None and self.frame.declared_at \
            else self.line_of(node, self.statement)
        adjustments.append(Adjustment(self.function, line, flag, value, guards, self.path, len(adjustments)))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if not isinstance(node.target, cst.Name):
            if isinstance(node.target, cst.Attribute) and self.scope.is_config(node.target.value):
                self.adjust(node.target.attr.value, node.value, node)
            return
        name = node.target.value
        bound = self.scope.lookup(name)
        if isinstance(bound, Table):
            self._extend(name, bound, node.value)
        elif isinstance(bound, (cst.BaseExpression, Conditional)):
            op = AUGMENTED.get(type(node.operator))
            if op is not None:  # x op= y: x = x op y
                self.rebind(name, cst.BinaryOperation(left=cst.Name(name), operator=op(), right=node.value))
            else:
                self.scope.bindings[name] = Opaque(described("updated in place"))

    def _extend(self, name: str, table: Table, value: cst.BaseExpression) -> None:
        bigger = grown(table, value, self.path_guards())
        self.scope.bindings[name] = (bigger if bigger is not None
                                     else Opaque(described("grown item by item")))

    def call(self, node: cst.Call) -> None:
        callee = dotted(node.func)
        if callee is None:  # f(cfg).get(...): the calls the callee expression makes
            for inner in calls_in(node.func):
                if (name := dotted(inner.func)) is not None:
                    self._record(inner, name)
            self._record_inner(node)
            return
        method = last_name(node.func)
        self._declared_update(node, method)
        if self._table_growth(node, method):
            self._record_inner(node)
            return
        self._changed_in_place(node)
        if method in self.profile.setters:
            for arg in node.args:
                if arg.keyword is not None:
                    if not self._functional_update(arg.keyword.value, arg.value, node):
                        self.adjust(arg.keyword.value, arg.value, node)
                elif arg.star == "**" and isinstance(arg.value, cst.Name):
                    self._splat(arg.value.value, node)
        self.field_write(node, {})
        self._env_set(node, method)
        writer = self.frame.writers.get(callee)
        if writer is not None:
            self._inline_writes(writer, node)
        self._record(node, callee)

    def _record(self, node: cst.Call, callee: str) -> None:
        """`node` as a call site, then the calls and function references in its arguments:
        ``overrides.update(_f(cfg))`` calls `_f` too, ``run_hook(handle_x, cfg)`` hands
        `handle_x` over (a reference: it may be called there)."""
        guards = tuple(self.frame.guards)
        nested = "." not in callee and f"{self.function}.{callee}" in self.found.defined
        args = tuple(
            (arg.keyword.value if arg.keyword else str(i), self._arg_term(arg.value, nested))
            for i, arg in enumerate(node.args) if not arg.star
        )
        self.found.calls.append(CallSite(self.function, callee, guards, args, line=self.call_line(node),
                                         caught=tuple(dict.fromkeys(n for c in self.frame.catching for n in c)),
                                         try_line=self.frame.tries[-1] if self.frame.tries else 0))
        self._record_inner(node)

    def _record_inner(self, node: cst.Call) -> None:
        guards = tuple(self.frame.guards)
        for arg in node.args:
            name = dotted(arg.value) if isinstance(arg.value, (cst.Name, cst.Attribute)) else None
            if name is not None and self.scope.lookup(name.partition(".")[0]) is None \
                    and not self.scope.is_config(cst.Name(name.partition(".")[0])):
                self.found.calls.append(CallSite(self.function, name, guards, ref=True, line=self.call_line(arg.value)))
            for inner in calls_in(arg.value):
                name = dotted(inner.func)
                if name is not None:
                    self._record(inner, name)

    def _declared_update(self, node: cst.Call, method: str | None) -> None:
        """``declared.update({...})`` / ``declared.update(field=value)`` in a provider."""
        declared, func = self.frame.declared, node.func
        if not declared or method != "update" or not isinstance(func, cst.Attribute) \
                or not isinstance(func.value, cst.Name) or func.value.value not in declared:
            return
        for arg in node.args:
            if arg.keyword is not None:
                self.adjust(arg.keyword.value, arg.value, node)
            else:
                self.declare(arg.value, node)

    def _table_growth(self, node: cst.Call, method: str | None) -> bool:
        """``rows.update/append/extend(...)`` on a condition table grows it (True: done)."""
        func = node.func
        if not isinstance(func, cst.Attribute) or not isinstance(func.value, cst.Name):
            return False
        owner = func.value.value
        bound = self.scope.lookup(owner)
        if not isinstance(bound, Table) or method not in ("update", "append", "extend") or not node.args:
            return False
        arg = node.args[0].value
        self._extend(owner, bound, cst.List([cst.Element(arg)]) if method == "append" else arg)
        return True

    def _arg_term(self, node: cst.BaseExpression, nested: bool = False) -> Expr:
        """A call argument for parameter binding: literals, direct config reads, a local
        bound to those (where branches joined, to one of them per branch), and an item a
        table row reads (``raw[name]``; its own parameters included: bound where it is
        called) while small (`MAX_ARG_TERMS`). Longer binding chains are not followed: they
        would be re-read at every call, which made a whole release's 4,000 files take tens of
        minutes on large numeric code (tried 2026-12-02), and are rarely what a validation hook
        is passed."""
        if simple_arg(node, self.scope):
            return term(node, self.scope)
        bound = self.scope.bindings.get(node.value) if isinstance(node, cst.Name) else None
        if isinstance(bound, Opaque) and bound.text.startswith(PARAMETER):
            return term(node, self.scope)  # its own parameter passed on: bound where the caller is
        if isinstance(node, cst.Name) and (node.value in self.frame.decided_reads or self.frame.tries or nested):
            # a provider's decision; what a call in a ``try`` is passed (what the block raises
            # depends on it: `extractor.callers.CallGraph.try_raises`); what a function defined
            # here is passed (its variants take the enclosing function's: `extractor.callers`)
            found = term(node, self.scope)
            if bound_by_callers(found) and not larger_than(found, MAX_ARG_TERMS):
                return found
        if simple_binding(bound, self.scope) or (isinstance(bound, cst.BaseExpression)
                                                  and reads_no_local(bound, self.scope)):
            return term(node, self.scope)  # a local bound once to config reads: no chain to re-read
        if reads_no_local(node, self.scope):  # constants and config reads only: cheap to read as it is
            found = term(node, self.scope)
            if not unknowns(found):
                return found
        elif isinstance(node, cst.Subscript) and self.frame.rows:  # ``raw[name]`` per row of a table
            found = term(node, self.scope)
            if bound_by_callers(found) and not larger_than(found, MAX_ARG_TERMS):
                return found  # the function's own parameters are bound where it is called
        return Unknown(norm_code(node))  # what the call passes, as the source writes it

    # ------------------------------------------------------------------ loops

    def visit_For(self, node: cst.For) -> None:
        """A loop over a condition table is walked once per row (`extractor.tables`);
        any other loop once, its variables unknown."""
        names = target_names(node.target)
        rows = iterated(node.iter, self.scope.lookup)
        with unknown_after(self.scope, "computed in a loop"):
            if not rows or not names:  # rows are walked one after another: nothing carried over unseen
                self._carried(node.body, names)
            self._loop_body(node, names, rows)
        if node.orelse is not None:
            self.walk_suite(node.orelse.body)

    def _carried(self, body: cst.BaseSuite, names: tuple[str, ...]) -> None:
        """Locals the loop body writes may hold what an earlier pass left: unknown inside it."""
        bindings = self.scope.bindings
        for name in written_names(body) - set(names):
            if name in bindings and not isinstance(bindings[name], Opaque):
                bindings[name] = Opaque(described("an earlier pass of a loop may have changed"))

    def _loop_body(self, node: cst.For, names: tuple[str, ...], rows: Sequence[Row] | None) -> None:
        if rows and names:
            self._walk_rows(node, names, rows)
            return
        items = term(node.iter, self.scope)
        if len(names) == 1 and isinstance(node.target, cst.Name) and bound_by_callers(items):
            # ``for p in cfg.paths``: the items are the setting's; a check inside holds for some
            # item (a parameter's items: those its call sites bind it to)
            self._unknown_items(names, node)
            loop = ItemLoop(names[0], items, len(self.frame.guards), len(self.frame.runs), norm_code(node.iter))
            with pushed_on(self.frame.item_loops, loop):
                self.walk_suite(node.body)
            return
        with pushed_on(self.frame.loop_notes,
                     f"inside a loop over `{norm_code(node.iter)}`, whose items are not known statically"):
            self._unknown_items(names, node)
            self.walk_suite(node.body)

    def _unknown_items(self, names: tuple[str, ...], node: cst.For) -> None:
        for name in names:
            self.scope.bindings[name] = Opaque(described("taken from a collection errcat cannot list"))
            self.scope.aliases.discard(name)

    def _walk_rows(self, node: cst.For, names: tuple[str, ...], rows: Sequence[Row]) -> None:
        frame, found = self.frame, self.found
        depth, start = len(frame.guards), len(found.pending)
        for index, row in enumerate(rows):
            for name, value in row_bindings(node.target, row):
                if value is None:
                    self.scope.bindings[name] = Opaque(name)
                else:
                    self.scope.bind(name, value)
            ctx = RowContext(id(node), index, depth, names, len(found.prior_blocks))
            with self.guarded(), pushed_on(frame.rows, ctx):
                active = {id(g) for g in self.path_guards()} if row.guards else set()
                frame.guards.extend(g for g in row.guards if id(g) not in active)  # the row's own conditions
                self.scope.row_targets.update(names)
                self.walk_suite(node.body)
                self.scope.row_targets.difference_update(names)
        for name in names:
            self.scope.bindings[name] = Opaque(described("taken from a collection errcat cannot list"))
        found.pending[start:] = merge_rows(found.pending[start:], id(node))

    # ------------------------------------------------------------------ sites

    def _message(self, call: cst.Call, notes: list[str]) -> list[Option]:
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
        if len(positional) == 1:
            return build(positional[0], self.scope)
        if len(positional) > 1:
            return [Option(_args_tuple(positional))]
        for key in ("message", "msg", "detail", "reason", "error"):
            if key in keywords:
                notes.append(f"message passed as keyword {key}=")
                return build(keywords[key], self.scope)
        if keywords:
            notes.append("exception built from keyword arguments only; message depends on the class")
            first = next(iter(keywords.values()))
            return build(first, self.scope)
        return [Option(Template.literal(""))]

    def add_site(
        self, node: cst.CSTNode, line: int, kind: SiteKind, exception: str,
        options: list[Option], extra: tuple[Guard, ...], notes: list[str], query: str = "",
    ) -> None:
        frame = self.frame
        template = options[0].template
        row_values = self._row_values(template, frame.rows[-1]) if frame.rows else {}
        if any(h.expr not in row_values for h in template.holes):
            notes.append("message has parts known only at run time")
        notes = notes + frame.loop_notes
        guards = _for_some_item(tuple(frame.guards) + extra, frame)
        variants: tuple[Variant, ...] = ()
        if len(options) > 1:
            variants = tuple(
                Variant((), (Guard(o.cond, "message variant", GuardOrigin.MESSAGE),), o.template)
                for o in options
            )
        site = RaiseSite(
            self.path, line, self.function, kind, exception, template, guards, variants,
            tuple(dict.fromkeys(notes)), self._hole_refs(template), len(self.found.adjustments), self.prior_runs(),
            query=query,
        )
        pending = Pending(id(node), site)
        if frame.rows:
            ctx = frame.rows[-1]
            values = tuple((k, t.text) for k, t in row_values.items())
            variant = Variant(values, self.path_guards(ctx.depth, ctx.blocks) + extra, template.fill(row_values))
            pending.rows.append((ctx, replace(site, variants=(variant,))))
        self.found.pending.append(pending)

    def _hole_refs(self, template: Template) -> tuple[tuple[str, Expr], ...]:
        """What simple holes (``{cfg.x}``, ``{backend}``) show, when it is a flag/env/fact."""
        out = []
        for hole in template.holes:
            parts = hole.expr.split(".")
            if not all(p.isidentifier() for p in parts):
                continue
            node: cst.BaseExpression = cst.Name(parts[0])
            for part in parts[1:]:
                node = cst.Attribute(node, cst.Name(part))
            value = term(node, self.scope)
            if any(r.kind is not RefKind.UNKNOWN for r in refs(value)):
                out.append((hole.text, value))
        return tuple(out)

    def _row_values(self, template: Template, ctx: RowContext) -> dict[str, Template]:
        """Hole values a table row supplies (holes named by a loop variable)."""
        values: dict[str, Template] = {}
        for hole in template.holes:
            if hole.expr in ctx.targets and hole.expr not in values:
                bound = self.scope.lookup(hole.expr)
                if isinstance(bound, cst.BaseExpression):
                    values[hole.expr] = build(bound, self.scope)[0].template
        return values


# One handler per statement kind, found by name as LibCST names its visitor methods.
SiteWalker.HANDLERS = {
    getattr(cst, name.removeprefix("visit_")): handler
    for name, handler in vars(SiteWalker).items() if name.startswith("visit_")
}


def _declared_get(value: cst.BaseExpression, declared: set[str] | None) -> tuple[str, str, Binding] | None:
    """(dict, field, default) of ``declared.get("field", default)`` on one of the `declared` dicts."""
    if not declared or not isinstance(value, cst.Call) or not isinstance(value.func, cst.Attribute):
        return None
    owner = value.func.value
    if value.func.attr.value != "get" or not isinstance(owner, cst.Name) or owner.value not in declared:
        return None
    if not 1 <= len(value.args) <= 2 or any(a.keyword is not None or a.star for a in value.args):
        return None
    key = string_value(value.args[0].value)
    if key is None:
        return None
    return owner.value, key, value.args[1].value if len(value.args) == 2 else cst.Name("None")


def _args_tuple(positional: Sequence[cst.BaseExpression]) -> Template:
    """``str(Exception(a, b))`` renders the args tuple: ``('a', 1)``."""
    parts: list[Template] = []
    for arg in positional:
        value = string_value(arg)
        ok, lit = literal_value(arg)
        if value is not None:
            parts.append(Template.literal(repr(value)))
        elif ok:
            parts.append(Template.literal(repr(python_value(lit))))
        else:
            parts.append(Template.hole(norm_code(arg), "r"))
    joined = Template.literal("(")
    for i, part in enumerate(parts):
        joined = joined + (Template.literal(", ") if i else Template.literal("")) + part
    return joined + Template.literal(")")


@dataclass(frozen=True, slots=True)
class ItemLoop:
    """``for name in items:`` over a known collection (`items`: a setting's list) of unknown items."""

    name: str
    items: Expr
    depth: int  # guards on the path at the loop: deeper ones are the body's
    runs: int  # earlier-raise runs at the loop
    source: str  # `items` as the source writes it


def _for_some_item(guards: tuple[Guard, ...], frame: Frame) -> tuple[Guard, ...]:
    """A site's guards with those inside the innermost item loop (`ItemLoop`) made one:
    they hold for some item. As they stand where an earlier raise inside the loop reads the
    item too (that order is per item)."""
    if not frame.item_loops:
        return guards
    loop = frame.item_loops[-1]
    inner = guards[loop.depth:]
    if not inner or len(frame.runs) > loop.runs:
        return guards
    holds = conj([g.expr for g in inner])
    text = f"any({' and '.join(g.text for g in inner)} for {loop.name} in {loop.source})"
    some = Truthy(Apply(SOME_ITEM, (loop.items, Const(loop.name), holds), text))
    return (*guards[:loop.depth], Guard(some, text, GuardOrigin.IF))


def _module_constants(module: cst.Module) -> dict[str, cst.BaseExpression]:
    """Module-level ``NAME = expr`` bindings (tables, messages, platform flags)."""
    consts: dict[str, cst.BaseExpression] = {}
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Assign) and len(small.targets) == 1:
                    tgt = small.targets[0].target
                    if isinstance(tgt, cst.Name):
                        consts[tgt.value] = small.value
                elif (isinstance(small, cst.AnnAssign) and small.value is not None
                      and isinstance(small.target, cst.Name)):
                    consts[small.target.value] = small.value
    return consts


def _not_analysed(path: str, reason: str) -> FileSites:
    """A file Python accepts but errcat could not analyse: a diagnostic, and the catalog
    is marked incomplete (`FileSites.incomplete`), never silently short of its sites."""
    reason = " ".join(reason.split())  # one line, wherever it is shown
    return FileSites(path=path, parse_error=f"{path}: {reason}", incomplete=reason)


_python_rejects = parse.python_rejects


def extract_file(path: str, source: str, profile: Profile, imported: ImportedValues = ()) -> FileSites:
    """All sites of one file (`imported`: the constants it imports, `extractor.imported_values`).
    Never raises: unparsable files are reported as such, and so are files nested too deeply
    to analyse (`extractor.depth`)."""
    tree, too_deep = depth.refusal(source)
    if too_deep is not None and not too_deep.by_python:
        return _not_analysed(path, too_deep.reason)
    if too_deep is not None:  # Python refuses it too, but a target errcat skipped: the catalog says so
        where = "" if too_deep.line is None else f"line {too_deep.line}: "
        return _not_analysed(path, f"{where}{too_deep.reason} (Python refuses it too)")
    spans, how, docs = statement_spans(tree), pieces.cut(source, tree), first_lines(tree)
    comments = dict(check_comments(tree, source))
    del tree  # the `ast` of a large file is hundreds of MB: not kept while libcst parses
    found = depth.call_deep(_extract, path, source, profile, spans, how, imported)
    if comments:
        found = replace(found, sites=tuple(replace(s, comment=comments.get(s.line, "")) for s in found.sites))
    return replace(found, docstrings=docs) if docs else found


def _extract(
    path: str, source: str, profile: Profile, spans: Sequence[StatementSpan] | None, how: pieces.Cut | None,
    imported: ImportedValues = (),
) -> FileSites:
    try:
        module = pieces.parse(source, how)
    except cst.ParserSyntaxError as exc:
        message = str(exc).strip().splitlines()[0]
        if not _python_rejects(source):
            return _not_analysed(path, f"libcst cannot parse it: line {exc.raw_line}: {message}")
        return FileSites(path=path, parse_error=f"{path}:{exc.raw_line}: {message}")
    except MemoryError:
        return _not_analysed(path, "out of memory")
    except Exception as exc:  # noqa: BLE001 - libcst raises a few other kinds on odd input
        if not _python_rejects(source):
            return _not_analysed(path, f"libcst cannot parse it: {type(exc).__name__}: {exc}")
        return FileSites(path=path, parse_error=f"{path}: {type(exc).__name__}: {exc}")
    try:
        return SiteWalker(path, module, profile, spans, imported, source).run()
    except MemoryError:
        return _not_analysed(path, "out of memory")
    except RecursionError:
        return _not_analysed(path, "too deeply nested to analyse")
    except Exception as exc:  # noqa: BLE001 - a shape we mishandle must not sink the whole catalog
        return _not_analysed(path, f"analysis failed: {type(exc).__name__}: {exc}")
