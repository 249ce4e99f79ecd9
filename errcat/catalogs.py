"""Where `errcat check` and `errcat explain` get catalogs: a directory, or a source errcat
extracts or takes from its cache; and a list of releases (``A..B`` over the index)."""
from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from errcat.model import SourceSpec
from extractor.errors import ErrcatError
from extractor.profile import Profile


def load_catalog(spec: SourceSpec, catalog: str | None, *, profile: Profile,
                 cache_dir: str | None = None, jobs: int | None = None) -> dict[str, Any]:
    """The catalog of a directory (a catalog, or a site: its newest release), else of a source
    (extracted, or from errcat's cache)."""
    if catalog is not None:
        return catalog_dir_data(site_catalog_dir(catalog) if is_site(catalog) else catalog)
    from errcat.pipeline import catalog_data

    return catalog_data(spec, profile, cache_dir=cache_dir, jobs=jobs)


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
    from output.site_html import safe_name

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


def release_list(items: Sequence[str], profile: Profile) -> list[str]:
    """``--releases 0.5.18 0.5.19`` or ``0.5.18..0.5.23`` (every release the index lists
    between the two, both included), in that order, each once."""
    from extractor import source
    from extractor.pep440 import version_key

    out: list[str] = []
    known: list[str] | None = None
    for item in items:
        if ".." not in item:
            out.append(item)
            continue
        low, _, high = item.partition("..")
        if not low or not high:
            raise ErrcatError(f"--releases: expected A..B, got {item!r}")
        known = source.index_releases(profile) if known is None else known
        lo, hi = version_key(low), version_key(high)
        inside = [v for v in known if lo <= version_key(v) <= hi]
        if not inside:
            raise ErrcatError(f"--releases: the index lists no release from {low} to {high}")
        out += inside
    return list(dict.fromkeys(out))
