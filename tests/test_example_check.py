"""Examples judged by the whole pipeline: the verdict from both commands' first-error
predictions, and the repair that moves an example off the error that fires instead."""
from __future__ import annotations

import textwrap

import pytest

from analyzers.eval_model import Model
from analyzers.example_check import SERVER_START, ExampleJudge, Pair, refuted_because, verdict
from analyzers.examples import Examples
from analyzers.first_error import ERROR, OK, UNDECIDED, Check, Pipeline, Prediction
from analyzers.flag_build import build_flag_model
from analyzers.platform_facts import Stated
from analyzers.withheld import example_stats
from extractor.ir import TRUE, Apply, Compare, Const, Not, Ref, RefKind, Truthy, conj
from extractor.profile import ExampleRules
from extractor.real_profile import ModelProperties, Platform, RealProfile

FLAGS = build_flag_model({"p/args.py": textwrap.dedent('''
    def add_cli_args(parser):
        parser.add_argument("--model-path", type=str, required=True)
        parser.add_argument("--device", type=str, default=None)
        parser.add_argument("--tp-size", type=int, default=1)
        parser.add_argument("--pp-size", type=int, default=1)
        parser.add_argument("--enable-lora", action="store_true")
        parser.add_argument("--enable-spec", action="store_true")
        parser.add_argument("--mm-config", type=json.loads, default=None)
''')})
PP = Ref(RefKind.FLAG, "pp_size", "cfg.pp_size")
LORA = Ref(RefKind.FLAG, "enable_lora", "cfg.enable_lora")
SPEC = Ref(RefKind.FLAG, "enable_spec", "cfg.enable_spec")
HIP = Ref(RefKind.PLATFORM, "is_hip", "is_hip()")
PREFIX = "serve"
EXAMPLES = Examples(ExampleRules(model="model_path"))
REAL = RealProfile("pkg", default_model="Llama", model_configs=(("Llama", "{}"),))
GENERIC = Platform("generic", ("--device", "cuda"), False, absent=(("device", ("npu",)),))


def _judge(*checks: Check) -> ExampleJudge:
    pipeline = Pipeline(checks, Model(FLAGS, (), EXAMPLES))
    stated = Stated.of(pipeline.conditions(), FLAGS, GENERIC, REAL, EXAMPLES)
    return ExampleJudge(pipeline, stated, FLAGS, PREFIX)


# an earlier check on --pp-size fires before the LoRA + spec one the example is about
PP_FIRST = Check("pp", "a.py", 1, "hook", Compare(">", PP, Const(1)), 1)
LORA_SPEC = Check("own", "a.py", 2, "hook", conj([Truthy(LORA), Truthy(SPEC)]), 2)
ON_HIP = Check("hip", "a.py", 0, "hook", conj([Truthy(HIP), Truthy(LORA)]), 0)  # a platform fact decides


def _p(status: str, entry: str | None = None, may: tuple[str, ...] = (), sure: str | None = None) -> Prediction:
    return Prediction(status, entry, may, (), sure)


@pytest.mark.parametrize(("before", "after", "said"), [
    (_p(ERROR, "own", ("own",), "own"), _p(OK), "true"),
    (_p(ERROR, "pp", ("pp",), "pp"), _p(OK), "false"),  # an earlier error fires first
    (_p(OK), _p(OK), "false"),  # before meets nothing
    (_p(ERROR, "own", ("own",), "own"), _p(ERROR, "pp", ("pp",), "pp"), "false"),  # the fix meets another error
    (_p(UNDECIDED, None, ("hip", "own"), "own"), _p(OK), "unknown"),  # an unknown fact decides
    (_p(UNDECIDED, None, ("hip", "pp"), "pp"), _p(OK), "false"),  # own is not among what may fire
    (_p(ERROR, "own", ("own",), "own"), _p(UNDECIDED, None, ("hip", "pp"), "pp"), "false"),  # after surely fails
    (_p(ERROR, "own", ("own",), "own"), _p(UNDECIDED, None, ("hip",)), "unknown"),
])
def test_verdict(before, after, said):
    assert verdict("own", before, after) == said


def _fix(before: str, after: str, predicted: str = "true") -> dict:
    return {"before": f"{PREFIX} {before}", "after": f"{PREFIX} {after}", "verified": "not-run",
            "predicted": predicted}


def test_an_example_the_pipeline_confirms_keeps_its_commands():
    found = _judge(PP_FIRST, LORA_SPEC).judge("own", _fix("--enable-lora --enable-spec", "--enable-lora"))
    assert (found["before"], found["after"], found["predicted"]) == (
        "serve --enable-lora --enable-spec", "serve --enable-lora", "true")


def test_an_example_an_earlier_error_refutes_is_moved_off_it_on_both_commands():
    found = _judge(PP_FIRST, LORA_SPEC).judge(
        "own", _fix("--pp-size 2 --enable-lora --enable-spec", "--pp-size 2 --enable-lora"))
    assert (found["before"], found["after"], found["predicted"]) == (
        "serve --enable-lora --enable-spec", "serve --enable-lora", "true")


