"""Sources: a git commit, a PyPI release or a directory, each read into a `Snapshot`.

Every source reports repository-layout paths and git blob ids, so later stages key
their caches the same way whatever the files came from. Every failure surfaces as a
one-line `SourceError`; GitPython, urllib and archive exceptions never escape.
"""
from __future__ import annotations

import hashlib
import json
import os
import posixpath
import re
import shutil
import stat
import tarfile
import tempfile
import threading
import urllib.error
import urllib.parse
import zipfile
import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from extractor.atomic import write_bytes_atomically
from extractor.cache import downloads_dir, mirrors_dir
from extractor.errors import ErrcatError, SourceError
from extractor.profile import Profile
from extractor.snapshot import Snapshot, SourceKind, blob_id


class _LazyGit:
    """GitPython, imported on first use: a release or a cached run never needs it (~30 ms)."""

    def __getattr__(self, name: str) -> Any:
        import git as module

        globals()["git"] = module
        return getattr(module, name)


git: Any = _LazyGit()

PYPI = "https://pypi.org/pypi"
_TIMEOUT = 60  # seconds per HTTP request; a stalled index should fail, not hang
_USER_AGENT = "errcat (+source.py)"

# ----------------------------------------------------------------------- symlinks

# A symlink is never read as a file nor followed: one inside the tree names a file that is
# read under its own path anyway (as git stores it), one leading out could leak anything.
# Links leading out are named in the catalog's diagnostics, their targets are not.
_LINK_OUT = "symlink leads outside the source tree, not read: "


def _link_escapes(link: str, target: str) -> bool:
    """Does a link at tree path `link` whose text is `target` lead out of the tree?

    Lexical, for trees that are not on disk (git objects, archives): nothing is resolved.
    """
    if target.startswith("/") or re.match(r"^[A-Za-z]:[\\/]", target):
        return True
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(link), target))
    return joined == ".." or joined.startswith("../")


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


# --------------------------------------------------------------------------- git

# Only transports that cannot run commands; `ext::`/`ext://` and other remote
# helpers can execute arbitrary programs, so they are refused outright.
_SCHEMES = ("https", "http", "ssh", "git", "file", "git+ssh", "ssh+git")
_URL_RE = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
_SCP_RE = re.compile(r"^[A-Za-z0-9._-]+@[A-Za-z0-9._-]+:")  # git@host:owner/repo
_HELPER_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*::")


def _refuse_unsafe(what: str, value: str) -> None:
    """Refuse values git could read as an option or a command, whatever calls git later."""
    if not value:
        raise SourceError(f"empty {what}")
    if value.startswith("-"):
        raise SourceError(f"refusing {what} that starts with '-': {value!r}")
    if any(ord(c) < 32 or c == "\x7f" for c in value):
        raise SourceError(f"refusing {what} with control characters: {value!r}")


def _refuse_embedded_option(what: str, value: str) -> None:
    # Only for values that reach git's command line (URLs, revisions); local paths
    # never do, so a directory named "a -b" stays usable.
    if re.search(r"\s-", value):
        raise SourceError(f"refusing {what} that embeds an option: {value!r}")


def _is_url(repo: str) -> bool:
    """URL or scp-like spec (cloned into a mirror) versus a local path (used in place)."""
    if _HELPER_RE.match(repo):
        raise SourceError(f"refusing remote-helper transport in {repo!r}")
    m = _URL_RE.match(repo)
    if m and m.group(1).lower() not in _SCHEMES:
        raise SourceError(f"refusing unsupported URL scheme {m.group(1)!r} in {repo!r}")
    if m or _SCP_RE.match(repo):
        _refuse_embedded_option("repository URL", repo)
        return True
    return False


def _git_reason(exc: BaseException) -> str:
    """The line of git's stderr that says what went wrong (GitPython wraps it)."""
    text = str(getattr(exc, "stderr", "") or "").strip()
    text = re.sub(r"^stderr: '", "", text).rstrip("'")
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    fatal = [ln for ln in lines if ln.startswith(("fatal:", "error:"))]
    line = (fatal or lines or [type(exc).__name__])[-1]
    return re.sub(r"^(fatal|error):\s*", "", line)


