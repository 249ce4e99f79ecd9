"""A launch on a platform: argv parsed by declaration, the platform's args and predicates, the
model stand-in's facts; the profile's `generic` platform."""
from __future__ import annotations

import textwrap

import pytest

from analyzers.argv import launch_of_argv
from analyzers.eval_model import Model
from analyzers.evaluate import evaluate
from analyzers.examples import Examples
from analyzers.flag_build import build_flag_model
from analyzers.kleene import Truth
from analyzers.launch import Launch
from analyzers.platform_facts import (
    Stated,
    architecture_of,
    model_facts,
    on_platform,
    path_facts,
    platform_facts,
    runtime_facts,
)
from extractor.ir import UNSET_OR, Apply, Compare, Const, Expr, In, Ref, RefKind, Truthy, Unknown
from extractor.profile import ExampleRules, load_profile
from extractor.real_profile import ModelProperties, Platform, RealProfile, Runtime

FLAGS = build_flag_model({"p/args.py": textwrap.dedent('''
    def add_cli_args(parser):
        parser.add_argument("--model-path", type=str, required=True)
        parser.add_argument("--device", type=str, default=None)
        parser.add_argument("--tp-size", type=int, default=1)
        parser.add_argument("--mem", type=float, default=0.5)
        parser.add_argument("--enable-lora", action="store_true")
        parser.add_argument("--modules", type=str, nargs="*")
        parser.add_argument("--mm-config", type=json.loads)
        parser.add_argument("--overlap", action=argparse.BooleanOptionalAction, default=True)
''')})
GENERIC = Platform("generic", ("--device", "cuda"), False)
EXAMPLES = Examples(ExampleRules(model="model_path", architecture=(r"(.*\.)?architectures(\[0\])?",)))


@pytest.mark.parametrize(("argv", "flags"), [
    (["--tp-size", "2", "--mem=0.8"], {"tp_size": 2, "mem": 0.8}),
    (["--enable-lora", "--no-overlap"], {"enable_lora": True, "overlap": False}),
    (["--modules", "a", "b", "--modules"], {"modules": ()}),  # the last one wins
    (["--mm-config", '{"a": 1}'], {"mm_config": {"a": 1}}),
    (["--tp-size", "two", "--unknown-flag", "v"], {"tp_size": "two", "unknown_flag": "v"}),
    (["--model-path", "<model:Arch>"], {"model_path": "<model:Arch>"}),
])
def test_launch_of_argv(argv, flags):
    assert launch_of_argv(argv, FLAGS) == Launch(flags)


def test_the_platform_adds_its_args_unless_given_and_states_its_predicates():
    launch = on_platform(Launch({"tp_size": 2}), GENERIC, FLAGS, ["is_hip", "get_platform().is_sm90"])
    assert launch.flags == {"device": "cuda", "tp_size": 2}
    assert launch.facts == {"platform:is_hip": False, "platform:get_platform().is_sm90": False}
    assert on_platform(Launch({"device": "cpu"}), GENERIC, FLAGS, []).flags == {"device": "cpu"}


def test_named_facts_override_the_predicates_and_unknown_ones_stay_unknown():
    h100 = Platform("h100", (), None, (("is_sm90", True),))
    assert platform_facts(h100, ["is_sm90", "is_hip"]) == {"platform:is_sm90": True}


def test_a_fact_stated_as_none_is_a_value_not_unknown():
    here = Platform("generic", (), False, (("get_device_memory_capacity(cfg.device)", None),))
    assert platform_facts(here, ["get_device_memory_capacity(cfg.device)", "is_hip"]) == {
        "platform:get_device_memory_capacity(cfg.device)": None, "platform:is_hip": False}


@pytest.mark.parametrize(("path", "arch"), [("<model>", "Llama"), ("<model:Qwen>", "Qwen"), ("/real/dir", None)])
def test_architecture_of(path, arch):
    assert architecture_of(path, "Llama") == arch


