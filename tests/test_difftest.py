"""Differential testing's pure side: naming the real first error, figures, minimising disagreements."""
from __future__ import annotations

import gzip
import importlib.util
import json
import sys
from pathlib import Path

import pytest

from analyzers.difftest import Case, disagreements, figures, minimise, real_first, regression_record
from analyzers.first_error import ERROR, OK, UNDECIDED, Prediction
from analyzers.judge import EntryIndex, Real
from output.jsonlines import read_lines, write_lines

INDEX = EntryIndex([{"id": "e1", "source": {"path": "a.py", "line": 3}, "matcher": "bad"}])


@pytest.mark.parametrize(("real", "first"), [
    (Real("ok"), "ok"),
    (Real("error", "ValueError", "bad", "a.py", 3), "e1"),
    (Real("error", "ValueError", "other", "a.py", 3), "unmatched"),
    (Real("argparse", "SystemExit", "invalid choice"), "argparse"),
    (Real("timeout"), "timeout"),
])
def test_real_first(real, first):
    assert real_first(real, INDEX) == first


def case(first: str, prediction: Prediction, argv: tuple[str, ...] = ("--x",), origin: str = "combo e") -> Case:
    return Case(argv, (), origin, Real("ok") if first == OK else Real("error", "E", "m"), first, prediction)


SAYS_E1, SAYS_OK, OPEN = Prediction(ERROR, "e1", ("e1",)), Prediction(OK), Prediction(UNDECIDED, None, ("e1",))


def test_figures_count_raising_distinct_decided_and_agreeing():
    cases = [case("e1", SAYS_E1), case("e2", SAYS_OK), case(OK, SAYS_OK), case("e1", OPEN),
             case("argparse", SAYS_OK)]
    found = figures(cases)
    assert (found.launches, found.valid, found.raising, found.distinct) == (5, 4, 3, 2)
    assert (found.decided, found.agreeing, found.covered) == (3, 2, 3)
    assert [c.first for c in disagreements(cases)] == ["e2"]


def fake_judge(fires_when: set[str]):
    """Real: e2 fires while every option of `fires_when` is given; the prediction stays ok."""
    def judge(lines):
        out = []
        for argv, _env in lines:
            first = "e2" if fires_when <= set(argv) else OK
            out.append((Real("error", "E", "m") if first != OK else Real("ok"), first, SAYS_OK))
        return out
    return judge


def test_minimise_drops_what_the_disagreement_does_not_need():
    start = case("e2", SAYS_OK, ("--a", "1", "--b", "--c", "x", "y", "--d"))
    start = Case(start.argv, (("ENV", "1"),), start.origin, start.real, start.first, start.prediction)
    [found] = minimise([start], fake_judge({"--b", "--d"}))
    assert (found.argv, found.env, found.first, found.prediction.first) == (("--b", "--d"), (), "e2", OK)


def test_minimise_keeps_a_case_when_nothing_can_go():
    start = case("e2", SAYS_OK, ("--b",))
    assert minimise([start], fake_judge({"--b"})) == [start]


def test_a_regression_record_is_the_recorded_corpus_line_with_the_prediction():
    record = regression_record(case("e2", SAYS_OK), "1.0")
    assert record == {"version": "1.0", "argv": ["--x"], "env": {}, "outcome": "error", "type": "E", "message": "m",
                      "entry": "e2", "predicted": "ok"}



def _script():
    path = Path(__file__).resolve().parents[1] / "scripts" / "difftest.py"
    spec = importlib.util.spec_from_file_location("difftest", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["difftest"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name, opener", [("corpus.jsonl", open), ("corpus.jsonl.gz", gzip.open)])
def test_the_corpus_is_json_lines_compressed_for_a_gz_name(tmp_path, name, opener):
    records = [{"argv": ["--tp-size", "2"], "first": "ok"}, {"argv": [], "first": "abc"}]
    write_lines(tmp_path / name, records)
    with opener(tmp_path / name, "rt", encoding="utf-8") as fh:
        assert [json.loads(line) for line in fh] == records
    assert read_lines(tmp_path / name) == records


@pytest.mark.parametrize("option, message", [
    (["--count", "-3"], "--count must be at least 1"),
    (["--jobs", "0"], "--jobs must be at least 1"),
    (["--timeout", "0"], "--timeout must be positive"),
])
def test_bad_numbers_are_one_line_refusals_and_write_nothing(tmp_path, capsys, option, message):
    out = tmp_path / "corpus.jsonl"
    assert _script().main(["--release", "0.5.23", "--catalog", str(tmp_path), "--out", str(out), *option]) == 2
    assert capsys.readouterr().err == f"difftest: {message}\n" and not out.exists()
