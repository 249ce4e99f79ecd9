"""The website's pages (output/site_pages.py) on small inline catalogs: what each page says."""
from __future__ import annotations

import pytest

from errcat.site import site_data
from output.site_html import Page, render_page
from output.site_model import Release
from output.site_pages import entry_page, excerpt_html, flags_index_page, index_page, real_status, versions_page
from tests.site_catalogs import HOSTILE, catalog, entry, graph

LORA = entry("aaaa000000000001", "LoRA with EAGLE {reason}.", flags=("--enable-lora",),
             rows=(("does not support --speculative-adaptive", "`--speculative-adaptive` is set"),
                   ("does not support the trtllm runner", "`--moe-runner-backend` is trtllm")),
             situations=["Running where `is_sm100` is true."])
BAD = entry("bbbb000000000002", HOSTILE, line=9)
GONE = entry("cccc000000000003", "Old error {x}", line=5)


@pytest.fixture(scope="module")
def site():
    g = graph([("--lora-paths", "--enable-lora", "implies")], {"aaaa000000000001": ["--enable-lora"]})
    return site_data([Release("1.0", catalog("1.0", [LORA, GONE])),
                      Release("2.0", catalog("2.0", [LORA, BAD]), g)], base_url="https://example.invalid/site/")


def _html(page: Page, site) -> str:
    return render_page(page, site_title=site.title, base_url=site.base_url)


@pytest.mark.parametrize("shown", [
    '<h1 class="message">LoRA with EAGLE {reason}.</h1>',
    "<title>LoRA with EAGLE {reason}. · example/tiny error catalog</title>",
    '<link rel="canonical" href="https://example.invalid/site/errors/aaaa000000000001.html">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    "It refuses <code>--x</code>.",  # meaning, code spans as code
    'href="https://example.invalid/pkg/a.py#L3"',  # the pinned source link
    "Table rows (2)", "does not support --speculative-adaptive", "<code>--speculative-adaptive</code> is set",
    "Avoid does not support the trtllm runner.",  # a row's own fix
    "Do not pass <code>--x</code>.", "run --x",  # solutions, example
    "confirmed by the real program (confirmed by 2.0)",
    "Running where <code>is_sm100</code> is true.",  # common situations
    '<a href="../flags/enable-lora.html">--enable-lora</a>',  # a flag with a page is linked
    '<a href="../api/errors/aaaa000000000001.json">',  # its JSON
    '<a href="../api/1.0/errors/aaaa000000000001.json">JSON</a>',  # and per release
])
def test_an_entry_page_shows(site, shown):
    assert shown in _html(entry_page("aaaa000000000001", site), site)


def test_a_hostile_message_is_text_on_every_page_that_shows_it(site):
    for page in (entry_page("bbbb000000000002", site), index_page(site), versions_page(site)):
        text = _html(page, site)
        assert "<script>alert" not in text and "<img src=x" not in text
        assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &lt;img src=x onerror=alert(1)&gt; &amp;" in text


def test_an_entry_gone_from_the_newest_release_says_where_it_was_last(site):
    text = _html(entry_page("cccc000000000003", site), site)
    assert "not in 2.0: last seen in 1.0" in text and "<dt>Removed</dt><dd>2.0</dd>" in text


@pytest.mark.parametrize(("fix", "cls", "words"), [
    ({"verified": "true", "real": "confirmed by 0.5.23"}, "ok", "confirmed by the real program (confirmed by 0.5.23)"),
    ({"verified": "false", "real": "fires-first: abc"}, "bad", "refuted by the real program (fires-first: abc)"),
    ({"verified": "not-run", "real": "not-run: needs a GPU"}, "", "not run (not-run: needs a GPU)"),
    ({"verified": "not-run"}, "", "not run: errcat confirm has not run on 1.0"),
])
def test_the_real_programs_word_on_an_example(fix, cls, words):
    assert real_status(fix, "1.0") == (cls, words)


def test_the_excerpt_highlights_every_line_of_the_raising_statement():
    text = excerpt_html(entry("x", "m", line=3))
    assert '<span data-n="2">def check(x):</span>' in text
    assert '<span data-n="3" class="hit">    raise ValueError(</span>' in text
    assert '<span data-n="4" class="hit">        &#x27;m&#x27;)</span>' in text


def test_the_versions_page_lists_the_steps_newest_first(site):
    text = _html(versions_page(site), site)
    assert "1.0 → 2.0" in text and text.index("1.0 → 2.0") < text.index("<h2>1.0</h2>")
    assert "removed" in text and "added" in text


def test_the_search_page_loads_the_newest_index_and_lists_every_entry(site):
    page = index_page(site)
    assert page.scripts == ("assets/index-2.0.js", "assets/search.js")
    text = _html(page, site)
    assert 'href="errors/aaaa000000000001.html"' in text and 'value="2.0" selected' in text


def test_the_flag_list_links_each_flag_page(site):
    text = _html(flags_index_page(site), site)
    assert '<a href="../flags/enable-lora.html">--enable-lora</a>' in text and "lora-paths.html" in text


def test_an_entry_without_a_command_says_why():
    why = "No command line is shown: no option or environment variable decides this check."
    quiet = entry("dddd000000000004", "Port out of range",
                  example_fix={"before": None, "after": None, "verified": "not-run", "predicted": "unknown",
                               "note": why})
    site = site_data([Release("1.0", catalog("1.0", [quiet]))], base_url="https://example.invalid/site/")
    assert f'<p class="meta">{why}</p>' in _html(entry_page("dddd000000000004", site), site)
