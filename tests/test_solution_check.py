"""Solutions as checked changes: each applied to a command that reaches its error and judged
by the whole pipeline, like an example; the record's JSON round trip."""
from __future__ import annotations

import pytest

from analyzers.entries import Entry, Trigger
from analyzers.first_error import Check
from analyzers.solution import Change, Solution, change_between, solution_text
from analyzers.solution_check import check_solutions, further_words, is_solution, judged_pairs, worded
from extractor.ir import TRUE, Compare, Const, Not, Ref, RefKind, Truthy, conj
from extractor.records import RaiseSite, SiteKind
from extractor.templates import parse_template
from tests.present import present
from tests.test_example_check import LORA, LORA_SPEC, PP_FIRST, PREFIX, SPEC, _fix, _judge

TP = Ref(RefKind.FLAG, "tp_size", "cfg.tp_size")
# fires after "own" where LoRA is given without spec on one GPU: dropping spec alone trades one error for it
NEEDS_SPEC = Check("needs", "a.py", 3, "hook", conj([Truthy(LORA), Not(Truthy(SPEC)), Compare("<=", TP, Const(1))]),
                   3)
# fires after "own" on every launch without spec: nothing gets past both
NO_SPEC = Check("nospec", "a.py", 3, "hook", Not(Truthy(SPEC)), 3)


def _entry(solutions: tuple[Solution, ...], fix: dict, own: str = "own", message: str = "LoRA with spec.") -> Entry:
    site = RaiseSite("a.py", 2, "hook", SiteKind.RAISE, "ValueError", parse_template(message), ())
    trigger = Trigger(TRUE, "t", (), (), (), ())
    return Entry(own, site, "u", 1, "", trigger, (), solutions=solutions, example_fix=fix)


DROP_SPEC = Solution("Do not pass `--enable-spec`.", Truthy(SPEC))
DROP_LORA = Solution("Do not pass `--enable-lora`.", Truthy(LORA))


@pytest.mark.parametrize(("checks", "sol", "text", "change", "before", "command"), [
    # gets past: listed with its command
    ((PP_FIRST, LORA_SPEC), DROP_SPEC, "Do not pass `--enable-spec`.", {"drop": ["--enable-spec"]},
     "--enable-lora --enable-spec", "--enable-lora"),
    # walks into a later error: shown on a launch that also has what that one needs (not by
    # dropping the feature this error is about: another solution says that)
    ((LORA_SPEC, NEEDS_SPEC), DROP_SPEC, "Do not pass `--enable-spec`.", {"drop": ["--enable-spec"]},
     "--enable-lora --enable-spec --tp-size 2", "--enable-lora --tp-size 2"),
    ((LORA_SPEC, NEEDS_SPEC), DROP_LORA, "Do not pass `--enable-lora`.", {"drop": ["--enable-lora"]},
     "--enable-lora --enable-spec", "--enable-spec"),
])
def test_a_solution_is_applied_and_judged(checks, sol, text, change, before, command):
    other = _entry((), {}, "needs", "LoRA needs spec.")
    done, _ = check_solutions([_entry((sol,), _fix("--enable-lora --enable-spec", "--enable-lora")), other],
                              _judge(*checks))
    (found,) = done.solutions
    assert (found.text, present(found.change).as_dict(), found.before, found.command, found.predicted) == (
        text, change, f"{PREFIX} {before}", f"{PREFIX} {command}", "true")


def test_a_solution_that_trades_the_error_for_another_is_not_listed():
    (done,) = check_solutions([_entry((DROP_SPEC, DROP_LORA), _fix("--enable-lora --enable-spec", "--enable-lora"))],
                              _judge(LORA_SPEC, NO_SPEC))
    assert [s.text for s in done.solutions] == ["Do not pass `--enable-lora`."]


def test_without_a_command_that_reaches_the_error_a_solution_keeps_its_words_undecided():
    fix = {"before": None, "after": None, "verified": "not-run", "predicted": "false"}
    (done,) = check_solutions([_entry((DROP_SPEC,), fix)], _judge(LORA_SPEC))
    assert [(s.text, s.command, s.predicted) for s in done.solutions] == [
        ("Do not pass `--enable-spec`.", None, "unknown")]


