"""--format json,yaml,md and --overlay: same data in YAML, Markdown pages with variant rows,
deterministic reruns, one-line exit-2 errors."""
from __future__ import annotations

import json

import pytest
import yaml

from errcat.cli import main
from output.formats import parse_formats
from output.markdown import render_markdown
from output.yaml_out import dumps_yaml

SOURCE = '''
def add_cli_args(parser):
    parser.add_argument("--model-path", type=str, required=True)
    parser.add_argument("--enable-lora", action="store_true")
    parser.add_argument("--adaptive", action="store_true")
    parser.add_argument("--tp-size", type=int, default=1)


def check(cfg):
    """Check LoRA settings."""
    if not cfg.enable_lora:
        return
    unsupported = [
        (cfg.adaptive, "does not support --adaptive"),
        (cfg.tp_size > 1, "does not support | pipes"),
    ]
    for bad, reason in unsupported:
        if bad:
            raise ValueError(f"LoRA {reason}.")
'''
PROFILE = """name: tiny
repo: example/tiny
targets: [pkg/**/*.py]
declarations:
  flags: [pkg/args.py]
config:
  params: [cfg]
launch: serve
examples: {model: model_path}
"""


@pytest.fixture()
def tiny(tmp_path):
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "args.py").write_text(SOURCE)
    (tmp_path / "tiny.yaml").write_text(PROFILE)
    return tmp_path


def extract(tiny, *extra: str, out: str = "out") -> int:
    return main(["extract", "--path", str(tiny / "src"), "--profile", str(tiny / "tiny.yaml"),
                 "--out", str(tiny / out), "--cache-dir", str(tiny / "cache"), *extra])


def test_yaml_loads_back_to_the_json_data(tiny):
    assert extract(tiny, "--format", "json,yaml") == 0
    data = json.loads((tiny / "out" / "catalog.json").read_text())
    assert yaml.safe_load((tiny / "out" / "catalog.yaml").read_text()) == data


@pytest.mark.parametrize("value", ["yes", "1e3", "null", "- x", "a: b", "multi\nline", "tab\there", "ünï"])
def test_yaml_keeps_strings_strings(value):
    assert yaml.safe_load(dumps_yaml({"v": value})) == {"v": value}


def test_markdown_page_has_every_variant_row(tiny):
    assert extract(tiny, "--format", "md") == 0
    out = tiny / "out"
    assert not (out / "catalog.json").exists()
    (page,) = (out / "md" / "entries").iterdir()
    text = page.read_text()
    rows = [line for line in text.splitlines() if line.startswith(("| 1 |", "| 2 |"))]
    assert len(rows) == 2 and "does not support \\| pipes" in rows[1]
    assert "Do not pass `--adaptive`." in rows[0]
    assert "# before\nserve --model-path <model> --enable-lora --adaptive\n# after\n" in text
    index = (out / "md" / "README.md").read_text()
    assert f"(entries/{page.name})" in index and "## pkg/args.py" in index
    assert "## `--adaptive`" in (out / "md" / "flags.md").read_text()


def test_formats_are_byte_identical_on_rerun(tiny):
    assert extract(tiny, "--format", "json,yaml,md", "--no-cache", out="a") == 0
    assert extract(tiny, "--format", "md,yaml,json", "--no-cache", out="b") == 0
    files_a = sorted(p.relative_to(tiny / "a") for p in (tiny / "a").rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(tiny / "b") for p in (tiny / "b").rglob("*") if p.is_file())
    assert files_a == files_b
    assert all((tiny / "a" / p).read_bytes() == (tiny / "b" / p).read_bytes() for p in files_a)


def test_switching_formats_replaces_the_earlier_output(tiny):
    assert extract(tiny, "--format", "md") == 0
    assert extract(tiny, "--format", "json") == 0
    assert (tiny / "out" / "catalog.json").exists() and not (tiny / "out" / "md").exists()


