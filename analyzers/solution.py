"""A solution as a checked change: its words, what it changes, the command it gives, and
what the pipeline (`predicted`) and the real program (`verified`) say of that command.

Advice phrases one change per part of a trigger (`analyzers.advice.solutions`); the
examples' judge (`analyzers.solution_check`) applies each to a command that reaches the
error and keeps those that get past it without walking into another. In catalog JSON a
solution is ``{"text", "change", "before", "command", "predicted", "verified"[, "real"]}``; one
that could not be tried on a command is ``{"text", "predicted": "unknown", "verified":
"not-run"}``.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from analyzers.argv import line_difference
from analyzers.examples import MODEL_STAND_IN
from analyzers.launch import CommandLine, Launch, flag_words
from extractor import shape
from extractor.value_digest import IN_MEMORY

if TYPE_CHECKING:
    from extractor.ir import Expr

NOT_RUN = "not-run"  # `verified` until `errcat confirm` has run the solution's command
# the goal a solution's words give where the condition reads as no sentence ("Change `--a` so
# that the trigger above no longer holds."): once a change is known, its own words say it all
NO_GOAL = "the trigger above no longer holds"


@dataclass(frozen=True, slots=True)
class Change:
    """What a solution does to a command: options given a value, options dropped, env vars
    set (a value) or unset (None); options by their command-line spelling."""

    set: tuple[tuple[str, str], ...] = ()  # option -> its words as the command writes them
    drop: tuple[str, ...] = ()
    env: tuple[tuple[str, str | None], ...] = ()
    # options moved from a model of one architecture (``<model:Arch>``) to the default stand-in:
    # "a model of another architecture"; elsewhere ``<model>`` is any model
    other_architecture: frozenset[str] = field(default=frozenset(), compare=False, metadata={IN_MEMORY: True})

    def __bool__(self) -> bool:
        return bool(self.set or self.drop or self.env)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.set:
            out["set"] = dict(self.set)
        if self.drop:
            out["drop"] = list(self.drop)
        if self.env:
            out["env"] = dict(self.env)
        return out

    @classmethod
    def from_dict(cls, data: object) -> Change:
        raw = shape.mapping(data)
        if not set(raw) <= {"set", "drop", "env"}:
            raise shape.ShapeError("not a stored Change")
        env = shape.mapping(raw.get("env", {}))
        return cls(tuple((shape.text(k), shape.text(v)) for k, v in shape.mapping(raw.get("set", {})).items()),
                   shape.texts(raw.get("drop", [])),
                   tuple((shape.text(k), shape.optional_text(v)) for k, v in env.items()))

    @classmethod
    def between_lines(cls, before: CommandLine, after: CommandLine) -> Change:
        """What turns the shell line `before` into `after`, word for word (options in order)."""
        sets, drops, env = line_difference(before, after)
        return cls(tuple((o, " ".join(v)) for o, v in sets), drops, env)

    def beyond(self, other: Change) -> Change:
        """What this change does that `other` does not."""
        return Change(tuple(s for s in self.set if s not in other.set),
                      tuple(d for d in self.drop if d not in other.drop),
                      tuple(e for e in self.env if e not in other.env))

    def options(self) -> frozenset[str]:
        """The options this change sets or drops (`set` here is the field, not the builtin)."""
        return frozenset(option for option, _ in self.set) | frozenset(self.drop)

    def words(self) -> str:
        """The change in a person's words: "pass `--x`", "set `--tp-size` to 2", "drop `--y`"."""
        said = [_set_words(option, value, option in self.other_architecture) for option, value in self.set]
        said += [f"drop `{option}`" for option in self.drop]
        said += [f"set `{name}={value}`" if value is not None else f"unset `{name}`" for name, value in self.env]
        return _joined(said)

    def said_by(self, words: str) -> bool:
        """Do `words` name everything this change does (each option it sets, with its value;
        each it drops; each env var)? "Set `--x` to 1.0." does not say a change setting 0.5."""
        return all(f"`{option}`" in words and value in words for option, value in self.set) \
            and all(f"`{option}`" in words for option in self.drop) and all(name in words for name, _ in self.env)

    def sentence(self, rest: str = ".") -> str:
        """`words()` as the start of a sentence, `rest` after it: "Set `--tp-size` to 2."."""
        words = self.words()
        return f"{words[:1].upper()}{words[1:]}{rest}"


def _set_words(option: str, value: str, other_architecture: bool = False) -> str:
    """"set `--x` to v", "pass `--x`"; a model stand-in as the model it stands for (the default
    `<model>`: any model; where it replaces one of the architecture the check is about, any
    model of another architecture)."""
    if not value:
        return f"pass `{option}`"
    if (stand_in := MODEL_STAND_IN.fullmatch(value)) is not None:
        model = f"a {stand_in.group(1)} model" if stand_in.group(1) else \
            "a model of another architecture" if other_architecture else "a model"
        return f"point `{option}` at {model} (`{value}`)"
    return f"set `{option}` to {value}"