@pytest.mark.parametrize(("change", "words"), [
    (Change(drop=("--x",)), "drop `--x`"),
    (Change(set=(("--tp-size", "2"),)), "set `--tp-size` to 2"),
    (Change(set=(("--enable-lora", ""),), drop=("--y",)), "pass `--enable-lora` and drop `--y`"),
    (Change(env=(("A", "1"), ("B", None))), "set `A=1` and unset `B`"),
    (Change(set=(("--a", "1"), ("--b", "2")), drop=("--c",)), "set `--a` to 1, set `--b` to 2 and drop `--c`"),
    # a model stand-in is the model it stands for
    # (the default one: any model; where it replaces a model of the check's architecture, another one)
    (Change(set=(("--draft-model-path", "<model>"),)), "point `--draft-model-path` at a model (`<model>`)"),
    (Change(set=(("--model-path", "<model>"),), other_architecture=frozenset({"--model-path"})),
     "point `--model-path` at a model of another architecture (`<model>`)"),
    (Change(set=(("--model", "<model:Qwen3ForCausalLM>"),)),
     "point `--model` at a Qwen3ForCausalLM model (`<model:Qwen3ForCausalLM>`)"),
])
def test_change_words(change, words):
    assert change.words() == words


def test_a_model_of_the_checks_architecture_replaced_by_the_default_one_is_another_architecture():
    from analyzers.launch import Launch

    before = Launch({"model_path": "<model:Qwen3ForCausalLM>", "draft": None})
    after = Launch({"model_path": "<model>", "draft": "<model>"})
    words = change_between(before, after, None).words()
    assert "point `--model-path` at a model of another architecture" in words


@pytest.mark.parametrize(("change", "words", "said"), [
    (Change(set=(("--r", "1.0"),)), "Set `--r` to 1.0.", True),
    (Change(set=(("--r", "0.5"),)), "Set `--r` to 1.0.", False),  # another value than the words name
    (Change(drop=("--x",)), "Set `--x` to one of a, b (or leave it unset).", True),
    (Change(drop=("--x", "--y")), "Do not pass `--x`.", False),  # more than the words say
    (Change(env=(("A", None),)), "Unset `A`.", True),
])
def test_a_change_is_said_by_words_that_name_all_it_does(change, words, said):
    assert change.said_by(words) is said


@pytest.mark.parametrize("sol", [
    Solution("Leave `--x` unset."),
    Solution("t", None, Change(drop=("--x",)), "serve --x 1", "serve", "true", "true", "confirmed (0.1)"),
    Solution("t", None, Change(env=(("A", None),)), "A=1 serve", "serve", "unknown"),
])
def test_solution_round_trip(sol):
    assert Solution.from_dict(sol.as_dict()) == sol


@pytest.mark.parametrize(("data", "text"), [("plain words", "plain words"), ({"text": "a record"}, "a record")])
def test_solution_text_reads_both_forms(data, text):
    assert solution_text(data) == text
    assert Solution.from_dict(data).text == text


@pytest.mark.parametrize("data", [{"text": "t", "extra": 1}, {"text": 3}, ["t"], {"text": "t", "change": {"x": 1}}])
def test_a_stored_solution_of_another_shape_is_refused(data):
    from extractor.shape import ShapeError

    with pytest.raises(ShapeError):
        Solution.from_dict(data)


def test_judged_pairs_are_the_solutions_with_a_command():
    entry = {"example_fix": {}, "solutions": [{"text": "a", "before": "b", "command": "c"}, {"text": "no command"}],
             "variants": [{"example_fix": {}, "solutions": [{"text": "d", "before": "b", "command": "e"}]}]}
    assert [(label, sol["command"]) for label, _, sol in judged_pairs(entry)] == [
        ("solution 1", "c"), ("variant 1 solution 1", "e")]
    assert [is_solution(label) for label in ("", "variant 2", "solution 1", "variant 1 solution 2")] == [
        False, False, True, True]


