"""Atomic catalog directories: build everything in a sibling temp dir, then swap it in.

A failure or kill before the swap leaves the previous catalog untouched; the swap
is two renames, and a run that finds only the parked old copy puts it back first.
Only an empty directory or an earlier output (it holds the marker file, by default
``catalog.json``) is ever replaced: ``--out ~`` must not wipe a home directory.
"""
from __future__ import annotations

import glob
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from extractor.errors import OutputError

_OLD = ".errcat-old-"
_NEW = ".errcat-new-"


def dumps(data: Any) -> str:
    """Canonical JSON text: the same data always gives the same bytes."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _recover(out: Path) -> None:
    """Undo a swap interrupted between its two renames."""
    if out.exists():
        return
    for parked in sorted(out.parent.glob(f"{glob.escape(out.name)}{_OLD}*"), reverse=True):
        if (parked / "catalog").is_dir():
            os.replace(parked / "catalog", out)
            shutil.rmtree(parked, ignore_errors=True)
            return


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _check_replaceable(target: Path, marker: str | None) -> None:
    """Refuse to replace a directory errcat did not write (it would be deleted)."""
    if not target.is_dir() or marker is None or (target / marker).is_file():
        return
    try:
        empty = next(target.iterdir(), None) is None
    except OSError as exc:
        raise OutputError(f"cannot read output directory {target}: {exc.strerror}") from None
    if not empty:
        raise OutputError(
            f"refusing to replace {target}: it is not empty and has no {marker} (not an errcat output directory)"
        )


@contextmanager
def atomic_dir(out: str | os.PathLike[str], *, marker: str | None = "catalog.json") -> Iterator[Path]:
    """Yield an empty staging directory; on success it replaces `out` whole.

    An existing `out` must be empty or contain `marker` (None: replace anything).
    """
    target = Path(os.path.abspath(out))
    parent = target.parent
    if target == parent:
        raise OutputError(f"refusing to use {target} as the output directory")
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot create output directory {parent}: {exc.strerror}") from None
    if target.exists() and not target.is_dir():
        raise OutputError(f"output path {target} exists and is not a directory")
    if not os.access(parent, os.W_OK):
        raise OutputError(f"output directory {parent} is not writable")
    _recover(target)
    _check_replaceable(target, marker)
    try:
        staging = Path(tempfile.mkdtemp(prefix=target.name + _NEW, dir=parent))
        staging.chmod(0o777 & ~_umask())  # mkdtemp makes it 0700; the result is a normal directory
    except OSError as exc:
        raise OutputError(f"cannot write to {parent}: {exc.strerror}") from None
    try:
        yield staging
        if target.exists():
            parked = Path(tempfile.mkdtemp(prefix=target.name + _OLD, dir=parent))
            try:
                os.replace(target, parked / "catalog")
                try:
                    os.replace(staging, target)
                except BaseException:
                    os.replace(parked / "catalog", target)  # put the old catalog back
                    raise
            except BaseException:
                if not (parked / "catalog").exists():
                    shutil.rmtree(parked, ignore_errors=True)
                raise
            shutil.rmtree(parked, ignore_errors=True)
        else:
            os.replace(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def write_files(root: Path, files: dict[str, str | bytes]) -> None:
    """Write relative path -> content below `root`."""
    for rel, content in sorted(files.items()):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        # Bytes, not text mode: no newline translation, the same bytes on every platform.
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))


def write_atomically(
    out: str | os.PathLike[str],
    render: Callable[[], dict[str, str | bytes]],
    *,
    marker: str | None = "catalog.json",
) -> Path:
    """Render all files first (nothing touches disk if that fails), then swap them in.

    `marker`: see `atomic_dir`; pass the name of a file your output always has.
    """
    files = render()
    try:
        with atomic_dir(out, marker=marker) as staging:
            write_files(staging, files)
    except OSError as exc:
        raise OutputError(f"cannot write catalog to {out}: {exc.strerror or exc}") from None
    return Path(out)
