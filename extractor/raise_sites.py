"""Raise and assert sites as the walk finds them: their message options, guards (a check
inside a loop over a setting's items holds for some item) and table-row variants."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import libcst as cst

from extractor.crash_kinds import Crash
from extractor.cst_ir import term
from extractor.cstutil import literal_value, norm_code, python_value, string_value
from extractor.ir import SOME_ITEM, Apply, Const, Expr, RefKind, Truthy, conj, refs
from extractor.messages import Option, build
from extractor.records import Guard, GuardOrigin, RaiseSite, SiteKind, Variant
from extractor.tables import Pending, RowContext
from extractor.templates import Template
from extractor.walk_state import Frame, WalkState


class RaiseSites:
    """Records the sites of one module (`Found.pending`)."""

    def __init__(self, state: WalkState) -> None:
        self.state = state

    def message(self, call: cst.Call, notes: list[str]) -> list[Option]:
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
        if len(positional) == 1:
            return build(positional[0], self.state.scope)
        if len(positional) > 1:
            return [Option(_args_tuple(positional))]
        for key in ("message", "msg", "detail", "reason", "error"):
            if key in keywords:
                notes.append(f"message passed as keyword {key}=")
                return build(keywords[key], self.state.scope)
        if keywords:
            notes.append("exception built from keyword arguments only; message depends on the class")
            first = next(iter(keywords.values()))
            return build(first, self.state.scope)
        return [Option(Template.literal(""))]

    def add_site(
        self, node: cst.CSTNode, line: int, kind: SiteKind, exception: str,
        options: list[Option], extra: tuple[Guard, ...], notes: list[str], query: str = "",
        crash: Crash | None = None,
    ) -> None:
        frame = self.state.frame
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
            self.state.path, line, self.state.function, kind, exception, template, guards, variants,
            tuple(dict.fromkeys(notes)), self._hole_refs(template), len(self.state.found.adjustments),
            self.state.prior_runs(),
            query=query, crash=crash,
        )
        pending = Pending(id(node), site)
        if frame.rows:
            ctx = frame.rows[-1]
            values = tuple((k, t.text) for k, t in row_values.items())
            variant = Variant(values, self.state.path_guards(ctx.depth, ctx.blocks) + extra, template.fill(row_values))
            pending.rows.append((ctx, replace(site, variants=(variant,))))
        self.state.found.pending.append(pending)

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
            value = term(node, self.state.scope)
            if any(r.kind is not RefKind.UNKNOWN for r in refs(value)):
                out.append((hole.text, value))
        return tuple(out)

    def _row_values(self, template: Template, ctx: RowContext) -> dict[str, Template]:
        """Hole values a table row supplies (holes named by a loop variable)."""
        values: dict[str, Template] = {}
        for hole in template.holes:
            if hole.expr in ctx.targets and hole.expr not in values:
                bound = self.state.scope.lookup(hole.expr)
                if isinstance(bound, cst.BaseExpression):
                    values[hole.expr] = build(bound, self.state.scope)[0].template
        return values


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
