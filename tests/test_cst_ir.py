"""extractor.cst_ir: libcst expressions -> condition IR, one node kind per row."""
from __future__ import annotations

import libcst as cst
import pytest

from extractor.cst_ir import MAX_DEPTH, term, to_ir
from extractor.frozen import FrozenMap
from extractor.ir import (
    ATTRIBUTE,
    KEYWORD,
    SOME_ITEM,
    UNSET_OR,
    And,
    Apply,
    Compare,
    Const,
    Expr,
    In,
    Not,
    Or,
    Ref,
    RefKind,
    Seq,
    Truthy,
    Unknown,
    conj,
    depth,
)
from extractor.profile import load_profile
from extractor.scope import Opaque, Scope

PROFILE = load_profile("sglang")


def scope(**bindings: str | Opaque) -> Scope:
    """`cfg` is the config; keyword arguments bind locals (source text or `Opaque`)."""
    found = Scope(PROFILE, {}, aliases={"cfg"})
    for name, value in bindings.items():
        if isinstance(value, Opaque):
            found.bindings[name] = value
        else:
            found.bind(name, cst.parse_expression(value))
    return found


def flag(name: str, text: str | None = None) -> Ref:
    return Ref(RefKind.FLAG, name, text or f"cfg.{name}")


def cond(code: str) -> Expr:
    return to_ir(cst.parse_expression(code), scope())


def value(code: str) -> Expr:
    return term(cst.parse_expression(code), scope())


@pytest.mark.parametrize(
    "code, expected",
    [
        ("cfg.a", Truthy(flag("a"))),
        ("not cfg.a", Not(Truthy(flag("a")))),
        ("cfg.a and cfg.b and cfg.c", conj([Truthy(flag("a")), Truthy(flag("b")), Truthy(flag("c"))])),
        ("cfg.a or cfg.b", Or((Truthy(flag("a")), Truthy(flag("b"))))),
        ("cfg.tp_size > 1", Compare(">", flag("tp_size"), Const(1))),
        ("cfg.x is not None", Compare("is not", flag("x"), Const(None))),
        ("0 < cfg.x < 8", conj([Compare("<", Const(0), flag("x")), Compare("<", flag("x"), Const(8))])),
        ("cfg.b in ('x', 'y')", In(flag("b"), Const(("x", "y")))),
        ("cfg.b not in ('x',)", Not(In(flag("b"), Const(("x",))))),
        ("'X' in os.environ", Compare("is not", Ref(RefKind.ENV, "X", "'X'"), Const(None))),
        ("cfg.b in {'x': 1, 'y': 2}", In(flag("b"), Const(("x", "y")))),  # membership sees the keys
        ("'X' not in os.environ", Compare("is", Ref(RefKind.ENV, "X", "'X'"), Const(None))),
    ],
)
def test_conditions_by_node_kind(code: str, expected: Expr) -> None:
    assert cond(code) == expected


