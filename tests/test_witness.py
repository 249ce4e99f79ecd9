"""Example fixes: a launch that fires the trigger, one change that stops it, and what
could not be decided when the evaluator cannot tell."""
from __future__ import annotations

import shlex
import textwrap

import pytest

from analyzers.advice import Context, example_fix, solutions
from analyzers.argv import launch_of_argv
from analyzers.candidate_values import NOT_GIVEN, env_candidates, flag_candidates
from analyzers.eval_model import Model
from analyzers.evaluate import evaluate, undecided
from analyzers.examples import JSON_LIST, JSON_WORD, WORD, Examples, known_values
from analyzers.flag_build import build_flag_model
from analyzers.kleene import Truth
from analyzers.launch import Launch
from analyzers.trigger import Renderer
from analyzers.witness import Leaf, base_launch, fact_candidates, falsify, literals
from extractor.ir import FALSE, IF, SOME_ITEM, And, Apply, Compare, Const, In, Not, Or, Ref, RefKind, Truthy, Unknown
from extractor.profile import ExampleRules
from tests.present import present

FLAGS = build_flag_model({"p/args.py": textwrap.dedent('''
    def add_cli_args(parser):
        parser.add_argument("--model-path", type=str, required=True)
        parser.add_argument("--tp-size", type=int, default=1)
        parser.add_argument("--pp-size", type=int, default=1)
        parser.add_argument("--nnodes", type=int, default=1)
        parser.add_argument("--x", type=int, default=0)
        parser.add_argument("--enable-lora", action="store_true")
        parser.add_argument("--lora-target-modules", type=str, nargs="*", default=None)
        parser.add_argument("--mm-config", type=json.loads, default=None)
        parser.add_argument("--layer-ids", type=int, nargs="+", default=None)
''')})
PREFIX = "serve"
EXAMPLES = Examples(ExampleRules(model="model_path", architecture=(r"hf_config\.architectures(\[0\])?",)))


def context() -> Context:
    """A fresh model per test: the search memoises on it."""
    return Context(Model(FLAGS, (), EXAMPLES), Renderer.for_model(FLAGS), PREFIX)


def flag(name: str) -> Ref:
    return Ref(RefKind.FLAG, name, f"cfg.{name}")


TP, PP, NNODES, X, LORA, MODULES = (flag(n) for n in ("tp_size", "pp_size", "nnodes", "x", "enable_lora",
                                                      "lora_target_modules"))
HIP = Ref(RefKind.PLATFORM, "is_hip", "is_hip()")
FROB = Apply("frob", (TP,), "frob(cfg.tp_size)")  # a function the evaluator does not know

NOT_DIVISIBLE = Compare("!=", Apply("%", (Apply("*", (TP, PP), "tp * pp"), NNODES), "(tp * pp) % nnodes"), Const(0))
ALL_WITH_OTHERS = And((In(Const("all"), MODULES), Compare("!=", Apply("len", (MODULES,), "len(m)"), Const(1))))


def launch_of(line: str) -> Launch:
    """The launch a command line of `example_fix` stands for (flags parsed by their declaration)."""
    words = shlex.split(line)
    assert words[0] == PREFIX, line
    flags: dict = {}
    dest = ""
    for word in words[1:]:
        if word.startswith("--"):
            found = present(FLAGS.by_option(word))
            dest = found.dest
            flags[dest] = True if found.action == "store_true" else () if found.nargs == "*" else None
        elif present(FLAGS.by_dest(dest)).nargs == "*":
            flags[dest] += (word,)
        else:
            flags[dest] = int(word) if present(FLAGS.by_dest(dest)).type == "int" else word
    return Launch(flags)


def fix_for(expr):
    ctx = context()
    return example_fix(expr, expr, solutions(expr, ctx), ctx)


# ------------------------------------------------------------------ predicted examples


@pytest.mark.parametrize(
    "expr",
    [
        pytest.param(NOT_DIVISIBLE, id="arithmetic"),
        pytest.param(ALL_WITH_OTHERS, id="list-contains-and-length"),
        pytest.param(And((Truthy(LORA), Compare(">", TP, Const(4)))), id="switch-and-bound"),
    ],
)
def test_a_reachable_trigger_gets_an_example_predicted_to_work(expr):
    fix = fix_for(expr)
    assert fix["predicted"] == "true"
    assert evaluate(expr, launch_of(fix["before"]), Model(FLAGS)) is Truth.TRUE
    assert evaluate(expr, launch_of(fix["after"]), Model(FLAGS)) is Truth.FALSE
    assert "note" not in fix and "undecided" not in fix


