"""The library API behind the CLI: source -> snapshot -> sites -> entries -> files.

Functions here raise `ErrcatError` subclasses for bad input and never print or exit.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from analyzers.outcomes import NO_OUTCOMES, Outcomes, apply_outcomes, read_outcomes, release_of
from errcat.gcpolicy import fewer_collections
from errcat.judging import judge_of, pipeline_of, validation_of
from errcat.model import Catalog, SourceSpec
from extractor import shape, source
from extractor.cache import private_cache
from extractor.errors import ErrcatError, SourceError
from extractor.observe import stage
from extractor.profile import Profile, load_profile
from extractor.result_cache import (
    CATALOG_PACKAGES,
    FLAG_PACKAGES,
    SITES_PACKAGES,
    CacheStats,
    ResultCache,
    catalog_key,
    flags_key,
    pack,
    unpack,
    written_once_key,
)
from extractor.snapshot import Snapshot, SourceKind
from output.unchanged import same_files
from output.writer import (
    Content,
    Spliced,
    as_bytes,
    check_replaceable,
    dumps,
    encoded_chunks,
    with_manifest,
    write_atomically,
)

if TYPE_CHECKING:  # the analysis modules load when a catalog is built: a cached run never needs them
    from analyzers.entries import Entry
    from analyzers.example_check import ExampleJudge
    from analyzers.flags import FlagModel
    from analyzers.trigger import Renderer
    from extractor.callers import EntryPoints
    from extractor.records import Adjustment, FileSites



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


def extract_sites(
    snapshot: Snapshot, profile: Profile, paths: Sequence[str], *,
    callers: Sequence[FileSites] | None = None, cache: ResultCache | None = None, jobs: int | None = 1,
) -> list[FileSites]:
    """Per-file extraction (cached by blob id in `cache`; misses over `jobs` processes,
    None = CPU count), then cross-file caller guards (`callers`: `caller_files` of `paths`,
    read here when not given)."""
    from extractor.incremental import extract_files
    from extractor.inline import helper_paths, inline_helpers

    with stage("sites"):
        files = extract_files(snapshot, profile, paths, cache=cache, jobs=jobs)
        extra = helper_files(snapshot, profile, files, cache=cache, jobs=jobs)
        if callers is None:
            callers = caller_files(snapshot, profile, paths, cache=cache, jobs=jobs)
        # what a ``try`` block raises is what its callees raise: the files defining them are
        # read too, for their raise sites (`CallGraph.try_raises`)
        tried = {c.callee for fs in files for c in fs.calls if c.try_line and not c.ref}
        have = {fs.path for fs in callers}
        more = [p for p in helper_paths(files, tried, snapshot.blobs) if p not in have]
        callers = [*callers, *(extract_files(snapshot, profile, more, cache=cache, jobs=jobs) if more else [])]
    with stage("callers"):
        return inline_helpers(_guarded(snapshot, profile, files, callers, cache=cache), extra)


def helper_files(snapshot: Snapshot, profile: Profile, files: Sequence[FileSites], *,
                 cache: ResultCache | None = None, jobs: int | None = 1) -> list[FileSites]:
    """The files read only for the config helpers `files` import (and the helpers those call)."""
    from extractor.incremental import extract_files
    from extractor.inline import helper_paths, wanted

    extra: list[FileSites] = []
    for _ in range(2):  # their helpers may call helpers of yet another file
        more = helper_paths([*files, *extra], wanted([*files, *extra]), snapshot.blobs)
        if not more:
            break
        extra += extract_files(snapshot, profile, more, cache=cache, jobs=jobs)
    return extra


def _guarded(snapshot: Snapshot, profile: Profile, files: Sequence[FileSites], callers: Sequence[FileSites], *,
             cache: ResultCache | None) -> list[FileSites]:
    """`files` with their callers' guards (`extractor.callers.with_caller_guards`)."""
    from extractor.callers import with_caller_guards, written_once
    from extractor.enum_self import Texts
    from extractor.source_set import SourceSet

    sources = SourceSet(Texts(snapshot.blobs, lambda p: snapshot.texts([p])[0].get(p)))
    once_in = partial(_written_once, cache.sibling(profile, SITES_PACKAGES, CacheStats()), snapshot.blobs) \
        if cache is not None else written_once
    return with_caller_guards(files, callers, sources=sources, configs=profile.config_params, once_in=once_in)


