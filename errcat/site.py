"""`errcat site`: the catalogs of one or more releases as a static website.

Loads each catalog directory (catalog.json, graph.json), orders them oldest first,
derives what spans releases once (consecutive `errcat diff`s, lineages as `errcat
history` builds them), renders every file in memory (`output.site_*`), then writes
the site into a temporary directory beside `out` and renames it into place
(`output.writer.write_atomically`): a failed build leaves no half-written site.
"""
from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from itertools import pairwise
from pathlib import Path

from analyzers.diff import diff_catalogs
from analyzers.graph import load_graph_json
from analyzers.lineage import Rev, build_history
from analyzers.outcomes import release_of
from errcat import __version__
from errcat.versions import read_catalog_dir
from extractor.errors import ErrcatError, SourceError
from extractor.observe import Progress
from extractor.pep440 import version_key
from extractor.profile import Profile, load_profile
from output.site_api import API_INDEX, api_files
from output.site_html import Page, esc, link, render_page, safe_name
from output.site_model import Release, SiteData
from output.site_pages import (
    entry_page,
    flag_page,
    flags_index_page,
    index_page,
    index_script,
    versions_page,
)
from output.site_search import search_index, search_script
from output.writer import write_atomically

ASSETS = ("site.css", "search.js")  # output/site_assets/, copied to assets/


def load_release(directory: str | os.PathLike[str], profile: Profile) -> Release:
    """A catalog directory as one release of the site; ErrcatError (one line) when it is none."""
    path = Path(directory)
    if not path.is_dir():
        raise ErrcatError(f"{directory} is not a directory")
    if not (path / "catalog.json").is_file():
        raise ErrcatError(f"{directory} is not a catalog directory (no catalog.json)")
    catalog = read_catalog_dir(path)
    graph = None
    if (path / "graph.json").is_file():
        try:
            graph = load_graph_json(json.loads((path / "graph.json").read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ErrcatError(f"cannot read {path / 'graph.json'}: {exc}") from None
    source = catalog.get("source") or {}
    # a release, else a git commit (short), else (a checkout: no commit) the directory's name
    label = release_of(source, profile) or str(source.get("commit") or "")[:12] or path.resolve().name
    return Release(label, catalog, graph)


def ordered(releases: Sequence[Release]) -> list[Release]:
    """Oldest first: by version when every label is one, else as given (the last is the newest)."""
    labels = [r.label for r in releases]
    if len(set(labels)) != len(labels):
        twice = next(label for label in labels if labels.count(label) > 1)
        raise ErrcatError(f"two catalogs are the same release ({twice})")
    try:
        return sorted(releases, key=lambda r: version_key(r.label))
    except SourceError:
        return list(releases)


def site_data(releases: Sequence[Release], *, title: str | None = None, base_url: str | None = None) -> SiteData:
    """The site's model: releases oldest first, consecutive diffs and the lineages across them."""
    if not releases:
        raise ErrcatError("site: give at least one catalog directory")
    steps = [(Rev(r.label, r.catalog.get("commit"), r.catalog.get("commit_date")), r.catalog) for r in releases]
    diffs = tuple(diff_catalogs(a.catalog, b.catalog, old_label=a.label, new_label=b.label)
                  for a, b in pairwise(releases))
    lineages = build_history(steps, diffs=diffs).lineages if len(releases) > 1 else ()
    repo = releases[-1].catalog.get("repo")
    return SiteData(tuple(releases), diffs, lineages, title or (f"{repo} error catalog" if repo else "Error catalog"),
                    base_url)


def _footer(site: SiteData) -> str:
    newest = site.newest.catalog
    return (f"Derived from the code of {esc(newest.get('repo'))} ({esc(', '.join(r.label for r in site.releases))})"
            f" by errcat {esc(__version__)}: triggers and fixes are static predictions; an example is "
            "“confirmed” only where the real program ran it (<code>errcat confirm</code>).")


def pages(site: SiteData) -> Iterator[tuple[str, str]]:
    """(site path, HTML) of every page."""
    footer = _footer(site)

    def framed(page: Page) -> tuple[str, str]:
        api = link(page.path, API_INDEX, API_INDEX)
        return page.path, render_page(page, site_title=site.title, base_url=site.base_url,
                                      footer=f"{footer} Data as JSON: {api}.")

    yield framed(index_page(site))
    yield framed(versions_page(site))
    yield framed(flags_index_page(site))
    for option in sorted(site.flag_release):
        yield framed(flag_page(option, site))
    for entry_id in sorted(site.latest):
        yield framed(entry_page(entry_id, site))


def site_files(site: SiteData) -> dict[str, str]:
    """Every file of the site: pages, assets, search indexes, API."""
    files = dict(pages(site))
    assets = resources.files("output") / "site_assets"
    for name in ASSETS:
        files[f"assets/{name}"] = (assets / name).read_text(encoding="utf-8")
    for release in site.releases:
        files[index_script(release.label)] = search_script(search_index(release.entries, safe_name(release.label)))
    files.update(api_files(site))
    return files


@dataclass(frozen=True, slots=True)
class Built:
    out: Path
    releases: tuple[str, ...]
    pages: int
    files: int
    bytes: int
    seconds: float

    def line(self) -> str:
        return (f"site of {len(self.releases)} release(s) ({', '.join(self.releases)}): {self.pages} pages, "
                f"{self.files} files, {self.bytes / 1e6:.1f} MB in {self.seconds:.1f}s -> {self.out}")


def build_site(catalogs: Sequence[str | os.PathLike[str]], out: str | os.PathLike[str], *,
               profile: str = "sglang", title: str | None = None, base_url: str | None = None,
               progress: Progress | None = None) -> Built:
    """`errcat site CATALOG_DIR... --out SITE`; `progress` sees each catalog read (the slow part)."""
    started = time.perf_counter()
    prof = load_profile(profile)
    releases = []
    for done, catalog in enumerate(catalogs):
        if progress is not None:
            progress(done, len(catalogs), f"reading {catalog}")
        releases.append(load_release(catalog, prof))
    if progress is not None:
        progress(len(catalogs), len(catalogs), "pages")
    site = site_data(ordered(releases), title=title, base_url=base_url)
    files = site_files(site)
    write_atomically(out, lambda: files, marker=None)
    size = sum(len(text.encode("utf-8")) for text in files.values())
    return Built(Path(out), tuple(r.label for r in site.releases), sum(p.endswith(".html") for p in files),
                 len(files), size, time.perf_counter() - started)


