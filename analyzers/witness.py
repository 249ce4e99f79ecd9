"""Find launches that make a condition true: the "before" of an example fix, and the
change that makes it false again (the "after").

Search, not algebra: the condition is split into disjuncts of literals; each literal's
settable leaves (flags with an option, env vars) try candidate values taken from the
literal's constants, the flag's declared choices and its type; the evaluator decides.
Whatever is returned was checked by `analyzers.evaluate`.
"""
from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from analyzers.candidate_values import (
    NOT_GIVEN,
    constants_in,
    declared_values,
    env_candidates,
    flag_candidates,
    flag_of,
    numbers_near,
    unique,
)
from analyzers.counts import adds_nonpositive, person_values
from analyzers.deciders import can_hold, deciders, node
from analyzers.eval_model import Identity, Model, expr_key
from analyzers.evaluate import evaluate
from analyzers.examples import WORD
from analyzers.json_fields import is_json_field, with_json_field
from analyzers.kleene import Truth
from analyzers.launch import Launch, is_placeholder
from analyzers.path_tests import path_option
from analyzers.settings import base_dest
from analyzers.ways import fixed_on, literals
from extractor.ir import (
    FALSE,
    TRUE,
    And,
    Expr,
    Not,
    Or,
    Ref,
    RefKind,
    children,
    conjuncts,
    is_member_text,
    negate,
    refs,
)

MAX_GROWN = 8  # a list is grown to at most this many items to meet a length the condition names
MAX_ADJUSTING = 4  # settings deciding an adjustment, each tried with a literal's own where those alone fail
MAX_COMBINATIONS = 64  # per literal with two or more settable leaves



@dataclass(frozen=True, slots=True)
class Leaf:
    """Something a user sets: a flag (by dest) or an env var; or a fact an example may
    assume (a platform check, a model property: the user picks the machine and model)."""

    kind: RefKind  # FLAG or ENV; PLATFORM or MODEL for an assumed fact
    name: str
    key: str = field(init=False, repr=False, compare=False)  # "kind:name", as `Launch.facts` keys facts

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", f"{self.kind}:{self.name}")


# ------------------------------------------------------------------ memo

Disjuncts = tuple[tuple[Expr, ...], ...]
LaunchKey = str  # see `_launch_key`


@dataclass(slots=True)
class WitnessMemo:
    """The search's answers over one model, one dict per question (it asks the same ones
    many times). Conditions are keyed by `expr_key` (one int per shape), launches by
    `_launch_key`; the key types say which question each dict answers."""

    leaves: dict[int, tuple[Leaf, ...]] = field(default_factory=dict)  # condition -> its settable leaves
    literals: dict[int, Disjuncts] = field(default_factory=dict)  # condition -> its disjunctive form
    # (leaf, condition) -> values to try; (leaf, repr of the constants) -> the same, shared by the
    # many conditions that name the same constants (repr: 1, 1.0 and True are different values)
    candidates: dict[tuple[Leaf, int], tuple[Any, ...]] = field(default_factory=dict)
    values: dict[tuple[Leaf, str], tuple[Any, ...]] = field(default_factory=dict)
    # (and, literal, leaves, leaves tried alongside, launch) -> the launch `_fix` finds
    fixes: dict[tuple[int, int, tuple[Leaf, ...], tuple[Leaf, ...], LaunchKey], Launch] = field(default_factory=dict)
    # (condition, leaves allowed to change or None: all, launch) -> what `satisfy` finds
    satisfied: dict[tuple[int, tuple[Leaf, ...] | None, LaunchKey], tuple[Launch, Truth]] = field(
        default_factory=dict)
    base: Launch | None = None  # `base_launch`
    facts: Identity[Mapping[str, Any], str] = field(default_factory=Identity)  # a launch's facts -> their repr


def _memo(model: Model) -> WitnessMemo:
    """`model`'s witness memo, created on first use (kept in its `EvalCache.searches` under its type)."""
    searches = model.cache.searches
    found = searches.get(WitnessMemo)
    if found is None:
        found = searches[WitnessMemo] = WitnessMemo()
    return found