def _written_once(cache: ResultCache, blobs: Mapping[str, str], names: Collection[str],
                  texts: Mapping[str, str]) -> set[str]:
    """`extractor.callers.written_once`, kept while the program's Python files and the names
    are unchanged (it reads every file: a quarter of a warm 0.5.18 run, measured 2026-12-04)."""
    from extractor.callers import written_once

    return cache.memo("written-once", written_once_key(names, blobs), lambda: written_once(names, texts),
                      dump=sorted, load=lambda data: set(shape.texts(data)))


def caller_files(
    snapshot: Snapshot, profile: Profile, paths: Sequence[str], *,
    cache: ResultCache | None = None, jobs: int | None = 1,
) -> list[FileSites]:
    """The profile's `config.callers` files outside `paths`, read for their calls only."""
    from extractor.incremental import extract_files

    have = set(paths)
    more = [p for p in snapshot.glob(profile.callers) if p not in have] if profile.callers else []
    return extract_files(snapshot, profile, more, cache=cache, jobs=jobs) if more else []


def outside_files(snapshot: Snapshot, profile: Profile, files: Sequence[FileSites], *,
                  cache: ResultCache | None = None, jobs: int | None = 1) -> list[FileSites]:
    """The files outside `files` a launch reaches through their calls (`extractor.reach_files`),
    read a call level at a time (only files reached are parsed); the profile's `config.exclude`
    never. None without entry points (nothing is reached)."""
    from extractor.globs import match_any
    from extractor.incremental import extract_files
    from extractor.reach_files import MAX_ROUNDS, ModuleIndex, called_modules

    points = entry_points(profile)
    if not points.functions and not points.methods and not points.named:
        return []
    excluded = list(profile.exclude)
    index = ModuleIndex(p for p in snapshot.blobs if not match_any(p, excluded))
    found: list[FileSites] = []
    for _ in range(MAX_ROUNDS):
        more = sorted(called_modules([*files, *found], points, index))
        if not more:
            break
        found += extract_files(snapshot, profile, more, cache=cache, jobs=jobs)
    return found


def with_outside(
    snapshot: Snapshot, profile: Profile, files: Sequence[FileSites], callers: Sequence[FileSites],
    reach: dict[tuple[str, str], str] | None, order: dict[tuple[str, str, int], int], *,
    cache: ResultCache | None = None, jobs: int | None = 1,
) -> tuple[list[FileSites], dict[tuple[str, str], str] | None, dict[tuple[str, str, int], int]]:
    """`files` (the targets, guarded), `reach` and `order` (`launch_paths` of them) with the
    files outside the targets a launch reaches (`callers` and `outside_files`): their sites in
    reached functions, guarded by their callers, reached and ordered by the call graph of every
    file. The targets keep what their own call graph says (`extractor.reach_files`)."""
    if reach is None:
        return list(files), reach, order
    from extractor.inline import helper_calls_inlined
    from extractor.reach_files import merged_order, reached_sites

    with stage("sites"):
        outside = [*callers, *outside_files(snapshot, profile, [*files, *callers], cache=cache, jobs=jobs)]
    if not outside:
        return list(files), reach, order
    with stage("callers"):  # the helpers their callers' guards call read as what they return, as in the targets
        helpers = [*files, *helper_files(snapshot, profile, [*files, *outside], cache=cache, jobs=jobs)]
        guarded = helper_calls_inlined(_guarded(snapshot, profile, outside, files, cache=cache), helpers)
    wide_reach, wide_order = launch_paths(profile, [*files, *outside], ())
    paths = {fs.path for fs in outside}
    reach = {**reach, **{k: v for k, v in (wide_reach or {}).items() if k[0] in paths}}
    return ([*files, *reached_sites(guarded, frozenset(), reach)], reach,
            merged_order(order, wide_order, paths))


def entry_points(profile: Profile) -> EntryPoints:
    """What the launcher runs (`extractor.callers.reachability`): every `real.validate` range's
    steps (a union: any release's launcher may be the one), the profile's `config.entry_points`."""
    from extractor.callers import EntryPoints

    functions: list[tuple[str, str]] = []
    methods: list[str] = []
    for validation in profile.real.validate if profile.real is not None else ():
        module = validation.module.replace(".", "/") + ".py"
        for step in validation.steps:
            if step.kind == "call":
                functions.append((module, step.name))
            else:
                methods.append(step.name)
    return EntryPoints(functions=tuple(functions), methods=tuple(methods), named=profile.entry_points,
                       config_classes=profile.config_classes, views=profile.views,
                       override_runners=profile.override_runners, after=profile.after_validation)


