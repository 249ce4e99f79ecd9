"""Checks an adjustment switches off before they run: the trigger needs a setting the
launch rewrites whenever the rest of the trigger holds (sglang 0.5.23: a post-process sets
``disable_overlap_schedule = True`` when ``pp_size > 1``, and a later check raises on
``pp_size > 1 and not disable_overlap_schedule``). The entry is then `reachable: false`.

A proof, not a search: the rewrite's condition must follow from the trigger on every value
of the options both read (tried one value per interval their constants cut, so an integer
option is covered whole), what it reads besides must hold on every launch that serves a
model, and nothing after the rewrite may change what it read or undo it.
"""
from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from analyzers.eval_model import Model
from analyzers.evaluate import evaluate
from analyzers.flag_types import ValueKind, value_type
from analyzers.kleene import Truth
from analyzers.launch import Launch
from analyzers.rules import Rule
from analyzers.settings import base_dest
from analyzers.trigger import Renderer
from extractor.ir import And, Compare, Const, Expr, In, Not, Or, Ref, RefKind, Truthy, conj, conjuncts, refs, walk

MAX_TRIALS = 4096  # assignments tried per implication (the product of the values per option)


@dataclass(frozen=True)
class Timing:
    """When a launch runs each rule (by `id`, where known) and the check (`extractor.program_order`)."""

    rules: Mapping[int, int]
    check: int

    def at(self, rule: Rule) -> int | None:
        return self.rules.get(id(rule))


def forced_off(expr: Expr, model: Model, renderer: Renderer, base: Launch, timing: Timing) -> str | None:
    """Why `expr` (the whole trigger) holds on no launch because an adjustment before the
    check makes one of its parts false, or None. `base`: the launch every example starts from."""
    parts = conjuncts(expr)
    for part in parts:
        read = {r.name for r in refs(part)}
        if len(read) != 1 or any(r.kind is not RefKind.FLAG for r in refs(part)):
            continue
        dest = read.pop()
        if not _is_option(dest, model):  # a derived setting's rewrites run where its helpers are called: no one time
            continue
        others = [p for p in parts if p is not part]
        for rule in _writers(model, dest, timing):
            if _undoes(rule, part, dest, model) and _settled(rule, part, others, model, timing) \
                    and all(_holds(c, others, rule, model, base, timing) for c in conjuncts(rule.when)):
                return _why(part, rule, others, renderer)
    return None


def _writers(model: Model, dest: str, timing: Timing) -> list[Rule]:
    """The rules writing `dest` a launch runs before the check."""
    return [r for r in model.rules if r.dest == dest and (at := timing.at(r)) is not None and at < timing.check]


def _undoes(rule: Rule, part: Expr, dest: str, model: Model) -> bool:
    """Does the value `rule` writes make `part` false?"""
    if not isinstance(rule.value, Const):
        return False
    return evaluate(part, Launch({dest: rule.value.value}), model.unadjusted()) is Truth.FALSE


def _later(rule: Rule, model: Model, timing: Timing) -> Iterator[Rule]:
    """The rules a launch may run after `rule` and before the check (those of unknown order among them)."""
    start = timing.at(rule)
    assert start is not None
    return (r for r in model.rules
            if r is not rule and ((at := timing.at(r)) is None or start <= at < timing.check))


def _settled(rule: Rule, part: Expr, others: Sequence[Expr], model: Model, timing: Timing) -> bool:
    """Nothing after `rule` undoes what it did to `part`: a later rule writing the setting
    writes a value that also makes `part` false, and one writing an option both `rule`'s
    condition and the trigger (`others`) read writes a value on which the trigger cannot hold
    (what the condition reads besides is read as it stands when `rule` runs: `_holds`)."""
    dest = refs(part)[0].name
    read = {base_dest(r.name) for r in refs(rule.when)} & {base_dest(r.name) for p in others for r in refs(p)}
    for later in _later(rule, model, timing):
        if later.dest == dest and not _undoes(later, part, dest, model):
            return False
        if later.dest in read and not _excludes(later, others, model):
            return False
    return True


def _excludes(rule: Rule, others: Sequence[Expr], model: Model) -> bool:
    """Does the constant `rule` writes make a part of the trigger false (``pp_size = 1``
    where it needs ``pp_size > 1``)?"""
    if not isinstance(rule.value, Const):
        return False
    launch = Launch({rule.dest: rule.value.value})
    bare = model.unadjusted()
    return any({r.name for r in refs(p)} == {rule.dest} and evaluate(p, launch, bare) is Truth.FALSE for p in others)


