"""`errcat check --platform auto`: the machine check runs on, found without importing torch or
the target, by its tools and device files, and mapped onto the profile's platform presets
(`real.platforms`): NVIDIA by ``nvidia-smi``'s compute capability, ROCm by ``/dev/kfd`` or
``rocminfo``, Ascend NPU by ``npu-smi``, Intel XPU by ``/dev/dri`` with ``xpu-smi``; else no
GPU. A ``--device`` in the command is honoured as the target does (it picks the runtime)."""
from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from analyzers.argv import option_groups
from extractor.real_profile import HERE

# argv -> its stdout, or None where the tool is missing or fails
Runner = Callable[[Sequence[str]], "str | None"]
NVIDIA_QUERY = ("nvidia-smi", "--query-gpu=compute_cap,name", "--format=csv,noheader")
NO_GPU = HERE  # the preset of a machine with no GPU: --device cuda given, every platform check false


def run_tool(argv: Sequence[str]) -> str | None:
    """`argv`'s stdout where the tool is on PATH and succeeds within 10 s, else None."""
    if shutil.which(argv[0]) is None:
        return None
    try:
        done = subprocess.run(list(argv), capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


@dataclass(frozen=True, slots=True)
class Machine:
    """What was found: the accelerator family (``nvidia``, ``rocm``, ``npu``, ``xpu``, or None:
    no GPU), its name and, for NVIDIA, compute capability (major, minor)."""

    family: str | None
    name: str = ""
    capability: tuple[int, int] | None = None

    def facts(self) -> str:
        if self.family is None:
            return "no GPU found by nvidia-smi, /dev/kfd, rocminfo, npu-smi or xpu-smi"
        cap = f", compute capability {self.capability[0]}.{self.capability[1]}" if self.capability else ""
        return f"{self.name or _FAMILIES.get(self.family, self.family)}{cap}"


_FAMILIES = {"nvidia": "NVIDIA GPU (nvidia-smi)", "rocm": "ROCm GPU (/dev/kfd or rocminfo)",
             "npu": "Ascend NPU (npu-smi)", "xpu": "Intel XPU (xpu-smi)"}


def _nvidia(out: str) -> Machine | None:
    for line in out.splitlines():
        cap, _, name = line.partition(",")
        major, dot, minor = cap.strip().partition(".")
        if dot and major.isdigit() and minor.isdigit():
            return Machine("nvidia", name.strip(), (int(major), int(minor)))
    return None


def path_exists(path: str) -> bool:
    return os.path.exists(path)


def detect(run: Runner | None = None, exists: Callable[[str], bool] | None = None) -> Machine:
    """The machine here; `run` and `exists` are injected in tests (nothing is shelled out there;
    default: `run_tool`, `path_exists`, looked up when called)."""
    run = run_tool if run is None else run
    exists = path_exists if exists is None else exists
    out = run(NVIDIA_QUERY)
    found = _nvidia(out) if out else None
    if found is not None:
        return found
    if exists("/dev/kfd") or run(("rocminfo",)) is not None:
        return Machine("rocm")
    if run(("npu-smi", "info")) is not None:
        return Machine("npu")
    if exists("/dev/dri") and run(("xpu-smi", "discovery")) is not None:
        return Machine("xpu")
    return Machine(None)


def device_of(argv: Sequence[str]) -> str | None:
    """The command's ``--device`` (its last one, as argparse keeps), or None."""
    given = [values[0] for option, values in option_groups(argv) if option == "--device" and values]
    return given[-1] if given else None


def preset(machine: Machine, device: str | None) -> str:
    """The profile preset a launch with `device` (None: not given) is judged on here. A device
    the machine has no runtime for is judged on the no-GPU preset (whose `absent` says so)."""
    if device == "cpu":
        return "cpu"
    family = machine.family
    if family == "nvidia" and device in (None, "cuda"):
        major = machine.capability[0] if machine.capability else 0
        return {9: "hopper", 10: "blackwell"}.get(major, "cuda")
    if family == "rocm" and device in (None, "cuda", "hip"):
        return "rocm"
    if family in ("npu", "xpu") and device in (None, family):
        return family
    return NO_GPU


def described(machine: Machine, device: str | None, name: str) -> str:
    """One line: the platform chosen and the facts it was chosen by."""
    why = machine.facts()
    if device is not None:
        why += f"; --device {device} given"
    elif name == NO_GPU:
        why += "; --device cuda assumed (with no GPU, sglang needs a --device)"
    return f"platform: {name} (auto: {why})"
