"""A hub model's ``config.json`` from the local Hugging Face cache, as ``huggingface_hub``
lays it out (``models--ORG--NAME/snapshots/<commit>/config.json``; ``refs/<branch or tag>``
names the commit). Only reads files: never downloads, never imports ``huggingface_hub``."""
from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

_HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+")
_COMMIT = re.compile(r"[0-9a-f]{40}")


def hub_cache(env: Mapping[str, str]) -> Path:
    """Where ``huggingface_hub`` keeps models: ``$HF_HUB_CACHE``, else ``$HF_HOME/hub``, else
    ``$XDG_CACHE_HOME/huggingface/hub``, else ``~/.cache/huggingface/hub``."""
    for name in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        if env.get(name):
            return Path(env[name]).expanduser()
    if env.get("HF_HOME"):
        return Path(env["HF_HOME"]).expanduser() / "hub"
    base = Path(env["XDG_CACHE_HOME"]).expanduser() if env.get("XDG_CACHE_HOME") else Path.home() / ".cache"
    return base / "huggingface" / "hub"


def is_hub_id(model: str) -> bool:
    """``ORG/NAME`` that is not a local path."""
    return bool(_HUB_ID.fullmatch(model)) and not model.startswith((".", "~")) and not Path(model).exists()


def cached_config(model: str, revision: str | None, env: Mapping[str, str]) -> Path | None:
    """The cached ``config.json`` of hub model `model` at `revision` (default: what
    ``refs/main`` names; a lone snapshot where there is no ref), or None."""
    if not is_hub_id(model):
        return None
    org, name = model.split("/")
    repo = hub_cache(env) / f"models--{org}--{name}"
    wanted = revision or "main"
    ref = repo / "refs" / wanted
    try:
        commit = ref.read_text(encoding="utf-8").strip() if ref.is_file() else None
    except (OSError, UnicodeError):
        commit = None
    if commit is None and _COMMIT.fullmatch(wanted):
        commit = wanted
    if commit is None and revision is None:
        found = sorted((repo / "snapshots").glob("*/config.json"))
        return found[0] if len(found) == 1 else None
    config = repo / "snapshots" / commit / "config.json" if commit and "/" not in commit else None
    return config if config is not None and config.is_file() else None
