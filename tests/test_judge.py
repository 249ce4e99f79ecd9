"""analyzers.judge: which catalog entry a real error is, and the verdict on an example."""
from __future__ import annotations

import re

import pytest

from analyzers.judge import CONFIRMED, NOT_RUN, REFUTED, EntryIndex, Real, frame_at, judge, statement_end
from extractor.shape import ShapeError

CODE = '''\
    if a:
        raise ValueError("one")
    assert (
        b
    ), f"two {b}"
    raise ValueError(
        "three "
        f"{c}"
    )
'''


@pytest.mark.parametrize(("line", "end"), [
    (2, 2),  # one line
    (3, 5),  # an assert whose condition spans lines
    (6, 9),  # a message over several lines
    (1, 1),  # not a raise or assert: the line itself
    (40, 40),  # outside the excerpt
])
def test_statement_end(line, end):
    assert statement_end(CODE, 1, line) == end


def _entry(id_, line, message):
    return {"id": id_, "source": {"path": "p.py", "line": line}, "excerpt": {"start_line": 1, "code": CODE},
            "matcher": re.escape(message).replace(r"\{b\}", "(.*?)").replace(r"\{c\}", "(.*?)") + r"\Z"}


INDEX = EntryIndex([_entry("e1", 2, "one"), _entry("e2", 3, "two {b}"), _entry("e3", 6, "three {c}")])


@pytest.mark.parametrize(("real", "which"), [
    (Real("error", "ValueError", "one", "p.py", 2), "e1"),
    (Real("error", "AssertionError", "two 5", "p.py", 4), "e2"),  # a line of the condition
    (Real("error", "ValueError", "three x", "p.py", 7), "e3"),
    (Real("error", "ValueError", "other", "p.py", 2), None),  # the matcher refuses the message
    (Real("error", "ValueError", "one", "q.py", 2), None),  # another file
    (Real("error", "ValueError", "one", "p.py", 3), None),  # another statement
    (Real("ok"), None),
])
def test_which(real, which):
    assert INDEX.which(real) == which


OK, ONE = Real("ok"), Real("error", "ValueError", "one", "p.py", 2)
TWO = Real("error", "AssertionError", "two 1", "p.py", 3)


@pytest.mark.parametrize(("before", "after", "status", "why"), [
    (ONE, OK, CONFIRMED, "confirmed"),
    (ONE, ONE, REFUTED, "after-still-fires"),
    (ONE, TWO, REFUTED, "after-fires: e2"),
    (ONE, None, REFUTED, "no-after: the example has no fix to run"),
    (TWO, OK, REFUTED, "fires-first: e2"),
    (OK, OK, REFUTED, "no-error"),
    (Real("argparse", "SystemExit", "argument --x: invalid choice: 'y'"), OK, REFUTED,
     "argparse: argument --x: invalid choice: 'y'"),
    (Real("error", "KeyError", "'k'", "r.py", 9), OK, REFUTED,
     "fires-first: outside the catalog (KeyError at r.py:9: 'k')"),
    (Real("timeout", message="over 60 s"), OK, NOT_RUN, "not-run: before timeout (over 60 s)"),
    (ONE, Real("crash", message="Segmentation fault"), NOT_RUN, "not-run: after crash (Segmentation fault)"),
])
def test_judge(before, after, status, why):
    verdict = judge("e1", before, after, INDEX)
    assert (verdict.status, verdict.why) == (status, why)


def test_real_round_trips():
    real = Real("error", "ValueError", "m", "p.py", 3)
    assert Real.from_dict(real.as_dict()) == real


# a crash and the assert of the same statement (``assert a % n == 0, "two {b}"``): one line
CRASH_INDEX = EntryIndex([
    {**_entry("c1", 3, "integer modulo by zero"), "kind": "crash", "exception": "ZeroDivisionError"},
    _entry("e2", 3, "two {b}"),
    {**_entry("c2", 6, "Expecting value"), "kind": "crash", "exception": "json.decoder.JSONDecodeError"},
])


@pytest.mark.parametrize(("real", "which"), [
    (Real("error", "ZeroDivisionError", "integer modulo by zero", "p.py", 3), "c1"),
    (Real("error", "AssertionError", "two 1", "p.py", 3), "e2"),
    (Real("error", "ZeroDivisionError", "integer modulo by zero", "p.py", 4), None),  # another line of it
    (Real("error", "ValueError", "integer modulo by zero", "p.py", 3), None),  # another type
    (Real("error", "JSONDecodeError", "Expecting value", "p.py", 6), "c2"),  # the class name, not its module
])
def test_a_crash_is_its_exception_type_on_its_line(real, which):
    assert CRASH_INDEX.which(real) == which


# line 6 as a handler raising the caught message again (``raise E(str(err)) from err``): any message
FORWARD_INDEX = EntryIndex([_entry("e1", 2, "one"), {**_entry("w", 6, ""), "matcher": r"(.*?)\Z"}])
FORWARDED = Real("error", "RuntimeError", "one", "p.py", 7, written_at=("p.py", 2))


@pytest.mark.parametrize(("real", "names"), [
    (FORWARDED, ("e1", "w")),  # the raise that wrote it first, then the handler
    (Real("error", "RuntimeError", "one", "p.py", 7), ("w",)),  # where the driver saw no cause
    (Real("error", "RuntimeError", "two", "p.py", 7, written_at=("p.py", 2)), ("w",)),  # not e1's words
])
def test_an_error_raised_again_unchanged_is_both_entries(real, names):
    assert FORWARD_INDEX.names(real) == names
    assert FORWARD_INDEX.which(real) == names[0]


@pytest.mark.parametrize("entry", ["e1", "w"])
def test_an_example_of_either_entry_is_confirmed_by_the_error_raised_again(entry):
    verdict = judge(entry, FORWARDED, OK, FORWARD_INDEX)
    assert verdict.status == CONFIRMED


def test_where_a_message_was_written_round_trips():
    assert Real.from_dict(FORWARDED.as_dict()) == FORWARDED


@pytest.mark.parametrize(("frame", "read"), [
    ({"path": "a.py", "line": 3}, ("a.py", 3)),
    (None, None),  # nothing raised it again
])
def test_a_frame_reads_as_path_and_line(frame, read):
    assert frame_at(frame) == read


@pytest.mark.parametrize("frame", [
    ["a.py", 3], {"path": "a.py"}, {"path": "a.py", "line": "3"}, {"path": 1, "line": 3},
])
def test_a_frame_of_another_shape_is_refused(frame):
    with pytest.raises(ShapeError):
        frame_at(frame)
