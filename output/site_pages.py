"""The website's HTML pages, one pure function each: entry, flag, flag list, versions, search.

Each returns a `Page` (path, title, body); `output.site_html.render_page` frames it.
Catalog text goes through `esc` only; links are relative (`site_html.link`).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import groupby
from typing import Any

import networkx as nx

from analyzers.diff import Added, Change, Removed
from analyzers.graph import FLAG_ROLES
from analyzers.judge import statement_end
from analyzers.solution import solution_text
from output.diff_formats import describe
from output.graph_text import edge_detail, errors_of, relation_verb
from output.site_html import Page, entry_path, esc, flag_path, items, link, rel, safe_name, table
from output.site_model import SiteData
from output.site_search import entry_flags
from output.site_svg import neighbourhood_picture, picture_svg
from output.titles import label

SEARCH_SCRIPT = "assets/search.js"


def index_script(label: str) -> str:
    return f"assets/index-{safe_name(label)}.js"


def api_entry_path(entry_id: str, release: str | None = None) -> str:
    where = f"api/{safe_name(release)}/errors" if release else "api/errors"
    return f"{where}/{safe_name(entry_id)}.json"


def _code(text: object) -> str:
    return f"<code>{esc(text)}</code>"


def _pre(text: object, cls: str = "") -> str:
    klass = f' class="{cls}"' if cls else ""
    return f"<pre{klass}><code>{esc(text)}</code></pre>"


def _ticks(text: object) -> str:
    """Catalog prose with `code` spans (as the analyzers write them) shown as code."""
    parts = str(text or "").split("`")
    return "".join(_code(p) if i % 2 else esc(p) for i, p in enumerate(parts)) if len(parts) % 2 else esc(text)


def _command(sol: object) -> str:
    """A solution's command, where it has one, under its words."""
    if not isinstance(sol, Mapping) or not sol.get("command"):
        return ""
    real = {"true": "confirmed by the real program", "false": "refuted by the real program"}.get(
        str(sol.get("verified")), "not run by the real program yet")
    return f"<br>{_code(str(sol['command']))} <small>({esc(real)})</small>"


def _flag_links(page: str, flags: Sequence[str], site: SiteData) -> str:
    return ", ".join(link(page, flag_path(f), f) if f in site.flag_release else _code(f) for f in flags)


# ------------------------------------------------------------------ entry


def real_status(fix: Mapping[str, Any], release: str) -> tuple[str, str]:
    """(css class, words) for what the real program said of an example (`errcat confirm`)."""
    verified, real = str(fix.get("verified") or ""), fix.get("real")
    if verified == "true":
        return "ok", f"confirmed by the real program ({real or 'confirmed'})"
    if verified == "false":
        return "bad", f"refuted by the real program ({real or 'refuted'})"
    if real:
        return "", f"not run ({real})"
    return "", f"not run: errcat confirm has not run on {release}"


def excerpt_html(entry: Mapping[str, Any]) -> str:
    """The source excerpt with line numbers, the raising statement's lines highlighted."""
    excerpt = entry.get("excerpt") or {}
    code = str(excerpt.get("code") or "")
    if not code:
        return ""
    start = int(excerpt.get("start_line") or 1)
    line = int((entry.get("source") or {}).get("line") or 0)
    end = statement_end(code, start, line) if line else 0
    rows = []
    for n, text in enumerate(code.rstrip("\n").split("\n"), start):
        hit = ' class="hit"' if line <= n <= end else ""
        rows.append(f'<span data-n="{n}"{hit}>{esc(text)}</span>')
    return '<pre class="excerpt" aria-label="source excerpt"><code>' + "".join(rows) + "</code></pre>"


def _example(fix: Mapping[str, Any], release: str) -> str:
    if not fix.get("before"):  # no command to show: why, where the catalog says
        return f'<p class="meta">{esc(fix["note"])}</p>' if fix.get("note") else ""
    cls, status = real_status(fix, release)
    predicted = fix.get("predicted")
    facts = [f'<dt>Real program</dt><dd class="{cls}">{esc(status)}</dd>']
    if predicted:
        facts.append(f"<dt>Static prediction</dt><dd>{esc(predicted)}</dd>")
    if fix.get("found_by"):
        facts.append(f"<dt>Found by</dt><dd>{esc(fix['found_by'])}</dd>")
    return (f"<p>Before (fails):</p>{_pre(fix['before'], 'wrap')}<p>After (fixed):</p>"
            f"{_pre(fix.get('after', ''), 'wrap')}"
            f'<dl class="facts">{"".join(facts)}</dl>')


