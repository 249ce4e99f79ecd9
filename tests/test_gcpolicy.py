"""Catalogs are built and rendered with fewer garbage collections, the caller's settings kept."""
from __future__ import annotations

import gc
from typing import cast

import pytest

from errcat import pipeline
from errcat.gcpolicy import THRESHOLDS, fewer_collections
from errcat.model import Catalog, SourceSpec
from extractor.profile import Profile
from extractor.snapshot import Snapshot


@pytest.fixture
def thresholds():
    before = gc.get_threshold()
    yield
    gc.set_threshold(*before)


@pytest.mark.parametrize("caller, inside", [
    ((700, 10, 10), THRESHOLDS),
    ((500_000, 5, 50), (500_000, 10, 50)),  # never lower than the caller's
    ((0, 10, 10), (0, 10, 10)),  # automatic collection off: stays off
])
def test_thresholds_inside_and_restored_after(thresholds, caller, inside):
    gc.set_threshold(*caller)
    with pytest.raises(KeyError), fewer_collections():
        assert gc.get_threshold() == inside
        raise KeyError("restored on errors too")
    assert gc.get_threshold() == caller


class _Seen(Exception):
    pass


@pytest.mark.parametrize("stage, call", [
    # stand-ins that stop the stage at its first step (`_Seen`)
    ("caller_files", lambda: pipeline.build_catalog(cast(Snapshot, _Snapshot()), cast(Profile, _Profile()))),
    ("build_graph", lambda: pipeline.render_catalog(cast(Catalog, _Catalog()))),
    ("load_profile", lambda: pipeline.write_catalog(SourceSpec())),
])
def test_pipeline_stages_run_with_fewer_collections(thresholds, monkeypatch, stage, call):
    gc.set_threshold(700, 10, 10)
    seen = []

    def record(*args, **kwargs):
        seen.append(gc.get_threshold())
        raise _Seen

    if stage == "build_graph":
        import analyzers.graph
        monkeypatch.setattr(analyzers.graph, "build_graph", record)
    else:
        monkeypatch.setattr(pipeline, stage, record)
    with pytest.raises(_Seen):
        call()
    assert seen == [THRESHOLDS]
    assert gc.get_threshold() == (700, 10, 10)


class _Snapshot:
    def glob(self, patterns):
        return ["a.py"]


class _Profile:
    targets = ("*.py",)


class _CatalogProfile:
    release_tag = "v{version}"
    real = None  # no real program: no compiled judge


class _Catalog:
    entries = ()
    renderer = flags = adjustments = None
    profile = _CatalogProfile()

    def as_dict(self, entries=True):
        return {"entries": []} if entries else {}
