"""The example entry of docs/entry-format.md, made from a catalog (never kept by hand).

    python scripts/readme_entry.py catalog            # print the block
    python scripts/readme_entry.py catalog --write    # put it into the page between its markers
    python scripts/readme_entry.py catalog --check    # exit 1 when the page shows another

The entry is the one raised by `check_lora_speculative_compatibility` (the docs' running
example: a table of rows, each with its own reason); the block is its JSON, abridged: the
row the example comes from and one more, the first related ids.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

PAGE = Path(__file__).resolve().parent.parent / "docs" / "entry-format.md"
BEGIN = "<!-- entry:begin (scripts/readme_entry.py writes this block) -->"
END = "<!-- entry:end -->"
FUNCTION = "check_lora_speculative_compatibility"
ROWS = 2  # table rows shown; the others are counted
RELATED = 3


def _entry(catalog: Path) -> Mapping[str, Any]:
    data = json.loads((catalog / "catalog.json").read_text(encoding="utf-8"))
    found = [e for e in data["entries"] if e["source"]["function"] == FUNCTION]
    if not found:
        raise SystemExit(f"readme_entry: no entry of {FUNCTION} in {catalog}")
    return found[0]


SOLUTION_KEYS = ("text", "before", "command", "predicted", "verified")


def _solutions(sols: Any) -> list[Any]:
    return [{k: s[k] for k in SOLUTION_KEYS if k in s} if isinstance(s, Mapping) else s for s in sols or ()]


def _fix(fix: Mapping[str, Any]) -> dict[str, Any]:
    return {k: fix[k] for k in ("before", "after", "verified", "predicted", "needs", "note") if k in fix}


def abridged(entry: Mapping[str, Any]) -> dict[str, Any]:
    """`entry` as the page shows it: what a reader needs, rows and links cut short."""
    rows = list(entry.get("variants") or ())
    shown_fix = entry.get("example_fix") or {}
    # the row the entry's example comes from first, then the others in table order
    rows.sort(key=lambda v: (v.get("example_fix") or {}).get("before") != shown_fix.get("before"))
    out_rows: list[Any] = [{"values": v["values"], "trigger": {"text": v["trigger"]["text"]},
                            "meaning": v.get("meaning", ""), "solutions": _solutions(v.get("solutions")),
                            "example_fix": _fix(v.get("example_fix") or {})} for v in rows[:ROWS]]
    if len(rows) > ROWS:
        out_rows.append(f"… {len(rows) - ROWS} more rows")
    related = list(entry.get("related") or ())
    trigger = entry["trigger"]
    return {
        "id": entry["id"], "kind": entry["kind"], "exception": entry["exception"], "template": entry["template"],
        "source": entry["source"],
        "trigger": {k: trigger[k] for k in ("text", "flags", "env", "other") if k in trigger},
        "variants": out_rows, "meaning": entry["meaning"], "solutions": _solutions(entry.get("solutions")),
        "example_fix": _fix(shown_fix),
        "related": related[:RELATED] + (["…"] if len(related) > RELATED else []),
    }


def block(catalog: Path) -> str:
    entry = _entry(catalog)
    body = json.dumps(abridged(entry), indent=2, ensure_ascii=False)
    return (f"{BEGIN}\nFrom `catalog/entries/{entry['id']}.json` (abridged):\n\n```json\n{body}\n```\n{END}")


def replaced(page: str, new: str) -> str:
    start, end = page.find(BEGIN), page.find(END)
    if start < 0 or end < start:
        raise SystemExit(f"readme_entry: {PAGE.name} has no {BEGIN!r} … {END!r} block")
    return page[:start] + new + page[end + len(END):]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("catalog", type=Path, help="a catalog directory (errcat extract --out DIR)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="write the block into docs/entry-format.md")
    mode.add_argument("--check", action="store_true", help="exit 1 when docs/entry-format.md shows another block")
    args = parser.parse_args(argv)
    if not (args.catalog / "catalog.json").is_file():
        print(f"readme_entry: {args.catalog} is not a catalog directory (no catalog.json)", file=sys.stderr)
        return 2
    new = block(args.catalog)
    if not (args.write or args.check):
        print(new)
        return 0
    readme = PAGE.read_text(encoding="utf-8")
    wanted = replaced(readme, new)
    if args.check:
        if wanted != readme:
            print(f"readme_entry: {PAGE.name}'s entry differs from the catalog's; run with --write", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
