"""Solutions per condition shape, example fixes and their predicted outcome (meanings: tests/test_meaning.py)."""
from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from analyzers.advice import Context, advise, example_fix, solutions
from analyzers.entries import Entry, EntryVariant, Trigger
from analyzers.eval_model import Model
from analyzers.examples import Examples
from analyzers.flag_build import build_flag_model
from analyzers.rules import Rule
from analyzers.trigger import Renderer
from extractor.ir import TRUE, And, Apply, Compare, Const, In, Not, Or, Ref, RefKind, Truthy
from extractor.profile import ExampleRules
from extractor.records import RaiseSite, SiteKind
from extractor.templates import parse_template
from tests.spy import spy

ARGS = '''
def add_cli_args(parser):
    parser.add_argument("--model-path", type=str, required=True)
    parser.add_argument("--enable-lora", action="store_true")
    parser.add_argument("--lora-paths", type=str, nargs="*", default=None)
    parser.add_argument("--speculative-algorithm", type=str, choices=["EAGLE", "EAGLE3", "NGRAM"], default=None)
    parser.add_argument("--tp-size", type=int, default=1)
    parser.add_argument("--page-size", type=int, default=None)
    parser.add_argument("--old-flag", action="store_true", help="Deprecated: use --tp-size instead.")
    parser.add_argument("--mark-config", type=str, default=None, help="A JSON file path or an inline JSON object.")
    parser.add_argument("--mm-config", type=json.loads, default=None)
    parser.add_argument("--served-model-name", type=str, default=None)
    parser.add_argument("--ib-device", type=str, default=None)
'''
ENV = '''
class Envs:
    SGLANG_PLAN = EnvBool(False)
'''
FLAGS = build_flag_model({"p/args.py": ARGS, "p/environ.py": ENV})
RULES = (Rule("enable_lora", TRUE, Truthy(Ref(RefKind.FLAG, "lora_paths", "cfg.lora_paths"))),)
EXAMPLES = Examples(ExampleRules(model="model_path"))
CTX = Context(Model(FLAGS, RULES, EXAMPLES), Renderer.for_model(FLAGS), "serve")


def flag(name: str) -> Ref:
    return Ref(RefKind.FLAG, name, f"cfg.{name}")