def launch_paths(
    profile: Profile, files: Sequence[FileSites], callers: Sequence[FileSites],
) -> tuple[dict[tuple[str, str], str] | None, dict[tuple[str, str, int], int]]:
    """Per function of `files`: can a launch reach it (`extractor.callers.reachability`; None
    when the profile names no entry point: nothing is decided); per check and assignment
    (path, function, line): when a launch runs it (`extractor.program_order`); from one
    call graph (`callers`: `caller_files` of `files`)."""
    points = entry_points(profile)
    if not points.functions and not points.methods and not points.named:
        return None, {}
    from extractor.callers import CallEdges, reachability
    from extractor.program_order import program_order

    with stage("callers"):
        graph = CallEdges(files, callers)
        return (reachability(files, callers, entry=points, graph=graph),
                program_order(files, callers, entry=points, graph=graph).time)


@fewer_collections()  # millions of objects alive, few cycles: see errcat.gcpolicy
def build_catalog(
    snapshot: Snapshot, profile: Profile, *, cache: ResultCache | None = None, jobs: int | None = 1,
    overlay: Mapping[str, Any] | None = None, outcomes: Outcomes = NO_OUTCOMES,
) -> Catalog:
    """Sites -> entries with advice (meaning, solutions, example fix with its predicted outcome, related);
    `overlay` (`analyzers.overlay.load_overlay`) adds curated text, stale items flagged;
    `outcomes` (`errcat confirm`'s) say which examples the real program confirmed."""
    targets = snapshot.glob(profile.targets)
    if not targets:
        raise SourceError(
            f"no target files at {snapshot.ref}: nothing matches {', '.join(profile.targets)}"
        )
    with stage("sites"):  # the dispatchers' files: their guards (`extract_sites`) and the call graph
        callers = caller_files(snapshot, profile, targets, cache=cache, jobs=jobs)
    files = extract_sites(snapshot, profile, targets, callers=callers, cache=cache, jobs=jobs)
    reach, order = launch_paths(profile, files, callers)
    files, reach, order = with_outside(snapshot, profile, files, callers, reach, order, cache=cache, jobs=jobs)
    with stage("flags"):
        flags = build_flags(snapshot, profile, cache=cache)
    diagnostics = _diagnostics(snapshot, files, flags)
    with stage("entries"):
        files, adjustments, entries = _entries(snapshot, profile, files, reach=reach, order=order, flags=flags,
                                               targets=frozenset(targets))
    release = release_of(snapshot.provenance(), profile)
    incomplete = tuple(sorted((fs.path, fs.incomplete) for fs in files if fs.incomplete is not None))
    from extractor.inline import called_functions

    built = Catalog(snapshot=snapshot, profile=profile, targets=tuple(targets), entries=tuple(entries),
                    diagnostics=tuple(diagnostics), flags=flags, adjustments=adjustments, incomplete=incomplete,
                    adjustment_order=tuple(order.get((a.path, a.function, a.line)) for a in adjustments),
                    functions=called_functions(files))
    docstrings = {(fs.path, q): line for fs in files for q, line in fs.docstrings}
    advised = advised_catalog(built, release, docstrings=docstrings, overlay=overlay or {}, outcomes=outcomes,
                              cache=cache)
    from analyzers.crash_entries import reached

    kept, unreached = reached(advised.entries)  # crash candidates no command reaches: counted only
    return replace(advised, entries=tuple(kept), unreached_crashes=unreached)


def _diagnostics(snapshot: Snapshot, files: Sequence[FileSites], flags: FlagModel | None) -> list[str]:
    """What the source left out (symlinks), what the sites say, parse errors, then the flag
    model's diagnostics of the files the sites did analyse (the others are said once, by them)."""
    diagnostics = list(snapshot.diagnostics)
    diagnostics += [d for fs in files for d in fs.diagnostics]
    diagnostics += [f"parse error: {fs.parse_error}" for fs in files if fs.parse_error]
    if flags is not None:
        not_analysed = {fs.path for fs in files if fs.incomplete is not None}
        diagnostics += [f"flags: {d}" for d in flags.diagnostics if d.path not in not_analysed]
    return diagnostics


