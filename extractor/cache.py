"""One cache directory for everything errcat keeps between runs.

Layout: ``downloads/`` (release archives + their index metadata), ``mirrors/`` (bare
git mirrors of remote repositories), ``results/`` (per-blob analysis results), and
``targets/`` (virtualenvs of the target program, built only by `errcat.real.targetenv`).

The cache holds data only, but data decides what errcat reads and writes: a cache
directory another user owns, or that group or others can write, is not used
(`untrusted`, `private_cache`).
"""
from __future__ import annotations

import os
import shutil
import stat
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ENV_VAR = "ERRCAT_CACHE_DIR"
SUBDIRS = ("downloads", "mirrors", "results")


class CacheWarning(UserWarning):
    """The cache directory is not private to this user: errcat runs without it.

    The library never prints: the CLI renders these as ``errcat: warning: ...``.
    """


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


def targets_dir(root: str | os.PathLike[str] | None = None) -> Path:
    return cache_root(root) / "targets"


def untrusted(root: Path, subdirs: tuple[str, ...] = SUBDIRS) -> str | None:
    """Why the cache at `root` must not be used, or None.

    The root and the subdirectories errcat uses must belong to the effective user
    and not be writable by group or others: anyone else who can write there could
    plant downloads, mirrors or results. Missing directories are fine (errcat
    creates them private, see `private_cache`); so is a path that cannot be a
    directory (writing there fails with its own error).
    """
    for path in (root, *(root / sub for sub in subdirs)):
        try:
            st = os.stat(path)
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError as exc:
            return f"{path} cannot be checked ({exc.strerror or exc})"
        if not stat.S_ISDIR(st.st_mode):
            continue  # nothing can be planted in it; whoever writes there reports the error
        if st.st_uid != os.geteuid():
            return f"{path} is owned by uid {st.st_uid}, not by you"
        if st.st_mode & 0o022:
            return f"{path} is writable by group or others (chmod go-w {path})"
    return None


def warn_untrusted(root: Path, problem: str) -> None:
    warnings.warn(CacheWarning(f"not using the cache at {root}: {problem}; running without it"), stacklevel=3)


@contextmanager
def private_cache(
    cache_dir: str | os.PathLike[str] | None, use_cache: bool
) -> Iterator[tuple[str | os.PathLike[str] | None, bool]]:
    """The (cache_dir, use_cache) a run should use.

    A trusted cache as given (missing directories created private, whatever the
    umask, so the next run trusts them too). An untrusted one (`untrusted`) is not
    touched: one `CacheWarning`, and the run gets a fresh private directory for its
    downloads and mirrors, no result cache, and the directory is removed after.
    """
    root = cache_root(cache_dir)
    problem = untrusted(root)
    if problem is None:
        _create_private(root, SUBDIRS if use_cache else tuple(s for s in SUBDIRS if s != "results"))
        yield cache_dir, use_cache
        return
    warn_untrusted(root, problem)
    scratch = tempfile.mkdtemp(prefix="errcat-cache-")  # mode 0o700, ours
    try:
        yield scratch, False
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _create_private(root: Path, subdirs: tuple[str, ...]) -> None:
    """mkdir with mode 0o700 (a mode argument is only ever narrowed by the umask)."""
    try:
        root.parent.mkdir(parents=True, exist_ok=True)
        for path in (root, *(root / sub for sub in subdirs)):
            path.mkdir(mode=0o700, exist_ok=True)
    except OSError:
        pass  # read-only or not a directory: whoever writes there reports it
