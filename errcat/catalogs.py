"""Where `errcat check` and `errcat explain` get catalogs: a directory, or a source errcat
extracts or takes from its cache; and a list of releases (``A..B`` over the index)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from errcat.model import SourceSpec
from extractor.errors import ErrcatError
from extractor.profile import Profile
from output.catalog_dirs import catalog_dir_data, is_site, site_catalog_dir


def load_catalog(spec: SourceSpec, catalog: str | None, *, profile: Profile,
                 cache_dir: str | None = None, jobs: int | None = None) -> dict[str, Any]:
    """The catalog of a directory (a catalog, or a site: its newest release), else of a source
    (extracted, or from errcat's cache)."""
    if catalog is not None:
        return catalog_dir_data(site_catalog_dir(catalog) if is_site(catalog) else catalog)
    from errcat.pipeline import catalog_data

    return catalog_data(spec, profile, cache_dir=cache_dir, jobs=jobs)


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
