"""extractor.program_order: when a launch runs each check and assignment, and what a check
sees of the assignments (analyzers.first_error)."""
from __future__ import annotations

import textwrap

from analyzers.eval_model import Model
from analyzers.evaluate import evaluate
from analyzers.first_error import Check, pipeline_order, predict
from analyzers.kleene import Truth
from analyzers.launch import Launch
from analyzers.rules import Rule
from extractor.callers import EntryPoints
from extractor.ir import TRUE, Compare, Const, Ref, RefKind, Truthy
from extractor.profile import load_profile
from extractor.program_order import program_order
from extractor.sites import extract_file

PROFILE = load_profile("sglang")
PIPELINE = textwrap.dedent('''
    from pkg.hooks import handle_b, handle_a

    def prepare(cfg):
        handle_b(cfg)
        if cfg.x:
            raise ValueError("pipeline check")
        run_hook(handle_a, cfg)

    def unused(cfg):
        handle_a(cfg)
''')
HOOKS = textwrap.dedent('''
    def handle_a(cfg):
        if cfg.y:
            raise ValueError("a before helper")
        _helper(cfg)
        if cfg.z:
            raise ValueError("a after helper")

    def handle_b(cfg):
        cfg.tp_size = 2

    def _helper(cfg):
        assert cfg.w, "helper"
''')


def times() -> dict[tuple[str, str, int], int]:
    files = [extract_file("pkg/pipeline.py", PIPELINE, PROFILE), extract_file("pkg/hooks.py", HOOKS, PROFILE)]
    return program_order(files, [], EntryPoints(functions=(("pkg/pipeline.py", "prepare"),))).time


def test_checks_and_assignments_run_by_line_with_callees_where_they_are_called() -> None:
    found = times()
    order = [(path.split("/")[1], function, line) for path, function, line in sorted(found, key=found.__getitem__)]
    assert order == [("hooks.py", "handle_b", 10), ("pipeline.py", "prepare", 7), ("hooks.py", "handle_a", 4),
                     ("hooks.py", "_helper", 13), ("hooks.py", "handle_a", 7)]


def test_code_no_entry_point_reaches_has_no_time() -> None:
    assert not any(function == "unused" for _, function, _ in times())


def test_checks_are_met_in_program_order_and_unordered_ones_after() -> None:
    late = Check("late", "a.py", 1, "handle_a", TRUE, order=2)
    early = Check("early", "z.py", 50, "handle_b", TRUE, order=1)
    unknown = Check("unknown", "a.py", 0, "other", TRUE)
    assert [c.id for c in pipeline_order([unknown, late, early], ("prepare",))] == ["early", "late", "unknown"]


TP = Ref(RefKind.FLAG, "tp_size", "cfg.tp_size")
SET_TP = Rule("tp_size", Const(8), TRUE, at=5)  # run at time 5


def test_a_check_sees_only_the_assignments_run_before_it() -> None:
    big = Compare(">", TP, Const(4))
    model = Model(rules=(SET_TP,))
    launch = Launch({"tp_size": 1})
    assert evaluate(big, launch, model.before(3)) is Truth.FALSE  # the assignment comes later
    assert predict(launch, [Check("c", "a.py", 1, "f", big, order=3)], model).status == "ok"
    assert predict(Launch(), [Check("c", "a.py", 1, "f", big, order=9)], Model(rules=(SET_TP,))).entry == "c"


def test_two_checks_that_see_the_same_assignments_share_their_resolution() -> None:
    """Checks at different times where the same assignments matter (here: SET_TP, before both)
    read one rule set, so a launch's adjustments are resolved once; a time before it, none."""
    late = Rule("pp_size", Const(2), TRUE, at=20)  # no check below reads it
    model = Model(rules=(SET_TP, late))
    big = Compare(">", TP, Const(4))
    sets = [model.before(at).rule_set(big) for at in (9, 30)]
    assert sets[0] is sets[1] and sets[0].rules == (SET_TP,)
    assert model.before(3).rule_set(big).rules == ()
    assert [evaluate(big, Launch({"tp_size": 1}), model.before(at)) for at in (3, 9, 30)] == [
        Truth.FALSE, Truth.TRUE, Truth.TRUE]


def _order(files: dict[str, str], entry: EntryPoints) -> list[tuple[str, str, int]]:
    found = program_order([extract_file(p, textwrap.dedent(s), PROFILE) for p, s in files.items()], [], entry).time
    return [(path.split("/")[1], function, line) for path, function, line in sorted(found, key=found.__getitem__)]