def test_joins_that_contradict_themselves_do_not_crowd_out_the_way_that_holds():
    # each ``or`` offers "LoRA off", which the first part rules out: of the 32 joins only
    # the last is consistent, past the bound on disjuncts unless contradictions are dropped
    off = Not(Truthy(LORA))
    expr = And((Truthy(LORA), *(Or((off, part)) for part in (
        Compare(">", TP, Const(1)), Compare(">", PP, Const(1)), Compare(">", NNODES, Const(1)),
        Compare(">", X, Const(1)), Compare("<", TP, Const(8))))))
    assert all(off not in disjunct for disjunct in literals(expr))
    fix = fix_for(expr)
    assert fix["predicted"] == "true"
    assert evaluate(expr, launch_of(fix["before"]), Model(FLAGS)) is Truth.TRUE


def test_a_check_on_some_item_of_a_list_gets_an_item_that_meets_it():
    """``any(i < 0 for i in cfg.layer_ids)``: a one-item list of a number past the bound,
    of the list's item type (the loop's name is no value to try)."""
    item = Ref(RefKind.UNKNOWN, "i", "i (element of cfg.layer_ids)")
    expr = Truthy(Apply(SOME_ITEM, (flag("layer_ids"), Const("i"), Compare("<", item, Const(0))), "any(...)"))
    fix = fix_for(expr)
    assert fix["predicted"] == "true"
    assert launch_of_argv(shlex.split(fix["before"])[1:], FLAGS).flags["layer_ids"] == (-1,)


def test_a_list_flag_is_grown_by_one_item_so_contains_and_length_hold_together():
    before = launch_of(fix_for(ALL_WITH_OTHERS)["before"]).flags["lora_target_modules"]
    assert before[0] == "all" and len(before) == 2


def test_a_list_flag_is_grown_to_the_length_the_condition_names_keeping_its_first_item():
    """``m[0] == "tse" and len(m) == 4``: ``tse`` and three more items."""
    first = Compare("==", Apply("item", (MODULES, Const(0)), "m[0]"), Const("tse"))
    expr = And((first, Compare("==", Apply("len", (MODULES,), "len(m)"), Const(4))))
    before = launch_of(fix_for(expr)["before"]).flags["lora_target_modules"]
    assert before[0] == "tse" and len(before) == 4


@pytest.mark.parametrize(
    "expr, varied",
    [
        (And((Compare(">", X, Const(1)), Compare("<", X, Const(2)))), "`--x`"),
        (And((Truthy(LORA), Not(Truthy(LORA)))), "`--enable-lora`"),
        (FALSE, None),  # nothing to vary
    ],
)
def test_an_unreachable_trigger_gets_a_note_instead_of_a_launch(expr, varied):
    fix = fix_for(expr)
    assert (fix["before"], fix["after"], fix["predicted"]) == (None, None, "false")
    assert fix["note"].startswith("No command line the search tried triggers this")
    assert (f"(it varied {varied})" in fix["note"]) if varied else ("it varied" not in fix["note"])


@pytest.mark.parametrize(
    "expr, before, after, undecided_terms",
    [
        (And((Truthy(HIP), Truthy(LORA))), "serve --model-path <model> --enable-lora", "serve --model-path <model>",
         ["platform check `is_hip()`"]),
        (And((Truthy(Unknown("g(x)")), Truthy(LORA))), "serve --model-path <model> --enable-lora",
         "serve --model-path <model>", ["`g(x)` (unknown)"]),
        (Compare(">", FROB, Const(1)), "serve --model-path <model>", None, ["frob(`--tp-size`)"]),
        (Truthy(HIP), None, None, ["platform check `is_hip()`"]),  # nothing settable: no command line
    ],
)
def test_an_unknown_verdict_lists_what_was_undecided_in_user_terms(expr, before, after, undecided_terms):
    fix = fix_for(expr)
    assert (fix["before"], fix["after"], fix["predicted"]) == (before, after, "unknown")
    assert fix["undecided"] == undecided_terms


