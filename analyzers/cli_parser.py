"""The target's argument parser, rebuilt from its flag model, for `errcat check`.

A command line is parsed by argparse itself, configured as the target declares each
option (its aliases, ``--no-`` twin, action, nargs, type, choices, required), so what
argparse would refuse (an unknown option, a bad choice or number, a missing required
option, an ambiguous prefix) is refused here with argparse's own words, plus a "did you
mean" from the options the flag model knows. Nothing of the target is imported.
"""
from __future__ import annotations

import argparse
import difflib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

from analyzers.flag_types import ValueKind, value_type
from analyzers.flags import JSON_PARSERS, Flag, FlagModel

_TYPES: dict[str, Any] = {ValueKind.INT: int, ValueKind.FLOAT: float}
# parsers a declaration names that refuse words as the target's do (``invalid loads value: 'x'``)
_PARSERS: dict[str, Any] = dict.fromkeys(JSON_PARSERS, json.loads)
_BARE = frozenset({"store_true", "store_false", "count"})  # take no words
_CONST = frozenset({"store_const", "append_const"})
_VALUED = frozenset({"", "store", "append", "extend"})  # take words of the flag's type


@dataclass(frozen=True, slots=True)
class Refusal:
    """What argparse says of a command line (``argument --tp-size: invalid int value: 'x'``),
    and the option it would have been (``--tp-size`` for ``--tp-szie``) where one is close."""

    message: str
    suggestion: str | None = None

    def text(self) -> str:
        return self.message + (f" (did you mean {self.suggestion}?)" if self.suggestion else "")


class _Refused(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _Refused(message)

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        raise _Refused(message or "exits before parsing (a --help or --version option)")


def _kwargs(flag: Flag) -> dict[str, Any]:
    """argparse's keyword arguments for `flag` as the target declares it."""
    action = (flag.action or "").rpartition(".")[2]
    out: dict[str, Any] = {"dest": flag.dest, "required": flag.required}
    if action == "BooleanOptionalAction":
        return {**out, "action": argparse.BooleanOptionalAction}
    if action in _BARE:
        return {**out, "action": action}
    if action in _CONST:
        return {**out, "action": action, "const": flag.const}
    if action not in _VALUED:  # a custom action class: it takes the words it declares (else any)
        if flag.nargs == 0:
            return {**out, "action": "store_const", "const": True}
        return {**out, "nargs": flag.nargs if flag.nargs is not None else "*"}
    if action in ("append", "extend"):
        out["action"] = action
    takes = value_type(flag)
    kind = takes.item_kind if takes.kind is ValueKind.LIST else takes.kind
    if kind in _TYPES:
        out["type"] = _TYPES[kind]
    if flag.parser in _PARSERS:
        out["type"] = _PARSERS[flag.parser]
    if flag.nargs in ("*", "+", "?") or isinstance(flag.nargs, int):
        out["nargs"] = flag.nargs
    if isinstance(flag.choices, tuple) and flag.choices:
        out["choices"] = flag.choices
    return out


def refused_word(flag: Flag | None, value: Any) -> bool:
    """Whether the parser `flag` declares refuses `value` (a word a launch keeps as text:
    one the parser did not turn into a value), as argparse would before any check runs."""
    parse = _PARSERS.get(flag.parser or "") if flag is not None else None
    if parse is None or not isinstance(value, str):
        return False
    try:
        parse(value)
    except ValueError:
        return True
    return False


def target_parser(flags: FlagModel, prog: str = "") -> argparse.ArgumentParser:
    """An argparse parser that takes what the target's declares (derived fields have no option)."""
    parser = _Parser(prog=prog or "target", add_help=False, conflict_handler="resolve")
    for flag in flags.flags:
        if flag.option is None or flag.derived:
            continue
        try:
            parser.add_argument(flag.option, *flag.aliases, **_kwargs(flag))
        except (ValueError, TypeError):  # a declaration argparse itself would refuse: taken as text
            parser.add_argument(flag.option, *flag.aliases, dest=flag.dest, nargs="*")
    return parser


class TargetCli:
    """The target's command line for one flag model: its parser is built on first use and kept
    by whoever holds this (a judge checks many commands; building costs an `add_argument` per flag)."""

    def __init__(self, flags: FlagModel) -> None:
        self.flags = flags
        self._parser: argparse.ArgumentParser | None = None

    def refusal(self, argv: Sequence[str]) -> Refusal | None:
        """What argparse refuses in `argv` (the program's arguments), or None."""
        if self._parser is None:
            self._parser = target_parser(self.flags)
        return _refusal(self._parser, self.flags, argv)


def refusal(flags: FlagModel, argv: Sequence[str]) -> Refusal | None:
    """What argparse refuses in `argv`, with a parser made for this one question."""
    return _refusal(target_parser(flags), flags, argv)


def _refusal(parser: argparse.ArgumentParser, flags: FlagModel, argv: Sequence[str]) -> Refusal | None:
    try:
        _, unknown = parser.parse_known_args(list(argv))
    except _Refused as exc:
        return Refusal(str(exc), _suggestion(flags, argv, str(exc)))
    if unknown:
        options = [w for w in unknown if w.startswith("-")]
        return Refusal(f"unrecognized arguments: {' '.join(unknown)}".rstrip(),
                       _closest(flags, options[0].partition("=")[0]) if options else None)
    return None


def _suggestion(flags: FlagModel, argv: Sequence[str], message: str) -> str | None:
    """For a choice argparse refused: the closest choice (``invalid choice: 'EAGEL'`` -> EAGLE)."""
    if "invalid choice:" not in message:
        return None
    given = message.partition("invalid choice:")[2].strip().split(" ")[0].strip("'\"")
    choices = message.partition("(choose from")[2].rstrip(")").replace("'", "").split(", ")
    found = difflib.get_close_matches(given, [c.strip() for c in choices if c.strip()], n=1, cutoff=0.5)
    return found[0] if found else None


def _closest(flags: FlagModel, option: str) -> str | None:
    return closest_option(option, [o for f in flags.flags if not f.derived for o in f.options])


def closest_option(option: str, known: Sequence[str]) -> str | None:
    """The option of `known` a mistyped `option` most likely meant (``--tp-szie`` -> ``--tp-size``)."""
    found = difflib.get_close_matches(option, known, n=1, cutoff=0.6)
    return found[0] if found else None
