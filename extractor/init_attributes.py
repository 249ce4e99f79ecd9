"""What a class's ``__init__`` sets its attributes to, for the methods reading them.

``ModelConfig(quantize_and_serve=cfg.quantize_and_serve)`` runs ``__init__``, whose
``self.quantize_and_serve = quantize_and_serve`` a later method reads as
``self.quantize_and_serve``: that read is the option, wherever every construction passes
it alike (`extractor.callers.CallGraph.bindings`). Only an assignment that always runs (at
the top of ``__init__``'s body, under no ``if``) and that nothing else changes counts: the
class's methods set the attribute nowhere else (`initialised`) and the program's source
writes ``.attr`` nowhere else (`written_once_as_attribute`: on any object, as a type is not
known). Otherwise the read stays unknown.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Mapping, Sequence

import libcst as cst

from extractor.ir import Expr


def top_statements(node: cst.FunctionDef) -> frozenset[int]:
    """The ids of the small statements directly in `node`'s body (not in an ``if``, loop, ``try``)."""
    body = node.body.body if isinstance(node.body, cst.IndentedBlock) else (node.body,)
    return frozenset(id(small) for line in body if isinstance(line, cst.SimpleStatementLine) for small in line.body)


def initialised(found: Sequence[tuple[str, Expr]], rewritten: Collection[str]) -> tuple[tuple[str, Expr], ...]:
    """Of `found` (``Cls.attr`` -> value, per assignment at the top of ``__init__``), the
    attributes assigned once there and nowhere else in the class's methods (`rewritten`)."""
    counts = Counter(name for name, _ in found)
    return tuple((name, value) for name, value in found if counts[name] == 1 and name not in rewritten)


def written_once_as_attribute(names: Collection[str], texts: Mapping[str, str]) -> set[str]:
    """Of `names` (attribute names), those `texts` (the program's source) assign as
    ``<anything>.name =`` (or augment, or ``setattr(..., "name", ...)``) exactly once."""
    if not names:
        return set()
    alternatives = "|".join(map(re.escape, sorted(names)))
    pattern = re.compile(rf"\.({alternatives})\s*(?:[-+*/%&|^@]|//|\*\*|<<|>>)?=(?!=)"
                         rf"|setattr\([^,]+,\s*[\"']({alternatives})[\"']")
    counts: Counter[str] = Counter()
    for text in texts.values():
        counts.update(a or b for a, b in pattern.findall(text))
    return {n for n in names if counts[n] == 1}
