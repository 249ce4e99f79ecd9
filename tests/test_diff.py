"""analyzers.diff + output.diff_formats + `errcat diff` (analyzers.matching: tests/test_matching.py)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from analyzers.diff import (
    ChangeKind,
    FlagRenamed,
    Moved,
    TriggerChanged,
    VariantsChanged,
    diff_catalogs,
    entry_changes,
    find_changes,
    flag_changes,
    matched_share,
    parse_kinds,
)
from errcat.cli import main
from output.diff_formats import render_diff
from output.schema import SCHEMA_VERSION
from tests.gitrepo import commit as git_commit

K = ChangeKind


def entry(id: str, template: str = "port must be >= 0", *, path: str = "pkg/a.py", line: int = 3,
          function: str = "check", exception: str = "ValueError", flags: tuple[str, ...] = ("--port",),
          text: str = "`--port` < 0", variants: tuple[dict[str, Any], ...] = ()) -> dict[str, Any]:
    return {
        "id": id, "kind": "raise", "exception": exception, "template": template,
        "source": {"path": path, "line": line, "function": function, "url": None},
        "trigger": {"text": text, "flags": list(flags), "env": [], "other": []},
        "variants": list(variants),
    }


def catalog(*entries: dict[str, Any], flags: dict[str, Any] | None = None, commit: str = "c") -> dict[str, Any]:
    data: dict[str, Any] = {"repo": "example/tiny", "commit": commit, "entries": list(entries)}
    if flags is not None:
        data["flags"] = flags
    return data


def kinds(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    return sorted(str(c.kind) for c in find_changes(old, new))


# ------------------------------------------------------------------ entry changes


@pytest.mark.parametrize("change, expected", [
    ({}, []),
    ({"line": 99}, []),  # a shifted line is not a change
    ({"path": "pkg/b.py"}, ["moved"]),
    ({"function": "other"}, ["moved"]),
    ({"template": "port must be > 0"}, ["message-changed"]),
    ({"exception": "RuntimeError"}, ["exception-changed"]),
    ({"text": "`--port` < 1"}, ["trigger-changed"]),
    ({"flags": ("--port", "--host")}, ["trigger-changed"]),
    ({"variants": ({"values": {"x": "1"}, "template": "t"},)}, ["variants-changed"]),
    ({"path": "pkg/b.py", "exception": "TypeError"}, ["exception-changed", "moved"]),
])
def test_entry_changes(change, expected):
    assert sorted(str(c.kind) for c in entry_changes(entry("a"), entry("a", **change))) == expected


def test_receiver_only_differences_are_not_changes():
    old = entry("a", "got {self.port}", text="`self.port.bit_length()` > 3")
    new = entry("a", "got {server_args.port}", text="`server_args.port.bit_length()` > 3")
    assert list(entry_changes(old, new)) == []


def test_trigger_change_lists_flag_delta():
    [change] = entry_changes(entry("a"), entry("a", flags=("--host",)))
    assert isinstance(change, TriggerChanged)
    assert (change.flags_added, change.flags_removed) == (("--host",), ("--port",))


def test_variant_rows_added_and_removed():
    old = entry("a", variants=({"values": {"m": "a"}, "template": "t a"},))
    new = entry("a", variants=({"values": {"m": "b"}, "template": "t b"},))
    [change] = entry_changes(old, new)
    assert isinstance(change, VariantsChanged)
    assert [r.template for r in change.rows_added] == ["t b"] and [r.template for r in change.rows_removed] == ["t a"]


def test_diff_with_itself_is_empty():
    cat = catalog(entry("a"), entry("b", "other", variants=({"values": {"x": "1"}, "template": "t"},)),
                  flags={"flags": [{"option": "--port", "dest": "port", "default": 1}], "env": []})
    assert diff_catalogs(cat, cat).changes == ()


def test_added_and_removed_entries():
    assert kinds(
        catalog(entry("a")), catalog(entry("b", "unrelated text here", flags=("--x",)))
    ) == ["added", "removed"]


# ------------------------------------------------------------------ flag changes


def flag(option: str | None, dest: str, **kw: Any) -> dict[str, Any]:
    return {"option": option, "dest": dest, "aliases": [], "negations": [], "default": None, "choices": None,
            "deprecated": False, "replacement": None, "derived": False, "path": "a.py", "line": 1, **kw}


def model(*flags: dict[str, Any], env: tuple[dict[str, Any], ...] = ()) -> dict[str, Any]:
    return {"flags": list(flags), "env": list(env), "diagnostics": []}


@pytest.mark.parametrize("old, new, expected", [
    (model(flag("--a", "a")), model(flag("--a", "a")), []),
    (model(), model(flag("--a", "a")), ["flag-added"]),
    (model(flag("--a", "a")), model(), ["flag-removed"]),
    (model(flag("--a", "a")), model(flag("--b", "b", aliases=["--a"])), ["flag-renamed"]),
    (model(flag("--a", "a")), model(flag("--a", "a", deprecated=True, replacement="--b"), flag("--b", "b")),
     ["flag-renamed"]),
    (model(flag("--a", "x")), model(flag("--b", "x")), ["flag-renamed"]),
    (model(flag("--a", "a", default=1)), model(flag("--a", "a", default=2)), ["default-changed"]),
    (model(flag("--a", "a", choices=["x"])), model(flag("--a", "a", choices=["x", "y"])), ["choices-changed"]),
    (model(flag("--a", "a", default=1)), model(flag("--b", "b", aliases=["--a"], default=2)),
     ["default-changed", "flag-renamed"]),
    (model(flag(None, "d", derived=True)), model(), []),  # derived fields have no option: not flags
    (model(env=({"name": "X_ENV", "default": 1},)), model(env=({"name": "X_ENV", "default": 2},)),
     ["default-changed"]),
    (model(env=({"name": "OLD_ENV"},)), model(env=({"name": "NEW_ENV", "deprecated_names": ["OLD_ENV"]},)),
     ["flag-renamed"]),
])
def test_flag_changes(old, new, expected):
    assert sorted(str(c.kind) for c in flag_changes(old, new)) == expected


@pytest.mark.parametrize("old, new, renames", [
    (model(flag("--a", "a")), model(flag("--b", "b", aliases=["--a"])), [("--a", "--b", "alias")]),
    (model(flag("--a", "x")), model(flag("--b", "x")), [("--a", "--b", "same-dest")]),
    (model(flag("--a", "a")), model(flag("--a", "a", deprecated=True, replacement="--b"), flag("--b", "b")),
     [("--a", "--b", "deprecated")]),
    # an alias is stronger evidence than a shared field: --c (same dest) stays a new flag
    (model(flag("--a", "x")), model(flag("--b", "b", aliases=["--a"]), flag("--c", "x")), [("--a", "--b", "alias")]),
    # each new flag is the target of one rename at most: the first old name (sorted) takes it
    (model(flag("--a", "x"), flag("--b", "x")), model(flag("--c", "x")), [("--a", "--c", "same-dest")]),
    # env: no dest rule
    (model(env=({"name": "A_ENV", "dest": "x"},)), model(env=({"name": "B_ENV", "dest": "x"},)), []),
])
def test_flag_renames_and_their_evidence(old, new, renames):
    found = [c for c in flag_changes(old, new) if isinstance(c, FlagRenamed)]
    assert [(c.old.name, c.new.name, c.evidence) for c in found] == renames


@pytest.mark.parametrize("old, new", [(None, model(flag("--a", "a"))), (model(flag("--a", "a")), None)])
def test_no_flag_model_no_flag_changes(old, new):
    assert list(flag_changes(old, new)) == []


# ------------------------------------------------------------------ kinds and formats


@pytest.mark.parametrize("text, expected", [
    ("removed", {K.REMOVED}),
    ("removed, moved", {K.REMOVED, K.MOVED}),
    ("any", set(ChangeKind)),
    ("", set()),
])
def test_parse_kinds(text, expected):
    assert parse_kinds(text) == expected


def test_parse_kinds_names_the_bad_one():
    with pytest.raises(ValueError, match="'gone'"):
        parse_kinds("removed,gone")


def test_kind_names_are_stable():
    assert [str(k) for k in ChangeKind] == [
        "added", "removed", "message-changed", "trigger-changed", "exception-changed", "moved",
        "variants-changed", "flag-added", "flag-removed", "flag-renamed", "default-changed", "choices-changed"]


SAMPLE = diff_catalogs(
    catalog(entry("a"), entry("r", "gone: a, b", flags=("--r",)), flags=model(flag("--a", "a", default=1))),
    catalog(entry("a", path="pkg/b.py"), entry("n", "new 100%, really", flags=("--n",)),
            flags=model(flag("--a", "a", default=2))),
)


@pytest.mark.parametrize("fmt, needle", [
    ("oneline", "moved"),
    ("markdown", "### Moved (1)"),
    ("json", '"kind": "moved"'),
    ("github", "::warning file=pkg/a.py,line=3,title=errcat removed::"),
])
def test_formats_show_changes(fmt, needle):
    assert needle in render_diff(SAMPLE, fmt)


@pytest.mark.parametrize("old, new, expected", [
    (["a", "b"], ["a", "c"], '+"c" -"b"'),
    (["a", "b"], ["b", "a"], "reordered"),
    ({"expr": "X"}, ["a"], ""),
])
def test_choice_delta(old, new, expected):
    from output.diff_formats import choice_delta

    assert choice_delta(old, new) == expected


def test_oneline_is_one_line_per_change():
    assert len(render_diff(SAMPLE, "oneline").splitlines()) == len(SAMPLE.changes) == 4


@pytest.mark.parametrize("template", ["\x1b]0;pwned\x07 \x1b[2J", "one\ntwo\r\nthree", "nul\x00 del\x7f csi\x9b"])
def test_oneline_shows_control_characters_escaped(template):
    text = render_diff(diff_catalogs(catalog(), catalog(entry("a", template))), "oneline")
    assert text.count("\n") == 1 and not re.search(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]", text)


def test_github_escapes_data():
    assert "new 100%25, really" in render_diff(SAMPLE, "github")


def test_json_round_trips():
    data = json.loads(render_diff(SAMPLE, "json"))
    assert data["counts"]["added"] == 1 and {c["kind"] for c in data["changes"]} >= {"moved", "default-changed"}


@pytest.mark.parametrize("fmt, expected", [("oneline", ""), ("github", ""), ("markdown", "No changes.")])
def test_empty_diff_renders(fmt, expected):
    text = render_diff(diff_catalogs(catalog(entry("a")), catalog(entry("a"))), fmt)
    assert (expected in text) if expected else text == ""


# ------------------------------------------------------------------ CLI


def published(cat: dict[str, Any]) -> dict[str, Any]:
    """`cat` completed to what `errcat extract` writes: readers check catalog.json's schema."""
    def full(e: dict[str, Any]) -> dict[str, Any]:
        return {**e, "id": e["id"] * 16, "source": {**e["source"], "url": "https://x.invalid/" + e["source"]["path"]},
                "trigger": {"expr": {"op": "unknown", "text": e["trigger"]["text"]}, **e["trigger"]},
                "excerpt": {"start_line": 1, "code": ""}, "meaning": "", "solutions": [], "related": [],
                "example_fix": {"before": None, "after": None, "verified": "not-run", "predicted": "unknown"}}
    source = {"kind": "directory", "ref": "src", "commit": None, "commit_date": None, "release": None}
    return {**cat, "schema_version": SCHEMA_VERSION, "tool": {"name": "errcat", "version": "0"}, "commit_date": None,
            "source": source, "targets": [], "entries": [full(e) for e in cat["entries"]]}


