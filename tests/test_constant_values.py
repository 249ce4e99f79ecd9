"""extractor.constant_values: constant expressions across files, JSON values, texts, function locals."""
from __future__ import annotations

import pickle
import textwrap

import libcst as cst
import pytest

from extractor.constant_values import (
    NOT_CONSTANT,
    ConstScope,
    choices_of,
    constant_value,
    function_locals,
    literal,
    render_text,
    source_text,
)
from extractor.frozen import FrozenMap, json_value, jsonable
from extractor.source_set import SourceSet
from extractor.symbols import Symbols
from tests.present import present

MOD = "pkg/mod.py"
CONSTS = "pkg/consts.py"


def symbols_for(**files: str) -> Symbols:
    """Symbols over dedented snippets; keys are paths with "/" written as "__"."""
    return Symbols(SourceSet({k.replace("__", "/") + ".py": textwrap.dedent(v) for k, v in files.items()}))


def node_and_scope(expr: str, prelude: str = "", **files: str) -> tuple[cst.BaseExpression, ConstScope]:
    """The expression bound to ``RESULT`` in pkg/mod.py (after `prelude`), and its scope."""
    symbols = symbols_for(pkg__mod=textwrap.dedent(prelude) + f"\nRESULT = {expr}\n", **files)
    return symbols.bindings(MOD).assigns["RESULT"], ConstScope(MOD, symbols)


def value(expr: str, prelude: str = "", **files: str) -> object:
    return constant_value(*node_and_scope(expr, prelude, **files))


# ---------------------------------------------------------------------------
# constant_value
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
        ("D.items()", "D = {'a': 1}", (("a", 1),)),
        ("{v: k for k, v in D.items()}", "D = {'a': 'x', 'b': 'y'}", {"x": "a", "y": "b"}),
        ("[x + 1 for x in T if x]", "T = (0, 1, 2)", (2, 3)),
        ("{x for x in T}", "T = (1, 1)", frozenset({1})),
        ("[(a, b) for a in 'xy' for b in T]", "T = (1,)", (("x", 1), ("y", 1))),
        # a msgspec Struct's fields: its annotated names in order, a ClassVar none
        ("C.__struct_fields__", "import msgspec\nclass C(msgspec.Struct):\n    a: int = 1\n    b: str | None = None",
         ("a", "b")),
        ("C.__struct_fields__", "from msgspec import Struct\nclass C(Struct, frozen=True):\n    a: int\n"
                                "    n: ClassVar[int] = 0", ("a",)),
    ],
)
def test_constant_value(expr, prelude, expected):
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
        ("dict(a=1)", ""),  # keywords are not read
        ("list(1)", ""),  # not iterable
        ("list(T, T)", "T = (1,)"),
        ("D.get('a')", "D = {'a': 1}"),  # only argument-less methods
        ("'a' + 1", ""),  # + joins like with like, else adds numbers
        ("True + 1", ""),  # bools are not numbers here
        ("'a' * 2", ""),
        ("S | (1,)", "S = {1}"),
        ("[x for x in unknown]", ""),
        ("[x for x in T if f(x)]", "T = (1,)"),  # a test that cannot be computed
        ("{k: v for k, v in T}", "T = (1, 2)"),  # items that do not unpack
        ("{x: 1 for x in T}", "T = ({},)"),  # an unhashable key
        ("[x for x in range(5000)]", ""),
        ("C.__struct_fields__", "class B(msgspec.Struct):\n    a: int\nclass C(B):\n    b: int"),  # inherits fields
        ("C.__struct_fields__", "class C:\n    a: int"),  # no Struct: no such attribute
    ],
)
def test_not_constant(expr, prelude):
    assert value(expr, prelude) is NOT_CONSTANT


def test_constant_value_across_files_and_relative_imports():
    consts = "X = 'x'\nY = ('a', 'b')\nclass K:\n    Z = 3\n"
    assert value("X", "from pkg.consts import X", pkg__consts=consts) == "x"
    assert value("W", "from .consts import Y as W", pkg__consts=consts) == ("a", "b")
    assert value("K.Z", "from .consts import K", pkg__consts=consts) == 3
    assert value("X", "from other.place import X", pkg__consts=consts) is NOT_CONSTANT


def test_loop_variables_come_from_the_scope():
    node, scope = node_and_scope("f'--{name}-x'")
    assert constant_value(node, ConstScope(scope.path, scope.symbols, {"name": "a"})) == "--a-x"


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
    func = cst.ensure_type(present(symbols.sources.module(MOD)).tree.body[0], cst.FunctionDef)
    assert function_locals(func, ConstScope(MOD, symbols)).get(name) == expected



def test_source_text_is_one_line():
    assert source_text(cst.parse_expression("f(\n    a,  # why\n    b,\n)")) == "f(a, b)"


@pytest.mark.parametrize("body, expr, expected", [
    ('    A = "a"\n    B = "b"\n    ALL = (A, B)\n', "C.ALL", ("a", "b")),  # the class body's names
    ('    A = "a"\n    ALL = [A, X]\n', "C.ALL", ("a", "x")),  # and the module's
    ('    SELF = SELF\n', "C.SELF", "NOT_CONSTANT"),  # defined by itself: unknown, no loop
    ('    A = B\n    B = A\n', "C.A", "NOT_CONSTANT"),
    ('    A = "a"\n', "C.MISSING", "NOT_CONSTANT"),
])
def test_class_attributes_see_the_class_body(body, expr, expected):
    sources = SourceSet({"m.py": f'X = "x"\nclass C:\n{body}'})
    value = constant_value(cst.parse_expression(expr), ConstScope("m.py", Symbols(sources)))
    assert (value is NOT_CONSTANT) if expected == "NOT_CONSTANT" else value == expected
