"""Related errors: up to five other entries ranked by what they share.

Score, highest first: the flags/env vars both triggers read (rarer ones weigh more:
1/number of entries reading them), then the same enclosing function, then the same
file; ties broken by id, so the ranking is deterministic.
"""
from __future__ import annotations

import heapq
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
    readers = {ref: tuple(dict.fromkeys(ids)) for ref, ids in by_ref.items()}
    file_of = {me: path for me, (path, _) in where.items()}
    by_id = {where_: sorted(set(ids)) for where_, ids in by_function.items()}
    out: dict[str, tuple[str, ...]] = {}
    for e in entries:
        me = e["id"]
        # shared weight per other entry, added in sorted ref order (the order `_rank` sums in)
        shared: dict[str, float] = {}
        for ref in sorted(read[me]):
            w = weight[ref]
            for other in readers[ref]:
                shared[other] = shared.get(other, 0) + w
        shared.pop(me, None)
        here, path = where[me], where[me][0]
        # the keys `_rank` gives, ending with the (unique) id: sorting them orders the ids alike
        ranked = [key[-1] for key in heapq.nsmallest(limit, [
            (-round(s, 9), -(where[o] == here), -(file_of[o] == path), o) for o, s in shared.items()])]
        # then the same function's entries that share nothing, by id: only as many as are
        # missing (a function of N checks would otherwise rank N candidates N times)
        for other in by_id[here]:
            if len(ranked) >= limit:
                break
            if other != me and other not in shared:
                ranked.append(other)
        out[me] = tuple(ranked)
    return out


def _rank(me: str, other: str, read: Mapping[str, frozenset[str]],
          where: Mapping[str, tuple[str, str]], weight: Mapping[str, float]) -> tuple[float, int, int, str]:
    """The sort key of `other` among `me`'s related entries (smaller first)."""
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
