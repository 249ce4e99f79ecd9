"""What a statement suite or function does, read from its code alone: the exceptions a handler
catches, whether it passes it on, how a suite exits, the locals it computes or imports, what a
helper returns."""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import libcst as cst
from libcst.helpers import get_full_name_for_node

from extractor.cstutil import dotted, last_name, literal_value, norm_code
from extractor.exceptions import catches
from extractor.ir import (
    UNSET_OR,
    Apply,
    Const,
    Expr,
    Ref,
    RefKind,
    Truthy,
)
from extractor.records import (
    GuardOrigin,
)


def handler_catches(handler: cst.ExceptHandler | cst.ExceptStarHandler, exception: str) -> bool:
    """Does `handler` catch `exception` (a class name as raised)? By name, and by the builtin
    hierarchy (``except LookupError`` catches KeyError); another class it is not known to catch."""
    return handler.type is None or catches(caught_names(handler), exception)




def caught_names(handler: cst.ExceptHandler | cst.ExceptStarHandler) -> tuple[str, ...]:
    """The class names an ``except`` clause names (a bare one: ``BaseException``)."""
    if handler.type is None:
        return ("BaseException",)
    kinds = handler.type.elements if isinstance(handler.type, cst.Tuple) else (cst.Element(handler.type),)
    return tuple(last_name(k.value) or norm_code(k.value) for k in kinds)


def computed_names(suite: cst.BaseSuite) -> tuple[str, ...] | None:
    """The names a try body binds, in order, when binding values is all it does
    (``middle = float(rule[1])``): then what it raises is what computing them raises.
    None for any other statement, or a name bound twice."""
    names: list[str] = []
    for stmt in suite_statements(suite):
        if not isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            return None
        for small in stmt.body:
            if isinstance(small, cst.Pass):
                continue
            if isinstance(small, cst.Assign) and len(small.targets) == 1:
                target: cst.BaseExpression = small.targets[0].target
            elif isinstance(small, cst.AnnAssign) and small.value is not None:
                target = small.target
            else:
                return None
            if not isinstance(target, cst.Name) or target.value in names:
                return None
            names.append(target.value)
    return tuple(names)


def imported_modules(suite: cst.BaseSuite) -> tuple[str, ...] | None:
    """The top-level modules a block imports, when importing is all it does (else None)."""
    found: list[str] = []
    for stmt in suite_statements(suite):
        if not isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            return None
        for small in stmt.body:
            if isinstance(small, cst.Import):
                found += [(get_full_name_for_node(a.name) or "").split(".")[0] for a in small.names]
            elif isinstance(small, cst.ImportFrom) and small.module is not None and not small.relative:
                found.append((get_full_name_for_node(small.module) or "").split(".")[0])
            else:
                return None
    return tuple(dict.fromkeys(found)) if found else None


def passes_on(handler: cst.ExceptHandler | cst.ExceptStarHandler) -> bool:
    """Does an except block pass what it caught on to the user: a bare ``raise``, or a new
    error carrying the caught one's message unchanged (``raise E(str(err)) from err``)? The
    user then reads the message the inner raise wrote. Raises in nested defs do not count."""
    name = bound_name(handler)
    found = False

    class _Raises(cst.CSTVisitor):
        def visit_Raise(self, node: cst.Raise) -> None:
            nonlocal found
            found = found or node.exc is None or forwards(node.exc, name)

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return False

    handler.body.visit(_Raises())
    return found


def bound_name(handler: cst.ExceptHandler | cst.ExceptStarHandler) -> str:
    """The name ``except E as err`` binds the caught error to ("": none)."""
    return handler.name.name.value if handler.name is not None and isinstance(handler.name.name, cst.Name) else ""


def forwards(exc: cst.BaseExpression, name: str) -> bool:
    """``E(err)``, ``E(str(err))`` or ``E(f"{err}")`` where `name` is the caught error
    (``except ... as err``; "": none is bound): the message is the caught error's own."""
    if not name or not isinstance(exc, cst.Call) or len(exc.args) != 1 \
            or exc.args[0].keyword is not None or exc.args[0].star:
        return False
    arg = exc.args[0].value
    if isinstance(arg, cst.Call) and dotted(arg.func) == "str" and len(arg.args) == 1 and not arg.args[0].star:
        arg = arg.args[0].value
    elif isinstance(arg, cst.FormattedString) and len(arg.parts) == 1 \
            and isinstance(arg.parts[0], cst.FormattedStringExpression) and arg.parts[0].conversion in (None, "s") \
            and arg.parts[0].format_spec is None:
        arg = arg.parts[0].expression
    return isinstance(arg, cst.Name) and arg.value == name


