"""Launches generated from a catalog, to compare errcat's predictions with the real program.

Pure and seeded: the same catalog, model, seed and count give the same launches. A launch
is a command line (argv with the stand-ins ``<model>``, ``<model:Arch>``, ``<file>``,
``<dir>`` that the real side fills, and env vars). Four sources, in this order:

- ``bare``: the model flag alone, once per architecture the profile has a config for;
- ``example``: the catalog's example command lines (`before` and `after` of every entry,
  table row and replaced static example), up to `EXAMPLE_SHARE` of the count;
- ``combo``: for each entry in turn (a seeded shuffle, round after round), one to three
  of the settings its condition reads (flags that appear together in a trigger, its env
  vars), each given a boundary value from the witness search's candidates (every compared
  constant, ±1, declared choices, the values the code compares it against elsewhere),
  now and then with a setting of a second entry's condition (checks meeting each other);
  the model is the architecture the condition names where it names one, else one of the
  profile's.
Values are written by `analyzers.launch.command` (as examples write them).
"""
from __future__ import annotations

import random
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from analyzers.candidate_values import NOT_GIVEN
from analyzers.eval_model import Model
from analyzers.examples import MODEL, model_of
from analyzers.first_error import Check
from analyzers.launch import CommandLine, Launch, command, split_command
from analyzers.witness import Leaf, assign, candidates, fact_leaves, settable_leaves
from extractor.ir import RefKind

EXAMPLE_SHARE = 0.4  # of the launches at most, from the catalog's examples
MIX_CHANCE = 0.3  # a combo takes a setting of a second entry's condition
# an architecture is a model class's name: the witness search's candidates for the leaf also
# hold the condition's other strings (backend names, algorithm names)
_CLASS = re.compile(r"[A-Z][A-Za-z0-9_]*[a-z][A-Za-z0-9_]*")
DEFAULT_MODEL_CHANCE = 0.6  # a combo whose condition names no architecture uses the default model
SIZES = (1, 2, 2, 3, 3)  # settings per combo, drawn uniformly
_RUNNABLE = re.compile(r"<(?:model(?::[A-Za-z_][A-Za-z0-9_]*)?|file|dir)>")
_PLACEHOLDER = re.compile(r"<[^<>\s]*>")
_PROGRAM = "program"  # any program name: only the arguments are kept


@dataclass(frozen=True, slots=True)
class Generated:
    argv: tuple[str, ...]
    env: tuple[tuple[str, str], ...]
    origin: str  # "bare", "example <id> before|after", "combo <id>[+<id>]"

    @property
    def key(self) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
        return (self.argv, self.env)


def runnable(text: str) -> bool:
    """Are the stand-ins of `text` all ones the real side can fill?"""
    return all(_RUNNABLE.fullmatch(p) for p in _PLACEHOLDER.findall(text))


def example_lines(entries: Iterable[Mapping[str, Any]], prefix: str) -> list[tuple[str, CommandLine]]:
    """Every runnable example command line of the catalog's entries, with where it comes from."""
    out: list[tuple[str, CommandLine]] = []
    for entry in entries:
        fixes = [entry.get("example_fix") or {}] + [v.get("example_fix") or {} for v in entry.get("variants") or ()]
        for fix in fixes:
            for pair in (fix, fix.get("static") or {}):
                for side in ("before", "after"):
                    text = pair.get(side)
                    if not text or not runnable(text):
                        continue
                    try:
                        out.append((f"example {entry['id']} {side}", split_command(text, prefix)))
                    except ValueError:
                        continue
    return out


# ------------------------------------------------------------------ combos


def _leaves(check: Check, model: Model) -> list[Leaf]:
    """The settings a user gives that `check`'s condition reads (not the model flag: the
    model is chosen by its architecture)."""
    return [leaf for leaf in settable_leaves(check.condition, model) if leaf.name != model.examples.model]


