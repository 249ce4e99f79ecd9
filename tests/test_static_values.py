"""analyzers.static_values: the static evaluator, symbols across files, line numbers."""
from __future__ import annotations

import pickle
import textwrap

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from analyzers.static_values import (
    UNKNOWN,
    FrozenMap,
    Scope,
    SourceModule,
    SourceSet,
    Symbols,
    choices_of,
    evaluate,
    function_locals,
    json_value,
    jsonable,
    literal,
    module_name,
    read_outline,
    render_text,
    source_text,
)

MOD = "pkg/mod.py"
CONSTS = "pkg/consts.py"


def symbols_for(**files: str) -> Symbols:
    """Symbols over dedented snippets; keys are paths with "/" written as "__"."""
    return Symbols(SourceSet({k.replace("__", "/") + ".py": textwrap.dedent(v) for k, v in files.items()}))


def node_and_scope(expr: str, prelude: str = "", **files: str) -> tuple[cst.BaseExpression, Scope]:
    """The expression bound to ``RESULT`` in pkg/mod.py (after `prelude`), and its scope."""
    symbols = symbols_for(pkg__mod=textwrap.dedent(prelude) + f"\nRESULT = {expr}\n", **files)
    return symbols.bindings(MOD).assigns["RESULT"], Scope(MOD, symbols)


def value(expr: str, prelude: str = "", **files: str) -> object:
    return evaluate(*node_and_scope(expr, prelude, **files))


# ---------------------------------------------------------------------------
# evaluate
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "expr, prelude, expected",
    [
        ("1", "", 1),
        ("1.5", "", 1.5),
        ("'a' 'b'", "", "ab"),
        ("True", "", True),
        ("None", "", None),
        ("-1", "", -1),
        ("+2", "", 2),
        ("not True", "", False),
        ("2 ** 10", "", 1024),
        ("7 // 2", "", 3),
        ("7 % 4", "", 3),
        ("1 / 2", "", 0.5),
        ("3 - 1 * 2", "", 1),
        ("[1, 2]", "", (1, 2)),
        ("(1,)", "", (1,)),
        ("{2, 1}", "", frozenset({1, 2})),
        ("{'a': 1}", "", {"a": 1}),
        ("{**D, 'b': 2}", "D = {'a': 1}", {"a": 1, "b": 2}),
        ("[*T, 3]", "T = (1, 2)", (1, 2, 3)),
        ("T + (3,)", "T = (1, 2)", (1, 2, 3)),
        ("'x' + 'y'", "", "xy"),
        ("S | {3}", "S = {1}", frozenset({1, 3})),
        ("D | {'b': 2}", "D = {'a': 1}", {"a": 1, "b": 2}),
        ("list(D)", "D = {'a': 1, 'b': 2}", ("a", "b")),
        ("tuple('ab')", "", ("a", "b")),
        ("sorted({3, 1})", "", (1, 3)),
        ("set([1, 1])", "", frozenset({1})),
        ("frozenset()", "", frozenset()),
        ("dict()", "", {}),
        ("D.keys()", "D = {'a': 1}", ("a",)),
        ("D.values()", "D = {'a': 1}", (1,)),
        ("T.copy()", "T = [1]", (1,)),
        ("f'{X}-y'", "X = 'a'", "a-y"),
        ("f'{N:03d}'", "N = 7", "007"),
        ("f'{X!r}'", "X = 'a'", "'a'"),
        ("A", "A = B\nB = 1", 1),
        ("Cls.ATTR", "class Cls:\n    ATTR = 'v'", "v"),
        ("Cls.ANN", "class Cls:\n    ANN: str = 'w'", "w"),
    ],
)
def test_evaluate(expr, prelude, expected):
    assert value(expr, prelude) == expected