def test_a_derived_setting_is_changed_through_the_option_it_is_derived_from():
    """``graphs`` is set by the code where ``--enable-spec`` is given: the solution drops that
    option; where the search finds no such change, its note is said instead."""
    from analyzers.eval_model import Model
    from analyzers.example_check import ExampleJudge
    from analyzers.first_error import Pipeline
    from analyzers.platform_facts import Stated
    from analyzers.rules import Rule
    from analyzers.witness import Leaf
    from extractor.ir import Const, Ref, RefKind
    from tests.test_example_check import EXAMPLES, FLAGS, GENERIC, REAL

    graphs = Ref(RefKind.FLAG, "graphs", "cfg.graphs")
    own = Check("own", "a.py", 2, "hook", conj([Truthy(graphs), Truthy(LORA)]), 2)
    rules = (Rule("graphs", Const(False), TRUE, at=0), Rule("graphs", Const(True), Truthy(SPEC), at=1))
    pipeline = Pipeline((own,), Model(FLAGS, rules, EXAMPLES))
    judge = ExampleJudge(pipeline, Stated.of(pipeline.conditions(), FLAGS, GENERIC, REAL, EXAMPLES), FLAGS, PREFIX)
    derived = Solution("Change `--enable-spec` so that graphs is off.", Truthy(graphs),
                       leaves=(Leaf(RefKind.FLAG, "enable_spec"),), note="Depends on graphs.")
    stuck = Solution("Change nothing.", Truthy(graphs), leaves=(Leaf(RefKind.FLAG, "tp_size"),), note="A note.")
    (done,) = check_solutions([_entry((derived, stuck), _fix("--enable-lora --enable-spec", "--enable-lora"))],
                              judge)
    assert [(present(s.change).as_dict(), s.command) for s in done.solutions] == [
        ({"drop": ["--enable-spec"]}, "serve --enable-lora")]
    assert done.advice_notes == ("A note.",)


def test_a_solution_that_also_does_what_another_does_alone_is_not_listed():
    """Dropping spec meets "LoRA needs spec" unless LoRA goes too: "drop spec and LoRA" does
    more than "drop LoRA", which works alone."""
    needs = Check("needs", "a.py", 3, "hook", conj([Truthy(LORA), Not(Truthy(SPEC))]), 3)
    (done,) = check_solutions([_entry((DROP_SPEC, DROP_LORA), _fix("--enable-lora --enable-spec", "--enable-lora"))],
                              _judge(LORA_SPEC, needs))
    assert [s.text for s in done.solutions] == ["Do not pass `--enable-lora`."]


def test_where_no_solution_gets_past_the_examples_own_change_is_one():
    (done,) = check_solutions([_entry((), _fix("--enable-lora --enable-spec", "--enable-lora"))], _judge(LORA_SPEC))
    assert [(s.text, s.command, s.predicted) for s in done.solutions] == [
        ("Drop `--enable-spec`.", f"{PREFIX} --enable-lora", "true")]


def test_a_solution_the_pipeline_lets_through_drops_advices_warning():
    warned = Solution("Do not pass `--enable-spec` — alone, this makes the earlier check on x fire first.",
                      Truthy(SPEC))
    (done,) = check_solutions([_entry((warned,), _fix("--enable-lora --enable-spec", "--enable-lora"))],
                              _judge(LORA_SPEC))
    assert [s.text for s in done.solutions] == ["Do not pass `--enable-spec`."]


@pytest.mark.parametrize(("text", "worded_as"), [
    ("Change `--tp-size` so that the trigger above no longer holds.", "Set `--tp-size` to 2."),
    ("Change `--tp-size` so that `--dp-size` divides it.", "Set `--tp-size` to 2 so that `--dp-size` divides it."),
])
def test_a_change_found_names_itself_and_keeps_only_a_goal_that_says_something(text, worded_as):
    assert worded(text, Change(set=(("--tp-size", "2"),))) == worded_as