PLAN = Ref(RefKind.ENV, "SGLANG_PLAN", "envs.SGLANG_PLAN.get()")
HIP = Ref(RefKind.PLATFORM, "is_hip", "is_hip()")
SPEC = flag("speculative_algorithm")


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        (Truthy(flag("enable_lora")), ["Do not pass `--enable-lora`."]),
        (Not(Truthy(flag("enable_lora"))), ["Pass `--enable-lora`."]),
        (Compare("is", flag("page_size"), Const(None)), ["Add the missing `--page-size`."]),
        (Compare("is not", flag("page_size"), Const(None)), ["Leave `--page-size` unset."]),
        (Compare(">", flag("tp_size"), Const(8)), ["Set `--tp-size` to at most 8."]),
        (Compare("<", Const(2), flag("tp_size")), ["Set `--tp-size` to at most 2."]),
        (In(SPEC, Const(("EAGLE", "EAGLE3"))), ["Set `--speculative-algorithm` to NGRAM (or leave it unset)."]),
        (Not(In(SPEC, Const(("NGRAM", None)))), ["Set `--speculative-algorithm` to NGRAM (or leave it unset)."]),
        (Compare("==", SPEC, Const("EAGLE")),
         ["Set `--speculative-algorithm` to one of EAGLE3, NGRAM (or leave it unset)."]),
        # a value excluded where the rest of a range is refused too: a value that works is named
        (Or((Compare("is", flag("page_size"), Const(None)), Compare("<=", flag("page_size"), Const(0)))),
         ["Set `--page-size` to 1 (refused: 0)."]),
        # a prefix the check tests is no value a person passes: JSON that starts with it is
        (Not(Apply("startswith", (flag("mark_config"), Const("{")), 'cfg.mark_config.startswith("{")')),
         ["Set `--mark-config` to a JSON object, e.g. `'{}'`."]),
        # ... and of another option, no value of its own (sglang 0.5.23 network.py:638 offered "Set to [")
        (Not(Truthy(Apply("startswith", (flag("served_model_name"), Const("[")), "….startswith('[')"))),
         ["Set `--served-model-name` to a value starting with `[`."]),
        (And((Compare("is not", flag("served_model_name"), Const(None)),
              Not(Truthy(Apply("startswith", (flag("served_model_name"), Const("[")), "….startswith('[')"))))),
         ["Leave `--served-model-name` unset."]),
        (Truthy(Apply("endswith", (flag("served_model_name"), Const("/")), 'cfg.served_model_name.endswith("/")')),
         ["Set `--served-model-name` to a value not ending with `/`."]),
        # a mapping option is given as a JSON object on a command line, not as a Python dict
        (And((Compare("is not", flag("mm_config"), Const(None)),
              Not(Apply("isinstance", (flag("mm_config"), Const("dict")), "isinstance(cfg.mm_config, dict)")))),
         ["Set `--mm-config` to a JSON object, e.g. `'{}'` (or leave it unset)."]),
        # a person's own text goes where the search made up a value ("example", ""): the words
        # say what it must be
        (In(Const(":"), flag("served_model_name")),
         ["Change `--served-model-name` so that : is not in `--served-model-name`."]),
        (And((Compare("is not", flag("ib_device"), Const(None)),
              Not(Truthy(Apply("strip", (flag("ib_device"),), "cfg.ib_device.strip()"))))),
         ["Change `--ib-device` so that `--ib-device` is not given or `--ib-device`.strip() is true/non-empty."]),
        # ... an option taking several words alike
        (And((Compare("is not", flag("lora_paths"), Const(None)),
              Compare("==", Apply("len", (flag("lora_paths"),), "len(cfg.lora_paths)"), Const(0)))),
         ["Change `--lora-paths` so that `--lora-paths` is not given or the number of items in "
          "`--lora-paths` is not 0."]),
        # ... and where they cannot (too long a condition to state), to leave it unset
        (And((Compare("is not", flag("served_model_name"), Const(None)),
              Or(tuple(In(Const(c * 30), flag("served_model_name")) for c in ":;,/")))),
         ["Leave `--served-model-name` unset."]),
        (Truthy(PLAN), ["Unset `SGLANG_PLAN` (or set `SGLANG_PLAN=0`)."]),
        (Not(Truthy(PLAN)), ["Set `SGLANG_PLAN=1`."]),
        # innermost part first; parts on the same flag are one solution
        (And((Truthy(flag("enable_lora")), Not(In(SPEC, Const(("NGRAM", None)))), In(SPEC, Const(("EAGLE",))))),
         ["Set `--speculative-algorithm` to one of EAGLE3, NGRAM (or leave it unset).",
          "Do not pass `--enable-lora`."]),
        # several flags in one part
        (Or((Truthy(flag("enable_lora")), Compare(">", flag("tp_size"), Const(1)))),
         ["Change `--enable-lora`, `--tp-size` so that `--enable-lora` is not set and `--tp-size` <= 1."]),
        # a list of reasons repeats the path to each append in its rows (sglang 0.5.23
        # model_hook.py:183): the path is its own part, the rows' tests one change
        (And((Truthy(flag("enable_lora")),
              Or((And((Truthy(flag("enable_lora")), Compare(">", flag("tp_size"), Const(1)))),
                  And((Truthy(flag("enable_lora")), Compare("is not", flag("page_size"), Const(None)))))))),
         ["Change `--tp-size`, `--page-size` so that `--tp-size` <= 1 and `--page-size` is not given.",
          "Do not pass `--enable-lora`."]),
        # facts are stated, not offered as changes
        (And((Truthy(HIP), Truthy(flag("enable_lora")))),
         ["Do not pass `--enable-lora`.",
          "Not changeable by flags: this happens only when platform check `is_hip()` is true."]),
    ],
)
def test_solutions(expr, expected):
    assert [s.text for s in solutions(expr, CTX)] == expected


@pytest.mark.parametrize(("value", "shown"), [
    (None, "none"), (True, "true"), (3, "3"), ("off", "off"), (("a", "b"), "a b"),
    ("", '""'),  # an empty value is shown as typed, not as nothing ("one of , off")
])
def test_values_are_shown_as_typed(value, shown):
    from analyzers.advice import shown_value

    assert shown_value(value) == shown


@pytest.mark.parametrize(
    ("env", "listed", "offending", "unset", "expected"),
    [
        (False, ["a"], [], False, "Set `N` to a."),
        (False, ["a", "b"], [], True, "Set `N` to one of a, b (or leave it unset)."),
        (True, ["a"], [], True, "Set `N` to a (or unset it)."),
        (False, [str(i) for i in range(10)], [], False, "Set `N` to one of 0, 1, 2, 3, 4, 5, 6, 7 (and 2 more)."),
        (False, [], ["x"], True, "Set `N` to a value other than x, or leave it unset."),
        (True, [], ["x", "y"], False, "Set `N` to a value other than x, y."),
        (False, [], [], True, "Leave `N` unset."),
        (True, [], [], True, "Unset `N`."),
        (False, [], [], False, None),
    ],
)
def testvalues_text(env, listed, offending, unset, expected):
    from analyzers.advice import values_text

    assert values_text("`N`", env, listed, offending, unset) == expected


@pytest.mark.parametrize(
    ("expr", "before", "after", "predicted"),
    [
        # `after` takes the value the solution's words name first ("one of EAGLE3, NGRAM")
        (And((Truthy(flag("enable_lora")), Compare("==", SPEC, Const("EAGLE")))),
         "serve --model-path <model> --enable-lora --speculative-algorithm EAGLE",
         "serve --model-path <model> --enable-lora --speculative-algorithm EAGLE3", "true"),
        (And((Truthy(PLAN), Compare(">", flag("tp_size"), Const(4)))),
         "SGLANG_PLAN=1 serve --model-path <model> --tp-size 5", "SGLANG_PLAN=1 serve --model-path <model>",
         "true"),
        (And((Truthy(HIP), Truthy(flag("enable_lora")))),
         "serve --model-path <model> --enable-lora", "serve --model-path <model>", "unknown"),
    ],
)
def test_example_fix(expr, before, after, predicted):
    fix = example_fix(expr, expr, solutions(expr, CTX), CTX)
    assert (fix["before"], fix["after"], fix["verified"], fix["predicted"]) == (before, after, "not-run", predicted)


