"""Static first-error prediction: pipeline order, and ok / the first entry / undecided with its facts."""
from __future__ import annotations

import textwrap
from typing import Any

import pytest

from analyzers.eval_model import Model
from analyzers.first_error import ERROR, OK, UNDECIDED, Check, Pipeline, check_of, pipeline_order, predict
from analyzers.flag_build import build_flag_model
from analyzers.launch import Launch
from analyzers.rules import Rule
from extractor.ir import ON_COMMAND_LINE, TRUE, And, Apply, Compare, Const, Ref, RefKind, Truthy
from extractor.records import PARAMETER
from extractor.templates import RERAISED

FLAGS = build_flag_model({"p/args.py": textwrap.dedent('''
    def add_cli_args(parser):
        parser.add_argument("--tp-size", type=int, default=1)
        parser.add_argument("--enable-lora", action="store_true")
''')})
TP = Ref(RefKind.FLAG, "tp_size", "cfg.tp_size")
LORA = Ref(RefKind.FLAG, "enable_lora", "cfg.enable_lora")
HIP = Ref(RefKind.PLATFORM, "is_hip", "is_hip()")
STEPS = ("prepare_server_args", "resolve_once", "check_server_args")


def check(id_: str, path: str = "a.py", line: int = 1, function: str = "hook", condition=TRUE) -> Check:
    return Check(id_, path, line, function, condition)


@pytest.mark.parametrize(("checks", "steps", "order"), [
    # the step named by the function; other functions in the step before the last
    ([check("c", function="ServerArgs.check_server_args"), check("h", "z.py"),
      check("p", "z.py", function="prepare_server_args")], STEPS, ["p", "h", "c"]),
    # within a step: path, then line
    ([check("b2", "b.py", 2), check("b1", "b.py", 1), check("a9", "a.py", 9)], STEPS, ["a9", "b1", "b2"]),
    # two steps (0.5.18): the hooks run in the first (__post_init__ inside prepare_server_args)
    ([check("c", function="check_server_args"), check("h")], ("prepare_server_args", "check_server_args"),
     ["h", "c"]),
])
def test_pipeline_order(checks, steps, order):
    assert [c.id for c in pipeline_order(checks, steps)] == order


MODEL = Model(FLAGS)
BIG_TP = check("tp", line=1, condition=Compare(">", TP, Const(4)))
LORA_ON = check("lora", line=2, condition=Truthy(LORA))
ON_HIP = check("hip", line=0, condition=Truthy(HIP))


@pytest.mark.parametrize(("checks", "launch", "status", "entry", "may_fire"), [
    ([BIG_TP, LORA_ON], Launch(), OK, None, ()),
    ([BIG_TP, LORA_ON], Launch({"enable_lora": True}), ERROR, "lora", ("lora",)),
    ([BIG_TP, LORA_ON], Launch({"tp_size": 8, "enable_lora": True}), ERROR, "tp", ("tp",)),  # the first one wins
    ([ON_HIP, BIG_TP], Launch({"tp_size": 8}), UNDECIDED, None, ("hip", "tp")),
    ([ON_HIP, BIG_TP], Launch({"tp_size": 8}, facts={"platform:is_hip": False}), ERROR, "tp", ("tp",)),
    ([ON_HIP, BIG_TP], Launch(), UNDECIDED, None, ("hip",)),
])
def test_predict(checks, launch, status, entry, may_fire):
    found = predict(launch, checks, MODEL)
    assert (found.status, found.entry, found.may_fire) == (status, entry, may_fire)


CRASH_ON_HIP = Check("crash", "a.py", 0, "hook", Truthy(HIP), quiet=True)
CRASH_TP = Check("crash-tp", "a.py", 0, "hook", Compare("==", TP, Const(0)), quiet=True)


@pytest.mark.parametrize(("launch", "status", "entry"), [
    (Launch({"tp_size": 8}), ERROR, "tp"),  # a crash that may happen is not a prediction
    (Launch({"tp_size": 0}), ERROR, "crash-tp"),  # one that surely happens is
])
def test_a_crash_counts_only_where_it_surely_happens(launch, status, entry):
    found = predict(launch, [CRASH_ON_HIP, CRASH_TP, BIG_TP], MODEL)
    assert (found.status, found.entry) == (status, entry)


def test_an_undecided_prediction_names_what_decides_it_and_what_surely_fires():
    found = predict(Launch({"tp_size": 8}), [ON_HIP, BIG_TP], MODEL)
    assert found.deciding == ("platform:is_hip",) and found.sure == "tp" and found.first == UNDECIDED
    assert found.covers("hip") and found.covers("tp") and not found.covers(OK)
    assert predict(Launch(), [ON_HIP, BIG_TP], MODEL).covers(OK)


