"""Shared fixtures: real sglang releases (downloaded once into a cache) and helpers."""
from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

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
