"""Message templates: literal text with ``{hole}`` placeholders, as `str.format` writes them."""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Union


@dataclass(frozen=True, slots=True)
class Hole:
    """A part of the message known only at run time, named by its source expression."""

    expr: str
    conversion: str | None = None  # "r", "s", "a"
    spec: str | None = None  # format spec as written, e.g. ".2f"

    @property
    def text(self) -> str:
        conv = f"!{self.conversion}" if self.conversion else ""
        spec = f":{self.spec}" if self.spec else ""
        return "{" + self.expr + conv + spec + "}"


Part = Union[str, Hole]


def _merge(parts: "list[Part] | tuple[Part, ...]") -> tuple[Part, ...]:
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


@dataclass(frozen=True)
class Template:
    parts: tuple[Part, ...]

    @classmethod
    def of(cls, *parts: Part) -> "Template":
        return cls(_merge(parts))

    @classmethod
    def literal(cls, text: str) -> "Template":
        return cls.of(text)

    @classmethod
    def hole(cls, expr: str, conversion: str | None = None, spec: str | None = None) -> "Template":
        return cls.of(Hole(expr, conversion, spec))

    def __add__(self, other: "Template") -> "Template":
        return Template(_merge(self.parts + other.parts))

    @property
    def holes(self) -> tuple[Hole, ...]:
        return tuple(p for p in self.parts if isinstance(p, Hole))

    @cached_property
    def text(self) -> str:
        """The template as published: literal braces doubled, holes in braces."""
        return "".join(
            p.replace("{", "{{").replace("}", "}}") if isinstance(p, str) else p.text
            for p in self.parts
        )

    @property
    def literal_text(self) -> str:
        """Only the literal parts, concatenated (for similarity and search)."""
        return "".join(p for p in self.parts if isinstance(p, str))

    @cached_property
    def matcher(self) -> re.Pattern[str]:
        """A regex accepting exactly the messages this template can render."""
        pattern = "".join(
            re.escape(p) if isinstance(p, str) else "(.*?)" for p in self.parts
        )
        return re.compile(pattern + r"\Z", re.DOTALL)

    def match(self, message: str) -> dict[str, str] | None:
        """Hole values if `message` is a rendering of this template."""
        found = self.matcher.match(message)
        if found is None:
            return None
        return {h.text: v for h, v in zip(self.holes, found.groups())}

    def fill(self, values: Mapping[str, "Template"]) -> "Template":
        """Replace holes (by expression) with other templates, e.g. a table row's text."""
        parts: list[Part] = []
        for part in self.parts:
            if isinstance(part, Hole) and part.expr in values and not part.spec:
                sub = values[part.expr]
                if part.conversion in (None, "s"):
                    parts.extend(sub.parts)
                elif not sub.holes:
                    parts.append(repr(sub.literal_text) if part.conversion == "r" else ascii(sub.literal_text))
                else:
                    parts.append(part)
            else:
                parts.append(part)
        return Template(_merge(parts))

    def as_dict(self) -> dict[str, Any]:
        return {"text": self.text, "holes": [h.text for h in self.holes]}


def parse_template(text: str) -> Template:
    """Inverse of `Template.text` (catalogs are read back by diff and explain)."""
    parts: list[Part] = []
    i = 0
    buf: list[str] = []
    while i < len(text):
        ch = text[i]
        if text.startswith("{{", i) or text.startswith("}}", i):
            buf.append(ch)
            i += 2
        elif ch == "{":
            depth, j = 1, i + 1
            while j < len(text) and depth:
                depth += {"{": 1, "}": -1}.get(text[j], 0)
                j += 1
            body = text[i + 1 : j - 1]
            parts.append("".join(buf))
            buf = []
            parts.append(_parse_hole(body))
            i = j
        else:
            buf.append(ch)
            i += 1
    parts.append("".join(buf))
    return Template(_merge(parts))


_HOLE_RE = re.compile(r"(?P<expr>.*?)(?:!(?P<conv>[rsa]))?(?::(?P<spec>[^:{}!]*))?\Z", re.DOTALL)


def _parse_hole(body: str) -> Hole:
    found = _HOLE_RE.match(body)
    assert found is not None  # the pattern accepts any string
    return Hole(found["expr"], found["conv"], found["spec"] or None)
