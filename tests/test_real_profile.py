"""The profile's `real:` section: every problem its check reports, parsing, range selection."""
from __future__ import annotations

import copy
from typing import Any

import pytest

from extractor.errors import ProfileError
from extractor.profile import load_profile, parse_profile
from extractor.real_profile import Platform, Runtime, Step, parse_real, real_problem
from tests.present import present

GOOD: dict[str, Any] = {
    "package": "tgt",
    "install": [
        {"from": "2.0", "pip": [["--no-deps", "{target}"], ["dep==1"]]},
        {"from": "1.5", "until": "2.0", "pip": [["old-dep"], ["{target}"]]},
    ],
    "torch_ops": {"vision": ["nms(Tensor a) -> Tensor"]},
    "env": {"HF_HUB_OFFLINE": "1"},
    "args": ["--device", "cuda"],
    "validate": [
        {"from": "2.0", "module": "tgt.args",
         "steps": [{"call": "prepare"}, {"method": "resolve"}, {"method": "check"}]},
        {"until": "2.0", "module": "tgt.old_args", "steps": [{"call": "prepare"}, {"method": "check"}]},
    ],
    "models": {"default": "Tiny", "configs": {"Tiny": {"architectures": ["Tiny"]}}},
    "platform_default": False,
    "platforms": {"generic": {"predicates": False,
                              "runtime": {"is_in_ci": {"any": False, "unset": ["CI"]}, "check_gguf": {"model": False}}},
                  "h100": {"args": [], "facts": {"is_sm90": True}}},
}


PLATFORMS_SHAPE = "platforms: expected platform name -> {args, predicates, facts, match, runtime, absent}"


def with_(path: str, value: Any) -> dict[str, Any]:
    """GOOD with the value at dotted `path` (list indexes as numbers) replaced; `...` deletes it."""
    data = copy.deepcopy(GOOD)
    *parents, last = path.split(".")
    node: Any = data
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    key: Any = int(last) if isinstance(node, list) else last
    if value is ...:
        del node[key]
    else:
        node[key] = value
    return data


def test_good_section_has_no_problem():
    assert real_problem(GOOD) is None and real_problem(None) is None


