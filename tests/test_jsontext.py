"""`output.jsontext.dumps_indented` is `json.dumps(data, indent=2, ensure_ascii=False)`."""
from __future__ import annotations

import json

import pytest

from output.jsontext import dumps_indented


@pytest.mark.parametrize("data", [
    {}, [], (), "x", 3, 2.5, None, True,
    {"a": [], "b": {}, "c": [[[]]]},
    ["é\n\"\\\u2028\x00", 10**30, -0.0, 1e300, float("nan"), float("inf"), -float("inf"), True, False, None],
    {2: 2, 2.5: 3, True: 1, None: 0}, {False: [{}]},
    (1, (2, ("three", {"four": 4}))),
    {"entries": [{"id": "0" * 16, "trigger": {"text": "a > 1", "expr": {"op": "gt"}}, "variants": []}]},
])
def test_same_text_as_json_dumps(data):
    assert dumps_indented(data) == json.dumps(data, indent=2, ensure_ascii=False)


@pytest.mark.parametrize("data, error", [
    ({(1, 2): 3}, TypeError),
    ([object()], TypeError),
    ({1, 2}, TypeError),
])
def test_same_errors_as_json_dumps(data, error):
    with pytest.raises(error):
        json.dumps(data, indent=2, ensure_ascii=False)
    with pytest.raises(error):
        dumps_indented(data)


def test_circular_reference_is_refused():
    data: list = []
    data.append(data)
    with pytest.raises(ValueError):
        dumps_indented(data)
