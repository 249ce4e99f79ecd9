"""errcat.real.confirm: the parts that need no target (commands, repairs, examples, stand-ins)."""
from __future__ import annotations

import json

import pytest

from analyzers.judge import EntryIndex, Real, Verdict
from analyzers.launch import CommandLine, split_command
from errcat.real.confirm import Example, _unrunnable, examples_of
from errcat.real.materials import Materials, NotRunnable, unrunnable
from errcat.real.repair import Change, Pair, _repairs, change_between, shell_line
from extractor.errors import ErrcatError
from extractor.real_profile import parse_real
from tests.present import present

P = "python -m srv"


def _line(text):
    return split_command(text, P)


@pytest.mark.parametrize(("text", "env", "argv"), [
    ("python -m srv --a 1", (), ("--a", "1")),
    ("X=1 Y='a b' python -m srv --a --b c d", (("X", "1"), ("Y", "a b")), ("--a", "--b", "c", "d")),
    ("python -m srv", (), ()),
])
def test_split_command(text, env, argv):
    line = _line(text)
    assert (line.env, line.argv) == (env, argv)


@pytest.mark.parametrize("text", ["python -m other --a", "X=1", "python -m srv 'unclosed"])
def test_split_command_refuses_other_lines(text):
    with pytest.raises(ValueError):
        _line(text)


@pytest.mark.parametrize(("before", "after", "change"), [
    ("python -m srv --a 1 --b", "python -m srv --a 1", Change(drop=frozenset({"--b"}))),
    ("python -m srv --a 1", "python -m srv --a 2", Change(set=(("--a", ("2",)),))),
    ("python -m srv --a=1", "python -m srv --a 1 --c x y", Change(set=(("--c", ("x", "y")),))),
    ("X=1 python -m srv", "python -m srv", Change(env=(("X", None),))),
    ("python -m srv", "X=2 python -m srv", Change(env=(("X", "2"),))),
])
def test_change_between(before, after, change):
    assert change_between(_line(before), _line(after)) == change


@pytest.mark.parametrize(("change", "text", "result"), [
    (Change(drop=frozenset({"--b"})), "python -m srv --a 1 --b", "python -m srv --a 1"),
    (Change(set=(("--a", ("2",)),)), "python -m srv --a 1 --b", "python -m srv --b --a 2"),
    (Change(env=(("X", "1"),)), "python -m srv --b", "X=1 python -m srv --b"),
    (Change(env=(("X", None),)), "X=1 python -m srv", "python -m srv"),
])
def test_change_apply(change, text, result):
    assert shell_line(change.apply(_line(text))) == result


def test_shell_line_keeps_placeholders_and_quotes_the_rest():
    line = CommandLine((("X", "a b"),), ("python", "-m", "srv"), ("--model-path", "<model:Llama>", "--j", '{"a": 1}'))
    assert shell_line(line) == "X='a b' python -m srv --model-path <model:Llama> --j '{\"a\": 1}'"
    assert split_command(shell_line(line), P) == line


def _entry(id_, line, message, before, after):
    return {"id": id_, "source": {"path": "p.py", "line": line}, "excerpt": {"start_line": line, "code": "raise E()"},
            "matcher": message + r"\Z", "example_fix": {"before": before, "after": after, "predicted": "true"}}


E1 = _entry("e1", 1, "one", "python -m srv --x", "python -m srv")
E2 = _entry("e2", 2, "two", "python -m srv --y", "python -m srv")
INDEX = EntryIndex([E1, E2])


def _pair(real_before, real_after, why):
    ex = Example("e1", "", E1["example_fix"]["before"], E1["example_fix"]["after"], "true")
    pair = Pair(ex, _line(ex.before), _line(ex.after), (), real_before, real_after)
    pair.verdict = Verdict("refuted", why)
    return pair


def test_a_repair_applies_the_fix_of_the_error_that_fired_first_to_both_commands():
    pair = _pair(Real("error", "E", "two", "p.py", 2), None, "fires-first: e2")
    (repair,) = _repairs(pair, INDEX, {"e2": [Change(drop=frozenset({"--y"})), Change(set=(("--z", ("1",)),))]})
    assert repair.applied == ("e2",)
    # dropping --y changes nothing here; setting --z is the repair
    assert (shell_line(present(repair.before)), shell_line(present(repair.after))) == \
        ("python -m srv --x --z 1", "python -m srv --z 1")


def test_a_repair_of_after_leaves_before_alone():
    pair = _pair(Real("error", "E", "one", "p.py", 1), Real("error", "E", "two", "p.py", 2), "after-fires: e2")
    (repair,) = _repairs(pair, INDEX, {"e2": [Change(set=(("--z", ("1",)),))]})
    assert (shell_line(present(repair.before)), shell_line(present(repair.after))) == \
        ("python -m srv --x", "python -m srv --z 1")