@pytest.mark.parametrize("data, problem", [
    (["package"], "expected a mapping"),
    ({**GOOD, "extra": 1},
     "extra: unknown key (known: package, install, torch_ops, env, args, validate, models, platform_default, "
     "platforms)"),
    (with_("package", ...), "package: expected the target's import package name"),
    (with_("package", "a-b"), "package: expected the target's import package name"),
    (with_("install", []), "install: expected a non-empty list of release ranges"),
    (with_("install", {"from": "1"}), "install: expected a non-empty list of release ranges"),
    (with_("install.0", "pip"), "install[0]: expected a mapping"),
    (with_("install.1.from", 1.5), 'install[1].from: expected a version string such as "0.5.19"'),
    (with_("install.1.until", "two"), ("install[1].until: cannot order version 'two' "
                                       "(expected e.g. 0.5.23, 0.5.3rc0, 0.5.3.post1)")),
    (with_("install.0.pipe", []), "install[0].pipe: unknown key (known: from, until, pip)"),
    (with_("install.0.pip", ...), "install[0].pip: expected a non-empty list of pip argument lists"),
    (with_("install.0.pip", []), "install[0].pip: expected a non-empty list of pip argument lists"),
    (with_("install.0.pip.1", "dep==1"), "install[0].pip[1]: expected a list of non-empty strings"),
    (with_("install.0.pip.1", ["dep", ""]), "install[0].pip[1]: expected a list of non-empty strings"),
    (with_("validate", None), "validate: expected a non-empty list of release ranges"),
    (with_("validate.0.modul", "x"), "validate[0].modul: unknown key (known: from, until, module, steps)"),
    (with_("validate.0.module", "tgt..args"), "validate[0].module: expected a dotted module name"),
    (with_("validate.1.steps", []), "validate[1].steps: expected a non-empty list"),
    (with_("validate.0.steps.1", {"run": "x"}), "validate[0].steps[1]: expected {call: name} or {method: name}"),
    (with_("validate.0.steps.1", {"method": "a.b"}), "validate[0].steps[1]: expected {call: name} or {method: name}"),
    (with_("validate.0.steps.1", {"call": "a", "method": "b"}),
     "validate[0].steps[1]: expected {call: name} or {method: name}"),
    (with_("validate.0.steps.0", {"method": "prepare"}),
     "validate[0].steps[0]: the first step must be a call (it receives the argv)"),
    (with_("torch_ops", ["nms"]), "torch_ops: expected namespace -> op schemas"),
    (with_("torch_ops", {"a.b": ["x"]}), "torch_ops: expected namespace -> op schemas"),
    (with_("torch_ops", {1: ["x"]}), "torch_ops: expected namespace -> op schemas"),
    (with_("torch_ops", {"vision": "nms"}), "torch_ops: expected namespace -> op schemas"),
    (with_("env", {"A": 1}), "env: expected NAME -> string value"),
    (with_("env", ["A=1"]), "env: expected NAME -> string value"),
    (with_("args", "--device cuda"), "args: expected a list of strings"),
    (with_("models", ["Tiny"]), "models: expected a mapping"),
    (with_("models.flag", "model_path"), "models.flag: unknown key (known: default, configs, object)"),
    (with_("models.configs", {"Tiny": "config.json"}), "models.configs: expected architecture -> config.json mapping"),
    (with_("models.default", "Huge"), "models.default: 'Huge' is not one of configs"),
    (with_("models.default", ["Tiny"]), "models.default: ['Tiny'] is not one of configs"),
    (with_("platform_default", "no"), "platform_default: expected true or false"),
    (with_("platforms", ["generic"]), PLATFORMS_SHAPE),
    (with_("platforms", {"a-b": {}}), PLATFORMS_SHAPE),
    (with_("platforms.generic", False), "platforms.generic: expected a mapping"),
    (with_("platforms.generic.device", "cuda"),
     "platforms.generic.device: unknown key (known: args, predicates, facts, runtime, absent, match)"),
    (with_("platforms.generic.args", "--device cuda"), "platforms.generic.args: expected a list of strings"),
    (with_("platforms.generic.absent", {"device": "npu"}),
     "platforms.generic.absent: expected option dest -> list of values"),
    (with_("platforms.generic.predicates", "no"), "platforms.generic.predicates: expected true or false"),
    (with_("platforms.h100.facts", ["is_sm90"]), "platforms.h100.facts: expected predicate name -> value"),
    (with_("platforms.generic.runtime", ["is_in_ci"]),
     "platforms.generic.runtime: expected helper name -> {any, model, unset}"),
    (with_("platforms.generic.runtime", {"f(x)": {"any": 1}}),
     "platforms.generic.runtime: expected helper name -> {any, model, unset}"),
    (with_("platforms.generic.runtime.is_in_ci", False), "platforms.generic.runtime.is_in_ci: expected a mapping"),
    (with_("platforms.generic.runtime.is_in_ci", {"unset": ["CI"]}),
     "platforms.generic.runtime.is_in_ci: states no value (give any or model)"),
    (with_("platforms.generic.runtime.is_in_ci", {"always": False}),
     "platforms.generic.runtime.is_in_ci.always: unknown key (known: any, model, unset)"),
    (with_("platforms.generic.runtime.check_gguf.model", [{1}]),
     "platforms.generic.runtime.check_gguf.model: expected a plain value (string, number, true/false or null)"
     " or a list or a record of them"),
    (with_("platforms.generic.runtime.check_gguf.model", {"a": [object()]}),
     "platforms.generic.runtime.check_gguf.model: expected a plain value (string, number, true/false or null)"
     " or a list or a record of them"),
    (with_("models.object", {"names": "model_config", "factory": "m"}),
     "models.object.factory: expected module:qualified.name"),
    (with_("models.object", {"names": "(", "factory": "m:f"}),
     "models.object.names: missing ), unterminated subpattern at position 0"),
    (with_("models.object", {"names": "x", "factory": "m:f", "measured": {"0.5": [1]}}),
     "models.object.measured: expected release -> architecture -> property -> value"),
    (with_("platforms.generic.runtime.is_in_ci.unset", "CI"),
     "platforms.generic.runtime.is_in_ci.unset: expected a list of env var names and options (--x)"),
])
def test_each_problem_is_named(data, problem):
    assert real_problem(data) == problem


