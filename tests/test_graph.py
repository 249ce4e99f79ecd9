"""The flag dependency graph: conflicts, requires, implies; files that load back; `errcat graph`."""
from __future__ import annotations

import json
import textwrap

import networkx as nx
import pytest

from analyzers.entries import build_entries
from analyzers.flag_build import build_flag_model
from analyzers.graph import build_graph, flag_neighbourhood, graph_graphml, graph_json, load_graph_json
from analyzers.polarity import flag_polarity
from analyzers.trigger import Renderer
from errcat.cli import main
from extractor.callers import with_caller_guards
from extractor.ir import And, Apply, Compare, Const, In, Not, Ref, RefKind, Seq, Truthy
from extractor.profile import load_profile
from extractor.sites import extract_file

X = Ref(RefKind.FLAG, "x", "cfg.x")


@pytest.mark.parametrize(
    "cond, expected",
    [
        (Truthy(X), True),
        (Not(Truthy(X)), False),
        (Compare("is", X, Const(None)), False),
        (Compare("is not", X, Const(None)), True),
        (Compare("==", X, Const("fa3")), True),
        (In(X, Const(("a", "b"))), True),
        (Not(In(X, Const(("a", "b")))), False),
        (Compare("!=", X, Const("fa3")), None),
        (Compare(">", X, Const(1)), None),
        (In(X, Const(("a", None))), None),
        (Truthy(Ref(RefKind.ENV, "E", "E")), None),
        (Not(Not(Truthy(X))), True),
        (Not(Compare("is", X, Const(None))), True),
        (Compare("==", X, Const(0)), False),
        (Compare("!=", X, Const(False)), True),
        (Compare("is", Const(None), X), None),  # the constant on the left: not read
        (In(X, Seq((Const("a"),))), None),
        (In(X, Const(())), None),
        (And((Truthy(X), Truthy(X))), None),  # a conjunction: its parts say something, it does not
        (Truthy(Apply("len", (X,), "len(x)")), None),
    ],
)
def test_flag_polarity(cond, expected) -> None:
    found = flag_polarity(cond)
    assert (found[1] if found else None) == expected


SOURCE = """
def check(server_args):
    cfg = resolving_view(server_args)
    if cfg.lora_paths and cfg.enable_lora is None:
        declare_resolution(server_args, "check", enable_lora=True)
    if cfg.enable_lora and cfg.speculative_adaptive:
        raise ValueError("LoRA does not support adaptive")
    if cfg.enable_lora and cfg.max_loras is None:
        raise ValueError("LoRA needs --max-loras")
"""

# the options the snippets read, as argparse declares them (defaults decide "dropping" a flag)
FLAGS = """
def add_cli_args(parser):
    parser.add_argument("--enable-lora", type=bool, default=None)
    parser.add_argument("--lora-paths", type=str, nargs="*", default=None)
    parser.add_argument("--speculative-adaptive", action="store_true")
    parser.add_argument("--max-loras", type=int, default=None)
    parser.add_argument("--tp-size", type=int, default=1)
    parser.add_argument("--max-ep-size", type=int, default=None)
    parser.add_argument("--use-ray", action="store_true")
    parser.add_argument("--x", action="store_true")
    parser.add_argument("--y", action="store_true")
    parser.add_argument("--z", action="store_true")
    parser.add_argument("--mode", type=str, default=None, choices=["a", "b"])
"""


def _graph(source: str) -> nx.MultiDiGraph:
    flags = build_flag_model({"python/sglang/srt/server_args.py": textwrap.dedent(FLAGS)})
    renderer = Renderer.for_model(flags)
    fs = with_caller_guards([extract_file("m.py", textwrap.dedent(source), load_profile("sglang"))])[0]
    entries = build_entries(fs.sites, lambda p: [""] * 20, lambda p, n: f"u#{n}", renderer)
    return build_graph(entries, renderer, flags, fs.adjustments)


@pytest.fixture(scope="module")
def graph() -> nx.MultiDiGraph:
    return _graph(SOURCE)


@pytest.mark.parametrize(
    "src, dst, role",
    [
        ("flag:--enable-lora", "flag:--speculative-adaptive", "conflicts"),
        ("flag:--enable-lora", "flag:--max-loras", "requires"),
        ("flag:--lora-paths", "flag:--enable-lora", "implies"),
    ],
)
def test_flag_relations(graph, src, dst, role) -> None:
    assert graph.has_edge(src, dst, key=role)
    assert graph.edges[src, dst, role]["evidence"]


def _flag_edges(graph: nx.MultiDiGraph) -> set[tuple[str, str, str]]:
    return {(s[5:], d[5:], r) for s, d, r in graph.edges(keys=True)
            if r in ("conflicts", "requires", "constrains", "implies")}


