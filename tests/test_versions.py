"""errcat.versions: the sides of a diff and the revisions of a history, on sources built here."""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import git
import pytest

from analyzers.diff import ChangeKind
from errcat.model import CatalogDir, SourceSpec
from errcat.pipeline import extract
from errcat.versions import catalog_of_source, compact, diff, history, parse_side, read_catalog_dir, side_label
from extractor.errors import ErrcatError
from extractor.profile import load_profile
from output.schema import SCHEMA_VERSION
from tests.gitrepo import commit

PROFILE = "name: tiny\nrepo: example/tiny\ntargets:\n  - pkg/**/*.py\n"
V1 = "def check(args):\n    if args.port < 0:\n        raise ValueError('port must be >= 0')\n"
V2 = "def check(args):\n    if args.port < 0:\n        raise ValueError('port must not be negative')\n"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> dict[str, Any]:
    """A profile, a checkout of V1 and its published catalog, a V2 catalog, and a git repo v1 -> v2."""
    root = tmp_path_factory.mktemp("versions")
    (root / "tiny.yaml").write_text(PROFILE)
    for name, text in (("v1", V1), ("v2", V2)):
        (root / name / "pkg").mkdir(parents=True)
        (root / name / "pkg" / "a.py").write_text(text)
        extract(SourceSpec(path=str(root / name)), profile=str(root / "tiny.yaml"), out=root / f"cat-{name}",
                cache_dir=root / "cache")
    repo = git.Repo.init(root / "repo", initial_branch="main")
    for name, text in (("v1", V1), ("v2", V2)):
        commit(repo, {"pkg/a.py": text}, name)
        repo.create_tag(name)
    return {"root": root, "profile": str(root / "tiny.yaml"), "repo": str(root / "repo")}


def _tmp_cache(tmp_path: Path) -> Path:
    return tmp_path / "cache"


# ------------------------------------------------------------------ sides


@pytest.mark.parametrize(("text", "repo", "expected"), [
    ("{root}/cat-v1", None, lambda root: CatalogDir(f"{root}/cat-v1")),
    ("release:0.5.18", None, lambda root: SourceSpec(release="0.5.18")),
    ("0.5.18", None, lambda root: SourceSpec(release="0.5.18")),
    ("1.2rc1", None, lambda root: SourceSpec(release="1.2rc1")),
    ("1.2.3.post1", None, lambda root: SourceSpec(release="1.2.3.post1")),
    ("path:{root}/v1", None, lambda root: SourceSpec(path=f"{root}/v1")),
    ("v1", "/some/repo", lambda root: SourceSpec(repo="/some/repo", commit="v1")),
    ("{root}/cat-v1", "/some/repo", lambda root: CatalogDir(f"{root}/cat-v1")),  # a catalog wins over a revision
])
def test_parse_side(site, text, repo, expected):
    assert parse_side(text.format(root=site["root"]), repo=repo) == expected(site["root"])


@pytest.mark.parametrize(("text", "message"), [
    ("", "empty catalog or source"),
    ("{root}/v1", "has no catalog.json (for a checkout, write path:"),
    ("latest", "is not a catalog directory, release:VERSION, path:DIR or (with --repo) a revision"),
])
def test_parse_side_refuses(site, text, message):
    with pytest.raises(ErrcatError, match=re.escape(message)):
        parse_side(text.format(root=site["root"]))


@pytest.mark.parametrize(("side", "label"), [
    (CatalogDir("out/cat"), "out/cat"),
    (SourceSpec(release="0.5.18"), "0.5.18"),
    (SourceSpec(path="src"), "src"),
    (SourceSpec(repo="r", commit="v2"), "v2"),
    (SourceSpec(repo="r"), "HEAD"),
])
def test_side_label(side, label):
    assert side_label(side) == label


# ------------------------------------------------------------------ catalogs


def test_read_catalog_dir_reads_a_published_catalog(site):
    data = read_catalog_dir(site["root"] / "cat-v1")
    assert [e["template"] for e in data["entries"]] == ["port must be >= 0"]


@pytest.mark.parametrize(("content", "message"), [
    (None, "cannot read"),
    ("{", "is not valid JSON"),
    ("{}", "not a valid errcat catalog"),
    (json.dumps({"schema_version": SCHEMA_VERSION + 1}), "newer than this errcat reads"),
])
def test_read_catalog_dir_refuses(tmp_path, content, message):
    if content is not None:
        (tmp_path / "catalog.json").write_text(content)
    with pytest.raises(ErrcatError, match=message):
        read_catalog_dir(tmp_path)


