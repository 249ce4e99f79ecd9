"""Published catalog entries: ids, source pins, excerpts and triggers for each site."""
from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from analyzers.crash_entries import crash_fields, usual_exception
from analyzers.environment import depends_on_environment
from analyzers.solution import Solution
from analyzers.trigger import Renderer, unknown_fact
from extractor.ir import TRUE, Expr, Ref, RefKind, conj, from_dict, negate, refs, simplify, unknowns
from extractor.records import (
    AT_START,
    LAUNCHED,
    NOT_REACHED,
    ON_IMPORT,
    REACHED,
    Guard,
    GuardOrigin,
    RaiseSite,
    Run,
    SiteKind,
    merge_runs,
    parameter_ref,
)
from extractor.templates import any_of

EXCERPT_CONTEXT = 20  # lines shown before and after the statement
MAX_REACH = 12  # earlier checks listed in a trigger's `reach`; more are counted (`reach_more`)


@dataclass(frozen=True, slots=True)
class Reach:
    """An earlier check on the path that fires first unless it passes: what the trigger
    also needs to be reached (`Trigger.reach`)."""

    entry: str  # the id of the earlier check's entry ("" if it has none)
    line: int
    expr: Expr  # when it fires (simplified)
    text: str  # "also needs <it passes>, else <entry> fires first"

    def as_dict(self) -> dict[str, Any]:
        return {"entry": self.entry or None, "text": self.text, "expr": self.expr.as_dict()}


@dataclass(frozen=True, slots=True)
class Trigger:
    """When an entry (or one of its table rows) fires: the condition and what a reader is
    told about it. The catalog's ``trigger`` object is `as_dict`; nothing else is JSON."""

    expr: Expr  # simplified
    text: str  # in user terms, with what turns its flags on automatically
    flags: tuple[str, ...]  # the options it reads, sorted
    derived: tuple[str, ...]  # settings it reads that no option sets
    env: tuple[str, ...]
    other: tuple[str, ...]  # ``kind:name`` of platform/model/runtime facts, ``unknown:text``
    implied_by: tuple[tuple[str, tuple[str, ...]], ...] = ()  # option -> options that turn it on
    # earlier checks on the path that are not part of `expr` and fire first unless they pass,
    # nearest `MAX_REACH` in line order; `reach_more` counts the others
    reach: tuple[Reach, ...] = ()
    reach_more: int = 0

    @classmethod
    def build(cls, expr: Expr, renderer: Renderer, implied: Mapping[str, Sequence[str]] | None = None) -> Trigger:
        """The trigger of one condition.

        `implied` maps an option to the options that turn it on automatically (from the
        validation code's own adjustments): a trigger on ``--enable-lora`` also fires for a
        user who only passes ``--lora-paths``, and says so.
        """
        expr = simplify(expr)
        found = refs(expr)
        options = {r.name: renderer.option(r.name) for r in found if r.kind is RefKind.FLAG}
        flags = tuple(sorted({o for o in options.values() if o}))
        implied_by = tuple((f, tuple(sorted(set(implied[f])))) for f in flags if implied and implied.get(f))
        return cls(
            expr=expr,
            text=renderer.text(expr) + "".join(
                f" (`{flag}` is also turned on by {', '.join(f'`{s}`' for s in sources)})"
                for flag, sources in implied_by),
            flags=flags,
            derived=tuple(sorted(name for name, option in options.items() if not option)),
            env=tuple(sorted({r.name for r in found if r.kind is RefKind.ENV})),
            other=_facts(expr, found),
            implied_by=implied_by,
        )

    @property
    def unknown(self) -> bool:
        """Does it read something errcat could not interpret?"""
        return any(o.startswith("unknown:") for o in self.other)

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "text": self.text, "expr": self.expr.as_dict(), "flags": list(self.flags),
            "derived": list(self.derived), "env": list(self.env), "other": list(self.other),
        }
        if self.implied_by:
            data["implied_by"] = {flag: list(sources) for flag, sources in self.implied_by}
        if self.reach:
            data["reach"] = [r.as_dict() for r in self.reach]
        if self.reach_more:
            data["reach_more"] = self.reach_more
        return data


