"""A local git repository whose commits are releases: the stand-in for the upstream repo.

One commit per release, oldest first, tagged like upstream (`profile.tag`), files in
repository layout. Author, committer, dates and messages derive only from the inputs
(dates from the index's upload time), so the same releases always give the same SHAs.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path

import git

from extractor.errors import SourceError
from extractor.globs import match_any
from extractor.pep440 import version_key
from extractor.profile import Profile
from extractor.snapshot import Snapshot
from extractor.source import PYPI, open_release

_IDENT = b"errcat release-history <release-history@errcat.invalid>"
def default_paths(profile: Profile) -> list[str]:
    """Every .py file under the deepest directory shared by the profile's globs.

    For sglang that is ``python/sglang/srt/**/*.py``: targets, flag and env
    declarations, the files read for their calls (`config.callers`) plus the code around
    them, a fraction of the whole wheel.
    """
    dirs = []
    for pattern in (*profile.targets, *profile.flag_globs, *profile.env_globs, *profile.callers):
        parts = pattern.split("/")[:-1]
        dirs.append(list(_takewhile_literal(parts)))
    common: list[str] = []
    for column in zip(*dirs, strict=False):
        if len(set(column)) != 1:
            break
        common.append(column[0])
    return [f"{'/'.join(common)}/**/*.py" if common else "**/*.py"]


def _takewhile_literal(parts: Iterable[str]) -> Iterable[str]:
    for part in parts:
        if any(c in part for c in "*?["):
            return
        yield part


def _data(payload: bytes) -> bytes:
    return b"data %d\n" % len(payload) + payload + b"\n"


def _commit_stream(mark: int, version: str, snap: Snapshot, files: Sequence[str],
                   profile: Profile, branch: bytes) -> bytes:
    when = _epoch(snap.commit_date, mark)
    message = f"{profile.name} {version}\n\nFiles of {snap.repo}=={version} from the package index.\n"
    out = [b"commit " + branch + b"\n", b"mark :%d\n" % mark,
           b"author " + _IDENT + b" %d +0000\n" % when,
           b"committer " + _IDENT + b" %d +0000\n" % when,
           _data(message.encode())]
    if mark > 1:
        out.append(b"from :%d\n" % (mark - 1))
    out.append(b"deleteall\n")  # the tree is exactly this release: removed files vanish
    for path in files:
        out.append(b"M 100644 inline " + _quote(path) + b"\n" + _data(snap.read(path)))
    out.append(b"reset refs/tags/" + profile.tag(version).encode() + b"\nfrom :%d\n\n" % mark)
    return b"".join(out)


def _quote(path: str) -> bytes:
    # fast-import takes paths unquoted unless they start with '"' or contain LF.
    if path.startswith('"') or "\n" in path:
        raise SourceError(f"unsupported file name in release: {path!r}")
    return path.encode()


def _epoch(iso: str | None, index: int) -> int:
    if iso:
        return int(datetime.fromisoformat(iso).timestamp())
    return 1_700_000_000 + index * 86_400  # no upload time: a fixed, ordered fallback


def build_release_history(
    out_dir: str | os.PathLike[str],
    versions: Iterable[str],
    *,
    profile: Profile,
    cache_dir: str | os.PathLike[str] | None = None,
    paths: Sequence[str] | None = None,
    index_url: str = PYPI,
) -> list[tuple[str, str]]:
    """Create `out_dir` as a non-bare repo, one commit per release; return (version, sha)."""
    ordered = sorted(dict.fromkeys(versions), key=version_key)
    if not ordered:
        raise SourceError("no versions given")
    out = Path(out_dir)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise SourceError(f"output directory exists and is not empty: {out}")
    patterns = list(paths) if paths else default_paths(profile)
    branch, total = b"refs/heads/main", 0
    with tempfile.TemporaryFile() as stream:
        # Write the whole fast-import stream before touching out_dir, one release in
        # memory at a time: a bad version leaves no half-built repository behind.
        for mark, version in enumerate(ordered, start=1):
            snap = open_release(profile, version, cache_dir=cache_dir, index_url=index_url)
            files = [p for p in sorted(snap.blobs) if match_any(p, patterns)]
            stream.write(_commit_stream(mark, version, snap, files, profile, branch))
            total += len(files)
        if not total:
            raise SourceError(f"no release file matches {' '.join(patterns)}")
        stream.write(b"done\n")
        stream.seek(0)
        created = not out.exists()
        try:
            repo = git.Repo.init(out, initial_branch="main")
            repo.git.fast_import("--quiet", "--done", istream=stream)
            repo.git.checkout("--force", "main")  # non-bare: the work tree shows the newest release
            return [(v, repo.git.rev_parse(f"refs/tags/{profile.tag(v)}^{{commit}}")) for v in ordered]
        except git.GitCommandError as exc:
            shutil.rmtree(out if created else out / ".git", ignore_errors=True)
            raise SourceError(f"cannot build {out}: {_last_line(exc)}") from None


def _last_line(exc: git.GitCommandError) -> str:
    lines = [ln.strip(" '") for ln in str(exc.stderr or "").splitlines() if ln.strip(" '")]
    return lines[-1] if lines else str(exc)
