"""`errcat check` on real sglang 0.5.23's catalog against what real sglang did: the committed
difftest corpus (launches real sglang ran, with its first error) as the judge."""
from __future__ import annotations

import gzip
import json
import random
from pathlib import Path
from typing import Any

import pytest

from analyzers.first_error import OK
from analyzers.launch import CommandLine
from errcat.check import Checker, platform_of
from errcat.cli import main

pytestmark = pytest.mark.network

ROOT = Path(__file__).resolve().parents[1]
VERSION = "0.5.23"
PROGRAM = ("python", "-m", "sglang.launch_server")
SAMPLE = 150  # launches checked end to end (each with its fix search where it fails)


def _corpus() -> list[dict]:
    with gzip.open(ROOT / "tests" / "data" / "difftest" / f"sglang-{VERSION}.jsonl.gz", "rt") as f:
        return [json.loads(line) for line in f]


@pytest.fixture(scope="module")
def catalog_dir(extracted, tmp_path_factory) -> Path:
    return extracted.copy(VERSION, tmp_path_factory.mktemp("check") / "catalog")


@pytest.fixture(scope="module")
def checker(catalog_dir: Path, sglang_profile) -> Checker:
    data = json.loads((catalog_dir / "catalog.json").read_bytes())
    return Checker.of(data, sglang_profile, platform_of(sglang_profile, "generic"))


def test_what_real_argparse_accepts_is_not_refused_and_its_plain_refusals_are_its_words(checker) -> None:
    cli = checker.judge.cli
    assert cli is not None
    records = _corpus()
    accepted = [r for r in records if r["outcome"] in ("ok", "error")]
    assert accepted and not [r["argv"] for r in accepted if cli.refusal(r["argv"]) is not None]
    refused = [r for r in records if r["outcome"] == "argparse"]
    said = [(r["message"], cli.refusal(r["argv"])) for r in refused]
    plain = [(real, ours) for real, ours in said if real.startswith("unrecognized arguments")]
    assert plain and all(ours is not None and ours.message == real for real, ours in plain)


def test_the_first_error_check_names_is_the_one_real_sglang_met(checker) -> None:
    """Where check decides (ok, or an error first), it agrees with the real program, at the
    rate the whole-pipeline prediction reaches (the difftest replay measures all launches)."""
    from analyzers.judge import EntryIndex, Real

    truth = EntryIndex(checker.entries.values())  # the entry each real error is in today's catalog
    records = [r for r in _corpus() if r["outcome"] in ("ok", "error")]
    sample = random.Random(0).sample(records, SAMPLE)
    decided = agreed = 0
    for record in sample:
        checked = checker.check(CommandLine(tuple(sorted(record["env"].items())), PROGRAM, tuple(record["argv"])))
        if checked.status == "undecided":
            continue
        decided += 1
        real = OK if record["outcome"] == "ok" else truth.which(
            Real("error", record.get("type", ""), record.get("message", ""), record.get("path", ""),
                 record.get("line", 0)))
        agreed += (checked.first or OK) == real
    assert decided >= 0.8 * SAMPLE and agreed >= 0.95 * decided, (decided, agreed)


def test_a_bare_llama_launch_is_ok_and_a_known_error_is_fixed(catalog_dir: Path, capsys) -> None:
    base = ["check", "--catalog", str(catalog_dir), "--platform", "generic", "--format", "json", "--", *PROGRAM,
            "--model-path", "<model>"]
    assert main(base) == 0
    capsys.readouterr()
    assert main([*base, "--ssl-keyfile", "key.pem"]) == 1
    report = json.loads(capsys.readouterr().out)
    first = report["errors"][0]
    assert "--ssl-keyfile requires --ssl-certfile" in first["message"]
    # the entry's own advice, not dropping the option the user gave; whether key.pem exists stays open
    assert first["fix"]["set"] == ["--ssl-certfile <file>"] and "--ssl-keyfile key.pem" in first["fix"]["command"]
    assert report["fixed_command"] is None


def test_check_from_the_judge_extract_compiled_answers_as_from_catalog_json(catalog_dir: Path,
                                                                            sglang_profile) -> None:
    """extract writes judge.json; check reads it instead of building from catalog.json, and
    its reports are the same, on both platforms a user names (a sample of the corpus)."""
    from errcat.check import Request, check_catalog, load_compiled, load_data

    compiled = load_compiled(catalog_dir, sglang_profile)
    assert compiled is not None
    built = load_data(json.loads((catalog_dir / "catalog.json").read_bytes()), sglang_profile)
    checkers: dict[tuple[str, str], Checker] = {}

    def once(way: str, load: Any) -> Any:  # one checker per way and platform, as a long session keeps it
        return lambda platform: checkers.setdefault((way, platform.name), load(platform))

    records = random.Random(1).sample([r for r in _corpus() if r["outcome"] in ("ok", "error")], 30)
    for record, platform in zip(records, ["generic", "unknown"] * 15, strict=True):
        request = Request((*(f"{k}={v}" for k, v in sorted(record["env"].items())), *PROGRAM, *record["argv"]),
                          platform)
        reports = [check_catalog(once(way, load), sglang_profile, request, {})[1]
                   for way, load in (("judge", compiled), ("catalog", built))]
        assert reports[0] == reports[1], record["argv"]


