"""Examples judged by the whole pipeline, as the real program meets them.

Advice builds an example from one entry's condition (`analyzers.advice`); the program
runs every check in order, so `before` may stop at an earlier error and `after` may meet
another. Here each example runs through the first-error prediction
(`analyzers.first_error.Pipeline`) on the platform `errcat confirm` runs on, which decides
its ``predicted``: ``"true"`` when `before` meets this entry first and `after` meets none,
``"false"`` when the pipeline surely says otherwise, else ``"unknown"`` with the facts that
decide it. An example the pipeline refutes is repaired the way `errcat confirm` repairs
with the real program: the change that moves the launch off the error that fires instead
is applied (to both commands while `before` still meets this entry), up to `MAX_BLOCKERS`
deep (a check that may fire first on facts the launch leaves open is moved off the same way,
so the prediction is decided), each move keeping this entry's condition and the errors moved off so far; where no
change of options does it, the move may put both commands on another generated model
whose measured facts do. A repaired pair replaces the example only where the pipeline says
it works; a pair it still refutes is withheld (`withheld`), not shown as a command.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from analyzers.advice import RESTATES
from analyzers.argv import launch_of_argv
from analyzers.cli_parser import TargetCli, refused_word
from analyzers.counts import adds_nonpositive
from analyzers.deciders import can_hold, node
from analyzers.entries import EXAMPLE_ROW, with_example_row
from analyzers.eval_model import Model
from analyzers.evaluate import evaluate
from analyzers.examples import model_of
from analyzers.first_error import ERROR, OK, UNDECIDED, Check, Pipeline, Prediction, seen_by
from analyzers.flags import FlagModel
from analyzers.kleene import Truth
from analyzers.launch import Launch, command, split_command
from analyzers.message_advice import named_options
from analyzers.platform_facts import Stated, architecture_of, meets
from analyzers.solution import change_between
from analyzers.withheld import AFTER_FAILS, EARLIER_CHECK, NO_FIX, NOT_REACHED, SERVER_START
from analyzers.witness import Leaf, literals, satisfy, settable_leaves
from extractor.ir import Expr, RefKind, conj, negate, refs
from extractor.real_profile import Platform
from extractor.templates import Template, called

MAX_BLOCKERS = 4  # errors that fire instead, moved off one after another
MODEL_SEARCHES = 4  # stand-ins searched for the options `goal` needs there, beyond those it may already hold on
MODEL_MOVES = 3  # other stand-in models tried per move
MAX_WAYS = 6  # disjuncts of a goal searched one by one
CHECKPOINT = "real checkpoint"  # what an example on an architecture errcat cannot stand in for needs


def verdict(own: str, before: Prediction, after: Prediction) -> str:
    """``"true"``: `before` meets `own` first and `after` no error; ``"false"``: the
    pipeline says surely not; else ``"unknown"``."""
    if before.status == ERROR and before.entry == own and after.status == OK:
        return "true"
    if not before.covers(own) or after.status == ERROR or (before.status == ERROR and before.entry != own):
        return "false"
    if after.sure is not None:
        return "false"
    return "unknown"


def refuted_because(own: str, before: Prediction, after: Prediction) -> str:
    """Why the pipeline says an example does not work as written, for its `note`."""
    return refuted_reason(own, before, after)[1]


def _entry_words(eid: str) -> str:
    return f"entry {eid}"


def refuted_reason(own: str, before: Prediction, after: Prediction,
                   where: Callable[[str], str] = _entry_words) -> tuple[str, str]:
    """Why the pipeline says an example does not work as written: the reason's key and the
    sentence (`where`: another entry's words by its id)."""
    if before.status == ERROR and before.entry != own:
        return EARLIER_CHECK, (f"Predicted not to work as written: `before` stops first at {where(before.entry or '')} "
                               "(an earlier check).")
    if not before.covers(own):
        return NOT_REACHED, ("Predicted not to work as written: `before` does not reach this error (an earlier "
                             "adjustment or check changes the settings it reads).")
    found = after.entry or after.sure
    return AFTER_FAILS, (f"Predicted not to work as written: `after` meets {where(found)}." if found else
                         "Predicted not to work as written.")


WITHHELD = ("No command line found that the pipeline predicts to raise this error and then pass "
            "once fixed; the closest one is kept under `withheld` for `errcat confirm` to try.")


NO_FIX_NOTE = ("No change found after which this error does not fire, and the pipeline cannot tell that `before` "
               "raises it.")


def withheld(fix: Mapping[str, Any], why: str, reason: str) -> dict[str, Any]:
    """`fix` without its commands: a pair the pipeline predicts does not work is not shown
    to users (they copy commands). It moves to `withheld` (with its `reason`), which `errcat
    confirm` still runs and repairs with the real program; `note` says why."""
    out = {k: v for k, v in fix.items() if k not in ("needs", "note")}
    out["withheld"] = {"before": fix["before"], "after": fix["after"], "reason": reason,
                       **({"needs": fix["needs"]} if fix.get("needs") else {})}
    out["before"] = out["after"] = None
    out["note"] = f"{why} {WITHHELD}"
    return out


def _blocker(own: str, before: tuple[Launch, Prediction],
             after: tuple[Launch, Prediction]) -> tuple[str, str, Launch] | None:
    """What a repair moves next, where and from which launch: off the error `before` stops
    at (``"both"``), onto `own` where `before` meets nothing, or leaves only other checks open
    (``"before"``; `after` stays the fix), off the error `after` meets (``"after"``; this
    entry's own where a move of both undid the fix), off an earlier check that may fire first
    on facts the launch leaves open (made surely quiet, as off an error); None: nothing."""
    (sb, pb), (sa, pa) = before, after
    if pb.status == ERROR and pb.entry != own and pb.entry is not None:
        return pb.entry, "both", sb
    if pb.status == OK or (pb.status == UNDECIDED and own not in pb.may_fire):  # `own` surely quiet there
        return own, "before", sb
    if pa.status == ERROR and pa.entry is not None:  # own too: a move made for both undid the fix
        return pa.entry, "after", sa
    if (first := _undecided_first(pb, own)) is not None:
        return first, "both", sb
    if pa.status == UNDECIDED and pa.may_fire and pa.may_fire[0] != own:
        return pa.may_fire[0], "after", sa
    return None


def before_only(fix: Mapping[str, Any], instead: str, by: str) -> dict[str, Any]:
    """`fix` whose `before` raises this error (`by`: "predicted", or the real program) but
    whose fix does not stop it cleanly (`instead`: "`after` meets entry X"): `before` is
    shown, `after` is not; the pair stays under `withheld`, which `errcat confirm` still
    runs and repairs."""
    out = withheld(fix, "", AFTER_FAILS)
    out["before"] = fix["before"]
    if fix.get("needs"):
        out["needs"] = fix["needs"]
    out["note"] = (f"`before` raises this error ({by}); no change found that stops it without raising another"
                   f"{f' ({instead})' if instead else ''}, so only `before` is shown; the pair is kept under "
                   "`withheld` for `errcat confirm` to try.")
    return out


def _undecided_first(before: Prediction, own: str) -> str | None:
    """The first check that may fire before `own` on an undecided `before` that leaves
    `own` open (None: `own` is the first open one, or not among them)."""
    if before.status != UNDECIDED or own not in before.may_fire or before.may_fire[0] == own:
        return None
    return before.may_fire[0]


@dataclass(frozen=True, slots=True)
class Pair:
    """An example's two launches as the user writes them (no platform args, no facts)."""

    before: Launch
    after: Launch


# what a move changes: flags set, flags dropped, env vars (None: unset)
Delta = tuple[dict[str, Any], set[str], dict[str, str | None]]


def delta_of(base: Launch, moved: Launch) -> Delta:
    """What `moved` changed from `base`: flags set, flags dropped, env vars (None: unset)."""
    set_flags = {k: v for k, v in moved.flags.items() if base.flags.get(k, _MISSING) != v}
    dropped = {k for k in base.flags if k not in moved.flags}
    env: dict[str, str | None] = {k: v for k, v in moved.env.items() if base.env.get(k) != v}
    env.update({k: None for k in base.env if k not in moved.env})
    return set_flags, dropped, env


_MISSING = object()


def applied(launch: Launch, delta: Delta) -> Launch:
    set_flags, dropped, env = delta
    for dest in dropped:
        launch = launch.without_flag(dest)
    for dest, value in set_flags.items():
        launch = launch.with_flag(dest, value)
    for name, value in env.items():
        launch = launch.with_env(name, value)
    return launch


class ExampleJudge:
    """Judges and repairs examples of one catalog with its `pipeline` on `stated`'s platform."""

    def __init__(self, pipeline: Pipeline, stated: Stated, flags: FlagModel | None, prefix: str,
                 named: Mapping[str, str] | None = None) -> None:
        self.pipeline = pipeline
        self.named = named or {}  # how notes name each entry (`RaiseSite.called`)
        self.stated = stated
        self.flags = flags
        self.prefix = prefix
        self.cli = TargetCli(flags) if flags is not None else None  # argparse's word on a command
        self.checks: dict[str, Check] = {c.id: c for c in pipeline.checks}
        self._order = {c.id: i for i, c in enumerate(pipeline.checks)}  # pipeline order
        self._seen: dict[str, tuple[Launch, Prediction]] = {}  # command -> its launch and prediction
        self._way: dict[tuple[str, str, str], list[Pair]] = {}  # (entry, commands) -> the pairs its repair stopped at
        self._states: dict[str, Launch] = {}  # command -> its stated launch
        self._own: dict[str, ExampleJudge] = {}  # `of`, once per entry
        # the stand-ins whose model facts are known (measured for this release), the default first
        object_ = stated.real.model_object
        measured = object_.for_release(stated.version) if object_ is not None and stated.version else {}
        # a stand-in whose configuration object failed to build here (the generated config
        # lacks what the architecture's code reads) stops the launch outside the catalog
        self.unbuilt = frozenset(a for a, v in measured.items() if isinstance(v, Mapping) and "error" in v)
        known = sorted(a for a in measured if not a.startswith("(") and a not in self.unbuilt)
        self.stand_ins = tuple(dict.fromkeys([stated.real.default_model, *known]))

    def text_of(self, launch: Launch) -> str:
        return command(launch, self.flags, self.prefix)

    def place(self, eid: str) -> str:
        """Another entry as a note names it (`named`; else its check's place: an id says nothing to a reader)."""
        if eid in self.named:
            return self.named[eid]
        check = self.checks.get(eid)
        return called(Template.of(), "check", check.path, check.line) if check is not None else f"entry {eid}"

    def user_launch(self, text: str) -> Launch:
        line = split_command(text, self.prefix)
        return launch_of_argv(line.argv, self.flags, line.env)

    def judged(self, launch: Launch) -> tuple[Launch, Prediction]:
        """The launch the pipeline judges for `launch` on the platform, and its prediction."""
        text = self.text_of(launch)
        if (found := self._seen.get(text)) is None:
            stated = self._stated(launch, text)
            flags = self.flags
            refused = flags is not None and any(refused_word(flags.by_dest(d), v) for d, v in launch.flags.items())
            found = self._seen[text] = (stated, Prediction(ERROR) if refused else self.pipeline.predict(stated))
        return found

    def _stated(self, launch: Launch, text: str | None = None) -> Launch:
        """`launch` (as `text`, its command, when known) as the platform and its model's
        stand-in state it (flags and env only are read)."""
        text = self.text_of(launch) if text is None else text
        if (found := self._states.get(text)) is None:
            line = split_command(text, self.prefix)
            found = self._states[text] = self.stated.launch(line.argv, line.env)
        return found

    def judge(self, own: str, fix: Mapping[str, Any], at_start: bool = False) -> dict[str, Any]:
        """`fix` (an example dict) with ``predicted`` from the pipeline, repaired where it
        refutes it and a repair works; examples that cannot run here (no command, a
        platform fact in ``needs``) are returned as they are, as are those of a check (or,
        `at_start`, of a row) that only the server's start meets, needing that."""
        if (judge := self.of(own)) is not self:
            return judge.judge(own, fix, at_start)
        out = dict(fix)
        if (at_start or own in self.pipeline.later) and fix.get("before"):  # only a server start meets it
            out["needs"] = sorted({*(fix.get("needs") or ()), SERVER_START})
            return out
        # what this machine gives the example (``platform:is_hip=false`` on the generic
        # platform) needs nothing more: it runs here, and the pipeline judges it here
        needs = fix.get("needs") or ()
        unmet = [n for n in needs if not self._met(n)]
        if fix.get("before") and not fix.get("after") and not unmet and fix.get("predicted") != "true":
            return withheld(out, NO_FIX_NOTE, NO_FIX)  # nothing to copy: no fix, and not known to raise the error
        if not fix.get("before") or not fix.get("after") or unmet or own not in self.checks:
            return self._needing_machine(out)
        try:
            pair = Pair(self.user_launch(fix["before"]), self.user_launch(fix["after"]))
        except ValueError:
            return out
        return self._judged(own, out, pair, needs)

    def _needing_machine(self, out: dict[str, Any]) -> dict[str, Any]:
        """`out`, not judged here, with what its commands need of the machine (`_machine`:
        ``--device hpu`` on a machine without one)."""
        try:
            launches = [self.user_launch(t) for t in (out.get("before"), out.get("after")) if t]
        except ValueError:
            return out
        if more := (self._machine(Pair(launches[0], launches[-1])) if launches else []):
            out["needs"] = sorted({*(out.get("needs") or ()), *more})
        return self._on_one_machine(out, launches[0]) if launches else out

    def _on_one_machine(self, out: dict[str, Any], before: Launch) -> dict[str, Any]:
        """`out`, whose ``needs`` state one value of each fact, else (``--device mps`` fixed by
        ``--device npu``: no machine runs both) only its `before`, with what that needs: the
        fix found changes the machine, which no user on it can do."""
        needs = out.get("needs") or ()
        facts = [n.partition("=")[0] for n in needs]
        if len(set(facts)) == len(facts) or not out.get("after"):
            return out
        other = sorted(set(needs) - set(self._machine(Pair(before, before))))
        shown = before_only({**out, "needs": sorted(set(needs) - set(other))},
                            f"the fix found needs another machine: {', '.join(other)}", "on the machine it needs")
        shown["predicted"] = out.get("predicted", "unknown")
        return shown

    def _judged(self, own: str, out: dict[str, Any], pair: Pair, needs: Sequence[str]) -> dict[str, Any]:
        """The example `out` of `pair`, repaired: shown where the pipeline says it works
        (here, or on a platform stating what this machine lacks), else withheld."""
        found, said, predictions = self._repaired(own, pair)
        if not said and (assumed := self._assumed_on_way(own, pair, found)) is not None:
            return self._on_assumption(out, *assumed)
        # a repair left open whose `after` is its `before` shows no fix: the pair as given instead
        shown = found if said == "true" or (said == "unknown" and not self._same(found)) else pair
        if shown != pair:
            out["before"], out["after"] = self.text_of(found.before), self.text_of(found.after)
        else:
            predictions = self._predictions(pair)
            said = verdict(own, *predictions)
        if out.get("solution"):
            out["solution"] = self._change_words(out["solution"], shown, pair)
        out["predicted"] = said
        if more := self._machine(shown):
            out["needs"] = sorted({*needs, *more})
            if (alone := self._on_one_machine(out, shown.before)) is not out:
                return alone
        out.pop("undecided", None)
        if said == "false" and predictions[0].status == ERROR and predictions[0].entry == own:
            met = predictions[1].entry or predictions[1].sure
            return before_only(out, f"`after` meets {self.place(met)}" if met else "", "predicted")
        if said == "false":
            return withheld(out, *reversed(refuted_reason(own, *predictions, self.place)))
        if said == "unknown":
            deciding = [*predictions[0].deciding, *predictions[1].deciding]
            if deciding:
                out["undecided"] = list(dict.fromkeys(deciding))
        return out

    def _change_words(self, words: str, shown: Pair, pair: Pair) -> str:
        """What the shown example changes, as the example's "Change:" line says it: the words
        of the solution it applies, or the change itself where a repair made it another one, the
        words do not say it ("Set `--x` to 1.0" over an `after` with 0.5) or only restate the
        condition (`advice.RESTATES`: "Change `--x` so that ...")."""
        moved = change_between(shown.before, shown.after, self.flags)
        if not moved or (shown == pair and RESTATES not in words and moved.said_by(words)) or \
                (shown != pair and moved == change_between(pair.before, pair.after, self.flags)):
            return words
        return moved.sentence()

    def _same(self, pair: Pair) -> bool:
        return self.text_of(pair.before) == self.text_of(pair.after)

    def _assumed_on_way(self, own: str, pair: Pair, last: Pair) -> tuple[Pair, dict[str, Any], str] | None:
        """`_assumed` on the pairs the repair of `pair` stopped at, in order: a move onto the
        architecture a check names can meet a check of the platform (a DSA model on a machine
        without CUDA), and the moves tried after it lead away from the entry (onto another
        device's checks); last the pair as given, where the moves led off the check a fact
        of the platform passes (``--mooncake-ib-device ''`` past a missing InfiniBand sysfs)."""
        steps = {self._key(own, p): p for p in [*self._way.get(self._key(own, pair), ()), last, pair]}
        return next((found for step in steps.values() if (found := self._assumed(own, step)) is not None), None)

    def _key(self, own: str, pair: Pair) -> tuple[str, str, str]:
        return own, self.text_of(pair.before), self.text_of(pair.after)

    def _assumed(self, own: str, pair: Pair) -> tuple[Pair, dict[str, Any], str] | None:
        """Where only a fact of the platform gets `pair`'s `before` to this entry (it stops
        first at a check no option moves it off, ``torch.cuda.get_device_capability()
        fails`` on a CPU machine, or this entry's condition reads such a fact, so no move
        keeps it): the pair repaired on a platform that states those facts, the facts
        (``platform:NAME`` -> value) and the pipeline's word there ("true", else "unknown":
        facts that platform leaves open decide it); None where neither is found."""
        stated, first = self.judged(pair.before)
        if first.status == ERROR and first.entry != own and first.entry in self.checks:
            check = self.checks[first.entry]
            wanted, keep = negate(check.condition), self.goal(own, off=False)
        elif first.status == OK and own in self.checks:
            check, keep = self.checks[own], None
            wanted = conj([check.condition, check.reach])
        else:
            return None
        open_: tuple[Pair, dict[str, Any], str] | None = None
        model = seen_by(check, self.pipeline.model)
        options = settable_leaves(wanted, model) if keep is None else []
        ways = [*_passing_facts(wanted, keep, model, stated, options)]
        if keep is not None:  # this entry's own condition may read a fact this machine lacks (a GPU's memory)
            own_model = seen_by(self.checks[own], self.pipeline.model)
            ways += _passing_facts(keep, None, own_model, stated, settable_leaves(keep, own_model))
        platforms = self.stated.real.platforms
        for facts in sorted(ways, key=lambda f: _ruled_out(f, platforms)):
            found, said, _ = self.assuming(facts)._repaired(own, pair)
            if said == "true":
                return found, facts, said
            if said == "unknown" and open_ is None:  # left open there too: the first such one, if none works
                open_ = (found, facts, said)
        return open_

    def assuming(self, facts: Mapping[str, Any]) -> ExampleJudge:
        """This judge on a platform that also states `facts` (``platform:NAME`` -> value)."""
        stated = {k.partition(":")[2]: v for k, v in facts.items()}
        platform = replace(self.stated.platform, facts=tuple({**dict(self.stated.platform.facts), **stated}.items()))
        return self.restated(replace(self.stated, platform=platform))

    def restated(self, stated: Stated, pipeline: Pipeline | None = None) -> ExampleJudge:
        """This judge over another statement of the platform and model (same flags: the
        parser is shared), or over another `pipeline` of the same catalog."""
        judge = ExampleJudge(pipeline or self.pipeline, stated, self.flags, self.prefix, self.named)
        judge.cli = self.cli
        if stated is self.stated:  # the same statement states each command the same way
            judge._states = self._states
        return judge

    def of(self, own: str) -> ExampleJudge:
        """The judge of the examples of `own`: this one, or where `own` is a check the
        pipeline weighs for no other launch (`Pipeline.own_only`), one with that check in its place."""
        if own in self.checks:
            return self
        if own not in self._own:
            pipeline = self.pipeline.with_own(own)
            self._own[own] = self.restated(self.stated, pipeline) if pipeline is not None else self
        return self._own[own]

    def _on_assumption(self, fix: dict[str, Any], pair: Pair, facts: Mapping[str, Any], said: str) -> dict[str, Any]:
        """`fix` showing `pair`, which works (the pipeline says `said`) where the platform
        states `facts`: this machine lacks them, so the example `needs` them and is not run here."""
        out = {k: v for k, v in fix.items() if k not in ("undecided", "note")}
        out["before"], out["after"] = self.text_of(pair.before), self.text_of(pair.after)
        out["predicted"] = "unknown"
        out["assuming"] = {"facts": [fact_text(k, v) for k, v in facts.items()], "predicted": said}
        out["needs"] = sorted({*(fix.get("needs") or ()), *(f"{k}={json.dumps(v)}" for k, v in facts.items()),
                               *self._machine(pair)})
        return out

    def runs_here(self, fix: Mapping[str, Any]) -> bool:
        """Does this machine run `fix` (an example dict): every platform fact it `needs`
        given here? A real outcome on this machine says nothing of one it does not."""
        return all(self._met(n) for n in fix.get("needs") or ())

    def predicted(self, own: str, before: str, after: str) -> str:
        """The pipeline's word on a pair of commands found elsewhere (a repair `errcat
        confirm` ran): "true", "false" or "unknown", as for the entry's own examples."""
        try:
            pair = Pair(self.user_launch(before), self.user_launch(after))
        except ValueError:
            return "unknown"
        if (judge := self.of(own)) is not self:
            return judge.predicted(own, before, after)
        return verdict(own, *self._predictions(pair)) if own in self.checks else "unknown"

    def _met(self, need: str) -> bool:
        """Does this platform give what `need` (``platform:NAME=JSON value``) asks?"""
        return meets(self.stated.platform, need)

    def _machine(self, pair: Pair) -> list[str]:
        """What the pair needs of the machine: an option the platform gives every launch
        (``--device cuda``) given another value (``--device npu`` loads that device's
        runtime before any check runs, so only such a machine can run the example); a real
        checkpoint of an architecture whose generated stand-in does not build here."""
        launches = (pair.before, pair.after)
        needs = {need for launch in launches for need in self.stated.foreign(launch)}
        default = self.stated.real.default_model
        needs |= {f"model:{arch}={json.dumps(CHECKPOINT)}" for launch in launches
                  if (arch := architecture_of(launch.flags.get(self.stated.examples.model), default)) in self.unbuilt}
        return sorted(needs)

    def _predictions(self, pair: Pair) -> tuple[Prediction, Prediction]:
        return self.judged(pair.before)[1], self.judged(pair.after)[1]

    def _repaired(self, own: str, pair: Pair) -> tuple[Pair, str, tuple[Prediction, Prediction]]:
        """The pair, moved off what fires instead (or onto `own` where `before` meets
        nothing) until the pipeline says it works; else the last pair on the way the
        pipeline leaves open ("unknown": facts the launch does not state decide it, and the
        real program runs it), else "" (the pair last moved to). Each move keeps the errors
        moved off before it off (the search is asked for all at once), so the repair does
        not go back and forth between two checks."""
        off: list[Expr] = []  # the negated conditions of the errors moved off so far
        open_pair: Pair | None = None
        way = self._way.setdefault(self._key(own, pair), [])
        for _ in range(MAX_BLOCKERS + 1):
            (sb, pb), (sa, pa) = self.judged(pair.before), self.judged(pair.after)
            said = verdict(own, pb, pa)
            if said == "true":
                return pair, said, (pb, pa)
            if said == "unknown":  # the last one reached: moved off the most checks that may fire first
                open_pair = pair
            moved = None
            for blocker in self._blockers(own, sb, _blocker(own, (sb, pb), (sa, pa))):
                if (moved := self._toward(own, pair, blocker, off)) is not None and self._reaches(own, moved, blocker):
                    break
            if moved is None:
                break
            if moved[1] == "true":
                return moved[0], "true", self._predictions(moved[0])
            pair = moved[0]
            way.append(pair)
        if open_pair is not None:
            return open_pair, "unknown", self._predictions(open_pair)
        return pair, "", (Prediction(OK), Prediction(OK))

    def _blockers(self, own: str, before: Launch,
                  blocker: tuple[str, str, Launch] | None) -> list[tuple[str, str, Launch]]:
        """What to move next (`_blocker`), first onto `own` where `before` stops at a check
        the program runs after `own` while `own`'s condition is surely false on `before`: `before`
        passed `own` there, and moving onto it is the smaller change."""
        if blocker is None:
            return []
        target, where, _ = blocker
        if where != "both" or target == own or self._order.get(target, -1) < self._order.get(own, len(self._order)):
            return [blocker]
        goal = self.goal(own, off=False)
        if goal is None or evaluate(goal, before, seen_by(self.checks[own], self.pipeline.model)) is not Truth.FALSE:
            return [blocker]
        return [(own, "before", before), blocker]

    def _reaches(self, own: str, moved: tuple[Pair, str], blocker: tuple[str, str, Launch]) -> bool:
        """Is `moved` worth going on from: a move onto `own` where `before` now meets it (else
        the error `before` stops at is moved off instead), any other move."""
        return blocker[0] != own or moved[1] == "true" or self.judged(moved[0].before)[1].entry == own

    def _toward(self, own: str, pair: Pair, blocker: tuple[str, str, Launch],
                off: list[Expr]) -> tuple[Pair, str] | None:
        """`pair` moved once as `blocker` says (`_step`), `own` kept as it must be; the error
        moved off joins `off` (kept off from then on)."""
        target, where, _ = blocker
        goal = self.goal(target, off=where != "before")
        if goal is None:
            return None
        keep = self.goal(own, off=where == "after")
        kept = (*off, keep) if keep is not None else tuple(off)
        moved = self._step(own, pair, blocker, goal, kept)
        if moved is not None and where != "before" and target != own:  # never kept off `own`: `before` must meet it
            off.append(goal)
        return moved

    def _step(self, own: str, pair: Pair, blocker: tuple[str, str, Launch], goal: Expr,
              kept: Sequence[Expr]) -> tuple[Pair, str] | None:
        """`pair` moved once toward `goal` (`blocker`: its target, where, from which launch):
        the first move that works ("true"), else one to go on from ("unknown": where `before`
        meets this entry, if one does, as only `after` is left to fix), else None."""
        target, where, launch = blocker
        tried: list[tuple[Pair, str]] = []
        for delta in self.each_move(target, goal, kept, launch):  # the first that works is taken:
            if (done := self._moved(pair, delta, where, own)) is None:  # the later ones are not searched for
                continue
            if done[1] == "true":
                return done
            tried.append(done)
        return next((p for p in tried if self.judged(p[0].before)[1].entry == own), None) or next(iter(tried), None)

    def goal(self, target: str, *, off: bool) -> Expr | None:
        """`target`'s condition and what reaching it needs (its `trigger.reach`: the earlier
        checks of its own function stay quiet), or the condition negated when the launch is
        to be moved `off` it."""
        check = self.checks.get(target)
        if check is None:
            return None
        return negate(check.condition) if off else conj([check.condition, check.reach])

    def _moved(self, pair: Pair, delta: Delta, where: str, own: str) -> tuple[Pair, str] | None:
        """`pair` with `delta` applied `where`: to ``"both"`` launches, to ``"before"``, or
        to ``"after"`` (to both while `before` still meets `own` then); and its verdict,
        "unknown" meaning: not refuted yet, worth moving on from."""
        moved = Pair(applied(pair.before, delta), applied(pair.after, delta))
        # `before` alone (a model is changed in both): `after` keeps the fix, with the move too
        # where that still works (the pair then differs only by the fix)
        if where == "before" and self.stated.examples.model not in delta[0] and (
                moved == pair or verdict(own, *self._predictions(moved)) != "true"):
            moved = Pair(moved.before, pair.after)
        if where == "after":
            keeps = self.judged(moved.before)[1]
            if not (keeps.status == ERROR and keeps.entry == own):
                moved = Pair(pair.before, moved.after)
        if moved == pair:
            return None
        pb, pa = self._predictions(moved)
        said = verdict(own, pb, pa)
        if said == "true":
            return moved, said
        return (moved, "unknown") if pb.covers(own) or pb.status == ERROR else None

    def moves(self, target: str, goal: Expr, keep: Sequence[Expr], launch: Launch) -> list[Delta]:
        """Changes to `launch` after which `goal` (`target`'s condition or its negation) is
        surely true: first dropping one option or env var `target` reads that the launch
        gives (back to its default: the smallest change a user makes), then what the search
        finds with `keep` holding too (on another stand-in model where no change of options
        does it), then without `keep`."""
        return list(self.each_move(target, goal, keep, launch))

    def each_move(self, target: str, goal: Expr, keep: Sequence[Expr], launch: Launch) -> Iterator[Delta]:
        """`moves`, each searched for only when the one before it has been taken (each once)."""
        seen: set[str] = set()
        for delta in self._moves(target, goal, tuple(keep), launch):
            if adds_nonpositive(launch, applied(launch, delta), self.pipeline.model):
                continue  # off one check by dividing by a size of 0: no repair
            if (shown := repr(delta)) not in seen:
                seen.add(shown)
                yield delta

    def _moves(self, target: str, goal: Expr, keep: Sequence[Expr], launch: Launch) -> Iterator[Delta]:
        model = seen_by(self.checks[target], self.pipeline.model)
        kept = conj(list(keep))
        yield from self._drops(target, goal, kept, launch, model)
        both = conj([goal, *keep])
        if named := self._named_leaves(target, both, model):  # the way its message names first
            moved, truth = satisfy(both, model, launch, named)
            if truth is Truth.TRUE and moved != launch:
                yield delta_of(launch, moved)
        moved, truth = satisfy(both, model, launch)
        if truth is Truth.TRUE and moved != launch:
            yield delta_of(launch, moved)
            # the search stops at the first way that holds; each other way of `goal` (a
            # disjunct: ``tp % attn_dp == 0`` where ``dp > 1`` came first) may be the one
            # no later check refuses
            for way in literals(goal)[1:MAX_WAYS]:
                moved, truth = satisfy(conj([*way, *keep]), model, launch)
                if truth is Truth.TRUE and moved != launch:
                    yield delta_of(launch, moved)
        elif truth is not Truth.TRUE:
            yield from self._other_models(goal, kept, model, launch)
            if truth is Truth.UNKNOWN and moved != launch and evaluate(goal, moved, model) is Truth.TRUE:
                yield delta_of(launch, moved)  # `keep` left to what the launch does not state: the real program decides
        if keep:
            moved, truth = satisfy(goal, model, launch)
            if truth is Truth.TRUE and moved != launch:
                yield delta_of(launch, moved)

    def _named_leaves(self, target: str, expr: Expr, model: Model) -> list[Leaf]:
        """The options `target`'s message names (``requires --attn-dp-size equal to --tp-size``)
        among those `expr` reads: the plain way off it, before the smallest change the search finds
        (which may be an option nobody passes for this, ``--elastic-ep-join-mode scale``)."""
        said = named_options(self.checks[target].message, self.flags)
        dests = {f.dest for o in said if self.flags is not None and (f := self.flags.by_option(o)) is not None}
        return [leaf for leaf in settable_leaves(expr, model) if leaf.kind is RefKind.FLAG and leaf.name in dests]

    def _drops(self, target: str, goal: Expr, kept: Expr, launch: Launch, model: Model) -> Iterator[Delta]:
        """Each option or env var `target` reads that `launch` gives, dropped, where `goal`
        then holds and `kept` is not false."""
        for ref in refs(self.checks[target].condition):
            if ref.kind is RefKind.FLAG and ref.name in launch.flags and ref.name != self.stated.examples.model:
                moved = launch.without_flag(ref.name)
            elif ref.kind is RefKind.ENV and ref.name in launch.env:
                moved = launch.with_env(ref.name, None)
            else:
                continue
            if evaluate(goal, moved, model) is Truth.TRUE and evaluate(kept, moved, model) is not Truth.FALSE:
                yield delta_of(launch, moved)

    def _other_models(self, goal: Expr, keep: Expr, model: Model, launch: Launch) -> list[Delta]:
        """Where no change of options does it and `goal` or `keep` reads the model: the launch on
        another stand-in (`<model:Arch>`, whose facts are measured) with what the search
        finds there, for the first `MODEL_MOVES` stand-ins where `goal` and `keep` then hold;
        where none makes both hold, those where `goal` holds and `keep` is left open (a fact
        of the platform may decide it: the pipeline judges the moved pair)."""
        dest = self.stated.examples.model
        both = conj([goal, keep])
        if dest not in launch.flags or not reads_model(model, both):
            return []
        others = [self._stated(launch.with_flag(dest, named)) for named in self._other_stand_ins(launch)]
        found = self._on_models(both, model, launch, others, None)
        return found or self._on_models(goal, model, launch, others, keep)

    def _other_stand_ins(self, launch: Launch) -> list[str]:
        """The model flag's values naming each stand-in other than the one `launch` is on."""
        default = self.stated.real.default_model
        own = architecture_of(launch.flags[self.stated.examples.model], default)
        return ["<model>" if a == default else model_of(a) for a in self.stand_ins if a != own]

    def _on_models(self, goal: Expr, model: Model, launch: Launch, others: Sequence[Launch],
                   keep: Expr | None) -> list[Delta]:
        """Moves onto the first `MODEL_MOVES` of `others` where the search makes `goal` hold
        (and `keep` not false, when given)."""
        found: list[Delta] = []
        # where the bare launch does not rule `goal` out first; then, a few where only options
        # are missing (its facts allow `goal`): each search costs, and most of them find nothing
        open_ = [evaluate(goal, o, model) is not Truth.FALSE for o in others]
        ready = [o for o, ok in zip(others, open_, strict=True) if ok]
        more = [o for o, ok in zip(others, open_, strict=True) if not ok and can_hold(model, goal, o)][:MODEL_SEARCHES]
        for other in [*ready, *more]:
            moved, truth = satisfy(goal, model, other)
            if truth is Truth.TRUE and (keep is None or evaluate(keep, moved, model) is not Truth.FALSE):
                found.append(delta_of(launch, moved))
                if len(found) == MODEL_MOVES:
                    break
        return found


_MODEL_FACTS = (f"{RefKind.MODEL}:", f"{RefKind.RUNTIME}:")


def reads_model(model: Model, expr: Expr) -> bool:
    """Does `expr` read what a stand-in model decides, itself or through the adjustments it
    depends on: a model property, or what a helper builds from the launch
    (``model_config_of().is_hybrid_swa``, which the measured stand-ins state:
    `analyzers.platform_facts.measured_facts`; sglang resolves `--speculative-eagle-topk`
    from it)?"""
    return any(key.startswith(_MODEL_FACTS) for key in node(model, expr).all_reads().facts)


def _passing_facts(wanted: Expr, keep: Expr | None, model: Model, stated: Launch,
                   options: Sequence[Leaf]) -> Iterator[dict[str, Any]]:
    """Platform facts (``platform:NAME`` -> value) under which `wanted` holds on `stated`
    (with the `options` given changed too: moving onto an entry's own condition; the moves
    off a check by options alone were tried already) while `keep` is not false: one
    platform check `wanted` reads at a time, then all of them."""
    leaves = list(dict.fromkeys(Leaf(r.kind, r.name) for r in refs(wanted) if r.kind is RefKind.PLATFORM))
    for allowed in [*([leaf] for leaf in leaves), *([leaves] if len(leaves) > 1 else [])]:
        moved, truth = satisfy(wanted, model, stated, [*allowed, *options])
        facts = {k: v for k, v in moved.facts.items()
                 if k.startswith(f"{RefKind.PLATFORM}:") and stated.facts.get(k, _MISSING) != v}
        if truth is Truth.TRUE and facts and (keep is None or evaluate(keep, moved, model) is not Truth.FALSE):
            yield facts


def _ruled_out(facts: Mapping[str, Any], platforms: Sequence[Platform]) -> int:
    """How many of the profile's named machines state another value for one of `facts`: the
    facts fewest machines rule out are assumed first (a CUDA device that answers its capability
    query, over an NPU)."""
    def rules_out(platform: Platform) -> bool:
        said = (platform.fact(k.partition(":")[2]) for k, v in facts.items())
        return any(stated and found != v for (stated, found), v in zip(said, facts.values(), strict=True))
    return sum(map(rules_out, platforms))


def fact_text(key: str, value: Any) -> str:
    """``platform:NAME`` -> value as a reader reads it: "platform check `NAME` is false"."""
    shown = json.dumps(value) if not isinstance(value, bool) else str(value).lower()
    return f"platform check `{key.partition(':')[2]}` is {shown}"


def judge_examples(entries: Sequence[Any], judge: ExampleJudge) -> list[Any]:
    """`entries` (`analyzers.entries.Entry`) with every example and row example judged."""
    from dataclasses import replace

    out = []
    for entry in entries:
        variants = tuple(replace(v, example_fix=judge.judge(entry.id, v.example_fix, bool(v.stage)))
                         if v.example_fix is not None else v for v in entry.variants)
        row = entry.extra.get(EXAMPLE_ROW)
        fix = judge.judge(entry.id, entry.example_fix, bool(row and entry.variants[row - 1].stage))  # a start row's
        extra = entry.extra
        if fix.get("predicted") != "true":  # advice took a row's example the pipeline refutes: another row's works
            works = next((i for i, v in enumerate(variants) if v.example_fix is not None
                          and v.example_fix.get("predicted") == "true" and v.example_fix.get("before")), None)
            if works is not None:
                fix, extra = variants[works].example_fix or fix, with_example_row(extra, works)
        out.append(replace(entry, example_fix=fix, variants=variants, extra=extra))
    return out
