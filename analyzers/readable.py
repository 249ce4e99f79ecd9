"""What a reader of a trigger, an ``other`` item or a solution must never be shown: the
bookkeeping of a local errcat could not follow (``x (reassigned in a try block)``), a
collection built from constants shown as code (`` `frozenset({...})` ``), a call of one of
the program's private helpers (``_resolve_quant_method(...)``) or an elided call
(``f(...)``). Such a value is said by what it is (`extractor.ir.described`) or read from
what the user gives. One list, used by the tests on whole catalogs."""
from __future__ import annotations

import re

# (kind, pattern); a kind names what leaked, for counting and for a test's message
MARKERS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("bookkeeping", re.compile(
        r"\w \((?:reassigned|changed|updated|extended with|set in more than|element of|an item of"
        r"|computed from a table)\b[^)]*\)")),
    ("built collection", re.compile(r"`(?:frozen)?set\(")),
    ("private call", re.compile(r"(?<![\w.`-])_[A-Za-z]\w*\(")),
    ("elided call", re.compile(r"\w\(\.\.\.\)")),
    ("parameter", re.compile(r"`parameter \w+`")),
    ("unread lookup", re.compile(r"returns for other names")),
)


def internal_markers(text: str) -> list[tuple[str, str]]:
    """Each (kind, matched text) of `text` a reader should not see."""
    return [(kind, m.group(0)) for kind, pattern in MARKERS for m in pattern.finditer(text)]


# a function of the program's own whose name says what it computes from its arguments
# (``parse_connector_type(url)``): read as "the connector type parsed from `--model-path`"
CALL_VERBS = {"parse": "parsed from", "derive": "derived from", "compute": "computed from",
              "infer": "inferred from", "resolve": "resolved from", "detect": "detected from"}


def call_reading(fn: str) -> tuple[str, str] | None:
    """(what it computes, how) for a public function named ``<verb>_<what>``; None for another."""
    verb, _, what = fn.rpartition(".")[2].partition("_")
    return (what.replace("_", " "), CALL_VERBS[verb]) if verb in CALL_VERBS and what else None


# a call of the program's code on what the user gives (``parse_connector_type(`--model-path`)``,
# or as read, "the connector type parsed from `--model-path`"): a trigger may show how a value
# is computed, but a solution says what to change, not the code
CODE_CALL = re.compile(r"(?<![\w`.-])[A-Za-z_][\w.]*\((?:\w+=)?`|\b(?:"
                       + "|".join(CALL_VERBS.values()) + ") `")


def states_code(text: str) -> bool:
    """Does `text` (a solution's goal) state a condition through a call of the program's code?"""
    return CODE_CALL.search(text) is not None
