"""Sources: git (local, bare, mirrored URL), releases (fake index), directories."""
from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import tarfile
import threading
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import git
import pytest

from extractor.cache import cache_root
from extractor.errors import SourceError
from extractor.profile import load_profile
from extractor.snapshot import SourceKind, blob_id
from extractor.source import (
    Revision,
    branch_head,
    choose_file,
    latest_release,
    list_revisions,
    open_directory,
    open_git,
    open_release,
)
from tests.gitrepo import commit

PROFILE = load_profile()
ME = git.Actor("Test", "test@example.invalid")


def _network_cache() -> Path:
    return Path(os.environ.get("ERRCAT_TEST_CACHE") or Path.home() / ".cache" / "errcat-tests")


# ------------------------------------------------------------------------- git


@pytest.fixture()
def history(tmp_path: Path) -> dict[str, str]:
    """c1 (tag v1) -> c2 (pkg/b.py moved to pkg/c.py) on main; c3 on branch feature."""
    repo = git.Repo.init(tmp_path / "src", initial_branch="main")
    shas = {"c1": commit(repo, {"a.py": "one\n", "pkg/b.py": "bee\n", "README": "r\n"}, "c1",
                          "2025-01-02T03:04:05+00:00")}
    repo.create_tag("v1", message="release 1")  # annotated: must peel to the commit
    shas["c2"] = commit(repo, {"a.py": "two\n", "pkg/b.py": None, "pkg/c.py": "bee\n"}, "c2",
                         "2025-02-03T04:05:06+02:00")
    repo.git.checkout("-b", "feature")
    shas["c3"] = commit(repo, {"feat.py": "f\n"}, "c3", "2025-03-04T05:06:07+00:00")
    repo.git.checkout("main")
    shas["path"] = str(tmp_path / "src")
    return shas


@pytest.mark.parametrize(
    ("rev", "commit", "files"),
    [
        ("v1", "c1", {"a.py": b"one\n", "pkg/b.py": b"bee\n", "README": b"r\n"}),
        ("c1", "c1", {"a.py": b"one\n", "pkg/b.py": b"bee\n", "README": b"r\n"}),
        ("c2:short", "c2", {"a.py": b"two\n", "pkg/c.py": b"bee\n", "README": b"r\n"}),
        ("main", "c2", {"a.py": b"two\n", "pkg/c.py": b"bee\n", "README": b"r\n"}),
        ("feature", "c3", {"a.py": b"two\n", "pkg/c.py": b"bee\n", "README": b"r\n", "feat.py": b"f\n"}),
    ],
)
def test_git_revisions(history, rev, commit, files):
    name, _, short = rev.partition(":")
    spec = history[name][:7] if short else history.get(name, name)
    snap = open_git(history["path"], spec)
    assert (snap.kind, snap.commit, snap.ref, snap.repo) == (SourceKind.GIT, history[commit], spec, history["path"])
    assert {p: snap.read(p) for p in snap.blobs} == files
    assert all(snap.blobs[p] == blob_id(data) for p, data in files.items())


@pytest.mark.parametrize(("commit", "date"), [("c1", "2025-01-02T03:04:05+00:00"), ("c2", "2025-02-03T02:05:06+00:00")])
def test_git_commit_date_is_utc_iso(history, commit, date):
    assert open_git(history["path"], history[commit]).commit_date == date


def test_git_moved_file_keeps_blob(history):
    old, new = open_git(history["path"], "v1"), open_git(history["path"], "main")
    assert "pkg/b.py" not in new.blobs and new.blobs["pkg/c.py"] == old.blobs["pkg/b.py"]


def test_git_bare_repo_used_in_place(history, tmp_path):
    bare = git.Repo(history["path"]).clone(tmp_path / "bare.git", bare=True)
    assert open_git(str(bare.git_dir), "v1").commit == history["c1"]


