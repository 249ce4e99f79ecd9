"""analyzers.outcomes: confirm.json records and their merge into the entries extract writes."""
from __future__ import annotations

import dataclasses
import json
from types import SimpleNamespace

import pytest

from analyzers.judge import CONFIRMED, NOT_RUN, REFUTED, Real
from analyzers.outcomes import (
    NO_OUTCOMES,
    Found,
    Outcome,
    Outcomes,
    apply_outcomes,
    fingerprint,
    merged_fix,
    parse_outcomes,
    read_outcomes,
    release_of,
)
from tests.spy import spy

B, A = "run --x 1", "run"
FIX = {"before": B, "after": A, "verified": "not-run", "predicted": "true", "solution": "Unset `--x`."}


def _outcome(status, why, found=None, version="1.0", before=B, after=A):
    return Outcome("e1", fingerprint(before, after), version, before, after, status, why,
                   Real("error", "ValueError", "m", "p.py", 1), Real("ok"), found)


@pytest.mark.parametrize(("status", "why", "verified"), [
    (CONFIRMED, "confirmed", "true"),
    (NOT_RUN, "not-run: needs platform: is_hip", "not-run"),
])
def test_a_recorded_outcome_sets_verified(status, why, verified):
    outcomes = Outcomes({}).with_([_outcome(status, why)])
    fix = merged_fix("e1", FIX, outcomes, "1.0")
    assert (fix["verified"], fix["real"], fix["predicted"]) == (verified, f"{why} (1.0)", "true")


@pytest.mark.parametrize(("why", "reason", "note"), [
    ("no-error", "not_reached", "it ran without an error."),
    ("fires-first: 0123456789abcdef", "earlier_check", "it stopped first at “other message”."),
    ("fires-first: outside the catalog (OSError at p.py:3: m)", "earlier_check",
     "it stopped first at outside the catalog (OSError at p.py:3: m)."),
    ("argparse: --y: invalid choice", "earlier_check", "the argument parser refused it: --y: invalid choice."),
])
def test_a_shown_pair_the_real_program_refutes_is_withheld_with_what_it_did(why, reason, note):
    """Users copy commands: a `before` that does not raise this error in the real program is
    not shown (sglang 0.5.23 mooncake_transfer_engine.py:44 ran without error)."""
    named = {"0123456789abcdef": "“other message”"}
    fix = merged_fix("e1", FIX, Outcomes({}).with_([_outcome(REFUTED, why)]), "1.0", named=named)
    assert (fix["before"], fix["after"], fix["verified"]) == (None, None, "false")
    assert fix["withheld"] == {"before": B, "after": A, "reason": reason, "real": f"{why} (1.0)"}
    assert fix["note"].startswith("errcat's closest command line did not raise this error in the real program "
                                  f"(1.0): {note}")


def test_a_validation_run_says_nothing_of_an_example_that_needs_the_server_start():
    """The validation `errcat confirm` runs never meets a check at the server's start: what it
    did with the same pair (recorded before the check was known to be there) is not its word."""
    from analyzers.withheld import SERVER_START

    fix = {**FIX, "needs": [SERVER_START]}
    assert merged_fix("e1", fix, Outcomes({}).with_([_outcome(REFUTED, "no-error")]), "1.0") == fix


@pytest.mark.parametrize(("needs", "kept"), [
    (["platform:is_cuda=true"], True),  # this machine has no CUDA: what it did says nothing
    (["platform:is_hip=false"], False),  # this machine gives that: its outcome stands
])
def test_an_outcome_says_nothing_of_an_example_the_machine_does_not_run(needs, kept):
    fix = {**FIX, "needs": needs}
    runs = lambda f: all(n.endswith("=false") for n in f.get("needs") or ())  # noqa: E731
    merged = merged_fix("e1", fix, Outcomes({}).with_([_outcome(REFUTED, "no-error")]), "1.0", runs=runs)
    assert (merged == fix) is kept


