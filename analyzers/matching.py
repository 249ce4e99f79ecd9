"""Which entry of one catalog is which entry of another.

Ids hash path, function, exception and template, so an error that moved (e.g. from a
``ServerArgs`` method into an ``arg_groups/*_hook.py`` function) or whose message was
edited gets a new id. Matching is therefore two passes:

1. equal ids are the same entry;
2. the rest: candidate pairs that share a rare word of the message (or a flag, for
   messages without words) are scored on message similarity, flags, function name
   and exception; the one-to-one assignment of maximum total score wins
   (`networkx.max_weight_matching` per connected component of the candidate graph).

Messages are compared modulo the receiver of the values they show: ``{self.tp_size}``
in a method and ``{server_args.tp_size}`` in a hook function render the same text.
"""
from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

from extractor.templates import Hole, parse_template

THRESHOLD = 0.55  # lowest score of a pair reported as one entry
_TEXT_FLOOR = 0.4  # messages this different are different errors, whatever else agrees
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]*[A-Za-z0-9]|[A-Za-z0-9]")
_TOKEN = re.compile(r"\w+|[^\w\s]")
_RECEIVER = re.compile(r"(?<![\w.])[A-Za-z_]\w*\.(?=[A-Za-z_])")
_SPACE = re.compile(r"\s+")
_TICKED = re.compile(r"`[^`]*`")


# ------------------------------------------------------------------ normalisation


def split_template(template: str) -> list[tuple[bool, str]]:
    """(is_hole, text) parts of a published template, read by the one template parser
    (`extractor.templates.parse_template`); ``{{``/``}}`` are literal braces, a hole's text is
    what stands between its braces (``y!r:>4``)."""
    parts = parse_template(template).parts
    return [(True, p.text[1:-1].lstrip()) if isinstance(p, Hole) else (False, p) for p in parts if p != ""]


def strip_receivers(code: str) -> str:
    """``len(self.lora_paths)`` -> ``len(lora_paths)``: the value, not who holds it."""
    return _RECEIVER.sub("", code)


def normalize_template(template: str) -> str:
    """The template as a user sees it, with hole expressions stripped of receivers."""
    out = []
    for hole, text in split_template(template):
        out.append("{" + strip_receivers(text) + "}" if hole else text.replace("{", "{{").replace("}", "}}"))
    return _SPACE.sub(" ", "".join(out)).strip()


def literal_text(template: str) -> str:
    """Literal parts only, holes as ``{}``, spaces collapsed, lower case."""
    text = "".join("{}" if hole else part for hole, part in split_template(template))
    return _SPACE.sub(" ", text).strip().lower()


def normalize_code_spans(text: str) -> str:
    """Receivers stripped inside backticks (how trigger texts quote code)."""
    return _SPACE.sub(" ", _TICKED.sub(lambda m: strip_receivers(m.group(0)), text)).strip()


def words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text) if len(w) > 1}


# ------------------------------------------------------------------ features


@dataclass(frozen=True, slots=True)
class Features:
    """What matching looks at in one entry."""

    id: str
    text: str  # literal_text of the template ("" when it has no words)
    tokens: tuple[str, ...]  # the text as words and punctuation, compared in order
    words: frozenset[str]
    flags: frozenset[str]
    func: frozenset[str]  # parts of the enclosing function's own name
    exception: str
    path: str
    line: int

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> Features:
        src = entry.get("source") or {}
        trig = entry.get("trigger") or {}
        template = str(entry.get("template", ""))
        text = literal_text(template)
        found = words(text)
        if not found:  # nothing but values: the message says nothing to compare
            text = ""
        holes = {w for hole, part in split_template(template) if hole for w in words(strip_receivers(part))}
        leaf = str(src.get("function", "")).rsplit(".", 1)[-1]
        return cls(
            id=str(entry.get("id", "")),
            text=text,
            tokens=tuple(_TOKEN.findall(text)),
            words=frozenset(found | holes),
            flags=frozenset([*trig.get("flags", ()), *(f"env:{e}" for e in trig.get("env", ()))]),
            func=frozenset(p for p in leaf.lower().split("_") if p),
            exception=str(entry.get("exception", "")),
            path=str(src.get("path", "")),
            line=int(src.get("line") or 0),
        )


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def text_similarity(a: Sequence[str], b: Sequence[str]) -> float:
    """difflib's ratio over word tokens (0 early when it cannot reach the floor)."""
    if a == b:
        return 1.0
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    if matcher.real_quick_ratio() < _TEXT_FLOOR or matcher.quick_ratio() < _TEXT_FLOOR:
        return 0.0
    return matcher.ratio()