@pytest.mark.parametrize(
    ("repo", "rev", "message"),
    [
        ("{path}", "0" * 40, "unknown revision '0000000000000000000000000000000000000000'"),
        ("{path}", "no-such-branch", "unknown revision 'no-such-branch'"),
        ("{tmp}", "main", "not a git repository"),
        ("{tmp}/missing", "main", "no such git repository"),
        ("file://{tmp}/missing", "main", "cannot clone"),
    ],
)
def test_git_errors_are_one_line(history, tmp_path, repo, rev, message):
    spec = repo.format(path=history["path"], tmp=tmp_path / "plain")
    (tmp_path / "plain").mkdir()
    with pytest.raises(SourceError, match=message) as info:
        open_git(spec, rev, cache_dir=tmp_path / "cache")
    assert "\n" not in str(info.value)


def test_git_url_mirrored_once_then_offline(history, tmp_path):
    url = Path(history["path"]).as_uri()
    cache = tmp_path / "cache"
    assert open_git(url, "v1", cache_dir=cache).commit == history["c1"]
    (mirror,) = (cache / "mirrors").iterdir()
    assert mirror.name.startswith("src-") and git.Repo(mirror).bare
    shutil.rmtree(history["path"])  # a commit already mirrored needs no network
    snap = open_git(url, history["c2"], cache_dir=cache)
    assert snap.read("pkg/c.py") == b"bee\n" and snap.repo == url
    with pytest.raises(SourceError, match="cannot fetch"):
        open_git(url, "f" * 40, cache_dir=cache)


def test_git_url_fetches_unknowncommit(history, tmp_path):
    url, cache = Path(history["path"]).as_uri(), tmp_path / "cache"
    open_git(url, "main", cache_dir=cache)
    new = commit(git.Repo(history["path"]), {"new.py": "n\n"}, "c4", "2025-04-05T06:07:08+00:00")
    assert open_git(url, new, cache_dir=cache).read("new.py") == b"n\n"


@pytest.mark.parametrize(
    ("repo", "rev"),
    [
        ("--upload-pack=touch {marker}", "main"),
        ("-u touch {marker}", "main"),
        ("ext::sh -c touch% {marker}", "main"),
        ("ext://sh -c touch {marker}", "main"),
        ("fd::0", "main"),
        ("file:///x --upload-pack=touch {marker}", "main"),
        ("{path}", "--output={marker}"),
        ("{path}", "-u"),
    ],
)
def test_git_option_injection_refused(history, tmp_path, repo, rev):
    marker = tmp_path / "pwned"
    fmt = {"marker": marker, "path": history["path"]}
    with pytest.raises(SourceError, match="refusing"):
        open_git(repo.format(**fmt), rev.format(**fmt), cache_dir=tmp_path / "cache")
    assert not marker.exists()


def test_git_local_path_may_contain_dash(history, tmp_path):
    moved = Path(shutil.move(history["path"], tmp_path / "a -b"))
    assert open_git(str(moved), "v1").commit == history["c1"]


def test_git_symlink_blobs_are_not_files(tmp_path):
    repo = git.Repo.init(tmp_path / "src", initial_branch="main")
    assert repo.working_tree_dir is not None
    root = Path(repo.working_tree_dir)
    (root / "pkg").mkdir()
    (root / "pkg" / "real.py").write_text("x = 1\n")
    (root / "pkg" / "alias.py").symlink_to("real.py")
    (root / "pkg" / "leak.py").symlink_to("../../secret.py")
    (root / "abs.py").symlink_to("/etc/passwd")
    repo.git.add("-A")
    repo.index.commit("links", author=ME, committer=ME)
    snap = open_git(str(root), "main")
    assert sorted(snap.blobs) == ["pkg/real.py"]
    assert snap.diagnostics == (OUT_NOTE + "abs.py", OUT_NOTE + "pkg/leak.py")


def test_git_read_unknown_path(history):
    with pytest.raises(SourceError, match="not in"):
        open_git(history["path"], "main").read("nope.py")


# ------------------------------------------------------------------- revisions


