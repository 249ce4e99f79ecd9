"""Config helpers inlined: ``attn_dp_enabled_of(cfg)`` becomes what the helper returns
(``cfg.attn_dp_size > 1 or cfg.ep_join_mode == "scale"``), so triggers read flags
instead of opaque derived settings.

A helper is a function of the config alone that only binds locals and returns a value
(`extractor.sites` records it). Calls reach the catalog as derived references named
``helper()``; a name defined with two different bodies is left alone (ambiguous).
Helpers may live outside the target files: `helper_paths` follows the imports of the
names still wanted.
"""
from __future__ import annotations

import keyword
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import replace
from functools import partial

from extractor.ir import (
    KEYWORD,
    STATED_OR,
    Apply,
    Const,
    Expr,
    Ref,
    RefKind,
    map_children,
    positional,
    refs,
    replace_refs,
    simplify,
    substitute,
    walk,
)
from extractor.records import DERIVED_LINE, PARAMETER, Adjustment, FileSites

MAX_DEPTH = 4  # helpers calling helpers, inlined this deep


def helper_name(qualname: str) -> str:
    """How calls of a helper appear in the IR: ``ServerArgs.m`` / ``f`` -> ``m()`` / ``f()``."""
    return qualname.rsplit(".", 1)[-1] + "()"


def _called(expr: Expr) -> Iterable[str]:
    return (r.name for r in refs(expr) if r.kind is RefKind.FLAG and r.name.endswith("()") and "." not in r.name)


def wanted(files: Sequence[FileSites]) -> set[str]:
    """Helper names called in `files` (sites, adjustments, helpers, and the guards of call
    sites, which become the guards of the sites called there) that no file defines, as
    ``helper()``, and plain functions they call that no file defines, by name."""
    defined = {helper_name(q) for fs in files for q, _ in fs.helpers}
    functions = {q.rsplit(".", 1)[-1] for fs in files for q in fs.functions}
    found: set[str] = set()
    for fs in files:
        exprs = _read(fs)
        found.update(n for e in exprs for n in _called(e))
        found.update(n.fn for e in exprs for n in walk(e) if isinstance(n, Apply) and n.fn.isidentifier()
                     and n.text.startswith(f"{n.fn}(")  # a function's call, not a method's
                     and n.fn not in functions and not keyword.iskeyword(n.fn))
    return found - defined


def _read(fs: FileSites) -> list[Expr]:
    """Every condition and value `fs` records: sites, adjustments, earlier raises, helpers,
    plain functions' returns and the guards of call sites."""
    exprs = _exprs(fs) + [g.expr for _, guards in fs.priors.blocks for g in guards]
    exprs += [e for _, e in fs.helpers] + [e for _, _, e in fs.returns]
    return exprs + [g.expr for c in fs.calls for g in c.guards]


def helper_paths(files: Sequence[FileSites], names: Collection[str], available: Iterable[str]) -> list[str]:
    """Files (among `available`, not in `files`) that `files` import the `names` from."""
    have = {fs.path for fs in files}
    packages = {
        target.rpartition(".")[0].replace(".", "/")
        for fs in files for local, target in fs.imports if f"{local}()" in names or local in names
    }
    modules = {f"{p}{end}" for p in packages for end in (".py", "/__init__.py")}  # a module, or a package
    return sorted(p for p in available if p not in have and any(p.endswith("/" + m) or p == m for m in modules))


def definitions(files: Iterable[FileSites]) -> dict[str, Expr]:
    """Helper name -> its value with nested helpers inlined. A name is left out when it is
    ambiguous: two different bodies, or also the name of a function that is no helper."""
    files = list(files)
    bodies: dict[str, set[Expr]] = {}
    for fs in files:
        for qual, expr in fs.helpers:
            bodies.setdefault(helper_name(qual), set()).add(expr)
    helper_defs = {(fs.path, q) for fs in files for q, _ in fs.helpers}
    others = {helper_name(q) for fs in files for q in fs.functions if (fs.path, q) not in helper_defs}
    found = {name: next(iter(exprs)) for name, exprs in bodies.items() if len(exprs) == 1 and name not in others}
    for _ in range(MAX_DEPTH):  # nested calls, one level per pass (a cycle just stops)
        found = {name: inline(expr, found) for name, expr in found.items()}
    return found


def inline(expr: Expr, helpers: Mapping[str, Expr], aliases: Mapping[str, str] | None = None) -> Expr:
    """`expr` with helper calls replaced by their values (unchanged if it calls none);
    `aliases` maps a name the file imported under another name to the helper's."""
    aliases = aliases or {}
    if not any(aliases.get(name, name) in helpers for name in _called(expr)):
        return expr

    def one(ref: Ref) -> Expr:
        return helpers.get(aliases.get(ref.name, ref.name), ref) if ref.kind is RefKind.FLAG else ref

    return simplify(replace_refs(expr, one))


def _aliases(fs: FileSites) -> dict[str, str]:
    """``from lib import h as g`` -> {"g()": "h()"}."""
    return {f"{local}()": f"{target.rpartition('.')[2]}()" for local, target in fs.imports
            if local != target.rpartition(".")[2]}


Returns = Mapping[str, tuple[tuple[str, ...], Expr]]  # function name -> (parameters, what it returns)


