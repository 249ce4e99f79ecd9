"""Release history repositories: one deterministic, tagged commit per release."""
from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import git
import pytest

from extractor.errors import SourceError
from extractor.history_repo import build_release_history, default_paths, version_key
from extractor.profile import load_profile
from extractor.source import open_git

PROFILE = load_profile()
ROOT = Path(__file__).resolve().parents[1]

RELEASES = {  # version -> wheel contents; 2.0 drops old.py and adds arg_groups/new.py
    "1.0": {"sglang/srt/server_args.py": b"v1\n", "sglang/srt/old.py": b"old\n", "sglang/other.py": b"o\n"},
    "2.0": {"sglang/srt/server_args.py": b"v2\n", "sglang/srt/arg_groups/new.py": b"new\n"},
    "10.0": {"sglang/srt/server_args.py": b"v10\n"},
}


def _network_cache() -> Path:
    return Path(os.environ.get("ERRCAT_TEST_CACHE") or Path.home() / ".cache" / "errcat-tests")


@pytest.fixture()
def index(tmp_path: Path) -> str:
    """A file:// package index: <dist>/<version>/json plus the wheels it names."""
    root = tmp_path / "index"
    for n, (version, files) in enumerate(RELEASES.items()):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as zf:
            for name, data in files.items():
                zf.writestr(name, data)
        wheel = root / "files" / f"sglang-{version}-py3-none-any.whl"
        wheel.parent.mkdir(parents=True, exist_ok=True)
        wheel.write_bytes(buf.getvalue())
        meta = {"urls": [{"filename": wheel.name, "url": wheel.as_uri(), "size": wheel.stat().st_size,
                          "digests": {"sha256": hashlib.sha256(buf.getvalue()).hexdigest()},
                          "upload_time_iso_8601": f"2025-0{n + 1}-01T00:00:00Z"}]}
        (root / "sglang" / version).mkdir(parents=True)
        (root / "sglang" / version / "json").write_text(json.dumps(meta))
    return root.as_uri()


def _build(tmp_path: Path, index: str, name: str, versions: list[str], **kw):
    return build_release_history(tmp_path / name, versions, profile=PROFILE,
                                 cache_dir=tmp_path / "cache", index_url=index, **kw)


@pytest.mark.parametrize(
    ("versions", "ordered"),
    [
        (["0.5.23", "0.4.10", "0.5.3"], ["0.4.10", "0.5.3", "0.5.23"]),
        (["0.5.3.post1", "0.5.3", "0.5.3rc2", "0.5.3rc0"], ["0.5.3rc0", "0.5.3rc2", "0.5.3", "0.5.3.post1"]),
        (["1.0.dev1", "1.0", "1.0a1"], ["1.0.dev1", "1.0a1", "1.0"]),
    ],
)
def test_version_key_orders_numerically(versions, ordered):
    assert sorted(versions, key=version_key) == ordered


def test_default_paths_from_profile():
    assert default_paths(PROFILE) == ["python/sglang/srt/**/*.py"]


def test_commits_are_releases_oldest_first(tmp_path, index):
    commits = _build(tmp_path, index, "h", ["10.0", "1.0", "2.0"])
    repo = git.Repo(tmp_path / "h")
    assert [v for v, _ in commits] == ["1.0", "2.0", "10.0"]
    assert {t.name: t.commit.hexsha for t in repo.tags} == {f"v{v}": sha for v, sha in commits}
    assert [c.hexsha for c in repo.iter_commits("main")] == [sha for _, sha in reversed(commits)]
    assert not repo.bare and not repo.is_dirty(untracked_files=True)
    assert (tmp_path / "h" / "python/sglang/srt/server_args.py").read_text() == "v10\n"


def test_each_commit_replaces_the_tree(tmp_path, index):
    _build(tmp_path, index, "h", ["1.0", "2.0"])
    trees = {v: sorted(open_git(str(tmp_path / "h"), f"v{v}").blobs) for v in ("1.0", "2.0")}
    assert trees == {
        "1.0": ["python/sglang/srt/old.py", "python/sglang/srt/server_args.py"],
        "2.0": ["python/sglang/srt/arg_groups/new.py", "python/sglang/srt/server_args.py"],
    }


def test_same_inputs_same_shas(tmp_path, index):
    assert _build(tmp_path, index, "a", ["1.0", "2.0"]) == _build(tmp_path, index, "b", ["2.0", "1.0"])


def test_paths_restrict_files(tmp_path, index):
    _build(tmp_path, index, "h", ["1.0"], paths=["python/sglang/*.py"])
    assert sorted(open_git(str(tmp_path / "h"), "v1.0").blobs) == ["python/sglang/other.py"]


@pytest.mark.parametrize(
    ("versions", "setup", "message"),
    [
        (["1.0"], "nonempty", "not empty"),
        (["1.x"], None, "cannot order version"),
        ([], None, "no versions"),
        (["1.0", "3.0"], None, "cannot reach"),  # file:// index: a missing document
    ],
)
def test_bad_input(tmp_path, index, versions, setup, message):
    if setup == "nonempty":
        (tmp_path / "h").mkdir()
        (tmp_path / "h" / "x").write_text("")
    with pytest.raises(SourceError, match=message):
        _build(tmp_path, index, "h", versions)
    assert setup or not (tmp_path / "h").exists()


def test_script_prints_commits_and_exits_2_on_bad_input(tmp_path, index):
    script = [sys.executable, str(ROOT / "scripts" / "release_history.py")]
    common = ["--cache-dir", str(tmp_path / "cache"), "--index-url", index]
    ok = subprocess.run([*script, str(tmp_path / "h"), "--versions", "2.0", "1.0", *common],
                        capture_output=True, text=True, check=False)
    assert ok.returncode == 0 and [ln.split()[0] for ln in ok.stdout.splitlines()] == ["v1.0", "v2.0"]
    bad = subprocess.run([*script, str(tmp_path / "h"), "--versions", "1.0", *common],
                         capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "not empty" in bad.stderr


@pytest.mark.network
def test_real_history_adds_lora_hook_at_0_5_23(tmp_path):
    paths = ["python/sglang/srt/server_args.py", "python/sglang/srt/arg_groups/**/*.py",
             "python/sglang/srt/environ.py"]
    commits = build_release_history(tmp_path / "h", ["0.5.23", "0.5.18"], profile=PROFILE,
                                    cache_dir=_network_cache(), paths=paths)
    repo = git.Repo(tmp_path / "h")
    assert [v for v, _ in commits] == ["0.5.18", "0.5.23"] and len(list(repo.iter_commits())) == 2
    assert sorted(t.name for t in repo.tags) == ["v0.5.18", "v0.5.23"]
    hook = "python/sglang/srt/arg_groups/lora_hook.py"
    assert [hook in open_git(str(tmp_path / "h"), f"v{v}").blobs for v, _ in commits] == [False, True]
