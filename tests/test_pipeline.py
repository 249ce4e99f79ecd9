"""`pipeline.extract` end to end on small git repos built here (nothing sglang-specific)."""
from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import git
import jsonschema
import pytest

from errcat.model import SourceSpec
from errcat.pipeline import extract
from extractor.errors import ErrcatError, SourceError
from output.schema import entry_schema, load_schema
from tests.gitrepo import commit as git_commit
from tests.spy import spy

ME = git.Actor("Test", "test@example.invalid")
PROFILE = "name: tiny\nrepo: example/tiny\ntargets:\n  - pkg/**/*.py\n"
A_PY = '''\
def check(args):
    if args.port < 0:
        raise ValueError(f"port must be >= 0, got {args.port}")
    assert args.host, "host is required"
'''
B_PY = '''\
class Cfg:
    def validate(self):
        if self.mode not in ("x", "y"):
            raise RuntimeError("mode must be " "x or y")
        if (self.tp, self.ep) not in ((4, 4), (8, 8)):
            raise ValueError("unsupported tp/ep pair")
'''
SHIFTED = "# a comment\n\n\n" + A_PY + "\n\ndef unrelated():\n    return 1\n"  # lines +3, new code
BROKEN = "def broken(:\n    raise ValueError('never seen')\n"


def commit(repo: git.Repo, files: dict[str, str | None], msg: str, day: int) -> str:
    return git_commit(repo, files, msg, f"2025-01-{day:02d}T12:00:00+00:00")


@pytest.fixture(scope="module")
def history(tmp_path_factory) -> dict[str, str]:
    """c1 (tag v1) -> c2 (a.py shifted, bad.py added) -> c3 (tag v3, pkg/b.py moved to pkg/sub/b.py)."""
    root = tmp_path_factory.mktemp("pipeline")
    repo = git.Repo.init(root / "repo", initial_branch="main")
    shas = {"c1": commit(repo, {"pkg/a.py": A_PY, "pkg/b.py": B_PY, "README": "r\n"}, "c1", 1)}
    repo.create_tag("v1")
    shas["c2"] = commit(repo, {"pkg/a.py": SHIFTED, "pkg/bad.py": BROKEN}, "c2", 2)
    shas["c3"] = commit(repo, {"pkg/b.py": None, "pkg/sub/b.py": B_PY}, "c3", 3)
    repo.create_tag("v3", message="annotated")
    (root / "tiny.yaml").write_text(PROFILE)
    return {**shas, "repo": str(root / "repo"), "profile": str(root / "tiny.yaml"), "cache": str(root / "cache")}


@pytest.fixture(scope="module")
def run(history, tmp_path_factory) -> Callable[[str], dict[str, Any]]:
    """run(rev) -> catalog.json of that revision (extracted once per module)."""
    done: dict[str, dict[str, Any]] = {}

    def get(rev: str) -> dict[str, Any]:
        if rev not in done:
            out = tmp_path_factory.mktemp("out") / "catalog"
            extract(SourceSpec(repo=history["repo"], commit=rev), profile=history["profile"], out=out,
                    cache_dir=history["cache"])
            done[rev] = {**json.loads((out / "catalog.json").read_text()), "_out": out}
        return done[rev]

    return get


def _sites(cat: dict[str, Any]) -> dict[str, tuple]:
    return {e["id"]: (e["source"]["path"], e["source"]["line"]) for e in cat["entries"]}


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize(
    ("path", "line", "kind", "exception", "template", "function"),
    [
        ("pkg/a.py", 3, "raise", "ValueError", "port must be >= 0, got {args.port}", "check"),
        ("pkg/a.py", 4, "assert", "AssertionError", "host is required", "check"),
        ("pkg/b.py", 4, "raise", "RuntimeError", "mode must be x or y", "Cfg.validate"),
    ],
)
def test_sites_of_first_commit(run, history, path, line, kind, exception, template, function):
    (entry,) = [e for e in run("v1")["entries"] if (e["source"]["path"], e["source"]["line"]) == (path, line)]
    assert (entry["kind"], entry["exception"], entry["template"], entry["source"]["function"]) == (
        kind, exception, template, function)
    assert entry["source"]["url"] == f"https://github.com/example/tiny/blob/{history['c1']}/{path}#L{line}"


