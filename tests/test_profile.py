"""Profiles are checked when loaded: a bad key is one `errcat:` line naming it, exit 2."""
from __future__ import annotations

import re

import pytest
import yaml

from errcat.cli import main
from extractor.errors import ProfileError
from extractor.profile import ExampleRules, load_profile, parse_profile

BASE = {"name": "tiny", "repo": "example/tiny", "targets": ["pkg/**/*.py"]}


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"pypi": [1, 2]}, "pypi: expected a string, got a list"),
        ({"pypi": "../../evil"}, "pypi: '../../evil' is not a package name"),
        ({"url_template": "{nope}"}, "url_template: unknown placeholder {nope}"),
        ({"url_template": "https://x/{repo.__class__}"}, "url_template: unknown placeholder {repo.__class__}"),
        ({"url_template": "https://x/{0}"}, "url_template: unknown placeholder {0}"),
        ({"url_template": "https://x/{line:q}"}, "url_template: not a valid template (ValueError"),
        ({"url_template": "https://x/{pin"}, "url_template: not a valid template (ValueError"),
        ({"url_template": "javascript:alert({line})"}, "url_template: must start with https:// or http://"),
        ({"release_tag": "{nope}"}, "release_tag: unknown placeholder {nope} (known: {version})"),
        ({"release_tag": 5}, "release_tag: expected a string, got a number"),
        ({"release_paths": ["sglang/"]}, "release_paths: expected a mapping"),
        ({"release_paths": {"sglang/": None}}, "release_paths: 'sglang/': expected a string"),
        ({"targets": "pkg/*.py"}, "targets: expected a list of strings, got a string"),
        ({"targets": []}, "targets: must list at least one entry"),
        ({"targets": ["a.py", 3]}, "targets: item 2: expected a string, got a number"),
        ({"name": ["x"]}, "name: expected a string, got a list"),
        ({"repo": "a b"}, "repo: 'a b' is not a repository name"),
        ({"launch": {"x": 1}}, "launch: expected a string, got a mapping"),
        ({"declarations": ["a.py"]}, "declarations: expected a mapping, got a list"),
        ({"declarations": {"flags": "a.py"}}, "declarations.flags: expected a list of strings"),
        ({"declarations": {"conventions": {"arg": []}}}, "declarations.conventions.arg: must list at least one"),
        ({"declarations": {"conventions": {"args": ["Arg"]}}}, "declarations.conventions.args: unknown key"),
        ({"config": {"classes": "ServerArgs"}}, "config.classes: expected a list of strings"),
        ({"config": {"clases": ["ServerArgs"]}}, "config.clases: unknown key (known in config: classes"),
        ({"platform": {"patterns": ["is_(cuda"]}}, "platform.patterns: item 1: 'is_(cuda' is not a regular expression"),
        ({"env": {"readers": [None]}}, "env.readers: item 1: expected a string, got nothing"),
        ({"model": {"roots": [""]}}, "model.roots: item 1: must not be empty"),
        ({"tagets": ["x"]}, "tagets: unknown key (known: name, repo,"),
        ({"examples": {"model": "--model-path"}}, "examples.model: '--model-path' is not a flag dest"),
        ({"examples": {"files": ".*_file"}}, "examples.files: expected a list of strings"),
        ({"examples": {"dirs": ["(x"]}}, "examples.dirs: item 1: '(x' is not a regular expression"),
        ({"examples": {"architecture": [3]}}, "examples.architecture: item 1: expected a string, got a number"),
        ({"examples": {"paths": ["x"]}}, "examples.paths: unknown key (known in examples: model, models, files"),
    ],
)
def test_bad_profile_names_the_key(tmp_path, capsys, extra, message):
    (tmp_path / "p.yaml").write_text(yaml.safe_dump({**BASE, **extra}))
    with pytest.raises(ProfileError) as info:
        load_profile(str(tmp_path / "p.yaml"))
    assert str(info.value).startswith(f"profile {tmp_path / 'p.yaml'}: {message}")
    # and through the CLI: one line, exit 2, before any source is read
    assert main(["extract", "--path", str(tmp_path), "--profile", str(tmp_path / "p.yaml"),
                 "--out", str(tmp_path / "out")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("errcat: profile ") and err.count("\n") == 1 and message in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "extra",
    [
        {},
        {"pypi": None, "declarations": None, "config": {}},  # empty sections keep the defaults
        {"declarations": {"flags": None, "conventions": {"arg": "Opt", "derived": ["A", "B"]}}},
        {"url_template": "https://git.example/{repo}/src/{pin}/{path}?line={line:d}",
         "release_tag": "release-{version}"},
        {"release_paths": {"pkg/": "src/pkg/"}, "launch": "python -m tiny"},
        {"platform": {"patterns": [r"is_sm\d+_supported"]}},
        {"examples": None},
        {"examples": {"model": "model_path", "files": [".*_file"], "dirs": [], "architecture": [r"archs(\[0\])?"]}},
    ],
)
def test_good_profiles_load(extra):
    parse_profile({**BASE, **extra}, "t")


@pytest.mark.parametrize(("examples", "expected"), [
    (None, ExampleRules()),
    ({"model": "model_path", "models": ["draft_path"], "files": [".*_file"], "dirs": [".*_dir"],
      "architecture": ["archs"]},
     ExampleRules("model_path", ("draft_path",), (".*_file",), (".*_dir",), ("archs",))),
])
def test_examples_section_is_parsed(examples, expected):
    assert parse_profile({**BASE, "examples": examples}, "t").examples == expected


def test_shipped_profile_is_valid():
    profile = load_profile("sglang")
    assert profile.permalink("abc", "p.py", 3) == "https://github.com/sgl-project/sglang/blob/abc/p.py#L3"
    assert profile.tag("0.5.23") == "v0.5.23"



@pytest.mark.parametrize(("section", "value", "problem"), [
    ("config", {"view_pattern": "view|("}, "config.view_pattern: 'view|(' is not a regular expression"),
    ("model", {"architecture": ""}, "model.architecture: must not be empty"),
    ("model", {"calls": "hf_config"}, "model.calls: expected a list of strings"),
    ("platform", {"raises": {"torch.cuda.x": {"exception": "E"}}}, "platform.raises: 'torch.cuda.x': expected"),
    ("platform", {"raises": ["torch.cuda.x"]}, "platform.raises: expected a mapping"),
])
def test_model_and_view_keys_are_checked(section, value, problem):
    from extractor.errors import ProfileError
    from extractor.profile import parse_profile

    with pytest.raises(ProfileError, match=re.escape(problem)):
        parse_profile({"name": "t", "repo": "o/t", "targets": ["a.py"], section: value}, "t")


def test_sglang_names_live_in_its_profile():
    from extractor.profile import load_profile

    profile = load_profile("sglang")
    assert (profile.view_pattern, profile.model_architecture, profile.model_calls) == (
        "view|resolv", "hf_config.architectures[0]", ("hf_config", "model_config"))