def _facts(expr: Expr, found: Sequence[Ref]) -> tuple[str, ...]:
    """`Trigger.other`: the facts `expr` reads that are neither options nor env vars."""
    named = {f"{r.kind}:{r.name}" for r in found if r.kind not in (RefKind.FLAG, RefKind.ENV, RefKind.UNKNOWN)}
    return tuple(sorted(named | {f"unknown:{unknown_fact(u.text) or u.text}" for u in unknowns(expr)}))


@dataclass(frozen=True, slots=True)
class EntryVariant:
    """One row of an entry's condition table as published (`extractor.records.Variant` is
    the row as found); `solutions`, `example_fix` and `meaning` are filled in by `analyzers.advice`."""

    values: tuple[tuple[str, str], ...]  # hole expression -> rendered template text
    template: str
    trigger: Trigger
    solutions: tuple[Solution, ...] | None = None
    example_fix: dict[str, Any] | None = None
    meaning: str = ""  # why this row refuses, where its message says (`analyzers.advice.row_meaning`)
    notes: tuple[str, ...] = ()  # what no option changes (a platform or model fact): not solutions
    stage: str = ""  # `START`: only calls the launcher makes after validation pass this row

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"values": dict(self.values), "template": self.template,
                                "trigger": self.trigger.as_dict()}
        if self.stage:
            data["stage"] = self.stage
        if self.meaning:
            data["meaning"] = self.meaning
        if self.solutions is not None:
            data["solutions"] = [s.as_dict() for s in self.solutions]
        if self.notes:
            data["notes"] = list(self.notes)
        if self.example_fix is not None:
            data["example_fix"] = self.example_fix
        return data


@dataclass(frozen=True, slots=True)
class Entry:
    id: str
    site: RaiseSite
    url: str
    excerpt_start: int
    excerpt: str
    trigger: Trigger
    variants: tuple[EntryVariant, ...]
    meaning: str = ""
    solutions: tuple[Solution, ...] = ()
    advice_notes: tuple[str, ...] = ()  # what advice found no option changes (notes, not solutions)
    example_fix: dict[str, Any] = field(
        default_factory=lambda: {"before": None, "after": None, "verified": "not-run", "predicted": "unknown"})
    related: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        site = self.site
        data: dict[str, Any] = {
            "id": self.id,
            "kind": str(site.kind),
            "exception": site.exception,
            "template": site.template.text,
            "matcher": any_of([site.template, *(v.template for v in site.variants)]),
            "source": {"path": site.path, "line": site.line, "function": site.function, "url": self.url},
            "excerpt": {"start_line": self.excerpt_start, "code": self.excerpt},
            "trigger": self.trigger.as_dict(),
            "guards": [{"text": g.text, "origin": str(g.origin)} for g in listed_guards(site)],
            "variants": [v.as_dict() for v in self.variants],
            "notes": [*site.notes, *self.advice_notes],
            "meaning": self.meaning,
            "solutions": [s.as_dict() for s in self.solutions],
            "example_fix": self.example_fix,
            "related": list(self.related),
        }
        data.update(self.extra)
        return data

    @property
    def triggers(self) -> tuple[Trigger, ...]:
        """The entry's trigger, then its rows' ones."""
        return (self.trigger, *(v.trigger for v in self.variants))


def entry_id(site: RaiseSite, ordinal: int) -> str:
    """16 hex digits from what identifies an error, not from where it sits.

    Path, enclosing function, exception type and message template: a line shift or
    an edit elsewhere keeps the id; `ordinal` separates identical sites within a
    function (numbered in source order).
    """
    key = "\0".join([site.path, site.function, site.exception, site.template.text, str(ordinal)])
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def assign_ids(sites: Sequence[RaiseSite]) -> list[str]:
    seen: Counter[tuple[str, str, str, str]] = Counter()
    ids = []
    for site in sites:
        key = (site.path, site.function, site.exception, site.template.text)
        ids.append(entry_id(site, seen[key]))
        seen[key] += 1
    return ids