def _entries(snapshot: Snapshot, profile: Profile, files: list[FileSites], *,
             reach: dict[tuple[str, str], str] | None, order: dict[tuple[str, str, int], int],
             flags: FlagModel | None,
             targets: frozenset[str]) -> tuple[list[FileSites], tuple[Adjustment, ...], list[Entry]]:
    """The entries of the sites (with the files as the flag model names their settings) and
    the adjustments they read; `targets`: the profile's target files (others' entries are
    `outside_targets`)."""
    from analyzers.entries import build_entries
    from analyzers.trigger import Renderer

    if flags is not None:  # one name per setting: `args.tensor_parallel_size` is `tp_size`
        files, reach = _with_flag_names(files, reach, flags)
    sites = [s for fs in files for s in fs.sites]
    renderer = Renderer.for_model(flags)
    adjustments = tuple(a for fs in files for a in fs.adjustments)
    implied = _implied(adjustments, renderer)
    params = {(fs.path, q): names for fs in files for q, names in fs.params}
    entries = build_entries(sites, lines_of=_line_reader(snapshot), permalink=partial(_permalink, snapshot, profile),
                            renderer=renderer, implied=implied, reach=reach, order=order,
                            contracts=profile.contracts, params=params,
                            targets=frozenset(targets), program=profile.name)
    return files, adjustments, entries


def _line_reader(snapshot: Snapshot) -> Callable[[str], list[str]]:
    """A file's lines (with their ends), read once."""
    lines: dict[str, list[str]] = {}

    def lines_of(path: str) -> list[str]:
        if path not in lines:
            lines[path] = snapshot.text(path).splitlines(keepends=True)
        return lines[path]
    return lines_of


def _permalink(snapshot: Snapshot, profile: Profile, path: str, line: int) -> str:
    if snapshot.kind == SourceKind.DIRECTORY:  # no commit to pin to: the local file
        return f"{(Path(snapshot.ref).expanduser().absolute() / path).as_uri()}#L{line}"
    return profile.permalink(snapshot.commit or profile.tag(snapshot.ref), path, line)


def _with_flag_names(files: Sequence[FileSites], reach: dict[tuple[str, str], str] | None,
                     flags: FlagModel) -> tuple[list[FileSites], dict[tuple[str, str], str] | None]:
    """The sites with one name per setting, and argparse actions' calls bound and reached."""
    from analyzers.actions import action_options, bind_action_calls, reach_action_calls

    actions = action_options(flags)
    return ([bind_action_calls(flags.with_field_names(fs), actions) for fs in files],
            reach_action_calls(reach, actions))


def _implied(adjustments: Sequence[Adjustment], renderer: Renderer) -> dict[str, list[str]]:
    """Per flag an adjustment sets, the flags whose settings imply it."""
    from analyzers.adjustments import implications

    implied: dict[str, list[str]] = {}
    for imp in implications(adjustments, renderer):
        implied.setdefault(imp.target, []).append(imp.source)
    return implied


def advised_catalog(
    built: Catalog, release: str | None, *, docstrings: Mapping[tuple[str, str], str],
    overlay: Mapping[str, Any], outcomes: Outcomes = NO_OUTCOMES, cache: ResultCache | None = None,
) -> Catalog:
    """`built` (its entries as `build_entries` made them) with advice, the overlay, judged
    examples and `outcomes`; with `cache`, the advice, overlay and verdicts are reused where
    the same records were advised before (the same entries at another commit: only links differ)."""
    from extractor.value_digest import value_digest

    def advise() -> tuple[list[Entry], list[str]]:
        with stage("advice"):
            from analyzers.advice import complete_entries
            from analyzers.overlay import apply_overlay

            entries = complete_entries(built.entries, flags=built.flags, adjustments=built.adjustments,
                                       renderer=built.renderer, launch_prefix=built.profile.launch,
                                       docstrings=docstrings, examples=built.profile.examples,
                                       program=built.profile.name, order=built.adjustment_order,
                                       platform_settings=built.profile.platform_settings,
                                       functions=built.functions)
            entries, notes = apply_overlay(entries, overlay)
        with stage("examples"):
            judge = example_judge(replace(built, entries=tuple(entries), diagnostics=built.diagnostics + tuple(notes)),
                                  release)
            if judge is not None:
                from analyzers.example_check import judge_examples
                from analyzers.solution_check import check_solutions

                entries = check_solutions(judge_examples(entries, judge), judge)
                judges.append(judge)
        return entries, notes

    judges: list[ExampleJudge] = []
    with stage("advice"):  # the key: everything advice and judge read but the links (and the profile
        # and code: in the cache's fingerprint)
        key = value_digest(_unlinked(built.entries), built.flags, built.adjustments,
                           built.adjustment_order, built.functions, built.targets, built.diagnostics,
                           built.incomplete, docstrings, overlay, release) if cache is not None else None
    if cache is None or key is None:
        entries, notes = advise()
    else:
        from analyzers.advised import advised_fields, with_advised

        entries, notes = _records_cache(cache, built.profile).memo(
            "advice", key, advise,
            dump=lambda value: {"entries": [advised_fields(e) for e in value[0]], "notes": value[1]},
            load=lambda data: (with_advised(built.entries, data["entries"]), list(shape.texts(data["notes"]))))
    catalog = replace(built, entries=tuple(entries), diagnostics=built.diagnostics + tuple(notes))
    judge = judges[0] if judges else None
    if judge is None and _outcomes_for(outcomes, release):  # advised from the cache: the judge's word
        judge = example_judge(catalog, release)  # on the pairs the real program found
    named = {e.id: e.site.called for e in catalog.entries}
    entries = apply_outcomes(catalog.entries, outcomes, version=release,
                             predict=judge.predicted if judge is not None else None,
                             prefix=built.profile.launch, named=named,
                             runs=judge.runs_here if judge is not None else None)
    return replace(catalog, entries=tuple(entries))


