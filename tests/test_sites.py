"""Site extraction: where each raise/assert is, what it raises, and the guards on its path."""
from __future__ import annotations

import ast
import json
import textwrap
from pathlib import Path

import libcst as cst
import pytest

from analyzers.entries import site_trigger
from analyzers.trigger import Renderer
from extractor.callers import with_caller_guards
from extractor.ir import (
    FALSE,
    KEYWORD,
    TRUE,
    And,
    Apply,
    Const,
    Expr,
    Ref,
    RefKind,
    Truthy,
    conj,
    refs,
    simplify,
    unknowns,
)
from extractor.positions import statement_spans
from extractor.profile import load_profile
from extractor.records import FileSites, GuardOrigin, PriorTable, RaiseSite
from extractor.sites import SiteWalker, extract_file

PROFILE = load_profile("sglang")
ROOT = Path(__file__).resolve().parents[1]
RENDER = Renderer()


def sites(code: str, path: str = "m.py") -> list[RaiseSite]:
    return list(extract_file(path, textwrap.dedent(code), PROFILE).sites)


def checks(code: str) -> list[RaiseSite]:
    """The checks in `code` (crashes Python itself may raise on the way are tests/test_crash_sites.py's)."""
    return [site for site in sites(code) if site.crash is None]


def one(code: str) -> RaiseSite:
    """The one check in `code`."""
    found = checks(code)
    assert len(found) == 1, found
    return found[0]


def guard_texts(site: RaiseSite) -> list[tuple[str, str]]:
    return [(str(g.origin), g.text) for g in site.guards]


# ----------------------------------------------------------------- kinds, lines


@pytest.mark.parametrize(
    "code, kind, exception, line",
    [
        ("raise ValueError('x')\n", "raise", "ValueError", 1),
        ("\n\nassert x, 'm'\n", "assert", "AssertionError", 3),
        ("raise errors.Bad('x') from e\n", "raise", "errors.Bad", 1),
        ("raise KeyError\n", "raise", "KeyError", 1),
        ("err = TypeError('t')\nraise err\n", "raise", "TypeError", 2),
        ("try:\n    f()\nexcept OSError:\n    raise\n", "raise", "OSError", 4),
        ("x = 1\nraise ValueError(\n    'a'\n    'b'\n)\n", "raise", "ValueError", 2),
    ],
)
def test_kind_exception_and_line(code: str, kind: str, exception: str, line: int) -> None:
    site = one(code)
    assert (str(site.kind), site.exception, site.line) == (kind, exception, line)


@pytest.mark.parametrize("spans, fallback", [
    ("ast", False),
    (None, True),  # ast could not parse the text
    ((), True),  # ast lists other statements than libcst
])
def test_lines_come_from_ast_else_position_provider(spans, fallback) -> None:
    code = "def f(x):\n    if x:\n        raise ValueError('a')\n    assert x, 'b'\n"
    given = statement_spans(ast.parse(code)) if spans == "ast" else spans
    found = SiteWalker("m.py", cst.parse_module(code), PROFILE, given).run()
    assert [s.line for s in found.sites] == [3, 4]
    assert ("m.py: positions taken from PositionProvider" in found.diagnostics) is fallback


def test_every_site_in_nested_defs_and_classes_is_found_with_its_qualname() -> None:
    found = sites(
        """
        class A:
            def m(self):
                def inner():
                    raise ValueError("i")
                raise ValueError("m")
        def f():
            assert x
        """
    )
    assert [(s.function, s.line) for s in found] == [("A.m.inner", 5), ("A.m", 6), ("f", 8)]


def test_unparsable_file_is_reported_not_raised() -> None:
    result = extract_file("bad.py", "def f(:\n", PROFILE)
    assert result.sites == () and result.parse_error and result.parse_error.startswith("bad.py")


# ----------------------------------------------------------------------- guards


@pytest.mark.parametrize(
    "code, expected",
    [
        (  # if / elif / else: later branches carry the negation of earlier tests
            """
            def f(cfg):
                if cfg.a:
                    pass
                elif cfg.b:
                    pass
                else:
                    raise ValueError("x")
            """,
            [("else", "not (cfg.a)"), ("else", "not (cfg.b)")],
        ),
        (
            """
            def f(cfg):
                if cfg.a:
                    pass
                elif cfg.b == 2:
                    raise ValueError("x")
            """,
            [("else", "not (cfg.a)"), ("if", "cfg.b == 2")],
        ),
        (  # early return earlier in the function
            """
            def f(cfg):
                if cfg.speculative_algorithm in ["NGRAM", None]:
                    return
                raise ValueError("x")
            """,
            [("early-exit", 'not (cfg.speculative_algorithm in ["NGRAM", None])')],
        ),
        (  # a guard against running twice, set by the function itself, never leaves on a launch
            """
            def f(cfg):
                if getattr(cfg, "_done", False):
                    return
                if cfg.a:
                    raise ValueError("x")
                cfg._done = True
            """,
            [("if", "cfg.a")],
        ),
        (  # a plain read may see a value set before the function runs: still a guard
            """
            def f(cfg):
                if cfg._done:
                    return
                if cfg.a:
                    raise ValueError("x")
                cfg._done = True
            """,
            [("early-exit", "not (cfg._done)"), ("if", "cfg.a")],
        ),
        (  # private state the function does not set stays a guard
            """
            def f(cfg):
                if getattr(cfg, "_done", False):
                    return
                raise ValueError("x")
            """,
            [("early-exit", 'not (getattr(cfg, "_done", False))')],
        ),
        (  # continue in a loop body constrains the rest of that body
            """
            def f(cfg):
                for x in cfg.items:
                    if x:
                        continue
                    raise ValueError("x")
            """,
            [("if", "any(not (x) for x in cfg.items)")],  # the loop's checks hold for some item
        ),
        (  # an earlier raise is an exit too
            """
            def f(cfg):
                if cfg.a:
                    raise ValueError("a")
                raise ValueError("b")
            """,
            None,  # checked below for the second site
        ),
        (
            """
            def f(cfg):
                while cfg.n > 1:
                    raise ValueError("x")
            """,
            [("while", "cfg.n > 1")],
        ),
        (
            """
            def f(cfg):
                try:
                    g()
                except (KeyError, OSError) as e:
                    raise ValueError("x") from e
            """,
            [("except", "except (KeyError, OSError)")],
        ),
        (
            """
            def f(cfg):
                match cfg.mode:
                    case "a":
                        pass
                    case "b" | "c":
                        raise ValueError("x")
            """,
            [("else", 'not (case "a")'), ("case", 'case "b" | "c"')],
        ),
        (
            """
            def f(cfg):
                with open(p):
                    if cfg.a:
                        raise ValueError("x")
            """,
            [("if", "cfg.a")],
        ),
    ],
)
def test_guard_paths(code: str, expected: list[tuple[str, str]] | None) -> None:
    found = sites(code)
    if expected is None:
        assert guard_texts(found[1]) == [("prior-raise", "not (cfg.a)")]
    else:
        assert guard_texts(found[-1]) == expected


def test_assert_fires_when_its_test_is_false() -> None:
    site = one("def f(cfg):\n    assert cfg.tp_size > 0, 'tp'\n")
    assert guard_texts(site) == [("assert", "not (cfg.tp_size > 0)")]
    assert RENDER.text(site.guards[0].expr) == "`--tp-size` <= 0"


def test_passed_assert_constrains_later_sites() -> None:
    found = sites("def f(cfg):\n    assert cfg.a\n    raise ValueError('x')\n")
    assert guard_texts(found[1]) == [("prior-raise", "cfg.a")]


