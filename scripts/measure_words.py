"""What a person reads in a catalog, counted: meanings that are only a category, solutions
per entry, solutions with a command and predicted to pass, internal markers shown.

    python scripts/measure_words.py CATALOG_DIR [CATALOG_DIR ...]

Reads `entries/*.json` of each catalog `errcat extract` wrote and prints one line per
catalog. Nothing is run: the figures are the static side's.
"""
from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analyzers.meaning import category_only
from analyzers.readable import internal_markers
from analyzers.solution import solution_text


def _solutions(entry: dict[str, Any]) -> Iterator[Any]:
    for part in [entry, *(entry.get("variants") or [])]:
        yield from part.get("solutions") or []


def _shown(entry: dict[str, Any]) -> Iterator[str]:
    for part in [entry, *(entry.get("variants") or [])]:
        trigger = part.get("trigger") or {}
        yield trigger.get("text", "")
        yield from trigger.get("other", [])
        yield from (solution_text(s) for s in part.get("solutions") or [])


def measure(root: Path) -> str:
    entries = [json.loads(p.read_text()) for p in sorted((root / "entries").glob("*.json"))]
    sols = [s for e in entries for s in _solutions(e)]
    records = [s for s in sols if isinstance(s, dict)]
    commands = [s for s in records if s.get("command")]
    bare = sum(category_only(e.get("meaning", "")) for e in entries)
    leaks = sum(len(internal_markers(t)) for e in entries for t in _shown(e))
    return (f"{root}: {len(entries)} entries; category-only meanings {bare}; solutions {len(sols)} "
            f"({len(sols) / max(len(entries), 1):.2f} per entry); with a command {len(commands)}, "
            f"predicted to pass {sum(s.get('predicted') == 'true' for s in commands)}, "
            f"predicted to fail {sum(s.get('predicted') == 'false' for s in records)}; "
            f"confirmed {sum(s.get('verified') == 'true' for s in commands)}, "
            f"refused {sum(s.get('verified') == 'false' for s in commands)}; internal markers shown {leaks}")


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: measure_words.py CATALOG_DIR [...]", file=sys.stderr)
        return 2
    for arg in argv:
        root = Path(arg)
        if not (root / "entries").is_dir():
            print(f"measure_words: {root} is not a catalog directory (no entries/)", file=sys.stderr)
            return 2
        print(measure(root))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