@pytest.mark.parametrize(
    ("revs", "tag_c2", "expected"),
    [
        (["v1"], False, [("v1", "c1")]),
        (["main", "v1"], False, [("main", "c2"), ("v1", "c1")]),
        (["v1..main"], False, [("v1", "c1"), ("main", "c2")]),
        (["v1.."], False, [("v1", "c1"), ("c2:short", "c2")]),  # B defaults to HEAD, unnamed
        (["v1..feature"], False, [("v1", "c1"), ("c2:short", "c2"), ("feature", "c3")]),
        (["v1..feature"], True, [("v1", "c1"), ("v2", "c2"), ("feature", "c3")]),  # a tag names a commit
        (["main..feature"], False, [("main", "c2"), ("feature", "c3")]),
    ],
)
def test_list_revisions(history, revs, tag_c2, expected):
    if tag_c2:
        git.Repo(history["path"]).create_tag("v2", ref=history["c2"])
    label = {"c2:short": history["c2"][:12]}
    assert list_revisions(history["path"], revs) == [Revision(label.get(n, n), history[c]) for n, c in expected]


def test_list_revisions_of_a_url_reads_its_mirror(history, tmp_path):
    url = Path(history["path"]).as_uri()
    assert list_revisions(url, ["main"], cache_dir=tmp_path / "cache") == [Revision("main", history["c2"])]
    assert [p.name.startswith("src-") for p in (tmp_path / "cache" / "mirrors").iterdir()] == [True]


@pytest.mark.parametrize(
    ("repo", "revs", "message"),
    [
        ("{path}", ["nope"], "unknown revision 'nope'"),
        ("{path}", ["v1..nope"], "unknown revision 'nope'"),
        ("{path}", ["-x"], "refusing revision that starts with '-'"),
        ("{path}", ["v1..-x"], "refusing revision that starts with '-'"),
        ("{tmp}", ["main"], "not a git repository"),
    ],
)
def test_list_revisions_errors(history, tmp_path, repo, revs, message):
    with pytest.raises(SourceError, match=message):
        list_revisions(repo.format(path=history["path"], tmp=tmp_path), revs)


@pytest.mark.parametrize(("branch", "commit"), [("main", "c2"), ("feature", "c3")])
def test_branch_head(history, branch, commit):
    assert branch_head(history["path"], branch) == history[commit]


def test_branch_head_unknown_branch(history):
    with pytest.raises(SourceError, match="no branch 'nope' in "):
        branch_head(history["path"], "nope")


def test_branch_head_of_a_url_fetches_its_mirror(history, tmp_path):
    url, cache = Path(history["path"]).as_uri(), tmp_path / "cache"
    assert branch_head(url, "main", cache_dir=cache) == history["c2"]
    new = commit(git.Repo(history["path"]), {"new.py": "n\n"}, "c4", "2025-04-05T06:07:08+00:00")
    assert branch_head(url, "main", cache_dir=cache) == new


# ------------------------------------------------------------------- directory


