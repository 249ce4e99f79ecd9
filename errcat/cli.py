"""Command line: parse arguments, call one library function, map errors to exit codes
(`errcat.exits`: one table for every verb, shown in ``--help``)."""
from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from errcat import __version__
from errcat.exits import Exit, table
from extractor.cache import CacheWarning
from extractor.errors import ErrcatError

if TYPE_CHECKING:
    from errcat.model import SourceSpec
# The rest is imported where a verb uses it: `explain` and `check` answer in a blink only
# if they load neither the extraction pipeline nor its parsers (issue 38).


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as one line and exit code 2."""

    def error(self, message: str) -> NoReturn:
        raise _UsageError(message)


class _UsageError(Exception):
    pass


class _Formatter(argparse.HelpFormatter):
    """argparse's, but the exit-code table (the epilog) keeps its lines."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith("exit codes:"):
            return "\n".join(indent + line for line in text.splitlines())
        return super()._fill_text(text, width, indent)


def _add_source_args(parser: argparse.ArgumentParser) -> None:
    src = parser.add_argument_group("source (one of; default: the profile's newest release)")
    src.add_argument("--repo", help="git repository: local path or URL (https, ssh, file://)")
    src.add_argument("--commit", help="revision in --repo: full/short SHA, tag or branch (default HEAD)")
    src.add_argument("--release", help="a release on the package index, e.g. 0.5.23")
    src.add_argument("--path", help="a directory (a checkout)")
    parser.add_argument("--profile", default="sglang", help="target profile name or YAML file (default: sglang)")
    parser.add_argument("--cache-dir", help="downloads, mirrors and results (default: $ERRCAT_CACHE_DIR or XDG cache)")


def _spec(args: argparse.Namespace) -> SourceSpec:
    from errcat.model import SourceSpec

    return SourceSpec(repo=args.repo, commit=args.commit, release=args.release, path=args.path)


def _add_cache_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--jobs", type=int, default=None, metavar="N",
                        help="worker processes for files/revisions not in the result cache (default: CPU count)")
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write the result cache")


@contextmanager
def _watched(args: argparse.Namespace) -> Iterator[None]:
    """A catalog built inside shows its files, then its stages, on a terminal (`errcat.progress`)."""
    from errcat.progress import progress_bar, stage_progress
    from extractor.observe import Observer, observing

    bars = progress_bar(sys.stderr, quiet=args.quiet)
    if bars is None:
        yield
        return
    try:
        with observing(Observer(timed=stage_progress(bars), progress=bars)):
            yield
    finally:
        bars.close()  # a phase cut short (a cached catalog runs no stage but writing) ends its line


def _cmd_extract(args: argparse.Namespace) -> int:
    from errcat import pipeline
    from output.formats import parse_formats

    with _watched(args):
        done = pipeline.write_catalog(_spec(args), profile=args.profile, out=args.out, cache_dir=args.cache_dir,
                                      jobs=args.jobs, use_cache=not args.no_cache,
                                      formats=parse_formats(args.format), overlay=args.overlay)
    stats = done.stats
    print(
        f"{done.repo}@{done.pin}: {stats['entries']} entries "
        f"({stats['raise']} raise, {stats['assert']} assert, {stats['variants']} variants) "
        f"from {stats['files']} files -> {args.out}"
    )
    for line in done.diagnostics:
        print(f"note: {line}", file=sys.stderr)
    if done.incomplete:
        listed = ", ".join(f"{path} ({reason})" for path, reason in done.incomplete)
        print(f"errcat: catalog incomplete: {len(done.incomplete)} file(s) could not be analysed: {listed}",
              file=sys.stderr)
        return Exit.PARTIAL
    return Exit.OK


def _write_text(text: str, out: str | None) -> None:
    if out is None:
        sys.stdout.write(text)
    else:
        Path(out).write_text(text, encoding="utf-8")


