"""The options a setting the code derives is derived from: what a solution changes where a
check reads a setting no option sets (``--disable-cuda-graph`` for a CUDA-graph backend the
code picks)."""
from __future__ import annotations

import re
from typing import Any

from analyzers.eval_model import Model
from analyzers.witness import Leaf, settable_leaves
from extractor.ir import Expr, RefKind, conj, refs

MAX_FEEDING = 6  # options a setting the code derives is changed through, tried in a solution


def feeding_leaves(part: Expr, model: Model) -> tuple[Leaf, ...]:
    """The options (and env vars) the adjustments deriving what `part` reads read, where
    `part` reads derived settings only (not a platform or model fact): what a user changes
    to change it (``--disable-cuda-graph`` for a CUDA-graph backend the code picks)."""
    found = refs(part)
    if not found or any(r.kind is not RefKind.FLAG for r in found):
        return ()
    read = {r.name for r in found}
    # the adjustments writing what `part` reads come first: their options change it most directly
    def direct(rule: Any) -> bool:
        return any(rule.dest == name or name.startswith(rule.dest + ".") for name in read)

    rules = sorted(model.relevant_rules(part), key=lambda r: not direct(r))
    first: dict[Leaf, bool] = {}
    for rule in rules:
        for leaf in settable_leaves(conj([rule.when, rule.value]), model):
            first.setdefault(leaf, direct(rule))
    # among those, the options named for the setting first (``--cuda-graph-backend-decode`` for
    # ``cuda_graph_config.decode.backend``), not one that turns it off on the side (``--enable-mis``)
    words = {w for name in read for w in _WORD_SPLIT.split(name)}
    ranked = sorted(first, key=lambda leaf: (not first[leaf], -len(words & set(_WORD_SPLIT.split(leaf.name)))))
    return tuple(ranked)[:MAX_FEEDING]


_WORD_SPLIT = re.compile(r"[._]")