def test_directory_lists_py_files_only(tmp_path):
    for rel in ("a.py", "pkg/b.py", "pkg/data.txt", ".git/hook.py", ".venv/lib/x.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(rel)
    snap = open_directory(tmp_path)
    assert sorted(snap.blobs) == ["a.py", "pkg/b.py"]
    assert (snap.kind, snap.ref, snap.commit) == (SourceKind.DIRECTORY, str(tmp_path), None)
    assert snap.read("pkg/b.py") == b"pkg/b.py" and snap.blobs["a.py"] == blob_id(b"a.py")


@pytest.mark.parametrize("name", ["missing", "file.py"])
def test_directory_errors(tmp_path, name):
    (tmp_path / "file.py").write_text("")
    with pytest.raises(SourceError, match="not a directory"):
        open_directory(tmp_path / name)


# Symlinks: never followed out of the tree, and never read as files. A link whose target
# lies inside the tree is skipped silently (the target is read under its own path, as the
# git source of the same tree does); one leading out is skipped and named in diagnostics.
SECRET = "TOP-SECRET-marker"
OUT_NOTE = "symlink leads outside the source tree, not read: "


@pytest.fixture()
def linked(tmp_path: Path) -> Path:
    """tree/ with a real module and links of every kind; outside/ holds a secret."""
    outside, tree = tmp_path / "outside", tmp_path / "tree"
    (outside / "pkg").mkdir(parents=True)
    (outside / "secret.py").write_text(f"raise ValueError('{SECRET}')\n")
    (outside / "pkg" / "deep.py").write_text(f"raise ValueError('{SECRET}')\n")
    (tree / "pkg" / "sub").mkdir(parents=True)
    (tree / "pkg" / "real.py").write_text("raise ValueError('real')\n")
    links = {
        "pkg/leak.py": outside / "secret.py",  # absolute, to a file
        "pkg/sub/rel.py": Path("../../../outside/secret.py"),  # relative, at depth
        "pkg/ext": outside / "pkg",  # a directory
        "pkg/dangling.py": outside / "gone.py",  # broken, still outside
        "pkg/alias.py": Path("real.py"),  # inside: skipped silently
        "pkg/sub/up": Path(".."),  # inside, a cycle
        "pkg/loop_a.py": Path("loop_b.py"),  # a cycle of file links
        "pkg/loop_b.py": Path("loop_a.py"),
        "pkg/chain.py": Path("leak.py"),  # inside, but leads on out of the tree
    }
    for link, target in links.items():
        (tree / link).symlink_to(target)
    return tree


def test_directory_never_follows_symlinks(linked):
    snap = open_directory(linked)
    assert sorted(snap.blobs) == ["pkg/real.py"]
    assert snap.diagnostics == tuple(OUT_NOTE + p for p in
                                     ["pkg/chain.py", "pkg/dangling.py", "pkg/ext", "pkg/leak.py", "pkg/sub/rel.py"])


def test_directory_root_may_be_a_symlink(linked, tmp_path):
    (tmp_path / "via").symlink_to(linked)
    assert sorted(open_directory(tmp_path / "via").blobs) == ["pkg/real.py"]


def test_directory_link_catalog_holds_no_secret(linked, tmp_path):
    from errcat.cli import main

    (tmp_path / "tiny.yaml").write_text("name: tiny\nrepo: example/tiny\ntargets:\n  - pkg/**/*.py\n")
    out = tmp_path / "out"
    assert main(["extract", "--path", str(linked), "--profile", str(tmp_path / "tiny.yaml"),
                 "--out", str(out), "--no-cache"]) == 0
    data = json.loads((out / "catalog.json").read_text())
    assert [e["template"] for e in data["entries"]] == ["real"]
    assert OUT_NOTE + "pkg/leak.py" in data["diagnostics"]
    assert not any(SECRET in f.read_text() for f in out.rglob("*") if f.is_file())


def test_directory_reader_refuses_a_file_swapped_for_a_link(linked, tmp_path):
    snap = open_directory(linked)
    (linked / "pkg" / "real.py").unlink()
    (linked / "pkg" / "real.py").symlink_to(tmp_path / "outside" / "secret.py")
    with pytest.raises(SourceError, match="symlink"):
        snap.read("pkg/real.py")


# --------------------------------------------------------------------- release


def _wheel(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buf.getvalue()


def _sdist(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return buf.getvalue()


WHEEL = _wheel({
    "sglang/__init__.py": b"",
    "sglang/srt/server_args.py": b"raise ValueError('x')\n",
    "sglang/srt/data.json": b"{}",
    "sglang-9.0.dist-info/METADATA": b"Name: sglang\n",
})


class FakeIndex:
    """A PyPI-like JSON API on 127.0.0.1 serving `routes`; counts requests."""

    def __init__(self) -> None:
        self.routes: dict[str, bytes] = {}
        self.hits: list[str] = []
        index = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                index.hits.append(self.path)
                body = index.routes.get(self.path)
                self.send_response(200 if body is not None else 404)
                self.end_headers()
                self.wfile.write(body or b"")

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def release(self, version: str, files: dict[str, bytes], *, per_version: bool = True,
                digest: str | None = None) -> None:
        urls: list[dict[str, Any]] = []
        for name, data in files.items():
            self.routes[f"/files/{name}"] = data
            urls.append({"filename": name, "url": f"{self.url}/files/{name}", "size": len(data),
                         "digests": {"sha256": digest or hashlib.sha256(data).hexdigest()},
                         "upload_time_iso_8601": "2025-05-06T07:08:09.123456Z"})
        if per_version:
            self.routes[f"/pypi/sglang/{version}/json"] = json.dumps({"urls": urls}).encode()
        else:  # project document only, with file URLs relative to it (as some mirrors do)
            rel = [{**u, "url": "../../files/" + u["filename"]} for u in urls]
            self.routes["/pypi/sglang/json"] = json.dumps(
                {"info": {"version": version}, "releases": {version: rel}}).encode()


@pytest.fixture(scope="module")
def _server():
    fake = FakeIndex()
    yield fake
    fake.server.shutdown()
    fake.server.server_close()


@pytest.fixture()
def index(_server):
    _server.routes.clear()
    _server.hits.clear()
    return _server


def test_release_reads_py_files_in_repo_layout(index, tmp_path):
    index.release("9.0", {"sglang-9.0-py3-none-any.whl": WHEEL})
    snap = open_release(PROFILE, "9.0", cache_dir=tmp_path, index_url=f"{index.url}/pypi")
    assert sorted(snap.blobs) == ["python/sglang/__init__.py", "python/sglang/srt/server_args.py"]
    assert snap.read("python/sglang/srt/server_args.py") == b"raise ValueError('x')\n"
    assert (snap.kind, snap.ref, snap.release, snap.commit, snap.commit_date) == (
        SourceKind.RELEASE, "9.0", "9.0", None, "2025-05-06T07:08:09+00:00")
    assert (tmp_path / "downloads" / "sglang-9.0-py3-none-any.whl").is_file()


def test_release_cached_needs_no_network(index, tmp_path):
    index.release("9.0", {"sglang-9.0-py3-none-any.whl": WHEEL})
    first = open_release(PROFILE, "9.0", cache_dir=tmp_path, index_url=f"{index.url}/pypi")
    index.hits.clear()
    again = open_release(PROFILE, "9.0", cache_dir=tmp_path, index_url=f"{index.url}/pypi")
    assert index.hits == [] and again.blobs == first.blobs


def test_release_project_document_fallback(index, tmp_path):
    index.release("9.0", {"sglang-9.0-py3-none-any.whl": WHEEL}, per_version=False)
    snap = open_release(PROFILE, "9.0", cache_dir=tmp_path, index_url=f"{index.url}/pypi")
    assert "python/sglang/srt/server_args.py" in snap.blobs


def test_release_sdist_layouts(index, tmp_path):
    sdist = _sdist({"sglang-9.0/sglang/a.py": b"a", "sglang-9.0/python/sglang/b.py": b"b",
                    "sglang-9.0/setup.py": b"", "sglang-9.0/sglang/c.txt": b""})
    index.release("9.0", {"sglang-9.0.tar.gz": sdist})
    snap = open_release(PROFILE, "9.0", cache_dir=tmp_path, index_url=f"{index.url}/pypi")
    assert {p: snap.read(p) for p in snap.blobs} == {"python/sglang/a.py": b"a", "python/sglang/b.py": b"b"}


def _link(info: zipfile.ZipInfo | tarfile.TarInfo) -> None:
    if isinstance(info, zipfile.ZipInfo):
        info.create_system = 3  # unix: the mode below is honoured
        info.external_attr = (0o120777 << 16)
    else:
        info.type = tarfile.SYMTYPE


def test_release_wheel_symlink_members_not_read(index, tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("sglang/real.py", b"x = 1\n")
        info = zipfile.ZipInfo("sglang/leak.py")
        _link(info)
        zf.writestr(info, b"/etc/passwd")
    index.release("9.0", {"sglang-9.0-py3-none-any.whl": buf.getvalue()})
    snap = open_release(PROFILE, "9.0", cache_dir=tmp_path, index_url=f"{index.url}/pypi")
    assert sorted(snap.blobs) == ["python/sglang/real.py"]


def test_release_sdist_symlink_members_not_read(index, tmp_path):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        tf.addfile(tarfile.TarInfo("sglang-9.0/sglang/real.py"), io.BytesIO(b""))
        for name, target in [("sglang-9.0/sglang/leak.py", "/etc/passwd"), ("sglang-9.0/sglang/alias.py", "real.py")]:
            info = tarfile.TarInfo(name)
            _link(info)
            info.linkname = target
            tf.addfile(info)
    index.release("9.0", {"sglang-9.0.tar.gz": buf.getvalue()})
    snap = open_release(PROFILE, "9.0", cache_dir=tmp_path, index_url=f"{index.url}/pypi")
    assert sorted(snap.blobs) == ["python/sglang/real.py"]
    assert snap.diagnostics == (OUT_NOTE + "sglang-9.0/sglang/leak.py",)


def test_release_digest_mismatch_leaves_no_file(index, tmp_path):
    index.release("9.0", {"sglang-9.0-py3-none-any.whl": WHEEL}, digest="0" * 64)
    with pytest.raises(SourceError, match="sha256 mismatch"):
        open_release(PROFILE, "9.0", cache_dir=tmp_path, index_url=f"{index.url}/pypi")
    assert [p.name for p in (tmp_path / "downloads").iterdir()] == ["sglang-9.0.json"]


@pytest.mark.parametrize(
    ("version", "index_url", "message"),
    [
        ("9.9.9", "{url}/pypi", r"release sglang==9\.9\.9 not found on the index"),
        ("9.0", "http://127.0.0.1:9/pypi", "cannot reach the package index"),
        ("../9.0", "{url}/pypi", "invalid version"),
    ],
)
def test_release_errors(index, tmp_path, version, index_url, message):
    with pytest.raises(SourceError, match=message):
        open_release(PROFILE, version, cache_dir=tmp_path, index_url=index_url.format(url=index.url))


@pytest.mark.parametrize(
    ("names", "chosen"),
    [
        (["s-1.tar.gz", "s-1-cp311-cp311-linux.whl", "s-1-py3-none-any.whl"], "s-1-py3-none-any.whl"),
        (["s-1-cp312-cp312-linux.whl", "s-1.tar.gz", "s-1-cp311-cp311-linux.whl"], "s-1-cp311-cp311-linux.whl"),
        (["s-1.zip", "s-1.tar.gz"], "s-1.tar.gz"),
    ],
)
def test_choose_file(names, chosen):
    assert choose_file([{"filename": n} for n in names])["filename"] == chosen


def test_choose_file_nothing_usable():
    with pytest.raises(SourceError, match="neither a wheel nor"):
        choose_file([{"filename": "s-1.zip"}])


def test_latest_release(index):
    index.release("9.1", {"sglang-9.1-py3-none-any.whl": WHEEL}, per_version=False)
    assert latest_release(PROFILE, index_url=f"{index.url}/pypi") == "9.1"


# ----------------------------------------------------------------------- cache


@pytest.mark.parametrize(
    ("explicit", "env", "expected"),
    [
        ("/x", {"ERRCAT_CACHE_DIR": "/e", "XDG_CACHE_HOME": "/xdg"}, "/x"),
        (None, {"ERRCAT_CACHE_DIR": "/e", "XDG_CACHE_HOME": "/xdg"}, "/e"),
        (None, {"XDG_CACHE_HOME": "/xdg"}, "/xdg/errcat"),
        (None, {"XDG_CACHE_HOME": "relative"}, "~/.cache/errcat"),
        (None, {}, "~/.cache/errcat"),
    ],
)
def test_cache_root(monkeypatch, explicit, env, expected):
    for key in ("ERRCAT_CACHE_DIR", "XDG_CACHE_HOME"):
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert cache_root(explicit) == Path(expected).expanduser()


# --------------------------------------------------------------------- network


@pytest.mark.network
def test_real_release_has_server_args():
    snap = open_release(PROFILE, "0.4.10", cache_dir=_network_cache())
    assert "python/sglang/srt/server_args.py" in snap.blobs
    assert b"class ServerArgs" in snap.read("python/sglang/srt/server_args.py")
