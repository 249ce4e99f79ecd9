"""Checks no launch fails (`analyzers.dead`): a part reading one option with choices that
none of them, once rewritten by the adjustments before the check, makes hold."""
from __future__ import annotations

import textwrap

import pytest

from analyzers.dead import dead_path, never_holds
from analyzers.entries import site_trigger
from analyzers.eval_model import Model
from analyzers.flag_build import build_flag_model
from analyzers.forced import Timing
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


# --- a part an adjustment before the check always undoes (`analyzers.forced`)

SIZES = '''
def add_cli_args(parser):
    parser.add_argument("--pp", type=int, default=1)
    parser.add_argument("--tp", type=int, default=1)
    parser.add_argument("--no-overlap", action="store_true")
'''
SIZE_FLAGS = build_flag_model({"p/args.py": SIZES})
SIZE_R = Renderer.for_model(SIZE_FLAGS)
CHECK = '    if server_args.pp > 1 and not server_args.no_overlap:\n        raise ValueError("x")\n'
TURNED_ON = "`--no-overlap` is turned on before the check whenever `--pp` > 1 (by `check`)"


@pytest.mark.parametrize(
    "body, why",
    [
        # the rewrite's condition is the check's own
        ('    if server_args.pp > 1:\n        server_args.no_overlap = True\n' + CHECK, TURNED_ON),
        # ... or follows from it on every size
        ('    if server_args.pp >= 2:\n        server_args.no_overlap = True\n' + CHECK, TURNED_ON),
        # a size the check refuses (2) is one the rewrite leaves alone
        ('    if server_args.pp > 2:\n        server_args.no_overlap = True\n' + CHECK, None),
        # the rewrite also needs another option the trigger says nothing about
        ('    if server_args.pp > 1 and server_args.tp > 1:\n        server_args.no_overlap = True\n' + CHECK, None),
        # a later rewrite can switch it off again
        ('    if server_args.pp > 1:\n        server_args.no_overlap = True\n'
         '    if server_args.tp > 4:\n        server_args.no_overlap = False\n' + CHECK, None),
        # a rewrite of another option
        ('    if server_args.pp > 1:\n        server_args.tp = 2\n' + CHECK, None),
    ],
)
def test_forced_off(body: str, why: str | None) -> None:
    found = extract_file("m.py", textwrap.dedent(f"def check(server_args):\n{body}"), PROFILE)
    (site,) = found.sites
    model = Model(SIZE_FLAGS, rules_from_adjustments(found.adjustments))
    timing = Timing({id(r): i for i, r in enumerate(model.rules)}, len(model.rules))
    assert never_holds(site_trigger(site), model, SIZE_R, timing) == why


def test_forced_off_needs_to_know_when_rules_run() -> None:
    body = '    if server_args.pp > 1:\n        server_args.no_overlap = True\n' + CHECK
    found = extract_file("m.py", textwrap.dedent(f"def check(server_args):\n{body}"), PROFILE)
    (site,) = found.sites
    model = Model(SIZE_FLAGS, rules_from_adjustments(found.adjustments))
    assert never_holds(site_trigger(site), model, SIZE_R) is None
    after = Timing({id(r): 5 for r in model.rules}, 3)  # the rewrite runs after the check
    assert never_holds(site_trigger(site), model, SIZE_R, after) is None


def test_a_derived_setting_rewritten_before_the_check_is_not_taken_as_undone() -> None:
    """Its rewrite runs where its helpers are called, which may be after the check as well."""
    body = ('    if server_args.pp > 1:\n        server_args._done = True\n'
            '    if server_args.pp > 1 and not server_args._done:\n        raise ValueError("x")\n')
    found = extract_file("m.py", textwrap.dedent(f"def check(server_args):\n{body}"), PROFILE)
    (site,) = found.sites
    model = Model(SIZE_FLAGS, rules_from_adjustments(found.adjustments))
    timing = Timing({id(r): i for i, r in enumerate(model.rules)}, len(model.rules))
    assert never_holds(site_trigger(site), model, SIZE_R, timing) is None


# --- a path whose own guards never let the raise run (`dead_path`)

@pytest.mark.parametrize(
    "body, why",
    [
        # raised inside a try whose handler takes it: the user sees the handler's doing
        ('    try:\n        if server_args.name == "x":\n            raise ValueError("x")\n'
         '    except ValueError:\n        pass\n',
         "the error is caught by `except ValueError` at line 5 in `check`, which handles it"),
        # an earlier check refuses every value this one needs
        ('    if server_args.tp != 1:\n        raise ValueError("tp must be 1")\n'
         '    if server_args.enable and server_args.tp != 1:\n        raise ValueError("x")\n',
         "an earlier check on its path fails first wherever this one would: `server_args.tp != 1`"),
        # the earlier check leaves values this one fails on
        ('    if server_args.tp > 2:\n        raise ValueError("tp")\n'
         '    if server_args.tp != 1:\n        raise ValueError("x")\n', None),
    ],
)
def test_dead_path(body: str, why: str | None) -> None:
    found = extract_file("m.py", textwrap.dedent(f"def check(server_args):\n{body}"), PROFILE)
    site = next(s for s in found.sites if s.template.text == "x")
    assert dead_path(site) == why
