"""One cache directory for everything errcat keeps between runs.

Layout: ``downloads/`` (release archives + their index metadata), ``mirrors/`` (bare
git mirrors of remote repositories), ``results/`` (per-blob analysis results).
"""
from __future__ import annotations

import os
from pathlib import Path

ENV_VAR = "ERRCAT_CACHE_DIR"


def cache_root(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The explicit dir, else $ERRCAT_CACHE_DIR, else $XDG_CACHE_HOME/errcat, else ~/.cache/errcat.

    Not created here: callers create the subdirectory they write to, so merely
    resolving the location has no side effects.
    """
    if explicit is not None and os.fspath(explicit) != "":
        return Path(explicit).expanduser()
    if env := os.environ.get(ENV_VAR):
        return Path(env).expanduser()
    # XDG says relative values are invalid and must be ignored.
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "errcat"
    return Path.home() / ".cache" / "errcat"


def downloads_dir(root: str | os.PathLike[str] | None = None) -> Path:
    return cache_root(root) / "downloads"


def mirrors_dir(root: str | os.PathLike[str] | None = None) -> Path:
    return cache_root(root) / "mirrors"


def results_dir(root: str | os.PathLike[str] | None = None) -> Path:
    return cache_root(root) / "results"
