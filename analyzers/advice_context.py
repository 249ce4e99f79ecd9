"""What advice reads besides the entry (`Context`), and the parts of a condition it
advises on: shared by the solutions (`analyzers.advice`) and the example search
(`analyzers.example_search`)."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from analyzers.eval_model import Model
from analyzers.rivals import Rivals
from analyzers.trigger import Renderer
from analyzers.witness import Leaf
from extractor.ir import TRUE, Expr, RefKind, conjuncts
from extractor.ir_reduce import factored


@dataclass(frozen=True, slots=True)
class Context:
    """Everything advice reads besides the entry."""

    model: Model
    renderer: Renderer
    launch_prefix: str = ""
    docstrings: Mapping[tuple[str, str], str] = field(default_factory=dict)  # (path, qualname) -> first line
    # models without some adjustments, by the indices left out (see `_at_site`)
    models: dict[frozenset[int], Model] = field(default_factory=dict, compare=False)
    rivals: Rivals = field(default_factory=Rivals)  # every entry's condition: what examples must not raise
    # entry id -> when each earlier check of its `Trigger.reach` fires (the checks that fire first)
    reach: Mapping[str, tuple[Expr, ...]] = field(default_factory=dict)
    program: str = "the program"  # what the meanings call the program that refuses (the profile's name)
    rule_at: Mapping[int, int] = field(default_factory=dict)  # id of a rule -> when a launch runs it, where known
    platform_settings: frozenset[str] = frozenset()  # settings choosing the device (the profile's)
    # plain functions of no parameters by name (`extractor.returns.kept`: platform facts derived
    # from others): the example search reads their calls as the facts they derive from
    derived_facts: Mapping[str, tuple[tuple[str, ...], Expr]] = field(default_factory=dict)


def parts_of(expr: Expr) -> list[Expr]:
    """The operands of `expr` that must all hold; none for "always". Shared operands said once
    first: a list of reasons repeats the path to each append in every row (``a and (a and x
    or a and y)``), and the change a person makes is to `x or y`, not to the path."""
    expr = factored(expr)
    return [] if expr == TRUE else list(conjuncts(expr))


def option_name(leaf: Leaf, ctx: Context) -> str:
    """How a person writes the setting `leaf` names: ```--tp-size```, ```SGLANG_X```."""
    if leaf.kind is RefKind.ENV:
        return f"`{leaf.name}`"
    return f"`{ctx.renderer.option(leaf.name) or leaf.name}`"
