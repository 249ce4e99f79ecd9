"""extractor.init_attributes: a method's ``self.attr`` is what ``__init__`` set it to, bound
to what every construction of the class passes."""
from __future__ import annotations

import textwrap

import pytest

from extractor.callers import with_caller_guards
from extractor.init_attributes import written_once_as_attribute
from extractor.ir import refs, unknowns
from extractor.profile import load_profile
from extractor.records import FileSites
from extractor.sites import extract_file
from extractor.source_set import SourceSet

PROFILE = load_profile("sglang")

BUILT = """
    class Config:
        def __init__(self, path, serve=False, **kw):
            self.path = path
            self.serve = serve
            {more}
            self._check()

        def _check(self):
            if self.serve:
                raise ValueError("serve is disabled")

        {method}

    def from_args(server_args):
        return Config(path=server_args.model_path, serve=server_args.quantize_and_serve)
    {other}
"""


def _reads(more: str = "", method: str = "", other: str = "") -> set[str]:
    """What the check in ``Config._check`` reads, the file analysed as sglang's would be."""
    text = textwrap.dedent(BUILT).format(more=more, method=method, other=other)
    fs = extract_file("pkg/config.py", text, PROFILE)
    (out,) = with_caller_guards([fs], (), SourceSet({"pkg/config.py": text}))
    (site,) = [s for s in out.sites if s.function == "Config._check"]
    return {f"{r.kind}:{r.name}" for g in site.guards for r in refs(g.expr)}


def test_a_method_reads_the_option_the_construction_passes_to_init() -> None:
    assert "flag:quantize_and_serve" in _reads()


@pytest.mark.parametrize(("change", "why"), [
    ({"more": "if path:\n                self.serve = True"}, "set again under a condition in __init__"),
    ({"method": "def enable(self):\n            self.serve = True"}, "another method sets it"),
    ({"method": "def toggle(self):\n            self.serve, self.path = True, None"}, "unpacked into it"),
    ({"other": "def patch(c):\n        c.serve = True"}, "the program writes `.serve` elsewhere"),
    ({"other": "def other(a):\n        return Config(path=a.model_path)"}, "a construction passes another value"),
    ({"other": "def other(a, kw):\n        return Config(path=a.model_path, **kw)"}, "`**kw` may pass it"),
])
def test_the_attribute_stays_unknown_where_something_else_may_set_it(change: dict[str, str], why: str) -> None:
    assert "flag:quantize_and_serve" not in _reads(**change), why


def test_an_attribute_set_under_a_condition_of_init_is_not_recorded() -> None:
    text = textwrap.dedent("""
        class C:
            def __init__(self, a, b):
                if a:
                    return
                self.b = b
                self.a = a
    """)
    fs: FileSites = extract_file("m.py", text, PROFILE)
    assert fs.attributes == ()


@pytest.mark.parametrize(("texts", "once"), [
    ({"a.py": "self.serve = x\n"}, {"serve"}),
    ({"a.py": "self.serve = x\n", "b.py": "cfg.serve = True\n"}, set()),
    ({"a.py": "self.serve = x\nself.serve += 1\n"}, set()),
    ({"a.py": "self.serve = x\nsetattr(obj, 'serve', 1)\n"}, set()),
    ({"a.py": "self.serve = x\nif cfg.serve == 1: pass\n"}, {"serve"}),  # a comparison is no write
])
def test_written_once_as_attribute_counts_every_write_on_any_object(texts: dict[str, str], once: set[str]) -> None:
    assert written_once_as_attribute({"serve"}, texts) == once


def test_a_parameter_an_unpacked_call_may_pass_does_not_take_its_default() -> None:
    text = textwrap.dedent("""
        def check(cfg, mem=None):
            if cfg.tp_size > 1 and mem is None:
                raise ValueError("x")
        def entry(cfg, extra):
            check(cfg, **extra)
    """)
    (fs,) = with_caller_guards([extract_file("m.py", text, PROFILE)])
    assert [u for g in fs.sites[0].guards for u in unknowns(g.expr)]


def test_a_config_methods_self_assignment_is_an_adjustment_not_an_attribute() -> None:
    """sglang 0.5.18's ``ServerArgs`` methods set ``self.pp_size = 1``: the setting changes."""
    text = textwrap.dedent("""
        class ServerArgs:
            def __init__(self, tp_size):
                self.tp_size = tp_size
            def _handle_pp(self):
                if self.dllm_algorithm is not None:
                    self.pp_size = 1
    """)
    fs = extract_file("python/sglang/srt/server_args.py", text, PROFILE)
    assert fs.attributes == () and "pp_size" in [a.flag for a in fs.adjustments]
