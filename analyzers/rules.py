"""Automatic adjustments as rules (``dest = value`` when ``when`` holds): the settings each
writes and reads, and the order a launch runs them in."""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from analyzers.adjustments import adjustment_guard
from analyzers.py_functions import FUNCTIONS
from analyzers.settings import base_dest, record_of
from extractor.ir import (
    ENV_SETTING,
    STATED_OR,
    Apply,
    Compare,
    Const,
    Expr,
    In,
    Ref,
    RefKind,
    Seq,
    distinct_nodes,
    from_dict,
    walk,
)


@dataclass(frozen=True, slots=True)
class Rule:
    """An automatic adjustment: ``dest = value`` whenever ``when`` holds."""

    dest: str
    value: Expr
    when: Expr
    origin: tuple[str, str, int] | None = None  # (path, function, order) of the assignment, when known
    at: int | None = None  # when a launch runs it (`extractor.program_order`), when known

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rule:
        """From catalog.json's ``adjustments`` items."""
        at = data.get("order")
        return cls(data["dest"], from_dict(data["value"]), from_dict(data["when"]["expr"]),
                   at=int(at) if at is not None else None)

    def after(self, path: str, function: str, order: int) -> bool:
        """Is this the function's own assignment at or below a statement that saw `order`
        adjustments of its file? Then it runs after that statement, not before."""
        return self.origin is not None and self.origin[:2] == (path, function) and self.origin[2] >= order


def rules_from_adjustments(adjustments: Iterable[Any]) -> tuple[Rule, ...]:
    """Rules from `extractor.records.Adjustment` records or catalog dicts (either works)."""
    out = []
    for adj in adjustments:
        if isinstance(adj, Mapping):
            out.append(Rule.from_dict(adj))
        else:
            out.append(Rule(adj.flag, adj.value, adjustment_guard(adj), (adj.path, adj.function, adj.order)))
    return tuple(out)


_SETTINGS = (RefKind.FLAG, RefKind.ENV)  # what adjustments write


@dataclass(frozen=True, slots=True)
class RuleGraph:
    """Which rules write each setting, and which settings each rule reads."""

    writers: Mapping[str, tuple[int, ...]]  # dest -> indices of the rules that write it
    reads: tuple[tuple[str, ...], ...]  # per rule: the flags its condition and value read

    @classmethod
    def of(cls, rules: Sequence[Rule]) -> RuleGraph:
        writers: dict[str, list[int]] = {}
        for i, rule in enumerate(rules):
            writers.setdefault(rule.dest, []).append(i)
        reads = tuple(  # each shared sub-tree walked once (`distinct_nodes`): a closure reads them as a set
            tuple({n: None for r in distinct_nodes((rule.when, rule.value))
                   if isinstance(r, Ref) and r.kind in _SETTINGS
                   for n in ((base_dest(r.name), record_of(r.name)) if r.kind is RefKind.FLAG
                             else (ENV_SETTING + r.name,))})
            for rule in rules
        )
        return cls({k: tuple(v) for k, v in writers.items()}, reads)

    def subset(self, rules: Sequence[Rule], kept: Sequence[int]) -> RuleGraph:
        """The graph of `rules` (this graph's) at indices `kept`, renumbered from 0 in that order."""
        writers: dict[str, list[int]] = {}
        for new, old in enumerate(kept):
            writers.setdefault(rules[old].dest, []).append(new)
        return RuleGraph({k: tuple(v) for k, v in writers.items()}, tuple(self.reads[i] for i in kept))


def program_order(rule: Rule) -> tuple[bool, int]:
    """Rules in the order a launch runs them where known (`Rule.at`), the others after."""
    at = rule.at
    return at is None, at if at is not None else 0


@lru_cache(maxsize=1 << 16)
def rewrites_itself(rule: Rule) -> bool:
    """A rule renaming one value of its setting to a constant (``if x == "a": x = "b"``) or
    computing it from the setting with a builtin or a helper of the project's (``x = x.upper()``,
    ``x = resolve_alias(x, y)``): it normalises what the command line gave, so it applies to
    it. A rule choosing a value by other conditions (``x = "b" if quant else x`` under
    ``x == "a"``) keeps the given one (an assumption)."""
    def own(expr: Expr) -> bool:
        return isinstance(expr, Ref) and expr.kind is RefKind.FLAG and base_dest(expr.name) == rule.dest

    def value_test(node: Expr) -> bool:  # ``x == "a"``, ``x in ("a", "b")``: not ``x is None`` (a default)
        if isinstance(node, Compare):
            pair = (node.left, node.right)
            return any(own(a) and isinstance(b, Const) and b.value is not None for a, b in (pair, pair[::-1]))
        return isinstance(node, In) and own(node.item) and isinstance(node.container, (Const, Seq))

    value = rule.value
    if isinstance(value, Const):  # a rename: ``if x == "mooncake_tcp": x = "mooncake"``
        return any(value_test(n) for n in walk(rule.when))
    if isinstance(value, Apply) and value.fn == STATED_OR and len(value.args) == 2:
        value = value.args[0]  # ``x = resolve_alias(x, ...)``: a helper of the project's, summarised
        return isinstance(value, Apply) and any(own(a) for a in value.args)
    return isinstance(value, Apply) and value.fn in FUNCTIONS and any(own(a) for a in value.args)
