"""Publish the error catalog of each configured target when its head moved.

    python scripts/nightly.py --config nightly.yaml [--dry-run]

For every target (a git repository URL or path plus a branch, or a release on the
package index): fetch, resolve the head, and if it is the commit already published
do nothing — no file is rewritten. Otherwise extract (reusing the result cache),
diff against the last published catalog and publish atomically:

    <root>/<name>/<commit>/          catalog files + CHANGELOG.md + changes.json of the step
    <root>/<name>/latest             symlink to <commit> (flipped last, atomically)
    <root>/<name>/latest.json        {"commit", "label", "date"} for clients without symlinks
    <root>/<name>/CHANGELOG.md       every step, newest first
    <root>/<name>/site/              `errcat site` of the newest published catalogs (SITE_RELEASES),
                                     rebuilt after each publish (and when missing)

A lock file (default ``<root>/.nightly.lock``) keeps a second run from starting. A
failing target leaves its last published catalog untouched. Nothing nightly did not
write is overwritten or deleted: catalog directories carry errcat's manifest
(output/writer.py), CHANGELOG.md / latest.json / latest must be in nightly's own
format, and a catalog that could not analyse a file the published one has is not
published. Staging left by a killed run is removed by the next. Exit codes: 0 all
targets published or unchanged, 1 a target failed (one line each on stderr), 2 bad
configuration, 3 another run holds the lock. See scripts/nightly.example.yaml.
"""
from __future__ import annotations

import argparse
import errno
import json
import os
import re
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # runnable from a checkout

import yaml

from errcat import pipeline
from errcat.cli import warnings_as_lines
from errcat.exits import Exit
from errcat.model import SourceSpec
from extractor.cache import private_cache
from extractor.errors import ErrcatError
from extractor.profile import load_profile

# errcat's one exit-code table (`errcat.exits`): 1 a negative answer, 2 bad input, 3 left open
EXIT_OK, EXIT_FAILED, EXIT_CONFIG, EXIT_LOCKED = Exit.OK, Exit.NO, Exit.USAGE, Exit.PARTIAL
_SECTION = re.compile(r"^<!-- errcat:(\S+) -->$", re.MULTILINE)
_CHANGELOG_TITLE = "# Error catalog changes\n"


class ConfigError(Exception):
    pass


class Locked(Exception):
    pass


# ------------------------------------------------------------------ configuration


@dataclass(frozen=True, slots=True)
class Target:
    name: str  # publish under <root>/<name>
    profile: str
    repo: str | None = None
    branch: str = "main"
    release: str | None = None  # "latest" or a version

    @property
    def is_git(self) -> bool:
        return self.repo is not None


@dataclass(frozen=True, slots=True)
class Config:
    root: Path
    targets: tuple[Target, ...]
    cache_dir: str | None = None
    lock: Path | None = None
    jobs: int | None = None

    @property
    def lock_path(self) -> Path:
        return self.lock or self.root / ".nightly.lock"


def _safe_name(name: str) -> str:
    parts = name.split("/")
    if not name or name.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise ConfigError(f"target name {name!r} must be a relative path without '.' or '..' parts")
    return name


def parse_config(data: Any, base: Path) -> Config:
    """The configuration read from YAML `data`; relative paths in it are below `base`."""
    if not isinstance(data, dict):
        raise ConfigError("expected a mapping at top level")
    if not data.get("root"):
        raise ConfigError("missing 'root' (where catalogs are published)")
    raw_targets = data.get("targets")
    if not isinstance(raw_targets, list) or not raw_targets:
        raise ConfigError("'targets' must be a non-empty list")
    targets = tuple(_target(i, t, base) for i, t in enumerate(raw_targets))
    names = [t.name for t in targets]
    if len(set(names)) != len(names):
        raise ConfigError("two targets publish under the same name; set 'name' apart")
    root = Path(str(data["root"])).expanduser()
    jobs = _jobs(data.get("jobs"))
    return Config(
        root=root if root.is_absolute() else base / root,
        targets=targets,
        cache_dir=None if data.get("cache_dir") is None else str(Path(str(data["cache_dir"])).expanduser()),
        lock=None if data.get("lock") is None else Path(str(data["lock"])).expanduser(),
        jobs=jobs,
    )


def _target(i: int, t: Any, base: Path) -> Target:
    """``targets[i]``: a git repository (`repo`, `branch`) or a release, a profile and a name."""
    if not isinstance(t, dict):
        raise ConfigError(f"targets[{i}] must be a mapping")
    if (t.get("repo") is None) == (t.get("release") is None):
        raise ConfigError(f"targets[{i}]: give exactly one of 'repo' or 'release'")
    profile = _profile(t.get("profile", "sglang"), base)
    repo = None if t.get("repo") is None else _repo(str(t["repo"]), base)
    name = t.get("name")
    if name is None:
        try:
            name = load_profile(profile).repo
        except ErrcatError as exc:
            raise ConfigError(f"targets[{i}]: {exc}") from None
    return Target(_safe_name(str(name)), profile, repo, str(t.get("branch", "main")),
                  None if t.get("release") is None else str(t["release"]))


