"""Solutions judged by the whole pipeline, as examples are (`analyzers.example_check`).

Each solution advice phrased (`analyzers.advice.solutions`: one change per part of the
trigger) is applied to a command that reaches the error first (the entry's or row's
judged example `before`, or its withheld one where the pipeline says it reaches the
error). Its command is judged like an example's `after`:

- gets past this error and meets no other: listed, ``predicted: "true"``;
- meets another error: the change that moves it off that one (the judge's own moves,
  keeping this solution's change) is added and said in its words; where none works, the
  solution is not listed (a solution that trades this error for another is no solution);
- the pipeline cannot tell: listed, ``predicted: "unknown"``.

A solution with no command to try it on keeps its words, ``predicted: "unknown"``. The
words name the change the command makes: "Change `--a`, `--b` so that …" becomes "Set
`--a` to 2 and `--b` to 4 so that …", and a value exclusion ("a value other than X")
names the value that was judged to work.
"""
from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import replace
from itertools import islice
from typing import Any

from analyzers.argv import option_value
from analyzers.candidate_values import NOT_GIVEN
from analyzers.entries import Entry
from analyzers.eval_model import Model
from analyzers.evaluate import evaluate
from analyzers.example_check import ExampleJudge, applied, delta_of, verdict
from analyzers.examples import is_made_up
from analyzers.first_error import ERROR, seen_by
from analyzers.kleene import Truth
from analyzers.launch import Launch
from analyzers.message_advice import ADVISES
from analyzers.solution import NO_GOAL, Change, Solution, change_between
from analyzers.well_formed import form_text
from analyzers.witness import Leaf, assign, candidates, falsify
from extractor.ir import Compare, Const, Expr, Ref, RefKind, negate, refs

MAX_MOVES = 3  # changes tried to move a solution's command off another error
MAX_VALUES = 8  # values of one setting a solution names, each judged
MAX_OTHERS = 3  # values tried where the words name none (``a value other than x``): the first that works is named
TRADES = " — alone, this makes "  # advice's words for a change an earlier check refuses (`checked_against_reach`)


def check_solutions(entries: Sequence[Entry], judge: ExampleJudge) -> list[Entry]:
    """`entries` with every solution (the entry's and each row's) judged on a command; a
    change of a derived setting no searched change achieves becomes its note."""
    others = {e.id: e.site.called for e in entries}
    out = []
    whole = judge
    for entry in entries:
        judge = whole.of(entry.id)
        variants = []
        for v in entry.variants:
            if v.solutions:
                sols, notes = _notes_apart(_checked(entry.id, v.solutions, v.example_fix or {}, judge, others))
                v = replace(v, solutions=sols, notes=(*v.notes, *notes))
            variants.append(v)
        sols, notes = _notes_apart(_checked(entry.id, entry.solutions, entry.example_fix, judge, others))
        out.append(replace(entry, solutions=sols, advice_notes=(*entry.advice_notes, *notes),
                           variants=tuple(variants)))
    return out


def _notes_apart(sols: Sequence[Solution]) -> tuple[tuple[Solution, ...], tuple[str, ...]]:
    """The solutions with a change or words of their own, and the notes of those without."""
    kept = tuple(s for s in sols if not (s.note and s.change is None))
    return kept, tuple(s.note for s in sols if s.note and s.change is None)


def _reaching(own: str, fix: Mapping[str, Any], judge: ExampleJudge) -> Launch | None:
    """The user's launch of `fix` (shown, else withheld) that the pipeline says meets `own`
    first, or None."""
    withheld = fix.get("withheld")
    for text in (fix.get("before"), withheld.get("before") if isinstance(withheld, Mapping) else None):
        if not isinstance(text, str) or own not in judge.checks:
            continue
        try:
            launch = judge.user_launch(text)
        except ValueError:
            continue
        found = judge.judged(launch)[1]
        if found.status == ERROR and found.entry == own:
            return launch
    return None