def test_a_call_made_again_later_under_fewer_conditions_runs_the_callee_there() -> None:
    source = '''
        def prepare(cfg):
            if cfg.spec:
                check(cfg)
            assert cfg.a, "between"
            check(cfg)

        def check(cfg):
            assert cfg.b, "check"
    '''
    order = _order({"pkg/p.py": source}, EntryPoints(functions=(("pkg/p.py", "prepare"),)))
    assert order == [("p.py", "prepare", 5), ("p.py", "check", 9)]


def test_a_check_whose_error_the_first_call_catches_runs_at_the_first_call_that_lets_it_through() -> None:
    source = '''
        def prepare(cfg):
            try:
                parse_key(cfg.config_key)
            except ValueError as error:
                raise RuntimeError(f"bad config key: {error}") from error
            assert cfg.a, "between"
            parse_key(cfg.key)

        def parse_key(key):
            if not key:
                raise ValueError("empty key")
            assert len(key) < 9, "long key"
    '''
    order = _order({"pkg/p.py": source}, EntryPoints(functions=(("pkg/p.py", "prepare"),)))
    assert order == [("p.py", "parse_key", 13), ("p.py", "prepare", 6), ("p.py", "prepare", 7),
                     ("p.py", "parse_key", 12)]


def test_a_runner_of_model_overrides_runs_every_registered_override_where_it_is_called() -> None:
    runner = '''
        def prepare(cfg):
            assert cfg.a, "before"
            collect_model_override_declarations("X", cfg, None)
            assert cfg.b, "after"

        def collect_model_override_declarations(arch, cfg, hf_config):
            return []
    '''
    override = '''
        @register_model_override("X")
        def _x_overrides(cfg, hf_config):
            assert cfg.c, "override"
            return {}
    '''
    entry = EntryPoints(functions=(("pkg/p.py", "prepare"),), override_runners=frozenset(PROFILE.override_runners))
    order = _order({"pkg/p.py": runner, "pkg/x.py": override}, entry)
    assert order == [("p.py", "prepare", 3), ("x.py", "_x_overrides", 4), ("p.py", "prepare", 5)]


def test_a_call_in_the_arguments_of_a_resolution_runs_before_the_resolution() -> None:
    source = '''
        def prepare(cfg):
            declare_resolution(
                cfg,
                "prepare",
                ib_device=validate(cfg.ib_device),
            )

        def validate(device):
            if device is not None and not device.strip():
                raise ValueError("empty device")
            return device
    '''
    order = _order({"pkg/p.py": source}, EntryPoints(functions=(("pkg/p.py", "prepare"),)))
    assert order == [("p.py", "validate", 11), ("p.py", "prepare", 3)]


def test_rules_of_one_time_all_read_what_came_before_them() -> None:
    """A provider's ``declared["mode"] = "x"`` and ``declared["off"] = True``, both under
    ``view.mode is None``: the second does not read the first's result."""
    from analyzers.flag_build import build_flag_model
    flags = build_flag_model({"p/args.py": "def add_cli_args(parser):\n"
                              "    parser.add_argument('--mode', type=str, default=None)\n"
                              "    parser.add_argument('--off', action='store_true')\n"})
    mode, off = Ref(RefKind.FLAG, "mode", "view.mode"), Ref(RefKind.FLAG, "off", "view.off")
    unset = Compare("is", mode, Const(None))
    together = Model(flags, (Rule("mode", Const("x"), unset, at=5), Rule("off", Const(True), unset, at=5)))
    assert evaluate(Compare("==", mode, Const("x")), Launch(), together) is Truth.TRUE
    assert evaluate(Truthy(off), Launch(), together) is Truth.TRUE
    one_after_the_other = Model(flags, (Rule("mode", Const("x"), unset, at=5), Rule("off", Const(True), unset, at=6)))
    assert evaluate(Truthy(off), Launch(), one_after_the_other) is Truth.FALSE


def test_a_providers_declarations_take_one_place_after_its_checks() -> None:
    source = '''
        @register_post_process
        def resolve(view):
            declared = {"uses": True}
            if view.mode == "auto":
                declared["mode"] = "no_buffer"
                declared["off"] = True
            if view.bad:
                raise ValueError("bad")
            return declared
    '''
    fs = extract_file("pkg/p.py", textwrap.dedent(source), PROFILE)
    assert {a.line for a in fs.adjustments} == {10}  # the provider's last line, after the raise at 9