def test_an_example_fixes_the_launch_on_the_machine_it_has_before_changing_the_device():
    """``--ib-device`` stands for the setting choosing the device: setting it to npu is the
    fix only a machine with one runs; dropping --enable-lora works on this one."""
    expr = And((Compare("!=", flag("ib_device"), Const("npu")), Truthy(flag("enable_lora"))))
    ctx = Context(CTX.model, CTX.renderer, "serve", platform_settings=frozenset({"ib_device"}))
    device_first = sorted(solutions(expr, ctx), key=lambda sol: "ib-device" not in sol.text)  # as a message advises
    fix = example_fix(expr, expr, device_first, ctx)
    assert (fix["before"], fix["after"]) == ("serve --model-path <model> --enable-lora", "serve --model-path <model>")


def test_example_fix_uses_the_implying_flag_when_only_that_fires():
    # the error reads enable_lora; --lora-paths turns it on, so removing --enable-lora alone is not a fix
    expr = Truthy(flag("enable_lora"))
    fix = example_fix(expr, expr, solutions(expr, CTX), CTX)
    assert fix["predicted"] == "true"


def test_example_fix_without_controllable_part():
    fix = example_fix(Truthy(HIP), Truthy(HIP), solutions(Truthy(HIP), CTX), CTX)
    assert fix == {"before": None, "after": None, "verified": "not-run", "predicted": "unknown",
                   "undecided": ["platform check `is_hip()`"],
                   "note": "No command line is shown: no option or environment variable decides this check; "
                           "it depends on platform check `is_hip()`."}


def _entry(expr, variants=()):
    site = RaiseSite("p/check.py", 10, "check_lora", SiteKind.RAISE, "ValueError", parse_template("LoRA {reason}."), ())
    rows = tuple(EntryVariant((("reason", r),), f"LoRA {r}.", Trigger.build(e, CTX.renderer)) for r, e in variants)
    return Entry("0" * 16, site, "u", 1, "", Trigger.build(expr, CTX.renderer), rows)


def test_advise_fills_variants_and_meaning():
    entry = _entry(Truthy(flag("enable_lora")), [("a", Truthy(PLAN)), ("b", Compare(">", flag("tp_size"), Const(1)))])
    done = advise(entry, Context(CTX.model, CTX.renderer, "serve", {("p/check.py", "check_lora"): "Check LoRA."}))
    assert done.meaning == (
        "The program refuses this launch. Per the docstring of `check_lora`: “Check LoRA.” "
        "Each of its 2 table rows has its own condition.")
    assert [tuple(s.text for s in v.solutions or ()) for v in done.variants] == [
        ("Unset `SGLANG_PLAN` (or set `SGLANG_PLAN=0`).",), ("Set `--tp-size` to at most 1.",)]
    assert [v.example_fix["predicted"] for v in done.variants if v.example_fix] == ["true", "true"]
    assert done.example_fix == done.variants[0].example_fix
    assert entry.variants[0].example_fix is None  # a new entry: the one advised is left as it was


@pytest.mark.parametrize("extra", [{"internal": True}, {"reachable": False}])
def test_an_entry_no_command_raises_offers_no_change_of_one(extra):
    entry = replace(_entry(Truthy(flag("enable_lora")), [("a", Truthy(PLAN))]), extra=extra)
    done = advise(entry, CTX)
    assert (done.solutions, [v.solutions for v in done.variants]) == ((), [()])
    assert "no command raises it" in done.example_fix["note"] or "reachable: false" in done.example_fix["note"]


def test_advise_reports_deprecated_flags_as_situations():
    done = advise(_entry(Truthy(flag("old_flag"))), CTX)
    assert done.extra["situations"] == ["Still passing the deprecated `--old-flag`; use `--tp-size`."]


# ------------------------------------------------------------------ advised fields as data (the results cache)


def test_advised_fields_put_back_on_the_entries_give_the_advised_entries():
    from analyzers.advised import advised_fields, with_advised

    plain = [_entry(Truthy(flag("old_flag"))),
             replace(_entry(Truthy(flag("enable_lora")), [("a", Truthy(PLAN))]), id="1" * 16),
             # advice notes on the site why no launch reaches it: kept too, or the results cache never stores advice
             replace(_entry(Compare("==", flag("speculative_algorithm"), Const("MEDUSA"))), id="2" * 16)]
    done = [advise(e, CTX) for e in plain]
    assert done[2].site.notes != plain[2].site.notes
    assert with_advised(plain, [advised_fields(e) for e in done]) == done