@pytest.mark.parametrize(
    "code, lines",
    [
        ("def f(cfg):\n    if cfg.a:\n        raise ValueError('a')\n    raise ValueError('x')\n", [3]),
        ("def f(cfg):\n    assert cfg.a, 'a'\n    raise ValueError('x')\n", [2]),
        ("def f(cfg):\n    if cfg.a: raise ValueError('a')\n    raise ValueError('x')\n", [2]),
        ("def f(cfg):\n    if cfg.a:\n        pass\n    else:\n        g()\n        raise ValueError('a')\n"
         "    raise ValueError('x')\n", [6]),
        ("def f(cfg):\n    if cfg.a:\n        raise ValueError('a')\n    elif cfg.b:\n        raise KeyError('b')\n"
         "    raise ValueError('x')\n", [3, 5]),
    ],
    ids=["if-raise", "assert", "one-line", "else-raise", "elif-chain"],
)
def test_earlier_raise_records_the_line_of_the_raise_it_stands_for(code: str, lines: list[int]) -> None:
    fs = extract_file("m.py", code, PROFILE)
    last = fs.sites[-1]
    assert [fs.priors.line(b, p) for _, b, start, end in last.prior_runs for p in range(start, end)] == lines
    assert set(lines) <= {s.line for s in fs.sites}  # each is a site of the file
    assert FileSites.from_dict(json.loads(json.dumps(fs.as_dict()))) == fs


def test_prior_table_of_an_older_cache_entry_reads_with_unknown_lines() -> None:
    fs = extract_file("m.py", "def f(cfg):\n    assert cfg.a\n    raise ValueError('x')\n", PROFILE)
    old = [[function, guards] for function, guards, _ in fs.priors.as_dict()]  # before lines were recorded
    table = PriorTable.from_dict(old)
    assert table.blocks == fs.priors.blocks and table.line(0, 0) == 0 and fs.priors.line(0, 0) == 2


# -------------------------------------------------------------- config aliases


@pytest.mark.parametrize(
    "code, text",
    [
        ("def f(server_args):\n    if server_args.enable_lora:\n        raise ValueError('x')\n",
         "`--enable-lora` is set"),
        ("def f(sa):\n    cfg = resolving_view(sa)\n    if cfg.x is None:\n        raise ValueError('x')\n",
         "`--x` is unknown"),
        ("def f(server_args):\n    cfg = resolving_view(server_args)\n"
         "    if cfg.x is None:\n        raise ValueError('x')\n",
         "`--x` is not given"),
        ("class ServerArgs:\n    def f(self):\n        view = self._resolved()\n"
         "        if view.tp_size != 2:\n            raise ValueError('x')\n",
         "`--tp-size` is not 2"),
        ("def f(server_args):\n    if getattr(server_args, 'dp_size') > 1:\n        raise ValueError('x')\n",
         "`--dp-size` > 1"),
        ("def f(server_args):\n    b = server_args.backend\n    if b == 'fa3':\n        raise ValueError('x')\n",
         "`--backend` is fa3"),
        ("def f(cfg):\n    if envs.SGLANG_X.get():\n        raise ValueError('x')\n", "`SGLANG_X=1`"),
        ("def f(cfg):\n    if os.environ.get('SGLANG_Y') == 'a':\n        raise ValueError('x')\n", "`SGLANG_Y=a`"),
        ("def f(cfg):\n    if get_bool_env_var('SGLANG_Z'):\n        raise ValueError('x')\n", "`SGLANG_Z=1`"),
        ("def f(cfg):\n    if 'SGLANG_W' in os.environ:\n        raise ValueError('x')\n", "`SGLANG_W` is set"),
        ("def f(cfg):\n    if is_hip():\n        raise ValueError('x')\n", "platform check `is_hip()` is true"),
        ("def f(cfg):\n    if not get_platform().is_hip:\n        raise ValueError('x')\n",
         "platform check `get_platform().is_hip` is false"),
    ],
)
def test_condition_leaves_resolve_to_flags_env_and_platform(code: str, text: str) -> None:
    site = one(code)
    rendered = RENDER.text(site.guards[-1].expr)
    if text.endswith("is unknown"):
        assert "(unknown)" in rendered  # `sa` is not a config name: nothing is guessed
    else:
        assert rendered == text


# ------------------------------------------------------------ condition tables


def test_list_of_tuples_table_gives_one_variant_per_row() -> None:
    site = one(
        """
        def f(server_args):
            cfg = resolving_view(server_args)
            rows = [
                (cfg.a, "does not support --a"),
                (cfg.b == "x", f"does not support b={cfg.b!r}"),
            ]
            for bad, reason in rows:
                if bad:
                    raise ValueError(f"LoRA {reason}.")
        """
    )
    assert site.template.text == "LoRA {reason}."
    assert [dict(v.values)["reason"] for v in site.variants] == [
        "does not support --a", "does not support b={cfg.b!r}"]
    assert [v.template.text for v in site.variants] == [
        "LoRA does not support --a.", "LoRA does not support b={cfg.b!r}."]
    assert [RENDER.text(v.guards[0].expr) for v in site.variants] == ["`--a` is set", "`--b` is x"]


def test_dict_table_grown_under_branches_carries_the_branch_condition() -> None:
    site = one(
        """
        def f(server_args):
            cfg = resolving_view(server_args)
            table = {"--x": cfg.x}
            if cfg.arch == "A":
                table |= {"--y": cfg.y}
            elif cfg.arch == "B":
                table.update({"--z": cfg.z})
            for flag, enabled in table.items():
                if enabled:
                    raise ValueError(f"{flag} is not supported")
        """
    )
    texts = [" and ".join(RENDER.text(g.expr) for g in v.guards) for v in site.variants]
    assert texts == [
        "`--x` is set",
        "`--arch` is A and `--y` is set",
        "`--arch` is not A and `--arch` is B and `--z` is set",
    ]
    assert [v.template.text for v in site.variants] == [
        "--x is not supported", "--y is not supported", "--z is not supported"]


def test_lambda_rows_are_called_in_the_loop() -> None:
    site = one(
        """
        class ServerArgs:
            def check(self):
                rules = [("a", lambda: self.a > 1), ("b", lambda: not self.b)]
                for name, predicate in rules:
                    if predicate():
                        raise ValueError(f"bad {name}")
        """
    )
    assert [RENDER.text(v.guards[0].expr) for v in site.variants] == ["`--a` > 1", "`--b` is not set"]


def test_loop_over_literal_keys_substitutes_the_loop_variable() -> None:
    site = one(
        """
        def f(server_args):
            for key in ("image", "video"):
                if getattr(server_args, key) is None:
                    raise ValueError(f"missing {key}")
        """
    )
    assert [v.template.text for v in site.variants] == ["missing image", "missing video"]
    assert [RENDER.text(v.guards[0].expr) for v in site.variants] == [
        "`--image` is not given", "`--video` is not given"]


def test_module_level_table_referenced_by_name() -> None:
    site = one(
        """
        MODES = (("fast", "x"), ("slow", "y"))
        def f(server_args):
            for mode, why in MODES:
                if server_args.mode == mode:
                    raise ValueError(why)
        """
    )
    assert [v.template.text for v in site.variants] == ["x", "y"]


def test_loop_over_unknown_iterable_stays_one_entry_with_an_unknown() -> None:
    site = one(
        """
        def f(server_args):
            for item in load():
                if item.bad:
                    raise ValueError(f"bad {item}")
        """
    )
    assert site.variants == ()
    assert "(unknown)" in RENDER.text(site.guards[0].expr)


@pytest.mark.parametrize(
    "code, shown",
    [
        # the check sees what earlier passes of the loop wrote, not the literal it started as
        ("seen = {}\nfor f in fields(x):\n    if f in seen:\n        raise ValueError('twice')\n"
         "    seen[f] = 1\n", "a value an earlier pass of a loop may have changed"),
        ("n = 0\nwhile more():\n    if n > 3:\n        raise ValueError('many')\n    n += 1\n",
         "a value an earlier pass of a loop may have changed"),
        ("seen = []\nfor f in fields(x):\n    if f in seen:\n        raise ValueError('twice')\n"
         "    seen.append(f)\n", "a value an earlier pass of a loop may have changed"),
        # changed in place before the check: not the literal either
        ("d = {}\nd[k] = 1\nif 'a' in d:\n    raise ValueError('a')\n", "a value changed in place"),
        ("d = {'a': 1}\nd.pop('a')\nif d:\n    raise ValueError('a')\n", "a value changed in place"),
        ("d = {'a': 1}\ndel d['a']\nif 'a' in d:\n    raise ValueError('a')\n", "a value changed in place"),
    ],
)
def test_names_changed_by_a_loop_or_in_place_are_unknown(code: str, shown: str) -> None:
    site = one(code)
    assert any(shown in u.text for u in unknowns(site_trigger(site))), RENDER.text(site_trigger(site))


