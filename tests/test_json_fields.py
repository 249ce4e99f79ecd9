"""Settings the code resolves from one field of an option's JSON ("Resolved from
--watermark-config."): named by that field, read from the JSON a launch gives (else their
declared default), and set by an example through that JSON."""
from __future__ import annotations

import json
import shlex
from dataclasses import replace

import pytest

from analyzers.advice import Context, example_fix, solutions
from analyzers.eval_model import Model
from analyzers.evaluate import evaluate
from analyzers.examples import Examples
from analyzers.flag_build import build_flag_model
from analyzers.flags import FlagModel
from analyzers.json_fields import is_json_field, with_json_field
from analyzers.kleene import Truth
from analyzers.launch import Launch
from analyzers.trigger import Renderer
from extractor.ir import And, Compare, Const, Ref, RefKind, Truthy
from extractor.profile import ExampleRules

_BASE = build_flag_model({"p/args.py": (
    "def add_cli_args(parser):\n"
    "    parser.add_argument('--model-path', type=str, required=True)\n"
    "    parser.add_argument('--enable-watermark', action='store_true')\n"
    "    parser.add_argument('--watermark-config', type=str, default=None,\n"
    "                        help='Watermark settings as an inline JSON object.')\n")})
_JSON = _BASE.by_dest("watermark_config")
assert _JSON is not None
_DERIVED = tuple(replace(_JSON, dest=dest, option=None, derived=True, type=kind, default=default,
                         help="Resolved from --watermark-config.")
                 for dest, kind, default in (("watermark_mixing_probability", "float", 0.5),
                                             ("watermark_key_b", "Optional[str]", None)))
FLAGS = FlagModel((*_BASE.flags, *_DERIVED), (), ())
MIXING = "watermark_config.mixing_probability"


def ref(name: str) -> Ref:
    return Ref(RefKind.FLAG, name, f"cfg.{name}")


def model() -> Model:
    return Model(FLAGS, (), Examples(ExampleRules(model="model_path")))


@pytest.mark.parametrize("name, expected", [
    ("watermark_mixing_probability", MIXING),  # the field of the option it is resolved from
    ("watermark_key_b", "watermark_config.key_b"),
    ("watermark_config", "watermark_config"),  # the option itself
    (MIXING, MIXING),
])
def test_a_setting_resolved_from_a_json_option_is_named_by_its_field(name, expected):
    assert FLAGS.dest_of(name) == expected


@pytest.mark.parametrize("given, expected", [
    ({}, 0.5),  # no JSON: the declared default
    ({"watermark_config": '{"mixing_probability": 0.3}'}, 0.3),
    ({"watermark_config": '{"key": "ab"}'}, 0.5),  # the JSON leaves it out: the default
    ({"watermark_config": {"mixing_probability": 0.7}}, 0.7),  # a dict, as a dict flag holds it
])
def test_the_field_is_read_from_the_json_the_launch_gives(given, expected):
    condition = Compare("==", ref(MIXING), Const(expected))
    assert evaluate(condition, Launch(given), model()) is Truth.TRUE


@pytest.mark.parametrize("flags, given, value, expected", [
    ({}, True, 0.3, {"watermark_config": '{"mixing_probability": 0.3}'}),
    ({"watermark_config": '{"key": "ab"}'}, True, 0.3,
     {"watermark_config": '{"key": "ab", "mixing_probability": 0.3}'}),  # other fields kept
    ({"watermark_config": '{"mixing_probability": 0.3}'}, False, None, {}),  # no field left: dropped
])
def test_an_example_sets_the_field_in_the_options_json(flags, given, value, expected):
    assert dict(with_json_field(Launch(flags), MIXING, given, value).flags) == expected


@pytest.mark.parametrize("name, expected", [
    (MIXING, True), ("watermark_config.other", False), ("watermark_config", False), ("tp_size", False)])
def test_only_a_declared_field_of_an_option_is_set_through_its_json(name, expected):
    assert is_json_field(name, FLAGS) is expected


def test_an_example_reaches_a_check_on_a_field_strictly_between_its_bounds():
    """sglang 0.5.23 validation_hook.py:63: ``not key_b and 0 < mixing < 1 and mixing != 0.5``."""
    mixing = ref(MIXING)
    expr = And((Truthy(ref("enable_watermark")), Compare("<", Const(0), mixing), Compare("<", mixing, Const(1)),
                Compare("is", ref("watermark_config.key_b"), Const(None)), Compare("!=", mixing, Const(0.5))))
    ctx = Context(model(), Renderer.for_model(FLAGS), "serve")
    fix = example_fix(expr, expr, solutions(expr, ctx), ctx)
    assert fix["predicted"] == "true"
    words = shlex.split(fix["before"])
    given = json.loads(words[words.index("--watermark-config") + 1])
    assert 0 < given["mixing_probability"] < 1 and given["mixing_probability"] != 0.5


@pytest.mark.parametrize("field, other", [
    ("watermark_config.key_b", 1),  # a text field: a number, which its own `isinstance(key, str)` refuses
    (MIXING, "example"),  # a number field: a word
])
def test_a_field_also_tries_a_value_of_another_kind_as_json_can_hold_any(field, other):
    from analyzers.candidate_values import flag_candidates
    assert flag_candidates(field, [], model())[-1] == other
