"""What a block writes: the names it rebinds or changes in place (`extractor.writes`)."""
from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from extractor.writes import written_names


@pytest.mark.parametrize(
    "code, names",
    [
        ("x = 1\n", {"x"}),
        ("a, (b, c) = t\n", {"a", "b", "c"}),
        ("x += 1\n", {"x"}),
        ("x: int = 1\n", {"x"}),
        ("d[k] = v\n", {"d"}),
        ("d[k][j] = v\n", {"d"}),
        ("d.update(e)\n", {"d"}),
        ("rows.append(r)\n", {"rows"}),
        ("del d[k]\n", {"d"}),
        ("if (n := f()):\n    pass\n", {"n"}),
        ("for i in r:\n    pass\n", {"i"}),
        ("cfg.x = 1\n", set()),  # an attribute: not a local
        ("d.get(k)\n", set()),  # reading does not change it
        ("def g():\n    y = 1\n", set()),  # a nested definition's names are its own
        ("f = lambda: d.clear()\n", {"f"}),
    ],
)
def test_written_names(code: str, names: set[str]) -> None:
    assert written_names(cst.parse_module(textwrap.dedent(code))) == names