@pytest.mark.parametrize(
    "code, fires",
    [
        ("s = {'a', None}\ns.discard(None)\nif None in s:\n    raise ValueError('x')\n", False),
        ("s = set()\ns.add('a')\nif 'a' in s:\n    raise ValueError('x')\n", True),
        ("s = {'a'}\ns.update({'b'})\nif 'b' in s:\n    raise ValueError('x')\n", True),
        ("s = {'a', 'b'}\ns -= {'a'}\nif 'a' in s:\n    raise ValueError('x')\n", False),
        ("n = 2\nn *= 3\nif n == 6:\n    raise ValueError('x')\n", True),
        ("d = {}\nd['a'] = 'x'\nif d.get('a') == 'x':\n    raise ValueError('x')\n", True),
        ("d = {'a': 'x'}\nd['a'] = 'y'\nif d.get('a') == 'x':\n    raise ValueError('x')\n", False),
    ],
)
def test_changes_in_place_with_a_known_result_are_computed(code: str, fires: bool) -> None:
    from analyzers.eval_model import Model
    from analyzers.evaluate import evaluate
    from analyzers.kleene import Truth
    from analyzers.launch import Launch

    truth = evaluate(site_trigger(one(code)), Launch(), Model())
    assert truth is (Truth.TRUE if fires else Truth.FALSE)


def test_a_loop_over_known_rows_carries_its_writes_row_by_row() -> None:
    site = one("errors = []\nfor name in ('a', 'b'):\n    if not cfg.get(name):\n        errors.append(name)\n"
               "if errors:\n    raise ValueError('missing')\n")
    assert not [u for u in unknowns(site_trigger(site)) if "loop" in u.text], RENDER.text(site_trigger(site))


def test_a_literal_read_before_it_changes_keeps_its_value() -> None:
    site = one("d = {}\nif 'a' in d:\n    raise ValueError('a')\nd['a'] = 1\n")
    assert simplify(site_trigger(site)) == FALSE


def test_conditional_message_gives_two_variants() -> None:
    site = one("def f(cfg):\n    raise ValueError('a' if cfg.x else 'b')\n")
    assert [v.template.text for v in site.variants] == ["a", "b"]
    assert [str(v.guards[0].origin) for v in site.variants] == ["message", "message"]


# ---------------------------------------------------------------------- callers


def test_caller_guard_is_added_and_self_binds_to_the_hook_parameter() -> None:
    files = [
        extract_file("hooks.py", textwrap.dedent(
            """
            def check_spec(server_args):
                cfg = resolving_view(server_args)
                if cfg.speculative_adaptive:
                    raise ValueError("no adaptive")
            """), PROFILE),
        extract_file("server_args.py", textwrap.dedent(
            """
            class ServerArgs:
                def check(self):
                    from hooks import check_spec
                    if self.enable_lora:
                        check_spec(self)
                def other(self):
                    if self.tp_size > 1:
                        self.check()
            """), PROFILE),
    ]
    site = with_caller_guards(files)[0].sites[0]
    assert site.guards[0].origin is GuardOrigin.CALLER
    assert RENDER.text(site.guards[0].expr) == "`--enable-lora` is set and `--tp-size` > 1"


def test_several_call_sites_are_or_ed_and_cycles_terminate() -> None:
    fs = extract_file("m.py", textwrap.dedent(
        """
        def leaf(cfg):
            raise ValueError("x")
        def a(cfg):
            if cfg.a:
                leaf(cfg)
            b(cfg)
        def b(cfg):
            if cfg.b:
                leaf(cfg)
            a(cfg)
        """), PROFILE)
    caller = with_caller_guards([fs])[0].sites[0].guards[0]
    # one alternative per call site; the a -> b -> a cycle adds nothing and ends
    assert RENDER.text(caller.expr) == "`--a` is set or `--b` is set"
    assert [alt.split(" when ")[:2] for alt in caller.text.split("; or ")] == [
        ["called from a", "cfg.a, itself called from b"], ["called from b", "cfg.b, itself called from a"],
    ]


def test_unary_minus_and_invert_do_not_recurse() -> None:
    site = one("def f(cfg):\n    if -cfg.a > ~cfg.b:\n        raise ValueError('x')\n")
    assert RENDER.text(site.guards[0].expr) == "-`--a` > ~`--b`"


def test_self_referencing_table_binding_terminates() -> None:
    site = one("def f(cfg):\n    xs = [1]\n    xs = [xs[0], 2]\n    if xs[0] in xs:\n        raise ValueError('x')\n")
    # the table's reference to itself is read once, then stays an unknown leaf
    assert RENDER.text(site.guards[0].expr) == "`xs[0]` (unknown) is one of `xs[0]` (unknown), 2"


@pytest.mark.parametrize(
    "call, expected",
    [
        ("_check(cfg.quantization, tp=cfg.tp_size)", "`--quantization` is fp8 and `--tp-size` > 1"),
        ("_check('fp8', cfg.tp_size)", "`--tp-size` > 1"),  # "fp8" == "fp8" folds away
    ],
)
def test_parameters_are_bound_to_what_every_call_site_passes(call: str, expected: str) -> None:
    fs = extract_file("m.py", textwrap.dedent(
        f"""
        def _check(quantization, tp):
            if quantization == "fp8" and tp > 1:
                raise ValueError("x")
        def hook(server_args):
            cfg = resolving_view(server_args)
            {call}
        """), PROFILE)
    site = with_caller_guards([fs])[0].sites[0]
    assert RENDER.text(site.guards[-1].expr) == expected


def test_parameters_passed_different_values_become_one_variant_each() -> None:
    fs = extract_file("m.py", textwrap.dedent(
        """
        def _check(q):
            if q == "fp8":
                raise ValueError("x")
        def hook(cfg):
            _check(cfg.a)
            _check(cfg.b)
        """), PROFILE)
    site = with_caller_guards([fs])[0].sites[0]
    assert "(unknown)" not in RENDER.text(site_trigger(site))
    assert [RENDER.text(v.guards[-1].expr) for v in site.variants] == ["`--a` is fp8", "`--b` is fp8"]


@pytest.mark.parametrize(
    "prelude, expected",
    [
        ("_D = {b: d for d, b in _B.items()}", "`--attention-backend` is one of flashinfer, trtllm_mha"),
        ("_D = [b for b in _B.values()]", "`--attention-backend` is one of flashinfer, trtllm_mha"),
        ("_D = {b: d for d, b in unknown.items()}", None),  # not computed: stays unknown
    ],
)
def test_module_comprehensions_over_module_literals_are_computed(prelude: str, expected: str | None) -> None:
    fs = extract_file("m.py", textwrap.dedent(f"""
        _B = {{"fp8_e4m3": "flashinfer", "nvfp4": "trtllm_mha"}}
        {prelude}
        def f(cfg):
            if cfg.attention_backend in _D:
                raise ValueError("x")
        """), PROFILE)
    found = RENDER.text(fs.sites[0].guards[-1].expr)
    assert found == expected if expected else "(unknown)" in found


def test_or_of_config_and_view_is_an_alias() -> None:
    site = one("def f(server_args, cfg=None):\n    cfg = cfg or resolving_view(server_args)\n"
               "    if cfg.pp_size != 1:\n        raise ValueError('x')\n")
    assert RENDER.text(site.guards[0].expr) == "`--pp-size` is not 1"


def test_rebinding_a_name_from_itself_keeps_the_old_value() -> None:
    site = one("def f(cfg):\n    w = cfg.width\n    w = int(w)\n    if w < 1:\n        raise ValueError('x')\n")
    assert RENDER.text(site.guards[-1].expr) == "`--width` < 1"  # after: int() did not raise