def _holds(cond: Expr, others: Sequence[Expr], rule: Rule, model: Model, base: Launch, timing: Timing) -> bool:
    """Does `cond` (a part of `rule`'s condition) hold wherever the trigger does?"""
    read = refs(cond)
    if any(r.kind is not RefKind.FLAG for r in read):
        return False
    serves = model.examples.model
    options = {r.name for r in read if _is_option(r.name, model)} - {serves}
    if not options:  # settings nothing before the rule writes, and the model: as on every launch that serves one
        before = _before(rule, model, timing)
        written = {r.dest for r in before.rules} - {serves}  # a resolved model path is still one
        return not any(base_dest(r.name) in written for r in read) and evaluate(cond, base, before) is Truth.TRUE
    if len(options) != len({r.name for r in read}):  # options along with other settings
        return False
    given = [p for p in others if {r.name for r in refs(p)} <= options]
    return bool(given) and all(_plain(e) for e in (*given, cond)) \
        and _implied(conj(given), cond, sorted(options), model)


def _before(rule: Rule, model: Model, timing: Timing) -> Model:
    """`model` with only the rules a launch runs before `rule`."""
    start = timing.at(rule)
    assert start is not None
    return model.subset([i for i, r in enumerate(model.rules) if (at := timing.at(r)) is not None and at < start])


def _plain(expr: Expr) -> bool:
    """Is `expr` and/or/not over options compared with constants (``x > 1``, ``x in ("a",
    "b")``, ``x``)? Then one value per class its constants cut decides it everywhere."""
    if isinstance(expr, (And, Or)):
        return all(_plain(a) for a in expr.args)
    if isinstance(expr, Not):
        return _plain(expr.arg)
    if isinstance(expr, Truthy):
        return isinstance(expr.term, Ref)
    if isinstance(expr, Compare):
        return {type(expr.left), type(expr.right)} == {Ref, Const}
    if isinstance(expr, In):
        return isinstance(expr.item, Ref) and isinstance(expr.container, Const)
    return isinstance(expr, Ref)


def _is_option(dest: str, model: Model) -> bool:
    return model.flags is not None and model.flags.is_option(dest)


def _implied(premise: Expr, cond: Expr, dests: Sequence[str], model: Model) -> bool:
    """Is `cond` true on every assignment of `dests` where `premise` is (before any rule)?"""
    values = _representatives((premise, cond))
    whole = [v for v in values if not isinstance(v, float) or v.is_integer()]
    per_dest = [whole if value_type(model.flags.by_dest(d)).kind == ValueKind.INT else values for d in dests]
    trials = list(itertools.islice(itertools.product(*per_dest), MAX_TRIALS + 1))
    bare = model.unadjusted()
    if len(trials) > MAX_TRIALS:
        return False
    for trial in trials:
        launch = Launch({d: v for d, v in zip(dests, trial, strict=True) if v is not None})
        if evaluate(premise, launch, bare) is not Truth.FALSE and evaluate(cond, launch, bare) is not Truth.TRUE:
            return False
    return True


def _representatives(exprs: Sequence[Expr]) -> list[Any]:
    """One value per class the constants in `exprs` cut an option's values into, unset among
    them (the options they read are compared with constants: `_holds` asks no more)."""
    consts: list[Any] = []
    for expr in exprs:
        for node in walk(expr):
            if isinstance(node, Const):
                consts += list(node.value) if isinstance(node.value, tuple) else [node.value]
    numbers = sorted({c for c in consts if isinstance(c, (int, float)) and not isinstance(c, bool)})
    if numbers:  # compared with numbers: a number on each side of each, and each itself
        return [None, *dict.fromkeys(v for n in numbers for v in (n - 1, n - 0.5, n, n + 0.5, n + 1))]
    words = [c for c in consts if isinstance(c, str)]
    return list(dict.fromkeys([None, True, False, "\x00other", *words]))


def _why(part: Expr, rule: Rule, others: Sequence[Expr], renderer: Renderer) -> str:
    ref = refs(part)[0]
    assert isinstance(rule.value, Const)
    value = rule.value.value
    done = "turned on" if value is True else "turned off" if value is False else f"set to {value}"
    by = f" (by `{rule.origin[1]}`)" if rule.origin is not None else ""
    when = f"whenever {renderer.text(conj(list(others)))}" if others else "on every launch"
    return f"{renderer.name(ref)} is {done} before the check {when}{by}"
