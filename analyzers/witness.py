"""Find launches that make a condition true: the "before" of an example fix, and the
change that makes it false again (the "after").

Search, not algebra: the condition is split into disjuncts of literals; each literal's
settable leaves (flags with an option, env vars) try candidate values taken from the
literal's constants, the flag's declared choices and its type; the evaluator decides.
Whatever is returned was checked by `analyzers.evaluate`.
"""
from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from analyzers.evaluate import UNKNOWN, Model, Truth, base_dest, can_hold, deciders, evaluate, expr_key, node
from analyzers.examples import JSON_LIST, JSON_WORD, MODEL, WORD
from analyzers.launch import Launch, is_placeholder
from extractor.ir import (
    FALSE,
    TRUE,
    And,
    Apply,
    Const,
    Expr,
    Not,
    Or,
    Ref,
    RefKind,
    Truthy,
    children,
    is_member_text,
    negate,
    refs,
    simplify,
)

MAX_DISJUNCTS = 16
MAX_COMBINATIONS = 64  # per literal with two or more settable leaves

NOT_GIVEN: Any = UNKNOWN  # as a candidate: drop the flag / unset the variable


@dataclass(frozen=True, slots=True)
class Leaf:
    """Something a user sets: a flag (by dest) or an env var; or a fact an example may
    assume (a platform check, a model property: the user picks the machine and model)."""

    kind: RefKind  # FLAG or ENV; PLATFORM or MODEL for an assumed fact
    name: str
    key: str = field(init=False, repr=False, compare=False)  # "kind:name", for memo keys

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", f"{self.kind}:{self.name}")


def settable(ref: Ref, model: Model) -> Leaf | None:
    """The leaf a user changes to change `ref` (``device.startswith()`` -> ``device``)."""
    if ref.kind is RefKind.ENV:
        return Leaf(RefKind.ENV, ref.name)
    if ref.kind is not RefKind.FLAG:
        return None
    name = base_dest(ref.name)
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


def _settable(expr: Expr, model: Model) -> tuple[Leaf, ...]:
    """In first-seen order (and/or/not: their operands' leaves, merged)."""
    key = f"leaves|{expr_key(model, expr)}"
    found = model.memo.get(key)
    if found is None:
        if isinstance(expr, (And, Or, Not)):
            found = tuple(dict.fromkeys(leaf for arg in children(expr) for leaf in _settable(arg, model)))
        else:
            found = tuple(dict.fromkeys(leaf for r in refs(expr) if (leaf := settable(r, model)) is not None))
        model.memo[key] = found
    return found


# ------------------------------------------------------------------ disjunctive form


def literals(expr: Expr) -> list[tuple[Expr, ...]]:
    """Disjuncts (each a tuple of literals) of `expr`, at most `MAX_DISJUNCTS`."""
    return _dnf(simplify(expr), negated=False)


def _literals(expr: Expr, model: Model) -> list[tuple[Expr, ...]]:
    key = f"literals|{expr_key(model, expr)}"
    found = model.memo.get(key)
    if found is None:
        found = model.memo[key] = tuple(literals(expr))
    return list(found)


def _dnf(expr: Expr, negated: bool) -> list[tuple[Expr, ...]]:
    if isinstance(expr, Not):
        return _dnf(expr.arg, not negated)
    if isinstance(expr, Truthy) and isinstance(expr.term, (And, Or, Not)):
        return _dnf(expr.term, negated)
    if isinstance(expr, (And, Or)):
        parts = [_dnf(a, negated) for a in expr.args]
        if isinstance(expr, And) != negated:  # a conjunction after De Morgan
            out: list[tuple[Expr, ...]] = [()]
            for part in parts:
                out = [x + y for x, y in itertools.islice(itertools.product(out, part), MAX_DISJUNCTS)]
            return out
        return [d for part in parts for d in part][:MAX_DISJUNCTS]
    return [(negate(expr) if negated else expr,)]


# ------------------------------------------------------------------ candidates


