"""The website's search index: `errcat explain`'s `MessageIndex`, exported for the browser.

The site's search (``site_assets/search.js``) runs explain's matching in JavaScript on
this data, so the page and the command find the same entry for the same text. It is
shipped as a script that assigns a global (``ERRCAT_INDEX[release]``) rather than as JSON,
because browsers refuse `fetch` on ``file://`` pages while they still run ``<script src>``.
"""
from __future__ import annotations

import builtins
import json
from collections.abc import Iterable, Mapping
from typing import Any

from analyzers.explain import MessageIndex
from output.site_html import entry_path
from output.titles import label


def entry_flags(entry: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """The flags and env vars an entry's trigger or any of its table rows reads (sorted)."""
    flags: set[str] = set()
    env: set[str] = set()
    for part in [entry, *(entry.get("variants") or ())]:
        trigger = part.get("trigger") or {}
        flags.update(str(f) for f in trigger.get("flags") or ())
        env.update(str(e) for e in trigger.get("env") or ())
    return sorted(flags), sorted(env)


def search_index(entries: Iterable[Mapping[str, Any]], release: str) -> dict[str, Any]:
    """The data `search.js` needs: every template of `MessageIndex` with what its scoring reads,
    the word index (``by_word``, ``wordless``), and per entry what results and filters show."""
    listed = list(entries)
    index = MessageIndex(listed)
    targets = [
        [t.entry, t.row, [p if isinstance(p, str) else {"h": p.text} for p in t.template.parts if p != ""],
         t.exception, bool(t.exception) and hasattr(builtins, t.exception), t.path, t.line, t.end, t.own]
        for t in index.targets
    ]
    shown: dict[str, Any] = {}
    for entry in listed:
        flags, env = entry_flags(entry)
        source = entry.get("source") or {}
        shown[str(entry["id"])] = {"exception": str(entry.get("exception") or ""),
                                   "template": label(entry),
                                   "path": str(source.get("path") or ""), "line": int(source.get("line") or 0),
                                   "flags": flags, "env": env, "page": entry_path(str(entry["id"]))}
    return {"release": release, "targets": targets, "by_word": dict(sorted(index.by_word.items())),
            "wordless": index.wordless, "entries": shown}


def search_script(index: Mapping[str, Any]) -> str:
    """`index` as a script that registers it under its release (sorted keys: the same bytes each build)."""
    data = json.dumps(index, ensure_ascii=True, sort_keys=True, separators=(",", ":"))
    release = json.dumps(index["release"], ensure_ascii=True)
    return ("window.ERRCAT_INDEX = window.ERRCAT_INDEX || {};\n"
            f"window.ERRCAT_INDEX[{release}] = {data};\n")

