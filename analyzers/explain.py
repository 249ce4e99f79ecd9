"""`errcat explain`: which catalog entry (and which row of its table) a pasted error is.

The text may be a message, a whole traceback or a log: the error lines are found
(`error_texts`: ``Type: message`` lines, a message running on to the next blank line,
traceback line or log record, and the innermost ``File "...", line N`` frame where there is one). Each
is looked up in a `MessageIndex`: an index from the literal words of every entry's and
row's message template to those templates, so a lookup matches only the few templates
that share its rarest words, never every regex. A template matches when the message is a
rendering of it (`extractor.templates.Template.match`, which also gives the holes'
values); matches are ranked by the site the traceback names, the exception type, and how
much of the message is the template's own text. No match: the closest templates by
shared words, said to be only close.
"""
from __future__ import annotations

import builtins
import functools
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from extractor.templates import RERAISED, Part, Template, parse_template

_ERROR_LINE = re.compile(r"^(?:[\w.]+\.)?(?P<type>[A-Z]\w*(?:Error|Exception|Exit|Warning)|AssertionError)"
                         r"(?::\s?(?P<message>.*))?$")
# a log record's own line (``[2026-12-02 10:00:01] ...``, ``INFO ...``): not part of a message above it
_LOG_LINE = re.compile(r"^(\[|\d{4}-\d\d-\d\d|(INFO|WARNING|ERROR|DEBUG|CRITICAL)\b)")
_FRAME = re.compile(r'^\s*File "(?P<path>[^"]+)", line (?P<line>\d+)')
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_\-]{2,}")
MAX_CANDIDATES = 40  # templates tried per message, most shared rare words first
MAX_CLOSE = 3  # the closest entries offered when none matches


@dataclass(frozen=True, slots=True)
class ErrorText:
    """One error as the text shows it."""

    message: str
    exception: str | None = None
    path: str | None = None  # the innermost frame of its traceback, as printed
    line: int | None = None


def error_texts(text: str) -> list[ErrorText]:
    """The errors in `text`, last first (a traceback's own error is its last line; in a log
    the last error is the one that stopped the launch). Text with no ``Type: message`` line
    is one message."""
    lines = text.replace("\r\n", "\n").split("\n")
    found: list[ErrorText] = []
    frame: tuple[str, int] | None = None
    i = 0
    while i < len(lines):
        line = lines[i]
        if (at := _FRAME.match(line)) is not None:
            frame = (at.group("path"), int(at.group("line")))
        elif (err := _ERROR_LINE.match(line)) is not None:
            body = [err.group("message") or ""]
            while i + 1 < len(lines) and lines[i + 1].strip() and not _FRAME.match(lines[i + 1]) \
                    and not lines[i + 1].startswith("Traceback") and not _ERROR_LINE.match(lines[i + 1]) \
                    and not _LOG_LINE.match(lines[i + 1]):
                i += 1
                body.append(lines[i])
            found.append(ErrorText("\n".join(body), err.group("type"), *(frame or (None, None))))
            frame = None
        i += 1
    if not found and text.strip():
        found.append(ErrorText(text.strip()))
    return found[::-1]


@dataclass(frozen=True, slots=True)
class Match:
    """A template the message renders: the entry, its row (None: the entry's own template),
    the holes' values as the message shows them, and why it ranks where it does."""

    entry: str
    row: int | None
    holes: Mapping[str, str]
    exact: bool  # the message is a rendering of the template (False: only close)
    why: str
    score: float
    own: int = 0  # characters of the template's own (literal) text
    named: bool = False  # the traceback names its line
    exception: str = ""


