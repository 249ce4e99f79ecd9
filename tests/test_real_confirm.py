"""Real sglang as the judge, end to end: the 0.5.23 target interpreter is built (cached per
machine), and a fixed sample of entries is confirmed by sglang's own argument validation.

Also the recorded corpus: every launch a full `errcat confirm --record` made on 0.5.23 and
what real sglang did. Without the target, the static side is checked against it: each real
error is the catalog entry it was when recorded (same file and statement, the template's
matcher accepts the real message).
"""
from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from analyzers.judge import CONFIRMED, EntryIndex, Real
from errcat.real.confirm import confirm, write_results
from tests import conftest

pytestmark = pytest.mark.network

DATA = Path(__file__).parent / "data" / "real"
VERSION = "0.5.23"


def _sample() -> list[str]:
    lines = (DATA / f"confirm-sample-{VERSION}.txt").read_text().splitlines()
    return [line.split()[0] for line in lines if line.strip() and not line.startswith("#")]


def _corpus(version: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / f"sglang-{version}.jsonl").read_text().splitlines() if line]


@pytest.fixture(scope="module")
def catalogs(extracted, tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    made: dict[str, Path] = {}

    def get(version: str) -> Path:  # a copy: confirm writes its results into the directory
        if version not in made:
            made[version] = extracted.copy(version, tmp_path_factory.mktemp("catalog") / version)
        return made[version]

    return get


@pytest.fixture(scope="module")
def catalog_dir(catalogs: Callable[[str], Path]) -> Path:
    return catalogs(VERSION)


@pytest.mark.parametrize("version", ["0.5.23", "0.5.18"])
def test_the_corpus_errors_are_the_entries_they_were(catalogs: Callable[[str], Path], version: str) -> None:
    index = EntryIndex(json.loads((catalogs(version) / "catalog.json").read_text())["entries"])
    records = [r for r in _corpus(version) if r["outcome"] == "error"]
    assert len(records) >= 200 and sum("entry" in r for r in records) >= 150
    wrong = [(r["argv"], r.get("entry"), index.which(Real.from_dict(r))) for r in records
             if index.which(Real.from_dict(r)) != r.get("entry")]
    assert wrong == []


def test_a_fixed_sample_is_confirmed_by_real_sglang(catalog_dir: Path, sglang_profile) -> None:
    from errcat.real.targetenv import ensure_target_env

    started = time.monotonic()
    target = ensure_target_env(sglang_profile, VERSION, cache_dir=conftest.test_cache_dir())
    built = time.monotonic() - started
    sample = _sample()
    assert len(sample) >= 40
    run = confirm(catalog_dir, target.python, jobs=2, only=sample)
    summary = write_results(run)
    print(f"target env ready in {built:.0f} s; {summary}")
    outcomes = {e.entry: run.outcome(e) for e in run.examples if not e.label}
    missed = {i: o.why if o else "no example" for i in sample
              if (o := outcomes.get(i)) is None or (o.status != CONFIRMED and o.found is None)}
    assert missed == {}
