"""scripts/bench_pipeline.py: stages as multiples of the parse floor (the arithmetic, not the timing)."""
from __future__ import annotations

import pytest

from scripts.bench_pipeline import Figures, Run, main, table


@pytest.mark.parametrize(
    ("stages", "call", "other"),
    [({"sites": 1.0, "advice": 2.0}, 3.5, 0.5), ({"sites": 1.0}, 0.9, 0.0)],
    ids=["the untimed rest", "never below zero (clock granularity)"],
)
def test_other_is_the_call_less_its_stages(stages, call, other):
    assert Run(stages, call, call + 1).other == pytest.approx(other)


def test_a_row_per_release_and_mode_in_multiples_of_the_floor():
    cold = Run({"sites": 4.0, "advice": 10.0}, 16.0, 17.0)
    warm = Run({"sites": 1.0, "advice": 10.0}, 12.0, 13.0)
    rows = table([Figures("0.5.23", 88, 40000, 2.0, {"cold": cold, "warm": warm})]).splitlines()
    assert rows[0].split()[:5] == ["release", "mode", "files", "lines", "floor"]
    cold_row, warm_row = rows[2].split(), rows[3].split()
    assert cold_row[:6] == ["0.5.23", "cold", "88", "40000", "2.000", "2.00x"]  # sites: 4 s of a 2 s floor
    assert cold_row[-5:] == ["1.00x", "8.00x", "16.00", "17.00", "100%"]  # other, call; seconds; share of cold
    assert warm_row[-1] == "75%"  # 12 s of a 16 s cold call


@pytest.mark.parametrize("argv", [["--repeat", "0"], ["--profile-top", "-1"]])
def test_bad_counts_are_one_line_and_exit_2(argv, capsys):
    assert main(argv) == 2
    assert capsys.readouterr().err.count("\n") == 1