@pytest.mark.parametrize(
    "code, expected",
    [
        ("envs.SGLANG_X.get()", Ref(RefKind.ENV, "SGLANG_X", "envs.SGLANG_X.get()")),
        ("envs.SGLANG_X", Ref(RefKind.ENV, "SGLANG_X", "envs.SGLANG_X")),
        ("os.environ.get('Y')", Ref(RefKind.ENV, "Y", "os.environ.get('Y')")),
        ("get_bool_env_var('Z')", Ref(RefKind.ENV, "Z", "get_bool_env_var('Z')")),
        ("os.environ['W']", Ref(RefKind.ENV, "W", "os.environ['W']")),
        ("is_hip()", Ref(RefKind.PLATFORM, "is_hip", "is_hip()")),
        ("os.path.exists(p)", Ref(RefKind.RUNTIME, "os.path.exists(p)", "os.path.exists(p)")),
        ("cfg.hf_config.architectures", Ref(RefKind.MODEL, "hf_config.architectures", "cfg.hf_config.architectures")),
        ("getattr(cfg, 'tp')", Ref(RefKind.FLAG, "tp", "getattr(cfg, 'tp')")),
        ("getattr(cfg, 'tp', 1)", Ref(RefKind.FLAG, "tp", "getattr(cfg, 'tp', 1)")),  # an option's default rules
        # private state of the config: its default until code sets it
        ("getattr(cfg, '_done', False)", Apply(UNSET_OR, (Ref(RefKind.FLAG, "_done", "getattr(cfg, '_done', False)"),
                                                          Const(False)), "getattr(cfg, '_done', False)")),
        ("check(cfg)", Ref(RefKind.FLAG, "check()", "check(cfg)")),
        ("cfg.derived()", Ref(RefKind.FLAG, "derived()", "cfg.derived()")),
        ("ConnectorType.INSTANCE", Const("ConnectorType.INSTANCE")),
        ("len(cfg.xs)", Apply("len", (flag("xs"),), "len(cfg.xs)")),
        ("cfg.model_path.lower()", Apply("lower", (flag("model_path"),), "cfg.model_path.lower()")),
        ("cfg.a[0]", Apply("item", (flag("a"), Const(0)), "cfg.a[0]")),
        ("-cfg.a", Apply("-", (flag("a"),), "-cfg.a")),
        ("(cfg.a, cfg.b)", Seq((flag("a"), flag("b")))),
        ("cfg", Ref(RefKind.FLAG, "*", "cfg")),
        ("unbound", Ref(RefKind.UNKNOWN, "unbound", "unbound")),
        # a plain function of known arguments: keyword ones follow the positional ones by name
        ("f(x=1)", Apply("f", (Apply(KEYWORD, (Const("x"), Const(1)), "x"),), "f(x=1)")),
        ("resolve(cfg.model_path, revision=cfg.revision)",
         Apply("resolve", (flag("model_path"), Apply(KEYWORD, (Const("revision"), flag("revision")), "revision")),
               "resolve(cfg.model_path, revision=cfg.revision)")),
        ("f(x=self.method())", Unknown("f(x=self.method())")),  # an argument nothing computes
        # a call without arguments: read through what it returns, or what a platform states it returns
        ("use_mlx()", Apply("use_mlx", (), "use_mlx()")),
        ("current_platform.support_x()", Apply("current_platform.support_x", (), "current_platform.support_x()")),
        # a platform predicate the profile names, whatever object it is called on
        ("current_platform.is_out_of_tree()",
         Ref(RefKind.PLATFORM, "is_out_of_tree", "current_platform.is_out_of_tree()")),
        ("max(cfg.xs, default=0)", Apply("max", (flag("xs"),), "max(cfg.xs, default=0)")),  # a builtin
        # JSON text parsed, and string methods of any known value: computed where the value is known
        ("json.loads(cfg.c)", Apply("json.loads", (flag("c"),), "json.loads(cfg.c)")),
        ("set(cfg.c)", Apply("set", (flag("c"),), "set(cfg.c)")),
        ("len(cfg.c.encode('utf-8'))",
         Apply("len", (Apply("encode", (flag("c"), Const("utf-8")), "cfg.c.encode('utf-8')"),),
               "len(cfg.c.encode('utf-8'))")),
        ("{}", Const(FrozenMap())),  # a dict literal is a dict, not its keys
        ("f'x {y.z()}'", Apply("str", (Unknown("f'x {y.z()}'"),), "f'x {y.z()}'")),  # some text: a str
        ("{'a': 1, 'b': (2,)}", Const(FrozenMap({"a": 1, "b": (2,)}))),
        ("{'a': x}", Unknown("{'a': x}")),
        # an attribute of what a helper returns: read from the record a fact states for it
        ("get_spec(hf_config).uses_x",
         Apply(ATTRIBUTE, (Apply("get_spec", (Ref(RefKind.MODEL, "hf_config", "hf_config"),), "get_spec(hf_config)"),
                           Const("uses_x")), "get_spec(hf_config).uses_x")),
    ],
)
def test_terms_by_source(code: str, expected: Expr) -> None:
    assert value(code) == expected

ITEM_A = Ref(RefKind.UNKNOWN, "a", "a value taken from a collection")
IS_STR = Apply("isinstance", (ITEM_A, Const("str")), "isinstance(a, str)")


@pytest.mark.parametrize("code, bindings, expected", [
    # any/all over a tuple the source writes out, or a local bound to one: or/and per item
    ("any(b not in (None, 'fa3') for b in req)", {"req": "(cfg.a, cfg.b)"},
     Or((Not(In(flag("a"), Const((None, "fa3")))), Not(In(flag("b"), Const((None, "fa3"))))))),
    ("all(b > 1 for b in [cfg.a, cfg.b])", {}, conj([Compare(">", flag("a"), Const(1)),
                                                    Compare(">", flag("b"), Const(1))])),
    # membership over items not written out: shared items (``&``) or items outside (``-``)
    ("any(a in ('x', 'y') for a in cfg.archs)", {},
     Truthy(Apply("&", (flag("archs"), Const(("x", "y"))), "any(a in ('x', 'y') for a in cfg.archs)"))),
    ("all(a in ('x',) for a in cfg.archs)", {},
     Not(Truthy(Apply("-", (flag("archs"), Const(("x",))), "all(a in ('x',) for a in cfg.archs)")))),
    ("any(a not in ok for a in cfg.archs)", {"ok": "('x',)"},
     Truthy(Apply("-", (flag("archs"), Const(("x",))), "any(a not in ok for a in cfg.archs)"))),
    ("all(a not in ('x',) for a in cfg.archs)", {},
     Not(Truthy(Apply("&", (flag("archs"), Const(("x",))), "all(a not in ('x',) for a in cfg.archs)")))),
    # any other test of items not written out: it holds for some item (per item, when evaluated)
    ("any(a < 0 for a in cfg.ids)", {},
     Truthy(Apply(SOME_ITEM, (flag("ids"), Const("a"), Compare("<", ITEM_A, Const(0))),
                  "any(a < 0 for a in cfg.ids)"))),
    ("all(isinstance(a, str) for a in cfg.ids)", {},
     Not(Truthy(Apply(SOME_ITEM, (flag("ids"), Const("a"), Not(Truthy(IS_STR))),
                      "all(isinstance(a, str) for a in cfg.ids)")))),
    ("any(a > 1 for a in cfg.ids if a)", {},
     Truthy(Apply(SOME_ITEM, (flag("ids"), Const("a"), And((Truthy(ITEM_A), Compare(">", ITEM_A, Const(1))))),
                  "any(a > 1 for a in cfg.ids if a)"))),
    ("any(a > 1 for a in f(x))", {},  # items nothing computes: unknown
     Apply("any", (Unknown("a > 1 for a in f(x)"),), "any(a > 1 for a in f(x))")),
])
def test_any_and_all_over_written_out_items(code: str, bindings: dict, expected: Expr) -> None:
    found = to_ir(cst.parse_expression(code), scope(**bindings))
    assert (found.term if isinstance(found, Truthy) else found) == expected



