"""Launches built to provoke failures, from a catalog's flag model alone (no condition read).

Pure and seeded: the same flags, model flag, seed and pair count give the same launches.
Every option taking a value gets boundary values by what it takes (`analyzers.flag_types`):
a number 0, -1 and huge (`HUGE`); text empty and malformed; a JSON option empty and not JSON;
a list one such item. Options with declared choices are left out (argparse refuses anything
else before validation runs), and so are switches (no value to get wrong). Then `pairs`
random pairs of those single settings on distinct options. Every launch names the model
(`<model>`, the stand-in the real side fills), as a user's would.
"""
from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from analyzers.flag_types import ValueKind, one_word_list, value_type
from analyzers.flags import Flag, FlagModel

HUGE = "1099511627776"  # 2**40: passes int(), too large for anything sized by it
NUMBERS = ("0", "-1", HUGE)
TEXTS = ("", "%not@valid%")  # empty, and nothing an option of sglang's names
JSON_TEXTS = ("", "{not json")
MODEL_STAND_IN = "<model>"


@dataclass(frozen=True, slots=True)
class Provocation:
    argv: tuple[str, ...]
    origin: str  # "single --x", "pair --x --y"


def _values(flag: Flag) -> tuple[str, ...]:
    """The values worth provoking `flag` with (none: a switch, or declared choices)."""
    if flag.choices is not None:
        return ()
    kind = value_type(flag)
    if kind.kind is ValueKind.LIST and not one_word_list(flag):
        kind_of_item = kind.item_kind
    elif kind.kind is ValueKind.LIST:
        return JSON_TEXTS
    else:
        kind_of_item = kind.kind
    if kind_of_item in (ValueKind.INT, ValueKind.FLOAT):
        return NUMBERS
    if kind_of_item is ValueKind.DICT:
        return JSON_TEXTS
    if kind_of_item is ValueKind.STR:
        return TEXTS
    return ()  # a switch


def singles(flags: FlagModel, model_dest: str | None) -> list[tuple[str, str]]:
    """(option, value) for every option taking a value but the model's, in declaration order."""
    out: list[tuple[str, str]] = []
    for flag in flags.flags:
        if flag.option is None or flag.derived or flag.dest == model_dest:
            continue
        out += [(flag.option, value) for value in _values(flag)]
    return out


def provocations(flags: FlagModel, model_dest: str | None, *, pairs: int, seed: int) -> list[Provocation]:
    """Every single setting, then `pairs` distinct random pairs on distinct options."""
    model = flags.by_dest(model_dest) if model_dest else None
    base = (model.option, MODEL_STAND_IN) if model is not None and model.option else ()
    ones = singles(flags, model_dest)
    out = [Provocation((*base, option, value), f"single {option}") for option, value in ones]
    rng = random.Random(seed)
    seen: set[tuple[str, ...]] = set()
    for _ in range(pairs * 4):  # draws until `pairs` distinct ones (repeats dropped)
        if len(seen) >= pairs or len({o for o, _ in ones}) < 2:
            break
        a, b = rng.sample(ones, 2)
        argv = (*base, *a, *b)
        if a[0] != b[0] and argv not in seen:
            seen.add(argv)
            out.append(Provocation(argv, f"pair {a[0]} {b[0]}"))
    return out


def sample(found: Sequence[Provocation], count: int | None, seed: int) -> list[Provocation]:
    """`count` of `found` drawn with `seed` (in their order), or all of them."""
    if count is None or count >= len(found):
        return list(found)
    keep = set(random.Random(seed).sample(range(len(found)), count))
    return [p for n, p in enumerate(found) if n in keep]
