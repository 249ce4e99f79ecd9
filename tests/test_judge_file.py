"""judge.json: the first-error pipeline compiled at extract time, read by check only while it is up to date."""
from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path
from typing import Any

import pytest

from analyzers.first_error import Pipeline, pipeline_fields
from analyzers.flag_build import build_flag_model
from analyzers.judge_data import pipeline_data, pipeline_of_data
from errcat.check import load_compiled
from errcat.cli import main
from errcat.pipeline import compiled_judge
from extractor.ir import And, Apply, Compare, Const, In, Not, Or, Ref, RefKind, Seq, Truthy, Unknown
from extractor.ir_table import NodeTable, nodes_of
from extractor.profile import load_profile
from output.catalog_stamp import stamp
from output.judge_file import NAME, judge_key, read_judge

TP = Ref(RefKind.FLAG, "tp_size", "cfg.tp_size")
ALGO = Ref(RefKind.FLAG, "speculative_algorithm", "cfg.speculative_algorithm")


@pytest.mark.parametrize("expr", [
    TP,
    Const(None),
    Const(("a", 1, 1.0, True)),
    Unknown("a value computed in a loop"),
    Apply("len", (Seq((TP, Const("x"))),), "len((tp, 'x'))"),
    Truthy(Apply("if", (Truthy(TP), Const("EAGLE"), ALGO), "alias(algo)")),
    Not(In(ALGO, Const(("EAGLE", "EAGLE3")))),
    And((Compare("==", TP, Const(1)), Compare("==", TP, Const(True)))),  # 1 and True stay apart
    Or((Compare(">", TP, Const(2)), Compare("is", ALGO, Const(None)))),
])
def test_a_condition_comes_back_from_its_node_table_as_it_was(expr) -> None:
    table = NodeTable()
    at = table.add(expr)
    back = nodes_of(json.loads(json.dumps(table.rows)))[at]
    assert back == expr and repr(back) == repr(expr)


def test_equal_sub_trees_are_written_once_and_read_back_as_one_object() -> None:
    table = NodeTable()
    first, second = table.add(Compare("==", TP, Const(2))), table.add(Truthy(TP))
    assert table.add(Compare("==", TP, Const(2))) == first and len(table.rows) == 4
    nodes = nodes_of(table.rows)
    compare, truthy = nodes[first], nodes[second]
    assert isinstance(compare, Compare) and isinstance(truthy, Truthy) and compare.left is truthy.term


FLAGS = build_flag_model({"p/args.py": textwrap.dedent('''
    def add_cli_args(parser):
        parser.add_argument("--model-path", type=str, required=True)
        parser.add_argument("--tp-size", type=int, default=1)
        parser.add_argument("--enable-lora", action="store_true")
        parser.add_argument("--speculative-algorithm", type=str, default=None)
''')})
LORA = {"op": "ref", "kind": "flag", "name": "enable_lora", "text": "cfg.enable_lora"}
ALGO_D = ALGO.as_dict()
TP_D = TP.as_dict()


def _entry(id_: str, line: int, expr: dict, **more: Any) -> dict[str, Any]:
    return {"id": id_, "exception": "ValueError", "template": f"error {id_}", "meaning": "m",
            "source": {"path": "python/sglang/srt/arg_groups/a_hook.py", "line": line, "function": "hook"},
            "trigger": {"text": id_, "expr": expr}, **more}


