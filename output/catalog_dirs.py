"""The directories errcat writes, read back: a catalog directory's catalog.json, and the
catalog directory of one release of a site (how `check` and `explain` take `--catalog`)."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from extractor.errors import ErrcatError
from output.site_html import safe_name


def catalog_dir_data(directory: str | os.PathLike[str]) -> dict[str, Any]:
    """A catalog directory's `catalog.json`; one ErrcatError line when it is none."""
    path = Path(directory) / "catalog.json"
    if not path.is_file():
        raise ErrcatError(f"{directory} is not a catalog directory (no catalog.json)")
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError) as exc:
        raise ErrcatError(f"cannot read {path}: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("entries"), list):
        raise ErrcatError(f"{path} is not an errcat catalog")
    return data


def site_catalog_dir(site: str | os.PathLike[str], release: str | None = None) -> Path:
    """The directory of a site's API that holds a release's catalog.json (default: the newest):
    how `errcat explain --catalog SITE` reads a site. ErrcatError when `site` is no site."""
    index = Path(site) / "api" / "index.json"
    try:
        data = json.loads(index.read_text(encoding="utf-8"))
        labels = [r["label"] for r in data["releases"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ErrcatError(f"{site} is not an errcat site (cannot read {index}: {exc})") from None
    wanted = release or data.get("newest") or (labels[0] if labels else None)
    if wanted not in labels:
        raise ErrcatError(f"the site at {site} has no release {wanted}")
    return Path(site) / "api" / safe_name(str(wanted))


def is_site(directory: str | os.PathLike[str]) -> bool:
    """A directory `errcat site` wrote (its API index), not a catalog directory."""
    return (Path(directory) / "api" / "index.json").is_file() and not (Path(directory) / "catalog.json").exists()