def _entry(id_: str, line: int, expr: dict, rows: list[dict] | None = None) -> dict:
    return {"id": id_, "source": {"path": "a.py", "line": line, "function": "check_server_args"},
            "trigger": {"expr": expr}, "variants": [{"trigger": {"expr": r}} for r in rows or []]}


def test_a_catalog_as_a_pipeline_reads_its_flags_adjustments_and_table_rows():
    tp = {"op": "ref", "kind": "flag", "name": "tp_size", "text": "cfg.tp_size"}
    lora = {"op": "ref", "kind": "flag", "name": "enable_lora", "text": "cfg.enable_lora"}
    data: dict[str, Any] = {
        "entries": [_entry("rows", 2, {"op": "const", "value": True},
                           [{"op": "compare", "cmp": "==", "left": tp, "right": {"op": "const", "value": 3}}]),
                    _entry("lora", 1, {"op": "truthy", "term": lora})],
        "flags": FLAGS.as_dict(),
        # --tp-size 3 turns LoRA on
        "adjustments": [{"dest": "enable_lora", "value": {"op": "const", "value": True},
                         "when": {"expr": {"op": "compare", "cmp": "==", "left": tp, "right": {"op": "const",
                                                                                                "value": 3}}}}],
    }
    pipeline = Pipeline.of_catalog(data, STEPS)
    assert [c.id for c in pipeline.checks] == ["lora", "rows"]
    assert pipeline.predict(Launch({"tp_size": 3})).entry == "lora"
    assert pipeline.predict(Launch({"tp_size": 2})).status == OK
    assert check_of(data["entries"][0]).condition != TRUE  # the row is part of the condition


def test_an_argparse_action_sees_the_command_line_before_any_adjustment():
    """An action's check runs while parsing: no validation hook has rewritten its option yet."""
    lora_forced_off = Rule.from_dict({"dest": "enable_lora", "value": {"op": "const", "value": False},
                                      "when": {"expr": {"op": "const", "value": True}}})
    model = Model(FLAGS, (lora_forced_off,))
    given = Truthy(Apply(ON_COMMAND_LINE, (LORA,), "on the command line"))
    action = check("action", line=9, condition=And((given, Truthy(LORA))))
    hook = check("hook", line=1, condition=Truthy(LORA))
    launch = Launch({"enable_lora": True})
    assert predict(launch, pipeline_order([hook, action], STEPS), model).entry == "action"
    assert predict(launch, [hook], model).status == OK  # the hook sees the adjusted value


def test_a_check_run_as_the_server_starts_is_not_predicted_for_validation():
    """``PortArgs.init_new`` (the profile's `after_validation`): a real launch raises it after
    the validation the prediction is about."""
    always = {"op": "const", "value": True}
    data = {"entries": [{**_entry("ports", 1, always), "stage": "start"}, _entry("own", 2, always)]}
    pipeline = Pipeline.of_catalog(data, STEPS)
    assert [c.id for c in pipeline.checks] == ["own"] and pipeline.later == {"ports"}


@pytest.mark.parametrize(("stages", "fires"), [
    (["start", ""], False),  # the row validation passes does not hold; the other only the server start passes
    (["", ""], True),
    (["start", "start"], False),  # no row validation passes
])
def test_a_row_only_the_server_start_passes_is_not_predicted_for_validation(stages, fires):
    tp = {"op": "ref", "kind": "flag", "name": "tp_size", "text": "cfg.tp_size"}
    rows = [{"op": "compare", "cmp": "==", "left": tp, "right": {"op": "const", "value": n}} for n in (3, 4)]
    entry = _entry("rows", 1, {"op": "const", "value": True}, rows)
    for row, stage in zip(entry["variants"], stages, strict=True):
        row.update({"stage": stage} if stage else {})
    pipeline = Pipeline.of_catalog({"entries": [entry]}, STEPS)
    assert (pipeline.predict(Launch({"tp_size": 3})).entry == "rows") is fires


def test_a_bare_reraise_is_not_a_check_of_its_own():
    """``except E: raise`` shows the caught error, whose own entry the launch met first."""
    always = {"op": "const", "value": True}
    data = {"entries": [{**_entry("reraise", 1, always), "template": RERAISED}, _entry("own", 2, always)]}
    assert [c.id for c in Pipeline.of_catalog(data, STEPS).checks] == ["own"]


@pytest.mark.parametrize(
    "marks, met",
    [
        ({}, True),
        ({"reachable": "unknown"}, True),  # may run: still a check a launch may meet
        ({"reachable": False}, False),  # no entry point reaches it
        ({"internal": True}, False),  # it guards the program's own code, not the command line
    ],
)
def test_which_entries_a_launch_can_meet(marks: dict, met: bool) -> None:
    data = {"entries": [{**_entry("e", 1, {"op": "const", "value": True}), **marks}]}
    assert bool(Pipeline.of_catalog(data, STEPS).checks) is met


