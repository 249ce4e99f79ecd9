"""Find launches that make a condition true: the "before" of an example fix, and the
change that makes it false again (the "after").

Search, not algebra: the condition is split into disjuncts of literals; each literal's
settable leaves (flags with an option, env vars) try candidate values taken from the
literal's constants, the flag's declared choices and its type; the evaluator decides.
Whatever is returned was checked by `analyzers.evaluate`.
"""
from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from analyzers.counts import adds_nonpositive, count_values, person_values
from analyzers.deciders import can_hold, deciders, node
from analyzers.eval_model import Identity, Model, expr_key
from analyzers.evaluate import evaluate
from analyzers.examples import DIR, FILE, JSON_LIST, JSON_WORD, MISSING, MODEL, WORD
from analyzers.flag_types import ValueKind, ValueType, one_word_list, value_type
from analyzers.flags import Flag
from analyzers.json_fields import is_json_field, with_json_field
from analyzers.kleene import UNKNOWN, Truth
from analyzers.launch import Launch, is_placeholder
from analyzers.path_tests import path_option
from analyzers.settings import base_dest
from analyzers.ways import fixed_on, literals
from extractor.ir import (
    ATTRIBUTE,
    FALSE,
    KEYWORD,
    RAISES,
    SOME_ITEM,
    TRUE,
    And,
    Apply,
    Const,
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

MAX_ADJUSTING = 4  # settings deciding an adjustment, each tried with a literal's own where those alone fail
MAX_COMBINATIONS = 64  # per literal with two or more settable leaves

NOT_GIVEN: Any = UNKNOWN  # as a candidate: drop the flag / unset the variable


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


def constants_in(expr: Expr) -> list[Any]:
    out: list[Any] = []
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, Apply) and node.fn == "isinstance":  # its constant is a type name, no value
            stack.append(node.args[0])
            continue
        if isinstance(node, Apply) and node.fn == SOME_ITEM and len(node.args) == 3:  # args[1]: the loop's name
            stack += [node.args[2], node.args[0]]
            continue
        if isinstance(node, Apply) and node.fn in (RAISES, KEYWORD) and node.args:  # args[0]: names, no value
            stack.extend(reversed(node.args[1:]))
            continue
        if isinstance(node, Apply) and node.fn == ATTRIBUTE and node.args:  # args[1]: the attribute's name
            stack.append(node.args[0])
            continue
        stack.extend(reversed(children(node)))
        if isinstance(node, Const):  # a tuple's items, a dict's keys (``REGISTRY.get(arch)``)
            out += list(node.value) if isinstance(node.value, (tuple, Mapping)) else [node.value]
        elif isinstance(node, Ref) and node.kind is RefKind.FLAG and node.name.endswith("()"):
            out += _call_args(node.text)
    return out


def _call_args(text: str) -> list[Any]:
    """Literal string arguments in a derived leaf's text: ``x.startswith(("a", "b"))``."""
    return re.findall(r"""["']([^"'\\]*)["']""", text)


_FITS: dict[str, Callable[[Any], bool]] = {
    ValueKind.BOOL: lambda v: isinstance(v, bool),
    ValueKind.INT: lambda v: isinstance(v, int) and not isinstance(v, bool),
    ValueKind.FLOAT: lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    ValueKind.STR: lambda v: isinstance(v, str),
}


def _fits(value: Any, kind: str) -> bool:
    fits = _FITS.get(kind)
    return fits is not None and fits(value)


def _numbers_near(consts: Iterable[Any], kind: str) -> list[Any]:
    out: list[Any] = []
    for c in consts:
        if isinstance(c, (int, float)) and not isinstance(c, bool):
            step = 1 if kind == "int" else 0.5
            out += [c, c + step, c - step, c * 2]
    return [int(v) if kind == "int" else float(v) for v in out if kind != "int" or float(v).is_integer()]


def _natural_first(values: list[Any]) -> list[Any]:
    """Positive numbers, then 0, then negative ones (each in their order): where several
    values work, a command shows one a person passes (``--tp-size 2``, not 0 or -1); a
    check about 0 or a negative value still finds one, later."""
    return sorted(values, key=lambda v: 0 if v > 0 else 1 if v == 0 else 2)


# 3: with 2, a pair whose remainder is not 0 (`a % b != 0` checks)
_SAMPLES: dict[str, list[Any]] = {"int": [1, 2, 0, 8, -1, 3], "float": [0.5, 0.25, 1.0, 0.0, 2.0, -1.0],
                                  "bool": [True, False]}


def _free(key: str, dest: str | None, consts: Sequence[Any], model: Model) -> list[Any]:
    """Strings to try beyond the condition's own: the stand-in of a model, file or
    directory flag, else what the code compares this setting against elsewhere, then a
    word nothing names (a JSON object where the flag's help says it takes JSON); an
    empty string last."""
    stand_in = model.examples.stand_in(dest) if dest is not None else None
    if stand_in is not None:  # a file or directory that is there, then one that is not
        return [stand_in, *([MISSING] if stand_in in (FILE, DIR) else []), ""]
    known = [v for v in model.examples.known_values(key) if isinstance(v, str) and v not in consts]
    flag = _flag(dest, model) if dest is not None else None
    word = JSON_WORD if takes_json(flag) else WORD
    return [*known, word, ""]