def test_a_check_weighed_for_its_own_examples_only_is_judged_and_repaired_with_the_checks_before_it():
    """`own` reads what a command line does not decide, so other launches' predictions leave it
    out (`Pipeline.own_only`); its own example still meets the earlier error and is moved off it,
    while a launch of another check does not meet it."""
    pipeline = Pipeline((PP_FIRST,), Model(FLAGS, (), EXAMPLES), own_only=(LORA_SPEC,))
    stated = Stated.of(pipeline.conditions(), FLAGS, GENERIC, REAL, EXAMPLES)
    judge = ExampleJudge(pipeline, stated, FLAGS, PREFIX)
    found = judge.judge("own", _fix("--pp-size 2 --enable-lora --enable-spec", "--pp-size 2 --enable-lora"))
    assert (found["before"], found["after"], found["predicted"]) == (
        "serve --enable-lora --enable-spec", "serve --enable-lora", "true")
    assert judge.judge("pp", _fix("--pp-size 2 --enable-lora --enable-spec", "--pp-size 1"))["predicted"] == "true"


def test_a_repair_stops_at_the_first_move_that_works(monkeypatch):
    """Dropping `--pp-size` gets off the earlier error: no search for other ways is run."""
    import analyzers.example_check

    def searched(*args, **kwargs):
        raise AssertionError("searched past a move that works")

    monkeypatch.setattr(analyzers.example_check, "satisfy", searched)
    found = _judge(PP_FIRST, LORA_SPEC).judge(
        "own", _fix("--pp-size 2 --enable-lora --enable-spec", "--pp-size 2 --enable-lora"))
    assert (found["before"], found["after"], found["predicted"]) == (
        "serve --enable-lora --enable-spec", "serve --enable-lora", "true")

def test_an_example_that_meets_nothing_is_moved_onto_its_own_condition():
    found = _judge(LORA_SPEC).judge("own", _fix("--enable-lora", "--enable-lora", predicted="unknown"))
    assert found["predicted"] == "true" and found["before"] == "serve --enable-lora --enable-spec"


def test_a_fact_no_command_sets_leaves_the_example_unknown_with_what_decides_it():
    found = _judge(ON_HIP, LORA_SPEC).judge("own", _fix("--enable-lora --enable-spec", "--enable-lora"))
    assert found["predicted"] == "true"  # on the generic platform no predicate holds
    stated_elsewhere = _judge(ON_HIP, LORA_SPEC)
    stated_elsewhere.stated = Stated.of(stated_elsewhere.pipeline.conditions(), FLAGS,
                                        Platform("somewhere", ("--device", "cuda"), None), REAL, EXAMPLES)
    found = stated_elsewhere.judge("own", _fix("--enable-lora --enable-spec", "--enable-lora"))
    assert found["predicted"] == "unknown"
    assert found["undecided"] == ["platform:is_hip"]


@pytest.mark.parametrize("fix", [
    {"before": None, "after": None, "verified": "not-run", "predicted": "false"},  # no command
    {**_fix("--pp-size 2", "--pp-size 1"), "needs": ["platform:is_hip=true"]},  # not run on this machine
    _fix("--enable-lora", "--enable-lora") | {"before": "not the launcher --x"},  # not a launch of the prefix
])
def test_examples_that_cannot_run_here_are_left_as_they_are(fix):
    assert _judge(PP_FIRST, LORA_SPEC).judge("own", fix) == fix


def test_an_example_needing_what_this_platform_gives_is_judged_here():
    """``platform:is_hip=false`` on the generic platform (every predicate false): it runs here."""
    fix = {**_fix("--pp-size 2", "--pp-size 1"), "needs": ["platform:is_hip=false"], "predicted": "unknown"}
    found = _judge(PP_FIRST, LORA_SPEC).judge("pp", fix)
    assert found["predicted"] == "true" and found["needs"] == ["platform:is_hip=false"]


def test_an_example_of_a_check_run_as_the_server_starts_needs_a_server_start():
    pipeline = Pipeline((PP_FIRST,), Model(FLAGS, (), EXAMPLES), later=frozenset({"ports"}))
    judge = ExampleJudge(pipeline, Stated.of(pipeline.conditions(), FLAGS, GENERIC, REAL, EXAMPLES), FLAGS, PREFIX)
    fix = _fix("--pp-size 2", "--pp-size 1")
    assert judge.judge("ports", fix) == {**fix, "needs": [SERVER_START]}


def test_an_example_of_a_row_only_the_server_start_passes_needs_a_server_start():
    fix = _fix("--pp-size 2", "--pp-size 1")
    assert _judge(PP_FIRST).judge("pp", fix, at_start=True) == {**fix, "needs": [SERVER_START]}


def test_an_example_giving_a_machine_option_another_value_needs_such_a_machine():
    found = _judge(PP_FIRST, LORA_SPEC).judge(
        "own", _fix("--device npu --enable-lora --enable-spec", "--device npu --enable-lora"))
    assert found["needs"] == ['platform:device="npu"'] and found["predicted"] == "true"