# ------------------------------------------------------------------ leaves


def settable(ref: Ref, model: Model) -> Leaf | None:
    """The leaf a user changes to change `ref` (``device.startswith()`` -> ``device``)."""
    if ref.kind is RefKind.ENV:
        return Leaf(RefKind.ENV, ref.name)
    if ref.kind is RefKind.RUNTIME and (option := path_option(ref.name)) is not None:
        return settable(Ref(RefKind.FLAG, option, option), model)  # a path test: changed through the path
    if ref.kind is not RefKind.FLAG:
        return None
    name = base_dest(ref.name)
    if is_json_field(name, model.flags):  # written into that option's JSON (`assign`)
        return Leaf(RefKind.FLAG, name)
    if not name.isidentifier():
        return None
    if model.flags is None or not model.flags.flags:
        return Leaf(RefKind.FLAG, name)
    flag = model.flags.by_dest(name)
    return Leaf(RefKind.FLAG, flag.dest) if flag is not None and flag.option else None


def settable_leaves(expr: Expr, model: Model) -> list[Leaf]:
    return list(_settable(expr, model))


FACT_KINDS = (RefKind.PLATFORM, RefKind.MODEL)


def fact_leaves(expr: Expr) -> list[Leaf]:
    """The platform checks and model properties `expr` reads, as leaves an example may assume."""
    return list(dict.fromkeys(Leaf(r.kind, r.name) for r in refs(expr) if r.kind in FACT_KINDS))


def _fact(leaf: Leaf) -> bool:
    return leaf.kind in FACT_KINDS


_JUNCTIONS = (And, Or, Not)


def _settable(expr: Expr, model: Model) -> tuple[Leaf, ...]:
    """In first-seen order (and/or/not: their operands' leaves, merged)."""
    memo = _memo(model).leaves
    key = expr_key(model, expr)
    found = memo.get(key)
    if found is None:
        if isinstance(expr, _JUNCTIONS):
            found = tuple(dict.fromkeys(leaf for arg in children(expr) for leaf in _settable(arg, model)))
        else:
            found = tuple(dict.fromkeys(leaf for r in refs(expr) if (leaf := settable(r, model)) is not None))
        memo[key] = found
    return found


# ------------------------------------------------------------------ disjunctive form


def _literals(expr: Expr, model: Model) -> list[tuple[Expr, ...]]:
    memo = _memo(model).literals
    key = expr_key(model, expr)
    found = memo.get(key)
    if found is None:
        found = memo[key] = tuple(literals(expr))
    return list(found)


# ------------------------------------------------------------------ candidates


def fact_candidates(leaf: Leaf, consts: Sequence[Any], model: Model) -> list[Any]:
    """NOT_GIVEN (unknown), then the condition's constants, true and false, numbers near;
    an architecture is a name or a list of names (``architectures[0] == "A"`` or
    ``"A" in architectures``): both are tried."""
    if leaf.kind is RefKind.MODEL and model.examples.is_architecture(leaf.name):
        names = [c for c in consts if isinstance(c, str) and not is_member_text(c)]
        return [NOT_GIVEN, *(v for c in dict.fromkeys(names) for v in (c, (c,)))]
    out: list[Any] = [NOT_GIVEN, *(c for c in consts if c is not None), True, False]
    near = numbers_near(consts, "int")
    # a pair whose first item is near a constant: a fact read by index (``get_device_capability()[0] >= 10``)
    out += near + [(n, 0) for n in near]
    return list(unique(out))


def candidates(leaf: Leaf, near: Expr, model: Model) -> list[Any]:
    """Values to try for `leaf` when `near` is the condition to decide; NOT_GIVEN first."""
    memo = _memo(model)
    key = (leaf, expr_key(model, near))
    found = memo.candidates.get(key)
    if found is None:
        consts = constants_in(near)
        by_consts = (leaf, repr(consts))
        found = memo.values.get(by_consts)
        if found is None:
            found = memo.values[by_consts] = tuple(_candidates_of(leaf, consts, model))
        memo.candidates[key] = found
    return list(found)


