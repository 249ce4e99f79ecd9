"""extractor.result_cache + extractor.incremental + the cached `errcat extract` path."""
from __future__ import annotations

import os
import subprocess
import sys
import zlib
from dataclasses import replace
from pathlib import Path

import git
import pytest

from errcat.cli import main
from errcat.model import SourceSpec
from errcat.pipeline import write_catalog
from extractor.incremental import extract_files
from extractor.profile import parse_profile
from extractor.result_cache import (
    ResultCache,
    code_digest,
    fingerprint,
    pack,
    prune,
    snapshot_key,
    unpack,
)
from extractor.source import open_directory, open_git
from output.unchanged import same_files
from tests.present import present
from tests.spy import spy

ROOT = Path(__file__).resolve().parents[1]
PROFILE_YAML = "name: tiny\nrepo: example/tiny\ntargets:\n  - pkg/**/*.py\n"
PROFILE = parse_profile({"name": "tiny", "repo": "example/tiny", "targets": ["pkg/**/*.py"]}, "tiny")
A_PY = "def check(args):\n    if args.port < 0:\n        raise ValueError(f'port must be >= 0, got {args.port}')\n"
B_PY = "class C:\n    def v(self):\n        assert self.mode in ('x', 'y'), 'mode must be x or y'\n"


# ------------------------------------------------------------------ storage


def test_put_get_round_trip(tmp_path):
    cache = ResultCache.open(PROFILE, tmp_path)
    assert cache.get("k", "ab12") is None
    assert cache.put("k", "ab12", {"x": [1, "é"]})
    assert cache.get("k", "ab12") == {"x": [1, "é"]}
    assert (cache.stats.hits, cache.stats.misses) == (1, 1)


def test_writes_leave_no_temporary_files(tmp_path):
    cache = ResultCache.open(PROFILE, tmp_path)
    cache.put("k", "ab12", 1)
    assert [p.name for p in cache.path("k", "ab12").parent.iterdir()] == ["ab12"]


def test_corrupt_value_is_a_miss(tmp_path):
    cache = ResultCache.open(PROFILE, tmp_path)
    cache.put("k", "ab12", 1)
    cache.path("k", "ab12").write_bytes(b"garbage")
    assert cache.get("k", "ab12") is None


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_unwritable_cache_is_not_an_error(tmp_path):
    tmp_path.chmod(0o500)
    try:
        cache = ResultCache.open(PROFILE, tmp_path / "c")
        assert cache.put("k", "ab12", 1) is False and cache.stats.write_errors == 1
    finally:
        tmp_path.chmod(0o700)


def test_cache_under_a_file_is_not_an_error(tmp_path):
    (tmp_path / "c").write_text("not a directory")
    cache = ResultCache.open(PROFILE, tmp_path / "c")
    assert cache.put("k", "ab12", 1) is False and cache.get("k", "ab12") is None


def test_fingerprint_depends_on_the_profile():
    other = parse_profile({"name": "tiny", "repo": "example/tiny", "targets": ["other/**/*.py"]}, "tiny")
    assert fingerprint(PROFILE) != fingerprint(other)


def test_fingerprint_depends_on_the_code_scope():
    assert fingerprint(PROFILE, ("extractor",)) != fingerprint(PROFILE, ("extractor", "analyzers"))
    assert len(code_digest(("extractor",))) == 64


def test_fingerprint_is_stable():
    assert fingerprint(PROFILE) == fingerprint(parse_profile(dict(PROFILE.raw), "again"))


def _pair(data: object) -> tuple[int, int]:
    """A strict reader for the memo tests: [a, b] of ints."""
    assert isinstance(data, list)
    a, b = data
    if not (type(a) is int and type(b) is int):
        raise ValueError("not a pair")
    return (a, b)


def test_memo_computes_once_per_key(tmp_path):
    calls: list[int] = []
    for _ in range(2):
        cache = ResultCache.open(PROFILE, tmp_path)
        assert cache.memo("m", "ab12", spy(calls, lambda: (1, 2)), dump=list, load=_pair) == (1, 2)
    assert calls == [1] and cache.stats.hits == 1


def _ints(data: object) -> tuple[int, ...]:
    assert isinstance(data, list)
    return tuple(int(x) for x in data)


