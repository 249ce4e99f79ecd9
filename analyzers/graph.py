"""The networkx graph of a catalog.

Nodes: errors, flags (with their declaration data), env vars, platform/model/runtime facts.
Edges (`role`):
- ``trigger`` / ``message``: error -> what its trigger reads / what its message shows;
- ``conflicts``: flag -- flag, both set in one trigger (an error fires);
- ``requires``: flag -> flag, one set and the other not set in one trigger;
- ``implies``: flag -> flag, an automatic adjustment sets the second when the first is set.
Flag-to-flag edges carry the entry ids (or adjustment functions) as evidence.
"""
from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any
from xml.etree.ElementTree import _escape_attrib, _escape_cdata  # type: ignore[attr-defined]

import networkx as nx

from analyzers.adjustments import implications
from analyzers.entries import Entry
from analyzers.polarity import flag_polarity
from analyzers.trigger import Renderer
from extractor.ir import Expr, Ref, RefKind, conj, conjuncts, refs, simplify
from extractor.records import Adjustment


def ref_node(kind: str, name: str) -> str:
    return f"{kind}:{name}"


def _ref_id(ref: Ref, renderer: Renderer) -> str:
    if ref.kind is RefKind.FLAG:
        return ref_node("flag", renderer.option(ref.name) or ref.name)
    if ref.kind is RefKind.UNKNOWN:
        return ref_node("unknown", ref.text)
    return ref_node(str(ref.kind), ref.name)


def _user_flag(ref: Ref, renderer: Renderer) -> str | None:
    return renderer.option(ref.name)


class _Builder:
    def __init__(self, renderer: Renderer) -> None:
        self.graph: nx.MultiDiGraph[str] = nx.MultiDiGraph()
        self.renderer = renderer

    def node(self, node_id: str, **attrs: Any) -> str:
        if node_id not in self.graph:
            self.graph.add_node(node_id, **attrs)
        return node_id

    def ref(self, ref: Ref) -> str:
        node_id = _ref_id(ref, self.renderer)
        kind = "flag" if ref.kind is RefKind.FLAG else str(ref.kind)
        return self.node(node_id, kind=kind, name=node_id.split(":", 1)[1])

    def edge(self, src: str, dst: str, role: str, evidence: str | None = None, **attrs: Any) -> None:
        if self.graph.has_edge(src, dst, key=role):
            data = self.graph.edges[src, dst, role]
            if evidence and evidence not in data["evidence"]:
                data["evidence"] = sorted([*data["evidence"], evidence])
            return
        self.graph.add_edge(src, dst, key=role, role=role, evidence=[evidence] if evidence else [], **attrs)

    def relations(self, expr: Expr, evidence: str) -> None:
        """conflicts / requires edges among the user flags one trigger constrains."""
        polar: dict[str, tuple[Ref, bool]] = {}
        for conjunct in conjuncts(simplify(expr)):
            found = flag_polarity(conjunct)
            if found is not None and _user_flag(found[0], self.renderer):
                polar.setdefault(found[0].name, found)
        for (a, pa), (b, pb) in itertools.combinations(sorted(polar.values(), key=lambda x: x[0].name), 2):
            na, nb = self.ref(a), self.ref(b)
            if pa and pb:
                src, dst = sorted((na, nb))
                self.edge(src, dst, "conflicts", evidence)
            elif pa and not pb:
                self.edge(na, nb, "requires", evidence)
            elif pb and not pa:
                self.edge(nb, na, "requires", evidence)


def build_graph(
    entries: Sequence[Entry],
    renderer: Renderer | None = None,
    flags: Any = None,
    adjustments: Sequence[Adjustment] = (),
) -> nx.MultiDiGraph:
    renderer = renderer or Renderer()
    b = _Builder(renderer)
    if flags is not None:
        for flag in flags.flags:
            if flag.option:
                b.node(ref_node("flag", flag.option), kind="flag", name=flag.option, **_flag_attrs(flag))
        for env in flags.env:
            b.node(ref_node("env", env.name), kind="env", name=env.name, type=env.type or "",
                   default=_scalar(env.default))
    for entry in entries:
        err = b.node(f"error:{entry.id}", kind="error", exception=entry.site.exception,
                     template=entry.site.template.text, path=entry.site.path, line=entry.site.line)
        base = entry.trigger.expr
        for ref in refs(base):
            b.edge(err, b.ref(ref), "trigger")
        for variant in entry.variants:
            row = variant.trigger.expr
            for ref in refs(row):
                b.edge(err, b.ref(ref), "trigger")
            b.relations(conj([base, row]), entry.id)
        if not entry.variants:
            b.relations(base, entry.id)
        for _, value in entry.site.hole_refs:
            for ref in refs(value):
                b.edge(err, b.ref(ref), "message")
    for imp in implications(adjustments, renderer):
        src = b.node(ref_node("flag", imp.source), kind="flag", name=imp.source)
        dst = b.node(ref_node("flag", imp.target), kind="flag", name=imp.target)
        b.edge(src, dst, "implies", imp.function, when=imp.when)
    return b.graph