def return_definitions(files: Iterable[FileSites]) -> dict[str, tuple[tuple[str, ...], Expr]]:
    """Plain functions (`FileSites.returns`) by name, with nested calls of each other
    inlined. A name is left out when it is ambiguous: two different bodies, or also the
    name of a function that has none."""
    files = list(files)
    bodies: dict[str, set[tuple[tuple[str, ...], Expr]]] = {}
    for fs in files:
        for qual, params, expr in fs.returns:  # a config method by its name, as its calls read
            bodies.setdefault(qual.rpartition(".")[2], set()).add((params, expr))
    summarized = {(fs.path, q) for fs in files for q, _, _ in fs.returns}
    others = {q.rsplit(".", 1)[-1] for fs in files for q in fs.functions if (fs.path, q) not in summarized}
    found = {name: next(iter(b)) for name, b in bodies.items() if len(b) == 1 and name not in others}
    for _ in range(MAX_DEPTH):
        found = {name: (params, inline_returns(expr, found)) for name, (params, expr) in found.items()}
    return found


def inline_returns(expr: Expr, returns: Returns) -> Expr:
    """`expr` with calls ``f(a, b)`` of summarised functions replaced by ``STATED_OR(call,
    body)``: what a launch states the call returns, else what `f` returns for those arguments
    (parameters not passed stay unknown); a call passing the config (``f(cfg, x)``, the
    derived setting ``f()``) by what `f` returns for the same config, its other parameters
    unknown."""
    derived = {f"{name}()": body for name, (_, body) in returns.items()}

    def visit(node: Expr) -> Expr:
        if isinstance(node, Ref) and node.kind is RefKind.FLAG and node.name in derived:
            return derived[node.name]
        node = map_children(node, visit)
        if isinstance(node, Apply) and node.fn in returns:
            params, body = returns[node.fn]
            given = positional(node.args)
            named = {a.args[0].value: a.args[1] for a in node.args[len(given):]
                     if isinstance(a, Apply) and a.fn == KEYWORD and isinstance(a.args[0], Const)}
            if len(given) <= len(params) and set(named) <= set(params[len(given):]):
                bound = {**dict(zip(params, given, strict=False)), **named}
                found = substitute(body, {Ref(RefKind.UNKNOWN, p, f"{PARAMETER}{p}"): a for p, a in bound.items()})
                return Apply(STATED_OR, (node, found), node.text)
        return node

    return simplify(visit(expr)) if returns else expr


def inline_helpers(files: Sequence[FileSites], extra: Iterable[FileSites] = ()) -> list[FileSites]:
    """`files` with calls of config helpers (defined in `files` or `extra`) inlined, and in
    the settings the code computes (adjustments), calls of plain functions by what they
    return. Triggers keep showing such a call as the source writes it."""
    out = helper_calls_inlined(files, extra)
    returns = return_definitions([*files, *extra])
    if not returns:
        return out
    computed = partial(inline_returns, returns=returns)
    out = [replace(fs, adjustments=tuple(a.map_exprs(computed) for a in fs.adjustments)) for fs in out]
    return [replace(fs, returns=_definitions_read(fs, returns)) for fs in _with_derived(out, returns)]


def helper_calls_inlined(files: Sequence[FileSites], extra: Iterable[FileSites] = ()) -> list[FileSites]:
    """`files` with calls of config helpers (defined in `files` or `extra`) inlined in their
    conditions; what plain functions compute is left to `inline_helpers`."""
    helpers = definitions([*files, *extra])
    if not helpers:
        return list(files)
    return [fs.map_exprs(partial(inline, helpers=helpers, aliases=_aliases(fs))) for fs in files]


def _exprs(fs: FileSites) -> list[Expr]:
    exprs = [g.expr for s in fs.sites for g in (*s.direct, *(g for v in s.variants for g in v.guards))]
    return exprs + [e for a in fs.adjustments for e in (a.value, *(g.expr for g in a.guards))]


def _definitions_read(fs: FileSites, returns: Returns) -> tuple[tuple[str, tuple[str, ...], Expr], ...]:
    """What each plain function `fs`'s checks and adjustments call returns (defined in any
    file, its own calls inlined): what the evaluator computes such a call from
    (`called_functions`)."""
    called = {n.fn for e in _exprs(fs) for n in walk(e) if isinstance(n, Apply) and n.fn in returns}
    return tuple((name, *returns[name]) for name in sorted(called))


def called_functions(files: Iterable[FileSites]) -> dict[str, tuple[tuple[str, ...], Expr]]:
    """After `inline_helpers`: the plain functions the files' checks call, by name (a
    catalog's ``functions``)."""
    return {name: (params, body) for fs in files for name, params, body in fs.returns}


def _with_derived(files: list[FileSites], returns: Returns) -> list[FileSites]:
    """`files` with one adjustment per derived setting read that a summarised function
    computes (``supports_x(cfg, hf_config)`` read as ``supports_x()``): the setting is what
    the function returns for the config, always, so the evaluator reads it like any other
    adjusted setting. Kept on the first file that reads it."""
    seen: set[str] = set()
    out = []
    for fs in files:
        read = sorted({n for e in _exprs(fs) for n in _called(e) if n[:-2] in returns} - seen)
        seen.update(read)
        derived = tuple(Adjustment(n[:-2], DERIVED_LINE, n, returns[n[:-2]][1], (), fs.path, -1 - i)
                        for i, n in enumerate(read))
        out.append(replace(fs, adjustments=fs.adjustments + derived) if derived else fs)
    return out
