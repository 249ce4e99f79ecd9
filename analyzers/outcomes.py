"""Real outcomes of examples (`confirm.json`) and their merge into catalog entries.

`errcat confirm` writes one `Outcome` per example it ran, keyed by entry id, the
example's fingerprint (its `before` and `after` as the catalog showed them) and the
target version that ran it. `extract` merges the outcomes of its own version into the
entries it writes: `example_fix.verified` becomes "true"/"false" only from these, and
an outcome is kept exactly while its example is unchanged (another example: another
fingerprint, "not-run" again). A replacement the real program found and confirmed is
shown in place of a refuted example, with the static one kept beside it under `static`.
"""
from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from analyzers.argv import option_groups
from analyzers.judge import CONFIRMED, NOT_RUN, REFUTED, Real
from analyzers.withheld import SERVER_START
from extractor import shape

CONFIRM_FILE = "confirm.json"
FORMAT = 1
_VERIFIED = {CONFIRMED: "true", REFUTED: "false", NOT_RUN: "not-run"}


def fingerprint(before: str | None, after: str | None) -> str:
    return hashlib.sha256(json.dumps([before, after]).encode()).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Found:
    """An example the real program found and confirmed, replacing a refuted one."""

    before: str
    after: str
    real_before: Real
    real_after: Real

    def as_dict(self) -> dict[str, Any]:
        return {"before": self.before, "after": self.after, "real_before": self.real_before.as_dict(),
                "real_after": self.real_after.as_dict()}


@dataclass(frozen=True, slots=True)
class Outcome:
    entry: str
    fingerprint: str
    version: str  # of the target that ran it
    before: str | None
    after: str | None
    status: str  # judge.CONFIRMED / REFUTED / NOT_RUN
    why: str
    real_before: Real | None = None
    real_after: Real | None = None
    found: Found | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.entry, self.fingerprint, self.version)

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"entry": self.entry, "fingerprint": self.fingerprint, "version": self.version,
                                "before": self.before, "after": self.after, "status": self.status, "why": self.why}
        if self.real_before is not None:
            data["real_before"] = self.real_before.as_dict()
        if self.real_after is not None:
            data["real_after"] = self.real_after.as_dict()
        if self.found is not None:
            data["found"] = self.found.as_dict()
        return data

    @classmethod
    def from_dict(cls, data: Any) -> Outcome:
        if not isinstance(data, dict):
            raise shape.ShapeError("an outcome is not a mapping")

        def real(key: str) -> Real | None:
            return Real.from_dict(data[key]) if isinstance(data.get(key), dict) else None

        found = data.get("found")
        status = shape.text(data["status"])
        if status not in _VERIFIED:
            raise shape.ShapeError(f"unknown status {status!r}")
        return cls(
            shape.text(data["entry"]), shape.text(data["fingerprint"]), shape.text(data["version"]),
            shape.optional_text(data["before"]), shape.optional_text(data["after"]), status,
            shape.text(data["why"]), real("real_before"), real("real_after"),
            Found(shape.text(found["before"]), shape.text(found["after"]), Real.from_dict(found["real_before"]),
                  Real.from_dict(found["real_after"])) if isinstance(found, dict) else None,
        )


@dataclass(frozen=True, slots=True)
class Outcomes:
    """Every recorded outcome, by `Outcome.key`."""

    by_key: Mapping[tuple[str, str, str], Outcome]

    def get(self, entry: str, before: str | None, after: str | None, version: str) -> Outcome | None:
        return self.by_key.get((entry, fingerprint(before, after), version))

    def with_(self, new: Iterable[Outcome]) -> Outcomes:
        return Outcomes({**self.by_key, **{o.key: o for o in new}})

    def as_dict(self) -> dict[str, Any]:
        return {"errcat_confirm": FORMAT, "outcomes": [self.by_key[k].as_dict() for k in sorted(self.by_key)]}

    def digest(self, version: str) -> str:
        """What the outcomes of `version` contribute to a catalog (a cache key part)."""
        mine = [self.by_key[k].as_dict() for k in sorted(self.by_key) if k[2] == version]
        return hashlib.sha256(json.dumps(mine, sort_keys=True).encode()).hexdigest()


NO_OUTCOMES = Outcomes({})


