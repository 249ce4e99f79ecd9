"""`errcat site`: the build through `main([...])`, its bad inputs (one line, exit 2, no site), explain of a site."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from errcat.cli import main
from errcat.site import build_site, ordered
from extractor.errors import ErrcatError
from output.site_model import Release
from tests.site_catalogs import extract_small


@pytest.fixture(scope="module")
def catalogs(tmp_path_factory) -> list[Path]:
    return extract_small(tmp_path_factory.mktemp("site-cli"))


def test_a_site_is_built_with_pages_assets_indexes_and_api(catalogs, tmp_path, capsys):
    out = tmp_path / "site"
    assert main(["site", *map(str, catalogs), "--out", str(out)]) == 0
    assert "site of 2 release(s) (0.1.0, 0.2.0)" in capsys.readouterr().out
    for name in ("index.html", "versions.html", "flags/index.html", "flags/enable-lora.html", "assets/site.css",
                 "assets/search.js", "assets/index-0.1.0.js", "assets/index-0.2.0.js", "api/index.json",
                 "api/0.2.0/catalog.json"):
        assert (out / name).is_file(), name
    assert json.loads((out / "api" / "index.json").read_text())["newest"] == "0.2.0"


def test_the_newest_release_is_the_default_whatever_the_order_given(catalogs, tmp_path):
    build_site(catalogs[::-1], tmp_path / "site")
    assert 'value="0.2.0" selected' in (tmp_path / "site" / "index.html").read_text()


def test_the_same_catalogs_give_the_same_site(catalogs, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    build_site(catalogs, a)
    build_site(catalogs, b)
    files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    assert all((a / f).read_bytes() == (b / f).read_bytes() for f in files)


def test_progress_sees_each_catalog_read_then_the_pages(catalogs, tmp_path):
    seen: list[tuple[int, int]] = []
    build_site(catalogs, tmp_path / "site", progress=lambda done, total, label: seen.append((done, total)))
    assert seen == [(i, len(catalogs)) for i in range(len(catalogs) + 1)]


def test_base_url_gives_each_page_a_canonical_link(catalogs, tmp_path):
    build_site(catalogs[1:], tmp_path / "site", base_url="https://example.invalid/e/")
    assert '<link rel="canonical" href="https://example.invalid/e/versions.html">' in \
        (tmp_path / "site" / "versions.html").read_text()


@pytest.mark.parametrize(("argv", "said"), [
    (["{tmp}/missing"], "is not a directory"),
    (["{tmp}"], "is not a catalog directory (no catalog.json)"),
    (["{notcatalog}"], "not a valid errcat catalog"),
    (["{first}", "{first}"], "two catalogs are the same release (0.1.0)"),
])
def test_bad_input_is_one_line_and_exit_2_and_no_site(catalogs, tmp_path, capsys, argv, said):
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "catalog.json").write_text('{"entries": "no"}')
    names = {"tmp": str(tmp_path), "notcatalog": str(tmp_path / "junk"), "first": str(catalogs[0])}
    out = tmp_path / "site"
    assert main(["site", *(a.format(**names) for a in argv), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("errcat: ") and said in err and err.count("\n") == 1 and "Traceback" not in err
    assert not out.exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_an_unwritable_out_dir_is_one_line_and_exit_2(catalogs, tmp_path, capsys):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    assert main(["site", str(catalogs[0]), "--out", str(locked / "site")]) == 2
    assert "not writable" in capsys.readouterr().err


def test_an_out_dir_that_cannot_be_made_is_one_line_and_exit_2(catalogs, tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    assert main(["site", str(catalogs[0]), "--out", str(tmp_path / "file" / "site")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("errcat: cannot create output directory") and err.count("\n") == 1


def test_a_directory_that_is_not_errcats_is_never_replaced(catalogs, tmp_path, capsys):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep")
    assert main(["site", str(catalogs[0]), "--out", str(mine)]) == 2
    assert (mine / "notes.txt").read_text() == "keep" and capsys.readouterr().err.startswith("errcat: ")


def test_a_failed_build_leaves_the_previous_site_whole(catalogs, tmp_path, monkeypatch):
    out = tmp_path / "site"
    build_site(catalogs, out)
    before = (out / "index.html").read_bytes()
    monkeypatch.setattr("errcat.site.versions_page", lambda site: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        build_site(catalogs, out)
    assert (out / "index.html").read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["site"]  # no staging left beside it


def test_explain_reads_a_site_directory_as_its_newest_catalog(catalogs, tmp_path, capsys):
    build_site(catalogs, tmp_path / "site")
    assert main(["explain", "--catalog", str(tmp_path / "site"), "--format", "json",
                 "ValueError: Tensor parallelism does not support a prime width."]) == 0
    match = json.loads(capsys.readouterr().out)["errors"][0]["matches"][0]
    assert match["template"] == "Tensor parallelism does not support a prime width." and match["row"]["index"] == 1


@pytest.mark.parametrize(("labels", "order"), [
    (["0.5.23", "0.5.9", "0.5.18"], ["0.5.9", "0.5.18", "0.5.23"]),  # versions: by version
    (["main", "abc123", "v2"], ["main", "abc123", "v2"]),  # not all versions: as given, last newest
])
def test_releases_are_ordered_oldest_first(labels, order):
    assert [r.label for r in ordered([Release(label, {}) for label in labels])] == order


def test_no_catalog_is_an_error():
    with pytest.raises(ErrcatError):
        build_site([], "x")