_MANY_IFS = "\n    ".join(f"if cfg.c{i}:\n        x = 'b{i}'" for i in range(20))


@pytest.mark.parametrize("body, expected", [
    ("if cfg.c:\n        x = 'b'", "(b if `--c` is set, else `--a`) is z"),
    ("if cfg.c:\n        x = 'b'\n    else:\n        x = 'z'", "`--c` is not set"),  # a choice of constants: its test
    ("if cfg.c:\n        pass\n    else:\n        x = 'd'", "(`--a` if `--c` is set, else d) is z"),
    ("if cfg.c:\n        x = 'b'\n    elif cfg.e:\n        x = 'd'",
     "(b if `--c` is set, else (d if `--e` is set, else `--a`)) is z"),
    ("if cfg.c:\n        if cfg.e:\n            x = 'b'",
     "(b if `--c` is set and `--e` is set, else `--a`) is z"),
    ("if cfg.c:\n        x = 'b'\n        return", "`--a` is z"),  # a branch that leaves does not reach the join
    ("if cfg.c:\n        x = 'b'\n    else:\n        return", "never"),  # only the if branch reaches it
    ("if cfg.c:\n        x = 'b'\n    x = x.lower()", "(b.lower() if `--c` is set, else `--a`.lower()) is z"),
    # the test is read before the branch rebinds the name
    ("if x is None:\n        x = 'b'", "(b if `--a` is not given, else `--a`) is z"),
    ("match cfg.m:\n        case 'q':\n            x = 'b'", "(b if `--m` is q, else `--a`) is z"),
    # a tuple bound in one branch (a table) joins like any value (sglang 0.4.10 PortArgs.init_new)
    ("if cfg.c:\n        x = ('h', 1)\n    else:\n        x = cfg.a.split(':')",
     '(h, 1 if `--c` is set, else `--a`.split(":")) is z'),
    ("for i in items:\n        x = 'b'", "a value computed in a loop (unknown) is z"),
    ("while cfg.c:\n        x = 'b'", "a value computed in a loop (unknown) is z"),
    ("try:\n        x = 'b'\n    except ValueError:\n        pass",
     "a value set where the code catches errors (unknown) is z"),
    ("try:\n        x = 'b'\n    except ValueError:\n        return", "never"),  # reached only if the body ran
    ("try:\n        pass\n    except ValueError:\n        x = 'b'",
     "a value set while the code handles an error (unknown) is z"),
    (_MANY_IFS, "(b19 if `--c19` is set, else (b18 if `--c18` is set, else (b17 if `--c17` is set, "
                "else (b16 if `--c16` is set, else a value chosen between more than 8 values (unknown))))) is z"),
])
def test_a_local_rebound_in_branches_has_their_merged_value_where_they_join(body: str, expected: str) -> None:
    found = sites(f"def f(cfg):\n    x = cfg.a\n    {body}\n    if x == 'z':\n        raise ValueError('v')\n")
    assert RENDER.text(found[-1].guards[-1].expr) == expected


def test_a_local_rebound_in_a_branch_is_that_value_inside_it() -> None:
    site = one("def f(cfg):\n    x = cfg.a\n    if cfg.c:\n        x = 'b'\n"
               "        if x == 'z':\n            raise ValueError('v')\n")
    assert RENDER.text(site.guards[-1].expr) == "never"


def test_a_local_whose_value_is_too_large_to_copy_into_each_use_is_unknown() -> None:
    total = ", ".join(f"cfg.a{i} + 1" for i in range(200))  # sglang 0.5.23 expert_pack_hook: 43,000 characters
    site = one(f"def f(cfg):\n    x = max({total})\n    if x > 1:\n        raise ValueError('v')\n")
    assert RENDER.text(site.guards[-1].expr) == "`x (a value of more than 400 terms)` (unknown) > 1"


def test_an_adjustment_from_a_local_rebound_under_a_condition_has_its_merged_value() -> None:
    # sglang 0.5.23 overrides.py `_a2a_backend_overrides`: unchanged unless waterfill asks for it
    value = "(d if `--w` is set and `--b` is not one of d, m, else `--b`)"
    assert _adjusted("""
        def _o(view):
            b = view.b
            if view.w and b not in ("d", "m"):
                b = "d"
            if b != view.b:
                view.b = b
        """) == [("b", value, f"{value} is not `--b`")]


def test_constants_imported_from_another_analysed_file_are_resolved() -> None:
    files = [
        extract_file("pkg/choices.py", "SUPPORTED = ('a', 'b')\n", PROFILE),
        extract_file("pkg/hook.py", textwrap.dedent(
            """
            from pkg.choices import SUPPORTED
            def check(cfg):
                if cfg.arch not in SUPPORTED:
                    raise ValueError("x")
            """), PROFILE),
    ]
    site = with_caller_guards(files)[1].sites[0]
    assert RENDER.text(site.guards[0].expr) == "`--arch` is not one of a, b"


def test_bare_raise_outside_except_is_a_runtime_error() -> None:
    site = one("def f():\n    raise\n")
    assert (site.exception, site.template.text) == ("RuntimeError", "No active exception to reraise")


def test_method_of_a_flag_value_reads_the_flag() -> None:
    site = one("def f(cfg):\n    if 'llama' in cfg.model_path.lower():\n        raise ValueError('x')\n")
    (ref,) = refs(site.guards[0].expr)
    assert (ref.kind, ref.name) == (RefKind.FLAG, "model_path")


@pytest.mark.parametrize(
    "body, templates",
    [
        ("msg = 'a'\n    if cfg.c:\n        msg += ' b'\n    raise ValueError(msg)", ["a b", "a"]),
        ("if cfg.c:\n        msg = 'a'\n    else:\n        msg = 'b'\n    raise ValueError(msg)", ["a", "b"]),
        ("msg = 'a'\n    msg = msg + 'x'\n    raise ValueError(msg)", None),
    ],
)
def test_message_variables_assigned_under_conditions_give_one_rendering_each(body: str, templates) -> None:
    site = one(f"def f(cfg):\n    {body}\n")
    if templates is None:
        assert (site.template.text, site.variants) == ("ax", ())
    else:
        assert [v.template.text for v in site.variants] == templates


def test_loop_variable_as_the_whole_message_stays_a_hole_filled_per_row() -> None:
    site = one(
        """
        MODES = (("fast", "x"), ("slow", "y"))
        def f(server_args):
            for mode, why in MODES:
                if server_args.mode == mode:
                    raise ValueError(why)
        """
    )
    assert site.template.text == "{why}"
    assert [v.template.text for v in site.variants] == ["x", "y"]


def test_rebinding_keeps_keyword_argument_names() -> None:
    site = one("def f(cfg):\n    x = cfg.a\n    x = g(x=x)\n    if x:\n        raise ValueError('v')\n")
    # the argument's value is substituted, its keyword `x=` is not
    call = Apply("g", (Apply(KEYWORD, (Const("x"), Ref(RefKind.FLAG, "a", "cfg.a")), "x"),), "g(x=cfg.a)")
    assert site.guards[0].expr == Truthy(call)


@pytest.mark.parametrize("name, unknown_guard", [
    ("_handle_x", True),  # private, called from code we do not read: when it runs is unknown
    ("handle_x", False),  # public: an entry point others call
    ("__post_init__", False),  # run by the dataclass machinery
])
def test_adjustment_in_a_function_nothing_analysed_calls(name, unknown_guard) -> None:
    fs = extract_file("m.py", f"def {name}(cfg):\n    cfg.a = 1\n", PROFILE)
    adj = with_caller_guards([fs])[0].adjustments[0]
    assert any(unknowns(g.expr) for g in adj.guards) is unknown_guard


def test_adjustment_in_a_called_private_function_has_the_callers_guard() -> None:
    fs = extract_file(
        "m.py", "def _h(cfg):\n    cfg.a = 1\n\ndef entry(cfg):\n    if cfg.b:\n        _h(cfg)\n", PROFILE)
    adj = with_caller_guards([fs])[0].adjustments[0]
    assert not any(unknowns(g.expr) for g in adj.guards) and RENDER.text(adj.guards[0].expr) == "`--b` is set"