def _checked(own: str, sols: Sequence[Solution], fix: Mapping[str, Any], judge: ExampleJudge,
             others: Mapping[str, str]) -> list[Solution]:
    before = _reaching(own, fix, judge)
    if before is None:  # nothing to try them on: the words stay, undecided, save a restated condition
        return _concrete(_past_advice(_untried(own, sols, fix, judge), judge.flags))
    out: list[Solution] = []
    for sol in sols:
        found = _tried_on(own, sol, before, judge, others)
        if found is not None and all(found.text != s.text and not _same_change(found, s) for s in out):
            out.append(found)
    if not any(s.command for s in out) and (shown := _example_change(own, fix, judge)) is not None:
        out.insert(0, shown)  # the example's own change works: it is a solution too
    return _concrete(_past_advice([s for s in out if not any(_dominates(o, s) for o in out)], judge.flags))


def _tried_on(own: str, sol: Solution, before: Launch, judge: ExampleJudge,
              others: Mapping[str, str]) -> Solution | None:
    """`sol` judged on `before`; None where it surely fails, or only undoes an earlier raise of
    the block (`Solution.passed`), which fires instead unless the pipeline says it does not."""
    found = (_tried(own, sol, before, judge, others) if sol.part is not None else
             _advised(own, sol, before, judge, others) if sol.change is not None else replace(sol))
    if found is None or (sol.passed and found.predicted != "true"):
        return None
    if found.predicted == "true" and TRADES in found.text:
        return replace(found, text=found.text.split(TRADES, 1)[0] + ".")  # the whole pipeline says it works
    return found


def _past_advice(sols: list[Solution], flags: Any) -> list[Solution]:
    """`sols` without a trigger part's change of an option the message's own advice (listed)
    already changes under another of its names ("Set `--dcp-size` to at most 1" beside "Set
    `--decode-context-parallel-size` to 1, as the message advises")."""
    advised = {f.dest for s in sols if s.part is None and s.change is not None and s.text.endswith(ADVISES)
               for o, _ in s.change.set if flags is not None and (f := flags.by_option(o)) is not None}
    return [s for s in sols if not advised or not _on_options(s.part, advised)]


def _on_options(part: Expr | None, dests: set[str]) -> bool:
    """Does `part` read options alone, all of them among `dests`?"""
    read = refs(part) if part is not None else []
    return bool(read) and all(r.kind is RefKind.FLAG and r.name in dests for r in read)


def _untried(own: str, sols: Sequence[Solution], fix: Mapping[str, Any], judge: ExampleJudge) -> list[Solution]:
    """`sols` undecided where no command reaches the error; one changing a derived setting is
    made through an option it is derived from, on the example's launch (`_through_options`);
    one that only undoes an earlier raise of the block (`Solution.passed`) is not listed: that
    raise fires instead."""
    given = _shown(fix, judge)
    return [_through_options(own, s, given, judge) if given is not None and s.leaves and s.part is not None
            else replace(s, predicted="unknown") for s in sols if not s.passed]


def _shown(fix: Mapping[str, Any], judge: ExampleJudge) -> Launch | None:
    """The user's launch of `fix`'s `before` (shown, else withheld), whatever error it meets first."""
    withheld = fix.get("withheld")
    for text in (fix.get("before"), withheld.get("before") if isinstance(withheld, Mapping) else None):
        if isinstance(text, str):
            try:
                return judge.user_launch(text)
            except ValueError:
                continue
    return None


def _through_options(own: str, sol: Solution, launch: Launch, judge: ExampleJudge) -> Solution:
    """A change of a setting the code derives, made through an option it is derived from
    (``--disable-cuda-graph`` for the CUDA-graph backend the code picks), where no command is
    known to reach the error: its words and change, undecided; else the words as they were."""
    assert sol.part is not None
    check = judge.checks.get(own)
    model = seen_by(check, judge.pipeline.model) if check is not None else judge.pipeline.model
    stated = judge.judged(launch)[0]
    # a switch first (``--disable-cuda-graph``): the plainest way to change what the code derives
    leaves = sorted(sol.leaves, key=lambda leaf: not _switch(judge.flags, leaf))
    change = change_between(stated, _through(negate(sol.part), leaves, model, stated), judge.flags)
    if not change:
        return replace(sol, predicted="unknown")
    return replace(sol, text=change.sentence(": the setting the check reads is derived from it."),
                   change=change, note="", predicted="unknown")


