"""analyzers.matching: normalisation, features and score, candidates, assignment, match_entries."""
from __future__ import annotations

from typing import Any

import pytest

from analyzers.matching import (
    _TEXT_FLOOR,
    THRESHOLD,
    Features,
    Matching,
    Pair,
    _solve,
    assign,
    candidates,
    literal_text,
    match_entries,
    normalize_code_spans,
    normalize_template,
    score,
    split_template,
    strip_receivers,
    text_similarity,
    words,
)


def entry(id: str, template: str = "port must be >= 0", *, path: str = "pkg/a.py", line: int = 3,
          function: str = "check", exception: str = "ValueError", flags: tuple[str, ...] = ("--port",),
          env: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"id": id, "exception": exception, "template": template,
            "source": {"path": path, "line": line, "function": function},
            "trigger": {"flags": list(flags), "env": list(env)}}


def feat(template: str = "port must be >= 0", **kw: Any) -> Features:
    return Features.of(entry(kw.pop("id", "x"), template, **kw))


# ------------------------------------------------------------------ normalisation


@pytest.mark.parametrize("template, parts", [
    ("plain", [(False, "plain")]),
    ("a {x} b", [(False, "a "), (True, "x"), (False, " b")]),
    ("{{literal}} {y!r:>4}", [(False, "{literal} "), (True, "y!r:>4")]),
    ("{d['k']}", [(True, "d['k']")]),
    ("{d['}']} x", [(True, "d['}']"), (False, " x")]),  # a brace inside a string in a hole
    ("{ {'a': 1}[k]}", [(True, "{'a': 1}[k]")]),  # a hole starting with a brace
    ("", []),
])
def test_split_template(template, parts):
    assert split_template(template) == parts


@pytest.mark.parametrize("code, expected", [
    ("self.tp_size", "tp_size"),
    ("server_args.tp_size", "tp_size"),
    ("len(self.lora_paths)", "len(lora_paths)"),
    ("args.spec.name", "spec.name"),  # only the outermost receiver
    ("a.x + b.y", "x + y"),
    ("plain", "plain"),
    ("1.5", "1.5"),  # a number is no receiver
    ("f(x).y", "f(x).y"),  # nor is a call
])
def test_strip_receivers(code, expected):
    assert strip_receivers(code) == expected


@pytest.mark.parametrize("template, expected", [
    ("got {self.pp_size}", "got {pp_size}"),
    ("got {server_args.pp_size}", "got {pp_size}"),
    ("x  must\n be set", "x must be set"),
    ("  padded  ", "padded"),
    ("{{a}} {cfg.x}", "{{a}} {x}"),  # literal braces stay escaped
])
def test_normalize_template(template, expected):
    assert normalize_template(template) == expected


@pytest.mark.parametrize("template, expected", [
    ("Port {self.port} Must Be >= 0", "port {} must be >= 0"),
    ("{{A}}  {x}\n", "{a} {}"),  # literal braces unescaped, spaces collapsed
    ("{x}", "{}"),
    ("", ""),
])
def test_literal_text(template, expected):
    assert literal_text(template) == expected


@pytest.mark.parametrize("text, expected", [
    ("`self.port.bit_length()` > 3", "`port.bit_length()` > 3"),
    ("`server_args.tp_size` and self.x", "`tp_size` and self.x"),  # outside backticks: untouched
    ("a  `cfg.x`\n b", "a `x` b"),
    ("no code", "no code"),
])
def test_normalize_code_spans(text, expected):
    assert normalize_code_spans(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("port must be >= 0", {"port", "must", "be"}),
    ("--tp-size a.b_c 1.5", {"tp-size", "a.b_c", "1.5"}),  # inner punctuation kept, edges trimmed
    ("a b {} x", set()),  # single characters are not words
    ("", set()),
])
def test_words(text, expected):
    assert words(text) == expected


# ------------------------------------------------------------------ features