@pytest.fixture()
def dirs(tmp_path) -> dict[str, str]:
    out = {}
    for name, cat in {"old": catalog(entry("a"), entry("f", "gone away now", flags=("--r",))),
                      "new": catalog(entry("a", path="pkg/b.py"))}.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "catalog.json").write_text(json.dumps(published(cat)))
        out[name] = str(tmp_path / name)
    return out


def test_cli_identical_catalogs_exit_0_no_output(dirs, capsys):
    assert main(["diff", dirs["old"], dirs["old"], "--fail-on", "any"]) == 0
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("fail_on, code", [(None, 0), ("removed", 1), ("added,message-changed", 0), ("any", 1)])
def test_cli_fail_on(dirs, capsys, fail_on, code):
    argv = ["diff", dirs["old"], dirs["new"]] + (["--fail-on", fail_on] if fail_on else [])
    assert main(argv) == code


@pytest.mark.parametrize("argv, message", [
    (["diff", "only-one"], "not a catalog directory"),
    (["diff", "{old}"], "two sides"),
    (["diff", "{old}", "{new}", "--fail-on", "nope"], "--fail-on: unknown change kind 'nope'"),
    (["diff", "{old}", "--commit", "x"], "--commit needs --repo"),
    (["diff", "{empty}", "{new}"], "has no catalog.json"),
])
def test_cli_bad_input_one_line_exit_2(dirs, tmp_path, capsys, argv, message):
    (tmp_path / "empty").mkdir()
    argv = [a.format(empty=tmp_path / "empty", **dirs) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("errcat: ") and message in err and err.count("\n") == 1


def test_cli_broken_catalog_is_input_error(tmp_path, dirs, capsys):
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "catalog.json").write_text("{not json")
    assert main(["diff", str(tmp_path / "bad"), dirs["new"]]) == 2
    assert "not valid JSON" in capsys.readouterr().err