def test_model_facts_come_from_the_architecture_and_the_config():
    names = ["hf_config.architectures", "hf_config.architectures[0]", "model_config.hf_config.num_hidden_layers",
             "hf_config.missing", "model_config.context_len"]
    assert model_facts("Qwen", {"num_hidden_layers": 2}, names, EXAMPLES) == {
        "model:hf_config.architectures": ("Qwen",), "model:hf_config.architectures[0]": "Qwen",
        "model:model_config.hf_config.num_hidden_layers": 2}


def test_the_whole_config_is_its_stand_in_so_helpers_stated_for_the_model_read_it():
    names = ["model_config_of(view).hf_config", "hf_config", "hf_config.num_hidden_layers"]
    assert model_facts("Qwen", {"num_hidden_layers": 2}, names, EXAMPLES, "<model:Qwen>") == {
        "model:model_config_of(view).hf_config": "<model:Qwen>", "model:hf_config": "<model:Qwen>",
        "model:hf_config.num_hidden_layers": 2}


def test_a_stated_launch_decides_platform_and_architecture_conditions():
    arch = Ref(RefKind.MODEL, "hf_config.architectures", "hf_config.architectures")
    hip = Ref(RefKind.PLATFORM, "is_hip", "is_hip()")
    exprs: list[Expr] = [In(Const("Qwen"), arch), Truthy(hip), Compare("==", Ref(RefKind.FLAG, "device", "cfg.device"),
                                                           Const("cuda"))]
    real = RealProfile("pkg", default_model="Llama", model_configs=(("Llama", '{"num_hidden_layers": 2}'),))
    stated = Stated.of(exprs, FLAGS, GENERIC, real, EXAMPLES)
    model = Model(FLAGS)
    qwen, llama = stated.launch(["--model-path", "<model:Qwen>"]), stated.launch(["--model-path", "<model>"])
    assert [evaluate(e, qwen, model) for e in exprs] == [Truth.TRUE, Truth.FALSE, Truth.TRUE]
    assert evaluate(exprs[0], llama, model) is Truth.FALSE


GGUF = Runtime("check_gguf_file", (("model", False),))
CI = Runtime("is_in_ci", (("any", False),), ("SGLANG_IS_IN_CI",))
STEPS = Runtime("candidate_steps", (("any", (0, 1, 3)),), ("--steps-config",))


@pytest.mark.parametrize(("helpers", "launch", "facts"), [
    ([GGUF], Launch({"model_path": "<model>", "draft": "<model:Qwen>"}),
     {"runtime:check_gguf_file": ((("<model:Qwen>",), False), (("<model>",), False))}),
    ([GGUF], Launch({"model_path": "/real/dir"}), {}),  # not a generated model directory: unknown
    ([CI], Launch(), {"runtime:is_in_ci": ((None, False),), "runtime:is_in_ci()": False}),
    ([CI], Launch(env={"SGLANG_IS_IN_CI": "1"}), {}),  # the helper reads what the launch sets
    ([STEPS], Launch(), {"runtime:candidate_steps": ((None, (0, 1, 3)),), "runtime:candidate_steps()": (0, 1, 3)}),
    ([STEPS], Launch({"steps_config": "a.json"}), {}),  # it is passed an option the launch gives
    ([Runtime("f", (("any", None), ("model", 1)))], Launch({"m": "<model>"}),
     {"runtime:f": ((("<model>",), 1), (None, None)), "runtime:f()": None}),  # None: it returns None
])
def test_runtime_facts(helpers, launch, facts):
    assert runtime_facts(helpers, launch) == facts


MODEL_PATH = Ref(RefKind.FLAG, "model_path", "cfg.model_path")
INSTANCE = Compare("==", Apply("parse_connector_type", (MODEL_PATH,), "parse_connector_type(cfg.model_path)"),
                   Const("ConnectorType.INSTANCE"))
ON_HERE = Platform("generic", ("--device", "cuda"), False, runtime=(
    GGUF, CI, Runtime("parse_connector_type", (("model", ""),))))


