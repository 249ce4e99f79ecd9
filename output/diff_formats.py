"""Text for diffs and histories: oneline, markdown (changelog), json, github annotations.

Renderers take the records of `analyzers.diff` / `analyzers.lineage` and return a
string; they never decide what changed. Markdown goes through `output.md_escape` and
workflow commands through `gh_data`/`gh_prop`: catalog strings are hostile input.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import partial
from typing import Any

from analyzers.diff import (
    Added,
    Change,
    ChangeKind,
    ChoicesChanged,
    DefaultChanged,
    Diff,
    EntryRef,
    ExceptionChanged,
    FlagAdded,
    FlagRef,
    FlagRemoved,
    FlagRenamed,
    MessageChanged,
    Moved,
    Removed,
    TriggerChanged,
    VariantsChanged,
)
from analyzers.lineage import History
from output import md_escape as md

FORMATS = ("oneline", "markdown", "json", "github")
HISTORY_FORMATS = ("json", "markdown")
_CLIP = 100


def clip(text: str, width: int = _CLIP) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _loc(ref: EntryRef) -> str:
    return f"{ref.path}:{ref.line}"


def _value(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


# ------------------------------------------------------------------ one change, one line


def describe(change: Change) -> str:
    """A one-line account of a change, without its kind."""
    if isinstance(change, Added):
        return f"{_loc(change.new)} {change.new.exception}: {clip(change.new.template)}"
    if isinstance(change, Removed):
        return f"{_loc(change.old)} {change.old.exception}: {clip(change.old.template)}"
    if isinstance(change, Moved):
        return (f"{_loc(change.old)} ({change.old.function}) -> {_loc(change.new)} ({change.new.function}): "
                f"{clip(change.new.template, 60)}")
    if isinstance(change, MessageChanged):
        return f"{_loc(change.new)}: {clip(change.old.template, 60)!r} -> {clip(change.new.template, 60)!r}"
    if isinstance(change, ExceptionChanged):
        return f"{_loc(change.new)}: {change.old.exception} -> {change.new.exception}: {clip(change.new.template, 60)}"
    if isinstance(change, TriggerChanged):
        delta = [f"+{f}" for f in change.flags_added] + [f"-{f}" for f in change.flags_removed]
        detail = " ".join(delta) if delta else f"now: {clip(change.new_text, 80)}"
        return f"{_loc(change.new)}: {detail}: {clip(change.new.template, 50)}"
    if isinstance(change, VariantsChanged):
        return (f"{_loc(change.new)}: +{len(change.rows_added)} -{len(change.rows_removed)} rows: "
                f"{clip(change.new.template, 60)}")
    if isinstance(change, (FlagAdded, FlagRemoved)):
        where = f" ({change.flag.path}:{change.flag.line})" if change.flag.path else ""
        return f"{change.flag.name}{where}"
    if isinstance(change, FlagRenamed):
        return f"{change.old.name} -> {change.new.name} ({change.evidence})"
    if isinstance(change, ChoicesChanged) and (choices := choice_delta(change.old_value, change.new_value)):
        return f"{change.flag.name}: {choices}"
    if isinstance(change, (DefaultChanged, ChoicesChanged)):
        return f"{change.flag.name}: {clip(_value(change.old_value), 60)} -> {clip(_value(change.new_value), 60)}"
    return change.subject  # pragma: no cover - every kind is handled above


def choice_delta(old: Any, new: Any) -> str:
    """``+a -b`` when both choice sets are literal lists, else ""."""
    if not isinstance(old, list) or not isinstance(new, list):
        return ""
    before, after = [_value(v) for v in old], [_value(v) for v in new]
    delta = [f"+{v}" for v in after if v not in before] + [f"-{v}" for v in before if v not in after]
    return " ".join(delta) or "reordered"


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def terminal_safe(text: str) -> str:
    """`text` with control characters (escape sequences, newlines) shown as ``\\xNN``:
    catalog strings printed to a terminal must not drive it or split a line."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def render_oneline(diff: Diff) -> str:
    width = max((len(str(c.kind)) for c in diff.changes), default=0)
    return "".join(f"{c.kind!s:<{width}}  {terminal_safe(describe(c))}\n" for c in diff.changes)


