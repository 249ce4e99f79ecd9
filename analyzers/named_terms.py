"""A long condition with its repeated values named once: "… `X` < ([A] + [B] - 1) // [B] …;
where [A] is `--chunked-prefill-size` // `--attn-dp-size` …".

A check's condition reads the code's locals substituted (`local_tokens = cfg.chunked_prefill_size
// attn_dp`, then `tokens_per_rank = (local_tokens + …) // …`), so one computed value can be
written out ten times in a trigger a person must read. Each value written out at least twice
and long enough to be worth a name is said once, the longest first; names never change what
the text says (each is replaced by exactly the text it stands for).
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from string import ascii_uppercase

LONG = 400  # a text shorter than this is read as it is
WORTH = 40  # a value written out shorter than this keeps being written out
MAX_NAMES = 6


def named_terms(text: str, values: Iterable[str]) -> str:
    """`text` with the `values` (terms as rendered) it writes out twice or more replaced by
    names, defined after it."""
    if len(text) < LONG:
        return text
    candidates = sorted({v for v in values if len(v) >= WORTH}, key=len, reverse=True)
    defined: list[tuple[str, str]] = []  # (name, what it stands for), in naming order
    for value in candidates:
        if len(defined) == MAX_NAMES:
            break
        uses = text.count(value) + sum(d.count(value) for _, d in defined)
        if uses < 2:
            continue
        name = f"[{ascii_uppercase[len(defined)]}]"
        text = _replaced(text, value, name)
        defined = [(n, _replaced(d, value, name)) for n, d in defined] + [(name, value)]
    if not defined:
        return text
    return f"{text}; where " + "; ".join(f"{name} is {value}" for name, value in reversed(defined))


def _replaced(text: str, value: str, name: str) -> str:
    """`text` with `value` replaced by `name`, and a name wrapped in parentheses unwrapped
    (not a call's: ``f((x if c else y))`` reads ``f([A])``)."""
    return re.sub(rf"(?<![\w`\])])\({re.escape(value)}\)", lambda _: name, text).replace(value, name)