@pytest.mark.parametrize(("change", "message"), [
    (lambda fields: fields[:1], "1 advised entries for 2 entries"),
    (lambda fields: fields[::-1], "given for entry"),
    (lambda fields: [{**fields[0], "solutions": "one"}, fields[1]], "expected a list"),
    (lambda fields: [fields[0], {**fields[1], "variants": []}], "given for entry"),
])
def test_advised_fields_of_other_entries_are_refused(change, message):
    from analyzers.advised import advised_fields, with_advised

    plain = [_entry(Truthy(flag("old_flag"))),
             replace(_entry(Truthy(flag("enable_lora")), [("a", Truthy(PLAN))]), id="1" * 16)]
    with pytest.raises(ValueError, match=message):
        with_advised(plain, change([advised_fields(advise(e, CTX)) for e in plain]))


# ------------------------------------------------------------------ the search, against its first form

import itertools  # noqa: E402

from analyzers.candidate_values import NOT_GIVEN, unique  # noqa: E402
from analyzers.evaluate import evaluate  # noqa: E402
from analyzers.kleene import Truth  # noqa: E402
from analyzers.witness import (  # noqa: E402
    MAX_COMBINATIONS,
    assign,
    base_launch,
    candidates,
    falsify,
    literals,
    satisfy,
    settable_leaves,
)
from extractor.ir import FALSE, Unknown, conj, negate  # noqa: E402


def reference_fix(target, lit, leaves, launch, model):
    fallback = None
    for size in (1, 2):
        for group in itertools.combinations(leaves, size):
            options = [candidates(leaf, lit, model) for leaf in group]
            for combo in itertools.islice(itertools.product(*options), MAX_COMBINATIONS):
                trial = launch
                for leaf, val in zip(group, combo, strict=True):
                    trial = assign(trial, leaf, val)
                result = evaluate(target, trial, model)
                if result is Truth.TRUE:
                    return trial
                if result is Truth.UNKNOWN and fallback is None:
                    fallback = trial
    return fallback if fallback is not None else launch


def reference_satisfy(expr, model, base, allowed=None):
    """`satisfy` as first written: every prefix evaluated whole, every trial tried."""
    best = (base, evaluate(expr, base, model))
    if best[1] is Truth.TRUE:
        return best
    for disjunct in literals(expr):
        launch = base
        for i, lit in enumerate(disjunct):
            prefix = conj(list(disjunct[: i + 1]))
            if evaluate(prefix, launch, model) is Truth.TRUE:
                continue
            leaves = [x for x in settable_leaves(lit, model) if allowed is None or x in allowed]
            if leaves:
                launch = reference_fix(prefix, lit, leaves, launch, model)
        result = evaluate(expr, launch, model)
        if result is Truth.TRUE:
            return launch, result
        if result is Truth.UNKNOWN and best[1] is Truth.FALSE:
            best = (launch, result)
    return best


def shown(found):
    launch, truth = found
    return list(launch.flags.items()), sorted(launch.env.items()), truth


LORA = Truthy(flag("enable_lora"))
TP = Compare(">", flag("tp_size"), Const(1))
EAGLE = In(SPEC, Const(("EAGLE", "EAGLE3")))
SEARCHED = [
    LORA, Not(LORA), TP, EAGLE, And((LORA, TP)), Or((And((LORA, EAGLE)), And((Truthy(PLAN), TP)))),
    And((Truthy(HIP), LORA)),                     # a fact: never true, the first unknown launch wins
    And((Not(Truthy(HIP)), Or((LORA, TP)))),
    Or((Truthy(HIP), And((TP, Not(LORA))))),
    And((Compare("is", flag("page_size"), Const(None)), EAGLE, Not(Truthy(PLAN)))),
    And((LORA, Not(LORA))),                       # contradiction: nothing holds
    And((FALSE, LORA)), And((Truthy(Unknown("probe()")), TP)),
    And((Compare("==", flag("tp_size"), Const(True)), Compare("==", flag("tp_size"), Const(1)))),
]


@pytest.mark.parametrize("expr", SEARCHED)
def test_satisfy_finds_what_the_plain_search_finds(expr):
    base = base_launch(CTX.model)
    model = Model(FLAGS, RULES, EXAMPLES)
    assert shown(satisfy(expr, model, base)) == shown(reference_satisfy(expr, Model(FLAGS, RULES, EXAMPLES), base))
    for part in (LORA, TP, EAGLE, Truthy(PLAN)):  # as `falsify` asks: only the part's leaves change
        allowed = settable_leaves(part, model)
        held, _ = satisfy(expr, model, base)
        assert shown(satisfy(negate(part), model, held, allowed)) == shown(
            reference_satisfy(negate(part), Model(FLAGS, RULES, EXAMPLES), held, allowed))
        after, still = falsify(expr, part, model, held)
        assert still is evaluate(expr, after, Model(FLAGS, RULES, EXAMPLES))