def _adjusted(src: str) -> list[tuple[str, str, str]]:
    """(field, value, guard) per adjustment, rendered."""
    fs = extract_file("m.py", textwrap.dedent(src), PROFILE)
    return [(a.flag, RENDER.value(a.value), RENDER.text(conj([g.expr for g in a.guards]))) for a in fs.adjustments]


@pytest.mark.parametrize("src, expected", [
    ("""
     @register_post_process
     def _p(view):
         if view.a:
             return {}
         return {"b": 1}
     """, [("b", "1", "`--a` is not set")]),
    ("""
     @register_post_process
     def _p(view):
         declared: Dict[str, Any] = {"b": True}
         if view.c == "x":
             declared["d"] = "y"
         declared.update(e=2)
         return declared
     """, [("b", "true", "always"), ("d", "y", "`--c` is x"), ("e", "2", "always")]),
    ("""
     @_register_for("ArchA", "ArchB")
     def _o(server_args, hf_config):
         cfg = resolving_view(server_args)
         overrides = {}
         if cfg.f is None:
             overrides["f"] = True
         return overrides
     """, [("f", "true", "model property `hf_config.architectures[0]` is one of ArchA, ArchB and `--f` is not given")]),
    ("""
     def _not_registered(view):
         return {"b": 1}
     """, []),
])
def test_provider_decisions_are_adjustments(src, expected) -> None:
    assert _adjusted(src) == expected


@pytest.mark.parametrize(("read", "expected"), [
    # what the provider decided where it did, else the default it reads
    ('declared.get("b", view.b)', "(fast if `--a` is fp8 and `--b` is not given, else `--b`)"),
    ('declared.get("b")', "(fast if `--a` is fp8 and `--b` is not given, else not given)"),
    ('declared.get("c", view.c)', "`--c`"),  # a field it never decided
])
def test_a_provider_reading_back_its_decision_passes_it_on(read: str, expected: str) -> None:
    src = f"""
        def _check(backend):
            if backend == "triton":
                raise ValueError("no triton")
        @register_post_process
        def _p(view):
            declared = {{}}
            if view.a == "fp8":
                if view.b is None:
                    declared["b"] = "fast"
            chosen = {read}
            _check(chosen)
            return declared
    """
    fs = extract_file("m.py", textwrap.dedent(src), PROFILE)
    (call,) = [c for c in fs.calls if c.callee == "_check"]
    assert RENDER.value(call.args[0][1]) == expected


def test_a_decision_on_a_branch_that_returned_is_not_read_back_and_a_local_is_read_as_it_was_set() -> None:
    src = """
        def _check(backend):
            if backend == "triton":
                raise ValueError("no triton")
        @register_post_process
        def _p(view):
            declared = {}
            if view.sink:
                declared["b"] = "sparse"
                return declared
            chosen = "fast"
            declared["b"] = chosen
            chosen = "other"
            picked = declared.get("b", view.b)
            _check(picked)
            return declared
    """
    fs = extract_file("m.py", textwrap.dedent(src), PROFILE)
    (call,) = [c for c in fs.calls if c.callee == "_check"]
    assert RENDER.value(call.args[0][1]) == "fast"


@pytest.mark.parametrize("src, expected", [
    ("""
     def h(server_args):
         cfg = resolving_view(server_args)
         if (x := cfg.a) is not None:
             declare_resolution(server_args, "h", b=x)
     """, [("b", "`--a`", "`--a` is given")]),
    ("""
     def h(server_args):
         if x := envs.SGLANG_X.get():
             declare_resolution(server_args, "h", b=x)
     """, [("b", "`SGLANG_X`", "`SGLANG_X=1`")]),
])
def test_a_walrus_in_a_test_is_its_value(src, expected) -> None:
    assert _adjusted(src) == expected


@pytest.mark.parametrize("src, expected", [
    # a local the setter declares: a nested writer's setattr at each call, with its arguments
    ("""
     def h(server_args):
         cfg = resolving_view(server_args)
         config = make_config()

         def _set(phase, key, value):
             setattr(getattr(config, phase), key, value)

         if cfg.off:
             _set("decode", "backend", "disabled")
         for phase, items in cfg.raw.items():
             _set(phase, "backend", items)
         declare_resolution(server_args, "h", c=config)
     """, [("c.decode.backend", "disabled", "`--off` is set"), ("c", "`make_config()`", "always")]),
    # a copy of the record with one field changed
    ("""
     def h(server_args):
         cfg = resolving_view(server_args)
         if cfg.pp > 1:
             declare_resolution(server_args, "h", c=with_phase(cfg.c, "prefill", backend="disabled"))
     """, [("c.prefill.backend", "disabled", "`--pp` > 1")]),
    # not a copy of the same setting: the setting's own value
    ("""
     def h(server_args):
         cfg = resolving_view(server_args)
         declare_resolution(server_args, "h", c=with_phase(cfg.d, "prefill", backend="disabled"))
     """, [("c", "with_phase(`--d`, prefill, backend=disabled)", "always")]),
])
def test_fields_of_a_record_setting_are_adjusted_one_by_one(src, expected) -> None:
    assert _adjusted(src) == expected


@pytest.mark.parametrize("src, expected", [
    # built by subscript assignment under their own guards; `if fields:` adds nothing
    ("""
     def h(server_args):
         cfg = resolving_view(server_args)
         fields = {}
         if cfg.r is None:
             fields["r"] = 2.0
         if cfg.s:
             fields["t"] = None
         if fields:
             declare_resolution(server_args, "h", **fields)
     """, [("r", "2.0", "`--r` is not given"), ("t", "not given", "`--s` is set")]),
    # a loop over literal names binds the key per row; a dict of constants is looked up
    ("""
     def h(server_args):
         aliases = {"old": "new"}
         renamed = {}
         for attr in ("a", "b"):
             v = getattr(server_args, attr, None)
             if v in aliases:
                 renamed[attr] = aliases[v]
         if renamed.get("b") == "new":
             renamed["b"] = "other"
         if renamed:
             declare_resolution(server_args, "h", **renamed)
     """, [("a", "{'old': 'new'}[`--a`]", "`--a` is old"), ("b", "{'old': 'new'}[`--b`]", "`--b` is old")]),
    # a key not known statically: nothing is modelled
    ("""
     def h(server_args, k):
         d = {}
         d[k] = 1
         declare_resolution(server_args, "h", **d)
     """, []),
])
def test_setter_splat_of_a_built_dict_adjusts_each_item(src, expected) -> None:
    assert _adjusted(src) == expected


def test_a_registered_provider_runs_on_every_launch() -> None:
    fs = extract_file("m.py", "@register_post_process\ndef _p(view):\n    return {'b': 1}\n", PROFILE)
    assert fs.registered == ("_p",)
    adj = with_caller_guards([fs])[0].adjustments[0]
    assert not any(unknowns(g.expr) for g in adj.guards)


def test_one_line_suites_are_walked() -> None:
    fs = extract_file("m.py", "def f(cfg):\n    if cfg.a: raise ValueError('x')\n    else: assert cfg.b, 'z'\n"
                              "def g(cfg): raise ValueError('y')\n", PROFILE)
    assert [(s.line, s.template.text, [g.text for g in s.guards]) for s in fs.sites] == [
        (2, "x", ["cfg.a"]), (3, "z", ["not (cfg.a)", "not (cfg.b)"]), (4, "y", [])]


def test_tuple_assignment_to_config_fields_adjusts_each() -> None:
    assert _adjusted("""
        def f(cfg):
            if cfg.a is None:
                (cfg.a, cfg.b) = choose(cfg)
            cfg.c, cfg.d = 1, cfg.e
        """) == [("a", "`--choose()`[0]", "`--a` is not given"), ("b", "`--choose()`[1]", "`--a` is not given"),
                 ("c", "1", "always"), ("d", "`--e`", "always")]


# ------------------------------------------------------------ deep and long input

