"""Static first-error prediction: which catalog entry a launch meets first, if any.

The real program stops at its first error, so what a user sees is the first entry, in
the order the validation pipeline runs its checks, whose condition holds. Each entry's
condition (its trigger, and one of its table rows when it has some) is evaluated on the
launch (`analyzers.evaluate`); walking the entries in pipeline order:

- every condition false: ``ok``;
- the first condition that is not false is true: that entry (``error``);
- it is unknown: ``undecided``, with the facts that decide it (the unknown leaves of
  the entries that may fire before the first one that surely does).

The order is `pipeline_order`, the one place that knows it (issue 13's reach/order work
replaces it). Today's rule, as far as the catalog knows the program: the profile's
validation steps in order (`real.validate`: ``prepare_server_args``, ``resolve_once``,
``check_server_args`` for sglang 0.5.2x); checks of a custom argparse action (guarded by
their option being on the command line) come first, while the command line is parsed;
an entry belongs to the step its function is named after, and an entry of any other
function to the step before the last (the hooks a launcher's resolution or
``__post_init__`` runs before the final check); within a step, files by path and
entries by line.
"""
from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from analyzers.entries import START, validation_can_raise, weighed
from analyzers.eval_model import Model
from analyzers.evaluate import evaluate, undecided_leaves
from analyzers.examples import Examples
from analyzers.flags import FlagModel
from analyzers.kleene import Truth
from analyzers.launch import Launch
from analyzers.rules import rules_from_adjustments
from extractor.inline import inline_returns

if TYPE_CHECKING:
    from analyzers.platform_facts import Stated
from extractor.ir import FALSE, ON_COMMAND_LINE, TRUE, Apply, Expr, Truthy, conj, conjuncts, disj, from_dict, negate
from extractor.profile import ExampleRules
from extractor.templates import RERAISED

OK, ERROR, UNDECIDED = "ok", "error", "undecided"
MAX_DECIDING = 12  # facts listed for an undecided prediction


@dataclass(frozen=True, slots=True)
class Check:
    """One catalog entry as the pipeline meets it."""

    id: str
    path: str
    line: int
    function: str
    condition: Expr  # when it fires
    order: int | None = None  # where a launch starts its function (the entry's `order`), if known
    reach: Expr = TRUE  # what must hold to reach it: no earlier check of `trigger.reach` fires
    # a crash (Python's own error): counted only where it surely fires, since its path is read
    # from code that never meant it as a check (an unknown one would make most launches undecided)
    quiet: bool = False
    message: str = ""  # its message template (``requires --tp-size 2 or more``): the options it names

@dataclass(frozen=True, slots=True)
class Prediction:
    status: str  # OK, ERROR or UNDECIDED
    entry: str | None = None  # ERROR: the entry the user sees
    may_fire: tuple[str, ...] = ()  # entries not surely false, in pipeline order (up to the first sure one)
    deciding: tuple[str, ...] = ()  # UNDECIDED: the unknown leaves that decide it
    sure: str | None = None  # the first entry that surely fires (the last of `may_fire`), if any

    @property
    def first(self) -> str:
        """What the prediction names: an entry id, ``ok`` or ``undecided``."""
        return self.entry if self.entry is not None else self.status

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"status": self.status}
        if self.entry is not None:
            data["entry"] = self.entry
        if self.may_fire:
            data["may_fire"] = list(self.may_fire)
        if self.deciding:
            data["deciding"] = list(self.deciding)
        if self.sure is not None:
            data["sure"] = self.sure
        return data

    def covers(self, first: str) -> bool:
        """Is `first` (an entry id or ``ok``) one of the outcomes this prediction leaves open?"""
        return first in self.may_fire if first != OK else self.sure is None


def check_of(entry: Mapping[str, Any]) -> Check:
    """A catalog.json entry as a `Check`: its trigger, and one of its rows when it has a table
    (the rows validation can pass: a row only calls made as the server starts pass never is)."""
    trigger = from_dict(entry["trigger"]["expr"])
    variants = entry.get("variants") or ()
    rows = [from_dict(v["trigger"]["expr"]) for v in variants if v.get("stage") != START]
    rows = rows if rows or not variants else [FALSE]
    source = entry["source"]
    order = entry.get("order")
    reach = conj([negate(from_dict(r["expr"])) for r in entry["trigger"].get("reach") or ()])  # each: what fires
    return Check(entry["id"], source["path"], int(source["line"]), str(source.get("function") or ""),
                 conj([trigger, disj(rows)]) if rows else trigger, int(order) if order is not None else None,
                 reach, entry.get("kind") == "crash", str(entry.get("template") or ""))