@pytest.mark.parametrize(("rev", "commit_key"), [("v1", "c1"), ("c2:short", "c2"), ("main", "c3"), ("v3", "c3")])
def test_revision_is_recorded_as_full_sha_and_date(run, history, rev, commit_key):
    spec = history[rev.split(":")[0]][:8] if rev.endswith(":short") else rev
    cat = run(spec)
    day = {"c1": 1, "c2": 2, "c3": 3}[commit_key]
    assert (cat["commit"], cat["commit_date"]) == (history[commit_key], f"2025-01-{day:02d}T12:00:00+00:00")
    assert (cat["source"]["kind"], cat["source"]["ref"], cat["repo"]) == ("git", spec, "example/tiny")


def test_ids_survive_line_shifts(run, history):
    before, after = _sites(run("v1")), _sites(run(history["c2"]))
    moved = {i: (p, ln + 3) for i, (p, ln) in before.items() if p == "pkg/a.py"}
    assert moved and all(after[i] == site for i, site in moved.items())


def test_moved_file_keeps_its_sites_at_the_new_path(run, history):
    old = [e for e in run(history["c2"])["entries"] if e["source"]["path"] == "pkg/b.py"]
    new = [e for e in run("v3")["entries"] if e["source"]["path"] == "pkg/sub/b.py"]
    assert [(e["template"], e["source"]["line"]) for e in new] == [(e["template"], e["source"]["line"]) for e in old]
    assert "pkg/b.py" not in run("v3")["targets"]


def test_file_that_does_not_parse_is_a_diagnostic(run, history):
    cat = run(history["c2"])
    assert [d for d in cat["diagnostics"] if "pkg/bad.py" in d]
    assert "pkg/bad.py" in cat["targets"]
    assert {e["source"]["path"] for e in cat["entries"]} == {"pkg/a.py", "pkg/b.py"}


@pytest.mark.parametrize("rev", ["v1", "v3"])
def test_entries_sorted_unique_and_one_file_each(run, rev):
    cat = run(rev)
    ids = [e["id"] for e in cat["entries"]]
    assert ids == sorted(set(ids))
    files = {p.stem: json.loads(p.read_text()) for p in (cat["_out"] / "entries").glob("*.json")}
    assert files == {e["id"]: e for e in cat["entries"]}
    assert {"graph.json", "graph.graphml"} <= {p.name for p in cat["_out"].iterdir()}


@pytest.mark.parametrize("rev", ["v1", "v3"])
def test_output_validates_against_schema(run, rev):
    cat = run(rev)
    data = json.loads((cat["_out"] / "catalog.json").read_text())
    jsonschema.Draft202012Validator(load_schema()).validate(data)
    validator = jsonschema.Draft202012Validator(entry_schema())
    for path in (cat["_out"] / "entries").glob("*.json"):
        validator.validate(json.loads(path.read_text()))


@pytest.mark.parametrize("use_cache", [True, False])
def test_deterministic_output(history, tmp_path, use_cache):
    """Cold cache, warm cache, and a rerun over the first directory: the same bytes."""
    trees = []
    for out in ["one", "two", "one"]:
        extract(SourceSpec(repo=history["repo"], commit=history["c2"]), profile=history["profile"],
                out=tmp_path / out, cache_dir=tmp_path / "cache", use_cache=use_cache)
        trees.append(_tree(tmp_path / out))
    assert trees[0] == trees[1] == trees[2]
    assert len(trees[0]) > 3


