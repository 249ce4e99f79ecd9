"""Raise/assert sites of one file, with message templates, guard paths and table variants.

`SiteWalker` walks statements only (expressions are interpreted on demand by
`cst_ir` and `messages`), in document order, carrying the guard stack and the
function's `Scope`. Blocks are processed in sequence so early exits
(``if c: return``) constrain what follows them.
"""
from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import libcst as cst

from extractor import depth, pieces
from extractor.cst_ir import row_parts, term, to_ir
from extractor.cstutil import dotted, last_name, literal_value, norm_code, string_value
from extractor.docstrings import first_lines
from extractor.ir import TRUE, Compare, Const, Expr, In, Ref, RefKind, Unknown, conj, disj, negate, refs, unknowns
from extractor.messages import Option, build
from extractor.positions import metadata_lines, statement_lines
from extractor.profile import Profile
from extractor.records import (
    Adjustment, CallSite, FileSites, Guard, GuardOrigin, PriorTable, RaiseSite, Run, SiteKind, Variant,
)
from extractor.scope import Conditional, Opaque, Row, Scope, Table, table_of
from extractor.templates import Template

MODULE = "<module>"
# Guards that choose a branch (as opposed to early exits, which only decide reachability).
_BRANCH_ORIGINS = frozenset({GuardOrigin.IF, GuardOrigin.ELSE, GuardOrigin.WHILE, GuardOrigin.CASE, GuardOrigin.EXCEPT})
PARAMETER = "parameter "  # text of a parameter's Ref until call sites bind it


@dataclass(slots=True)
class _RowCtx:
    loop: int  # id() of the For node
    index: int
    depth: int  # guard-stack depth at the loop: deeper guards belong to the row
    targets: tuple[str, ...]
    blocks: int = 0  # prior-table blocks at the loop: later ones (the body's) belong to the row


@dataclass(slots=True)
class _Pending:
    """A site being collected; table rows of the same raise are merged into variants."""

    node: int  # id() of the raise/assert node
    site: RaiseSite
    rows: list[tuple[_RowCtx, RaiseSite]] = field(default_factory=list)


def _exit_kind(suite: cst.BaseSuite) -> GuardOrigin | None:
    """How a block ends, if it always leaves: return/continue/break vs raise."""
    body: Sequence[cst.CSTNode] = suite.body
    if not body:
        return None
    last = body[-1]
    if isinstance(last, cst.SimpleStatementLine):
        if not last.body:
            return None
        last = last.body[-1]
    if isinstance(last, (cst.Return, cst.Continue, cst.Break)):
        return GuardOrigin.EARLY_EXIT
    if isinstance(last, cst.Raise):
        return GuardOrigin.PRIOR_RAISE
    return None


def _statements(suite: cst.BaseSuite) -> Sequence[cst.CSTNode]:
    """The statements of a block; a one-line suite (``if c: raise X``) is one statement."""
    return [suite] if isinstance(suite, cst.SimpleStatementSuite) else suite.body


_HELPER_STEPS = (cst.Assign, cst.AnnAssign, cst.Import, cst.ImportFrom, cst.Expr)


def _yields(small: cst.BaseSmallStatement) -> bool:
    """``yield`` as the statement's value (``x = yield``): in straight-line code, where
    a generator shows (a yield buried inside another expression is not looked for)."""
    return isinstance(getattr(small, "value", None), cst.Yield)


def _helper_return(node: cst.FunctionDef) -> cst.Return | None:
    """The ``return`` of a function that only binds locals and then returns a value
    (``def attn_dp_enabled_of(cfg): return cfg.attn_dp_size > 1``), else None."""
    stmts = _statements(node.body)
    lines = (cst.SimpleStatementLine, cst.SimpleStatementSuite)
    if not stmts or node.asynchronous is not None or not isinstance(stmts[-1], lines):
        return None
    for stmt in stmts:
        if not isinstance(stmt, lines):
            return None
        for small in stmt.body:
            if isinstance(small, cst.Expr) and not isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString)):
                return None  # a call made for its effect
            if not isinstance(small, _HELPER_STEPS) and small is not stmts[-1].body[-1]:
                return None
    last = stmts[-1].body[-1]  # type: ignore[attr-defined]
    if not isinstance(last, cst.Return) or last.value is None:
        return None
    if any(_yields(small) for stmt in stmts for small in stmt.body):  # type: ignore[attr-defined]
        return None  # a generator: calls of it return no value
    return last