def mirror_path(url: str, cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """`mirrors/<sanitised-name>-<hash>`: readable, yet distinct for distinct URLs."""
    tail = re.split(r"[/:]", url.rstrip("/"))[-1]
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", tail.removesuffix(".git")).strip("._") or "repo"
    digest = hashlib.sha256(url.encode()).hexdigest()[:12]
    return mirrors_dir(cache_dir) / f"{name}-{digest}"


_NO_PROMPT = {"GIT_TERMINAL_PROMPT": "0"}  # an unreachable URL must fail, not ask for a password


def _mirror(url: str, cache_dir: str | os.PathLike[str] | None) -> git.Repo:
    dest = mirror_path(url, cache_dir)
    if dest.is_dir():
        return git.Repo(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    # Clone beside the final place and rename: a killed clone never looks complete.
    tmp = Path(tempfile.mkdtemp(prefix=".clone-", dir=dest.parent))
    try:
        git.Repo.clone_from(url, tmp, mirror=True, env=_NO_PROMPT)
        try:
            tmp.rename(dest)
        except OSError:
            if not dest.is_dir():  # lost a race against another run: use its mirror
                raise
    except git.GitCommandError as exc:
        raise SourceError(f"cannot clone {url}: {_git_reason(exc)}") from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return git.Repo(dest)


def _fetch(repo: git.Repo, url: str) -> None:
    try:
        with repo.git.custom_environment(**_NO_PROMPT):
            repo.git.fetch("--prune", "--quiet", "origin")
    except git.GitCommandError as exc:
        raise SourceError(f"cannot fetch {url}: {_git_reason(exc)}") from None


def _resolve(repo: git.Repo, rev: str) -> str | None:
    try:
        return repo.git.rev_parse("--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}")
    except git.GitCommandError:
        return None


def _open_local(path: str) -> git.Repo:
    p = Path(path).expanduser()
    if not p.exists():
        raise SourceError(f"no such git repository: {path}")
    try:
        return git.Repo(p)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise SourceError(f"not a git repository: {path}") from None


def _tree_blobs(repo: git.Repo, sha: str) -> tuple[dict[str, str], tuple[str, ...]]:
    """path -> blob id of the files, and the diagnostics for symlinks leading out."""
    # One `ls-tree` call: far faster than walking Tree objects for thousands of files.
    out = repo.git.ls_tree("-r", "-z", "--full-tree", sha)
    blobs: dict[str, str] = {}
    notes: list[str] = []
    for entry in filter(None, out.split("\0")):
        meta, path = entry.split("\t", 1)
        mode, kind, obj = meta.split()
        if kind != "blob":  # submodules are commits: nothing to read
            continue
        if mode == "120000":  # a symlink: its blob is the target path, never a module
            target = repo.odb.stream(bytes.fromhex(obj)).read().decode("utf-8", "surrogateescape")
            if _link_escapes(path, target):
                notes.append(_LINK_OUT + path)
            continue
        blobs[path] = obj
    return blobs, tuple(sorted(notes))


def _iso_utc(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, tz=timezone.utc).isoformat()


@dataclass(frozen=True, slots=True)
class Revision:
    label: str  # as the caller wrote it, else the commit's tag, else its short SHA
    commit: str


def list_revisions(
    repo: str, revs: Sequence[str], *, cache_dir: str | os.PathLike[str] | None = None,
) -> list[Revision]:
    """``A..B`` -> A and every first-parent commit up to B, oldest first; else each revision."""
    handle = _git_handle(repo, cache_dir)

    def resolve(rev: str) -> str:
        if rev.startswith("-"):
            raise SourceError(f"refusing revision that starts with '-': {rev!r}")
        sha = _resolve(handle, rev)
        if sha is None:
            raise SourceError(f"unknown revision {rev!r} in {repo}")
        return sha

    tags: dict[str, str] = {}
    refs = handle.git.for_each_ref("--format=%(objectname) %(*objectname) %(refname:short)", "refs/tags")
    for line in refs.splitlines():
        obj, peeled, name = (line.split(" ") + ["", ""])[:3]
        tags.setdefault(peeled or obj, name)

    def rev(label: str, sha: str) -> Revision:
        return Revision(label if label else tags.get(sha, sha[:12]), sha)

    out: list[Revision] = []
    for item in revs:
        if ".." in item:
            start, _, end = item.partition("..")
            base, head = resolve(start or "HEAD"), resolve(end or "HEAD")
            listed = handle.git.rev_list("--reverse", "--first-parent", f"{base}..{head}").split()
            out.append(rev(start, base))
            out += [rev("", sha) for sha in listed]
            if out[-1].commit == head and end:
                out[-1] = rev(end, head)
        else:
            out.append(rev(item, resolve(item)))
    if not out:
        raise ErrcatError("no revisions given")
    return out


def branch_head(repo: str, branch: str, *, cache_dir: str | os.PathLike[str] | None = None) -> str:
    """The commit at the tip of `branch` in `repo`; a URL's mirror is fetched first (network)."""
    handle = _git_handle(repo, cache_dir)
    if not Path(repo).expanduser().exists():
        _fetch(handle, repo)
    sha = _resolve(handle, f"refs/heads/{branch}")
    if sha is None:
        raise SourceError(f"no branch {branch!r} in {repo}")
    return sha


def _git_handle(repo: str, cache_dir: str | os.PathLike[str] | None) -> git.Repo:
    """A GitPython repo for listing commits: the local repo, or the URL's mirror."""
    open_git(repo, "HEAD", cache_dir=cache_dir)  # validates; creates the mirror of a URL
    local = Path(repo).expanduser()
    return git.Repo(local if local.exists() else mirror_path(repo, cache_dir))


def open_git(repo: str, rev: str, *, cache_dir: str | os.PathLike[str] | None = None) -> Snapshot:
    """The tree of `rev` (SHA, short SHA, tag or branch) in a local repo or a mirrored URL."""
    repo, rev = os.fspath(repo), str(rev)
    _refuse_unsafe("repository", repo)
    _refuse_unsafe("revision", rev)
    _refuse_embedded_option("revision", rev)
    try:
        if _is_url(repo):
            handle = _mirror(repo, cache_dir)
            sha = _resolve(handle, rev)
            if sha is None:  # only now is the network needed
                _fetch(handle, repo)
                sha = _resolve(handle, rev)
        else:
            handle = _open_local(repo)
            sha = _resolve(handle, rev)
        if sha is None:
            raise SourceError(f"unknown revision {rev!r} in {repo}")
        commit = handle.commit(sha)
        blobs, notes = _tree_blobs(handle, sha)
        date = _iso_utc(commit.committed_date)
        tags = tuple(sorted(handle.git.tag("--points-at", sha).split()))
    except git.GitError as exc:
        raise SourceError(f"git failed on {repo}: {_git_reason(exc)}") from None
    except ValueError as exc:  # gitdb's BadName/BadObject and friends
        raise SourceError(f"git failed on {repo}: {exc}") from None
    except OSError as exc:  # e.g. the mirror cache is not writable
        raise SourceError(f"cannot use {repo}: {exc}") from None
    return Snapshot(
        kind=SourceKind.GIT, repo=repo, ref=rev, commit=sha, commit_date=date,
        release=None, blobs=blobs, reader=_GitReader(handle, blobs, f"{repo}@{sha[:12]}"), diagnostics=notes,
        tags=tags,
    )


@dataclass(frozen=True, slots=True)
class _GitReader:
    """Reads blob contents straight from the object database (no work tree)."""

    repo: git.Repo
    blobs: Mapping[str, str]
    where: str

    def __call__(self, path: str) -> bytes:
        sha = self.blobs.get(path)
        if sha is None:
            raise SourceError(f"{path} is not in {self.where}")
        try:
            return self.repo.odb.stream(bytes.fromhex(sha)).read()
        except Exception as exc:  # noqa: BLE001 - gitdb raises assorted types
            raise SourceError(f"cannot read {path} from {self.where}: {exc}") from None


# ----------------------------------------------------------------------- release

_VERSION_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+!-]*$")
_PURE_WHEEL_RE = re.compile(r"-(?:py2\.)?py3-none-any\.whl$")


def _dist(profile: Profile) -> str:
    if not profile.pypi:
        raise SourceError(f"profile {profile.name} names no PyPI distribution")
    return profile.pypi


def _get(url: str) -> bytes:
    """GET `url`; HTTPError is left to callers that give a 404 its meaning."""
    import urllib.request  # http.client and ssl: loaded only when the network is used

    req = urllib.request.Request(url, headers={"User-Agent": _USER_AGENT})  # noqa: S310 - scheme checked by callers
    try:
        with urllib.request.urlopen(req, timeout=_TIMEOUT) as resp:  # noqa: S310 - scheme checked by callers
            return resp.read()
    except urllib.error.HTTPError:
        raise
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise SourceError(f"cannot reach the package index at {url}: {reason}") from None


def _get_json(url: str) -> Any:
    try:
        return json.loads(_get(url))
    except ValueError:
        raise SourceError(f"the package index sent invalid JSON for {url}") from None


def _field(data: Any, key: str) -> Any:
    return data.get(key) if isinstance(data, dict) else None


def _atomic_write(path: Path, data: bytes) -> None:
    try:
        write_bytes_atomically(path, data)
    except OSError as exc:
        raise SourceError(f"cannot write to the cache at {path.parent}: {exc.strerror or exc}") from None


def _index_page(profile: Profile, index_url: str) -> tuple[str, Any]:
    """The profile's distribution and the index's JSON page of it (never cached: it moves)."""
    dist = _dist(profile)
    try:
        return dist, _get_json(f"{index_url.rstrip('/')}/{dist}/json")
    except urllib.error.HTTPError as exc:
        raise SourceError(f"{dist} not found on the index ({exc.code})") from None


def latest_release(profile: Profile, *, index_url: str = PYPI) -> str:
    """The index's current version."""
    dist, data = _index_page(profile, index_url)
    version = _field(_field(data, "info"), "version")
    if not isinstance(version, str) or not version:
        raise SourceError(f"the package index gave no version for {dist}")
    return version


def index_releases(profile: Profile, *, index_url: str = PYPI) -> list[str]:
    """Every version the index lists for the profile's distribution, oldest first."""
    from extractor.pep440 import version_key

    dist, data = _index_page(profile, index_url)
    releases = _field(data, "releases")
    if not isinstance(releases, dict) or not releases:
        raise SourceError(f"the package index lists no releases of {dist}")
    return sorted((str(v) for v in releases), key=version_key)


def release_files(
    dist: str, version: str, *, cache_dir: str | os.PathLike[str] | None = None, index_url: str = PYPI
) -> list[dict[str, Any]]:
    """The release's file records; cached so a downloaded release works offline."""
    index_url = index_url.rstrip("/")
    cached = downloads_dir(cache_dir) / f"{dist}-{version}.json"
    try:
        meta = json.loads(cached.read_bytes())
        if meta.get("index_url") == index_url:
            return meta["urls"]
    except (OSError, ValueError, KeyError, AttributeError):
        pass  # missing or unreadable: ask the index again
    not_found = SourceError(f"release {dist}=={version} not found on the index")
    doc = f"{index_url}/{dist}/{version}/json"
    try:
        urls = _field(_get_json(doc), "urls")
    except urllib.error.HTTPError as exc:
        if exc.code != 404:
            raise SourceError(f"the package index answered {exc.code} for {dist}=={version}") from None
        # Some mirrors serve only the project document; its `releases` has every version.
        doc = f"{index_url}/{dist}/json"
        try:
            project = _get_json(doc)
        except urllib.error.HTTPError:
            raise not_found from None
        urls = _field(_field(project, "releases"), version)
    if not isinstance(urls, list) or not urls or not all(isinstance(u, dict) for u in urls):
        raise not_found
    # Mirrors may give file URLs relative to the JSON document: pin them now.
    urls = [{**u, "url": urllib.parse.urljoin(doc, str(u.get("url", "")))} for u in urls]
    _atomic_write(cached, json.dumps({"index_url": index_url, "urls": urls}, indent=1).encode())
    return urls


def choose_file(files: list[dict[str, Any]]) -> dict[str, Any]:
    """Deterministic pick: a pure-Python wheel, else the first wheel by name, else the sdist."""
    named = sorted((f for f in files if isinstance(f.get("filename"), str)), key=lambda f: f["filename"])
    wheels = [f for f in named if f["filename"].endswith(".whl")]
    for group in ([f for f in wheels if _PURE_WHEEL_RE.search(f["filename"])], wheels,
                  [f for f in named if f["filename"].endswith(".tar.gz")]):
        if group:
            return group[0]
    raise SourceError("release has neither a wheel nor a .tar.gz sdist")


def _download(entry: dict[str, Any], dest_dir: Path) -> Path:
    import urllib.request

    name = entry["filename"]
    if "/" in name or "\\" in name or name.startswith("."):
        raise SourceError(f"refusing suspicious file name from the index: {name!r}")
    dest = dest_dir / name
    size = entry.get("size")
    if dest.is_file() and (not isinstance(size, int) or dest.stat().st_size == size):
        return dest  # complete: files only appear here after their digest matched
    url = str(entry.get("url", ""))
    if not url.startswith(("https://", "http://", "file://")):
        raise SourceError(f"refusing download URL {url!r}")
    expected = (entry.get("digests") or {}).get("sha256")
    dest_dir.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".part-", dir=dest_dir)
    try:
        digest = hashlib.sha256()
        req = urllib.request.Request(url, headers={"User-Agent": _USER_AGENT})  # noqa: S310 - scheme checked by callers
        with os.fdopen(fd, "wb") as fh, urllib.request.urlopen(req, timeout=_TIMEOUT) as resp:  # noqa: S310
            while chunk := resp.read(1 << 20):
                digest.update(chunk)
                fh.write(chunk)
        if expected and digest.hexdigest() != expected:
            raise SourceError(f"sha256 mismatch for {name}: the download is corrupt")
        os.replace(tmp, dest)
    except (urllib.error.URLError, OSError) as exc:
        raise SourceError(f"cannot download {name}: {getattr(exc, 'reason', exc)}") from None
    finally:
        Path(tmp).unlink(missing_ok=True)
    return dest


