"""The networkx graph of a catalog: errors, the flags/env/facts they involve, and
relations between flags derived from triggers."""
from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

import networkx as nx

from analyzers.entries import Entry


def ref_node(kind: str, name: str) -> str:
    return f"{kind}:{name}"


def build_graph(entries: Sequence[Entry]) -> nx.MultiDiGraph:
    graph = nx.MultiDiGraph()
    for entry in entries:
        node = f"error:{entry.id}"
        graph.add_node(node, kind="error", exception=entry.site.exception, template=entry.site.template.text,
                       path=entry.site.path, line=entry.site.line)
        triggers = [entry.trigger] + [v["trigger"] for v in entry.variants]
        for trig in triggers:
            for flag in trig["flags"]:
                graph.add_node(ref_node("flag", flag), kind="flag", name=flag)
                _edge(graph, node, ref_node("flag", flag), "trigger")
            for env in trig["env"]:
                graph.add_node(ref_node("env", env), kind="env", name=env)
                _edge(graph, node, ref_node("env", env), "trigger")
            for other in trig["other"]:
                kind, _, name = other.partition(":")
                graph.add_node(other, kind=kind, name=name)
                _edge(graph, node, other, "trigger")
    return graph


def _edge(graph: nx.MultiDiGraph, src: str, dst: str, role: str, **attrs: Any) -> None:
    if not graph.has_edge(src, dst, key=role):
        graph.add_edge(src, dst, key=role, role=role, **attrs)


def graph_json(graph: nx.MultiDiGraph) -> dict[str, Any]:
    data = nx.node_link_data(graph, edges="links") if _has_edges_kw() else nx.node_link_data(graph)
    data["nodes"] = sorted(data["nodes"], key=lambda n: n["id"])
    data["links"] = sorted(data["links"], key=lambda e: (e["source"], e["target"], str(e.get("key"))))
    return data


def _has_edges_kw() -> bool:
    import inspect
    return "edges" in inspect.signature(nx.node_link_data).parameters


def graph_graphml(graph: nx.MultiDiGraph) -> str:
    """GraphML text with nodes and edges in sorted order (deterministic bytes)."""
    ordered = nx.MultiDiGraph()
    for node in sorted(graph.nodes):
        ordered.add_node(node, **{k: _scalar(v) for k, v in sorted(graph.nodes[node].items())})
    for src, dst, key, attrs in sorted(graph.edges(keys=True, data=True), key=lambda e: (e[0], e[1], str(e[2]))):
        ordered.add_edge(src, dst, key=key, **{k: _scalar(v) for k, v in sorted(attrs.items())})
    buf = io.BytesIO()
    nx.write_graphml(ordered, buf)
    return buf.getvalue().decode("utf-8")


def _scalar(value: Any) -> Any:
    if isinstance(value, (str, int, float, bool)):
        return value
    return str(value)