@pytest.mark.parametrize(
    "check, expected",
    [
        # both needed, dropping either avoids it
        ("if cfg.x and cfg.y: raise ValueError('m')", {("--x", "--y", "conflicts")}),
        # a third flag needed too: no pairwise edge
        ("if cfg.x and cfg.y and cfg.z: raise ValueError('m')", set()),
        # `--lora-paths` turns `--enable-lora` on: dropping `--enable-lora` does not avoid it
        ("if cfg.lora_paths and cfg.enable_lora is None:\n"
         "        declare_resolution(server_args, 'c', enable_lora=True)\n"
         "    if cfg.enable_lora and cfg.lora_paths and not isinstance(cfg.lora_paths, list):\n"
         "        raise ValueError('m')",
         {("--lora-paths", "--enable-lora", "implies")}),
        # a comparison between flags: constrains, carrying the relation; no conflicts
        ("if cfg.max_ep_size is not None and cfg.max_ep_size > cfg.tp_size: raise ValueError('m')",
         {("--max-ep-size", "--tp-size", "constrains")}),
        # one given, the other unset
        ("if cfg.mode == 'a' and cfg.max_loras is None: raise ValueError('m')",
         {("--mode", "--max-loras", "requires")}),
        # undecided (an unknown function): no edge
        ("if cfg.x and cfg.y and mystery(): raise ValueError('m')", set()),
    ],
)
def test_edges_mean_what_their_kind_says(check, expected) -> None:
    source = "def check(server_args):\n    cfg = resolving_view(server_args)\n    " + check + "\n"
    assert _flag_edges(_graph(source)) == expected


def test_constrains_edge_carries_the_relation() -> None:
    graph = _graph("def check(cfg):\n    if cfg.max_ep_size > cfg.tp_size:\n        raise ValueError('m')\n")
    assert graph.edges["flag:--max-ep-size", "flag:--tp-size", "constrains"]["relation"] == [
        "`--max-ep-size` > `--tp-size`"]


def test_a_relation_that_holds_for_one_value_says_which() -> None:
    graph = _graph("def check(cfg):\n    if cfg.mode == 'a' and cfg.x:\n        raise ValueError('m')\n")
    edge = graph.edges["flag:--mode", "flag:--x", "conflicts"]
    assert edge["values"] == ["--mode=a"]
    graph = _graph("def check(cfg):\n    if cfg.mode == 'a' and cfg.max_loras is None:\n"
                   "        raise ValueError('m')\n")
    assert graph.edges["flag:--mode", "flag:--max-loras", "requires"]["values"] == ["--mode=a"]
    # a value the search picked where any would do (a number of LoRAs) is no part of it
    graph = _graph("def check(cfg):\n    if cfg.mode == 'a' and cfg.max_loras:\n        raise ValueError('m')\n")
    assert graph.edges["flag:--max-loras", "flag:--mode", "conflicts"]["values"] == ["--mode=a"]


def test_an_edge_that_needs_a_platform_fact_says_so() -> None:
    graph = _graph("def check(cfg):\n    if cfg.x and cfg.y and is_hip():\n        raise ValueError('m')\n")
    assert graph.edges["flag:--x", "flag:--y", "conflicts"]["assuming"] == ["platform:is_hip=true"]


def test_every_error_links_to_the_flags_its_trigger_reads(graph) -> None:
    errors = [n for n in graph if n.startswith("error:")]
    assert len(errors) == 2
    assert all(graph.has_edge(e, "flag:--enable-lora", key="trigger") for e in errors)


NEVER = """
def check(cfg):
    if cfg.k != 1:
        raise ValueError("k must be 1")
    if cfg.x and cfg.k != 1:
        raise ValueError("x needs k 1")
"""


def test_trigger_edges_are_what_the_entry_trigger_reads() -> None:
    """The graph reads each entry's published trigger: the second check cannot fire after
    the first (its trigger is "never"), so it reads nothing, whatever its guards name."""
    fs = extract_file("m.py", textwrap.dedent(NEVER), load_profile("sglang"))
    entries = build_entries(fs.sites, lambda p: [""] * 20, lambda p, n: f"u#{n}", Renderer())
    graph = build_graph(entries, Renderer())
    for entry in entries:
        targets = {dst for _, dst, role in graph.out_edges(f"error:{entry.id}", keys=True) if role == "trigger"}
        assert targets == {f"flag:{f}" for f in entry.trigger.flags}
    assert [e.trigger.text for e in entries if e.site.template.text == "x needs k 1"] == ["never"]


def test_graph_files_load_back_with_networkx(graph, tmp_path) -> None:
    again = load_graph_json(json.loads(json.dumps(graph_json(graph))))
    assert set(again.edges(keys=True)) == set(graph.edges(keys=True))
    (tmp_path / "g.graphml").write_text(graph_graphml(graph))
    assert set(nx.read_graphml(tmp_path / "g.graphml").nodes) == set(graph.nodes)


