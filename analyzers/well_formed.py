"""What works where a value does not parse: "set `--x` to valid JSON, e.g. `'{}'`".

A check that fires where converting a setting fails (``json.loads(v)`` or ``int(v)`` raising
in a try block, `extractor.ir.RAISES`) refuses everything that does not parse, not one
value: the solution names the form that parses and one value of it, which the examples'
judge then tries through the whole pipeline like any value a solution names.
"""
from __future__ import annotations

import json
import shlex
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from extractor.ir import RAISES, Apply, Expr, children

# conversion -> (the form that parses, values of it to try, simplest first)
FORMS: dict[str, tuple[str, tuple[str, ...]]] = {
    "json.loads": ("valid JSON", ("{}", "[]")),
    "int": ("an integer", ("1", "0")),
    "float": ("a number", ("1.0", "0.5")),
}


def _steps(expr: Expr) -> Iterator[Expr]:
    """The values each `RAISES` in `expr` computes (its steps, and what they are built of)."""
    if isinstance(expr, Apply) and expr.fn == RAISES:
        for step in expr.args[1:]:
            yield step
            yield from _inner(step)
    for child in children(expr):
        yield from _steps(child)


def _inner(expr: Expr) -> Iterator[Expr]:
    for child in children(expr):
        yield child
        yield from _inner(child)


def parse_form(part: Expr) -> tuple[str, tuple[str, ...]] | None:
    """The form a value must take for `part` (a failed conversion) not to hold, and values of
    it; None where `part` is no conversion's failure."""
    return next((FORMS[s.fn] for s in _steps(part) if isinstance(s, Apply) and s.fn in FORMS), None)


def form_text(name: str, form: str, value: str, unset: bool) -> str:
    """"Set `--x` to valid JSON, e.g. `'{}'` (or leave it unset).": the value as typed on a command line."""
    return f"Set {name} to {form}, e.g. `{shlex.quote(value)}`" + (" (or leave it unset)." if unset else ".")


def json_form(values: Sequence[Any]) -> tuple[str, str] | None:
    """For an option that takes JSON text: the form and the simplest of `values` (those that
    avoid a part) that parse, where one of them does not (a prefix the check tests,
    ``x.startswith("{")``, is no value a person passes); None where all parse or none does."""
    parsed = [(v, _parsed(v)) for v in values if isinstance(v, str)]
    good = sorted((len(v), v, p) for v, p in parsed if p is not _NOT_JSON)
    if not good or len(good) == len(parsed):
        return None
    _, text, value = good[0]
    return ("a JSON object" if isinstance(value, dict) else "valid JSON"), text


def object_form(values: Sequence[Any]) -> tuple[str, str] | None:
    """For an option whose value is a mapping (a command line gives it as JSON text): the
    form and the smallest of `values` as JSON, where every one of them is a mapping; else None."""
    if not values or not all(isinstance(v, Mapping) for v in values):
        return None
    return "a JSON object", min((json.dumps(dict(v), sort_keys=True) for v in values), key=lambda t: (len(t), t))


_NOT_JSON = object()


def _parsed(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return _NOT_JSON