@pytest.mark.parametrize(("expr", "argv", "env", "truth"), [
    (Truthy(Apply("check_gguf_file", (MODEL_PATH,), "check_gguf_file(cfg.model_path)")), ["--model-path", "<model>"],
     (), Truth.FALSE),
    (Truthy(Apply("check_gguf_file", (MODEL_PATH,), "check_gguf_file(cfg.model_path)")),
     ["--model-path", "/x.gguf"], (), Truth.UNKNOWN),
    (INSTANCE, ["--model-path", "<model:Qwen>"], (), Truth.FALSE),
    (Truthy(Unknown("is_in_ci()")), ["--model-path", "<model>"], (), Truth.FALSE),
    (Truthy(Unknown("is_in_ci()")), ["--model-path", "<model>"], (("SGLANG_IS_IN_CI", "1"),), Truth.UNKNOWN),
    (Truthy(Unknown("resolve(cfg.model_path, revision=cfg.revision)")), ["--model-path", "<model>"], (),
     Truth.UNKNOWN),
    # a helper of the whole config (a derived setting) reads the generated model directory
    (Truthy(Ref(RefKind.FLAG, "check_gguf_file()", "check_gguf_file(server_args)")), ["--model-path", "<model>"],
     (), Truth.FALSE),
    (Truthy(Ref(RefKind.FLAG, "check_gguf_file()", "check_gguf_file(server_args)")), ["--model-path", "/x.gguf"],
     (), Truth.UNKNOWN),
])
def test_a_stated_launch_decides_runtime_calls(expr, argv, env, truth):
    real = RealProfile("pkg", default_model="Llama", model_configs=(("Llama", "{}"),))
    stated = Stated.of([expr], FLAGS, ON_HERE, real, EXAMPLES)
    assert evaluate(expr, stated.launch(argv, env), Model(FLAGS)) is truth


def test_the_profile_defines_generic_as_this_machine():
    real = load_profile("sglang").real
    assert real is not None
    generic = real.platform("generic")
    assert generic is not None and (generic.args, generic.predicates) == (real.args, real.platform_default)
    assert real.args == ("--device", "cuda") and real.platform_default is False
    said = {r.helper: dict(r.returns) for r in generic.runtime}  # checked against the real functions
    assert said["check_gguf_file"] == {"model": False} and said["parse_connector_type"] == {"model": ""}


MEASURED = RealProfile("pkg", default_model="Llama", model_configs=(("Llama", "{}"),), model_object=ModelProperties(
    r"(?:.*\.)?model_config(?:_of\([^)]*\))?", "pkg.config:Config.build", ("quantization",),
    (("1.0", '{"Llama": {"is_multimodal": false, "spec": {"safe": true}, "is_dsa(hf_config)": true,'
             ' "(absent)": ["hf_config.sink"], "(varies)": {"quantization": {"awq": ["is_multimodal"]}}},'
             ' "Qwen": {"error": "ValueError: x"}, "(tried)": {"quantization": ["fp8", "awq"]}}'),)))
MULTIMODAL = Truthy(Ref(RefKind.MODEL, "model_config.is_multimodal", "model_config.is_multimodal"))
SPEC_SAFE = Truthy(Ref(RefKind.FLAG, "model_config_of().spec.safe", "model_config_of(server_args).spec.safe"))


