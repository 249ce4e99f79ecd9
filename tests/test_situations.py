"""Common situations (`analyzers.situations`): a platform is one where the trigger requires it."""
from __future__ import annotations

import pytest

from analyzers.situations import situations
from analyzers.trigger import Renderer
from extractor.ir import And, Compare, Const, Not, Or, Ref, RefKind, Truthy

HIP = Ref(RefKind.PLATFORM, "is_hip", "is_hip()")
LORA = Truthy(Ref(RefKind.FLAG, "enable_lora", "cfg.enable_lora"))
RUNNING = ["Running where platform check `is_hip()` is true."]


@pytest.mark.parametrize("expr, found", [
    (And((Truthy(HIP), LORA)), RUNNING),  # required
    (And((Compare("is", HIP, Const(True)), LORA)), RUNNING),
    (And((Not(Truthy(HIP)), LORA)), []),  # needed false: no situation it happens in
    (And((Or((Not(Truthy(HIP)), LORA)), LORA)), []),  # one way among others
])
def test_a_platform_is_a_situation_where_the_trigger_requires_it(expr, found):
    assert situations(expr, None, Renderer()) == found


def _flags() -> object:
    from analyzers.flag_build import build_flag_model
    return build_flag_model({"p/args.py": (
        "def add_cli_args(parser):\n"
        "    parser.add_argument('--grpc-mode', action='store_true', help='Deprecated: use --smg-grpc-mode.')\n"
    )})


GRPC_MODE = Truthy(Ref(RefKind.FLAG, "grpc_mode", "cfg.grpc_mode"))


@pytest.mark.parametrize("expr, said", [
    (And((GRPC_MODE, LORA)), True),  # the error happens to one still passing it
    (And((Not(GRPC_MODE), LORA)), False),  # passing it avoids the error: no situation it happens in
])
def test_a_deprecated_flag_is_a_situation_where_the_trigger_needs_it_passed(expr, said):
    found = situations(expr, _flags(), Renderer())
    assert any("deprecated `--grpc-mode`" in line for line in found) is said
