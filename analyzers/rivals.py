"""The other errors of a catalog an example must not raise.

A `before` must raise its own entry first and an `after` nothing at all; the static
order of checks across files is not known, so an example is best when no other entry's
condition holds on it. A launch differs from the smallest one (`base_launch`) in a few
settings; an operand of a condition that reads none of them (flags and env vars, and
what the automatic adjustments it depends on read) is as on the smallest launch. So
`Rivals` indexes each condition by what its operand false there reads, and decides
only the operands a launch can change.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from analyzers.deciders import deciders, node
from analyzers.eval_model import Model
from analyzers.launch import Launch
from analyzers.witness import base_launch
from extractor.ir import Expr


def _keys(reads: Any) -> frozenset[str]:
    return frozenset([f"flag:{name}" for name in reads.flags] + [f"env:{name}" for name in reads.env])


@dataclass(frozen=True, slots=True)
class Part:
    decider: Any  # `node(model, operand)`
    keys: frozenset[str]  # "flag:dest" / "env:NAME" it reads
    base: bool | None  # its value on the smallest launch


@dataclass(frozen=True, slots=True)
class Rival:
    id: str
    expr: Expr  # the entry's whole condition (its trigger, and any of its rows)
    # its operands (an ``and``): those false on the smallest launch first, then those
    # reading the fewest settings; one that is not true ends the check
    parts: tuple[Part, ...] = field(repr=False, compare=False)

    def holds(self, launch: Launch, given: frozenset[str]) -> bool:
        """Is this entry's condition true on `launch` (unknown counts as not), which differs
        from the smallest launch in `given`?"""
        for part in self.parts:
            value = part.base if part.keys.isdisjoint(given) else part.decider.decide(launch)
            if value is not True:
                return False
        return True


@dataclass(frozen=True, slots=True)
class Rivals:
    rivals: tuple[Rival, ...] = ()
    by_key: dict[str, tuple[int, ...]] = field(default_factory=dict)  # "flag:dest" / "env:NAME" -> indices
    base: Launch = field(default_factory=Launch)

    @classmethod
    def of(cls, conditions: Iterable[tuple[str, Expr]], model: Model) -> Rivals:
        """Every (entry id, condition), decided with `model` (the catalog's, all adjustments)."""
        base = base_launch(model)
        rivals: list[Rival] = []
        by_key: dict[str, list[int]] = {}
        for entry_id, expr in conditions:
            parts = [Part(p, _keys(p.all_reads()), p.decide(base)) for p in deciders(model, expr)]
            parts.sort(key=lambda p: (p.base is not False, len(p.keys)))
            keys = parts[0].keys if parts[0].base is False else _keys(node(model, expr).all_reads())
            for key in sorted(keys):
                by_key.setdefault(key, []).append(len(rivals))
            rivals.append(Rival(entry_id, expr, tuple(parts)))
        return cls(tuple(rivals), {k: tuple(v) for k, v in by_key.items()}, base)

    def holding(self, launch: Launch, own: str) -> list[Rival]:
        """The entries other than `own` whose condition holds on `launch` (unknown: not)."""
        flags, env = self.base.flags, self.base.env
        given = frozenset([f"flag:{d}" for d, v in launch.flags.items() if d not in flags or flags[d] != v]
                          + [f"env:{n}" for n, v in launch.env.items() if n not in env or env[n] != v]
                          + [f"flag:{d}" for d in flags if d not in launch.flags]
                          + [f"env:{n}" for n in env if n not in launch.env])
        seen: set[int] = set()
        for key in given:
            seen.update(self.by_key.get(key, ()))
        return [r for i in sorted(seen) if (r := self.rivals[i]).id != own and r.holds(launch, given)]
