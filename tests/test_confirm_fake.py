"""`errcat confirm` end to end against a fake target package (tests/test_driver.py's) in a
subprocess interpreter: verdicts, repairs found by the real program, not-run, reuse, refusals."""
from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

from errcat.cli import main
from errcat.real.confirm import confirm, write_results
from extractor.errors import ErrcatError
from tests.test_driver import ARGS, HOOKS, line_of

PROFILE = """\
name: fake
repo: o/fake
targets: [src/fakesrv/*.py]
release_paths: {"fakesrv/": "src/fakesrv/"}
launch: fake serve
real:
  package: fakesrv
  install: [{pip: [["{target}"]]}]
  env: {FAKE_BASE: base, FAKE_GONE: here}
  args: ["--device", "cuda"]
  validate: [{module: fakesrv.args, steps: [{call: prepare}, {method: resolve}, {method: check}]}]
  models: {default: Tiny, configs: {Tiny: {architectures: [Tiny]}}}
"""


def _entry(id_, marker, message, before, after, *, kind="raise", start=None):
    line = line_of(marker) if start is None else start
    return {"id": id_, "kind": kind, "exception": "ValueError",
            "source": {"path": "src/fakesrv/hooks.py", "line": line, "function": "check"},
            "excerpt": {"start_line": 1, "code": HOOKS}, "matcher": message,
            "example_fix": {"before": before, "after": after, "verified": "not-run", "predicted": "true"},
            "variants": []}


ENTRIES = [
    _entry("a" * 16, "value", r"size (.*?) is over 4\Z", "fake serve --size 5", "fake serve --size 1"),
    # a multi-line assert: the traceback names a line of its condition
    _entry("b" * 16, "assert", r"size must not be (.*?)\Z", "fake serve --size 3", "fake serve --size 2",
           kind="assert", start=line_of("assert") - 1),
    # the size check fires first; its own example's fix (--size 1) gets past it
    _entry("c" * 16, "device", r"device (.*?)\Z", "fake serve --action device --size 5", "fake serve --size 5"),
    _entry("d" * 16, "int", r"invalid literal(.*?)\Z", "fake serve --action int --mode c", "fake serve --mode c"),
    _entry("e" * 16, "exit", r"stopped here\Z", "fake serve --action hang", "fake serve"),
    _entry("f" * 16, "env", r"env(.*?)\Z", "fake serve --size <value>", "fake serve"),
]


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, Path]:
    """(catalog dir, python): the fake package importable through a wrapper interpreter."""
    pkg = tmp_path / "site"
    (pkg / "fakesrv").mkdir(parents=True)
    (pkg / "fakesrv" / "__init__.py").write_text("")
    (pkg / "fakesrv" / "args.py").write_text(ARGS)
    (pkg / "fakesrv" / "hooks.py").write_text(HOOKS)
    dist = pkg / "fakesrv-1.2.3.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: fakesrv\nVersion: 1.2.3\n")
    python = tmp_path / "python"
    python.write_text(f'#!/bin/sh\nPYTHONPATH={pkg} exec {sys.executable} "$@"\n')
    python.chmod(0o755)
    (tmp_path / "fake.yaml").write_text(PROFILE)
    cat = tmp_path / "cat"
    cat.mkdir()
    catalog = {"profile": str(tmp_path / "fake.yaml"), "source": {"kind": "release", "ref": "1.2.3",
                                                                   "release": "1.2.3"}, "entries": ENTRIES}
    (cat / "catalog.json").write_text(json.dumps(catalog))
    return cat, python


def _by_entry(run):
    return {o.entry: o for o in run.outcomes.by_key.values()}


def test_confirm_judges_every_example_against_the_real_program(setup):
    cat, python = setup
    run = confirm(cat, python, jobs=2, timeout=5)
    got = {e[:1]: (o.status, o.why) for e, o in _by_entry(run).items()}
    assert got["a"] == ("confirmed", "confirmed")
    assert got["b"] == ("confirmed", "confirmed")
    assert got["c"] == ("refuted", f"fires-first: {'a' * 16}")
    assert got["d"] == ("refuted", "argparse: argument --mode: invalid choice: 'c' (choose from 'a', 'b')")
    assert got["e"][0] == "not-run" and got["e"][1].startswith("not-run: before timeout")
    assert got["f"] == ("not-run", "not-run: placeholder <value> has no concrete value")


def test_a_refuted_example_is_replaced_by_one_the_real_program_confirms(setup):
    cat, python = setup
    found = _by_entry(confirm(cat, python, jobs=1, timeout=5, only=["c" * 16]))["c" * 16].found
    assert found is not None
    assert (found.before, found.after) == ("fake serve --action device --size 1", "fake serve --size 1")
    assert (found.real_before.message, found.real_after.outcome) == ("device cuda", "ok")


