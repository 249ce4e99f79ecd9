"""Checks no launch can fail: a part of the trigger reads one option with declared choices,
and none of them (nor leaving it unset) makes the part hold once the adjustments that run
before the check have rewritten it (sglang 0.5.23: ``if x == "mooncake_tcp": x = "mooncake"``
then ``if x not in ("mooncake", "nixl", ...): raise``). The entry is then `reachable: false`
with the one-line why this gives. A value outside the choices is refused by the parser
first; only the Python API, which skips the parser, could pass one. A part an adjustment
always makes false before the check is the other way (`analyzers.forced`)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from analyzers.entries import MAX_LISTED_PRIORS, Entry, launch_can_raise, nearest_priors, site_trigger_guards
from analyzers.eval_model import Model
from analyzers.evaluate import evaluate
from analyzers.forced import Timing, forced_off
from analyzers.kleene import Truth
from analyzers.launch import Launch
from analyzers.trigger import Renderer
from analyzers.witness import base_launch
from extractor.frozen import FrozenMap
from extractor.ir import FALSE, Expr, Ref, RefKind, conj, conjuncts, refs, simplify
from extractor.records import CALLS_CATCH, CAUGHT_BY, NEVER_CALLED, Guard, GuardOrigin, RaiseSite

MAX_CHOICES = 64  # an option with more declared choices is not tried value by value


def never_holds(expr: Expr, model: Model, renderer: Renderer, timing: Timing | None = None) -> str | None:
    """Why `expr` holds on no launch, or None (it may hold, or errcat cannot tell). With
    `timing` (when the rules and the check run), also where a rule before it undoes a part."""
    for part in conjuncts(expr):
        read = refs(part)
        if not read or any(r.kind is not RefKind.FLAG for r in read) or len({r.name for r in read}) != 1:
            continue
        values = _choices(model, read[0].name)
        if values is None or not _self_contained(part, read[0].name, model):
            continue
        held = [v for v in values if evaluate(part, _given(read[0].name, v), model) is not Truth.FALSE]
        if held:
            continue
        return _why(part, read[0], values, model, renderer)
    return None if timing is None else forced_off(expr, model, renderer, base_launch(model), timing)


def never_fails(entry: Entry, full: Expr, model: Model, renderer: Renderer,
                rule_at: Mapping[int, int]) -> tuple[Entry, str]:
    """`entry`, `reachable: false` with a note saying why where no launch fails its check
    (`full`: when it is raised), and that why ("" where it may fail). `rule_at`: when a
    launch runs each rule (by `id`), where known."""
    if not launch_can_raise(entry.extra):
        return entry, ""
    at = entry.extra.get("order")
    why = dead_path(entry.site) if full == FALSE else \
        never_holds(full, model, renderer, None if at is None else Timing(rule_at, at))
    if why is None:
        return entry, ""
    site = replace(entry.site, notes=(*entry.site.notes, f"unreachable: {why}"))
    return replace(entry, site=site, extra={**entry.extra, "reachable": False}), why


def dead_path(site: RaiseSite) -> str | None:
    """Why the path to `site` never runs its raise, where its guards say it themselves: the
    error is caught where it is raised, every call of the function catches it, nothing calls
    the function, or an earlier check on the path fails first whenever this one would (its
    own test contradicts what passing that check needs). None where errcat cannot say which."""
    guards = site_trigger_guards(site)
    for guard in guards:
        if simplify(guard.expr) == FALSE and (why := _false_guard(guard, site.function)):
            return why
    own = [g.expr for g in guards if g.origin is not GuardOrigin.PRIOR_RAISE]
    for guard in nearest_priors(site, MAX_LISTED_PRIORS):
        if simplify(conj([*own, guard.expr])) == FALSE:
            return f"an earlier check on its path fails first wherever this one would: `{_raised_when(guard.text)}`"
    return None


def _false_guard(guard: Guard, function: str) -> str | None:
    if guard.origin is GuardOrigin.EXCEPT and guard.text.startswith(CAUGHT_BY):
        return f"the error is {guard.text} in `{function}`, which handles it"
    if guard.origin is GuardOrigin.CALLER and CALLS_CATCH in guard.text:  # the function's calls, or an outer one's
        return "the calls that lead to it catch the error" if guard.text != CALLS_CATCH else \
            f"each call of `{function}` catches the error"
    if guard.origin is GuardOrigin.CALLER and NEVER_CALLED in guard.text:
        return f"nothing in the program calls `{function}`" if guard.text == NEVER_CALLED else \
            "nothing in the program calls the functions that lead to it"
    return None


def _raised_when(text: str) -> str:
    """What fails an earlier check, from its guard's text (``not (x)``: the check passes)."""
    inner = text[len("not ("):-1] if text.startswith("not (") and text.endswith(")") else None
    return inner if inner is not None else f"not {text}"


def _choices(model: Model, dest: str) -> Sequence[Any] | None:
    """The values a command line can give `dest` (its declared choices, and unset), or None."""
    flag = model.flags.by_dest(dest) if model.flags is not None else None
    choices = flag.choices if flag is not None else None
    if not isinstance(choices, tuple) or isinstance(choices, FrozenMap) or not 0 < len(choices) <= MAX_CHOICES:
        return None
    return [*choices, None]


def _self_contained(part: Expr, dest: str, model: Model) -> bool:
    """Do the adjustments that can change what `part` reads read `dest` alone (a normalisation
    such as ``if x == "a": x = "b"``)? One under another setting may give any value."""
    return all({r.name for e in (rule.when, rule.value) for r in refs(e)} <= {dest}
               and all(r.kind is RefKind.FLAG for e in (rule.when, rule.value) for r in refs(e))
               for rule in model.relevant_rules(part))


def _given(dest: str, value: Any) -> Launch:
    return Launch({} if value is None else {dest: value})


def _why(part: Expr, ref: Ref, values: Sequence[Any], model: Model, renderer: Renderer) -> str:
    bare = Model(model.flags)  # the same launches before any adjustment
    rewritten = [v for v in values if v is not None and evaluate(part, _given(ref.name, v), bare) is Truth.TRUE]
    option = renderer.name(ref)
    if rewritten:
        shown = ", ".join(str(v) for v in rewritten)
        return (f"no value {option} accepts fails it ({shown} "
                f"{'is' if len(rewritten) == 1 else 'are'} rewritten before the check)")
    return f"no value {option} accepts, nor leaving it unset, makes {renderer.text(part)}"
