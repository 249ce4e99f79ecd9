"""Checks no launch fails (`analyzers.dead`): a part reading one option with choices that
none of them, once rewritten by the adjustments before the check, makes hold."""
from __future__ import annotations

import textwrap

import pytest

from analyzers.dead import never_holds
from analyzers.entries import site_trigger
from analyzers.eval_model import Model
from analyzers.flag_build import build_flag_model
from analyzers.rules import rules_from_adjustments
from analyzers.trigger import Renderer
from extractor.profile import load_profile
from extractor.sites import extract_file

ARGS = '''
def add_cli_args(parser):
    parser.add_argument("--backend", type=str, choices=["mooncake", "mooncake_tcp", "nixl"], default="mooncake")
    parser.add_argument("--mode", type=str, choices=["null", "decode"], default="null")
    parser.add_argument("--name", type=str, default=None)
'''
FLAGS = build_flag_model({"p/args.py": ARGS})
R = Renderer.for_model(FLAGS)
PROFILE = load_profile("sglang")
TCP = '    if server_args.backend == "mooncake_tcp":\n        server_args.backend = "mooncake"\n'


@pytest.mark.parametrize(
    "body, why",
    [
        # the one value the check refuses is rewritten to an accepted one before it
        (TCP + '    if server_args.mode == "decode" and server_args.backend not in ("mooncake", "nixl"):\n'
         '        raise ValueError("x")\n',
         "no value `--backend` accepts fails it (mooncake_tcp is rewritten before the check)"),
        # no choice, nor leaving it unset, is one the check refuses
        ('    if server_args.backend not in ("mooncake", "mooncake_tcp", "nixl"):\n        raise ValueError("x")\n',
         "no value `--backend` accepts, nor leaving it unset, makes `--backend` is not one of "
         "mooncake, mooncake_tcp, nixl"),
        # a choice still fails it
        (TCP + '    if server_args.backend not in ("mooncake",):\n        raise ValueError("x")\n', None),
        # the rewrite depends on another setting: it may give any value
        ('    if server_args.mode == "decode":\n        server_args.backend = "mooncake"\n'
         '    if server_args.backend not in ("mooncake", "nixl"):\n        raise ValueError("x")\n', None),
        # an option without declared choices may be anything
        ('    if server_args.name == "x":\n        raise ValueError("x")\n', None),
    ],
)
def test_never_holds(body: str, why: str | None) -> None:
    found = extract_file("m.py", textwrap.dedent(f"def check(server_args):\n{body}"), PROFILE)
    (site,) = found.sites
    model = Model(FLAGS, rules_from_adjustments(found.adjustments))
    assert never_holds(site_trigger(site), model, R) == why