class SiteWalker:
    """Collects the sites, call sites and config adjustments of one module."""

    def __init__(self, path: str, module: cst.Module, profile: Profile, lines: list[int] | None) -> None:
        self.path = path
        self.module = module
        self.profile = profile
        self.ast_lines = lines
        self.node_lines: dict[int, int] = {}
        # The guards on the path except earlier raises: those go once into `prior_blocks`
        # (one list per block that has any) and `runs` says which are in force, so a site
        # records O(depth) items however many checks precede it.
        self.guards: list[Guard] = []
        self.prior_blocks: list[tuple[str, list[Guard]]] = []
        self.block_ids: list[int | None] = []  # per open block: its index in prior_blocks, once it has one
        self.runs: list[list[int]] = []  # [at, block, start, end] in force, see `RaiseSite.prior_runs`
        self.qualname: list[str] = []
        self.classes: list[str] = []
        self.except_types: list[str] = []
        self.rows: list[_RowCtx] = []
        self.loop_notes: list[str] = []
        self.pending: list[_Pending] = []
        self.calls: list[CallSite] = []
        self.functions: list[str] = []
        self.params: list[tuple[str, tuple[str, ...]]] = []
        self.bound_under: dict[str, tuple[Guard, ...]] = {}  # guards in force at a name's binding
        self.imports: dict[str, str] = {}
        self.adjustments: list[Adjustment] = []
        self.diagnostics: list[str] = []
        self.helpers: list[tuple[str, Expr]] = []
        self.helper_return: cst.Return | None = None  # of the function being walked, if a config helper
        self.declared: set[str] | None = None  # in a registered provider: locals holding its {field: value}
        self.registered: list[str] = []  # providers the profile's decorators register
        consts = _module_constants(module)
        self.scope = Scope(profile, consts)

    # ------------------------------------------------------------------ driver

    def run(self) -> FileSites:
        self.walk_block(self.module.body)
        if self.ast_lines is None or len(self.node_lines) != len(self.ast_lines):
            # Counts disagree (or ast could not parse): take exact positions the slow way.
            exact = metadata_lines(self.module)
            self.pending = [
                replace(p, site=replace(p.site, line=exact.get(p.node, p.site.line)),
                        rows=[(ctx, replace(s, line=exact.get(p.node, s.line))) for ctx, s in p.rows])
                for p in self.pending
            ]
            self.diagnostics.append(f"{self.path}: positions taken from PositionProvider")
        priors = PriorTable(tuple((function, tuple(guards)) for function, guards in self.prior_blocks))
        sites = tuple(sorted((replace(p.site, priors=priors) for p in self.pending), key=lambda s: (s.line, s.function)))
        return FileSites(
            path=self.path,
            sites=sites,
            calls=tuple(self.calls),
            functions=tuple(self.functions),
            params=tuple(self.params),
            constants=tuple(
                (name, Const(value)) for name, node in sorted(self.scope.module_consts.items())
                for ok, value in [literal_value(node)] if ok
            ),
            imports=tuple(sorted(self.imports.items())),
            adjustments=tuple(self.adjustments),
            diagnostics=tuple(self.diagnostics),
            helpers=tuple(self.helpers),
            registered=tuple(self.registered),
            priors=priors,
        )

    @property
    def function(self) -> str:
        return ".".join(self.qualname) or MODULE

    def line_of(self, node: cst.CSTNode) -> int:
        key = id(node)
        if key not in self.node_lines:
            n = len(self.node_lines)
            lines = self.ast_lines or []
            self.node_lines[key] = lines[n] if n < len(lines) else 0
        return self.node_lines[key]

    def push(self, expr: Expr, text: str, origin: GuardOrigin) -> None:
        guard = Guard(expr, text, origin)
        if origin is not GuardOrigin.PRIOR_RAISE:
            self.guards.append(guard)
            return
        block = self.block_ids[-1]
        if block is None:
            block = self.block_ids[-1] = len(self.prior_blocks)
            self.prior_blocks.append((self.function, []))
        listed = self.prior_blocks[block][1]
        at = len(self.guards)
        last = self.runs[-1] if self.runs else None
        if last is not None and last[0] == at and last[1] == block and last[3] == len(listed):
            last[3] += 1  # the same run of consecutive checks grows
        else:
            self.runs.append([at, block, len(listed), len(listed) + 1])
        listed.append(guard)

    def prior_runs(self) -> tuple[Run, ...]:
        return tuple((at, b, start, end) for at, b, start, end in self.runs)

    def path_guards(self, depth: int = 0, blocks: int = 0) -> tuple[Guard, ...]:
        """The guards on the path in order, earlier raises included, from stack depth
        `depth` and prior block `blocks` on (O(path): for rare uses only)."""
        out: list[Guard] = []
        done = depth
        for at, block, start, end in self.runs:
            if block >= blocks:
                out.extend(self.guards[done:at])
                done = max(done, at)
                out.extend(self.prior_blocks[block][1][start:end])
        out.extend(self.guards[done:])
        return tuple(out)

    # ------------------------------------------------------------------ blocks

    def walk_block(self, stmts: Sequence[cst.CSTNode]) -> None:
        depth = len(self.guards)
        self.block_ids.append(None)
        for stmt in stmts:
            self.walk_stmt(stmt)
        del self.guards[depth:]
        block = self.block_ids.pop()
        while block is not None and self.runs and self.runs[-1][1] == block:
            self.runs.pop()

    def walk_suite(self, suite: cst.BaseSuite) -> None:
        self.walk_block(_statements(suite))

    def walk_stmt(self, stmt: cst.CSTNode) -> None:
        if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            for small in stmt.body:
                self.small(small)
        elif isinstance(stmt, cst.If):
            self.if_chain(stmt)
        elif isinstance(stmt, cst.For):
            self.for_loop(stmt)
        elif isinstance(stmt, cst.While):
            depth = len(self.guards)
            self.push(to_ir(stmt.test, self.scope), norm_code(stmt.test), GuardOrigin.WHILE)
            self.walk_suite(stmt.body)
            del self.guards[depth:]
            if stmt.orelse is not None:
                self.walk_suite(stmt.orelse.body)
        elif isinstance(stmt, (cst.Try, cst.TryStar)):
            self.try_stmt(stmt)
        elif isinstance(stmt, cst.With):
            self.walk_suite(stmt.body)
        elif isinstance(stmt, cst.FunctionDef):
            self.function_def(stmt)
        elif isinstance(stmt, cst.ClassDef):
            self.qualname.append(stmt.name.value)
            self.classes.append(stmt.name.value)
            self.walk_suite(stmt.body)
            self.classes.pop()
            self.qualname.pop()
        elif isinstance(stmt, cst.Match):
            self.match_stmt(stmt)

    def if_chain(self, node: cst.If) -> None:
        depth = len(self.guards)
        prior: list[tuple[Expr, str]] = []
        exits: list[tuple[Expr, str, GuardOrigin]] = []
        current: cst.If | None = node
        while current is not None:
            test, text = to_ir(current.test, self.scope), self._cond_text(current.test)
            for p_expr, p_text in prior:
                self.push(negate(p_expr), f"not ({p_text})", GuardOrigin.ELSE)
            self.push(test, text, GuardOrigin.IF)
            self.walk_suite(current.body)
            del self.guards[depth:]
            kind = _exit_kind(current.body)
            if kind is not None:
                cond = conj([negate(p) for p, _ in prior] + [test])
                exits.append((cond, " and ".join([f"not ({t})" for _, t in prior] + [text]), kind))
            prior.append((test, text))
            orelse = current.orelse
            current = None
            if isinstance(orelse, cst.If):
                current = orelse
            elif isinstance(orelse, cst.Else):
                for p_expr, p_text in prior:
                    self.push(negate(p_expr), f"not ({p_text})", GuardOrigin.ELSE)
                self.walk_suite(orelse.body)
                del self.guards[depth:]
                kind = _exit_kind(orelse.body)
                if kind is not None:
                    cond = conj([negate(p) for p, _ in prior])
                    exits.append((cond, " and ".join(f"not ({t})" for _, t in prior), kind))
        for cond, text, kind in exits:
            self.push(negate(cond), f"not ({text})", kind)

    def _cond_text(self, node: cst.BaseExpression) -> str:
        """Source text of a test; a table row's variable shows the row's expression."""
        if isinstance(node, cst.Name) and self.rows and node.value in self.rows[-1].targets:
            bound = self.scope.lookup(node.value)
            if isinstance(bound, cst.BaseExpression):
                return norm_code(bound)
        return norm_code(node)

    def try_stmt(self, node: cst.Try | cst.TryStar) -> None:
        self.walk_suite(node.body)
        for handler in node.handlers:
            caught = norm_code(handler.type) if handler.type is not None else "Exception"
            depth = len(self.guards)
            self.push(Ref(RefKind.RUNTIME, f"raises {caught}", f"the try block raises {caught}"),
                      f"except {caught}", GuardOrigin.EXCEPT)
            self.except_types.append(caught)
            self.walk_suite(handler.body)
            self.except_types.pop()
            del self.guards[depth:]
        if node.orelse is not None:
            self.walk_suite(node.orelse.body)
        if node.finalbody is not None:
            self.walk_suite(node.finalbody.body)

    def match_stmt(self, node: cst.Match) -> None:
        subject = term(node.subject, self.scope)
        prior: list[tuple[Expr, str]] = []
        for case in node.cases:
            depth = len(self.guards)
            cond, text = self._pattern(subject, case.pattern), f"case {norm_code(case.pattern)}"
            if case.guard is not None:
                cond = conj([cond, to_ir(case.guard, self.scope)])
                text += f" if {norm_code(case.guard)}"
            for p_expr, p_text in prior:
                self.push(negate(p_expr), f"not ({p_text})", GuardOrigin.ELSE)
            self.push(cond, text, GuardOrigin.CASE)
            self.walk_suite(case.body)
            del self.guards[depth:]
            prior.append((cond, text))

    def _pattern(self, subject: Expr, pattern: cst.MatchPattern) -> Expr:
        if isinstance(pattern, (cst.MatchValue, cst.MatchSingleton)):
            return Compare("==", subject, term(pattern.value, self.scope))
        if isinstance(pattern, cst.MatchOr):
            return disj([self._pattern(subject, p.pattern) for p in pattern.patterns])
        if isinstance(pattern, cst.MatchAs) and pattern.pattern is None:
            return TRUE  # wildcard or capture: always matches
        return Unknown(f"matches {norm_code(pattern)}")

    # --------------------------------------------------------------- functions

    def function_def(self, node: cst.FunctionDef) -> None:
        saved = (self.guards, self.runs, self.scope, self.except_types, self.rows, self.loop_notes, self.bound_under,
                 self.helper_return, self.declared)
        self.qualname.append(node.name.value)
        qual = self.function
        self.functions.append(qual)
        params = [p.name.value for p in (*node.params.posonly_params, *node.params.params, *node.params.kwonly_params)]
        self.params.append((qual, tuple(params)))
        aliases = {p for p in params if p in self.profile.config_params}
        in_config_class = bool(self.classes) and self.classes[-1] in self.profile.config_classes
        if in_config_class and params and params[0] == "self":
            aliases.add("self")
        outer = self.scope
        self.scope = Scope(
            self.profile, outer.module_consts,
            aliases=(outer.aliases - set(params)) | aliases,
            bindings={k: v for k, v in outer.bindings.items() if k not in params},
        )
        for p in params:
            if p not in aliases and p not in self.profile.model_roots:
                self.scope.bindings[p] = Opaque(f"{PARAMETER}{p}")
        self.guards, self.runs, self.except_types, self.rows, self.loop_notes, self.bound_under = [], [], [], [], [], {}
        # a function of the config alone (`f(cfg)`, or a config method taking only self):
        # its value can stand in for calls of it (`extractor.inline`)
        is_helper = len(params) == 1 and params[0] in aliases and node.name.value not in self.profile.views
        self.helper_return = _helper_return(node) if is_helper else None
        self.declared = self.provider(node, qual)
        self.walk_suite(node.body)
        (self.guards, self.runs, self.scope, self.except_types, self.rows, self.loop_notes, self.bound_under,
         self.helper_return, self.declared) = saved
        self.qualname.pop()

    def provider(self, node: cst.FunctionDef, qual: str) -> set[str] | None:
        """For a function a profile decorator registers as returning {field: value}
        decisions: record it, guard a model override by the models it names, and
        start tracking its declaration dicts (else None)."""
        for dec in node.decorators:
            call = dec.decorator if isinstance(dec.decorator, cst.Call) else None
            name = last_name(call.func if call is not None else dec.decorator)
            if name in self.profile.passes or name in self.profile.model_overrides:
                self.registered.append(qual)
                if name in self.profile.model_overrides:
                    models = tuple(v for a in (call.args if call is not None else ()) if (v := string_value(a.value)))
                    text = f"the model is registered for {name}({', '.join(models)})"
                    arch = Ref(RefKind.MODEL, "hf_config.architectures[0]", "hf_config.architectures[0]")
                    self.push(In(arch, Const(models)) if models else Unknown(text), text, GuardOrigin.CALLER)
                return set()
        return None

    def declare(self, fields: cst.BaseExpression, node: cst.CSTNode) -> None:
        """`{"field": value, ...}` declared by a provider: one adjustment per literal key."""
        if isinstance(fields, cst.Dict):
            for el in fields.elements:
                key = string_value(el.key) if isinstance(el, cst.DictElement) else None
                if key is not None and isinstance(el, cst.DictElement):
                    self.adjust(key, el.value, node)

    # -------------------------------------------------------------- statements

    def small(self, node: cst.BaseSmallStatement) -> None:
        if isinstance(node, cst.Raise):
            self.raise_site(node)
        elif isinstance(node, cst.Assert):
            self.assert_site(node)
            self.push(to_ir(node.test, self.scope), norm_code(node.test), GuardOrigin.PRIOR_RAISE)
        elif isinstance(node, cst.Assign):
            self.assign(node)
        elif isinstance(node, cst.AnnAssign):
            if node.value is not None and isinstance(node.target, cst.Name):
                self.scope.bind(node.target.value, node.value)
                self._declaration_dict(node.target.value, node.value, node)
        elif isinstance(node, cst.AugAssign):
            self.aug_assign(node)
        elif isinstance(node, cst.Expr):
            if isinstance(node.value, cst.Call):
                self.call(node.value)
        elif isinstance(node, cst.ImportFrom):
            self.import_from(node)
        elif isinstance(node, cst.Return) and self.declared is not None and isinstance(node.value, cst.Dict):
            self.declare(node.value, node)
        elif isinstance(node, cst.Return) and node is self.helper_return and node.value is not None:
            self.helper(node.value)
        elif isinstance(node, cst.Return) and isinstance(node.value, cst.Call):
            self.call(node.value)

    def helper(self, value: cst.BaseExpression) -> None:
        """Record what a config helper returns, when it is all config facts and constants."""
        if isinstance(value, cst.Call):
            self.call(value)
        found = term(value, self.scope)
        if not unknowns(found) and all(r.name != "*" for r in refs(found)):  # not the config itself
            self.helpers.append((self.function, found))

    def import_from(self, node: cst.ImportFrom) -> None:
        if isinstance(node.names, cst.ImportStar) or (node.module is None and not node.relative):
            return
        module = norm_code(node.module) if node.module is not None else ""
        if node.relative:  # `from .lib import h` in a/b/t.py is a.b.lib: the sibling only
            package = self.path.rsplit("/", len(node.relative))[0].replace("/", ".")
            module = f"{package}.{module}" if module else package
        for alias in node.names:
            local = alias.asname.name.value if alias.asname else norm_code(alias.name)  # type: ignore[union-attr]
            self.imports[local] = f"{module}.{norm_code(alias.name)}"

    def rebind(self, name: str, value: cst.BaseExpression) -> None:
        """Bind `name`; a reassignment under a condition the first binding was not under
        keeps both values (`Conditional`), so messages built from it get one rendering each."""
        previous = self.scope.bindings.get(name)
        self.scope.bind(name, value)
        extra = self._branch_guards_since(self.bound_under.get(name, ()))
        if previous is not None and extra and name not in self.scope.aliases:
            bound = self.scope.bindings[name]
            if isinstance(bound, cst.BaseExpression):
                self.scope.bindings[name] = Conditional(conj([g.expr for g in extra]), bound, previous)
        self.bound_under[name] = tuple(self.guards)

    def _branch_guards_since(self, before: tuple[Guard, ...]) -> list[Guard]:
        """Branch conditions in force now that were not when `before` was recorded."""
        common = 0
        for a, b in zip(before, self.guards):
            if a is not b:
                break
            common += 1
        return [g for g in self.guards[common:] if g.origin in _BRANCH_ORIGINS]

    def assign(self, node: cst.Assign) -> None:
        value = node.value
        for target in node.targets:
            tgt = target.target
            if isinstance(tgt, cst.Name):
                self.rebind(tgt.value, value)
            elif isinstance(tgt, (cst.Tuple, cst.List)):
                names = [el.value for el in tgt.elements]
                values = value.elements if isinstance(value, (cst.Tuple, cst.List)) else None
                for i, n in enumerate(names):
                    if values is not None and i < len(values):
                        item: cst.BaseExpression = values[i].value
                    else:  # a, b = f(): the i-th item of the value
                        item = cst.Subscript(value, [cst.SubscriptElement(cst.Index(cst.Integer(str(i))))])
                    if isinstance(n, cst.Name):
                        self.scope.bind(n.value, item)
                    elif isinstance(n, cst.Attribute) and self.scope.is_config(n.value):
                        self.adjust(n.attr.value, item, node)  # (cfg.a, cfg.b) = f(cfg)
            elif isinstance(tgt, cst.Attribute) and self.scope.is_config(tgt.value):
                self.adjust(tgt.attr.value, value, node)
            elif isinstance(tgt, cst.Subscript) and self.declared and isinstance(tgt.value, cst.Name) \
                    and tgt.value.value in self.declared and len(tgt.slice) == 1 \
                    and isinstance(tgt.slice[0].slice, cst.Index):
                key = string_value(tgt.slice[0].slice.value)  # declared["field"] = value
                if key is not None:
                    self.adjust(key, value, node)
            if isinstance(tgt, cst.Name):
                self._declaration_dict(tgt.value, value, node)
        if isinstance(value, cst.Call):
            self.call(value)

    def _declaration_dict(self, name: str, value: cst.BaseExpression, node: cst.CSTNode) -> None:
        """In a provider, ``declared = {...}`` starts a dict of decisions it returns."""
        if self.declared is not None and isinstance(value, cst.Dict):
            self.declared.add(name)
            self.declare(value, node)

    def adjust(self, flag: str, value: cst.BaseExpression, node: cst.CSTNode) -> None:
        self.adjustments.append(
            Adjustment(self.function, 0, flag, term(value, self.scope), tuple(self.guards), self.path,
                       len(self.adjustments))
        )

    def aug_assign(self, node: cst.AugAssign) -> None:
        if not isinstance(node.target, cst.Name):
            if isinstance(node.target, cst.Attribute) and self.scope.is_config(node.target.value):
                self.adjust(node.target.attr.value, node.value, node)
            return
        name = node.target.value
        bound = self.scope.lookup(name)
        if isinstance(bound, Table):
            self._extend(name, bound, node.value)
        elif isinstance(bound, (cst.BaseExpression, Conditional)):
            if isinstance(node.operator, cst.AddAssign):
                self.rebind(name, cst.BinaryOperation(left=cst.Name(name), operator=cst.Add(), right=node.value))
            else:
                self.scope.bindings[name] = Opaque(f"{name} (updated in place)")

    def _extend(self, name: str, table: Table, value: cst.BaseExpression) -> None:
        extra = table_of(value, self.path_guards())
        if extra is None:
            self.scope.bindings[name] = Opaque(f"{name} (extended with {norm_code(value)})")
            return
        self.scope.bindings[name] = Table(table.rows + extra.rows, table.is_dict)

    def call(self, node: cst.Call) -> None:
        callee = dotted(node.func)
        if callee is None:
            return
        method = last_name(node.func)
        if self.declared and method == "update" and isinstance(node.func, cst.Attribute) \
                and isinstance(node.func.value, cst.Name) and node.func.value.value in self.declared:
            for arg in node.args:  # declared.update({...}) / declared.update(field=value)
                if arg.keyword is not None:
                    self.adjust(arg.keyword.value, arg.value, node)
                else:
                    self.declare(arg.value, node)
        if isinstance(node.func, cst.Attribute) and isinstance(node.func.value, cst.Name):
            owner = node.func.value.value
            bound = self.scope.lookup(owner)
            if isinstance(bound, Table) and method in ("update", "append", "extend") and node.args:
                arg = node.args[0].value
                if method == "append":
                    arg = cst.List([cst.Element(arg)])
                self._extend(owner, bound, arg)
                return
        if method in self.profile.setters:
            for arg in node.args:
                if arg.keyword is not None:
                    self.adjust(arg.keyword.value, arg.value, node)
        args = tuple(
            (arg.keyword.value if arg.keyword else str(i), self._arg_term(arg.value))
            for i, arg in enumerate(node.args) if not arg.star
        )
        self.calls.append(CallSite(self.function, callee, tuple(self.guards), args))

    def _arg_term(self, node: cst.BaseExpression) -> Expr:
        """A call argument for parameter binding: literals and direct config reads only.
        Locals would be re-interpreted through their binding chains at every call, which
        is costly on large numeric code and rarely what a validation hook is passed."""
        if isinstance(node, (cst.Attribute, cst.SimpleString, cst.ConcatenatedString, cst.Integer, cst.Float)):
            return term(node, self.scope)
        if isinstance(node, cst.Name) and (node.value in self.scope.aliases or node.value in ("True", "False", "None")):
            return term(node, self.scope)
        return Unknown("argument")

    # ------------------------------------------------------------------ loops

    def for_loop(self, node: cst.For) -> None:
        targets = _target_names(node.target)
        rows = self._rows(node.iter)
        if not rows or targets is None:
            for name in targets or ():
                self.scope.bindings[name] = Opaque(f"{name} (element of {norm_code(node.iter)})")
                self.scope.aliases.discard(name)
            self.loop_notes.append(f"inside a loop over `{norm_code(node.iter)}`, whose items are not known statically")
            self.walk_suite(node.body)
            self.loop_notes.pop()
            if node.orelse is not None:
                self.walk_suite(node.orelse.body)
            return
        depth, start = len(self.guards), len(self.pending)
        names = _flat_names(node.target)
        for index, row in enumerate(rows):
            self._bind_row(node.target, row)
            active = {id(g) for g in self.path_guards()} if row.guards else set()
            for g in row.guards:
                if id(g) not in active:
                    self.guards.append(g)  # type: ignore[arg-type]
            self.rows.append(_RowCtx(id(node), index, depth, names, len(self.prior_blocks)))
            self.scope.row_targets.update(names)
            self.walk_suite(node.body)
            self.scope.row_targets.difference_update(names)
            self.rows.pop()
            del self.guards[depth:]
        for name in names:
            self.scope.bindings[name] = Opaque(f"{name} (element of {norm_code(node.iter)})")
        self._merge_rows(id(node), start)
        if node.orelse is not None:
            self.walk_suite(node.orelse.body)

    def _rows(self, node: cst.BaseExpression) -> list[Row] | None:
        """The rows a ``for`` iterates over, when they are statically known."""
        view = None
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and not node.args:
            view = node.func.attr.value
            node = node.func.value
        table: Table | None = None
        if isinstance(node, cst.Name):
            bound = self.scope.lookup(node.value)
            if isinstance(bound, Table):
                table = bound
            elif isinstance(bound, (cst.List, cst.Tuple, cst.Dict, cst.Set)):
                table = table_of(bound)
        elif isinstance(node, (cst.List, cst.Tuple, cst.Dict, cst.Set)):
            table = table_of(node)
        if table is None:
            return None
        if table.is_dict:
            if view == "items":
                return table.rows
            if view in (None, "keys"):
                return [Row(r.node[0], r.guards) for r in table.rows if isinstance(r.node, tuple)]
            if view == "values":
                return [Row(r.node[1], r.guards) for r in table.rows if isinstance(r.node, tuple)]
            return None
        return table.rows if view is None else None

    def _bind_row(self, target: cst.BaseAssignTargetExpression, row: Row) -> None:
        if isinstance(target, cst.Name):
            node = row.node
            if isinstance(node, tuple):
                node = cst.Tuple([cst.Element(node[0]), cst.Element(node[1])])
            self.scope.bind(target.value, node)
            return
        if isinstance(target, (cst.Tuple, cst.List)):
            parts = row_parts(row)
            for i, el in enumerate(target.elements):
                if isinstance(el.value, cst.Name):
                    if i < len(parts):
                        self.scope.bind(el.value.value, parts[i])
                    else:
                        self.scope.bindings[el.value.value] = Opaque(el.value.value)

    def _merge_rows(self, loop: int, start: int) -> None:
        """Sites found once per row become one site with a variant per row."""
        merged: dict[int, _Pending] = {}
        order: list[int] = []
        for pending in self.pending[start:]:
            if pending.node not in merged:
                merged[pending.node] = pending
                order.append(pending.node)
            else:
                merged[pending.node].rows.extend(pending.rows)
        self.pending[start:] = [_finish_rows(merged[n], loop) for n in order]

    # ------------------------------------------------------------------ sites

    def raise_site(self, node: cst.Raise) -> None:
        line = self.line_of(node)
        notes: list[str] = []
        exc = node.exc
        if isinstance(exc, cst.Name):
            bound = self.scope.lookup(exc.value)
            if isinstance(bound, cst.Call):
                exc = bound
        if exc is None and not self.except_types:
            # A bare raise with no exception being handled: Python raises RuntimeError.
            exception, options = "RuntimeError", [Option(Template.literal("No active exception to reraise"))]
        elif exc is None:
            exception = self.except_types[-1]
            options = [Option(Template.hole("<caught exception>"))]
            notes.append("re-raises the caught exception; its message is not known statically")
        elif isinstance(exc, cst.Call):
            exception = norm_code(exc.func)
            options = self._message(exc, notes)
        else:
            exception = norm_code(exc)
            options = [Option(Template.literal(""))]
        self.add_site(node, line, SiteKind.RAISE, exception, options, (), notes)

    def assert_site(self, node: cst.Assert) -> None:
        line = self.line_of(node)
        notes: list[str] = []
        guard = Guard(negate(to_ir(node.test, self.scope)), f"not ({norm_code(node.test)})", GuardOrigin.ASSERT)
        options = build(node.msg, self.scope) if node.msg is not None else [Option(Template.literal(""))]
        self.add_site(node, line, SiteKind.ASSERT, "AssertionError", options, (guard,), notes)

    def _message(self, call: cst.Call, notes: list[str]) -> list[Option]:
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
        if len(positional) == 1:
            return build(positional[0], self.scope)
        if len(positional) > 1:
            # str(Exception(a, b)) renders the args tuple: "('a', 1)".
            parts: list[Template] = []
            for arg in positional:
                value = string_value(arg)
                ok, lit = literal_value(arg)
                if value is not None:
                    parts.append(Template.literal(repr(value)))
                elif ok:
                    parts.append(Template.literal(repr(lit)))
                else:
                    parts.append(Template.hole(norm_code(arg), "r"))
            joined = Template.literal("(")
            for i, part in enumerate(parts):
                joined = joined + (Template.literal(", ") if i else Template.literal("")) + part
            return [Option(joined + Template.literal(")"))]
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
        options: list[Option], extra: tuple[Guard, ...], notes: list[str],
    ) -> None:
        template = options[0].template
        row_values = self._row_values(template, self.rows[-1]) if self.rows else {}
        if any(h.expr not in row_values for h in template.holes):
            notes.append("message has parts known only at run time")
        notes = notes + self.loop_notes
        guards = tuple(self.guards) + extra
        runs = self.prior_runs()
        variants: tuple[Variant, ...] = ()
        if len(options) > 1:
            variants = tuple(
                Variant((), (Guard(o.cond, "message variant", GuardOrigin.MESSAGE),), o.template)
                for o in options
            )
        site = RaiseSite(
            self.path, line, self.function, kind, exception, template, guards, variants,
            tuple(dict.fromkeys(notes)), self._hole_refs(template), len(self.adjustments), runs,
        )
        pending = _Pending(id(node), site)
        if self.rows:
            ctx = self.rows[-1]
            values = tuple((k, t.text) for k, t in row_values.items())
            variant = Variant(values, self.path_guards(ctx.depth, ctx.blocks) + extra, template.fill(row_values))
            pending.rows.append((ctx, replace(site, variants=(variant,))))
        self.pending.append(pending)

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

    def _row_values(self, template: Template, ctx: _RowCtx) -> dict[str, Template]:
        """Hole values a table row supplies (holes named by a loop variable)."""
        values: dict[str, Template] = {}
        for hole in template.holes:
            if hole.expr in ctx.targets and hole.expr not in values:
                bound = self.scope.lookup(hole.expr)
                if isinstance(bound, cst.BaseExpression):
                    values[hole.expr] = build(bound, self.scope)[0].template
        return values


