"""Config helpers: which functions `extract_file` records as helpers, and how
`extractor.inline` puts what they return in place of their calls."""
from __future__ import annotations

import textwrap

import pytest

from analyzers.trigger import Renderer
from errcat.pipeline import extract_sites
from extractor.inline import helper_paths, inline_helpers, wanted
from extractor.ir import IF, STATED_OR, And, Apply, Compare, Const, Or, Ref, RefKind, Seq, Truthy, refs, simplify, walk
from extractor.profile import load_profile
from extractor.records import FileSites
from extractor.sites import extract_file
from extractor.snapshot import Snapshot, SourceKind, blob_id

PROFILE = load_profile("sglang")  # config params: server_args, args, cfg, view
RENDER = Renderer()


def extract(code: str, path: str = "m.py") -> FileSites:
    return extract_file(path, textwrap.dedent(code), PROFILE)


def helpers(code: str) -> dict:
    return dict(extract(code).helpers)


def flag(name: str, owner: str = "cfg") -> Ref:
    return Ref(RefKind.FLAG, name, f"{owner}.{name}")


def trigger(fs: FileSites) -> str:
    """The rendered guard of the only site of `fs`."""
    [site] = fs.sites
    [guard] = site.guards
    return RENDER.text(guard.expr)


CHECK = """
def check(cfg):
    if {call}:
        raise ValueError("bad")
"""


# ------------------------------------------------------------- which functions are helpers


@pytest.mark.parametrize(
    "code, qualname, value",
    [
        pytest.param("def f(cfg):\n    return cfg.a > 1\n", "f", Compare(">", flag("a"), Const(1)), id="plain-return"),
        pytest.param("def f(cfg):\n    n = cfg.a\n    m: int = 2\n    return n > m\n", "f",
                     Compare(">", flag("a"), Const(2)), id="locals-then-return"),
        pytest.param("def f(cfg):\n    from pkg import mod\n    import os\n    return cfg.mode == 'x'\n", "f",
                     Compare("==", flag("mode"), Const("x")), id="lazy-import-then-return"),
        pytest.param("def f(cfg):\n    '''Docstring.'''\n    return cfg.a\n", "f", flag("a"), id="docstring"),
        pytest.param("def f(cfg):\n    return cfg.a, cfg.b\n", "f", Seq((flag("a"), flag("b"))), id="tuple-return"),
        pytest.param("def f(server_args):\n    return server_args.a\n", "f", flag("a", "server_args"),
                     id="param-server_args"),
        pytest.param("def f(args):\n    return args.a\n", "f", flag("a", "args"), id="param-args"),
        pytest.param("class ServerArgs:\n    def m(self):\n        return self.a > 1\n", "ServerArgs.m",
                     Compare(">", flag("a", "self"), Const(1)), id="config-method-self-only"),
        pytest.param("def f(cfg):\n    return 3\n", "f", Const(3), id="constant"),
    ],
)
def test_a_function_of_the_config_alone_that_returns_a_value_is_a_helper(code, qualname, value):
    assert helpers(code) == {qualname: value}


@pytest.mark.parametrize(
    "code",
    [
        pytest.param("def f(cfg, x):\n    return cfg.a > 1\n", id="two-params"),
        pytest.param("def f(x):\n    return x.a > 1\n", id="param-not-a-config-name"),
        pytest.param("class Other:\n    def m(self):\n        return self.a > 1\n", id="method-of-non-config-class"),
        pytest.param("class ServerArgs:\n    def m(self, k):\n        return self.a > k\n",
                     id="config-method-with-arg"),
        pytest.param("def f(cfg):\n    log(cfg)\n    return cfg.a > 1\n", id="call-for-effect"),
        pytest.param("def f(cfg):\n    if cfg.b:\n        return True\n    return cfg.a > 1\n", id="if-statement"),
        pytest.param("def f(cfg):\n    for x in cfg.a:\n        pass\n    return cfg.b\n", id="loop"),
        pytest.param("def f(cfg):\n    n = cfg.a\n    n += 1\n    return n\n", id="augmented-assignment"),
        pytest.param("def f(cfg):\n    return foo.bar\n", id="returns-unknown"),
        pytest.param("def f(cfg):\n    return cfg\n", id="returns-the-config-itself"),
        pytest.param("def f(cfg):\n    return\n", id="bare-return"),
        pytest.param("def f(cfg):\n    raise ValueError('x')\n", id="no-return"),
        pytest.param("def f(cfg):\n    n = cfg.a\n    return n\n    m = 2\n", id="return-not-last"),
        pytest.param("def resolved_view(cfg):\n    return cfg.a > 1\n", id="profile-view-function"),
        pytest.param("def ResolvedView(cfg):\n    return cfg.a > 1\n", id="profile-view-class-name"),
        pytest.param("async def f(cfg):\n    return cfg.a > 1\n", id="async-def"),
        pytest.param("def f(cfg):\n    cfg = load()\n    return cfg.a > 1\n", id="config-param-rebound"),
        pytest.param("def f(cfg):\n    x = yield\n    return cfg.a\n", id="generator"),
    ],
)
def test_other_functions_are_not_helpers(code):
    assert helpers(code) == {}