def test_an_example_whose_fix_changes_the_machine_shows_only_its_before():
    """No machine runs `--device npu` and `--device xpu`: the fix found is no change a user on
    that machine makes, so only `before` is shown, with what it needs."""
    on_npu = Check("own", "a.py", 2, "hook", conj([Compare("==", Ref(RefKind.FLAG, "device", "cfg.device"),
                                                           Const("npu")), Truthy(LORA)]), 2)
    pipeline = Pipeline((on_npu,), Model(FLAGS, (), EXAMPLES))
    cuda_only = Platform("generic", ("--device", "cuda"), False, absent=(("device", ("npu", "xpu")),))
    judge = ExampleJudge(pipeline, Stated.of(pipeline.conditions(), FLAGS, cuda_only, REAL, EXAMPLES), FLAGS, PREFIX)
    found = judge.judge("own", _fix("--device npu --enable-lora", "--device xpu --enable-lora"))
    assert (found["before"], found["after"], found["needs"]) == (
        "serve --device npu --enable-lora", None, ['platform:device="npu"'])
    assert found["withheld"]["reason"] == "after_fails" and 'platform:device="xpu"' in found["note"]


@pytest.mark.parametrize(("before", "after", "why"), [
    (_p(ERROR, "pp", ("pp",), "pp"), _p(OK), "`before` stops first at entry pp (an earlier check)"),
    (_p(OK), _p(OK), "`before` does not reach this error"),
    (_p(ERROR, "own", ("own",), "own"), _p(ERROR, "pp", ("pp",), "pp"), "`after` meets entry pp"),
])
def test_a_refuted_example_says_what_the_pipeline_predicts_instead(before, after, why):
    assert why in refuted_because("own", before, after)


@pytest.mark.parametrize(("before", "after", "blocker"), [
    (_p(ERROR, "pp", ("pp",), "pp"), _p(OK), ("pp", "both")),  # off the error that fires instead
    (_p(OK), _p(OK), ("own", "before")),  # onto this entry, where `before` meets nothing
    # onto this entry too where `before` leaves only other checks open: it surely does not fire there
    (_p(UNDECIDED, None, ("other",)), _p(OK), ("own", "before")),
    # off the check that may fire first, where this entry may fire after it
    (_p(UNDECIDED, None, ("other", "own")), _p(OK), ("other", "both")),
])
def test_a_repair_moves_off_what_fires_instead_or_onto_its_own_error(before, after, blocker):
    from analyzers.example_check import _blocker

    launch = _judge(PP_FIRST).user_launch("serve --model-path <model>")
    assert _blocker("own", (launch, before), (launch, after)) == (*blocker, launch)


def test_a_note_names_another_entry_by_its_words_else_its_checks_place():
    named = ExampleJudge(_judge(PP_FIRST).pipeline, _judge(PP_FIRST).stated, FLAGS, PREFIX, {"pp": "“pp too big”"})
    assert named.place(PP_FIRST.id) == "“pp too big”"
    assert _judge(PP_FIRST, LORA_SPEC).place(PP_FIRST.id) == f"the check at {PP_FIRST.path}:{PP_FIRST.line}"
    assert _judge(PP_FIRST).place("gone") == "entry gone"


@pytest.mark.parametrize(("fixes", "expected"), [
    ([{"before": "serve --x"}, {"before": "serve --y", "needs": ["platform:is_hip=true"]}],
     {"examples": 2, "examples_with_needs": 1, "no_example": 0}),
    ([{"before": None, "note": "No command line the search tried triggers this"}],
     {"examples": 0, "examples_with_needs": 0, "no_example": 1}),
    # withheld pairs counted by their reason; a `before` shown alone still counts as an example
    ([{"before": None, "withheld": {"before": "serve --x", "after": "serve", "reason": "earlier_check"}},
      {"before": None, "withheld": {"before": "serve --y", "after": "serve", "reason": "earlier_check"}},
      {"before": "serve --z", "withheld": {"before": "serve --z", "after": "serve", "reason": "after_fails"}}],
     {"examples": 1, "examples_with_needs": 0, "no_example": 0, "withheld_earlier_check": 2,
      "withheld_after_fails": 1}),
])
def test_catalog_stats_count_examples_and_withheld_pairs_by_reason(fixes, expected):
    assert example_stats(fixes) == expected


def test_an_example_no_move_repairs_is_withheld_and_says_why():
    """Users copy commands: a pair the pipeline refutes is not shown, but kept for confirm."""
    always = Check("always", "a.py", 0, "hook", TRUE, 0)  # fires first on every launch
    found = _judge(always, LORA_SPEC).judge("own", _fix("--enable-lora --enable-spec", "--enable-lora"))
    assert (found["predicted"], found["before"], found["after"]) == ("false", None, None)
    assert found["withheld"] == {"before": "serve --enable-lora --enable-spec", "after": "serve --enable-lora",
                                 "reason": "earlier_check"}
    assert found["note"].startswith("Predicted not to work as written: `before` stops first at the check at a.py:0")