# ------------------------------------------------------------------ the change back


@pytest.mark.parametrize(
    "part, given, after",
    [
        (Compare(">", TP, Const(4)), {"tp_size": 5}, {}),
        (Compare("!=", TP, PP), {"tp_size": 2}, {}),  # the given flag is read first anyway
        pytest.param(Compare("!=", TP, PP), {"pp_size": 2}, {}),
        pytest.param(NOT_DIVISIBLE, {"nnodes": 2}, {}),
    ],
)
def test_falsify_prefers_undoing_what_before_set(part, given, after):
    model = Model(FLAGS, ())
    base = base_launch(model)
    before = Launch({**base.flags, **given})
    assert evaluate(part, before, model) is Truth.TRUE
    found, still = falsify(part, part, model, before)
    assert still is Truth.FALSE
    assert found.flags == {**base.flags, **after}


# ------------------------------------------------------------------ undecided terms


@pytest.mark.parametrize(
    "expr, launch, expected",
    [
        (And((Not(Truthy(LORA)), Truthy(HIP), Truthy(Unknown("f(x)")))), Launch(), [HIP, Unknown("f(x)")]),
        (Compare(">", FROB, Const(1)), Launch(), [FROB]),  # an unknown function of known arguments
        (Compare(">", Apply("+", (TP, FROB), "tp + frob(tp)"), Const(1)), Launch(), [FROB]),  # not the sum
        (Truthy(Apply("frob", (HIP,), "frob(is_hip())")), Launch(), [HIP]),  # not the call: its argument
        (Compare("==", Apply("//", (TP, Const(0)), "tp // 0"), Const(1)), Launch(),
         [Apply("//", (TP, Const(0)), "tp // 0")]),
        (And((Truthy(HIP), Not(Truthy(HIP)))), Launch(), [HIP]),  # once
        (Truthy(flag("undeclared")), Launch(), [flag("undeclared")]),  # no default
        (Truthy(HIP), Launch(facts={"platform:is_hip": True}), []),  # stated as a fact
        (Compare(">", Apply("%", (TP, PP), "tp % pp"), Const(0)), Launch({"tp_size": 3}), []),
        (Compare(">", Apply(IF, (Truthy(HIP), TP, FROB), "tp if is_hip() else frob(tp)"), Const(0)), Launch(),
         [HIP, FROB]),
    ],
)
def test_undecided_names_the_smallest_undecidable_terms(expr, launch, expected):
    assert undecided(expr, launch, Model(FLAGS, ())) == expected


def test_a_dict_flag_witness_uses_the_key_the_condition_names():
    mm = flag("mm_config")
    expr = And((In(Const("image"), mm), Not(Truthy(Apply("isinstance", (Apply("item", (mm, Const("image")), "m[k]"),
                                                                         Const("dict")), "isinstance(m[k], dict)")))))
    fix = fix_for(expr)
    assert fix["predicted"] == "true" and "\"image\"" in fix["before"]


CHUNK = Ref(RefKind.MODEL, "model_config.chunk", "model_config.chunk")  # a model property, not the architecture
ARCH = Ref(RefKind.MODEL, "hf_config.architectures[0]", "hf_config.architectures[0]")
ARCHS = Ref(RefKind.MODEL, "hf_config.architectures", "hf_config.architectures")


def test_an_undecided_fact_still_shows_the_users_part_in_before():
    fix = fix_for(And((Compare("==", CHUNK, Const(8)), Truthy(LORA))))
    assert (fix["before"], fix["after"], fix["predicted"]) == ("serve --model-path <model> --enable-lora",
                                                              "serve --model-path <model>", "unknown")


