"""`check --platform auto`: the machine found from its tools' output and device files (injected
here, never shelled out), and mapped onto the sglang profile's presets with the command's --device."""
from __future__ import annotations

import pytest

from errcat.check import Request, on_this_machine
from errcat.machine import NVIDIA_QUERY, Machine, described, detect, device_of, preset
from extractor.profile import load_profile

H100 = Machine("nvidia", "NVIDIA H100 80GB HBM3", (9, 0))


def _runner(outputs):
    return lambda argv: outputs.get(tuple(argv))


@pytest.mark.parametrize("outputs, files, found", [
    ({NVIDIA_QUERY: "9.0, NVIDIA H100 80GB HBM3\n9.0, NVIDIA H100 80GB HBM3\n"}, (), H100),
    ({NVIDIA_QUERY: "10.0, NVIDIA B200\n"}, (), Machine("nvidia", "NVIDIA B200", (10, 0))),
    ({NVIDIA_QUERY: "8.0, NVIDIA A100-SXM4-80GB\n"}, (), Machine("nvidia", "NVIDIA A100-SXM4-80GB", (8, 0))),
    ({NVIDIA_QUERY: "No devices were found\n"}, (), Machine(None)),  # the tool, but no GPU
    ({}, ("/dev/kfd",), Machine("rocm")),
    ({("rocminfo",): "Agent 2 gfx942\n"}, (), Machine("rocm")),
    ({("npu-smi", "info"): "910B\n"}, (), Machine("npu")),
    ({("xpu-smi", "discovery"): "Intel Data Center GPU Max 1550\n"}, ("/dev/dri",), Machine("xpu")),
    ({}, ("/dev/dri",), Machine(None)),  # an integrated GPU's /dev/dri alone is no XPU
    ({}, (), Machine(None)),
])
def test_detect(outputs, files, found):
    assert detect(_runner(outputs), lambda path: path in files) == found


@pytest.mark.parametrize("machine, device, name", [
    (H100, None, "hopper"),
    (H100, "cuda", "hopper"),
    (Machine("nvidia", "B200", (10, 0)), None, "blackwell"),
    (Machine("nvidia", "A100", (8, 0)), None, "cuda"),
    (Machine("nvidia", "RTX 5090", (12, 0)), None, "cuda"),
    (H100, "cpu", "cpu"),
    (H100, "npu", "generic"),  # no NPU runtime here: sglang fails loading it (the preset's `absent`)
    (Machine("rocm"), None, "rocm"),
    (Machine("rocm"), "cuda", "rocm"),  # ROCm's torch takes --device cuda
    (Machine("npu"), None, "npu"),
    (Machine("xpu"), "xpu", "xpu"),
    (Machine(None), None, "generic"),
    (Machine(None), "cuda", "generic"),
    (Machine(None), "cpu", "cpu"),
])
def test_preset(machine, device, name):
    assert preset(machine, device) == name


@pytest.mark.parametrize("argv, device", [
    (["--model-path", "m", "--device", "cpu"], "cpu"),
    (["--device=npu", "--tp-size", "2"], "npu"),
    (["--device", "cpu", "--device", "cuda"], "cuda"),
    (["--model-path", "m"], None),
])
def test_device_of(argv, device):
    assert device_of(argv) == device


@pytest.mark.parametrize("machine, device, line", [
    (H100, None, "platform: hopper (auto: NVIDIA H100 80GB HBM3, compute capability 9.0)"),
    (Machine("rocm"), "cuda", "platform: rocm (auto: ROCm GPU (/dev/kfd or rocminfo); --device cuda given)"),
    (Machine(None), None, "platform: generic (auto: no GPU found by nvidia-smi, /dev/kfd, rocminfo, npu-smi or "
                          "xpu-smi; --device cuda assumed"),
])
def test_described_in_one_line(machine, device, line):
    said = described(machine, device, preset(machine, device))
    assert said.startswith(line) and "\n" not in said


@pytest.mark.parametrize("platform, machine, words, name", [
    ("auto", H100, (), "hopper"),
    ("auto", Machine(None), ("--device", "cpu"), "cpu"),
    ("rocm", H100, (), "rocm"),  # a named platform: no detection
])
def test_auto_resolves_to_a_preset_of_the_profile(platform, machine, words, name):
    request = Request(("python", "-m", "sglang.launch_server", "--model-path", "m", *words), platform)
    assert on_this_machine(request, load_profile("sglang"), machine).platform == name