def _cmd_diff(args: argparse.Namespace) -> int:
    from analyzers.diff import parse_kinds
    from errcat.model import SourceSpec
    from errcat.versions import diff, parse_side
    from output.diff_formats import render_diff

    try:
        fail_on = parse_kinds(args.fail_on) if args.fail_on else frozenset()
    except ValueError as exc:
        raise ErrcatError(f"--fail-on: {exc}") from None
    if args.commit and not args.repo:
        raise ErrcatError("--commit needs --repo")
    sides = [parse_side(s, repo=args.repo) for s in args.sides]
    sides += [SourceSpec(release=v) for v in args.release]
    sides += [SourceSpec(repo=args.repo, commit=c) for c in args.commit]
    if len(sides) != 2:
        raise ErrcatError(f"diff needs two sides (OLD NEW), got {len(sides)}")
    with _watched(args):
        result = diff(sides[0], sides[1], profile=args.profile, cache_dir=args.cache_dir, jobs=args.jobs,
                      use_cache=not args.no_cache)
    _write_text(render_diff(result, args.format), args.out)
    return Exit.NO if result.kinds() & fail_on else Exit.OK


def _cmd_history(args: argparse.Namespace) -> int:
    from errcat.progress import progress_bar
    from errcat.versions import history
    from output.diff_formats import render_history

    if args.revs and not args.repo:
        raise ErrcatError("--revs needs --repo")
    result = history(repo=args.repo, revs=args.revs, releases=args.releases, profile=args.profile,
                     cache_dir=args.cache_dir, jobs=args.jobs, use_cache=not args.no_cache,
                     progress=progress_bar(sys.stderr, quiet=args.quiet))
    _write_text(render_history(result, args.format), args.out)
    return Exit.OK


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="errcat", description="Turn a project's validation code into an error catalog.",
                     epilog=table(), formatter_class=_Formatter)
    parser.add_argument("--version", action="version", version=f"errcat {__version__}")
    parser.add_argument("--quiet", "-q", action="store_true", help=_QUIET)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    extract = sub.add_parser("extract", help="extract a catalog from a source")
    _add_source_args(extract)
    extract.add_argument("--out", default="catalog", help="output directory (default: ./catalog)")
    extract.add_argument("--format", default="json", metavar="FMT,...",
                         help="json (catalog.json + entries/, the contract), yaml (catalog.yaml), "
                              "md (md/: a page per entry, indexes by file and flag); comma-separated (default: json)")
    extract.add_argument("--overlay", metavar="FILE",
                         help="YAML of curated meaning/solutions/notes keyed by entry id (stale items are flagged)")
    _add_cache_args(extract)
    extract.set_defaults(func=_cmd_extract)
    _add_diff_parser(sub)
    _add_history_parser(sub)
    _add_graph_parser(sub)
    _add_confirm_parser(sub)
    _add_check_parser(sub)
    _add_explain_parser(sub)
    _add_site_parser(sub)
    _add_gaps_parser(sub)
    for name, command in sub.choices.items():  # also after the command; SUPPRESS: not given there keeps the global
        command.add_argument("--quiet", "-q", action="store_true", default=argparse.SUPPRESS, help=_QUIET)
        command.epilog, command.formatter_class = table(name), _Formatter
    return parser


# Progress shows on a terminal only (stderr), never in logs or pipes.
_QUIET = "no progress display (it shows only when stderr is a terminal)"


def _cmd_site(args: argparse.Namespace) -> int:
    from errcat.progress import progress_bar
    from errcat.site import build_site

    bars = progress_bar(sys.stderr, quiet=args.quiet)
    try:
        built = build_site(args.catalogs, args.out, profile=args.profile, title=args.title, base_url=args.base_url,
                           progress=bars)
    finally:
        if bars is not None:
            bars.close()
    print(built.line())
    return Exit.OK


