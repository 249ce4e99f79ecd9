"""Automatic adjustments: assignments the validation code makes to the config itself
(``self.enable_lora = True`` under ``if self.lora_paths``, or a profile setter call such as
``declare_resolution(server_args, ..., enable_lora=True)``). They imply one flag from
another, for the graph, the triggers and for evaluating a command line."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from analyzers.polarity import flag_polarity
from analyzers.trigger import Renderer
from extractor.ir import Const, Expr, RefKind, conj, conjuncts, refs, simplify
from extractor.records import Adjustment, GuardOrigin


def adjustment_guard(adj: Adjustment) -> Expr:
    """The condition under which the adjustment is made (earlier raises left out)."""
    return conj([g.expr for g in adj.guards if g.origin is not GuardOrigin.PRIOR_RAISE])


@dataclass(frozen=True, slots=True)
class Implication:
    """Setting `source` turns `target` on (under `when`), by `function`."""

    source: str  # option
    target: str  # option
    function: str
    when: str


def implications(adjustments: Sequence[Adjustment], renderer: Renderer) -> list[Implication]:
    out: list[Implication] = []
    for adj in adjustments:
        target = renderer.option(adj.flag)
        if target is None or not (isinstance(adj.value, Const) and bool(adj.value.value)):
            continue
        guard = adjustment_guard(adj)
        for conjunct in conjuncts(simplify(guard)):
            found = flag_polarity(conjunct)
            if found and found[1] and found[0].name != adj.flag:
                source = renderer.option(found[0].name)
                if source is not None:
                    out.append(Implication(source, target, adj.function, renderer.text(guard)))
    return sorted(set(out), key=lambda i: (i.target, i.source, i.function, i.when))


def adjustments_as_dicts(adjustments: Sequence[Adjustment], renderer: Renderer,
                         order: Sequence[int | None] = ()) -> tuple[dict[str, Any], ...]:
    """catalog.json's ``adjustments``; `order`: per adjustment, when a launch runs it (published
    as ``order`` where known, as entries' are)."""
    out: list[dict[str, Any]] = []
    for adj, at in zip(adjustments, [*order, *[None] * (len(adjustments) - len(order))], strict=True):
        guard = adjustment_guard(adj)
        out.append({
            **({"order": at} if at is not None else {}),
            "flag": renderer.option(adj.flag) or adj.flag,
            "dest": adj.flag,
            "value": adj.value.as_dict(),
            "function": adj.function,
            "when": {"text": renderer.text(guard), "expr": guard.as_dict()},
            "from_flags": sorted({renderer.option(r.name) or r.name for r in refs(guard) if r.kind is RefKind.FLAG}),
        })
    out.sort(key=lambda d: (d["flag"], d["function"], str(d["when"]["text"])))
    return tuple(out)