def test_compact_keeps_what_a_diff_reads(site):
    data = compact(read_catalog_dir(site["root"] / "cat-v1"))
    assert set(data) == {"repo", "commit", "commit_date", "source", "flags", "entries"}
    assert set(data["entries"][0]) == {"id", "kind", "exception", "template", "source", "trigger", "variants"}


def test_catalog_of_source_is_the_compact_catalog(site, tmp_path):
    built, _ = catalog_of_source(SourceSpec(path=str(site["root"] / "v1")), load_profile(site["profile"]),
                                 cache_dir=_tmp_cache(tmp_path), jobs=1, use_cache=True)
    assert built["entries"] == compact(read_catalog_dir(site["root"] / "cat-v1"))["entries"]


def test_catalog_of_source_is_cached_whole(site, tmp_path):
    def run() -> dict[str, int]:
        return catalog_of_source(SourceSpec(path=str(site["root"] / "v1")), load_profile(site["profile"]),
                                 cache_dir=_tmp_cache(tmp_path), jobs=1, use_cache=True)[1]

    assert run() == {"files_cached": 0, "files_extracted": 1, "uncacheable": 0}
    assert run() == {"catalogs_cached": 1}


def test_catalog_of_source_without_cache_counts_nothing(site, tmp_path):
    counts = catalog_of_source(SourceSpec(path=str(site["root"] / "v1")), load_profile(site["profile"]),
                               cache_dir=_tmp_cache(tmp_path), jobs=1, use_cache=False)[1]
    assert counts == {"files_cached": 0, "files_extracted": 0, "uncacheable": 0}
    assert not _tmp_cache(tmp_path).exists()


# ------------------------------------------------------------------ diff


def test_diff_of_two_catalog_directories(site):
    result = diff(CatalogDir(str(site["root"] / "cat-v1")), CatalogDir(str(site["root"] / "cat-v2")),
                  profile=site["profile"])
    assert result.kinds() == {ChangeKind.MESSAGE_CHANGED}
    assert (result.old.label, result.new.label) == (str(site["root"] / "cat-v1"), str(site["root"] / "cat-v2"))


def test_diff_of_a_source_and_its_published_catalog_is_empty(site, tmp_path):
    result = diff(SourceSpec(path=str(site["root"] / "v1")), CatalogDir(str(site["root"] / "cat-v1")),
                  profile=site["profile"], cache_dir=_tmp_cache(tmp_path))
    assert result.changes == ()


# ------------------------------------------------------------------ history


@pytest.mark.parametrize("kwargs", [{}, {"repo": "r", "releases": ["0.5.18"]}])
def test_history_needs_a_repo_or_releases(site, kwargs):
    with pytest.raises(ErrcatError, match="give --repo with --revs, or --releases"):
        history(profile=site["profile"], **kwargs)


def test_history_over_a_range_labels_each_revision(site, tmp_path):
    result = history(repo=site["repo"], revs=["v1..v2"], profile=site["profile"], cache_dir=_tmp_cache(tmp_path))
    shas = [c.hexsha for c in git.Repo(site["repo"]).iter_commits("main", reverse=True)]
    assert [(r.label, r.commit) for r in result.revs] == [("v1", shas[0]), ("v2", shas[1])]


def test_history_reports_progress_per_revision(site, tmp_path):
    seen: list[tuple[int, int, str]] = []
    history(repo=site["repo"], revs=["v1", "v2"], profile=site["profile"], cache_dir=_tmp_cache(tmp_path),
            progress=lambda done, total, label: seen.append((done, total, label)))
    assert seen == [(1, 2, "v1"), (2, 2, "v2")]


def test_history_follows_an_entry_across_revisions(site, tmp_path):
    result = history(repo=site["repo"], revs=["v1..v2"], profile=site["profile"], cache_dir=_tmp_cache(tmp_path))
    [lineage] = result.lineages
    assert (lineage.first_seen, lineage.last_changed) == ("v1", "v2")


def test_history_counts_the_result_cache(site, tmp_path):
    history(repo=site["repo"], revs=["v1"], profile=site["profile"], cache_dir=_tmp_cache(tmp_path))
    again = history(repo=site["repo"], revs=["v1"], profile=site["profile"], cache_dir=_tmp_cache(tmp_path))
    assert again.cache["catalogs_cached"] == 1 and again.cache["files_extracted"] == 0
