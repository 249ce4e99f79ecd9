"""The website's HTML frame and small helpers: escaping, relative links, safe file names.

Every catalog string reaches a page through `esc` (messages and code are data: a
message holding ``<script>`` shows as text). Links are relative, so the site works
from ``file://`` and under any path of any static host.
"""
from __future__ import annotations

import hashlib
import html
import re
from collections.abc import Iterable
from dataclasses import dataclass

_SAFE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]{0,80}")


def esc(value: object) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def safe_name(text: str) -> str:
    """`text` as one file name (ids, release labels, flag names): itself when it is a plain
    word, else a readable prefix and a hash; never a path."""
    if _SAFE_NAME.fullmatch(text) and ".." not in text:
        return text
    stem = re.sub(r"[^A-Za-z0-9_.+-]+", "_", text).strip("._")[:40]
    return f"{stem or 'x'}-{hashlib.sha1(text.encode('utf-8')).hexdigest()[:10]}"


def flag_slug(option: str) -> str:
    return safe_name(option.lstrip("-") or option)


def entry_path(entry_id: str) -> str:
    return f"errors/{safe_name(entry_id)}.html"


def flag_path(option: str) -> str:
    return f"flags/{flag_slug(option)}.html"


def rel(page: str, target: str) -> str:
    """The link from site file `page` to site file `target` (both relative to the site root)."""
    return "../" * page.count("/") + target


def link(page: str, target: str, text: object, cls: str | None = None) -> str:
    klass = f' class="{esc(cls)}"' if cls else ""
    return f'<a href="{esc(rel(page, target))}"{klass}>{esc(text)}</a>'


@dataclass(frozen=True, slots=True)
class Page:
    """One HTML file of the site: where it goes, its title, and its body (already HTML)."""

    path: str
    title: str
    body: str
    scripts: tuple[str, ...] = ()  # site files loaded at the end of the body


_NAV = (("index.html", "Search"), ("flags/index.html", "Flags"), ("versions.html", "Versions"))


def render_page(page: Page, *, site_title: str, base_url: str | None = None, footer: str = "") -> str:
    """The whole document: head (title, viewport, canonical link), skip link, navigation, body."""
    canonical = ""
    if base_url:
        canonical = f'<link rel="canonical" href="{esc(base_url.rstrip("/") + "/" + page.path)}">\n'
    nav = " ".join(link(page.path, target, text) for target, text in _NAV)
    scripts = "".join(f'<script src="{esc(rel(page.path, s))}"></script>\n' for s in page.scripts)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{esc(page.title)} · {esc(site_title)}</title>\n{canonical}"
        f'<link rel="stylesheet" href="{esc(rel(page.path, "assets/site.css"))}">\n</head>\n<body>\n'
        '<a class="skip" href="#main">Skip to content</a>\n'
        f'<header class="top"><nav aria-label="Site">{link(page.path, "index.html", site_title, "brand")} {nav}</nav>'
        "</header>\n"
        f'<main id="main">\n{page.body}\n</main>\n<footer>{footer}</footer>\n{scripts}</body>\n</html>\n'
    )


def items(values: Iterable[str], cls: str = "list") -> str:
    """Already-HTML list items as a ``<ul>`` (empty text when there are none)."""
    lines = [f"<li>{v}</li>" for v in values]
    return f'<ul class="{cls}">\n' + "\n".join(lines) + "\n</ul>" if lines else ""


def table(head: Iterable[str], rows: Iterable[Iterable[str]], caption: str = "") -> str:
    """Cells are already HTML; the table scrolls sideways on a narrow screen."""
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    ths = "".join(f'<th scope="col">{h}</th>' for h in head)
    trs = "\n".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f'<div class="table-wrap"><table>{cap}<thead><tr>{ths}</tr></thead>\n<tbody>\n{trs}\n</tbody></table></div>'