def _switch(flags: Any, leaf: Leaf) -> bool:
    flag = flags.by_dest(leaf.name) if flags is not None and leaf.kind is RefKind.FLAG else None
    return flag is not None and (flag.action or "").endswith(("store_true", "store_false"))


def _concrete(sols: list[Solution]) -> list[Solution]:
    """`sols` without the untried ones that only restate a condition ("Change `--a`, `--b` so
    that …" with no command), where another one names a change."""
    vague = {id(s) for s in sols if s.command is None and s.text.startswith("Change ") and not s.note}
    return [s for s in sols if id(s) not in vague] if len(vague) < len(sols) else sols


def _items(change: Change) -> set[tuple[str, str, Any]]:
    return {*(("set", k, v) for k, v in change.set), *(("drop", k, "") for k in change.drop),
            *(("env", k, v) for k, v in change.env)}


def _dominates(one: Solution, other: Solution) -> bool:
    """Does `one` do part of what `other` does and get past the error as well? Then `other`
    (dropping LoRA besides the option a row is about) is no solution of its own."""
    if one is other or one.change is None or other.change is None or one.predicted != "true":
        return False
    return _items(one.change) < _items(other.change)


def _example_change(own: str, fix: Mapping[str, Any], judge: ExampleJudge) -> Solution | None:
    """The change the entry's example makes, as a solution in its words, where the pipeline
    says it works."""
    if fix.get("predicted") != "true" or not fix.get("before") or not fix.get("after"):
        return None
    try:
        before, after = judge.user_launch(fix["before"]), judge.user_launch(fix["after"])
    except ValueError:
        return None
    if not _works(own, before, after, judge):
        return None
    change = change_between(before, after, judge.flags)
    return Solution(change.sentence(), None, change, judge.text_of(before), judge.text_of(after),
                    "true")


def _tried(own: str, sol: Solution, before: Launch, judge: ExampleJudge,
           others: Mapping[str, str]) -> Solution | None:
    """`sol` applied to `before` and judged; None where it surely walks into another error
    and no further change (said in its words) moves it off."""
    assert sol.part is not None
    if sol.choice is not None and (chosen := _chosen(own, sol, before, judge)) is not None:
        return chosen
    check = judge.checks[own]
    stated = judge.judged(before)[0]
    model = seen_by(check, judge.pipeline.model)
    if sol.leaves:  # derived settings: through the options they are derived from
        moved = _through(negate(sol.part), sol.leaves, model, stated)
    else:
        moved, _ = falsify(check.condition, sol.part, model, stated)
    delta = delta_of(stated, moved)
    after = applied(before, delta)
    if after == before:  # no change of options makes the part false
        return replace(sol, predicted="unknown")
    return _judged(own, replace(sol, text=worded(sol.text, change_between(before, after, judge.flags))),
                   before, after, judge, others)


def _judged(own: str, sol: Solution, before: Launch, after: Launch, judge: ExampleJudge,
            others: Mapping[str, str]) -> Solution | None:
    """`sol` with the command `after` (its change made to `before`) and the pipeline's word
    on it; where `after` meets another error, with the further change that moves it off
    (said in its words); None where it surely fails."""
    said, met = _verdict(own, before, after, judge)
    text = sol.text
    if said == "false" and met is not None:
        pair = _moved_off(own, met, sol, before, after, judge)
        if pair is None:
            return None
        base, fixed = pair
        if base == before:  # the solution needs a further change: said in its words
            text = further_words(text, change_between(before, after, judge.flags),
                                 change_between(after, fixed, judge.flags), change_between(before, fixed, judge.flags),
                                 others.get(met) or f"entry {met}")
        before, after, said = base, fixed, "true"
    if said == "false":
        return None
    return replace(sol, text=text, change=change_between(before, after, judge.flags),
                   before=judge.text_of(before), command=judge.text_of(after), predicted=said)