def _consts(expr: Expr) -> list[Any]:
    out: list[Any] = []
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, Apply) and node.fn == "isinstance":  # its constant is a type name, no value
            stack.append(node.args[0])
            continue
        stack.extend(reversed(children(node)))
        if isinstance(node, Const):
            out += list(node.value) if isinstance(node.value, tuple) else [node.value]
        elif isinstance(node, Ref) and node.kind is RefKind.FLAG and node.name.endswith("()"):
            out += _call_args(node.text)
    return out


def _call_args(text: str) -> list[Any]:
    """Literal string arguments in a derived leaf's text: ``x.startswith(("a", "b"))``."""
    return re.findall(r"""["']([^"'\\]*)["']""", text)


_LITERAL_TYPE = re.compile(r"Literal\[([^\]]*)\]")


def _type_choices(type_text: str | None) -> list[Any]:
    match = _LITERAL_TYPE.search(type_text or "")
    if not match:
        return []
    out: list[Any] = []
    for part in match.group(1).split(","):
        part = part.strip()
        if part[:1] in "'\"":
            out.append(part[1:-1])
        elif part.lstrip("-").isdigit():
            out.append(int(part))
    return out


def _kind_of(type_text: str | None, action: str | None) -> str:
    text = (type_text or "").replace("Optional", "")
    if action and action.endswith(("store_true", "store_false", "BooleanOptionalAction")):
        return "bool"
    for kind in ("List", "list", "Tuple", "tuple"):
        if text.startswith((kind, "[" + kind)):
            return "list"
    if "Dict" in text or "dict" in text or "json" in text:  # type=json.loads: mostly objects
        return "dict"
    for kind in ("bool", "int", "float"):
        if re.search(rf"\b{kind}\b", text):
            return kind
    return "str"


def _item_kind(type_text: str | None) -> str:
    """Element kind of a list flag: ``Optional[List[int]]`` -> int."""
    match = re.search(r"(?:List|list|Tuple|tuple)\[(\w+)", type_text or "")
    return match.group(1) if match and match.group(1) in ("int", "float", "bool") else "str"


def _fits(value: Any, kind: str) -> bool:
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "float":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "str":
        return isinstance(value, str)
    return False


def _numbers_near(consts: Iterable[Any], kind: str) -> list[Any]:
    out: list[Any] = []
    for c in consts:
        if isinstance(c, (int, float)) and not isinstance(c, bool):
            step = 1 if kind == "int" else 0.5
            out += [c, c + step, c - step, c * 2]
    return [int(v) if kind == "int" else float(v) for v in out if kind != "int" or float(v).is_integer()]


# 3: with 2, a pair whose remainder is not 0 (`a % b != 0` checks)
_SAMPLES = {"int": [1, 2, 0, 8, -1, 3], "float": [0.5, 1.0, 0.0, 2.0, -1.0], "bool": [True, False]}


def _free(key: str, dest: str | None, consts: Sequence[Any], model: Model) -> list[Any]:
    """Strings to try beyond the condition's own: the stand-in of a model, file or
    directory flag, else what the code compares this setting against elsewhere, then a
    word nothing names (a JSON object where the flag's help says it takes JSON); an
    empty string last."""
    stand_in = model.examples.stand_in(dest) if dest is not None else None
    if stand_in is not None:
        return [stand_in, ""]
    known = [v for v in model.examples.known_values(key) if isinstance(v, str) and v not in consts]
    flag = model.flags.by_dest(dest) if dest is not None and model.flags is not None else None
    word = JSON_WORD if flag is not None and _JSON.search(flag.help or "") else WORD
    return [*known, word, ""]


_JSON = re.compile(r"\bjson\b", re.IGNORECASE)


def _scalars(dest: str, kind: str, consts: Sequence[Any], model: Model) -> list[Any]:
    """Values of one kind to try: the condition's own constants first."""
    if kind in ("int", "float"):
        out = _numbers_near(consts, kind) + _SAMPLES[kind]
    elif kind == "bool":
        out = [True, False]
    else:
        own = [c for c in consts if isinstance(c, str)]
        out = own + _free(f"{RefKind.FLAG}:{dest}", dest, own, model)
    return [v for v in out if _fits(v, kind)]


def _writable(consts: Sequence[Any]) -> list[Any]:
    """The constants a command line can carry: not an enum member's source text."""
    return [c for c in consts if not is_member_text(c)]