def test_directory_source_links_local_files(history, tmp_path):
    checkout = Path(history["repo"])
    extract(SourceSpec(path=str(checkout)), profile=history["profile"], out=tmp_path / "out", cache_dir=tmp_path)
    cat = json.loads((tmp_path / "out" / "catalog.json").read_text())
    urls = {e["source"]["url"] for e in cat["entries"] if e["source"]["path"] == "pkg/sub/b.py"}
    assert urls == {f"{(checkout / 'pkg/sub/b.py').as_uri()}#L{n}" for n in (4, 6)}


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (SourceSpec(repo="REPO", commit="0" * 40), "unknown revision"),
        (SourceSpec(repo="REPO", commit="no-such-branch"), "unknown revision"),
        (SourceSpec(repo="REPO", commit="v1", release="1.0"), "only one source"),
        (SourceSpec(commit="v1"), "--commit needs --repo"),
        (SourceSpec(release="1.0"), "names no package"),
        (SourceSpec(), "no default source"),
    ],
)
def test_bad_source_writes_nothing(history, tmp_path, spec, message):
    if spec.repo == "REPO":
        spec = SourceSpec(repo=history["repo"], commit=spec.commit, release=spec.release)
    with pytest.raises(ErrcatError, match=message):
        extract(spec, profile=history["profile"], out=tmp_path / "out", cache_dir=tmp_path / "cache")
    assert not (tmp_path / "out").exists()


def test_targets_matching_nothing_name_the_glob(history, tmp_path):
    profile = tmp_path / "p.yaml"
    profile.write_text(PROFILE.replace("pkg/**/*.py", "lib/**/*.py"))
    with pytest.raises(SourceError, match=r"lib/\*\*/\*\.py"):
        extract(SourceSpec(repo=history["repo"], commit="v1"), profile=str(profile), out=tmp_path / "out",
                cache_dir=tmp_path / "cache")
    assert not (tmp_path / "out").exists()


# ------------------------------------------------------------------ incomplete catalogs


def _failing_walker(monkeypatch, path: str, error: BaseException) -> None:
    """The site walker raises `error` for `path` and works for every other file."""
    from extractor import sites

    run_walker = sites.SiteWalker.run

    def run(self):
        if self.state.path == path:
            raise error
        return run_walker(self)

    monkeypatch.setattr(sites.SiteWalker, "run", run)


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (MemoryError(), "out of memory"),
        (RecursionError(), "too deeply nested to analyse"),
        (KeyError("x"), "analysis failed: KeyError: 'x'"),
    ],
)
def test_file_that_cannot_be_analysed_makes_the_catalog_incomplete(history, tmp_path, monkeypatch, error, reason):
    from errcat.pipeline import write_catalog

    _failing_walker(monkeypatch, "pkg/b.py", error)
    done = write_catalog(SourceSpec(repo=history["repo"], commit="v1"), profile=history["profile"],
                         out=tmp_path / "out", cache_dir=tmp_path / "cache", jobs=1)
    assert done.incomplete == (("pkg/b.py", reason),)
    cat = json.loads((tmp_path / "out" / "catalog.json").read_text())
    assert cat["incomplete"] == [{"path": "pkg/b.py", "reason": reason}]
    assert [d for d in cat["diagnostics"] if "pkg/b.py" in d]  # a diagnostic too
    assert {e["source"]["path"] for e in cat["entries"]} == {"pkg/a.py"}  # the rest is catalogued
    jsonschema.Draft202012Validator(load_schema()).validate(cat)


def test_incomplete_result_is_not_cached(history, tmp_path, monkeypatch):
    """A failure of this run (memory) must not be served to the next one from the cache."""
    from errcat.pipeline import write_catalog

    spec = SourceSpec(repo=history["repo"], commit="v1")
    with monkeypatch.context() as patch:
        _failing_walker(patch, "pkg/b.py", MemoryError())
        assert write_catalog(spec, profile=history["profile"], out=tmp_path / "one", cache_dir=tmp_path / "c",
                             jobs=1).incomplete
    done = write_catalog(spec, profile=history["profile"], out=tmp_path / "two", cache_dir=tmp_path / "c", jobs=1)
    assert done.incomplete == ()
    assert "incomplete" not in json.loads((tmp_path / "two" / "catalog.json").read_text())