def _checks_of(data: Mapping[str, Any], architecture: Callable[[str], bool]) -> tuple[list[Check], list[Check]]:
    """The checks of a catalog's data a launch's validation may meet: those weighed for every
    launch, and those judging their own examples only (`Pipeline.own_only`)."""
    functions = {f["name"]: (tuple(f["params"]), from_dict(f["returns"])) for f in data.get("functions") or ()}
    raised = [e for e in data["entries"] if validation_can_raise(e) and e.get("template") != RERAISED]
    apart = {e["id"] for e in raised if not weighed(e, architecture)}
    checks = [_after_unweighed(check_of(e), e, apart) for e in raised if e["id"] not in apart]
    own_only = [check_of(e) for e in raised if e["id"] in apart]
    if not functions:
        return checks, own_only

    def inlined(these: list[Check]) -> list[Check]:  # a call of a plain function is what it returns
        return [replace(c, condition=inline_returns(c.condition, functions)) for c in these]

    return inlined(checks), inlined(own_only)


def _after_unweighed(check: Check, entry: Mapping[str, Any], apart: Collection[str]) -> Check:
    """`check` needing, besides its condition, that the earlier checks of its function the
    prediction leaves out (`apart`: `Pipeline.own_only`) do not fire: nothing else would say
    they may fire first (a launch meeting both meets the earlier one)."""
    needs = [negate(from_dict(r["expr"])) for r in entry["trigger"].get("reach") or () if r.get("entry") in apart]
    return replace(check, condition=conj([check.condition, *needs])) if needs else check


# what of_catalog reads: the check, and what decides whether and how it is weighed
_READ = ("id", "trigger", "source", "order", "stage", "template", "reachable", "internal", "kind", "outside_targets",
         "environment")


def pipeline_fields(entry: Mapping[str, Any]) -> dict[str, Any]:
    """What `Pipeline.of_catalog` reads of a catalog.json entry (its rows' triggers, no advice):
    a catalog's pipeline built without holding every entry whole."""
    out = {k: entry[k] for k in _READ if k in entry}
    if entry.get("variants"):
        out["variants"] = [{k: v[k] for k in ("trigger", "stage") if k in v} for v in entry["variants"]]
    return out


def pipeline_order(checks: Iterable[Check], steps: Sequence[str]) -> tuple[Check, ...]:
    """`checks` in the order the validation pipeline runs them (see the module doc); `steps`:
    the names of the validation steps in order (a profile's `Validation.steps`)."""
    rank = {name: i for i, name in enumerate(steps)}
    hooks = max(len(steps) - 2, 0)  # where a function no step names runs

    def key(check: Check) -> tuple[int, int, str, int, str]:
        if while_parsing(check):
            return (-1, 0, check.path, check.line, check.id)
        if check.order is not None:  # the program's own order is known
            return (0, check.order, "", check.line, check.id)
        return (1, rank.get(check.function.rpartition(".")[2], hooks), check.path, check.line, check.id)

    return tuple(sorted(checks, key=key))


def predict(launch: Launch, checks: Sequence[Check], model: Model) -> Prediction:
    """The first entry of `checks` (in pipeline order) `launch` meets, or why it cannot be told."""
    may: list[Check] = []
    sure = None
    for check in checks:
        found = evaluate(check.condition, launch, seen_by(check, model))
        if found is Truth.FALSE or (check.quiet and found is not Truth.TRUE):
            continue
        may.append(check)
        if found is Truth.TRUE:
            sure = check.id
            break
    if not may:
        return Prediction(OK)
    ids = tuple(c.id for c in may)
    if len(may) == 1 and sure is not None:
        return Prediction(ERROR, sure, ids, sure=sure)
    unknown = may[:-1] if sure is not None else may
    return Prediction(UNDECIDED, None, ids, _deciding(unknown, launch, model), sure)


