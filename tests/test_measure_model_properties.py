"""scripts/measure_model_properties.py: what it asks the target to measure, read from a catalog."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

from analyzers.examples import Examples
from extractor.ir import Apply, Compare, Const, Expr, In, Ref, RefKind, Truthy
from extractor.profile import load_profile

PROFILE = load_profile("sglang")


def _script():
    path = Path(__file__).resolve().parents[1] / "scripts" / "measure_model_properties.py"
    spec = importlib.util.spec_from_file_location("measure_model_properties", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["measure_model_properties"] = module
    spec.loader.exec_module(module)
    return module


MEASURE = _script()
HF = Ref(RefKind.MODEL, "model_config.hf_config", "hf_config")
ARCHS = Ref(RefKind.MODEL, "hf_config.architectures", "hf_config.architectures")


def catalog(*exprs: Expr, flags: list[dict] | None = None) -> dict:
    return {"entries": [{"trigger": {"expr": e.as_dict()}} for e in exprs], "adjustments": [],
            "flags": {"flags": flags or []}}


@pytest.mark.parametrize(("expr", "helpers"), [
    (Truthy(Apply("is_dsa", (HF,), "is_dsa(hf_config)")), {"is_dsa": "hf_config"}),  # the whole config
    # the architecture's name: the list's first item
    (Truthy(Apply("spec_by_arch", (Apply("item", (ARCHS, Const(0)), "a[0]"),), "s")),
     {"spec_by_arch": "hf_config.architectures[0]"}),
    (Truthy(Apply("first_of", (ARCHS,), "first_of(archs)")), {}),  # the list itself: not measured
    (Truthy(Apply("two", (HF, HF), "two(a, b)")), {}),  # more than one argument
])
def test_helpers_measured_are_called_on_the_config_or_the_architecture(expr: Expr, helpers: dict) -> None:
    found = MEASURE.read_helpers(catalog(expr), Examples(PROFILE.examples), PROFILE.model_architecture)
    assert found == helpers


def test_the_values_tried_per_input_are_choices_switches_and_compared_constants() -> None:
    algo = Ref(RefKind.FLAG, "speculative_algorithm", "cfg.speculative_algorithm")
    flags: list[dict[str, Any]] = [{"dest": "quantization", "option": "--quantization", "choices": ["fp8", "awq"]},
             {"dest": "is_embedding", "option": "--is-embedding", "action": "store_true"},
             {"dest": "speculative_algorithm", "option": "--speculative-algorithm"},
             {"dest": "revision", "option": "--revision"}]
    data = catalog(Compare("==", algo, Const("EAGLE")), In(algo, Const(("NGRAM", "DFLASH"))), flags=flags)
    tried = MEASURE.variants(data, ["quantization", "is_embedding", "speculative_algorithm", "revision"])
    assert tried == {"--quantization": ["fp8", "awq"], "--is-embedding": [None],
                     "--speculative-algorithm": ["DFLASH", "EAGLE", "NGRAM"]}  # --revision: nothing to try
