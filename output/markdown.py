"""Markdown pages for GitHub: one page per entry, an index by file and one by flag.

Pure functions of the catalog data (`Catalog.as_dict()` or a loaded catalog.json),
returning {relative path: text}; every list is sorted, so reruns are byte-identical.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any

DIR = "md"


def _cell(text: Any) -> str:
    """Text safe inside a table cell."""
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ").strip() or " "


def _inline(text: str) -> str:
    """A template shown inline: in backticks, with backticks it contains made safe."""
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _fence(text: str, lang: str = "") -> str:
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}{lang}\n{text.rstrip()}\n{ticks}"


def _title(entry: Mapping[str, Any], limit: int = 80) -> str:
    first = entry["template"].splitlines()[0] if entry["template"] else ""
    return first if len(first) <= limit else first[: limit - 1] + "…"


def _link(entry: Mapping[str, Any], prefix: str = "") -> str:
    return f"[{_cell(_title(entry)).replace('[', '(').replace(']', ')')}]({prefix}{entry['id']}.md)"


def _fix(fix: Mapping[str, Any]) -> list[str]:
    if fix and fix.get("note") and not fix.get("before"):
        return [fix["note"]]
    if not fix or not fix.get("before"):
        return []
    lines = ["# before", fix["before"]]
    if fix.get("after"):
        lines += ["# after", fix["after"]]
    out = [_fence("\n".join(lines), "sh")]
    if fix.get("solution"):
        out.append(f"Change: {fix['solution']}")
    out.append(f"Verified by evaluating the trigger: **{fix.get('verified', 'unknown')}**")
    assuming = fix.get("assuming")
    if assuming:
        out.append(f"Assuming {' and '.join(assuming['facts'])}: **{assuming['verified']}**")
    if fix.get("undecided"):
        out.append("Could not be decided: " + ", ".join(fix["undecided"]) + ".")
    return out


def entry_page(entry: Mapping[str, Any], titles: Mapping[str, Mapping[str, Any]]) -> str:
    src = entry["source"]
    out = [
        f"# {entry['exception']}: {_cell(_title(entry, 120))}",
        "",
        f"`{entry['id']}` · {entry['kind']} · [{src['path']}:{src['line']}]({src['url']}) · `{src['function']}`",
        "",
        "## Error message",
        "",
        _fence(entry["template"], "text"),
        "",
        "## What it means",
        "",
        entry.get("meaning") or "(not derived)",
        "",
        "## When it happens",
        "",
        f"Trigger: {entry['trigger']['text']}",
    ]
    situations = entry.get("situations") or []
    if situations:
        out += ["", "Common situations:", ""] + [f"- {s}" for s in situations]
    variants = entry.get("variants") or []
    if variants:
        out += ["", f"### Variants ({len(variants)})", "", "| # | message | condition | fix |", "|---|---|---|---|"]
        for i, v in enumerate(variants, 1):
            shown = "; ".join(f"{k} = {val}" for k, val in sorted(v["values"].items())) or v.get("template", "")
            fixes = " / ".join(v.get("solutions") or []) or " "
            out.append(f"| {i} | {_cell(shown)} | {_cell(v['trigger']['text'])} | {_cell(fixes)} |")
    if entry.get("solutions"):
        out += ["", "## Solutions", ""] + [f"{i}. {s}" for i, s in enumerate(entry["solutions"], 1)]
    fix = _fix(entry.get("example_fix") or {})
    if fix:
        out += ["", "## Example fix", ""] + sum(([x, ""] for x in fix), [])[:-1]
    overlay = entry.get("overlay")
    if overlay and overlay.get("status") == "applied" and overlay.get("notes"):
        out += ["", "## Notes", ""] + [f"- {n}" for n in overlay["notes"]]
    elif overlay and overlay.get("status") == "stale":
        out += ["", "## Notes", "", "> Curated notes for this entry are stale: the error changed since they were "
                                    f"written (fingerprint {overlay['written_for']}, now {entry.get('fingerprint')})."]
    out += ["", "## Source", "", f"Thrown at [{src['path']}:{src['line']}]({src['url']})", "",
            _fence(entry["excerpt"]["code"], "python")]
    related = [titles[r] for r in entry.get("related") or [] if r in titles]
    if related:
        out += ["", "## Related errors", ""] + [f"- {_link(r)}" for r in related]
    return "\n".join(out) + "\n"


def _header(data: Mapping[str, Any], title: str) -> list[str]:
    return [f"# {title}", "", f"{data['repo']} @ `{data['commit']}` · {len(data['entries'])} entries", ""]


def index_by_file(data: Mapping[str, Any]) -> str:
    by_path: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for e in data["entries"]:
        by_path[e["source"]["path"]].append(e)
    out = _header(data, "Error catalog") + ["By file below; [by flag](flags.md).", ""]
    for path in sorted(by_path):
        out += [f"## {path}", "", "| line | exception | message | verified fix |", "|---|---|---|---|"]
        for e in sorted(by_path[path], key=lambda x: (x["source"]["line"], x["id"])):
            verified = (e.get("example_fix") or {}).get("verified", "unknown")
            out.append(f"| {e['source']['line']} | {e['exception']} | {_link(e, 'entries/')} | {verified} |")
        out.append("")
    return "\n".join(out)


def index_by_flag(data: Mapping[str, Any]) -> str:
    by_flag: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for e in data["entries"]:
        names: set[str] = set()
        for trigger in (e["trigger"], *(v["trigger"] for v in e.get("variants") or [])):
            names.update(trigger.get("flags", ()))
            names.update(trigger.get("env", ()))
        for name in names:
            by_flag[name].append(e)
    out = _header(data, "Errors by flag and environment variable") + ["[By file](README.md).", ""]
    for name in sorted(by_flag):
        out += [f"## `{name}`", ""]
        for e in sorted(by_flag[name], key=lambda x: (x["source"]["path"], x["source"]["line"], x["id"])):
            out.append(f"- {_link(e, 'entries/')} ({e['source']['path'].rsplit('/', 1)[-1]}:{e['source']['line']})")
        out.append("")
    return "\n".join(out)


def render_markdown(data: Mapping[str, Any]) -> dict[str, str]:
    """{path below the output dir: text}: md/README.md, md/flags.md, md/entries/<id>.md."""
    titles = {e["id"]: e for e in data["entries"]}
    files = {f"{DIR}/README.md": index_by_file(data), f"{DIR}/flags.md": index_by_flag(data)}
    for entry in data["entries"]:
        files[f"{DIR}/entries/{entry['id']}.md"] = entry_page(entry, titles)
    return files