def score(a: Features, b: Features) -> float:
    """How likely two entries are the same error, 0..1 (0: never pair them)."""
    flags = _jaccard(a.flags, b.flags)
    func = _jaccard(a.func, b.func)
    exc = 1.0 if a.exception == b.exception else 0.0
    near = 0.0
    if a.path == b.path:  # among equal messages, prefer the same file and place
        near = 0.5 + 0.5 / (1 + abs(a.line - b.line) / 50)
    if a.text and b.text:
        text = text_similarity(a.tokens, b.tokens)
        if text < _TEXT_FLOOR:
            return 0.0
        return 0.7 * text + 0.14 * flags + 0.1 * func + 0.04 * exc + 0.02 * near
    if a.text or b.text or not a.flags or flags < 0.8 or func < 0.5:
        return 0.0  # no message to compare: only the same checks in a like-named function
    return 0.6 * flags + 0.3 * func + 0.08 * exc + 0.02 * near


# ------------------------------------------------------------------ candidates


def _tokens(f: Features) -> set[str]:
    return set(f.words) if f.words else set(f.flags)


def candidates(old: Sequence[Features], new: Sequence[Features], max_share: float = 0.05) -> set[tuple[int, int]]:
    """Pairs sharing at least one rare token (a word in ≤ max_share of the entries, or ≤ 8)."""
    index: dict[str, list[int]] = defaultdict(list)
    for j, f in enumerate(new):
        for tok in _tokens(f):
            index[tok].append(j)
    df = Counter(tok for f in (*old, *new) for tok in _tokens(f))
    cap = max(8, int(max_share * (len(old) + len(new))))
    pairs: set[tuple[int, int]] = set()
    for i, f in enumerate(old):
        toks = _tokens(f)
        rare = [t for t in toks if df[t] <= cap]
        if not rare and toks:  # only common words: use the least common ones
            least = min(df[t] for t in toks)
            rare = [t for t in toks if df[t] == least]
        for tok in rare:
            pairs.update((i, j) for j in index.get(tok, ()))
    return pairs


# ------------------------------------------------------------------ assignment


@dataclass(frozen=True, slots=True)
class Pair:
    old: int  # index into the old entries
    new: int
    by: str  # "id" or "similarity"
    score: float

    def as_dict(self) -> dict[str, Any]:
        return {"old": self.old, "new": self.new, "by": self.by, "score": round(self.score, 4)}


@dataclass(frozen=True, slots=True)
class Matching:
    pairs: tuple[Pair, ...]
    removed: tuple[int, ...]  # old indices without a partner
    added: tuple[int, ...]  # new indices without a partner

    def counts(self) -> dict[str, int]:
        return {
            "by_id": sum(1 for p in self.pairs if p.by == "id"),
            "by_similarity": sum(1 for p in self.pairs if p.by == "similarity"),
            "removed": len(self.removed),
            "added": len(self.added),
        }


