"""analyzers.named_terms: a long condition says each value it writes out repeatedly once."""
from __future__ import annotations

import pytest

from analyzers.named_terms import LONG, named_terms

V = "(`--attn-cp-size` if `--enable-prefill-cp` is set, else `--attn-dp-size`)"  # 70 characters
W = f"`--chunked-prefill-size` // {V}"
PAD = " and `--x` is set" * (LONG // 17)


@pytest.mark.parametrize(("text", "values", "expected"), [
    # short: as it is
    (f"{V} > 1 and {V} < 4", [V], f"{V} > 1 and {V} < 4"),
    # written out twice: named once, defined after it (a name is not wrapped in parentheses again)
    (f"{V} > 1 and ({V}) < 4{PAD}", [V], f"[A] > 1 and [A] < 4{PAD}; where [A] is {V}"),
    # a call's own parentheses stay: f([A]), not f[A]
    (f"f(({V})) and {V} < 4{PAD}", [V], f"f([A]) and [A] < 4{PAD}; where [A] is {V}"),
    # once only, or too short to be worth a name: as it is
    (f"{V} > 1{PAD}", [V], f"{V} > 1{PAD}"),
    (f"`--a` > 1 and `--a` < 4{PAD}", ["`--a`"], f"`--a` > 1 and `--a` < 4{PAD}"),
    # a value inside another: the longer named first, the inner one defined first
    (f"{W} > 0 and {W} < 9 and {V} > 1{PAD}", [V, W],
     f"[A] > 0 and [A] < 9 and [B] > 1{PAD}; where [B] is {V}; [A] is `--chunked-prefill-size` // [B]"),
])
def test_named_terms(text: str, values: list[str], expected: str) -> None:
    assert named_terms(text, values) == expected


def test_each_name_stands_for_exactly_its_text() -> None:
    text = f"{W} > 0 and {W} < 9 and {V} > 1{PAD}"
    said, _, defined = named_terms(text, [V, W]).partition("; where ")
    for name, value in reversed([d.split(" is ", 1) for d in defined.split("; ")]):  # the outer names first
        said = said.replace(name, value)
    assert said == text