def test_a_repair_never_touches_what_the_example_itself_changes():
    pair = _pair(Real("error", "E", "two", "p.py", 2), None, "fires-first: e2")
    assert _repairs(pair, INDEX, {"e2": [Change(drop=frozenset({"--x"}))]}) == []


def test_no_repair_for_an_error_outside_the_catalog():
    pair = _pair(Real("error", "KeyError", "k", "q.py", 9), None, "fires-first: outside the catalog")
    assert _repairs(pair, INDEX, {"e2": [Change(set=(("--z", ("1",)),))]}) == []


@pytest.mark.parametrize(("example", "why"), [
    (Example("e", "", "python -m srv --x", "python -m srv", "true"), None),
    (Example("e", "", None, None, "false", note="No command line triggers this"),
     "no example (No command line triggers this)"),
    (Example("e", "", "python -m srv --x <value>", None, "true"), "placeholder <value> has no concrete value"),
    (Example("e", "", "python -m srv", None, "true", needs=("platform:is_cuda=false",)), None),
    (Example("e", "", "python -m srv", None, "true", needs=("platform:is_cuda=false", "platform:is_hip=true")),
     "needs a machine where platform:is_hip=true"),
])
def test_unrunnable_examples_say_why(example, why):
    assert _unrunnable(example, present(parse_real({"package": "t", "platform_default": False}))) == why


CAPABILITY = "torch.cuda.get_device_capability() fails"


@pytest.mark.parametrize(("need", "why"), [
    (f"{CAPABILITY}=false", f"needs a machine where platform:{CAPABILITY}=false"),
    (f"{CAPABILITY}=true", None),
    ("is_cuda=false", None),  # not stated: every predicate reads false here
])
def test_a_need_is_met_by_what_this_machines_platform_states(need, why):
    """A DSA model's example needs a machine where the CUDA capability query works: on this
    one it fails (the `generic` platform's fact), so the example is not run here."""
    real = present(parse_real({"package": "t", "platform_default": False, "platforms": {"generic": {
        "predicates": False, "facts": {CAPABILITY: True}}}}))
    assert _unrunnable(Example("e", "", "python -m srv", None, "true", needs=(f"platform:{need}",)), real) == why


def test_examples_of_lists_entries_and_variants_and_checks_only():
    data = {"entries": [E1, {**E2, "variants": [{"example_fix": {"before": "python -m srv --v", "after": None}},
                                                 {"example_fix": {"before": None, "after": None}}]}]}
    assert [(e.entry, e.label, e.before) for e in examples_of(data)] == [
        ("e1", "", "python -m srv --x"), ("e2", "", "python -m srv --y"), ("e2", "variant 1", "python -m srv --v"),
        ("e2", "variant 2", None)]  # no example: counted, never run
    assert [e.entry for e in examples_of(data, ["e2"])] == ["e2", "e2", "e2"]
    with pytest.raises(ErrcatError, match="no entry e9"):
        examples_of(data, ["e9"])


REAL = present(parse_real({"package": "t", "models": {"default": "A", "configs": {
    "A": {"architectures": ["A"]}, "B": {"architectures": ["B"], "x": 1}}}}))


@pytest.mark.parametrize(("text", "bad"), [
    ("--m <model> --f <file> --d <dir> --n <model:B> --k <missing>", []),
    ("--v <value> --m <model>", ["<value>"]),
    ("--s <speculative-algorithm>", ["<speculative-algorithm>"]),
])
def test_unrunnable(text, bad):
    assert unrunnable(text) == bad


def test_materials_make_each_stand_in_once(tmp_path):
    made = Materials(REAL, tmp_path)
    model = made.word("<model>")
    assert json.loads((tmp_path / "model-A" / "config.json").read_text()) == {"architectures": ["A"]}
    assert made.word("<model>") == made.word("<model:A>") == model  # the default, by either name
    assert made.word("<model:B>") == str(tmp_path / "model-B")
    assert json.loads((tmp_path / "model-B" / "config.json").read_text())["x"] == 1
    assert made.word("--x=<file>") == f"--x={tmp_path / 'file.txt'}"
    assert made.word("<dir>") == str(tmp_path / "dir") and (tmp_path / "dir").is_dir()
    assert made.word("<missing>") == str(tmp_path / "missing") and not (tmp_path / "missing").exists()
    made.word("<model:C>")  # not in the profile: the default config under that name
    assert json.loads((tmp_path / "model-C" / "config.json").read_text()) == {"architectures": ["C"]}
    with pytest.raises(NotRunnable, match="no generated stand-in"):
        made.word("<name>")
