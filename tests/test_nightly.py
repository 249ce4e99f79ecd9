"""scripts/nightly.py on small git repos built here (local paths and file:// URLs)."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import git
import pytest
import yaml

from output.writer import as_text

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("nightly", ROOT / "scripts" / "nightly.py")
assert _spec is not None and _spec.loader is not None
nightly = importlib.util.module_from_spec(_spec)
sys.modules["nightly"] = nightly
_spec.loader.exec_module(nightly)

PROFILE = "name: tiny\nrepo: example/tiny\ntargets:\n  - pkg/**/*.py\n"
A_PY = "def check(args):\n    if args.port < 0:\n        raise ValueError('port must be >= 0')\n"
B_PY = "def mode(args):\n    assert args.mode in ('x', 'y'), 'mode must be x or y'\n"
ME = git.Actor("T", "t@example.invalid")


class Repo:
    def __init__(self, path: Path) -> None:
        self.handle = git.Repo.init(path, initial_branch="main")
        self.path = path

    def commit(self, files: dict[str, str | None], msg: str = "c") -> str:
        for rel, text in files.items():
            if text is None:
                self.handle.index.remove([rel], working_tree=True)
            else:
                (self.path / rel).parent.mkdir(parents=True, exist_ok=True)
                (self.path / rel).write_text(text)
                self.handle.index.add([rel])
        return self.handle.index.commit(msg, author=ME, committer=ME).hexsha


@pytest.fixture()
def setup(tmp_path) -> dict[str, Any]:
    repo = Repo(tmp_path / "repo")
    first = repo.commit({"pkg/a.py": A_PY})
    (tmp_path / "tiny.yaml").write_text(PROFILE)
    config = {"root": "pub", "cache_dir": str(tmp_path / "cache"), "jobs": 1,
              "targets": [{"name": "tiny", "profile": "tiny.yaml", "repo": "repo", "branch": "main"}]}
    (tmp_path / "nightly.yaml").write_text(yaml.safe_dump(config))
    return {"tmp": tmp_path, "repo": repo, "first": first, "config": str(tmp_path / "nightly.yaml"),
            "pub": tmp_path / "pub" / "tiny"}


def run(setup: dict[str, Any], capsys) -> tuple[int, str, str]:
    code = nightly.main(["--config", setup["config"]])
    out, err = capsys.readouterr()
    return code, out, err


def stamps(root: Path) -> dict[str, tuple[int, int]]:
    return {p.relative_to(root).as_posix(): (p.lstat().st_ino, p.lstat().st_mtime_ns)
            for p in root.rglob("*") if p.name != ".nightly.lock"}


def test_first_run_publishes_commit_latest_and_changelog(setup, capsys):
    code, out, _ = run(setup, capsys)
    pub, first = setup["pub"], setup["first"]
    assert code == 0 and out == f"tiny: published {first} (1 changes)\n"
    assert os.readlink(pub / "latest") == first and (pub / "latest" / "catalog.json").is_file()
    assert json.loads((pub / "latest.json").read_text())["commit"] == first
    assert json.loads((pub / first / "changes.json").read_text())["counts"]["added"] == 1
    assert "### New errors (1)" in (pub / "CHANGELOG.md").read_text()


def test_each_publish_rebuilds_the_site_of_the_published_catalogs(setup, capsys):
    run(setup, capsys)
    second = setup["repo"].commit({"pkg/b.py": B_PY})
    run(setup, capsys)
    site = setup["pub"] / "site"
    index = json.loads((site / "api" / "index.json").read_text())
    assert [r["label"] for r in index["releases"]] == [second[:12], setup["first"][:12]]  # newest first
    assert (site / "index.html").is_file() and (site / "versions.html").is_file()


def test_an_unchanged_head_builds_a_missing_site(setup, capsys):
    run(setup, capsys)
    import shutil

    shutil.rmtree(setup["pub"] / "site")
    assert run(setup, capsys)[0] == 0 and (setup["pub"] / "site" / "index.html").is_file()


def test_second_run_on_unchanged_head_rewrites_nothing(setup, capsys):
    assert run(setup, capsys)[0] == 0
    before = stamps(setup["tmp"] / "pub")
    code, out, _ = run(setup, capsys)
    assert code == 0 and out == f"tiny: unchanged at {setup['first']}\n"
    assert stamps(setup["tmp"] / "pub") == before


def test_new_head_publishes_the_step(setup, capsys):
    run(setup, capsys)
    second = setup["repo"].commit({"pkg/a.py": A_PY.replace(">= 0", "> 0"), "pkg/b.py": B_PY})
    code, out, _ = run(setup, capsys)
    pub = setup["pub"]
    assert code == 0 and out == f"tiny: published {second} (2 changes)\n"
    assert os.readlink(pub / "latest") == second and (pub / setup["first"] / "catalog.json").is_file()
    kinds = sorted(c["kind"] for c in json.loads((pub / second / "changes.json").read_text())["changes"])
    assert kinds == ["added", "message-changed"]
    log = (pub / "CHANGELOG.md").read_text()
    assert log.index(f"errcat:{second}") < log.index(f"errcat:{setup['first']}")


def test_failure_keeps_the_last_catalog_and_says_why(setup, capsys):
    run(setup, capsys)
    before = stamps(setup["tmp"] / "pub")
    setup["repo"].commit({"pkg/a.py": None, "other.py": "x = 1\n"})  # no target files any more
    code, out, err = run(setup, capsys)
    assert code == 1 and out == "" and err.startswith("nightly: tiny: no target files") and err.count("\n") == 1
    assert stamps(setup["tmp"] / "pub") == before


def test_missing_branch_is_a_one_line_failure(setup, capsys):
    cfg = yaml.safe_load(Path(setup["config"]).read_text())
    cfg["targets"][0]["branch"] = "nope"
    Path(setup["config"]).write_text(yaml.safe_dump(cfg))
    code, _, err = run(setup, capsys)
    assert code == 1 and err == "nightly: tiny: no branch 'nope' in " + str(setup["repo"].path) + "\n"


def test_lock_held_refuses_a_second_run(setup, capsys):
    lock = setup["tmp"] / "pub" / ".nightly.lock"
    with nightly.run_lock(lock):
        code, out, err = run(setup, capsys)
    assert code == 3 and out == "" and "another nightly run holds" in err and str(os.getpid()) in err
    assert not (setup["pub"] / "latest").exists()


def test_url_target_is_mirrored_and_fetched(setup, capsys):
    cfg = yaml.safe_load(Path(setup["config"]).read_text())
    cfg["targets"][0]["repo"] = setup["repo"].path.as_uri()
    Path(setup["config"]).write_text(yaml.safe_dump(cfg))
    assert run(setup, capsys)[0] == 0
    second = setup["repo"].commit({"pkg/b.py": B_PY})
    code, out, _ = run(setup, capsys)
    assert code == 0 and out == f"tiny: published {second} (1 changes)\n"


@pytest.mark.parametrize("config, message", [
    ("[1, 2]", "expected a mapping"),
    ("targets: []", "missing 'root'"),
    ("root: x\ntargets: []", "non-empty list"),
    ("root: x\ntargets: [{profile: tiny.yaml}]", "exactly one of 'repo' or 'release'"),
    ("root: x\ntargets: [{name: ../up, release: latest}]", "relative path"),
    ("root: x\njobs: 0\ntargets: [{name: a, release: latest}]", "'jobs' must be a positive integer"),
    ("root: x\ntargets: [{name: a, release: '1'}, {name: a, release: '2'}]", "same name"),
    ("root: [unclosed", "not valid YAML"),
])
def test_bad_config_exit_2(tmp_path, capsys, config, message):
    (tmp_path / "n.yaml").write_text(config)
    assert nightly.main(["--config", str(tmp_path / "n.yaml")]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_cumulative_changelog_replaces_a_section_for_the_same_pin():
    text = nightly.cumulative_changelog("", "a", "## one")
    text = nightly.cumulative_changelog(text, "b", "## two")
    text = nightly.cumulative_changelog(text, "b", "## two again")
    assert text.count("errcat:b") == 1 and "two again" in text and text.index("errcat:b") < text.index("errcat:a")


def test_example_config_parses():
    config = nightly.load_config(str(ROOT / "scripts" / "nightly.example.yaml"))
    assert [t.name for t in config.targets] == ["sgl-project/sglang", "sglang-releases"]


def test_runs_as_a_script(setup):
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "nightly.py"), "--config", setup["config"]],
                          check=False, capture_output=True, text=True, cwd=setup["tmp"])
    assert proc.returncode == 0 and proc.stdout.startswith("tiny: published"), proc.stderr


@pytest.mark.network
def test_release_target_publishes_once(tmp_path, capsys):
    from tests.conftest import test_cache_dir

    config = {"root": str(tmp_path / "pub"), "cache_dir": str(test_cache_dir()), "jobs": 2,
              "targets": [{"name": "sglang-0.4.10", "release": "0.4.10"}]}
    (tmp_path / "n.yaml").write_text(yaml.safe_dump(config))
    assert nightly.main(["--config", str(tmp_path / "n.yaml")]) == 0
    assert capsys.readouterr().out.startswith("sglang-0.4.10: published 0.4.10 (")
    assert nightly.main(["--config", str(tmp_path / "n.yaml")]) == 0
    assert capsys.readouterr().out == "sglang-0.4.10: unchanged at 0.4.10\n"
    assert os.readlink(tmp_path / "pub" / "sglang-0.4.10" / "latest") == "0.4.10"


# ------------------------------------------------------------------ issue 10: incomplete catalogs


def _incomplete(monkeypatch, paths: list[str]) -> None:
    """The next catalog says `paths` could not be analysed (as an out-of-memory file does)."""
    real = nightly.pipeline.catalog_files

    def catalog_files(*args, **kwargs):
        files, summary, cached = real(*args, **kwargs)
        data = json.loads(as_text(files["catalog.json"]))
        data["incomplete"] = [{"path": p, "reason": "out of memory"} for p in paths]
        return {**files, "catalog.json": json.dumps(data)}, summary, cached

    monkeypatch.setattr(nightly.pipeline, "catalog_files", catalog_files)


def test_a_catalog_that_lost_a_published_file_is_not_published(setup, capsys, monkeypatch):
    run(setup, capsys)
    before = stamps(setup["tmp"] / "pub")
    setup["repo"].commit({"pkg/b.py": B_PY})
    _incomplete(monkeypatch, ["pkg/a.py"])
    code, out, err = run(setup, capsys)
    assert code == 1 and out == ""
    assert err == "nightly: tiny: catalog incomplete: pkg/a.py could not be analysed (out of memory), " \
                  "the published catalog has it; not published\n"
    assert stamps(setup["tmp"] / "pub") == before


def test_a_catalog_incomplete_only_for_a_new_file_is_published(setup, capsys, monkeypatch):
    run(setup, capsys)
    second = setup["repo"].commit({"pkg/b.py": B_PY})
    _incomplete(monkeypatch, ["pkg/b.py"])
    code, out, _ = run(setup, capsys)
    assert code == 0 and out.startswith(f"tiny: published {second}")


# ------------------------------------------------------------------ issue 10: files nightly did not write


@pytest.mark.parametrize("name", ["CHANGELOG.md", "latest.json", "latest"])
def test_a_user_file_where_nightly_publishes_is_not_overwritten(setup, capsys, name):
    setup["pub"].mkdir(parents=True)
    (setup["pub"] / name).write_text("mine")
    code, out, err = run(setup, capsys)
    assert code == 1 and out == "" and err.count("\n") == 1
    assert err.startswith(f"nightly: tiny: refusing to overwrite {setup['pub'] / name}: not written by nightly")
    assert sorted(p.name for p in setup["pub"].iterdir()) == [name] and (setup["pub"] / name).read_text() == "mine"


def test_republishing_a_pin_keeps_a_user_file_in_it(setup, capsys):
    run(setup, capsys)
    setup["repo"].commit({"pkg/b.py": B_PY})
    run(setup, capsys)
    (setup["pub"] / setup["first"] / "notes.txt").write_text("mine")
    setup["repo"].handle.git.reset("--hard", setup["first"])  # the branch moves back to a published pin
    code, _, err = run(setup, capsys)
    assert code == 1 and err.count("\n") == 1 and "notes.txt was not written by errcat" in err
    assert (setup["pub"] / setup["first"] / "notes.txt").read_text() == "mine"


def test_staging_of_a_killed_run_is_removed_by_the_next(setup, capsys):
    run(setup, capsys)
    script = (f"import os, signal\nfrom output.writer import atomic_dir\n"
              f"with atomic_dir({str(setup['pub'] / 'deadbeef')!r}) as s:\n"
              f"    (s / 'catalog.json').write_text('half')\n    os.kill(os.getpid(), signal.SIGKILL)\n")
    assert subprocess.run([sys.executable, "-c", script], cwd=ROOT, check=False).returncode == -9
    assert any(".errcat-new-" in p.name for p in setup["pub"].iterdir())
    second = setup["repo"].commit({"pkg/b.py": B_PY})
    assert run(setup, capsys)[0] == 0
    assert sorted(p.name for p in setup["pub"].iterdir()) == sorted(
        ["CHANGELOG.md", "latest", "latest.json", "site", setup["first"], second])


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root (CI runs as root)")
def test_cache_owned_by_another_user_is_not_used(setup, capsys):
    cache = setup["tmp"] / "cache"
    (cache / "results").mkdir(parents=True)
    for path in (cache, cache / "results"):
        os.chown(path, 65534, 65534)
    code, out, err = run(setup, capsys)
    assert code == 0 and out == f"tiny: published {setup['first']} (1 changes)\n"
    assert err.splitlines() == [f"nightly: warning: not using the cache at {cache}: {cache} is owned by uid 65534, "
                                "not by you; running without it"]
    assert [p.name for p in cache.iterdir()] == ["results"] and not any((cache / "results").iterdir())
