"""Catalogs of several versions: the sides of a diff and the revisions of a history.

Library code behind `errcat diff` and `errcat history`, on top of `errcat.pipeline`:
turns side texts and revision ranges into catalogs, extracting what is not a
published catalog already, with the result cache and a process pool.
"""
from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from analyzers.diff import Diff, diff_catalogs
from analyzers.lineage import History, Rev, build_history
from errcat.model import CatalogDir, SourceSpec
from errcat.pipeline import build_catalog, open_source
from extractor import source
from extractor.cache import private_cache
from extractor.errors import ErrcatError
from extractor.observe import Progress
from extractor.pool import WorkerDied, run_tasks
from extractor.profile import Profile, load_profile, parse_profile
from extractor.result_cache import CATALOG_PACKAGES, CacheStats, ResultCache, snapshot_key
from output.schema import catalog_problem, subset_problem

# Keys of an entry that diffs and histories read; the rest (excerpts, guards) stays out
# of caches and inter-process traffic.
_ENTRY_KEYS = ("id", "kind", "exception", "template", "source", "trigger", "variants")
_TOP_KEYS = ("repo", "commit", "commit_date", "source", "flags")
_VERSION = re.compile(r"^\d+(\.\d+)+([a-z]+\d*)?(\.post\d+)?(\.dev\d+)?$")


Side = CatalogDir | SourceSpec


def parse_side(text: str, *, repo: str | None = None) -> Side:
    """One side of a diff from its command-line text.

    A directory with catalog.json; ``release:V`` or a bare version ``X.Y[.Z]``;
    ``path:DIR`` for a checkout; otherwise, with `repo`, a revision in it.
    """
    if not text:
        raise ErrcatError("empty catalog or source")
    path = Path(text).expanduser()
    if path.is_dir() and (path / "catalog.json").is_file():
        return CatalogDir(text)
    if text.startswith("release:"):
        return SourceSpec(release=text.removeprefix("release:"))
    if text.startswith("path:"):
        return SourceSpec(path=text.removeprefix("path:"))
    if repo is not None:
        return SourceSpec(repo=repo, commit=text)
    if path.is_dir():
        raise ErrcatError(f"{text} has no catalog.json (for a checkout, write path:{text})")
    if _VERSION.match(text):
        return SourceSpec(release=text)
    raise ErrcatError(f"{text!r} is not a catalog directory, release:VERSION, path:DIR or (with --repo) a revision")


def side_label(side: Side) -> str:
    if isinstance(side, CatalogDir):
        return side.path
    if side.release:
        return side.release
    if side.path:
        return side.path
    return side.commit or "HEAD"


def read_catalog_dir(path: str | os.PathLike[str]) -> dict[str, Any]:
    """DIR/catalog.json, checked against the shipped schema: any schema_version up to
    this errcat's is read, a newer one or malformed content is a one-line error."""
    file = Path(path) / "catalog.json"
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ErrcatError(f"cannot read {file}: {exc.strerror or exc}") from None
    except ValueError as exc:  # also bytes that are not UTF-8
        raise ErrcatError(f"{file} is not valid JSON: {exc}") from None
    problem = catalog_problem(data)
    if problem is not None:
        raise ErrcatError(f"{file}: {problem}")
    return data


def compact(catalog: Mapping[str, Any]) -> dict[str, Any]:
    """What a diff reads of a catalog: provenance, flags, and a few keys per entry."""
    out = {k: catalog.get(k) for k in _TOP_KEYS if k in catalog}
    out["entries"] = [{k: e.get(k) for k in _ENTRY_KEYS if k in e} for e in catalog.get("entries") or ()]
    return out


def _checked_compact(data: Any) -> dict[str, Any]:
    """A cached compact catalog as stored, or ValueError (a cache miss) when it is not one."""
    problem = subset_problem(data, _TOP_KEYS, _ENTRY_KEYS)
    if problem is not None:
        raise ValueError(problem)
    return data


def catalog_of_source(
    spec: SourceSpec, profile: Profile, *, cache_dir: str | os.PathLike[str] | None, jobs: int | None, use_cache: bool
) -> tuple[dict[str, Any], dict[str, int]]:
    """The compact catalog of a source (cached per snapshot and analysis) and cache counts."""
    snapshot = open_source(spec, profile, cache_dir=cache_dir)
    sites = ResultCache.open(profile, cache_dir) if use_cache else None
    whole = ResultCache.open(profile, cache_dir, CATALOG_PACKAGES) if use_cache else None
    key = snapshot_key(snapshot, profile)
    if whole is not None and (hit := whole.read("compact", key, _checked_compact)) is not None:
        return hit, {"catalogs_cached": 1}
    catalog = compact(build_catalog(snapshot, profile, cache=sites, jobs=jobs).as_dict())
    if whole is not None:
        whole.put("compact", key, catalog)
    stats = sites.stats if sites is not None else CacheStats()
    return catalog, {"files_cached": stats.hits, "files_extracted": stats.misses, "uncacheable": stats.uncacheable}