@pytest.mark.parametrize(("expr", "argv", "version", "truth"), [
    (MULTIMODAL, ["--model-path", "<model>"], "1.0", Truth.FALSE),  # measured on 1.0 for Llama's stand-in
    (SPEC_SAFE, ["--model-path", "<model>"], "1.0", Truth.TRUE),  # the object as a derived setting's record
    (MULTIMODAL, ["--model-path", "<model>"], "2.0", Truth.UNKNOWN),  # not measured on that release
    (MULTIMODAL, ["--model-path", "<model:Qwen>"], "1.0", Truth.UNKNOWN),  # the target could not build it
    (MULTIMODAL, ["--model-path", "/real/model"], "1.0", Truth.UNKNOWN),  # not a stand-in
    # an input given: what the measurement found its value leaves unchanged, nothing for a value not tried
    (MULTIMODAL, ["--model-path", "<model>", "--quantization", "fp8"], "1.0", Truth.FALSE),
    (MULTIMODAL, ["--model-path", "<model>", "--quantization", "awq"], "1.0", Truth.UNKNOWN),
    (MULTIMODAL, ["--model-path", "<model>", "--quantization", "gptq"], "1.0", Truth.UNKNOWN),
    (SPEC_SAFE, ["--model-path", "<model>", "--quantization", "awq"], "1.0", Truth.TRUE),  # a part it leaves
    (Truthy(Ref(RefKind.FLAG, "model_config_of().is_multimodal", "m")), ["--model-path", "<model>", "--quantization",
                                                                        "awq"], "1.0", Truth.UNKNOWN),  # one it changes
    # getattr(hf_config, "sink", False) where the model's config lacks it: the default
    (Truthy(Apply(UNSET_OR, (Ref(RefKind.MODEL, "model_config.hf_config.sink", "s"), Const(False)), "getattr")),
     ["--model-path", "<model>"], "1.0", Truth.FALSE),
    # a helper of the model's whole config: what it returned for the stand-in
    (Truthy(Apply("is_dsa", (Ref(RefKind.MODEL, "model_config.hf_config", "hf_config"),), "is_dsa(hf_config)")),
     ["--model-path", "<model>"], "1.0", Truth.TRUE),
])
def test_measured_properties_of_the_model_object(expr, argv, version, truth):
    stated = Stated.of([expr], FLAGS_Q, GENERIC, MEASURED, EXAMPLES, version)
    assert evaluate(expr, stated.launch(argv), Model(FLAGS_Q)) is truth


FLAGS_Q = build_flag_model({"p/args.py": textwrap.dedent('''
    def add_cli_args(parser):
        parser.add_argument("--model-path", type=str, required=True)
        parser.add_argument("--quantization", type=str, default=None)
''')})


@pytest.mark.parametrize(("test", "flags", "holds"), [
    ("os.path.isfile(cfg.ssl_keyfile)", {"ssl_keyfile": "<file>"}, True),  # a stand-in file exists
    ("os.path.isdir(cfg.ssl_keyfile)", {"ssl_keyfile": "<file>"}, False),
    ("os.path.isfile(cfg.ssl_keyfile)", {"ssl_keyfile": "<dir>"}, False),
    ("os.path.exists(cfg.ssl_keyfile)", {"ssl_keyfile": "<dir>"}, True),
    ("os.path.exists(cfg.ssl_keyfile)", {"ssl_keyfile": "<missing>"}, False),  # nothing is there
    ("os.path.isfile(cfg.ssl_keyfile)", {"ssl_keyfile": "<missing>"}, False),
    ("os.path.isdir(cfg.model_path)", {"model_path": "<model:Arch>"}, True),  # a generated model directory
    ("os.path.isfile(cfg.ssl_keyfile)", {"ssl_keyfile": "/etc/key.pem"}, None),  # the user's path: not looked at
    ("os.path.isfile(cfg.ssl_keyfile)", {}, None),
])
def test_a_path_test_of_a_stand_in_is_what_the_stand_in_is(test, flags, holds):
    found = path_facts([test], Launch(flags))
    assert found.get(f"runtime:{test}") is holds


@pytest.mark.parametrize(("name", "stated"), [
    ("is_hip", (True, True)),  # a fact
    ("get_platform().is_sm90", (True, False)),  # the first pattern matching the whole name
    ("is_sm90_supported", (True, False)),
    ("get_device_capability", (False, None)),  # neither: undecided (no `predicates`)
])
def test_a_platform_states_its_facts_then_its_patterns(name, stated):
    rocm = Platform("rocm", (), None, (("is_hip", True),), match=(
        (r"(.*\.)?is_sm\d+(_supported)?", False), (r"(.*\.)?is_sm90", True)))
    assert rocm.fact(name) == stated


def test_the_profile_names_the_machines_a_user_checks_on():
    real = load_profile("sglang").real
    assert real is not None
    hopper, rocm = real.platform("hopper"), real.platform("rocm")
    assert hopper is not None and rocm is not None
    assert hopper.fact("get_platform().is_sm90") == (True, True) and hopper.fact("is_sm100_supported") == (True, False)
    assert rocm.fact("is_hip") == (True, True) and rocm.fact("get_platform().is_cuda") == (True, False)