def _reads(guards: Sequence[Guard], related: Sequence[Guard]) -> set[Ref]:
    """What the trigger reads: the refs of the guards that are not earlier raises."""
    return {r for g in (*guards, *related) if g.origin is not GuardOrigin.PRIOR_RAISE for r in refs(g.expr)}


def trigger_guards(guards: Sequence[Guard], related: Sequence[Guard] = ()) -> list[Guard]:
    """Guards that make up the trigger.

    An earlier ``if c: raise`` / ``assert`` in the same block is another error that
    fires first; its negation is kept only when it narrows something the trigger
    (or `related` guards, e.g. the variants') already reads, such as the remaining
    values of the same flag. The rest would bury the cause; they stay in ``guards``.
    """
    read = _reads(guards, related)
    return [
        g for g in guards
        if g.origin is not GuardOrigin.PRIOR_RAISE or read.intersection(refs(g.expr))
    ]


def trigger_expr(guards: Sequence[Guard], related: Sequence[Guard] = ()) -> Expr:
    return conj([g.expr for g in trigger_guards(guards, related)]) if guards else TRUE


def site_trigger_guards(site: RaiseSite) -> list[Guard]:
    """`trigger_guards` of the site's whole path (its variants' guards count as read).
    The earlier raises are looked up by what they read instead of each being tested:
    linear in the path, not in the number of checks before the site."""
    related = [g for v in site.variants for g in v.guards]
    if not site.prior_runs:
        return trigger_guards(site.direct, related)
    read = _reads(site.direct, related)

    def narrowing(run: Run) -> list[Guard]:  # as the call sites bind the parameters they read
        return [site.bound(site.priors.blocks[run[1]][1][p]) for p in _narrowing(site, read, run)]

    return trigger_guards(merge_runs(site.direct, site.prior_runs, site.priors, narrowing), related)


def _narrowing(site: RaiseSite, read: set[Ref], run: Run) -> list[int]:
    """Positions of the earlier raises of `run` that read something the trigger reads."""
    _, block, start, end = run
    return sorted({p for r in read for p in site.priors.reading(block, r, start, end)})


MAX_TRUE_SKIPPED = 8  # nearest earlier raises looked at past `MAX_REACH`, where some pass always


def site_reach(site: RaiseSite, nearest: int | None = None) -> tuple[list[tuple[int, Guard]], int]:
    """The earlier raises on the site's path that `site_trigger_guards` leaves out, as
    (line of the raise they stand for, guard: what passing it needs), sorted by line: the
    `nearest` ones (all where None), and how many more there are. Only those returned are
    bound, and only they are walked: the others are counted from the runs' lengths."""
    if not site.prior_runs:
        return [], 0
    read = _reads(site.direct, [g for v in site.variants for g in v.guards])
    out: list[tuple[int, Guard]] = []
    more = 0
    for run in reversed(site.prior_runs):
        _, block, start, end = run
        kept = set(_narrowing(site, read, run))
        guards = site.priors.blocks[block][1]
        p = end
        while p > start and (nearest is None or len(out) < nearest):
            p -= 1
            if p not in kept:
                out.append((site.priors.line(block, p), site.bound(guards[p])))
        # the rest of the run is counted, not walked: per site O(nearest + kept), not O(run)
        more += p - start - sum(1 for k in kept if k < p)
    return sorted(out, key=lambda found: found[0]), more


