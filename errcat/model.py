"""The records errcat's orchestration passes around: what to read (`SourceSpec`,
`CatalogDir`) and what was built (`Catalog`).

They sit below `errcat.pipeline` and `errcat.versions` so that both (and the CLI
and scripts) import them without importing each other.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from analyzers.withheld import example_stats
from extractor.errors import ErrcatError
from extractor.profile import Profile
from extractor.snapshot import Snapshot
from extractor.tool import VERSION
from output.schema import SCHEMA_VERSION

if TYPE_CHECKING:  # the analysis modules load when a catalog is built: a cached run never needs them
    from analyzers.entries import Entry
    from analyzers.flags import FlagModel
    from analyzers.trigger import Renderer
    from extractor.ir import Expr
    from extractor.records import Adjustment


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
    flags: FlagModel | None = None
    adjustments: tuple[Adjustment, ...] = ()
    # (path, reason) of each target Python accepts but errcat could not analyse, sorted
    incomplete: tuple[tuple[str, str], ...] = ()
    # per adjustment: when a launch runs it (`extractor.program_order`), None: not known
    adjustment_order: tuple[int | None, ...] = ()
    # plain functions the checks call: name -> (parameters, what a call returns), which the
    # evaluator computes such a call from (`analyzers.first_error`)
    functions: Mapping[str, tuple[tuple[str, ...], Expr]] = field(default_factory=dict)
    unreached_crashes: int = 0  # crash candidates no command line reaches: not entries (`analyzers.crash_entries`)

    @property
    def renderer(self) -> Renderer:
        from analyzers.trigger import Renderer

        return Renderer.for_model(self.flags)

    def as_dict(self, *, entries: bool = True) -> dict[str, Any]:
        """The catalog.json data; `entries=False` leaves the list empty (`render_catalog`
        encodes them one at a time)."""
        from analyzers.adjustments import adjustments_as_dicts

        snap = self.snapshot
        return {
            "schema_version": SCHEMA_VERSION,
            "tool": {"name": "errcat", "version": VERSION},
            "repo": self.profile.repo,
            "commit": snap.pin,
            "commit_date": snap.commit_date,
            "source": snap.provenance(),
            "profile": self.profile.name,
            "targets": list(self.targets),
            "stats": self.stats(),
            "diagnostics": list(self.diagnostics),
            # absent when complete (catalogs of earlier versions read alike)
            **({"incomplete": [{"path": p, "reason": r} for p, r in self.incomplete]} if self.incomplete else {}),
            "entries": [e.as_dict() for e in self.entries] if entries else [],
            "flags": self.flags.as_dict() if self.flags is not None else None,
            "adjustments": list(adjustments_as_dicts(self.adjustments, self.renderer, self.adjustment_order)),
            "functions": [{"name": name, "params": list(params), "returns": body.as_dict()}
                          for name, (params, body) in sorted(self.functions.items())],
        }

    def stats(self) -> dict[str, int]:
        return {
            "entries": len(self.entries),
            "raise": sum(1 for e in self.entries if str(e.site.kind) == "raise"),
            "assert": sum(1 for e in self.entries if str(e.site.kind) == "assert"),
            "crash": sum(1 for e in self.entries if str(e.site.kind) == "crash"),
            "crash_unreached": self.unreached_crashes,
            "variants": sum(len(e.variants) for e in self.entries),
            "files": len(self.targets),
            # What could not be known statically, counted rather than guessed:
            "unknown_trigger": sum(1 for e in self.entries if _has_unknown(e)),
            "runtime_message_parts": sum(1 for e in self.entries if e.site.template.holes),
            "notes": sum(len(e.site.notes) for e in self.entries),
            **example_stats([e.example_fix for e in self.entries]),
        }


def _has_unknown(entry: Entry) -> bool:
    return any(t.unknown for t in entry.triggers)


@dataclass(frozen=True, slots=True)
class CatalogDir:
    """A published catalog: a directory with catalog.json."""

    path: str
