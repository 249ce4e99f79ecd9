"""The checks a program lacks: its crash entries (Python's own error on a user's value, no
message of the program's) as a report for its maintainers, the plainest command first, and
which of them an older catalog did not have (`errcat gaps --fail-on new`)."""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Gap:
    """One crash entry as the report lists it."""

    entry: str
    exception: str
    message: str  # Python's message template
    operation: str
    path: str
    line: int
    function: str
    url: str
    command: str  # the example that crashes ("" where the entry has none)
    fix: str  # the example's fix ("" where it has none)
    missing: str  # the missing check in words
    check: str  # that check as Python
    confirmed: str  # the real program's word on the example: "true", "false", "not-run"

    @property
    def options(self) -> int:
        """How many options the crashing command gives: fewer is plainer."""
        return sum(1 for word in self.command.split() if word.startswith("--"))

    def as_dict(self) -> dict[str, Any]:
        return {"entry": self.entry, "exception": self.exception, "message": self.message,
                "operation": self.operation, "source": {"path": self.path, "line": self.line,
                                                        "function": self.function, "url": self.url},
                "command": self.command or None, "fix": self.fix or None, "missing": self.missing,
                "suggested_check": self.check, "confirmed": self.confirmed}


def _gap(entry: Mapping[str, Any]) -> Gap:
    crash, source, fix = entry["crash"], entry["source"], entry.get("example_fix") or {}
    return Gap(str(entry["id"]), str(entry["exception"]), str(entry["template"]), str(crash["operation"]),
               str(source["path"]), int(source["line"]), str(source.get("function") or ""),
               str(source.get("url") or ""), str(fix.get("before") or ""), str(fix.get("after") or ""),
               str(crash["missing"]), str(crash["missing_check"]), str(fix.get("verified") or "not-run"))


def gaps(entries: Iterable[Mapping[str, Any]]) -> list[Gap]:
    """The crash entries among `entries`, ordered by how plain the crashing command is (a
    single option first; an entry with no command last), then by place."""
    found = [_gap(e) for e in entries if e.get("kind") == "crash" and isinstance(e.get("crash"), Mapping)]
    return sorted(found, key=lambda g: (not g.command, g.options, len(g.command), g.path, g.line, g.entry))


def _place(gap: Gap) -> tuple[str, str, str, str]:
    """What names a crash apart from its id: a file's function failing the same way on the same
    value (an id changes with its ordinal where another crash is added before it)."""
    return gap.path, gap.function, gap.operation, gap.check


def new_gaps(new: Sequence[Gap], old: Sequence[Gap]) -> list[Gap]:
    """The gaps of `new` that `old` lacks (by id, or by file, function, operation and check)."""
    ids, places = {g.entry for g in old}, {_place(g) for g in old}
    return [g for g in new if g.entry not in ids and _place(g) not in places]
