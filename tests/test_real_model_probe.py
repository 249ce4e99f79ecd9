"""errcat/real/model_probe.py in the real sglang 0.5.23 (the target env test_real_confirm
builds, cached per machine): the target builds its ModelConfig for a generated stand-in,
and a tried input value's effect is measured."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from errcat.real.materials import Materials
from errcat.real.runner import driver_setup
from tests import conftest

pytestmark = pytest.mark.network

PROBE = Path(__file__).resolve().parents[1] / "errcat" / "real" / "model_probe.py"
VERSION = "0.5.23"


def test_the_target_builds_the_object_and_measures_what_an_input_changes(tmp_path: Path, sglang_profile) -> None:
    from errcat.real.targetenv import ensure_target_env

    real = sglang_profile.real
    target = ensure_target_env(sglang_profile, VERSION, cache_dir=conftest.test_cache_dir())
    materials = Materials(real, tmp_path / "models")
    materials.root.mkdir()
    request = {"setup": driver_setup(real, VERSION), "factory": real.model_object.factory,
               "models": {"LlamaForCausalLM": str(materials.path_for("<model>"))},
               "names": ["is_multimodal", "hf_config.learnable_sink", "embedding_model_spec"],
               # copy.deepcopy is another library's function, which sglang's modules import
               "helpers": {"is_deepseek_dsa": "hf_config", "deepcopy": "hf_config"},
               "variants": {"--is-embedding": [None], "--dtype": ["float32"], "--quantization": ["no-such"]}}
    done = subprocess.run([str(target.python), str(PROBE)], input=json.dumps(request), capture_output=True,
                          text=True, timeout=600, check=True)
    llama = json.loads(done.stdout.strip().splitlines()[-1])["LlamaForCausalLM"]
    assert llama["is_multimodal"] is False and llama["is_deepseek_dsa(hf_config)"] is False
    assert "deepcopy(hf_config)" not in llama  # only the target's own functions are its helpers
    assert llama["(absent)"] == ["hf_config.learnable_sink"]  # getattr(hf_config, "learnable_sink", d) reads d
    varies = llama["(varies)"]
    assert varies["--is-embedding"][""] == ["embedding_model_spec"]  # an embedding model is specified
    assert "--dtype" not in varies  # float32 changes none of these
    assert varies["--quantization"]["no-such"] == ["*"]  # argparse refuses it: nothing holds
