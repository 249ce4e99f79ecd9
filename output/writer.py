"""Atomic catalog directories: build everything in a sibling temp dir, then swap it in.

A failure or kill before the swap leaves the previous catalog untouched; the swap
is two renames, and a run that finds only the parked old copy puts it back first.

Only what errcat wrote is ever replaced. Every output carries `MANIFEST`, the sha256
of each file errcat wrote there; an existing directory is replaced only when it is
empty or holds nothing but those files, unchanged (``--out ~`` must not wipe a home
directory, a user's file beside the catalog must survive). Outputs of errcat versions
before manifests are recognised by their marker file and strict file names.

Staging directories are flock'ed by their creator and carry `_OWNER`: one whose lock
is free (its creator died, e.g. kill -9) is removed by the next run; a live run's
staging is never touched, nor one without `_OWNER` (not provably ours).
"""
from __future__ import annotations

import errno
import fcntl
import glob
import hashlib
import json
import os
import re
import shutil
import socket
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from extractor.errors import OutputError
from extractor.relpath import relative_name_problem
from output.jsontext import dumps_indented

MANIFEST = ".errcat-manifest.json"
# Files other errcat commands keep beside a catalog (`errcat confirm`'s results): not
# extract's to list or replace; a new catalog carries them over unchanged.
COMPANIONS = frozenset({"confirm.json", "confirm.md"})
_OWNER = ".errcat-owner"  # inside a staging dir while its creator holds the lock
_OLD = ".errcat-old-"
_NEW = ".errcat-new-"
# What errcat wrote before outputs had a manifest (migration only; never extended).
_LEGACY_FILES = re.compile(
    r"catalog\.json|catalog\.yaml|graph\.json|graph\.graphml|entries/[0-9a-f]{16}\.json"
    r"|md/README\.md|md/flags\.md|md/entries/[0-9a-f]{16}\.md"
)
_LEGACY_DIRS = frozenset({"entries", "md", "md/entries"})

@dataclass(frozen=True, slots=True)
class Spliced:
    """Text made of `before`, the `texts` indented by `indent` and joined by commas, and
    `after`, produced only while it is written: catalog.json's entries are the texts of
    its entries/ files, not a second copy of them in memory."""

    before: str
    texts: tuple[str, ...]
    after: str
    indent: str = "    "

    def chunks(self) -> Iterator[str]:
        yield self.before
        for i, text in enumerate(self.texts):
            yield (",\n" + self.indent if i else "") + text.rstrip("\n").replace("\n", "\n" + self.indent)
        yield self.after

    def __str__(self) -> str:
        return "".join(self.chunks())

    def __len__(self) -> int:  # an estimate of the size (characters, before indenting)
        return len(self.before) + sum(map(len, self.texts)) + len(self.after)


Content = str | bytes | Spliced
Files = Mapping[str, Content]


def dumps(data: Any) -> str:
    """Canonical JSON text: the same data always gives the same bytes."""
    return dumps_indented(data) + "\n"  # json.dumps(data, indent=2, ensure_ascii=False), faster


# ------------------------------------------------------------------ names


def _name_problem(rel: object) -> str | None:
    """Why `rel` is not a plain relative path below the output directory (None: it is)."""
    if rel == _OWNER:
        return "reserved name"
    return relative_name_problem(rel)


def check_names(files: Files) -> None:
    """Every name is a plain relative path and none is also another one's directory.

    Raises OutputError naming the first bad one, before anything is written.
    """
    for rel in sorted(files, key=str):
        problem = _name_problem(rel)
        if problem is not None:
            raise OutputError(f"refusing to write {rel!r}: {problem}")
        if not isinstance(files[rel], (str, bytes, Spliced)):
            raise OutputError(f"refusing to write {rel!r}: content is not text or bytes")
    for rel in sorted(files):
        parts = rel.split("/")
        for i in range(1, len(parts)):
            if "/".join(parts[:i]) in files:
                raise OutputError(f"refusing to write {rel!r}: {'/'.join(parts[:i])!r} is both a file and a directory")


def _check_inside(root: Path, files: Files) -> None:
    """No name resolves outside `root`: with plain names (`check_names`) only a symlinked
    directory on the way can lead out, so each directory is resolved once; the file itself
    is opened with O_NOFOLLOW."""
    real_root = os.path.realpath(root)
    for rel_dir in sorted({os.path.dirname(rel) for rel in files} - {""}):
        real = os.path.realpath(root / rel_dir)
        if os.path.commonpath([real_root, real]) != real_root or real == real_root:
            first = min(rel for rel in files if rel.startswith(rel_dir + "/"))
            raise OutputError(f"refusing to write {first!r}: it resolves outside {root}")


def write_files(root: Path, files: Files) -> None:
    """Write relative path -> content below `root`; all names are checked before the first write."""
    check_names(files)
    _check_inside(root, files)
    made: set[Path] = set()
    for rel, content in sorted(files.items()):
        path = root / rel
        if path.parent not in made:
            path.parent.mkdir(parents=True, exist_ok=True)
            made.add(path.parent)
        # Bytes, not text mode: no newline translation; O_NOFOLLOW: never write through a link.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o666)
        with os.fdopen(fd, "wb") as fh:
            for chunk in encoded_chunks(content):
                fh.write(chunk)