@pytest.mark.parametrize("field, template, kw, expected", [
    ("text", "Port {self.port} must be >= 0", {}, "port {} must be >= 0"),
    ("text", "{self.port}", {}, ""),  # nothing but values: no text to compare
    ("tokens", "port >= {x}", {}, ("port", ">", "=", "{", "}")),
    ("words", "port {self.max_port}", {}, frozenset({"port", "max_port"})),  # hole words without receiver
    ("flags", "x", {"flags": ("--a",), "env": ("X_ENV",)}, frozenset({"--a", "env:X_ENV"})),
    ("func", "x", {"function": "ServerArgs._check_port"}, frozenset({"check", "port"})),  # leaf name only
    ("func", "x", {"function": ""}, frozenset()),
    ("line", "x", {"line": 42}, 42),
])
def test_features_of(field, template, kw, expected):
    assert getattr(feat(template, **kw), field) == expected


def test_features_of_empty_entry():
    assert Features.of({}) == Features(id="", text="", tokens=(), words=frozenset(), flags=frozenset(),
                                       func=frozenset(), exception="", path="", line=0)


@pytest.mark.parametrize("a, b, expected", [
    (("a", "b"), ("a", "b"), 1.0),
    ((), (), 1.0),
    (("a", "b", "c", "d"), ("a", "b", "c", "e"), 0.75),
    (("a", "b"), ("c", "d"), 0.0),
    (("a",), ("a", "b", "c", "d", "e", "f"), 0.0),  # ratio 2/7 < floor: cut to 0
])
def test_text_similarity(a, b, expected):
    assert text_similarity(a, b) == pytest.approx(expected)


MOVED_OLD = feat("port must be >= 0, got {self.port}", function="ServerArgs._check_port")
MOVED_NEW = feat("port must be >= 0, got {server_args.port}", function="check_port", path="pkg/hooks/port_hook.py")


@pytest.mark.parametrize("a, b, expected", [
    (MOVED_OLD, MOVED_OLD, 1.0),
    (MOVED_OLD, MOVED_NEW, 0.98),  # everything but the place agrees
    (feat("alpha beta gamma delta"), feat("alpha beta gamma epsilon"), 0.7 * 0.75 + 0.14 + 0.1 + 0.04 + 0.02),
    (feat(exception="ValueError"), feat(exception="TypeError"), 0.96),
    (feat(line=3), feat(line=53), 0.98 + 0.02 * 0.75),  # same file, 50 lines apart
    (feat("{x}"), feat("{y}"), 1.0),  # no words: flags, function, exception and place decide
    (feat("", flags=("--a", "--b"), function="C._handle_dp"), feat("", flags=("--a", "--b"), function="handle_dp",
                                                                    path="h.py"), 0.98),
])
def test_score(a, b, expected):
    assert score(a, b) == pytest.approx(expected)


def test_moved_error_scores_above_threshold():
    assert score(MOVED_OLD, MOVED_NEW) >= THRESHOLD


def test_different_message_scores_zero_whatever_else_agrees():
    a, b = feat("port must be >= 0"), feat("model path is required")
    assert text_similarity(a.tokens, b.tokens) < _TEXT_FLOOR and score(a, b) == 0.0


def test_nearer_line_in_same_file_scores_higher():
    here = feat(line=10)
    assert score(here, feat(line=12)) > score(here, feat(line=200)) > score(here, feat(path="b.py"))


@pytest.mark.parametrize("a, b", [
    (feat("", flags=("--a",)), feat("port must be set", flags=("--a",))),  # one has a message, one not
    (feat("", flags=()), feat("", flags=())),  # nothing at all to compare
    (feat("", flags=("--a", "--b")), feat("", flags=("--a", "--c"))),  # flags jaccard 1/3 < 0.8
    (feat("", function="check_alpha"), feat("", function="handle_beta")),  # function jaccard 0 < 0.5
])
def test_messageless_pairs_score_zero_unless_same_checks_in_like_named_function(a, b):
    assert score(a, b) == 0.0


# ------------------------------------------------------------------ candidates


@pytest.mark.parametrize("old, new, expected", [
    (["port must be set"], ["port is required"], {(0, 0)}),  # shares "port"
    (["port must be set"], ["model is required"], set()),  # shares nothing
    (["alpha one", "beta one"], ["beta two", "alpha two"], {(0, 1), (1, 0)}),
    ([], ["x y"], set()),
])
def test_candidates_share_a_word(old, new, expected):
    assert candidates([feat(t) for t in old], [feat(t) for t in new]) == expected