def test_cli_writes_out_file(dirs, tmp_path):
    assert main(["diff", dirs["old"], dirs["new"], "--format", "json", "--out", str(tmp_path / "d.json")]) == 0
    assert json.loads((tmp_path / "d.json").read_text())["counts"]["moved"] == 1


PROFILE = "name: tiny\nrepo: example/tiny\ntargets:\n  - pkg/**/*.py\n"


@pytest.fixture()
def tiny_repo(tmp_path) -> dict[str, str]:
    """Two commits: check() moves from pkg/a.py into pkg/hooks.py with the same message."""
    import git

    repo = git.Repo.init(tmp_path / "repo", initial_branch="main")

    def commit(files: dict[str, str | None], msg: str) -> str:
        return git_commit(repo, files, msg)

    a = commit({"pkg/a.py": "class C:\n    def _check(self):\n        if self.port < 0:\n"
                            "            raise ValueError(f'port must be >= 0, got {self.port}')\n"}, "one")
    repo.create_tag("v1")
    b = commit({"pkg/a.py": None, "pkg/hooks.py": "def check(server_args):\n    if server_args.port < 0:\n"
                "        raise ValueError(f'port must be >= 0, got {server_args.port}')\n"}, "two")
    repo.create_tag("v2")
    (tmp_path / "tiny.yaml").write_text(PROFILE)
    return {"repo": str(tmp_path / "repo"), "a": a, "b": b, "profile": str(tmp_path / "tiny.yaml"),
            "cache": str(tmp_path / "cache")}