def test_a_one_line_helper_is_a_helper_too():
    assert helpers("def f(cfg): return cfg.a > 1\n") == {"f": Compare(">", flag("a"), Const(1))}


def test_helpers_round_trip_through_the_file_record():
    fs = extract("def f(cfg):\n    return cfg.a > 1\n")
    assert FileSites.from_dict(fs.as_dict()).helpers == fs.helpers


# ------------------------------------------------------------------------- inlining


@pytest.mark.parametrize(
    "code, text",
    [
        pytest.param(
            "def enabled_of(cfg):\n    return cfg.dp_size > 1 or cfg.mode == 'scale'\n"
            + CHECK.format(call="enabled_of(cfg)"),
            "`--dp-size` > 1 or `--mode` is scale", id="helper-call"),
        pytest.param(
            "def inner(cfg):\n    return cfg.a > 1\ndef outer(cfg):\n    return inner(cfg) and cfg.b\n"
            + CHECK.format(call="outer(cfg)"),
            "`--a` > 1 and `--b` is set", id="helper-calling-helper"),
        pytest.param(
            "def size_of(cfg):\n    n = cfg.tp_size * cfg.pp_size\n    return n\n"
            + CHECK.format(call="size_of(cfg) > 8"),
            "`--tp-size` * `--pp-size` > 8", id="helper-as-a-term"),
        pytest.param(
            "def pick(cfg):\n    return (cfg.a, cfg.b)[0]\n" + CHECK.format(call="pick(cfg) > 2"),
            "`--a` > 2", id="tuple-item-folds"),
        pytest.param(
            "class ServerArgs:\n    def use_x(self):\n        return self.x == 'on'\n"
            "    def check(self):\n        if self.use_x():\n            raise ValueError('bad')\n",
            "`--x` is on", id="config-method"),
    ],
)
def test_calls_of_helpers_read_the_flags_they_compute_from(code, text):
    [inlined] = inline_helpers([extract(code)])
    assert trigger(inlined) == text


def test_tuple_item_folds_to_the_picked_item_after_inlining():
    fs = extract("def pick(cfg):\n    return (cfg.a, cfg.b)[1]\n" + CHECK.format(call="pick(cfg) > 2"))
    [inlined] = inline_helpers([fs])
    assert inlined.sites[0].guards[0].expr == Compare(">", flag("b"), Const(2))


@pytest.mark.parametrize(
    "term, folded",
    [
        (Apply("item", (Seq((flag("a"), flag("b"))), Const(0)), "t[0]"), flag("a")),
        (Apply("item", (Seq((flag("a"), flag("b"))), Const(-1)), "t[-1]"), flag("b")),
        (Apply(IF, (Const(True), flag("a"), flag("b")), "a if True else b"), flag("a")),
        (Apply(IF, (Const(False), flag("a"), flag("b")), "a if False else b"), flag("b")),
        # not decidable statically: kept
        (Apply("item", (Seq((flag("a"), flag("b"))), Const(2)), "t[2]"), None),
        (Apply("item", (Seq((flag("a"), flag("b"))), Const(True)), "t[True]"), None),
        (Apply("item", (flag("c"), Const(0)), "c[0]"), None),
        (Apply(IF, (Truthy(flag("c")), flag("a"), flag("b")), "a if c else b"), None),
    ],
)
def test_terms_that_pick_statically_fold(term, folded):
    assert simplify(Compare(">", term, Const(2))) == Compare(">", folded or term, Const(2))


def test_adjustment_guards_are_inlined_too():
    fs = extract("def h(cfg):\n    return cfg.a > 1\ndef f(cfg):\n    if h(cfg):\n        cfg.x = 1\n")
    [inlined] = inline_helpers([fs])
    [adjustment] = inlined.adjustments
    assert adjustment.guards[0].expr == Compare(">", flag("a"), Const(1))


def test_helpers_of_extra_files_are_inlined_but_only_the_target_files_come_back():
    helper = extract("def h(cfg):\n    return cfg.a > 1\n", "lib.py")
    target = extract("from lib import h\n" + CHECK.format(call="h(cfg)"), "target.py")
    inlined = inline_helpers([target], [helper])
    assert [fs.path for fs in inlined] == ["target.py"]
    assert trigger(inlined[0]) == "`--a` > 1"


