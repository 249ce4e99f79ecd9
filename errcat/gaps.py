"""The library call behind `errcat gaps`: a catalog directory's crash entries (and, with
an older catalog, which are new), read back from what `errcat extract` wrote."""
from __future__ import annotations

import os
from dataclasses import dataclass

from analyzers.gaps import Gap, gaps, new_gaps
from output.catalog_dirs import catalog_dir_data


@dataclass(frozen=True, slots=True)
class GapReport:
    found: tuple[Gap, ...]
    new: tuple[Gap, ...] | None  # None: no older catalog given
    release: str


def gap_report(catalog_dir: str | os.PathLike[str], against: str | os.PathLike[str] | None = None) -> GapReport:
    """ErrcatError (one line) where a directory is no catalog."""
    data = catalog_dir_data(catalog_dir)
    found = gaps(data["entries"])
    new = tuple(new_gaps(found, gaps(catalog_dir_data(against)["entries"]))) if against is not None else None
    source = data["source"] if isinstance(data.get("source"), dict) else {}
    release = str(source.get("release") or data.get("commit") or "")
    return GapReport(tuple(found), new, release)
