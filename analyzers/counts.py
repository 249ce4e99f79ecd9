"""Sizes a person passes to a flag that counts (a parallel size: the profile's `examples.counts`).

An example gives such a flag 1, 2, 4 or 8 (the condition's own positive numbers first);
0 or a negative size only where the condition being met needs one (the error is about
that value: "must be positive"), never to get past another check.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from analyzers.deciders import node
from analyzers.eval_model import Model
from analyzers.launch import Launch
from extractor.ir import Expr, is_number

SIZES = (1, 2, 4, 8, 3)  # 3 last: with 2, a pair whose remainder is not 0 (`a % b != 0` checks)


def count_values(near: Sequence[Any]) -> list[int]:
    """Sizes to try, given the numbers near the condition's constants (`near`): positive ones
    first (its own, then `SIZES`), then 0 and negative ones (each once, in their order)."""
    ints = [int(v) for v in near if is_number(v) and float(v).is_integer()]
    return list(dict.fromkeys([*(v for v in ints if v > 0), *SIZES, *(v for v in ints if v <= 0)]))


def person_values(dest: str, values: Sequence[Any], lit: Expr, launch: Launch, model: Model) -> list[Any]:
    """`values` (candidates for flag `dest` while `lit` is met on `launch`) without 0 and
    negative sizes when `dest` counts and a positive one meets `lit` there: such a value
    would only get past another check."""
    values = list(values)
    if not model.examples.counts(dest) or not any(is_number(v) and v <= 0 for v in values):
        return values
    decide = node(model, lit).decide
    if any(is_number(v) and v > 0 and decide(launch.with_flag(dest, v)) is True for v in values):
        return positive_sizes(dest, values, model)
    return values


def positive_sizes(dest: str, values: Sequence[Any], model: Model) -> list[Any]:
    """`values` of flag `dest` (each of which does what is wanted) without 0 and negative
    sizes where `dest` counts: "set --page-size to 1", never "to one of 1, 0", and never
    "set --tp-size to 0" where only 0 does it (a size no one runs with, which divides by zero)."""
    values = list(values)
    if not model.examples.counts(dest):
        return values
    return [v for v in values if not (is_number(v) and v <= 0)]


def adds_nonpositive(base: Launch, moved: Launch, model: Model) -> bool:
    """Does `moved` give a counting flag 0 or a negative size `base` does not give it? Such
    a move gets past one check by walking into a division by that size (or a check that it
    is positive): never a way off another error, nor a solution."""
    return any(model.examples.counts(dest) and is_number(value) and value <= 0 and base.flags.get(dest) != value
               for dest, value in moved.flags.items())
