"""Atomic catalog directories: build everything in a sibling temp dir, then swap it in.

A failure or kill before the swap leaves the previous catalog untouched; the swap
is two renames, and a run that finds only the parked old copy puts it back first.
"""
from __future__ import annotations

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
    for parked in sorted(out.parent.glob(f"{out.name}{_OLD}*"), reverse=True):
        if (parked / "catalog").is_dir():
            os.replace(parked / "catalog", out)
            shutil.rmtree(parked, ignore_errors=True)
            return


@contextmanager
def atomic_dir(out: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield an empty staging directory; on success it replaces `out` whole."""
    target = Path(out).absolute()
    parent = target.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot create output directory {parent}: {exc.strerror}") from None
    if target.exists() and not target.is_dir():
        raise OutputError(f"output path {target} exists and is not a directory")
    if not os.access(parent, os.W_OK):
        raise OutputError(f"output directory {parent} is not writable")
    _recover(target)
    try:
        staging = Path(tempfile.mkdtemp(prefix=target.name + _NEW, dir=parent))
    except OSError as exc:
        raise OutputError(f"cannot write to {parent}: {exc.strerror}") from None
    try:
        yield staging
        if target.exists():
            parked = Path(tempfile.mkdtemp(prefix=target.name + _OLD, dir=parent))
            os.replace(target, parked / "catalog")
            os.replace(staging, target)
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
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


def write_atomically(out: str | os.PathLike[str], render: Callable[[], dict[str, str | bytes]]) -> Path:
    """Render all files first (nothing touches disk if that fails), then swap them in."""
    files = render()
    try:
        with atomic_dir(out) as staging:
            write_files(staging, files)
    except OSError as exc:
        raise OutputError(f"cannot write catalog to {out}: {exc.strerror or exc}") from None
    return Path(out)
