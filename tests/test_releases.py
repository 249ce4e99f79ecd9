"""Real sglang releases from PyPI (cached): every raise/assert the stdlib `ast` finds is in the catalog.

Also: a release-history repo commit gives the same catalog as the release itself.
"""
from __future__ import annotations

import ast
import hashlib
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from errcat.model import SourceSpec
from errcat.pipeline import extract
from extractor.history_repo import build_release_history
from extractor.profile import load_profile
from output.schema import load_schema
from tests.conftest import test_cache_dir as _cache_dir

pytestmark = pytest.mark.network

VERSIONS = ["0.4.10", "0.5.18", "0.5.23"]
HISTORY = ["0.5.18", "0.5.23"]
PROFILE = load_profile("sglang")


RAISING_QUERIES = dict(PROFILE.platform_raises)  # device queries that raise without the device


class _AstSites(ast.NodeVisitor):
    """(line) -> (kind, exception); a bare `raise` re-raises the innermost caught type; a
    statement whose own value calls a device query the profile says raises (``major, _ =
    torch.cuda.get_device_capability()``) is a raise of what the profile says it raises."""

    def __init__(self) -> None:
        self.sites: dict[int, tuple[str, str | None]] = {}
        self.caught: list[ast.ExceptHandler] = []

    def visit_FunctionDef(self, node: ast.AST) -> None:
        saved, self.caught = self.caught, []  # a nested def does not run inside the handler
        self.generic_visit(node)
        self.caught = saved

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        self.caught.append(node)
        self.generic_visit(node)
        self.caught.pop()

    def visit_Assert(self, node: ast.Assert) -> None:
        self.sites[node.lineno] = ("assert", "AssertionError")
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        self._query(node, node.value)
        self.generic_visit(node)

    def visit_Expr(self, node: ast.Expr) -> None:
        self._query(node, node.value)
        self.generic_visit(node)

    def _query(self, node: ast.stmt, value: ast.expr) -> None:
        call = value.value if isinstance(value, ast.Subscript) else value
        raised = RAISING_QUERIES.get(ast.unparse(call.func)) if isinstance(call, ast.Call) else None
        if raised is not None:
            self.sites[node.lineno] = ("raise", raised[0])

    def visit_Raise(self, node: ast.Raise) -> None:
        self.sites[node.lineno] = ("raise", self._exception(node))
        self.generic_visit(node)

    def _exception(self, node: ast.Raise) -> str | None:
        if node.exc is not None:
            return ast.unparse(node.exc.func if isinstance(node.exc, ast.Call) else node.exc)
        if not self.caught or isinstance(self.caught[-1].type, ast.Tuple):
            return None  # not checked: no single type to expect
        handler_type = self.caught[-1].type
        return "BaseException" if handler_type is None else ast.unparse(handler_type)


def ast_sites(snapshot, paths: list[str]) -> dict[tuple[str, int], tuple[str, str | None]]:
    found = {}
    for path in paths:
        visitor = _AstSites()
        visitor.visit(ast.parse(snapshot.read(path), filename=path))
        found.update({(path, line): site for line, site in visitor.sites.items()})
    return found


