"""extractor.source_set: files outlined with ast, parsed with libcst on demand."""
from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from extractor.source_set import SourceModule, SourceSet, module_name, read_outline
from tests.present import present


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


def test_lent_trees_are_used_as_they_are():
    tree = cst.parse_module("X = 1\n")
    sources = SourceSet({"a.py": "X = 1\n", "b.py": "Y = 2\n"}, {"a.py": tree, "elsewhere.py": tree})
    assert present(sources.module("a.py")).tree is tree
    assert sources.module("elsewhere.py") is None  # trees only count for paths in files
    assert present(sources.module("b.py")).tree is not tree



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
    outline = present(read_outline(src))
    top, inner = outline.classes
    assert (top.name, top.top_level, top.bases) == ("Top", True, ("Base", "mod.Mixin", "Generic"))
    assert (top.subscripted_fields, top.call_assigns) == (True, False)
    assert (inner.name, inner.top_level, inner.subscripted_fields, inner.call_assigns) == ("Inner", False, False, True)
    assert outline.dict_tables
    assert [s.line for s in outline.statements] == [2, 3, 4, 5, 6, 7, 8]  # document order, any depth
    assert read_outline("def (:\n") is None



@pytest.mark.parametrize("source, from_ast", [
    ("@d\nclass C:\n    x = 1\n", True),  # lines from the outline's statements
    (None, False),  # no text, no outline: PositionProvider answers
])
def test_module_lines(source, from_ast):
    tree = cst.parse_module("@d\nclass C:\n    x = 1\n")
    mod = SourceModule("m.py", "m", tree, source)
    assert mod.line(tree.body[0]) == 2 and mod.line(cst.ensure_type(tree.body[0], cst.ClassDef).body.body[0]) == 3
    assert mod.lines.from_ast is from_ast
