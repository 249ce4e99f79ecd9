"""The website's JSON API: static files in the reference catalog's URL shape.

    api/index.json                     every error: id, type, template, path, versions
    api/errors/<id>.json               the entry as of the newest release that has it, its releases, lineage
    api/<release>/errors/<id>.json     the entry as that release's catalog has it
    api/<release>/catalog.json         that release's catalog.json (what `errcat explain` reads of a site)
"""
from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from output.site_html import safe_name
from output.site_model import SiteData
from output.site_pages import api_entry_path

API_INDEX = "api/index.json"


def _json(data: Any) -> str:
    # compact: the API is read by programs, and a release's catalog is tens of MB indented
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"


def api_catalog_path(release: str) -> str:
    return f"api/{safe_name(release)}/catalog.json"


def api_index(site: SiteData) -> dict[str, Any]:
    errors = []
    for entry_id in sorted(site.latest):
        _, entry = site.latest[entry_id]
        errors.append({"id": entry_id, "type": entry.get("exception"), "template": entry.get("template"),
                       "path": (entry.get("source") or {}).get("path"), "versions": site.present[entry_id],
                       "url": api_entry_path(entry_id)})
    newest = site.newest.label
    return {"title": site.title, "newest": newest,
            "releases": [{"label": r.label, "catalog": api_catalog_path(r.label), "entries": len(r.entries),
                          "commit": r.catalog.get("commit"), "commit_date": r.catalog.get("commit_date")}
                         for r in reversed(site.releases)],
            "errors": errors}


def api_entry(site: SiteData, entry_id: str) -> dict[str, Any]:
    release, entry = site.latest[entry_id]
    lineage = site.lineage_of.get(entry_id)
    return {"id": entry_id, "release": release.label, "releases": site.present[entry_id],
            "lineage": lineage.as_dict() if lineage is not None else None, "entry": entry}


def api_files(site: SiteData) -> Iterator[tuple[str, str]]:
    """(site path, JSON text) of every API file."""
    yield API_INDEX, _json(api_index(site))
    for entry_id in site.latest:
        yield api_entry_path(entry_id), _json(api_entry(site, entry_id))
    for release in site.releases:
        yield api_catalog_path(release.label), _json(release.catalog)
        for entry in release.entries:
            yield api_entry_path(str(entry["id"]), release.label), _json(entry)
