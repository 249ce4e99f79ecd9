"""analyzers.lineage + `errcat history` over small git repos built here."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import git
import pytest

from analyzers.lineage import Rev, build_history
from errcat import versions
from errcat.cli import main
from output.diff_formats import render_history


def entry(id: str, template: str, path: str = "a.py", function: str = "check") -> dict[str, Any]:
    return {"id": id, "exception": "ValueError", "template": template,
            "source": {"path": path, "line": 1, "function": function},
            "trigger": {"text": "", "flags": [], "env": []}, "variants": []}


def cat(*entries: dict[str, Any]) -> dict[str, Any]:
    return {"entries": list(entries)}


STEPS = [
    (Rev("v1"), cat(entry("a1", "port must be >= 0"), entry("g1", "going away soon"))),
    (Rev("v2"), cat(entry("a2", "port must be >= 0", path="hooks.py", function="check_port"),
                    entry("g1", "going away soon"))),
    (Rev("v3"), cat(entry("a3", "port must be >= 0, got {port}", path="hooks.py", function="check_port"),
                    entry("n3", "a brand new failure mode"))),
]
HISTORY = build_history(STEPS)
BY_FIRST = {lin.first_id: lin for lin in HISTORY.lineages}


@pytest.mark.parametrize("first_id, field, expected", [
    ("a1", "first_seen", "v1"),
    ("a1", "ids", ("a1", "a2", "a3")),
    ("a1", "current_id", "a3"),
    ("a1", "last_changed", "v3"),
    ("a1", "last_change_kinds", ("message-changed",)),
    ("a1", "removed", None),
    ("g1", "removed", "v3"),
    ("g1", "current_id", None),
    ("g1", "last_changed", None),
    ("n3", "first_seen", "v3"),
])
def test_lineage_fields(first_id, field, expected):
    assert getattr(BY_FIRST[first_id], field) == expected


def test_moves_are_recorded_with_their_revision():
    [move] = BY_FIRST["a1"].moves
    assert (move.rev, move.from_path, move.to_path, move.to_function) == ("v2", "a.py", "hooks.py", "check_port")


@pytest.mark.parametrize("index, counts", [
    (0, {"entries": 2, "added": 2, "removed": 0, "changed": 0, "moved": 0}),
    (1, {"entries": 2, "added": 0, "removed": 0, "changed": 1, "moved": 1}),
    (2, {"entries": 2, "added": 1, "removed": 1, "changed": 1, "moved": 0}),
])
def test_steps_count_changes(index, counts):
    step = HISTORY.steps[index].as_dict()
    assert {k: step[k] for k in counts} == counts


def test_diffs_given_by_the_caller_give_the_same_history():
    from itertools import pairwise

    from analyzers.diff import diff_catalogs

    diffs = [diff_catalogs(a, b) for (_, a), (_, b) in pairwise(STEPS)]
    assert build_history(STEPS, diffs=diffs) == HISTORY


def test_empty_history():
    assert build_history([]).lineages == ()


@pytest.mark.parametrize("fmt, needle", [("json", '"first_seen": "v1"'), ("markdown", "| v2 |")])
def test_history_renders(fmt, needle):
    assert needle in render_history(HISTORY, fmt)


# ------------------------------------------------------------------ on git

PROFILE = "name: tiny\nrepo: example/tiny\ntargets:\n  - pkg/**/*.py\n"
V1 = "def check(args):\n    if args.port < 0:\n        raise ValueError('port must be >= 0')\n"
V2 = "# moved down\n\n" + V1
V3 = "def check(args):\n    if args.port < 0:\n        raise ValueError('port must not be negative, fix it')\n"


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("lineage")
    me = git.Actor("T", "t@example.invalid")
    handle = git.Repo.init(root / "repo", initial_branch="main")
    shas = []
    for i, (files, tag) in enumerate([({"pkg/a.py": V1, "pkg/b.py": "x = 1\n"}, "v1"),
                                      ({"pkg/a.py": V2}, None), ({"pkg/a.py": V3}, "v3")]):
        for path, text in files.items():
            (root / "repo" / path).parent.mkdir(parents=True, exist_ok=True)
            (root / "repo" / path).write_text(text)
            handle.index.add([path])
        shas.append(handle.index.commit(f"c{i}", author=me, committer=me).hexsha)
        if tag:
            handle.create_tag(tag)
    (root / "tiny.yaml").write_text(PROFILE)
    found: dict[str, Any] = {"repo": str(root / "repo"), "profile": str(root / "tiny.yaml"), "shas": shas,
                             "root": str(root)}
    return found


def test_cli_history_over_a_range(repo, tmp_path, capsys):
    cache = str(tmp_path / "cache")
    argv = ["history", "--repo", repo["repo"], "--revs", "v1..v3", "--profile", repo["profile"],
            "--cache-dir", cache, "--jobs", "1"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    [lin] = data["lineages"]
    assert (lin["first_seen"], lin["last_changed"], lin["last_change_kinds"]) == ("v1", "v3", ["message-changed"])
    # pkg/b.py never changed and pkg/a.py has three versions: 4 extractions, the rest cached.
    assert data["cache"]["files_extracted"] == 4 and data["cache"]["files_cached"] == 2


def test_cli_history_second_run_reuses_catalogs(repo, tmp_path, capsys):
    cache = str(tmp_path / "cache")
    argv = ["history", "--repo", repo["repo"], "--revs", "v1", "v3", "--profile", repo["profile"],
            "--cache-dir", cache, "--format", "markdown"]
    assert main(argv) == 0 and main(argv) == 0
    out = capsys.readouterr().out
    assert "# Error history: v1 → v3" in out


def test_cli_history_in_two_processes_equals_one(repo, tmp_path, capsys):
    base = ["history", "--repo", repo["repo"], "--revs", "v1..v3", "--profile", repo["profile"]]
    outs = []
    for jobs in ("1", "2"):
        assert main([*base, "--jobs", jobs, "--cache-dir", str(tmp_path / f"c{jobs}")]) == 0
        outs.append(json.loads(capsys.readouterr().out)["lineages"])
    assert outs[0] == outs[1]


@pytest.mark.parametrize("argv, message", [
    (["history"], "give --repo with --revs, or --releases"),
    (["history", "--revs", "a..b"], "--revs needs --repo"),
    (["history", "--repo", "{repo}", "--releases", "1.0"], "give --repo with --revs, or --releases"),
])
def test_cli_history_bad_input(repo, capsys, argv, message):
    assert main([a.format(**repo) for a in argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


@pytest.mark.network
def test_history_over_the_arg_groups_split():
    from errcat.versions import history
    from tests.conftest import test_cache_dir

    result = history(releases=["0.5.19", "0.5.18"], cache_dir=test_cache_dir(), jobs=2)
    assert [r.label for r in result.revs] == ["0.5.18", "0.5.19"]
    assert result.steps[1].moved > 250 and result.steps[1].removed < 20


_HISTORY_OF_TWINS = """
import json
from analyzers.lineage import Rev, build_history
from tests.test_diff import TWINS_NEW, TWINS_OLD
print(json.dumps(build_history([(Rev("v1"), TWINS_OLD), (Rev("v2"), TWINS_NEW)]).as_dict()))
"""


def test_history_does_not_depend_on_hash_seed():
    """Identical messages in both revisions: every process continues the same lineages."""
    root = Path(__file__).resolve().parents[1]
    outputs = {subprocess.run([sys.executable, "-c", _HISTORY_OF_TWINS], capture_output=True, text=True, check=True,
                              cwd=root, env={**os.environ, "PYTHONHASHSEED": str(seed)}).stdout
               for seed in range(6)}
    assert len(outputs) == 1


_REAL_STEP = versions._step  # the step a test replaces with this one


def _step_that_dies(task: tuple) -> Any:
    """errcat.versions._step, but the worker kills itself on revision v2 (always, or only
    the first time when the marker file's directory is given)."""
    import signal


    spec, marker = task[0], os.environ.get("ERRCAT_TEST_DIE_ONCE")
    dies = spec.get("commit") == os.environ["ERRCAT_TEST_DIE_ON"]
    if dies and (marker is None or not os.path.exists(marker)):
        if marker is not None:
            Path(marker).touch()
        os.kill(os.getpid(), signal.SIGKILL)
    return _REAL_STEP(task)


@pytest.mark.parametrize("once, code, message", [
    (True, 0, None),  # a worker that died by chance: the revision is rerun and succeeds
    (False, 2, "errcat: revision {sha}: extracting it crashed its worker process"),
])
def test_cli_history_survives_a_dying_worker(repo, tmp_path, capsys, monkeypatch, once, code, message):
    from errcat import versions

    monkeypatch.setattr(versions, "_step", _step_that_dies)
    monkeypatch.setenv("ERRCAT_TEST_DIE_ON", repo["shas"][1])
    if once:
        monkeypatch.setenv("ERRCAT_TEST_DIE_ONCE", str(tmp_path / "died"))
    argv = ["history", "--repo", repo["repo"], "--revs", "v1..v3", "--profile", repo["profile"],
            "--cache-dir", str(tmp_path / "cache"), "--jobs", "2", "--no-cache"]
    assert main(argv) == code
    out, err = capsys.readouterr()
    if message is None:
        assert err == "" and len(json.loads(out)["revs"]) == 3
    else:
        assert err.startswith(message.format(sha=repo["shas"][1][:12])) and err.count("\n") == 1
        assert "Traceback" not in err and out == ""