@pytest.mark.parametrize("condition, model, assuming, needs", [
    # the architecture is stated by the command: predicted without assumptions
    (Compare("==", ARCH, Const("ArchA")), "<model:ArchA>", None, None),
    (In(Const("ArchA"), ARCHS), "<model:ArchA>", None, None),  # a list of architectures
    (Compare("==", Apply("item", (ARCHS, Const(0)), "archs[0]"), Const("ArchA")), "<model:ArchA>", None, None),
    (In(ARCH, Const(("ArchA", "ArchB"))), "<model:ArchA>", None, None),
    # other facts are assumed; a platform fact is also what the example needs
    (Truthy(HIP), "<model>", ["platform check `is_hip()` is true"], ["platform:is_hip=true"]),
    (Not(Truthy(HIP)), "<model>", ["platform check `is_hip()` is false"], ["platform:is_hip=false"]),
    (Compare("==", CHUNK, Const(8)), "<model>", ["model property `model_config.chunk` is 8"], None),
    (And((Compare("==", ARCH, Const("ArchA")), Truthy(HIP))), "<model:ArchA>",
     ["platform check `is_hip()` is true"], ["platform:is_hip=true"]),
    # two architectures at once: no single model states them
    (And((Compare("==", ARCH, Const("ArchA")), In(Const("ArchB"), ARCHS))), "<model>",
     ["model property `hf_config.architectures[0]` is ArchA",
      "model property `hf_config.architectures` is ArchB"], None),
])
def test_an_example_states_the_architecture_and_assumes_other_facts(condition, model, assuming, needs):
    fix = fix_for(And((condition, Truthy(LORA))))
    assert (fix["before"], fix["after"]) == (f"serve --model-path {model} --enable-lora", f"serve --model-path {model}")
    assert fix["predicted"] == ("unknown" if assuming else "true") and fix["verified"] == "not-run"
    assert (fix.get("assuming") or {}).get("facts") == assuming
    assert fix.get("needs") == needs
    if assuming:
        assert fix["assuming"]["predicted"] == "true"


UNDECIDED = Truthy(Unknown("frob()"))  # something no fact or flag decides


@pytest.mark.parametrize("condition, model, needs", [
    # the rest stays undecided: the architecture is still stated, the platform still needed
    (Compare("==", ARCH, Const("ArchA")), "<model:ArchA>", None),
    (In(ARCH, Const(("ArchA", "ArchB"))), "<model:ArchA>", None),
    (Truthy(HIP), "<model>", ["platform:is_hip=true"]),
    (Not(Truthy(HIP)), "<model>", ["platform:is_hip=false"]),
    (And((Compare("==", ARCH, Const("ArchA")), Truthy(HIP))), "<model:ArchA>", ["platform:is_hip=true"]),
    # a platform check beside a flag in one operand: not needed on every machine
    (Or((Truthy(HIP), Compare(">", TP, Const(1)))), "<model>", None),
    (Compare("==", CHUNK, Const(8)), "<model>", None),  # other model facts are not stated
])
def test_facts_are_stated_where_the_rest_stays_undecided(condition, model, needs):
    fix = fix_for(And((condition, UNDECIDED, Truthy(LORA))))
    assert fix["predicted"] == "unknown" and "assuming" not in fix
    assert fix["before"].startswith(f"serve --model-path {model} ") and "--enable-lora" in fix["before"]
    assert fix.get("needs") == needs


def test_an_assumed_example_fires_under_its_facts():
    fix = fix_for(And((Truthy(HIP), Truthy(LORA))))
    launch = Launch(launch_of(fix["before"]).flags, facts={"platform:is_hip": True})
    assert evaluate(And((Truthy(HIP), Truthy(LORA))), launch, context().model) is Truth.TRUE


def test_no_assumption_where_flags_decide_alone():
    assert "assuming" not in fix_for(And((Truthy(LORA), Compare(">", TP, Const(4)))))


def test_a_type_name_is_no_candidate_value():
    from analyzers.candidate_values import constants_in
    lora_is_list = Truthy(Apply("isinstance", (MODULES, Const("list")), "isinstance(m, list)"))
    assert constants_in(And((lora_is_list, Compare(">", TP, Const(4))))) == [4]


def test_an_undecided_setting_the_code_adjusts_says_so():
    from analyzers.example_search import _undecided_text
    from analyzers.rules import Rule
    ctx = Context(Model(FLAGS, (Rule("x", Const(5), Truthy(HIP)),), EXAMPLES), Renderer.for_model(FLAGS), PREFIX)
    assert [_undecided_text(t, ctx) for t in (X, TP)] == ["`--x` (set automatically when not given)", "`--tp-size`"]


