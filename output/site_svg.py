"""A flag's neighbourhood in the catalog graph as an SVG picture, laid out at build time.

The subgraph is `analyzers.graph.flag_neighbourhood` (what `errcat graph --flag` shows),
cut to at most `MAX_NODES` nodes so a person can read it: the flag in the middle, the
flags related to it on an inner ring (edge colour and dash say conflicts / requires /
implies / constrains), the errors involving them on an outer ring, each placed near the
flags it reads so few lines cross. The layout is computed here, in plain geometry, so the
same graph always gives the same bytes and no layout engine (graphviz, numpy) is needed.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import networkx as nx

from analyzers.graph import FLAG_ROLES, flag_neighbourhood, ref_node
from output.site_html import esc

MAX_NODES = 30
MAX_FLAGS = 12  # related flags drawn around the centre; more go to the list under the picture
WIDTH, HEIGHT = 960, 640
_CX, _CY = WIDTH / 2, 285.0  # the legend takes a strip at the bottom
_FLAG_RING = (210.0, 140.0)
_ERROR_RING = (420.0, 255.0)
_ROLE_ORDER = {"conflicts": 0, "requires": 1, "implies": 2, "constrains": 3}
# role: (colour, dash pattern, arrow at the target)
STYLE = {
    "conflicts": ("#c1121f", "", False),
    "requires": ("#0550ae", "", True),
    "implies": ("#2a7d2e", "8 5", True),
    "constrains": ("#bc6c25", "2 4", False),
    "involves": ("#9aa4ae", "", False),
}
LEGEND = (("conflicts", "conflicts with"), ("requires", "requires"), ("implies", "implies (sets it)"),
          ("constrains", "compared with"), ("involves", "error reads the flag"))


@dataclass(frozen=True, slots=True)
class Node:
    id: str  # graph node id: "flag:--x" or "error:<entry id>"
    label: str
    x: float
    y: float
    number: int = 0  # errors: their number in the list under the picture


@dataclass(frozen=True, slots=True)
class Edge:
    src: str
    dst: str
    role: str  # a FLAG_ROLES role, or "involves" (an error reads or shows the flag)


@dataclass(frozen=True, slots=True)
class Picture:
    center: str
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    flags_total: int  # related flags in the whole neighbourhood (the centre not counted)
    errors_total: int

    @property
    def errors(self) -> tuple[Node, ...]:
        return tuple(n for n in self.nodes if n.id.startswith("error:"))


def _ring(angle: float, ring: tuple[float, float]) -> tuple[float, float]:
    return round(_CX + ring[0] * math.cos(angle), 1), round(_CY + ring[1] * math.sin(angle), 1)


def _mean_angle(angles: Sequence[float]) -> float | None:
    if not angles:
        return None
    x, y = sum(math.cos(a) for a in angles), sum(math.sin(a) for a in angles)
    return None if abs(x) < 1e-9 and abs(y) < 1e-9 else math.atan2(y, x) % (2 * math.pi)


def neighbourhood_picture(graph: nx.MultiDiGraph, option: str, max_nodes: int = MAX_NODES) -> Picture:
    """The nodes and edges to draw for `option` and where they go. KeyError: no such flag."""
    sub = flag_neighbourhood(graph, option)
    center = ref_node("flag", option)
    related = _related_flags(sub, center)
    flags = related[:min(MAX_FLAGS, max_nodes - 1)]
    shown_flags = {center, *flags}
    errors = sorted(n for n in sub if n.startswith("error:"))
    reads = {e: {dst for _, dst in sub.out_edges(e) if dst in shown_flags} for e in errors}
    chosen = _ranked_errors(sub, center, errors, reads)[:max(0, max_nodes - 1 - len(flags))]
    angles = {f: -math.pi / 2 + 2 * math.pi * i / max(len(flags), 1) for i, f in enumerate(flags)}
    nodes = [Node(center, option, _CX, _CY)]
    nodes += [Node(f, f.split(":", 1)[1], *_ring(angles[f], _FLAG_RING)) for f in flags]
    order, error_nodes = _placed_errors(chosen, reads, angles)
    nodes += error_nodes
    drawn = {n.id for n in nodes}
    edges = sorted({Edge(src, dst, role) for src, dst, role in sub.edges(keys=True)
                    if role in FLAG_ROLES and src in drawn and dst in drawn and src != dst},
                   key=lambda e: (e.role, e.src, e.dst))
    edges += [Edge(e, f, "involves") for e in order for f in sorted(reads[e])]
    return Picture(center, tuple(nodes), tuple(edges), len(related), len(errors))


def _related_flags(sub: nx.MultiDiGraph, center: str) -> list[str]:
    """The flags related to `center`, the strongest relation first (`_ROLE_ORDER`), then by name."""
    role_of: dict[str, int] = {}
    for src, dst, role in sub.edges(keys=True):
        if role in FLAG_ROLES and center in (src, dst):
            other = dst if src == center else src
            if other != center:
                role_of[other] = min(role_of.get(other, 9), _ROLE_ORDER[role])
    return sorted(role_of, key=lambda n: (role_of[n], n))


def _ranked_errors(sub: nx.MultiDiGraph, center: str, errors: Sequence[str],
                   reads: Mapping[str, set[str]]) -> list[str]:
    """The errors reading a drawn flag: those behind a drawn relation first, then those that
    read the centre, then those reading the most drawn flags."""
    evidence = {f"error:{ev}" for _, _, role, data in sub.edges(keys=True, data=True) if role in FLAG_ROLES
                for ev in data.get("evidence") or ()}
    ranked = sorted(errors, key=lambda e: (e not in evidence, center not in reads[e], -len(reads[e]), e))
    return [e for e in ranked if reads[e]]


def _placed_errors(chosen: Sequence[str], reads: Mapping[str, set[str]],
                   angles: Mapping[str, float]) -> tuple[list[str], list[Node]]:
    """The chosen errors numbered round the outer ring, each near the flags it reads."""
    wanted = {e: _mean_angle([angles[f] for f in reads[e] if f in angles]) for e in chosen}
    order = sorted(chosen, key=lambda e: (wanted[e] is None, wanted[e] or 0.0, e))
    step = 2 * math.pi / max(len(order), 1)
    first = wanted[order[0]] if order else None
    first = -math.pi / 2 if first is None else first
    nodes = [Node(e, e.split(":", 1)[1], *_ring(first + step * (number - 1), _ERROR_RING), number=number)
             for number, e in enumerate(order, 1)]
    return order, nodes


def _shorten(x1: float, y1: float, x2: float, y2: float, r1: float, r2: float) -> tuple[float, ...]:
    """The segment between two node centres, minus each node's radius (arrows stay visible)."""
    dx, dy = x2 - x1, y2 - y1
    d = math.hypot(dx, dy) or 1.0
    return (round(x1 + dx * r1 / d, 1), round(y1 + dy * r1 / d, 1),
            round(x2 - dx * r2 / d, 1), round(y2 - dy * r2 / d, 1))


