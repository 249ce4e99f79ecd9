"""The website in a real browser (headless Chromium, see tests/browser.py), from file:// URLs.

A small site from two tiny releases extracted by the real pipeline; the real sglang 0.5.23
catalog (marked network) where the issue names real entries.
"""
from __future__ import annotations

import html.parser
import json
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

from analyzers.explain import MessageIndex, explained
from errcat.site import build_site
from errcat.versions import read_catalog_dir
from tests.browser import Console, chromium_browser
from tests.site_catalogs import HOSTILE, extract_small

LORA_TEMPLATE = "LoRA with EAGLE/NEXTN/EAGLE3 speculative decoding {reason}."
LORA_MESSAGE = ("LoRA with EAGLE/NEXTN/EAGLE3 speculative decoding does not support --speculative-adaptive: the draft "
                "is built from a static ServerArgs snapshot, and the runtime-state swap does not rebuild LoRA "
                "cuda-graph metadata")


@pytest.fixture(scope="module")
def browser():
    yield from chromium_browser()


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("small-site")
    build_site(extract_small(root), root / "site", base_url="https://example.invalid/errors/")
    return root


@pytest.fixture()
def page(browser):
    page = browser.new_page(viewport={"width": 1000, "height": 900})
    yield page
    page.close()


def _url(path: Path) -> str:
    return path.resolve().as_uri()