def test_unique_keeps_first_of_same_typed_equals():
    values = [NOT_GIVEN, 1, True, 1.0, 1, True, "1", (1,), (True,), (1,), {"k": 1}, {"k": 1}, {"k": True},
              ["a"], ["a"], NOT_GIVEN, 0.0, -0.0, None, None]
    seen: list[Any] = []
    want: list[Any] = []
    for v in values:
        if not any(v is s or (type(v) is type(s) and v == s) for s in seen):
            seen.append(v)
            want.append(v)
    assert list(unique(values)) == want
    assert [type(v) for v in unique(values)] == [type(v) for v in want]


def random_condition(rng, depth=0):
    roll = rng.random()
    if depth > 2 or roll < 0.4:
        term = rng.choice([flag("tp_size"), flag("page_size"), SPEC, flag("enable_lora"), flag("lora_paths"), PLAN,
                           HIP, Apply("frob", (flag("tp_size"),), "frob(tp)")])
        const = Const(rng.choice([1, 2, 8, True, None, "EAGLE", "<x>"]))
        return rng.choice([Truthy(term), Compare(rng.choice(["==", "!=", ">", "<", "is"]), term, const),
                           In(term, Const(("EAGLE", "NGRAM", 2)))])
    if roll < 0.55:
        return Not(random_condition(rng, depth + 1))
    args = tuple(random_condition(rng, depth + 1) for _ in range(rng.randrange(2, 4)))
    return And(args) if roll < 0.8 else Or(args)


def test_satisfy_matches_the_plain_search_on_random_conditions():
    import random

    rng = random.Random(5)
    model = Model(FLAGS, RULES, EXAMPLES)  # shared: the memos must not change any answer
    base = base_launch(model)
    for _ in range(150):
        expr = random_condition(rng)
        found = satisfy(expr, model, base)
        assert shown(found) == shown(reference_satisfy(expr, Model(FLAGS, RULES, EXAMPLES), base)), expr
        part = random_condition(rng, 2)
        allowed = settable_leaves(part, model)
        assert shown(satisfy(negate(part), model, found[0], allowed)) == shown(
            reference_satisfy(negate(part), Model(FLAGS, RULES, EXAMPLES), found[0], allowed)), (expr, part)


def _site_entry(expr, function: str, adjusted_before: int) -> Entry:
    site = RaiseSite("p/check.py", 10, function, SiteKind.RAISE, "ValueError", parse_template("no page size"), (),
                     adjusted_before=adjusted_before)
    return Entry("1" * 16, site, "u", 1, "", Trigger.build(expr, CTX.renderer), ())


@pytest.mark.parametrize("function, adjusted_before, verified", [
    ("check", 0, "true"),  # `page_size = 64` comes below the raise: it has not run yet
    ("check", 1, "false"),  # it came above: the setting is never missing at the raise
    ("other", 0, "false"),  # another function's adjustment: order unknown, applied
])
def test_adjustments_below_the_raise_in_its_function_are_not_applied(function, adjusted_before, verified):
    default_page = Rule(
        "page_size", Const(64), Compare("is", flag("page_size"), Const(None)), ("p/check.py", "check", 0))
    ctx = Context(Model(FLAGS, (*RULES, default_page), EXAMPLES), CTX.renderer, "serve")
    entry = advise(_site_entry(Compare("is", flag("page_size"), Const(None)), function, adjusted_before), ctx)
    assert entry.example_fix["predicted"] == verified


@pytest.mark.parametrize("expr, keys", [
    (And((Truthy(flag("enable_lora")), Compare("==", SPEC, Const("EAGLE")))),
     ["before", "after", "verified", "predicted", "solution"]),
    (And((Truthy(HIP), Truthy(flag("enable_lora")))),
     ["before", "after", "verified", "predicted", "solution", "undecided", "assuming", "needs"]),
    (Truthy(HIP), ["before", "after", "verified", "predicted", "undecided", "note"]),
    (And((Truthy(flag("enable_lora")), Not(Truthy(flag("enable_lora"))))),
     ["before", "after", "verified", "predicted", "note"]),
])
def test_example_fix_keys_come_in_a_fixed_order(expr, keys):
    fix = example_fix(expr, expr, solutions(expr, CTX), CTX)
    assert list(fix) == keys and fix["verified"] == "not-run"


def test_advise_picks_a_variant_predicted_to_work_first():
    never = And((Truthy(PLAN), Not(Truthy(PLAN))))
    entry = _entry(Truthy(flag("enable_lora")), [("a", never), ("b", Compare(">", flag("tp_size"), Const(1)))])
    done = advise(entry, CTX)
    assert [v.example_fix["predicted"] for v in done.variants if v.example_fix] == ["false", "true"]
    assert done.example_fix == done.variants[1].example_fix


# ------------------------------------------------------------------ other entries an example must not raise


def _entries(*conditions):
    """Entries (ids "0...0", "0...1", ...) raised under `conditions`."""
    out = []
    for i, expr in enumerate(conditions):
        site = RaiseSite("p/check.py", 10 + i, f"check_{i}", SiteKind.RAISE, "ValueError", parse_template(f"E{i}."), ())
        out.append(Entry(f"{i:016x}", site, "u", 1, "", Trigger.build(expr, CTX.renderer), ()))
    return out


TP_ABOVE_1 = Compare(">", flag("tp_size"), Const(1))
PAGE_UNSET = Compare("is", flag("page_size"), Const(None))