@dataclass(frozen=True, slots=True)
class Target:
    """One template explain matches: an entry's own or one of its rows', where it is raised,
    and its literal words (what the index is keyed by). Plain data, so an index of them can
    be written beside a catalog (`explain_index`) and read back without parsing templates."""

    entry: str
    row: int | None
    text: str  # the template as published
    exception: str
    path: str
    line: int
    end: int  # the last line of its statement (a traceback names any line of a multi-line raise)
    own: int  # characters of literal text: more is more specific
    words: tuple[str, ...]

    @property
    def template(self) -> Template:
        return _parsed(self.text)


_PARSED: dict[str, Template] = {}


def _parsed(text: str) -> Template:
    """`text` parsed once per process: only the templates a lookup tries are ever parsed."""
    found = _PARSED.get(text)
    if found is None:
        found = _PARSED[text] = parse_template(text)
    return found


def targets_of(entry: Mapping[str, Any]) -> list[Target]:
    """The templates of one catalog.json entry: its own, then each row's that differs."""
    from analyzers.judge import statement_end  # parses code (ast): not on explain-index.json's path

    source = entry.get("source") or {}
    line = int(source.get("line") or 0)
    excerpt = entry.get("excerpt") or {}
    end = statement_end(str(excerpt.get("code") or ""), int(excerpt.get("start_line") or line), line)
    # a row whose template is the entry's says nothing more (rows per call-site binding
    # often keep the message): it would outrank an equal template elsewhere
    own = entry.get("template")
    rows = [(None, own)] + [(i, v.get("template")) for i, v in enumerate(entry.get("variants") or ())
                            if v.get("template") and v.get("template") != own]
    out = []
    for row, text in rows:
        if not isinstance(text, str):
            continue
        literal = _parsed(text).literal_text
        out.append(Target(str(entry["id"]), row, text, str(entry.get("exception") or ""),
                          str(source.get("path") or ""), line, end, len(literal.strip()),
                          tuple(sorted(set(_words(literal))))))
    return out