@pytest.mark.parametrize("value, load", [
    ((1, True), _ints),  # reads back as (1, 1): equal, yet not the same stored bytes
    ((1, 2.0), _pair),  # the reader refuses it
    ((1, float("nan")), tuple),  # not equal to itself
    ((1, b"x"), tuple),  # JSON cannot hold it
])
def test_memo_does_not_store_what_does_not_round_trip(tmp_path, value, load):
    cache = ResultCache.open(PROFILE, tmp_path)
    assert cache.memo("m", "ab12", lambda: value, dump=list, load=load) is value
    assert cache.stats.uncacheable == 1 and cache.get_bytes("m", "ab12") is None


@pytest.mark.parametrize("stored", [b"garbage", zlib.compress(b"[1]"), zlib.compress(b'[1, "2"]'),
                                    zlib.compress(b"[" * 100_000)])
def test_memo_treats_what_the_reader_refuses_as_a_miss(tmp_path, stored):
    cache = ResultCache.open(PROFILE, tmp_path)
    cache.path("m", "ab12").parent.mkdir(parents=True)
    cache.path("m", "ab12").write_bytes(stored)
    assert cache.memo("m", "ab12", lambda: (3, 4), dump=list, load=_pair) == (3, 4)
    assert (cache.stats.hits, cache.stats.misses) == (0, 1)
    assert ResultCache.open(PROFILE, tmp_path).memo("m", "ab12", lambda: (5, 6), dump=list, load=_pair) == (3, 4)


def test_no_pickle_left_in_the_project():
    """The cache holds data only: nothing errcat ships may unpickle."""
    offenders = [p.relative_to(ROOT).as_posix() for pkg in ("errcat", "extractor", "analyzers", "output")
                 for p in sorted((ROOT / pkg).rglob("*.py")) if "pickle" in p.read_text(encoding="utf-8")]
    assert offenders == []


def test_flag_model_is_reused_while_declarations_are_unchanged(tmp_path, monkeypatch):
    import analyzers.flag_build
    from errcat.pipeline import build_flags

    profile = parse_profile({"name": "t", "repo": "e/t", "targets": ["pkg/*.py"],
                             "declarations": {"flags": ["pkg/args.py"]}}, "t")
    snap = open_directory(checkout(tmp_path, {"pkg/args.py": "p.add_argument('--port', type=int, default=1)\n"}))
    calls: list[int] = []
    real = analyzers.flag_build.build_flag_model
    monkeypatch.setattr(analyzers.flag_build, "build_flag_model", spy(calls, real))
    first = build_flags(snap, profile, cache=ResultCache.open(profile, tmp_path / "c"))
    again = present(build_flags(snap, profile, cache=ResultCache.open(profile, tmp_path / "c")))
    assert again == first and [f.option for f in again.flags] == ["--port"] and calls == [1]


@pytest.mark.network
def test_real_flag_model_round_trips_through_its_stored_form(release, sglang_profile, tmp_path):
    """0.5.23's model (586 flags, 781 env vars) is cached, and read back exactly."""
    from analyzers.flags import FlagModel
    from errcat.pipeline import build_flags

    snap = release("0.5.23")
    cold = ResultCache.open(sglang_profile, tmp_path)
    model = present(build_flags(snap, sglang_profile, cache=cold))
    assert cold.stats.uncacheable == 0
    warm = ResultCache.open(sglang_profile, tmp_path)
    again = present(build_flags(snap, sglang_profile, cache=warm))
    assert warm.stats.hits == 1 and again == model and again.as_dict() == model.as_dict()
    assert FlagModel.from_dict(model.as_dict()) == model


def test_pack_round_trip():
    files = {"catalog.json": b"{}\n", "entries/a.json": "é".encode(), "empty": b""}
    assert unpack(pack(files, {"n": 1})) == (files, {"n": 1})


def test_truncated_pack_is_refused():
    with pytest.raises(ValueError):
        unpack(pack({"a": b"abc"}, None)[:-1])


@pytest.mark.parametrize("name", [
    "../evil", "a/../../evil", "/tmp/evil", "//evil", "a//b", "./a", "a/./b", "a/", "", ".", "..",
    "a\\..\\evil", "..\\evil", "C:evil", "c:/evil", "a\0b",
])
def test_pack_with_a_name_outside_its_directory_is_refused(name):
    with pytest.raises(ValueError):
        unpack(pack({"catalog.json": b"{}", name: b"x"}, None))