def reach_of(site: RaiseSite, ids: Mapping[tuple[str, int], str], renderer: Renderer,
             said: Mapping[tuple[str, int], str] | None = None) -> tuple[tuple[Reach, ...], int]:
    """`Trigger.reach` and `reach_more` of a site: its `site_reach` checks that can fire
    (`ids`: entry id by (path, line); `said`: their messages, quoted), the nearest `MAX_REACH`
    of them, and how many more."""
    # the nearest first, each simplified only when it may be listed: a function of N checks
    # costs O(N) per site, not O(N) simplifications (issue 39); the rest are counted as written
    reach, more = site_reach(site, MAX_REACH + MAX_TRUE_SKIPPED)
    found: list[tuple[int, Expr]] = []
    rest = len(reach)
    while rest and len(found) < MAX_REACH:
        rest -= 1
        line, guard = reach[rest]
        if (passes := simplify(guard.expr)) != TRUE:
            found.append((line, passes))
    found.reverse()
    more += sum(1 for _, g in reach[:rest] if g.expr != TRUE)
    items = []
    for line, passes in found:
        eid = ids.get((site.path, line), "")
        message = (said or {}).get((site.path, line), "")
        first = f"{message} (line {line})" if message else f"the check at line {line}"
        text = f"also needs {renderer.text(passes)}, else {first} fires first"
        items.append(Reach(eid, line, simplify(negate(passes)), text))
    return tuple(items), more


def site_trigger(site: RaiseSite) -> Expr:
    """The site's trigger condition (`trigger_expr` of its whole path)."""
    if not site.direct and not site.prior_runs:
        return TRUE
    return conj([g.expr for g in site_trigger_guards(site)])


MAX_LISTED_PRIORS = 24  # earlier raises listed per entry; more are counted in one line


def nearest_priors(site: RaiseSite, count: int) -> list[Guard]:
    """The `count` earlier raises nearest the site (and those its own path holds), in path order."""
    out: list[Guard] = [g for g in site.direct if g.origin is GuardOrigin.PRIOR_RAISE]
    for _, block, start, end in reversed(site.prior_runs):
        if len(out) >= count:
            break
        out[:0] = site.priors.blocks[block][1][max(start, end - (count - len(out))):end]
    return out[-count:]


def listed_guards(site: RaiseSite) -> list[Guard]:
    """The guards an entry lists: the whole path, except that beyond `MAX_LISTED_PRIORS`
    earlier raises only the nearest are named and the rest are one counted line (a
    function of N checks would otherwise list O(N²) guards over its entries)."""
    hidden = site.prior_count - MAX_LISTED_PRIORS
    if hidden <= 0:
        return list(site.guards)
    summary = Guard(TRUE, f"{hidden} earlier checks did not fire (not listed)", GuardOrigin.PRIOR_RAISE)
    skip = hidden

    def nearest(run: tuple[int, int, int, int]) -> list[Guard]:
        nonlocal skip
        _, block, start, end = run
        dropped = min(skip, end - start)
        lead = [summary] if dropped and skip == hidden else []
        skip -= dropped
        return [*lead, *site.priors.blocks[block][1][start + dropped:end]]

    return merge_runs(site.direct, site.prior_runs, site.priors, nearest)


def excerpt(lines: Sequence[str], line: int) -> tuple[int, str]:
    start = max(1, line - EXCERPT_CONTEXT)
    end = min(len(lines), line + EXCERPT_CONTEXT)
    return start, "".join(lines[start - 1 : end])


START = "start"  # an entry's `stage`: it runs after validation, as the server starts
EXAMPLE_ROW = "example_row"  # which table row (from 1) an entry's example is from; absent: its own


def with_example_row(extra: dict[str, Any], row: int | None) -> dict[str, Any]:
    """`extra` saying which table row (index `row`) the entry's example is from, or none."""
    rest = {k: v for k, v in extra.items() if k != EXAMPLE_ROW}
    return rest if row is None else {**rest, EXAMPLE_ROW: row + 1}


