"""Human-readable and Graphviz renderings of a flag's neighbourhood in the catalog graph."""
from __future__ import annotations

import networkx as nx

from analyzers.graph import FLAG_ROLES, ref_node
from output.titles import headline


def errors_of(graph: nx.MultiDiGraph, node: str) -> list[str]:
    """The error nodes with an edge into `node`, sorted."""
    return sorted({src for src, dst in graph.in_edges(node) if src.startswith("error:")})


def _error_line(graph: nx.MultiDiGraph, node: str) -> str:
    data = graph.nodes[node]
    where = f"  ({data.get('path')}:{data.get('line')})" if data.get("template") else ""
    return f"    {node[6:]}  {headline(data.get('exception'), data.get('template'), data)}{where}"


_VERBS = {"conflicts": ("conflicts with", "conflicts with"), "requires": ("requires", "is required by"),
          "constrains": ("is compared with", "is compared with"), "implies": ("implies", "is implied by")}


def relation_verb(role: str, outgoing: bool) -> str:
    return _VERBS[role][0 if outgoing else 1]


def edge_detail(role: str, attrs: dict) -> str:
    """What the edge carries besides its evidence: the relation, the value set, the facts assumed."""
    parts = []
    if role == "constrains":
        parts.append("; ".join(attrs.get("relation", [])))
    if role == "implies" and attrs.get("value"):
        parts.append(f"sets it to {attrs['value']}")
    if attrs.get("values"):
        parts.append("with " + ", ".join(attrs["values"]))
    if attrs.get("assuming"):
        parts.append("assuming " + ", ".join(attrs["assuming"]))
    return f" ({'; '.join(parts)})" if parts else ""


def neighbourhood_text(graph: nx.MultiDiGraph, option: str) -> str:
    center = ref_node("flag", option)
    data = graph.nodes[center]
    lines = [option + (f"  (default {data['default']!r}; declared {data['declared']})" if data.get("declared") else "")]
    relations = []
    for src, dst, role, attrs in sorted(graph.edges(keys=True, data=True)):
        if role not in FLAG_ROLES or center not in (src, dst):
            continue
        other = dst if src == center else src
        name = other.split(":", 1)[1]
        evidence = ", ".join(attrs.get("evidence", []))
        relations.append(f"  {relation_verb(role, src == center)} {name}{edge_detail(role, attrs)}  [{evidence}]")
    lines += relations or ["  no related flags"]
    for node in [center] + sorted({n for n in graph.nodes if n.startswith("flag:") and n != center}):
        errors = errors_of(graph, node)
        if errors:
            lines.append(f"errors involving {node.split(':', 1)[1]} ({len(errors)}):")
            lines += [_error_line(graph, e) for e in errors]
    return "\n".join(lines) + "\n"


def _dot_id(node: str) -> str:
    return '"' + node.replace("\\", "\\\\").replace('"', '\\"') + '"'


def neighbourhood_dot(graph: nx.MultiDiGraph, option: str) -> str:
    lines = ["digraph errcat {", "  rankdir=LR;"]
    for node, data in sorted(graph.nodes(data=True)):
        if node.startswith("error:"):
            label = _dot_id(f"{data.get('exception')} {node[6:]}")
            lines.append(f"  {_dot_id(node)} [shape=box, label={label}];")
        else:
            shape = "ellipse" if node.startswith("flag:") else "diamond"
            lines.append(f"  {_dot_id(node)} [shape={shape}, label={_dot_id(node.split(':', 1)[1])}];")
    for src, dst, role in sorted(graph.edges(keys=True)):
        style = {"conflicts": "bold, color=red", "requires": "color=blue", "constrains": "color=orange",
                 "implies": "color=darkgreen"}.get(role, "color=gray")
        lines.append(f"  {_dot_id(src)} -> {_dot_id(dst)} [label={_dot_id(role)}, {style}];")
    lines.append("}")
    return "\n".join(lines) + "\n"
