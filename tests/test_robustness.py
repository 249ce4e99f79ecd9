"""Every Python file of a real release goes through the site extractor without an exception."""
from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor

import pytest

from extractor.profile import load_profile
from extractor.sites import extract_file

pytestmark = pytest.mark.network


def _extract(item: tuple[str, str]) -> tuple[str, int, str | None]:
    path, text = item
    result = extract_file(path, text, load_profile("sglang"))
    return path, len(result.sites), result.parse_error


def test_whole_release_0523_extracts_without_exceptions(release) -> None:
    snap = release("0.5.23")
    # Read in this process: archive readers must not be shared across forked workers.
    items = [(p, snap.text(p)) for p in sorted(snap.blobs) if p.endswith(".py")]
    assert len(items) > 4000
    # forkserver: workers start from a clean process, not a fork of this one (which may hold
    # locks of other tests' threads, e.g. a local HTTP server).
    context = multiprocessing.get_context("forkserver")
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 2, mp_context=context) as pool:
        results = list(pool.map(_extract, items, chunksize=32))
    failures = [(p, err) for p, _, err in results if err]
    assert failures == []
    assert sum(n for _, n, _ in results) > 20000