def _finish_rows(pending: _Pending, loop: int) -> _Pending:
    rows = [(ctx, s) for ctx, s in pending.rows if ctx.loop == loop]
    if not rows:
        return pending
    first_ctx, first = rows[0]
    base_guards = first.direct[: first_ctx.depth]
    base_runs = tuple(run for run in first.prior_runs if run[1] < first_ctx.blocks)
    variants: list[Variant] = []
    for ctx, site in rows:
        variants.extend(site.variants)
    site = replace(first, direct=base_guards, prior_runs=base_runs, variants=tuple(variants))
    outer = [(ctx, s) for ctx, s in pending.rows if ctx.loop != loop]
    return _Pending(pending.node, site, outer)


def _target_names(target: cst.BaseExpression) -> tuple[str, ...] | None:
    names = _flat_names(target)
    return names or None


def _flat_names(target: cst.BaseExpression) -> tuple[str, ...]:
    if isinstance(target, cst.Name):
        return (target.value,)
    if isinstance(target, (cst.Tuple, cst.List)):
        out: list[str] = []
        for el in target.elements:
            out.extend(_flat_names(el.value))
        return tuple(out)
    return ()


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
                elif isinstance(small, cst.AnnAssign) and small.value is not None and isinstance(small.target, cst.Name):
                    consts[small.target.value] = small.value
    return consts