def test_syntax_error_python_rejects_is_not_incomplete(history, tmp_path):
    from errcat.pipeline import write_catalog

    done = write_catalog(SourceSpec(repo=history["repo"], commit=history["c2"]), profile=history["profile"],
                         out=tmp_path / "out", cache_dir=tmp_path / "cache", jobs=1)
    assert done.incomplete == ()
    assert [d for d in done.diagnostics if "pkg/bad.py" in d]
    assert "incomplete" not in json.loads((tmp_path / "out" / "catalog.json").read_text())


# ------------------------------------------------------------------ real outcomes beside the catalog


def _confirmed(cat: dict[str, Any], tmp_out: Path, found_for: str | None = None) -> None:
    """A confirm.json in `tmp_out` confirming every example of `cat` (release "1": tag v1),
    except `found_for`'s, refuted and replaced by a found pair."""
    from analyzers.judge import Real
    from analyzers.outcomes import Found, Outcome, Outcomes, fingerprint

    outcomes = []
    for e in cat["entries"]:
        fix = e["example_fix"]
        if fix["before"] is None:
            continue
        found = Found("run --found", "run", Real("error", "ValueError", "m", "pkg/a.py", 3), Real("ok")) \
            if e["id"] == found_for else None
        outcomes.append(Outcome(e["id"], fingerprint(fix["before"], fix["after"]), "1", fix["before"], fix["after"],
                                "refuted" if found else "confirmed", "no-error" if found else "confirmed",
                                found=found))
    (tmp_out / "confirm.json").write_text(json.dumps(Outcomes({}).with_(outcomes).as_dict()))


ARGS_PY = """\
import argparse

def parser():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--host", default="localhost")
    return p
"""
WITH_FLAGS = PROFILE + "declarations:\n  flags: [pkg/args.py]\nconfig:\n  params: [args]\nlaunch: run\n"


@pytest.fixture(scope="module")
def flagged(tmp_path_factory) -> dict[str, str]:
    """A repo tagged v1 whose errors read declared flags (so they have examples)."""
    root = tmp_path_factory.mktemp("flagged")
    repo = git.Repo.init(root / "repo", initial_branch="main")
    commit(repo, {"pkg/a.py": A_PY, "pkg/args.py": ARGS_PY}, "c1", 1)
    repo.create_tag("v1")
    (root / "tiny.yaml").write_text(WITH_FLAGS)
    return {"repo": str(root / "repo"), "profile": str(root / "tiny.yaml"), "cache": str(root / "cache")}


def test_extract_merges_real_outcomes_and_keeps_them(flagged, tmp_path):
    history = flagged
    out = tmp_path / "catalog"
    spec = SourceSpec(repo=history["repo"], commit="v1")
    extract(spec, profile=history["profile"], out=out, cache_dir=history["cache"])
    first = json.loads((out / "catalog.json").read_text())
    with_example = [e for e in first["entries"] if e["example_fix"]["before"]]
    assert with_example and all(e["example_fix"]["verified"] == "not-run" for e in with_example)
    _confirmed(first, out, found_for=with_example[0]["id"])
    (out / "confirm.md").write_text("# report\n")
    extract(spec, profile=history["profile"], out=out, cache_dir=history["cache"])
    merged = {e["id"]: e["example_fix"] for e in json.loads((out / "catalog.json").read_text())["entries"]}
    found = merged[with_example[0]["id"]]
    assert (found["before"], found["verified"], found["found_by"]) == ("run --found", "true", "real program")
    assert found["static"]["before"] == with_example[0]["example_fix"]["before"]
    assert all(merged[e["id"]]["verified"] == "true" and merged[e["id"]]["real"] == "confirmed (1)"
               for e in with_example[1:])
    assert (out / "confirm.md").read_text() == "# report\n"  # companions are kept, never rewritten
    jsonschema.Draft202012Validator(load_schema()).validate(json.loads((out / "catalog.json").read_text()))