def _add_site_parser(sub: Any) -> None:
    site = sub.add_parser("site", help="the catalogs as a static website (pages, search, flag graphs, JSON API)",
                          description=_SITE_DESCRIPTION)
    site.add_argument("catalogs", nargs="+", metavar="CATALOG_DIR", help="catalog directories written by extract")
    site.add_argument("--out", required=True, metavar="SITE", help="the site directory (replaced whole)")
    for option, text in (("--base-url", "where the site will be served: pages get a canonical link"),
                         ("--title", "the site's title (default: '<repo> error catalog')"),
                         ("--profile", "target profile name or YAML file (default: sglang)")):
        site.add_argument(option, help=text, **({"default": "sglang"} if option == "--profile" else {}))
    site.set_defaults(func=_cmd_site)


_SITE_DESCRIPTION = ("Builds a static website from one or more catalog directories (one per release; the newest is the "
                 "default view): a page per entry, per flag (with its neighbourhood in the dependency graph as SVG) "
                 "and per version step, an offline search with explain's matching, and a JSON API under api/. "
                 "Works from file:// and any static host; written atomically.")


def _cmd_confirm(args: argparse.Namespace) -> int:
    from errcat.progress import progress_bar
    from errcat.real.confirm import confirm, write_results

    if args.jobs is not None and args.jobs < 1:
        raise ErrcatError("--jobs must be at least 1")
    if args.timeout <= 0:
        raise ErrcatError("--timeout must be positive")
    only = [i.strip() for part in args.only for i in part.split(",") if i.strip()]
    run = confirm(args.catalog, args.python, jobs=args.jobs, only=only, timeout=args.timeout,
                  repair=not args.no_repair, progress=progress_bar(sys.stderr, quiet=args.quiet), record=args.record)
    summary = write_results(run)
    print(summary)
    return Exit.OK


def _add_confirm_parser(sub: Any) -> None:
    confirm = sub.add_parser(
        "confirm", help="run every example through the real program's own validation",
        description="Runs each example's before/after command through the target's argument validation in "
                    "--python (a virtualenv where the catalog's release is installed: scripts/target_env.py), "
                    "writes confirm.json and confirm.md beside the catalog; extract merges them.")
    confirm.add_argument("catalog", metavar="CATALOG_DIR", help="a catalog directory written by errcat extract")
    confirm.add_argument("--python", required=True, metavar="PY", help="the target's interpreter")
    confirm.add_argument("--jobs", type=int, default=None, metavar="N", help="worker interpreters (default: 2)")
    confirm.add_argument("--only", action="append", default=[], metavar="ID,...", help="only these entries")
    confirm.add_argument("--timeout", type=float, default=60.0, metavar="S", help="seconds per launch (default 60)")
    confirm.add_argument("--no-repair", action="store_true",
                         help="do not search for a working example where one is refuted")
    confirm.add_argument("--record", metavar="FILE", help="also write every launch and its real outcome (JSON lines)")
    confirm.set_defaults(func=_cmd_confirm)



def _cmd_check(args: argparse.Namespace) -> int:
    import json
    import os

    from errcat.check import Request, check_catalog, on_this_machine, refuse_other_programs, split_words
    from extractor.profile import load_profile
    from output.check_text import check_text, releases_summary

    profile = load_profile(args.profile)
    refuse_other_programs(split_words(args.words), profile.launch)  # before any catalog is loaded
    request = Request(tuple(args.words), args.platform, tuple(args.env), args.model_config, args.architecture)
    request = on_this_machine(request, profile)  # once, whatever the releases
    reports, statuses = [], []
    for load in _checkers(args, profile):
        checked, report = check_catalog(load, profile, request, os.environ)
        reports.append(report)
        statuses.append(checked.status)
    if args.format == "json":
        sys.stdout.write(json.dumps(reports[0] if len(reports) == 1 else reports, indent=2, ensure_ascii=False) + "\n")
    else:
        colour = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
        if len(reports) > 1:
            sys.stdout.write(releases_summary(reports))
        sys.stdout.write("\n".join(check_text(r, colour=colour) for r in reports))
    if any(s in ("will-fail", "refused") for s in statuses):
        return Exit.NO
    return Exit.PARTIAL if "undecided" in statuses else Exit.OK


