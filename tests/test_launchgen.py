"""Generated launches: deterministic per seed, every source used, settings of one trigger
together, boundary values of its comparisons, architectures the condition names."""
from __future__ import annotations

import textwrap

import pytest

from analyzers.eval_model import Model
from analyzers.examples import Examples
from analyzers.first_error import Check
from analyzers.flag_build import build_flag_model
from analyzers.launchgen import bare, example_lines, generate, named_architectures, runnable
from extractor.ir import And, Compare, Const, In, Ref, RefKind, Truthy
from extractor.profile import ExampleRules

FLAGS = build_flag_model({"p/args.py": textwrap.dedent('''
    def add_cli_args(parser):
        parser.add_argument("--model-path", type=str, required=True)
        parser.add_argument("--tp-size", type=int, default=1)
        parser.add_argument("--pp-size", type=int, default=1)
        parser.add_argument("--enable-lora", action="store_true")
        parser.add_argument("--backend", type=str, choices=["a", "b", "c"], default="a")
''')})
ARCH = Ref(RefKind.MODEL, "hf_config.architectures[0]", "hf_config.architectures[0]")
EXAMPLES = Examples(ExampleRules(model="model_path", architecture=(r"hf_config\.architectures(\[0\])?",)))
MODEL = Model(FLAGS, (), EXAMPLES)
TP, PP = Ref(RefKind.FLAG, "tp_size", "cfg.tp_size"), Ref(RefKind.FLAG, "pp_size", "cfg.pp_size")
LORA, BACKEND = Ref(RefKind.FLAG, "enable_lora", "cfg.enable_lora"), Ref(RefKind.FLAG, "backend", "cfg.backend")
SGL = Ref(RefKind.ENV, "SGL_MODE", "envs.SGL_MODE.get()")
CHECKS = (
    Check("pair", "a.py", 1, "f", And((Compare(">", TP, Const(4)), Compare("==", BACKEND, Const("b"))))),
    Check("triple", "a.py", 2, "f", And((Truthy(LORA), Compare("<", PP, Const(2)), Compare("==", SGL, Const("x"))))),
    Check("arch", "a.py", 3, "f", And((In(ARCH, Const(("DeepseekV3ForCausalLM",))), Truthy(LORA)))),
)
LINES = example_lines([{"id": "e1", "example_fix": {"before": "serve --model-path <model> --tp-size 8",
                                                      "after": "serve --model-path <model:X> --tp-size 1"}},
                       {"id": "e2", "example_fix": {"before": "serve --model-path <name> --x 1"}}], "serve")


def run(seed: int = 1, count: int = 60) -> list:
    return generate(CHECKS, LINES, MODEL, ["DeepseekV3ForCausalLM"], count=count, seed=seed)


def test_the_same_seed_gives_the_same_launches_and_another_seed_others():
    assert run() == run() and run() != run(seed=2)


def test_every_source_is_used_and_launches_are_distinct():
    found = run()
    assert {g.origin.split()[0] for g in found} == {"bare", "example", "combo"}
    assert len({g.key for g in found}) == len(found) == 60


def test_bare_launches_are_the_model_alone_per_architecture():
    assert [g.argv for g in bare(MODEL, ["A"])] == [("--model-path", "<model>"), ("--model-path", "<model:A>")]


@pytest.mark.parametrize(("text", "ok"), [("x <model> <model:Arch> <file> <dir>", True), ("x <name>", False)])
def test_runnable_stand_ins(text, ok):
    assert runnable(text) is ok


def test_example_lines_keep_runnable_commands_only():
    assert [(o, line.argv) for o, line in LINES] == [
        ("example e1 before", ("--model-path", "<model>", "--tp-size", "8")),
        ("example e1 after", ("--model-path", "<model:X>", "--tp-size", "1"))]


def _words(seed: int = 1, count: int = 400) -> list[tuple[str, ...]]:
    return [g.argv for g in generate(CHECKS, (), MODEL, [], count=count, seed=seed) if g.origin.startswith("combo")]


def test_settings_of_one_trigger_appear_together():
    found = _words()
    assert any("--tp-size" in w and "--backend" in w for w in found)
    assert any("--enable-lora" in w and "--pp-size" in w for w in found)


def test_boundary_values_of_the_comparisons_are_tried():
    values = {w[i + 1] for w in _words() for i, word in enumerate(w) if word == "--tp-size"}
    assert {"4", "5", "3"} <= values


def test_env_vars_of_a_trigger_are_set():
    found = [g.env for g in generate(CHECKS, (), MODEL, [], count=200, seed=3)]
    assert (("SGL_MODE", "x"),) in found


def test_an_architecture_the_condition_names_is_the_model():
    assert any("<model:DeepseekV3ForCausalLM>" in w for w in _words())


def test_the_architectures_a_condition_names_are_class_names_not_its_other_strings():
    both = Check("both", "a.py", 4, "f", And((In(ARCH, Const(("KimiK3ForConditionalGeneration",))),
                                             Compare("==", BACKEND, Const("cutedsl_mla")))))
    assert named_architectures(both, MODEL) == ["KimiK3ForConditionalGeneration"]
