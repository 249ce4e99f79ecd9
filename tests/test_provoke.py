"""Provocation launches: boundary values per kind of option, from the flag model alone,
seeded pairs; and the share of the real program's stop lines the catalog has."""
from __future__ import annotations

import textwrap

import pytest

from analyzers.flag_build import build_flag_model
from analyzers.judge import EntryIndex, Real
from analyzers.provoke import HUGE, JSON_TEXTS, NUMBERS, TEXTS, provocations, sample, singles
from analyzers.stop_lines import coverage


def flags_of(body: str):
    source = "def add_cli_args(parser):\n" + textwrap.indent(textwrap.dedent(body), "    ")
    return build_flag_model({"p/args.py": source})


BASE = '''
parser.add_argument("--model-path", type=str, required=True)
'''


@pytest.mark.parametrize(("declaration", "values"), [
    ('parser.add_argument("--tp-size", type=int, default=1)', NUMBERS),
    ('parser.add_argument("--mem-fraction", type=float)', NUMBERS),
    ('parser.add_argument("--host", type=str, default="x")', TEXTS),
    ('parser.add_argument("--cfg", type=json.loads)', JSON_TEXTS),
    ('parser.add_argument("--ports", type=int, nargs="+")', NUMBERS),
    ('parser.add_argument("--names", type=str, nargs="*")', TEXTS),
    ('parser.add_argument("--on", action="store_true")', ()),
    ('parser.add_argument("--backend", type=str, choices=["a", "b"])', ()),
])
def test_each_kind_of_option_gets_its_boundary_values(declaration, values):
    option = declaration.split('"')[1]
    assert [v for o, v in singles(flags_of(BASE + declaration), "model_path") if o == option] == list(values)


def test_numbers_are_zero_negative_and_huge():
    assert NUMBERS == ("0", "-1", HUGE) and int(HUGE) == 2 ** 40


def test_the_model_flag_is_given_a_stand_in_and_never_provoked():
    found = provocations(flags_of(BASE + 'parser.add_argument("--tp-size", type=int)'), "model_path", pairs=0, seed=0)
    assert [p.argv for p in found] == [("--model-path", "<model>", "--tp-size", v) for v in NUMBERS]


TWO = BASE + 'parser.add_argument("--tp-size", type=int)\nparser.add_argument("--host", type=str)\n' \
    'parser.add_argument("--pp-size", type=int)\n'


def test_pairs_are_seeded_distinct_and_on_two_options():
    one, again, other = (provocations(flags_of(TWO), "model_path", pairs=10, seed=s) for s in (1, 1, 2))
    pairs = [p for p in one if p.origin.startswith("pair")]
    assert one == again and one != other and len(pairs) == 10 == len({p.argv for p in pairs})
    assert all(p.argv[2] != p.argv[4] for p in pairs)


def test_a_sample_keeps_order_and_is_seeded():
    found = provocations(flags_of(TWO), "model_path", pairs=5, seed=0)
    kept = sample(found, 4, 3)
    assert kept == sample(found, 4, 3) and len(kept) == 4 and kept == [p for p in found if p in kept]
    assert sample(found, None, 3) == found


INDEX = EntryIndex([
    {"id": "raise", "source": {"path": "a.py", "line": 3}, "matcher": "bad .*"},
    {"id": "crash", "source": {"path": "a.py", "line": 9}},
])


@pytest.mark.parametrize(("reals", "lines", "covered"), [
    ([Real("error", "ValueError", "bad x", "a.py", 3)], 1, 1),  # an entry, its message
    ([Real("error", "ValueError", "other", "a.py", 3)], 1, 0),  # the line, not its message
    ([Real("error", "ZeroDivisionError", "integer modulo by zero", "a.py", 9)], 1, 1),  # no matcher: the line
    ([Real("error", "KeyError", "'x'", "b.py", 4)], 1, 0),  # no entry there
    ([Real("error", "ValueError", "bad x", "a.py", 3), Real("error", "ValueError", "bad y", "a.py", 3)], 1, 1),
    ([Real("error", "ValueError", "bad x", "a.py", 3), Real("error", "ValueError", "odd", "a.py", 3)], 1, 0),
    ([Real("ok"), Real("argparse", "SystemExit", "invalid int value"), Real("timeout")], 0, 0),
])
def test_a_stop_line_is_covered_when_every_launch_stopping_there_is_an_entry(reals, lines, covered):
    found = coverage(reals, INDEX)
    assert (len(found.lines), found.covered) == (lines, covered)


def test_errors_without_a_frame_in_the_package_are_counted_apart():
    found = coverage([Real("error", "OSError", "no such file"), Real("error", "ValueError", "bad x", "a.py", 3)], INDEX)
    assert (found.unlocated, len(found.lines), found.share) == (1, 1, 1.0)