def _unlinked(entries: Sequence[Entry]) -> list[Entry]:
    """`entries` without their links: the one part of an entry that names the commit."""
    return [replace(e, url="") for e in entries]


def _records_cache(cache: ResultCache, profile: Profile) -> ResultCache:
    """Where what a catalog's records give (advice, the flag graph) is kept by their content;
    counted apart from the per-file results (a history's figures count files)."""
    return cache.sibling(profile, CATALOG_PACKAGES, CacheStats())


def example_judge(catalog: Catalog, release: str | None) -> ExampleJudge | None:
    """What judges `catalog`'s examples by the whole pipeline on the machine `errcat confirm`
    runs on (`analyzers.example_check`); None where the profile cannot run its release (no
    `real:` section, no validation steps for it, no release): the examples stay as they are."""
    real = catalog.profile.real
    platform = real.here() if real is not None else None
    if platform is None or validation_of(catalog.profile, release) is None:
        return None  # before `as_dict`: the whole catalog's data is most of a large run's memory
    return judge_of(catalog.as_dict(), catalog.profile, release=release, platform=platform,
                    named={e.id: e.site.called for e in catalog.entries})


def build_flags(snapshot: Snapshot, profile: Profile, *, cache: ResultCache | None = None) -> FlagModel | None:
    """The flag/env model from the profile's declaration files (None: the profile names none);
    with `cache`, reused while those files and the analysis are unchanged."""
    paths = snapshot.glob([*profile.flag_globs, *profile.env_globs])
    if not paths:
        return None
    from analyzers.flag_build import build_flag_model
    from analyzers.flag_decls import Conventions

    conventions = Conventions.from_mapping(dict(profile.conventions))

    def build() -> FlagModel:
        from dataclasses import replace

        from extractor.source_set import Diagnostic

        texts, refused = snapshot.texts(paths)
        model = build_flag_model(texts, config_classes=profile.config_classes, conventions=conventions)
        unread = tuple(Diagnostic(exc.path, exc.line, f"cannot read: {exc.reason}") for exc in refused)
        return replace(model, diagnostics=model.diagnostics + unread) if unread else model

    if cache is None:
        return build()
    from analyzers.flags import FlagModel

    return cache.sibling(profile, FLAG_PACKAGES).memo("flags", flags_key(snapshot, paths), build,
                                                      dump=FlagModel.as_dict, load=FlagModel.from_dict)


@fewer_collections()
def render_catalog(
    catalog: Catalog, formats: Sequence[str] = ("json",), cache: ResultCache | None = None,
) -> dict[str, Content]:
    """Every output file, keyed by path relative to the output directory; `formats`
    (`output.formats.FORMATS`) picks catalog.json + entries/ (and explain-index.json), catalog.yaml,
    md/; with `cache`, the flag graph is reused where the same entries, flags and adjustments
    were drawn before."""
    with stage("render"):
        from analyzers.explain import targets_of
        from analyzers.first_error import pipeline_fields
        from output.catalog_stamp import stamp
        from output.explain_index import NAME, index_text
        from output.formats import render_extra
        from output.judge_file import NAME as JUDGE

        files: dict[str, Content] = {}
        if "json" in formats:
            # One entry's dict at a time: all of them at once are most of a large catalog's memory.
            texts: list[str] = []
            targets = []
            checks = []  # what the compiled judge reads of each entry
            for entry in catalog.entries:
                data = entry.as_dict()
                text = dumps(data)
                files[f"entries/{entry.id}.json"] = text
                texts.append(text)
                targets += targets_of(data)
                checks.append(pipeline_fields(data))
            head = catalog.as_dict(entries=False)
            files["catalog.json"] = _with_entries(head, texts)
            release = release_of(head.get("source") or {}, catalog.profile)
            stamped = stamp(encoded_chunks(files["catalog.json"]))
            files[NAME] = index_text(targets, release, stamped)
            judge = compiled_judge({**head, "entries": checks}, catalog.profile, release, stamped)
            if judge is not None:
                files[JUDGE] = judge
        if any(f != "json" for f in formats):
            files.update(render_extra(catalog.as_dict(), formats))
        files["graph.json"], files["graph.graphml"] = _graph_files(catalog, cache)
        return files