def test_a_move_off_an_earlier_error_keeps_the_examples_own_condition():
    """The smallest change that silences the earlier check (dropping --enable-spec) would
    silence this entry too: the search is asked for both at once."""
    lora_spec_pp1 = Check("pp1", "a.py", 1, "hook", conj([Truthy(LORA), Truthy(SPEC), Compare("<", PP, Const(2))]), 1)
    found = _judge(lora_spec_pp1, LORA_SPEC).judge("own", _fix("--enable-lora --enable-spec", "--enable-lora"))
    assert found["predicted"] == "true"
    assert "--enable-lora --enable-spec" in found["before"] and "--pp-size" in found["before"]


def test_an_example_stopped_by_a_later_check_is_moved_onto_its_own_condition_first():
    """`before` passes this entry (no --enable-spec) and stops at a check sglang runs after it,
    which no move keeping this entry's condition gets off: `before` is moved onto this entry,
    and `after` keeps that move (it shows only the fix)."""
    later = Check("later", "a.py", 3, "hook", Truthy(LORA), 3)
    found = _judge(LORA_SPEC, later).judge("own", _fix("--enable-lora", "--pp-size 1"))
    assert (found["before"], found["after"], found["predicted"]) == (
        "serve --enable-lora --enable-spec", "serve --pp-size 1 --enable-spec", "true")


MODEL_OBJECT = ModelProperties(r"(?:.*\.)?model_config", "pkg.config:Config.build", (), (
    ("1.0", '{"Llama": {"is_multimodal": false}, "Qwen": {"is_multimodal": true}}'),))
MULTIMODAL = Truthy(Ref(RefKind.MODEL, "model_config.is_multimodal", "model_config.is_multimodal"))


def test_an_example_needing_another_model_is_moved_onto_a_stand_in_that_has_it():
    """No option makes the model multimodal; the stand-in measured to be one does, on both commands."""
    on_multimodal = Check("own", "a.py", 2, "hook", conj([MULTIMODAL, Truthy(LORA)]), 2)
    pipeline = Pipeline((on_multimodal,), Model(FLAGS, (), EXAMPLES))
    real = RealProfile("pkg", default_model="Llama", model_configs=(("Llama", "{}"), ("Qwen", "{}")),
                       model_object=MODEL_OBJECT)
    judge = ExampleJudge(pipeline, Stated.of(pipeline.conditions(), FLAGS, GENERIC, real, EXAMPLES, "1.0"),
                         FLAGS, PREFIX)
    found = judge.judge("own", _fix("--model-path <model> --enable-lora", "--model-path <model>"))
    assert (found["before"], found["after"], found["predicted"]) == (
        "serve --model-path <model:Qwen> --enable-lora", "serve --model-path <model:Qwen>", "true")


def test_a_stand_in_where_only_options_are_missing_is_searched_for_them():
    """The entry needs a multimodal model and two options: on the measured multimodal stand-in
    the search adds the options (a stand-in is not passed over because the bare launch on it
    does not yet reach the entry)."""
    own = Check("own", "a.py", 2, "hook", conj([MULTIMODAL, Truthy(LORA), Truthy(SPEC)]), 2)
    pipeline = Pipeline((own,), Model(FLAGS, (), EXAMPLES))
    real = RealProfile("pkg", default_model="Llama", model_configs=(("Llama", "{}"), ("Qwen", "{}")),
                       model_object=MODEL_OBJECT)
    judge = ExampleJudge(pipeline, Stated.of(pipeline.conditions(), FLAGS, GENERIC, real, EXAMPLES, "1.0"),
                         FLAGS, PREFIX)
    found = judge.judge("own", _fix("--model-path <model>", "--model-path <model>", predicted="false"))
    assert found["predicted"] == "true"
    assert found["before"] == "serve --model-path <model:Qwen> --enable-lora --enable-spec"


TP = Ref(RefKind.FLAG, "tp_size", "cfg.tp_size")


def test_a_move_keeps_what_reaching_the_entry_needs():
    """Dropping --pp-size silences the earlier check, but this entry is reached only with
    --pp-size 2 (its `trigger.reach`); the move that keeps it sets --tp-size instead."""
    pp_tp = Check("pp_tp", "a.py", 1, "hook", conj([Compare(">", PP, Const(1)), Compare("<", TP, Const(2))]), 1)
    own = Check("own", "a.py", 3, "hook", Truthy(LORA), 3, reach=Compare(">", PP, Const(1)))
    found = _judge(pp_tp, own).judge("own", _fix("--pp-size 2 --enable-lora", "--pp-size 2"))
    assert found["predicted"] == "true"
    assert "--pp-size 2" in found["before"] and "--tp-size" in found["before"]


