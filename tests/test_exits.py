"""One exit-code table for every verb: the enum's values, and each verb's `--help` shows its rows."""
from __future__ import annotations

import pytest

from errcat.cli import main
from errcat.exits import Exit, table


@pytest.mark.parametrize("code, value", [(Exit.OK, 0), (Exit.NO, 1), (Exit.USAGE, 2), (Exit.PARTIAL, 3),
                                         (Exit.INTERRUPTED, 130)])
def test_codes(code, value):
    assert int(code) == value


@pytest.mark.parametrize("argv, shown", [
    (["--help"], "1   check: will fail, or refused by the argument parser"),
    (["--help"], "3   extract: catalog written, but incomplete"),
    (["check", "--help"], "3   undecided: may fail"),
    (["explain", "--help"], "1   an error no entry renders"),
    (["diff", "--help"], "1   a change of a --fail-on kind"),
    (["site", "--help"], "0   done"),
    (["graph", "--help"], "2   bad input or usage"),
])
def test_help_shows_the_table(capsys, argv, shown):
    assert main(argv) == Exit.OK
    assert shown in capsys.readouterr().out


def test_every_verb_has_a_row_for_0_2_and_130():
    for verb in ("extract", "check", "explain", "diff", "graph", "history", "confirm", "site", None):
        rows = table(verb).splitlines()[1:]
        assert {line.split()[0] for line in rows} >= {"0", "2", "130"}


@pytest.mark.parametrize("code", list(Exit))
def test_help_lists_every_code(capsys: pytest.CaptureFixture[str], code: Exit) -> None:
    assert main(["--help"]) == Exit.OK
    epilog = capsys.readouterr().out.partition("exit codes:")[2]
    assert any(line.split()[:1] == [str(int(code))] for line in epilog.splitlines()), code.name