def _checkers(args: argparse.Namespace, profile: Any) -> list[Any]:
    """How `check` makes a checker of each catalog it reads (`errcat.check.Load`): from the
    compiled pipeline of a catalog directory where it is up to date, else from catalog.json."""
    from errcat.check import load_compiled, load_data
    from output.catalog_dirs import is_site

    where = None if args.releases else args.catalog or _local_catalog(args)
    if where is not None and not is_site(where) and (load := load_compiled(where, profile)) is not None:
        return [load]
    return [load_data(data, profile) for _, data in _catalogs(args, profile, where)]


def _add_check_parser(sub: Any) -> None:
    check = sub.add_parser(
        "check", help="will this command line work? (offline, from a catalog)",
        usage="errcat check [options] -- COMMAND...",
        description="Predicts, from a catalog and without running the target, what the command after -- meets: "
                    "the first error and the change that avoids it, then the errors that follow, or ok with the "
                    "settings the program adjusts, or undecided with the facts that decide it.")
    _add_catalog_args(check, "check on each release (a list, or A..B)")
    check.add_argument("--platform", default="auto",
                       help="the machine: auto (default: this one, found by nvidia-smi, /dev/kfd or rocminfo, "
                            "npu-smi, xpu-smi, and the command's --device); cuda, hopper (SM90), blackwell (SM100), "
                            "rocm, npu, xpu, cpu (their device's checks decided, the rest undecided); generic (no "
                            "GPU here, --device cuda given: every platform check false); unknown (every platform "
                            "check undecided)")
    check.add_argument("--env", action="append", default=[], metavar="K=V",
                       help="an environment variable for the launch (the current environment is read too)")
    check.add_argument("--model-config", metavar="PATH",
                       help="the model's config.json (or its directory); a local --model-path directory is read too")
    check.add_argument("--architecture", metavar="ARCH", help="the model's architecture, e.g. LlamaForCausalLM")
    check.set_defaults(func=_cmd_check, words=[])



def _explain_input(arg: str) -> str:
    """TEXT, a FILE holding it, or ``-`` for stdin."""
    import os

    if arg == "-":
        return sys.stdin.read()
    if os.path.exists(arg) or _names_a_file(arg):
        try:
            return Path(arg).read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise ErrcatError(f"cannot read {arg}: {exc.strerror or exc}") from None
    return arg


_FILE_SUFFIXES = (".txt", ".log", ".out", ".err", ".md")


def _names_a_file(arg: str) -> bool:
    """One word that reads as a path (``/tmp/x``, ``./log``, ``err.txt``), not a message."""
    if not arg or any(c.isspace() for c in arg) or arg.endswith(":"):
        return False
    return arg.startswith(("/", "./", "../", "~/")) or arg.lower().endswith(_FILE_SUFFIXES)


