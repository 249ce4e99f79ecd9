"""A command line's options as the evaluator's `Launch`: the inverse of `analyzers.launch.flag_words`.

Each option is read by its declaration (`analyzers.flag_types`): a bool action sets
True (its ``--no-`` twin False), a list takes the words up to the next option, numbers
are numbers and JSON text of a dict flag (or of a list field a type parser reads) is its
value; a word that does not parse as its type stays text (the real program then says
what it makes of it). Stand-ins (``<model:Arch>``) stay as written.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from analyzers.flag_types import ValueKind, one_word_list, value_type
from analyzers.flags import Flag, FlagModel
from analyzers.launch import CommandLine, Launch
from analyzers.option_text import dest_for_option


def option_groups(argv: Sequence[str]) -> list[tuple[str, tuple[str, ...]]]:
    """argv as (option, its words) in order (``--x=v`` is ``--x v``); words before the first
    option are one group under ""."""
    out: list[tuple[str, list[str]]] = []
    for word in argv:
        if word.startswith("--"):
            option, eq, value = word.partition("=")
            out.append((option, [value] if eq else []))
        elif out:
            out[-1][1].append(word)
        else:
            out.append(("", [word]))
    return [(o, tuple(v)) for o, v in out]


Difference = tuple[tuple[tuple[str, tuple[str, ...]], ...], tuple[str, ...], tuple[tuple[str, str | None], ...]]


def line_difference(before: CommandLine, after: CommandLine) -> Difference:
    """What turns the shell line `before` into `after`: the options set (in `after`'s order,
    with their words), the options dropped, the env vars set or unset (None)."""
    old, new = dict(option_groups(before.argv)), dict(option_groups(after.argv))
    old_env, new_env = dict(before.env), dict(after.env)
    return (tuple((o, v) for o, v in new.items() if o and old.get(o) != v),
            tuple(o for o in old if o and o not in new),
            tuple((k, new_env.get(k)) for k in sorted({*old_env, *new_env}) if old_env.get(k) != new_env.get(k)))


def group_words(groups: Iterable[tuple[str, tuple[str, ...]]]) -> tuple[str, ...]:
    return tuple(w for option, values in groups for w in ((option,) if option else ()) + values)


def _number(kind: str) -> Callable[[str], Any]:
    return int if kind == ValueKind.INT else float


def _scalar(word: str, kind: str) -> Any:
    if kind in (ValueKind.INT, ValueKind.FLOAT):
        try:
            return _number(kind)(word)
        except ValueError:
            return word
    if kind == ValueKind.DICT:
        try:
            return json.loads(word)
        except ValueError:
            return word
    return word


def _bool(option: str, flag: Flag) -> bool:
    return not (option in flag.negations or (flag.action or "").endswith("store_false"))


def option_value(option: str, words: Sequence[str], flag: Flag | None) -> Any:
    """The value `words` give the flag `option` names (None: a flag nobody declared, no words)."""
    takes = value_type(flag)
    if flag is not None and takes.kind is ValueKind.BOOL and not words:
        return _bool(option, flag)
    if takes.kind is ValueKind.LIST:
        if one_word_list(flag) and len(words) == 1:  # JSON text is its value, whatever JSON it is
            found = _scalar(words[0], ValueKind.DICT)
            return tuple(found) if isinstance(found, list) else found
        return tuple(_scalar(w, takes.item_kind) for w in words)
    if not words:
        return None
    return _scalar(words[0], takes.kind)


def launch_of_argv(argv: Sequence[str], flags: FlagModel | None, env: Iterable[tuple[str, str]] = ()) -> Launch:
    """The launch `argv` (the program's arguments) and `env` stand for; the last of a repeated option wins."""
    given: dict[str, Any] = {}
    for option, words in option_groups(argv):
        if not option:
            continue
        flag = flags.by_option(option) if flags is not None else None
        dest = flag.dest if flag is not None else dest_for_option(option)
        given.pop(dest, None)  # a repeated option moves to where it was last given
        given[dest] = option_value(option, words, flag)
    return Launch(given, dict(env))
