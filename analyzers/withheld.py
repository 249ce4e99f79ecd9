"""Why an example's pair is withheld, and what catalog.json's stats count of the examples.

A pair the whole-pipeline prediction refutes is not shown (`analyzers.example_check`);
`example_fix.withheld.reason` says why in one key, and the stats count them per key.
Imports nothing heavy: the catalog model (`errcat.model`) counts with it.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

EARLIER_CHECK = "earlier_check"  # `before` stops first at another error
NOT_REACHED = "not_reached"  # `before` meets no error: an adjustment or check changes what it reads
AFTER_FAILS = "after_fails"  # the fix meets another error
NO_FIX = "no_fix"  # no change stops it, and `before` is not known to raise it
# what an example of a check run after validation needs: the validation `errcat confirm` runs
# never meets it, so no outcome of such a run says anything of it
SERVER_START = "launch:server start=true"


def example_stats(fixes: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """What catalog.json's stats say of the entries' examples (`fixes`): how many show a
    command (``examples``), how many of those need a machine fact this one may lack
    (``examples_with_needs``), how many keep their pair withheld, per reason
    (``withheld_<reason>``), and how many have no command at all (``no_example``)."""
    out = {"examples": 0, "examples_with_needs": 0, "no_example": 0}
    for fix in fixes:
        held = fix.get("withheld")
        if fix.get("before"):
            out["examples"] += 1
            out["examples_with_needs"] += bool(fix.get("needs"))
        elif not isinstance(held, Mapping):
            out["no_example"] += 1
        if isinstance(held, Mapping):
            key = f"withheld_{held.get('reason') or 'unknown'}"
            out[key] = out.get(key, 0) + 1
    return out