def entry_fix(row_fixes: Sequence[dict[str, Any]],
              own: Callable[[], dict[str, Any]]) -> tuple[dict[str, Any], int | None]:
    """The example shown for a whole entry, and the index of the row it is from (None: the
    entry's own), from its table rows' examples (`row_fixes`, in row order) and its own
    (`own`, searched only when needed: it is the costly one).

    1. The first row example predicted to work: a row is the most specific way to hit the error.
    2. Else the entry's own example, when it is predicted to work or there are no rows.
    3. Else the first row example that at least has a fix (`after`) to show, else the own one.
    """
    row = next((i for i, f in enumerate(row_fixes) if f["predicted"] == "true"), None)
    if row is not None:
        return row_fixes[row], row
    whole = own()
    if whole["predicted"] == "true" or not row_fixes:
        return whole, None
    row = next((i for i, f in enumerate(row_fixes) if f.get("after")), None)
    return (whole, None) if row is None else (row_fixes[row], row)


def validation_can_raise(entry: Mapping[str, Any]) -> bool:
    """Whether a launch's validation (what `errcat confirm` runs) can raise this entry:
    one a launch can raise, not at the server's start."""
    return launch_can_raise(entry) and entry.get("stage") != START


_SETTINGS = (RefKind.FLAG, RefKind.ENV)


def weighed(entry: Mapping[str, Any], architecture: Callable[[str], bool] = lambda name: False) -> bool:
    """Whether the first-error prediction weighs this entry (catalog.json's data): every check
    of the targets; one outside them (`outside_targets`) where its trigger reads options, env
    vars and the model's `architecture` (a model property every stand-in states) and nothing
    else (no other model property, platform or runtime fact, nothing unknown), and it is no
    `environment` check. Code outside the targets is read for what a launch reaches, not for
    what decides it there: a check a command line alone does not decide would leave launches
    undecided, or examples working around it."""
    if not entry.get("outside_targets"):
        return True
    expr = (entry.get("trigger") or {}).get("expr")
    if entry.get("environment") or not isinstance(expr, dict):
        return False
    condition = from_dict(expr)
    read = refs(condition)
    return (any(r.kind in _SETTINGS for r in read) and not unknowns(condition)
            and all(r.kind in _SETTINGS or (r.kind is RefKind.MODEL and architecture(r.name)) for r in read))


def launch_can_raise(entry: Mapping[str, Any]) -> bool:
    """Whether a launch can raise this entry (its published fields or `Entry.extra`): not
    where no entry point reaches it, nor where it guards the program's own code (`internal`)."""
    return entry.get("reachable", True) is not False and not entry.get("internal")


ATTRIBUTE_HOOKS = ("__getattr__", "__getattribute__", "__setattr__", "__delattr__")


def guards_program(site: RaiseSite, trigger: Expr, reached: str, params: Sequence[str]) -> str | None:
    """Why the site's check guards the program's own code rather than a launch's settings
    (its entry is `internal`), or None. Two cases: a check in an attribute hook on the
    attribute's name (the interpreter binds it from the program's own `obj.name`); a check
    that only module-level code runs (on import, before any argument is read) and that reads
    nothing but program values (no option, env var, platform or model fact). `trigger`: the
    site's `site_trigger`."""
    read = refs(trigger)
    hook = site.function.rpartition(".")[2]
    if hook in ATTRIBUTE_HOOKS and params:
        name = params[1] if params[0] in ("self", "cls") and len(params) > 1 else params[0]
        if parameter_ref(name) in read:
            return (f"internal: checks the attribute name `{hook}` is called with (`{name}`), which "
                    "the program's own code chooses")
    if reached == ON_IMPORT and all(r.kind is RefKind.UNKNOWN for r in read):
        return "internal: runs on import, before the command line is read, and reads only the program's own values"
    if site.kind == SiteKind.ASSERT and _CALL_ORDER.search(site.template.text):
        return "internal: its message states the order the program's own functions must run in"
    return None


# an assert on the program's own call order: "_handle_x must run after _handle_y() so ..."
_CALL_ORDER = re.compile(r"\bmust (?:run|be called|be invoked) (?:after|before)\b", re.IGNORECASE)