class _LazyWheel(Mapping[str, bytes]):
    """A wheel's .py files in repository layout, each read when first asked for.

    A release wheel holds thousands of modules and a run reads a handful: reading
    and hashing all of them cost more than a warm (cached) extraction.
    """

    def __init__(self, path: Path, profile: Profile) -> None:
        self._path = path
        self._profile = profile
        self._zip: zipfile.ZipFile | None = None
        self._index: dict[str, zipfile.ZipInfo] | None = None
        self._lock = threading.Lock()  # one file position per ZipFile
        self._where = path.name

    @property
    def _members(self) -> dict[str, zipfile.ZipInfo]:
        # Opened on first use: a run served from the result cache never reads the archive.
        if self._index is None:
            try:
                self._zip = zipfile.ZipFile(self._path)
            except (OSError, zipfile.BadZipFile) as exc:
                raise SourceError(f"cannot read {self._where}: {exc}") from None
            self._index = {
                rp: info
                for info in self._zip.infolist()
                if not info.is_dir() and not _zip_symlink(info) and info.filename.endswith(".py")
                and (rp := self._profile.repo_path(info.filename)) is not None
            }
        return self._index

    def __getitem__(self, path: str) -> bytes:
        info = self._members[path]
        assert self._zip is not None
        try:
            with self._lock:
                return self._zip.read(info)
        except (OSError, zipfile.BadZipFile, zlib.error) as exc:
            raise SourceError(f"cannot read {path} from {self._where}: {exc}") from None

    def __contains__(self, path: object) -> bool:
        return path in self._members

    def __iter__(self) -> Iterator[str]:
        return iter(self._members)

    def __len__(self) -> int:
        return len(self._members)