def test_a_required_flag_is_never_dropped():
    from analyzers.candidate_values import NOT_GIVEN, flag_candidates
    model = context().model
    assert NOT_GIVEN not in flag_candidates("model_path", ["dummy"], model)
    assert flag_candidates("tp_size", [], model)[0] is NOT_GIVEN
    path = flag("model_path")
    fix = fix_for(And((Compare("!=", Apply("lower", (path,), "p.lower()"), Const("dummy")), Truthy(LORA))))
    assert fix["before"].startswith("serve --model-path ")


# ------------------------------------------------------------------ pasteable values

VALUE_FLAGS = build_flag_model({"p/args.py": textwrap.dedent('''
    def add_cli_args(parser):
        parser.add_argument("--model-path", type=str, required=True)
        parser.add_argument("--draft-model-path", type=str)
        parser.add_argument("--ssl-certfile", type=str)
        parser.add_argument("--trace-dir", type=str)
        parser.add_argument("--device", type=str)
        parser.add_argument("--algo", type=str, choices=["A", "B"])
        parser.add_argument("--mode", type=Literal["x", "y"])
        parser.add_argument("--hooks", type=str, help="Hook settings as JSON.")
        parser.add_argument("--extra", type=json.loads)
        parser.add_argument("--size", type=int)
        parser.add_argument("--paths", type=str, nargs="*")
        parser.add_argument("--layers", type=int, nargs="+")
        parser.add_argument("--endpoints", type=List[str])
'''), "p/environ.py": "class Envs:\n    SGLANG_MODE = EnvStr('a')\n"})
VALUE_RULES = ExampleRules(model="model_path", models=("draft_.*",), files=("ssl_.*",), dirs=(".*_dir",),
                           architecture=(r"hf_config\.architectures(\[0\])?",))
KNOWN = (("flag:device", ("cuda", "npu")), ("env:SGLANG_MODE", ("fast",)))


def value_model() -> Model:
    return Model(VALUE_FLAGS, (), Examples(VALUE_RULES, KNOWN))


@pytest.mark.parametrize("dest, consts, expected", [
    ("model_path", ["ConnectorType.INSTANCE", "hub/id"], ["<model>"]),  # the model: its stand-in only
    ("draft_model_path", [], [NOT_GIVEN, "<model>", ""]),
    ("ssl_certfile", [], [NOT_GIVEN, "<file>", "<missing>", ""]),  # a file that is there, then one that is not
    ("trace_dir", ["/tmp/x"], [NOT_GIVEN, "/tmp/x", "<dir>", "<missing>", ""]),  # the condition's own value first
    ("device", ["cpu"], [NOT_GIVEN, "cpu", "cuda", "npu", WORD, ""]),  # then what the code compares elsewhere
    ("device", ["Backend.FULL"], [NOT_GIVEN, "cuda", "npu", WORD, ""]),  # an enum member's source is no value
    ("algo", ["B", "C"], [NOT_GIVEN, "B", "A"]),  # declared choices only: argparse rejects the rest
    ("mode", ["y"], [NOT_GIVEN, "y", "x", WORD, ""]),  # a Literal type: other values last (the Python API)
    ("hooks", [], [NOT_GIVEN, JSON_WORD, "{}", JSON_LIST, '{"example": "value"}', ""]),  # its help says JSON
    # ... first with the fields the condition reads, as a dict flag's values (``json.loads(cfg.hooks).get("window")``)
    ("hooks", ["window", 1, "utf-8"], [NOT_GIVEN, '{"window": 0}', '{"window": 2}', '{"window": "value"}',
                                       JSON_WORD, "{}", JSON_LIST, '{"example": "value"}', "window", "utf-8", ""]),
    ("extra", ["image"], [NOT_GIVEN, {"image": "value"}, {"key": "value"}, {}, JSON_LIST]),
    # a field compared with a number gets numbers around it (sglang 0.5.23 kv_cache_hook.py:380)
    ("extra", ["threshold", 0], [NOT_GIVEN, {"threshold": -1}, {"threshold": 1}, {"threshold": "value"},
                                 {"key": "value"}, {}, JSON_LIST]),
    ("size", [4], [NOT_GIVEN, 4, 5, 3, 8, 1, 2, 0, -1]),
    # sizes a person passes first: 0 and negative values last, even where the condition names 0
    ("size", [0], [NOT_GIVEN, 1, 2, 8, 3, 0, -1]),
    ("paths", ["a"], [NOT_GIVEN, ("a",), (), ("a", WORD), ("a",) * 4]),
    ("layers", [], [NOT_GIVEN, (1,), (1, 2), (1,) * 4, (2,), (0,), (-1,)]),  # nargs="+": argparse refuses none
])
def test_flag_candidates_are_values_a_user_can_paste(dest, consts, expected):
    assert flag_candidates(dest, consts, value_model()) == expected


