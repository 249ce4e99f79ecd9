"""The networkx graph of a catalog.

Nodes: errors, flags (with their declaration data), env vars, platform/model/runtime facts.
Edges (`role`):
- ``trigger`` / ``message``: error -> what its trigger reads / what its message shows;
- ``conflicts``: flag -- flag, an error fires with both given and no other flag or env var
  changed, and dropping either one (back to its default) avoids it (``values``: the values
  of the flags that are no switch it fires with, ``--speculative-algorithm=UNO``);
- ``requires``: flag -> flag, an error fires with the first given alone, dropping it avoids
  it, and so does giving the second (the flag it says is unset; ``values`` likewise);
- ``constrains``: flag -> flag, an error's trigger compares them (``relation``: that text);
- ``implies``: flag -> flag, giving the first alone turns the second on by an automatic adjustment.
Flag-to-flag edges carry the entry ids (or adjustment functions) as evidence. conflicts /
requires / implies are decided by the one evaluator (`analyzers.evaluate`) on launches the
witness search finds: a pair it cannot decide (an unknown leaf, a function it cannot
evaluate) gets no edge; platform checks and model properties may be assumed, and the edge
then lists them in ``assuming`` (empty when some evidence needs none).
"""
from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any
from xml.sax.saxutils import escape

import networkx as nx

from analyzers.adjustments import adjustment_guard
from analyzers.entries import Entry
from analyzers.eval_model import Model
from analyzers.evaluate import evaluate
from analyzers.kleene import Truth
from analyzers.launch import Launch
from analyzers.polarity import flag_polarity
from analyzers.rules import rules_from_adjustments
from analyzers.trigger import Renderer
from analyzers.witness import Leaf, base_launch, fact_leaves, satisfy, settable
from extractor.ir import Compare, Const, Expr, Not, Ref, RefKind, conj, conjuncts, disj, negate, refs, simplify, walk
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
        """Add the edge, or merge into it: evidence and list attributes are unions (sorted);
        ``assuming`` is empty as soon as one piece of evidence needs no assumption."""
        if not self.graph.has_edge(src, dst, key=role):
            self.graph.add_edge(src, dst, key=role, role=role, evidence=[evidence] if evidence else [], **attrs)
            return
        data = self.graph.edges[src, dst, role]
        if evidence and evidence not in data["evidence"]:
            data["evidence"] = sorted([*data["evidence"], evidence])
        for name, value in attrs.items():
            if name == "assuming":
                data[name] = [] if not value or not data[name] else sorted({*data[name], *value})
            elif isinstance(value, list):
                data[name] = sorted({*data.get(name, []), *value})

    def relations(self, expr: Expr, whole: Expr, evidence: str, judge: _Judge) -> None:
        """constrains / conflicts / requires edges among the user flags one condition reads
        (an entry's, or one row's of its table); avoiding it means avoiding `whole`, the
        entry's condition with any row (another row's message is the same error)."""
        expr = simplify(expr)
        compared = self.comparisons(expr, evidence)
        polar: dict[str, tuple[Ref, bool]] = {}
        for conjunct in conjuncts(expr):
            found = flag_polarity(conjunct)
            if found is not None and _user_flag(found[0], self.renderer):
                polar.setdefault(found[0].name, found)
        for (a, pa), (b, pb) in itertools.combinations(sorted(polar.values(), key=lambda x: x[0].name), 2):
            na, nb = self.ref(a), self.ref(b)
            if frozenset((na, nb)) in compared or not (pa or pb):
                continue
            if pa and pb:
                witness = judge.conflict(expr, whole, a, b)
                if witness is not None:
                    src, dst = sorted((na, nb))
                    self.edge(src, dst, "conflicts", evidence, assuming=_assumed(witness),
                              values=self.values(witness, (a, b), expr))
                continue
            (user, nu), (unset, nn) = ((a, na), (b, nb)) if pa else ((b, nb), (a, na))
            witness = judge.requirement(expr, whole, user, unset)
            if witness is not None:
                self.edge(nu, nn, "requires", evidence, assuming=_assumed(witness),
                          values=self.values(witness, (user,), expr))

    def values(self, launch: Launch, flags: Sequence[Ref], expr: Expr) -> list[str]:
        """``--flag=value`` for each of `flags` the witness `launch` gives a value `expr`
        names (not a switch's, not any free text): the relation holds for that value
        (``--speculative-algorithm=UNO`` conflicts with ``--enable-deterministic-inference``),
        not for every one."""
        named = {v for node in walk(expr) if isinstance(node, Const)
                 for v in (node.value if isinstance(node.value, tuple) else (node.value,))}
        out = []
        for ref in flags:
            value = launch.flags.get(ref.name)
            option = self.renderer.option(ref.name)
            if option is not None and not isinstance(value, bool) and _is_named(value, named):
                out.append(f"{option}={_scalar_text(value)}")
        return out

    def comparisons(self, expr: Expr, evidence: str) -> set[frozenset[str]]:
        """``constrains`` edges for the comparisons between flags the condition needs (its
        conjuncts): left-hand flags -> right-hand flags; the pairs they join."""
        pairs: set[frozenset[str]] = set()
        for conjunct in conjuncts(expr):
            compare = conjunct.arg if isinstance(conjunct, Not) else conjunct
            if not isinstance(compare, Compare):
                continue
            left = [r for r in refs(compare.left) if _user_flag(r, self.renderer)]
            right = [r for r in refs(compare.right) if _user_flag(r, self.renderer)]
            relation = self.renderer.text(conjunct)
            for a in left:
                for b in right:
                    na, nb = self.ref(a), self.ref(b)
                    if na != nb:
                        self.edge(na, nb, "constrains", evidence, relation=[relation])
                        pairs.add(frozenset((na, nb)))
        return pairs


    def implications(self, adj: Adjustment, judge: _Judge) -> None:
        """``implies`` edges of one automatic adjustment that sets a flag to a true value:
        from each flag its guard says is set and that, given alone, makes the guard hold."""
        target = self.renderer.option(adj.flag)
        if target is None or not (isinstance(adj.value, Const) and bool(adj.value.value)):
            return
        guard = simplify(adjustment_guard(adj))
        for conjunct in conjuncts(guard):
            found = flag_polarity(conjunct)
            source = self.renderer.option(found[0].name) if found and found[1] and found[0].name != adj.flag else None
            assumed = judge.implication(guard, found[0], adj.flag) if source is not None and found else None
            if source is not None and assumed is not None:
                src = self.node(ref_node("flag", source), kind="flag", name=source)
                dst = self.node(ref_node("flag", target), kind="flag", name=target)
                self.edge(src, dst, "implies", adj.function, when=self.renderer.text(guard),
                          value=_scalar_text(adj.value.value), assuming=assumed)