def test_the_same_files_at_a_new_commit_reuse_their_advice(tmp_path, monkeypatch):
    """A commit that changes no file the catalog reads changes only its links: advice, overlay,
    judged examples and the flag graph come from the results cache, and the catalog is the one a
    cold build gives; a changed check is advised (and drawn) again."""
    import analyzers.advice
    import analyzers.graph

    repo = git.Repo.init(tmp_path / "repo", initial_branch="main")
    first = commit(repo, {"pkg/a.py": A_PY, "pkg/args.py": ARGS_PY, "README": "r\n"}, "c1", 1)
    docs = commit(repo, {"README": "more\n"}, "c2", 2)
    edited = commit(repo, {"pkg/a.py": A_PY.replace("< 0", "< 1")}, "c3", 3)
    (tmp_path / "tiny.yaml").write_text(WITH_FLAGS)
    advised: list[int] = []
    complete = analyzers.advice.complete_entries
    monkeypatch.setattr(analyzers.advice, "complete_entries", spy(
        advised, complete, lambda entries, **kw: len(entries)))
    drawn: list[int] = []
    draw = analyzers.graph.build_graph
    monkeypatch.setattr(analyzers.graph, "build_graph", spy(drawn, draw))

    def built(rev: str, **options: Any) -> dict[str, bytes]:
        out = tmp_path / f"{rev}-{len(advised)}"
        extract(SourceSpec(repo=str(tmp_path / "repo"), commit=rev), profile=str(tmp_path / "tiny.yaml"), out=out,
                **options)
        return _tree(out)

    built(first, cache_dir=tmp_path / "cache")
    assert (len(advised), len(drawn)) == (1, 1)
    warm = built(docs, cache_dir=tmp_path / "cache")
    assert (len(advised), len(drawn)) == (1, 1)  # from the cache
    assert warm == built(docs, use_cache=False) and (len(advised), len(drawn)) == (2, 2)
    assert docs.encode() in warm["catalog.json"] and first.encode() not in warm["catalog.json"]
    assert built(edited, cache_dir=tmp_path / "cache") == built(edited, use_cache=False)
    assert (len(advised), len(drawn)) == (4, 4)  # the check changed: advised and drawn again


def test_a_bad_confirm_json_is_one_error_and_nothing_is_written(flagged, tmp_path):
    history = flagged
    out = tmp_path / "catalog"
    spec = SourceSpec(repo=history["repo"], commit="v1")
    extract(spec, profile=history["profile"], out=out, cache_dir=history["cache"])
    before = _tree(out)
    (out / "confirm.json").write_text('{"errcat_confirm": 1, "outcomes": [{"entry": 3}]}')
    with pytest.raises(ErrcatError, match=r"confirm\.json.*move it away"):
        extract(spec, profile=history["profile"], out=out, cache_dir=history["cache"])
    assert {k: v for k, v in _tree(out).items() if k != "confirm.json"} == before


SHOP_CLI = ('import argparse\n\ndef parser():\n    p = argparse.ArgumentParser()\n'
            '    p.add_argument("--port", type=int, default=8080)\n    return p\n')


def _shop(tmp_path: Path, files: dict[str, str], targets: str = "shop/**/*.py") -> dict:
    """docs/profiles.md "A minimal profile": the YAML shown there (its targets replaced by `targets`),
    extracted over the made-up project `shop` of `files` (besides its cli.py); catalog.json's data."""
    page = (Path(__file__).parent.parent / "docs" / "profiles.md").read_text()
    block = page.split("<!-- minimal-profile -->", 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]
    (tmp_path / "shop.yaml").write_text(block.replace("targets: [shop/**/*.py]", f"targets: [{targets}]"))
    src = tmp_path / "src" / "shop"
    src.mkdir(parents=True)
    for name, text in {"cli.py": SHOP_CLI, **files}.items():
        (src / name).write_text(text)
    out = tmp_path / "out"
    extract(SourceSpec(path=str(tmp_path / "src")), profile=str(tmp_path / "shop.yaml"), out=out,
            cache_dir=str(tmp_path / "cache"))
    return json.loads((out / "catalog.json").read_text())


