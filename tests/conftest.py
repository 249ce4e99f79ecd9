"""Shared fixtures: real sglang releases (downloaded once into a cache) and helpers."""
from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from extractor.profile import Profile, load_profile
from extractor.snapshot import Snapshot


def test_cache_dir() -> Path:
    """Downloads survive between runs: ERRCAT_TEST_CACHE, else ~/.cache/errcat-tests."""
    return Path(os.environ.get("ERRCAT_TEST_CACHE") or Path.home() / ".cache" / "errcat-tests")


@pytest.fixture(scope="session")
def sglang_profile() -> Profile:
    return load_profile("sglang")


@pytest.fixture(scope="session")
def release() -> Callable[[str], Snapshot]:
    """release("0.5.23") -> Snapshot of that sglang release (network on first use)."""
    from extractor.source import open_release

    cache: dict[str, Snapshot] = {}
    profile = load_profile("sglang")

    def get(version: str) -> Snapshot:
        if version not in cache:
            cache[version] = open_release(profile, version, cache_dir=test_cache_dir())
        return cache[version]

    return get


class _Extracted:
    """Each release's catalog extracted once per session (the real pipeline is minutes per
    release): `catalog(v)` the Catalog, `copy(v)` a fresh copy of its directory for a test
    that writes into it (confirm results, merges). Each release has its own result cache
    (`cache(v)`, downloads shared), so its first extraction is a cold one."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._made: dict[str, Any] = {}

    def cache(self, version: str) -> Path:
        at = self.root / f"cache-{version}"
        if not at.exists():
            downloads = test_cache_dir() / "downloads"
            downloads.mkdir(parents=True, exist_ok=True)
            at.mkdir()
            (at / "downloads").symlink_to(downloads, target_is_directory=True)
        return at

    def catalog(self, version: str) -> Any:
        if version not in self._made:
            from errcat.model import SourceSpec
            from errcat.pipeline import extract

            self._made[version] = extract(SourceSpec(release=version), profile="sglang",
                                          out=self.root / version, cache_dir=self.cache(version))
        return self._made[version]

    def copy(self, version: str, to: Path) -> Path:
        self.catalog(version)
        shutil.copytree(self.root / version, to)
        return to

    def caches(self, versions: Sequence[str], to: Path) -> Path:
        """One cache directory holding what each release's extraction cached (`cache(v)`),
        each extracted first: a command that builds several of them runs warm."""
        to.mkdir(parents=True, exist_ok=True)
        for version in versions:
            self.catalog(version)
            for part in self.cache(version).iterdir():
                if part.is_symlink():  # the shared downloads: linked once
                    if not (to / part.name).is_symlink():
                        (to / part.name).symlink_to(os.readlink(part), target_is_directory=True)
                else:
                    shutil.copytree(part, to / part.name, symlinks=True, dirs_exist_ok=True)
        return to


@pytest.fixture(scope="session")
def extracted(tmp_path_factory: pytest.TempPathFactory) -> _Extracted:
    return _Extracted(tmp_path_factory.mktemp("extracted"))


@pytest.fixture(autouse=True)
def _no_gpu_tools(monkeypatch):
    """`check --platform auto` detects nothing in tests: no tool is run, no device file seen
    (tests/test_machine.py injects what a machine shows)."""
    import errcat.machine

    monkeypatch.setattr(errcat.machine, "run_tool", lambda argv: None)
    monkeypatch.setattr(errcat.machine, "path_exists", lambda path: False)