def _rows(site: RaiseSite, renderer: Renderer, implied: Mapping[str, Sequence[str]] | None,
          reach: Mapping[tuple[str, str], str]) -> tuple[EntryVariant, ...]:
    """The site's rows as published: a row only calls made as the server starts pass is at `START`."""
    return tuple(
        EntryVariant(v.values, v.template.text, Trigger.build(trigger_expr(v.guards), renderer, implied),
                     stage=START if v.callers and all(reach.get(c) == AT_START for c in v.callers) else "")
        for v in site.variants
    )


def build_entries(
    sites: Sequence[RaiseSite],
    lines_of: Callable[[str], Sequence[str]],
    permalink: Callable[[str, int], str],
    renderer: Renderer,
    *,
    implied: Mapping[str, Sequence[str]] | None = None,
    reach: Mapping[tuple[str, str], str] | None = None,
    order: Mapping[tuple[str, str, int], int] | None = None,
    contracts: frozenset[str] = frozenset(),
    params: Mapping[tuple[str, str], Sequence[str]] | None = None,
    targets: Collection[str] | None = None,
    program: str = "the program",
) -> list[Entry]:
    """One entry per site, sorted by id (`implied`: see `Trigger.build`). `reach`: per
    (path, function), whether a launch reaches it (`extractor.callers.reachability`); an
    entry whose function is not reached, or not known to be, says so in `reachable`.
    `order`: per (path, function, line), when a launch runs it (`extractor.program_order`),
    published as the entry's `order`. `contracts`: the profile's functions whose checks guard
    the program's own code; their entries are `internal`, as are those `guards_program`
    finds (`params`: per (path, function), its parameters). An entry a launch reaches only after
    validation (`reach` ``"start"``: the profile's `after_validation` leads to it), or whose rows
    all come from calls made there, is at `stage` ``"start"``, as is such a row. `targets`: the
    profile's target files; an entry of another file (one a launch reaches) is `outside_targets`.
    `program`: what the words call the target (the profile's name)."""
    entries = []
    ids = assign_ids(sites)
    usual = usual_exception(sites)
    at: dict[tuple[str, int], str] = {}
    said: dict[tuple[str, int], str] = {}
    for site, eid in zip(sites, ids, strict=True):
        at.setdefault((site.path, site.line), eid)
        said.setdefault((site.path, site.line), site.template.quoted())
    for site, eid in zip(sites, ids, strict=True):
        reached = (reach or {}).get((site.path, site.function), REACHED)
        extra: dict[str, Any] = {} if reached in (*LAUNCHED, ON_IMPORT) else {
            "reachable": False if reached == NOT_REACHED else "unknown"}
        if (rank := (order or {}).get((site.path, site.function, site.line))) is not None:
            extra["order"] = rank
        if targets is not None and site.path not in targets:
            extra["outside_targets"] = True
        if site.crash is not None:
            extra["crash"] = crash_fields(site, renderer, usual.get(site.path, "ValueError"), program)
        own = site_trigger(site)
        if depends_on_environment(site.exception, own):
            extra["environment"] = True
        names = (params or {}).get((site.path, site.function), ())
        if site.function.rpartition(".")[2] in contracts:
            extra["internal"] = True
        elif (why := guards_program(site, own, reached, names)) is not None:
            extra["internal"] = True
            site = replace(site, notes=(*site.notes, why))
        start, code = excerpt(lines_of(site.path), site.line)
        earlier, more = reach_of(site, at, renderer, said)
        variants = _rows(site, renderer, implied, reach or {})
        if reached == AT_START or (variants and all(v.stage for v in variants)):
            extra["stage"] = START
        entries.append(
            Entry(
                id=eid,
                site=site,
                url=permalink(site.path, site.line),
                excerpt_start=start,
                excerpt=code,
                trigger=replace(Trigger.build(own, renderer, implied), reach=earlier, reach_more=more),
                variants=variants,
                extra=extra,
            )
        )
    entries.sort(key=lambda e: e.id)
    return entries