# Shapes nested `n` deep, each guarding a raise; CPython compiles all but the first
# (it refuses more than 200 nested brackets). Every one must give its site or, when
# too deep, a diagnostic for the file, and never crash the process.
_COND = "def f(a, b):\n    if {}:\n        raise ValueError('v')\n"
_DEEP = {
    "5000-term and chain": _COND.format(" and ".join(f"a{i}" for i in range(5000))),
    "5000-term or chain": _COND.format(" or ".join(f"a{i}" for i in range(5000))),
    "30000-term and chain": _COND.format(" and ".join(f"a{i}" for i in range(30000))),
    "5000 chained comparisons": _COND.format(" < ".join(["a"] * 5000)),
    "1000 nots": _COND.format("not " * 1000 + "a"),
    "2950 unary minus": _COND.format("-" * 2950 + "a"),
    "1000-term sum": _COND.format(" + ".join(["a"] * 1000)),
    "600-term power": _COND.format(" ** ".join(["a"] * 600)),
    "1000 nested ternaries": _COND.format(" if b else ".join(["a"] * 1000)),
    "1000 nested lambdas": _COND.format("(" + "lambda: " * 1000 + "a)()"),
    "1000 attributes": _COND.format("a" + ".b" * 1000),
    "1000 calls": _COND.format("a" + "()" * 1000),
    "600 subscripts": _COND.format("a" + "[0]" * 600),
    "1000 elifs": ("def f(a):\n    if a == 0:\n        pass\n"
                   + "".join(f"    elif a == {i}:\n        pass\n" for i in range(1, 1000))
                   + "    else:\n        raise ValueError('v')\n"),
    "1000-part message": "def f(a):\n    if a:\n        raise ValueError(" + " + ".join(["'x'"] * 1000) + ")\n",
    "a binding chain of 1000 names": ("def f(a):\n    x0 = a\n"
                                      + "".join(f"    x{i} = x{i - 1} + 1\n" for i in range(1, 1000))
                                      + "    if x999:\n        raise ValueError('v')\n"),
    "2000 nested parentheses": ("def f(y):\n    x = " + "(" * 2000 + "1" + ")" * 2000
                                + "\n    if y:\n        raise ValueError('deep')\n"),
}
_DEEP_RUNNER = """
import json, sys
from extractor.profile import load_profile
from extractor.positions import statement_spans
from extractor.sites import SiteWalker, extract_file
from extractor.records import FileSites
cases = json.load(sys.stdin)
for name, text in cases.items():
    fs = extract_file("m.py", text, load_profile("sglang"))
    back = FileSites.from_dict(json.loads(json.dumps(fs.as_dict())))  # what the parent process reads
    print(json.dumps([name, len(back.sites), fs.parse_error, back.incomplete]), flush=True)
"""


@pytest.fixture(scope="module")
def deep_results() -> dict[str, tuple[int, str | None, str | None]]:
    """extract_file on every shape, in a child process: a segfault must not kill pytest."""
    import json
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", _DEEP_RUNNER], input=json.dumps(_DEEP), capture_output=True,
                          text=True, cwd=ROOT, check=False)
    found = {name: (n, err, why) for name, n, err, why in map(json.loads, proc.stdout.splitlines())}
    died = (-1, f"child died (exit {proc.returncode}): {proc.stderr[-300:]}", None)
    return {name: found.get(name, died) for name in _DEEP}


# (diagnostic, why the catalog is incomplete): a target file that is not analysed leaves
# the catalog incomplete (`extract` exits 3), whether Python refuses it too or only errcat.
_TOO_DEEP = {
    "2000 nested parentheses": ("m.py: line 2: too many nested parentheses (Python refuses it too)",
                                "line 2: too many nested parentheses (Python refuses it too)"),
    "30000-term and chain": ("m.py: too deeply nested to analyse (depth 30005 > 20000)",
                             "too deeply nested to analyse (depth 30005 > 20000)"),
}


@pytest.mark.parametrize("name", [n for n in _DEEP if n not in _TOO_DEEP])
def test_deep_or_long_code_python_compiles_keeps_its_site(deep_results, name: str) -> None:
    assert deep_results[name] == (1, None, None)


@pytest.mark.parametrize("name", list(_TOO_DEEP))
def test_nesting_past_the_limit_is_a_diagnostic_for_the_file(deep_results, name: str) -> None:
    assert deep_results[name] == (0, *_TOO_DEEP[name])


def test_a_long_and_chain_is_one_flat_conjunction() -> None:
    (site,) = sites(_DEEP["5000-term and chain"])
    (guard,) = site.guards
    assert isinstance(guard.expr, And)
    assert len(guard.expr.args) == 5000 and [r.name for r in refs(guard.expr)][:2] == ["a0", "a1"]


def test_nesting_past_the_ir_limit_becomes_an_unknown_leaf() -> None:
    from extractor.cst_ir import MAX_DEPTH
    from extractor.ir import depth

    (site,) = sites(_DEEP["1000-term sum"])
    assert depth(site.guards[0].expr) <= MAX_DEPTH + 1 and unknowns(site.guards[0].expr)  # + the Truthy


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_file_too_deep_to_parse_leaves_the_rest_of_the_catalog(tmp_path, jobs: str) -> None:
    import json
    import subprocess
    import sys

    src = tmp_path / "src" / "pkg"
    src.mkdir(parents=True)
    (src / "good.py").write_text("def check(x):\n    if x < 0:\n        raise ValueError('negative')\n")
    (src / "deep.py").write_text(_DEEP["2000 nested parentheses"])
    (src / "chain.py").write_text(_DEEP["5000-term and chain"])
    (tmp_path / "p.yaml").write_text("name: tiny\nrepo: example/tiny\ntargets:\n  - pkg/**/*.py\n")
    proc = subprocess.run(
        [sys.executable, "-m", "errcat", "extract", "--path", str(tmp_path / "src"), "--profile",
         str(tmp_path / "p.yaml"), "--out", str(tmp_path / "out"), "--jobs", jobs, "--no-cache"],
        capture_output=True, text=True, cwd=ROOT, check=False)
    # the deep file is not catalogued: the catalog says so and `extract` exits 3 (issue 39)
    assert proc.returncode == 3 and "Traceback" not in proc.stderr, (proc.returncode, proc.stderr[-2000:])
    catalog = json.loads((tmp_path / "out" / "catalog.json").read_text())
    assert sorted(e["source"]["path"] for e in catalog["entries"]) == ["pkg/chain.py", "pkg/good.py"]
    assert [d for d in catalog["diagnostics"] if "pkg/deep.py" in d and "nested" in d]
    assert [i["path"] for i in catalog["incomplete"]] == ["pkg/deep.py"]


def _dies_on_boom(path: str, text: str, profile, imported=()) -> object:
    """extract_file, except that analysing boom.py kills the process (as a segfault would)."""
    import os
    import signal

    if path.endswith("boom.py"):
        os.kill(os.getpid(), signal.SIGKILL)
    return _REAL_EXTRACT(path, text, profile, imported)


_REAL_EXTRACT = extract_file


@pytest.mark.parametrize("jobs", [2, 3])
def test_a_worker_that_dies_loses_only_its_file(tmp_path, monkeypatch, jobs: int) -> None:
    import multiprocessing

    import extractor.sites
    from extractor.incremental import extract_files
    from extractor.source import open_directory

    if multiprocessing.get_start_method() != "fork":
        pytest.skip("the patched extractor reaches workers only when they are forked")
    names = ["a.py", "boom.py", "b.py", "c.py", "d.py"]
    for name in names:
        (tmp_path / name).write_text(f"def f(x):\n    if x:\n        raise ValueError('{name}')\n")
    monkeypatch.setattr(extractor.sites, "extract_file", _dies_on_boom)
    found = extract_files(open_directory(tmp_path), PROFILE, names, jobs=jobs)
    crashed = "analysis crashed its worker process; file skipped"
    assert [(fs.path, len(fs.sites), fs.parse_error, fs.incomplete) for fs in found] == [
        (name, 0, f"{name}: {crashed}", crashed) if name == "boom.py" else (name, 1, None, None) for name in names]