@pytest.mark.parametrize(
    "expr, prelude",
    [
        ("os.getcwd()", "import os"),
        ("unknown_name", ""),
        ("lambda: 1", ""),
        ("1 / 0", ""),
        ("2 ** 100000", ""),  # refused, not computed
        ("f'{unknown}'", ""),
        ("[*unknown]", ""),
        ("X", "X = X"),  # self reference: depth-limited
        ("A", "A = B\nB = A"),
        ("{(1, {}): 2}", ""),  # unhashable key
        ("{{'a': 1}: 2}", ""),
        ("set([{}])", ""),
        ("T.sort()", "T = [2, 1]"),
        ("Cls.MISSING", "class Cls:\n    ATTR = 1"),
        ("int('3')", ""),
    ],
)
def test_evaluate_unknown(expr, prelude):
    assert value(expr, prelude) is UNKNOWN


def test_evaluate_across_files_and_relative_imports():
    consts = "X = 'x'\nY = ('a', 'b')\nclass K:\n    Z = 3\n"
    assert value("X", "from pkg.consts import X", pkg__consts=consts) == "x"
    assert value("W", "from .consts import Y as W", pkg__consts=consts) == ("a", "b")
    assert value("K.Z", "from .consts import K", pkg__consts=consts) == 3
    assert value("X", "from other.place import X", pkg__consts=consts) is UNKNOWN


def test_loop_variables_come_from_the_scope():
    node, scope = node_and_scope("f'--{name}-x'")
    assert evaluate(node, Scope(scope.path, scope.symbols, {"name": "a"})) == "--a-x"


# ---------------------------------------------------------------------------
# literal, choices_of, render_text, jsonable / json_value
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "expr, prelude, expected",
    [
        ("[1, 2]", "", (1, 2)),
        ("{'b', 'a'}", "", ("a", "b")),  # sets sorted
        ("{1: 'x'}", "", {"1": "x"}),  # JSON keys are strings
        ("os.getcwd()", "import os", {"expr": "os.getcwd()"}),
        ("make(\n  1,  # comment\n)", "", {"expr": "make(1)"}),  # one line, comments dropped
    ],
)
def test_literal(expr, prelude, expected):
    got = literal(*node_and_scope(expr, prelude))
    assert got == expected
    hash(got)  # Json values are hashable


@pytest.mark.parametrize(
    "expr, prelude, expected",
    [
        ("['a', 'b']", "", ("a", "b")),
        ("{'x': 1, 'y': 2}", "", ("x", "y")),  # a dict's keys, as argparse sees them
        ("None", "", None),
        ("registry()", "", {"expr": "registry()"}),
        ("C", "C = {'b', 'a'}", ("a", "b")),
    ],
)
def test_choices_of(expr, prelude, expected):
    assert choices_of(*node_and_scope(expr, prelude)) == expected


@pytest.mark.parametrize(
    "expr, prelude, expected",
    [
        ('"plain"', "", "plain"),
        ('"one " "two"', "", "one two"),
        ('"a" + X', "X = 'b'", "ab"),
        ('"a" + f()', "", "a{f()}"),
        ('f"x {y} z"', "", "x {y} z"),
        ('f"{y!r:>3} {{lit}}"', "", "{y!r:>3} {lit}"),
        ('f"tab\\t"', "", "tab\t"),
        ("HELP", "HELP = 'shared'", "shared"),
        ("unknown", "", "{unknown}"),
    ],
)
def test_render_text(expr, prelude, expected):
    assert render_text(*node_and_scope(expr, prelude)) == expected


@pytest.mark.parametrize(
    "raw, as_json",
    [
        (frozenset({2, 1}), [1, 2]),
        ((1, (2, 3)), [1, [2, 3]]),
        ({1: frozenset({"b", "a"})}, {"1": ["a", "b"]}),
        ("s", "s"),
        (None, None),
    ],
)
def test_jsonable_then_json_value(raw, as_json):
    kept = jsonable(raw)
    hash(kept)
    assert json_value(kept) == as_json
    assert type(json_value(kept)) is type(as_json)


