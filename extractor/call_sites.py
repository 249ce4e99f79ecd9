"""Call sites as the walk finds them: the callee, the guards in force, and the arguments
as terms a callee's parameters can be bound to."""
from __future__ import annotations

import libcst as cst

from extractor.cst_ir import larger_than, term
from extractor.cstutil import dotted, norm_code
from extractor.ir import Expr, Unknown, unknowns
from extractor.local_bindings import MAX_ARG_TERMS, reads_no_local, simple_arg, simple_binding
from extractor.records import PARAMETER, UNPACKED, CallSite, bound_by_callers
from extractor.scope import Opaque
from extractor.suite_facts import calls_in
from extractor.walk_state import WalkState


class CallSites:
    """Records the calls and function references of one module (`Found.calls`)."""

    def __init__(self, state: WalkState) -> None:
        self.state = state

    def record(self, node: cst.Call, callee: str) -> None:
        """`node` as a call site, then the calls and function references in its arguments:
        ``overrides.update(_f(cfg))`` calls `_f` too, ``run_hook(handle_x, cfg)`` hands
        `handle_x` over (a reference: it may be called there)."""
        guards = tuple(self.state.frame.guards)
        nested = "." not in callee and f"{self.state.function}.{callee}" in self.state.found.defined
        args = tuple(
            (arg.keyword.value if arg.keyword else str(i), self._arg_term(arg.value, nested))
            for i, arg in enumerate(node.args) if not arg.star
        )
        if any(arg.star for arg in node.args):  # ``f(*a, **kw)``: any parameter not named may be passed
            args += ((UNPACKED, Unknown("unpacked arguments")),)
        frame = self.state.frame
        self.state.found.calls.append(CallSite(self.state.function, callee, guards, args,
                                               line=self.state.call_line(node),
                                               caught=tuple(dict.fromkeys(n for c in frame.catching for n in c)),
                                               try_line=frame.tries[-1] if frame.tries else 0))
        self.record_inner(node)

    def record_inner(self, node: cst.Call) -> None:
        guards = tuple(self.state.frame.guards)
        for arg in node.args:
            name = dotted(arg.value) if isinstance(arg.value, (cst.Name, cst.Attribute)) else None
            if name is not None and self.state.scope.lookup(name.partition(".")[0]) is None \
                    and not self.state.scope.is_config(cst.Name(name.partition(".")[0])):
                self.state.found.calls.append(CallSite(self.state.function, name, guards, ref=True,
                                                       line=self.state.call_line(arg.value)))
            for inner in calls_in(arg.value):
                name = dotted(inner.func)
                if name is not None:
                    self.record(inner, name)

    def _arg_term(self, node: cst.BaseExpression, nested: bool = False) -> Expr:
        """A call argument for parameter binding: literals, direct config reads, a local
        bound to those (where branches joined, to one of them per branch), and an item a
        table row reads (``raw[name]``; its own parameters included: bound where it is
        called) while small (`MAX_ARG_TERMS`). Longer binding chains are not followed: they
        would be re-read at every call, which made a whole release's 4,000 files take tens of
        minutes on large numeric code (tried 2026-12-02), and are rarely what a validation hook
        is passed."""
        if simple_arg(node, self.state.scope):
            return term(node, self.state.scope)
        bound = self.state.scope.bindings.get(node.value) if isinstance(node, cst.Name) else None
        if isinstance(bound, Opaque) and bound.text.startswith(PARAMETER):
            return term(node, self.state.scope)  # its own parameter passed on: bound where the caller is
        frame = self.state.frame
        if isinstance(node, cst.Name) and (node.value in frame.decided_reads or frame.tries or nested):
            # a provider's decision; what a call in a ``try`` is passed (what the block raises
            # depends on it: `extractor.callers.CallGraph.try_raises`); what a function defined
            # here is passed (its variants take the enclosing function's: `extractor.callers`)
            found = term(node, self.state.scope)
            if bound_by_callers(found) and not larger_than(found, MAX_ARG_TERMS):
                return found
        if simple_binding(bound, self.state.scope) or (isinstance(bound, cst.BaseExpression)
                                                  and reads_no_local(bound, self.state.scope)):
            return term(node, self.state.scope)  # a local bound once to config reads: no chain to re-read
        if reads_no_local(node, self.state.scope):  # constants and config reads only: cheap to read as it is
            found = term(node, self.state.scope)
            if not unknowns(found):
                return found
        elif isinstance(node, cst.Subscript) and self.state.frame.rows:  # ``raw[name]`` per row of a table
            found = term(node, self.state.scope)
            if bound_by_callers(found) and not larger_than(found, MAX_ARG_TERMS):
                return found  # the function's own parameters are bound where it is called
        return Unknown(norm_code(node))  # what the call passes, as the source writes it
