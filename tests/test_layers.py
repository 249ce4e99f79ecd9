"""The pipeline direction: extractor -> analyzers -> output -> errcat -> scripts.

Every module of the five packages is parsed (never imported) and each of its imports
is found wherever it is written: at the top, inside a function (a lazy import), under
`if TYPE_CHECKING:`. No module imports a later layer, and no imports go round in a
cycle, between packages or between modules.
"""
from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("extractor", "analyzers", "output", "errcat", "scripts")


@dataclass(frozen=True, slots=True)
class Import:
    module: str  # the importing module
    target: str  # the project module it names (the package, for a name defined in one), else as written
    line: int
    typing_only: bool  # under `if TYPE_CHECKING:`: never executed


def layer_of(module: str) -> str | None:
    top = module.partition(".")[0]
    return top if top in LAYERS else None


@cache
def project_modules() -> dict[str, Path]:
    """Dotted name -> file, for every module of the layers (a package by its __init__)."""
    found: dict[str, Path] = {}
    for layer in LAYERS:
        for path in sorted((ROOT / layer).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _targets(node: ast.Import | ast.ImportFrom, package: str, known: dict[str, Path]) -> Iterator[str]:
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    base = node.module or ""
    if node.level:  # relative: from the importing module's package upwards
        parent = package.split(".")[: len(package.split(".")) - node.level + 1]
        base = ".".join([*parent, *([base] if base else [])])
    for alias in node.names:  # `from pkg import mod` names a module; `from mod import name` the module
        yield f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base


def imports_in(source: str, module: str, *, is_package: bool = False,
               known: dict[str, Path] | None = None) -> list[Import]:
    """Every import statement of `source` (the text of `module`), at any depth."""
    known = project_modules() if known is None else known
    package = module if is_package else module.rpartition(".")[0]
    found: list[Import] = []

    def visit(node: ast.AST, typing_only: bool) -> None:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.extend(Import(module, t, node.lineno, typing_only) for t in _targets(node, package, known))
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for stmt in node.body:
                visit(stmt, True)
            for stmt in node.orelse:
                visit(stmt, typing_only)
            return
        for child in ast.iter_child_nodes(node):
            visit(child, typing_only)

    visit(ast.parse(source), False)
    return found


@cache
def all_imports() -> tuple[Import, ...]:
    """The imports of every project module that name another project module."""
    known = project_modules()
    out: list[Import] = []
    for module, path in known.items():
        for imp in imports_in(path.read_text(encoding="utf-8"), module, is_package=path.name == "__init__.py"):
            target = imp.target
            while target and target not in known:  # `import a.b.c` of a name: its module
                target = target.rpartition(".")[0]
            if target and target != module:
                out.append(Import(module, target, imp.line, imp.typing_only))
    return tuple(out)


# ------------------------------------------------------------------ the scanner itself


@pytest.mark.parametrize(("source", "module", "expected"), [
    ("import extractor.source\n", "errcat.x", [("extractor.source", False)]),
    ("from extractor import source\n", "errcat.x", [("extractor.source", False)]),
    ("from extractor.source import open_git\n", "errcat.x", [("extractor.source", False)]),
    ("def f():\n    if True:\n        from errcat import pipeline\n", "extractor.x", [("errcat.pipeline", False)]),
    ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from output.writer import dumps\n",
     "extractor.x", [("typing", False), ("output.writer", True)]),
    ("import typing\nif typing.TYPE_CHECKING:\n    import analyzers.flags\nelse:\n    import json\n",
     "extractor.x", [("typing", False), ("analyzers.flags", True), ("json", False)]),
    ("from . import pipeline\n", "errcat.cli", [("errcat.pipeline", False)]),
    ("from ..pipeline import build_catalog\n", "errcat.real.confirm", [("errcat.pipeline", False)]),
    ("from .confirm import Example\n", "errcat.real", [("errcat.real.confirm", False)]),
])
def test_imports_are_found_at_any_depth(source, module, expected):
    is_package = module == "errcat.real"
    assert [(i.target, i.typing_only) for i in imports_in(source, module, is_package=is_package)] == expected


@pytest.mark.parametrize("layer", LAYERS)
def test_every_layer_is_scanned(layer):
    assert any(layer_of(m) == layer for m in project_modules())
    assert any(layer_of(i.module) == layer for i in all_imports())


# ------------------------------------------------------------------ the rules


@pytest.mark.parametrize("layer", LAYERS)
def test_no_module_imports_a_later_layer(layer):
    rank = LAYERS.index(layer)
    later = [f"{i.module}:{i.line} imports {i.target}" for i in all_imports()
             if layer_of(i.module) == layer and LAYERS.index(str(layer_of(i.target))) > rank]
    assert later == []


def _package(module: str) -> str:
    return module if project_modules()[module].name == "__init__.py" else module.rpartition(".")[0] or module


def test_package_graph_has_no_cycle():
    graph: nx.DiGraph[str] = nx.DiGraph()
    graph.add_edges_from((_package(i.module), _package(i.target)) for i in all_imports()
                         if _package(i.module) != _package(i.target))
    assert set(LAYERS) <= set(graph)
    assert list(nx.simple_cycles(graph)) == []


@pytest.mark.parametrize("with_typing", [False, True])
def test_module_graph_has_no_cycle(with_typing):
    graph: nx.DiGraph[str] = nx.DiGraph()
    graph.add_nodes_from(project_modules())
    graph.add_edges_from((i.module, i.target) for i in all_imports() if with_typing or not i.typing_only)
    assert sorted(sorted(c) for c in nx.simple_cycles(graph)) == []


# the parsers of target text: only `extractor.parse` (and the depth guard and piecewise
# parse it runs) calls them, so every reader gets the depth and NUL guards (issue 39)
_PARSER_CALLS = {("cst", "parse_module"), ("cst", "parse_expression"), ("cst", "parse_statement"),
                 ("libcst", "parse_module"), ("libcst", "parse_expression"), ("libcst", "parse_statement"),
                 ("ast", "parse")}


def _parser_calls(path: Path) -> Iterator[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        fn = node.func
        called = (fn.value.id, fn.attr) if isinstance(fn, ast.Attribute) and isinstance(fn.value, ast.Name) else \
            ("", fn.id) if isinstance(fn, ast.Name) else None
        if called in _PARSER_CALLS or called == ("", "compile"):
            yield node.lineno


def test_only_the_parse_module_calls_a_parser_on_target_text() -> None:
    from extractor.parse import PARSERS

    # the benchmarks time libcst's own parse as their floor: a measurement, not a reader
    found = [f"{path.relative_to(ROOT)}:{line}" for name, path in project_modules().items()
             if layer_of(name) != "scripts" and str(path.relative_to(ROOT)) not in PARSERS
             for line in _parser_calls(path)]
    assert not found, f"call extractor.parse instead: {found}"
