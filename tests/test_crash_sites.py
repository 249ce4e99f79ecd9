"""Crash sites: operations that fail on a value the user controls, each with Python's exception
and message, the failing expression and the condition under which it fails."""
from __future__ import annotations

import textwrap

import pytest

from analyzers.crash_entries import crash_fields, suggested_check
from analyzers.trigger import Renderer
from extractor.crash_kinds import Crash
from extractor.ir import FALSE, conj
from extractor.profile import load_profile
from extractor.records import GuardOrigin, RaiseSite, SiteKind
from extractor.sites import extract_file

PROFILE = load_profile("sglang")


def crashes(body: str) -> list[RaiseSite]:
    code = "def check(cfg):\n" + textwrap.indent(textwrap.dedent(body), "    ")
    return [s for s in extract_file("m.py", code, PROFILE).sites if s.kind is SiteKind.CRASH]


def one(body: str) -> RaiseSite:
    found = crashes(body)
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize(("body", "operation", "exception", "template", "fails"), [
    ("x = cfg.a % cfg.nnodes", "modulo", "ZeroDivisionError", "integer modulo by zero", "cfg.nnodes == 0"),
    ("x = cfg.a / cfg.n", "division", "ZeroDivisionError", "division by zero", "cfg.n == 0"),
    ("x = cfg.a // (cfg.n - 1)", "floor-division", "ZeroDivisionError", "integer division or modulo by zero",
     "(cfg.n - 1) == 0"),
    ("q, r = divmod(8, cfg.n)", "divmod", "ZeroDivisionError", "integer division or modulo by zero", "cfg.n == 0"),
    ("x = 8\nx %= cfg.n", "modulo", "ZeroDivisionError", "integer modulo by zero", "cfg.n == 0"),
    ("port = int(cfg.port_text)", "int", "ValueError", "invalid literal for int() with base 10: {cfg.port_text!r}",
     "int(cfg.port_text) raises ValueError"),
    ("v = float(cfg.ratio)", "float", "ValueError", "could not convert string to float: {cfg.ratio!r}",
     "float(cfg.ratio) raises ValueError"),
    ("d = json.loads(cfg.spec)", "json", "json.decoder.JSONDecodeError",
     "{error}: line {line} column {column} (char {position})", "json.loads(cfg.spec) raises ValueError"),
    ("v = {'a': 1, 'b': 2}[cfg.mode]", "key", "KeyError", "{cfg.mode!r}", "{'a': 1, 'b': 2}[cfg.mode] raises KeyError"),
    ("v = cfg.name.lower()", "none-attribute", "AttributeError", "'NoneType' object has no attribute 'lower'",
     "cfg.name is None"),
    ("for p in cfg.paths:\n    pass", "none-iteration", "TypeError", "'NoneType' object is not iterable",
     "cfg.paths is None"),
    ("n = len(cfg.paths)", "none-len", "TypeError", "object of type 'NoneType' has no len()", "cfg.paths is None"),
    ("p = cfg.paths[0]", "none-subscript", "TypeError", "'NoneType' object is not subscriptable", "cfg.paths is None"),
    ("a, b = cfg.pair", "none-unpack", "TypeError", "cannot unpack non-iterable NoneType object", "cfg.pair is None"),
    ("ok = 'x' in cfg.names", "none-membership", "TypeError", "argument of type 'NoneType' is not iterable",
     "cfg.names is None"),
])
def test_each_operation_is_a_site_with_pythons_error(body: str, operation: str, exception: str, template: str,
                                                      fails: str) -> None:
    site = one(body)
    assert site.crash is not None and site.crash.operation == operation
    assert (site.exception, site.template.text) == (exception, template)
    assert site.direct[-1].text == fails


@pytest.mark.parametrize("body", [
    "x = cfg.a % 4",  # a constant divisor
    "x = '%s' % cfg.name",  # formatting, not a modulo
    "x = cfg.a % n",  # a local errcat cannot interpret
    "x = int('8')",
    "v = cfg.name",  # reading a value is no operation
    "f = lambda: cfg.a % cfg.n",  # runs later, if at all
    "if isinstance(cfg.c, Config):\n    d = cfg.c.to_dict()",  # the code looked at it first
    "if cfg.paths:\n    n = len(cfg.paths)",
])
def test_no_site_where_no_user_value_breaks_it(body: str) -> None:
    assert crashes(body) == []


def test_split_unpacking_fails_with_too_few_or_too_many_parts() -> None:
    found = [s for s in crashes("host, port = cfg.addr.split(':')") if s.crash and s.crash.operation == "split-unpack"]
    assert [s.template.text for s in found] == [
        "not enough values to unpack (expected 2, got {len(cfg.addr.split(':'))})",
        "too many values to unpack (expected 2)",
    ]
    assert [s.direct[-1].text for s in found] == ["len(cfg.addr.split(':')) < 2", "len(cfg.addr.split(':')) > 2"]


def test_the_statements_guards_and_the_short_circuit_before_it_are_the_path() -> None:
    site = one("if cfg.mode != 'scale':\n    ok = cfg.n > 0 and cfg.a % cfg.n == 0")
    assert [(g.origin, g.text) for g in site.guards] == [
        (GuardOrigin.IF, "cfg.mode != 'scale'"), (GuardOrigin.IF, "cfg.n > 0"), (GuardOrigin.IF, "cfg.n == 0")]


