"""`errcat explain`'s report as text: per error found, the entry it is and what to do."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from analyzers.solution import solution_text
from output.titles import headline

MAX_SOLUTIONS = 4


def explain_report(found: Sequence[tuple[Any, Sequence[Any]]], entries: Mapping[str, Mapping[str, Any]],
                   release: str | None, versions: Mapping[str, Sequence[str]] | None = None) -> dict[str, Any]:
    """`analyzers.explain.explained`'s result with the catalog's words, as JSON-able data;
    `versions`: per entry id, the releases whose catalogs have a template the message renders."""
    errors = []
    for error, matches in found:
        out: dict[str, Any] = {"exception": error.exception, "message": error.message,
                               "frame": {"path": error.path, "line": error.line} if error.path else None}
        exact = [m for m in matches if m.exact]
        shown = exact or list(matches)
        out["matched"] = bool(exact)
        # as likely as the first: the text does not tell them apart (a bare assert, a shared message)
        out["tied"] = sum(1 for m in shown[1:] if m.score == shown[0].score) if exact else 0
        out["matches"] = [_match(m, entries.get(m.entry) or {}, versions) for m in shown]
        errors.append(out)
    return {"release": release, "errors": errors}


def _match(match: Any, entry: Mapping[str, Any], versions: Mapping[str, Sequence[str]] | None) -> dict[str, Any]:
    row = (entry.get("variants") or [])[match.row] if match.row is not None else None
    own = row or entry  # a table row's own words where it has them, the entry's otherwise
    source = entry.get("source") or {}
    out = {"entry": match.entry, "exact": match.exact, "why": match.why, "exception": entry.get("exception"),
           "template": own.get("template", entry.get("template")),
           "row": {"index": match.row, "values": row.get("values")} if row is not None else None,
           "holes": dict(match.holes), "source": {k: source.get(k) for k in ("path", "line", "function", "url")},
           "trigger": (own.get("trigger") or {}).get("text"),
           "meaning": _own(row, entry, "meaning"),
           "solutions": [solution_text(s) for s in _own(row, entry, "solutions") or ()],
           "example": _example(_own(row, entry, "example_fix") or {})}
    if versions is not None:
        out["versions"] = list(versions.get(match.entry, ()))
    return out


def _own(row: Mapping[str, Any] | None, entry: Mapping[str, Any], key: str) -> Any:
    """The row's `key` where it says one (why it refuses, what gets past it), else the entry's."""
    return (row or {}).get(key) or entry.get(key)


def _example(fix: Mapping[str, Any]) -> dict[str, Any] | None:
    return {k: fix.get(k) for k in ("before", "after", "verified", "predicted")} if fix.get("before") else None


def render_explanation(report: Mapping[str, Any]) -> str:
    lines: list[str] = []
    if not report["errors"]:
        return "errcat: no error message found in the text\n"
    for number, error in enumerate(report["errors"], 1):
        head = f"{error['exception']}: " if error.get("exception") else ""
        first_line = (error["message"].splitlines() or [""])[0]
        lines.append(f"{'Error' if len(report['errors']) == 1 else f'Error {number}'}: {head}{first_line}")
        matches = error["matches"]
        if not error["matched"]:
            lines.append(f"  No entry of {report.get('release') or 'this catalog'} renders this message."
                         + (" Closest:" if matches else ""))
            lines += [f"  - {m['entry']} {headline(m['exception'], m['template'], m['source'])}  ({m['why']})"
                      for m in matches]
            lines.append("")
            continue
        best, others = matches[0], matches[1:]
        lines += _entry(best)
        tied = error.get("tied", 0)
        if tied:
            lines.append(f"  Tied first with {tied} other(s): the text alone does not say which (a traceback's "
                         "innermost frame would):")
            lines += [_also(m) for m in others[:tied]]
        if others[tied:]:
            lines.append(f"  Also renders this message ({len(others) - tied}), ranked lower:")
            lines += [_also(m) for m in others[tied:]]
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def _also(m: Mapping[str, Any]) -> str:
    return f"  - {m['entry']} at {m['source']['path']}:{m['source']['line']}: {m['why']}"


def _entry(m: Mapping[str, Any]) -> list[str]:
    src = m["source"]
    lines = [f"  entry {m['entry']} ({m['exception']}) at {src['path']}:{src['line']} in {src.get('function')}"]
    if src.get("url"):
        lines.append(f"  {src['url']}")
    lines.append(f"  why this one: {m['why']}")
    if m.get("row"):
        values = ", ".join(f"{k}={v}" for k, v in (m["row"].get("values") or {}).items())
        lines.append(f"  table row {m['row']['index']}" + (f": {values}" if values else ""))
    holes = {k: v for k, v in m["holes"].items() if v}
    if holes:
        lines.append("  values in the message: " + "; ".join(f"{k} = {v}" for k, v in holes.items()))
    if m.get("trigger"):
        lines.append(f"  fires when: {m['trigger']}")
    if m.get("meaning"):
        lines.append(f"  meaning: {m['meaning']}")
    solutions = m.get("solutions") or []
    if solutions:
        lines.append("  what to do:")
        lines += [f"    - {s}" for s in solutions[:MAX_SOLUTIONS]]
    example = m.get("example")
    if example:
        lines += [f"  example: {example['before']}",
                  f"     fix: {example['after'] or 'none found that raises no other error'}",
                  f"     (predicted {example.get('predicted')}; "
                  f"confirmed by the real program: {example.get('verified')})"]
    if m.get("versions") is not None:
        lines.append("  in releases: " + (", ".join(m["versions"]) or "none of those asked"))
    return lines