def _candidates_of(leaf: Leaf, consts: Sequence[Any], model: Model) -> list[Any]:
    if leaf.kind is RefKind.ENV:
        return env_candidates(leaf.name, consts, model)
    if _fact(leaf):
        return fact_candidates(leaf, consts, model)
    return flag_candidates(leaf.name, consts, model)


def assign(launch: Launch, leaf: Leaf, value: Any) -> Launch:
    if _fact(leaf):
        return launch.with_fact(leaf.key, None if value is NOT_GIVEN else value)
    if leaf.kind is RefKind.ENV:
        return launch.with_env(leaf.name, None if value is NOT_GIVEN else value)
    if "." in leaf.name:
        return with_json_field(launch, leaf.name, value is not NOT_GIVEN, value)
    return launch.without_flag(leaf.name) if value is NOT_GIVEN else launch.with_flag(leaf.name, value)


# ------------------------------------------------------------------ search


def _launch_key(launch: Launch, memo: WitnessMemo) -> LaunchKey:
    """Equal for launches that are the same, in the same order (a search returns launches
    derived from its input, and the order of flags is the order of the command line).
    A repr: values can be dicts (unhashable), and ``1``, ``1.0`` and ``True`` differ. The
    facts' repr is made once per mapping (hundreds of facts, which derived launches share)."""
    facts = memo.facts.get(launch.facts)
    if facts is None:
        facts = memo.facts.put(launch.facts, repr(tuple(launch.facts.items())))
    return repr((tuple(launch.flags.items()), tuple(launch.env.items()))) + facts


def _fix(target: Expr, lit: Expr, leaves: Sequence[Leaf], launch: Launch, model: Model, *,
         alongside: tuple[Leaf, ...] = ()) -> Launch:
    """`launch` with `leaves` changed so that `target` holds (unchanged if nothing works).

    One leaf at a time first (smallest change), then pairs, bounded; with `alongside`, all
    of `leaves` and one of those at a time instead.
    """
    memo = _memo(model)
    fixes = memo.fixes
    key = (expr_key(model, target), expr_key(model, lit), tuple(leaves), alongside, _launch_key(launch, memo))
    found = fixes.get(key)
    if found is None:
        found = fixes[key] = _search(target, lit, leaves, launch, model, alongside)
    return found


def _search(target: Expr, lit: Expr, leaves: Sequence[Leaf], launch: Launch, model: Model,
            alongside: tuple[Leaf, ...] = ()) -> Launch:
    """The first trial (see `_fix`) where `target` holds; else the best unknown one, else `launch`."""
    operands = _Operands.of(model, target, launch)
    # no trial can make it true (trials of an assumed fact can): the first unknown is the answer
    hopeless = not any(_fact(x) for x in leaves) and not all(p.outcomes(launch)[0] for p in operands.parts)
    fallback, fallback_rank = launch, 0
    for group in [(*leaves, extra) for extra in alongside] if alongside else _groups(leaves):
        split = operands.split(group)
        if split is None:
            continue
        moving, undecided = split
        for trial in _trials(group, lit, launch, model):
            result = _all(moving, trial, undecided)
            if result is True or (result is None and hopeless):
                return trial
            # better: the parts this group decides all hold (the rest is unknown)
            rank = 0 if result is False else 2 if undecided and _all(moving, trial, False) is True else 1
            if rank > fallback_rank:
                fallback, fallback_rank = trial, rank
    return fallback


def _groups(leaves: Sequence[Leaf]) -> Iterator[tuple[Leaf, ...]]:
    """The leaves to change together: one at a time first (the smallest change), then pairs."""
    return itertools.chain(itertools.combinations(leaves, 1), itertools.combinations(leaves, 2))


def _trials(group: tuple[Leaf, ...], lit: Expr, launch: Launch, model: Model) -> Iterator[Launch]:
    """`launch` with `group` set to each combination of its candidates near `lit` (bounded)."""
    options = [_grown(leaf, launch, model, lit) + _tried(leaf, lit, launch, model) for leaf in group]
    for combo in itertools.islice(itertools.product(*options), MAX_COMBINATIONS):
        trial = launch
        for leaf, value in zip(group, combo, strict=True):
            trial = assign(trial, leaf, value)
        yield trial


