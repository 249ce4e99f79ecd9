"""Parameters bound per call site: one variant of a function's sites for each distinct
binding of the parameters its path reads (`extractor.callers.CallGraph.per_call`)."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from extractor.ir import TRUE, Const, Expr, Ref, conj, disj, refs, simplify, substitute
from extractor.records import Guard, GuardOrigin, RaiseSite, Variant, map_guards, parameter_ref
from extractor.templates import Template

MAX_VARIANTS = 16  # a site's variants after splitting its rows per binding; more stay unknown


def read_with(bind: ParamBinding, mapping: dict[Ref, Expr]) -> ParamBinding:
    """A nested function's `bind` (what its call sites pass may read the enclosing
    function's parameters) with those parameters as `mapping` binds them."""
    if not mapping:
        return bind
    values = tuple((name, simplify(substitute(v, mapping))) for name, v in bind.values)
    return replace(bind, values=values, guard=replace(bind.guard, expr=simplify(substitute(bind.guard.expr, mapping))))


def crossed_binding(own: ParamBinding, outer: ParamBinding) -> ParamBinding:
    """A nested function's binding `own` under one binding of the enclosing function."""
    bound = read_with(own, outer.mapping)
    names = {name for name, _ in own.values}
    return ParamBinding((*bound.values, *((n, v) for n, v in outer.values if n not in names)),
                        Guard(conj([bound.guard.expr, outer.guard.expr]), f"{own.guard.text}; {outer.guard.text}",
                              GuardOrigin.CALLER), own.callers)


def within(bind: ParamBinding, caller: Guard | None) -> ParamBinding:
    """`bind` (of an enclosing function) for a function nested in it: the call sites of
    the enclosing function that pass it, and what calls the nested one (`caller`)."""
    if caller is None:
        return bind
    (bound,) = bind_guards((caller,), bind.mapping)  # the call inside reads the same free names
    both = conj([bound.expr, bind.guard.expr])
    return replace(bind, guard=Guard(both, f"{caller.text}; {bind.guard.text}", GuardOrigin.CALLER))


@dataclass(frozen=True, slots=True)
class ParamBinding:
    """One distinct binding of a function's varying parameters, and the guard of the call
    sites that pass it (`CallGraph.per_call`)."""

    values: tuple[tuple[str, Expr], ...]  # parameter -> value passed
    guard: Guard
    callers: tuple[tuple[str, str], ...] = ()  # the functions whose call sites pass it (path, name)

    @property
    def mapping(self) -> dict[Ref, Expr]:
        return {parameter_ref(name): value for name, value in self.values}

    def hole_texts(self) -> dict[str, Template]:
        """Message holes naming a parameter that is passed a string literal: that string."""
        return {name: Template.literal(value.value) for name, value in self.values
                if isinstance(value, Const) and isinstance(value.value, str)}


def bind_guards(guards: tuple[Guard, ...], mapping: dict[Ref, Expr]) -> tuple[Guard, ...]:
    if not mapping:
        return guards
    return map_guards(guards, lambda expr: simplify(substitute(expr, mapping)))


def per_binding(site: RaiseSite, binds: Sequence[ParamBinding]) -> RaiseSite:
    """`site` (its guards already bound) with one variant per distinct binding of the
    parameters its guards or message read (each row of a table once per binding): the
    call sites' guard, and the guards on the path that read those parameters with the
    values substituted; message holes naming a parameter show the literal passed. The
    entry's own trigger gets, in place of the callers' guard, the OR over the bindings of
    their call sites' guard and the substituted guards (earlier raises left to the rows);
    the guards that read a parameter stay listed but leave it. The site is unchanged
    where no binding reads anything, or past `MAX_VARIANTS`."""
    if not binds:
        return site
    params = set(binds[0].mapping)
    reading = tuple(g for g in site.guards if params.intersection(refs(g.expr)))
    rows = site.variants or (None,)
    at = next((i for i, g in enumerate(site.direct) if g.origin is GuardOrigin.CALLER), None)
    if at is None or not (reading or _shows(site, binds)) or len(rows) * len(binds) > MAX_VARIANTS:
        return site  # (`binds` come from call sites, so the callers' guard is there)
    variants: list[Variant] = []
    options = []
    for bind in binds:
        own = (bind.guard, *bind_guards(reading, bind.mapping))
        options.append(conj([g.expr for g in own if g.origin is not GuardOrigin.PRIOR_RAISE]))
        variants.extend(_bound_row(site, row, bind, own) for row in rows)
    direct = [replace(g, expr=TRUE) if params.intersection(refs(g.expr)) else g for g in site.direct]
    direct[at] = replace(direct[at], expr=simplify(disj(options)))
    bindings = tuple((b.guard, b.values) for b in binds)
    return replace(site, direct=tuple(direct), variants=tuple(variants), bindings=bindings)


def _shows(site: RaiseSite, binds: Sequence[ParamBinding]) -> bool:
    """Does a message hole of `site` (or of its rows) name a parameter passed a string?"""
    named = {name for b in binds for name in b.hole_texts()}
    return any(h.expr in named for tpl in (site.template, *(v.template for v in site.variants)) for h in tpl.holes)


def _bound_row(site: RaiseSite, row: Variant | None, bind: ParamBinding, own: tuple[Guard, ...]) -> Variant:
    """One variant: `row` of `site` (None: the site itself) under one binding."""
    holes = bind.hole_texts()
    shown = {h.expr for tpl in (site.template, *(v.template for v in site.variants)) for h in tpl.holes}
    values = tuple((name, holes[name].text) for name, _ in bind.values if name in holes and name in shown)
    if row is None:
        return Variant(values, own, site.template.fill(holes), bind.callers)
    return Variant((*row.values, *values), (*own, *bind_guards(row.guards, bind.mapping)), row.template.fill(holes),
                   bind.callers)
