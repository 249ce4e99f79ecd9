"""Catalog entries (analyzers/entries.py): ids, excerpts, triggers, listed guards and variants."""
from __future__ import annotations

import textwrap
from dataclasses import replace

import pytest

from analyzers.entries import (
    EXCERPT_CONTEXT,
    MAX_LISTED_PRIORS,
    MAX_REACH,
    EntryVariant,
    Trigger,
    assign_ids,
    build_entries,
    entry_id,
    excerpt,
    listed_guards,
    site_reach,
    site_trigger,
    site_trigger_guards,
    trigger_guards,
)
from analyzers.solution import Solution
from analyzers.trigger import Renderer
from extractor.ir import TRUE, And, Compare, Const, Not, Ref, RefKind, Truthy, Unknown, from_dict
from extractor.profile import load_profile
from extractor.records import RaiseSite
from extractor.sites import extract_file

PROFILE = load_profile("sglang")
RENDER = Renderer()


def sites(code: str, path: str = "m.py") -> list[RaiseSite]:
    return list(extract_file(path, textwrap.dedent(code), PROFILE).sites)


def only_id(code: str, path: str = "m.py") -> str:
    (site,) = sites(code, path)
    return assign_ids([site])[0]


def entries(code: str, path: str = "m.py", implied=None):
    found = sites(code, path)
    lines = textwrap.dedent(code).splitlines(keepends=True)
    return build_entries(found, lambda p: lines, lambda p, n: f"https://x/{p}#L{n}", RENDER, implied=implied)


def guard_texts(guards) -> list[tuple[str, str]]:
    return [(str(g.origin), g.text) for g in guards]


# ------------------------------------------------------------------------- ids

BASE = "def f(cfg):\n    if cfg.x:\n        raise ValueError('no x')\n"


def test_id_is_pinned_for_a_known_site() -> None:
    """Published ids must not drift: sha256 of path, function, exception, template, ordinal; 16 hex."""
    assert only_id(BASE) == "a2cfa5633af39577"


@pytest.mark.parametrize(
    "edited",
    [
        "\n\n\n" + BASE,  # line shift
        "import os\n\ndef g():\n    raise KeyError('k')\n\n" + BASE,  # unrelated code above
        "def f(cfg):\n    if cfg.y and cfg.z:\n        raise ValueError('no x')\n",  # guard rewritten
        "def f(cfg):\n    raise ValueError('no x')\n",  # guard removed
        "def f(other, cfg):\n    # comment\n    if cfg.x:\n        raise ValueError('no x')\n",  # signature, comment
    ],
    ids=["line-shift", "unrelated-code", "guard-changed", "guard-removed", "signature-comment"],
)
def test_id_is_stable_across_edits_that_keep_the_error(edited: str) -> None:
    found = sites(edited)
    assert [i for s, i in zip(found, assign_ids(found), strict=True) if s.function == "f"] == [only_id(BASE)]


@pytest.mark.parametrize(
    "code, path",
    [
        (BASE, "other.py"),  # path
        (BASE.replace("def f", "def g"), "m.py"),  # enclosing function
        (BASE.replace("ValueError", "TypeError"), "m.py"),  # exception type
        (BASE.replace("no x", "no y"), "m.py"),  # message template
        ("class A:\n" + textwrap.indent(BASE.replace("(cfg)", "(self, cfg)"), "    "), "m.py"),  # qualname A.f
    ],
    ids=["path", "function", "exception", "template", "qualname"],
)
def test_id_changes_with_what_identifies_the_error(code: str, path: str) -> None:
    assert only_id(code, path) != only_id(BASE)


def test_identical_sites_in_one_function_are_numbered_in_source_order() -> None:
    found = sites(
        """
        def f(cfg):
            if cfg.a:
                raise ValueError('bad')
            if cfg.b:
                raise ValueError('other')
            if cfg.c:
                raise ValueError('bad')
            if cfg.d:
                raise ValueError('bad')
        """
    )
    bad = [s for s in found if s.template.text == "bad"]
    ids = dict(zip([id(s) for s in found], assign_ids(found), strict=True))
    assert [ids[id(s)] for s in bad] == [entry_id(s, n) for n, s in enumerate(bad)]
    assert len(set(assign_ids(found))) == 4


