"""`errcat check -- COMMAND` through `main([...])` and one real subprocess, on a small catalog."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from analyzers.flag_build import build_flag_model
from errcat.cli import main

ROOT = Path(__file__).resolve().parents[1]
FLAGS = build_flag_model({"p/args.py": textwrap.dedent('''
    def add_cli_args(parser):
        parser.add_argument("--model-path", type=str, required=True)
        parser.add_argument("--device", type=str, default=None)
        parser.add_argument("--tp-size", type=int, default=1)
        parser.add_argument("--enable-lora", action="store_true")
        parser.add_argument("--enable-spec", action="store_true")
''')})
LORA = {"op": "ref", "kind": "flag", "name": "enable_lora", "text": "cfg.enable_lora"}
SPEC = {"op": "ref", "kind": "flag", "name": "enable_spec", "text": "cfg.enable_spec"}
HIP = {"op": "ref", "kind": "platform", "name": "is_hip", "text": "is_hip()"}
LAUNCH = ["python", "-m", "sglang.launch_server", "--model-path", "/models/m"]


def _entry(id_: str, line: int, expr: dict, template: str) -> dict:
    return {"id": id_, "exception": "ValueError", "template": template, "meaning": "m",
            "source": {"path": "python/sglang/srt/arg_groups/a_hook.py", "line": line, "function": "hook"},
            "trigger": {"text": template, "expr": expr}}


@pytest.fixture(scope="module")
def catalog(tmp_path_factory) -> Path:
    """A catalog of sglang 0.5.23's shape: LoRA with speculative decoding fails; LoRA on HIP fails."""
    root = tmp_path_factory.mktemp("check") / "catalog"
    root.mkdir()
    data = {"source": {"kind": "release", "release": "0.5.23"}, "flags": FLAGS.as_dict(), "adjustments": [],
            "entries": [_entry("lora-spec", 1, {"op": "and", "args": [
                            {"op": "truthy", "term": LORA}, {"op": "truthy", "term": SPEC}]}, "LoRA with spec"),
                        _entry("lora-hip", 2, {"op": "and", "args": [
                            {"op": "truthy", "term": HIP}, {"op": "truthy", "term": LORA}]}, "LoRA on HIP")]}
    (root / "catalog.json").write_text(json.dumps(data))
    return root


@pytest.mark.parametrize(("platform", "extra", "code", "said"), [
    ("generic", [], 0, "✓ ok"),
    ("generic", ["--enable-lora", "--enable-spec"], 1, "✗ will fail"),
    ("generic", ["--tp-size", "x"], 1, "refused by the argument parser"),
    ("unknown", ["--enable-lora"], 3, "? may fail"),  # is_hip() is not known: it decides
    ("rocm", ["--enable-lora"], 1, "LoRA on HIP"),
    ("cuda", ["--enable-lora"], 0, "✓ ok"),
])
def test_exit_code_and_verdict(catalog, capsys, platform, extra, code, said):
    assert main(["check", "--catalog", str(catalog), "--platform", platform, "--", *LAUNCH, *extra]) == code
    out = capsys.readouterr().out
    assert said in out and "\033[" not in out  # no colour off a terminal


def test_json_names_the_error_and_the_command_that_works(catalog, capsys):
    argv = ["check", "--catalog", str(catalog), "--platform", "generic", "--format", "json", "--",
            *LAUNCH, "--enable-lora", "--enable-spec"]
    assert main(argv) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["status"] == "will-fail" and [e["entry"] for e in report["errors"]] == ["lora-spec"]
    assert report["fixed_command"].startswith("python -m sglang.launch_server --model-path /models/m")


def test_env_words_and_sglang_serve_are_read_as_a_person_types_them(catalog, capsys):
    argv = ["check", "--catalog", str(catalog), "--platform", "generic", "--format", "json", "--",
            "FOO=1", "sglang", "serve", "--model-path", "/m", "--enable-lora"]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["command"].startswith("FOO=1 sglang serve --model-path /m")


@pytest.mark.parametrize(("argv", "says"), [
    (["check", "--platform", "generic"], "after --"),  # no --
    (["check", "--platform", "generic", "--"], "no command after --"),
    (["check", "--platform", "mars", "--", *LAUNCH], "unknown platform 'mars'"),
    (["check", "--model-config", "/nowhere/config.json", "--", *LAUNCH], "cannot read"),
    (["check", "--env", "NOEQUALS", "--", *LAUNCH], "--env: expected NAME=VALUE"),
    (["check", "--", "ls", "-la"], "`ls -la` is not a launch of python -m sglang.launch_server"),
    (["check", "--", "python", "-m", "sglang.bench_serving"], "is not a launch"),
    (["check", "--", "sglang", "version"], "is not a launch"),
])
def test_bad_input_is_one_line_and_exit_2(catalog, capsys, argv, says):
    assert main([argv[0], "--catalog", str(catalog), *argv[1:]]) == 2
    err = capsys.readouterr().err
    assert err.startswith("errcat: ") and err.count("\n") == 1 and says in err