@pytest.mark.parametrize("code, expected", [
    ('def f():\n    """Check it.\n\n    More."""\n    raise ValueError("x")\n', (("f", "Check it."),)),
    ('class C:\n    """Not a function."""\n    def m(self):\n        """Method."""\n', (("C.m", "Method."),)),
    # a summary that wraps is read whole, up to its first sentence's end
    ('def f():\n    """Fail fast on an endpoint the\n    publisher cannot serve. Then more."""\n',
     (("f", "Fail fast on an endpoint the publisher cannot serve."),)),
    ("def f():\n    pass\n", ()),
    ("def f(:\n", ()),  # Python cannot parse it: no docstrings, no crash
])
def test_file_records_each_docstrings_first_sentence(code, expected):
    from extractor.records import FileSites

    found = extract_file("m.py", code, PROFILE)
    assert found.docstrings == expected and FileSites.from_dict(found.as_dict()) == found


@pytest.mark.parametrize("body, comment", [
    ("    # pool is per rank\n    if cfg.a:\n        raise ValueError('x')\n", "pool is per rank"),
    ("    if cfg.a:  # beside the test\n        raise ValueError('x')  # and beside the raise\n",
     "beside the test and beside the raise"),
    ("    if cfg.a:\n        # inside\n        raise ValueError('x')\n", "inside"),
    ("    # about y\n    y = 1\n    assert cfg.a, 'x'\n", ""),
    ("    assert cfg.a, 'x'  # noqa: E501\n", ""),
])
def test_sites_carry_the_comments_at_their_check(body, comment):
    from extractor.profile import load_profile
    from extractor.sites import extract_file
    found = extract_file("p/check.py", "def check(cfg):\n" + body, load_profile("sglang"))
    assert [s.comment for s in found.sites] == [comment]


@pytest.mark.parametrize(
    "adds, text",
    [
        # rows appended under conditions: the list is non-empty where one of them held
        (["if cfg.a:\n        missing.append('a')", "if cfg.b:\n        missing.append('b')"],
         "`--a` is set or `--b` is set"),
        (["missing.append('a')"], "always"),  # an unconditional row: never empty
        (["missing.append(cfg.a)", "if cfg.b:\n        missing.append(cfg.b)"], "always"),  # rows of reads
        (["if cfg.b:\n        missing.append(cfg.b)"], "`--b` is set"),
        ([], "never"),
    ],
)
def test_a_list_of_reasons_is_non_empty_where_a_row_was_added(adds: list[str], text: str) -> None:
    body = "".join(f"    {a}\n" for a in adds)
    source = f"def f(cfg):\n    missing = []\n{body}    if missing:\n        raise ValueError(', '.join(missing))\n"
    (fs,) = [extract_file("m.py", source, PROFILE)]
    (site,) = fs.sites
    cond = conj([g.expr for g in site.guards])
    said: dict[Expr, str] = {TRUE: "always", FALSE: "never"}
    assert said.get(cond, RENDER.text(cond)) == text


def test_a_reader_call_reads_the_field_with_its_fallback() -> None:
    # sglang 0.5.23 kv_cache_hook.py:428: `resolution_result`, the profile's `config.readers`
    site = one("def f(server_args):\n    if not (0 < resolution_result(server_args, 'ratio') <= 1.0):\n"
               "        raise ValueError('x')\n")
    assert RENDER.text(site.guards[-1].expr) == (
        "`--ratio` (its declared fallback while unset) <= 0 or `--ratio` (its declared fallback while unset) > 1.0")


@pytest.mark.parametrize("handler, fires, caught", [
    # sglang 0.5.23 parallel_hook.py:594: the ValueError's message passed on as an AssertionError
    ("except ValueError as exc:\n        raise AssertionError(str(exc)) from exc", True, False),
    ("except ValueError as exc:\n        raise AssertionError(f'bad: {exc}') from exc", True, True),  # reworded
    ("except (KeyError, ValueError):\n        return", False, True),  # swallowed: no error at all
    ("except LookupError:\n        return", False, False),  # not a ValueError
    ("except Exception:\n        raise", True, False),  # re-raised: the user sees the ValueError
])
def test_a_raise_the_try_catches_is_the_handler_s_business(handler: str, fires: bool, caught: bool) -> None:
    found = sites("def f(cfg):\n    try:\n        if cfg.tp < 0:\n            raise ValueError('bad tp')\n"
                  f"        g(cfg)\n    {handler}\n")
    inner = next(s for s in found if s.line == 4)
    assert (RENDER.text(site_trigger(inner)) == "never") is caught
    handler_sites = [s for s in found if s.line > 5]
    if fires:  # the handler's raise: when the body's own raise fires, or a call raises
        raised = "ValueError" if "ValueError as" in handler else "Exception"
        assert RENDER.text(site_trigger(handler_sites[0])) == \
            f"`--tp` < 0 or `the try block raises {raised}` is true/non-empty"


def test_a_local_read_as_a_condition_is_unknown_past_the_same_size() -> None:
    test = " and ".join(f"cfg.a{i} > {i}" for i in range(150))
    site = one(f"def f(cfg):\n    errors = []\n    if {test}:\n        errors = ['e']\n"
               "    if errors:\n        raise ValueError('v')\n")
    assert RENDER.text(site.guards[-1].expr) == "`errors (a value of more than 400 terms)` (unknown) is true/non-empty"


@pytest.mark.parametrize("rebind", ["errors = ['e']", "errors.append('e')"])
def test_a_list_rebound_or_grown_in_a_branch_is_non_empty_only_there(rebind: str) -> None:
    site = one(f"def f(cfg):\n    errors = []\n    if cfg.a > 0:\n        {rebind}\n    if errors:\n"
               "        raise ValueError('v')\n")
    assert RENDER.text(site.guards[-1].expr) == "`--a` > 0"


def test_a_caught_raise_after_an_earlier_raise_keeps_its_earlier_raises() -> None:
    # sglang 0.5.23 cli/serve_backends.py: the walk read the earlier raises before they were indexed
    found = sites("def f(cfg):\n    try:\n        if cfg.a:\n            raise KeyError('a')\n"
                  "        if cfg.b:\n            raise ValueError('b')\n    except ValueError as e:\n"
                  "        raise RuntimeError(str(e))\n")
    handler = next(s for s in found if s.line == 8)
    assert RENDER.text(site_trigger(handler)).startswith("(`--a` is not set and `--b` is set) or")


def test_an_env_var_the_code_sets_is_an_adjustment() -> None:
    assert _adjusted("""
     def h(server_args):
         cfg = resolving_view(server_args)
         if cfg.a and not envs.SGLANG_X.is_set():
             envs.SGLANG_X.set("python")
     """) == [("env:SGLANG_X", "python", "`--a` is set and `SGLANG_X` is not set")]


# ------------------------------------------------------- device queries that raise


@pytest.mark.parametrize(("code", "lines"), [
    # a statement's own query: a site where the query fails, and an earlier raise after it
    ("def f(cfg):\n    major, _ = torch.cuda.get_device_capability()\n    assert cfg.x, 'after'\n", [2, 3]),
    ("def f(cfg):\n    major = torch.cuda.get_device_capability()[0]\n", [2]),
    ("def f(cfg):\n    torch.cuda.get_device_capability()\n", [2]),
    # inside a condition it may not run (``a and query()``): no site
    ("def f(cfg):\n    if cfg.a and torch.cuda.get_device_capability()[0] >= 10:\n        pass\n", []),
    # another function of the same name is not the device query
    ("def f(cfg):\n    major, _ = get_device_capability()\n", []),
])
def test_a_device_query_that_raises_without_the_device_is_a_site(code: str, lines: list[int]) -> None:
    found = sites(code)
    assert [s.line for s in found] == lines
    if found:
        first = found[0]
        assert (first.exception, first.template.text) == ("AssertionError", "Torch not compiled with CUDA enabled")
        assert [g.text for g in first.guards] == ["torch.cuda.get_device_capability() fails"]
        assert first.query == "torch.cuda.get_device_capability"
        assert RaiseSite.from_dict(first.as_dict()).query == first.query  # kept by the per-file cache
    if len(found) > 1:
        assert ("prior-raise", "not (torch.cuda.get_device_capability() fails)") in guard_texts(found[1])