def test_ordinal_ignores_different_sites_in_between_and_other_functions() -> None:
    plain = assign_ids(sites("def f(cfg):\n    raise ValueError('bad')\n    raise ValueError('bad')\n"))
    mixed = sites(
        "def g():\n    raise ValueError('bad')\n"
        "def f(cfg):\n    raise ValueError('bad')\n    raise KeyError('bad')\n    raise ValueError('bad')\n"
    )
    ids = zip(mixed, assign_ids(mixed), strict=True)
    assert [i for s, i in ids if s.function == "f" and s.exception == "ValueError"] == plain
    assert assign_ids(mixed)[0] == entry_id(mixed[0], 0)


@pytest.mark.parametrize("ordinal, other", [(0, 1), (1, 2), (0, 2)])
def test_ordinal_separates_ids_of_the_same_site(ordinal: int, other: int) -> None:
    (site,) = sites(BASE)
    assert entry_id(site, ordinal) != entry_id(site, other)
    assert len(entry_id(site, ordinal)) == 16 and int(entry_id(site, ordinal), 16) >= 0


# -------------------------------------------------------------------- excerpts

LINES = [f"line {n}\n" for n in range(1, 101)]


@pytest.mark.parametrize(
    "lines, line, start, first, last",
    [
        (LINES, 1, 1, 1, 21),  # clipped at the top
        (LINES, 21, 1, 1, 41),
        (LINES, 50, 30, 30, 70),  # EXCERPT_CONTEXT either side
        (LINES, 100, 80, 80, 100),  # clipped at the bottom
        (LINES[:5], 3, 1, 1, 5),  # short file: all of it
    ],
)
def test_excerpt_window(lines: list[str], line: int, start: int, first: int, last: int) -> None:
    assert EXCERPT_CONTEXT == 20
    got_start, code = excerpt(lines, line)
    assert got_start == start
    assert code == "".join(f"line {n}\n" for n in range(first, last + 1))


def test_entry_excerpt_and_url_come_from_the_site_path_and_line() -> None:
    asked: list[str] = []
    code = "".join(f"# {n}\n" for n in range(1, 31)) + "def f():\n    raise ValueError('x')\n"
    found = sites(code, "pkg/a.py")
    lines = code.splitlines(keepends=True)

    def lines_of(path: str) -> list[str]:
        asked.append(path)
        return lines

    (entry,) = build_entries(found, lines_of, lambda p, n: f"https://x/{p}#L{n}", RENDER)
    assert asked == ["pkg/a.py"]
    assert (entry.site.line, entry.excerpt_start, entry.url) == (32, 12, "https://x/pkg/a.py#L32")
    assert entry.excerpt == "".join(lines[11:32])
    d = entry.as_dict()
    assert d["excerpt"] == {"start_line": 12, "code": entry.excerpt}
    assert d["source"] == {"path": "pkg/a.py", "line": 32, "function": "f", "url": "https://x/pkg/a.py#L32"}


# -------------------------------------------------------------------- triggers


@pytest.mark.parametrize(
    "code, text, flags, env",
    [
        ("def f(cfg):\n    raise ValueError('x')\n", "always", [], []),
        ("def f(cfg):\n    if cfg.enable_lora:\n        raise ValueError('x')\n",
         "`--enable-lora` is set", ["--enable-lora"], []),
        ("def f(cfg):\n    if cfg.b and envs.SGLANG_X.get():\n        raise ValueError('x')\n",
         "`--b` is set and `SGLANG_X=1`", ["--b"], ["SGLANG_X"]),
        ("def f(cfg):\n    if cfg.z or cfg.a:\n        raise ValueError('x')\n",
         "`--z` is set or `--a` is set", ["--a", "--z"], []),
        ("def f(cfg):\n    assert cfg.tp_size > 0, 'tp'\n", "`--tp-size` <= 0", ["--tp-size"], []),
    ],
    ids=["unguarded", "flag", "flag-and-env", "flags-sorted", "assert"],
)
def test_trigger_text_flags_and_env(code: str, text: str, flags: list[str], env: list[str]) -> None:
    (entry,) = entries(code)
    assert (entry.trigger.text, list(entry.trigger.flags), list(entry.trigger.env)) == (text, flags, env)


