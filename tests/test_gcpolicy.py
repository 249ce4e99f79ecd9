"""Catalogs are built and rendered with fewer garbage collections, the caller's settings kept."""
from __future__ import annotations

import gc

import pytest

from errcat import pipeline
from errcat.gcpolicy import THRESHOLDS, fewer_collections
from errcat.model import SourceSpec


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
    ("extract_sites", lambda: pipeline.build_catalog(_Snapshot(), _Profile())),
    ("build_graph", lambda: pipeline.render_catalog(_Catalog())),
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


class _Catalog:
    entries = ()
    renderer = flags = adjustments = None

    def as_dict(self, entries=True):
        return {"entries": []} if entries else {}
