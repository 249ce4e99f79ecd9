"""On-disk cache of analysis results, keyed by content and by the analysis itself.

A result is stored under ``results/<fingerprint>/<kind>/<key[:2]>/<key>`` in the one
errcat cache directory (`extractor.cache.results_dir`). The fingerprint names the
analysis: errcat's version, a hash of the source files of the packages that compute
the result, and the target profile. Editing the extractor (or the profile) therefore
starts a fresh namespace instead of serving stale results; `prune` drops old ones.

Values are zlib-compressed JSON. Writes go to a temporary file in the same
directory and are renamed into place, so readers (other processes included) see a
whole value or none; a value that fails to decode counts as a miss. The cache is an
accelerator only: when it cannot be written, results are still returned.
"""
from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

from extractor.atomic import write_bytes_atomically
from extractor.cache import results_dir
from extractor.profile import Profile
from extractor.snapshot import Snapshot, SourceKind

# Packages whose code decides a result: per-file sites come from the extractor alone,
# a rendered catalog from every stage.
SITES_PACKAGES: tuple[str, ...] = ("extractor",)
CATALOG_PACKAGES: tuple[str, ...] = ("extractor", "analyzers", "output", "errcat")
FLAG_PACKAGES: tuple[str, ...] = ("extractor", "analyzers")  # the flag model (analyzers.flags)

T = TypeVar("T")

_FP_LEN = 16


