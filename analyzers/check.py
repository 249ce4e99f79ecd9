"""`errcat check`: will this command line work, and if not, what to change.

The whole-pipeline prediction (`analyzers.first_error`) of a command line on a platform,
as a user asks it before launching: argparse's refusal (`analyzers.cli_parser`), else the
first error that fires and the change after which it does not, then the errors that
would follow, each moved off in turn (the moves `errcat confirm`'s examples are repaired
with, `analyzers.example_check`), until the prediction is ok or undecided; or ok, with
the settings the program will adjust; or undecided, with the facts that decide it.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from analyzers.cli_parser import Refusal
from analyzers.eval_model import Model
from analyzers.example_check import ExampleJudge, applied
from analyzers.first_error import ERROR, OK, UNDECIDED, Prediction
from analyzers.kleene import UNKNOWN
from analyzers.launch import Launch
from analyzers.resolution import resolve
from analyzers.solution import Change
from analyzers.solution_check import with_change
from extractor.ir import Expr, Ref, RefKind, Seq

# a check's status: first_error's OK and UNDECIDED, or these
FAILS, REFUSED = "will-fail", "refused"
MAX_STEPS = 6  # errors moved off in turn before giving up on a working command


@dataclass(frozen=True, slots=True)
class Step:
    """An error the launch meets, and the launch after the change that moves it off that
    error (None: no change of options found)."""

    entry: str
    fixed: Launch | None
    then: Prediction | None = None  # the prediction for `fixed`


@dataclass(frozen=True, slots=True)
class Adjusted:
    """A setting the program changes for this launch: what it was (given or its default) and what it becomes."""

    dest: str
    before: Any
    after: Any


@dataclass(frozen=True, slots=True)
class Checked:
    status: str  # OK, FAILS, UNDECIDED or REFUSED
    launch: Launch  # as the user gave it
    steps: tuple[Step, ...] = ()  # FAILS: the first is what the user meets
    deciding: tuple[str, ...] = ()  # UNDECIDED: the facts that decide it
    may_fire: tuple[str, ...] = ()  # UNDECIDED: the entries that may fire, in pipeline order
    adjusted: tuple[Adjusted, ...] = ()  # WORKS: what the program changes
    refusal: Refusal | None = None  # REFUSED: argparse's words

    @property
    def first(self) -> str | None:
        return self.steps[0].entry if self.steps else None

    @property
    def fixed(self) -> Launch | None:
        """The launch after every change found, when it is predicted to work (None otherwise)."""
        last = self.steps[-1] if self.steps else None
        return last.fixed if last is not None and last.then is not None and last.then.status == OK else None


# an entry's own advice, by its id: the changes its listed solutions make, in their order
Advised = Callable[[str], Sequence[Change]]


def check_launch(judge: ExampleJudge, argv: Sequence[str], launch: Launch, advised: Advised | None = None) -> Checked:
    """What the pipeline says of `launch` (the user's, from `argv`) on the judge's platform;
    each error met is moved off by its entry's own advice first (`advised`), where it gets past it."""
    refused = judge.cli.refusal(argv) if judge.cli is not None else None
    if refused is not None:
        return Checked(REFUSED, launch, refusal=refused)
    stated = judge.judged(launch)[0]
    foreign = judge.stated.foreign(stated)
    said = judge.pipeline.predict(stated, foreign)  # what it needs of another machine too
    if said.status == OK:
        return Checked(OK, launch, adjusted=adjusted_settings(judge.pipeline.model, stated))
    if said.status != ERROR:
        return Checked(UNDECIDED, launch, deciding=tuple(dict.fromkeys((*said.deciding, *foreign))),
                       may_fire=said.may_fire)
    return Checked(FAILS, launch, steps=tuple(_steps(judge, launch, said, advised or (lambda _: ()))))


def _steps(judge: ExampleJudge, launch: Launch, said: Prediction, advised: Advised) -> list[Step]:
    """The errors met one after another, each moved off while keeping the earlier ones off;
    a move never changes the model (`judge.stated.examples.model`)."""
    steps: list[Step] = []
    off: list[Expr] = []
    current = launch
    model_dest = judge.stated.examples.model
    for _ in range(MAX_STEPS):
        if said.status != ERROR or said.entry is None:
            break
        target = said.entry
        goal = judge.goal(target, off=True)
        # the entry's own advice first ("add the missing --ssl-certfile", not "drop --ssl-keyfile"):
        # taken where it meets no other error for sure, even where dropping the option would surely work
        found = _advised_past(judge, current, [with_change(current, c, judge.flags) for c in advised(target)])
        if found is None and goal is not None:
            moves = [applied(current, d) for d in judge.moves(target, goal, off, judge.judged(current)[0])
                     if model_dest not in d[0] and model_dest not in d[1]]
            found = _past(judge, target, current, moves)
        steps.append(Step(target, found[0], found[1]) if found is not None else Step(target, None))
        if found is None or goal is None:
            break
        off.append(goal)
        current, said = found
    return steps


def _judged_moves(judge: ExampleJudge, current: Launch,
                  tried: Sequence[Launch]) -> Iterator[tuple[Launch, Prediction]]:
    """Each of the launches `tried` that keeps `current`'s model, with its prediction."""
    model_dest = judge.stated.examples.model
    for moved in tried:
        if moved.flags.get(model_dest) == current.flags.get(model_dest):
            yield moved, judge.judged(moved)[1]


def _advised_past(judge: ExampleJudge, current: Launch, tried: Sequence[Launch]) -> tuple[Launch, Prediction] | None:
    """Of the entry's advised changes `tried`, the first that meets no error for sure, or none."""
    return next(((m, a) for m, a in _judged_moves(judge, current, tried) if a.status != ERROR), None)


def _past(judge: ExampleJudge, target: str, current: Launch,
          tried: Sequence[Launch]) -> tuple[Launch, Prediction] | None:
    """Of the launches `tried` (changes of `current`, never of its model), the first that gets past
    `target`, or a later one the pipeline says works where the first does not surely."""
    found: tuple[Launch, Prediction] | None = None
    for moved, after in _judged_moves(judge, current, tried):
        if after.status == ERROR and after.entry == target:
            continue
        if found is None or (after.status == OK and found[1].status != OK):
            found = (moved, after)
    return found


def adjusted_settings(model: Model, launch: Launch) -> tuple[Adjusted, ...]:
    """The options every adjustment together changes for `launch`: known values that differ
    from what the launch gives or the declared default (settings no option sets, the
    program's own bookkeeping, are left out)."""
    flags = model.flags
    dests = sorted({r.dest for r in model.rules if flags is not None and (f := flags.by_dest(r.dest)) is not None
                    and f.option is not None and not f.derived and f.dest == r.dest})
    if not dests:
        return ()
    values = resolve(model, launch, model.rule_set(Seq(tuple(Ref(RefKind.FLAG, d, d) for d in dests))))
    out = []
    for dest in dests:
        if dest not in values.adjusted:
            continue
        after = values.adjusted[dest]
        before = launch.flags[dest] if dest in launch.flags else model.flag_default(dest)
        if after is not UNKNOWN and before is not UNKNOWN and not _same(before, after):
            out.append(Adjusted(dest, before, after))
    return tuple(out)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return dict(a) == dict(b)
    return type(a) is type(b) and a == b