def test_cli_diff_git_revisions_reports_move(tiny_repo, capsys):
    argv = ["diff", "--repo", tiny_repo["repo"], "v1", "v2", "--profile", tiny_repo["profile"],
            "--cache-dir", tiny_repo["cache"], "--jobs", "1", "--format", "json", "--fail-on", "removed"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert [c["kind"] for c in data["changes"]] == ["moved"]
    assert data["changes"][0]["old"]["path"] == "pkg/a.py" and data["changes"][0]["new"]["path"] == "pkg/hooks.py"


def test_cli_diff_commit_options_and_catalog_dir_mix(tiny_repo, tmp_path, capsys):
    out = tmp_path / "cat"
    assert main(["extract", "--repo", tiny_repo["repo"], "--commit", "v2", "--out", str(out), "--profile",
                 tiny_repo["profile"], "--cache-dir", tiny_repo["cache"]]) == 0
    capsys.readouterr()
    assert main(["diff", str(out), "--repo", tiny_repo["repo"], "--commit", tiny_repo["b"], "--profile",
                 tiny_repo["profile"], "--cache-dir", tiny_repo["cache"], "--fail-on", "any"]) == 0
    assert capsys.readouterr().out == ""


def test_cli_diff_as_subprocess(dirs):
    proc = subprocess.run([sys.executable, "-m", "errcat", "diff", dirs["old"], dirs["new"], "--fail-on", "moved"],
                          check=False, capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1])
    assert proc.returncode == 1 and "\nmoved " in proc.stdout and proc.stderr == ""