@lru_cache(maxsize=None)
def code_digest(packages: tuple[str, ...]) -> str:
    """sha256 over the relative paths and bytes of every .py/.yaml/.json file in `packages`."""
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for package in packages:
        base = root / package
        files = sorted(p for p in base.rglob("*") if p.suffix in (".py", ".yaml", ".json") and p.is_file())
        for path in files:
            if "__pycache__" in path.parts:
                continue
            digest.update(path.relative_to(root).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def profile_digest(profile: Profile) -> str:
    text = json.dumps(profile.raw, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(f"{profile.name}\0{text}".encode()).hexdigest()


def fingerprint(profile: Profile, packages: tuple[str, ...] = SITES_PACKAGES) -> str:
    """The analysis a result comes from: errcat version + code of `packages` + profile."""
    from errcat import __version__

    parts = ["errcat", __version__, ",".join(packages), code_digest(packages), profile_digest(profile)]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:_FP_LEN]


def key_of(*parts: str) -> str:
    """A cache key from strings (e.g. a blob id and the path it sits at)."""
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def encode(data: Any) -> bytes:
    return zlib.compress(json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode(), 1)


def decode(raw: bytes) -> Any:
    return json.loads(zlib.decompress(raw))


@dataclass
class CacheStats:
    hits: int = 0
    misses: int = 0
    write_errors: int = 0
    uncacheable: int = 0  # results whose stored form would not give them back exactly

    def add(self, other: "CacheStats") -> None:
        self.hits += other.hits
        self.misses += other.misses
        self.write_errors += other.write_errors
        self.uncacheable += other.uncacheable

    def as_dict(self) -> dict[str, int]:
        return {"hits": self.hits, "misses": self.misses, "write_errors": self.write_errors,
                "uncacheable": self.uncacheable}


@dataclass
class ResultCache:
    """One analysis' namespace in the results directory."""

    root: Path  # the results directory
    fingerprint: str
    stats: CacheStats = field(default_factory=CacheStats)

    @classmethod
    def open(
        cls,
        profile: Profile,
        cache_dir: str | os.PathLike[str] | None = None,
        packages: tuple[str, ...] = SITES_PACKAGES,
    ) -> "ResultCache":
        return cls(results_dir(cache_dir), fingerprint(profile, packages))

    def path(self, kind: str, key: str) -> Path:
        return self.root / self.fingerprint / kind / key[:2] / key

    def get(self, kind: str, key: str) -> Any | None:
        """The decoded value, or None when absent or unreadable."""
        try:
            value = decode(self.path(kind, key).read_bytes())
        except (OSError, ValueError, zlib.error):
            self.stats.misses += 1
            return None
        self.stats.hits += 1
        return value

    def sibling(self, profile: Profile, packages: tuple[str, ...]) -> "ResultCache":
        """The same results directory and counters, for an analysis over other packages."""
        return ResultCache(self.root, fingerprint(profile, packages), self.stats)

    def memo(self, kind: str, key: str, compute: Callable[[], T]) -> T:
        """`compute()` once per key, stored pickled (for results without a JSON form).

        Stored only when the pickled form gives back an equal value. Pickles run code
        when loaded: keep the cache directory writable by you alone, as any cache of
        code (``__pycache__``, pip's wheel cache).
        """
        raw = self.get_bytes(kind, key)
        if raw is not None:
            try:
                return pickle.loads(raw)  # noqa: S301 - our own cache, see the docstring
            except Exception:  # noqa: BLE001 - stale or foreign: compute again
                pass
        value = compute()
        try:
            data = pickle.dumps(value)
            exact = pickle.loads(data) == value  # noqa: S301
        except Exception:  # noqa: BLE001 - not picklable: just do not cache it
            exact = False
        if exact:
            self.put_bytes(kind, key, data)
        else:
            self.stats.uncacheable += 1
        return value

    def put(self, kind: str, key: str, value: Any) -> bool:
        """Store atomically; False (and counted) when the cache cannot be written."""
        return self.put_bytes(kind, key, encode(value))

    def get_bytes(self, kind: str, key: str) -> bytes | None:
        """The stored bytes as they are (see `pack`), or None."""
        try:
            raw = self.path(kind, key).read_bytes()
        except OSError:
            self.stats.misses += 1
            return None
        self.stats.hits += 1
        return raw

    def put_bytes(self, kind: str, key: str, raw: bytes) -> bool:
        try:
            write_bytes_atomically(self.path(kind, key), raw)
        except OSError:
            self.stats.write_errors += 1
            return False
        return True


def prune(cache_dir: str | os.PathLike[str] | None, keep: Iterable[str]) -> list[str]:
    """Remove result namespaces whose fingerprint is not in `keep`; return what went."""
    root = results_dir(cache_dir)
    keep_set = set(keep)
    gone = []
    if root.is_dir():
        for child in sorted(root.iterdir()):
            if child.is_dir() and child.name not in keep_set:
                shutil.rmtree(child, ignore_errors=True)
                gone.append(child.name)
    return gone


def snapshot_key(snapshot: Snapshot, profile: Profile) -> str:
    """A key for everything a catalog of `snapshot` is built from, cheap to compute.

    A git commit pins its whole tree, and a release on the package index is
    immutable (files cannot be replaced), so for both the provenance is enough and
    nothing is read. A directory is pinned by the blob ids of all its files.
    """
    prov = json.dumps(snapshot.provenance(), sort_keys=True)
    if snapshot.kind == SourceKind.GIT and snapshot.commit:
        content = snapshot.commit
    elif snapshot.kind == SourceKind.RELEASE and snapshot.release:
        content = f"release {snapshot.repo}=={snapshot.release}"
    else:
        content = "\n".join(f"{p}\t{snapshot.blobs[p]}" for p in sorted(snapshot.blobs))
    return key_of("snapshot", snapshot.repo, prov, content, *snapshot.diagnostics)  # e.g. a link now skipped


# ------------------------------------------------------------------ file packs


def pack(files: dict[str, bytes], meta: Any) -> bytes:
    """Many files and a JSON header in one uncompressed blob (read back without parsing them)."""
    names = sorted(files)
    header = json.dumps({"meta": meta, "files": [[n, len(files[n])] for n in names]}).encode()
    return b"%d\n" % len(header) + header + b"".join(files[n] for n in names)


def unpack(raw: bytes) -> tuple[dict[str, bytes], Any]:
    """The inverse of `pack`; ValueError when the blob is not one."""
    head, _, rest = raw.partition(b"\n")
    size = int(head)
    header = json.loads(rest[:size])
    view, pos, files = memoryview(rest), size, {}
    for name, length in header["files"]:
        files[name] = bytes(view[pos : pos + length])
        pos += length
    if pos != len(rest):
        raise ValueError("truncated pack")
    return files, header["meta"]
