"""Related errors: up to five other entries ranked by what they share.

Score, highest first: the flags/env vars both triggers read (rarer ones weigh more:
1/number of entries reading them), then the same enclosing function, then the same
file; ties broken by id, so the ranking is deterministic.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

LIMIT = 5


def reads(entry: Mapping[str, Any]) -> frozenset[str]:
    """Flags and env vars an entry's trigger (or its variants') reads."""
    out: set[str] = set()
    for trigger in (entry["trigger"], *(v["trigger"] for v in entry.get("variants", ()))):
        out.update(trigger.get("flags", ()))
        out.update(trigger.get("env", ()))
    return frozenset(out)


def related(entries: Sequence[Mapping[str, Any]], limit: int = LIMIT) -> dict[str, tuple[str, ...]]:
    """id -> related ids. Entries are the catalog's entry dicts (``id``, ``source``, ``trigger``)."""
    read = {e["id"]: reads(e) for e in entries}
    where = {e["id"]: (e["source"]["path"], e["source"]["function"]) for e in entries}
    by_ref: dict[str, list[str]] = defaultdict(list)
    by_function: dict[tuple[str, str], list[str]] = defaultdict(list)
    for e in entries:
        for ref in read[e["id"]]:
            by_ref[ref].append(e["id"])
        by_function[where[e["id"]]].append(e["id"])
    weight = {ref: 1.0 / len(ids) for ref, ids in by_ref.items()}
    out: dict[str, tuple[str, ...]] = {}
    for e in entries:
        me = e["id"]
        others: set[str] = set(by_function[where[me]])
        for ref in read[me]:
            others.update(by_ref[ref])
        others.discard(me)
        ranked = sorted(others, key=lambda o: _rank(me, o, read, where, weight))
        out[me] = tuple(ranked[:limit])
    return out


def _rank(me: str, other: str, read: Mapping[str, frozenset[str]],
          where: Mapping[str, tuple[str, str]], weight: Mapping[str, float]) -> tuple[float, int, int, str]:
    shared = sum(weight[r] for r in sorted(read[me] & read[other]))
    return (-round(shared, 9), -(where[me] == where[other]), -(where[me][0] == where[other][0]), other)


def with_related(entries: Iterable[Any]) -> list[Any]:
    """`analyzers.entries.Entry` objects with ``related`` filled in."""
    from dataclasses import replace

    entries = list(entries)
    data = [{"id": e.id, "source": {"path": e.site.path, "function": e.site.function},
             "trigger": e.trigger, "variants": e.variants} for e in entries]
    found = related(data)
    return [replace(e, related=found[e.id]) for e in entries]