def _profile(value: Any, base: Path) -> str:
    """A profile name, or a profile file, taken relative to the configuration's directory."""
    profile = str(value)
    if profile.endswith((".yaml", ".yml")) and not os.path.isabs(profile):
        return str(base / profile)
    return profile


def _repo(repo: str, base: Path) -> str:
    """A URL (scheme:// or scp-like user@host:path) as given; a local path made absolute from `base`."""
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://|^[^/]+@[^/]+:", repo) or os.path.isabs(repo):
        return repo
    return str((base / repo).resolve())


def _jobs(jobs: Any) -> int | None:
    if jobs is not None and (not isinstance(jobs, int) or jobs < 1):
        raise ConfigError("'jobs' must be a positive integer")
    return jobs


def load_config(path: str) -> Config:
    file = Path(path)
    try:
        data = yaml.safe_load(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path} is not valid YAML: {str(exc).splitlines()[0]}") from None
    return parse_config(data, file.resolve().parent)


# ------------------------------------------------------------------ lock


@contextmanager
def run_lock(path: Path) -> Iterator[None]:
    """An exclusive advisory lock held for the run (released by the OS if we die)."""
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "?"
                raise Locked(f"another nightly run holds {path} (pid {holder})") from None
            raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # closing releases the lock


# ------------------------------------------------------------------ heads


@dataclass(frozen=True, slots=True)
class Head:
    pin: str  # commit SHA or release version: the published directory name
    label: str
    spec: SourceSpec


def resolve_head(target: Target, cache_dir: str | os.PathLike[str] | None) -> Head:
    """Fetch and resolve the target's head (network for URLs and 'latest' releases)."""
    from extractor import source

    if not target.is_git:
        if target.release == "latest":
            version = source.latest_release(load_profile(target.profile))
        else:
            version = str(target.release)
        return Head(version, version, SourceSpec(release=version))
    repo = str(target.repo)
    sha = source.branch_head(repo, target.branch, cache_dir=cache_dir)
    return Head(sha, f"{target.branch}@{sha[:12]}", SourceSpec(repo=repo, commit=sha))


# ------------------------------------------------------------------ publishing


def published_pin(target_dir: Path) -> str | None:
    link = target_dir / "latest"
    try:
        pin = os.readlink(link)
    except OSError:
        return None
    return pin if (target_dir / pin / "catalog.json").is_file() else None