def flag_candidates(dest: str, consts: Sequence[Any], model: Model) -> list[Any]:
    """NOT_GIVEN, then values that fit the flag: declared choices (the condition's
    constants among them first), else values from its type. Every value can be pasted:
    the model flag is only its stand-in, and argparse's declared choices are the only
    values of a choice flag (values outside a ``Literal`` type come last: the Python API
    takes them)."""
    flag = model.flags.by_dest(dest) if model.flags is not None else None
    type_text, action = (flag.type, flag.action) if flag is not None else (None, None)
    kind = _kind_of(type_text, action)
    if flag is not None and (flag.nargs in ("*", "+") or isinstance(flag.nargs, int)) and kind != "bool":
        kind = "list"
    declared = list(flag.choices) if flag is not None and isinstance(flag.choices, tuple) else []
    declared = declared or list(model.examples.accepted(dest))  # the program's own list, from the profile
    choices = declared or _type_choices(type_text)
    consts = _writable(consts)
    out: list[Any] = [] if flag is not None and flag.required else [NOT_GIVEN]  # a required flag stays given
    if dest == model.examples.model:
        out += [MODEL]  # facts about the model are stated by its stand-in (`<model:Arch>`), not by a value
    elif kind == "bool":
        out += [True, False]
    elif kind == "list":  # declared choices are each item's: the condition's own, then one it does not name
        if declared:
            named = [c for c in consts if c in declared]
            items = list(_unique(named + [c for c in declared if c not in named][:1]))
        else:
            items = _scalars(dest, _item_kind(type_text), consts, model)[:2]
        first = items[0] if items else WORD
        out += [(c,) for c in (items if declared else consts) if isinstance(c, str)]
        out += [(first,), (), tuple(items[:2]), (first,) * 4]
    elif kind == "dict":  # keys the condition names first (`"image" in cfg.x`)
        # a JSON value that is no object last: the program's own type check (`not a dict`)
        out += [{c: "value"} for c in consts if isinstance(c, str)] + [{"key": "value"}, {}, JSON_LIST]
    elif choices:
        out += [c for c in consts if c in choices] + choices
        if not declared:
            out += [v for v in _scalars(dest, kind, consts, model) if v not in choices]
    else:
        out += _scalars(dest, kind, consts, model)
    return list(_unique(out))


def env_candidates(name: str, consts: Sequence[Any], model: Model) -> list[Any]:
    kind = model.env_type(name) or "str"
    consts = _writable(consts)
    out: list[Any] = [NOT_GIVEN]
    if kind == "bool":
        out += ["1", "0"]
    for c in consts:
        if isinstance(c, bool):
            out.append("1" if c else "0")
        elif c is not None:
            out.append(str(c))
    if kind in ("int", "float"):
        out += [str(v) for v in _numbers_near(consts, kind)] + ["1", "0", "2"]
    accepted = model.examples.accepted(name)
    if accepted:  # only these, the condition's own first
        out = [NOT_GIVEN, *(v for v in out[1:] if v in accepted), *accepted]
    elif kind == "str":
        out += [v for v in _free(f"{RefKind.ENV}:{name}", None, out, model) if v]
    return list(_unique(out))


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
    out += _numbers_near(consts, "int")
    return list(_unique(out))


def candidates(leaf: Leaf, near: Expr, model: Model) -> list[Any]:
    """Values to try for `leaf` when `near` is the condition to decide; NOT_GIVEN first."""
    key = f"candidates|{_leaf_key((leaf,))}|{expr_key(model, near)}"
    found = model.memo.get(key)
    if found is None:
        consts = _consts(near)
        by_consts = f"values|{_leaf_key((leaf,))}|{consts!r}"  # many conditions name the same constants
        found = model.memo.get(by_consts)
        if found is None:
            found = model.memo[by_consts] = tuple(
                env_candidates(leaf.name, consts, model) if leaf.kind is RefKind.ENV
                else fact_candidates(leaf, consts, model) if _fact(leaf)
                else flag_candidates(leaf.name, consts, model))
        model.memo[key] = found
    return list(found)


