"""Message templates: literal text with ``{hole}`` placeholders, as `str.format` writes them."""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any


@dataclass(frozen=True, slots=True)
class Hole:
    """A part of the message known only at run time, named by its source expression."""

    expr: str
    conversion: str | None = None  # "r", "s", "a"
    spec: str | None = None  # format spec as written, e.g. ".2f" or "{width}"

    @property
    def suffix(self) -> str:
        """``!r:>10`` as written after the expression."""
        conv = f"!{self.conversion}" if self.conversion else ""
        return conv + (f":{self.spec}" if self.spec else "")

    @property
    def text(self) -> str:
        # "{ {a: 1}[k]}": a space keeps an expression starting with "{" from reading as "{{".
        pad = " " if self.expr.startswith("{") else ""
        return "{" + pad + self.expr + self.suffix + "}"


Part = str | Hole


def _merge(parts: list[Part] | tuple[Part, ...]) -> tuple[Part, ...]:
    """Join adjacent literals and drop empty ones, so equal messages compare equal."""
    out: list[Part] = []
    for part in parts:
        if isinstance(part, str):
            if not part:
                continue
            if out and isinstance(out[-1], str):
                out[-1] = out[-1] + part
                continue
        out.append(part)
    return tuple(out)


def _escape(literal: str) -> str:
    return literal.replace("{", "{{").replace("}", "}}")


# the message of a bare ``raise`` in an ``except`` block: the caught exception, raised again
CAUGHT = "<caught exception>"
RERAISED = "{" + CAUGHT + "}"  # such a site's template text

@dataclass(frozen=True)
class Template:
    parts: tuple[Part, ...]

    @classmethod
    def of(cls, *parts: Part) -> Template:
        return cls(_merge(parts))

    @classmethod
    def literal(cls, text: str) -> Template:
        return cls.of(text)

    @classmethod
    def hole(cls, expr: str, conversion: str | None = None, spec: str | None = None) -> Template:
        return cls.of(Hole(expr, conversion, spec))

    def __add__(self, other: Template) -> Template:
        return Template(_merge(self.parts + other.parts))

    @property
    def holes(self) -> tuple[Hole, ...]:
        return tuple(p for p in self.parts if isinstance(p, Hole))

    @property
    def is_literal(self) -> bool:
        return not any(isinstance(p, Hole) for p in self.parts)

    @cached_property
    def text(self) -> str:
        """The template as published: literal braces doubled, holes in braces."""
        return "".join(_escape(p) if isinstance(p, str) else p.text for p in self.parts)

    @property
    def literal_text(self) -> str:
        """Only the literal parts, concatenated (for similarity and search)."""
        return "".join(p for p in self.parts if isinstance(p, str))

    def quoted(self, limit: int = 80) -> str:
        """The message in quotes, cut at a word past `limit` characters; "" where it is holes only
        (``{error}`` says nothing)."""
        if not self.literal_text.strip():
            return ""
        text = " ".join(self.text.split())
        return f"“{text if len(text) <= limit else text[:limit].rsplit(' ', 1)[0] + ' …'}”"

    @property
    def pattern(self) -> str:
        """The source of `matcher` (what catalogs publish), without compiling it.

        A hole may render as any text (``__format__``/``__repr__`` are arbitrary), so
        each hole is ``(.*?)``; the literal parts must appear verbatim and in order.
        """
        return "".join(re.escape(p) if isinstance(p, str) else "(.*?)" for p in self.parts) + r"\Z"

    @cached_property
    def matcher(self) -> re.Pattern[str]:
        """A regex accepting exactly the messages this template can render (`pattern`)."""
        return re.compile(self.pattern, re.DOTALL)

    def match(self, message: str) -> dict[str, str] | None:
        """Hole values if `message` is a rendering of this template."""
        found = self.matcher.match(message)
        if found is None:
            return None
        return {h.text: v for h, v in zip(self.holes, found.groups(), strict=True)}

    def fill(self, values: Mapping[str, Template]) -> Template:
        """Replace holes (by expression) with other templates, e.g. a table row's text.

        A template standing for a value is a string's text, so a literal one renders
        exactly through the hole's conversion and spec; one with holes of its own is
        spliced in only where no conversion or spec would change it.
        """
        parts: list[Part] = []
        for part in self.parts:
            sub = values.get(part.expr) if isinstance(part, Hole) else None
            if sub is None or isinstance(part, str):
                parts.append(part)
            elif sub.is_literal:
                parts.append(_render(part, sub.literal_text))
            elif part.conversion in (None, "s") and not part.spec:
                parts.extend(sub.parts)
            else:
                parts.append(part)
        return Template(_merge(parts))

    def as_dict(self) -> dict[str, Any]:
        return {"text": self.text, "holes": [h.text for h in self.holes]}