def load_side(
    side: Side, profile: Profile, *, cache_dir: str | os.PathLike[str] | None = None,
    jobs: int | None = 1, use_cache: bool = True,
) -> dict[str, Any]:
    if isinstance(side, CatalogDir):
        return read_catalog_dir(side.path)
    return catalog_of_source(side, profile, cache_dir=cache_dir, jobs=jobs, use_cache=use_cache)[0]


def diff(
    old: Side, new: Side, *, profile: str = "sglang", cache_dir: str | os.PathLike[str] | None = None,
    jobs: int | None = 1, use_cache: bool = True,
) -> Diff:
    """`errcat diff`: what changed between two sides, each a catalog directory or a
    `SourceSpec` (extracted, cached)."""
    prof = load_profile(profile)
    if isinstance(old, CatalogDir) and isinstance(new, CatalogDir):  # no source: no cache
        return _diff(old, new, prof)
    with private_cache(cache_dir, use_cache) as (cache_at, use_results):
        return _diff(old, new, prof, cache_dir=cache_at, jobs=jobs, use_cache=use_results)


def _diff(
    old: Side, new: Side, profile: Profile, *, cache_dir: str | os.PathLike[str] | None = None,
    jobs: int | None = 1, use_cache: bool = True,
) -> Diff:
    a = load_side(old, profile, cache_dir=cache_dir, jobs=jobs, use_cache=use_cache)
    b = load_side(new, profile, cache_dir=cache_dir, jobs=jobs, use_cache=use_cache)
    return diff_catalogs(a, b, old_label=side_label(old), new_label=side_label(new))


# ------------------------------------------------------------------ history


def _step(args: tuple[dict[str, Any], str, dict[str, Any], str | None, bool]) -> tuple[dict[str, Any], dict[str, int]]:
    spec_fields, origin, raw, cache_dir, use_cache = args
    profile = parse_profile(raw, origin)
    return catalog_of_source(SourceSpec(**spec_fields), profile, cache_dir=cache_dir, jobs=1, use_cache=use_cache)


def history(
    *, repo: str | None = None, revs: Sequence[str] = (), releases: Sequence[str] = (),
    profile: str = "sglang", cache_dir: str | os.PathLike[str] | None = None, jobs: int | None = 1,
    use_cache: bool = True, progress: Progress | None = None,
) -> History:
    """`errcat history`: entry lineage over the revisions of `repo` (``A..B`` or a list)
    or over `releases`; `progress(done, total, label)` is called after each revision."""
    from extractor.pep440 import version_key

    prof = load_profile(profile)
    if (repo is None) == (not releases):
        raise ErrcatError("give --repo with --revs, or --releases")
    with private_cache(cache_dir, use_cache) as (cache_at, use_results):
        if repo is not None:
            listed = source.list_revisions(repo, revs or ["HEAD"], cache_dir=cache_at)
            points = [Rev(r.label, r.commit) for r in listed]
            specs = [{"repo": repo, "commit": r.commit} for r in listed]
        else:
            ordered = sorted(dict.fromkeys(releases), key=version_key)
            points = [Rev(v) for v in ordered]
            specs = [{"release": v} for v in ordered]
        cache = None if cache_at is None else os.fspath(cache_at)
        tasks = [(s, prof.name, prof.raw, cache, use_results) for s in specs]
        results, total = _run_steps(tasks, [p.label for p in points], jobs, progress)
    steps = [
        (Rev(p.label, p.commit or r.get("commit"), r.get("commit_date")), r)
        for p, r in zip(points, results, strict=True)
    ]
    return build_history(steps, total)


def _run_steps(
    tasks: list[tuple[dict[str, Any], str, dict[str, Any], str | None, bool]], labels: Sequence[str],
    jobs: int | None, progress: Progress | None,
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """`_step` of each task (over `jobs` processes, None = CPU count): the compact
    catalogs in order, and the cache counts summed."""
    from extractor.incremental import default_jobs

    jobs = default_jobs() if jobs is None else max(1, jobs)
    results: list[Any] = [None] * len(tasks)
    total: Counter[str] = Counter({"files_cached": 0, "files_extracted": 0, "catalogs_cached": 0, "uncacheable": 0})

    def done(i: int, result: tuple[dict[str, Any], dict[str, int]]) -> None:
        results[i] = result[0]
        total.update(result[1])
        if progress is not None:
            progress(sum(r is not None for r in results), len(tasks), labels[i])

    if jobs == 1 or len(tasks) < 2:
        for i, task in enumerate(tasks):
            done(i, _step(task))
    else:
        from extractor.orphans import exit_with_parent  # a killed run must not leave its workers behind

        def outcome(i: int, result: Any) -> None:
            if isinstance(result, WorkerDied):  # died again when run alone: this revision kills it
                raise ErrcatError(f"revision {labels[i]}: extracting it crashed its worker process "
                                  "(killed by a signal or out of memory)")
            if isinstance(result, BaseException):
                raise result
            done(i, result)

        run_tasks(_step, [(task,) for task in tasks], workers=min(jobs, len(tasks)), initializer=exit_with_parent,
                  initargs=(os.getpid(),), done=outcome)
    return results, dict(total)