def _cmd_explain(args: argparse.Namespace) -> int:
    import json

    from output.explain_text import render_explanation

    text = _explain_input(args.text)
    if not text.strip():
        raise ErrcatError("explain: no text to explain")
    where = None if args.releases else args.catalog or _local_catalog(args)
    report = _explained_by_index(where, text) if where is not None else None
    if report is None:
        report = _explained_by_catalogs(args, text, where)
    if args.format == "json":
        sys.stdout.write(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(render_explanation(report))
    return Exit.OK if report["errors"] and all(e["matched"] for e in report["errors"]) else Exit.NO


def _explained_by_index(where: str, text: str) -> dict[str, Any] | None:
    """`text` explained by the explain-index.json beside the catalog in `where` and the entry
    files it names (a small part of catalog.json); None: no index there that is up to date."""
    from output.entry_files import EntryFiles
    from output.explain_index import read_index

    index = read_index(where)
    if index is None:
        return None
    from analyzers.explain import MessageIndex, explained
    from output.explain_text import explain_report

    found = explained(MessageIndex.of_targets(index.targets), text)
    return explain_report(found, EntryFiles(where), index.release)


def _explained_by_catalogs(args: argparse.Namespace, text: str, where: str | None) -> dict[str, Any]:
    """`text` explained by the whole catalog (or each of `--releases`), read from catalog.json."""
    from analyzers.explain import MessageIndex, best, explained
    from analyzers.outcomes import release_of
    from extractor.profile import load_profile
    from output.explain_text import explain_report

    profile = load_profile(args.profile)
    loaded = _catalogs(args, profile, where)
    releases = [version for version, _ in loaded if version is not None]
    catalogs = [data for _, data in loaded]
    newest = catalogs[-1]
    found = explained(MessageIndex(newest["entries"]), text)
    versions: dict[str, list[str]] | None = None
    if releases:  # per error, the releases whose catalog has a template its message renders
        versions = {}
        for version, data in zip(releases, catalogs, strict=True):
            index = MessageIndex(data["entries"])
            for error, matches in found:
                here, newest_best = best(index.find(error)), best(matches)
                if here is not None and newest_best is not None:
                    versions.setdefault(newest_best.entry, []).append(version)
    entries = {e["id"]: e for e in newest["entries"]}
    return explain_report(found, entries, release_of(newest.get("source") or {}, profile), versions)


def _add_explain_parser(sub: Any) -> None:
    explain = sub.add_parser(
        "explain", help="which error is this? (a message, a traceback or a log)",
        description="Finds the error line(s) in TEXT (or a FILE, or - for stdin), matches them against every "
                    "entry's message template and prints the entry, its table row, the values in the message, "
                    "meaning, solutions and example.")
    _add_catalog_args(explain, "also say in which of these releases (a list, or A..B) the message exists")
    explain.add_argument("text", metavar="TEXT|FILE|-", help="the error text, a file holding it, or - for stdin")
    explain.set_defaults(func=_cmd_explain)


def _catalogs(args: argparse.Namespace, profile: Any,
              where: str | None = None) -> list[tuple[str | None, dict[str, Any]]]:
    """The catalogs `check`/`explain` read: one per release of `--releases` (release, data), else
    the one of `where` (`--catalog`, or ./catalog: `_local_catalog`) or the source options (None, data)."""
    from errcat.catalogs import load_catalog, release_list
    from errcat.model import SourceSpec

    if args.releases and (args.catalog or args.repo or args.release or args.path):
        raise ErrcatError("--releases takes no other source")
    if not args.releases:
        catalog = where or args.catalog or _local_catalog(args)
        if catalog is not None:  # a directory: nothing to build, so no progress display to load
            return [(None, load_catalog(_spec(args), catalog, profile=profile))]
        with _watched(args):  # a catalog not cached yet is extracted first
            return [(None, load_catalog(_spec(args), None, profile=profile, cache_dir=args.cache_dir,
                                        jobs=args.jobs))]
    with _watched(args):
        return [(v, load_catalog(SourceSpec(release=v), None, profile=profile, cache_dir=args.cache_dir,
                                 jobs=args.jobs))
                for v in release_list(args.releases, profile)]


def _add_catalog_args(parser: argparse.ArgumentParser, releases: str) -> None:
    """Where `check` and `explain` take catalogs from, and how they answer."""
    _add_source_args(parser)
    parser.add_argument("--catalog", metavar="DIR",
                        help="a catalog directory written by errcat extract, or a site written by errcat site "
                             "(default: ./catalog when it holds one, else the source options' catalog)")
    parser.add_argument("--releases", nargs="+", metavar="V", help=releases)
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--jobs", type=int, default=None, metavar="N", help="worker processes when extracting")


def _cmd_graph(args: argparse.Namespace) -> int:
    from errcat import pipeline

    catalog = args.catalog or _local_catalog(args, "graph.json")
    if catalog is not None:
        data = pipeline.graph_of_dir(catalog)
    else:
        from extractor.profile import load_profile

        with _watched(args):
            data = pipeline.catalog_data(_spec(args), load_profile(args.profile), cache_dir=args.cache_dir,
                                         name="graph.json")
    _write_text(pipeline.flag_graph(data, args.flag, args.format, where=catalog or "this catalog"), args.out)
    return Exit.OK


LOCAL_CATALOG = "catalog"  # where `errcat extract` writes by default


def _local_catalog(args: argparse.Namespace, holding: str = "catalog.json") -> str | None:
    """``./catalog`` when no source is named and it holds a catalog (said on stderr), else None."""
    named = ("catalog", "repo", "commit", "release", "path", "releases")
    if any(getattr(args, name, None) for name in named) or not (Path(LOCAL_CATALOG) / holding).is_file():
        return None
    if not args.quiet:
        print(f"errcat: using the catalog in ./{LOCAL_CATALOG} (--catalog DIR or --release X for another)",
              file=sys.stderr)
    return LOCAL_CATALOG


def _add_graph_parser(sub: Any) -> None:
    graph = sub.add_parser("graph", help="the errors that involve a flag and its related flags")
    graph.add_argument("catalog", metavar="CATALOG", nargs="?",
                       help="a catalog directory written by errcat extract (default: ./catalog when it holds one, "
                            "else the source options' catalog, by default the newest release's)")
    _add_source_args(graph)
    graph.add_argument("--flag", required=True, metavar="OPTION", help="e.g. --lora-paths (aliases accepted)")
    graph.add_argument("--format", choices=("text", "dot"), default="text", help="text (default) or Graphviz DOT")
    graph.add_argument("--out", help="write to this file instead of stdout")
    graph.set_defaults(func=_cmd_graph)


def _add_diff_parser(sub: Any) -> None:
    diff = sub.add_parser("diff", help="what changed between two catalogs or sources",
                          description="Each side is a catalog directory, release:VERSION (or a bare version), "
                                      "path:DIR, or with --repo a revision; --release/--commit add sides in order.")
    diff.add_argument("sides", nargs="*", metavar="SIDE", help="OLD then NEW")
    diff.add_argument("--repo", help="git repository (local path or URL) the revision sides are in")
    diff.add_argument("--commit", action="append", default=[], help="a revision in --repo as a side (repeatable)")
    diff.add_argument("--release", action="append", default=[], help="a release as a side (repeatable)")
    diff.add_argument("--format", choices=("oneline", "markdown", "json", "github"), default="oneline")
    diff.add_argument("--fail-on", metavar="KIND,...",
                      help="exit 1 when a change of these kinds is found (e.g. removed,message-changed; any)")
    diff.add_argument("--out", help="write to this file instead of stdout")
    diff.add_argument("--profile", default="sglang", help="target profile name or YAML file (default: sglang)")
    diff.add_argument("--cache-dir", help="downloads, mirrors and results (default: $ERRCAT_CACHE_DIR or XDG cache)")
    _add_cache_args(diff)
    diff.set_defaults(func=_cmd_diff)


def _cmd_gaps(args: argparse.Namespace) -> int:
    from errcat.gaps import gap_report
    from output.gaps_formats import render_gaps

    if args.fail_on and args.against is None:
        raise ErrcatError("--fail-on new needs --against OLD_CATALOG_DIR")
    report = gap_report(args.catalog, args.against)
    _write_text(render_gaps(report.found, args.format, new=report.new, release=report.release), args.out)
    return Exit.NO if args.fail_on and report.new else Exit.OK


def _add_gaps_parser(sub: Any) -> None:
    gaps = sub.add_parser("gaps", help="the checks the program lacks: its crash entries, the plainest command first")
    gaps.add_argument("catalog", metavar="CATALOG_DIR", help="a catalog directory written by errcat extract")
    gaps.add_argument("--format", choices=("md", "json", "github"), default="md")
    gaps.add_argument("--fail-on", choices=("new",), help="exit 1 when a crash the --against catalog lacks is listed")
    gaps.add_argument("--against", metavar="OLD_CATALOG_DIR", help="an older catalog: its crashes are not new")
    gaps.add_argument("--out", help="write to this file instead of stdout")
    gaps.set_defaults(func=_cmd_gaps)


def _add_history_parser(sub: Any) -> None:
    history = sub.add_parser("history", help="entry lineage over revisions or releases")
    history.add_argument("--repo", help="git repository (local path or URL)")
    history.add_argument("--revs", nargs="+", default=[], metavar="REV",
                         help="A..B (A and every first-parent commit up to B) or revisions, oldest first")
    history.add_argument("--releases", nargs="+", default=[], metavar="VERSION", help="releases (sorted by version)")
    history.add_argument("--format", choices=("json", "markdown"), default="json")
    history.add_argument("--out", help="write to this file instead of stdout")
    history.add_argument("--profile", default="sglang", help="target profile name or YAML file (default: sglang)")
    history.add_argument("--cache-dir", help="downloads, mirrors and results (default: $ERRCAT_CACHE_DIR or XDG cache)")
    _add_cache_args(history)
    history.set_defaults(func=_cmd_history)


def _fail(message: object) -> int:
    """The one place errors reach the user: a single `errcat: ...` line on stderr, exit 2."""
    text = " ".join(part.strip() for part in str(message).splitlines() if part.strip())
    print(f"errcat: {text or 'error'}", file=sys.stderr)
    return Exit.USAGE


# Options whose value is itself an option name (``--flag --lora-paths``).
_OPTION_VALUED = ("--flag",)


def _attach_option_values(argv: Sequence[str]) -> list[str]:
    """``--flag --x`` -> ``--flag=--x``: argparse would read ``--x`` as an option."""
    out: list[str] = []
    items = list(argv)
    i = 0
    while i < len(items):
        if items[i] in _OPTION_VALUED and i + 1 < len(items) and items[i + 1].startswith("-"):
            out.append(f"{items[i]}={items[i + 1]}")
            i += 2
        else:
            out.append(items[i])
            i += 1
    return out


@contextmanager
def warnings_as_lines(prog: str = "errcat") -> Iterator[None]:
    """The library's `CacheWarning`s as one ``<prog>: warning: ...`` line each (once per
    message); other warnings are shown as Python shows them."""
    shown: set[str] = set()
    default = warnings.showwarning

    def show(message: Warning | str, category: type[Warning], *rest: Any, **kw: Any) -> None:
        if not issubclass(category, CacheWarning):
            default(message, category, *rest, **kw)
        elif str(message) not in shown:
            shown.add(str(message))
            print(f"{prog}: warning: {message}", file=sys.stderr)

    with warnings.catch_warnings():
        warnings.simplefilter("always", CacheWarning)
        warnings.showwarning = show
        yield


# Verbs that take a command line after ``--`` (argparse would read its options as theirs),
# and what to say when it is missing. The other verbs keep ``--`` for argparse.
_AFTER_DASHES = {"check": "check: give the command line after --, e.g. "
                          "errcat check -- python -m sglang.launch_server --model-path DIR"}


def _command_after_dashes(argv: Sequence[str]) -> tuple[list[str], list[str] | None]:
    """``VERB [options] -- COMMAND...``: errcat's own arguments, and the command (None: no ``--``)."""
    items = list(argv)
    verb = next((w for w in items if not w.startswith("-")), None)  # after global options (--quiet)
    if verb not in _AFTER_DASHES or "--" not in items:
        return items, None
    at = items.index("--")
    return items[:at], items[at + 1:]


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    own, words = _command_after_dashes(sys.argv[1:] if argv is None else argv)
    try:
        args = parser.parse_args(_attach_option_values(own))
        if args.command in _AFTER_DASHES:
            if words is None:
                raise _UsageError(_AFTER_DASHES[args.command])
            args.words = words
    except _UsageError as exc:
        return _fail(exc)
    except SystemExit as exc:  # --help / --version: argparse printed them already
        return exc.code if isinstance(exc.code, int) else Exit.OK
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        with warnings_as_lines():
            return func(args)
    except ErrcatError as exc:
        return _fail(exc)
    except OSError as exc:  # the file system refused (cache or output location), not a bug
        return _fail(f"{exc.strerror or exc}: {exc.filename}" if exc.filename else exc.strerror or exc)
    except KeyboardInterrupt:
        print("errcat: interrupted", file=sys.stderr)
        return Exit.INTERRUPTED


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