def test_a_crash_in_an_assert_comes_before_the_assert_which_needs_it_not_to_fail() -> None:
    code = "def check(cfg):\n    assert (cfg.tp * cfg.pp) % cfg.nnodes == 0, 'tp must be divisible'\n"
    crash, check = extract_file("m.py", code, PROFILE).sites
    assert (crash.kind, check.kind) == (SiteKind.CRASH, SiteKind.ASSERT) and crash.line == check.line == 2
    assert crash.crash == Crash("modulo", "(cfg.tp * cfg.pp) % cfg.nnodes", "cfg.nnodes", "cfg.nnodes < 1",
                                "at least 1")
    assert (check.guards[0].origin, check.guards[0].text) == (GuardOrigin.PRIOR_RAISE, "not (cfg.nnodes == 0)")


def test_later_statements_need_it_not_to_have_failed() -> None:
    code = "def check(cfg):\n    x = cfg.a % cfg.n\n    if cfg.n > 4:\n        raise ValueError('big')\n"
    _, check = extract_file("m.py", code, PROFILE).sites
    assert [(g.origin, g.text) for g in check.guards] == [
        (GuardOrigin.PRIOR_RAISE, "not (cfg.n == 0)"), (GuardOrigin.IF, "cfg.n > 4")]


def test_a_crash_caught_by_a_handler_that_does_not_reraise_never_fires() -> None:
    site = one("try:\n    port = int(cfg.port_text)\nexcept ValueError:\n    port = 0")
    assert conj([g.expr for g in site.guards]) == FALSE
    assert any(g.text.startswith("caught by `except ValueError`") for g in site.direct)


def test_a_site_survives_its_dict_form() -> None:
    site = one("x = cfg.a % cfg.nnodes")
    assert RaiseSite.from_dict(site.as_dict()) == site


@pytest.mark.parametrize(("crash", "named", "check"), [
    (Crash("modulo", "a % cfg.nnodes", "cfg.nnodes", "cfg.nnodes < 1", "at least 1"), "`--nnodes`",
     'if cfg.nnodes < 1:\n    raise ValueError(f"--nnodes must be >= 1, got {cfg.nnodes}")'),
    (Crash("division", "a / (cfg.n - 1)", "cfg.n - 1", "(cfg.n - 1) == 0", "not zero"), "`cfg.n - 1` (from `--n`)",
     'if (cfg.n - 1) == 0:\n    raise ValueError("cfg.n - 1 (from --n) must not be 0")'),
    (Crash("none-len", "len(cfg.p)", "cfg.p", "cfg.p is None", "set"), "`--p`",
     'if cfg.p is None:\n    raise ValueError("--p must be set")'),
])
def test_the_suggested_check_reads_like_a_validation_check(crash: Crash, named: str, check: str) -> None:
    assert suggested_check(crash, named) == check


def test_the_entry_says_which_check_is_missing_in_user_terms() -> None:
    site = one("x = (cfg.tp_size * cfg.pp_size) % cfg.nnodes")
    fields = crash_fields(site, Renderer(), program="sglang")
    assert fields["missing"] == "sglang does not check that `--nnodes` is at least 1"
    assert fields["meaning"].startswith("sglang does not check that `--nnodes` is at least 1; the modulo divides by it")


@pytest.mark.parametrize(("call", "kept"), [
    ("Config(overrides=cfg.json_model_override_args)", True),  # every construction passes an option
    ("Config(overrides='{}')", False),  # a literal: nothing the user gives breaks it
    ("Config(overrides=cfg.json_model_override_args)\n            Config(overrides='{}')", False),  # not every call
])
def test_a_crash_on_a_parameter_is_kept_where_its_callers_pass_an_option(call: str, kept: bool) -> None:
    """sglang 0.5.23 model_config.py:612 ``json.loads(model_override_args)`` in ``ModelConfig.__init__``,
    constructed with ``model_override_args=cfg.json_model_override_args``."""
    from extractor.callers import with_caller_guards

    text = textwrap.dedent(f"""
        import json
        class Config:
            def __init__(self, overrides):
                self.overrides = json.loads(overrides)
        def build(cfg):
            {call}
    """)
    extracted = extract_file("pkg/config.py", text, PROFILE)
    assert extracted.parse_error is None and [s.kind for s in extracted.sites] == [SiteKind.CRASH]
    (fs,) = with_caller_guards([extracted])
    assert bool([s for s in fs.sites if s.kind is SiteKind.CRASH]) is kept


def test_a_divisor_passed_in_is_no_crash_site() -> None:
    """``derive_attn_tp_size(*, tp_size, attn_dp_size)`` (sglang 0.5.23) divides by what many
    callers pass, some before the program checks the value: a conversion's parameter counts
    (`passed_value`), a divisor's does not."""
    code = "def derive(*, tp_size, attn_dp_size):\n    return tp_size // attn_dp_size\n"
    assert [s for s in extract_file("m.py", code, PROFILE).sites if s.kind is SiteKind.CRASH] == []