LORA = Ref(RefKind.FLAG, "enable_lora", "cfg.enable_lora")
HIDDEN = Ref(RefKind.FLAG, "hidden", "cfg.hidden")
ENV = Ref(RefKind.ENV, "SGLANG_X", "envs.SGLANG_X.get()")
HIP = Ref(RefKind.PLATFORM, "is_hip", "is_hip()")
WITH_HIDDEN = Renderer(lambda dest: None if dest == "hidden" else f"--{dest.replace('_', '-')}")


@pytest.mark.parametrize(
    "expr, field, value",
    [
        (And((Truthy(LORA), Truthy(ENV))), "flags", ("--enable-lora",)),
        (And((Truthy(LORA), Truthy(ENV))), "env", ("SGLANG_X",)),
        (And((Truthy(HIP), Truthy(Unknown("g()")))), "other", ("platform:is_hip", "unknown:g()")),
        (And((Truthy(HIDDEN), Truthy(LORA))), "derived", ("hidden",)),  # no option sets it
        (And((Truthy(HIDDEN), Truthy(LORA))), "flags", ("--enable-lora",)),
        (Not(Not(Truthy(LORA))), "expr", Truthy(LORA)),  # simplified
        (And((Truthy(LORA), TRUE)), "text", "`--enable-lora` is set"),
        (TRUE, "text", "always"),
    ],
)
def test_trigger_build(expr, field: str, value) -> None:
    assert getattr(Trigger.build(expr, WITH_HIDDEN), field) == value


def test_trigger_as_dict_is_the_catalog_object() -> None:
    expr = And((Truthy(LORA), Compare("==", ENV, Const("static"))))
    trigger = Trigger.build(expr, WITH_HIDDEN, {"--enable-lora": ["--lora-paths"]})
    data = trigger.as_dict()
    assert list(data) == ["text", "expr", "flags", "derived", "env", "other", "implied_by"]
    assert (data["flags"], data["env"], data["implied_by"]) == (["--enable-lora"], ["SGLANG_X"],
                                                                {"--enable-lora": ["--lora-paths"]})
    assert from_dict(data["expr"]) == trigger.expr
    assert "implied_by" not in Trigger.build(expr, WITH_HIDDEN).as_dict()  # only when something implies it


@pytest.mark.parametrize(
    "solutions, fix, keys",
    [
        (None, None, ["values", "template", "trigger"]),  # before advice
        ((Solution("Do not pass `--x`."),), {"before": "a", "after": "b"},
         ["values", "template", "trigger", "solutions", "example_fix"]),
    ],
)
def test_variant_as_dict_keys(solutions, fix, keys) -> None:
    variant = EntryVariant((("reason", "r"),), "LoRA r.", Trigger.build(Truthy(LORA), RENDER), solutions, fix)
    data = variant.as_dict()
    assert list(data) == keys
    assert data["values"] == {"reason": "r"}
    assert data.get("solutions") == ([s.as_dict() for s in solutions] if solutions else None)


def test_entry_triggers_and_unknown() -> None:
    (entry,) = entries("def f(cfg):\n    raise ValueError('a' if cfg.x else g())\n")
    assert [t.text for t in entry.triggers] == ["always", "`--x` is set", "`--x` is not set"]
    assert not any(t.unknown for t in entry.triggers)
    assert Trigger.build(Truthy(Unknown("g()")), RENDER).unknown


