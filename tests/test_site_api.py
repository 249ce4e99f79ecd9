"""The website's JSON API (output/site_api.py): files in the reference catalog's URL shape."""
from __future__ import annotations

import json

import pytest

from errcat.site import site_data
from output.site_api import api_files
from output.site_model import Release
from tests.site_catalogs import catalog, entry

A, B = entry("aaaa000000000001", "A {x}"), entry("bbbb000000000002", "B")


@pytest.fixture(scope="module")
def files():
    site = site_data([Release("1.0", catalog("1.0", [A, B])), Release("1.1", catalog("1.1", [A]))])
    return {path: json.loads(text) for path, text in api_files(site)}


def test_there_is_one_file_per_entry_and_release_plus_the_index_and_catalogs(files):
    assert sorted(files) == ["api/1.0/catalog.json", "api/1.0/errors/aaaa000000000001.json",
                             "api/1.0/errors/bbbb000000000002.json", "api/1.1/catalog.json",
                             "api/1.1/errors/aaaa000000000001.json", "api/errors/aaaa000000000001.json",
                             "api/errors/bbbb000000000002.json", "api/index.json"]


@pytest.mark.parametrize(("entry_id", "release", "releases"), [
    ("aaaa000000000001", "1.1", ["1.0", "1.1"]),
    ("bbbb000000000002", "1.0", ["1.0"]),  # gone from 1.1: as of the newest release that has it
])
def test_an_errors_file_is_the_entry_as_of_the_newest_release_that_has_it(files, entry_id, release, releases):
    data = files[f"api/errors/{entry_id}.json"]
    assert (data["release"], data["releases"], data["entry"]["id"]) == (release, releases, entry_id)


def test_the_index_lists_id_type_template_path_and_versions(files):
    index = files["api/index.json"]
    assert index["newest"] == "1.1" and [r["label"] for r in index["releases"]] == ["1.1", "1.0"]
    first = index["errors"][0]
    assert {k: first[k] for k in ("id", "type", "template", "path", "versions")} == {
        "id": "aaaa000000000001", "type": "ValueError", "template": "A {x}", "path": "pkg/a.py",
        "versions": ["1.0", "1.1"]}


def test_a_releases_catalog_and_entry_are_the_catalogs_own(files):
    assert files["api/1.1/catalog.json"] == catalog("1.1", [A])
    assert files["api/1.0/errors/bbbb000000000002.json"] == B
