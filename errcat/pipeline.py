"""The library API behind the CLI: source -> snapshot -> sites -> entries -> files.

Functions here raise `ErrcatError` subclasses for bad input and never print or exit.
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analyzers.entries import Entry, build_entries
from analyzers.graph import build_graph, graph_graphml, graph_json
from analyzers.trigger import Renderer
from errcat import __version__
from extractor.callers import with_caller_guards
from extractor.errors import ErrcatError, SourceError
from extractor.profile import Profile, load_profile
from extractor.records import FileSites
from extractor.sites import extract_file
from extractor.snapshot import Snapshot, SourceKind
from extractor import source
from output.writer import dumps, write_atomically

SCHEMA_VERSION = 1


@dataclass(frozen=True, slots=True)
class SourceSpec:
    """Exactly one of repo+commit, release or path; none means the profile's default."""

    repo: str | None = None
    commit: str | None = None
    release: str | None = None
    path: str | None = None

    def validate(self) -> None:
        options = (("--repo", self.repo), ("--commit", self.commit), ("--release", self.release), ("--path", self.path))
        for option, value in options:
            if value is not None and not value.strip():  # "" must not mean "default" or "cwd"
                raise ErrcatError(f"{option} is empty")
        given = [x for x in (self.repo, self.release, self.path) if x is not None]
        if len(given) > 1:
            raise ErrcatError("give only one source: --repo/--commit, --release or --path")
        if self.commit is not None and self.repo is None:
            raise ErrcatError("--commit needs --repo")


@dataclass(frozen=True, slots=True)
class Catalog:
    snapshot: Snapshot
    profile: Profile
    targets: tuple[str, ...]
    entries: tuple[Entry, ...]
    diagnostics: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        snap = self.snapshot
        return {
            "schema_version": SCHEMA_VERSION,
            "tool": {"name": "errcat", "version": __version__},
            "repo": self.profile.repo,
            "commit": snap.pin,
            "commit_date": snap.commit_date,
            "source": snap.provenance(),
            "profile": self.profile.name,
            "targets": list(self.targets),
            "stats": self.stats(),
            "diagnostics": list(self.diagnostics),
            "entries": [e.as_dict() for e in self.entries],
        }

    def stats(self) -> dict[str, int]:
        return {
            "entries": len(self.entries),
            "raise": sum(1 for e in self.entries if str(e.site.kind) == "raise"),
            "assert": sum(1 for e in self.entries if str(e.site.kind) == "assert"),
            "variants": sum(len(e.variants) for e in self.entries),
            "files": len(self.targets),
        }


def open_source(spec: SourceSpec, profile: Profile, *, cache_dir: str | os.PathLike[str] | None = None) -> Snapshot:
    spec.validate()
    if spec.path is not None:
        return source.open_directory(spec.path)
    if spec.repo is not None:
        return source.open_git(spec.repo, spec.commit or "HEAD", cache_dir=cache_dir)
    if profile.pypi is None:
        if spec.release is not None:
            raise ErrcatError(f"profile {profile.name} names no package (pypi): --release cannot be used")
        raise ErrcatError(f"profile {profile.name} has no default source: give --repo, --release or --path")
    version = spec.release or source.latest_release(profile)
    return source.open_release(profile, version, cache_dir=cache_dir)


def extract_sites(snapshot: Snapshot, profile: Profile, paths: Sequence[str]) -> list[FileSites]:
    """Per-file extraction (the cacheable part), then cross-file caller guards."""
    files = [extract_file(p, snapshot.text(p), profile) for p in paths]
    return with_caller_guards(files)


def build_catalog(snapshot: Snapshot, profile: Profile) -> Catalog:
    targets = snapshot.glob(profile.targets)
    if not targets:
        raise SourceError(
            f"no target files at {snapshot.ref}: nothing matches {', '.join(profile.targets)}"
        )
    files = extract_sites(snapshot, profile, targets)
    diagnostics = [d for fs in files for d in fs.diagnostics]
    diagnostics += [f"parse error: {fs.parse_error}" for fs in files if fs.parse_error]
    lines: dict[str, list[str]] = {}

    def lines_of(path: str) -> list[str]:
        if path not in lines:
            lines[path] = snapshot.text(path).splitlines(keepends=True)
        return lines[path]

    def permalink(path: str, line: int) -> str:
        if snapshot.kind == SourceKind.DIRECTORY:  # no commit to pin to: the local file
            return f"{(Path(snapshot.ref).expanduser().absolute() / path).as_uri()}#L{line}"
        return profile.permalink(snapshot.commit or profile.tag(snapshot.ref), path, line)

    sites = [s for fs in files for s in fs.sites]
    entries = build_entries(sites, lines_of, permalink, Renderer())
    return Catalog(snapshot, profile, tuple(targets), tuple(entries), tuple(diagnostics))


def render_catalog(catalog: Catalog) -> dict[str, str | bytes]:
    """Every output file, keyed by path relative to the output directory."""
    data = catalog.as_dict()
    files: dict[str, str | bytes] = {"catalog.json": dumps(data)}
    for entry in data["entries"]:
        files[f"entries/{entry['id']}.json"] = dumps(entry)
    graph = build_graph(catalog.entries)
    files["graph.json"] = dumps(graph_json(graph))
    files["graph.graphml"] = graph_graphml(graph)
    return files


def extract(
    spec: SourceSpec,
    *,
    profile: str = "sglang",
    out: str | os.PathLike[str] = "catalog",
    cache_dir: str | os.PathLike[str] | None = None,
) -> Catalog:
    """`errcat extract`: read the source, build the catalog, write it atomically."""
    prof = load_profile(profile)
    snapshot = open_source(spec, prof, cache_dir=cache_dir)
    catalog = build_catalog(snapshot, prof)
    write_atomically(Path(out), lambda: render_catalog(catalog))
    return catalog