def test_unguarded_site_trigger_is_true() -> None:
    (site,) = sites("def f():\n    raise ValueError('x')\n")
    assert site_trigger(site) == TRUE
    assert site_trigger_guards(site) == []


PRIORS = """
def f(cfg):
    if cfg.mode == "a":
        raise ValueError("a mode")
    if cfg.other:
        raise ValueError("other")
    if cfg.mode == "b":
        raise ValueError("b mode")
"""


def test_earlier_raise_on_the_same_variable_is_kept_in_the_trigger() -> None:
    last = sites(PRIORS)[-1]
    assert [g.text for g in site_trigger_guards(last)] == ['not (cfg.mode == "a")', 'cfg.mode == "b"']
    (entry,) = [e for e in entries(PRIORS) if e.site.template.text == "b mode"]
    assert entry.trigger.text == "`--mode` is b"  # `not a` is implied by `is b` once simplified
    assert entry.trigger.flags == ("--mode",)  # not `--other`


def test_earlier_raise_on_another_variable_stays_in_guards_only() -> None:
    (entry,) = [e for e in entries(PRIORS) if e.site.template.text == "other"]
    assert entry.trigger.text == "`--other` is set"
    assert entry.as_dict()["guards"] == [
        {"text": 'not (cfg.mode == "a")', "origin": "prior-raise"},
        {"text": "cfg.other", "origin": "if"},
    ]


@pytest.mark.parametrize(
    "prior, text",
    [
        ("cfg.x == 'a'", "`--x` is not a"),  # the variants read --x: kept
        ("cfg.y", "always"),  # unrelated: dropped
    ],
)
def test_variants_reads_count_when_keeping_earlier_raises(prior: str, text: str) -> None:
    code = (f"def f(cfg):\n    if {prior}:\n        raise ValueError('no')\n"
            "    raise ValueError('p' if cfg.x == 'b' else 'q')\n")
    (entry,) = [e for e in entries(code) if e.site.template.text == "p"]
    assert entry.trigger.text == text


def test_trigger_guards_keeps_non_prior_guards_and_narrowing_priors_in_order() -> None:
    last = sites(PRIORS)[-1]
    assert guard_texts(trigger_guards(last.guards)) == [
        ("prior-raise", 'not (cfg.mode == "a")'),
        ("if", 'cfg.mode == "b"'),
    ]
    assert site_trigger_guards(last) == trigger_guards(last.guards)


def test_implied_options_are_named_in_the_trigger() -> None:
    (entry,) = entries("def f(cfg):\n    if cfg.enable_lora:\n        raise ValueError('x')\n",
                       implied={"--enable-lora": ["--lora-paths", "--lora-paths"]})
    assert entry.trigger.text == "`--enable-lora` is set (`--enable-lora` is also turned on by `--lora-paths`)"
    assert entry.trigger.implied_by == (("--enable-lora", ("--lora-paths",)),)
    assert entry.as_dict()["trigger"]["implied_by"] == {"--enable-lora": ["--lora-paths"]}


# ----------------------------------------------------------------------- reach

THREE = """
def f(cfg):
    if cfg.a:
        raise ValueError("a")
    assert cfg.b is not None, "b"
    if cfg.c:
        raise ValueError("c")
"""


def _entry(code: str, template: str):
    found = entries(code)
    ids = {e.site.line: e.id for e in found}
    (entry,) = [e for e in found if e.site.template.text == template]
    return entry, ids


