"""Per-file extraction that reuses cached results and spreads misses over processes.

A file's result depends on its bytes, its path and the analysis (see
`result_cache.fingerprint`), so unchanged files across commits and releases are
read from the cache; only the rest are parsed, in a worker pool when there are
several and more than one job is allowed.
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from extractor.observe import advance
from extractor.pool import WorkerDied, run_tasks
from extractor.profile import Profile, parse_profile
from extractor.records import FileSites
from extractor.result_cache import ResultCache, sites_key
from extractor.snapshot import Snapshot

if TYPE_CHECKING:  # libcst: loaded when a file is extracted
    from extractor.imported_values import ImportedValues

KIND = "sites"


def default_jobs() -> int:
    return os.cpu_count() or 1


def extract_files(
    snapshot: Snapshot,
    profile: Profile,
    paths: Sequence[str],
    *,
    cache: ResultCache | None = None,
    jobs: int | None = None,
) -> list[FileSites]:
    """`extract_file` for each path, in order, each result from the cache when there. A
    result also depends on the constants the file imports, read from the other files."""
    from extractor.enum_self import Texts
    from extractor.imported_values import digest, imported_values

    imported = imported_values(paths, Texts(snapshot.blobs, lambda p: snapshot.texts([p])[0].get(p)))
    found: dict[str, FileSites] = {}
    todo: list[tuple[str, str]] = []
    for path in paths:
        key = sites_key(snapshot.blobs[path], path, digest(imported.get(path, ())))
        cached = cache.read(KIND, key, FileSites.from_dict) if cache is not None else None
        if cached is not None and cached.path == path:
            found[path] = cached
        else:
            todo.append((path, key))
    decoded, refused = snapshot.texts(path for path, _ in todo)
    for exc in refused:  # Python would refuse the file: reported like a parse error
        found[exc.path] = FileSites(path=exc.path, parse_error=str(exc))
    todo = [(path, key) for path, key in todo if path in decoded]
    texts = [(path, decoded[path], imported.get(path, ())) for path, _ in todo]
    for (path, key), (sites, data, exact) in zip(todo, _run(texts, profile, jobs, cache is not None), strict=True):
        if cache is not None:
            if exact and sites.incomplete is None:  # a failure (memory ...) may not recur: not kept
                cache.put(KIND, key, data)
            else:
                cache.stats.uncacheable += 1
        found[path] = sites
    return [found[p] for p in paths]


def _exact(sites: FileSites, data: dict[str, Any]) -> bool:
    """Does the cached form give back exactly `sites`? Otherwise caching would change output."""
    try:
        return FileSites.from_dict(data) == sites
    except (KeyError, TypeError, ValueError):
        return False


def _run(texts: list[tuple[str, str, ImportedValues]], profile: Profile, jobs: int | None,
         keep: bool = True) -> list[tuple[FileSites, dict, bool]]:
    """(result, its cacheable form, whether that form round-trips exactly) per text; without
    `keep` (no cache to store into) a file extracted here skips the round-trip check."""
    jobs = default_jobs() if jobs is None else max(1, jobs)
    if jobs == 1 or len(texts) < 2:
        from extractor.sites import extract_file  # libcst: imported only when something is parsed

        out = []
        for path, text, imported in texts:
            sites = extract_file(path, text, profile, imported)
            data = sites.as_dict() if keep else {}
            out.append((sites, data, keep and _exact(sites, data)))
            advance(len(out), len(texts), path)
        return out
    # Largest files first, so one big file does not start last and finish alone.
    order = sorted(range(len(texts)), key=lambda i: -len(texts[i][1]))
    results: list[Any] = [None] * len(texts)
    finished: list[int] = []

    def done(i: int, outcome: Any) -> None:
        if isinstance(outcome, WorkerDied):
            results[i] = _failed(texts[i][0], "analysis crashed its worker process; file skipped")
        elif isinstance(outcome, Exception):  # one file's failure is that file's diagnostic
            results[i] = _failed(texts[i][0], f"analysis failed: {type(outcome).__name__}: {outcome}")
        else:
            data, exact = outcome
            results[i] = (FileSites.from_dict(data), data, exact)
        finished.append(i)
        advance(len(finished), len(texts), texts[i][0])

    run_tasks(_extract_one, texts, order=order, workers=min(jobs, len(texts)), initializer=_init_worker,
              initargs=(profile.raw, profile.name), done=done)
    return results


def _failed(path: str, why: str) -> tuple[FileSites, dict[str, Any], bool]:
    """A file errcat could not analyse: a diagnostic that makes the catalog incomplete,
    never cached (it may pass next time)."""
    sites = FileSites(path=path, parse_error=f"{path}: {why}", incomplete=why)
    return sites, sites.as_dict(), False


_WORKER_PROFILE: Profile | None = None


def _init_worker(raw: dict[str, Any], origin: str) -> None:
    global _WORKER_PROFILE
    from extractor.orphans import exit_with_parent

    exit_with_parent()  # a killed run must not leave its workers behind
    _WORKER_PROFILE = parse_profile(raw, origin)


def _extract_one(path: str, text: str, imported: ImportedValues) -> tuple[dict[str, Any], bool]:
    from extractor.sites import extract_file

    assert _WORKER_PROFILE is not None
    sites = extract_file(path, text, _WORKER_PROFILE, imported)
    data = sites.as_dict()
    return data, _exact(sites, data)
