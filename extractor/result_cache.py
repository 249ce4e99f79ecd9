"""On-disk cache of analysis results, keyed by content and by the analysis itself.

A result is stored under ``results/<fingerprint>/<kind>/<key[:2]>/<key>`` in the one
errcat cache directory (`extractor.cache.results_dir`). The fingerprint names the
analysis: errcat's version, a hash of the source files of the packages that compute
the result, and the target profile. Editing the extractor (or the profile) therefore
starts a fresh namespace instead of serving stale results; `prune` drops old ones.

Values are zlib-compressed JSON (or a `pack` of files): data only, never code, and
read back through a validating reader, so a value that fails to decode or has
another shape counts as a miss. Writes go to a temporary file in the same
directory and are renamed into place, so readers (other processes included) see a
whole value or none. The cache is an accelerator only: when it cannot be written,
results are still returned; when others could have written it
(`extractor.cache.untrusted`), it is neither read nor written.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import zlib
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from extractor.atomic import write_bytes_atomically
from extractor.cache import cache_root, results_dir, untrusted, warn_untrusted
from extractor.profile import Profile
from extractor.relpath import relative_name_problem
from extractor.snapshot import Snapshot, SourceKind
from extractor.tool import VERSION

# Packages whose code decides a result: per-file sites come from the extractor alone,
# a rendered catalog from every stage.
SITES_PACKAGES: tuple[str, ...] = ("extractor",)
CATALOG_PACKAGES: tuple[str, ...] = ("extractor", "analyzers", "output", "errcat")
FLAG_PACKAGES: tuple[str, ...] = ("extractor", "analyzers")  # the flag model (analyzers.flag_build)

T = TypeVar("T")

_FP_LEN = 16


@cache
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
    parts = ["errcat", VERSION, ",".join(packages), code_digest(packages), profile_digest(profile)]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:_FP_LEN]


def encode(data: Any) -> bytes:
    """zlib-compressed JSON; ValueError (or TypeError) for a value JSON cannot hold."""
    return zlib.compress(json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode(), 1)


def decode(raw: bytes) -> Any:
    return json.loads(zlib.decompress(raw))


@dataclass
class CacheStats:
    hits: int = 0
    misses: int = 0
    write_errors: int = 0
    uncacheable: int = 0  # results whose stored form would not give them back exactly

    def add(self, other: CacheStats) -> None:
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
    enabled: bool = True  # False: the directory is not private (`untrusted`), never read or written

    @classmethod
    def open(
        cls,
        profile: Profile,
        cache_dir: str | os.PathLike[str] | None = None,
        packages: tuple[str, ...] = SITES_PACKAGES,
    ) -> ResultCache:
        """The namespace of `packages`' analysis; disabled (with a `CacheWarning`) when
        the cache directory is not private to this user."""
        root = cache_root(cache_dir)
        problem = untrusted(root)
        if problem is not None:
            warn_untrusted(root, problem)
        return cls(results_dir(cache_dir), fingerprint(profile, packages), enabled=problem is None)

    def path(self, kind: str, key: str) -> Path:
        return self.root / self.fingerprint / kind / key[:2] / key

    def get(self, kind: str, key: str) -> Any | None:
        """The decoded JSON value, or None when absent or unreadable."""
        return self._counted(self._decoded(kind, key))

    def sibling(self, profile: Profile, packages: tuple[str, ...], stats: CacheStats | None = None) -> ResultCache:
        """The same results directory and counters (or `stats`), for an analysis over other packages."""
        return ResultCache(self.root, fingerprint(profile, packages), self.stats if stats is None else stats,
                           self.enabled)

    def memo(self, kind: str, key: str, compute: Callable[[], T], *,
             dump: Callable[[T], Any], load: Callable[[Any], T]) -> T:
        """`compute()` once per key, stored as the JSON data `dump` gives and read back
        with `load` (e.g. ``as_dict``/``from_dict``).

        A stored value `load` refuses (any exception: another shape, another
        version's data) is a miss and is computed again. A value is stored only when
        its stored form gives it back exactly: equal after `load`, and dumping that
        gives the same bytes (so types and key order survive too).
        """
        value = self.read(kind, key, load)
        if value is not None:
            return value
        value = compute()
        try:
            raw = encode(dump(value))
            back = load(decode(raw))
            exact = back == value and encode(dump(back)) == raw
        except Exception:  # noqa: BLE001 - no exact stored form: just do not cache it
            exact = False
        if exact:
            self.put_bytes(kind, key, raw)
        else:
            self.stats.uncacheable += 1
        return value

    def read(self, kind: str, key: str, load: Callable[[Any], T]) -> T | None:
        """The stored JSON value through the reader `load`, or None (a miss) when absent,
        undecodable, or refused by `load` (any exception: another shape, another
        version's data, nesting too deep)."""
        data = self._decoded(kind, key)
        value: T | None = None
        if data is not None:
            try:
                value = load(data)
            except Exception:  # noqa: BLE001 - not ours to trust: compute it again
                value = None
        return self._counted(value)

    def put(self, kind: str, key: str, value: Any) -> bool:
        """Store atomically; False (and counted) when the cache cannot be written or
        JSON cannot hold the value."""
        try:
            raw = encode(value)
        except (TypeError, ValueError):
            self.stats.uncacheable += 1
            return False
        return self.put_bytes(kind, key, raw)

    def get_bytes(self, kind: str, key: str) -> bytes | None:
        """The stored bytes as they are (see `pack`), or None."""
        return self._counted(self._read(kind, key))

    def put_bytes(self, kind: str, key: str, raw: bytes) -> bool:
        if not self.enabled:
            return False
        try:
            write_bytes_atomically(self.path(kind, key), raw)
        except OSError:
            self.stats.write_errors += 1
            return False
        return True

    def _read(self, kind: str, key: str) -> bytes | None:
        if not self.enabled:
            return None
        try:
            return self.path(kind, key).read_bytes()
        except OSError:
            return None

    def _decoded(self, kind: str, key: str) -> Any | None:
        raw = self._read(kind, key)
        if raw is None:
            return None
        try:
            return decode(raw)
        except (ValueError, zlib.error, RecursionError):
            return None

    def _counted(self, value: T | None) -> T | None:
        if value is None:
            self.stats.misses += 1
        else:
            self.stats.hits += 1
        return value


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


# ------------------------------------------------------------------ keys
# Every cache key is built here, from the parts its caller names: one owner, so two
# kinds of result never share a key and a key's parts are visible in one place.


def _key(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def sites_key(blob: str, path: str, imported: str = "") -> str:
    """A file's sites (`extractor.incremental`): its bytes (blob id), the path it sits at and
    the digest of the constants it imports (`extractor.imported_values.digest`)."""
    return _key("sites", blob, path, imported) if imported else _key("sites", blob, path)


def flags_key(snapshot: Snapshot, paths: Sequence[str]) -> str:
    """The flag model (`errcat.pipeline.build_flags`): its declaration files and their bytes."""
    return _key("flags", *(f"{p}\t{snapshot.blobs[p]}" for p in paths))


def written_once_key(names: Collection[str], blobs: Mapping[str, str]) -> str:
    """Which of `names` the program writes once (`extractor.callers.written_once`): the
    names and every Python file's path and bytes (blob id)."""
    return _key("written-once", *sorted(names), "", *(f"{p}\t{b}" for p, b in sorted(blobs.items())
                                                      if p.endswith(".py")))


def snapshot_key(snapshot: Snapshot, profile: Profile) -> str:
    """A key for everything a catalog of `snapshot` is built from, cheap to compute
    (the compact catalogs of `errcat.versions` are stored under it as it is).

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
    return _key("snapshot", snapshot.repo, prov, content, *snapshot.diagnostics)  # e.g. a link now skipped


def catalog_key(
    snapshot: Snapshot, profile: Profile, *, formats: Sequence[str] = ("json",), overlay: bytes | None = None,
    outcomes: str | None = None,
) -> str:
    """A rendered catalog (`errcat.pipeline.catalog_files`): `snapshot_key`, plus the
    `formats` and `overlay` text when not the defaults, plus the digest of the
    confirmed `outcomes` that apply to it, if any (the defaults add nothing, so a
    plain catalog's key is its snapshot's)."""
    key = snapshot_key(snapshot, profile)
    if tuple(formats) != ("json",) or overlay is not None:
        key = _key("catalog", key, ",".join(formats), hashlib.sha256(overlay or b"").hexdigest())
    if outcomes is not None:
        key = _key("catalog", key, "outcomes", outcomes)
    return key


# ------------------------------------------------------------------ file packs


def pack(files: dict[str, bytes], meta: Any) -> bytes:
    """Many files and a JSON header in one uncompressed blob (read back without parsing them)."""
    names = sorted(files)
    header = json.dumps({"meta": meta, "files": [[n, len(files[n])] for n in names]}).encode()
    return b"%d\n" % len(header) + header + b"".join(files[n] for n in names)


def unpack(raw: bytes) -> tuple[dict[str, bytes], Any]:
    """The inverse of `pack`; ValueError when the blob is not one, or when a file
    name is not a plain relative path (`is_plain_relative`): a pack's names become
    paths under the output directory."""
    head, _, rest = raw.partition(b"\n")
    size = int(head)
    if size < 0:
        raise ValueError("bad pack header")
    header = json.loads(rest[:size])
    if not isinstance(header, dict) or header.keys() != {"meta", "files"} or not isinstance(header["files"], list):
        raise ValueError("bad pack header")
    view, pos, files = memoryview(rest), size, {}
    for item in header["files"]:
        if not (isinstance(item, list) and len(item) == 2):
            raise ValueError("bad pack entry")
        name, length = item
        if not is_plain_relative(name) or name in files:
            raise ValueError(f"bad file name in pack: {name!r}")
        if not isinstance(length, int) or isinstance(length, bool) or length < 0:
            raise ValueError("bad pack entry")
        files[name] = bytes(view[pos : pos + length])
        pos += length
    if pos != len(rest):
        raise ValueError("truncated pack")
    return files, header["meta"]


def is_plain_relative(name: object) -> bool:
    """A normalised relative POSIX path (see `extractor.relpath`)."""
    return relative_name_problem(name) is None
