"""What an evaluation reads of a launch (`Reads`) and the memo key a launch gives for it."""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from analyzers.launch import Launch
from analyzers.settings import absent_fact, base_dest, derived_fact, record_of
from extractor.ir import (
    Ref,
    RefKind,
)

# ------------------------------------------------------------------ memoised evaluation
# A condition's truth depends only on what the launch gives for the settings it and its
# relevant adjustments read, so results are kept per (condition, those settings).
# And/Or/Not are decided from their operands' results: an operand's relevant rules are
# closed (they read only settings whose writers are among them), so applying the other
# operands' rules as well changes none of the values it reads.


_NOTHING: frozenset[str] = frozenset()


def frozen_names(names: Iterable[str]) -> frozenset[str]:
    """`names` frozen; one shared object when empty (most conditions read no env or fact)."""
    return frozenset(names) if names else _NOTHING


@dataclass(frozen=True, slots=True)
class Reads:
    """Launch keys an evaluation can read: flag dests, env names, fact keys."""

    flags: frozenset[str]
    env: frozenset[str]
    facts: frozenset[str]
    _sorted: tuple[tuple[str, ...], ...] = field(init=False, repr=False, compare=False)  # each kind's names, sorted

    def __post_init__(self) -> None:
        object.__setattr__(self, "_sorted", (tuple(sorted(self.flags)), tuple(sorted(self.env)),
                                             tuple(sorted(self.facts))))

    @classmethod
    def of(cls, found: Iterable[Ref], dests: Iterable[str] = ()) -> Reads:
        flags: set[str] = set(dests)
        env: set[str] = set()
        facts: set[str] = set()
        for ref in found:
            if ref.kind is RefKind.FLAG:
                record = record_of(ref.name)
                flags.add(ref.name)
                flags.add(base_dest(ref.name))
                flags.add(record)
                # a helper's result is a stated fact, its fields too (``f().a.b`` reads ``f()``)
                for called in {ref.name, record}:
                    if called[-1:] == ")":
                        facts.add(derived_fact(called))
            elif ref.kind is RefKind.ENV:
                env.add(ref.name)
            else:
                facts.add(f"{ref.kind}:{ref.name}")
                if ref.kind is RefKind.MODEL:
                    facts.add(absent_fact(ref.name))
        return cls(frozen_names(flags), frozen_names(env), frozen_names(facts))

    @classmethod
    def union(cls, parts: Sequence[Reads]) -> Reads:
        """What all of `parts` read (`of` over their refs together gives the same)."""
        return cls(frozen_names(_NOTHING.union(*(p.flags for p in parts))),
                   frozen_names(_NOTHING.union(*(p.env for p in parts))),
                   frozen_names(_NOTHING.union(*(p.facts for p in parts))))

    def __or__(self, other: Reads) -> Reads:
        return Reads(frozen_names(self.flags | other.flags), frozen_names(self.env | other.env),
                     frozen_names(self.facts | other.facts))

    def key(self, launch: Launch) -> str:
        """What `launch` gives for these keys (see `_items`)."""
        items = launch.memo
        if items is None:
            items = _items(launch)
        key = _atoms(self.flags, self._sorted[0], items[0])
        if items[1] is None:
            return key
        return key + _atoms(self.env, self._sorted[1], items[1]) + _atoms(self.facts, self._sorted[2], items[2])


# A launch's settings of one kind: names in order, name -> atom (see `_items`).
_Given = tuple[tuple[str, ...], dict[str, str]]


def _atoms(wanted: frozenset[str], ordered: tuple[str, ...], given: _Given) -> str:
    """The atoms of the names in `wanted` (`ordered`: sorted) that `given` has, in name
    order; walking the smaller of the two (a launch states hundreds of facts, a condition
    reads a few; a rule set may read more than a launch gives)."""
    names, atoms = given
    if not wanted or not names:
        return ""
    if len(ordered) <= len(names):
        return "".join([atoms[n] for n in ordered if n in atoms])
    return "".join([atoms[n] for n in names if n in wanted])


def _items(launch: Launch) -> tuple[Any, ...]:
    """A launch's settings per kind as (names in order, name -> atom), kept on the launch;
    a memo key joins the atoms of the names it reads. An atom is the name and the value's
    repr (``1``, ``1.0`` and ``True`` are equal in Python but not to the evaluator; repr
    tells them apart, and works for unhashable values), so keys are plain strings."""
    if launch.env or launch.facts:
        items: tuple[Any, ...] = (_given("", launch.flags), *_settings(launch))
    else:
        items = (_given("", launch.flags), None, None)
    object.__setattr__(launch, "memo", items)
    return items


def _settings(launch: Launch) -> tuple[_Given, _Given]:
    """`_given` of env vars and facts, kept on the launch and carried to the launches derived
    from it by a flag change (``with_flag``), which share the mappings: hundreds of facts,
    records among them, made into atoms once per search rather than once per launch."""
    found = launch.settings_memo
    if found is None:
        found = (_given("$", launch.env), _given("!", launch.facts))
        object.__setattr__(launch, "settings_memo", found)
    return found


def _given(mark: str, given: Mapping[str, Any]) -> _Given:
    names = tuple(sorted(given))
    return names, {n: f"{mark}{len(n)}:{n}={given[n]!r}\x1f" for n in names}