class MessageIndex:
    """Every entry's and row's template of one catalog, indexed by its literal words."""

    def __init__(self, entries: Iterable[Mapping[str, Any]]) -> None:
        self._index([t for entry in entries for t in targets_of(entry)])

    @classmethod
    def of_targets(cls, targets: Sequence[Target]) -> MessageIndex:
        """The index of targets read back (`explain_index`), no entry at hand."""
        index = cls.__new__(cls)
        index._index(targets)
        return index

    def _index(self, targets: Sequence[Target]) -> None:
        self.targets = list(targets)
        self.by_word: dict[str, list[int]] = {}
        self.wordless: list[int] = []  # templates with no word of their own ("{reason}"): always tried
        for i, target in enumerate(self.targets):
            for word in target.words:
                self.by_word.setdefault(word, []).append(i)
            if not target.words:
                self.wordless.append(i)
        # handlers passing a caught message on (``raise E(str(err)) from err``): the words are another raise's
        self.passing = {t.entry for t in self.targets if t.template.text == RERAISED}

    def candidates(self, error: ErrorText) -> tuple[list[int], Counter[int]]:
        """The templates worth matching (by index): those sharing the most words with the
        message, then those with no word of their own; and how many words each shares."""
        shared: Counter[int] = Counter()
        for word in set(_words(error.message)):
            for i in self.by_word.get(word, ()):
                shared[i] += 1
        return [i for i, _ in shared.most_common(MAX_CANDIDATES)] + self.wordless, shared

    def find(self, error: ErrorText) -> list[Match]:
        """The templates `error` renders, best first; none: the closest, marked not exact."""
        tried, shared = self.candidates(error)
        matches = [m for i in dict.fromkeys(tried) if (m := self._exact(self.targets[i], error)) is not None]
        # a template that is only a hole ("{reason}") renders any message: it says which error
        # this is only where the traceback names its line, or the exception is its own class
        # (``WatermarkConfigError(str(error))`` re-raising a ValueError's message)
        specific = [m for m in matches if m.own or m.named or (m.exception == error.exception and not
                                                                hasattr(builtins, m.exception))]
        # none of the pasted type: a message-less assert (``AssertionError: ``) or a message a helper
        # built (the helper's own ValueError text, say) that the site asserts (``assert ok, msg``):
        # the asserts with no text of their own are candidates too, and their type ranks them first
        # (a ValueError's ``{reason}`` renders too much to say which it is)
        found = specific
        if not any(m.exception == error.exception for m in specific):
            found = specific + [m for m in matches if m not in specific and error.exception == m.exception
                                == "AssertionError"]
        if found:
            return self._ranked(found)
        return [self._close(self.targets[i], error, n) for i, n in shared.most_common(MAX_CLOSE)]

    def _ranked(self, found: list[Match]) -> list[Match]:
        """Exact matches best first: a row of a table that renders the message says it all (its
        entry's general template is no other error); the raise that wrote the words says why,
        before the handler that passed them on."""
        rows = {m.entry for m in found if m.row is not None}
        worded = any(m.own for m in found)
        return sorted((m for m in found if m.row is not None or m.entry not in rows),
                      key=lambda m: (worded and m.entry in self.passing, -m.score))

    def _exact(self, target: Target, error: ErrorText) -> Match | None:
        holes = target.template.match(error.message)
        if holes is None:  # a terminal or a copy drops trailing spaces: compared line by line without them
            loose = _loose(target.template).match(_unpadded(error.message))
            if loose is None:
                return None
            holes = dict(zip((h.text for h in target.template.holes), loose.groups(), strict=True))
        reasons = []
        score = target.own / max(len(error.message), 1)  # how much of the message is the template's own text
        named = error.path is not None and error.line is not None and target.line <= error.line <= target.end \
            and _same_file(error.path, target.path)
        if named:
            score += 10
            reasons.append(f"the traceback names its line ({target.path}:{target.line})")
        if error.exception is not None and error.exception == target.exception:
            score += 1
            reasons.append(f"same exception ({target.exception})")
        reasons.append(f"the message renders its template ({target.own} characters of its own text)")
        if target.row is not None:
            score += 0.01  # a row says more than the entry's general template
        return Match(target.entry, target.row, holes, True, "; ".join(reasons), score, target.own, named,
                     target.exception)

    def _close(self, target: Target, error: ErrorText, shared: int) -> Match:
        return Match(target.entry, target.row, {}, False, f"shares {shared} word(s) with its template, "
                     "but the message is no rendering of it", float(shared))


def _unpadded(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip().split("\n"))


def _loose(template: Template) -> re.Pattern[str]:
    """`template`'s matcher for text whose lines lost their trailing spaces (`_unpadded`)."""
    return _loose_of(template.parts)


@functools.lru_cache(maxsize=4096)  # keyed by content: the parts are hashable and cheap to hash
def _loose_of(parts: tuple[Part, ...]) -> re.Pattern[str]:
    pattern = [re.escape(_unpadded_part(p)) if isinstance(p, str) else "(.*?)" for p in parts]
    return re.compile("".join(pattern) + r"\Z", re.DOTALL)


def _unpadded_part(literal: str) -> str:
    return re.sub(r"[ \t]+\n", "\n", literal)


def _same_file(printed: str, catalogued: str) -> bool:
    """A traceback's path (``/venv/lib/python3.11/site-packages/sglang/srt/x.py``) and the
    catalog's (``python/sglang/srt/x.py``, the repository's layout) name the same file."""
    printed = printed.replace("\\", "/")
    tail = printed.rpartition("site-packages/")[2]
    return catalogued.endswith("/" + tail) or catalogued == tail or printed.endswith("/" + catalogued)


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def explained(index: MessageIndex, text: str) -> list[tuple[ErrorText, list[Match]]]:
    """Each error in `text` (last first) with its matches."""
    return [(error, index.find(error)) for error in error_texts(text)]


def best(matches: Sequence[Match]) -> Match | None:
    return matches[0] if matches and matches[0].exact else None
