"""A hostile cache: it holds data only, and a cache others can write is not used.

Each test plants something in the cache for the exact key errcat reads next and
checks that no marker file appears, nothing lands outside --out, and the catalog
is the one the sources give.
"""
from __future__ import annotations

import os
import pickle
import zlib
from pathlib import Path
from typing import Any

import git
import pytest

from errcat.cli import main
from extractor.profile import load_profile
from extractor.result_cache import CATALOG_PACKAGES, ResultCache, pack, snapshot_key
from extractor.source import mirror_path, open_directory

PROFILE_YAML = (
    "name: tiny\nrepo: example/tiny\ntargets:\n  - pkg/**/*.py\n"
    "declarations:\n  flags: [pkg/args.py]\n"
)
SOURCES = {
    "pkg/args.py": "def add(p):\n    p.add_argument('--port', type=int, default=1, choices=[1, 2])\n",
    "pkg/check.py": (
        "def check(args):\n    if args.port < 0:\n"
        "        raise ValueError(f'port must be >= 0, got {args.port}')\n"
    ),
}
NOBODY = 65534


class _Payload:
    """Unpickling this creates `marker`: what a poisoned pickle cache would run."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.mkdir, (str(self.marker),))


@pytest.fixture()
def site(tmp_path) -> dict[str, Path]:
    src = tmp_path / "src"
    for path, text in SOURCES.items():
        (src / path).parent.mkdir(parents=True, exist_ok=True)
        (src / path).write_text(text)
    (tmp_path / "tiny.yaml").write_text(PROFILE_YAML)
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    return {"src": src, "profile": tmp_path / "tiny.yaml", "cache": cache, "tmp": tmp_path,
            "marker": tmp_path / "MARKER"}


def extract(site: dict[str, Path], out: str, *extra: str) -> int:
    return main(["extract", "--path", str(site["src"]), "--profile", str(site["profile"]),
                 "--cache-dir", str(site["cache"]), "--out", str(site["tmp"] / out), "--jobs", "1", *extra])


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def listing(root: Path) -> dict[str, int]:
    return {p.relative_to(root).as_posix(): p.stat().st_mtime_ns for p in sorted(root.rglob("*"))}


def flag_entries(cache: Path) -> list[Path]:
    return sorted(cache.glob("results/*/flags/*/*"))


def forget_catalogs(cache: Path) -> None:
    """Drop the rendered catalogs so the next run builds one (and reads the flag model)."""
    for path in cache.glob("results/*/catalog/*/*"):
        path.unlink()


def stored_flags(cache: Path) -> Any:
    import json

    (entry,) = flag_entries(cache)
    return json.loads(zlib.decompress(entry.read_bytes()))


def plant_flags(cache: Path, raw: bytes) -> None:
    (entry,) = flag_entries(cache)
    entry.write_bytes(raw)
    forget_catalogs(cache)


def encoded(data: object) -> bytes:
    import json

    return zlib.compress(json.dumps(data).encode())


# ------------------------------------------------------------------ the flag model is data


def test_pickle_payload_in_the_flag_cache_is_not_run(site):
    assert extract(site, "clean") == 0
    plant_flags(site["cache"], pickle.dumps(_Payload(site["marker"])))
    assert extract(site, "out") == 0
    assert not site["marker"].exists()
    assert tree(site["tmp"] / "out") == tree(site["tmp"] / "clean")


def _mutations() -> list[tuple[str, object]]:
    def flag(**change):
        return lambda data: {**data, "flags": [{**data["flags"][0], **change}]}

    return [
        ("garbage", b"\x80\x04garbage"),
        ("not zlib json", zlib.compress(b"{not json")),
        ("a list", lambda data: [data]),
        ("no flags key", lambda data: {k: v for k, v in data.items() if k != "flags"}),
        ("an extra key", lambda data: {**data, "code": "import os"}),
        ("flags is a dict", lambda data: {**data, "flags": {}}),
        ("line is text", flag(line="7")),
        ("line is a bool", flag(line=True)),
        ("required is an int", flag(required=1)),
        ("aliases is a string", flag(aliases="--pt")),
        ("an unknown kind", flag(kind="pickle")),
        ("choices is a number", flag(choices=3)),
        ("option is a list", flag(option=["--port"])),
        ("a flag with an extra key", flag(__reduce__="os.system")),
        ("a diagnostic of another shape", lambda data: {**data, "diagnostics": [["a", 1, "m"]]}),
        ("an env var of another shape", lambda data: {**data, "env": [{"name": 1}]}),
        ("deeply nested", zlib.compress(b"[" * 100_000 + b"]" * 100_000)),
    ]


@pytest.mark.parametrize("name, plant", _mutations(), ids=[m[0] for m in _mutations()])
def test_a_flag_cache_entry_of_another_shape_is_a_miss(site, name, plant):
    assert extract(site, "clean") == 0
    raw = plant if isinstance(plant, bytes) else plant(stored_flags(site["cache"]))
    plant_flags(site["cache"], raw if isinstance(raw, bytes) else encoded(raw))
    assert extract(site, "out") == 0
    assert not site["marker"].exists()
    assert tree(site["tmp"] / "out") == tree(site["tmp"] / "clean")
    assert stored_flags(site["cache"])["flags"][0]["line"] == 2  # recomputed and stored again


# ------------------------------------------------------------------ packs stay inside --out


def _diff_json(site: dict[str, Path]) -> str:
    from errcat.model import SourceSpec
    from errcat.versions import diff
    from output.diff_formats import render_json

    spec = SourceSpec(path=str(site["src"]))
    return render_json(diff(spec, spec, profile=str(site["profile"]), cache_dir=site["cache"]))


@pytest.mark.parametrize("plant", [
    {"entries": [1, 2]},
    {"repo": "x", "commit": "c", "commit_date": None, "entries": [{"id": "../../x"}]},
    [],
    "not a catalog",
])
def test_a_compact_catalog_of_another_shape_is_a_miss(site, plant):
    clean = _diff_json(site)
    (stored,) = sorted(site["cache"].glob("results/*/compact/*/*"))
    stored.write_bytes(encoded(plant))
    assert _diff_json(site) == clean


def _plant_pack(site: dict[str, Path], files: dict[str, bytes]) -> None:
    profile = load_profile(str(site["profile"]))
    key = snapshot_key(open_directory(site["src"]), profile)
    summary = {"repo": "example/tiny", "pin": "x", "stats": {"entries": 0, "raise": 0, "assert": 0,
               "variants": 0, "files": 0}, "diagnostics": []}
    whole = ResultCache.open(profile, site["cache"], CATALOG_PACKAGES)
    assert whole.put_bytes("catalog", key, pack(files, summary))


def test_pack_names_outside_out_are_a_miss(site):
    assert extract(site, "clean", "--no-cache") == 0
    outside = site["tmp"] / "abs" / "evil"
    _plant_pack(site, {"catalog.json": b"{}", "../evil": b"x", "../../evil2": b"x", str(outside): b"x"})
    assert extract(site, "out") == 0
    assert not (site["tmp"] / "evil").exists() and not (site["tmp"].parent / "evil2").exists()
    assert not outside.exists() and not outside.parent.exists()
    assert tree(site["tmp"] / "out") == tree(site["tmp"] / "clean")


@pytest.mark.parametrize("summary", [None, [], {"repo": 1}, {"repo": "r", "pin": "p", "stats": [],
                                                                "diagnostics": []}])
def test_pack_with_a_summary_of_another_shape_is_a_miss(site, summary):
    assert extract(site, "clean", "--no-cache") == 0
    profile = load_profile(str(site["profile"]))
    key = snapshot_key(open_directory(site["src"]), profile)
    ResultCache.open(profile, site["cache"], CATALOG_PACKAGES).put_bytes("catalog", key, pack({}, summary))
    assert extract(site, "out") == 0
    assert tree(site["tmp"] / "out") == tree(site["tmp"] / "clean")


# ------------------------------------------------------------------ a cache others can write


def _foreign(path: Path) -> None:
    os.chown(path, NOBODY, NOBODY)


def _group_writable(path: Path) -> None:
    path.chmod(0o770)


def _others_writable(path: Path) -> None:
    path.chmod(0o707)


UNTRUSTED = [
    ("root owned by another user", "", _foreign),
    ("root writable by the group", "", _group_writable),
    ("root writable by others", "", _others_writable),
    ("results owned by another user", "results", _foreign),
    ("results writable by others", "results", _others_writable),
    ("downloads writable by the group", "downloads", _group_writable),
    ("mirrors owned by another user", "mirrors", _foreign),
]


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root (CI runs as root)")
@pytest.mark.parametrize("what, sub, spoil", UNTRUSTED, ids=[u[0] for u in UNTRUSTED])
@pytest.mark.parametrize("plant", ["pickle", "pack"])
def test_untrusted_cache_is_not_used(site, capsys, what, sub, spoil, plant):
    assert extract(site, "clean") == 0
    if plant == "pickle":
        plant_flags(site["cache"], pickle.dumps(_Payload(site["marker"])))
    else:
        _plant_pack(site, {"catalog.json": b"planted"})
    (site["cache"] / sub).mkdir(mode=0o700, exist_ok=True)
    spoil(site["cache"] / sub)
    before = listing(site["cache"])
    capsys.readouterr()
    assert extract(site, "out") == 0
    err = capsys.readouterr().err
    assert not site["marker"].exists()
    assert tree(site["tmp"] / "out") == tree(site["tmp"] / "clean")
    assert listing(site["cache"]) == before  # nothing read into the catalog, nothing written
    assert err.count("errcat: warning:") == 1 and "not using the cache" in err
    assert str(site["cache"] / sub).rstrip("/") in err


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root (CI runs as root)")
def test_planted_mirror_in_an_untrusted_cache_is_not_used(site, capsys):
    me = git.Actor("T", "t@example.invalid")
    repo = git.Repo.init(site["tmp"] / "repo", initial_branch="main")
    for path, text in SOURCES.items():
        (site["tmp"] / "repo" / path).parent.mkdir(parents=True, exist_ok=True)
        (site["tmp"] / "repo" / path).write_text(text)
        repo.index.add([path])
    repo.index.commit("one", author=me, committer=me)
    url = (site["tmp"] / "repo").as_uri()
    base = ["extract", "--repo", url, "--commit", "HEAD", "--profile", str(site["profile"]), "--jobs", "1"]
    assert main([*base, "--cache-dir", str(site["tmp"] / "fresh"), "--out", str(site["tmp"] / "clean")]) == 0
    # a mirror of another history where errcat would look for this URL's mirror
    fake = git.Repo.init(mirror_path(url, site["cache"]), bare=True, initial_branch="main")
    (site["tmp"] / "other").mkdir()
    other = git.Repo.init(site["tmp"] / "other", initial_branch="main")
    (site["tmp"] / "other" / "pkg").mkdir()
    (site["tmp"] / "other" / "pkg" / "check.py").write_text("def f():\n    raise ValueError('planted')\n")
    other.index.add(["pkg/check.py"])
    other.index.commit("planted", author=me, committer=me)
    other.git.push(fake.working_dir, "main:main")
    _foreign(site["cache"] / "mirrors")
    before = listing(site["cache"])
    capsys.readouterr()
    assert main([*base, "--cache-dir", str(site["cache"]), "--out", str(site["tmp"] / "out")]) == 0
    assert capsys.readouterr().err.count("errcat: warning:") == 1
    assert tree(site["tmp"] / "out") == tree(site["tmp"] / "clean")
    assert listing(site["cache"]) == before  # the planted mirror was neither read nor fetched into


@pytest.mark.parametrize("mode, trusted", [(0o700, True), (0o755, True), (0o775, False), (0o757, False)])
def test_private_cache_replaces_a_cache_others_can_write(tmp_path, mode, trusted):
    from extractor.cache import CacheWarning, private_cache

    root = tmp_path / "cache"
    root.mkdir()
    root.chmod(mode)
    expect = pytest.warns(CacheWarning) if not trusted else _NoWarning()
    with expect, private_cache(root, True) as (cache_dir, use_cache):
        if trusted:
            assert (cache_dir, use_cache) == (root, True)
        else:
            assert cache_dir is not None
            scratch = Path(cache_dir)
            assert use_cache is False and scratch != root and scratch.is_dir()
            assert scratch.stat().st_uid == os.geteuid() and scratch.stat().st_mode & 0o077 == 0
    if not trusted:
        assert not scratch.exists()  # the run's own downloads go with it


@pytest.mark.parametrize("use_cache, made", [(True, ["downloads", "mirrors", "results"]),
                                              (False, ["downloads", "mirrors"])])
def test_a_missing_cache_is_created_private(tmp_path, use_cache, made):
    """Whatever the umask, so that the next run trusts what this one created."""
    from extractor.cache import private_cache

    root = tmp_path / "new" / "cache"
    old = os.umask(0o002)
    try:
        with _NoWarning(), private_cache(root, use_cache) as (cache_dir, use):
            assert (cache_dir, use) == (root, use_cache)
    finally:
        os.umask(old)
    assert sorted(p.name for p in root.iterdir()) == made
    assert all(p.stat().st_mode & 0o777 == 0o700 for p in (root, *root.iterdir()))


class _NoWarning:
    def __enter__(self):
        import warnings

        from extractor.cache import CacheWarning

        self._ctx = warnings.catch_warnings()
        self._ctx.__enter__()
        warnings.simplefilter("error", CacheWarning)

    def __exit__(self, *exc):
        return self._ctx.__exit__(*exc)