def test_the_readme_minimal_profile_extracts_a_made_up_project(tmp_path):
    """docs/profiles.md "A minimal profile": the YAML shown there, on the project it describes."""
    (entry,) = _shop(tmp_path, {"check.py": 'def check(args):\n    if args.port < 1024:\n'
                                            '        raise ValueError(f"port {args.port} is privileged")\n'})["entries"]
    assert entry["trigger"]["text"] == "`--port` < 1024"
    assert (entry["example_fix"]["before"], entry["example_fix"]["after"]) == ("python -m shop --port 1023",
                                                                              "python -m shop")


def test_what_a_try_block_raises_is_read_from_the_file_defining_its_callee(tmp_path):
    """A helper outside the targets, called in a ``try`` whose handler raises the user's
    error: its raise sites say when the block raises (not "the try block raises ...")."""
    data = _shop(tmp_path, {
        "util.py": 'def port_of(port):\n    if port < 1024:\n        raise ValueError("privileged")\n    return port\n',
        "check.py": 'from shop.util import port_of\n\ndef check(args):\n    try:\n        port_of(args.port)\n'
                    '    except ValueError as e:\n        raise SystemExit(str(e))\n'}, targets="shop/c*.py")
    (entry,) = data["entries"]
    assert entry["source"]["path"].endswith("check.py")
    assert entry["trigger"]["text"] == "`--port` < 1024"


def test_advice_from_the_cache_still_has_the_judges_word_on_a_pair_the_real_program_found(tmp_path, monkeypatch):
    """Outcomes are merged after the cached advice: a pair `errcat confirm` found gets the
    pipeline's prediction as a build without the cache gives it."""
    import analyzers.advice
    from tests.test_confirm_fake import PROFILE as FAKE
    from tests.test_driver import ARGS as FAKE_ARGS
    from tests.test_driver import HOOKS

    repo = git.Repo.init(tmp_path / "repo", initial_branch="main")
    commit(repo, {"src/fakesrv/args.py": FAKE_ARGS, "src/fakesrv/hooks.py": HOOKS}, "c1", 1)
    repo.create_tag("v1")
    (tmp_path / "fake.yaml").write_text(FAKE + "  platforms: {generic: {predicates: false}}\n"
                                         "declarations: {flags: [src/fakesrv/args.py]}\nconfig: {params: [ns]}\n")
    spec = SourceSpec(repo=str(tmp_path / "repo"), commit="v1")
    out, cold = tmp_path / "cat", tmp_path / "cold"
    extract(spec, profile=str(tmp_path / "fake.yaml"), out=out, cache_dir=tmp_path / "cache")
    first = json.loads((out / "catalog.json").read_text())
    shown = [e for e in first["entries"] if e["example_fix"]["before"]]
    assert shown and any(e["example_fix"]["predicted"] != "unknown" for e in shown)  # the judge ran
    _confirmed(first, out, found_for=shown[0]["id"])
    shutil.copytree(out, cold)
    advised: list[int] = []
    complete = analyzers.advice.complete_entries
    monkeypatch.setattr(analyzers.advice, "complete_entries", spy(
        advised, complete, lambda entries, **kw: len(entries)))
    extract(spec, profile=str(tmp_path / "fake.yaml"), out=out, cache_dir=tmp_path / "cache")
    assert advised == []  # advised from the cache
    extract(spec, profile=str(tmp_path / "fake.yaml"), out=cold, use_cache=False)
    assert advised != []
    assert _tree(out) == _tree(cold)
    found = {e["id"]: e["example_fix"] for e in json.loads((out / "catalog.json").read_text())["entries"]}
    assert found[shown[0]["id"]]["found_by"] == "real program" and "predicted" in found[shown[0]["id"]]