def _rows(page: str, entry: Mapping[str, Any], site: SiteData, release: str) -> str:
    variants = entry.get("variants") or ()
    if not variants:
        return ""
    out = []
    for i, row in enumerate(variants):
        values = "<br>".join(f"{_code(k)} = {esc(v)}" for k, v in (row.get("values") or {}).items())
        trigger = row.get("trigger") or {}
        cond = _ticks(trigger.get("text"))
        if trigger.get("flags") or trigger.get("env"):
            cond += '<br><span class="meta">reads ' + _flag_links(page, trigger.get("flags") or (), site) + \
                    (", " if trigger.get("flags") and trigger.get("env") else "") + \
                    ", ".join(_code(e) for e in trigger.get("env") or ()) + "</span>"
        fixes = items(_ticks(solution_text(s)) for s in row.get("solutions") or ())
        example = row.get("example_fix") or {}
        if example.get("before"):
            fixes += "<details><summary>Example</summary>" + _example(example, release) + "</details>"
        # a row's message says its values already; a row without one shows them instead
        out.append([str(i), esc(row["template"]) if row.get("template") else values, cond, fixes])
    return (f'<h2 id="rows">Table rows ({len(variants)})</h2>\n<p>The message comes from a table of conditions; '
            "each row has its own condition and fix.</p>\n"
            + table(["#", "Message", "Condition", "Fix"], out))


def _versions(page: str, entry_id: str, site: SiteData) -> str:
    here = set(site.present.get(entry_id, ()))
    rows = [[esc(r.label), '<span class="ok">yes</span>' if r.label in here else "no",
             link(page, api_entry_path(entry_id, r.label), "JSON") if r.label in here else ""]
            for r in reversed(site.releases)]
    lineage = site.lineage_of.get(entry_id)
    facts = []
    if lineage is not None:
        facts.append(f"<dt>First seen</dt><dd>{esc(lineage.first_seen)}</dd>")
        if lineage.last_changed:
            facts.append(f"<dt>Last changed</dt><dd>{esc(lineage.last_changed)} "
                         f"({esc(', '.join(lineage.last_change_kinds))})</dd>")
        for move in lineage.moves:
            facts.append(f"<dt>Moved in {esc(move.rev)}</dt><dd>{_code(move.from_path)} ({esc(move.from_function)})"
                         f" → {_code(move.to_path)} ({esc(move.to_function)})</dd>")
        facts.append(f"<dt>Removed</dt><dd>{esc(lineage.removed or 'no')}</dd>")
        others = [i for i in lineage.ids if i != entry_id]
        if others:
            facts.append("<dt>Same error, other ids</dt><dd>"
                         + ", ".join(link(page, entry_path(i), i) for i in others) + "</dd>")
    return ('<h2 id="versions">Versions</h2>\n' + (f'<dl class="facts">{"".join(facts)}</dl>\n' if facts else "")
            + table(["Release", "Has this error", "Data"], rows))


def entry_page(entry_id: str, site: SiteData) -> Page:
    """One error: everything the catalog knows of it, as of the newest release that has it."""
    release, entry = site.latest[entry_id]
    page = entry_path(entry_id)
    newest = site.newest.label
    state = (f"in {', '.join(site.present[entry_id])}" if release.label == newest
             else f"not in {newest}: last seen in {release.label}")
    parts = [f'<p class="meta">{esc(entry.get("kind"))} · <span class="badge">{esc(entry.get("exception"))}</span>'
             f" · {esc(state)}</p>",
             f'<h1 class="message">{esc(label(entry))}</h1>',
             _crash_section(entry),
             _section("meaning", "What it means", f"<p>{_ticks(entry['meaning'])}</p>" if entry.get("meaning") else ""),
             _source_section(entry, str(release.catalog.get("commit") or release.label)),
             '<h2 id="trigger">When it happens</h2>\n' + "\n".join(_when(page, entry, site)),
             _rows(page, entry, site, release.label),
             _solutions_section(entry),
             _section("example", "Example fix", _example(entry.get("example_fix") or {}, release.label)),
             _section("situations", "Common situations",
                      items(_ticks(s) for s in entry.get("situations") or ()) if entry.get("situations") else ""),
             _related_section(page, entry, site),
             _versions(page, entry_id, site),
             f'<p>Data as JSON: {link(page, api_entry_path(entry_id), api_entry_path(entry_id))}</p>']
    return Page(page, _title(label(entry)), "\n".join(p for p in parts if p))


