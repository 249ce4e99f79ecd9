"""Names the modules of a `SourceSet` bind at top level, resolved across the files.

`Symbols` answers "what does this name refer to" for the declaration readers and the
constant evaluator (`extractor.constant_values`): module-level assignments, class
bodies and ``from x import y`` imports (made absolute), followed from file to file. A
module is parsed (through its `SourceSet`) when a name first leads into it.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import libcst as cst
import libcst.matchers as m
from libcst.helpers import get_full_name_for_node

from extractor.source_set import SourceSet, module_name


@dataclass(frozen=True, slots=True)
class _Import:
    module: str  # dotted, already made absolute
    name: str


@dataclass(frozen=True, slots=True)
class Bindings:
    """Names one module binds at top level."""

    assigns: Mapping[str, cst.BaseExpression]  # NAME = value (later ones win)
    classes: Mapping[str, Mapping[str, cst.BaseExpression]]  # class -> its attributes
    imports: Mapping[str, _Import]  # local name -> where it comes from
    class_defs: Mapping[str, cst.ClassDef]


_NO_BINDINGS = Bindings({}, {}, {}, {})


class Symbols:
    """Names each module binds at top level, so constants resolve across files.

    A module is parsed (through its `SourceSet`) when a name first leads into it.
    """

    __slots__ = ("_bindings", "cache", "sources")

    def __init__(self, sources: SourceSet) -> None:
        self.sources = sources
        # Answers that only depend on the files, kept by the readers (e.g. module_for).
        self.cache: dict[object, Any] = {}
        self._bindings: dict[str, Bindings] = {}

    def bindings(self, path: str) -> Bindings:
        """What `path` binds at top level (nothing if it is not in the set or unparsable)."""
        found = self._bindings.get(path)
        if found is None:
            mod = self.sources.module(path)
            found = _top_level_bindings(path, mod.tree) if mod is not None else _NO_BINDINGS
            self._bindings[path] = found
        return found

    def module_for(self, dotted: str) -> str | None:
        """Path of the analysed module an import names (matched by dotted suffix)."""
        key = ("module_for", dotted)
        if key not in self.cache:
            names = self.sources.names
            hits = [p for p, name in names.items() if name == dotted or name.endswith("." + dotted)]
            self.cache[key] = min(hits, key=len) if hits else None
        return self.cache[key]

    def resolve(self, path: str, name: str, _seen: frozenset = frozenset()) -> tuple[str, str] | None:
        """The (path, name) that really binds `name` as seen from `path`."""
        key = (path, name)
        if key in _seen:
            return None
        here = self.bindings(path)
        if name in here.assigns or name in here.class_defs:
            return key
        imp = here.imports.get(name)
        if imp is None:
            return None
        target = self.module_for(imp.module)
        if target is None:
            return None
        return self.resolve(target, imp.name, _seen | {key})

    def origin_name(self, path: str, node: cst.BaseExpression) -> str | None:
        """Last component of the name `node` finally refers to.

        Follows imports and plain aliases (``A = Annotated``); a name imported from
        a module we were not given keeps its imported name.
        """
        seen: set[tuple[str, str]] = set()
        while True:
            full = get_full_name_for_node(node)
            if full is None:
                return None
            if "." in full:
                return full.rsplit(".", 1)[1]
            if (path, full) in seen:
                return full
            seen.add((path, full))
            here = self.bindings(path)
            imp = here.imports.get(full)
            if imp is not None:
                target = self.module_for(imp.module)
                if target is None:
                    return imp.name
                path, node = target, cst.Name(imp.name)
                continue
            value = here.assigns.get(full)
            if value is not None and m.matches(value, m.Name() | m.Attribute()):
                node = value
                continue
            return full

    def class_def(self, path: str, node: cst.BaseExpression) -> cst.ClassDef | None:
        """The analysed class a (possibly imported) name refers to."""
        name = get_full_name_for_node(node)
        if name is None or "." in name:
            return None
        where = self.resolve(path, name)
        return self.bindings(where[0]).class_defs.get(where[1]) if where else None

    def init_defaults(self, path: str, node: cst.BaseExpression) -> dict[str, cst.BaseExpression]:
        """Keyword defaults of an analysed class's ``__init__`` (e.g. a custom argparse action)."""
        cls = self.class_def(path, node)
        if cls is None:
            return {}
        for stmt in cls.body.body:
            if m.matches(stmt, m.FunctionDef(name=m.Name("__init__"))):
                params = cst.ensure_type(stmt, cst.FunctionDef).params
                every = [*params.params, *params.kwonly_params]
                return {p.name.value: p.default for p in every if p.default is not None}
        return {}


def _absolute_module(importer: str, node: cst.ImportFrom) -> str:
    target = get_full_name_for_node(node.module) if node.module is not None else ""
    level = len(node.relative)
    if not level:
        return target or ""
    is_package = importer.endswith("__init__.py")
    package = module_name(importer).split(".")
    drop = level - 1 if is_package else level
    base = package[: len(package) - drop] if drop else package
    return ".".join([*base, target] if target else base)


def _top_level_bindings(path: str, tree: cst.Module) -> Bindings:
    assigns: dict[str, cst.BaseExpression] = {}
    classes: dict[str, dict[str, cst.BaseExpression]] = {}
    class_defs: dict[str, cst.ClassDef] = {}
    imports: dict[str, _Import] = {}
    for stmt in tree.body:
        if isinstance(stmt, cst.ClassDef):
            classes[stmt.name.value] = dict(_assignments(stmt.body.body))
            class_defs[stmt.name.value] = stmt
        elif isinstance(stmt, cst.SimpleStatementLine):
            assigns.update(_assignments([stmt]))
            for small in stmt.body:
                if isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                    module = _absolute_module(path, small)
                    for alias in small.names:
                        name = get_full_name_for_node(alias.name) or ""
                        local = alias.asname.name.value if alias.asname else name  # type: ignore[union-attr]
                        imports[local] = _Import(module, name)
    return Bindings(assigns, classes, imports, class_defs)


def _assignments(statements: Iterable[cst.CSTNode]) -> Iterator[tuple[str, cst.BaseExpression]]:
    """``NAME = value`` / ``NAME: T = value`` bindings; later ones win."""
    for stmt in statements:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.Assign) and small.value is not None:
                for target in small.targets:
                    if isinstance(target.target, cst.Name):
                        yield target.target.value, small.value
            elif isinstance(small, cst.AnnAssign) and small.value is not None and isinstance(small.target, cst.Name):
                yield small.target.value, small.value