def _zip_symlink(info: zipfile.ZipInfo) -> bool:
    # Wheels have no symlinks; a member marked as one (unix mode) holds a target path.
    # Its name is not in diagnostics: that would mean reading the archive on cached runs.
    return info.create_system == 3 and stat.S_ISLNK(info.external_attr >> 16)


def _read_wheel(path: Path, profile: Profile) -> tuple[Mapping[str, bytes], tuple[str, ...]]:
    return _LazyWheel(path, profile), ()


class _BlobIds(Mapping[str, str]):
    """path -> git blob id, hashed on first use (sorted paths, like the eager dicts)."""

    def __init__(self, contents: Mapping[str, bytes]) -> None:
        self._contents = contents
        self._sorted: list[str] | None = None
        self._ids: dict[str, str] = {}

    @property
    def _paths(self) -> list[str]:
        if self._sorted is None:
            self._sorted = sorted(self._contents)
        return self._sorted

    def __getitem__(self, path: str) -> str:
        if path not in self._ids:
            if path not in self._contents:
                raise KeyError(path)
            self._ids[path] = blob_id(self._contents[path])
        return self._ids[path]

    def __contains__(self, path: object) -> bool:
        return path in self._contents

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)


def _sdist_path(member: str, profile: Profile) -> str | None:
    # Drop the `name-X.Y.Z/` top directory; paths may already be in repo layout.
    rest = member.split("/", 1)[1] if "/" in member else ""
    if any(rest.startswith(dst) for _src, dst in profile.release_paths):
        return rest
    return profile.repo_path(rest)


