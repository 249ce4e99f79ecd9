"""A loop that leaves early (``for m in items: if found(m): return m``): what follows it
runs only where no pass left, a condition on each item the source writes out, else unknown."""
from __future__ import annotations

import textwrap

import pytest

from analyzers.entries import site_trigger
from analyzers.trigger import Renderer
from extractor.profile import load_profile
from extractor.sites import extract_file

PROFILE = load_profile("sglang")
RENDER = Renderer()


def trigger(code: str) -> str:
    found = [s for s in extract_file("m.py", textwrap.dedent(code), PROFILE).sites if s.crash is None]
    assert len(found) == 1, found
    return RENDER.text(site_trigger(found[0]))


@pytest.mark.parametrize(
    "code, text",
    [
        # items written out: the raise fires where none matched
        ("""
         def f(cfg):
             for mode in ("a", "b"):
                 if cfg.mode == mode:
                     return mode
             raise ValueError("bad mode")
         """, "`--mode` is not a and `--mode` is not b"),
        # items not written out: unknown, never "always"
        ("""
         def f(cfg):
             for mode in Modes:
                 if cfg.mode == mode.value:
                     return mode
             raise ValueError("bad mode")
         """, "a value of `Modes` that ends the loop early (unknown) is not given"),
        # a body doing more than leave: unknown, even over written-out items
        ("""
         def f(cfg):
             for port in (1, 2):
                 ok = probe(port)
                 if ok:
                     return port
             raise ValueError("no port")
         """, "a value of `(1, 2)` that ends the loop early (unknown) is not given"),
        # a loop's else block runs where no pass broke
        ("""
         def f(cfg):
             for mode in ("a", "b"):
                 if cfg.mode == mode:
                     break
             else:
                 raise ValueError("bad mode")
         """, "`--mode` is not a and `--mode` is not b"),
        # a loop that never leaves early constrains nothing
        ("""
         def f(cfg):
             for mode in ("a", "b"):
                 log(mode)
             raise ValueError("always")
         """, "always"),
        # a return inside a nested function is not the loop's
        ("""
         def f(cfg):
             for mode in ("a", "b"):
                 def g():
                     return mode
             raise ValueError("always")
         """, "always"),
    ],
)
def test_what_follows_an_early_leaving_loop_runs_where_no_pass_left(code: str, text: str) -> None:
    assert trigger(code) == text