def further_words(text: str, own: Change, extra: Change, whole: Change, met: str) -> str:
    """The words of a solution whose change (`own`) needs `extra` to get past the error `met`:
    both said, unless `extra` drops or changes an option `own` sets (then the words would
    contradict each other, and the `whole` change is what the command makes)."""
    if own.options() & extra.options():
        return whole.sentence()
    return f"{text.rstrip('.')}, and {extra.words()}: alone, the change meets {met}."


def _advised(own: str, sol: Solution, before: Launch, judge: ExampleJudge,
             others: Mapping[str, str]) -> Solution | None:
    """The message's own advice (`analyzers.message_advice`, its change known) applied to
    `before` and judged: None where the pipeline says it does not get past this error or meets
    another that no further change moves it off (`_judged`)."""
    assert sol.change is not None
    after = with_change(before, sol.change, judge.flags)
    if after == before:  # the command does not give what the advice changes
        return replace(sol, predicted="unknown")
    return _judged(own, sol, before, after, judge, others)


def with_change(launch: Launch, change: Change, flags: Any) -> Launch:
    """`launch` with `change` made: its options set (their words read as the command line
    reads them) or dropped, its env vars set or unset; an option `flags` does not know is left."""
    for option, words in change.set:
        flag = flags.by_option(option) if flags is not None else None
        if flag is not None:
            launch = launch.with_flag(flag.dest, option_value(option, shlex.split(words), flag))
    for option in change.drop:
        flag = flags.by_option(option) if flags is not None else None
        if flag is not None:
            launch = launch.without_flag(flag.dest)
    for name, value in change.env:
        launch = launch.with_env(name, value)
    return launch


def _same_change(one: Solution, other: Solution) -> bool:
    """Do both solutions make the same change to the same command (the message's advice and a
    trigger part's words for one change)?"""
    return one.change is not None and one.command is not None and (one.change, one.before) == (other.change,
                                                                                              other.before)


def _chosen(own: str, sol: Solution, before: Launch, judge: ExampleJudge) -> Solution | None:
    """`sol` naming only the values (and unsetting, where it said so) that the whole
    pipeline lets past this error from `before`, with the command of the first; None where
    none does (the general search then tries its own change)."""
    from analyzers.advice import shown_value, values_text  # the words advice gives values

    choice = sol.choice
    assert choice is not None
    tried = list(choice.listed) or list(choice.others[:MAX_OTHERS])
    works = [(v, after) for v in tried[:MAX_VALUES] if _works(own, before, after := assign(before, choice.leaf, v),
                                                                judge)]
    unset = assign(before, choice.leaf, NOT_GIVEN)
    unset_works = choice.unset and unset != before and _works(own, before, unset, judge)
    if not works and not unset_works:
        return None
    name = judge.flags.by_dest(choice.leaf.name) if judge.flags is not None and choice.leaf.kind is RefKind.FLAG \
        else None
    shown = f"`{name.option}`" if name is not None and name.option else f"`{choice.leaf.name}`"
    text = form_text(shown, choice.form, shown_value(works[0][0]), unset_works) if choice.form and works else \
        values_text(shown, choice.leaf.kind is RefKind.ENV, [shown_value(v) for v, _ in works], (), unset_works)
    after = works[0][1] if choice.form and works else unset if unset_works else works[0][1]  # a form: its value shown
    return replace(sol, text=text or sol.text, change=change_between(before, after, judge.flags),
                   before=judge.text_of(before), command=judge.text_of(after), predicted="true")


def _works(own: str, before: Launch, after: Launch, judge: ExampleJudge) -> bool:
    return after != before and verdict(own, judge.judged(before)[1], judge.judged(after)[1]) == "true"


def _through(goal: Expr, leaves: Sequence[Leaf], model: Model, launch: Launch) -> Launch:
    """`launch` with one of `leaves` given a value after which `goal` (on settings the code
    derives from them) surely holds; `launch` itself where none does."""
    for leaf in leaves:
        for value in candidates(leaf, goal, model):
            if is_made_up(value):  # ``--revision example``: a value no one would set to change it
                continue
            moved = assign(launch, leaf, value)
            if moved != launch and evaluate(goal, moved, model) is Truth.TRUE:
                return moved
    return launch