def _tried(leaf: Leaf, lit: Expr, launch: Launch, model: Model) -> list[Any]:
    """`candidates`, without sizes a person would not pass where another meets `lit`."""
    found = candidates(leaf, lit, model)
    return person_values(leaf.name, found, lit, launch, model) if leaf.kind is RefKind.FLAG else found


_UNSET: Any = object()


@dataclass(slots=True)
class _Operands:
    """The operands of the ``and`` a search makes true, and what each decides on the launch
    it starts from (asked when a group first leaves it alone)."""

    parts: tuple[Any, ...]  # `analyzers.deciders.node`s
    reads: tuple[Any, ...]  # per part: the launch keys it reads
    launch: Launch
    decided: list[Any]  # per part: True / False / None, or _UNSET

    @classmethod
    def of(cls, model: Model, target: Expr, launch: Launch) -> _Operands:
        parts = deciders(model, target)
        return cls(parts, tuple(p.all_reads() for p in parts), launch, [_UNSET] * len(parts))

    def split(self, group: Sequence[Leaf]) -> tuple[list[Any], bool] | None:
        """The operands reading a leaf of `group` (they change with its trials) and whether
        one it leaves alone is unknown; None where one it leaves alone is false: no trial
        of `group` can make the ``and`` true."""
        changed = _Changes.of(group)
        moving = []
        undecided = False
        for i, part in enumerate(self.parts):
            if changed.read_by(self.reads[i]):
                moving.append(part)
                continue
            if self.decided[i] is _UNSET:
                self.decided[i] = part.decide(self.launch)
            if self.decided[i] is False:
                return None
            undecided = undecided or self.decided[i] is None
        return moving, undecided


@dataclass(frozen=True, slots=True)
class _Changes:
    """The launch keys a group of leaves changes, as `analyzers.evaluate` lists what a condition reads."""

    flags: frozenset[str]
    env: frozenset[str]
    facts: frozenset[str]

    @classmethod
    def of(cls, group: Sequence[Leaf]) -> _Changes:
        return cls(frozenset(x.name for x in group if x.kind is RefKind.FLAG),
                   frozenset(x.name for x in group if x.kind is RefKind.ENV),
                   frozenset(x.key for x in group if _fact(x)))

    def read_by(self, reads: Any) -> bool:
        return not (reads.flags.isdisjoint(self.flags) and reads.env.isdisjoint(self.env)
                    and reads.facts.isdisjoint(self.facts))


def _grown(leaf: Leaf, launch: Launch, model: Model, near: Expr) -> list[Any]:
    """For a list flag the launch already gives: that list with one more item, so a
    condition on its length can hold together with one on what it contains; and, where
    `near` names numbers, the list with its items after the first written as one of them
    (``float(rule[2]) <= 1`` of ``tse x x x``: ``tse 1 1 1``), so its length and first item
    hold while the rest are numbers the code converts."""
    current = launch.flags.get(leaf.name) if leaf.kind is RefKind.FLAG else None
    if not isinstance(current, tuple) or not current:
        return []
    declared = declared_values(leaf.name, flag_of(leaf.name, model), model)
    unused = [c for c in declared if c not in current]
    if unused:  # the items argparse accepts
        return [current + (unused[0],)]
    extra = current[-1] if is_placeholder(current[-1]) else WORD  # a stand-in may repeat: each is its own
    grown = [current + (extra if is_placeholder(extra) or extra not in current else f"{extra}-2",)]
    if declared:
        return grown
    consts = [c for c in constants_in(near) if not isinstance(c, bool)]
    # grown to a length `near` names (``len(rule) == 4`` of ``tse``: ``tse example example example``)
    grown += [current + (extra,) * (n - len(current)) for n in consts
              if isinstance(n, int) and len(current) + 1 < n <= MAX_GROWN]
    if len(current) < 2:
        return grown
    numbers = numbers_near(consts, "int")[:4]
    return grown + [current[:1] + (str(n),) * (len(current) - 1) for n in numbers]