def test_an_example_whose_first_way_off_an_earlier_error_meets_another_is_repaired_another_way():
    """Off `pp_or_tp` by a lower --pp-size (the first way) meets `pp_low`; by --tp-size
    (the second way) the example works."""
    pp_or_tp = Check("first", "a.py", 1, "hook",
                     conj([Truthy(LORA), Compare(">", PP, Const(1)), Compare("<", TP, Const(2))]), 1)
    pp_low = Check("pp_low", "a.py", 2, "hook", conj([Truthy(LORA), Compare("<", PP, Const(2))]), 2)
    own = Check("own", "a.py", 3, "hook", Truthy(LORA), 3)
    found = _judge(pp_or_tp, pp_low, own).judge("own", _fix("--pp-size 2 --enable-lora", "--pp-size 2"))
    assert found["predicted"] == "true" and "--tp-size" in found["before"]


def _on_unknown_platform(*checks: Check) -> ExampleJudge:
    judge = _judge(*checks)
    judge.stated = Stated.of(judge.pipeline.conditions(), FLAGS, Platform("somewhere", ("--device", "cuda"), None),
                             REAL, EXAMPLES)
    return judge


HIP_PP = Check("hip_pp", "a.py", 1, "hook", conj([Truthy(HIP), Compare(">", PP, Const(1))]), 1)


@pytest.mark.parametrize(("before", "after", "moved"), [
    # an earlier check may fire on `before` (the platform decides): both commands move off it
    ("--pp-size 2 --enable-lora --enable-spec", "--pp-size 2 --enable-lora",
     ("serve --enable-lora --enable-spec", "serve --enable-lora")),
    # `after` may meet a check: it alone moves off it
    ("--enable-lora --enable-spec", "--pp-size 2 --enable-lora",
     ("serve --enable-lora --enable-spec", "serve --enable-lora")),
])
def test_an_example_a_platform_fact_leaves_open_is_moved_off_the_check_it_decides(before, after, moved):
    found = _on_unknown_platform(HIP_PP, LORA_SPEC).judge("own", _fix(before, after, predicted="unknown"))
    assert (found["before"], found["after"], found["predicted"]) == (*moved, "true")


def test_an_example_on_a_stand_in_that_does_not_build_here_needs_a_real_checkpoint():
    """The measurement of `Odd`'s generated config failed (its code reads what the config
    lacks): a launch on it stops outside the catalog, so only a real checkpoint runs it."""
    props = ModelProperties(r"(?:.*\.)?model_config", "pkg.config:Config.build", (), (
        ("1.0", '{"Llama": {"is_multimodal": false}, "Odd": {"error": "AttributeError: no kv_lora_rank"}}'),))
    pipeline = Pipeline((LORA_SPEC,), Model(FLAGS, (), EXAMPLES))
    real = RealProfile("pkg", default_model="Llama", model_configs=(("Llama", "{}"), ("Odd", "{}")),
                       model_object=props)
    judge = ExampleJudge(pipeline, Stated.of(pipeline.conditions(), FLAGS, GENERIC, real, EXAMPLES, "1.0"),
                         FLAGS, PREFIX)
    found = judge.judge("own", _fix("--model-path <model:Odd> --enable-lora --enable-spec",
                                    "--model-path <model:Odd> --enable-lora"))
    assert found["needs"] == ['model:Odd="real checkpoint"']
    assert "Odd" not in judge.stand_ins


@pytest.mark.parametrize(("before", "after", "said"), [
    ("--enable-lora --enable-spec", "--enable-lora", "true"),
    ("--pp-size 2 --enable-lora --enable-spec", "--pp-size 2 --enable-lora", "false"),  # pp fires first
    ("--enable-lora --enable-spec", "--enable-lora --enable-spec", "false"),  # after still fires
])
def test_a_pair_found_elsewhere_is_judged_as_it_is_not_repaired(before, after, said):
    """A repair `errcat confirm` ran gets the pipeline's word on exactly those commands."""
    assert _judge(PP_FIRST, LORA_SPEC).predicted("own", f"{PREFIX} {before}", f"{PREFIX} {after}") == said


def test_an_example_with_no_fix_the_pipeline_cannot_tell_raises_is_withheld():
    fix = {"before": f"{PREFIX} --enable-lora", "after": None, "verified": "not-run", "predicted": "unknown"}
    found = _judge(LORA_SPEC).judge("own", fix)
    assert (found["before"], found["after"]) == (None, None) and found["withheld"]["before"] == fix["before"]
    assert found["note"].startswith("No change found") and found["withheld"]["reason"] == "no_fix"


CUDA = Ref(RefKind.PLATFORM, "is_cuda", "is_cuda()")
NOT_CUDA = Not(Truthy(CUDA))
# this machine has no CUDA: a check of every LoRA launch on such a machine fires before the example's
CPU_FIRST = Check("cpu", "a.py", 1, "hook", conj([NOT_CUDA, Truthy(LORA)]), 1)


@pytest.mark.parametrize(("own", "shown"), [
    (LORA_SPEC, True),  # the example works where `is_cuda()` holds: shown, with what it needs
    (Check("own", "a.py", 2, "hook", conj([NOT_CUDA, Truthy(LORA), Truthy(SPEC)]), 2), False),  # it never works
])
def test_a_check_only_a_platform_fact_passes_makes_the_example_need_that_fact(own, shown):
    found = _judge(CPU_FIRST, own).judge("own", _fix("--enable-lora --enable-spec", "--enable-lora"))
    assert (found["before"] is not None) is shown
    if shown:
        assert (found["predicted"], found["needs"]) == ("unknown", ["platform:is_cuda=true"])
        assert found["assuming"] == {"facts": ["platform check `is_cuda` is true"], "predicted": "true"}