def test_a_name_defined_with_two_different_bodies_is_left_alone():
    one = extract("def h(cfg):\n    return cfg.a > 1\n", "one.py")
    two = extract("def h(cfg):\n    return cfg.b > 1\n", "two.py")
    target = extract(CHECK.format(call="h(cfg)"), "target.py")
    [inlined] = inline_helpers([target], [one, two])
    assert inlined.sites[0].guards[0].expr == Truthy(Ref(RefKind.FLAG, "h()", "h(cfg)"))


def test_a_name_defined_twice_with_the_same_body_is_inlined():
    one = extract("def h(cfg):\n    return cfg.a > 1\n", "one.py")
    two = extract("def h(cfg):\n    n = cfg.a\n    return n > 1\n", "two.py")  # the same value
    target = extract(CHECK.format(call="h(cfg)"), "target.py")
    [inlined] = inline_helpers([target], [one, two])
    assert trigger(inlined) == "`--a` > 1"


def test_a_call_of_a_local_non_helper_is_not_replaced_by_a_same_named_helper_elsewhere():
    elsewhere = extract("def h(cfg):\n    return cfg.b > 1\n", "b.py")
    target = extract(
        "def h(cfg):\n    if cfg.z:\n        return True\n    return cfg.c > 1\n" + CHECK.format(call="h(cfg)"), "c.py")
    inlined = inline_helpers([target, elsewhere])[0]
    assert [inlined.sites[0].guards[0].expr] == [g.expr for g in target.sites[0].guards]


def test_a_derived_setting_a_branching_function_computes_is_defined_by_an_adjustment():
    # not inlined in the trigger (it stays readable), but the evaluator reads its value
    helper = "def h(cfg):\n    if cfg.z:\n        return True\n    return cfg.c > 1\n"
    fs = extract(helper + CHECK.format(call="h(cfg)"))
    [inlined] = inline_helpers([fs])
    assert inlined.sites[0].guards == fs.sites[0].guards
    [definition] = [a for a in inlined.adjustments if a.derived]
    assert (definition.flag, definition.guards) == ("h()", ())
    assert definition.value == Apply(IF, (Truthy(flag("z")), Const(True), Compare(">", flag("c"), Const(1))),
                                     definition.value.text)  # type: ignore[union-attr]


def test_arguments_passed_by_name_bind_the_parameters_of_that_name():
    fs = extract("def enabled(is_hip, level):\n    if not is_hip:\n        return False\n    return level > 1\n"
                 "def f(cfg):\n    if enabled(level=cfg.a, is_hip=False):\n        cfg.x = 1\n")
    [inlined] = inline_helpers([fs])
    [adjustment] = [a for a in inlined.adjustments if not a.derived]
    [call] = [n for n in walk(adjustment.guards[0].expr) if isinstance(n, Apply) and n.fn == STATED_OR]
    assert call.args[1] == Const(False)  # unless a launch states otherwise, it returns False: is_hip is False


def test_helpers_calling_each_other_terminate_unresolved():
    fs = extract("def p(cfg):\n    return q(cfg)\ndef q(cfg):\n    return p(cfg)\n" + CHECK.format(call="p(cfg)"))
    [inlined] = inline_helpers([fs])
    [guard] = inlined.sites[0].guards
    names = {r.name for r in refs(guard.expr)}
    assert names and names <= {"p()", "q()"}


def test_without_helpers_the_checks_and_adjustments_come_back_unchanged():
    fs = extract(CHECK.format(call="cfg.a > 1"))
    [inlined] = inline_helpers([fs])
    assert (inlined.sites, inlined.adjustments) == (fs.sites, fs.adjustments)


# ----------------------------------------------------------------- finding helper files


@pytest.mark.parametrize(
    "sources, expected",
    [
        ({"t.py": CHECK.format(call="h(cfg)")}, {"h()"}),
        ({"t.py": "def h(cfg):\n    return cfg.a\n" + CHECK.format(call="h(cfg)")}, set()),  # defined here
        ({"t.py": CHECK.format(call="h(cfg)"), "u.py": "def h(cfg):\n    return cfg.a\n"}, set()),  # in another file
        ({"t.py": "def g(cfg):\n    return h(cfg) > 1\n"}, {"h()"}),  # called from a helper
        ({"t.py": "def f(cfg):\n    if h(cfg):\n        cfg.x = 1\n"}, {"h()"}),  # from an adjustment guard
        ({"t.py": CHECK.format(call="cfg.a > 1")}, set()),  # calls nothing
        # from the guard of a call: the called function's checks run under it
        ({"t.py": "def f(cfg):\n    for x in load():\n        if h(cfg):\n            g(cfg)\n"}, {"h()"}),
        ({"t.py": CHECK.format(call="cfg.sub.m()")}, set()),  # a method of a config member: not a helper call
        ({"t.py": CHECK.format(call="plain(cfg.a) > 1")}, {"plain"}),  # a plain function: its return value
    ],
)
def test_wanted_names_the_helpers_called_but_defined_nowhere(sources, expected):
    assert wanted([extract(src, path) for path, src in sources.items()]) == expected