def named_architectures(check: Check, model: Model) -> list[str]:
    """The architectures `check`'s condition compares the model's against."""
    names: list[str] = []
    for leaf in fact_leaves(check.condition):
        if leaf.kind is RefKind.MODEL and model.examples.is_architecture(leaf.name):
            names += [v for v in candidates(leaf, check.condition, model) if isinstance(v, str) and _CLASS.fullmatch(v)]
    return list(dict.fromkeys(names))


def _value(leaf: Leaf, check: Check, model: Model, rng: random.Random) -> Any:
    """A boundary value for `leaf`: one of the witness search's candidates (not 'not given',
    not an empty list: argparse refuses one for nargs='+')."""
    found = [v for v in candidates(leaf, check.condition, model) if v is not NOT_GIVEN and v != ()]
    return rng.choice(found) if found else NOT_GIVEN


def _model(check: Check, model: Model, architectures: Sequence[str], rng: random.Random) -> str:
    named = named_architectures(check, model)
    if named and rng.random() < 0.7:
        return model_of(rng.choice(named))
    if rng.random() < DEFAULT_MODEL_CHANCE or not architectures:
        return MODEL
    return model_of(rng.choice(list(architectures)))


def _rendered(launch: Launch, model: Model, origin: str) -> Generated:
    """`launch` as a command line (the shell line examples are, split again: one way to write values)."""
    line = split_command(command(launch, model.flags, _PROGRAM), _PROGRAM)
    return Generated(line.argv, line.env, origin)


def combo(check: Check, other: Check | None, model: Model, architectures: Sequence[str],
          rng: random.Random) -> Generated | None:
    """One launch exercising `check` (and a setting of `other`): None when it reads no setting."""
    leaves = _leaves(check, model)
    if not leaves:
        return None
    chosen = [(leaf, check) for leaf in rng.sample(leaves, min(rng.choice(SIZES), len(leaves)))]
    if other is not None and (more := [x for x in _leaves(other, model) if x not in leaves]):
        chosen.append((rng.choice(more), other))
    launch = Launch({model.examples.model: _model(check, model, architectures, rng)} if model.examples.model else {})
    for leaf, source in chosen:
        value = _value(leaf, source, model, rng)
        if value is not NOT_GIVEN:
            launch = assign(launch, leaf, value)
    return _rendered(launch, model, f"combo {check.id}" + (f"+{other.id}" if other is not None else ""))


# ------------------------------------------------------------------ all of them


def bare(model: Model, architectures: Sequence[str]) -> list[Generated]:
    """The model flag alone, for the default model and each architecture."""
    dest = model.examples.model
    if not dest:
        return []
    stand_ins = [MODEL] + [model_of(a) for a in architectures]
    return [_rendered(Launch({dest: s}), model, "bare") for s in stand_ins]


def generate(checks: Sequence[Check], examples: Sequence[tuple[str, CommandLine]], model: Model,
             architectures: Sequence[str], *, count: int, seed: int) -> list[Generated]:
    """`count` distinct launches (fewer only when the sources run dry)."""
    rng = random.Random(seed)
    out: dict[Any, Generated] = {}

    def add(found: Generated | None) -> None:
        if found is not None and len(out) < count:
            out.setdefault(found.key, found)

    for found in bare(model, architectures):
        add(found)
    pool = sorted({(line.argv, line.env): origin for origin, line in examples}.items())
    for (argv, env), origin in rng.sample(pool, min(len(pool), int(count * EXAMPLE_SHARE))):
        add(Generated(argv, env, origin))
    usable = [c for c in checks if _leaves(c, model)]
    for _ in range(count * 4):  # rounds over the entries until `count` (duplicates are dropped)
        if len(out) >= count or not usable:
            break
        order = rng.sample(usable, len(usable))
        for check in order:
            other = rng.choice(usable) if rng.random() < MIX_CHANCE else None
            add(combo(check, other if other is not check else None, model, architectures, rng))
            if len(out) >= count:
                break
    return list(out.values())