def test_where_the_repair_leads_away_the_pair_as_given_is_tried_on_the_platform_it_needs():
    """The repair moved off the CPU check by dropping what this entry needs (sglang 0.5.23's
    `--mooncake-ib-device ''` past a missing InfiniBand sysfs): the pair as given still works
    where the platform passes that check, and is shown with that need."""
    judge = _judge(CPU_FIRST, LORA_SPEC)
    pair = Pair(judge.user_launch("serve --enable-lora --enable-spec"), judge.user_launch("serve --enable-lora"))
    away = Pair(judge.user_launch("serve --enable-spec"), judge.user_launch("serve"))
    judge._way[judge._key("own", pair)] = [away]
    found = judge._assumed_on_way("own", pair, away)
    assert found is not None and (found[0], found[1]) == (pair, {"platform:is_cuda": True})


def test_a_move_onto_another_model_may_leave_open_what_a_platform_fact_decides():
    """No stand-in makes the example's own condition surely hold (it reads `is_cuda()`, which
    this platform leaves unknown): the move onto the multimodal one is still a move to try."""
    text_only = Check("text", "a.py", 1, "hook", conj([Truthy(LORA), Not(MULTIMODAL)]), 1)
    own = Check("own", "a.py", 2, "hook", conj([MULTIMODAL, Truthy(LORA), Truthy(CUDA)]), 2)
    pipeline = Pipeline((text_only, own), Model(FLAGS, (), EXAMPLES))
    real = RealProfile("pkg", default_model="Llama", model_configs=(("Llama", "{}"), ("Qwen", "{}")),
                       model_object=MODEL_OBJECT)
    unknown = Platform("somewhere", ("--device", "cuda"), None)
    judge = ExampleJudge(pipeline, Stated.of(pipeline.conditions(), FLAGS, unknown, real, EXAMPLES, "1.0"),
                         FLAGS, PREFIX)
    launch = judge.judged(judge.user_launch("serve --model-path <model> --enable-lora"))[0]
    goal, own_goal = judge.goal("text", off=True), judge.goal("own", off=False)
    assert goal is not None and own_goal is not None
    moves = judge.moves("text", goal, [own_goal], launch)
    assert ({"model_path": "<model:Qwen>"}, set(), {}) in moves


@pytest.mark.parametrize(("message", "first"), [
    ("", ({"enable_spec": True}, set(), {})),  # the smallest change the search finds
    # the option the earlier error's message names first
    # (past the 80 characters a note quotes)
    ("the attention kernels of this deployment shard heads across ranks, so they need --tp-size 2 or more",
     ({"tp_size": 2}, set(), {})),
])
def test_a_repair_tries_first_the_option_the_earlier_errors_message_names(message, first):
    tp = Ref(RefKind.FLAG, "tp_size", "cfg.tp_size")
    blocker = Check("tp", "a.py", 1, "hook", conj([Not(Truthy(SPEC)), Compare("<", tp, Const(2))]), 1, message=message)
    judge = _judge(blocker, Check("own", "a.py", 2, "hook", Truthy(LORA), 2))
    launch = judge.judged(judge.user_launch("serve --model-path <model> --enable-lora"))[0]
    goal, own_goal = judge.goal("tp", off=True), judge.goal("own", off=False)
    assert goal is not None and own_goal is not None
    assert judge.moves("tp", goal, [own_goal], launch)[0] == first


def test_a_repair_the_pipeline_leaves_open_is_shown_as_unknown_not_withheld():
    """Off the earlier error, `before` meets this entry where `is_hip()` holds, which this
    platform leaves unknown: the repaired pair is shown, "unknown", for the real program to run."""
    own = Check("own", "a.py", 2, "hook", conj([Truthy(LORA), Truthy(SPEC), Truthy(HIP)]), 2)
    judge = _judge(PP_FIRST, own)
    judge.stated = Stated.of(judge.pipeline.conditions(), FLAGS, Platform("somewhere", ("--device", "cuda"), None),
                             REAL, EXAMPLES)
    found = judge.judge("own", _fix("--pp-size 2 --enable-lora --enable-spec", "--pp-size 2 --enable-lora"))
    assert (found["before"], found["after"], found["predicted"]) == (
        "serve --enable-lora --enable-spec", "serve --enable-lora", "unknown")
    assert found["undecided"] == ["platform:is_hip"]