def _all(parts: Sequence[Any], launch: Launch, undecided: bool) -> bool | None:
    """Kleene ``and`` of `parts` on `launch` (`undecided`: an operand decided elsewhere is unknown)."""
    for part in reversed(parts):  # the literal being fixed (last) is the likeliest to be false
        result = part.decide(launch)
        if result is False:
            return False
        if result is None:
            undecided = True
    return None if undecided else True


def satisfy(expr: Expr, model: Model, base: Launch, allowed: Sequence[Leaf] | None = None) -> tuple[Launch, Truth]:
    """A launch extending `base` (only `allowed` leaves changed) where `expr` holds.

    Returns the first launch found true, else the best found (unknown before false).
    """
    memo = _memo(model)
    satisfied = memo.satisfied
    key = (expr_key(model, expr), None if allowed is None else tuple(allowed), _launch_key(base, memo))
    found = satisfied.get(key)
    if found is None:
        found = satisfied[key] = _satisfy(expr, model, base, allowed)
    return found


def _satisfy(expr: Expr, model: Model, base: Launch, allowed: Sequence[Leaf] | None) -> tuple[Launch, Truth]:
    best = (base, evaluate(expr, base, model))
    if best[1] is Truth.TRUE:
        return best
    # where no launch the search can reach (it changes flags and env vars only) makes
    # `expr` true, `best` changes only from false to the first unknown found
    assuming = allowed is not None and any(_fact(x) for x in allowed)  # facts can be made to hold too
    hopeless = not assuming and not can_hold(model, expr, base)
    if hopeless and best[1] is Truth.UNKNOWN:
        return _users_part(expr, model, base, allowed) or best
    ways = _literals(expr if assuming else fixed_on(expr, model, base), model)
    for disjunct in ways:
        launch = _fix_disjunct(disjunct, model, base, allowed, assuming)
        result = evaluate(expr, launch, model)
        if result is Truth.TRUE:
            return launch, result
        if result is Truth.UNKNOWN and best[1] is Truth.FALSE:
            best = (launch, result)
            if hopeless:
                return best
    if allowed is None and not hopeless:  # then through what decides the adjustments of a literal's settings
        for disjunct in ways:
            launch = _fix_disjunct(disjunct, model, base, allowed, assuming, adjusting=True)
            if evaluate(expr, launch, model) is Truth.TRUE:
                return launch, Truth.TRUE
    return best


def _users_part(expr: Expr, model: Model, base: Launch,
                allowed: Sequence[Leaf] | None) -> tuple[Launch, Truth] | None:
    """Where a part no flag changes is undecided (a model or platform fact): a launch on
    which the parts a user sets hold, so the example shows them (None: no such part, or
    every part is one)."""
    parts = conjuncts(expr)
    own = [p for p in parts if settable_leaves(p, model)]
    if not own or len(own) == len(parts):
        return None
    launch, _ = satisfy(And(tuple(own)) if len(own) > 1 else own[0], model, base, allowed)
    return launch, evaluate(expr, launch, model)


def _fix_disjunct(disjunct: Sequence[Expr], model: Model, base: Launch, allowed: Sequence[Leaf] | None,
                  assuming: bool, adjusting: bool = False) -> Launch:
    """`base` changed literal by literal, each fixed while the ones before it keep holding;
    (`adjusting`) a literal its own settings cannot fix, with each setting deciding an
    adjustment of them (`adjusting_leaves`) too."""
    launch = base
    held = 0  # leading parts of the prefix known to hold on `launch`
    for lit, (prefix, parts) in zip(disjunct, _prefixes(disjunct), strict=True):
        holds, held = _holds(prefix, parts, held, launch, model)
        if holds:
            continue
        found = settable_leaves(lit, model) + (fact_leaves(lit) if assuming else [])
        leaves = found if allowed is None else [x for x in allowed if x in found]  # `allowed` says what first
        fixed = _fix(prefix, lit, leaves, launch, model) if leaves else launch
        if fixed is launch and adjusting and (more := adjusting_leaves(lit, found, model)):
            # a derived setting no option names: what writes it, alone (``--cuda-graph-backend-decode``)
            fixed = _fix(prefix, lit, found, launch, model, alongside=tuple(more)) if found else \
                _fix(prefix, lit, more, launch, model)
        if fixed is not launch:
            launch, held = fixed, 0
    return launch


