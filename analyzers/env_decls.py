"""Read environment-variable declarations statically.

Shape (sglang ``srt/environ.py``): a registry class whose body binds upper-case
names to descriptor calls, ``SGLANG_X = EnvBool(False)``,
``SGLANG_Y = EnvIntWithAlias(4, deprecated_name="SGLANG_OLD")``; plus a
module-level table of retired names, ``{"SGLANG_OLD": _DeprecatedEnv(note=...)}``.
The value type comes from the descriptor class: its own name (``EnvBool`` ->
``bool``) or, for subclasses defined in the files, the first base that names one.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import replace

import libcst as cst
import libcst.matchers as m
from libcst.helpers import get_full_name_for_node

from analyzers.flags import EnvVar
from extractor.constant_values import ConstScope, constant_value, literal, render_text, source_text
from extractor.records import Diagnostic
from extractor.source_set import Outline, SourceModule
from extractor.symbols import Symbols

_ENV_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")
_DESCRIPTOR = re.compile(r"^Env([A-Z][A-Za-z0-9]*?)(?:WithAlias)?$")
_ABSTRACT = {"Field"}  # EnvField: the base every descriptor shares, no type of its own
_RETIRED_NAME = re.compile(r"Deprecated")
_USE = re.compile(r"(?i)\b(?:use|pass|replaced by|renamed to)\s+[\"'`]?(--[\w-]+|[A-Z][A-Z0-9_]{2,})")


def may_declare_env(outline: Outline | None) -> bool:
    """Whether a file may hold env declarations (a cheap ``ast`` screen; None: cannot tell).

    Registry entries are ``NAME = f(...)`` in a top-level class body; retired names
    sit in a module-level ``{key: f(...)}`` table.
    """
    if outline is None:
        return True
    return outline.dict_tables or any(c.top_level and c.call_assigns for c in outline.classes)


def _class_bases(symbols: Symbols) -> Mapping[str, tuple[str, ...]]:
    """Class name -> last components of its bases, for top-level classes of the files.

    Read from the ``ast`` outlines (no libcst parse); computed once per `Symbols`.
    """
    key = "env_decls.class_bases"
    if key in symbols.cache:
        return symbols.cache[key]
    out: dict[str, tuple[str, ...]] = {}
    sources = symbols.sources
    for path in sources.paths:
        outline = sources.outline(path)
        if outline is not None:
            named = [(c.name, c.bases) for c in outline.classes if c.top_level]
        else:  # ast cannot read it; libcst may
            mod = sources.module(path)
            stmts = mod.tree.body if mod is not None else ()
            named = [
                (stmt.name.value, tuple(get_full_name_for_node(a.value) or "" for a in stmt.bases if a.keyword is None))
                for stmt in stmts
                if isinstance(stmt, cst.ClassDef)
            ]
        for name, bases in named:
            out.setdefault(name, tuple(b.rsplit(".", 1)[-1] for b in bases))
    symbols.cache[key] = out
    return out


def descriptor_type(name: str, bases: Mapping[str, tuple[str, ...]], _seen: frozenset = frozenset()) -> str | None:
    """``EnvBool`` -> "bool"; ``EnvBoolWithAlias(_Mixin, EnvBool)`` -> "bool" (via its bases)."""
    match = _DESCRIPTOR.match(name)
    word = match.group(1) if match and match.group(1) not in _ABSTRACT else None
    if word and not name.endswith("WithAlias"):
        return word.lower()
    if name not in _seen:
        for base in bases.get(name, ()):
            found = descriptor_type(base, bases, _seen | {name})
            if found:
                return found
    return word.lower() if word else None  # a class we cannot see: its name says it


def _is_descriptor(name: str | None, bases: Mapping[str, tuple[str, ...]]) -> bool:
    if not name:
        return False
    return bool(_DESCRIPTOR.match(name)) or descriptor_type(name, bases) is not None


def module_env(mod: SourceModule, symbols: Symbols) -> tuple[tuple[EnvVar, ...], tuple[Diagnostic, ...]]:
    """Env declarations of one module, registry entries first, then retired names."""
    bases = _class_bases(symbols)
    scope = ConstScope(mod.path, symbols)
    declared: list[EnvVar] = []
    retired: list[EnvVar] = []
    diagnostics: list[Diagnostic] = []
    for stmt in mod.tree.body:
        if isinstance(stmt, cst.ClassDef):
            declared.extend(_registry(stmt, mod, scope, bases, diagnostics))
        elif isinstance(stmt, cst.SimpleStatementLine):
            retired.extend(_retired_table(stmt, mod, scope))
    return _merge_retired(declared, retired), tuple(diagnostics)


def _registry(
    cls: cst.ClassDef,
    mod: SourceModule,
    scope: ConstScope,
    bases: Mapping[str, tuple[str, ...]],
    diagnostics: list[Diagnostic],
) -> Iterable[EnvVar]:
    for stmt in cls.body.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if not m.matches(small, m.Assign(value=m.Call())):
                continue
            assign = cst.ensure_type(small, cst.Assign)
            call = cst.ensure_type(assign.value, cst.Call)
            kind = scope.symbols.origin_name(mod.path, call.func)
            if not _is_descriptor(kind, bases):
                continue
            target = assign.targets[0].target if len(assign.targets) == 1 else None
            if not isinstance(target, cst.Name) or not _ENV_NAME.match(target.value):
                text = source_text(assign.value)[:80]
                diagnostics.append(Diagnostic(mod.path, mod.line(stmt), f"env declaration not understood: {text}"))
                continue
            yield _env_var(target.value, call, kind or "", mod, stmt, scope, bases, diagnostics)


def _env_var(
    name: str,
    call: cst.Call,
    kind: str,
    mod: SourceModule,
    stmt: cst.CSTNode,
    scope: ConstScope,
    bases: Mapping[str, tuple[str, ...]],
    diagnostics: list[Diagnostic],
) -> EnvVar:
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    kw = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    default_node = kw.get("default", positional[0] if positional else None)
    if default_node is None:
        diagnostics.append(Diagnostic(mod.path, mod.line(stmt), f"{name}: no default in {source_text(call)[:80]}"))
    alias_node = kw.get("deprecated_name", positional[1] if len(positional) > 1 and "WithAlias" in kind else None)
    aliases: tuple[str, ...] = ()
    if alias_node is not None:
        alias = constant_value(alias_node, scope)
        if isinstance(alias, str):
            aliases = (alias,)
        elif isinstance(alias, tuple):
            aliases = tuple(a for a in alias if isinstance(a, str))
    return EnvVar(
        name=name,
        type=descriptor_type(kind, bases),
        default=literal(default_node, scope) if default_node is not None else None,
        deprecated_names=aliases,
        deprecated=False,
        replacement=None,
        help=None,
        path=mod.path,
        line=mod.line(stmt),
    )


def _retired_table(stmt: cst.SimpleStatementLine, mod: SourceModule, scope: ConstScope) -> Iterable[EnvVar]:
    """``{"OLD_NAME": Deprecated...(replacement=..., note=...)}`` at module level."""
    for small in stmt.body:
        value = small.value if isinstance(small, (cst.Assign, cst.AnnAssign)) else None
        if not isinstance(value, cst.Dict):
            continue
        for el in value.elements:
            var = _retired_entry(el, small, mod, scope) if isinstance(el, cst.DictElement) else None
            if var is not None:
                yield var


def _retired_entry(
    el: cst.DictElement, small: cst.BaseSmallStatement, mod: SourceModule, scope: ConstScope
) -> EnvVar | None:
    """One row of a retired-names table: a name and a call to a ``Deprecated...`` marker (else None)."""
    call = el.value
    if not isinstance(call, cst.Call):
        return None
    key = constant_value(el.key, scope)
    marker = scope.symbols.origin_name(mod.path, call.func) or ""
    if not isinstance(key, str) or not _ENV_NAME.match(key) or not _RETIRED_NAME.search(marker):
        return None
    kw = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    note = render_text(kw["note"], scope) if "note" in kw else None
    return EnvVar(
        name=key,
        type=None,
        default=None,
        deprecated_names=(),
        deprecated=True,
        replacement=_retired_replacement(call, note, scope),
        help=note,
        path=mod.path,
        line=mod.line(el, within=small),
    )


def _retired_replacement(call: cst.Call, note: str | None, scope: ConstScope) -> str | None:
    """The marker's ``replacement`` (keyword or first argument), else a name its note says to use."""
    kw = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    positional = [a.value for a in call.args if a.keyword is None]
    node = kw.get("replacement", positional[0] if positional else None)
    named = constant_value(node, scope) if node is not None else None
    if isinstance(named, str):
        return named
    hit = _USE.search(note) if note else None
    return hit.group(1) if hit else None


def _merge_retired(declared: list[EnvVar], retired: list[EnvVar]) -> tuple[EnvVar, ...]:
    """A retired-table entry for a name the registry still declares marks that one."""
    by_name: dict[str, EnvVar] = {}
    for var in declared:
        by_name.setdefault(var.name, var)
    for old in retired:
        current = by_name.get(old.name)
        if current is None:
            by_name[old.name] = old
        else:
            by_name[old.name] = replace(
                current, deprecated=True, replacement=old.replacement, help=current.help or old.help
            )
    return tuple(by_name.values())
