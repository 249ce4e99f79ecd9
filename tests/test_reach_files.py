"""Files outside the targets that a launch reaches: followed through the reached functions'
imported calls, a file at a time; their checks in reached functions become entries, the
profile's `config.exclude` never does; checks of the machine are marked `environment`."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from analyzers.entries import weighed
from analyzers.environment import depends_on_environment
from errcat.model import SourceSpec
from errcat.pipeline import extract
from extractor.callers import EntryPoints
from extractor.ir import TRUE, Compare, Const, Ref, RefKind
from extractor.profile import load_profile
from extractor.reach_files import ModuleIndex, called_modules, merged_order, reached_sites
from extractor.records import FileSites
from extractor.sites import extract_file

PROFILE = load_profile("sglang")
ENTRY = EntryPoints(named=("validate",))


def analysed(**sources: str) -> list[FileSites]:
    """``pkg__mod="..."`` is pkg/mod.py."""
    return [extract_file(n.replace("__", "/") + ".py", textwrap.dedent(s), PROFILE) for n, s in sources.items()]


INDEX = ModuleIndex(["root/pkg/hook.py", "root/pkg/util/__init__.py", "root/pkg/cfg.py", "root/pkg/other.py"])


@pytest.mark.parametrize(("module", "paths"), [
    ("pkg.hook", ["root/pkg/hook.py"]), ("hook", ["root/pkg/hook.py"]),
    ("pkg.util", ["root/pkg/util/__init__.py"]), ("pkg.nothing", []),
])
def test_a_module_is_found_by_its_dotted_name(module, paths):
    assert INDEX.paths(module) == paths


@pytest.mark.parametrize(("source", "found"), [
    ("from pkg.hook import check\ndef validate(cfg):\n    check(cfg)\n", {"root/pkg/hook.py"}),
    ("from pkg.cfg import Config\ndef validate(cfg):\n    Config.build(cfg)\n", {"root/pkg/cfg.py"}),
    ("from pkg import hook\ndef validate(cfg):\n    hook.check(cfg)\n", {"root/pkg/hook.py"}),
    # a function no entry point reaches calls nothing a launch runs
    ("from pkg.hook import check\ndef validate(cfg):\n    pass\ndef unused(cfg):\n    check(cfg)\n", set()),
    ("import json\ndef validate(cfg):\n    json.loads(cfg.x)\n", set()),  # not a file of the program
])
def test_the_files_reached_functions_call_through_an_import_are_followed(source, found):
    assert called_modules(analysed(pkg__server=source), ENTRY, INDEX) == found


def test_a_file_already_analysed_is_not_followed_again():
    files = analysed(pkg__server="from pkg.hook import check\ndef validate(cfg):\n    check(cfg)\n",
                     root__pkg__hook="def check(cfg):\n    pass\n")
    assert called_modules(files, ENTRY, INDEX) == set()


def test_outside_files_keep_only_their_reached_sites_and_no_adjustments_or_helpers():
    fs = analysed(pkg__out="def used(cfg):\n    cfg.x = 1\n    raise ValueError('a')\n"
                           "def unused(cfg):\n    raise ValueError('b')\ndef plain(a):\n    return a + 1\n")[0]
    reach = {("pkg/out.py", "used"): "true", ("pkg/out.py", "unused"): "false"}
    (kept,) = reached_sites([fs], frozenset(), reach)
    assert [s.function for s in kept.sites] == ["used"] and kept.adjustments == () == kept.returns
    assert reached_sites([fs], frozenset({"pkg/out.py"}), reach) == [fs]  # a target keeps everything


def test_outside_places_go_where_the_wider_order_runs_them_and_the_targets_keep_theirs():
    own = {("t.py", "a", 1): 0, ("t.py", "b", 1): 1, ("t.py", "c", 1): 2}
    wider = {("t.py", "a", 1): 0, ("o.py", "x", 1): 1, ("o.py", "y", 1): 2, ("t.py", "b", 1): 3,
             ("o.py", "z", 1): 4, ("t.py", "c", 1): 5}
    merged = merged_order(own, wider, {"o.py"})
    assert sorted(merged, key=merged.__getitem__) == sorted(wider, key=wider.__getitem__)
    assert merged_order(own, {}, {"o.py"}) == {p: (t + 1) for p, t in own.items()}  # nothing outside


RUNTIME = Ref(RefKind.RUNTIME, "os.path.isfile(cfg.f)", "os.path.isfile(cfg.f)")


@pytest.mark.parametrize(("exception", "condition", "environment"), [
    ("ValueError", Compare(">", Ref(RefKind.FLAG, "x", "cfg.x"), Const(1)), False),
    ("ValueError", RUNTIME, True),  # a file of the machine
    ("FileNotFoundError", TRUE, True), ("ModuleNotFoundError", TRUE, True), ("ConnectionError", TRUE, True),
    ("ValueError", Ref(RefKind.RUNTIME, "raises ImportError (try at line 3)", "t"), True),  # a package
    ("ValueError", Ref(RefKind.RUNTIME, "raises ValueError (try at line 3)", "t"), False),  # a value
])
def test_checks_of_the_machine_are_environment_checks(exception, condition, environment):
    assert depends_on_environment(exception, condition) is environment


SIZE = {"op": "compare", "cmp": "<", "left": {"op": "ref", "kind": "flag", "name": "size", "text": "cfg.size"},
        "right": {"op": "const", "value": 1}}
MODEL = {"op": "truthy", "term": {"op": "ref", "kind": "model", "name": "hf_config.x", "text": "hf_config.x"}}
ARCH = {"op": "truthy", "term": {"op": "ref", "kind": "model", "name": "hf_config.architectures",
                                 "text": "hf_config.architectures"}}


@pytest.mark.parametrize(("entry", "weighed_"), [
    ({"trigger": {"expr": MODEL}}, True),  # a check of the targets: always
    ({"outside_targets": True, "trigger": {"expr": SIZE}}, True),  # options alone decide it
    ({"outside_targets": True, "trigger": {"expr": {"op": "and", "args": [SIZE, MODEL]}}}, False),
    ({"outside_targets": True, "trigger": {"expr": {"op": "unknown", "text": "f()"}}}, False),
    ({"outside_targets": True, "environment": True, "trigger": {"expr": SIZE}}, False),
    # the model's architecture, which every stand-in states, with an option (sglang 0.5.23 dllm/config.py:72)
    ({"outside_targets": True, "trigger": {"expr": {"op": "and", "args": [SIZE, ARCH]}}}, True),
    ({"outside_targets": True, "trigger": {"expr": ARCH}}, False),  # no command line changes it
])
def test_the_prediction_weighs_an_outside_check_where_a_command_line_decides_it(entry, weighed_):
    assert weighed(entry, lambda name: name == "hf_config.architectures") is weighed_


TREE = {
    "pkg/server.py": """
        from pkg.hook import check
        def validate(cfg):
            if cfg.mode == "x":
                check(cfg)
    """,
    "pkg/hook.py": """
        from pkg.deep import load
        def check(cfg):
            if cfg.size < 1:
                raise ValueError("size must be positive")
            load(cfg)
        def unused(cfg):
            raise ValueError("never run")
    """,
    "pkg/deep.py": """
        import os
        def load(cfg):
            if not os.path.isfile(cfg.path):
                raise FileNotFoundError("no such file")
    """,
    "pkg/unread.py": "this is not python(\n",  # never imported: never parsed
}


def _catalog(tmp_path: Path, exclude: str = "", tree: dict[str, str] = TREE) -> dict:
    for path, text in tree.items():
        (tmp_path / "src" / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "src" / path).write_text(textwrap.dedent(text))
    (tmp_path / "p.yaml").write_text("name: tiny\nrepo: example/tiny\ntargets: [pkg/server.py]\n"
                                     f"config: {{params: [cfg], entry_points: [validate]{exclude}}}\n")
    extract(SourceSpec(path=str(tmp_path / "src")), profile=str(tmp_path / "p.yaml"), out=tmp_path / "out")
    return json.loads((tmp_path / "out" / "catalog.json").read_text())


def test_checks_a_launch_reaches_outside_the_targets_are_entries(tmp_path):
    cat = _catalog(tmp_path)
    found = {e["template"]: e for e in cat["entries"]}
    assert set(found) == {"size must be positive", "no such file"}  # not `unused`'s
    assert "`mode` is x" in found["size must be positive"]["trigger"]["text"].replace("--mode", "mode")
    assert found["no such file"].get("environment") is True and "environment" not in found["size must be positive"]
    assert all(e["outside_targets"] is True for e in found.values())
    assert not any("unread" in d for d in cat["diagnostics"])  # a file no launch reaches is not read


def test_the_profile_can_exclude_a_reached_file(tmp_path):
    cat = _catalog(tmp_path, exclude=", exclude: ['pkg/deep.py']")
    assert {e["template"] for e in cat["entries"]} == {"size must be positive"}


def test_a_helper_a_callers_guard_calls_reads_as_what_it_returns_outside_the_targets_too(tmp_path):
    """``if enabled_of(cfg): check(cfg)`` in the targets: the outside check reads `--mode`,
    not "what `enabled_of(…)` returns"."""
    tree = {**TREE, "pkg/server.py": """
        from pkg.hook import check
        from pkg.flags import enabled_of
        def validate(cfg):
            if enabled_of(cfg):
                check(cfg)
    """, "pkg/flags.py": """
        def enabled_of(cfg):
            return cfg.mode == "x"
    """}
    found = {e["template"]: e for e in _catalog(tmp_path, tree=tree)["entries"]}
    text = found["size must be positive"]["trigger"]["text"]
    assert "enabled_of" not in text and "`mode` is x" in text.replace("--mode", "mode")
