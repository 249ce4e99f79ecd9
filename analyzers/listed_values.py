"""The values a solution lists, without those that meet a raise earlier in the check's block."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from analyzers.eval_model import Model
from analyzers.evaluate import evaluate
from analyzers.kleene import Truth
from analyzers.solution import Solution, ValueChoice
from analyzers.witness import assign, base_launch
from extractor.ir import Expr, conjuncts, refs, simplify


def values_past(sol: Solution, path: Sequence[Expr], raises: Sequence[Expr], model: Model,
                words: Callable[[ValueChoice], str | None]) -> Solution:
    """`sol` without the values it lists that surely meet a raise earlier in the block (whose
    tests are `raises`, on the error's own `path`): "one of prefill, decode" where ``if mode ==
    "decode": raise ...`` comes first. A value goes where a test holds on it alone and the
    path's parts that read the setting still hold. `words`: a choice's text."""
    choice = sol.choice
    if choice is None or len(choice.listed) < 2 or choice.form or sol.text != words(choice):
        return sol
    name = choice.leaf.name
    reads = [c for p in path for c in conjuncts(simplify(p)) if any(r.name == name for r in refs(c))]

    def met(value: Any) -> bool:
        launch = assign(base_launch(model), choice.leaf, value)
        return any(evaluate(t, launch, model) is Truth.TRUE for t in raises) \
            and all(evaluate(p, launch, model) is Truth.TRUE for p in reads)

    kept = tuple(v for v in choice.listed if not met(v))
    if not kept or len(kept) == len(choice.listed):
        return sol
    fewer = replace(choice, listed=kept)
    return replace(sol, text=words(fewer) or sol.text, choice=fewer)
