"""Markdown pages for GitHub: one page per entry, an index by file and one by flag.

Pure functions of the catalog data (`Catalog.as_dict()` or a loaded catalog.json),
returning {relative path: text}; every list is sorted, so reruns are byte-identical.
Every catalog string goes through `output.md_escape`: catalogs hold text from the
analysed source, which must not become headings, links or HTML on these pages.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping
from typing import Any

from analyzers.solution import solution_text
from output import md_escape as md
from output.titles import headline, label

DIR = "md"


def _title(entry: Mapping[str, Any], limit: int = 80) -> str:
    first = label(entry).splitlines()[0]
    return first if len(first) <= limit else first[: limit - 1] + "…"


def _link(entry: Mapping[str, Any], prefix: str = "") -> str:
    return md.page(md.text(_title(entry), inline=True) or " ", f"{prefix}{entry['id']}.md")


def _where(src: Mapping[str, Any]) -> str:
    """``path:line``, linked when the catalog has an http(s) URL for it."""
    return md.link(md.text(f"{src['path']}:{src['line']}", inline=True), src.get("url"))


_PREDICTED = {"true": "before fires, after does not", "false": "after still fires", "unknown": "undecided"}
_VERIFIED = {"true": "confirmed", "false": "refuted", "not-run": "not run"}


def _prediction(fix: Mapping[str, Any]) -> tuple[str, str]:
    """(what errcat's static evaluator predicts, what real runs said); schema 1 catalogs
    kept the prediction in `verified` and had no real runs."""
    if "predicted" in fix:
        return str(fix["predicted"]), str(fix.get("verified", "not-run"))
    return str(fix.get("verified", "unknown")), "not-run"


def _fix(fix: Mapping[str, Any]) -> list[str]:
    if fix and fix.get("note") and not fix.get("before"):
        return [md.prose(fix["note"])]
    if not fix or not fix.get("before"):
        return []
    lines = ["# before", str(fix["before"])]
    if fix.get("after"):
        lines += ["# after", str(fix["after"])]
    out = [md.fence("\n".join(lines), "sh")]
    if fix.get("solution"):
        out.append(f"Change: {md.prose(fix['solution'], inline=True)}")
    static = fix.get("static")
    if fix.get("found_by") and isinstance(static, Mapping):
        out += _found_by_the_program(fix, static)
        predicted, verified = str(static.get("predicted", "unknown")), "false"
    else:
        predicted, verified = _prediction(fix)
    real = f" ({md.text(fix['real'], inline=True)})" if fix.get("real") and not fix.get("found_by") else ""
    shown = md.text(_PREDICTED.get(predicted, predicted), inline=True)
    out.append(f"Predicted by errcat's static evaluator: **{shown}**"
               f" · confirmed by the real program: **{md.text(_VERIFIED.get(verified, verified), inline=True)}**{real}")
    return out + _fix_notes(fix)


def _found_by_the_program(fix: Mapping[str, Any], static: Mapping[str, Any]) -> list[str]:
    """The real program found the pair shown; the static example and its prediction stay visible."""
    said = ""
    if "predicted" in fix:  # the pipeline's word on the pair shown
        word = str(fix["predicted"])
        said = f" Predicted by errcat's static evaluator: **{md.text(_PREDICTED.get(word, word), inline=True)}**."
    lines = (["# before", str(static.get("before") or "")]
             + (["# after", str(static["after"])] if static.get("after") else []))
    return [f"Found and confirmed by the real program ({md.text(fix.get('real', ''), inline=True)}).{said}",
            "errcat's own example, refuted by the real program "
            f"({md.text(static.get('real', ''), inline=True)}):",
            md.fence("\n".join(lines), "sh")]


def _fix_notes(fix: Mapping[str, Any]) -> list[str]:
    """What a prediction assumed, what it needs, what it could not decide."""
    out = []
    assuming = fix.get("assuming")
    if assuming:
        facts = " and ".join(md.prose(f, inline=True) for f in assuming["facts"])
        under = str(assuming.get("predicted", assuming.get("verified", "unknown")))
        out.append(f"Predicted assuming {facts}: **{md.text(_PREDICTED.get(under, under), inline=True)}**")
    if fix.get("needs"):
        out.append("Needs a machine where " + ", ".join(md.code(n) for n in fix["needs"]) + ".")
    if fix.get("undecided"):
        out.append("Could not be decided: " + ", ".join(md.prose(u, inline=True) for u in fix["undecided"]) + ".")
    return out


def _variant(i: int, v: Mapping[str, Any]) -> str:
    values = sorted(v["values"].items(), key=lambda kv: str(kv[0]))
    shown = "; ".join(md.code(f"{k} = {val}", cell=True) for k, val in values)
    shown = shown or md.code(v.get("template", ""), cell=True)
    fixes = " / ".join(md.prose(solution_text(s), cell=True) for s in v.get("solutions") or [])
    return md.row([str(i), shown, md.prose(v["trigger"]["text"], cell=True), fixes])


Entry = Mapping[str, Any]
Titles = Mapping[str, Mapping[str, Any]]


def _section(title: str, body: list[str]) -> list[str]:
    """A `## title` section, separated from what precedes it by a blank line; nothing without a body."""
    return ["", f"## {title}", "", *body] if body else []


def _heading(entry: Entry, titles: Titles) -> list[str]:
    src = entry["source"]
    return [
        f"# {md.text(headline(entry['exception'], _title(entry, 120) if entry['template'] else '', src), inline=True)}",
        "",
        " · ".join([md.code(entry["id"]), md.text(entry["kind"], inline=True), _where(src), md.code(src["function"])]),
    ]


def _message(entry: Entry, titles: Titles) -> list[str]:
    crash = entry.get("crash")
    if entry.get("kind") == "crash" and isinstance(crash, Mapping):
        return _section("Error message", [
            md.fence(entry["template"], "text"), "",
            f"A crash: Python's own error computing {md.code(crash['expression'])}, with no message of the "
            f"program's own. {md.prose(crash['missing'], inline=True)}; a check would read:", "",
            md.fence(crash["missing_check"], "python")])
    if not str(entry["template"]).strip():
        return _section("Error message", ["(no message: a bare `assert`)"])
    return _section("Error message", [md.fence(entry["template"], "text")])


def _meaning(entry: Entry, titles: Titles) -> list[str]:
    return _section("What it means", [md.prose(entry.get("meaning") or "") or "(not derived)"])


def _when(entry: Entry, titles: Titles) -> list[str]:
    """The trigger, then the common situations and the variants' table when there are any."""
    out = _section("When it happens", [f"Trigger: {md.prose(entry['trigger']['text'], inline=True)}"])
    out += _reach(entry["trigger"], titles)
    situations = entry.get("situations") or []
    if situations:
        out += ["", "Common situations:", ""] + [f"- {md.prose(s)}" for s in situations]
    variants = entry.get("variants") or []
    if variants:
        out += ["", f"### Variants ({len(variants)})", "", "| # | message | condition | fix |", "|---|---|---|---|"]
        out += [_variant(i, v) for i, v in enumerate(variants, 1)]
    return out


def _reach(trigger: Mapping[str, Any], titles: Titles) -> list[str]:
    """The earlier checks that fire first unless they pass (`trigger.reach`), each linked to its page."""
    reach = trigger.get("reach") or []
    if not reach:
        return []
    out = ["", "Reached only if earlier checks pass:", ""]
    for item in reach:
        shown = titles.get(item.get("entry") or "")  # the text quotes its message: a link, not its title again
        page = f" ({md.page('its entry', shown['id'] + '.md')})" if shown else ""
        out.append(f"- {md.prose(item['text'], inline=True)}{page}")
    if trigger.get("reach_more"):
        out.append(f"- … and {int(trigger['reach_more'])} earlier checks not listed")
    return out


def _solutions(entry: Entry, titles: Titles) -> list[str]:
    return _section("Solutions", [line for i, s in enumerate(entry.get("solutions") or [], 1)
                                  for line in _solution(i, s)])


def _said(sol: Mapping[str, Any]) -> str:
    """What the pipeline and the real program said of a solution's command."""
    predicted = {"true": "predicted to get past this error", "unknown": "prediction undecided"}.get(
        str(sol.get("predicted")), "predicted to fail")
    return f"{predicted}; {_VERIFIED.get(str(sol.get('verified')), 'not run')} by the real program"


def _solution(i: int, sol: str | Mapping[str, Any]) -> list[str]:
    """One numbered solution; with a command, that command and what was said of it."""
    lines = [f"{i}. {md.prose(solution_text(sol))}"]
    if isinstance(sol, Mapping) and sol.get("command"):
        lines.append(f"   {md.code(str(sol['command']))} ({_said(sol)})")
    return lines


def _example_fix(entry: Entry, titles: Titles) -> list[str]:
    paragraphs = _fix(entry.get("example_fix") or {})
    return _section("Example fix", [line for x in paragraphs for line in ("", x)][1:])


def _notes(entry: Entry, titles: Titles) -> list[str]:
    """Curated notes from the overlay, or a warning that they were written for an older error."""
    overlay = entry.get("overlay") or {}
    if overlay.get("status") == "applied":
        return _section("Notes", [f"- {md.prose(n)}" for n in overlay.get("notes") or []])
    if overlay.get("status") == "stale":
        return _section("Notes", [("> Curated notes for this entry are stale: the error changed since they were "
                                   f"written (fingerprint {md.code(overlay['written_for'])}, "
                                   f"now {md.code(entry.get('fingerprint') or '?')}).")])
    return []


def _source(entry: Entry, titles: Titles) -> list[str]:
    return _section("Source", [f"Thrown at {_where(entry['source'])}", "",
                               md.fence(entry["excerpt"]["code"], "python")])


def _related(entry: Entry, titles: Titles) -> list[str]:
    """Links to the related entries this catalog has (ids it lacks are left out)."""
    return _section("Related errors", [f"- {_link(titles[r])}" for r in entry.get("related") or [] if r in titles])


# The entry page, section by section in page order; a section with nothing to say is left out.
_SECTIONS: tuple[Callable[[Entry, Titles], list[str]], ...] = (
    _heading, _message, _meaning, _when, _solutions, _example_fix, _notes, _source, _related,
)


def entry_page(entry: Entry, titles: Titles) -> str:
    return "\n".join(line for section in _SECTIONS for line in section(entry, titles)) + "\n"


def _header(data: Mapping[str, Any], title: str) -> list[str]:
    count = len(data["entries"])
    return [f"# {title}", "", f"{md.text(data['repo'])} @ {md.code(data['commit'])} · {count} entries", ""]


def index_by_file(data: Mapping[str, Any]) -> str:
    by_path: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for e in data["entries"]:
        by_path[e["source"]["path"]].append(e)
    out = _header(data, "Error catalog") + ["By file below; [by flag](flags.md).", ""]
    for path in sorted(by_path):
        out += [f"## {md.text(path, inline=True)}", "",
                "| line | exception | message | fix predicted | fix confirmed |", "|---|---|---|---|---|"]
        for e in sorted(by_path[path], key=lambda x: (x["source"]["line"], x["id"])):
            predicted, verified = _prediction(e.get("example_fix") or {})
            out.append(md.row([md.text(e["source"]["line"], inline=True), md.text(e["exception"], inline=True),
                               _link(e, "entries/"), md.text(predicted, inline=True), md.text(verified, inline=True)]))
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
        out += [f"## {md.code(name)}", ""]
        for e in sorted(by_flag[name], key=lambda x: (x["source"]["path"], x["source"]["line"], x["id"])):
            where = f"{e['source']['path'].rsplit('/', 1)[-1]}:{e['source']['line']}"
            out.append(f"- {_link(e, 'entries/')} ({md.text(where, inline=True)})")
        out.append("")
    return "\n".join(out)


def render_markdown(data: Mapping[str, Any]) -> dict[str, str]:
    """{path below the output dir: text}: md/README.md, md/flags.md, md/entries/<id>.md."""
    titles = {e["id"]: e for e in data["entries"]}
    files = {f"{DIR}/README.md": index_by_file(data), f"{DIR}/flags.md": index_by_flag(data)}
    for entry in data["entries"]:
        files[f"{DIR}/entries/{entry['id']}.md"] = entry_page(entry, titles)
    return files