def compiled_judge(data: Mapping[str, Any], profile: Profile, release: str | None,
                   stamped: Mapping[str, Any]) -> str | None:
    """judge.json of a catalog (`data`: its head and each entry's `pipeline_fields`; `stamped`:
    its catalog.json's stamp): the pipeline `errcat check` would build, compiled; None where
    the profile cannot run `release`."""
    pipeline = pipeline_of(data, profile, release=release)
    if pipeline is None:
        return None
    from analyzers.judge_data import pipeline_data
    from output.judge_file import judge_key, judge_text

    return judge_text(pipeline_data(pipeline), release, judge_key(profile), stamped)


def _graph_files(catalog: Catalog, cache: ResultCache | None) -> tuple[str, str]:
    """graph.json and graph.graphml of `catalog`: the graph reads its entries (but their links),
    flags and adjustments, and decides flag relations by the witness search (a costly part)."""

    def draw() -> tuple[str, str]:
        from analyzers.graph import build_graph, graph_graphml, graph_json  # networkx: only when drawing

        graph = build_graph(catalog.entries, catalog.renderer, flags=catalog.flags, adjustments=catalog.adjustments)
        return dumps(graph_json(graph)), graph_graphml(graph)

    if cache is None:
        return draw()
    from extractor.value_digest import value_digest

    key = value_digest(_unlinked(catalog.entries), catalog.flags, catalog.adjustments)
    if key is None:
        return draw()
    return _records_cache(cache, catalog.profile).memo(
        "graph", key, draw, dump=list, load=lambda data: (shape.text(data[0]), shape.text(data[1])))


def _with_entries(data: dict[str, Any], texts: Sequence[str]) -> Content:
    """`dumps(data)`, its entries spliced in from their files' `texts` when written (the
    same bytes: each entry is encoded once and held once; JSON strings hold no raw newline
    to shift)."""
    if not texts:
        return dumps(data)
    import json
    import secrets

    marker = f"\0entries {secrets.token_hex(16)}\0"  # no catalog string can be it
    before, after = dumps({**data, "entries": [marker]}).split(json.dumps(marker, ensure_ascii=False), 1)
    return Spliced(before, tuple(texts), after)


def extract(
    spec: SourceSpec,
    *,
    profile: str = "sglang",
    out: str | os.PathLike[str] = "catalog",
    cache_dir: str | os.PathLike[str] | None = None,
    jobs: int | None = 1,
    use_cache: bool = True,
    formats: Sequence[str] = ("json",),
    overlay: str | os.PathLike[str] | None = None,
) -> Catalog:
    """Read the source, build the catalog, write it atomically (see also `write_catalog`)."""
    from analyzers.overlay import load_overlay

    items = load_overlay(os.fspath(overlay)) if overlay is not None else None
    prof = load_profile(profile)
    check_replaceable(Path(out), _marker(out, formats))  # before the work, not after it
    with private_cache(cache_dir, use_cache) as (cache_at, use_results):
        snapshot = open_source(spec, prof, cache_dir=cache_at)
        cache = ResultCache.open(prof, cache_at) if use_results else None
        catalog = build_catalog(snapshot, prof, cache=cache, jobs=jobs, overlay=items, outcomes=_outcomes_in(out))
        write_atomically(Path(out), lambda: render_catalog(catalog, formats, cache), marker=_marker(out, formats))
    return catalog


def _outcomes_in(out: str | os.PathLike[str]) -> Outcomes:
    """`errcat confirm`'s outcomes kept beside the catalog in `out` (merged into what is written)."""
    try:
        return read_outcomes(os.fspath(out))
    except ValueError as exc:
        raise ErrcatError(f"{exc}; move it away to extract without it") from None


def _marker(out: str | os.PathLike[str], formats: Sequence[str]) -> str:
    """The file that shows `out` is an earlier errcat output (whatever formats it had)."""
    from output.formats import MARKERS

    names = [MARKERS[f] for f in formats] + sorted(set(MARKERS.values()))
    return next((n for n in names if (Path(out) / n).is_file()), names[0])


# ------------------------------------------------------------------ cached extraction