def _render(hole: Hole, value: str) -> Part:
    """`value` formatted as the hole would format it; the hole itself if Python would fail."""
    if hole.spec and "{" in hole.spec:
        return hole  # nested fields: the width/precision is not known here
    try:
        return ("{0" + hole.suffix + "}").format(value)
    except (ValueError, TypeError):
        return hole


# ------------------------------------------------------------------ parsing

def _skip_string(text: str, i: int) -> int:
    """Index just past the string literal starting at ``text[i]`` (a quote)."""
    quote = text[i : i + 3] if text[i : i + 3] in ('"""', "'''") else text[i]
    j = i + len(quote)
    while j < len(text):
        if text[j] == "\\":
            j += 2
        elif text.startswith(quote, j):
            return j + len(quote)
        else:
            j += 1
    return len(text)


def _hole_end(text: str, start: int) -> int:
    """Index of the ``}`` closing the hole opened at ``text[start]``.

    In the expression, string literals are skipped and brackets nest; after the
    top-level ``:`` (the spec) only nested ``{field}``s count, quotes being fill characters.
    """
    depth, in_spec, i = 0, False, start + 1
    while i < len(text):
        ch = text[i]
        if not in_spec and ch in "'\"":
            i = _skip_string(text, i)
            continue
        if ch == "}" and depth == 0:
            return i
        if ch in "([{" and (ch == "{" or not in_spec):
            depth += 1
        elif ch in ")]}" and (ch == "}" or not in_spec):
            depth -= 1
        elif ch == ":" and depth == 0 and not text.startswith(":=", i):
            in_spec = True
        i += 1
    return len(text)


def _split_at(body: str) -> int:
    """Where the expression of a hole body ends: its top-level ``!conv`` or ``:spec``."""
    depth, i = 0, 0
    while i < len(body):
        ch = body[i]
        if ch in "'\"":
            i = _skip_string(body, i)
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ((depth == 0 and ch == ":" and not body.startswith(":=", i))
              or (depth == 0 and ch == "!" and not body.startswith("!=", i))):
            return i
        i += 1
    return len(body)


def _parse_hole(body: str) -> Hole:
    cut = _split_at(body)
    expr, rest = body[:cut].strip(), body[cut:]
    conversion = None
    if rest.startswith("!"):
        conversion, rest = rest[1:2], rest[2:]
    spec = rest[1:] if rest.startswith(":") else None
    return Hole(expr, conversion or None, spec or None)


def parse_template(text: str) -> Template:
    """Inverse of `Template.text` (catalogs are read back by diff and explain)."""
    parts: list[Part] = []
    buf: list[str] = []
    i = 0
    while i < len(text):
        if text.startswith("{{", i) or text.startswith("}}", i):
            buf.append(text[i])
            i += 2
        elif text[i] == "{":
            end = _hole_end(text, i)
            parts.append("".join(buf))
            buf = []
            parts.append(_parse_hole(text[i + 1 : end]))
            i = end + 1
        else:
            buf.append(text[i])
            i += 1
    parts.append("".join(buf))
    return Template(_merge(parts))


def called(template: Template, exception: str, path: str, line: int) -> str:
    """How words about another error name it: its message quoted, or where the message says
    nothing (holes only, ``raise E(str(error))``; none), its exception and place."""
    return template.quoted() or f"the {exception} at {path.rsplit('/', 1)[-1]}:{line}"


def any_of(templates: Iterable[Template]) -> str:
    """One pattern accepting what any of `templates` renders (an entry and its rows' messages)."""
    patterns = list(dict.fromkeys(t.pattern for t in templates))
    return patterns[0] if len(patterns) == 1 else "(?:" + "|".join(patterns) + ")"
