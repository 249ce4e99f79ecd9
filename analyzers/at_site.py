"""The evaluation model as the code stands at a check: without the adjustments that run
after it (its own function's further down, and an option's rewrite a launch runs later)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analyzers.eval_model import Model
from analyzers.rules import Rule
from extractor.ir import Expr


def view_at(entry: Any, full: Expr, model: Model, rule_at: Mapping[int, int],
            views: dict[frozenset[int], Model]) -> Model:
    """`model` evaluating as the code stands at `entry`'s raise (`full`: when it is raised):
    without the adjustments its own function makes further down (``if x is None: raise ...``
    then ``x = default``) or a launch runs after the check, where they would change what
    the trigger reads. `rule_at`: when a launch runs each rule (by `id`), where known;
    `views`: the views made so far, by the rules left out."""
    site = entry.site
    at = entry.extra.get("order")
    later = {id(r) for r in model.relevant_rules(full)
             if r.after(site.path, site.function, site.adjusted_before) or _runs_after(r, at, model, rule_at)}
    if not later:
        return model
    key = frozenset(i for i, r in enumerate(model.rules) if id(r) in later)
    view = views.get(key)
    if view is None:
        view = views[key] = model.subset([i for i in range(len(model.rules)) if i not in key])
    return view


def _runs_after(rule: Rule, at: int | None, model: Model, rule_at: Mapping[int, int]) -> bool:
    """Does a launch run `rule` after the check (at `at`)? Only an option's rewrite is placed:
    a derived setting's runs where its helpers are called (`analyzers.forced`)."""
    runs = rule_at.get(id(rule))
    if at is None or runs is None or runs <= at:
        return False
    flag = model.flags.by_dest(rule.dest) if model.flags is not None else None
    return flag is not None and bool(flag.option)