def test_a_shown_pair_whose_fix_the_real_program_refutes_shows_its_before_alone():
    fix = merged_fix("e1", FIX, Outcomes({}).with_([_outcome(REFUTED, "after-fires: 0123456789abcdef")]), "1.0",
                     named={"0123456789abcdef": "“other message”"})
    assert (fix["before"], fix["after"], fix["verified"]) == (B, None, "false")
    assert "(`after` meets “other message”)" in fix["note"]
    assert fix["withheld"]["real"] == "after-fires: 0123456789abcdef (1.0)"


@pytest.mark.parametrize(("entry", "before", "version"), [
    ("e2", B, "1.0"),  # another entry
    ("e1", "run --x 2", "1.0"),  # the example changed since it ran
    ("e1", B, "2.0"),  # another version of the target ran it
])
def test_an_outcome_holds_only_for_its_entry_example_and_version(entry, before, version):
    outcomes = Outcomes({}).with_([_outcome(CONFIRMED, "confirmed")])
    fix = merged_fix(entry, {**FIX, "before": before}, outcomes, version)
    assert fix["verified"] == "not-run" and "real" not in fix


def test_a_found_example_replaces_a_refuted_one_and_keeps_the_static_one():
    found = Found("run --x 1 --y 2", "run --y 2", Real("error", "ValueError", "m", "p.py", 1), Real("ok"))
    fix = merged_fix("e1", FIX, Outcomes({}).with_([_outcome(REFUTED, "fires-first: e2", found)]), "1.0")
    assert (fix["before"], fix["after"]) == ("run --x 1 --y 2", "run --y 2")
    assert (fix["verified"], fix["found_by"]) == ("true", "real program")
    assert fix["static"] == {"before": B, "after": A, "predicted": "true", "verified": "false",
                             "real": "fires-first: e2"}
    assert fix["solution"] == FIX["solution"]


@pytest.mark.parametrize(("after", "words"), [
    ("run --y 2", FIX["solution"]),  # the same change, on top of --y 2: the words stay
    ("run --z 3", "Set `--z` to 3, drop `--x` and drop `--y`."),  # more: the change it makes is said
])
def test_a_found_example_says_the_change_it_makes(after: str, words: str) -> None:
    found = Found("run --x 1 --y 2", after, Real("error", "ValueError", "m", "p.py", 1), Real("ok"))
    fix = merged_fix("e1", FIX, Outcomes({}).with_([_outcome(REFUTED, "after-fires: e2", found)]), "1.0", prefix="run")
    assert fix["solution"] == words


WITHHELD = {"before": None, "after": None, "verified": "not-run", "predicted": "false",
            "note": "Predicted not to work as written.", "withheld": {"before": B, "after": A}}


def test_a_withheld_pair_the_real_program_repairs_becomes_the_example():
    found = Found("run --x 1 --y 2", "run --y 2", Real("error", "ValueError", "m", "p.py", 1), Real("ok"))
    fix = merged_fix("e1", WITHHELD, Outcomes({}).with_([_outcome(REFUTED, "fires-first: e2", found)]), "1.0")
    assert (fix["before"], fix["after"], fix["verified"], fix["found_by"]) == (
        "run --x 1 --y 2", "run --y 2", "true", "real program")
    assert fix["static"]["before"] == B and "withheld" not in fix and "note" not in fix


def test_a_pair_the_real_program_found_carries_the_pipelines_prediction_for_it():
    found = Found("run --x 1 --y 2", "run --y 2", Real("error", "ValueError", "m", "p.py", 1), Real("ok"))
    outcomes = Outcomes({}).with_([_outcome(REFUTED, "fires-first: e2", found)])
    asked: list[tuple[str, ...]] = []
    fix = merged_fix("e1", WITHHELD, outcomes, "1.0", spy(asked, lambda *pair: "true", lambda *pair: pair))
    assert asked == [("e1", "run --x 1 --y 2", "run --y 2")]
    assert fix["predicted"] == "true" and fix["static"]["predicted"] == "false"
    assert "predicted" not in merged_fix("e1", WITHHELD, outcomes, "1.0")  # nothing asked: nothing said