@pytest.mark.parametrize(
    "code, template, expected",
    [
        # three raises in a row: the third's reach names the first two, in line order
        (THREE, "c", [(4, "`--a` is not set", "a"), (5, "`--b` is given", "b")]),
        (THREE, "b", [(4, "`--a` is not set", "a")]),
        (THREE, "a", []),
        # an earlier raise on what the trigger reads narrows it: in the trigger, not in reach
        (PRIORS, "b mode", [(6, "`--other` is not set", "other")]),
        # the else branch leaves: it stands for the raise in the else block
        ("def f(cfg):\n    if cfg.a:\n        pass\n    else:\n        raise ValueError('na')\n"
         "    if cfg.c:\n        raise ValueError('c')\n", "c", [(5, "`--a` is set", "na")]),
        # a one-line ``if c: raise`` and an ``elif`` chain: each exit stands for its own raise
        ("def f(cfg):\n    if cfg.a: raise ValueError('a')\n    elif cfg.b:\n        raise ValueError('b')\n"
         "    if cfg.c:\n        raise ValueError('c')\n", "c",
         [(2, "`--a` is not set", "a"), (4, "`--a` is set or `--b` is not set", "b")]),
        # an inner block's earlier raise is not on the path after the block
        ("def f(cfg):\n    if cfg.x:\n        if cfg.a:\n            raise ValueError('a')\n"
         "    if cfg.c:\n        raise ValueError('c')\n", "c", []),
    ],
    ids=["third", "second", "first", "narrowing", "else-exit", "elif-chain", "inner-block"],
)
def test_reach_names_the_earlier_checks_that_fire_first(code: str, template: str, expected) -> None:
    entry, ids = _entry(code, template)
    reach = entry.trigger.reach
    assert [(r.line, r.entry) for r in reach] == [(line, ids[line]) for line, _, _ in expected]
    assert [r.text for r in reach] == [
        f"also needs {text}, else “{message}” (line {line}) fires first" for line, text, message in expected]


def test_reach_keeps_the_trigger_and_is_published_with_each_check_s_condition() -> None:
    entry, ids = _entry(THREE, "c")
    assert entry.trigger.text == "`--c` is set"  # the check's own condition stays short
    published = entry.as_dict()["trigger"]["reach"]
    assert [r["entry"] for r in published] == [ids[4], ids[5]]
    assert [from_dict(r["expr"]) for r in published] == [r.expr for r in entry.trigger.reach]
    assert RENDER.text(entry.trigger.reach[1].expr) == "`--b` is not given"  # when it fires
    assert "reach" not in _entry(THREE, "a")[0].as_dict()["trigger"]  # absent when empty


@pytest.mark.parametrize("n, listed, more", [(3, 3, 0), (MAX_REACH, MAX_REACH, 0), (20, MAX_REACH, 20 - MAX_REACH)])
def test_reach_lists_the_nearest_and_counts_the_rest(n: int, listed: int, more: int) -> None:
    (entry,) = [e for e in entries(_checks(n)) if e.site.template.text == "last"]
    assert len(entry.trigger.reach) == listed and entry.trigger.reach_more == more
    assert [r.line for r in entry.trigger.reach] == [2 * i + 3 for i in range(n - listed, n)]
    assert entry.as_dict()["trigger"].get("reach_more", 0) == more
    assert len(site_reach(entry.site)[0]) == n  # the typed list before the cap


# --------------------------------------------------------------- listed guards


def _checks(n: int) -> str:
    return "def f(cfg):\n" + "".join(f"    if cfg.o{i}:\n        raise ValueError('e{i}')\n" for i in range(n)) + \
        "    raise ValueError('last')\n"


@pytest.mark.parametrize(
    "n, first",
    [
        (3, "not (cfg.o0)"),
        (MAX_LISTED_PRIORS, "not (cfg.o0)"),  # up to the cap: all named
        (MAX_LISTED_PRIORS + 1, "1 earlier checks did not fire (not listed)"),
        (30, "6 earlier checks did not fire (not listed)"),
    ],
)
def test_listed_guards_name_the_nearest_earlier_raises(n: int, first: str) -> None:
    last = sites(_checks(n))[-1]
    listed = listed_guards(last)
    assert len(last.guards) == n
    assert listed[0].text == first
    shown = [g.text for g in listed][-min(n, MAX_LISTED_PRIORS):]
    assert shown == [f"not (cfg.o{i})" for i in range(max(0, n - MAX_LISTED_PRIORS), n)]
    assert len(listed) == (n if n <= MAX_LISTED_PRIORS else MAX_LISTED_PRIORS + 1)
    assert {str(g.origin) for g in listed} == {"prior-raise"}