AVAILABLE = ["python/pkg/lib.py", "python/pkg/mylib.py", "python/pkg/other.py", "python/pkg/t.py",
             "python/pkg/sub/lib.py", "python/pkg/bcg/__init__.py"]


@pytest.mark.parametrize(
    "imports, names, expected",
    [
        ("from pkg.lib import h", {"h()"}, ["python/pkg/lib.py"]),
        ("from pkg.sub.lib import h", {"h()"}, ["python/pkg/sub/lib.py"]),
        ("from pkg.bcg import h", {"h()"}, ["python/pkg/bcg/__init__.py"]),  # a package's own module
        ("from pkg.lib import h", {"g()"}, []),  # not a wanted name
        ("from pkg.missing import h", {"h()"}, []),  # not among the available files
        ("from pkg.t import h", {"h()"}, []),  # already read
        ("from pkg.lib import h\nfrom pkg.other import g", {"h()", "g()"},
         ["python/pkg/lib.py", "python/pkg/other.py"]),
    ],
)
def test_helper_paths_follow_the_imports_of_wanted_names(imports, names, expected):
    target = extract(imports + "\n", "python/pkg/t.py")
    assert helper_paths([target], names, AVAILABLE) == expected


def test_a_relative_import_names_the_sibling_module_only():
    target = extract("from .lib import h\n", "python/pkg/t.py")
    assert helper_paths([target], {"h()"}, AVAILABLE) == ["python/pkg/lib.py"]


def test_a_helper_imported_under_another_name_is_inlined():
    helper = extract("def h(cfg):\n    return cfg.a > 1\n", "python/pkg/lib.py")
    target = extract("from pkg.lib import h as g\n" + CHECK.format(call="g(cfg)"), "python/pkg/t.py")
    assert helper_paths([target], wanted([target]), AVAILABLE) == ["python/pkg/lib.py"]
    [inlined] = inline_helpers([target], [helper])
    assert trigger(inlined) == "`--a` > 1"


# ------------------------------------------------------------------------ end to end


def snapshot(files: dict[str, str]) -> Snapshot:
    data = {path: textwrap.dedent(src).encode() for path, src in files.items()}
    return Snapshot(SourceKind.DIRECTORY, "mem", "mem", None, None, None,
                    {path: blob_id(raw) for path, raw in data.items()}, data.__getitem__)


def test_extract_sites_follows_imports_through_two_non_target_files():
    snap = snapshot({
        "python/sglang/srt/server_args.py": """
            from sglang.srt.utils.common import attn_dp_enabled_of
            class ServerArgs:
                def check(self):
                    if attn_dp_enabled_of(self) and self.enable_x:
                        raise ValueError("no")
            """,
        "python/sglang/srt/utils/common.py": """
            from sglang.srt.utils.deep import scale_mode_of
            def attn_dp_enabled_of(cfg):
                return cfg.dp_size > 1 or scale_mode_of(cfg)
            """,
        "python/sglang/srt/utils/deep.py": "def scale_mode_of(cfg):\n    return cfg.ep_join_mode == 'scale'\n",
    })
    files = extract_sites(snap, PROFILE, ["python/sglang/srt/server_args.py"])
    assert [fs.path for fs in files] == ["python/sglang/srt/server_args.py"]
    assert files[0].sites[0].guards[0].expr == And((
        Or((Compare(">", flag("dp_size"), Const(1)), Compare("==", flag("ep_join_mode"), Const("scale")))),
        Truthy(flag("enable_x", "self")),
    ))


def test_a_config_method_taking_more_than_self_defines_the_derived_setting_it_is_read_as():
    """``view._default_backend(view.use_mla(), mc)`` reads as ``_default_backend()``: the
    setting it computes is what the method returns (its other parameters unknown; both
    branches agree here)."""
    fs = extract('''
        class ServerArgs:
            def _default_backend(self, use_mla, model_config):
                if self.device == "npu":
                    return "ascend"
                if not use_mla:
                    return "triton"
                return "triton"

        def f(view):
            if view.attention_backend is None:
                view.attention_backend = view._default_backend(view.use_mla(), view.get_model_config())
    ''')
    [inlined] = inline_helpers([fs])
    [adjustment] = inlined.adjustments
    assert "device" in {r.name for r in refs(adjustment.value)}  # what the method returns