def _data() -> dict[str, Any]:
    """A catalog of sglang 0.5.23's shape: LoRA with EAGLE fails, a helper decides tp, --tp-size 3 turns LoRA on."""
    lora_eagle = {"op": "and", "args": [{"op": "truthy", "term": LORA}, {
        "op": "compare", "cmp": "==", "left": ALGO_D, "right": {"op": "const", "value": "EAGLE"}}]}
    odd_tp = {"op": "apply", "fn": "odd", "args": [TP_D], "text": "odd(cfg.tp_size)"}
    return {"source": {"kind": "release", "release": "0.5.23"}, "flags": FLAGS.as_dict(),
            "functions": [{"name": "odd", "params": ["n"], "returns": {
                "op": "compare", "cmp": "==", "right": {"op": "const", "value": 5},
                "left": {"op": "ref", "kind": "unknown", "name": "n", "text": "parameter n"}}}],
            "adjustments": [{"dest": "enable_lora", "value": {"op": "const", "value": True}, "order": 1,
                             "when": {"expr": {"op": "compare", "cmp": "==", "left": TP_D,
                                               "right": {"op": "const", "value": 3}}}}],
            "entries": [_entry("loraeagle", 1, lora_eagle, order=5),
                        _entry("oddtp", 2, {"op": "truthy", "term": odd_tp}),
                        _entry("atstart", 3, {"op": "truthy", "term": LORA}, stage="start"),
                        _entry("rows", 4, {"op": "const", "value": True}, variants=[{"trigger": {"expr": {
                            "op": "compare", "cmp": ">", "left": TP_D, "right": {"op": "const", "value": 6}}}}])]}


def _catalog(root: Path, data: dict[str, Any], *, judge: bool = True) -> Path:
    (root / "entries").mkdir(parents=True)
    for entry in data["entries"]:
        (root / "entries" / f"{entry['id']}.json").write_text(json.dumps(entry))
    raw = json.dumps(data).encode()
    (root / "catalog.json").write_bytes(raw)
    if judge:
        head = {k: v for k, v in data.items() if k != "entries"}
        text = compiled_judge({**head, "entries": [pipeline_fields(e) for e in data["entries"]]},
                              load_profile("sglang"), "0.5.23", stamp([raw]))
        assert text is not None
        (root / NAME).write_text(text)
    return root


def test_the_compiled_pipeline_reads_back_as_the_one_built_from_the_catalog() -> None:
    profile = load_profile("sglang")
    validation = profile.real.validation_for("0.5.23") if profile.real is not None else None
    assert validation is not None
    steps = [s.name for s in validation.steps]
    built = Pipeline.of_catalog(_data(), steps, profile.examples)
    back = pipeline_of_data(json.loads(json.dumps(pipeline_data(built))), profile.examples).pipeline
    assert (back.checks, back.model.rules, back.model.examples, back.later) == (
        built.checks, built.model.rules, built.model.examples, built.later)
    assert back.model.flags.as_dict() == built.model.flags.as_dict()


def test_what_check_weighs_survives_the_fields_the_judge_is_compiled_from() -> None:
    """A crash (counted only where it surely fires), a check outside the targets reading a model
    property (not weighed) and an environment check: judge.json is compiled from each entry's
    `pipeline_fields`, and must weigh them as the whole entries are."""
    profile = load_profile("sglang")
    validation = profile.real.validation_for("0.5.23") if profile.real is not None else None
    assert validation is not None
    steps = [s.name for s in validation.steps]
    model_read = {"op": "truthy", "term": {"op": "ref", "kind": "model", "name": "hidden_size", "text": "h"}}
    data = _data()
    data["entries"] += [_entry("crash", 5, {"op": "truthy", "term": LORA}, kind="crash"),
                        _entry("outside", 6, model_read, outside_targets=True),
                        _entry("env", 7, {"op": "truthy", "term": LORA}, outside_targets=True, environment=True)]
    whole = Pipeline.of_catalog(data, steps, profile.examples)
    fields = Pipeline.of_catalog({**data, "entries": [pipeline_fields(e) for e in data["entries"]]}, steps,
                                 profile.examples)
    back = pipeline_of_data(json.loads(json.dumps(pipeline_data(fields))), profile.examples).pipeline
    assert [c.id for c in whole.checks if c.quiet] == ["crash"]
    assert {c.id for c in whole.checks}.isdisjoint({"outside", "env"})
    assert back.checks == fields.checks == whole.checks


def _grown(root: Path) -> None:
    (root / "catalog.json").write_bytes((root / "catalog.json").read_bytes() + b" ")


def _same_size_newer(root: Path) -> None:
    raw = (root / "catalog.json").read_bytes()
    (root / "catalog.json").write_bytes(raw.replace(b"EAGLE", b"EAGLF"))
    _newer(root)