def test_candidates_of_messageless_entries_share_a_flag():
    old = [feat("{x}", flags=("--tp",)), feat("{y}", flags=("--dp",))]
    new = [feat("{z}", flags=("--dp",))]
    assert candidates(old, new) == {(1, 0)}


COMMON = [feat(f"common w{k}") for k in range(5)]  # "common" is in 10 of 10 entries: not rare (cap 8)


def test_candidates_skip_common_words_when_rare_ones_exist():
    assert candidates(COMMON, COMMON) == {(k, k) for k in range(5)}


def test_candidates_fall_back_to_least_common_words():
    expected = {(0, k) for k in range(5)} | {(k, k) for k in range(1, 5)}
    assert candidates([feat("common"), *COMMON[1:]], COMMON) == expected


def test_candidates_max_share_raises_the_rarity_cap():
    assert candidates(COMMON, COMMON, max_share=1.0) == {(i, j) for i in range(5) for j in range(5)}


# ------------------------------------------------------------------ assignment


@pytest.mark.parametrize("edges, expected", [
    ([], []),
    ([(0, 0, 0.9)], [(0, 0, 0.9)]),
    ([(0, 0, 0.9), (0, 1, 0.8), (1, 0, 0.85)], [(0, 1, 0.8), (1, 0, 0.85)]),  # best total, not best edge
    ([(0, 0, 0.9), (1, 0, 0.8)], [(0, 0, 0.9)]),  # one new entry pairs once
    ([(0, 0, 0.6), (0, 1, 0.9), (1, 1, 0.6)], [(0, 0, 0.6), (1, 1, 0.6)]),  # two pairs (1.2) beat one (0.9)
    ([(0, 0, 0.7), (1, 1, 0.7), (2, 5, 0.6)], [(0, 0, 0.7), (1, 1, 0.7), (2, 5, 0.6)]),  # separate components
])
def test_assign_is_maximum_weight_one_to_one(edges, expected):
    assert assign(edges) == expected


TIES = [(i, j, 0.7) for i in range(2) for j in range(2)]  # identical messages: every pairing scores the same


@pytest.mark.parametrize("old_keys, new_keys, expected", [
    (None, None, [(0, 0, 0.7), (1, 1, 0.7)]),  # by index
    (None, [("b.py", 9), ("b.py", 1)], [(0, 1, 0.7), (1, 0, 0.7)]),  # by source order of the new side
    ([("a.py", 9), ("a.py", 1)], [("b.py", 9), ("b.py", 1)], [(0, 0, 0.7), (1, 1, 0.7)]),
])
def test_assign_breaks_ties_by_source_order(old_keys, new_keys, expected):
    assert assign(TIES, old_keys, new_keys) == expected


def test_assign_tie_break_never_beats_a_higher_score():
    assert assign([(0, 0, 0.7), (0, 1, 0.7000011)]) == [(0, 1, 0.7000011)]  # (0, 0) is closer in rank


def test_assign_does_not_depend_on_edge_order():
    edges = [(0, 0, 0.7), (0, 1, 0.7), (1, 0, 0.7), (1, 1, 0.7), (2, 1, 0.9), (3, 4, 0.6)]
    assert assign(edges) == assign(list(reversed(edges))) == [(0, 0, 0.7), (2, 1, 0.9), (3, 4, 0.6)]


@pytest.mark.parametrize("edges, expected", [
    ([(i, j, 0.7) for i in range(3) for j in range(2)], {(0, 0, 0.7), (1, 1, 0.7)}),  # 3 old, 2 new: ranks agree
    ([(i, j, 0.7) for i in (4, 7) for j in (2, 9)], {(4, 2, 0.7), (7, 9, 0.7)}),  # ranks, not raw indices
])
def test_solve_pairs_closest_ranks_among_equal_scores(edges, expected):
    assert set(_solve(edges, None, None)) == expected


# ------------------------------------------------------------------ match_entries


def pairs(m: Matching) -> list[tuple[int, int, str]]:
    return [(p.old, p.new, p.by) for p in m.pairs]


def test_equal_ids_pair_first():
    m = match_entries([entry("a"), entry("b", "other")], [entry("b", "other"), entry("a")])
    assert pairs(m) == [(0, 1, "id"), (1, 0, "id")]