def test_a_withheld_pair_the_real_program_confirms_as_written_becomes_the_example():
    """The static prediction refuted it (kept: `predicted`); real sglang raises this error with
    `before` and accepts `after` (sglang 0.5.23 parallel_hook.py:716)."""
    fix = merged_fix("e1", WITHHELD, Outcomes({}).with_([_outcome(CONFIRMED, "confirmed")]), "1.0")
    assert (fix["before"], fix["after"], fix["verified"], fix["predicted"]) == (B, A, "true", "false")
    assert fix["real"] == "confirmed (1.0)" and "withheld" not in fix and "note" not in fix


def test_a_withheld_pair_the_real_program_refutes_stays_withheld_with_what_it_did():
    fix = merged_fix("e1", WITHHELD, Outcomes({}).with_([_outcome(REFUTED, "fires-first: e2")]), "1.0")
    assert (fix["before"], fix["verified"]) == (None, "not-run")
    assert fix["withheld"] == {"before": B, "after": A, "real": "fires-first: e2 (1.0)"}


@pytest.mark.parametrize(("why", "instead"), [
    ("after-fires: 0123456789abcdef", "(`after` meets entry 0123456789abcdef)"),
    ("after-still-fires", "(`after` still raises it)"),
    ("after-fires: outside the catalog (ValueError at p.py:3: m)", "(`after` meets outside the catalog"),
])
def test_a_withheld_before_the_real_program_raises_this_error_with_is_shown(why, instead):
    fix = merged_fix("e1", WITHHELD, Outcomes({}).with_([_outcome(REFUTED, why)]), "1.0")
    assert (fix["before"], fix["after"]) == (B, None)
    assert fix["note"].startswith("`before` raises this error (the real program, 1.0)") and instead in fix["note"]
    assert fix["withheld"] == {"before": B, "after": A, "real": f"{why} (1.0)"}  # confirm still runs the pair


def test_a_shown_before_keeps_its_withheld_pair_for_the_real_program():
    """A `before` shown alone (its fix meets another error) is merged as its withheld pair is."""
    shown = {**WITHHELD, "before": B}
    fix = merged_fix("e1", shown, Outcomes({}).with_([_outcome(REFUTED, "after-still-fires")]), "1.0")
    assert (fix["before"], fix["after"], fix["withheld"]["real"]) == (B, None, "after-still-fires (1.0)")


def test_no_example_is_left_alone():
    assert merged_fix("e1", {"before": None, "after": None, "verified": "not-run"}, NO_OUTCOMES, "1.0") == {
        "before": None, "after": None, "verified": "not-run"}


@dataclasses.dataclass(frozen=True)
class _Entry:
    id: str
    example_fix: dict
    variants: tuple
    solutions: tuple = ()


def test_apply_outcomes_merges_variants_too():
    from analyzers.entries import EntryVariant, Trigger
    from extractor.ir import TRUE

    row = EntryVariant((), "m", Trigger(TRUE, "always", (), (), (), ()), (), dict(FIX))
    entry = _Entry("e1", dict(FIX), (row, dataclasses.replace(row, example_fix=None)))
    merged = apply_outcomes([entry], Outcomes({}).with_([_outcome(CONFIRMED, "confirmed")]), "1.0")
    assert merged[0].example_fix["verified"] == "true"
    assert [v.example_fix and v.example_fix["verified"] for v in merged[0].variants] == ["true", None]


def test_confirm_json_round_trips(tmp_path):
    found = Found("b", "a", Real("error", "E", "m", "p.py", 2), Real("ok"))
    outcomes = Outcomes({}).with_([_outcome(CONFIRMED, "confirmed"), _outcome(REFUTED, "no-error", found, "2.0")])
    (tmp_path / "confirm.json").write_text(json.dumps(outcomes.as_dict()))
    assert read_outcomes(tmp_path) == outcomes
    assert read_outcomes(tmp_path / "nowhere") == NO_OUTCOMES