def test_a_before_that_raises_the_error_is_shown_where_no_fix_is_found():
    """`after` meets an error no move gets it off: the pair is withheld, but `before` (which
    the pipeline says raises this entry first) is shown alone, saying why in one line."""
    no_lora = Check("no_lora", "a.py", 3, "hook", Not(Truthy(LORA)), 3)  # a launch without LoRA fails too
    own = Check("own", "a.py", 2, "hook", Truthy(LORA), 2)
    found = _judge(own, no_lora).judge("own", _fix("--enable-lora", "--pp-size 1"))
    assert (found["before"], found["after"], found["predicted"]) == ("serve --enable-lora", None, "false")
    assert found["withheld"] == {"before": "serve --enable-lora", "after": "serve --pp-size 1", "reason": "after_fails"}
    assert "(`after` meets the check at a.py:3)" in found["note"]
    assert found["note"].startswith("`before` raises this error (predicted)") and "\n" not in found["note"]


def test_a_pair_left_open_on_the_platform_it_needs_is_shown_with_that_need():
    """Past the CPU check (`is_cuda()` true), `is_hip()`, which this platform leaves unknown,
    decides: shown with what it needs, the prediction there "unknown"."""
    own = Check("own", "a.py", 2, "hook", conj([Truthy(LORA), Truthy(SPEC), Truthy(HIP)]), 2)
    judge = _judge(CPU_FIRST, own)
    judge.stated = Stated.of(judge.pipeline.conditions(), FLAGS,
                             Platform("cpu", ("--device", "cuda"), None, facts=(("is_cuda", False),)), REAL, EXAMPLES)
    found = judge.judge("own", _fix("--enable-lora --enable-spec", "--enable-lora"))
    assert (found["before"], found["needs"]) == ("serve --enable-lora --enable-spec", ["platform:is_cuda=true"])
    assert found["assuming"]["predicted"] == "unknown"


def test_of_the_pairs_a_repair_leaves_open_the_last_one_reached_is_shown():
    """The first pair may meet an earlier check on facts left open (`is_hip()` and --pp-size 2);
    the pair moved off it leaves only this entry open, and is the one shown."""
    maybe_pp = Check("maybe_pp", "a.py", 1, "hook", conj([Truthy(HIP), Compare(">", PP, Const(1))]), 1)
    own = Check("own", "a.py", 2, "hook", conj([Truthy(LORA), Truthy(SPEC), Truthy(HIP)]), 2)
    judge = _judge(maybe_pp, own)
    judge.stated = Stated.of(judge.pipeline.conditions(), FLAGS, Platform("somewhere", ("--device", "cuda"), None),
                             REAL, EXAMPLES)
    found = judge.judge("own", _fix("--pp-size 2 --enable-lora --enable-spec", "--pp-size 2 --enable-lora",
                                    predicted="unknown"))
    assert (found["before"], found["predicted"]) == ("serve --enable-lora --enable-spec", "unknown")


def test_a_repair_never_gives_a_parallel_size_0():
    """Off ``tp % pp != 0`` (behind its crash guard ``pp != 0``) while the error needs
    ``pp != 1`` and ``tp == 1``: only ``--pp-size 0`` would move off it, dividing by 0 in the
    real program. No repair: the example is not shown as working."""
    counting = Examples(ExampleRules(model="model_path", counts=("(tp|pp)_size",)))
    rival = Check("rival", "a.py", 1, "hook", conj([Compare("!=", PP, Const(0)),
                                                    Compare("!=", Apply("%", (TP, PP), "tp % pp"), Const(0))]), 1)
    own = Check("own", "a.py", 2, "hook", conj([Compare("!=", PP, Const(1)), Compare("==", TP, Const(1))]), 2)
    pipeline = Pipeline((rival, own), Model(FLAGS, (), counting))
    judge = ExampleJudge(pipeline, Stated.of(pipeline.conditions(), FLAGS, GENERIC, REAL, counting), FLAGS, PREFIX)
    found = judge.judge("own", _fix("--pp-size 2", ""))
    shown = found["before"] or found["withheld"]["before"]
    assert "--pp-size 0" not in shown and found["predicted"] != "true"


def test_a_move_off_an_earlier_error_may_leave_open_what_the_launch_does_not_state():
    """Off ``lora and pp < 2`` by --pp-size 2; this entry's own part `frob(tp)` is a value
    no launch states, so the search cannot make the whole goal true: the move that silences
    the earlier check and keeps this entry possible is shown, "unknown", for the real program."""
    pp_low = Check("pp_low", "a.py", 1, "hook", conj([Truthy(LORA), Compare("<", PP, Const(2))]), 1)
    frob = Truthy(Apply("frob", (TP,), "frob(cfg.tp_size)"))
    own = Check("own", "a.py", 2, "hook", conj([Truthy(LORA), frob]), 2)
    found = _judge(pp_low, own).judge("own", _fix("--enable-lora", "", predicted="unknown"))
    assert (found["before"], found["predicted"]) == ("serve --enable-lora --pp-size 2", "unknown")


MM = Ref(RefKind.FLAG, "mm_config", "cfg.mm_config")