def _read_sdist(path: Path, profile: Profile) -> tuple[dict[str, bytes], tuple[str, ...]]:
    # A .tar.gz cannot be read at random, so take everything in one pass. Only regular
    # members are read: symlinks and hard links are never followed.
    out: dict[str, bytes] = {}
    notes: list[str] = []
    with tarfile.open(path, "r:gz") as tf:
        for m in tf:
            if m.issym() and _link_escapes(m.name.split("/", 1)[-1], m.linkname):
                notes.append(_LINK_OUT + m.name)
            elif m.isfile() and m.name.endswith(".py") and (rp := _sdist_path(m.name, profile)):
                fh = tf.extractfile(m)
                if fh is not None:
                    out[rp] = fh.read()
    return out, tuple(sorted(notes))


def _upload_time(entry: dict[str, Any]) -> str | None:
    raw = entry.get("upload_time_iso_8601") or entry.get("upload_time")
    m = re.match(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)", str(raw or ""))
    return f"{m.group(1)}+00:00" if m else None  # PyPI times are UTC; seconds like git


def open_release(
    profile: Profile,
    version: str,
    *,
    cache_dir: str | os.PathLike[str] | None = None,
    index_url: str = PYPI,
) -> Snapshot:
    """The .py files of `dist==version` in repository layout, from a cached download."""
    dist = _dist(profile)
    if not _VERSION_RE.match(version or ""):
        raise SourceError(f"invalid version {version!r}")
    entry = choose_file(release_files(dist, version, cache_dir=cache_dir, index_url=index_url))
    archive = _download(entry, downloads_dir(cache_dir))
    read = _read_wheel if archive.name.endswith(".whl") else _read_sdist
    try:
        contents, notes = read(archive, profile)
    except (OSError, zipfile.BadZipFile, tarfile.TarError) as exc:
        raise SourceError(f"cannot read {archive.name}: {exc}") from None
    return Snapshot(
        kind=SourceKind.RELEASE, repo=dist, ref=version, commit=None,
        commit_date=_upload_time(entry), release=version,
        blobs=_BlobIds(contents),
        reader=_DictReader(contents, archive.name), diagnostics=notes,
    )


