"""What the website is built from: the releases' catalogs, oldest first, and what is
derived across them once (where each entry exists, its lineage, consecutive diffs)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import networkx as nx

from analyzers.diff import Diff
from analyzers.lineage import Lineage


@dataclass(frozen=True, slots=True)
class Release:
    label: str  # the release (or revision) name shown and used in URLs
    catalog: Mapping[str, Any]  # catalog.json as extract wrote it
    graph: nx.MultiDiGraph | None = None  # graph.json; None: the catalog has none

    @property
    def entries(self) -> Sequence[Mapping[str, Any]]:
        return self.catalog.get("entries") or ()


@dataclass(frozen=True)
class SiteData:
    releases: tuple[Release, ...]  # oldest first; the last one is the site's default view
    diffs: tuple[Diff, ...] = ()  # releases[i] -> releases[i + 1]
    lineages: tuple[Lineage, ...] = ()
    title: str = "Error catalog"
    base_url: str | None = None

    @property
    def newest(self) -> Release:
        return self.releases[-1]

    @cached_property
    def present(self) -> dict[str, list[str]]:
        """Per entry id, the releases whose catalog has it (oldest first)."""
        out: dict[str, list[str]] = {}
        for release in self.releases:
            for entry in release.entries:
                out.setdefault(str(entry["id"]), []).append(release.label)
        return out

    @cached_property
    def latest(self) -> dict[str, tuple[Release, Mapping[str, Any]]]:
        """Per entry id, the newest release that has it and the entry there."""
        out: dict[str, tuple[Release, Mapping[str, Any]]] = {}
        for release in self.releases:
            for entry in release.entries:
                out[str(entry["id"])] = (release, entry)
        return out

    @cached_property
    def lineage_of(self) -> dict[str, Lineage]:
        """Per entry id, the lineage it belongs to (any id it had)."""
        return {i: lin for lin in self.lineages for i in lin.ids}

    @cached_property
    def flag_release(self) -> dict[str, Release]:
        """Per flag (graph node name, e.g. ``--enable-lora``), the newest release whose graph has it."""
        out: dict[str, Release] = {}
        for release in self.releases:
            if release.graph is None:
                continue
            for node, data in release.graph.nodes(data=True):
                if data.get("kind") == "flag":
                    out[node.split(":", 1)[1]] = release
        return out