# ------------------------------------------------------------------ real releases


@pytest.mark.network
def test_release_split_into_arg_groups_is_moves_not_removals(tmp_path):
    """0.5.18 -> 0.5.19 moved server_args.py methods into arg_groups/*_hook.py functions."""
    from errcat.model import SourceSpec
    from errcat.versions import catalog_of_source, diff
    from extractor.profile import load_profile
    from tests.conftest import test_cache_dir

    prof = load_profile("sglang")
    old, _ = catalog_of_source(SourceSpec(release="0.5.18"), prof, cache_dir=test_cache_dir(), jobs=None,
                               use_cache=True)
    new, _ = catalog_of_source(SourceSpec(release="0.5.19"), prof, cache_dir=test_cache_dir(), jobs=None,
                               use_cache=True)
    result = diff_catalogs(old, new)
    share = matched_share(old, new, result)
    assert share["message_in_both"] > 300 and share["share"] >= 0.9, share
    assert len(result.of_kind(K.MOVED)) > 250
    assert diff(SourceSpec(release="0.5.18"), SourceSpec(release="0.5.18"), cache_dir=test_cache_dir()).changes == ()


# ------------------------------------------------------------------ determinism


def _twins(group: int, path: str, lines: tuple[int, ...], prefix: str) -> list[dict[str, Any]]:
    """Entries of one group share a message, function and flags: every pairing among them scores the same."""
    return [entry(f"{prefix}{group}-{line}", f"mamba{group} module not available, check installation{group}",
                  path=path, line=line, function=f"handle_{group}", flags=(f"--mamba{group}",))
            for line in lines]


# Like 0.5.18 -> 0.5.23: pairs of identical raises moved from one file into another, side by side.
TWINS_OLD = catalog(*(e for g in range(12) for e in _twins(g, "pkg/server_args.py", (600 + g * 10, 602 + g * 10), "o")))
TWINS_NEW = catalog(*(e for g in range(12) for e in _twins(g, f"pkg/hook{g}.py", (70, 72, 74)[: 2 + g % 2], "n")))


def test_identical_messages_pair_in_source_order():
    pairs = {(c.old.line, c.new.line) for c in diff_catalogs(TWINS_OLD, TWINS_NEW).of_kind(K.MOVED)
             if isinstance(c, Moved)}
    assert pairs == {(old, new) for g in range(12) for old, new in ((600 + g * 10, 70), (602 + g * 10, 72))}


_DIFF_OF_TWINS = """
from analyzers.diff import diff_catalogs
from output.diff_formats import render_diff
from tests.test_diff import TWINS_NEW, TWINS_OLD
print(render_diff(diff_catalogs(TWINS_OLD, TWINS_NEW), "json"))
"""


def test_diff_output_does_not_depend_on_hash_seed():
    """Ties between identical messages are broken the same way in every process."""
    outputs = {subprocess.run([sys.executable, "-c", _DIFF_OF_TWINS], capture_output=True, text=True, check=True,
                              cwd=Path(__file__).resolve().parents[1], env={**os.environ, "PYTHONHASHSEED": str(seed)}
                              ).stdout for seed in range(6)}
    assert len(outputs) == 1