def while_parsing(check: Check) -> bool:
    """Is `check` an argparse action's (guarded by its option being on the command line)?
    It runs while the command line is parsed, before any validation step."""
    first = conjuncts(check.condition)[0]
    return isinstance(first, Truthy) and isinstance(first.term, Apply) and first.term.fn == ON_COMMAND_LINE


def seen_by(check: Check, model: Model) -> Model:
    """The model `check` is decided with: the adjustments a launch runs before it (none
    while parsing: an action reads the words the command line gives)."""
    if check.order is not None:
        return model.before(check.order)
    return model.unadjusted() if while_parsing(check) else model


def _deciding(unknown: Sequence[Check], launch: Launch, model: Model) -> tuple[str, ...]:
    found: dict[str, None] = {}
    for check in unknown:
        found.update(dict.fromkeys(undecided_leaves(check.condition, launch, seen_by(check, model))))
        if len(found) >= MAX_DECIDING:
            break
    return tuple(found)[:MAX_DECIDING]


@dataclass(frozen=True, slots=True)
class Pipeline:
    """A catalog as a program to predict with: its checks in pipeline order and the
    evaluator's model (its flag model and adjustments; `examples` says which flag is the model's)."""

    checks: tuple[Check, ...]
    model: Model
    later: frozenset[str] = frozenset()  # entries raised as the server starts, after the validation predicted
    # checks `weighed` leaves out of other launches' predictions (code outside the targets
    # reading what a command line does not decide): each judges its own examples (`with_own`)
    own_only: tuple[Check, ...] = ()
    steps: tuple[str, ...] = ()  # the validation steps `pipeline_order` ranks by

    @classmethod
    def of_catalog(cls, data: Mapping[str, Any], steps: Sequence[str],
                   examples: ExampleRules | None = None) -> Pipeline:
        """From catalog.json's data; `steps`: the names of the validation steps (`pipeline_order`)."""
        # a site no entry point reaches, one guarding the program's own code, or one the
        # launcher runs after validation is never what a launch's validation meets; a bare
        # ``raise`` in an ``except`` block shows the error it caught, which is that error's own entry
        checks, own_only = _checks_of(data, Examples(examples or ExampleRules()).is_architecture)
        known = Examples(examples or ExampleRules()).with_known(c.condition for c in checks)
        flags = FlagModel.from_dict(data["flags"]) if data.get("flags") else None
        model = Model(flags, rules_from_adjustments(data.get("adjustments") or ()), known)
        later = frozenset(e["id"] for e in data["entries"] if e.get("stage") == START)
        return cls(pipeline_order(checks, steps), model, later, tuple(own_only), tuple(steps))

    def with_own(self, entry: str) -> Pipeline | None:
        """This pipeline with the check of `entry`, one of `own_only`, in its place: what its
        own examples meet, the checks before it included. None: no such check."""
        check = next((c for c in self.own_only if c.id == entry), None)
        if check is None:
            return None
        return replace(self, checks=pipeline_order((*self.checks, check), self.steps), own_only=())

    def conditions(self) -> list[Expr]:
        """What a launch's facts are read by: every check's condition, and every adjustment's
        condition and value (a platform fact may decide a setting a check reads), and the
        conditions of the checks judging their own examples only."""
        checks = (*self.checks, *self.own_only)
        return [c.condition for c in checks] + [e for r in self.model.rules for e in (r.when, r.value)]

    def predict(self, launch: Launch, foreign: Sequence[str] = ()) -> Prediction:
        """The first-error prediction; `foreign`: what the launch needs of another machine
        (`Stated.foreign`: another device, whose runtime sglang loads somewhere during
        validation, outside the catalog): where no check fires it is undecided, not ok."""
        found = predict(launch, self.checks, self.model)
        return Prediction(UNDECIDED, None, (), tuple(foreign)) if foreign and found.status == OK else found

    def predict_on(self, stated: Stated, argv: Sequence[str], env: Iterable[tuple[str, str]] = ()) -> Prediction:
        """The prediction for a command line on `stated`'s platform and model stand-ins, with
        what it needs of another machine: what a user asks before launching."""
        launch = stated.launch(argv, env)
        return self.predict(launch, stated.foreign(launch))