def _joined(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1] if parts else ""


@dataclass(frozen=True, slots=True)
class ValueChoice:
    """The values of one setting a solution names (``Set `--x` to one of a, b``): what the
    examples' judge tries one by one, keeping those the whole pipeline lets through."""

    leaf: Any  # `analyzers.witness.Leaf`: the option or env var
    listed: tuple[Any, ...]  # values the words name as working
    others: tuple[Any, ...]  # other values that make the part false (a value to name where none is listed)
    offending: tuple[str, ...]  # values the words name as refused, as shown
    unset: bool  # leaving it unset makes the part false too
    form: str = ""  # the form the values take where the part is a failed conversion ("valid JSON")

    @property
    def named(self) -> tuple[Any, ...]:
        """The values the words name: those listed as working, else the one other value shown ("e.g.")."""
        return self.listed or self.others[:1]


@dataclass(frozen=True, slots=True)
class Solution:
    text: str
    # the trigger part it makes false (None: text only, e.g. curated); in memory only
    part: Expr | None = field(default=None, compare=False, metadata={IN_MEMORY: True})
    # what the search may change to make `part` false, where `part` reads derived settings; in memory only
    leaves: tuple[Any, ...] = field(default=(), compare=False, kw_only=True, metadata={IN_MEMORY: True})
    # what is said instead where no change the search finds is judged to work (a note); in memory only
    note: str = field(default="", compare=False, kw_only=True, metadata={IN_MEMORY: True})
    # the values the words name, each to be judged; in memory only
    choice: ValueChoice | None = field(default=None, compare=False, kw_only=True, metadata={IN_MEMORY: True})
    # it makes false only what says an earlier raise of the block did not fire: that raise fires
    # instead, unless its change also leaves the block (judged where a command reaches the error)
    passed: bool = field(default=False, compare=False, kw_only=True, metadata={IN_MEMORY: True})
    change: Change | None = None
    before: str | None = None  # a command that meets the error first (the example's, as a rule)
    command: str | None = None  # `before` with the change applied
    predicted: str = "unknown"  # the whole pipeline's word on that command: "true", "false", "unknown"
    verified: str = NOT_RUN  # the real program's (errcat confirm): "true", "false", "not-run"
    real: str = ""  # what the real program did with `command`

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"text": self.text}
        if self.change is not None:
            out["change"] = self.change.as_dict()
        if self.command is not None:
            out["before"] = self.before
            out["command"] = self.command
        out["predicted"] = self.predicted
        out["verified"] = self.verified
        if self.real:
            out["real"] = self.real
        return out

    @classmethod
    def from_dict(cls, data: object) -> Solution:
        """A solution as `as_dict` wrote it (a plain string: a text-only one, as older catalogs
        and curated overlays give them); `shape.ShapeError` for anything else."""
        if isinstance(data, str):
            return cls(data)
        raw = shape.mapping(data)
        if not set(raw) <= {"text", "change", "before", "command", "predicted", "verified", "real"}:
            raise shape.ShapeError("not a stored Solution")
        return cls(shape.text(raw["text"]), None,
                   Change.from_dict(raw["change"]) if "change" in raw else None,
                   shape.optional_text(raw.get("before")), shape.optional_text(raw.get("command")),
                   shape.text(raw.get("predicted", "unknown")), shape.text(raw.get("verified", NOT_RUN)),
                   shape.text(raw.get("real", "")))


def solution_text(item: str | Mapping[str, Any]) -> str:
    """The words of a solution as catalog JSON holds it (a string, or a record with `text`)."""
    return item if isinstance(item, str) else str(item.get("text") or "")


def change_between(before: Launch, after: Launch, flags: Any) -> Change:
    """What turns `before` into `after`, as a user writes it (`flags`: the flag model, for the
    options' spelling; a flag whose words do not change is no change)."""
    def words(dest: str, launch: Launch) -> list[str]:
        flag = flags.by_dest(dest) if flags is not None else None
        return flag_words(dest, launch.flags[dest], flag) if dest in launch.flags else []

    set_: list[tuple[str, str]] = []
    drop: list[str] = []
    moved: set[str] = set()
    for dest in dict.fromkeys([*before.flags, *after.flags]):
        old, new = words(dest, before), words(dest, after)
        if old == new:
            continue
        if new:
            set_.append((new[0], " ".join(new[1:])))
            if len(old) == 2 and (was := MODEL_STAND_IN.fullmatch(old[1])) is not None and was.group(1):
                moved.add(new[0])
        elif old:
            drop.append(old[0])
    env = [(name, after.env.get(name)) for name in sorted({*before.env, *after.env})
           if before.env.get(name) != after.env.get(name)]
    return Change(tuple(set_), tuple(drop), tuple(env), frozenset(moved))