_JSON = re.compile(r"\bjson\b", re.IGNORECASE)


def takes_json(flag: Flag | None) -> bool:
    """Does the flag's help say it takes JSON text?"""
    return flag is not None and bool(_JSON.search(flag.help or ""))


def _scalars(dest: str, kind: str, consts: Sequence[Any], model: Model) -> list[Any]:
    """Values of one kind to try: the condition's own constants first."""
    if kind == "int" and model.examples.counts(dest):
        out = count_values(_numbers_near(consts, kind))
    elif kind in ("int", "float"):
        out = _natural_first(_numbers_near(consts, kind) + _SAMPLES[kind])
    elif kind == "bool":
        out = [True, False]
    else:
        own = [c for c in consts if isinstance(c, str)]
        out = _json_texts(dest, consts, model) + own + _free(f"{RefKind.FLAG}:{dest}", dest, own, model)
    return [v for v in out if _fits(v, kind)]


def _json_texts(dest: str, consts: Sequence[Any], model: Model) -> list[Any]:
    """For a flag whose help says it takes JSON, first: the objects a dict flag would try
    (`_dict_values`) with the condition's names as keys, and one whose key it does not
    name, as the text a command line gives, so a check that parses it
    (``json.loads(cfg.x).get("window")``) can be met."""
    flag = _flag(dest, model)
    if not takes_json(flag):
        return []
    keys = [c for c in consts if not isinstance(c, str) or c.isidentifier()]
    objects = [*_dict_values(keys), {WORD: "value"}]
    return [json.dumps(v) if isinstance(v, Mapping) else v for v in _unique(objects)]


def _writable(consts: Sequence[Any]) -> list[Any]:
    """The constants a command line can carry: not an enum member's source text."""
    return [c for c in consts if not is_member_text(c)]


def _flag(dest: str, model: Model) -> Flag | None:
    return model.flags.by_dest(dest) if model.flags is not None else None


def flag_candidates(dest: str, consts: Sequence[Any], model: Model) -> list[Any]:
    """NOT_GIVEN, then values that fit the flag: declared choices (the condition's
    constants among them first), else values from its type. Every value can be pasted:
    the model flag is only its stand-in, and argparse's declared choices are the only
    values of a choice flag (values outside a ``Literal`` type come last: the Python API
    takes them)."""
    flag = _flag(dest, model)
    out: list[Any] = [] if flag is not None and flag.required else [NOT_GIVEN]  # a required flag stays given
    return list(_unique(out + _flag_values(dest, flag, _writable(consts), model)))


def _flag_values(dest: str, flag: Flag | None, consts: list[Any], model: Model) -> list[Any]:
    """One candidate source per kind of value the flag takes (see `analyzers.flag_types`)."""
    if dest == model.examples.model:
        return [MODEL]  # facts about the model are stated by its stand-in (`<model:Arch>`), not by a value
    takes = value_type(flag)
    declared = _declared(dest, flag, model)
    if takes.kind is ValueKind.BOOL:
        return [True, False]
    if takes.kind is ValueKind.LIST:
        found = _list_values(dest, takes.item_kind, declared, consts, model,
                             empty=flag is None or flag.nargs != "+")  # argparse refuses none for nargs="+"
        # one word of JSON its parser reads: also JSON that is no list of its items (its own type check)
        return found + [{"key": "value"}, (1,)] if one_word_list(flag) else found
    if takes.kind is ValueKind.DICT:
        return _dict_values(consts)
    if declared or takes.literal_choices:
        return _choice_values(dest, takes, declared, consts, model)
    return _scalars(dest, takes.kind, consts, model)


def _declared(dest: str, flag: Flag | None, model: Model) -> list[Any]:
    """The flag's declared choices, else the program's own list of accepted values (the profile's)."""
    declared = list(flag.choices) if flag is not None and isinstance(flag.choices, tuple) else []
    return declared or list(model.examples.accepted(dest))


def _list_values(dest: str, item_kind: str, declared: list[Any], consts: list[Any], model: Model, *,
                 empty: bool = True) -> list[Any]:
    """Declared choices are each item's: the condition's own, then one it does not name;
    one item, none (where the command line can give none: `empty`), two, and one item four
    times (length checks)."""
    if declared:
        named = [c for c in consts if c in declared]
        items = list(_unique(named + [c for c in declared if c not in named][:1]))
        singles = [(c,) for c in items if isinstance(c, str)]
    else:
        found = list(_unique(_scalars(dest, item_kind, consts, model)))
        # two values a person passes, then those that are not (a check on some item: ``i < 0``)
        odd = [v for v in found[2:] if isinstance(v, (int, float)) and not isinstance(v, bool) and v <= 0][:2]
        items = found[:2] + (odd or found[2:3])
        singles = [(c,) for c in consts if isinstance(c, str)]
    first = items[0] if items else WORD
    # last, each other value alone (a check on some item: ``any(i < 0 for i in ids)``)
    others = [] if declared else [(c,) for c in items[1:] if not isinstance(c, str)]
    return singles + [(first,), *([()] if empty else []), tuple(items[:2]), (first,) * 4, *others,
                      *_rule_with_numbers(item_kind, consts)]