class _Judge:
    """Decides flag-to-flag relations with the evaluator: on launches the witness search
    finds from the smallest valid command line, changing only the flags in question (and
    assuming platform/model facts where they decide). Each answer is None (no edge) or the
    facts assumed (``kind:name=value``; [] when none were)."""

    def __init__(self, flags: Any, adjustments: Sequence[Adjustment]) -> None:
        self.model = Model(flags, rules_from_adjustments(adjustments))
        self.base = base_launch(self.model)
        self.without: dict[str, _Judge] = {}

    @classmethod
    def of(cls, model: Model) -> _Judge:
        judge = cls.__new__(cls)
        judge.model, judge.base, judge.without = model, base_launch(model), {}
        return judge

    def leaf(self, ref: Ref) -> Leaf | None:
        found = settable(ref, self.model)
        return found if found is not None and found.kind is RefKind.FLAG else None

    def needed(self, expr: Expr, leaves: Sequence[Leaf], whole: Expr | None = None) -> Launch | None:
        """A launch on which `expr` holds, every leaf given and each one needed: dropping
        it (back to its default, adjustments applied) makes `whole` (default: `expr`) false."""
        whole = expr if whole is None else whole
        launch, truth = satisfy(expr, self.model, self.base, [*leaves, *fact_leaves(expr)])
        if truth is not Truth.TRUE:
            return None
        for leaf in leaves:
            if leaf.name not in launch.flags or leaf.name in self.base.flags:
                return None
            if evaluate(whole, launch.without_flag(leaf.name), self.model) is not Truth.FALSE:
                return None
        return launch

    def conflict(self, expr: Expr, whole: Expr, a: Ref, b: Ref) -> Launch | None:
        """The launch giving both on which `expr` holds and each is needed (None: none found)."""
        la, lb = self.leaf(a), self.leaf(b)
        if la is None or lb is None or la == lb:
            return None
        return self.needed(expr, [la, lb], whole)

    def requirement(self, expr: Expr, whole: Expr, user: Ref, unset: Ref) -> Launch | None:
        """`user` given alone fires `expr` (and is needed); giving `unset` a value avoids
        `whole`: the launch giving `user` (None: not so)."""
        lu, ln = self.leaf(user), self.leaf(unset)
        if lu is None or ln is None or lu == ln:
            return None
        launch = self.needed(expr, [lu], whole)
        if launch is None or ln.name in launch.flags:
            return None
        after, truth = satisfy(negate(whole), self.model, launch, [ln])
        if truth is not Truth.TRUE or after.flags.get(ln.name) in (None, False):
            return None
        return launch

    def implication(self, guard: Expr, source: Ref, target: str) -> list[str] | None:
        """Giving `source` alone makes the adjustment's `guard` hold (and it does not
        without), read before the adjustments that write `target` (the guard of
        ``if x is None: x = True`` reads `x` as the command line leaves it)."""
        leaf = self.leaf(source)
        if leaf is None:
            return None
        launch = self.before(target).needed(guard, [leaf])
        return None if launch is None else _assumed(launch)

    def before(self, target: str) -> _Judge:
        """This judge without the adjustments that write `target`."""
        found = self.without.get(target)
        if found is None:
            found = self.without[target] = _Judge.of(
                self.model.subset([i for i, r in enumerate(self.model.rules) if r.dest != target]))
        return found