@pytest.mark.parametrize("name, consts, expected", [
    ("SGLANG_MODE", [], [NOT_GIVEN, "fast", WORD]),  # a str env var: always a value
    ("SGLANG_MODE", ["slow", "Mode.FAST"], [NOT_GIVEN, "slow", "fast", WORD]),
    ("SGLANG_OTHER", [], [NOT_GIVEN, WORD]),
])
def test_env_candidates_are_concrete(name, consts, expected):
    assert env_candidates(name, consts, value_model()) == expected


@pytest.mark.parametrize("leaf, consts, expected", [
    # an architecture: a name or a list of one name (`archs[0] == x`, `x in archs`)
    (Leaf(RefKind.MODEL, "hf_config.architectures"), ["ArchA", 0], [NOT_GIVEN, "ArchA", ("ArchA",)]),
    # a number near a constant, and a pair whose first item is one (a fact read by index:
    # ``get_device_capability()[0] >= 10``)
    (Leaf(RefKind.MODEL, "model_config.chunk"), [8], [NOT_GIVEN, 8, True, False, 9, 7, 16, (8, 0), (9, 0), (7, 0),
                                                      (16, 0)]),
])
def test_fact_candidates(leaf, consts, expected):
    assert fact_candidates(leaf, consts, value_model()) == expected


def test_a_list_its_parser_reads_from_one_word_also_tries_json_that_is_no_such_list():
    found = flag_candidates("endpoints", [], value_model())
    assert found[-2:] == [{"key": "value"}, (1,)]


def test_every_candidate_of_every_flag_is_pasteable():
    import re
    model = value_model()
    allowed = re.compile(r"<(model|model:\w+|file|dir|missing)>")
    for flag_ in VALUE_FLAGS.flags:
        for value in flag_candidates(flag_.dest, ["Enum.MEMBER", "k"], model):
            words = value if isinstance(value, tuple) else (value,)
            for word in words:
                assert not (isinstance(word, str) and "<" in word and not allowed.fullmatch(word)), (flag_.dest, word)
                assert word != "Enum.MEMBER", flag_.dest


@pytest.mark.parametrize("exprs, expected", [
    ([Compare("==", flag("device"), Const("cuda")), In(flag("device"), Const(("npu", "cuda")))],
     (("flag:device", ("cuda", "npu")),)),  # most compared first
    ([Compare("!=", Ref(RefKind.ENV, "M", "M"), Const("Mode.FAST")), Compare("is", flag("x"), Const(None))], ()),
    ([Compare("==", Const(3), flag("tp")), Compare(">", flag("pp"), Const(1))], (("flag:tp", (3,)),)),
])
def test_known_values_are_what_the_code_compares_against(exprs, expected):
    assert known_values(exprs) == expected


# ------------------------------------------------------------------ values the program accepts (profile)

ACCEPTING = Examples(ExampleRules(model="model_path", accepts=(
    ("lora_target_modules", ("q_proj", "k_proj", "all")), ("SGLANG_MODE", ("static", "compact")))))


def accepting_fix(expr):
    ctx = Context(Model(FLAGS, (), ACCEPTING), Renderer.for_model(FLAGS), PREFIX)
    return example_fix(expr, expr, solutions(expr, ctx), ctx)


MODE = Ref(RefKind.ENV, "SGLANG_MODE", "envs.SGLANG_MODE.get()")