@pytest.mark.parametrize("data", [
    [], {"errcat_confirm": 99, "outcomes": []}, {"errcat_confirm": 1, "outcomes": [{"entry": 1}]},
    {"errcat_confirm": 1, "outcomes": [{**_outcome(CONFIRMED, "x").as_dict(), "status": "maybe"}]},
    {"errcat_confirm": 1, "outcomes": {}},
])
def test_a_file_of_another_shape_is_refused(data):
    with pytest.raises(ValueError):
        parse_outcomes(data)


def test_digest_depends_on_the_version_outcomes_only():
    one = Outcomes({}).with_([_outcome(CONFIRMED, "confirmed")])
    two = one.with_([_outcome(REFUTED, "no-error", version="2.0")])
    assert one.digest("1.0") == two.digest("1.0") != two.digest("2.0")


@pytest.mark.parametrize(("source", "release"), [
    ({"kind": "release", "ref": "0.5.23", "release": "0.5.23"}, "0.5.23"),
    ({"kind": "git", "ref": "v0.5.18", "release": None}, "0.5.18"),
    ({"kind": "git", "ref": "abc123", "release": None}, None),
    ({"kind": "git", "ref": "abc123", "release": None, "tags": ["nightly", "v0.5.18"]}, "0.5.18"),
    ({"kind": "git", "ref": "abc123", "release": None, "tags": ["v0.5.18", "v0.5.19"]}, None),  # ambiguous
    ({"kind": "directory", "ref": "/src", "release": None}, None),
])
def test_release_of(source, release):
    assert release_of(source, SimpleNamespace(release_tag="v{version}")) == release


def test_a_solutions_command_gets_the_real_programs_word():
    """Issue 37: `confirm` runs each solution's pair; extract merges its outcome into `verified`."""
    from analyzers.solution import Solution

    ran = Solution("Drop `--x`.", None, None, B, A, "true")
    untried = Solution("Leave `--y` unset.")
    entry = _Entry("e1", dict(FIX), (), (ran, untried))
    merged = apply_outcomes([entry], Outcomes({}).with_([_outcome(CONFIRMED, "confirmed")]), "1.0")
    assert [(s.verified, s.real) for s in merged[0].solutions] == [("true", "confirmed (1.0)"), ("not-run", "")]


_RAN = "Drop `--x`."


@pytest.mark.parametrize(("status", "why", "found", "expected"), [
    # the change met another error, or did not clear this one, where this error was reached: no solution
    (REFUTED, "after-fires: e2", None, []),
    (REFUTED, "after-still-fires", None, []),
    (REFUTED, "after-argparse: --y: invalid choice", None, []),
    # its command never reached this error: the words stay, the command goes
    (REFUTED, "fires-first: e2", None, [(_RAN, None, None, "not-run")]),
    (REFUTED, "no-error", None, [(_RAN, None, None, "not-run")]),
    # the real program found a context where it works: shown there, the words unchanged
    (REFUTED, "fires-first: e2", Found("run --x 1 --z", "run --z", Real("error"), Real("ok")),
     [(_RAN, "run --x 1 --z", "run --z", "true")]),
    # ... or a further change it needs: said in the words
    (REFUTED, "after-fires: e2", Found("run --x 1", "run --z 2", Real("error"), Real("ok")),
     [("Drop `--x`, and set `--z` to 2.", "run --x 1", "run --z 2", "true")]),
    # ... but not one that drops or changes what `before` gives: that may clear the error alone
    (REFUTED, "after-fires: e2", Found("run --x 1 --y 1", "run", Real("error"), Real("ok")), []),
    (REFUTED, "after-fires: e2", Found("run --x 1 --y 1", "run --y 2", Real("error"), Real("ok")), []),
])
def test_a_refuted_solution_command_is_not_shown_as_a_fix(status, why, found, expected):
    from analyzers.solution import Solution

    entry = _Entry("e1", dict(FIX), (), (Solution(_RAN, None, None, B, A, "true"),))
    outcomes = Outcomes({}).with_([_outcome(status, why, found)])
    merged = apply_outcomes([entry], outcomes, "1.0", prefix="run")
    assert [(s.text, s.before, s.command, s.verified) for s in merged[0].solutions] == expected