def test_facts_are_read_by_checks_and_by_adjustments() -> None:
    """A platform fact only an adjustment reads still decides the setting a check reads."""
    hip = {"op": "ref", "kind": "platform", "name": "is_hip", "text": "is_hip()"}
    data = {"entries": [_entry("e", 1, {"op": "const", "value": True})],
            "adjustments": [{"dest": "tp_size", "value": {"op": "const", "value": 2}, "when": {"expr": hip}}]}
    assert hip in [e.as_dict() for e in Pipeline.of_catalog(data, STEPS).conditions()]


def test_a_call_of_a_catalog_function_is_what_it_returns_unless_the_launch_states_it() -> None:
    """``if too_big(cfg.tp_size): raise``, with ``def too_big(n): return n > 4`` in ``functions``."""
    tp = {"op": "ref", "kind": "flag", "name": "tp_size", "text": "cfg.tp_size"}
    param = {"op": "ref", "kind": "unknown", "name": "n", "text": f"{PARAMETER}n"}
    call = {"op": "apply", "fn": "too_big", "args": [tp], "text": "too_big(cfg.tp_size)"}
    data = {"entries": [_entry("big", 1, {"op": "truthy", "term": call})], "flags": FLAGS.as_dict(),
            "functions": [{"name": "too_big", "params": ["n"], "returns": {
                "op": "compare", "cmp": ">", "left": param, "right": {"op": "const", "value": 4}}}]}
    pipeline = Pipeline.of_catalog(data, STEPS)
    assert pipeline.predict(Launch({"tp_size": 8})).entry == "big"
    assert pipeline.predict(Launch({"tp_size": 2})).status == OK
    stated = Launch({"tp_size": 8}, facts={"runtime:too_big": (((8,), False),)})  # the platform's word wins
    assert pipeline.predict(stated).status == OK


@pytest.mark.parametrize(("flags", "status"), [
    ({}, UNDECIDED),  # no check fires: the device runtime sglang loads decides, on another machine
    ({"enable_lora": True}, ERROR),  # a check fires first: that error, whatever the device
])
def test_a_launch_needing_another_machine_is_not_predicted_ok(flags: dict, status: str) -> None:
    pipeline = Pipeline((LORA_ON,), Model(FLAGS, ()))
    found = pipeline.predict(Launch(flags), foreign=('platform:device="npu"',))
    assert found.status == status
    assert found.deciding == (('platform:device="npu"',) if status == UNDECIDED else ())


@pytest.mark.parametrize(("argv", "status"), [
    (["--tp-size", "8"], ERROR),
    ([], OK),
    (["--device", "npu"], UNDECIDED),  # a device runtime this platform lacks: that machine decides
])
def test_a_command_line_is_predicted_on_the_platform_with_what_it_needs_of_another_machine(argv, status):
    from analyzers.examples import Examples
    from analyzers.platform_facts import Stated
    from extractor.real_profile import Platform, RealProfile

    flags = build_flag_model({"p/args.py": textwrap.dedent('''
        def add_cli_args(parser):
            parser.add_argument("--tp-size", type=int, default=1)
            parser.add_argument("--device", type=str, default=None)
    ''')})
    pipeline = Pipeline((BIG_TP,), Model(flags, ()))
    platform = Platform("generic", ("--device", "cuda"), False, absent=(("device", ("npu",)),))
    stated = Stated.of(pipeline.conditions(), flags, platform, RealProfile("pkg"), Examples())
    assert pipeline.predict_on(stated, argv).status == status


def test_a_check_after_one_the_prediction_leaves_out_may_not_be_what_fires() -> None:
    """sglang 0.5.23 model_config.py: ``if not self.quantization in MODELOPT: raise`` (outside the
    targets, reading an attribute errcat cannot decide: left out of other launches' predictions)
    comes before ``raise NotImplementedError`` on ``--quantize-and-serve`` alone. A launch with
    ``--quantize-and-serve`` may meet the earlier one: undecided, not the later one; the earlier
    one still judges its own examples (`own_only`)."""
    serve = {"op": "truthy", "term": {"op": "ref", "kind": "flag", "name": "enable_lora", "text": "cfg.enable_lora"}}
    quant = {"op": "ref", "kind": "unknown", "name": "self.quantization", "text": "self.quantization"}
    earlier = {"op": "and", "args": [serve, {"op": "truthy", "term": quant}]}
    later = _entry("later", 2, serve)
    later["trigger"]["reach"] = [{"entry": "earlier", "text": "", "expr": earlier}]
    data = {"entries": [{**_entry("earlier", 1, earlier), "outside_targets": True}, {**later, "outside_targets": True}],
            "flags": FLAGS.as_dict()}
    pipeline = Pipeline.of_catalog(data, STEPS)
    assert [c.id for c in pipeline.checks] == ["later"] and [c.id for c in pipeline.own_only] == ["earlier"]
    assert pipeline.predict(Launch({"enable_lora": True})).status == UNDECIDED
