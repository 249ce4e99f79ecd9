"""scripts/difftest.py end to end on real sglang 0.5.23 (the target env test_real_confirm builds,
cached per machine): a few generated launches, each run by the real program and predicted."""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from tests import conftest

pytestmark = pytest.mark.network

ROOT = Path(__file__).resolve().parents[1]
VERSION = "0.5.23"
COUNT = 20


def _script():
    spec = importlib.util.spec_from_file_location("difftest", ROOT / "scripts" / "difftest.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["difftest"] = module
    spec.loader.exec_module(module)
    return module


def test_generated_launches_are_run_and_predicted(tmp_path: Path, sglang_profile, extracted) -> None:
    from errcat.real.targetenv import ensure_target_env

    catalog = extracted.copy(VERSION, tmp_path / "catalog")
    target = ensure_target_env(sglang_profile, VERSION, cache_dir=conftest.test_cache_dir())
    out, regressions = tmp_path / "corpus.jsonl", tmp_path / "regressions.jsonl"
    difftest = _script()
    report = difftest.run(difftest._arguments([
        "--release", VERSION, "--catalog", str(catalog), "--python", str(target.python), "--count", str(COUNT),
        "--seed", "0", "--jobs", "2", "--out", str(out), "--regressions", str(regressions), "--quiet"]))
    print("\n".join(report))
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == COUNT and report[0].startswith(f"launches: {COUNT}")
    assert all(r["version"] == VERSION and r["predicted"]["status"] in ("ok", "error", "undecided") for r in records)
    bare = next(r for r in records if r["argv"] == ["--model-path", "<model>"])
    assert bare["first"] == "ok" and bare["outcome"] == "ok"  # real sglang accepts a bare Llama launch
    assert any(r["outcome"] == "error" and len(r["first"]) == 16 for r in records)  # an entry of the catalog fired


@pytest.mark.parametrize("version", ["0.5.23", "0.5.18"])
def test_the_committed_corpus_replays_against_the_catalog(tmp_path: Path, version: str, extracted) -> None:
    """Every recorded launch is predicted again from today's catalog (no real runs): where the
    prediction is decided it names the first error real sglang met."""
    catalog = extracted.copy(version, tmp_path / "catalog")
    corpus = ROOT / "tests" / "data" / "difftest" / f"sglang-{version}.jsonl.gz"
    out = tmp_path / "replayed.jsonl"
    difftest = _script()
    report = difftest.run(difftest._arguments(["--release", version, "--catalog", str(catalog),
                                               "--replay", str(corpus), "--out", str(out)]))
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert report[0].startswith(f"launches: {len(records)}") and len(records) >= 1000
    decided = [r for r in records if r["predicted"]["status"] != "undecided"
               and r["first"] not in ("argparse", "timeout", "crash", "not-run")]
    agreeing = [r for r in decided if r["predicted"].get("entry", r["predicted"]["status"]) == r["first"]]
    assert len(agreeing) >= 0.9 * len(decided), "\n".join(report)


def test_a_corpus_of_another_release_is_refused(tmp_path: Path, capsys) -> None:
    corpus = ROOT / "tests" / "data" / "difftest" / "sglang-0.5.18.jsonl.gz"
    code = _script().main(["--release", "0.5.23", "--catalog", str(tmp_path), "--replay", str(corpus),
                           "--out", str(tmp_path / "out.jsonl")])
    assert code == 2 and capsys.readouterr().err == f"difftest: {corpus} is not a difftest corpus of 0.5.23\n"