def picture_svg(picture: Picture, href: Callable[[str], str | None],
                titles: Mapping[str, str] | None = None) -> str:
    """The picture as inline SVG. `href(node id)`: the link of a node (None: no page);
    `titles`: tooltip text per node id (an error's message)."""
    titles = titles or {}
    at = {n.id: n for n in picture.nodes}
    radius = {n.id: 13.0 if n.id == picture.center else (9.0 if n.id.startswith("flag:") else 11.0)
              for n in picture.nodes}
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
           f'aria-labelledby="graph-title" font-family="system-ui, sans-serif" font-size="13">',
           f'<title id="graph-title">{esc(picture.center.split(":", 1)[1])}: related flags and the errors '
           "that involve them</title>", "<defs>"]
    for role, (colour, _, arrow) in STYLE.items():
        if arrow:
            out.append(f'<marker id="arrow-{role}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
                       f'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
                       f'fill="{colour}"/></marker>')
    out.append("</defs>")
    for edge in sorted(picture.edges, key=lambda e: e.role != "involves"):  # relations drawn on top
        a, b = at[edge.src], at[edge.dst]
        colour, dash, arrow = STYLE[edge.role]
        x1, y1, x2, y2 = _shorten(a.x, a.y, b.x, b.y, radius[a.id], radius[b.id] + (2 if arrow else 0))
        width = 1 if edge.role == "involves" else 2.5
        extra = (f' stroke-dasharray="{dash}"' if dash else "") + (f' marker-end="url(#arrow-{edge.role})"'
                                                                   if arrow else "")
        out.append(f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{colour}" stroke-width="{width}"'
                   f'{extra} data-role="{edge.role}"/>')
    for node in picture.nodes:
        out.append(_node_svg(node, node.id == picture.center, href(node.id), titles.get(node.id)))
    out += _legend()
    out.append("</svg>")
    return "\n".join(out)