# ------------------------------------------------------------------ markdown changelog

_TITLES = {
    ChangeKind.ADDED: "New errors",
    ChangeKind.REMOVED: "Removed errors",
    ChangeKind.MESSAGE_CHANGED: "Messages changed",
    ChangeKind.TRIGGER_CHANGED: "Conditions changed",
    ChangeKind.EXCEPTION_CHANGED: "Exception types changed",
    ChangeKind.MOVED: "Moved",
    ChangeKind.VARIANTS_CHANGED: "Condition-table rows changed",
    ChangeKind.FLAG_ADDED: "New flags",
    ChangeKind.FLAG_REMOVED: "Removed flags",
    ChangeKind.FLAG_RENAMED: "Renamed flags",
    ChangeKind.DEFAULT_CHANGED: "Defaults changed",
    ChangeKind.CHOICES_CHANGED: "Choices changed",
}


def _message(text: str, width: int | None = None) -> str:
    """A message as a code span, clipped to `width` when given."""
    return md.code(clip(text, width) if width else " ".join(text.split())) or "*(no message)*"


def _at(ref: EntryRef) -> str:
    return md.text(_loc(ref), inline=True)


def _flag_at(flag: FlagRef) -> str:
    return f" ({md.text(f'{flag.path}:{flag.line}', inline=True)})" if flag.path else ""


def _md_item(change: Change) -> str:
    if isinstance(change, (Added, Removed)):
        ref = change.new if isinstance(change, Added) else change.old
        return (f"{_message(ref.template, 160)} — {md.text(ref.exception, inline=True)} in "
                f"{md.code(ref.function)} ({_at(ref)})")
    if isinstance(change, Moved):
        return (f"{_message(change.new.template, 120)}: {md.code(change.old.function)} ({_at(change.old)}) → "
                f"{md.code(change.new.function)} ({_at(change.new)})")
    if isinstance(change, MessageChanged):
        return (f"{_message(change.old.template, 160)} → {_message(change.new.template, 160)} "
                f"({_at(change.new)})")
    if isinstance(change, ExceptionChanged):
        return (f"{_message(change.new.template, 120)}: {md.text(change.old.exception, inline=True)} → "
                f"{md.text(change.new.exception, inline=True)}")
    if isinstance(change, TriggerChanged):
        delta = ", ".join([f"+{md.code(f)}" for f in change.flags_added]
                          + [f"−{md.code(f)}" for f in change.flags_removed])  # noqa: RUF001 - a real minus sign
        return (f"{_message(change.new.template, 120)} ({_at(change.new)}): now when "
                f"{md.prose(clip(change.new_text, 200), inline=True)}" + (f" \\[{delta}\\]" if delta else ""))
    if isinstance(change, VariantsChanged):
        rows = ([f"+{_message(r.template)}" for r in change.rows_added]
                + [f"−{_message(r.template)}" for r in change.rows_removed])  # noqa: RUF001 - a real minus sign
        return f"{_message(change.new.template, 120)}: {', '.join(rows)}"
    if isinstance(change, FlagRenamed):
        return f"{md.code(change.old.name)} → {md.code(change.new.name)} ({md.text(change.evidence, inline=True)})"
    if isinstance(change, ChoicesChanged) and (delta := choice_delta(change.old_value, change.new_value)):
        return f"{md.code(change.flag.name)}: {md.code(delta)}"
    if isinstance(change, (DefaultChanged, ChoicesChanged)):
        return (f"{md.code(change.flag.name)}: {md.code(_value(change.old_value))} → "
                f"{md.code(_value(change.new_value))}")
    if isinstance(change, (FlagAdded, FlagRemoved)):
        return md.code(change.flag.name) + _flag_at(change.flag)
    return md.text(change.subject, inline=True)  # pragma: no cover