def _not_analysed(path: str, reason: str) -> FileSites:
    """A file Python accepts but errcat could not analyse: a diagnostic, and the catalog
    is marked incomplete (`FileSites.incomplete`), never silently short of its sites."""
    reason = " ".join(reason.split())  # one line, wherever it is shown
    return FileSites(path=path, parse_error=f"{path}: {reason}", incomplete=reason)


def _python_rejects(source: str) -> bool:
    """Does CPython itself refuse to compile `source` (so the file can never run)?"""
    try:
        compile(source, "<target>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError):
        return True
    except MemoryError:  # undecided: count it as errcat's failure, not the file's
        pass
    return False


def extract_file(path: str, source: str, profile: Profile) -> FileSites:
    """All sites of one file. Never raises: unparsable files are reported as such, and
    so are files nested too deeply to analyse (`extractor.depth`)."""
    tree, too_deep = depth.refusal(source)
    if too_deep is not None and not too_deep.by_python:
        return _not_analysed(path, too_deep.reason)
    if too_deep is not None:
        where = path if too_deep.line is None else f"{path}:{too_deep.line}"
        return FileSites(path=path, parse_error=f"{where}: {too_deep.reason}")
    lines, how, docs = statement_lines(tree), pieces.cut(source, tree), first_lines(tree)
    del tree  # the `ast` of a large file is hundreds of MB: not kept while libcst parses
    found = depth.call_deep(_extract, path, source, profile, lines, how)
    return replace(found, docstrings=docs) if docs else found


def _extract(path: str, source: str, profile: Profile, lines: list[int] | None, how: pieces.Cut | None) -> FileSites:
    try:
        module = pieces.parse(source, how)
    except cst.ParserSyntaxError as exc:
        message = str(exc).strip().splitlines()[0]
        if not _python_rejects(source):
            return _not_analysed(path, f"libcst cannot parse it: line {exc.raw_line}: {message}")
        return FileSites(path=path, parse_error=f"{path}:{exc.raw_line}: {message}")
    except MemoryError:
        return _not_analysed(path, "out of memory")
    except Exception as exc:  # libcst raises a few other kinds on odd input
        if not _python_rejects(source):
            return _not_analysed(path, f"libcst cannot parse it: {type(exc).__name__}: {exc}")
        return FileSites(path=path, parse_error=f"{path}: {type(exc).__name__}: {exc}")
    try:
        return SiteWalker(path, module, profile, lines).run()
    except MemoryError:
        return _not_analysed(path, "out of memory")
    except RecursionError:
        return _not_analysed(path, "too deeply nested to analyse")
    except Exception as exc:  # a shape we mishandle must not sink the whole catalog
        return _not_analysed(path, f"analysis failed: {type(exc).__name__}: {exc}")
