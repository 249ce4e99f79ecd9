"""Is an output directory already exactly what we would write? Then leave it alone.

Re-extracting an unchanged source into the same place rewrites nothing (no new
inodes or mtimes for watchers, rsync or the nightly publisher) and costs reads only.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from output.writer import COMPANIONS

if TYPE_CHECKING:
    from output.writer import Content


def same_files(out: str | os.PathLike[str], files: Mapping[str, Content]) -> bool:
    """True when `out` holds exactly `files`: the same names, the same bytes, nothing else."""
    root = Path(out)
    if not root.is_dir() or root.is_symlink():
        return False
    wanted_dirs = {"."} | {str(Path(rel).parent.as_posix()) for rel in files}
    for parent in list(wanted_dirs):  # every ancestor directory too
        while parent not in (".", ""):
            parent = str(Path(parent).parent.as_posix())
            wanted_dirs.add(parent)
    seen = 0
    try:
        for dirpath, dirnames, filenames in os.walk(root):
            rel_dir = Path(dirpath).relative_to(root).as_posix()
            if rel_dir not in wanted_dirs:
                return False
            for name in dirnames:
                if (Path(dirpath) / name).is_symlink():
                    return False
            for name in filenames:
                rel = name if rel_dir == "." else f"{rel_dir}/{name}"
                content = files.get(rel)
                full = Path(dirpath) / name
                if content is None and rel in COMPANIONS and not full.is_symlink():
                    continue  # another command's results beside the catalog: kept, not ours to compare
                if content is None or full.is_symlink():
                    return False
                if not _same_bytes(full, content):
                    return False
                seen += 1
    except OSError:
        return False
    return seen == len(files)


def _same_bytes(path: Path, content: Content) -> bool:
    """Does the file at `path` hold `content` (UTF-8)? Compared a chunk at a time."""
    from output.writer import encoded_chunks

    with path.open("rb") as fh:
        for chunk in encoded_chunks(content):
            if fh.read(len(chunk)) != chunk:
                return False
        return fh.read(1) == b""