def _is_named(value: Any, named: set[Any]) -> bool:
    try:
        return value is not None and value in named
    except TypeError:  # unhashable (a dict value): no constant names it
        return False


def _scalar_text(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _assumed(launch: Launch) -> list[str]:
    return sorted(f"{key}={_scalar_text(value)}" for key, value in launch.facts.items())


def build_graph(
    entries: Sequence[Entry],
    renderer: Renderer | None = None,
    flags: Any = None,
    adjustments: Sequence[Adjustment] = (),
) -> nx.MultiDiGraph:
    renderer = renderer or Renderer()
    b = _Builder(renderer)
    judge = _Judge(flags, adjustments)
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
        whole = conj([base, disj([v.trigger.expr for v in entry.variants])]) if entry.variants else base
        for variant in entry.variants:
            row = variant.trigger.expr
            for ref in refs(row):
                b.edge(err, b.ref(ref), "trigger")
            b.relations(conj([base, row]), whole, entry.id, judge)
        if not entry.variants:
            b.relations(base, base, entry.id, judge)
        for _, value in entry.site.hole_refs:
            for ref in refs(value):
                b.edge(err, b.ref(ref), "message")
    for adj in adjustments:
        b.implications(adj, judge)
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


# ElementTree's escaping, as networkx writes with it: & < > in text; in attributes also the
# quote and the whitespace an attribute value would normalise away
_ATTR_ENTITIES = {'"': "&quot;", "\r": "&#13;", "\n": "&#10;", "\t": "&#09;"}


def _xml_text(text: str) -> str:
    return escape(text)


def _xml_attr(text: str) -> str:
    return escape(text, _ATTR_ENTITIES)


def _scalar(value: Any) -> Any:
    if isinstance(value, (str, int, float, bool)):
        return value
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    return str(value)


FLAG_ROLES = ("conflicts", "requires", "constrains", "implies")


def flag_neighbourhood(graph: nx.MultiDiGraph, option: str) -> nx.MultiDiGraph:
    """The flag, the flags related to it (conflicts/requires/constrains/implies, either direction)
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