@pytest.mark.parametrize("others, before", [
    ([], "serve --model-path <model> --tp-size 2"),
    # another entry raised by the same launch unless --page-size is given: it is given
    ([And((TP_ABOVE_1, PAGE_UNSET))], "serve --model-path <model> --tp-size 2 --page-size 1"),
    # one that reads nothing the launch gives stays as it is on the smallest launch
    ([Truthy(flag("enable_lora"))], "serve --model-path <model> --tp-size 2"),
    # the same condition cannot be avoided: the example stays
    ([TP_ABOVE_1], "serve --model-path <model> --tp-size 2"),
])
def test_an_example_avoids_raising_other_entries(others, before):
    from analyzers.advice import complete_entries

    done = complete_entries(_entries(TP_ABOVE_1, *others), flags=FLAGS, adjustments=(), renderer=CTX.renderer,
                            launch_prefix="serve", examples=ExampleRules(model="model_path"))
    assert (done[0].example_fix["before"], done[0].example_fix["predicted"]) == (before, "true")


@pytest.mark.parametrize("reach, before", [
    ((), "serve --model-path <model> --tp-size 2"),
    # an earlier check fires first unless --page-size is given: the example gives it
    ((PAGE_UNSET,), "serve --model-path <model> --tp-size 2 --page-size 1"),
    # one that cannot pass while this one fires is left (nothing to show)
    ((Compare(">", flag("tp_size"), Const(0)), PAGE_UNSET), "serve --model-path <model> --tp-size 2 --page-size 1"),
    # one that passes on the launch already changes nothing
    ((Truthy(flag("enable_lora")),), "serve --model-path <model> --tp-size 2"),
    # one that is undecided on the launch (a platform check) is left as it is
    ((And((Truthy(HIP), PAGE_UNSET)),), "serve --model-path <model> --tp-size 2"),
], ids=["none", "page-size", "cannot-pass", "passes", "undecided"])
def test_an_example_passes_the_earlier_checks_its_trigger_reaches_through(reach, before):
    ctx = Context(CTX.model, CTX.renderer, "serve", reach={"0" * 16: reach} if reach else {})
    fix = example_fix(TP_ABOVE_1, TP_ABOVE_1, solutions(TP_ABOVE_1, ctx), ctx, "0" * 16)
    assert (fix["before"], fix["predicted"]) == (before, "true")


def test_an_example_left_unknown_still_passes_the_earlier_checks_its_reach_names():
    """sglang 0.5.23 speculative_hook.py:532: a capacity computed in a loop decides the check;
    the example still gives what the earlier checks need (`--speculative-num-steps`)."""
    fire = And((TP_ABOVE_1, Truthy(Unknown("capacity()"))))
    ctx = Context(CTX.model, CTX.renderer, "serve", reach={"0" * 16: (PAGE_UNSET,)})
    fix = example_fix(fire, fire, solutions(fire, ctx), ctx, "0" * 16)
    assert (fix["before"], fix["predicted"]) == ("serve --model-path <model> --tp-size 2 --page-size 1", "unknown")


def test_complete_entries_hands_each_entry_its_reach():
    from analyzers.advice import complete_entries
    from analyzers.entries import Reach

    (entry,) = _entries(TP_ABOVE_1)
    reached = replace(entry, trigger=replace(entry.trigger, reach=(Reach("f" * 16, 3, PAGE_UNSET, "t"),)))
    (done,) = complete_entries([reached], flags=FLAGS, adjustments=(), renderer=CTX.renderer,
                               launch_prefix="serve", examples=ExampleRules(model="model_path"))
    assert done.example_fix["before"] == "serve --model-path <model> --tp-size 2 --page-size 1"


def test_a_solution_an_earlier_check_refuses_goes_last_and_says_so():
    from analyzers.entries import Reach
    from analyzers.solution_reach import checked_against_reach

    # fires for tp > 1 with LoRA; an earlier check refuses tp <= 1: "at most 1" trades one error for another
    fire = And((TP_ABOVE_1, Truthy(flag("enable_lora"))))
    earlier = Reach("e" * 16, 3, Compare("<=", flag("tp_size"), Const(1)), "t")
    found = [s.text for s in checked_against_reach(solutions(fire, CTX), fire, (earlier,), CTX.model, CTX.rivals)]
    assert found == ["Do not pass `--enable-lora`.",
                     f"Set `--tp-size` to at most 1 — alone, this makes entry {'e' * 16} (line 3) fire first."]
    # where another value of the same setting passes both, the solution stands
    between = And((TP_ABOVE_1, Compare("<", flag("tp_size"), Const(4))))
    assert not any("fire first" in s.text
                   for s in checked_against_reach(solutions(between, CTX), between, (earlier,), CTX.model, CTX.rivals))
    assert [s.text for s in checked_against_reach(solutions(fire, CTX), fire, (), CTX.model, CTX.rivals)] == [
        s.text for s in solutions(fire, CTX)]


