"""extractor.positions: the ast-based line index agrees with PositionProvider."""
from __future__ import annotations

import ast

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from extractor.positions import LineIndex, any_within, offset_lines, statement_spans, word_lines
from tests.present import present


def index(source: str, tree: cst.Module) -> LineIndex:
    return LineIndex(tree, lambda: statement_spans(ast.parse(source)))


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
    "def outer():\n    def inner():\n        class Deep:\n            v = [\n"
    "                i for i in range(3)\n            ]\n        return Deep\n    return inner\n",
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
    lines = index(source, tree)
    walker = _Statements()
    tree.visit(walker)
    truth = _truth(tree)
    checked = 0
    for node, within in walker.pairs:
        if isinstance(node, (cst.BaseSmallStatement, cst.BaseCompoundStatement, cst.SimpleStatementLine)):
            assert lines.line(node) == truth[node], (cst.Module(body=[]).code_for_node(node)[:60], within)
            checked += 1
        elif within is not None and node in truth:
            assert lines.line(node, within) == truth[node], cst.Module(body=[]).code_for_node(node)[:60]
    assert lines.from_ast
    return checked


@pytest.mark.parametrize("source", SNIPPETS)
def test_lines_agree_with_position_provider(source):
    assert _check_lines(source) > 0


@pytest.mark.parametrize("spans", [
    None,  # ast could not parse the text
    ((1, 0, 1, 1),),  # ast lists fewer statements than the tree
])
def test_lines_without_matching_ast_fall_back_to_position_provider(spans):
    tree = cst.parse_module("x = 1\n\ny = f(\n    2)\n")
    lines = LineIndex(tree, lambda: spans)
    assign = cst.ensure_type(cst.ensure_type(tree.body[1], cst.SimpleStatementLine).body[0], cst.Assign)
    call = cst.ensure_type(assign.value, cst.Call).args[0]
    assert (lines.line(tree.body[1]), lines.line(call)) == (3, 4)
    assert not lines.from_ast and lines.span(tree.body[1]) is None


def test_an_empty_file_needs_no_fallback():
    tree = cst.parse_module("# nothing\n")
    assert index("# nothing\n", tree).from_ast
    assert not LineIndex(tree, lambda: None).from_ast


def test_nodes_of_another_tree_have_no_line():
    tree = cst.parse_module("x = 1\n")
    assert index("x = 1\n", tree).line(cst.parse_module("y = 2\n").body[0]) == 0


def test_statement_spans_include_decorators():
    source = "@d\nclass C:\n    x = 1\n"
    tree = cst.parse_module(source)
    lines = index(source, tree)
    assert lines.span(tree.body[0]) == (1, 3)
    assert lines.line(tree.body[0]) == 2
    assert present(statement_spans(ast.parse(source)))[0] == (2, 0, 1, 3)
    assert statement_spans(None) is None


@pytest.mark.parametrize("text, offsets, expected", [
    ("a\nb\nc", [0, 2, 4], [1, 2, 3]),
    ("a\n\n\nb", [0, 4, 4], [1, 4, 4]),
    ("", [], []),
])
def test_offset_lines(text, offsets, expected):
    assert list(offset_lines(text, offsets)) == expected


@pytest.mark.parametrize("source, expected", [
    ("p.add_argument('--x')\n\np.add_argument(\n  '--y')\n", [1, 3]),
    ("add_arguments()\n# add_argument\n", [2]),  # whole words only
    (None, []),
])
def test_word_lines(source, expected):
    assert word_lines(source, "add_argument") == expected


@pytest.mark.parametrize("lines, span, expected", [
    ([3, 9], (4, 8), False),
    ([3, 9], (4, 9), True),
    ([3], None, True),  # unknown span: any mention counts
    ([], None, False),
])
def test_any_within(lines, span, expected):
    assert any_within(lines, span) is expected


@pytest.mark.network
@pytest.mark.parametrize("version", ["0.4.10", "0.5.23"])
def test_release_statement_lines_agree_with_position_provider(version):
    from tests.test_flags import release_files

    for path, source in sorted(release_files(version).items()):
        tree = cst.parse_module(source)
        lines = index(source, tree)
        truth = _truth(tree)
        walker = _Statements()
        tree.visit(walker)
        statements = [n for n, _ in walker.pairs if isinstance(n, (cst.BaseStatement, cst.BaseSmallStatement))]
        assert lines.from_ast, path
        assert [lines.line(n) for n in statements] == [truth[n] for n in statements], path
