"""A check on a failed conversion names the form that parses and a value of it."""
from __future__ import annotations

import pytest

from analyzers.well_formed import form_text, json_form, object_form, parse_form
from extractor.ir import RAISES, Apply, Const, Ref, RefKind, Truthy

CONFIG = Ref(RefKind.FLAG, "config", "cfg.config")


def raises(step, names=("ValueError",)):
    return Truthy(Apply(RAISES, (Const(names), step), "try"))


@pytest.mark.parametrize(("part", "form"), [
    (raises(Apply("json.loads", (CONFIG,), "json.loads(cfg.config)"), ("JSONDecodeError",)),
     ("valid JSON", ("{}", "[]"))),
    (raises(Apply("int", (Apply("item", (CONFIG, Const(1)), "v[1]"),), "int(v[1])")), ("an integer", ("1", "0"))),
    (raises(Apply("float", (CONFIG,), "float(v)")), ("a number", ("1.0", "0.5"))),
    (raises(Apply("open", (CONFIG,), "open(v)"), ("OSError",)), None),  # a file not read: no form parses
    (Truthy(Apply("json.loads", (CONFIG,), "json.loads(v)")), None),  # no try block: not a failure to parse
])
def test_the_form_a_failed_conversion_needs(part, form):
    assert parse_form(part) == form


@pytest.mark.parametrize(("value", "unset", "text"), [
    ("{}", True, "Set `--config` to valid JSON, e.g. `'{}'` (or leave it unset)."),
    ("1", False, "Set `--config` to valid JSON, e.g. `1`."),
])
def test_the_words_name_the_form_and_a_value_as_typed(value, unset, text):
    assert form_text("`--config`", "valid JSON", value, unset) == text


@pytest.mark.parametrize(("values", "found"), [
    # the prefix a check tests is no value: the simplest JSON that avoids the part is
    (["{", '{"key": "value"}', "{}"], ("a JSON object", "{}")),
    (["[", '["value"]'], ("valid JSON", '["value"]')),
    (['{"key": "value"}', "{}"], None),  # every value parses: the values speak for themselves
    (["example", "{"], None),  # none parses
])
def test_an_option_taking_json_is_named_by_a_value_that_parses(values, found):
    assert json_form(values) == found


@pytest.mark.parametrize(("values", "found"), [
    ([{"key": "value"}, {}], ("a JSON object", "{}")),  # the smallest, as JSON text
    ([{"b": 1, "a": 2}], ("a JSON object", '{"a": 2, "b": 1}')),
    ([{}, "text"], None),  # not every value is a mapping
    ([], None),
])
def test_a_mapping_option_is_named_by_the_smallest_object_as_json(values, found):
    assert object_form(values) == found
