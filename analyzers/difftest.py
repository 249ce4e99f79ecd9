"""Differential testing: errcat's static first-error prediction against the real program.

Pure: the real runs come in as `analyzers.judge.Real` outcomes (from `errcat.real`),
the predictions as `analyzers.first_error.Prediction`s. This module names the real
first error (an entry id, ``ok``, ``unmatched`` for an error outside the catalog, or
what else happened: ``argparse``, ``timeout``, ``crash``), compares, sums up, and
minimises disagreements: options and env vars are dropped one at a time while the same
disagreement persists (same real first error, same prediction), so the regression
corpus holds the smallest launch that shows it.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from analyzers.argv import group_words, option_groups
from analyzers.first_error import UNDECIDED, Prediction
from analyzers.judge import EntryIndex, Real

OK, UNMATCHED = "ok", "unmatched"
INVALID = ("argparse", "timeout", "crash", "not-run")  # launches that say nothing about the checks

Line = tuple[tuple[str, ...], tuple[tuple[str, str], ...]]  # (argv, env)


def real_first(real: Real, index: EntryIndex) -> str:
    """What the real program met first: an entry id, ``ok``, ``unmatched`` or the outcome."""
    if real.outcome == "ok":
        return OK
    if real.outcome == "error":
        return index.which(real) or UNMATCHED
    return real.outcome


@dataclass(frozen=True, slots=True)
class Case:
    """One launch, what the real program met first and what errcat predicted."""

    argv: tuple[str, ...]
    env: tuple[tuple[str, str], ...]
    origin: str
    real: Real
    first: str  # `real_first`
    prediction: Prediction

    @property
    def decided(self) -> bool:
        return self.prediction.status != UNDECIDED

    @property
    def valid(self) -> bool:
        """Did the launch reach the checks (no argparse refusal, timeout or crash)?"""
        return self.first not in INVALID

    @property
    def agrees(self) -> bool | None:
        """Does a decided prediction name the real first error? None: undecided or invalid."""
        if not (self.decided and self.valid):
            return None
        return self.prediction.first == self.first

    def as_dict(self, version: str) -> dict[str, Any]:
        return {"version": version, "argv": list(self.argv), "env": dict(self.env), "origin": self.origin,
                "first": self.first, **self.real.as_dict(), "predicted": self.prediction.as_dict()}


# ------------------------------------------------------------------ figures


@dataclass(frozen=True, slots=True)
class Figures:
    launches: int
    valid: int  # reached the checks
    raising: int  # raised an error (of the catalog or not)
    distinct: int  # distinct real first errors
    decided: int  # valid launches with a decided prediction
    agreeing: int
    covered: int  # valid launches whose real first error is one the prediction leaves open
    origins: tuple[tuple[str, int, int, int], ...] = field(default=())  # (source, valid, decided, agreeing)

    def lines(self) -> list[str]:
        def pct(a: int, b: int) -> str:
            return f"{100 * a / b:.1f}%" if b else "-"

        out = [
            f"launches: {self.launches} ({self.launches - self.valid} refused by argparse, timed out or crashed)",
            f"raising in the real program: {self.raising} ({pct(self.raising, self.valid)} of {self.valid})",
            f"distinct real first errors: {self.distinct}",
            f"decided: {self.decided} ({pct(self.decided, self.valid)}); undecided: {self.valid - self.decided} "
            f"({pct(self.valid - self.decided, self.valid)})",
            f"agreement where decided: {self.agreeing}/{self.decided} ({pct(self.agreeing, self.decided)})",
            f"real first error among the predicted candidates: {self.covered} ({pct(self.covered, self.valid)})",
        ]
        out += [f"  {name}: {valid} launches, {decided} decided, {agreeing} agree ({pct(agreeing, decided)})"
                for name, valid, decided, agreeing in self.origins]
        return out


def figures(cases: Sequence[Case]) -> Figures:
    valid = [c for c in cases if c.valid]
    decided = [c for c in valid if c.decided]
    errors = {c.first for c in valid if c.first != OK}
    by_origin: dict[str, list[Case]] = {}
    for case in valid:
        by_origin.setdefault(case.origin.split()[0], []).append(case)
    origins = tuple((name, len(cs), sum(c.decided for c in cs), sum(bool(c.agrees) for c in cs))
                    for name, cs in sorted(by_origin.items()))
    return Figures(len(cases), len(valid), sum(c.first != OK for c in valid), len(errors), len(decided),
                   sum(bool(c.agrees) for c in decided), sum(c.prediction.covers(c.first) for c in valid), origins)


def disagreements(cases: Iterable[Case]) -> list[Case]:
    return [c for c in cases if c.agrees is False]


def causes(cases: Iterable[Case], limit: int = 10) -> list[tuple[str, int]]:
    """The commonest (prediction -> real first error) pairs among disagreements."""
    return Counter(f"{c.prediction.first} -> {c.first}" for c in disagreements(cases)).most_common(limit)


def left_open(cases: Iterable[Case], limit: int = 10) -> list[tuple[str, int]]:
    """The entries most often left unknown before a launch's first sure one (what keeps
    predictions undecided), with the number of valid launches where each is."""
    return Counter(e for c in cases if c.valid and not c.decided
                   for e in c.prediction.may_fire if e != c.prediction.sure).most_common(limit)


def falsely_sure(cases: Iterable[Case], limit: int = 10) -> list[tuple[str, int]]:
    """The entries most often predicted to fire for sure where the real program met another first."""
    return Counter(c.prediction.sure for c in cases if c.valid and c.prediction.sure is not None
                   and c.prediction.sure != c.first).most_common(limit)


# ------------------------------------------------------------------ minimising


Judge = Callable[[Sequence[Line]], list[tuple[Real, str, Prediction]]]  # runs lines: (real, first, prediction)


@dataclass(slots=True)
class _Shrinking:
    case: Case
    units: list[tuple[str, tuple[str, ...]]]  # option groups, then ("env", (name, value)) items
    at: int = 0  # the next unit to try dropping

    def line(self, without: int | None = None) -> Line:
        kept = [u for i, u in enumerate(self.units) if i != without]
        argv = group_words(u for u in kept if u[0] != "env")
        env = tuple(sorted((u[1][0], u[1][1]) for u in kept if u[0] == "env"))
        return (argv, env)


def _units(case: Case) -> list[tuple[str, tuple[str, ...]]]:
    return list(option_groups(case.argv)) + [("env", (k, v)) for k, v in case.env]


def _same(case: Case, first: str, prediction: Prediction) -> bool:
    return first == case.first and prediction.first == case.prediction.first and prediction.status != UNDECIDED


def minimise(cases: Sequence[Case], judge: Judge, *, rounds: int = 64) -> list[Case]:
    """Each case with options and env vars dropped one at a time while its disagreement
    persists; each round judges one candidate per unfinished case (one batch)."""
    open_ = [_Shrinking(c, _units(c)) for c in cases]
    for _ in range(rounds):
        todo = [s for s in open_ if s.at < len(s.units)]
        if not todo:
            break
        results = judge([s.line(s.at) for s in todo])
        for shrinking, (real, first, prediction) in zip(todo, results, strict=True):
            if _same(shrinking.case, first, prediction):
                argv, env = shrinking.line(shrinking.at)
                del shrinking.units[shrinking.at]
                shrinking.case = replace(shrinking.case, argv=argv, env=env, real=real, prediction=prediction)
            else:
                shrinking.at += 1
    return [s.case for s in open_]


def regression_record(case: Case, version: str) -> dict[str, Any]:
    """A minimised disagreement as a line of the recorded corpus (`tests/data/real/*.jsonl`:
    argv, env, the real outcome and entry), with what errcat predicted beside it."""
    record: dict[str, Any] = {"version": version, "argv": list(case.argv), "env": dict(case.env),
                              **case.real.as_dict(), "predicted": case.prediction.first}
    if case.first not in (OK, UNMATCHED, *INVALID):
        record["entry"] = case.first
    return record