def declared_locals(fn: cst.FunctionDef, setters: Iterable[str]) -> dict[str, str]:
    """Locals of `fn` a setter call declares as a setting: ``setter(x=config)`` -> {config: x}."""
    wanted = frozenset(setters)
    found: dict[str, str] = {}

    class _Find(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            if last_name(node.func) in wanted:
                for arg in node.args:
                    if arg.keyword is not None and isinstance(arg.value, cst.Name):
                        found[arg.value.value] = arg.keyword.value

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return False

    if wanted:
        fn.body.visit(_Find())
    return found


def simple_statements(fn: cst.FunctionDef) -> list[cst.BaseSmallStatement]:
    """The small statements of `fn`'s body (docstring included); none if it has any other."""
    out: list[cst.BaseSmallStatement] = []
    for stmt in suite_statements(fn.body):
        if not isinstance(stmt, cst.SimpleStatementLine):
            return []
        out.extend(stmt.body)
    return out


def writes_fields_only(fn: cst.FunctionDef) -> bool:
    """A small function of plain calls (``setattr(...)``, ``locked.add(...)``): nothing to
    raise or return, so reading its writes at each call loses nothing."""
    small = simple_statements(fn)
    return 0 < len(small) <= 8 and all(
        isinstance(s, cst.Expr) and isinstance(s.value, (cst.Call, cst.SimpleString, cst.ConcatenatedString))
        for s in small) and any(isinstance(s, cst.Expr) and isinstance(s.value, cst.Call)
                                and dotted(s.value.func) == "setattr" for s in small)


def walruses(node: cst.BaseExpression) -> list[cst.NamedExpr]:
    """The ``(x := v)`` in an expression, outside lambdas and comprehensions (their own scopes)."""
    found: list[cst.NamedExpr] = []

    class _Find(cst.CSTVisitor):
        def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
            found.append(node)

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return False

    node.visit(_Find())
    return found


def exit_kind(suite: cst.BaseSuite) -> GuardOrigin | None:
    """How a block ends, if it always leaves: return/continue/break vs raise."""
    body: Sequence[cst.CSTNode] = suite.body
    if not body:
        return None
    last = body[-1]
    if isinstance(last, cst.SimpleStatementLine):
        if not last.body:
            return None
        last = last.body[-1]
    if isinstance(last, (cst.Return, cst.Continue, cst.Break)):
        return GuardOrigin.EARLY_EXIT
    if isinstance(last, cst.Raise) or (isinstance(last, cst.Assert) and literal_value(last.test) == (True, False)):
        return GuardOrigin.PRIOR_RAISE  # ``assert False, msg`` always raises
    return None


def suite_statements(suite: cst.BaseSuite) -> Sequence[cst.CSTNode]:
    """The statements of a block; a one-line suite (``if c: raise X``) is one statement."""
    return [suite] if isinstance(suite, cst.SimpleStatementSuite) else suite.body


HELPER_STEPS = (cst.Assign, cst.AnnAssign, cst.Import, cst.ImportFrom, cst.Expr)


def small_yields(small: cst.BaseSmallStatement) -> bool:
    """``yield`` as the statement's value (``x = yield``): in straight-line code, where
    a generator shows (a yield buried inside another expression is not looked for)."""
    return isinstance(getattr(small, "value", None), cst.Yield)


def literal_defaults(params: cst.Parameters) -> tuple[tuple[str, Expr], ...]:
    """The parameters whose default is a literal constant (``gpu_mem=None``), with it: what
    a call that does not pass them binds."""
    out = []
    for p in (*params.posonly_params, *params.params, *params.kwonly_params):
        if p.default is not None:
            ok, value = literal_value(p.default)
            if ok and (value is None or isinstance(value, (bool, int, float, str))):
                out.append((p.name.value, Const(value)))
    return tuple(out)


def summarised(node: cst.FunctionDef, qual: str, params: list[str], config_method: bool = False) -> bool:
    """A module-level function, or a method of the config taking more than `self`
    (``ServerArgs._get_default_attn_backend(self, use_mla, model_config)``, read as the
    derived setting ``_get_default_attn_backend()``), with no decorator (which may change
    what a call does): what it returns can stand in for its calls (`extractor.returns`;
    one of no parameters only where `extractor.returns.kept` says)."""
    plain = "." not in qual
    method = config_method and qual.count(".") == 1 and len(params) > 1 and params[0] == "self"
    return (plain or method) and node.asynchronous is None and not node.decorators \
        and isinstance(node.body, cst.IndentedBlock)


def helper_return_of(node: cst.FunctionDef) -> cst.Return | None:
    """The ``return`` of a function that only binds locals and then returns a value
    (``def attn_dp_enabled_of(cfg): return cfg.attn_dp_size > 1``), else None."""
    stmts = suite_statements(node.body)
    lines = (cst.SimpleStatementLine, cst.SimpleStatementSuite)
    if not stmts or node.asynchronous is not None or not isinstance(stmts[-1], lines):
        return None
    for stmt in stmts:
        if not isinstance(stmt, lines):
            return None
        for small in stmt.body:
            if isinstance(small, cst.Expr) and not isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString)):
                return None  # a call made for its effect
            if not isinstance(small, HELPER_STEPS) and small is not stmts[-1].body[-1]:
                return None
    last = stmts[-1].body[-1]
    if not isinstance(last, cst.Return) or last.value is None:
        return None
    if any(small_yields(small) for stmt in stmts for small in stmt.body):  # type: ignore[attr-defined]
        return None  # a generator: calls of it return no value
    return last


_LATER = (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


def calls_in(node: cst.CSTNode, *, nested: bool = False) -> list[cst.Call]:
    """The outermost calls inside `node` (itself included; with `nested`, the calls in
    their arguments too), not inside a lambda or a comprehension (those run later, or
    once per item)."""
    if isinstance(node, cst.Call):
        return [node, *(c for child in node.children for c in calls_in(child, nested=True))] if nested else [node]
    if isinstance(node, _LATER):
        return []
    return [c for child in node.children for c in calls_in(child, nested=nested)]


def once_guard(test: Expr, sets: frozenset[str]) -> bool:
    """Is ``if <test>: return`` a guard against running twice: `test` reads one private attribute
    (``getattr(self, "_done", False)``), false while it is unset, that the function itself sets
    (`sets`) later? A launch runs the function once: the guard never leaves on that run."""
    # only a read with a default: a plain ``self._done`` may be set before the function runs
    term = test.term if isinstance(test, Truthy) else None
    if not (isinstance(term, Apply) and term.fn == UNSET_OR and len(term.args) == 2):
        return False
    read, default = term.args
    return isinstance(default, Const) and not default.value and isinstance(read, Ref) \
        and read.kind is RefKind.FLAG and read.name.startswith("_") and read.name in sets