def _node_svg(node: Node, center: bool, link: str | None, title: str | None) -> str:
    tip = f"<title>{esc(title or node.label)}</title>"
    if node.id.startswith("error:"):
        shape = (f'<rect x="{node.x - 11}" y="{node.y - 11}" width="22" height="22" rx="3" fill="#fff" '
                 f'stroke="#57606a"/><text x="{node.x}" y="{node.y + 4.5}" text-anchor="middle" '
                 f'font-size="12">{node.number}</text>')
    else:
        r = 13 if center else 9
        fill = "#fb8500" if center else "#8ecae6"
        if center:
            label = (f'<text x="{node.x}" y="{node.y + 32}" text-anchor="middle" font-weight="700" '
                     f'font-size="15">{esc(node.label)}</text>')
        else:
            right = node.x >= _CX
            label = (f'<text x="{node.x + (14 if right else -14)}" y="{node.y + 4.5}" '
                     f'text-anchor="{"start" if right else "end"}">{esc(node.label)}</text>')
        shape = f'<circle cx="{node.x}" cy="{node.y}" r="{r}" fill="{fill}" stroke="#023047"/>{label}'
    body = f"{tip}{shape}"
    if link is None:
        return f'<g data-node="{esc(node.id)}">{body}</g>'
    return f'<a href="{esc(link)}" data-node="{esc(node.id)}">{body}</a>'


def _legend() -> list[str]:
    """Two rows along the bottom: the edge kinds, then the node kinds."""
    y = HEIGHT - 44
    out = [f'<g class="legend" font-size="12"><line x1="0" y1="{y - 20}" x2="{WIDTH}" y2="{y - 20}" '
           'stroke="#d0d7de"/>']
    x = 12
    for role, text in LEGEND:
        colour, dash, arrow = STYLE[role]
        extra = (f' stroke-dasharray="{dash}"' if dash else "") + (f' marker-end="url(#arrow-{role})"'
                                                                   if arrow else "")
        out.append(f'<line x1="{x}" y1="{y}" x2="{x + 34}" y2="{y}" stroke="{colour}" '
                   f'stroke-width="{1 if role == "involves" else 2.5}"{extra}/>'
                   f'<text x="{x + 42}" y="{y + 4}">{esc(text)}</text>')
        x += 42 + 7 * len(text) + 24  # about 7 px a character at this size
    y += 24
    out.append(f'<circle cx="18" cy="{y}" r="6" fill="#fb8500" stroke="#023047"/>'
               f'<text x="30" y="{y + 4}">the flag</text>'
               f'<circle cx="100" cy="{y}" r="6" fill="#8ecae6" stroke="#023047"/>'
               f'<text x="112" y="{y + 4}">a related flag</text>'
               f'<rect x="208" y="{y - 7}" width="14" height="14" rx="2" fill="#fff" stroke="#57606a"/>'
               f'<text x="228" y="{y + 4}">an error (numbered, listed below the picture)</text>')
    out.append("</g>")
    return out