def _flag_attrs(flag: Any) -> dict[str, Any]:
    return {
        "dest": flag.dest,
        "aliases": ", ".join(flag.aliases),
        "type": flag.type or "",
        "default": _scalar(flag.default),
        "choices": _scalar(flag.choices) if flag.choices is not None else "",
        "help": flag.help or "",
        "deprecated": bool(flag.deprecated),
        "replacement": flag.replacement or "",
        "declared": f"{flag.path}:{flag.line}",
    }


def graph_json(graph: nx.MultiDiGraph) -> dict[str, Any]:
    data = nx.node_link_data(graph, edges="links") if _has_edges_kw() else nx.node_link_data(graph)
    data["nodes"] = sorted(data["nodes"], key=lambda n: n["id"])
    data["links"] = sorted(data["links"], key=lambda e: (e["source"], e["target"], str(e.get("key"))))
    return data


def load_graph_json(data: dict[str, Any]) -> nx.MultiDiGraph:
    if _has_edges_kw():
        graph = nx.node_link_graph(data, directed=True, multigraph=True, edges="links")
    else:
        graph = nx.node_link_graph(data, directed=True, multigraph=True)
    if not isinstance(graph, nx.MultiDiGraph):  # what directed=True, multigraph=True build
        raise TypeError(f"expected a MultiDiGraph, got {type(graph).__name__}")
    return graph


def _has_edges_kw() -> bool:
    import inspect

    return "edges" in inspect.signature(nx.node_link_data).parameters


def graph_graphml(graph: nx.MultiDiGraph) -> str:
    """GraphML text with nodes and edges in sorted order (deterministic bytes).

    The text `nx.write_graphml` (its ElementTree writer, pretty-printed) gives for the
    graph rebuilt in that order, written directly: networkx builds an element per node,
    edge and value first, seconds for a catalog of many thousand entries."""
    keys: dict[tuple[str, str, str], str] = {}  # (name, type, for) -> id, first seen first
    body: list[str] = []

    def element(head: str, scope: str, attrs: dict[str, Any], indent: str) -> None:
        if not attrs:
            body.append(f"{indent}{head} />\n")
            return
        body.append(f"{indent}{head}>\n")
        for name, raw in sorted(attrs.items()):
            value = _scalar(raw)
            xml_type = _XML_TYPES.get(type(value))
            if xml_type is None:
                raise TypeError(f"GraphML does not support {type(value)} as data values")
            key = keys.setdefault((name, xml_type, scope), f"d{len(keys)}")
            text = str(value)
            body.append(f'{indent}  <data key="{key}">{_xml_text(text)}</data>\n' if text
                        else f'{indent}  <data key="{key}" />\n')
        body.append(f"{indent}{head[:head.index(' ')].replace('<', '</')}>\n")

    for node in sorted(graph.nodes):
        element(f'<node id="{_xml_attr(str(node))}"', "node", graph.nodes[node], "    ")
    for src, dst, key, attrs in sorted(graph.edges(keys=True, data=True), key=lambda e: (e[0], e[1], str(e[2]))):
        head = f'<edge source="{_xml_attr(str(src))}" target="{_xml_attr(str(dst))}" id="{_xml_attr(str(key))}"'
        element(head, "edge", attrs, "    ")
    out = [_GRAPHML_HEAD]
    out += [f'  <key id="{key}" for="{scope}" attr.name="{_xml_attr(name)}" attr.type="{xml_type}" />\n'
            for (name, xml_type, scope), key in reversed(keys.items())]  # networkx inserts each first
    if body:
        out += ['  <graph edgedefault="directed">\n', *body, "  </graph>\n"]
    else:
        out.append('  <graph edgedefault="directed" />\n')
    out.append("</graphml>\n")
    # written as UTF-8 by ElementTree: what UTF-8 cannot hold (lone surrogates) as references
    return "".join(out).encode("utf-8", "xmlcharrefreplace").decode("utf-8")


_GRAPHML_HEAD = (
    "<?xml version='1.0' encoding='utf-8'?>\n"
    '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
    ' xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns'
    ' http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">\n'
)
_XML_TYPES = {int: "long", str: "string", float: "double", bool: "boolean"}  # networkx's names


def _xml_text(text: str) -> str:
    return _escape_cdata(text)  # ElementTree's own escaping, as networkx writes with it


def _xml_attr(text: str) -> str:
    return _escape_attrib(text)


def _scalar(value: Any) -> Any:
    if isinstance(value, (str, int, float, bool)):
        return value
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    return str(value)


FLAG_ROLES = ("conflicts", "requires", "implies")


def flag_neighbourhood(graph: nx.MultiDiGraph, option: str) -> nx.MultiDiGraph:
    """The flag, the flags related to it (conflicts/requires/implies, either direction)
    and every error that involves any of them: the subgraph `errcat graph --flag` shows."""
    center = ref_node("flag", option)
    if center not in graph:
        raise KeyError(option)
    flags = {center}
    for src, dst, role in graph.edges(keys=True):
        if role in FLAG_ROLES and center in (src, dst):
            flags.update((src, dst))
    errors = {src for src, dst, role in graph.edges(keys=True) if dst in flags and src.startswith("error:")}
    return graph.subgraph(flags | errors).copy()
