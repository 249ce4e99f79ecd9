"""How often `explain`, given only a real error's ``Type: message`` line, ranks the right entry first.

    python scripts/explain_accuracy.py --catalog DIR

Reads the real errors of the recorded corpus (tests/data/real/sglang-0.5.23.jsonl, labelled
``entry``) and the difftest corpus (tests/data/difftest/sglang-0.5.23.jsonl.gz, labelled
``first``; ``unmatched``: no entry of the catalog), pastes each as ``Type: message`` alone
and counts the right entry first, tied first (the same score as the first), lower, or
missing. Issue 38 asks first or tied first for at least 98%.
"""
from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analyzers.explain import MessageIndex, explained
from errcat.exits import Exit

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
CORPORA = (DATA / "real" / "sglang-0.5.23.jsonl", DATA / "difftest" / "sglang-0.5.23.jsonl.gz")


def labelled_errors() -> Iterator[tuple[str, str]]:
    """(``Type: message``, the right entry id) of every real error with a catalog entry."""
    for path in CORPORA:
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt") as f:
            for record in map(json.loads, f):
                right = record.get("entry") or record.get("first")
                if record.get("outcome") == "error" and right and right != "unmatched":
                    yield f"{record.get('type')}: {record.get('message') or ''}", right


def rank(index: MessageIndex, paste: str, right: str) -> str:
    matches = [m for _, found in explained(index, paste)[:1] for m in found if m.exact]
    if not matches:
        return "missing"
    if matches[0].entry == right:
        return "first"
    top = matches[0].score
    if any(m.entry == right and m.score == top for m in matches):
        return "tied first"
    return "lower" if any(m.entry == right for m in matches) else "missing"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", required=True, help="a catalog directory written by errcat extract")
    parser.add_argument("--show", type=int, default=10, help="misses to print")
    args = parser.parse_args(argv)
    index = MessageIndex(json.loads((Path(args.catalog) / "catalog.json").read_bytes())["entries"])
    counts: Counter[str] = Counter()
    misses: Counter[tuple[str, str, str]] = Counter()
    for paste, right in labelled_errors():
        got = rank(index, paste, right)
        counts[got] += 1
        if got not in ("first", "tied first"):
            misses[(got, right, paste[:100])] += 1
    total = sum(counts.values())
    good = counts["first"] + counts["tied first"]
    print(f"real errors: {total}; " + ", ".join(f"{k} {v}" for k, v in counts.most_common()))
    print(f"right entry first or tied first: {good}/{total} = {good / max(total, 1):.1%} (target >= 98%)")
    for (got, right, paste), n in misses.most_common(args.show):
        print(f"  {n:>4} {got:<8} {right} {paste!r}")
    return Exit.OK


if __name__ == "__main__":
    sys.exit(main())