def test_a_problem_reaches_the_profile_error():
    profile = {"name": "t", "repo": "o/r", "targets": ["a.py"], "real": with_("install.0.pip", [])}
    with pytest.raises(ProfileError, match=r"^profile t: real: install\[0\]\.pip: expected a non-empty list"):
        parse_profile(profile, "t")


REAL = present(parse_real(GOOD))


@pytest.mark.parametrize("version, pip", [
    ("2.0", (("--no-deps", "{target}"), ("dep==1",))),
    ("2.0.0", (("--no-deps", "{target}"), ("dep==1",))),
    ("11.0", (("--no-deps", "{target}"), ("dep==1",))),
    ("1.5", (("old-dep",), ("{target}",))),
    ("1.10", (("old-dep",), ("{target}",))),  # numeric order: 1.10 > 1.5
    ("2.0rc1", (("old-dep",), ("{target}",))),  # a pre-release precedes its release
    ("1.4.9", None),
])
def test_install_range_first_match(version, pip):
    found = REAL.install_for(version)
    assert (found.pip if found else None) == pip


@pytest.mark.parametrize("version, module, steps", [
    ("2.1", "tgt.args", ("call:prepare", "method:resolve", "method:check")),
    ("1.9", "tgt.old_args", ("call:prepare", "method:check")),
    ("0.1", "tgt.old_args", ("call:prepare", "method:check")),
])
def test_validation_range_first_match(version, module, steps):
    found = present(REAL.validation_for(version))
    assert found.module == module and tuple(f"{s.kind}:{s.name}" for s in found.steps) == steps


def test_parsed_fields():
    assert REAL.package == "tgt" and REAL.env == (("HF_HUB_OFFLINE", "1"),) and REAL.args == ("--device", "cuda")
    assert REAL.torch_ops == (("vision", ("nms(Tensor a) -> Tensor",)),)
    assert REAL.validate[0].as_dict() == {"module": "tgt.args", "steps": [{"call": "prepare"}, {"method": "resolve"},
                                                                        {"method": "check"}]}
    assert REAL.validate[1].steps[0] == Step("call", "prepare")
    assert REAL.default_model == "Tiny" and REAL.platform_default is False
    assert REAL.model_config("Tiny") == {"architectures": ["Tiny"]} and REAL.model_config("Huge") is None
    assert parse_real(None) is None


def test_platforms_take_the_sections_args_unless_they_give_theirs():
    assert REAL.platform("generic") == Platform("generic", ("--device", "cuda"), False, runtime=(
        Runtime("check_gguf", (("model", False),)), Runtime("is_in_ci", (("any", False),), ("CI",))))
    assert REAL.platform("h100") == Platform("h100", (), None, (("is_sm90", True),))
    assert REAL.platform("tpu") is None


def test_a_platform_names_the_device_runtimes_it_lacks():
    found = present(parse_real(with_("platforms.generic.absent", {"device": ["npu", "mps"]}))).platform("generic")
    assert found is not None and found.absent == (("device", ("npu", "mps")),)


def test_a_stand_in_config_is_the_architectures_or_the_default_under_its_name():
    assert REAL.stand_in_config("Tiny") == {"architectures": ["Tiny"]}
    assert REAL.stand_in_config("Huge") == {"architectures": ["Huge"]}


@pytest.mark.parametrize("version, steps", [
    ("0.5.23", ("call:prepare_server_args", "method:resolve_once", "method:check_server_args")),
    ("0.5.19", ("call:prepare_server_args", "method:resolve_once", "method:check_server_args")),
    ("0.5.18", ("call:prepare_server_args", "method:check_server_args")),
    ("0.4.10", ("call:prepare_server_args", "method:check_server_args")),
])
def test_shipped_profile_validation_per_release(version, steps):
    found = present(present(load_profile("sglang").real).validation_for(version))
    assert found.module == "sglang.srt.server_args"
    assert tuple(f"{s.kind}:{s.name}" for s in found.steps) == steps


@pytest.mark.parametrize("version, covered", [("0.5.23", True), ("0.5.19", True), ("0.5.18", True),
                                              ("0.5.17", False), ("0.4.10", False)])
def test_shipped_profile_installs_the_release(version, covered):
    found = present(load_profile("sglang").real).install_for(version)
    assert (found is not None and any("{target}" in args for args in found.pip)) == covered