def test_frozen_map():
    a, b = FrozenMap({"x": 1, "y": (2,)}), FrozenMap({"y": (2,), "x": 1})
    assert a == b and hash(a) == hash(b) and a == {"x": 1, "y": (2,)} and a == {"x": 1, "y": (2,)}
    assert a != {"x": 1} and a != [("x", 1)]
    assert len({a, b}) == 1 and dict(a) == {"x": 1, "y": (2,)}
    assert pickle.loads(pickle.dumps(a)) == a
    assert str(a) == str({"x": 1, "y": (2,)}) and repr(a).startswith("FrozenMap(")
    with pytest.raises(TypeError):
        a["x"] = 2  # type: ignore[index]


# ---------------------------------------------------------------------------
# function_locals
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body, name, expected",
    [
        ("c = ['a']\nc.append('b')\nc += ['c']", "c", ("a", "b", "c")),
        ("c = {'a'}\nc.add('b')\nc |= {'c'}", "c", frozenset({"a", "b", "c"})),
        ("c = ['a']\nif x:\n    c.extend(['b', 'c'])", "c", ("a", "b", "c")),
        ("d = {'a': 1}\nd.update({'b': 2})", "d", {"a": 1, "b": 2}),
        ("base = ('a',)\nc = [*base, 'b']", "c", ("a", "b")),
        ("c = ['a']\nc = ['b']", "c", None),  # bound twice: not a constant
        ("c = ['a']\nfor c in y:\n    pass", "c", None),
        ("c = ['b', 'a']\nc.sort()", "c", None),  # other mutations: unknown
        ("c = ['a']\nc.append(f())", "c", None),
        ("c = ['a']\nc -= ['a']", "c", None),
    ],
)
def test_function_locals(body, name, expected):
    src = "def f(x, y):\n" + textwrap.indent(body, "    ") + "\n"
    symbols = symbols_for(pkg__mod=src)
    func = cst.ensure_type(symbols.sources.module(MOD).tree.body[0], cst.FunctionDef)
    assert function_locals(func, Scope(MOD, symbols)).get(name) == expected


# ---------------------------------------------------------------------------
# symbols and sources
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path, name",
    [
        ("python/sglang/srt/server_args.py", "python.sglang.srt.server_args"),
        ("pkg/__init__.py", "pkg"),
        ("a.py", "a"),
    ],
)
def test_module_name(path, name):
    assert module_name(path) == name


def test_module_for_matches_a_dotted_suffix_shortest_path_first():
    symbols = symbols_for(python__pkg__consts="", vendored__python__pkg__consts="", python__pkg__mod="")
    assert symbols.module_for("pkg.consts") == "python/pkg/consts.py"
    assert symbols.module_for("nowhere.consts") is None


def test_origin_name_follows_imports_and_aliases():
    symbols = symbols_for(
        pkg__utils="from typing import Annotated\nA = Annotated\n",
        pkg__mod="from pkg.utils import A as Ann\nimport argparse\n",
    )
    name = lambda src: symbols.origin_name(MOD, cst.parse_expression(src))  # noqa: E731
    assert name("Ann") == "Annotated"
    assert name("argparse.Namespace") == "Namespace"
    assert name("local") == "local"
    assert name("f()") == "f"


def test_names_parse_only_the_files_they_lead_into():
    sources = SourceSet({
        "pkg/mod.py": "from pkg.consts import X\nRESULT = X\n",
        "pkg/consts.py": "X = 1\n",
        "pkg/unrelated.py": "Y = 2\n",
        "pkg/broken.py": "def (:\n",
    })
    symbols = Symbols(sources)
    assert evaluate(symbols.bindings(MOD).assigns["RESULT"], Scope(MOD, symbols)) == 1
    assert [m.path for m in sources.parsed()] == ["pkg/consts.py", "pkg/mod.py"]
    assert sources.diagnostics == ()  # the broken file was never needed
    assert sources.module("pkg/broken.py") is None
    [diag] = sources.diagnostics
    assert diag.path == "pkg/broken.py" and diag.message.startswith("cannot parse")


