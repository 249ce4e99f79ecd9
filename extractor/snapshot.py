"""`Snapshot`: the files of one version of a project, whatever they came from."""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from extractor.compat import StrEnum
from extractor.decode import UndecodableSource, decode_source
from extractor.globs import match_any


class SourceKind(StrEnum):
    GIT = "git"
    RELEASE = "release"
    DIRECTORY = "directory"


def blob_id(data: bytes) -> str:
    """Git's blob id of `data`, so every source kind keys caches the same way."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Where files came from plus a lazy path -> content reader.

    `blobs` maps repository-layout paths (e.g. ``python/sglang/srt/server_args.py``)
    to git blob ids; `reader` loads one path's bytes on demand. `diagnostics` says what
    the source left out on purpose (symlinks leading out of the tree).
    """

    kind: SourceKind
    repo: str
    ref: str
    commit: str | None
    commit_date: str | None
    release: str | None
    blobs: Mapping[str, str]
    reader: Callable[[str], bytes] = field(repr=False, compare=False)
    diagnostics: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()  # a git commit's tags (sorted): which release it is

    def read(self, path: str) -> bytes:
        return self.reader(path)

    def text(self, path: str) -> str:
        """The file as Python reads it; `UndecodableSource` if Python would refuse it."""
        return decode_source(self.read(path), path)

    def texts(self, paths: Iterable[str]) -> tuple[dict[str, str], tuple[UndecodableSource, ...]]:
        """The texts of `paths` that Python can read, and why the others cannot be read."""
        texts: dict[str, str] = {}
        refused: list[UndecodableSource] = []
        for path in paths:
            try:
                texts[path] = self.text(path)
            except UndecodableSource as exc:
                refused.append(exc)
        return texts, tuple(refused)

    def glob(self, patterns: Iterable[str]) -> list[str]:
        pats = list(patterns)
        return sorted(p for p in self.blobs if match_any(p, pats))

    @property
    def pin(self) -> str:
        """What permalinks point at: the commit, else the release tag text."""
        return self.commit or self.ref

    def provenance(self) -> dict[str, object]:
        return {
            "kind": str(self.kind),
            "ref": self.ref,
            "commit": self.commit,
            "commit_date": self.commit_date,
            "release": self.release,
            **({"tags": list(self.tags)} if self.kind == SourceKind.GIT else {}),
        }