def assign(launch: Launch, leaf: Leaf, value: Any) -> Launch:
    if _fact(leaf):
        return launch.with_fact(leaf.key, None if value is NOT_GIVEN else value)
    if leaf.kind is RefKind.ENV:
        return launch.with_env(leaf.name, None if value is NOT_GIVEN else value)
    return launch.without_flag(leaf.name) if value is NOT_GIVEN else launch.with_flag(leaf.name, value)


# ------------------------------------------------------------------ search


def _leaf_key(leaves: Iterable[Leaf]) -> str:
    """Memo keys are strings: the memo then holds no containers the collector must walk."""
    return ",".join([x.key for x in leaves])


def _launch_key(launch: Launch) -> str:
    """Equal for launches that are the same, in the same order (a search returns launches
    derived from its input, and the order of flags is the order of the command line)."""
    return repr((tuple(launch.flags.items()), tuple(launch.env.items()), tuple(launch.facts.items())))


def _fix(target: Expr, lit: Expr, leaves: Sequence[Leaf], launch: Launch, model: Model) -> Launch:
    """`launch` with `leaves` changed so that `target` holds (unchanged if nothing works).

    One leaf at a time first (smallest change), then pairs, bounded.
    """
    key = f"fix|{expr_key(model, target)}|{expr_key(model, lit)}|{_leaf_key(leaves)}|{_launch_key(launch)}"
    found = model.memo.get(key)
    if found is None:
        found = model.memo[key] = _search(target, lit, leaves, launch, model)
    return found


def _search(target: Expr, lit: Expr, leaves: Sequence[Leaf], launch: Launch, model: Model) -> Launch:
    # `target` is an ``and``: an operand reading none of a group's leaves decides every
    # trial of that group as it decides `launch`; where one is false, no trial can work
    parts = deciders(model, target)
    reads = [p.all_reads() for p in parts]
    base: list[Any] = [_UNSET] * len(parts)
    # no trial can make it true (trials of an assumed fact can)
    hopeless = not any(_fact(x) for x in leaves) and not all(p.outcomes(launch)[0] for p in parts)
    fallback: Launch | None = None
    fallback_rank = 0
    for size in (1, 2):
        for group in itertools.combinations(leaves, size):
            flags = {x.name for x in group if x.kind is RefKind.FLAG}
            env = {x.name for x in group if x.kind is RefKind.ENV}
            facts = {x.key for x in group if _fact(x)}
            moving = []
            undecided = False
            for i, part in enumerate(parts):
                if not (reads[i].flags.isdisjoint(flags) and reads[i].env.isdisjoint(env)
                        and reads[i].facts.isdisjoint(facts)):
                    moving.append(part)
                    continue
                if base[i] is _UNSET:
                    base[i] = part.decide(launch)
                if base[i] is False:
                    break
                undecided = undecided or base[i] is None
            else:
                options = [_grown(leaf, launch, model) + candidates(leaf, lit, model) for leaf in group]
                for combo in itertools.islice(itertools.product(*options), MAX_COMBINATIONS):
                    trial = launch
                    for leaf, val in zip(group, combo):
                        trial = assign(trial, leaf, val)
                    result = _all(moving, trial, undecided)
                    if result is True:
                        return trial
                    if result is None:
                        if hopeless and fallback is None:  # the first unknown is what the search ends with
                            return trial
                        # better: the parts this group decides all hold (the rest is unknown)
                        rank = 2 if undecided and _all(moving, trial, False) is True else 1
                        if rank > fallback_rank:
                            fallback, fallback_rank = trial, rank
    return fallback if fallback is not None else launch


_UNSET: Any = object()


