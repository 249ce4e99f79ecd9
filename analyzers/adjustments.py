"""Automatic adjustments: assignments the validation code makes to the config itself
(``self.enable_lora = True`` under ``if self.lora_paths``, or a profile setter call such as
``declare_resolution(server_args, ..., enable_lora=True)``). They imply one flag from
another, for the graph and for evaluating a command line."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from analyzers.trigger import Renderer
from extractor.ir import conj, refs, RefKind
from extractor.records import Adjustment, GuardOrigin


def adjustment_guard(adj: Adjustment):
    """The condition under which the adjustment is made (earlier raises left out)."""
    return conj([g.expr for g in adj.guards if g.origin is not GuardOrigin.PRIOR_RAISE])


def adjustments_as_dicts(adjustments: Sequence[Adjustment], renderer: Renderer) -> tuple[dict[str, Any], ...]:
    out = []
    for adj in adjustments:
        guard = adjustment_guard(adj)
        out.append({
            "flag": renderer.option(adj.flag) or adj.flag,
            "dest": adj.flag,
            "value": adj.value.as_dict(),
            "function": adj.function,
            "when": {"text": renderer.text(guard), "expr": guard.as_dict()},
            "from_flags": sorted({renderer.option(r.name) or r.name for r in refs(guard) if r.kind is RefKind.FLAG}),
        })
    out.sort(key=lambda d: (d["flag"], d["function"], str(d["when"]["text"])))
    return tuple(out)