@pytest.mark.parametrize(
    "read, code, bindings, expected",
    [
        # a local bound to a condition is interpreted through its binding
        (to_ir, "ok", {"ok": "cfg.a > 1"}, Compare(">", flag("a"), Const(1))),
        # a local bound to a config read is that read
        (term, "tp", {"tp": "cfg.tp_size"}, flag("tp_size")),
        # an alias of the config reads flags through it
        (term, "c.a", {"c": "resolving_view(cfg)"}, flag("a", "c.a")),
        # a name whose value is not known statically keeps its description
        (term, "it", {"it": Opaque("it (element of f())")}, Ref(RefKind.UNKNOWN, "it", "it (element of f())")),
        # a table of literals is one constant tuple; a dict table is that dict, its keys in membership tests
        (term, "names", {"names": "['a', 'b']"}, Const(("a", "b"))),
        (term, "modes", {"modes": "{'x': 1, 'y': 2}"}, Const(FrozenMap({"x": 1, "y": 2}))),
        (to_ir, "cfg.m in modes", {"modes": "{'x': 1, 'y': 2}"}, In(flag("m"), Const(("x", "y")))),
        (term, "modes[cfg.m]", {"modes": "{'x': 1}"},
         Apply("item", (Const(FrozenMap({"x": 1})), flag("m")), "modes[cfg.m]")),
        (term, "rows", {"rows": "[cfg.a, 1]"}, Seq((flag("a"), Const(1)))),
        # a lambda called without arguments is its body
        (to_ir, "check()", {"check": "lambda: cfg.a"}, Truthy(flag("a"))),
        # a platform object bound to a local names its checks as the call does
        (term, "p.is_cuda", {"p": "get_platform()"}, Ref(RefKind.PLATFORM, "get_platform().is_cuda", "p.is_cuda")),
        # a test of a machine path is a platform fact; of a path the launch gives, a runtime one
        (to_ir, "os.path.isdir(p)", {"p": "'/sys/class/infiniband'"},
         Truthy(Ref(RefKind.PLATFORM, "os.path.isdir('/sys/class/infiniband')", "os.path.isdir(p)"))),
        (to_ir, "os.path.isfile(cfg.f)", {},
         Truthy(Ref(RefKind.RUNTIME, "os.path.isfile(cfg.f)", "os.path.isfile(cfg.f)"))),
        # a registry of objects: its keys known, each value an object of its class (never None)
        (term, "REG", {"REG": "{'A': _Policy(), 'B': Policy(x=1)}"},
         Const(FrozenMap({"A": "<_Policy object>", "B": "<Policy object>"}))),
        # a predicate of a local bound to a constructor call reads as the chain (`extractor.enum_self`)
        (term, "algo.p()", {"algo": "Algo.from_string(cfg.a)"}, Unknown("Algo.from_string(cfg.a).p()")),
    ],
)
def test_names_read_through_their_bindings(read, code: str, bindings: dict[str, str | Opaque], expected: Expr) -> None:
    assert read(cst.parse_expression(code), scope(**bindings)) == expected


def test_self_referencing_binding_terminates_as_unknown() -> None:
    found = scope()
    found.bindings["x"] = cst.parse_expression("x + 1")  # bypass `bind`'s own substitution
    assert term(cst.parse_expression("x"), found) == Apply("+", (Unknown("x"), Const(1)), "x + 1")


def test_conditional_expression_is_either_branch() -> None:
    assert cond("cfg.a if cfg.c else cfg.b") == Or((
        conj([Truthy(flag("c")), Truthy(flag("a"))]),
        conj([Not(Truthy(flag("c"))), Truthy(flag("b"))]),
    ))


def test_deep_expressions_stop_at_max_depth_as_one_unknown_leaf() -> None:
    code = " + ".join(["cfg.a"] * (MAX_DEPTH * 2))
    found = value(code)
    assert depth(found) <= MAX_DEPTH + 1
    assert any(isinstance(leaf, Unknown) for leaf in _leaves(found))


def _leaves(expr: Expr) -> list[Expr]:
    if isinstance(expr, Apply):
        return [leaf for arg in expr.args for leaf in _leaves(arg)]
    return [expr]
