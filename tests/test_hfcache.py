"""A hub model's config.json read from a local Hugging Face cache built in tmp_path; never downloaded."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from errcat.hfcache import cached_config, hub_cache, is_hub_id

COMMIT, OTHER = "a" * 40, "b" * 40


def _cache(root: Path, model: str = "org/llama", refs: dict[str, str] | None = None,
           snapshots: tuple[str, ...] = (COMMIT,)) -> Path:
    repo = root / f"models--{model.replace('/', '--')}"
    for name in snapshots:
        (repo / "snapshots" / name).mkdir(parents=True)
        (repo / "snapshots" / name / "config.json").write_text(json.dumps({"architectures": [name[:1]]}))
    for ref, commit in (refs if refs is not None else {"main": COMMIT}).items():
        (repo / "refs" / ref).parent.mkdir(parents=True, exist_ok=True)
        (repo / "refs" / ref).write_text(commit + "\n")
    return root


@pytest.mark.parametrize("env, where", [
    ({"HF_HUB_CACHE": "/c/hub", "HF_HOME": "/h"}, "/c/hub"),
    ({"HF_HOME": "/h", "XDG_CACHE_HOME": "/x"}, "/h/hub"),
    ({"XDG_CACHE_HOME": "/x"}, "/x/huggingface/hub"),
    ({}, str(Path.home() / ".cache/huggingface/hub")),
])
def test_hub_cache_honours_the_environment(env, where):
    assert hub_cache(env) == Path(where)


@pytest.mark.parametrize("model, hub", [
    ("meta-llama/Llama-3.1-8B-Instruct", True), ("Qwen/Qwen2.5-7B", True), ("llama", False),
    ("/models/llama", False), ("./org/name", False), ("a/b/c", False),
])
def test_is_hub_id(model, hub):
    assert is_hub_id(model) is hub


@pytest.mark.parametrize("refs, snapshots, revision, found", [
    ({"main": COMMIT}, (COMMIT,), None, COMMIT),  # refs/main names the default revision
    ({"main": COMMIT, "v2": OTHER}, (COMMIT, OTHER), "v2", OTHER),  # --revision a tag
    ({"main": COMMIT}, (COMMIT, OTHER), OTHER, OTHER),  # --revision a commit
    ({}, (COMMIT,), None, COMMIT),  # no ref: the lone snapshot
    ({}, (COMMIT, OTHER), None, None),  # no ref, two snapshots: which one is not known
    ({"main": COMMIT}, (COMMIT,), "v9", None),  # a revision not cached
    ({"main": OTHER}, (COMMIT,), None, None),  # a ref to a snapshot not cached
])
def test_cached_config(tmp_path, refs, snapshots, revision, found):
    root = _cache(tmp_path, refs=refs, snapshots=snapshots)
    got = cached_config("org/llama", revision, {"HF_HUB_CACHE": str(root)})
    assert got == (root / "models--org--llama" / "snapshots" / found / "config.json" if found else None)


def test_a_model_not_cached_is_none(tmp_path):
    assert cached_config("org/other", None, {"HF_HUB_CACHE": str(_cache(tmp_path))}) is None