def _atomic_text(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _point_latest(target_dir: Path, pin: str) -> None:
    tmp = target_dir / f".latest.{os.getpid()}.{os.urandom(4).hex()}"  # new name: nothing to delete first
    os.symlink(pin, tmp)
    os.replace(tmp, target_dir / "latest")


def _ours(path: Path) -> bool:
    """Is `path` (in a target directory) absent or as nightly writes it? Only then may it be replaced."""
    if not os.path.lexists(path):
        return True
    if path.name == "latest":
        return path.is_symlink()
    if path.is_symlink() or not path.is_file():
        return False
    try:
        text = path.read_text(encoding="utf-8")
        if path.name == "CHANGELOG.md":
            return text.startswith(_CHANGELOG_TITLE)
        data = json.loads(text)
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and set(data) == {"commit", "label", "date"}


def check_ours(target_dir: Path) -> None:
    """Refuse to publish over a CHANGELOG.md, latest.json or latest that nightly did not write."""
    for name in ("CHANGELOG.md", "latest.json", "latest"):
        if not _ours(target_dir / name):
            raise ErrcatError(f"refusing to overwrite {target_dir / name}: not written by nightly; move it away")


def lost_files(old: dict[str, Any], new: dict[str, Any]) -> list[tuple[str, str]]:
    """(path, reason) of files `new` could not analyse that the published `old` did (sorted)."""
    old_incomplete = {str(i.get("path")) for i in _items(old.get("incomplete", []))}
    analysed = {str(e.get("source", {}).get("path")) for e in _items(old.get("entries", []))}
    analysed |= {str(t) for t in old.get("targets", []) or []} - old_incomplete
    return sorted((str(i.get("path")), str(i.get("reason", "?"))) for i in _items(new.get("incomplete", []))
                  if str(i.get("path")) in analysed)


def _items(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def cumulative_changelog(previous: str, pin: str, section: str) -> str:
    """`section` on top of `previous`, replacing an older section for the same pin."""
    parts = _SECTION.split(previous)
    kept = []
    # parts: [preamble, pin1, body1, pin2, body2, ...]
    for i in range(1, len(parts) - 1, 2):
        if parts[i] != pin:
            kept.append(f"<!-- errcat:{parts[i]} -->{parts[i + 1]}")
    body = f"<!-- errcat:{pin} -->\n{section.rstrip()}\n\n" + "".join(kept)
    return _CHANGELOG_TITLE + "\n" + body.rstrip() + "\n"


@dataclass(frozen=True, slots=True)
class Outcome:
    target: str
    pin: str
    published: bool
    changes: int = 0

    def line(self) -> str:
        if not self.published:
            return f"{self.target}: unchanged at {self.pin}"
        return f"{self.target}: published {self.pin} ({self.changes} changes)"


def publish(target: Target, config: Config, *, dry_run: bool = False) -> Outcome:
    from analyzers.diff import diff_catalogs
    from errcat.versions import compact, read_catalog_dir
    from output.diff_formats import render_json, render_markdown
    from output.writer import as_text, remove_stale_staging

    target_dir = config.root / target.name
    if target_dir.is_dir():  # under the run lock: a staging dir whose creator died is garbage
        remove_stale_staging(target_dir)
    # Downloads, mirrors and results only from a cache nobody else can write (else a private one).
    with private_cache(config.cache_dir, True) as (cache_dir, use_cache):
        head = resolve_head(target, cache_dir)
        if published_pin(target_dir) == head.pin:
            if not dry_run and not (target_dir / SITE).is_dir():
                build_target_site(target_dir, target.profile)
            return Outcome(target.name, head.pin, False)
        prof = load_profile(target.profile)
        snapshot = pipeline.open_source(head.spec, prof, cache_dir=cache_dir)
        files, _summary, _cached = pipeline.catalog_files(snapshot, prof, cache_dir=cache_dir, jobs=config.jobs,
                                                          use_cache=use_cache)
    new = json.loads(as_text(files["catalog.json"]))
    old_pin = published_pin(target_dir)
    old: dict[str, Any] = {"entries": []}
    if old_pin is not None:
        old = read_catalog_dir(target_dir / old_pin)  # any schema_version up to ours; validated
    lost = lost_files(old, new)
    if lost:
        more = f" and {len(lost) - 1} more" if len(lost) > 1 else ""
        raise ErrcatError(f"catalog incomplete: {lost[0][0]} could not be analysed ({lost[0][1]}){more}, "
                          "the published catalog has it; not published")
    diff = diff_catalogs(compact(old), compact(new), old_label=old_pin or "(nothing)", new_label=head.label)
    step_md = render_markdown(diff)
    if dry_run:
        return Outcome(target.name, head.pin, False, len(diff.changes))
    files = {**files, "CHANGELOG.md": step_md, "changes.json": render_json(diff)}
    check_ours(target_dir)
    target_dir.mkdir(parents=True, exist_ok=True)
    from output.writer import write_atomically

    write_atomically(target_dir / head.pin, lambda: files)
    log = target_dir / "CHANGELOG.md"
    previous = log.read_text(encoding="utf-8") if log.is_file() else ""
    _atomic_text(log, cumulative_changelog(previous, head.pin, step_md))
    _atomic_text(target_dir / "latest.json", json.dumps(
        {"commit": head.pin, "label": head.label, "date": new.get("commit_date")}, indent=2) + "\n")
    _point_latest(target_dir, head.pin)
    build_target_site(target_dir, target.profile)
    return Outcome(target.name, head.pin, True, len(diff.changes))


SITE = "site"
SITE_RELEASES = 6  # the newest published catalogs the site shows: bounds its size and build time


def build_target_site(target_dir: Path, profile: str) -> Path:
    """`errcat site` of the target's newest published catalogs (oldest first by commit date)
    into <target_dir>/site, replaced atomically."""
    from errcat.site import build_site

    pins = [p for p in target_dir.iterdir()
            if not p.name.startswith(".") and not p.is_symlink() and (p / "catalog.json").is_file()]
    # commits of one second tie on their date: the one published later is the newer
    dated = sorted(pins, key=lambda p: (_commit_date(p), (p / "catalog.json").stat().st_mtime_ns))[-SITE_RELEASES:]
    return build_site(dated, target_dir / SITE, profile=profile).out


def _commit_date(catalog_dir: Path) -> str:
    try:
        return str(json.loads((catalog_dir / "catalog.json").read_text(encoding="utf-8")).get("commit_date") or "")
    except (OSError, ValueError):
        return ""


# ------------------------------------------------------------------ main


def _reason(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    if isinstance(exc, (ErrcatError, OSError)):
        if isinstance(exc, OSError) and exc.filename:
            return f"{exc.strerror or exc}: {exc.filename}"
        return text or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="nightly.py", description=__doc__.splitlines()[0])
    parser.add_argument("--config", required=True, help="YAML configuration (see scripts/nightly.example.yaml)")
    parser.add_argument("--dry-run", action="store_true", help="resolve and diff, publish nothing")
    args = parser.parse_args(argv)
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(f"nightly: {args.config}: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    failed = 0
    try:
        with run_lock(config.lock_path), warnings_as_lines("nightly"):
            for target in config.targets:
                try:
                    print(publish(target, config, dry_run=args.dry_run).line())
                except Exception as exc:  # noqa: BLE001 - one line per failed target, others go on
                    failed += 1
                    print(f"nightly: {target.name}: {_reason(exc)}", file=sys.stderr)
    except Locked as exc:
        print(f"nightly: {exc}", file=sys.stderr)
        return EXIT_LOCKED
    except OSError as exc:
        print(f"nightly: cannot lock {config.lock_path}: {_reason(exc)}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_FAILED if failed else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