_CONVERTS = ("def f(cfg):\n    try:\n        base = float(cfg.r[1])\n        n = int(cfg.r[2])\n"
             "    except (ValueError, IndexError):\n        assert False, 'numbers please'\n"
             "    assert base > 1, 'base'\n")


def test_a_try_block_that_only_converts_raises_what_its_conversions_raise() -> None:
    """sglang 0.5.23 ``validate_buckets_rule``: the handler fires where a conversion fails."""
    handler = checks(_CONVERTS)[0]
    assert RENDER.text(handler.guards[0].expr) == (
        "computing float(`--r`[1]), int(`--r`[2]) raises ValueError or IndexError")


def test_locals_a_try_block_binds_keep_their_values_when_every_handler_asserts_false() -> None:
    later = sites(_CONVERTS)[-1]
    assert RENDER.text(later.guards[-1].expr) == "`--r`[1] <= 1"


@pytest.mark.parametrize(("body", "expected"), [
    ("x = cfg.r[1]\n        f(x)", "the try block raises ValueError"),  # a call may raise anything
    ("x = cfg.r[1]\n        x = float(x)", "the try block raises ValueError"),  # bound twice
    ("v = [float(x) for x in cfg.r[1:]]", "computing float() of each item of `--r`[1:] raises ValueError"),
])
def test_what_a_try_block_raises_is_computed_only_where_it_only_binds_values(body: str, expected: str) -> None:
    site = checks(f"def f(cfg):\n    try:\n        {body}\n    except ValueError:\n        raise KeyError('k')\n")[0]
    assert expected in RENDER.text(site.guards[0].expr)


@pytest.mark.parametrize(("decorator", "guard"), [
    ('@register_model_override("X")', "model property `hf_config.architectures[0]` is X"),
    ('@register_model_override_predicate(lambda arch: "Step3p5" in arch)',  # sglang 0.5.23 _step3p_overrides
     "Step3p5 is in model property `hf_config.architectures[0]`"),
    ("@register_model_override_predicate(lambda *a: True)", "is true/non-empty"),  # not one argument: unknown
])
def test_a_model_override_runs_for_the_architectures_its_registration_names(decorator: str, guard: str) -> None:
    source = (f"{decorator}\ndef _o(server_args, hf_config):\n"
              "    if server_args.tp_size > 2:\n        raise ValueError('v')\n")
    site = extract_file("python/sglang/srt/arg_groups/overrides.py", source, load_profile("sglang")).sites[0]
    assert guard in RENDER.text(site.guards[0].expr)


ITEM_LOOP = """
import json
def act(cfg):
    for p in cfg.lora_paths:
        p = p.strip()
        if p.startswith("{") and p.endswith("}"):
            obj = json.loads(p)
            assert "lora_path" in obj, "json without lora_path"
"""


@pytest.mark.parametrize(("paths", "fires"), [
    (("a",), "false"),
    ((" {\"x\": 1}",), "true"),  # the item as the loop rebinds it (stripped)
    (("{\"lora_path\": 1}",), "false"),
    (("a", "{\"x\": 1}"), "true"),  # some item
])
def test_a_check_inside_a_loop_over_a_settings_items_fires_for_some_item(paths, fires) -> None:
    from analyzers.evaluate import evaluate
    from analyzers.launch import Launch
    from tests.test_evaluate import MODEL
    (site,) = checks(ITEM_LOOP)
    trigger = site_trigger(site)
    assert evaluate(trigger, Launch({"lora_paths": paths}), MODEL) == fires
    assert Renderer().text(trigger).startswith("for some item `p` of `--lora-paths`: `p`.strip().startswith(\"{\")")


def test_a_loop_over_a_parameter_is_over_the_items_its_call_sites_bind_it_to() -> None:
    from extractor.ir import SOME_ITEM, Apply, walk
    from extractor.records import parameter_ref
    (site,) = sites("""
        def act(values):
            for p in values:
                if p.startswith("{"):
                    raise ValueError("json")
    """)
    (some,) = [n for n in walk(site_trigger(site)) if isinstance(n, Apply) and n.fn == SOME_ITEM]
    assert some.args[0] == parameter_ref("values")


@pytest.mark.parametrize(("imports", "expected"), [
    ("import granian", "`--http2` is set and platform check `installed(granian)` is false"),
    ("from flashinfer.mamba import x", "`--http2` is set and platform check `installed(flashinfer)` is false"),
    ("from sglang.srt.x import y", "never"),  # the program's own package is there
])
def test_a_try_block_of_imports_raises_where_a_package_is_not_installed(imports: str, expected: str) -> None:
    (site,) = sites(f"""
        def f(cfg):
            if cfg.http2:
                try:
                    {imports}
                except ImportError:
                    raise ValueError("needs the package")
    """, path="python/sglang/srt/m.py")
    assert Renderer().text(site_trigger(site)) == expected


@pytest.mark.parametrize(("src", "lines"), [
    ("def f(cfg):\n    envs.SGLANG_X.set(1)\n", [2]),
    ("def f(cfg):\n    x = 1\n    envs.SGLANG_X.set(\n        1)\n", [3]),
    ("def f(cfg):\n    if cfg.b:\n        y = (\n            envs.SGLANG_X.set(1))\n", [4]),  # inside a statement
    ("def f(cfg):\n    y = (\n        envs.SGLANG_X.set(1))\n", [3]),
])
def test_an_adjustment_made_by_a_call_is_at_the_calls_own_line(src, lines) -> None:
    assert [a.line for a in extract_file("m.py", src, PROFILE).adjustments] == lines


def test_a_handler_that_swallows_a_raise_is_named_by_its_own_line() -> None:
    site = one("""
        def f(cfg):
            try:
                raise ValueError("x")
            # a comment

            except (
                ValueError
            ):
                pass
        """)
    assert any(g.text == "caught by `except (ValueError)` at line 7" for g in site.direct), site.direct


def test_a_set_of_a_derived_setting_is_that_setting_not_one_named_set() -> None:
    code = ("class ServerArgs:\n    def check(self):\n        found = set(self._backends())\n"
            "        assert found <= {'triton'}, 'x'\n")
    (site,) = extract_file("server_args.py", code, PROFILE).sites
    no_options = Renderer(lambda dest: None)
    assert no_options.text(site_trigger(site)) == "the code's “backends” is not a subset of triton"


@pytest.mark.parametrize(
    "call, shown",
    [
        ("read_cfg(path=cfg.p)", "a value returned by `read_cfg` unless that fails"),  # by the function it calls
        ("_read(cfg)", "a value set where the code catches errors"),  # a private helper: where it was set
        ("cfg.p + 1", "a value set where the code catches errors"),
    ],
)
def test_a_local_a_try_block_binds_says_where_it_comes_from(call: str, shown: str) -> None:
    code = (f"def f(cfg):\n    cap = None\n    try:\n        cap = {call}\n    except Exception:\n        pass\n"
            "    if cfg.x > cap:\n        raise ValueError('v')\n")
    (site,) = extract_file("m.py", code, PROFILE).sites
    assert RENDER.text(site_trigger(site)) == f"`--x` > {shown} (unknown)"


@pytest.mark.parametrize(("raised", "template", "note"), [
    # sglang 0.5.23 config.py:98: the caught message, now a WatermarkConfigError
    ("raise ConfigError(str(err)) from err", "{<caught exception>}",
     "raises the caught ValueError's message again as ConfigError"),
    ("raise", "{<caught exception>}", "re-raises the caught exception; its message is not known statically"),
    ("raise ConfigError(f'bad config: {err}') from err", "bad config: {err}", None),  # words of its own
])
def test_a_handler_raising_the_caught_message_again_has_the_caught_template(raised: str, template: str,
                                                                            note: str | None) -> None:
    found = sites(f"def f(cfg):\n    try:\n        g(cfg)\n    except ValueError as err:\n        {raised}\n")
    (site,) = [s for s in found if s.line == 5]
    assert site.template.text == template
    assert note is None or note in site.notes
