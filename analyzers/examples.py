"""How an example command writes the values a user picks, so that it can be pasted.

Every value in an example is concrete, except five stand-ins that `errcat confirm`
replaces: ``<model>`` (any model), ``<model:Arch>`` (a model of that architecture),
``<file>`` (a small existing file), ``<dir>`` (an existing empty directory) and
``<missing>`` (a path where nothing exists, for a file or directory option). Which
flags hold a model, a file or a directory, and which model properties hold the
architecture, come from the profile's `examples:` section (`ExampleRules`);
the values the code compares each flag and env var against anywhere in the catalog
(`with_known`) are the first guesses for free-form values.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from extractor.ir import Compare, Const, Expr, In, Ref, RefKind, is_member_text, walk
from extractor.profile import ExampleRules

MODEL = "<model>"
FILE = "<file>"
DIR = "<dir>"
MISSING = "<missing>"  # a file or directory option's path where nothing exists
MODEL_STAND_IN = re.compile(r"<model(?::([A-Za-z_][A-Za-z0-9_]*))?>")  # group 1: the architecture, if named
WORD = "example"  # a free-form string nothing in the code names
JSON_WORD = '{"key": "value"}'  # ... for a flag that takes JSON text
JSON_LIST = '["value"]'  # JSON text that is no object
MAX_KNOWN = 4  # values remembered per flag or env var (the most compared first)


def is_made_up(value: Any) -> bool:
    """A value the search made up for an option a person fills with their own text (a free
    word, JSON stand-ins, empty text, a path stand-in; a list of such words for an option
    taking several): never named as a value to set."""
    if isinstance(value, (tuple, list)):
        return bool(value) and all(is_made_up(v) for v in value)
    return isinstance(value, str) and (value in (WORD, JSON_WORD, JSON_LIST, "") or value.startswith(f"{WORD}-")
                                       or (value.startswith("<") and value.endswith(">")))


def model_of(architecture: str) -> str:
    """The stand-in for a model of `architecture`: ``<model:DeepseekV3ForCausalLM>``."""
    return f"<model:{architecture}>"


@lru_cache(maxsize=4096)
def _matches(patterns: tuple[str, ...], name: str) -> bool:
    return any(re.fullmatch(p, name) for p in patterns)


@dataclass(frozen=True, slots=True)
class Examples:
    rules: ExampleRules = field(default_factory=ExampleRules)  # from the profile
    known: tuple[tuple[str, tuple[Any, ...]], ...] = ()  # "kind:name" -> values the code compares it against

    @property
    def model(self) -> str:
        """The dest of the flag naming the model ("" when the profile names none)."""
        return self.rules.model

    def stand_in(self, dest: str) -> str | None:
        """``<model>``, ``<file>`` or ``<dir>`` for a flag whose value is one of those."""
        rules = self.rules
        if dest == rules.model or _matches(rules.models, dest):
            return MODEL
        if _matches(rules.files, dest):
            return FILE
        if _matches(rules.dirs, dest):
            return DIR
        return None

    def counts(self, dest: str) -> bool:
        """Does flag `dest` count something (a parallel size: the profile's `examples.counts`)?"""
        return _matches(self.rules.counts, dest)

    def is_architecture(self, name: str) -> bool:
        """Is model property `name` the model's architecture (``hf_config.architectures[0]``)?"""
        return _matches(self.rules.architecture, name)

    def accepted(self, name: str) -> tuple[str, ...]:
        """The values the program accepts for flag dest or env var `name` (the profile's
        `examples.accepts`; () when its declaration says, or nothing does)."""
        return dict(self.rules.accepts).get(name, ())

    def known_values(self, key: str) -> tuple[Any, ...]:
        """What the code compares flag or env var `key` ("kind:name") against, most often first."""
        return dict(self.known).get(key, ())

    def with_known(self, exprs: Iterable[Expr]) -> Examples:
        return replace(self, known=known_values(exprs))


def known_values(exprs: Iterable[Expr]) -> tuple[tuple[str, tuple[Any, ...]], ...]:
    """Per flag and env var, the constants the conditions compare it with (``x == "a"``,
    ``x in ("a", "b")``), most frequent first, then by text: a deterministic order."""
    counts: dict[str, Counter] = {}
    for expr in exprs:
        for node in walk(expr):
            for ref, values in _compared(node):
                found = counts.setdefault(f"{ref.kind}:{ref.name}", Counter())
                found.update((type(v).__name__, v) for v in values if _writable(v))
    return tuple(sorted(
        (key, tuple(v for (_, v), _ in sorted(c.items(), key=lambda kv: (-kv[1], kv[0][0], str(kv[0][1])))[:MAX_KNOWN]))
        for key, c in counts.items() if c
    ))


def _compared(node: Expr) -> Iterable[tuple[Ref, tuple[Any, ...]]]:
    pairs: tuple[tuple[Expr, Expr], ...]
    if isinstance(node, Compare) and node.op in ("==", "!=", "is", "is not"):
        pairs = ((node.left, node.right), (node.right, node.left))
    elif isinstance(node, In):
        pairs = ((node.item, node.container),)
    else:
        return
    for ref, const in pairs:
        if isinstance(ref, Ref) and ref.kind in (RefKind.FLAG, RefKind.ENV) and isinstance(const, Const):
            yield ref, const.value if isinstance(const.value, tuple) else (const.value,)


def _writable(value: Any) -> bool:
    """A constant a command line can carry: a string or number, not an enum member's source."""
    if isinstance(value, str):
        return bool(value) and not is_member_text(value)
    return isinstance(value, (int, float)) and not isinstance(value, bool)