@dataclass(frozen=True, slots=True)
class Extracted:
    """What `write_catalog` wrote: the summary `errcat extract` prints."""

    repo: str
    pin: str
    stats: dict[str, int]
    diagnostics: tuple[str, ...]
    out: Path
    cached: bool  # the files came from the catalog cache
    written: bool  # False: `out` held exactly these files already, nothing was rewritten
    # (path, reason) of the targets that could not be analysed (`Catalog.incomplete`):
    # the catalog was written but lacks their errors
    incomplete: tuple[tuple[str, str], ...] = ()


def _summary(catalog: Catalog) -> dict[str, Any]:
    summary: dict[str, Any] = {"repo": catalog.profile.repo, "pin": catalog.snapshot.pin, "stats": catalog.stats(),
               "diagnostics": list(catalog.diagnostics)}
    if catalog.incomplete:  # never cached: a stored summary has the four keys above
        summary["incomplete"] = [list(i) for i in catalog.incomplete]
    return summary


# Rendered catalogs larger than this are not stored whole: packing takes two more copies
# of the output in memory (sglang's: ~15 MB; a generated 100k-line file's: 600 MB).
PACK_LIMIT = 256 << 20


def catalog_files(
    snapshot: Snapshot, profile: Profile, *, cache_dir: str | os.PathLike[str] | None = None,
    jobs: int | None = 1, use_cache: bool = True, formats: Sequence[str] = ("json",),
    overlay: str | os.PathLike[str] | None = None, outcomes: Outcomes = NO_OUTCOMES,
) -> tuple[dict[str, Content], dict[str, Any], bool]:
    """`render_catalog(build_catalog(...))` plus its summary; from the catalog cache when
    this errcat rendered the same sources before (key: `result_cache.catalog_key`)."""
    from analyzers.overlay import load_overlay

    items = load_overlay(os.fspath(overlay)) if overlay is not None else None
    whole = ResultCache.open(profile, cache_dir, CATALOG_PACKAGES) if use_cache else None
    key = catalog_key(snapshot, profile, formats=formats,
                      overlay=None if overlay is None else Path(overlay).read_bytes(),
                      outcomes=_outcomes_digest(outcomes, snapshot, profile))
    raw = whole.get_bytes("catalog", key) if whole is not None else None
    if raw is not None and (hit := _cached_catalog(raw)) is not None:
        return hit[0], hit[1], True
    sites = ResultCache.open(profile, cache_dir) if use_cache else None
    catalog = build_catalog(snapshot, profile, cache=sites, jobs=jobs, overlay=items, outcomes=outcomes)
    files = render_catalog(catalog, formats, sites)
    summary = _summary(catalog)
    if whole is not None and not catalog.incomplete:  # a failure of this run (memory ...) is not kept
        with stage("write"):
            if sum(len(v) for v in files.values()) <= PACK_LIMIT:
                encoded = {k: as_bytes(v) for k, v in files.items()}
                whole.put_bytes("catalog", key, pack(encoded, summary))
            else:
                whole.stats.uncacheable += 1
    return files, summary, False


def _outcomes_digest(outcomes: Outcomes, snapshot: Snapshot, profile: Profile) -> str | None:
    """The digest of the confirmed outcomes that apply to `snapshot`'s release (None: none do)."""
    version = release_of(snapshot.provenance(), profile)
    return outcomes.digest(version) if version is not None and _outcomes_for(outcomes, version) else None


def _outcomes_for(outcomes: Outcomes, version: str | None) -> bool:
    """Do any of the confirmed `outcomes` apply to release `version`?"""
    return version is not None and any(k[2] == version for k in outcomes.by_key)


def _cached_catalog(raw: bytes) -> tuple[dict[str, Content], dict[str, Any]] | None:
    """A stored catalog pack and its summary, or None (a miss: build it again) when
    it is not one of the shape `catalog_files` stores, e.g. a file name that is not
    a plain relative path (it would be written outside the output directory)."""
    try:
        packed, meta = unpack(raw)
        if not isinstance(meta, dict) or meta.keys() != {"repo", "pin", "stats", "diagnostics"}:
            return None
        if not isinstance(meta["stats"], dict):
            return None
        summary = {"repo": shape.text(meta["repo"]), "pin": shape.text(meta["pin"]),
                   "stats": {k: shape.integer(v) for k, v in meta["stats"].items()},
                   "diagnostics": list(shape.texts(meta["diagnostics"]))}
    except (ValueError, RecursionError):  # shape.ShapeError and json errors are ValueErrors
        return None
    files: dict[str, Content] = dict(packed)
    return files, summary