def assign(
    weighted: Iterable[tuple[int, int, float]],
    old_keys: Sequence[Any] | None = None,
    new_keys: Sequence[Any] | None = None,
) -> list[tuple[int, int, float]]:
    """Maximum-weight one-to-one assignment of (old, new, weight) edges.

    Ties (identical messages score the same against each other) go to the pairing
    closest to source order, old and new sorted by `old_keys`/`new_keys` (default:
    the index), and the result never depends on hash order: each component is solved
    on a fresh graph of integer nodes built in sorted order.
    """
    import networkx as nx  # only when there is something to assign

    edges = sorted(weighted)
    graph: nx.Graph[tuple[str, int]] = nx.Graph()
    for i, j, _ in edges:
        graph.add_edge(("o", i), ("n", j))
    by_old: dict[int, list[tuple[int, int, float]]] = defaultdict(list)
    for edge in edges:
        by_old[edge[0]].append(edge)
    chosen: list[tuple[int, int, float]] = []
    for component in sorted((sorted(c) for c in nx.connected_components(graph)), key=lambda c: c[0]):
        part = [e for kind, i in component if kind == "o" for e in by_old[i]]
        if len(part) == 1:
            chosen.extend(part)
        else:
            chosen.extend(_solve(part, old_keys, new_keys))
    return sorted(chosen)


def _solve(
    edges: list[tuple[int, int, float]], old_keys: Sequence[Any] | None, new_keys: Sequence[Any] | None
) -> list[tuple[int, int, float]]:
    """One connected component: integer weights, score first, then closeness of source-order ranks."""
    import networkx as nx

    olds = sorted({i for i, _, _ in edges}, key=lambda i: (old_keys[i] if old_keys else (), i))
    news = sorted({j for _, j, _ in edges}, key=lambda j: (new_keys[j] if new_keys else (), j))
    old_rank = {i: r for r, i in enumerate(olds)}
    new_rank = {j: r for r, j in enumerate(news)}
    span = len(olds) + len(news)
    base = span * min(len(olds), len(news)) + 1  # above any matching's sum of tie-break terms
    graph: nx.Graph[int] = nx.Graph()
    graph.add_nodes_from(range(span))
    for i, j, w in edges:
        tie = span - abs(old_rank[i] - new_rank[j])
        graph.add_edge(old_rank[i], len(olds) + new_rank[j], weight=round(w * 1_000_000) * base + tie, edge=(i, j, w))
    return [graph.edges[u, v]["edge"] for u, v in nx.max_weight_matching(graph)]


def match_entries(
    old: Sequence[Mapping[str, Any]], new: Sequence[Mapping[str, Any]], *, threshold: float = THRESHOLD
) -> Matching:
    """Pair entries of two catalogs: equal ids first, then the best similar pairs."""
    new_by_id: dict[str, int] = {}
    for j, entry in enumerate(new):
        new_by_id.setdefault(str(entry.get("id")), j)
    pairs: list[Pair] = []
    used_new: set[int] = set()
    rest_old: list[int] = []
    for i, entry in enumerate(old):
        same = new_by_id.get(str(entry.get("id")))
        if same is not None and same not in used_new:
            pairs.append(Pair(i, same, "id", 1.0))
            used_new.add(same)
        else:
            rest_old.append(i)
    rest_new = [j for j in range(len(new)) if j not in used_new]
    old_f = [Features.of(old[i]) for i in rest_old]
    new_f = [Features.of(new[j]) for j in rest_new]
    weighted = []
    for a, b in candidates(old_f, new_f):
        s = score(old_f[a], new_f[b])
        if s >= threshold:
            weighted.append((a, b, s))
    keys = ([(f.path, f.line) for f in old_f], [(f.path, f.line) for f in new_f])
    for a, b, s in assign(weighted, *keys):
        pairs.append(Pair(rest_old[a], rest_new[b], "similarity", s))
    paired_old = {p.old for p in pairs}
    paired_new = {p.new for p in pairs}
    return Matching(
        pairs=tuple(sorted(pairs, key=lambda p: (p.old, p.new))),
        removed=tuple(i for i in range(len(old)) if i not in paired_old),
        added=tuple(j for j in range(len(new)) if j not in paired_new),
    )