@pytest.mark.parametrize(("words", "entry"), [
    ("--mm-config value", None),  # argparse refuses the word: the launch stops before any check
    ("--mm-config '[\"value\"]'", "own"),  # JSON, and not a mapping: the check sees it
])
def test_a_word_the_options_parser_refuses_stops_the_launch_before_any_check(words, entry):
    not_dict = Not(Truthy(Apply("isinstance", (MM, Const("dict")), "isinstance(cfg.mm_config, dict)")))
    own = Check("own", "a.py", 1, "hook", conj([Compare("is not", MM, Const(None)), not_dict]), 1)
    judge = _judge(own)
    found = judge.judged(judge.user_launch(f"{PREFIX} --model-path m {words}"))[1]
    assert (found.status, found.entry) == (ERROR, entry)



def test_an_after_moved_off_another_error_says_the_change_it_makes():
    """`after` without --enable-spec meets `needs`; moved off it by dropping --enable-lora too,
    the example's change says both, not only the solution it started from."""
    needs = Check("needs", "a.py", 3, "hook", conj([Truthy(LORA), Not(Truthy(SPEC))]), 3)
    fix = {**_fix("--enable-lora --enable-spec", "--enable-lora"), "solution": "Do not pass `--enable-spec`."}
    found = _judge(LORA_SPEC, needs).judge("own", fix)
    assert (found["after"], found["solution"]) == ("serve", "Drop `--enable-lora` and drop `--enable-spec`.")


def test_an_example_the_pipeline_does_not_judge_still_needs_the_device_it_names():
    """A check outside the validation the pipeline runs (no `Check` of it): its example gives
    `--device npu`, which this machine lacks, so it needs such a machine."""
    found = _judge(LORA_SPEC).judge("elsewhere", _fix("--device npu --enable-lora", "--device npu"))
    assert found["needs"] == ['platform:device="npu"']


def test_a_repair_left_open_that_changes_nothing_is_no_example(monkeypatch):
    """The search moved both commands the same way and the pipeline cannot tell the result:
    `after` is `before`, which shows no fix, so the pair as given is judged instead."""
    judge = _judge(PP_FIRST, LORA_SPEC)
    same = Pair(judge.user_launch("serve --enable-lora"), judge.user_launch("serve --enable-lora"))
    monkeypatch.setattr(judge, "_repaired", lambda own, pair: (same, "unknown", judge._predictions(same)))
    found = judge.judge("own", _fix("--pp-size 2 --enable-lora --enable-spec", "--pp-size 2 --enable-lora"))
    assert (found["before"], found["after"]) == (None, None)  # the given pair, which pp refutes: withheld
    assert found["withheld"]["before"] == "serve --pp-size 2 --enable-lora --enable-spec"


@pytest.mark.parametrize(("words", "shown"), [
    # the words restate the condition: the change the example makes is said instead
    ("Change `--enable-lora`, `--enable-spec` so that `--enable-lora` is not set or `--enable-spec` is not set.",
     "Drop `--enable-spec`."),
    ("Do not pass `--enable-spec`.", "Do not pass `--enable-spec`."),  # concrete words stay
])
def test_the_change_line_of_an_example_says_the_change_it_makes(words: str, shown: str) -> None:
    fix = {**_fix("--enable-lora --enable-spec", "--enable-lora"), "solution": words}
    assert _judge(PP_FIRST, LORA_SPEC).judge("own", fix)["solution"] == shown


def _rows_entry(example_row: int, *stages: str):
    """An entry ("pp") whose two table rows share one example, the entry's from row `example_row`."""
    from analyzers.entries import Entry, EntryVariant, Trigger
    from analyzers.trigger import Renderer
    from extractor.records import RaiseSite, SiteKind
    from extractor.templates import parse_template

    fix = _fix("--pp-size 2", "--pp-size 1")
    trigger = Trigger.build(TRUE, Renderer.for_model(FLAGS))
    site = RaiseSite("a.py", 1, "hook", SiteKind.RAISE, "ValueError", parse_template("PP {why}."), ())
    rows = tuple(EntryVariant((("why", s),), f"PP {s}.", trigger, example_fix=dict(fix), stage=s) for s in stages)
    return Entry("pp", site, "u", 1, "", trigger, rows, example_fix=dict(fix), extra={"example_row": example_row})


@pytest.mark.parametrize(("example_row", "stages", "needs_start"), [
    (1, ("start", ""), True),  # the example is the start row's
    (2, ("start", ""), False),  # another row's, equal to the start row's example
])
def test_an_entry_example_needs_a_server_start_only_when_its_own_row_does(example_row, stages, needs_start):
    from analyzers.example_check import judge_examples

    (judged,) = judge_examples([_rows_entry(example_row, *stages)], _judge(PP_FIRST))
    assert (SERVER_START in (judged.example_fix.get("needs") or ())) is needs_start


@pytest.mark.parametrize(("needs", "runs"), [
    ((), True),
    (("platform:is_hip=false",), True),  # every predicate reads false on the generic platform
    (("platform:is_hip=true",), False),
    (("platform:is_hip=false", "platform:is_hip=true"), False),
])
def test_the_machine_runs_an_example_whose_needs_it_gives(needs, runs):
    assert _judge(PP_FIRST).runs_here({**_fix("--pp-size 2", "--pp-size 1"), "needs": list(needs)}) is runs