# ------------------------------------------------------------------ explain

def _real_errors(catalog_dir: Path) -> tuple[list[tuple[dict, str]], Any]:
    """The corpus's errors with the entry each one is (by its raising line and message, as
    `errcat confirm` names them), and the index of the catalog's messages."""
    from analyzers.explain import MessageIndex
    from analyzers.judge import EntryIndex, Real

    data = json.loads((catalog_dir / "catalog.json").read_bytes())
    truth = EntryIndex(data["entries"])
    found = []
    for r in _corpus():
        if r["outcome"] == "error" and "message" in r:
            entry = truth.which(Real("error", r["type"], r["message"], r["path"], r["line"]))
            if entry is not None:
                found.append((r, entry))
    return found, MessageIndex(data["entries"])


def test_explain_names_the_entry_of_real_tracebacks_and_messages(catalog_dir: Path) -> None:
    """A traceback as sglang prints it names its entry top-1 (≥ 98%); the last line alone
    (``Type: message``) too, up to messages raised the same at several places (listed as ties)."""
    from analyzers.explain import ErrorText, best, error_texts

    errors, index = _real_errors(catalog_dir)
    traceback_hits = strict = tied = 0
    for record, entry in errors:
        frame = record["path"].partition("python/")[2]
        printed = (f'Traceback (most recent call last):\n  File "/venv/lib/python3.11/site-packages/{frame}", '
                   f'line {record["line"]}, in check\n    raise\n{record["type"]}: {record["message"]}\n')
        top = best(index.find(error_texts(printed)[0]))
        traceback_hits += top is not None and top.entry == entry
        matches = index.find(ErrorText(record["message"], record["type"]))
        first = best(matches)
        strict += first is not None and first.entry == entry
        tied += first is not None and any(m.entry == entry and m.score == first.score for m in matches)
    assert len(errors) >= 1000
    assert traceback_hits >= 0.98 * len(errors) and tied >= 0.98 * len(errors) and strict >= 0.9 * len(errors), (
        len(errors), traceback_hits, strict, tied)


# what `check` and `explain` must not load: they answer from a catalog, never parse or draw (issue 38)
BUILDING = ("libcst", "networkx", "tqdm", "git")


@pytest.mark.parametrize("verb, argv, stdin", [
    ("check", ["--", *PROGRAM, "--model-path", "org/name", "--tp-size", "2"], ""),
    ("explain", ["-"], "ValueError: --tp-size must be a positive integer\n"),
])
def test_check_and_explain_load_no_parser_graph_or_progress_library(catalog_dir, verb, argv, stdin) -> None:
    import subprocess
    import sys

    code = ("import sys; from errcat.cli import main; rc = main(sys.argv[1:]); "
            f"print(sorted({{m.partition('.')[0] for m in sys.modules}} & set({BUILDING!r})), file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", code, verb, "--catalog", str(catalog_dir), *argv],
                          cwd=ROOT, input=stdin, capture_output=True, text=True, timeout=300)
    assert proc.stderr.splitlines()[-1] == "[]", proc.stderr


@pytest.mark.parametrize(("change", "code"), [
    (lambda flag: flag.pop("parser"), 1),  # stored before flags recorded their parser: read as none
    (lambda flag: flag.update(bogus=1), 2),  # another shape: one line, exit 2
])
def test_a_catalog_of_an_older_or_another_shape_is_read_or_refused_in_one_line(catalog_dir: Path, tmp_path: Path,
                                                                               capsys, change, code) -> None:
    data = json.loads((catalog_dir / "catalog.json").read_bytes())
    for flag in data["flags"]["flags"]:
        change(flag)
    (tmp_path / "catalog.json").write_text(json.dumps(data))
    argv = ["check", "--catalog", str(tmp_path), "--platform", "generic", "--", *PROGRAM, "--model-path", "<model>",
            "--ssl-keyfile", "key.pem"]
    assert main(argv) == code
    err = capsys.readouterr().err
    assert (err.strip().count("\n"), "Traceback" in err) == (0, False) if code == 2 else err == ""
