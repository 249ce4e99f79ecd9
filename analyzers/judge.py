"""What the real program's answer to an example means for the catalog.

The real side (`errcat.real`) runs an example's `before` and `after` through the
target's own validation; this module, pure and free of the target, says which catalog
entry a real error is (its innermost frame lies in the entry's statement and the entry's
matcher accepts the message) and whether the example is confirmed: `before` raises this
entry first and `after` is accepted with no error at all (a fix is a command that works).
"""
from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from extractor import parse

CONFIRMED, REFUTED, NOT_RUN = "confirmed", "refuted", "not-run"


@dataclass(frozen=True, slots=True)
class Real:
    """What the real program did with one launch (`outcome`: ok, error, argparse, timeout, crash)."""

    outcome: str
    type: str = ""
    message: str = ""
    path: str = ""  # repository path of the innermost frame inside the target package
    line: int = 0
    # where the message was written, when a handler raised it again unchanged (path, line)
    written_at: tuple[str, int] | None = None

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"outcome": self.outcome}
        if self.type:
            data["type"] = self.type
        if self.message:
            data["message"] = self.message
        if self.path:
            data["path"], data["line"] = self.path, self.line
        if self.written_at is not None:
            data["written_at"] = {"path": self.written_at[0], "line": self.written_at[1]}
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Real:
        from extractor import shape

        return cls(shape.text(data["outcome"]), shape.text(data.get("type", "")), shape.text(data.get("message", "")),
                   shape.text(data.get("path", "")), shape.integer(data.get("line", 0)),
                   frame_at(data.get("written_at")))

    def where(self) -> str:
        at = f" at {self.path}:{self.line}" if self.path else ""
        return f"{self.type}{at}: {_line(self.message)}"


@dataclass(frozen=True, slots=True)
class Verdict:
    status: str  # CONFIRMED, REFUTED or NOT_RUN
    why: str  # "confirmed", "fires-first: <id>", "no-error", "after-still-fires", "not-run: ..."


def _line(text: str, limit: int = 200) -> str:
    first = text.strip().splitlines()[0] if text.strip() else ""
    return first if len(first) <= limit else first[: limit - 1] + "…"


def statement_end(code: str, start_line: int, line: int) -> int:
    """Last line of the statement starting at `line`, read off an excerpt starting at
    `start_line` (a multi-line assert's traceback may name any of its lines); `line`
    when the excerpt ends first."""
    lines = code.splitlines()
    first = line - start_line
    if not 0 <= first < len(lines):
        return line
    for last in range(first, len(lines)):
        try:
            tree = parse.python(textwrap.dedent("\n".join(lines[first:last + 1])))
        except SyntaxError:
            continue
        body = tree.body
        if len(body) == 1 and isinstance(body[0], (ast.Raise, ast.Assert)):
            return start_line + last
    return line


@dataclass(frozen=True, slots=True)
class _Site:
    id: str
    line: int
    end: int
    matcher: re.Pattern[str] | None
    crash: str = ""  # of a crash entry: the exception type Python raises there (its class name)

    def holds(self, line: int, real: Real) -> bool:
        """Is `real`, raised at `line`, this site's error? A crash is Python's own: its
        exception type, at its line."""
        if self.crash:
            return line == self.line and real.type == self.crash and self._matches(real)
        return self.line <= line <= self.end and self._matches(real)

    def _matches(self, real: Real) -> bool:
        return self.matcher is None or self.matcher.match(real.message) is not None


class EntryIndex:
    """The catalog's entries by file, to name the entry a real error is."""

    def __init__(self, entries: Iterable[Mapping[str, Any]]) -> None:
        self._by_path: dict[str, list[_Site]] = {}
        for entry in entries:
            source, excerpt = entry["source"], entry.get("excerpt") or {}
            end = statement_end(excerpt.get("code", ""), excerpt.get("start_line", source["line"]), source["line"])
            crash = str(entry.get("exception", "")).rpartition(".")[2] if entry.get("kind") == "crash" else ""
            self._by_path.setdefault(source["path"], []).append(
                _Site(entry["id"], source["line"], end, _compiled(entry.get("matcher")), crash))

    def which(self, real: Real) -> str | None:
        """The entry `real` raised (None: not an error of the catalog): the raise that wrote
        the message, where a handler passed it on."""
        names = self.names(real)
        return names[0] if names else None

    def names(self, real: Real) -> tuple[str, ...]:
        """Every entry `real` is: the raise that wrote the message, then the handler that
        raised it again unchanged (both ran, and the user reads the same words)."""
        if real.outcome != "error":
            return ()
        at = [*([real.written_at] if real.written_at else []), (real.path, real.line)]
        return tuple(dict.fromkeys(i for i in (self._at(path, line, real) for path, line in at) if i is not None))

    def _at(self, path: str, line: int, real: Real) -> str | None:
        found = [s for s in self._by_path.get(path, ()) if s.holds(line, real)]
        # the statement starting there first, a crash of the very type before a check's message
        return min(found, key=lambda s: (s.line != line, not s.crash, s.line)).id if found else None


def frame_at(frame: Any) -> tuple[str, int] | None:
    """A stored ``{"path": ..., "line": ...}`` frame as (path, line), None for none; a frame of
    another shape raises `extractor.shape.ShapeError`."""
    from extractor import shape

    if frame is None:
        return None
    if not isinstance(frame, Mapping):
        raise shape.ShapeError("a frame is a mapping of path and line")
    return shape.text(frame.get("path")), shape.integer(frame.get("line"))


def _compiled(matcher: Any) -> re.Pattern[str] | None:
    if not isinstance(matcher, str):
        return None
    try:
        return re.compile(matcher, re.DOTALL)
    except re.error:
        return None


def _what(real: Real, index: EntryIndex) -> str:
    """A real outcome in the report's words (`fires-first:` naming an entry or the raising line)."""
    if real.outcome == "error":
        other = index.which(real)
        return other if other is not None else f"outside the catalog ({real.where()})"
    if real.outcome == "argparse":
        return _line(real.message)
    return real.outcome + (f" ({_line(real.message)})" if real.message else "")


def judge(entry_id: str, before: Real, after: Real | None, index: EntryIndex) -> Verdict:
    """The verdict on one example: `before` must raise `entry_id` first, `after` nothing."""
    if before.outcome in ("timeout", "crash"):
        return Verdict(NOT_RUN, f"not-run: before {_what(before, index)}")
    if before.outcome == "argparse":
        return Verdict(REFUTED, f"argparse: {_what(before, index)}")
    if before.outcome == "ok":
        return Verdict(REFUTED, "no-error")
    if entry_id not in index.names(before):
        return Verdict(REFUTED, f"fires-first: {_what(before, index)}")
    if after is None:
        return Verdict(REFUTED, "no-after: the example has no fix to run")
    if after.outcome == "ok":
        return Verdict(CONFIRMED, CONFIRMED)
    if after.outcome in ("timeout", "crash"):
        return Verdict(NOT_RUN, f"not-run: after {_what(after, index)}")
    if after.outcome == "argparse":
        return Verdict(REFUTED, f"after-argparse: {_what(after, index)}")
    if entry_id in index.names(after):
        return Verdict(REFUTED, "after-still-fires")
    return Verdict(REFUTED, f"after-fires: {_what(after, index)}")
