"""Related errors: up to five other entries ranked by what they share.

Score, highest first: the flags/env vars both triggers read (rarer ones weigh more:
1/number of entries reading them), then the same enclosing function, then the same
file; ties broken by id, so the ranking is deterministic.
"""
from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from analyzers.entries import Entry

LIMIT = 5


@dataclass(frozen=True, slots=True)
class Reader:
    """What the ranking knows of an entry: where it is raised and what its conditions read."""

    id: str
    path: str
    function: str
    reads: frozenset[str]

    @classmethod
    def of(cls, entry: Entry) -> Reader:
        return cls(entry.id, entry.site.path, entry.site.function, reads(entry))


def reads(entry: Entry) -> frozenset[str]:
    """Flags and env vars an entry's trigger (or its variants') reads."""
    return frozenset(name for trigger in entry.triggers for name in (*trigger.flags, *trigger.env))


def related(entries: Sequence[Reader], limit: int = LIMIT) -> dict[str, tuple[str, ...]]:
    """id -> related ids."""
    read = {e.id: e.reads for e in entries}
    where = {e.id: (e.path, e.function) for e in entries}
    by_ref: dict[str, list[str]] = defaultdict(list)
    by_function: dict[tuple[str, str], list[str]] = defaultdict(list)
    for e in entries:
        for ref in e.reads:
            by_ref[ref].append(e.id)
        by_function[where[e.id]].append(e.id)
    weight = {ref: 1.0 / len(ids) for ref, ids in by_ref.items()}
    readers = {ref: tuple(dict.fromkeys(ids)) for ref, ids in by_ref.items()}
    file_of = {me: path for me, (path, _) in where.items()}
    by_id = {where_: sorted(set(ids)) for where_, ids in by_function.items()}
    out: dict[str, tuple[str, ...]] = {}
    for e in entries:
        me = e.id
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


def with_related(entries: Iterable[Entry]) -> list[Entry]:
    """The entries with ``related`` filled in."""
    entries = list(entries)
    found = related([Reader.of(e) for e in entries])
    return [replace(e, related=found[e.id]) for e in entries]