def test_a_solution_naming_one_value_an_earlier_check_refuses_goes_last():
    """"valid JSON, e.g. `'{}'`": the value the words name is what a person types, so it is what
    is tried, even where another value of the setting would pass both checks."""
    from analyzers.entries import Reach
    from analyzers.solution import Solution, ValueChoice
    from analyzers.solution_reach import checked_against_reach
    from analyzers.witness import Leaf

    between = And((TP_ABOVE_1, Compare("<", flag("tp_size"), Const(4))))
    earlier = Reach("e" * 16, 3, Compare("<=", flag("tp_size"), Const(1)), "t")
    choice = ValueChoice(Leaf(RefKind.FLAG, "tp_size"), (1,), (), (), False)
    named = Solution("Set `--tp-size` to 1.", TP_ABOVE_1, choice=choice)
    (found,) = checked_against_reach([named], between, (earlier,), CTX.model, CTX.rivals)
    assert found.text == f"Set `--tp-size` to 1 — alone, this makes entry {'e' * 16} (line 3) fire first."
    # also where the error's own condition is left open (a helper's result): the value alone trips it
    open_ended = And((TP_ABOVE_1, Truthy(Unknown("helper()"))))
    (found,) = checked_against_reach([named], open_ended, (earlier,), CTX.model, CTX.rivals)
    assert found.text.endswith("fire first.")


def test_a_solution_that_undoes_an_earlier_raise_of_the_block_says_so():
    from extractor.records import Guard, GuardOrigin

    # `if tp <= 1: raise ...` earlier in the block: this check's trigger holds `tp > 1`
    fire = And((TP_ABOVE_1, Truthy(flag("enable_lora"))))
    site = RaiseSite("p/check.py", 10, "check_lora", SiteKind.RAISE, "ValueError", parse_template("LoRA."),
                     (Guard(TP_ABOVE_1, "not (tp <= 1)", GuardOrigin.PRIOR_RAISE),))
    entry = Entry("0" * 16, site, "u", 1, "", Trigger.build(fire, CTX.renderer), ())
    done = advise(entry, CTX)
    assert done.solutions[-1].text == ("Set `--tp-size` to at most 1 — alone, this makes the earlier check on "
                                  "`--tp-size` <= 1 fire first.")
    assert [s.passed for s in done.solutions] == [False, True]  # it only undoes the earlier raise


def test_rivals_hold_only_where_their_condition_does():
    from analyzers.launch import Launch
    from analyzers.rivals import Rivals

    model = Model(FLAGS, RULES, EXAMPLES)
    rivals = Rivals.of([("a", And((TP_ABOVE_1, PAGE_UNSET))), ("b", Truthy(flag("enable_lora"))),
                        ("c", Truthy(Ref(RefKind.UNKNOWN, "x", "x")))], model)

    def holding(**flags):
        return [r.id for r in rivals.holding(Launch({"model_path": "<model>", **flags}), "")]

    assert holding(tp_size=2) == ["a"]
    assert holding(tp_size=2, page_size=4) == []
    assert holding(lora_paths=("p",)) == ["b"]  # --lora-paths turns --enable-lora on (RULES)
    assert [r.id for r in rivals.holding(Launch({"model_path": "<model>", "tp_size": 2}), "a")] == []  # its own


def _f(predicted: str, after: str | None = "run") -> dict:
    return {"before": "run --x", "after": after, "predicted": predicted}


@pytest.mark.parametrize(("rows", "own", "expected"), [
    ([_f("unknown"), _f("true")], _f("true", "own"), 1),  # the first row predicted to work
    ([_f("unknown"), _f("false")], _f("true", "own"), "own"),  # else the entry's own when it works
    ([], _f("unknown", "own"), "own"),  # no rows: the entry's own
    ([_f("unknown", None), _f("false")], _f("unknown", "own"), 1),  # else the first row with a fix
    ([_f("unknown", None)], _f("unknown", "own"), "own"),  # else the entry's own
])
def test_entry_fix_policy(rows, own, expected):
    from analyzers.entries import entry_fix

    searched: list[int] = []
    got, row = entry_fix(rows, spy(searched, lambda: own))
    assert got is (own if expected == "own" else rows[expected])
    assert row == (None if expected == "own" else expected)
    assert searched == ([] if expected == 1 and rows[1]["predicted"] == "true" else [1])  # own only when needed


MODES = '''
def add_cli_args(parser):
    parser.add_argument("--model-path", type=str, required=True)
    parser.add_argument("--mode", type=str, choices=["null", "prefill", "decode"], default="null")
    parser.add_argument("--split", action="store_true")
'''
MODE_FLAGS = build_flag_model({"p/args.py": MODES})