@pytest.mark.parametrize("expr, before", [
    # a value the code names nowhere: one the program accepts, not a made-up word
    (And((Truthy(MODULES), Not(In(Const("q_proj"), MODULES)))),
     "serve --model-path <model> --lora-target-modules k_proj"),
    # a list grown by one item: an accepted one
    (ALL_WITH_OTHERS, "serve --model-path <model> --lora-target-modules all q_proj"),
    (And((Truthy(MODE), Compare("!=", MODE, Const("static")))), "SGLANG_MODE=compact serve --model-path <model>"),
])
def test_examples_give_only_values_the_program_accepts(expr, before):
    fix = accepting_fix(expr)
    assert (fix["before"], fix["predicted"]) == (before, "true")
    assert WORD not in fix["before"] + (fix["after"] or "")


@pytest.mark.parametrize("accepts, problem", [
    ({"x": "a"}, "examples.accepts: 'x': expected a list of values"),
    ({"x": []}, "examples.accepts: 'x': expected a list of values"),
    (["x"], "examples.accepts: expected a mapping of flag dest or env var -> accepted values, got a list"),
])
def test_profile_accepts_is_checked(accepts, problem):
    from extractor.errors import ProfileError
    from extractor.profile import parse_profile

    with pytest.raises(ProfileError, match=problem):
        parse_profile({"name": "n", "repo": "o/r", "targets": ["a.py"], "examples": {"accepts": accepts}}, "p")


# ------------------------------------------------------------------ memo


def test_candidates_tell_constants_of_different_types_apart():
    from analyzers.witness import candidates
    model = value_model()
    chunk = Ref(RefKind.MODEL, "model_config.chunk", "model_config.chunk")
    one, true = (candidates(Leaf(RefKind.MODEL, chunk.name), Compare("==", chunk, Const(c)), model) for c in (1, True))
    assert (one, true) == ([NOT_GIVEN, 1, True, False, 2, 0, (1, 0), (2, 0), (0, 0)],
                           [NOT_GIVEN, True, False])  # 1 == True in Python


def test_a_question_asked_again_is_answered_from_the_memo():
    from analyzers.witness import satisfy
    model = context().model
    expr = And((Truthy(LORA), Compare(">", TP, Const(4))))
    first = satisfy(expr, model, base_launch(model))
    assert satisfy(expr, model, base_launch(model)) is first
    assert satisfy(expr, context().model, base_launch(model)) == first  # a fresh model finds the same


def test_an_exception_name_is_no_candidate_value():
    """``json.loads(x)`` raising ValueError: "ValueError" is no value to give `x`."""
    from analyzers.candidate_values import constants_in
    from extractor.ir import RAISES
    parse = Apply("json.loads", (MODULES,), "json.loads(m)")
    fails = Truthy(Apply(RAISES, (Const(("ValueError",)), parse), "the try block raises ValueError"))
    assert constants_in(And((fails, Compare(">", TP, Const(4))))) == [4]


def test_a_literal_every_way_needs_rules_out_the_ways_against_it_whatever_its_place():
    """``(not lora or tp > 1)`` first, ``lora`` last: joined in their order, the 16 ways kept
    before ``lora`` is met all take "not lora" and none is left; joined fewest ways first, the
    ways kept take ``tp > 1``, still in the order the parts give."""
    off = Not(Truthy(LORA))
    others = (Or((Compare(">", PP, Const(1)), Compare("<", PP, Const(0)))),
              Or((Compare(">", NNODES, Const(1)), Compare("<", NNODES, Const(0)))),
              Or((Compare(">", X, Const(1)), Compare("<", X, Const(0)))),
              Or((Compare("<", TP, Const(8)), Compare(">", TP, Const(9)))))
    ways = literals(And((Or((off, Compare(">", TP, Const(1)))), *others, Truthy(LORA))))
    assert ways and all(way[0] == Compare(">", TP, Const(1)) and way[-1] == Truthy(LORA) for way in ways)


@pytest.mark.parametrize(("facts", "expected"), [
    ({"platform:is_hip": False}, Compare(">", PP, Const(1))),  # the way through is_hip is no way here
    ({"platform:is_hip": True}, Or((Compare(">", TP, Const(1)), Compare(">", PP, Const(1))))),  # holds: dropped
    ({}, Or((And((Truthy(HIP), Compare(">", TP, Const(1)))), Compare(">", PP, Const(1))))),  # unknown: kept
])
def test_the_search_reads_facts_as_the_launch_states_them(facts, expected):
    from analyzers.ways import fixed_on
    expr = Or((And((Truthy(HIP), Compare(">", TP, Const(1)))), Compare(">", PP, Const(1))))
    assert fixed_on(expr, context().model, Launch({}, facts=facts)) == expected


