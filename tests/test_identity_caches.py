"""No module-level cache keyed by object identity (issue 41): nothing at a call site shows
such state, it outlives the objects it describes, and threads would share it. A cache an
object owns (a field, `analyzers.eval_model.Identity`) is fine; so is a local set."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("extractor", "analyzers", "output", "errcat")
_LOOKUPS = ("get", "setdefault", "pop", "__contains__")


def _module_names(tree: ast.Module) -> set[str]:
    """The names a module binds at its top level."""
    names: set[str] = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
            if isinstance(node, ast.AnnAssign) else []
        names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def _is_id(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "id"


def _keyed_by_id(tree: ast.Module, globals_: set[str]) -> list[int]:
    """Lines where a module-level name is indexed or looked up by ``id(...)``."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in globals_ \
                and _is_id(node.slice):
            lines.append(node.lineno)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _LOOKUPS \
                and isinstance(node.func.value, ast.Name) and node.func.value.id in globals_ \
                and node.args and _is_id(node.args[0]):
            lines.append(node.lineno)
        if isinstance(node, ast.Compare) and _is_id(node.left) and any(
                isinstance(c, ast.Name) and c.id in globals_ for c in node.comparators):
            lines.append(node.lineno)
    return sorted(lines)


@pytest.mark.parametrize("package", PACKAGES)
def test_no_module_level_cache_keyed_by_id(package: str) -> None:
    found = []
    for path in sorted((ROOT / package).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [f"{path.relative_to(ROOT)}:{line}" for line in _keyed_by_id(tree, _module_names(tree))]
    assert found == []


def test_the_check_sees_one() -> None:
    tree = ast.parse("_CACHE: dict = {}\ndef f(x):\n    if id(x) in _CACHE:\n        return _CACHE[id(x)]\n"
                     "    return _CACHE.setdefault(id(x), x)\n")
    assert _keyed_by_id(tree, _module_names(tree)) == [3, 4, 5]