def _grown(leaf: Leaf, launch: Launch, model: Model) -> list[Any]:
    """For a list flag the launch already gives: that list with one more item, so a
    condition on its length can hold together with one on what it contains."""
    current = launch.flags.get(leaf.name) if leaf.kind is RefKind.FLAG else None
    if not isinstance(current, tuple) or not current:
        return []
    flag = model.flags.by_dest(leaf.name) if model.flags is not None else None
    choices = flag.choices if flag is not None and isinstance(flag.choices, tuple) else ()
    unused = [c for c in choices or model.examples.accepted(leaf.name) if c not in current]
    if unused:  # the items argparse accepts
        return [current + (unused[0],)]
    extra = current[-1] if is_placeholder(current[-1]) else WORD  # a stand-in may repeat: each is its own
    return [current + (extra if is_placeholder(extra) or extra not in current else f"{extra}-2",)]


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
    key = f"satisfy|{expr_key(model, expr)}|{'*' if allowed is None else _leaf_key(allowed)}|{_launch_key(base)}"
    found = model.memo.get(key)
    if found is None:
        found = model.memo[key] = _satisfy(expr, model, base, allowed)
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
        # a part no flag changes is undecided (a model or platform fact): still make the
        # parts a user sets hold, so the example shows them
        own = [p for p in (expr.args if isinstance(expr, And) else (expr,)) if settable_leaves(p, model)]
        if own and len(own) < (len(expr.args) if isinstance(expr, And) else 1):
            launch, _ = satisfy(And(tuple(own)) if len(own) > 1 else own[0], model, base, allowed)
            return launch, evaluate(expr, launch, model)
        return best
    for disjunct in _literals(expr, model):
        launch = base
        held = 0  # leading parts of the prefix known to hold on `launch`
        for lit, (prefix, parts) in zip(disjunct, _prefixes(disjunct)):
            # `evaluate(prefix, launch) is Truth.TRUE`, i.e. every part holds: the parts
            # grow with the prefix, so only the new ones are decided while `launch` stays
            if parts is None:
                holds = evaluate(prefix, launch, model) is Truth.TRUE
            else:
                while held < len(parts) and node(model, parts[held]).decide(launch) is True:
                    held += 1
                holds = held == len(parts)
            if holds:
                continue
            found = settable_leaves(lit, model) + (fact_leaves(lit) if assuming else [])
            leaves = found if allowed is None else [x for x in allowed if x in found]  # `allowed` says what first
            if leaves:
                fixed = _fix(prefix, lit, leaves, launch, model)
                if fixed is not launch:
                    launch, held = fixed, 0
        result = evaluate(expr, launch, model)
        if result is Truth.TRUE:
            return launch, result
        if result is Truth.UNKNOWN and best[1] is Truth.FALSE:
            best = (launch, result)
            if hopeless:
                return best
    return best


def _prefixes(disjunct: Sequence[Expr]) -> Iterable[tuple[Expr, tuple[Expr, ...] | None]]:
    """``conj(disjunct[:i + 1])`` for each i, built in one pass (same folding and
    de-duplication as `conj`), with its parts (None once it is FALSE)."""
    out: list[Expr] = []
    false = False
    for lit in disjunct:
        for part in lit.args if isinstance(lit, And) else (lit,):
            if false or part == TRUE:
                continue
            if part == FALSE:
                false = True
            elif part not in out:
                out.append(part)
        if false:
            yield FALSE, None
        else:
            yield TRUE if not out else out[0] if len(out) == 1 else And(tuple(out)), tuple(out)


def falsify(expr: Expr, part: Expr, model: Model, before: Launch) -> tuple[Launch, Truth]:
    """Change only `part`'s settable leaves in `before` so that `part` is false;
    returns that launch and whether `expr` then holds."""
    # undoing what `before` set comes first: the smallest change back
    leaves = sorted(settable_leaves(part, model), key=lambda leaf: not _given(before, leaf))
    after, _ = satisfy(negate(part), model, before, leaves)
    return after, evaluate(expr, after, model)


def _given(launch: Launch, leaf: Leaf) -> bool:
    if _fact(leaf):
        return leaf.key in launch.facts
    return leaf.name in (launch.env if leaf.kind is RefKind.ENV else launch.flags)


def base_launch(model: Model) -> Launch:
    """The smallest valid command line: required flags with their first candidate value
    (the model flag: its stand-in); one object per model: launches are never changed in place."""
    found = model.memo.get("base_launch")
    if found is None:
        flags = model.flags.flags if model.flags is not None else ()
        required = sorted({f.dest for f in flags if f.required and f.option}, key=lambda d: d)
        found = model.memo["base_launch"] = Launch({dest: flag_candidates(dest, (), model)[0] for dest in required})
    return found
