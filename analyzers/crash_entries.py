"""What a crash entry says besides the fields every entry has (`crash` in the entry): the
operation that fails, the value that breaks it in user terms, the check that is missing (in
words, and as Python in the style of a validation check), and its meaning."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from analyzers.trigger import Renderer
from extractor.crash_kinds import Crash
from extractor.ir import Ref, refs
from extractor.records import RaiseSite

# what the operation does with the value, for the meaning's second clause
_DOES = {
    "modulo": "the modulo divides by it", "division": "the division divides by it",
    "floor-division": "the division divides by it", "divmod": "`divmod` divides by it",
    "int": "`int()` converts it", "float": "`float()` converts it", "json": "`json.loads` parses it",
    "key": "the lookup uses it as a key", "split-unpack": "the code unpacks its parts",
    "none-attribute": "the code calls a method on it", "none-iteration": "the code iterates over it",
    "none-len": "the code takes its `len()`", "none-subscript": "the code indexes it",
    "none-unpack": "the code unpacks it", "none-membership": "the code looks a value up in it",
}


def subject(site: RaiseSite, renderer: Renderer) -> str:
    """The value that breaks the operation in user terms: the option (``--nnodes``), else the
    expression with the options it reads (`(cfg.tp_size * cfg.pp_size)` from --tp-size, --pp-size)."""
    crash = site.crash
    assert crash is not None
    fails = site.direct[-1].expr if site.direct else None
    read: list[Ref] = list(dict.fromkeys(refs(fails))) if fails is not None else []
    named = [renderer.name(r) for r in read]
    if len(read) == 1 and crash.value.rpartition(".")[2] == read[0].name.rpartition(".")[2]:
        return named[0]
    return f"`{crash.value}` (from {', '.join(named)})" if named else f"`{crash.value}`"


def _plain(named: str) -> str:
    """An option's name as a message says it (``--nnodes``), else the expression's text."""
    return named.strip("`") if named.startswith("`--") and named.endswith("`") else named.replace("`", "")


def suggested_check(crash: Crash, named: str, exception: str = "ValueError") -> str:
    """Python a validation check would say it with, in the style of the target's own
    (``if cfg.nnodes < 1: raise ValueError(f"--nnodes must be >= 1, got {cfg.nnodes}")``)."""
    who, value = _plain(named), crash.value
    if crash.wants == "at least 1":
        return f'if {value} < 1:\n    raise {exception}(f"{who} must be >= 1, got {{{value}}}")'
    if crash.wants == "not zero":
        return f'if {crash.test}:\n    raise {exception}("{who} must not be 0")'
    if crash.wants == "set":
        return f'if {value} is None:\n    raise {exception}("{who} must be set")'
    if crash.operation in ("int", "float", "json"):
        return (f"try:\n    {crash.expression}\nexcept ValueError:\n"
                f'    raise {exception}(f"{who} must be {crash.wants}, got {{{value}!r}}") from None')
    if crash.operation == "key":
        return f'if {crash.test}:\n    raise {exception}(f"{who} must be {crash.wants}, got {{{value}!r}}")'
    return f'if {crash.test}:\n    raise {exception}(f"{who} must have {crash.wants}, got {{{value}!r}}")'


def crash_fields(site: RaiseSite, renderer: Renderer, exception: str = "ValueError",
                 program: str = "the program") -> dict[str, Any]:
    """The entry's `crash` object (`exception`: the one the suggested check raises, the file's
    most common, `usual_exception`; `program`: what the words call the target, the profile's name)."""
    crash = site.crash
    assert crash is not None
    named = subject(site, renderer)
    missing = f"{program} does not check that {named} is {crash.wants}"
    if crash.operation == "split-unpack":
        missing = f"{program} does not check that {named} has {crash.wants}"
    return {
        "operation": crash.operation,
        "expression": crash.expression,
        "value": crash.value,
        "missing": missing,
        "missing_check": suggested_check(crash, named, exception),
        "meaning": f"{missing}; {_DOES.get(crash.operation, 'the code uses it')}, and Python stops the launch "
                   f"with its own error (no message of {program}'s).",
    }


def usual_exception(sites: Sequence[RaiseSite]) -> Mapping[str, str]:
    """Per file, the exception its own raise sites raise most (ValueError where none does)."""
    counts: dict[str, dict[str, int]] = {}
    for s in sites:
        if s.crash is None and s.kind == "raise" and not s.query:
            per = counts.setdefault(s.path, {})
            per[s.exception] = per.get(s.exception, 0) + 1
    return {path: max(sorted(per), key=lambda e: per[e]) for path, per in counts.items()}


def reached(entries: Sequence[Any]) -> tuple[list[Any], int]:
    """`entries` without the crash entries no searched command line reaches (no example
    `before`), and how many were left out; related ids to them are dropped too."""
    gone = {e.id for e in entries if e.site.crash is not None and not (e.example_fix or {}).get("before")}
    if not gone:
        return list(entries), 0
    kept = [e if not gone.intersection(e.related) else replace(e, related=tuple(r for r in e.related if r not in gone))
            for e in entries if e.id not in gone]
    return kept, len(gone)
