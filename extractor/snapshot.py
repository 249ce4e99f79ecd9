"""`Snapshot`: the files of one version of a project, whatever they came from."""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from extractor.compat import StrEnum
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
    to git blob ids; `reader` loads one path's bytes on demand.
    """

    kind: SourceKind
    repo: str
    ref: str
    commit: str | None
    commit_date: str | None
    release: str | None
    blobs: Mapping[str, str]
    reader: Callable[[str], bytes] = field(repr=False, compare=False)

    def read(self, path: str) -> bytes:
        return self.reader(path)

    def text(self, path: str) -> str:
        return self.read(path).decode("utf-8", errors="replace")

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
        }