def test_untried_words_that_only_restate_the_condition_give_way_to_a_change():
    fix = {"before": None, "after": None, "verified": "not-run", "predicted": "false"}
    vague = Solution("Change `--tp-size` so that the trigger above no longer holds.", Truthy(SPEC))
    (done,) = check_solutions([_entry((vague, DROP_SPEC), fix)], _judge(LORA_SPEC))
    assert [s.text for s in done.solutions] == ["Do not pass `--enable-spec`."]


def test_a_derived_setting_is_changed_through_the_option_it_is_derived_from_where_no_command_reaches():
    """The check reads `graph` (the code sets it from `--pp-size`); no command is known to reach
    the error (the shown `before` meets an earlier one): the solution is the option's change, undecided."""
    from analyzers.eval_model import Model
    from analyzers.feeding import feeding_leaves
    from analyzers.first_error import Pipeline
    from analyzers.platform_facts import Stated
    from analyzers.rules import Rule
    from tests.test_example_check import EXAMPLES, FLAGS, GENERIC, PP, REAL, ExampleJudge

    graph = Truthy(Ref(RefKind.FLAG, "graph", "cfg.graph"))
    model = Model(FLAGS, (Rule("graph", Compare("<=", PP, Const(1)), TRUE),), EXAMPLES)
    own = Check("own", "a.py", 2, "hook", conj([Truthy(LORA), graph]), 2)
    first = Check("first", "a.py", 1, "hook", Truthy(LORA), 1)  # every LoRA launch meets this one first
    pipeline = Pipeline((first, own), model)
    judge = ExampleJudge(pipeline, Stated.of(pipeline.conditions(), FLAGS, GENERIC, REAL, EXAMPLES), FLAGS, PREFIX)
    sol = Solution("Change `--pp-size` so that it no longer holds.", graph, leaves=feeding_leaves(graph, model),
                   note="Depends on settings derived by the code: graph.")
    (done,) = check_solutions([_entry((sol,), _fix("--enable-lora", "--tp-size 2", "false"))], judge)
    assert [(s.text, s.command, s.predicted) for s in done.solutions] == [
        ("Set `--pp-size` to 2: the setting the check reads is derived from it.", None, "unknown")]


def test_a_derived_setting_is_never_changed_through_a_value_the_search_made_up():
    """`graph` is set while `--device` is not given: the only change of `--device` after which it
    is not would be a made-up word (``--device example``), which no one sets to change it."""
    from analyzers.eval_model import Model
    from analyzers.feeding import feeding_leaves
    from analyzers.first_error import Pipeline
    from analyzers.platform_facts import Stated
    from analyzers.rules import Rule
    from tests.test_example_check import EXAMPLES, FLAGS, GENERIC, REAL, ExampleJudge

    graph = Truthy(Ref(RefKind.FLAG, "graph", "cfg.graph"))
    device = Ref(RefKind.FLAG, "device", "cfg.device")
    model = Model(FLAGS, (Rule("graph", Compare("is", device, Const(None)), TRUE),), EXAMPLES)
    own = Check("own", "a.py", 2, "hook", conj([Truthy(LORA), graph]), 2)
    first = Check("first", "a.py", 1, "hook", Truthy(LORA), 1)
    pipeline = Pipeline((first, own), model)
    judge = ExampleJudge(pipeline, Stated.of(pipeline.conditions(), FLAGS, GENERIC, REAL, EXAMPLES), FLAGS, PREFIX)
    sol = Solution("Change `--device` so that it no longer holds.", graph, leaves=feeding_leaves(graph, model),
                   note="Depends on settings derived by the code: graph.")
    (done,) = check_solutions([_entry((sol,), _fix("--enable-lora", "--tp-size 2", "false"))], judge)
    assert all("example" not in s.text for s in done.solutions)


@pytest.mark.parametrize(("message", "said"), [
    ("LoRA needs spec.", "“LoRA needs spec.”"),
    # a message of holes only (``raise E(str(error))``) says nothing: the error's exception and place
    ("{error}", "the ValueError at a.py:2"),
])
def test_another_error_a_solution_meets_is_named_by_its_message_or_its_place(message, said):
    assert _entry((), {}, "other", message).site.called == said