def test_hidden_earlier_raises_do_not_change_the_trigger() -> None:
    (entry,) = [e for e in entries(_checks(30)) if e.site.template.text == "last"]
    assert entry.trigger.text == "always"
    assert len(entry.as_dict()["guards"]) == MAX_LISTED_PRIORS + 1


# -------------------------------------------------------------------- variants


@pytest.mark.parametrize(
    "code, rows",
    [
        ("def f(cfg):\n    raise ValueError('a' if cfg.x else 'b')\n",
         [({}, "a", "`--x` is set"), ({}, "b", "`--x` is not set")]),
        (
            """
            def f(server_args):
                cfg = resolving_view(server_args)
                rows = [
                    (cfg.a, "does not support --a"),
                    (cfg.b == "x", "does not support b"),
                ]
                for bad, reason in rows:
                    if bad:
                        raise ValueError(f"LoRA {reason}.")
            """,
            [({"reason": "does not support --a"}, "LoRA does not support --a.", "`--a` is set"),
             ({"reason": "does not support b"}, "LoRA does not support b.", "`--b` is x")],
        ),
        ("def f(cfg):\n    if cfg.x:\n        raise ValueError('x')\n", []),
    ],
    ids=["conditional-message", "table-rows", "none"],
)
def test_one_variant_per_row(code: str, rows: list[tuple[dict, str, str]]) -> None:
    (entry,) = entries(code)
    got = [(dict(v.values), v.template, v.trigger.text) for v in entry.variants]
    assert got == rows
    assert entry.as_dict()["variants"] == [
        {"values": values, "template": template, "trigger": v.trigger.as_dict()}
        for (values, template, _), v in zip(rows, entry.variants, strict=True)
    ]


# --------------------------------------------------------------------- ordering


def test_entries_are_sorted_by_id_one_per_site() -> None:
    code = "".join(f"def f{i}(cfg):\n    raise ValueError('m{i}')\n" for i in range(8))
    built = entries(code)
    assert [e.id for e in built] == sorted(e.id for e in built)
    assert sorted(e.site.line for e in built) == [2 * i + 2 for i in range(8)]
    assert {e.id for e in built} == set(assign_ids(sites(code)))
    assert [e.site.line for e in built] != sorted(e.site.line for e in built)  # the order really is by id


def test_as_dict_defaults_for_a_fresh_entry() -> None:
    (entry,) = entries(BASE)
    d = entry.as_dict()
    assert (d["id"], d["kind"], d["exception"], d["template"]) == ("a2cfa5633af39577", "raise", "ValueError", "no x")
    assert (d["meaning"], d["solutions"], d["related"], d["notes"]) == ("", [], [], [])
    assert d["example_fix"] == {"before": None, "after": None, "verified": "not-run", "predicted": "unknown"}


@pytest.mark.parametrize(
    "function, internal",
    [
        ("run_pass", True),  # a function the profile lists in `contracts`
        ("Registry.run_pass", True),  # a method of that name as well
        ("check", False),
    ],
)
def test_entries_of_contract_functions_are_internal(function: str, internal: bool) -> None:
    from analyzers.entries import launch_can_raise

    name = function.rpartition(".")[2]
    code = f"def {name}(fn):\n    if not isinstance(fn(), dict):\n        raise TypeError('must return a dict')\n"
    if "." in function:
        code = "class Registry:\n" + textwrap.indent(code, "    ")
    found = sites(code)
    lines = textwrap.dedent(code).splitlines(keepends=True)
    (entry,) = build_entries(found, lambda p: lines, lambda p, n: "", RENDER, contracts=frozenset({"run_pass"}))
    assert bool(entry.extra.get("internal")) is internal
    assert launch_can_raise(entry.extra) is not internal