def test_lent_trees_are_used_as_they_are():
    tree = cst.parse_module("X = 1\n")
    sources = SourceSet({"a.py": "X = 1\n", "b.py": "Y = 2\n"}, {"a.py": tree, "elsewhere.py": tree})
    assert sources.module("a.py").tree is tree
    assert sources.module("elsewhere.py") is None  # trees only count for paths in files
    assert sources.module("b.py").tree is not tree


def test_source_text_is_one_line():
    assert source_text(cst.parse_expression("f(\n    a,  # why\n    b,\n)")) == "f(a, b)"


# ---------------------------------------------------------------------------
# outlines
# ---------------------------------------------------------------------------


def test_outline():
    src = textwrap.dedent(
        """
        import x
        class Top(Base, mod.Mixin, Generic[T], metaclass=M):
            a: A[int, "h"] = 1
        def f():
            class Inner:
                X = call()
        TABLE = {"OLD": Deprecated(note="n")}
        """
    )
    outline = read_outline(src)
    top, inner = outline.classes
    assert (top.name, top.top_level, top.bases) == ("Top", True, ("Base", "mod.Mixin", "Generic"))
    assert (top.subscripted_fields, top.call_assigns) == (True, False)
    assert (inner.name, inner.top_level, inner.subscripted_fields, inner.call_assigns) == ("Inner", False, False, True)
    assert outline.dict_tables
    assert read_outline("def (:\n") is None


# ---------------------------------------------------------------------------
# line numbers: the ast-based index agrees with PositionProvider
# ---------------------------------------------------------------------------

SNIPPETS = [
    "x = 1\ny = 2; z = 3\n",
    "\n\n# comment\n\nparser.add_argument(\n    '--x',\n    help='h',\n)\n",
    "@decorator\n@other(\n    1)\nclass C(Base):\n    '''doc\n    string'''\n    a: int = 1\n    b = f(\n        2)\n",
    "@d\ndef f(a,\n      b):\n    return a\n",
    "async def f():\n    async for x in y:\n        await z\n    async with a as b:\n        pass\n",
    "if a:\n    x = 1\nelif b:\n    x = 2\nelif c: x = 3\nelse:\n    x = 4\n",
    "try:\n    a()\nexcept E as e:\n    b()\nexcept (F, G):\n    pass\nelse:\n    c()\nfinally:\n    d()\n",
    "for i in range(3):\n    if i: continue\nelse:\n    pass\nwhile x:\n    break\n",
    "with open(a) as f, open(b) as g:\n    f.write(\n        'x')\n",
    "match cmd:\n    case [x, y]:\n        pass\n    case {'k': v} if v:\n        go(v)\n    case _:\n        pass\n",
    "x = '''multi\nline\n'''\ny = \\\n    2\nz = (1 +\n     2)\n",
    "if x: a = 1; b = 2\nclass K: pass\ndef g(): return 1\n",
    "def outer():\n    def inner():\n        class Deep:\n            v = [\n                i for i in range(3)\n            ]\n        return Deep\n    return inner\n",
    "x = {\n    'A': Deprecated(note='a'),\n    'B': Deprecated(\n        note='b'),\n}\n",
    "global_var: int\nassert x, (\n    'msg')\nraise ValueError(\n    'bad')\n",
    "x = 1\r\ny = (\r\n    2)\r\n",
]