@pytest.mark.parametrize("body, listed", [
    # decode has its own raise first in the block: only prefill gets past this one
    ('    if cfg.split and cfg.mode != "prefill":\n'
     '        if cfg.mode == "decode":\n            raise ValueError("not on decode")\n'
     '        raise ValueError("only on prefill")\n', "Set `--mode` to prefill."),
    # no earlier raise: both values are named
    ('    if cfg.split and cfg.mode == "null":\n        raise ValueError("not on null")\n',
     "Set `--mode` to one of prefill, decode."),
])
def test_a_listed_value_does_not_meet_an_earlier_raise_of_the_block(body, listed):
    import textwrap

    from analyzers.advice import complete_entries
    from analyzers.entries import build_entries
    from extractor.profile import load_profile
    from extractor.sites import extract_file

    code = f"def check(cfg):\n{body}"
    found = [s for s in extract_file("m.py", code, load_profile("sglang")).sites if s.template.text != "not on decode"]
    lines = textwrap.dedent(code).splitlines(keepends=True)
    renderer = Renderer.for_model(MODE_FLAGS)
    built = build_entries(found, lambda p: lines, lambda p, n: "", renderer)
    (entry,) = complete_entries(built, flags=MODE_FLAGS, adjustments=(), renderer=renderer,
                                examples=ExampleRules(model="model_path"))
    assert listed in [s.text for s in entry.solutions]


def test_a_derived_setting_is_changed_first_through_the_option_named_for_it():
    # both adjustments write `lora_mode`; `--enable-lora` is named for it, `--tp-size` changes it on the side
    from analyzers.feeding import feeding_leaves

    rules = (Rule("lora_mode", Compare(">", flag("tp_size"), Const(1)), Const("split")),
             Rule("lora_mode", Truthy(flag("enable_lora")), Const("on")))
    model = Model(FLAGS, rules, EXAMPLES)
    part = Compare("==", flag("lora_mode"), Const("on"))
    assert [leaf.name for leaf in feeding_leaves(part, model)] == ["enable_lora", "tp_size"]


def test_an_example_on_an_assumed_machine_sets_the_options_its_check_tests():
    """sglang 0.5.23 attention_hook.py:218 (trtllm_mha prefill on SM120): where the code picks the
    value when none is given, the facts alone leave the check open; the example gives the option."""
    picked = Rule("speculative_algorithm", Unknown("the algorithm the code picks"), Compare("is", SPEC, Const(None)))
    ctx = Context(Model(FLAGS, (*RULES, picked), EXAMPLES), CTX.renderer, "serve")
    fire = Or((And((Compare("==", SPEC, Const("EAGLE")), Truthy(HIP))),
               And((Compare("==", SPEC, Const("NGRAM")), Truthy(HIP)))))
    fix = example_fix(fire, fire, solutions(fire, ctx), ctx)
    assert "--speculative-algorithm" in fix["before"]
    assert fix["assuming"] == {"facts": ["platform check `is_hip()` is true"], "predicted": "true"}


def test_an_example_needing_a_platform_fact_derived_from_others_names_those():
    """``assert _platform_supports_x()`` (``return is_hip() or is_npu()``) before a check of
    options: the example holds on a machine where one of the facts it derives from does."""
    npu = Ref(RefKind.PLATFORM, "is_npu", "is_npu()")
    supported = Apply("supports_x", (), "supports_x()")
    fire = And((Truthy(supported), Truthy(flag("enable_lora"))))
    blind = example_fix(fire, fire, solutions(fire, CTX), CTX)
    ctx = replace(CTX, derived_facts={"supports_x": ((), Or((Truthy(HIP), Truthy(npu))))})
    seen = example_fix(fire, fire, solutions(fire, ctx), ctx)
    assert "needs" not in blind
    assert seen["before"] == "serve --model-path <model> --enable-lora" and seen["needs"] in (
        ["platform:is_hip=true"], ["platform:is_npu=true"])


def test_an_example_past_an_earlier_check_only_the_machine_decides_needs_that_machine():
    """``if not os.path.isdir("/sys/class/infiniband"): raise ...`` before this check: the
    example is shown for a machine with InfiniBand, and says so in `needs`."""
    ib = Ref(RefKind.PLATFORM, "os.path.isdir('/sys/class/infiniband')", "os.path.isdir(ib_sysfs_path)")
    fire = And((Truthy(flag("enable_lora")), Compare(">", flag("tp_size"), Const(1))))
    ctx = replace(CTX, reach={"e": (And((Truthy(flag("enable_lora")), Not(Truthy(ib)))),)})
    fix = example_fix(fire, fire, solutions(fire, ctx), ctx, "e")
    assert fix["predicted"] == "true" and fix["needs"] == ["platform:os.path.isdir('/sys/class/infiniband')=true"]
    assert "needs" not in example_fix(fire, fire, solutions(fire, CTX), CTX, "e")  # no such earlier check
    # an earlier check that fires only on a machine with a fact (a ROCm GPU) needs no machine
    on_hip = replace(CTX, reach={"e": (And((Truthy(flag("enable_lora")), Truthy(HIP))),)})
    assert "needs" not in example_fix(fire, fire, solutions(fire, on_hip), on_hip, "e")
    # nor one whose firing there turns on what errcat cannot read besides
    unread = And((Truthy(flag("enable_lora")), Not(Truthy(ib)), Truthy(Unknown("probe()"))))
    maybe = replace(CTX, reach={"e": (unread,)})
    assert "needs" not in example_fix(fire, fire, solutions(fire, maybe), maybe, "e")