# ------------------------------------------------------------------ manifest


def _sha256(content: Content) -> str:
    digest = hashlib.sha256()
    for chunk in encoded_chunks(content):
        digest.update(chunk)
    return digest.hexdigest()


_CHUNK = 1 << 20


def encoded_chunks(content: Content) -> Iterator[bytes]:
    """The UTF-8 bytes of `content` a MB at a time: a large catalog.json is not copied whole
    (code points encode independently, so the pieces join to ``content.encode()``)."""
    if isinstance(content, bytes):
        yield content
        return
    for text in content.chunks() if isinstance(content, Spliced) else (content,):
        for start in range(0, len(text), _CHUNK):
            yield text[start:start + _CHUNK].encode("utf-8")


def as_bytes(content: Content) -> bytes:
    return b"".join(encoded_chunks(content))


def as_text(content: Content) -> str:
    return content.decode("utf-8") if isinstance(content, bytes) else str(content)


def with_manifest(files: Files) -> dict[str, Content]:
    """`files` plus `MANIFEST` listing each with its sha256: exactly what `write_atomically` writes
    (a `MANIFEST` in `files` is replaced). OutputError on a bad name (see `check_names`)."""
    check_names(files)
    own = {k: v for k, v in files.items() if k != MANIFEST}
    listing = {rel: _sha256(content) for rel, content in sorted(own.items())}
    return {**own, MANIFEST: dumps({"errcat_manifest": 1, "files": listing})}