def catalog_data(spec: SourceSpec, profile: Profile, *, cache_dir: str | os.PathLike[str] | None = None,
                 jobs: int | None = 1, use_cache: bool = True, name: str = "catalog.json") -> dict[str, Any]:
    """The catalog of `spec` as its `catalog.json` (or another JSON file of it, `name`) holds it
    (`errcat check`): from the catalog cache where errcat rendered these sources before, else
    extracted (and cached)."""
    import json

    with private_cache(cache_dir, use_cache) as (cache_at, use_results):
        snapshot = open_source(spec, profile, cache_dir=cache_at)
        files, _, _ = catalog_files(snapshot, profile, cache_dir=cache_at, jobs=jobs, use_cache=use_results)
    data: dict[str, Any] = json.loads(as_bytes(files[name]))
    return data


@fewer_collections()  # writing too: its first collections would walk the whole catalog
def write_catalog(
    spec: SourceSpec,
    *,
    profile: str = "sglang",
    out: str | os.PathLike[str] = "catalog",
    cache_dir: str | os.PathLike[str] | None = None,
    jobs: int | None = 1,
    use_cache: bool = True,
    formats: Sequence[str] = ("json",),
    overlay: str | os.PathLike[str] | None = None,
) -> Extracted:
    """`errcat extract`: like `extract`, but a re-extraction of unchanged sources only
    copies the cached files (no parse, no render) and returns a summary, not a `Catalog`."""
    prof = load_profile(profile)
    check_replaceable(Path(out), _marker(out, formats))  # before the work, not after it
    with private_cache(cache_dir, use_cache) as (cache_at, use_results):
        snapshot = open_source(spec, prof, cache_dir=cache_at)
        files, summary, cached = catalog_files(snapshot, prof, cache_dir=cache_at, jobs=jobs,
                                               use_cache=use_results, formats=formats, overlay=overlay,
                                               outcomes=_outcomes_in(out))
    with stage("write"):
        written = not same_files(out, with_manifest(files))  # the manifest is part of what we write
        if written:
            write_atomically(Path(out), lambda: files, marker=_marker(out, formats))
    return Extracted(repo=summary["repo"], pin=summary["pin"], stats=dict(summary["stats"]),
                     diagnostics=tuple(summary["diagnostics"]), out=Path(out), cached=cached, written=written,
                     incomplete=tuple((p, r) for p, r in summary.get("incomplete", ())))


# ------------------------------------------------------------------ graph


def graph_of_dir(catalog_dir: str | os.PathLike[str]) -> dict[str, Any]:
    """A catalog directory's ``graph.json``."""
    import json

    path = Path(catalog_dir) / "graph.json"
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ErrcatError(f"{catalog_dir} is not a catalog directory (no graph.json)") from None
    except (OSError, ValueError) as exc:
        raise ErrcatError(f"cannot read {path}: {exc}") from None
    return data


def flag_graph(graph_data: dict[str, Any], option: str, fmt: str = "text", where: object = "this catalog") -> str:
    """`errcat graph [CATALOG] --flag X`: the flag's neighbourhood (in a catalog's
    ``graph.json``, `graph_data`) as text or Graphviz DOT."""
    from analyzers.graph import flag_neighbourhood, load_graph_json
    from output.graph_text import neighbourhood_dot, neighbourhood_text

    try:
        graph = load_graph_json(graph_data)
    except (ValueError, KeyError, TypeError) as exc:
        raise ErrcatError(f"cannot read the graph of {where}: {exc}") from None
    catalog_dir = where
    canonical = _canonical_option(graph, option)
    if canonical is None:
        from analyzers.cli_parser import closest_option

        known = [node.split(":", 1)[1] for node in graph if node.startswith("flag:--")]
        near = closest_option(option if option.startswith("-") else "--" + option.replace("_", "-"), known)
        raise ErrcatError(f"flag {option} is not in the catalog at {catalog_dir}"
                          + (f" (did you mean {near}?)" if near else ""))
    sub = flag_neighbourhood(graph, canonical)
    return neighbourhood_dot(sub, canonical) if fmt == "dot" else neighbourhood_text(sub, canonical)


def _canonical_option(graph: Any, option: str) -> str | None:
    """The node name of `option`, also when it is given as an alias or without dashes."""
    wanted = option if option.startswith("-") else "--" + option.replace("_", "-")
    if f"flag:{wanted}" in graph:
        return wanted
    for node, data in graph.nodes(data=True):
        aliases = [a.strip() for a in str(data.get("aliases", "")).split(",") if a.strip()]
        if node.startswith("flag:") and wanted in aliases:
            return node.split(":", 1)[1]
    return None