def parse_outcomes(data: Any) -> Outcomes:
    """`confirm.json`'s data; ValueError (ShapeError) when it is not one."""
    if not isinstance(data, dict) or data.get("errcat_confirm") != FORMAT:
        raise shape.ShapeError(f"not an errcat {CONFIRM_FILE} (format {FORMAT})")
    try:
        found = [Outcome.from_dict(o) for o in shape.array(data["outcomes"])]
    except (KeyError, TypeError) as exc:
        raise shape.ShapeError(f"an outcome lacks {exc}") from None
    return Outcomes({o.key: o for o in found})


def read_outcomes(directory: str | Path) -> Outcomes:
    """The outcomes beside a catalog (none when there is no `confirm.json`); ValueError
    (with the file named) when it is not one errcat wrote."""
    path = Path(directory) / CONFIRM_FILE
    if not path.is_file():
        return NO_OUTCOMES
    try:
        return parse_outcomes(json.loads(path.read_bytes()))
    except (OSError, ValueError, RecursionError) as exc:
        raise ValueError(f"{path}: {exc}") from None


# ------------------------------------------------------------------ merge


def release_of(source: Mapping[str, Any], profile: Any) -> str | None:
    """The target release a catalog's `source` (`Snapshot.provenance`) describes: its release,
    or the release a tag of its commit names (`profile.release_tag`); None: neither."""
    if source.get("release"):
        return str(source["release"])
    pattern = "^" + re.escape(profile.release_tag).replace(re.escape("{version}"), "(?P<v>.+)") + "$"
    tags: list[Any] = source["tags"] if isinstance(source.get("tags"), list) else []
    found = {m.group("v") for ref in (source.get("ref"), *tags)
             if isinstance(ref, str) and (m := re.match(pattern, ref))}
    return found.pop() if len(found) == 1 else None  # two releases at one commit: ambiguous


# what the real program did with a pair whose `before` raised its entry first (`judge.judge`)
_BEFORE_RAISED = ("after-fires", "after-still-fires", "after-argparse")



def _instead(why: str, named: Mapping[str, str] | None = None) -> str:
    """What the real program did with `after` (`why`: one of `_BEFORE_RAISED`), as a phrase
    (`named`: another entry's words by its id)."""
    kind, _, what = why.partition(": ")
    if kind == "after-fires":
        return f"`after` meets {_other(what, named)}"
    return "`after` still raises it" if kind == "after-still-fires" else f"`after` is refused: {what}"


def _other(what: str, named: Mapping[str, str] | None) -> str:
    """Another error a command met (`what`: an entry id, or "outside the catalog (...)")."""
    if not re.fullmatch("[0-9a-f]{16}", what):
        return what
    return (named or {}).get(what) or f"entry {what}"


def _did(why: str, named: Mapping[str, str] | None) -> str:
    """What the real program did with a `before` that did not raise this error, as a clause."""
    kind, _, what = why.partition(": ")
    if kind == "no-error":
        return "it ran without an error"
    if kind == "fires-first":
        return f"it stopped first at {_other(what, named)}"
    return f"the argument parser refused it: {what}" if kind == "argparse" else why


def _refuted(fix: Mapping[str, Any], why: str, version: str, named: Mapping[str, str] | None) -> dict[str, Any]:
    """A shown pair the real program refuted, and no pair it found in its place: not shown, as
    users copy commands. Where `before` did raise this error, `before` alone is; the pair stays
    under `withheld` with what the real program did (`errcat confirm` still runs it)."""
    from analyzers.example_check import before_only, withheld
    from analyzers.withheld import EARLIER_CHECK, NOT_REACHED

    if why.startswith(_BEFORE_RAISED):
        out = before_only(fix, _instead(why, named), f"the real program, {version}")
    else:
        out = withheld(fix, f"errcat's closest command line did not raise this error in the real program ({version}): "
                            f"{_did(why, named)}.", NOT_REACHED if why.startswith("no-error") else EARLIER_CHECK)
    out["verified"] = _VERIFIED[REFUTED]
    out["withheld"] = {**out["withheld"], "real": f"{why} ({version})"}
    return out


# the static prediction for a pair of commands of an entry: (entry id, before, after) -> "true" ...
Predict = Callable[[str, str, str], str]


# does the machine the outcomes come from run an example (its `needs` met there)?
Runs = Callable[[Mapping[str, Any]], bool]