def test_a_keyword_name_is_no_candidate_value():
    """``get_config(path, trust_remote_code=cfg.trust_remote_code)``: the keyword's name is no path."""
    from analyzers.candidate_values import constants_in
    from extractor.ir import KEYWORD
    keyword = Apply(KEYWORD, (Const("trust_remote_code"), LORA), "trust_remote_code")
    call = Apply("get_config", (MODULES, keyword), "get_config(m, trust_remote_code=...)")
    assert constants_in(And((Truthy(call), Compare(">", TP, Const(4))))) == [4]


@pytest.mark.parametrize("test, wanted, found", [
    # "SSL certificate file not found": a path where nothing exists
    ("os.path.isfile(cfg.ssl_certfile)", False, "<missing>"),
    ("os.path.isfile(cfg.ssl_certfile)", True, "<file>"),
    ("os.path.isdir(cfg.trace_dir)", True, "<dir>"),
])
def test_a_test_of_an_options_path_is_met_through_the_path_given(test, wanted, found):
    from analyzers.witness import satisfy
    model = value_model()
    option = test[test.index("cfg.") + 4:-1]
    held = Truthy(Ref(RefKind.RUNTIME, test, test))
    expr = And((Compare("is not", flag(option), Const(None)), held if wanted else Not(held)))
    launch, truth = satisfy(expr, model, base_launch(model))
    assert truth is Truth.TRUE and launch.flags[option] == found


def test_a_list_read_as_a_rule_and_its_numbers_gets_numbers_a_person_writes():
    """``rule[0] == "tse"`` and ``float(rule[1]) > 0`` (sglang 0.5.23 validation_hook.py:411):
    the rule's name with numbers, one below zero, beside the plain words."""
    from analyzers.candidate_values import flag_candidates
    found = flag_candidates("paths", ["tse", 0], value_model())
    assert ("tse", "1", "2", "-1") in found
    assert not any(len(v) == 4 and v[1:] == ("1", "2", "-1") for v in flag_candidates("paths", ["tse"], value_model())
                   if isinstance(v, tuple))  # no number in the condition: no numbers


def test_an_attribute_name_is_no_candidate_value():
    """``get_config(path).hidden_size != 4``: the attribute's name is no path."""
    from analyzers.candidate_values import constants_in
    from extractor.ir import ATTRIBUTE
    loaded = Apply(ATTRIBUTE, (Apply("get_config", (MODULES,), "get_config(m)"), Const("hidden_size")), "x.hidden_size")
    assert constants_in(Compare("!=", loaded, Const(4))) == [4]


def test_a_setting_an_adjustment_resets_is_kept_through_what_decides_the_adjustment():
    """``enable_lora`` is turned off while ``pp_size`` is 1: the search sets ``--pp-size`` too."""
    from analyzers.rules import Rule
    from analyzers.witness import satisfy
    reset = Rule("enable_lora", Const(False), Compare("==", PP, Const(1)))
    model = Model(FLAGS, (reset,), EXAMPLES)
    found, holds = satisfy(Truthy(LORA), model, base_launch(model))
    assert holds is Truth.TRUE and found.flags["enable_lora"] is True and found.flags["pp_size"] != 1


def test_a_derived_setting_no_option_names_is_set_through_the_option_an_adjustment_copies_in():
    """``graph_backend`` is no option: ``--x`` is copied into it (after adjustments that reset it
    under other options, more than the search tries): the search sets ``--x``."""
    from analyzers.rules import Rule
    from analyzers.witness import satisfy
    backend = Ref(RefKind.FLAG, "graph_backend", "cfg.graph_backend")
    resets = tuple(Rule("graph_backend", Const(0), Compare("==", f, Const(7))) for f in (TP, PP, NNODES, LORA, MODULES))
    copied = Rule("graph_backend", X, Compare("is not", X, Const(None)))
    model = Model(FLAGS, (*resets, copied), EXAMPLES)
    found, holds = satisfy(Compare("==", backend, Const(3)), model, base_launch(model))
    assert holds is Truth.TRUE and found.flags.get("x") == 3