@pytest.mark.parametrize(("reached", "stage"), [
    ("start", "start"),  # only what the launcher runs after validation reaches it: raised as the server starts
    ("true", None),
])
def test_entries_of_functions_run_after_validation_are_at_the_server_start(reached: str, stage: str | None) -> None:
    from analyzers.entries import launch_can_raise, validation_can_raise

    code = "class PortArgs:\n    def init_new(cfg):\n        if cfg.port < 0:\n            raise ValueError('port')\n"
    lines = code.splitlines(keepends=True)
    (entry,) = build_entries(sites(code), lambda p: lines, lambda p, n: "", RENDER,
                             reach={("m.py", "PortArgs.init_new"): reached})
    assert entry.extra.get("stage") == stage
    assert launch_can_raise(entry.extra) and validation_can_raise(entry.extra) is (stage is None)


@pytest.mark.parametrize(("callers", "rows", "stage"), [
    ([["late"], ["check"]], ["start", ""], None),  # one row passed only as the server starts
    ([["late"], ["late"]], ["start", "start"], "start"),  # every row: the entry too
    ([["late", "check"], []], ["", ""], None),  # a row validation passes as well; a row of a table
])
def test_a_row_only_calls_after_validation_pass_is_at_the_server_start(callers, rows, stage) -> None:
    from extractor.records import Variant

    code = "def parse(addr):\n    if not addr:\n        raise ValueError('empty')\n"
    lines = code.splitlines(keepends=True)
    (site,) = sites(code)
    site = replace(site, variants=tuple(Variant((), (), site.template, tuple(("m.py", f) for f in c)) for c in callers))
    (entry,) = build_entries([site], lambda p: lines, lambda p, n: "", RENDER,
                             reach={("m.py", "parse"): "true", ("m.py", "late"): "start", ("m.py", "check"): "true"})
    assert [v.stage for v in entry.variants] == rows
    assert entry.extra.get("stage") == stage


@pytest.mark.parametrize(
    "code, reached, internal",
    [
        # an attribute hook's check of the attribute's name: the program's own `obj.name`
        ("class S:\n    def __setattr__(self, name, value):\n        if name.startswith('_'):\n"
         "            raise AttributeError('sealed')\n", "true", True),
        ("def __getattr__(name):\n    if name not in LAZY:\n        raise AttributeError(name)\n", "unknown", True),
        # the value written is the launch's data: a check of it is not internal
        ("class S:\n    def __setattr__(self, name, value):\n        if value < 0:\n"
         "            raise ValueError('negative')\n", "true", False),
        # run on import, reading only program values
        ("def collect(fields):\n    for f in fields:\n        if f in SEEN:\n            raise ValueError('twice')\n",
         "import", True),
        # run on import but reading an env var: the environment is the launch's
        ("import os\ndef collect(fields):\n    if os.environ.get('X'):\n            raise ValueError('x')\n",
         "import", False),
        ("def collect(fields):\n    for f in fields:\n        if f in SEEN:\n            raise ValueError('twice')\n",
         "true", False),  # run at launch too: its parameter may carry the launch's values
        # an assert on the order the program calls its own functions in (sglang 0.5.23 kv_cache_hook.py:337)
        ("def collect(fields):\n    assert fields.backend is not None, '_handle_a must run after _handle_b()'\n",
         "true", True),
    ],
)
def test_checks_of_the_programs_own_values_are_internal(code: str, reached: str, internal: bool) -> None:
    found = sites(code)
    lines = code.splitlines(keepends=True)
    params = {("m.py", "S.__setattr__"): ("self", "name", "value"), ("m.py", "__getattr__"): ("name",),
              ("m.py", "collect"): ("fields",)}
    reach = {(s.path, s.function): reached for s in found}
    (entry,) = build_entries(found, lambda p: lines, lambda p, n: "", RENDER, reach=reach, params=params)
    assert bool(entry.extra.get("internal")) is internal
    assert "reachable" not in entry.extra or reached == "unknown"
    assert any(n.startswith("internal:") for n in entry.site.notes) is internal