def _section(anchor: str, heading: str, body: str) -> str:
    """A titled section of a page; none without a body."""
    return f'<h2 id="{anchor}">{heading}</h2>\n{body}' if body else ""


def _crash_section(entry: Mapping[str, Any]) -> str:
    """A crash entry: Python's own error, no message of the program's, and the check it lacks."""
    crash = entry.get("crash")
    if entry.get("kind") != "crash" or not isinstance(crash, Mapping):
        return ""
    return _section("crash", "A crash: no message of the program's own",
                    f"<p>Python raises this computing {_code(crash.get('expression'))}. "
                    f"{_ticks(str(crash.get('missing') or ''))}; a check would read:</p>\n"
                    f"<pre><code>{esc(crash.get('missing_check'))}</code></pre>")


def _source_section(entry: Mapping[str, Any], commit: str) -> str:
    source = entry.get("source") or {}
    where = f"{source.get('path')}:{source.get('line')}"
    url = source.get("url")
    view = f' · <a href="{esc(url)}">View the source (pinned to {esc(commit)})</a>' if url else ""
    return (f'<h2 id="source">Source</h2>\n<p>Raised at {_code(where)} in {_code(source.get("function"))}'
            f"{view}</p>\n{excerpt_html(entry)}")


def _when(page: str, entry: Mapping[str, Any], site: SiteData) -> list[str]:
    """When an error happens: its trigger, the guards on the way, what it reads, notes."""
    trigger = entry.get("trigger") or {}
    flags, env = entry_flags(entry)
    when = [f"<p><strong>Fires when:</strong> {_ticks(trigger.get('text') or 'unknown')}</p>"]
    guards = entry.get("guards") or ()
    if guards:
        when.append("<p><strong>To get there, this must hold:</strong></p>"
                    + items(f"{_code(g.get('text'))} <span class=\"meta\">({esc(g.get('origin'))})</span>"
                            for g in guards))
    if flags or env:
        when.append("<p><strong>Reads:</strong> " + _flag_links(page, flags, site)
                    + (", " if flags and env else "") + ", ".join(_code(e) for e in env) + "</p>")
    notes = entry.get("notes") or ()
    if notes:
        when.append('<p class="meta">Notes: ' + "; ".join(esc(n) for n in notes) + "</p>")
    return when


def _solutions_section(entry: Mapping[str, Any]) -> str:
    solutions = [_ticks(solution_text(s)) + _command(s) for s in entry.get("solutions") or ()]
    if not solutions:
        return ""
    return '<h2 id="solutions">Solutions</h2>\n<ol>' + "".join(f"<li>{s}</li>" for s in solutions) + "</ol>"


def _related_section(page: str, entry: Mapping[str, Any], site: SiteData) -> str:
    related = [r for r in entry.get("related") or () if str(r) in site.latest]
    if not related:
        return ""
    return ('<h2 id="related">Related errors</h2>\n'
            + items(link(page, entry_path(r), label(site.latest[r][1])) for r in related))