def _networkx_graphml(graph: nx.MultiDiGraph) -> str:
    """What graph.graphml held before it was written directly: networkx on the sorted graph."""
    import io

    from analyzers.graph import _scalar

    ordered: nx.MultiDiGraph[str] = nx.MultiDiGraph()
    for node in sorted(graph.nodes):
        ordered.add_node(node, **{k: _scalar(v) for k, v in sorted(graph.nodes[node].items())})
    for src, dst, key, attrs in sorted(graph.edges(keys=True, data=True), key=lambda e: (e[0], e[1], str(e[2]))):
        ordered.add_edge(src, dst, key=key, **{k: _scalar(v) for k, v in sorted(attrs.items())})
    buf = io.BytesIO()
    nx.write_graphml(ordered, buf)
    return buf.getvalue().decode("utf-8")


def _tricky() -> nx.MultiDiGraph:
    g: nx.MultiDiGraph[str] = nx.MultiDiGraph()
    g.add_node('b"<&>\n\t\r\ud800', kind="x&<>\"\n", n=3, f=1.5, t=True, e="", seq=[1, "2"], none=None)
    g.add_node("a", kind="flag", default=0)
    g.add_node("c", kind="flag", default="0")  # one name, another type: another key
    g.add_node("lonely")
    g.add_edge('b"<&>\n\t\r\ud800', "lonely", key="r&", role="r", evidence=[])
    g.add_edge("a", "c", key="requires", role="requires", evidence=["2", "1"], when="x > 1")
    g.add_edge("a", "c", key="conflicts", role="conflicts", evidence=["1"])
    return g


@pytest.mark.parametrize("make", [nx.MultiDiGraph, _tricky, "catalog"])
def test_graphml_is_the_text_networkx_writes(make, graph) -> None:
    built = graph if make == "catalog" else make()
    assert graph_graphml(built) == _networkx_graphml(built)


def test_neighbourhood_holds_related_flags_and_their_errors(graph) -> None:
    sub = flag_neighbourhood(graph, "--lora-paths")
    assert {"flag:--lora-paths", "flag:--enable-lora"} <= set(sub)
    assert len([n for n in sub if n.startswith("error:")]) == 2


@pytest.mark.network
def test_graph_command_on_0523(tmp_path, capsys, extracted) -> None:
    out = extracted.copy("0.5.23", tmp_path / "cat")
    assert main(["graph", str(out), "--flag", "--lora-paths"]) == 0
    text = capsys.readouterr().out
    assert "implies --enable-lora" in text and "LoRA with EAGLE/NEXTN/EAGLE3 speculative decoding {reason}." in text
    assert main(["graph", str(out), "--flag", "--lora-paths", "--format", "dot"]) == 0
    assert capsys.readouterr().out.startswith("digraph errcat {")
    assert main(["graph", str(out), "--flag", "--no-such-flag"]) == 2


def test_graph_json_follows_its_shipped_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    from output.schema import load_schema

    source = SOURCE + "    if cfg.max_ep_size > cfg.tp_size:\n        raise ValueError('m')\n"
    data = json.loads(json.dumps(graph_json(_graph(source))))
    assert {link["role"] for link in data["links"]} >= {"conflicts", "requires", "constrains", "implies"}
    jsonschema.Draft202012Validator(load_schema("graph.schema.json")).validate(data)


def test_a_table_row_is_avoided_only_when_the_whole_error_is() -> None:
    """Two rows of one error (one message with and one without a tail): giving `--y` picks
    the other row, it does not avoid the error, so `--x` does not require `--y`."""
    source = """
    def check(cfg):
        if cfg.x:
            msg = "x fails."
            if cfg.y:
                msg += " And y too."
            raise ValueError(msg)
    """
    assert _flag_edges(_graph(textwrap.dedent(source))) == set()


@pytest.mark.parametrize("option, says", [
    ("--lora-pahts", "flag --lora-pahts is not in the catalog at {dir} (did you mean --lora-paths?)"),
    ("lora_pahts", "(did you mean --lora-paths?)"),
    ("--zzzzzz", "flag --zzzzzz is not in the catalog at {dir}\n"),
])
def test_graph_of_a_mistyped_flag_says_what_was_meant(graph, tmp_path, capsys, option, says) -> None:
    (tmp_path / "graph.json").write_text(json.dumps(graph_json(graph)))
    assert main(["graph", str(tmp_path), "--flag", option]) == 2
    assert says.format(dir=tmp_path) in capsys.readouterr().err


def test_graph_uses_the_catalog_in_the_current_directory(graph, tmp_path, monkeypatch, capsys) -> None:
    (tmp_path / "catalog").mkdir()
    (tmp_path / "catalog" / "graph.json").write_text(json.dumps(graph_json(graph)))
    monkeypatch.chdir(tmp_path)
    assert main(["graph", "--flag", "--lora-paths"]) == 0
    said = capsys.readouterr()
    assert said.out.startswith("--lora-paths") and "using the catalog in ./catalog" in said.err