def render_markdown(diff: Diff) -> str:
    lines = [f"## Errors: {md.text(diff.old.name, inline=True)} → {md.text(diff.new.name, inline=True)}", ""]
    if not diff.changes:
        return "\n".join(lines + ["No changes.", ""])
    counts = diff.count()
    lines.append(", ".join(f"{n} {k}" for k, n in counts.items() if n) + ".")
    for kind in ChangeKind:
        items = diff.of_kind(kind)
        if not items:
            continue
        lines += ["", f"### {_TITLES[kind]} ({len(items)})", ""]
        lines += [f"- {_md_item(c)}" for c in items]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ json


def render_json(diff: Diff) -> str:
    return json.dumps(diff.as_dict(), indent=2, ensure_ascii=False, default=str) + "\n"


# ------------------------------------------------------------------ GitHub workflow commands

_LEVEL = {
    ChangeKind.REMOVED: "warning",
    ChangeKind.EXCEPTION_CHANGED: "warning",
    ChangeKind.FLAG_REMOVED: "warning",
}


def gh_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def gh_prop(text: str) -> str:
    return gh_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(diff: Diff) -> str:
    """``::notice file=...,line=...,title=...::message`` per change (removals warn)."""
    out = []
    for change in diff.changes:
        props = []
        where = change.where
        if where is not None and where.path:
            props += [f"file={gh_prop(where.path)}", f"line={gh_prop(str(where.line))}"]
        elif isinstance(change, (FlagAdded, FlagRemoved, DefaultChanged, ChoicesChanged)) and change.flag.path:
            props += [f"file={gh_prop(str(change.flag.path))}", f"line={gh_prop(str(change.flag.line or 1))}"]
        props.append(f"title={gh_prop(f'errcat {change.kind}')}")
        level = _LEVEL.get(change.kind, "notice")
        out.append(f"::{level} {','.join(props)}::{gh_data(f'{change.kind}: {describe(change)}')}\n")
    return "".join(out)


RENDERERS: dict[str, Callable[[Diff], str]] = {
    "oneline": render_oneline,
    "markdown": render_markdown,
    "json": render_json,
    "github": render_github,
}


def render_diff(diff: Diff, fmt: str = "oneline") -> str:
    try:
        return RENDERERS[fmt](diff)
    except KeyError:
        raise ValueError(f"unknown format {fmt!r} (known: {', '.join(FORMATS)})") from None


# ------------------------------------------------------------------ history


def render_history_json(history: History) -> str:
    return json.dumps(history.as_dict(), indent=2, ensure_ascii=False, default=str) + "\n"


def render_history_markdown(history: History) -> str:
    cell = partial(md.text, inline=True)
    title = f": {cell(history.revs[0].label)} → {cell(history.revs[-1].label)}" if history.revs else ""
    lines = [f"# Error history{title}", ""]
    lines += ["| revision | date | errors | added | removed | changed | moved |", "|---|---|---:|---:|---:|---:|---:|"]
    for step in history.steps:
        counts = (step.entries, step.added, step.removed, step.changed, step.moved)
        lines.append(md.row([cell(step.rev.label), cell(step.rev.date or ""), *map(str, counts)]))
    lines += ["", "| error | first seen | last changed | moves | removed |", "|---|---|---|---:|---|"]
    for lin in history.lineages:
        changed = f"{lin.last_changed} ({', '.join(lin.last_change_kinds)})" if lin.last_changed else ""
        message = md.code(clip(lin.template, 90), cell=True) or "*(no message)*"
        error = f"{message} {md.code(lin.current_id or lin.last_id, cell=True)}"
        lines.append(md.row([error, cell(lin.first_seen), cell(changed), str(len(lin.moves)), cell(lin.removed or "")]))
    return "\n".join(lines) + "\n"


HISTORY_RENDERERS: dict[str, Callable[[History], str]] = {
    "json": render_history_json,
    "markdown": render_history_markdown,
}


def render_history(history: History, fmt: str = "json") -> str:
    try:
        return HISTORY_RENDERERS[fmt](history)
    except KeyError:
        raise ValueError(f"unknown format {fmt!r} (known: {', '.join(HISTORY_FORMATS)})") from None
