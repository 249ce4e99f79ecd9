"""Related entries: ranked by shared flags (rarer weigh more), same function, same file; ties by id."""
from __future__ import annotations

import pytest

from analyzers.related import related


def entry(eid: str, flags=(), env=(), path="a.py", function="f", variants=()):
    return {"id": eid, "source": {"path": path, "function": function},
            "trigger": {"flags": list(flags), "env": list(env)},
            "variants": [{"trigger": {"flags": list(v), "env": []}} for v in variants]}


@pytest.mark.parametrize(
    ("entries", "expected"),
    [
        # a rarely read flag beats a common one
        ([entry("a", ["--x", "--common"], function="1"), entry("b", ["--x"], function="2"),
          entry("c", ["--common"], function="3"), entry("d", ["--common"], function="4")],
         ("b", "c", "d")),
        # same function breaks a tie in shared flags, then the same file, then the id
        ([entry("a", ["--x"], path="p", function="f"), entry("b", ["--x"], path="q", function="g"),
          entry("c", ["--x"], path="p", function="g"), entry("d", ["--x"], path="p", function="f")],
         ("d", "c", "b")),
        # env vars and variant triggers count; unrelated entries are left out
        ([entry("a", env=["E"], function="1"), entry("b", variants=[["--y"]], function="2"),
          entry("c", env=["E"], function="3"), entry("d", ["--y"], variants=[["--y"]], function="4")],
         ("c",)),
    ],
)
def test_ranking(entries, expected):
    assert related(entries)["a"] == expected


def test_at_most_five():
    entries = [entry(f"{i:x}", ["--x"]) for i in range(10)]
    assert related(entries)["0"] == ("1", "2", "3", "4", "5")


def test_ranking_matches_the_pairwise_score():
    import random

    from analyzers.related import _rank, reads

    rng = random.Random(3)
    flags = [f"--f{i}" for i in range(12)]
    entries = [entry(f"{i:04x}", rng.sample(flags, rng.randrange(0, 4)),
                     env=rng.sample(["E1", "E2"], rng.randrange(0, 2)),
                     path=rng.choice(["a.py", "b.py"]), function=rng.choice(["f", "g", "h"]))
               for i in range(80)]
    read = {e["id"]: reads(e) for e in entries}
    where = {e["id"]: (e["source"]["path"], e["source"]["function"]) for e in entries}
    counts: dict[str, int] = {}
    for ids in read.values():
        for ref in ids:
            counts[ref] = counts.get(ref, 0) + 1
    weight = {ref: 1.0 / n for ref, n in counts.items()}
    found = related(entries)
    for e in entries:
        me = e["id"]
        others = [o for o in read if o != me and (read[o] & read[me] or where[o] == where[me])]
        want = sorted(others, key=lambda o: _rank(me, o, read, where, weight))[:5]
        assert found[me] == tuple(want)
