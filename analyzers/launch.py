"""A launch configuration: what a user controls (flags, env vars) plus facts they state.

The evaluator reads it; `command` renders it as the shell line a user types, e.g.
``SGLANG_X=1 python -m sglang.launch_server --model-path <model> --enable-lora``.
"""
from __future__ import annotations

import json
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from analyzers.flags import Flag, FlagModel, option_for_dest


@dataclass(frozen=True, slots=True)
class Launch:
    """Flags given on the command line (by dest), env vars (raw strings) and known facts.

    Facts are keyed ``"kind:name"`` (``"platform:is_hip"``); leaves not given are
    unknown to the evaluator. Treat the mappings as read-only: `with_*` copy.
    """

    flags: Mapping[str, Any] = field(default_factory=dict)
    env: Mapping[str, str] = field(default_factory=dict)
    facts: Mapping[str, Any] = field(default_factory=dict)
    # filled by `analyzers.reads` on first use (a launch is read many times); not part of its value
    memo: Any = field(default=None, init=False, repr=False, compare=False)
    # the same, of `env` and `facts` alone: a launch derived by a flag change shares these
    # mappings, so it carries their memo (a search derives many launches from one)
    settings_memo: Any = field(default=None, init=False, repr=False, compare=False)

    def with_flag(self, dest: str, value: Any) -> Launch:
        return self._with_flags({**self.flags, dest: value})

    def without_flag(self, dest: str) -> Launch:
        return self._with_flags({k: v for k, v in self.flags.items() if k != dest})

    def _with_flags(self, flags: Mapping[str, Any]) -> Launch:
        derived = Launch(flags, self.env, self.facts)
        object.__setattr__(derived, "settings_memo", self.settings_memo)
        return derived

    def with_env(self, name: str, value: str | None) -> Launch:
        """`value` None unsets the variable."""
        env = {k: v for k, v in self.env.items() if k != name}
        if value is not None:
            env[name] = value
        return Launch(self.flags, env, self.facts)

    def with_fact(self, key: str, value: Any) -> Launch:
        """`key` is ``"kind:name"``; `value` None drops the fact (unknown again)."""
        facts = {k: v for k, v in self.facts.items() if k != key}
        if value is not None:
            facts[key] = value
        return Launch(self.flags, self.env, facts)


def is_placeholder(value: Any) -> bool:
    """``<model>``-style stand-ins for values the user picks (paths, names)."""
    return isinstance(value, str) and len(value) > 2 and value[0] == "<" and value[-1] == ">"


# what the paths of generated stand-ins consist of (`errcat.real.materials`: ``model-<Arch>``,
# ``file.txt``, ``dir`` below a temporary directory)
_PATH_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/-_.")


def placeholder_contains(text: str) -> bool | None:
    """Is `text` part of the path a stand-in becomes? False for text holding a character
    such paths never do (``":"``, reserved by LoRA's ``model:adapter``); else unknown."""
    return False if any(c not in _PATH_CHARS for c in text) else None


def placeholder(dest: str) -> str:
    """Stand-in value for a free-form flag: ``model_path`` -> ``<model>``."""
    name = dest[: -len("_path")] if dest.endswith("_path") else dest
    return f"<{name.replace('_', '-')}>"


def _word(value: Any) -> str:
    if is_placeholder(value):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Mapping):
        return shlex.quote(json.dumps(dict(value), sort_keys=True))
    return shlex.quote(str(value))


def flag_words(dest: str, value: Any, flag: Flag | None) -> list[str]:
    """The argv words that give `dest` the value `value` ([] when it cannot be written)."""
    option = (flag.option if flag is not None else None) or option_for_dest(dest)
    action = (flag.action or "") if flag is not None else ""
    if value is None:
        return []
    if action.endswith("store_true"):
        return [option] if value else []
    if action.endswith("store_false"):
        return [] if value else [option]
    if action.endswith("BooleanOptionalAction"):
        return [option] if value else (list(flag.negations[:1]) if flag is not None and flag.negations else [])
    if isinstance(value, (list, tuple)):
        if _one_json_word(flag):
            return [option, shlex.quote(json.dumps(list(value)))]
        return [option, *(_word(v) for v in value)]
    return [option, _word(value)]


def _one_json_word(flag: Flag | None) -> bool:
    """Does `flag` read its value from one word of JSON (its own type parser, no nargs)?"""
    if flag is None or flag.nargs is not None or flag.action is not None:
        return False
    from analyzers.flag_types import one_word_list  # its type parser (libcst): only here

    return one_word_list(flag) or flag.reads_json


def command(launch: Launch, model: FlagModel | None, prefix: str) -> str:
    """The shell line: env assignments, `prefix`, then flags in the order they were set."""
    words = [f"{name}={_word(value)}" for name, value in sorted(launch.env.items())]
    words += prefix.split() if prefix else []
    for dest, value in launch.flags.items():
        words += flag_words(dest, value, model.by_dest(dest) if model is not None else None)
    return " ".join(words)


ENV_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")  # a leading NAME=value word of a shell line


@dataclass(frozen=True, slots=True)
class CommandLine:
    """A shell line as `command` writes it: leading ``NAME=value`` words, the program, its argv."""

    env: tuple[tuple[str, str], ...]
    program: tuple[str, ...]
    argv: tuple[str, ...]


def split_command(text: str, prefix: str) -> CommandLine:
    """`text` split like a shell would; `prefix` (the profile's launch command) separates the
    program from its arguments. ValueError when `text` is not a shell line or lacks `prefix`."""
    words = shlex.split(text)
    env: list[tuple[str, str]] = []
    while words and ENV_WORD.match(words[0]):
        name, _, value = words.pop(0).partition("=")
        env.append((name, value))
    program = prefix.split()
    if words[: len(program)] != program:
        raise ValueError(f"not a launch of {prefix!r}: {text!r}")
    return CommandLine(tuple(env), tuple(program), tuple(words[len(program):]))
