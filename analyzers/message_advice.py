"""The advice a message gives in its own words, as changes a solution makes.

"... Disable --enable-dynamic-chunking." is a solution in the program's own words; so are
"use --x", "pass --x", "set --x to 4", "--a requires --b" (a switch) and "set ENV_Y=1".
Each becomes a `Solution` with its `Change` known up front (no trigger part): the examples'
judge (`analyzers.solution_check`) applies it to a command that reaches the error and lists
it only where the whole pipeline does not predict it fails. Advice naming a value the message
fills in at run time (``set --x to {y}``) or an option the flag model does not know is left out.
"""
from __future__ import annotations

import re
from typing import Any

from analyzers.solution import Change, Solution

_OPTION = r"`?(--[a-z][a-z0-9-]*)`?"
_VALUE = r"""[`'"]?([A-Za-z0-9_:/+-]+(?:\.[A-Za-z0-9_]+)*)[`'"]?"""
_OPTIONS = rf"{_OPTION}((?:\s*(?:,|\band\b)\s*`?--[a-z][a-z0-9-]*`?)*)"  # "--a and --b": both
# (what the advice does, pattern): "off" drops the option, "on" passes it, "value" sets it
_ADVICE: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("off", re.compile(rf"\b(?:disable|turn off|remove|drop|do not (?:pass|use|set)|don't (?:pass|use|set)|"
                       rf"unset)\s+{_OPTIONS}", re.IGNORECASE)),
    ("value", re.compile(rf"\b(?:set|use|pass)\s+{_OPTION}\s*(?:=|\bto\b)\s*{_VALUE}(?=$|[\s.,;)])", re.IGNORECASE)),
    ("value", re.compile(rf"\b(?:use|pass|run with)\s+{_OPTION} {_VALUE}(?=$|[\s.,;)])", re.IGNORECASE)),
    ("on", re.compile(rf"\b(?:enable|turn on|pass|use|add|set|run with|requires?|needs?)\s+{_OPTIONS}(?=$|[\s.,;)])",
                      re.IGNORECASE)),
)
_ENV_SET = re.compile(r"\b(?:set|export|use)\s+"
                      r"`?((?-i:[A-Z][A-Z0-9]*_[A-Z0-9_]+))=([A-Za-z0-9_-]+(?:\.[A-Za-z0-9_]+)*)`?", re.IGNORECASE)
_ENV_UNSET = re.compile(r"\bunset\s+`?((?-i:[A-Z][A-Z0-9]*_[A-Z0-9_]+))`?", re.IGNORECASE)
# "cannot use --x", "when you enable --x", "is required to pass --x": no advice to do it
_NOT_ADVICE = re.compile(r"\b(?:not|cannot|can't|n't|never|no|if|when|whether|without|to)\s+$", re.IGNORECASE)
# words where a value would be: "set --x to a positive value", "pass --x or --y"
_WORDS = frozenset({"a", "an", "the", "one", "or", "and", "any", "some", "it", "its", "this", "that", "them"})
_SWITCH_ACTIONS = ("store_true", "store_false", "BooleanOptionalAction")
_NAMED = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")

ADVISES = ", as the message advises."  # how the words of the message's own advice end


def named_options(text: str, flags: Any) -> list[str]:
    """The options of the flag model `text` (a message) names, as written (``--tp-size``), in order."""
    return [o for o in dict.fromkeys(_NAMED.findall(text)) if flags is not None and flags.by_option(o) is not None]


def _switch(flag: Any) -> bool:
    return (flag.action or "").endswith(_SWITCH_ACTIONS)


def _change(kind: str, option: str, value: str, flags: Any) -> Change | None:
    """The change one piece of advice makes to one option, or None where the flag model does
    not bear it out (an unknown option, a value for a switch or not among its choices,
    "requires --x" for an option taking a value)."""
    flag = flags.by_option(option) if flags is not None else None
    if flag is None or flag.hidden:
        return None
    if kind == "off":
        return Change(drop=(option,)) if _switch(flag) else None
    if kind == "on":
        return Change(set=((option, ""),)) if _switch(flag) and option not in flag.negations else None
    if _switch(flag) or value.lower() in _WORDS or (isinstance(flag.choices, tuple)
                                                    and value not in map(str, flag.choices)):
        return None
    return Change(set=((option, value),))


def _joined(changes: list[Change]) -> Change:
    return Change(tuple(x for c in changes for x in c.set), tuple(x for c in changes for x in c.drop))


def _said(change: Change) -> str:
    """The change as the advice reads: "Do not pass `--x`", "Pass `--x`", "Set `--x` to 4"."""
    if change.drop and not change.set:
        named = [f"`{o}`" for o in change.drop]
        return f"Do not pass {named[0]}" if len(named) == 1 else f"Pass neither {', '.join(named[:-1])} nor {named[-1]}"
    words = change.words()
    return words[0].upper() + words[1:]


def _found(text: str, flags: Any) -> list[tuple[int, Change]]:
    """(where, change) of each piece of option advice in `text`, an option advised once."""
    found: list[tuple[int, Change]] = []
    taken: set[str] = set()
    for kind, pattern in _ADVICE:
        for m in pattern.finditer(text):
            if _advice_for_a_rule(text, m) or _NOT_ADVICE.search(text[:m.start()]):
                continue
            options = [m.group(1), *(re.findall(r"--[a-z][a-z0-9-]*", m.group(2)) if kind != "value" else ())]
            changes = [_change(kind, o, m.group(2) if kind == "value" else "", flags) for o in options]
            if all(changes) and not taken & set(options):
                taken.update(options)
                found.append((m.start(), _joined([c for c in changes if c is not None])))
    return found


def advised(template: str, flags: Any) -> list[Solution]:
    """The solutions `template` (a message, holes as ``{x}``) advises, in its order, each
    ending "as the message advises"; none for advice that fills in values at run time."""
    text = template.replace("{{", "").replace("}}", "")
    found = _found(text, flags)
    found += [(m.start(), Change(env=((m.group(1), m.group(2)),))) for m in _ENV_SET.finditer(text)]
    found += [(m.start(), Change(env=((m.group(1), None),))) for m in _ENV_UNSET.finditer(text)]
    return [Solution(f"{_said(c)}{ADVISES}", change=c) for _, c in sorted(found, key=lambda f: f[0])]


def _advice_for_a_rule(text: str, m: re.Match[str]) -> bool:
    """"requires --x" that goes on to name values (``requires --x in {a, b}``, ``requires
    --x to be 2``): a rule the trigger's own solutions phrase, not advice to pass a switch."""
    rest = text[m.end():m.end() + 12].lstrip()
    return m.group(0).lower().startswith(("require", "need")) and rest.startswith(("in ", "to ", "=", "with "))