def merged_fix(entry: str, fix: Mapping[str, Any], outcomes: Outcomes, version: str,
               predict: Predict | None = None, prefix: str = "", named: Mapping[str, str] | None = None,
               runs: Runs | None = None) -> dict[str, Any]:
    """`fix` (an entry's or variant's `example_fix`) with `verified` from its real outcome;
    a pair the real program found replaces it, with `predict`'s word on that pair and, where it
    changes more than the pair it replaces, the change it makes as its words (`prefix`: the
    profile's launch command, to read the commands); a refuted pair it found nothing for is
    withheld (`_refuted`; `named`: the words of the other entries it met, by id). An example
    the machine does not run (`runs`; recorded before it was known to need another) keeps
    no outcome."""
    out = dict(fix)
    withheld = fix.get("withheld") if fix.get("after") is None else None
    shown = withheld if isinstance(withheld, Mapping) else fix
    if not _spoken_of(shown, runs):
        return out
    found = outcomes.get(entry, shown.get("before"), shown.get("after"), version)
    if found is None:
        out["verified"] = _VERIFIED[NOT_RUN]
        return out
    if found.found is not None:
        return _found_instead(entry, fix, shown, found, version, predict, prefix)
    if withheld is not None:
        return _merged_withheld(fix, withheld, found, version, named)
    if found.status == REFUTED:
        return _refuted(fix, found.why, version, named)
    out["verified"] = _VERIFIED[found.status]
    out["real"] = f"{found.why} ({version})"
    return out


def _spoken_of(shown: Mapping[str, Any], runs: Runs | None) -> bool:
    """Can a validation run on the outcomes' machine speak of the example `shown`: it has a
    command, no check at the server start (which validation never meets), and the machine
    runs it (`runs`)?"""
    if shown.get("before") is None or SERVER_START in (shown.get("needs") or ()):
        return False
    return runs is None or runs(shown)


def _found_instead(entry: str, fix: Mapping[str, Any], shown: Mapping[str, Any], found: Outcome, version: str,
                   predict: Predict | None, prefix: str) -> dict[str, Any]:
    """`fix` replaced by the pair the real program found (`found.found`) for the `shown` one."""
    assert found.found is not None
    static = {k: shown[k] for k in ("before", "after") if k in shown}
    static.update({k: fix[k] for k in ("predicted",) if k in fix})
    out = {"before": found.found.before, "after": found.found.after, "verified": "true",
           "found_by": "real program", "real": f"{CONFIRMED} by {version}",
           "static": {**static, "verified": "false", "real": found.why},
           **{k: v for k, v in fix.items()
              if k not in ("before", "after", "verified", "predicted", "withheld", "note", "undecided")}}
    if predict is not None:
        out["predicted"] = predict(entry, found.found.before, found.found.after)
    if out.get("solution") and (words := _found_change(shown, found.found, prefix)):
        out["solution"] = words
    return out


def _merged_withheld(fix: Mapping[str, Any], withheld: Mapping[str, Any], found: Outcome,
                     version: str, named: Mapping[str, str] | None = None) -> dict[str, Any]:
    """`fix`, whose pair is `withheld`, after the real program ran that pair (`found`)."""
    if found.status == CONFIRMED:  # it works as written: shown (the static prediction kept)
        out = {k: v for k, v in fix.items() if k not in ("withheld", "note", "undecided")}
        out.update(before=withheld["before"], after=withheld["after"], verified="true",
                   real=f"{found.why} ({version})", **({"needs": withheld["needs"]} if withheld.get("needs") else {}))
        return out
    out = dict(fix)  # still no pair to show: what the real program did with the withheld one
    if out.get("before") is None and found.why.startswith(_BEFORE_RAISED):
        from analyzers.example_check import before_only  # its `before` raises this entry: shown

        out = before_only({**fix, **withheld}, _instead(found.why, named), f"the real program, {version}")
    out["withheld"] = {**withheld, "real": f"{found.why} ({version})"}
    return out


