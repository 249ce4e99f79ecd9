"""How an error is named where its message is shown: its message, or, for a message-less
``assert``, ``AssertionError at path:line (no message)`` (never its entry id, never empty)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def no_message(exception: object, path: object, line: object) -> str:
    return f"{exception or 'Error'} at {path}:{line} (no message)"


def headline(exception: object, message: object, source: Mapping[str, Any] | None) -> str:
    """``Type: message``, or ``Type at path:line (no message)``."""
    if message:
        return f"{exception or 'Error'}: {message}"
    source = source or {}
    return no_message(exception, source.get("path"), source.get("line"))


def label(entry: Mapping[str, Any]) -> str:
    """An entry's message template, or ``Type at path:line (no message)`` where it has none."""
    template = str(entry.get("template") or "")
    if template.strip():
        return template
    source = entry.get("source") or entry  # a graph node holds path and line itself
    return no_message(entry.get("exception"), source.get("path"), source.get("line"))
