"""The Markdown report of an `errcat confirm` run: counts, then every refuted example."""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from analyzers.judge import CONFIRMED, NOT_RUN, REFUTED
from analyzers.outcomes import Outcome
from output.md_escape import code, prose, row, text


def _cause(why: str) -> str:
    """The kind of a refutation ("fires-first", "argparse" ...), without its details."""
    return why.split(":", 1)[0]


# (entry id, example label, static prediction, outcome or None when not recorded)
Row = tuple[str, str, str, Outcome | None]


def confirm_report(version: str, rows: Iterable[Row], *, seconds: float, launches: int,
                   solutions: Iterable[Row] = ()) -> str:
    """The report: the counts, then a section per kind of result that has any rows; then the
    solutions' commands (each on the command it was applied to) the same way."""
    rows = list(rows)
    lines = (_summary(version, rows, seconds=seconds, launches=launches) + _by_prediction(rows) + _causes(rows)
             + _refuted(rows) + _not_run(rows) + _solutions(list(solutions)))
    return "\n".join(lines) + "\n"


def _solutions(rows: list[Row]) -> list[str]:
    """Solutions with a command: how many the real program confirmed, by static prediction,
    and each refuted one."""
    if not rows:
        return []
    status = Counter(o.status if o is not None else "missing" for *_, o in rows)
    runnable = len(rows) - status[NOT_RUN] - status["missing"]
    lines = ["", "## Solutions", "",
             (f"{len(rows)} solutions with a command; {runnable} run here; {status[CONFIRMED]} confirmed by the real "
              f"program ({_pct(status[CONFIRMED], runnable)} of those run): the command reaches this error before "
              f"the change and is accepted after it; {status[REFUTED]} refuted; {status[NOT_RUN]} not run.")]
    refuted = [(e, label, o) for e, label, _, o in rows if o is not None and o.status == REFUTED]
    if refuted:
        lines += ["", "### Refuted solutions", ""]
    for entry, label, o in refuted:
        lines.append(f"- {code(_example(entry, label))}: {prose(o.why, inline=True)}")
        lines.append(f"  - command: {code(o.after or '')}")
    return lines


def _summary(version: str, rows: list[Row], *, seconds: float, launches: int) -> list[str]:
    status = Counter(o.status if o is not None else "missing" for *_, o in rows)
    found = sum(1 for *_, o in rows if o is not None and o.found is not None)
    runnable = len(rows) - status[NOT_RUN] - status["missing"]
    return [
        "# Real outcomes of the examples on " + text(version, inline=True),
        "",
        (f"{len(rows)} examples; {runnable} run here; {status[CONFIRMED] + found} confirmed by the real program"
         f" ({_pct(status[CONFIRMED] + found, runnable)} of those run): {status[CONFIRMED]} as errcat wrote them, "
         f"{found} replaced by an example the real program found and confirmed; "
         f"{status[REFUTED] - found} refuted; {status[NOT_RUN]} not run. {launches} launches in {seconds:.0f} s."),
    ]


def _by_prediction(rows: list[Row]) -> list[str]:
    """Static prediction against real outcome, one table row per prediction."""
    by_prediction: dict[str, Counter[str]] = {}
    for _, _, predicted, outcome in rows:
        by_prediction.setdefault(predicted, Counter())[outcome.status if outcome else "missing"] += 1
    lines = [
        "",
        "Static prediction (errcat's own evaluator) against the real outcome of the example as errcat wrote it:",
        "",
        "| static prediction | confirmed | refuted | not run |",
        "|---|---|---|---|",
    ]
    for predicted in sorted(by_prediction):
        c = by_prediction[predicted]
        lines.append(row([text(predicted, inline=True), str(c[CONFIRMED]), str(c[REFUTED]), str(c[NOT_RUN])]))
    return lines


def _causes(rows: list[Row]) -> list[str]:
    """How many examples each cause kept from being confirmed, most frequent first."""
    causes = Counter(_cause(o.why) for *_, o in rows if o is not None and o.status != CONFIRMED)
    if not causes:
        return []
    by_count = sorted(causes.items(), key=lambda kv: (-kv[1], kv[0]))
    head = ["", "## Causes", "", "| cause | examples |", "|---|---|"]
    return head + [row([text(c, inline=True), str(n)]) for c, n in by_count]


def _refuted(rows: list[Row]) -> list[str]:
    refuted = [(e, label, o) for e, label, _, o in rows if o is not None and o.status == REFUTED]
    if not refuted:
        return []
    lines = ["", "## Refuted examples", ""]
    for entry, label, o in refuted:
        lines.append(f"- {code(_example(entry, label))}: {prose(o.why, inline=True)}")
        lines.append(f"  - before: {code(o.before or '')}")
        if o.after:
            lines.append(f"  - after: {code(o.after)}")
        if o.found is not None:
            lines.append(f"  - found by the real program: {code(o.found.before)} → {code(o.found.after)}")
    return lines


def _not_run(rows: list[Row]) -> list[str]:
    not_run = [(e, label, o) for e, label, _, o in rows if o is not None and o.status == NOT_RUN]
    if not not_run:
        return []
    return ["", "## Not run here", ""] + [f"- {code(_example(e, label))}: {prose(o.why, inline=True)}"
                                          for e, label, o in not_run]


def _example(entry: str, label: str) -> str:
    """An example's name in the lists: the entry id, and its label when the entry has several."""
    return entry + (f" ({label})" if label else "")


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "n/a"