def _extract(spec: SourceSpec, out: Path, cache_dir: Path | None = None) -> dict[str, Any]:
    extract(spec, profile="sglang", out=out, cache_dir=cache_dir or _cache_dir())
    return json.loads((out / "catalog.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def catalogs(extracted) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for v in VERSIONS:
        extracted.catalog(v)
        at = extracted.root / v
        out[v] = {**json.loads((at / "catalog.json").read_text(encoding="utf-8")), "_out": at}
    return out


@pytest.fixture(scope="module")
def history(tmp_path_factory) -> dict[str, str]:
    """version -> SHA in a release-history repo of HISTORY: the package's Python files, as
    the upstream repo has them (the targets read the constants they import from the others)."""
    repo = tmp_path_factory.mktemp("history") / "repo"
    paths = ["python/sglang/**/*.py"]
    shas = build_release_history(repo, HISTORY, profile=PROFILE, cache_dir=_cache_dir(), paths=paths)
    return {"repo": str(repo), **dict(shas)}


def _raise_entries(catalog: dict[str, Any]) -> list[dict[str, Any]]:
    """The entries of the targets' own raise and assert statements: not crashes (operations that
    fail without a check) nor checks in files outside the targets that a launch reaches."""
    return [e for e in catalog["entries"] if e["kind"] != "crash" and not e.get("outside_targets")]


def _catalog_sites(catalog: dict[str, Any]) -> dict[tuple[str, int], tuple[str, str]]:
    return {(e["source"]["path"], e["source"]["line"]): (e["kind"], e["exception"]) for e in _raise_entries(catalog)}


@pytest.mark.parametrize("version", VERSIONS)
def test_every_ast_site_is_in_the_catalog(catalogs, release, version):
    catalog = catalogs[version]
    expected = ast_sites(release(version), catalog["targets"])
    got = _catalog_sites(catalog)
    assert "python/sglang/srt/server_args.py" in catalog["targets"] and expected
    assert sorted(got) == sorted(expected)  # same paths and lines, nothing missing or extra
    assert len(_raise_entries(catalog)) == len(expected)  # one entry per statement
    outside = [e["source"]["path"] for e in catalog["entries"] if e.get("outside_targets")]
    assert not set(outside) & set(catalog["targets"])
    assert {k: got[k][0] for k in got} == {k: kind for k, (kind, _) in expected.items()}


@pytest.mark.parametrize("version", VERSIONS)
def test_exception_types_match_ast(catalogs, release, version):
    catalog = catalogs[version]
    expected = ast_sites(release(version), catalog["targets"])
    got = _catalog_sites(catalog)
    wrong = {k: (exc, got[k][1]) for k, (_, exc) in expected.items() if exc is not None and got[k][1] != exc}
    assert wrong == {}


@pytest.mark.parametrize("version", VERSIONS)
def test_release_catalog_is_valid_and_sorted(catalogs, version):
    catalog = {k: v for k, v in catalogs[version].items() if k != "_out"}
    jsonschema.Draft202012Validator(load_schema()).validate(catalog)
    ids = [e["id"] for e in catalog["entries"]]
    assert ids == sorted(set(ids))
    assert (catalog["commit"], catalog["source"]["release"]) == (version, version)
    assert all(e["source"]["url"].startswith(f"https://github.com/sgl-project/sglang/blob/v{version}/")
               for e in catalog["entries"])


def _digests(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_rerun_is_byte_identical(extracted, tmp_path):
    """Cold (the session's first extraction, into its own result cache) then warm: the same bytes."""
    extracted.catalog("0.5.23")
    # the costly part, advice and its judged examples, is stored: the warm run reuses it
    assert list((extracted.cache("0.5.23") / "results").glob("*/advice/*/*"))
    extract(SourceSpec(release="0.5.23"), profile="sglang", out=tmp_path / "warm", cache_dir=extracted.cache("0.5.23"))
    cold, warm = _digests(extracted.root / "0.5.23"), _digests(tmp_path / "warm")
    assert len(cold) > 700 and sorted(k for k in cold.keys() | warm.keys() if cold.get(k) != warm.get(k)) == []


def _without_pins(entry: dict[str, Any]) -> dict[str, Any]:
    return {**entry, "source": {k: v for k, v in entry["source"].items() if k != "url"}}


@pytest.mark.parametrize("version", ["0.5.18"])
def test_history_commit_matches_release(catalogs, history, extracted, tmp_path, version):
    # the release's own cache: what both read alike (a file's sites by its blob, advice by the
    # entries without their links) is reused, so the commit's own parts are what is compared
    catalog = _extract(SourceSpec(repo=history["repo"], commit=f"v{version}"), tmp_path / "git",
                       extracted.caches([version], tmp_path / "cache"))
    released = catalogs[version]
    assert (catalog["commit"], catalog["source"]["kind"]) == (history[version], "git")
    assert catalog["commit_date"] == released["commit_date"]
    assert catalog["targets"] == released["targets"]
    assert [_without_pins(e) for e in catalog["entries"]] == [_without_pins(e) for e in released["entries"]]
    assert all(f"/blob/{history[version]}/" in e["source"]["url"] for e in catalog["entries"])
