"""Raise/assert sites of one file, with message templates, guard paths and table variants.

`SiteWalker` walks statements only (expressions are interpreted on demand by
`cst_ir` and `messages`), in document order, with one handler per statement kind
(`visit_<Kind>`). Blocks are processed in sequence so early exits (``if c: return``)
constrain what follows them. What the walk carries is one `WalkState`
(`extractor.walk_state`: the function's `Frame`, swapped as a unit on entering and leaving
a ``def``, and the guard stack). What a statement does besides control flow is left to
collaborators sharing that state: a provider's declarations (`extractor.declarations`),
config adjustments (`extractor.adjustments`), loops and tables (`extractor.table_loops`),
and the records of raise and call sites (`extractor.raise_sites`, `extractor.call_sites`).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import libcst as cst

from extractor import depth, parse, pieces
from extractor.adjustments import Adjustments
from extractor.call_sites import CallSites
from extractor.constant_values import as_literal, class_constants, computed_literals
from extractor.crash_sites import CrashSites
from extractor.cst_ir import term, to_ir
from extractor.cstutil import dotted, last_name, literal_value, norm_code
from extractor.declarations import Declarations
from extractor.docstrings import check_comments, first_lines
from extractor.exceptions import catches
from extractor.imported_values import ImportedValues
from extractor.init_attributes import initialised, top_statements
from extractor.ir import (
    FALSE,
    RAISES,
    TRUE,
    Apply,
    Compare,
    Const,
    Expr,
    Ref,
    RefKind,
    Truthy,
    Unknown,
    conj,
    described,
    disj,
    negate,
    refs,
    unknowns,
    walk,
)
from extractor.local_bindings import AUGMENTED, Join, pushed_on, unknown_after
from extractor.messages import Option, build
from extractor.positions import LineIndex, StatementSpan, statement_spans
from extractor.profile import Profile
from extractor.raise_sites import RaiseSites
from extractor.records import (
    CAUGHT_BY,
    NO_PRIORS,
    PARAMETER,
    FileSites,
    Guard,
    GuardOrigin,
    PriorTable,
    SiteKind,
    try_raises_ref,
)
from extractor.returns import kept, return_value
from extractor.scope import IN_TRY, Conditional, Opaque, Scope
from extractor.suite_facts import (
    bound_name,
    calls_in,
    caught_names,
    computed_names,
    declared_locals,
    exit_kind,
    forwards,
    handler_catches,
    helper_return_of,
    imported_modules,
    literal_defaults,
    once_guard,
    passes_on,
    suite_statements,
    summarised,
    walruses,
    writes_fields_only,
)
from extractor.table_loops import TableLoops
from extractor.tables import Pending, Table
from extractor.templates import CAUGHT, Template
from extractor.walk_state import Frame, WalkState
from extractor.writes import written_attributes

Handler = Callable[[Any, Any], None]


class SiteWalker:
    """Collects the sites, call sites and config adjustments of one module."""

    HANDLERS: dict[type, Handler]  # statement kind -> its `visit_<Kind>`, filled below the class

    def __init__(self, path: str, module: cst.Module, profile: Profile, spans: Sequence[StatementSpan] | None,
                 imported: ImportedValues = (), source: str | None = None) -> None:
        self.module = module
        self.source_lines = source.splitlines() if source is not None else None  # the text `module` is of
        self.walruses = source is None or ":=" in source  # else no test needs a walk for one
        self.classes: list[str] = []
        written = _module_constants(module)
        consts = computed_literals(path, module, written)
        computed = {id(written[n]): v for n, v in consts.items() if v is not written[n]}  # comprehensions
        consts.update(class_constants(path, module))
        self.state = state = WalkState(
            path, profile, LineIndex(module, lambda: spans),  # `spans`: the `ast` statements of the same text
            Frame(Scope(profile, consts, imported={
                name: node for name, value in imported if (node := as_literal(value)) is not None})),
            computed)
        self.adjustments = Adjustments(state)
        self.declarations = Declarations(state, self.adjustments)
        self.loops = TableLoops(state, self.walk_suite)
        self.raise_sites = RaiseSites(state)
        self.call_sites = CallSites(state)
        self.crashes = CrashSites(state, self.raise_sites)

    # ------------------------------------------------------------------ driver

    def run(self) -> FileSites:
        found = self.state.found
        self.walk_block(self.module.body)
        if not self.state.lines.from_ast:  # ast could not parse it or the statement counts disagree
            found.diagnostics.append(f"{self.state.path}: positions taken from PositionProvider")
        priors = self.state.priors()
        sites = tuple(sorted((replace(p.site, priors=priors) for p in found.pending),
                             key=lambda s: (s.line, s.function)))
        return FileSites(
            path=self.state.path,
            sites=sites,
            calls=tuple(found.calls),
            functions=tuple(found.functions),
            params=tuple(found.params),
            defaults=tuple(found.defaults),
            constants=tuple(
                (name, Const(value)) for name, node in sorted(self.state.frame.scope.module_consts.items())
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
            attributes=initialised(found.attributes, found.rewritten),
        )

    def named_in(self, stmt: cst.CSTNode, names: frozenset[str]) -> frozenset[str]:
        """The `names` a statement's text holds (all of them when its text is not at hand): a
        walk for a call of one is needed only there (a libcst walk costs a parse's share)."""
        lines = self.source_lines
        span = self.state.lines.span(stmt) if names and lines is not None else None
        if span is None or lines is None:
            return names
        text = "\n".join(lines[span[0] - 1:span[1]])
        return frozenset(n for n in names if n in text)

    # ------------------------------------------------------------------ blocks

    def walk_block(self, stmts: Sequence[cst.CSTNode]) -> None:
        with self.state.block():
            for stmt in stmts:
                self.walk_stmt(stmt)

    def walk_suite(self, suite: cst.BaseSuite) -> None:
        self.walk_block(suite_statements(suite))

    def walk_stmt(self, stmt: cst.CSTNode) -> None:
        handler = self.HANDLERS.get(type(stmt))
        if handler is not None:
            outer, self.state.statement = self.state.statement, stmt
            try:
                self.crashes.statement(stmt)
                handler(self, stmt)
            finally:
                self.state.statement = outer

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine | cst.SimpleStatementSuite) -> None:
        for small in node.body:
            self.walk_stmt(small)

    visit_SimpleStatementSuite = visit_SimpleStatementLine

    def visit_While(self, node: cst.While) -> None:
        with self.state.guarded(), unknown_after(self.state.scope, "computed in a loop"):
            self.loops.carried(node.body, ())
            self.state.push(to_ir(node.test, self.state.scope), norm_code(node.test), GuardOrigin.WHILE)
            self.walk_suite(node.body)
        if node.orelse is not None:
            self.walk_suite(node.orelse.body)

    def visit_With(self, node: cst.With) -> None:
        self.walk_suite(node.body)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        with pushed_on(self.state.qualname, node.name.value), pushed_on(self.classes, node.name.value):
            self.walk_suite(node.body)

    def visit_If(self, node: cst.If) -> None:
        """An if/elif/else chain: each branch under its test and the earlier tests'
        negations; branches that always leave constrain what follows the chain, and the
        locals the others rebind take their merged value where they join (`Join`)."""
        prior: list[tuple[Expr, str]] = []
        exits: list[tuple[Expr, str, GuardOrigin, int]] = []  # (condition, text, kind, line of its last statement)
        join = Join(self.state.scope)
        current: cst.If | None = node
        while current is not None:
            test, text = to_ir(current.test, self.state.scope), self._cond_text(current.test)
            self._bind_walrus(current.test)
            kind = exit_kind(current.body)
            with self.state.guarded(), join.branch(test, leaves=kind is not None):
                self.state.push_else(prior)
                self.state.push(test, text, GuardOrigin.IF)
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
                with self.state.guarded(), join.branch(None, leaves=kind is not None):
                    self.state.push_else(prior)
                    self.walk_suite(orelse.body)
                if kind is not None:
                    cond = conj([negate(p) for p, _ in prior])
                    exits.append((cond, " and ".join(f"not ({t})" for _, t in prior), kind,
                                  self._last_line(orelse.body)))
        join.close()
        for cond, text, kind, line in exits:
            if kind is GuardOrigin.EARLY_EXIT and once_guard(cond, self.state.frame.sets):
                continue  # ``if self._done: return`` before ``self._done = True``: never leaves on a launch
            self.state.push(negate(cond), f"not ({text})", kind, line)

    def _last_line(self, suite: cst.BaseSuite) -> int:
        """The line of a block's last statement (the raise an exit stands for)."""
        body: Sequence[cst.CSTNode] = suite.body
        return self.state.line_of(body[-1]) if body else 0

    def _cond_text(self, node: cst.BaseExpression) -> str:
        """Source text of a test; a table row's variable shows the row's expression."""
        rows = self.state.frame.rows
        if isinstance(node, cst.Name) and rows and node.value in rows[-1].targets:
            bound = self.state.scope.lookup(node.value)
            if isinstance(bound, cst.BaseExpression):
                return norm_code(bound)
        return norm_code(node)

    def visit_Try(self, node: cst.Try | cst.TryStar) -> None:
        """The body, then each handler under "the body raised"; a local the body rebinds
        keeps its value after the statement only when every handler leaves (else the
        body may have stopped anywhere), and one a handler rebinds is unknown after it."""
        handlers_leave = all(exit_kind(h.body) is not None for h in node.handlers)
        start = len(self.state.found.pending)
        computed = computed_names(node.body)
        kept = tuple(n for h in node.handlers if not passes_on(h) for n in caught_names(h))
        try_line = self.state.line_of(node)
        with unknown_after(self.state.scope, IN_TRY, keep=handlers_leave), pushed_on(self.state.frame.catching, kept), \
                pushed_on(self.state.frame.tries, try_line):
            self.walk_suite(node.body)
            steps = None if computed is None else tuple(term(cst.Name(n), self.state.scope) for n in computed)
        raised = [p for p in self.state.found.pending[start:] if p.site.function == self.state.function and not p.rows]
        priors = self.state.priors() if raised else NO_PRIORS
        with unknown_after(self.state.scope, "set while the code handles an error"):
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
        raises = disj([*(conj([g.expr for g in replace(p.site, priors=priors).guards]) for p in mine
                         if p.site.kind is not SiteKind.CRASH), body])  # a crash is read as its call's
        with self.state.guarded(), pushed_on(self.state.frame.except_types, (caught, bound_name(handler))):
            self.state.push(raises, f"except {caught}", GuardOrigin.EXCEPT)
            self.walk_suite(handler.body)
        if not passes_on(handler):  # what the user sees is the handler's doing, not these
            line = self.state.line_of(handler, node)
            gone = Guard(FALSE, f"{CAUGHT_BY} `except {caught}` at line {line}", GuardOrigin.EXCEPT)
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
        own = set(self.state.path.split("/"))
        return disj([negate(Truthy(Ref(RefKind.PLATFORM, f"installed({m})", f"import {m}")))
                     for m in modules if m not in own])

    def visit_Match(self, node: cst.Match) -> None:
        subject = term(node.subject, self.state.scope)
        prior: list[tuple[Expr, str]] = []
        join = Join(self.state.scope)
        for case in node.cases:
            cond, text = self._pattern(subject, case.pattern), f"case {norm_code(case.pattern)}"
            if case.guard is not None:
                cond = conj([cond, to_ir(case.guard, self.state.scope)])
                text += f" if {norm_code(case.guard)}"
            with self.state.guarded(), join.branch(cond, leaves=exit_kind(case.body) is not None):
                self.state.push_else(prior)
                self.state.push(cond, text, GuardOrigin.CASE)
                self.walk_suite(case.body)
            prior.append((cond, text))
        join.close()

    def _pattern(self, subject: Expr, pattern: cst.MatchPattern) -> Expr:
        if isinstance(pattern, (cst.MatchValue, cst.MatchSingleton)):
            return Compare("==", subject, term(pattern.value, self.state.scope))
        if isinstance(pattern, cst.MatchOr):
            return disj([self._pattern(subject, p.pattern) for p in pattern.patterns])
        if isinstance(pattern, cst.MatchAs) and pattern.pattern is None:
            return TRUE  # wildcard or capture: always matches
        return Unknown(f"matches {norm_code(pattern)}")

    # --------------------------------------------------------------- functions

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        with pushed_on(self.state.qualname, node.name.value):
            qual = self.state.function
            ps = node.params
            params = [p.name.value for p in (*ps.posonly_params, *ps.params, *ps.kwonly_params)]
            self.state.found.functions.append(qual)
            self.state.found.defined.add(qual)
            self.state.found.params.append((qual, tuple(params)))
            if defaults := literal_defaults(ps):
                self.state.found.defaults.append((qual, defaults))
            outer = self.state.frame
            with self.state.entered(self._frame_of(node, params)) as frame:
                frame.records = {**{k: v for k, v in outer.records.items() if k not in params},
                                 **declared_locals(node, self.named_in(node, self.state.profile.setters))}
                frame.declared = self.declarations.provider(node, qual)
                frame.sets = written_attributes(node)
                if frame.declared is not None:
                    frame.declared_at = (self.state.lines.span(node) or (0, 0))[1]
                config_method = len(self.classes) == 1 and self.classes[0] in self.state.profile.config_classes
                if node.name.value == "__init__" and self._method_of() is not None and not config_method:
                    frame.initialising = top_statements(node)
                if summarised(node, qual, params, config_method):
                    value = return_value(node.body.body, frame.scope)  # type: ignore[arg-type]
                    if value is not None and kept(params, value):
                        self.state.found.returns.append((qual, tuple(params), value))
                self.walk_suite(node.body)
            if writes_fields_only(node):
                outer.writers[node.name.value] = node

    def _frame_of(self, node: cst.FunctionDef, params: list[str]) -> Frame:
        """A fresh frame for `node`: the enclosing scope minus what its parameters shadow."""
        aliases = {p for p in params if p in self.state.profile.config_params}
        in_config_class = bool(self.classes) and self.classes[-1] in self.state.profile.config_classes
        if in_config_class and params and params[0] == "self":
            aliases.add("self")
        outer = self.state.scope
        scope = Scope(
            self.state.profile, outer.module_consts, imported=outer.imported,
            aliases=(outer.aliases - set(params)) | aliases,
            bindings={k: v for k, v in outer.bindings.items() if k not in params},
        )
        scope.inherited = dict(scope.bindings)
        for p in params:
            if p not in aliases and p not in self.state.profile.model_roots:
                scope.bindings[p] = Opaque(f"{PARAMETER}{p}")
        # a function of the config alone (`f(cfg)`, or a config method taking only self):
        # its value can stand in for calls of it (`extractor.inline`)
        is_helper = len(params) == 1 and params[0] in aliases and node.name.value not in self.state.profile.views
        return Frame(scope, helper_return=helper_return_of(node) if is_helper else None)

    # -------------------------------------------------------------- statements

    def visit_Raise(self, node: cst.Raise) -> None:
        line = self.state.line_of(node)
        notes: list[str] = []
        exc = node.exc
        if isinstance(exc, cst.Name):
            bound = self.state.scope.lookup(exc.value)
            if isinstance(bound, cst.Call):
                exc = bound
        except_types = self.state.frame.except_types
        if exc is None and not except_types:
            # A bare raise with no exception being handled: Python raises RuntimeError.
            exception, options = "RuntimeError", [Option(Template.literal("No active exception to reraise"))]
        elif exc is None:
            exception = except_types[-1][0]
            options = [Option(Template.hole(CAUGHT))]
            notes.append("re-raises the caught exception; its message is not known statically")
        elif isinstance(exc, cst.Call) and except_types and forwards(exc, except_types[-1][1]):
            exception = norm_code(exc.func)
            options = [Option(Template.hole(CAUGHT))]
            notes.append(f"raises the caught {except_types[-1][0]}'s message again as {exception}")
        elif isinstance(exc, cst.Call):
            exception = norm_code(exc.func)
            options = self.raise_sites.message(exc, notes)
        else:
            exception = norm_code(exc)
            options = [Option(Template.literal(""))]
        self.raise_sites.add_site(node, line, SiteKind.RAISE, exception, options, (), notes)

    def visit_Assert(self, node: cst.Assert) -> None:
        line = self.state.line_of(node)
        guard = Guard(negate(to_ir(node.test, self.state.scope)), f"not ({norm_code(node.test)})", GuardOrigin.ASSERT)
        options = build(node.msg, self.state.scope) if node.msg is not None else [Option(Template.literal(""))]
        self.raise_sites.add_site(node, line, SiteKind.ASSERT, "AssertionError", options, (guard,), [])
        self.state.push(to_ir(node.test, self.state.scope), norm_code(node.test), GuardOrigin.PRIOR_RAISE, line)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None and isinstance(node.target, cst.Name):
            self.state.scope.bind(node.target.value, node.value)
            self.declarations.declaration_dict(node.target.value, node.value, node)

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
        if not isinstance(call, cst.Call) or not self.state.profile.platform_raises:
            return
        name = dotted(call.func)
        raised = self.state.profile.raising_query(name) if name is not None else None
        if name is None or raised is None:
            return
        exception, message = raised
        text = f"{norm_code(call)} fails"
        fails = Truthy(Ref(RefKind.PLATFORM, f"{name}() fails", text))
        line = self.state.line_of(node)
        self.raise_sites.add_site(node, line, SiteKind.RAISE, exception, [Option(Template.literal(message))],
                      (Guard(fails, text, GuardOrigin.IF),),
                      [f"raised by {name}() where the machine has no such device, not by a check of the project"],
                      query=name)
        self.state.push(negate(fails), f"not ({text})", GuardOrigin.PRIOR_RAISE, line)

    def visit_Return(self, node: cst.Return) -> None:
        frame = self.state.frame
        if frame.declared is not None and isinstance(node.value, cst.Dict):
            self.declarations.declare(node.value, node)
        elif node is frame.helper_return and node.value is not None:
            self.helper(node.value)
        elif isinstance(node.value, cst.Call):
            self.call(node.value)

    def helper(self, value: cst.BaseExpression) -> None:
        """Record what a config helper returns, when it is all config facts and constants."""
        if isinstance(value, cst.Call):
            self.call(value)
        found = term(value, self.state.scope)
        # not the config itself, nor a call of nothing (``cfg = load()``: no function of the config alone)
        if not unknowns(found) and all(r.name != "*" for r in refs(found)) \
                and not any(isinstance(n, Apply) and not n.args for n in walk(found)):
            self.state.found.helpers.append((self.state.function, found))

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if isinstance(node.names, cst.ImportStar) or (node.module is None and not node.relative):
            return
        module = norm_code(node.module) if node.module is not None else ""
        if node.relative:  # `from .lib import h` in a/b/t.py is a.b.lib: the sibling only
            package = self.state.path.rsplit("/", len(node.relative))[0].replace("/", ".")
            module = f"{package}.{module}" if module else package
        for alias in node.names:
            local = alias.asname.name.value if alias.asname else norm_code(alias.name)  # type: ignore[union-attr]
            self.state.found.imports[local] = f"{module}.{norm_code(alias.name)}"

    def _bind_walrus(self, test: cst.BaseExpression) -> None:
        """``if (x := v) ...``: `x` is `v` in the branches and after them (the test runs first)."""
        for named in walruses(test) if self.walruses else ():
            if isinstance(named.target, cst.Name):
                self.state.rebind(named.target.value, named.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        self._device_query(node, node.value)
        for target in node.targets:
            self._assign_to(target.target, node.value, node)
        if isinstance(node.value, cst.Call):
            self.call(node.value)

    def _assign_to(self, tgt: cst.BaseAssignTargetExpression, value: cst.BaseExpression, node: cst.Assign) -> None:
        if isinstance(tgt, cst.Name) and (read := self.declarations.declared_read(value)) is not None:
            self.state.scope.bindings[tgt.value] = read  # a provider reading back what it decided
            self.state.frame.decided_reads.add(tgt.value)
            self.state.scope.rebinds.pop(tgt.value, None)
            self.state.scope.aliases.discard(tgt.value)
            self.adjustments.splat_start(tgt.value, value)
        elif isinstance(tgt, cst.Name):
            self.state.frame.decided_reads.discard(tgt.value)
            self.state.rebind(tgt.value, value)
            self.declarations.declaration_dict(tgt.value, value, node)
            self.adjustments.splat_start(tgt.value, value)
        elif isinstance(tgt, (cst.Tuple, cst.List)):
            self._unpack(tgt, value, node)
        elif (attribute := self._self_attribute(tgt)) is not None:
            if id(node) in self.state.frame.initialising and not self.state.frame.guards:
                self.state.found.attributes.append((attribute, term(value, self.state.scope)))
            else:
                self.state.found.rewritten.add(attribute)
        elif isinstance(tgt, cst.Attribute) and self.state.scope.is_config(tgt.value):
            self.adjustments.adjust(tgt.attr.value, value, node)
        elif isinstance(tgt, cst.Attribute) and (path := self.adjustments.field_path(tgt, {})) is not None \
                and len(path) > 1:
            self.adjustments.adjust(".".join(path), value, node)  # config.decode.max_bs = 8
        elif isinstance(tgt, cst.Subscript):
            self.declarations.declared_item(tgt, value, node)
            self.adjustments.splat_item(tgt, value)
            self.loops.item_set(tgt, value)

    def _method_of(self) -> str | None:
        """The class (qualified name) whose method is being walked, if one is."""
        names = self.state.qualname
        return ".".join(names[:-1]) if self.classes and len(names) >= 2 and names[-2] == self.classes[-1] else None

    def _self_attribute(self, target: cst.BaseExpression) -> str | None:
        """``Cls.attr`` for a target ``self.attr`` in a method of ``Cls``."""
        if not (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)
                and target.value.value == "self") or self.state.scope.is_config(target.value):
            return None  # a config method's ``self.x = v`` adjusts the setting
        cls = self._method_of()
        return f"{cls}.{target.attr.value}" if cls is not None else None

    def visit_Del(self, node: cst.Del) -> None:
        self.loops.changed_in_place(node.target)

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
                self.state.scope.bind(n.value, item)
            elif (attribute := self._self_attribute(n)) is not None:
                self.state.found.rewritten.add(attribute)
            elif isinstance(n, cst.Attribute) and self.state.scope.is_config(n.value):
                self.adjustments.adjust(n.attr.value, item, node)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if (attribute := self._self_attribute(node.target)) is not None:
            self.state.found.rewritten.add(attribute)
        if not isinstance(node.target, cst.Name):
            if isinstance(node.target, cst.Attribute) and self.state.scope.is_config(node.target.value):
                self.adjustments.adjust(node.target.attr.value, node.value, node)
            return
        name = node.target.value
        bound = self.state.scope.lookup(name)
        if isinstance(bound, Table):
            self.loops.extend(name, bound, node.value)
        elif isinstance(bound, (cst.BaseExpression, Conditional)):
            op = AUGMENTED.get(type(node.operator))
            if op is not None:  # x op= y: x = x op y
                self.state.rebind(name, cst.BinaryOperation(left=cst.Name(name), operator=op(), right=node.value))
            else:
                self.state.scope.bindings[name] = Opaque(described("updated in place"))

    def call(self, node: cst.Call) -> None:
        callee = dotted(node.func)
        if callee is None:  # f(cfg).get(...): the calls the callee expression makes
            for inner in calls_in(node.func):
                if (name := dotted(inner.func)) is not None:
                    self.call_sites.record(inner, name)
            self.call_sites.record_inner(node)
            return
        method = last_name(node.func)
        self.declarations.declared_update(node, method)
        if self.loops.table_growth(node, method):
            self.call_sites.record_inner(node)
            return
        self.loops.changed_in_place(node)
        self.adjustments.call(node, callee, method)
        self.call_sites.record(node, callee)

    # ------------------------------------------------------------------ loops

    def visit_For(self, node: cst.For) -> None:
        self.loops.walk_for(node)


# One handler per statement kind, found by name as LibCST names its visitor methods.
SiteWalker.HANDLERS = {
    getattr(cst, name.removeprefix("visit_")): handler
    for name, handler in vars(SiteWalker).items() if name.startswith("visit_")
}


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