@pytest.mark.parametrize("header", [
    b'[]', b'{"meta": null}', b'{"meta": null, "files": {}}', b'{"meta": null, "files": [["a"]]}',
    b'{"meta": null, "files": [[1, 0]]}', b'{"meta": null, "files": [["a", -1]]}',
    b'{"meta": null, "files": [["a", true]]}', b'{"meta": null, "files": [["a", 0], ["a", 0]]}',
    b'{"meta": null, "files": [], "x": 1}',
])
def test_pack_of_another_shape_is_refused(header):
    with pytest.raises(ValueError):
        unpack(b"%d\n" % len(header) + header)


@pytest.mark.parametrize("name", ["catalog.json", "entries/ab12.json", "md/by-flag/--tp-size.md", "a..b", ".hidden/x"])
def test_pack_keeps_plain_relative_names(name):
    assert unpack(pack({name: b"x"}, None)) == ({name: b"x"}, None)


def test_prune_keeps_named_namespaces(tmp_path):
    for fp in ("keep", "old"):
        (tmp_path / "results" / fp).mkdir(parents=True)
    assert prune(tmp_path, ["keep"]) == ["old"] and (tmp_path / "results" / "keep").is_dir()


# ------------------------------------------------------------------ per-file extraction


def checkout(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "src"
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def test_second_extraction_is_served_from_the_cache(tmp_path):
    snap = open_directory(checkout(tmp_path, {"pkg/a.py": A_PY, "pkg/b.py": B_PY}))
    paths = snap.glob(PROFILE.targets)
    cold = ResultCache.open(PROFILE, tmp_path / "c")
    first = extract_files(snap, PROFILE, paths, cache=cold, jobs=1)
    warm = ResultCache.open(PROFILE, tmp_path / "c")
    again = extract_files(snap, PROFILE, paths, cache=warm, jobs=1)
    assert again == first and (cold.stats.misses, warm.stats.hits, warm.stats.misses) == (2, 2, 0)


@pytest.mark.parametrize("spoil", [
    lambda d: [d],
    lambda d: {**d, "sites": [{**d["sites"][0], "variants": [{"values": [], "guards": [], "template": "x"}]}]},
    lambda d: {**d, "params": 5},
])
def test_sites_of_another_shape_are_a_miss(tmp_path, spoil):
    from extractor.incremental import KIND
    from extractor.result_cache import decode, encode, sites_key

    snap = open_directory(checkout(tmp_path, {"pkg/a.py": A_PY}))
    first = extract_files(snap, PROFILE, ["pkg/a.py"], cache=ResultCache.open(PROFILE, tmp_path / "c"), jobs=1)
    stored = ResultCache.open(PROFILE, tmp_path / "c").path(KIND, sites_key(snap.blobs["pkg/a.py"], "pkg/a.py"))
    stored.write_bytes(encode(spoil(decode(stored.read_bytes()))))
    warm = ResultCache.open(PROFILE, tmp_path / "c")
    assert extract_files(snap, PROFILE, ["pkg/a.py"], cache=warm, jobs=1) == first and warm.stats.misses == 1


def test_only_changed_files_are_extracted_again(tmp_path):
    root = checkout(tmp_path, {"pkg/a.py": A_PY, "pkg/b.py": B_PY})
    extract_files(open_directory(root), PROFILE, ["pkg/a.py", "pkg/b.py"], cache=ResultCache.open(PROFILE, tmp_path))
    (root / "pkg/a.py").write_text(A_PY.replace(">= 0", "> 0"))
    cache = ResultCache.open(PROFILE, tmp_path)
    [a, _] = extract_files(open_directory(root), PROFILE, ["pkg/a.py", "pkg/b.py"], cache=cache)
    assert (cache.stats.hits, cache.stats.misses) == (1, 1) and "> 0" in a.sites[0].template.text


def test_result_that_does_not_round_trip_is_not_cached(tmp_path, monkeypatch):
    import extractor.incremental as incremental

    snap = open_directory(checkout(tmp_path, {"pkg/a.py": A_PY}))
    real = incremental.FileSites.from_dict
    monkeypatch.setattr(incremental.FileSites, "from_dict",
                        classmethod(lambda cls, data: replace(real(data), diagnostics=("lossy",))))
    cache = ResultCache.open(PROFILE, tmp_path / "c")
    [sites] = extract_files(snap, PROFILE, ["pkg/a.py"], cache=cache, jobs=1)
    assert sites.diagnostics == () and cache.stats.uncacheable == 1
    assert not (tmp_path / "c" / "results").exists()


def test_same_bytes_at_another_path_are_not_shared(tmp_path):
    snap = open_directory(checkout(tmp_path, {"pkg/a.py": A_PY, "pkg/c.py": A_PY}))
    cache = ResultCache.open(PROFILE, tmp_path / "c")
    a, c = extract_files(snap, PROFILE, ["pkg/a.py", "pkg/c.py"], cache=cache)
    assert (a.path, c.path) == ("pkg/a.py", "pkg/c.py") and cache.stats.misses == 2


def test_worker_pool_gives_the_same_results(tmp_path):
    snap = open_directory(checkout(tmp_path, {"pkg/a.py": A_PY, "pkg/b.py": B_PY, "pkg/c.py": A_PY + B_PY}))
    paths = snap.glob(PROFILE.targets)
    assert extract_files(snap, PROFILE, paths, jobs=2) == extract_files(snap, PROFILE, paths, jobs=1)


def test_directory_snapshot_key_follows_content(tmp_path):
    root = checkout(tmp_path, {"pkg/a.py": A_PY})
    before = snapshot_key(open_directory(root), PROFILE)
    (root / "pkg/a.py").write_text(B_PY)
    assert snapshot_key(open_directory(root), PROFILE) != before


# ------------------------------------------------------------------ cached extract


@pytest.fixture()
def repo(tmp_path) -> dict[str, str]:
    me = git.Actor("T", "t@example.invalid")
    handle = git.Repo.init(tmp_path / "repo", initial_branch="main")
    for path, text in {"pkg/a.py": A_PY, "pkg/b.py": B_PY}.items():
        (tmp_path / "repo" / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "repo" / path).write_text(text)
        handle.index.add([path])
    handle.index.commit("one", author=me, committer=me)
    (tmp_path / "tiny.yaml").write_text(PROFILE_YAML)
    return {"repo": str(tmp_path / "repo"), "profile": str(tmp_path / "tiny.yaml"), "cache": str(tmp_path / "c")}


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def stamps(root: Path) -> dict[str, tuple[int, int]]:
    return {p.relative_to(root).as_posix(): (p.stat().st_ino, p.stat().st_mtime_ns) for p in root.rglob("*")}


def test_warm_extract_is_cached_and_byte_identical(repo, tmp_path):
    spec = SourceSpec(repo=repo["repo"], commit="HEAD")
    cold = write_catalog(spec, profile=repo["profile"], out=tmp_path / "one", cache_dir=repo["cache"])
    warm = write_catalog(spec, profile=repo["profile"], out=tmp_path / "two", cache_dir=repo["cache"])
    assert (cold.cached, warm.cached, warm.written) == (False, True, True)
    assert tree(tmp_path / "one") == tree(tmp_path / "two") and warm.stats == cold.stats


def test_re_extract_into_the_same_place_rewrites_nothing(repo, tmp_path):
    spec = SourceSpec(repo=repo["repo"], commit="HEAD")
    write_catalog(spec, profile=repo["profile"], out=tmp_path / "out", cache_dir=repo["cache"])
    before = stamps(tmp_path / "out")
    again = write_catalog(spec, profile=repo["profile"], out=tmp_path / "out", cache_dir=repo["cache"])
    assert again.written is False and stamps(tmp_path / "out") == before


def test_no_cache_writes_no_results(repo, tmp_path):
    assert main(["extract", "--repo", repo["repo"], "--profile", repo["profile"], "--cache-dir", repo["cache"],
                 "--out", str(tmp_path / "out"), "--no-cache"]) == 0
    assert not (Path(repo["cache"]) / "results").exists()


def test_uncached_and_cached_outputs_match(repo, tmp_path):
    base = ["extract", "--repo", repo["repo"], "--profile", repo["profile"], "--cache-dir", repo["cache"]]
    assert main([*base, "--out", str(tmp_path / "o1"), "--no-cache"]) == 0
    assert main([*base, "--out", str(tmp_path / "o2"), "--jobs", "2"]) == 0
    assert main([*base, "--out", str(tmp_path / "o3")]) == 0
    assert tree(tmp_path / "o1") == tree(tmp_path / "o2") == tree(tmp_path / "o3")


def test_warm_run_loads_no_parser_or_graph_library(repo, tmp_path):
    """The warm path must stay cheap: libcst and networkx are for building catalogs."""
    argv = ["extract", "--repo", repo["repo"], "--profile", repo["profile"], "--cache-dir", repo["cache"],
            "--out", str(tmp_path / "out")]
    assert main(argv) == 0
    code = ("import sys; from errcat.cli import main; rc = main(sys.argv[1:]); "
            "print(rc, sorted(m for m in ('libcst', 'networkx') if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code, *argv[:-1], str(tmp_path / "fresh")], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.stdout.splitlines()[-1] == "0 []", proc.stderr


def test_git_commit_key_ignores_work_tree(repo):
    snap = open_git(repo["repo"], "HEAD")
    (Path(repo["repo"]) / "pkg/a.py").write_text("edited but not committed\n")
    assert snapshot_key(open_git(repo["repo"], "HEAD"), PROFILE) == snapshot_key(snap, PROFILE)


# ------------------------------------------------------------------ same_files


@pytest.mark.parametrize("mutate, same", [
    (lambda root: None, True),
    (lambda root: (root / "extra.txt").write_text("x"), False),
    (lambda root: (root / "e" / "x.json").unlink(), False),
    (lambda root: (root / "a.json").write_text("{}!"), False),
    (lambda root: (root / "empty").mkdir(), False),
])
def test_same_files(tmp_path, mutate, same):
    files: dict[str, str | bytes] = {"a.json": "{}", "e/x.json": b"\x00"}
    (tmp_path / "e").mkdir()
    (tmp_path / "a.json").write_text("{}")
    (tmp_path / "e" / "x.json").write_bytes(b"\x00")
    mutate(tmp_path)
    assert same_files(tmp_path, files) is same


def test_same_files_missing_dir(tmp_path):
    assert same_files(tmp_path / "nope", {"a": "b"}) is False


@pytest.mark.parametrize("limit, stored", [(1 << 30, True), (10, False)])
def test_a_rendered_catalog_over_the_pack_limit_is_not_stored_whole(tmp_path, monkeypatch, limit, stored):
    from errcat import pipeline
    from extractor.source import open_directory

    src = tmp_path / "src" / "pkg"
    src.mkdir(parents=True)
    (src / "a.py").write_text("def f(cfg):\n    if cfg.port < 0:\n        raise ValueError('port')\n")
    (tmp_path / "p.yaml").write_text("name: tiny\nrepo: example/tiny\ntargets:\n  - pkg/**/*.py\n")
    from extractor.profile import load_profile

    profile = load_profile(str(tmp_path / "p.yaml"))
    monkeypatch.setattr(pipeline, "PACK_LIMIT", limit)
    snap = open_directory(tmp_path / "src")
    files, _, _ = pipeline.catalog_files(snap, profile, cache_dir=tmp_path / "c")
    again, _, cached = pipeline.catalog_files(snap, profile, cache_dir=tmp_path / "c")
    from output.writer import as_bytes

    assert {k: as_bytes(v) for k, v in again.items()} == {k: as_bytes(v) for k, v in files.items()}
    assert cached is stored


# Which private names the program writes once (`extractor.callers.written_once`, every Python
# file read): kept by the names and the files' blob ids.
ONCE_TEXTS = {"pkg/a.py": "def _f(): pass\ndef _g(): pass\n", "pkg/b.py": "_g()\n"}  # the Python files
ONCE_BLOBS = {"pkg/a.py": "a1", "pkg/b.py": "b1", "README": "r1"}


@pytest.mark.parametrize("blobs, names, texts, want", [
    (ONCE_BLOBS, {"_f", "_g"}, {}, {"_f"}),  # the same files and names: read from the cache, no file read
    ({**ONCE_BLOBS, "README": "r2"}, {"_f", "_g"}, {}, {"_f"}),  # not a Python file: the same key
    ({**ONCE_BLOBS, "pkg/b.py": "b2"}, {"_f", "_g"}, {**ONCE_TEXTS, "pkg/b.py": "x = 1\n"}, {"_f", "_g"}),
    (ONCE_BLOBS, {"_g"}, {**ONCE_TEXTS, "pkg/b.py": "x = 1\n"}, {"_g"}),  # other names: counted again
])
def test_written_once_is_kept_while_the_python_files_and_the_names_are_unchanged(tmp_path, blobs, names, texts, want):
    from errcat.pipeline import _written_once

    cache = ResultCache.open(PROFILE, tmp_path)
    assert _written_once(cache, ONCE_BLOBS, {"_f", "_g"}, ONCE_TEXTS) == {"_f"}
    assert _written_once(cache, blobs, names, texts) == want