def apply_outcomes(entries: Sequence[Any], outcomes: Outcomes, version: str | None,
                   predict: Predict | None = None, prefix: str = "", named: Mapping[str, str] | None = None,
                   runs: Runs | None = None) -> list[Any]:
    """`entries` (analyzers.entries.Entry) with every example's real outcome for `version`
    merged; `prefix` (the profile's launch command) reads the commands the real program found;
    `named`: the entries' words by id (`Template.quoted`), for what a refuted command met;
    `runs`: whether the machine the outcomes come from runs an example (`merged_fix`)."""
    if version is None:
        return list(entries)
    out = []
    for entry in entries:
        variants = tuple(replace(v, example_fix=merged_fix(entry.id, v.example_fix, outcomes, version, predict, prefix,
                                                           named, runs),
                                 solutions=merged_solutions(entry.id, v.solutions, outcomes, version, predict, prefix))
                         if v.example_fix is not None else v for v in entry.variants)
        out.append(replace(entry, example_fix=merged_fix(entry.id, entry.example_fix, outcomes, version, predict,
                                                         prefix, named, runs),
                           solutions=merged_solutions(entry.id, entry.solutions, outcomes, version, predict, prefix),
                           variants=variants))
    return out


def merged_solutions(entry: str, solutions: Sequence[Any] | None, outcomes: Outcomes, version: str,
                     predict: Predict | None = None, prefix: str = "") -> Any:
    """`solutions` (`analyzers.solution.Solution`) with `verified` from the real outcome of
    each one's command; a solution without a command, or not run, stays "not-run". Where the
    real program refuted the command, the catalog does not show it as a fix: a command it
    found and confirmed takes its place (any further change it needed said in the words);
    else a change that met another error, or did not clear this one, once this error was
    reached is no solution (not listed), and one whose command never reached this error
    keeps its words without the command."""
    if solutions is None:
        return None
    out = []
    for sol in solutions:
        found = outcomes.get(entry, sol.before, sol.command, version) if sol.command else None
        if found is None or found.status == NOT_RUN:
            out.append(replace(sol, verified=_VERIFIED[NOT_RUN], real=""))
        elif found.found is not None and prefix and (shown := _found_solution(
                entry, sol, found.found, version, predict, prefix)) is not None:
            out.append(shown)
        elif found.status != REFUTED:
            out.append(replace(sol, verified=_VERIFIED[found.status], real=f"{found.why} ({version})"))
        elif not found.why.startswith(_BEFORE_RAISED):
            out.append(replace(sol, before=None, command=None, predicted="unknown", verified=_VERIFIED[NOT_RUN],
                               real=f"its command did not reach this error: {found.why} ({version})"))
    return tuple(out)


def _found_change(shown: Mapping[str, Any], found: Found, prefix: str) -> str:
    """The change the pair the real program `found` makes, in words, where it is not the change
    of the pair it replaces (`shown`); "" where it is, or the commands cannot be read."""
    try:
        made, own = _between(found.before, found.after, prefix), _between(shown["before"], shown["after"], prefix)
    except (ValueError, KeyError):
        return ""
    return made.sentence() if made and made != own else ""


def _between(before: str, after: str, prefix: str) -> Any:
    """The `Change` that turns shell line `before` into `after`; ValueError where one cannot be read."""
    from analyzers.launch import split_command
    from analyzers.solution import Change

    return Change.between_lines(split_command(before, prefix), split_command(after, prefix))


def _found_solution(entry: str, sol: Any, found: Found, version: str, predict: Predict | None,
                    prefix: str) -> Any | None:
    """`sol` on the pair the real program found and confirmed in place of its refuted command;
    a change that pair makes beyond the solution's own (not to its `before` too) is said. None
    where that further change drops or changes what `before` gives: it may clear the error
    alone (dropping the option the check needs), so the solution's own change proves nothing."""
    from analyzers.launch import split_command

    try:
        before = split_command(found.before, prefix)
        own, made = _between(sol.before, sol.command, prefix), _between(found.before, found.after, prefix)
    except ValueError:
        return None
    extra = made.beyond(own)
    given = {o for o, _ in option_groups(before.argv)} | {k for k, _ in before.env}
    if extra.drop or any(o in given for o, _ in (*extra.set, *extra.env)):
        return None
    return replace(sol, text=f"{sol.text.rstrip('.')}, and {extra.words()}." if extra else sol.text, change=made,
                   before=found.before, command=found.after, verified="true",
                   predicted=predict(entry, found.before, found.after) if predict is not None else sol.predicted,
                   real=f"{CONFIRMED} by {version}, on a command the real program found")
