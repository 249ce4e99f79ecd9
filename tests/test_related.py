"""Related entries: ranked by shared flags (rarer weigh more), same function, same file; ties by id."""
from __future__ import annotations

import pytest

from analyzers.entries import Entry, EntryVariant, Trigger
from analyzers.related import Reader, reads, related
from extractor.ir import TRUE
from extractor.records import RaiseSite, SiteKind
from extractor.templates import parse_template


def _trigger(flags=(), env=()) -> Trigger:
    return Trigger(TRUE, "t", tuple(flags), (), tuple(env), ())


def full_entry(eid: str, flags=(), env=(), path="a.py", function="f", variants=()) -> Entry:
    site = RaiseSite(path, 1, function, SiteKind.RAISE, "ValueError", parse_template("m"), ())
    rows = tuple(EntryVariant((), "m", _trigger(v)) for v in variants)
    return Entry(eid, site, "u", 1, "", _trigger(flags, env), rows)


def entry(eid: str, flags=(), env=(), path="a.py", function="f", variants=()) -> Reader:
    return Reader.of(full_entry(eid, flags, env, path, function, variants))


def test_reads_the_trigger_and_the_rows_flags_and_env_vars():
    assert reads(full_entry("a", ["--x"], ["E"], variants=[["--y"], ["--x"]])) == {"--x", "--y", "E"}


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

    from analyzers.related import _rank

    rng = random.Random(3)
    flags = [f"--f{i}" for i in range(12)]
    entries = [entry(f"{i:04x}", rng.sample(flags, rng.randrange(0, 4)),
                     env=rng.sample(["E1", "E2"], rng.randrange(0, 2)),
                     path=rng.choice(["a.py", "b.py"]), function=rng.choice(["f", "g", "h"]))
               for i in range(80)]
    read = {e.id: e.reads for e in entries}
    where = {e.id: (e.path, e.function) for e in entries}
    counts: dict[str, int] = {}
    for ids in read.values():
        for ref in ids:
            counts[ref] = counts.get(ref, 0) + 1
    weight = {ref: 1.0 / n for ref, n in counts.items()}
    found = related(entries)
    for e in entries:
        me = e.id
        others = [o for o in read if o != me and (read[o] & read[me] or where[o] == where[me])]
        want = sorted(others, key=lambda o: _rank(me, o, read, where, weight))[:5]
        assert found[me] == tuple(want)