def _newer(root: Path) -> None:  # copied without keeping times: the content decides
    later = (root / NAME).stat().st_mtime_ns + 10**9
    os.utime(root / "catalog.json", ns=(later, later))


def _edited(key: str, value: Any) -> Any:
    def edit(root: Path) -> None:
        data = json.loads((root / NAME).read_text())
        (root / NAME).write_text(json.dumps({**data, key: value}))
    return edit


@pytest.mark.parametrize(("change", "trusted"), [
    (lambda root: None, True),
    (_newer, True),
    (_grown, False),
    (_same_size_newer, False),
    (lambda root: (root / NAME).write_text("[1, 2]"), False),
    (_edited("judge", 99), False),  # another format
    (_edited("key", "0" * 64), False),  # another errcat, profile or compiler
    (_edited("pipeline", []), False),
    (lambda root: (root / NAME).unlink(), False),
])
def test_the_compiled_judge_is_read_only_while_it_is_up_to_date(tmp_path, change, trusted) -> None:
    root = _catalog(tmp_path / "cat", _data())
    change(root)
    assert (read_judge(root, judge_key(load_profile("sglang"))) is not None) is trusted


COMMANDS = [
    ["--tp-size", "2"],
    ["--enable-lora", "--speculative-algorithm", "EAGLE"],
    ["--tp-size", "3", "--speculative-algorithm", "EAGLE"],  # the adjustment turns LoRA on
    ["--tp-size", "5"],  # the helper's return, inlined
    ["--tp-size", "7"],  # a table row
    ["--tp-szie", "2"],
]


@pytest.mark.parametrize("extra", COMMANDS)
@pytest.mark.parametrize("platform", ["generic", "unknown"])
def test_check_answers_the_same_from_the_compiled_judge_as_from_catalog_json(tmp_path, capsys, extra, platform):
    said = []
    for name, judge in (("with", True), ("without", False)):
        root = _catalog(tmp_path / name, _data(), judge=judge)
        code = main(["check", "--catalog", str(root), "--platform", platform, "--format", "json", "--",
                     "python", "-m", "sglang.launch_server", "--model-path", "/models/m", *extra])
        said.append((code, json.loads(capsys.readouterr().out)))
    assert said[0] == said[1]


@pytest.mark.parametrize("pipeline", [{}, {"nodes": [["ref"]], "checks": [], "rules": []},
                                      {"nodes": [], "checks": [["a", "p", 1, "f", 7, None, 7]], "rules": []}])
def test_a_compiled_judge_that_does_not_read_back_is_not_used(tmp_path, capsys, pipeline) -> None:
    root = _catalog(tmp_path / "cat", _data())
    _edited("pipeline", pipeline)(root)
    os.utime(root / "catalog.json", ns=(0, 0))  # still the catalog.json it was made from
    assert load_compiled(root, load_profile("sglang")) is None
    argv = ["check", "--catalog", str(root), "--platform", "generic", "--", "python", "-m", "sglang.launch_server",
            "--model-path", "/models/m", "--enable-lora", "--speculative-algorithm", "EAGLE"]
    assert main(argv) == 1 and "error loraeagle" in capsys.readouterr().out


def test_a_stale_compiled_judge_is_not_used_check_builds_from_catalog_json(tmp_path, capsys) -> None:
    root = _catalog(tmp_path / "cat", _data())
    data = _data()
    data["entries"][0]["trigger"]["expr"]["args"][1]["right"]["value"] = "EAGLE3"  # the catalog changed since
    (root / "catalog.json").write_text(json.dumps(data))
    argv = ["check", "--catalog", str(root), "--platform", "generic", "--", "python", "-m", "sglang.launch_server",
            "--model-path", "/models/m", "--enable-lora", "--speculative-algorithm"]
    assert main([*argv, "EAGLE"]) == 0 and main([*argv, "EAGLE3"]) == 1
    assert "error loraeagle" in capsys.readouterr().out