def _read_manifest(root: Path) -> dict[str, str] | None:
    path = root / MANIFEST
    if path.is_symlink() or not path.is_file():
        return None
    try:
        listing = json.loads(path.read_bytes())["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(listing, dict) or not all(isinstance(v, str) for v in listing.values()):
        return None
    return listing


def _entries(root: Path) -> list[tuple[str, Path | None]]:
    """(relative name, file path) of every non-directory below `root`, sorted; an empty
    directory is ("name/", None). Symlinks are entries, never followed."""
    found: list[tuple[str, Path | None]] = []

    def fail(exc: OSError) -> None:
        raise OutputError(f"cannot read output directory {root}: {exc.strerror}")

    for dirpath, dirnames, filenames in os.walk(root, onerror=fail):
        here = Path(dirpath)
        rel_dir = here.relative_to(root).as_posix()
        prefix = "" if rel_dir == "." else rel_dir + "/"
        links = [d for d in dirnames if (here / d).is_symlink()]
        dirnames[:] = [d for d in dirnames if d not in links]
        found += [(prefix + name, here / name) for name in (*filenames, *links)]
        if rel_dir != "." and not dirnames and not filenames and not links:
            found.append((prefix, None))
    return sorted(found, key=lambda item: item[0])


def _first_foreign(root: Path, marker: str | None) -> str | None:
    """"<name> <why>" for the first thing below `root` errcat did not write (None: all ours)."""
    manifest = _read_manifest(root)
    if manifest is not None:
        return _first_unlisted(root, manifest)
    if os.path.lexists(root / MANIFEST):
        return f"{MANIFEST} is not a valid errcat manifest"
    return _first_unlisted_legacy(root, marker)


def _first_unlisted(root: Path, manifest: dict[str, str]) -> str | None:
    """The first entry below `root` that `manifest` does not vouch for, with why."""
    wanted_dirs = {p for rel in manifest for p in _parents(rel)}
    for rel, path in _entries(root):
        why = _why_foreign(rel, path, manifest, wanted_dirs)
        if why is not None:
            return f"{rel} {why}"
    return None


def _why_foreign(rel: str, path: Path | None, manifest: dict[str, str], wanted_dirs: set[str]) -> str | None:
    """Why one entry is not errcat's by `manifest` (None: it is: listed and unchanged, a directory
    on a listed path, the manifest itself or a companion)."""
    if (path is None and rel[:-1] in wanted_dirs) or rel == MANIFEST or _companion(rel, path):
        return None
    if path is None or rel not in manifest or path.is_symlink():
        return f"was not written by errcat (not in its {MANIFEST})"
    if _file_sha256(path) != manifest[rel]:
        return "was changed since errcat wrote it"
    return None


def _first_unlisted_legacy(root: Path, marker: str | None) -> str | None:
    """Without a manifest: an output of an errcat that wrote none (its `marker` file is there)
    may hold only the files such an errcat wrote; any other directory is not errcat's at all."""
    legacy = marker is not None and (root / marker).is_file() and not (root / marker).is_symlink()
    why = f"was not written by errcat (no {MANIFEST}" + (")" if legacy else ": not an errcat output directory)")
    for rel, path in _entries(root):
        # `errcat confirm`'s outcomes alone (copied in to be reused) are carried over, as in any output
        if not (legacy and _legacy_own(rel, path)) and not _companion(rel, path):
            return f"{rel} {why}"
    return None


def _legacy_own(rel: str, path: Path | None) -> bool:
    """Whether an entry is one an errcat without manifests wrote (a known file or directory)."""
    if path is None:
        return rel[:-1] in _LEGACY_DIRS
    return _LEGACY_FILES.fullmatch(rel) is not None and not path.is_symlink()


def _companion(rel: str, path: Path | None) -> bool:
    return rel in COMPANIONS and path is not None and path.is_file() and not path.is_symlink()


def _carry_companions(target: Path, staging: Path) -> None:
    """Copy `target`'s companions the new output does not write itself into `staging`."""
    for name in sorted(COMPANIONS):
        old, new = target / name, staging / name
        if _companion(name, old) and not os.path.lexists(new):
            shutil.copy2(old, new, follow_symlinks=False)


def _parents(rel: str) -> list[str]:
    parts = rel.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts))]


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    try:
        with path.open("rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    except OSError as exc:
        raise OutputError(f"cannot read {path}: {exc.strerror}") from None
    return digest.hexdigest()


def check_replaceable(target: Path, marker: str | None) -> None:
    """Refuse to replace a directory holding anything errcat did not write (it would be deleted);
    called before the work that writes it too, so a refusal comes first, not after it."""
    foreign = _first_foreign(target, marker) if target.is_dir() else None
    if foreign is not None:
        raise OutputError(f"refusing to replace {target}: {foreign}; move it away or write elsewhere")


# ------------------------------------------------------------------ staging


def _owned_dir(parent: Path, prefix: str) -> tuple[Path, int | None]:
    """A new temp dir below `parent`, flock'ed and marked `_OWNER` (lock fd None: no flock here,
    then no `_OWNER` either, so no later run takes it for stale)."""
    path = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return path, None
    (path / _OWNER).write_text(f"pid {os.getpid()} host {socket.gethostname()}\n", encoding="utf-8")
    return path, fd


@contextmanager
def _unlocked(path: Path) -> Iterator[bool]:
    """True (holding its lock meanwhile) when no live process holds `path`'s lock."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        yield False
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES, errno.ENOLCK, errno.EINVAL):
                raise
            yield False  # held by a live run, or locks unsupported here: cannot tell, keep it
            return
        yield True
    finally:
        os.close(fd)


def _staging_dirs(parent: Path, name: str | None, kind: str) -> list[Path]:
    pattern = f"{glob.escape(name) if name is not None else '*'}{kind}*"
    return sorted((p for p in parent.glob(pattern) if p.is_dir() and not p.is_symlink()), reverse=True)


def _recover(out: Path) -> None:
    """Undo a swap interrupted between its two renames (unless its run is still alive)."""
    if out.exists():
        return
    for parked in _staging_dirs(out.parent, out.name, _OLD):
        with _unlocked(parked) as free:
            if free and (parked / "catalog").is_dir():
                os.replace(parked / "catalog", out)
                shutil.rmtree(parked, ignore_errors=True)
                return


def remove_stale_staging(parent: Path, name: str | None = None) -> list[Path]:
    """Remove staging and parked dirs below `parent` (of output `name`, None: of any output)
    whose creator died; returns them. Live runs' and unmarked dirs are kept."""
    removed = []
    for path in _staging_dirs(parent, name, _NEW) + _staging_dirs(parent, name, _OLD):
        with _unlocked(path) as free:
            if free and (path / _OWNER).is_file():
                shutil.rmtree(path, ignore_errors=True)
                removed.append(path)
    return removed


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextmanager
def atomic_dir(out: str | os.PathLike[str], *, marker: str | None = "catalog.json") -> Iterator[Path]:
    """Yield an empty staging directory; on success it replaces `out` whole.

    An existing `out` must be empty or hold only files its `MANIFEST` lists, unchanged;
    `marker`: the file that marks an output written before manifests (None: refuse those).
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
    remove_stale_staging(parent, target.name)
    check_replaceable(target, marker)
    locks: list[int] = []
    try:
        staging, fd = _owned_dir(parent, target.name + _NEW)
        locks += [fd] if fd is not None else []
        staging.chmod(0o777 & ~_umask())  # mkdtemp makes it 0700; the result is a normal directory
    except OSError as exc:
        raise OutputError(f"cannot write to {parent}: {exc.strerror}") from None
    try:
        yield staging
        (staging / _OWNER).unlink(missing_ok=True)  # not part of the output; the lock still marks it live
        if target.is_dir():
            _carry_companions(target, staging)
        if target.exists():
            parked, fd = _owned_dir(parent, target.name + _OLD)
            locks += [fd] if fd is not None else []
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
    finally:
        for fd in locks:
            os.close(fd)


def write_atomically(
    out: str | os.PathLike[str],
    render: Callable[[], Files],
    *,
    marker: str | None = "catalog.json",
) -> Path:
    """Render all files first (nothing touches disk if that fails or a name is bad), then
    swap them in with their `MANIFEST`. `marker`: see `atomic_dir`."""
    files = with_manifest(render())
    try:
        with atomic_dir(out, marker=marker) as staging:
            write_files(staging, files)
    except OSError as exc:
        raise OutputError(f"cannot write catalog to {out}: {exc.strerror or exc}") from None
    return Path(out)