class _Links(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.links.append(value)


def _broken_links(site: Path) -> list[str]:
    """Every href/src of every page that points inside the site but at no file."""
    broken = []
    for page in sorted(site.rglob("*.html")):
        parser = _Links()
        parser.feed(page.read_text(encoding="utf-8"))
        for link in parser.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or not parts.path:
                continue
            if not (page.parent / unquote(parts.path)).resolve().is_file():
                broken.append(f"{page.relative_to(site)} -> {link}")
    return broken


# ------------------------------------------------------------------ the small site


def test_every_internal_link_of_the_small_site_resolves(small):
    assert _broken_links(small / "site") == []


@pytest.mark.parametrize("path", ["index.html", "versions.html", "flags/index.html", "flags/enable-lora.html"])
def test_sampled_pages_load_without_console_errors(small, page, path):
    console = Console(page)
    page.goto(_url(small / "site" / path))
    page.wait_for_load_state("load")
    assert page.title() and console.errors == []


@pytest.mark.parametrize("path", ["index.html", "versions.html", "flags/index.html", "flags/enable-lora.html",
                                  "errors/*.html"])
def test_pages_fit_a_phone_screen_without_scrolling_sideways(small, browser, path):
    phone = browser.new_page(viewport={"width": 360, "height": 740})
    phone.goto(_url(sorted((small / "site").glob(path))[0]))
    assert phone.evaluate("document.documentElement.scrollWidth") <= 360
    phone.close()


def test_the_keyboard_reaches_the_skip_link_first_and_slash_jumps_to_the_search_box(small, page):
    page.goto(_url(small / "site" / "versions.html"))
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Skip to content"
    page.goto(_url(small / "site" / "index.html"))
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "q"


def test_a_hostile_message_renders_as_text_in_its_page_and_in_search_results(small, page):
    console = Console(page)
    dialogs: list[str] = []

    def dismissed(dialog: Any) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", dismissed)
    entry = next(e for e in read_catalog_dir(small / "0.2.0")["entries"] if e["template"] == HOSTILE)
    page.goto(_url(small / "site" / "errors" / f"{entry['id']}.html"))
    assert page.text_content("h1") == HOSTILE
    assert page.locator("main img").count() == 0 and page.locator("main script").count() == 0
    page.goto(_url(small / "site" / "index.html"))
    page.fill("#q", HOSTILE)
    assert page.locator("#results li a").first.text_content() == HOSTILE
    assert dialogs == [] and console.errors == []


def test_search_works_from_file_urls_and_switches_release(small, page):
    page.goto(_url(small / "site" / "index.html"))
    page.fill("#q", "ValueError: Tensor parallelism does not support a prime width.")
    assert page.locator("#results li a").first.text_content() == "Tensor parallelism does not support {reason}."
    page.select_option("#release", "0.1.0")
    page.fill("#q", HOSTILE)
    assert page.text_content("#status") == "No entry found."


def test_the_flag_filter_narrows_the_list(small, page):
    page.goto(_url(small / "site" / "index.html"))
    page.select_option("#f-flag", "--speculative-algorithm")
    assert [a.text_content() for a in page.locator("#results li a").all()] == [
        "LoRA does not work with EAGLE speculative decoding"]


# The same text, explained by Python (errcat explain) and by the page's JavaScript.
AGREEMENT = [
    "LoRA does not work with EAGLE speculative decoding",
    "--tp-size must be at most 8, got 16",
    "ValueError: Tensor parallelism does not support an odd width.",
    'Traceback (most recent call last):\n  File "/venv/lib/python3.11/site-packages/sglang/srt/server_args.py", '
    "line 23, in check_server_args\nValueError: --tp-size must be at most 8, got 9",
    "[2026-12-02 10:00:01] ERROR launch failed\nValueError: LoRA does not work with EAGLE speculative decoding",
    "LoRA does not work with EAGLE speculative decoding   \n",
    "lora eagle",
    "nothing of the kind",
    HOSTILE,
    "AssertionError: x\nValueError: --tp-size must be at most 8, got\nmany lines",
]


def _ranked(matches: list[dict]) -> list[Any]:
    """Matches comparable across the two: exact ones sorted (equal scores may come in any order);
    of the closest (no exact match), the scores, and the entries above the lowest score (those
    at it tie with others the cut-off chose among: Python's candidates come from a set)."""
    if not matches or matches[0]["exact"]:
        return sorted((m["entry"], -1 if m["row"] is None else m["row"], round(m["score"], 9),
                       tuple(sorted(m["holes"].items()))) for m in matches)
    lowest = min(m["score"] for m in matches)
    return [sorted(m["score"] for m in matches), sorted(m["entry"] for m in matches if m["score"] > lowest)]


def _firsts(side: list[list[dict]]) -> list[tuple | None]:
    """Per error, the entry and row ranked first when one matches exactly."""
    return [(m[0]["entry"], m[0]["row"]) if m and m[0]["exact"] else None for m in side]


def _agree(page, entries: list[dict], release: str, texts: list[str]) -> None:
    index = MessageIndex(entries)
    for text in texts:
        python = [[{"entry": m.entry, "row": m.row, "exact": m.exact, "score": m.score, "holes": dict(m.holes)}
                   for m in matches] for _, matches in explained(index, text)]
        js = page.evaluate("([r, t]) => ErrcatSearch.explained(ERRCAT_INDEX[r], t).map(p => p[1])", [release, text])
        assert [_ranked(m) for m in js] == [_ranked(m) for m in python], text
        assert _firsts(js) == _firsts(python), text


def test_python_and_javascript_explain_a_table_of_messages_alike(small, page):
    page.goto(_url(small / "site" / "index.html"))
    _agree(page, read_catalog_dir(small / "0.2.0")["entries"], "0.2.0", AGREEMENT)


# ------------------------------------------------------------------ the real 0.5.23 catalog


@pytest.fixture(scope="module")
def real(extracted, tmp_path_factory) -> Path:
    extracted.catalog("0.5.23")
    site = tmp_path_factory.mktemp("real-site") / "site"
    build_site([extracted.root / "0.5.23"], site)
    return site


@pytest.fixture(scope="module")
def lora_id(real) -> str:
    index = json.loads((real / "api" / "index.json").read_text(encoding="utf-8"))
    return next(e["id"] for e in index["errors"] if e["template"] == LORA_TEMPLATE)


@pytest.mark.network
def test_the_lora_entry_page_shows_its_four_rows_and_its_source_excerpt(real, lora_id, page):
    console = Console(page)
    page.goto(_url(real / "errors" / f"{lora_id}.html"))
    assert page.text_content("h1") == LORA_TEMPLATE
    assert page.locator("#rows + p + .table-wrap tbody tr").count() == 4
    excerpt = page.locator("pre.excerpt")
    assert excerpt.is_visible() and "raise ValueError(" in excerpt.locator("span.hit").first.text_content()
    assert console.errors == []


@pytest.mark.network
def test_pasting_the_real_lora_message_finds_that_entry_first(real, lora_id, page):
    page.goto(_url(real / "index.html"))
    page.fill("#q", LORA_MESSAGE)
    assert page.locator("#results li a").first.get_attribute("href") == f"errors/{lora_id}.html"


@pytest.mark.network
def test_the_flag_page_of_enable_lora_shows_its_graph_picture(real, page):
    console = Console(page)
    page.goto(_url(real / "flags" / "enable-lora.html"))
    svg = page.locator("figure.graph svg")
    assert svg.is_visible() and svg.bounding_box()["width"] > 300
    assert svg.locator("[data-node='flag:--enable-lora']").count() == 1
    assert svg.locator("[data-node^='error:']").count() >= 1 and svg.locator(".legend").count() == 1
    assert console.errors == []


@pytest.mark.network
def test_every_internal_link_of_the_real_site_resolves(real):
    assert _broken_links(real) == []


@pytest.mark.network
def test_python_and_javascript_agree_on_real_messages(real, extracted, page):
    page.goto(_url(real / "index.html"))
    entries = read_catalog_dir(extracted.root / "0.5.23")["entries"]
    _agree(page, entries, "0.5.23", [LORA_MESSAGE, LORA_MESSAGE + ".", "ValueError: " + LORA_MESSAGE + ".",
                                      "lora speculative decoding", "tp-size must be divisible"])