def adjusting_leaves(lit: Expr, own: Sequence[Leaf], model: Model) -> list[Leaf]:
    """What a user sets that decides the adjustments writing the settings `lit` reads, beyond
    `own` (at most `MAX_ADJUSTING`): where `lit`'s own settings cannot make it hold, an
    adjustment resets them (``enable_dp_lm_head`` is turned off while there is one DP rank:
    ``--dp-size 2`` keeps it)."""
    dests = {r.name for r in refs(lit) if r.kind is RefKind.FLAG}
    rules = [rule for rule in model.rules if rule.dest in dests]
    # an option whose value an adjustment copies in comes first: it sets the setting itself
    copied = [leaf for rule in rules if isinstance(rule.value, Ref) for leaf in _settable(rule.value, model)]
    guards = [leaf for rule in rules for leaf in _settable(rule.when, model)]
    found = dict.fromkeys(leaf for leaf in [*copied, *guards] if leaf not in own)
    return list(found)[:MAX_ADJUSTING]


def _holds(prefix: Expr, parts: tuple[Expr, ...] | None, held: int, launch: Launch,
           model: Model) -> tuple[bool, int]:
    """`evaluate(prefix, launch) is Truth.TRUE`, and how many leading parts hold: the
    parts grow with the prefix, so only those after the `held` ones are decided."""
    if parts is None:
        return evaluate(prefix, launch, model) is Truth.TRUE, held
    while held < len(parts) and node(model, parts[held]).decide(launch) is True:
        held += 1
    return held == len(parts), held


def _prefixes(disjunct: Sequence[Expr]) -> Iterator[tuple[Expr, tuple[Expr, ...] | None]]:
    """``conj(disjunct[:i + 1])`` for each i, built in one pass (same folding and
    de-duplication as `conj`), with its parts (None once it is FALSE)."""
    out: list[Expr] = []
    false = False
    for lit in disjunct:
        false = false or _add_parts(out, conjuncts(lit))
        if false:
            yield FALSE, None
        else:
            yield TRUE if not out else out[0] if len(out) == 1 else And(tuple(out)), tuple(out)


def _add_parts(out: list[Expr], parts: Iterable[Expr]) -> bool:
    """Append the new `parts` to `out` (TRUE is no part); True at a FALSE one (then stop)."""
    for part in parts:
        if part == FALSE:
            return True
        if part != TRUE and part not in out:
            out.append(part)
    return False


def falsify(expr: Expr, part: Expr, model: Model, before: Launch) -> tuple[Launch, Truth]:
    """Change only `part`'s settable leaves in `before` so that `part` is false;
    returns that launch and whether `expr` then holds."""
    # undoing what `before` set comes first: the smallest change back
    leaves = sorted(settable_leaves(part, model), key=lambda leaf: not _given(before, leaf))
    after, _ = satisfy(negate(part), model, before, leaves)
    if adds_nonpositive(before, after, model):  # `--tp-size 0` solves nothing
        after = before
    return after, evaluate(expr, after, model)


def _given(launch: Launch, leaf: Leaf) -> bool:
    if _fact(leaf):
        return leaf.key in launch.facts
    return leaf.name in (launch.env if leaf.kind is RefKind.ENV else launch.flags)


def base_launch(model: Model) -> Launch:
    """The smallest valid command line: required flags with their first candidate value
    (the model flag: its stand-in); one object per model: launches are never changed in place."""
    memo = _memo(model)
    if memo.base is None:
        flags = model.flags.flags if model.flags is not None else ()
        required = sorted({f.dest for f in flags if f.required and f.option}, key=lambda d: d)
        memo.base = Launch({dest: flag_candidates(dest, (), model)[0] for dest in required})
    return memo.base