def test_equal_id_wins_over_a_better_similar_entry():
    m = match_entries([entry("a", "port must be >= 0")], [entry("b", "port must be >= 0"), entry("a", "edited")])
    assert (pairs(m), m.added) == ([(0, 1, "id")], (0,))


def test_duplicate_id_pairs_once():
    m = match_entries([entry("a", "x one"), entry("a", "y two", flags=("--y",))], [entry("a", "x one")])
    assert (pairs(m), m.removed, m.added) == ([(0, 0, "id")], (1,), ())


def test_moved_entry_pairs_by_similarity():
    old = [entry("a", "port must be >= 0, got {self.port}", function="ServerArgs._check_port")]
    new = [entry("z", "port must be >= 0, got {server_args.port}", path="pkg/hooks/port_hook.py",
                 function="check_port")]
    m = match_entries(old, new)
    assert (pairs(m), m.removed, m.added) == ([(0, 0, "similarity")], (), ())
    assert m.pairs[0].score == pytest.approx(0.98)


def test_threshold_is_the_lowest_score_paired():
    old = [entry("a", "port must be >= 0, got {self.port}", function="ServerArgs._check_port")]
    new = [entry("z", "port must be >= 0, got {server_args.port}", path="h.py", function="check_port")]
    assert (pairs(match_entries(old, new, threshold=0.99)), pairs(match_entries(old, new, threshold=0.98))) == (
        [], [(0, 0, "similarity")])


def test_unrelated_entries_are_added_and_removed():
    m = match_entries([entry("a", "port must be >= 0")], [entry("b", "model path is required", flags=("--model",))])
    assert (m.pairs, m.removed, m.added) == ((), (0,), (0,))


def test_assignment_is_one_to_one_and_uses_function_names():
    old = [entry("a1", "value is invalid", function="C._check_alpha", flags=("--alpha",)),
           entry("b1", "value is invalid", function="C._check_beta", flags=("--beta",))]
    new = [entry("b2", "value is invalid", function="check_beta", flags=("--beta",), path="h.py"),
           entry("a2", "value is invalid", function="check_alpha", flags=("--alpha",), path="h.py")]
    assert pairs(match_entries(old, new)) == [(0, 1, "similarity"), (1, 0, "similarity")]


def test_messageless_asserts_pair_on_flags_and_function():
    old = [entry("a", "", function="C._handle_dp", flags=("--dp-size", "--tp-size"))]
    new = [entry("b", "", function="handle_dp", flags=("--dp-size", "--tp-size"), path="h.py")]
    assert pairs(match_entries(old, new)) == [(0, 0, "similarity")]


def test_edited_message_pairs_when_mostly_the_same():
    old = [entry("a", "LoRA is only compatible with NGRAM speculative decoding.")]
    new = [entry("b", "LoRA is only compatible with NGRAM or EAGLE speculative decoding.")]
    assert pairs(match_entries(old, new)) == [(0, 0, "similarity")]


def test_identical_messages_pair_in_source_order_not_list_order():
    old = [entry(f"o{line}", "value is invalid", line=line) for line in (10, 20)]
    new = [entry(f"n{line}", "value is invalid", path="pkg/b.py", line=line) for line in (7, 5)]
    assert pairs(match_entries(old, new)) == [(0, 1, "similarity"), (1, 0, "similarity")]


def test_counts_and_as_dict():
    old = [entry("a"), entry("m", "moved message here", function="C._check_x"), entry("r", "gone for good")]
    new = [entry("a"), entry("n", "moved message here", function="check_x", path="h.py"),
           entry("q", "brand new", flags=("--q",))]
    m = match_entries(old, new)
    assert m.counts() == {"by_id": 1, "by_similarity": 1, "removed": 1, "added": 1}
    assert [p.as_dict() for p in m.pairs] == [{"old": 0, "new": 0, "by": "id", "score": 1.0},
                                              {"old": 1, "new": 1, "by": "similarity", "score": 0.98}]


def test_pair_as_dict_rounds_score():
    assert Pair(1, 2, "similarity", 0.123456).as_dict() == {"old": 1, "new": 2, "by": "similarity", "score": 0.1235}