def _title(text: str, width: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


# ------------------------------------------------------------------ flags


def flag_page(option: str, site: SiteData) -> Page:
    """A flag: its declaration, its relations, the errors it can trigger, and its neighbourhood picture."""
    release = site.flag_release[option]
    graph = release.graph
    assert graph is not None  # flag_release lists only releases with a graph
    page = flag_path(option)
    node = f"flag:{option}"
    data = graph.nodes[node]
    parts = [f'<p class="meta">flag · as of {esc(release.label)}</p>', f'<h1 class="message">{esc(option)}</h1>']
    if data.get("help"):
        parts.append(f"<p>{_ticks(data['help'])}</p>")
    parts.append(f'<dl class="facts">{_flag_facts(data)}</dl>')
    relations = _relations(page, graph, node, site)
    parts.append('<h2 id="relations">Related flags</h2>\n' + (items(relations) or "<p>No related flags.</p>"))
    parts.append(_picture_section(page, graph, option, site))
    parts.append(_errors_section(page, graph, node, site))
    return Page(page, option, "\n".join(parts))


def _flag_facts(data: Mapping[str, Any]) -> str:
    """A flag's declaration as the items of a definition list."""
    facts = [("Type", data.get("type")), ("Default", data.get("default")), ("Choices", data.get("choices")),
             ("Aliases", data.get("aliases")), ("Declared", data.get("declared")),
             ("Deprecated", ("yes" + (f", use {data['replacement']}" if data.get("replacement") else ""))
              if data.get("deprecated") else "")]
    return "".join(f"<dt>{k}</dt><dd>{_code(v)}</dd>" for k, v in facts if v not in (None, ""))


def _relations(page: str, graph: nx.MultiDiGraph, node: str, site: SiteData) -> list[str]:
    """The flag's relations to other flags, its own first, then those naming it."""
    relations = []
    for src, dst, role, attrs in sorted(graph.edges(node, keys=True, data=True)) + \
            sorted(graph.in_edges(node, keys=True, data=True)):
        if role not in FLAG_ROLES or src == dst:
            continue
        other = (dst if src == node else src).split(":", 1)[1]
        target = link(page, flag_path(other), other) if other in site.flag_release else _code(other)
        relations.append(f"{esc(relation_verb(role, src == node))} {target}{esc(edge_detail(role, attrs))}")
    return relations


def _picture_section(page: str, graph: nx.MultiDiGraph, option: str, site: SiteData) -> str:
    """The flag's neighbourhood picture, its nodes linked, and the legend of its numbered errors."""
    picture = neighbourhood_picture(graph, option)
    titles = {n.id: label(graph.nodes[n.id]) for n in picture.errors}

    def href(node_id: str) -> str | None:
        kind, _, name = node_id.partition(":")
        if kind == "error" and name in site.latest:
            return rel(page, entry_path(name))
        if kind == "flag" and name in site.flag_release and name != option:
            return rel(page, flag_path(name))
        return None

    cut = ""
    if picture.flags_total > len(picture.nodes) - 1 - len(picture.errors) or picture.errors_total > len(picture.errors):
        cut = (f" The picture shows {len(picture.nodes) - 1 - len(picture.errors)} of {picture.flags_total} related "
               f"flags and {len(picture.errors)} of {picture.errors_total} errors; all are listed on this page.")
    legend = "".join(f'<li value="{n.number}">{link(page, entry_path(n.label), titles.get(n.id) or n.label)}</li>'
                     for n in picture.errors)
    return (f'<h2 id="graph">Neighbourhood in the dependency graph</h2>\n<figure class="graph">'
            f"{picture_svg(picture, href, titles)}<figcaption>The flag (orange), the flags related to it (blue)"
            f" and, numbered, the errors that involve them.{esc(cut)}</figcaption></figure>"
            + (f'<ol class="legend-list">{legend}</ol>' if legend else ""))


def _errors_section(page: str, graph: nx.MultiDiGraph, node: str, site: SiteData) -> str:
    errors = errors_of(graph, node)
    rows = [[link(page, entry_path(e[6:]), label(graph.nodes[e])), esc(graph.nodes[e].get("exception")),
             _code(f"{graph.nodes[e].get('path')}:{graph.nodes[e].get('line')}")]
            for e in errors if e[6:] in site.latest]
    return (f'<h2 id="errors">Errors it can trigger ({len(rows)})</h2>\n'
            + (table(["Message", "Exception", "Where"], rows) if rows else "<p>None.</p>"))


def flags_index_page(site: SiteData) -> Page:
    page = "flags/index.html"
    newest = site.newest.label
    rows = []
    for option in sorted(site.flag_release, key=lambda o: (o.lstrip("-").lower(), o)):
        release = site.flag_release[option]
        graph = release.graph
        assert graph is not None
        data = graph.nodes[f"flag:{option}"]
        errors = len(errors_of(graph, f"flag:{option}"))
        where = "" if release.label == newest else f"last in {release.label}"
        rows.append([link(page, flag_path(option), option), _code(data.get("type")), _code(data.get("default")),
                     str(errors), esc(where)])
    body = (f"<h1>Flags ({len(rows)})</h1>\n<p>Every flag and environment-independent setting the catalogs know, "
            f"as of {esc(newest)} unless noted.</p>\n" + table(["Flag", "Type", "Default", "Errors", ""], rows))
    return Page(page, "Flags", body)


# ------------------------------------------------------------------ versions


def _change_item(page: str, change: Change, site: SiteData) -> str:
    subject = change.new.id if isinstance(change, Added) else change.old.id if isinstance(change, Removed) \
        else change.subject
    text = esc(describe(change))
    if subject in site.latest:
        text = link(page, entry_path(subject), subject) + " " + text
    return text


def versions_page(site: SiteData) -> Page:
    """What changed between consecutive releases (`errcat diff`), newest first."""
    page = "versions.html"
    parts = ["<h1>Versions</h1>",
             "<p>What changed between consecutive releases, newest first (the content of "
             f"<code>errcat diff</code>). Releases: {esc(', '.join(r.label for r in reversed(site.releases)))}.</p>"]
    for diff in reversed(site.diffs):
        counts = ", ".join(f"{n} {k}" for k, n in diff.count().items() if n) or "no changes"
        anchor = safe_name(f"{diff.old.name}-{diff.new.name}")
        parts.append(f'<h2 id="{esc(anchor)}">{esc(diff.old.name)} → {esc(diff.new.name)}</h2>\n'
                     f'<p class="meta">{esc(counts)}</p>')
        for kind, changes in groupby(diff.changes, key=lambda c: c.kind):  # sorted by kind (diff.sort_key)
            listed = list(changes)
            parts.append(f"<details><summary>{esc(kind)} ({len(listed)})</summary>\n"
                         + items(_change_item(page, c, site) for c in listed) + "\n</details>")
    first = site.releases[0]
    parts.append(f"<h2>{esc(first.label)}</h2>\n<p>The oldest release here: {len(first.entries)} entries.</p>")
    return Page(page, "Versions", "\n".join(parts))


# ------------------------------------------------------------------ search (the home page)


def index_page(site: SiteData) -> Page:
    """The search form (explain's matching, in the browser) and every entry of the newest release."""
    page = "index.html"
    newest = site.newest
    options = "".join(f'<option value="{esc(safe_name(r.label))}"{" selected" if r is newest else ""}>'
                      f"{esc(r.label)}</option>" for r in reversed(site.releases))
    selects = "".join(f'<label for="f-{name}">{label}<select id="f-{name}"><option value="">any</option>'
                      "</select></label>" for name, label in (("exception", "Exception"), ("flag", "Flag"),
                                                              ("env", "Env var"), ("file", "File")))
    listing = sorted(newest.entries, key=lambda e: ((e.get("source") or {}).get("path", ""),
                                                    (e.get("source") or {}).get("line", 0)))
    rows = items((link(page, entry_path(str(e["id"])), label(e))
                  + f' <span class="meta">{esc(e.get("exception"))} · '
                  f'{esc((e.get("source") or {}).get("path"))}:{esc((e.get("source") or {}).get("line"))}</span>')
                 for e in listing)
    body = (f"<h1>{esc(site.title)}</h1>\n"
            '<form id="search" class="search" role="search" data-base="">\n'
            '<label for="q">Paste an error message or a traceback, or type words '
            "(press <kbd>/</kbd> to come back here)</label>\n"
            '<textarea id="q" name="q" rows="3" spellcheck="false" autocomplete="off"></textarea>\n'
            f'<div class="filters"><label for="release">Release<select id="release">{options}</select></label>'
            f"{selects}</div>\n"
            '<button type="submit">Find</button>\n</form>\n'
            '<p id="status" role="status" aria-live="polite"></p>\n<ul id="results" class="results"></ul>\n'
            f'<section id="all"><h2>All {len(listing)} errors of {esc(newest.label)}</h2>\n{rows}\n</section>')
    return Page(page, "Search", body, (index_script(newest.label), SEARCH_SCRIPT))