class _Statements(cst.CSTVisitor):
    """Every node with its innermost enclosing statement (small or compound)."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[cst.CSTNode] = []
        self.pairs: list[tuple[cst.CSTNode, cst.CSTNode | None]] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.pairs.append((node, self.stack[-1] if self.stack else None))
        if isinstance(node, (cst.BaseSmallStatement, cst.BaseCompoundStatement, cst.SimpleStatementLine)):
            self.stack.append(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if self.stack and self.stack[-1] is original_node:
            self.stack.pop()


def _truth(tree: cst.Module) -> dict[cst.CSTNode, int]:
    positions = MetadataWrapper(tree, unsafe_skip_copy=True).resolve(PositionProvider)
    return {node: pos.start.line for node, pos in positions.items()}


def _check_lines(source: str) -> int:
    tree = cst.parse_module(source)
    mod = SourceModule("m.py", "m", tree, source)
    walker = _Statements()
    tree.visit(walker)
    truth = _truth(tree)
    checked = 0
    for node, within in walker.pairs:
        if isinstance(node, (cst.BaseSmallStatement, cst.BaseCompoundStatement, cst.SimpleStatementLine)):
            assert mod.line(node) == truth[node], (cst.Module(body=[]).code_for_node(node)[:60], within)
            checked += 1
        elif within is not None and node in truth:
            assert mod.line(node, within) == truth[node], cst.Module(body=[]).code_for_node(node)[:60]
    assert mod.lines.from_ast
    return checked


@pytest.mark.parametrize("source", SNIPPETS)
def test_lines_agree_with_position_provider(source):
    assert _check_lines(source) > 0


def test_lines_without_ast_fall_back_to_position_provider():
    source = "x = 1\n\ny = f(\n    2)\n"
    tree = cst.parse_module(source)
    mod = SourceModule("m.py", "m", tree, source=None)  # no text: no ast outline
    call = tree.body[1].body[0].value.args[0]
    assert (mod.line(tree.body[1]), mod.line(call)) == (3, 4)
    assert not mod.lines.from_ast


def test_statement_spans_include_decorators():
    source = "@d\nclass C:\n    x = 1\n"
    tree = cst.parse_module(source)
    mod = SourceModule("m.py", "m", tree, source)
    assert mod.lines.span(tree.body[0]) == (1, 3)
    assert mod.line(tree.body[0]) == 2


@pytest.mark.network
@pytest.mark.parametrize("version", ["0.4.10", "0.5.23"])
def test_release_statement_lines_agree_with_position_provider(version):
    from tests.test_flags import release_files

    for path, source in sorted(release_files(version).items()):
        tree = cst.parse_module(source)
        mod = SourceModule(path, module_name(path), tree, source)
        truth = _truth(tree)
        statements: list[cst.CSTNode] = []
        walker = _Statements()
        tree.visit(walker)
        statements = [n for n, _ in walker.pairs if isinstance(n, (cst.BaseStatement, cst.BaseSmallStatement))]
        assert mod.lines.from_ast, path
        assert [mod.line(n) for n in statements] == [truth[n] for n in statements], path


@pytest.mark.parametrize("body, expr, expected", [
    ('    A = "a"\n    B = "b"\n    ALL = (A, B)\n', "C.ALL", ("a", "b")),  # the class body's names
    ('    A = "a"\n    ALL = [A, X]\n', "C.ALL", ("a", "x")),  # and the module's
    ('    SELF = SELF\n', "C.SELF", "UNKNOWN"),  # defined by itself: unknown, no loop
    ('    A = B\n    B = A\n', "C.A", "UNKNOWN"),
    ('    A = "a"\n', "C.MISSING", "UNKNOWN"),
])
def test_class_attributes_see_the_class_body(body, expr, expected):
    import libcst as cst

    from analyzers.static_values import UNKNOWN, Scope, SourceSet, Symbols, evaluate
    sources = SourceSet({"m.py": f'X = "x"\nclass C:\n{body}'})
    value = evaluate(cst.parse_expression(expr), Scope("m.py", Symbols(sources)))
    assert (value is UNKNOWN) if expected == "UNKNOWN" else value == expected