def _rule_with_numbers(item_kind: str, consts: Sequence[Any]) -> list[tuple[Any, ...]]:
    """A list of words the condition reads as a rule and its numbers (``--buckets tse 1 2 -1``:
    ``rule[0] == "tse"``, ``float(rule[1])``): each rule it names, with numbers a person
    writes and one below zero (a check on some number)."""
    numbers = any(isinstance(c, (int, float)) and not isinstance(c, bool) for c in consts)
    rules = [c for c in consts if isinstance(c, str) and c.isidentifier()][:3]
    return [(rule, "1", "2", "-1") for rule in rules] if item_kind == "str" and numbers else []


def _dict_values(consts: list[Any]) -> list[Any]:
    """Keys the condition names first (`"image" in cfg.x`), each with the numbers next to
    the condition's own (``x.get("threshold", 0) < 0``: -1) and a word; a JSON value that
    is no object last: the program's own type check (`not a dict`)."""
    numbers = [c for c in consts if isinstance(c, (int, float)) and not isinstance(c, bool)][:2]
    values = [*_unique(v for n in numbers for v in (n - 1, n + 1)), "value"]
    return [{c: v} for c in consts if isinstance(c, str) for v in values] + [{"key": "value"}, {}, JSON_LIST]


def _choice_values(dest: str, takes: ValueType, declared: list[Any], consts: list[Any], model: Model) -> list[Any]:
    """The condition's constants among the choices first; declared choices are all argparse
    accepts, a ``Literal`` type's are followed by other values of its kind."""
    choices = declared or list(takes.literal_choices)
    out = [c for c in consts if c in choices] + choices
    if not declared:
        out += [v for v in _scalars(dest, takes.kind, consts, model) if v not in choices]
    return out


def env_candidates(name: str, consts: Sequence[Any], model: Model) -> list[Any]:
    """NOT_GIVEN, then strings: the condition's constants as the variable would hold them,
    numbers near them; only the values the program accepts where the profile lists them."""
    kind = model.env_type(name) or "str"
    consts = _writable(consts)
    out: list[Any] = ["1", "0"] if kind == "bool" else []
    out += [_env_text(c) for c in consts if c is not None]
    if kind in ("int", "float"):
        out += [str(v) for v in _numbers_near(consts, kind)] + ["1", "0", "2"]
    accepted = model.examples.accepted(name)
    if accepted:  # only these, the condition's own first
        out = [v for v in out if v in accepted] + list(accepted)
    elif kind == "str":
        out += [v for v in _free(f"{RefKind.ENV}:{name}", None, out, model) if v]
    return list(_unique([NOT_GIVEN, *out]))


def _env_text(value: Any) -> str:
    """A constant as an env var holds it (``True`` is ``1``)."""
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def _unique(values: Iterable[Any]) -> Iterable[Any]:
    """`values` without repeats: the same object, or an equal value of the same type."""
    hashed: set[tuple[type, Any]] = set()
    unhashable: list[Any] = []
    for v in values:
        try:
            key: tuple[type, Any] | None = (type(v), v)
            hash(key)
        except TypeError:
            key = None
        if key is not None and key in hashed:
            continue
        if any(v is s or (type(v) is type(s) and v == s) for s in unhashable):
            continue
        if key is None:
            if any(type(v) is t and v == s for t, s in hashed):
                continue
            unhashable.append(v)
        else:
            hashed.add(key)
        yield v


def fact_candidates(leaf: Leaf, consts: Sequence[Any], model: Model) -> list[Any]:
    """NOT_GIVEN (unknown), then the condition's constants, true and false, numbers near;
    an architecture is a name or a list of names (``architectures[0] == "A"`` or
    ``"A" in architectures``): both are tried."""
    if leaf.kind is RefKind.MODEL and model.examples.is_architecture(leaf.name):
        names = [c for c in consts if isinstance(c, str) and not is_member_text(c)]
        return [NOT_GIVEN, *(v for c in dict.fromkeys(names) for v in (c, (c,)))]
    out: list[Any] = [NOT_GIVEN, *(c for c in consts if c is not None), True, False]
    near = _numbers_near(consts, "int")
    # a pair whose first item is near a constant: a fact read by index (``get_device_capability()[0] >= 10``)
    out += near + [(n, 0) for n in near]
    return list(_unique(out))


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
    declared = _declared(leaf.name, _flag(leaf.name, model), model)
    unused = [c for c in declared if c not in current]
    if unused:  # the items argparse accepts
        return [current + (unused[0],)]
    extra = current[-1] if is_placeholder(current[-1]) else WORD  # a stand-in may repeat: each is its own
    grown = [current + (extra if is_placeholder(extra) or extra not in current else f"{extra}-2",)]
    if declared or len(current) < 2:
        return grown
    numbers = _numbers_near([c for c in constants_in(near) if not isinstance(c, bool)], "int")[:4]
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