@pytest.mark.parametrize(("own", "extra", "whole", "words"), [
    # the further change is another option's: both are said
    (Change(set=(("--tp-size", "2"),)), Change(drop=("--enable-spec",)),
     Change(set=(("--tp-size", "2"),), drop=("--enable-spec",)),
     "Set `--tp-size` to 2, and drop `--enable-spec`: alone, the change meets “spec”."),
    # it drops what the solution sets: the words would contradict, so the whole change is said
    (Change(set=(("--tp-size", "2"),)), Change(drop=("--tp-size", "--enable-spec")),
     Change(drop=("--enable-spec",)), "Drop `--enable-spec`."),
    # it gives another value to what the solution sets
    (Change(set=(("--tp-size", "2"),)), Change(set=(("--tp-size", "4"),)),
     Change(set=(("--tp-size", "4"),)), "Set `--tp-size` to 4."),
])
def test_a_further_change_is_said_without_contradicting_the_solution(own, extra, whole, words):
    assert further_words(own.sentence(), own, extra, whole, "“spec”") == words


@pytest.mark.parametrize(("text", "change", "words"), [
    # the change names the values: its words, then the goal where it says more
    ("Change `--tp-size`, `--pp-size` so that `--tp-size` * `--pp-size` <= `SGLANG_MAX`.",
     Change(set=(("--tp-size", "2"), ("--pp-size", "1"))),
     "Set `--tp-size` to 2 and set `--pp-size` to 1 so that `--tp-size` * `--pp-size` <= `SGLANG_MAX`."),
    # a goal that only restates the values set is not said twice
    ("Change `--ssl-certfile` so that `--ssl-certfile` is set.", Change(set=(("--ssl-certfile", "<file>"),)),
     "Set `--ssl-certfile` to <file>."),
    # options dropped: nothing more to say
    ("Change `--a` so that `--a` is not set.", Change(drop=("--a",)), "Drop `--a`."),
])
def test_a_restated_condition_is_worded_as_the_change_it_makes(text, change, words):
    assert worded(text, change) == words


def test_where_no_command_reaches_the_error_a_solution_that_only_undoes_an_earlier_raise_is_not_listed():
    """"Leave `--kv-events-config` unset" past "--load-publish-endpoint requires --kv-events-config":
    that raise fires instead; with no command to judge it on, it is not listed."""
    fix = {"before": None, "after": None, "verified": "not-run", "predicted": "false"}
    undo = Solution("Do not pass `--enable-lora`.", Truthy(LORA), passed=True)
    (done,) = check_solutions([_entry((DROP_SPEC, undo), fix)], _judge(LORA_SPEC))
    assert [s.text for s in done.solutions] == ["Do not pass `--enable-spec`."]


def test_a_solution_that_only_undoes_an_earlier_raise_is_listed_only_where_the_pipeline_says_it_works():
    """model_hook.py:183 past the NPU check before it: "Change `--dcp-size` so that platform check
    is_npu is true and …" cannot be judged here, and would trade this error for that one."""
    hip = Truthy(Ref(RefKind.PLATFORM, "is_hip", "is_hip()"))
    undecided = Solution("Run on a ROCm machine.", hip, passed=True)
    (done,) = check_solutions([_entry((DROP_SPEC, undecided), _fix("--enable-lora --enable-spec", "--enable-lora"))],
                              _judge(LORA_SPEC))
    assert [s.text for s in done.solutions] == ["Do not pass `--enable-spec`."]


def test_a_part_the_messages_own_advice_already_changes_is_not_listed_twice():
    """"Set `--tp-size` to 2, as the message advises" and the trigger part's own "Set
    `--tp-size` to more than 1": one change of one option, said once, in the message's words."""
    fix = {"before": None, "after": None, "verified": "not-run", "predicted": "false"}
    advice = Solution("Set `--tp-size` to 2, as the message advises.", change=Change(set=(("--tp-size", "2"),)))
    part = Solution("Set `--tp-size` to more than 1.", Compare("<=", TP, Const(1)))
    (done,) = check_solutions([_entry((advice, part, DROP_SPEC), fix)], _judge(LORA_SPEC))
    assert [s.text for s in done.solutions] == [advice.text, DROP_SPEC.text]