def _verdict(own: str, before: Launch, after: Launch, judge: ExampleJudge) -> tuple[str, str | None]:
    """The pipeline's word on the pair, and the other error `after` meets first (if any)."""
    pb, pa = judge.judged(before)[1], judge.judged(after)[1]
    met = pa.entry if pa.status == ERROR and pa.entry != own else None
    return verdict(own, pb, pa), met


def _moved_off(own: str, met: str, sol: Solution, before: Launch, after: Launch,
               judge: ExampleJudge) -> tuple[Launch, Launch] | None:
    """(before, after) moved off the error `met` that `after` meets, `sol`'s change kept:
    first a change made to both commands (the launch a user has besides: `--lora-paths`
    where LoRA without it meets another check), then one to `after` alone. None where
    none of the judge's first moves gets a pair the pipeline says works."""
    goal = judge.goal(met, off=True)
    if goal is None:
        return None
    stated = judge.judged(after)[0]
    keep = (negate(sol.part),) if sol.part is not None else _kept(sol.change, after, judge.flags)
    moves = list(islice(judge.each_move(met, goal, keep, stated), MAX_MOVES))
    for pair in [(applied(before, d), applied(after, d)) for d in moves] + [(before, applied(after, d)) for d in moves]:
        if pair[1] != after and verdict(own, judge.judged(pair[0])[1], judge.judged(pair[1])[1]) == "true":
            return pair
    return None


def _kept(change: Change | None, after: Launch, flags: Any) -> tuple[Expr, ...]:
    """What a move must not undo of `change` (the message's advice, made in `after`): each
    option it sets or drops keeps its value there."""
    if change is None or flags is None:
        return ()
    named = [f for o in (*(o for o, _ in change.set), *change.drop) if (f := flags.by_option(o)) is not None]
    values = {f.dest: after.flags.get(f.dest, f.default) for f in named}
    return tuple(Compare("==", Ref(RefKind.FLAG, dest, dest), Const(value)) for dest, value in values.items()
                 if value is None or isinstance(value, (str, int, float, bool)))


def worded(text: str, change: Change) -> str:
    """`text` naming the change `change` makes, where its words leave the values open."""
    if not change:
        return text
    if text.startswith("Change ") and " so that " in text:  # "Change `--a`, `--b` so that …"
        goal = text.split(" so that ", 1)[1]
        named = set(re.findall(r"`([^`]+)`", goal))
        if not change.set and not any(v for _, v in change.env):  # options dropped: nothing more to say
            return change.sentence()
        if goal == f"{NO_GOAL}.":  # the change is the only sentence there is
            return change.sentence()
        if named and named <= {option for option, _ in change.set}:  # the goal only restates the values set
            return change.sentence()
        return change.sentence(f" so that {goal}")
    if " a value other than " in text and change.set:  # name what works, not only what does not
        return f"{text.split(' to a value other than ', 1)[0]} to {change.set[0][1]} (refused here: " \
               f"{text.split(' a value other than ', 1)[1].split(', or ', 1)[0].rstrip('.')})."
    return text


def is_solution(label: str) -> bool:
    """Is a confirm row's label (`judged_pairs`) a solution's rather than an example's?"""
    return label.startswith("solution ") or " solution " in label


def judged_pairs(entry: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any], Mapping[str, Any]]]:
    """(label, example fix, solution) for every solution of an entry (as catalog JSON) that
    carries a command: what `errcat confirm` runs besides the examples."""
    rows: list[tuple[str, Mapping[str, Any], Sequence[Any]]] = [
        ("", entry.get("example_fix") or {}, entry.get("solutions") or ())]
    rows += [(f"variant {i + 1}", v.get("example_fix") or {}, v.get("solutions") or ())
             for i, v in enumerate(entry.get("variants") or ())]
    return [(f"{label} solution {k + 1}".strip(), fix, sol) for label, fix, sols in rows
            for k, sol in enumerate(sols) if isinstance(sol, Mapping) and sol.get("command")]
