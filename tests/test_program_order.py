"""extractor.program_order: the order a launch runs the analysed functions in."""
from __future__ import annotations

import textwrap

from analyzers.first_error import Check, pipeline_order
from extractor.callers import EntryPoints
from extractor.ir import TRUE
from extractor.profile import load_profile
from extractor.program_order import program_order
from extractor.sites import extract_file

PROFILE = load_profile("sglang")
PIPELINE = textwrap.dedent('''
    from pkg.hooks import handle_b, handle_a

    def prepare(argv):
        handle_b(argv)
        run_hook(handle_a, argv)

    def unused(argv):
        handle_a(argv)
''')
HOOKS = textwrap.dedent('''
    def handle_a(cfg):
        _helper(cfg)

    def handle_b(cfg):
        pass

    def _helper(cfg):
        pass
''')


def ranks() -> dict[tuple[str, str], int]:
    files = [extract_file("pkg/pipeline.py", PIPELINE, PROFILE), extract_file("pkg/hooks.py", HOOKS, PROFILE)]
    return program_order(files, [], EntryPoints(functions=(("pkg/pipeline.py", "prepare"),))).rank


def test_calls_and_function_references_run_in_source_order_depth_first() -> None:
    found = ranks()
    order = sorted(found, key=found.__getitem__)
    assert order == [("pkg/pipeline.py", "prepare"), ("pkg/hooks.py", "handle_b"), ("pkg/hooks.py", "handle_a"),
                     ("pkg/hooks.py", "_helper")]


def test_a_function_no_entry_point_reaches_has_no_order() -> None:
    assert ("pkg/pipeline.py", "unused") not in ranks()


def test_checks_are_met_in_program_order_then_by_line_and_unordered_ones_after() -> None:
    late = Check("late", "a.py", 1, "handle_a", TRUE, order=2)
    early = Check("early", "z.py", 50, "handle_b", TRUE, order=1)
    early2 = Check("early2", "z.py", 60, "handle_b", TRUE, order=1)
    unknown = Check("unknown", "a.py", 0, "other", TRUE)
    assert [c.id for c in pipeline_order([unknown, late, early2, early], ("prepare",))] == \
        ["early", "early2", "late", "unknown"]