@dataclass(frozen=True, slots=True)
class _DictReader:
    contents: Mapping[str, bytes]
    where: str

    def __call__(self, path: str) -> bytes:
        try:
            return self.contents[path]
        except KeyError:
            raise SourceError(f"{path} is not in {self.where}") from None


# --------------------------------------------------------------------- directory


def open_directory(path: str | os.PathLike[str]) -> Snapshot:
    """All .py files below a checkout (hidden directories such as .git/.venv skipped);
    symlinks are not followed (see `_LINK_OUT`)."""
    root = Path(path).expanduser()
    if not root.is_dir():
        raise SourceError(f"not a directory: {os.fspath(path)}")
    real_root = os.path.realpath(root)
    blobs: dict[str, str] = {}
    notes: list[str] = []
    try:
        for dirpath, dirnames, filenames in os.walk(root):  # never descends into a link
            here = Path(dirpath)
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for name in sorted({*dirnames, *filenames}):
                full = here / name
                if full.is_symlink():
                    if not _inside(os.path.realpath(full), real_root):
                        notes.append(_LINK_OUT + full.relative_to(root).as_posix())
                elif name in filenames and name.endswith(".py"):
                    blobs[full.relative_to(root).as_posix()] = blob_id(full.read_bytes())
            dirnames[:] = [d for d in dirnames if not (here / d).is_symlink()]
    except OSError as exc:
        raise SourceError(f"cannot read {os.fspath(path)}: {exc}") from None
    return Snapshot(
        kind=SourceKind.DIRECTORY, repo=os.fspath(path), ref=os.fspath(path), commit=None,
        commit_date=None, release=None, blobs=blobs, reader=_DirReader(root, real_root, blobs),
        diagnostics=tuple(sorted(notes)),
    )


@dataclass(frozen=True, slots=True)
class _DirReader:
    root: Path
    real_root: str
    blobs: Mapping[str, str]

    def __call__(self, path: str) -> bytes:
        if path not in self.blobs:  # also keeps reads inside the snapshot's root
            raise SourceError(f"{path} is not in {self.root}")
        full = self.root / path
        # The tree may have changed since it was listed: still never follow a link.
        if full.is_symlink() or not _inside(os.path.realpath(full), self.real_root):
            raise SourceError(f"{path} became a symlink since {self.root} was listed: not read")
        try:
            return full.read_bytes()
        except OSError as exc:
            raise SourceError(f"cannot read {path}: {exc}") from None