def test_a_directory_that_is_no_catalog_is_one_line_and_exit_2(tmp_path, capsys):
    assert main(["check", "--catalog", str(tmp_path), "--", *LAUNCH]) == 2
    assert "is not a catalog directory" in capsys.readouterr().err


def test_a_model_directory_is_read_for_its_architecture(catalog, tmp_path, capsys):
    (tmp_path / "config.json").write_text(json.dumps({"architectures": ["LlamaForCausalLM"], "hidden_size": 8}))
    argv = ["check", "--catalog", str(catalog), "--platform", "generic", "--format", "json", "--",
            "python", "-m", "sglang.launch_server", "--model-path", str(tmp_path)]
    assert main(argv) == 0
    assert str(tmp_path) in json.loads(capsys.readouterr().out)["command"]  # shown as given, not the stand-in


def test_real_subprocess(catalog):
    env = {**os.environ, "NO_COLOR": "1"}
    proc = subprocess.run([sys.executable, "-m", "errcat", "check", "--catalog", str(catalog), "--platform",
                           "generic", "--", *LAUNCH, "--enable-lora", "--enable-spec"],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert proc.returncode == 1 and "LoRA with spec" in proc.stdout and proc.stderr == ""


# ------------------------------------------------------------------ explain

@pytest.mark.parametrize(("how", "code", "said"), [
    ("text", 0, "entry lora-spec (ValueError) at python/sglang/srt/arg_groups/a_hook.py:1"),
    ("file", 0, "entry lora-spec"),
    ("stdin", 0, "entry lora-spec"),
])
def test_explain_reads_text_a_file_or_stdin(catalog, tmp_path, capsys, monkeypatch, how, code, said):
    import io

    text = "ValueError: LoRA with spec"
    arg = text
    if how == "file":
        (tmp_path / "log.txt").write_text(f"[info] starting\n{text}\n")
        arg = str(tmp_path / "log.txt")
    elif how == "stdin":
        monkeypatch.setattr(sys, "stdin", io.StringIO(text))
        arg = "-"
    assert main(["explain", "--catalog", str(catalog), arg]) == code
    assert said in capsys.readouterr().out


def test_explain_of_a_message_no_entry_renders_says_so_and_exits_1(catalog, capsys):
    assert main(["explain", "--catalog", str(catalog), "--format", "json", "ValueError: LoRA with nothing"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["errors"][0]["matched"] is False and report["errors"][0]["matches"][0]["entry"] == "lora-spec"


@pytest.mark.parametrize(("arg", "says"), [
    ("   ", "no text to explain"),
    ("/nonexistent.txt", "cannot read /nonexistent.txt"),
    ("./no-such-log", "cannot read ./no-such-log"),
    ("traceback.log", "cannot read traceback.log"),
])
def test_explain_bad_input_is_one_line_and_exit_2(catalog, capsys, arg, says):
    assert main(["explain", "--catalog", str(catalog), arg]) == 2
    err = capsys.readouterr().err
    assert err.startswith("errcat: ") and says in err


def test_explain_of_an_unreadable_file_is_one_line_and_exit_2(catalog, tmp_path, capsys):
    (tmp_path / "a-directory").mkdir()  # exists, but no text can be read from it (as root, mode bits would not stop it)
    assert main(["explain", "--catalog", str(catalog), str(tmp_path / "a-directory")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("errcat: cannot read") and err.count("\n") == 1


def test_explain_real_subprocess(catalog):
    proc = subprocess.run([sys.executable, "-m", "errcat", "explain", "--catalog", str(catalog),
                           "ValueError: LoRA on HIP"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0 and "entry lora-hip" in proc.stdout and proc.stderr == ""


@pytest.mark.parametrize(("items", "releases"), [
    (["0.5.18", "0.5.19"], ["0.5.18", "0.5.19"]),
    (["0.5.18..0.5.20"], ["0.5.18", "0.5.19", "0.5.20"]),  # every release the index lists between, both included
    (["0.5.20", "0.5.18..0.5.20"], ["0.5.20", "0.5.18", "0.5.19"]),  # each once, in the order asked
])
def test_releases_are_a_list_or_a_range_over_the_index(monkeypatch, items, releases):
    from errcat.catalogs import release_list
    from extractor import source
    from extractor.profile import load_profile

    monkeypatch.setattr(source, "index_releases", lambda profile: ["0.4.9", "0.5.18", "0.5.19", "0.5.20", "0.5.21"])
    assert release_list(items, load_profile("sglang")) == releases


def test_a_range_the_index_has_nothing_in_is_one_line_and_exit_2(monkeypatch, catalog, capsys):
    from extractor import source

    monkeypatch.setattr(source, "index_releases", lambda profile: ["0.5.18"])
    assert main(["check", "--releases", "0.6.0..0.7.0", "--", *LAUNCH]) == 2
    assert "lists no release from 0.6.0 to 0.7.0" in capsys.readouterr().err


def test_a_command_checked_on_several_releases_says_where_it_works():
    from output.check_text import releases_summary

    text = releases_summary([
        {"status": "will-fail", "release": "0.5.18", "errors": [{"entry": "e", "exception": "ValueError",
                                                                 "message": "LoRA with spec"}]},
        {"status": "ok", "release": "0.5.23"}])
    assert text.splitlines()[1:3] == ["  0.5.18     ✗ will fail: ValueError: LoRA with spec", "  0.5.23     ✓ ok"]


@pytest.mark.parametrize(("words", "launch"), [
    (["python", "-m", "sglang.launch_server"], True),
    (["/venv/bin/python3.11", "-m", "sglang.launch_server"], True),
    (["sglang", "serve"], True),
    (["/usr/local/bin/sglang", "serve"], True),
    (["python", "-m", "sglang.bench_serving"], False),
    (["sglang", "version"], False),
    (["ls", "-la"], False),
    (["python", "server.py"], False),
])
def test_only_a_launch_of_the_profiles_program_is_checked(words, launch):
    from errcat.check import launches, split_words

    assert launches(split_words([*words, "--x"]).program, "python -m sglang.launch_server") is launch


@pytest.mark.parametrize(("argv", "code"), [
    (["check", "--platform", "generic", "--", *LAUNCH], 0),
    (["explain", "ValueError: LoRA on HIP"], 0),
])
def test_check_and_explain_use_the_catalog_extract_wrote_in_the_current_directory(
        catalog, tmp_path, monkeypatch, capsys, argv, code):
    (tmp_path / "catalog").symlink_to(catalog)
    monkeypatch.chdir(tmp_path)
    assert main(argv) == code
    assert capsys.readouterr().err.startswith("errcat: using the catalog in ./catalog (")


def _hf_cache(root: Path, model: str, config: dict) -> Path:
    snapshot = root / f"models--{model.replace('/', '--')}" / "snapshots" / ("c" * 40)
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").write_text(json.dumps(config))
    (snapshot.parent.parent / "refs").mkdir()
    (snapshot.parent.parent / "refs" / "main").write_text("c" * 40)
    return snapshot / "config.json"


@pytest.mark.parametrize(("model", "extra", "used", "architecture"), [
    ("org/llama", [], "{config} (local Hugging Face cache)", "LlamaForCausalLM"),
    ("org/llama", ["--architecture", "QwenForCausalLM"], "{config} (local Hugging Face cache)", "QwenForCausalLM"),
    ("org/missing", [], "none (org/missing is not in the local Hugging Face cache {cache})", None),
])
def test_a_hub_id_reads_its_config_from_the_local_hf_cache(catalog, tmp_path, monkeypatch, capsys,
                                                           model, extra, used, architecture):
    config = _hf_cache(tmp_path, "org/llama", {"architectures": ["LlamaForCausalLM"], "hidden_size": 8})
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    argv = ["check", "--catalog", str(catalog), "--platform", "generic", "--format", "json", *extra, "--",
            "python", "-m", "sglang.launch_server", "--model-path", model]
    assert main(argv) == 0
    said = json.loads(capsys.readouterr().out)["model_config"]
    assert said["used"] == used.format(config=config, cache=tmp_path) and said["architecture"] == architecture


def test_the_default_platform_is_this_machine_said_in_one_line(catalog, capsys):
    assert main(["check", "--catalog", str(catalog), "--", *LAUNCH, "--enable-lora"]) == 0  # no GPU in tests
    out = capsys.readouterr().out
    assert "✓ ok (0.5.23 on the generic platform)" in out and "\nplatform: generic (auto: no GPU found" in out