def test_a_withheld_pair_runs_and_the_real_program_may_repair_it(setup):
    """The pipeline refuted it, so the catalog shows no command; confirm still runs it."""
    cat, python = setup
    data = json.loads((cat / "catalog.json").read_text())
    fix = data["entries"][2]["example_fix"]
    data["entries"][2]["example_fix"] = {"before": None, "after": None, "verified": "not-run", "predicted": "false",
                                         "note": "withheld", "withheld": {"before": fix["before"],
                                                                          "after": fix["after"]}}
    (cat / "catalog.json").write_text(json.dumps(data))
    outcome = _by_entry(confirm(cat, python, jobs=1, timeout=5, only=["c" * 16]))["c" * 16]
    assert (outcome.before, outcome.status) == ("fake serve --action device --size 5", "refuted")
    assert outcome.found is not None and outcome.found.before == "fake serve --action device --size 1"


def test_results_are_written_beside_the_catalog_and_reused(setup):
    cat, python = setup
    summary = write_results(confirm(cat, python, jobs=2, timeout=5, only=["a" * 16, "c" * 16]))
    assert re.match(r"1\.2\.3: 2 examples, 1 confirmed as written, 1 replaced by examples the real program "
                    r"confirmed, 0 refuted, 0 not run", summary)
    data = json.loads((cat / "confirm.json").read_text())
    assert [o["entry"][:1] for o in data["outcomes"]] == ["a", "c"]
    report = (cat / "confirm.md").read_text()
    assert "found by the real program" in report and "fires-first" in report
    again = confirm(cat, python, jobs=1, only=["a" * 16, "c" * 16])
    assert (again.ran, again.launches) == (0, 0)


def test_the_installed_version_must_be_the_catalogs(setup):
    cat, python = setup
    data = json.loads((cat / "catalog.json").read_text())
    data["source"]["release"] = "9.9"
    (cat / "catalog.json").write_text(json.dumps(data))
    with pytest.raises(ErrcatError, match=r"has fakesrv 1\.2\.3 installed, the catalog describes 9\.9"):
        confirm(cat, python)


@pytest.mark.parametrize(("args", "message"), [
    (["confirm", "{cat}/nowhere", "--python", "{py}"], "is not a catalog directory"),
    (["confirm", "{cat}", "--python", "{py}", "--only", "0123"], "--only: no entry 0123"),
    (["confirm", "{cat}", "--python", "{py}", "--jobs", "0"], "--jobs must be at least 1"),
    (["confirm", "{cat}", "--python", "/no/such/python"], "cannot run the target interpreter"),
])
def test_bad_input_is_one_line_and_exit_2(setup, capsys, args, message):
    cat, python = setup
    assert main([a.format(cat=cat, py=python) for a in args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and not os.path.exists(cat / "confirm.json")


def test_an_example_not_run_for_a_machine_it_no_longer_needs_runs_again(setup):
    cat, python = setup
    data = json.loads((cat / "catalog.json").read_text())
    data["entries"][0]["example_fix"]["needs"] = ['platform:device="npu"']
    (cat / "catalog.json").write_text(json.dumps(data))
    write_results(confirm(cat, python, jobs=1, timeout=5, only=["a" * 16]))
    assert _by_entry(confirm(cat, python, jobs=1, timeout=5, only=["a" * 16]))["a" * 16].status == "not-run"
    del data["entries"][0]["example_fix"]["needs"]
    (cat / "catalog.json").write_text(json.dumps(data))
    again = confirm(cat, python, jobs=1, timeout=5, only=["a" * 16])
    assert again.ran == 1 and _by_entry(again)["a" * 16].status == "confirmed"


def test_an_example_refuted_here_that_now_needs_another_machine_is_not_run(setup):
    """Refuted on this machine, then found to need one this machine is not (a check only such
    a machine passes stopped it here): the refutation is no evidence, so it is recorded not run."""
    cat, python = setup
    c = "c" * 16
    write_results(confirm(cat, python, jobs=1, timeout=5, only=[c], repair=False))
    assert _by_entry(confirm(cat, python, jobs=1, timeout=5, only=[c]))[c].status == "refuted"
    data = json.loads((cat / "catalog.json").read_text())
    data["entries"][2]["example_fix"]["needs"] = ['platform:device="npu"']
    (cat / "catalog.json").write_text(json.dumps(data))
    again = confirm(cat, python, jobs=1, timeout=5, only=[c])
    assert (again.launches, _by_entry(again)[c].status) == (0, "not-run")