def test_overlay_applied_and_stale(tiny, capsys):
    assert extract(tiny) == 0
    entry = json.loads((tiny / "out" / "catalog.json").read_text())["entries"][0]
    overlay = tiny / "overlay.yaml"
    overlay.write_text(f"{entry['id']}:\n  fingerprint: {entry['fingerprint']}\n  meaning: curated\n")
    assert extract(tiny, "--overlay", str(overlay)) == 0
    got = json.loads((tiny / "out" / "catalog.json").read_text())["entries"][0]
    assert (got["meaning"], got["overlay"]["status"]) == ("curated", "applied")
    (tiny / "src" / "pkg" / "args.py").write_text(SOURCE.replace("cfg.tp_size > 1", "cfg.tp_size > 2"))
    assert extract(tiny, "--overlay", str(overlay)) == 0
    got = json.loads((tiny / "out" / "catalog.json").read_text())["entries"][0]
    assert (got["meaning"] != "curated", got["overlay"]["status"]) == (True, "stale")


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--format", "json,pdf"], "unknown format 'pdf'"),
        (["--format", ","], "no format given"),
        (["--overlay", "{tmp}/missing.yaml"], "cannot read overlay"),
        (["--overlay", "{tmp}/bad.yaml"], "not valid YAML"),
        (["--overlay", "{tmp}/list.yaml"], "expected a mapping"),
    ],
)
def test_bad_input_one_line_exit_2(tiny, capsys, argv, expected):
    (tiny / "bad.yaml").write_text("a: [unclosed\n")
    (tiny / "list.yaml").write_text("- 1\n")
    assert extract(tiny, *[a.format(tmp=tiny) for a in argv]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("errcat: ") and err.count("\n") == 1 and expected in err
    assert not (tiny / "out").exists()


@pytest.mark.parametrize(("text", "expected"), [("json", ("json",)), ("md, json", ("json", "md")),
                                                ("YAML,yaml", ("yaml",))])
def test_parse_formats(text, expected):
    assert parse_formats(text) == expected


def test_markdown_is_a_pure_function_of_the_data():
    entry = {"id": "0" * 16, "kind": "assert", "exception": "AssertionError", "template": "x `y` | z",
             "source": {"path": "a.py", "line": 2, "function": "f", "url": "u"}, "excerpt": {"code": "```\n"},
             "trigger": {"text": "always", "flags": [], "env": []}, "variants": [], "meaning": "",
             "solutions": [],
             "example_fix": {"before": None, "after": None, "verified": "not-run", "predicted": "unknown"},
             "related": []}
    data = {"repo": "o/r", "commit": "c", "entries": [entry]}
    files = render_markdown(data)
    assert files == render_markdown(json.loads(json.dumps(data)))
    assert "````python\n```\n````" in files["md/entries/0000000000000000.md"]


NOT_RUN = {"verified": "not-run"}


@pytest.mark.parametrize("fix, shown", [
    ({"before": None, "after": None, **NOT_RUN, "predicted": "false", "note": "No command line triggers this."},
     "No command line triggers this."),
    ({"before": "serve --x", "after": None, **NOT_RUN, "predicted": "unknown",
      "undecided": ["`--y`", "platform check `is_hip()`"]},
     "Could not be decided: `--y`, platform check `is_hip()`."),
    ({"before": "serve --x", "after": "serve", **NOT_RUN, "predicted": "unknown",
      "assuming": {"facts": ["platform check `is_hip()` is true"], "predicted": "true"}},
     "Predicted assuming platform check `is_hip()` is true: **before fires, after does not**"),
    ({"before": "serve --x", "after": "serve", **NOT_RUN, "predicted": "true"},
     ("Predicted by errcat's static evaluator: **before fires, after does not** · "
      "confirmed by the real program: **not run**")),
    ({"before": "serve --x", "after": "serve", "verified": "false", "predicted": "true"},
     "confirmed by the real program: **refuted**"),
    ({"before": "serve --x", "after": "serve", "verified": "true", "predicted": "unknown"},
     "Predicted by errcat's static evaluator: **undecided** · confirmed by the real program: **confirmed**"),
    ({"before": "serve --x", "after": "serve", **NOT_RUN, "predicted": "unknown", "needs": ["platform:is_hip=true"]},
     "Needs a machine where `platform:is_hip=true`."),
    ({"before": "serve --x", "after": "serve", "verified": "false", "predicted": "true", "real": "no-error (1.0)"},
     "confirmed by the real program: **refuted** (no-error (1.0))"),
    # a pair the real program found replaces a refuted one; errcat's own stays visible
    ({"before": "serve --x --y", "after": "serve --y", "verified": "true", "found_by": "real program",
      "real": "confirmed by 1.0", "static": {"before": "serve --x", "after": "serve", "predicted": "true",
                                             "verified": "false", "real": "fires-first: 0123456789abcdef"}},
     "Found and confirmed by the real program (confirmed by 1.0)."),
    ({"before": "serve --x --y", "after": "serve --y", "verified": "true", "found_by": "real program",
      "real": "confirmed by 1.0", "static": {"before": "serve --x", "after": "serve", "predicted": "true",
                                             "verified": "false", "real": "fires-first: 0123456789abcdef"}},
     ("errcat's own example, refuted by the real program (fires-first: 0123456789abcdef):\n\n```sh\n"
      "# before\nserve --x\n# after\nserve\n```")),
    # schema 1: `verified` was the prediction, and nothing was run
    ({"before": "serve --x", "after": "serve", "verified": "true"},
     ("Predicted by errcat's static evaluator: **before fires, after does not** · "
      "confirmed by the real program: **not run**")),
])
def test_markdown_says_what_was_predicted_and_what_was_run(fix, shown):
    entry = {"id": "0" * 16, "kind": "raise", "exception": "ValueError", "template": "x",
             "source": {"path": "a.py", "line": 2, "function": "f", "url": "u"}, "excerpt": {"code": "raise X\n"},
             "trigger": {"text": "`--x` is set", "flags": ["--x"], "env": []}, "variants": [], "meaning": "",
             "solutions": [], "example_fix": fix, "related": []}
    page = render_markdown({"repo": "o/r", "commit": "c", "entries": [entry]})["md/entries/0000000000000000.md"]
    assert shown in page


REACH = {"entry": "1" * 16, "text": "also needs `--a` is not set, else “first” (line 1) fires first",
         "expr": {"op": "truthy", "term": {"op": "ref", "kind": "flag", "name": "a", "text": "cfg.a"}}}


@pytest.mark.parametrize("trigger, shown", [
    ({"reach": [REACH]}, "- also needs `--a` is not set, else “first” (line 1) fires first "
                         "([its entry](1111111111111111.md))"),
    ({"reach": [{**REACH, "entry": None}], "reach_more": 3},
     "fires first\n- … and 3 earlier checks not listed"),
    ({}, None),
], ids=["linked", "no-entry-and-more", "none"])
def test_markdown_lists_what_the_trigger_also_needs(trigger, shown):
    def entry(eid, template, extra):
        return {"id": eid, "kind": "raise", "exception": "ValueError", "template": template,
                "source": {"path": "a.py", "line": 2, "function": "f", "url": "u"}, "excerpt": {"code": "raise X\n"},
                "trigger": {"text": "`--x` is set", "flags": ["--x"], "env": [], **extra}, "variants": [],
                "meaning": "", "solutions": [], "example_fix": {}, "related": []}
    data = {"repo": "o/r", "commit": "c", "entries": [entry("1" * 16, "first", {}), entry("0" * 16, "x", trigger)]}
    page = render_markdown(data)["md/entries/0000000000000000.md"]
    assert ("Reached only if earlier checks pass:" in page) is (shown is not None)
    assert shown is None or shown in page


def test_hostile_message_and_file_name_stay_text_on_every_page(tmp_path):
    """Issue 10 item 4 as reported: raw HTML, an active link and an injected heading."""
    from tests.test_md_escape import html_of, outside_fences

    (tmp_path / "src" / "pkg").mkdir(parents=True)
    name = "a\n## INJECTED [a](javascript:alert(1)).py"
    (tmp_path / "src" / "pkg" / name).write_text(
        'def check(cfg):\n    if cfg.x:\n'
        '        raise ValueError("<script>alert(1)</script> ](javascript:x) |table|")\n')
    (tmp_path / "tiny.yaml").write_text("name: tiny\nrepo: example/tiny\ntargets: [pkg/**/*.py]\n")
    assert main(["extract", "--path", str(tmp_path / "src"), "--profile", str(tmp_path / "tiny.yaml"),
                 "--out", str(tmp_path / "out"), "--cache-dir", str(tmp_path / "cache"), "--format", "md"]) == 0
    pages = {p.name: p.read_text() for p in (tmp_path / "out" / "md").rglob("*.md")}
    assert len(pages) == 3
    for text in pages.values():
        html = html_of(text)
        assert "<script" not in html and 'href="javascript:' not in html and "<h2>INJECTED" not in html
        assert not any(line.startswith("## INJECTED") for line in outside_fences(text))
