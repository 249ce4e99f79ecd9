"""A command for every reachable error, on real sglang 0.5.23: examples the issue found
missing are there and real sglang confirms them; counting flags get values a person passes;
every withheld pair says why, and catalog.json's stats count them by reason."""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from analyzers.judge import CONFIRMED
from errcat.real.confirm import confirm
from tests import conftest

pytestmark = pytest.mark.network

VERSION = "0.5.23"
# (file, line) -> what the example's `before` gives (a regex): reached from a command line
REACHED = {
    # a field of a JSON option, strictly between its bounds
    ("validation_hook.py", 63): r"--enable-watermark --watermark-config '\{\"mixing_probability\": 0\.25\}'",
    # the architecture the check names, with the quantization its stand-in declares
    ("minimax_m3.py", 58): r"<model:MiniMaxM3Sparse\w+> --speculative-algorithm (EAGLE|EAGLE3|NEXTN|STANDALONE|NGRAM)",
}


@pytest.fixture(scope="module")
def catalog_dir(extracted, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return extracted.copy(VERSION, tmp_path_factory.mktemp("examples") / VERSION)


@pytest.fixture(scope="module")
def catalog(catalog_dir: Path) -> dict[str, Any]:
    return json.loads((catalog_dir / "catalog.json").read_text())


def _entry(catalog: dict[str, Any], file: str, line: int) -> dict[str, Any]:
    return next(e for e in catalog["entries"]
                if e["source"]["path"].endswith("/" + file) and e["source"]["line"] == line)


@pytest.mark.parametrize("site", sorted(REACHED))
def test_an_error_a_command_line_reaches_has_an_example(catalog: dict[str, Any], site: tuple[str, int]) -> None:
    fix = _entry(catalog, *site)["example_fix"]
    assert fix["predicted"] == "true" and re.search(REACHED[site], fix["before"]), fix


def test_real_sglang_confirms_them(catalog: dict[str, Any], catalog_dir: Path, sglang_profile) -> None:
    from errcat.real.targetenv import ensure_target_env

    target = ensure_target_env(sglang_profile, VERSION, cache_dir=conftest.test_cache_dir())
    ids = [_entry(catalog, *site)["id"] for site in sorted(REACHED)]
    run = confirm(catalog_dir, target.python, jobs=2, only=ids)
    outcomes = {e.entry: run.outcome(e) for e in run.examples if not e.label}
    assert {i: o.why if o else "no example" for i in ids
            if (o := outcomes.get(i)) is None or o.status != CONFIRMED} == {}


def test_a_counting_flag_is_never_0_unless_the_error_is_about_it(catalog: dict[str, Any]) -> None:
    counts = re.compile(r"(--(?:tp|pp|dp|dcp|ep|attn-dp|attn-cp|moe-dp|dwdp|max-ep|shared-experts-tp)-size) (0|-\d+)\b")
    wrong = []
    for entry in catalog["entries"]:
        fix = entry["example_fix"]
        for option, _ in counts.findall(" ".join(c for c in (fix["before"], fix["after"]) if c)):
            # a crash dividing by a size that is 0 is about that size (its trigger reads it)
            about = entry.get("kind") == "crash" and f"`{option}`" in entry["trigger"]["text"]
            if not about and not re.search(rf"`{option}` (< 1|<= 0)", entry["trigger"]["text"]):
                wrong.append((entry["source"]["path"], entry["source"]["line"], fix["before"], fix["after"]))
    assert wrong == []


def test_every_withheld_pair_says_why_and_the_stats_count_them(catalog: dict[str, Any]) -> None:
    held = [e["example_fix"]["withheld"] for e in catalog["entries"] if e["example_fix"].get("withheld")]
    assert held and all(h.get("reason") in ("earlier_check", "not_reached", "after_fails", "no_fix") for h in held)
    stats = catalog["stats"]
    assert sum(v for k, v in stats.items() if k.startswith("withheld_")) == len(held)
    assert stats["examples"] == sum(bool(e["example_fix"]["before"]) for e in catalog["entries"])
