"""Crash sites: operations in the walked code that fail on a value the user controls, with no
check of the project's own in the way (``x % cfg.nnodes`` with ``--nnodes 0``). Each is a
raise site of kind `SiteKind.CRASH` under the walk's guards (those of the statement, and the
short-circuit tests before the operation inside it), carrying Python's exception and message
(`extractor.crash_kinds`). What follows it needs it not to have failed, as after an ``assert``
(``assert a % cfg.n == 0, "..."`` fails with the crash where `--n` is 0, not with its message):
an earlier raise, which a later trigger shows only where it reads the same value."""
from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from extractor.crash_kinds import (
    DIVISION,
    DIVMOD,
    FLOAT,
    FLOOR_DIVISION,
    INT,
    JSON,
    KEY,
    MODULO,
    NONE_ATTRIBUTE,
    NONE_ITERATION,
    NONE_LEN,
    NONE_MEMBERSHIP,
    NONE_SUBSCRIPT,
    NONE_UNPACK,
    TOO_FEW,
    TOO_MANY,
    Crash,
    CrashKind,
    divisor_test,
)
from extractor.cst_ir import MAX_DEPTH, chain_operands, term, to_ir
from extractor.cstutil import dotted, norm_code
from extractor.frozen import FrozenMap
from extractor.ir import RAISES, Apply, Compare, Const, Expr, Ref, RefKind, Truthy, conj, negate, refs, unknowns
from extractor.messages import Option
from extractor.raise_sites import RaiseSites
from extractor.records import Guard, GuardOrigin, SiteKind, bound_by_callers
from extractor.templates import Template, parse_template
from extractor.walk_state import WalkState

_DIVIDES = {cst.Modulo: MODULO, cst.Divide: DIVISION, cst.FloorDivide: FLOOR_DIVISION}
_AUGMENTED = {cst.ModuloAssign: MODULO, cst.DivideAssign: DIVISION, cst.FloorDivideAssign: FLOOR_DIVISION}
_TEXTS = (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)
_USER = (RefKind.FLAG, RefKind.ENV)
_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)


def user_value(expr: Expr) -> bool:
    """Does `expr` read an option or env var, and nothing errcat cannot interpret?"""
    return any(r.kind in _USER for r in refs(expr)) and not unknowns(expr)


def passed_value(expr: Expr) -> bool:
    """Is `expr` a user value, or read from the function's parameters alone (what its call
    sites pass may be one: `extractor.callers.with_caller_guards` keeps the crash where it is)?
    For a conversion only (``json.loads(overrides)``): a divisor passed in is a helper's
    (``tp_size // attn_dp_size``), called from many places, the earliest of them often before
    the check of the value (sglang 0.5.23 ``derive_attn_tp_size`` after ``--attn-dp-size must be
    positive``), so the program order would put the crash first where it never fires."""
    return user_value(expr) or (bool(unknowns(expr)) and bound_by_callers(expr))


def setting(expr: Expr) -> bool:
    """Is `expr` one option's value as such (not the config object itself)?"""
    return isinstance(expr, Ref) and expr.kind is RefKind.FLAG and expr.name != "*"


def evaluated(stmt: cst.CSTNode) -> Iterator[cst.BaseExpression]:
    """The expressions a statement computes before its own effect (a compound statement:
    its header only; an ``elif`` test is not read)."""
    if isinstance(stmt, (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Expr, cst.Return)):
        if stmt.value is not None:
            yield stmt.value
    elif isinstance(stmt, (cst.If, cst.While, cst.Assert)):
        yield stmt.test
    elif isinstance(stmt, cst.For):
        yield stmt.iter


# CST levels of an expression whose operation is read (a level of the IR is one or more of them)
_DEEPEST = 2 * MAX_DEPTH


class CrashSites:
    """Finds one statement's crash sites and records them as raise sites (`RaiseSites`)."""

    def __init__(self, state: WalkState, raise_sites: RaiseSites) -> None:
        self.state = state
        self.raise_sites = raise_sites
        self.stmt: cst.CSTNode | None = None

    def statement(self, stmt: cst.CSTNode) -> None:
        self.stmt = stmt
        for expr in evaluated(stmt):
            self._visit(expr, ())
        if isinstance(stmt, cst.For):  # its body runs only over items: no earlier raise to add
            self._none(stmt.iter, stmt.iter, NONE_ITERATION, (), push=False)
        elif isinstance(stmt, cst.AugAssign) and (kind := _AUGMENTED.get(type(stmt.operator))) is not None:
            self._divisor(stmt, stmt.value, kind, ())
        elif isinstance(stmt, cst.Assign):
            for target in stmt.targets:
                if isinstance(target.target, (cst.Tuple, cst.List)):
                    self._unpacked(target.target, stmt.value)

    # ---------------------------------------------------------- the expression walk

    def _visit(self, node: cst.CSTNode, local: tuple[Guard, ...]) -> int:
        """`node`'s operands first, then its own operation (Python's order); the right side of
        ``and``/``or`` and the branches of ``x if c else y`` under what lets them run. Returns
        the depth of `node`'s tree: an operation deeper than `_DEEPEST` is not read (its
        operands read as unknown past `MAX_DEPTH` anyway, and reading each of a long chain of
        ``a[0][0]...`` again would cost the square of its length)."""
        scope = self.state.scope
        if isinstance(node, cst.BooleanOperation):  # ``a and b and c``: one chain, not nested pairs
            conjunction = isinstance(node.operator, cst.And)
            guards, depth = local, 0
            for operand in chain_operands(node):
                depth = max(depth, self._visit(operand, guards))
                test = to_ir(operand, scope)
                guards = (*guards, Guard(test if conjunction else negate(test), norm_code(operand), GuardOrigin.IF))
            return depth + 1
        if isinstance(node, cst.IfExp):
            depth = self._visit(node.test, local)
            test, text = to_ir(node.test, scope), norm_code(node.test)
            depth = max(depth, self._visit(node.body, (*local, Guard(test, text, GuardOrigin.IF))))
            depth = max(depth, self._visit(node.orelse, (*local, Guard(negate(test), f"not ({text})",
                                                                        GuardOrigin.ELSE))))
            return depth + 1
        if isinstance(node, cst.Lambda):
            return 1
        if isinstance(node, _COMPREHENSIONS):  # the first iterable runs here, the rest per item
            depth = self._visit(node.for_in.iter, local)
            self._iterated(node.for_in.iter, local)
            return depth + 1
        depth = 1 + max((self._visit(child, local) for child in node.children), default=0)
        if isinstance(node, cst.BaseExpression) and depth <= _DEEPEST:
            self._operation(node, local)
        return depth

    def _operation(self, node: cst.BaseExpression, local: tuple[Guard, ...]) -> None:
        if isinstance(node, cst.BinaryOperation) and (kind := _DIVIDES.get(type(node.operator))) is not None:
            if not (kind is MODULO and isinstance(node.left, _TEXTS)):  # "%s" % x formats
                self._divisor(node, node.right, kind, local)
        elif isinstance(node, cst.Call):
            self._call(node, local)
        elif isinstance(node, cst.Subscript):
            self._subscript(node, local)
        elif isinstance(node, cst.Comparison):
            for target in node.comparisons:
                if isinstance(target.operator, (cst.In, cst.NotIn)):
                    self._none(node, target.comparator, NONE_MEMBERSHIP, local)

    def _call(self, node: cst.Call, local: tuple[Guard, ...]) -> None:
        name = dotted(node.func)
        args = [a.value for a in node.args if a.keyword is None and not a.star]
        if name == "divmod" and len(args) == 2:
            self._divisor(node, args[1], DIVMOD, local)
        elif name in ("int", "float") and len(args) == 1 and len(node.args) == 1:
            kind = INT if name == "int" else FLOAT
            head = kind.message.partition("{")[0]
            self._converted(node, args[0], kind, Template.literal(head) + Template.hole(norm_code(args[0]), "r"), local)
        elif name in ("json.loads", "loads") and len(args) == 1:
            self._converted(node, args[0], JSON, parse_template(JSON.message), local)
        elif name == "len" and len(args) == 1:
            self._none(node, args[0], NONE_LEN, local)
        elif isinstance(node.func, cst.Attribute):
            message = NONE_ATTRIBUTE.message.replace("{name}", node.func.attr.value)
            self._none(node, node.func.value, NONE_ATTRIBUTE, local, Template.literal(message))

    def _subscript(self, node: cst.Subscript, local: tuple[Guard, ...]) -> None:
        scope = self.state.scope
        base = term(node.value, scope)
        if setting(base):
            self._none(node, node.value, NONE_SUBSCRIPT, local)
            return
        index = node.slice[0].slice if len(node.slice) == 1 else None
        if not (isinstance(base, Const) and isinstance(base.value, FrozenMap) and isinstance(index, cst.Index)):
            return
        key = term(index.value, scope)
        if user_value(key):
            text = norm_code(index.value)
            crash = Crash(KEY.operation, norm_code(node), text, f"{text} not in {norm_code(node.value)}",
                          f"one of {', '.join(map(repr, sorted(map(str, base.value))))}")
            self._add(node, KEY, Template.hole(text, "r"), _raises(KEY, term(node, scope), norm_code(node)),
                      local, crash)

    # ---------------------------------------------------------- kinds of operation

    def _divisor(self, node: cst.CSTNode, divisor: cst.BaseExpression, kind: CrashKind,
                 local: tuple[Guard, ...]) -> None:
        value = term(divisor, self.state.scope)
        if not user_value(value):
            return
        text = norm_code(divisor)
        test, wants = divisor_test(text, setting(value))
        crash = Crash(kind.operation, norm_code(node), text, test, wants)
        cond = Compare("==", value, Const(0))
        self._add(node, kind, Template.literal(kind.message), Guard(cond, f"{text} == 0", GuardOrigin.IF),
                  local, crash)

    def _converted(self, node: cst.Call, arg: cst.BaseExpression, kind: CrashKind, template: Template,
                   local: tuple[Guard, ...]) -> None:
        scope = self.state.scope
        if not passed_value(term(arg, scope)):
            return
        text = norm_code(arg)
        wants = {"int": "an integer", "float": "a number"}.get(kind.operation, "valid JSON")
        crash = Crash(kind.operation, norm_code(node), text, f"{norm_code(node)} raises ValueError", wants)
        self._add(node, kind, template, _raises(kind, term(node, scope), norm_code(node)), local, crash)

    def _none(self, node: cst.CSTNode, value: cst.BaseExpression, kind: CrashKind, local: tuple[Guard, ...],
              template: Template | None = None, *, push: bool = True) -> None:
        got = term(value, self.state.scope)
        if not setting(got) or self._tested(got, local):
            return
        text = norm_code(value)
        crash = Crash(kind.operation, norm_code(node), text, f"{text} is None", "set")
        self._add(node, kind, template or Template.literal(kind.message),
                  Guard(Compare("is", got, Const(None)), f"{text} is None", GuardOrigin.IF), local, crash, push=push)

    def _iterated(self, items: cst.BaseExpression, local: tuple[Guard, ...]) -> None:
        self._none(items, items, NONE_ITERATION, local)

    def _unpacked(self, target: cst.Tuple | cst.List, value: cst.BaseExpression) -> None:
        """``a, b = x`` with `x` None; ``a, b = text.split(s)`` with too few or many parts."""
        if any(isinstance(el, cst.StarredElement) for el in target.elements):
            return
        self._none(value, value, NONE_UNPACK, ())
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
                and value.func.attr.value == "split"):
            return
        parts = term(value, self.state.scope)
        if not user_value(parts):
            return
        count, text = Apply("len", (parts,), f"len({norm_code(value)})"), norm_code(value)
        want = len(target.elements)
        for kind, op, message in ((TOO_FEW, "<", TOO_FEW.message.replace("{expected}", str(want))),
                                  (TOO_MANY, ">", TOO_MANY.message.replace("{expected}", str(want)))):
            test = f"len({text}) {op} {want}"
            crash = Crash(kind.operation, f"{norm_code(target)} = {text}", norm_code(value.func.value), test,
                          f"{want} parts")
            template = parse_template(message.replace("{got}", f"{{len({text})}}"))
            self._add(value, kind, template, Guard(Compare(op, count, Const(want)), test, GuardOrigin.IF), (), crash)

    def _tested(self, value: Expr, local: tuple[Guard, ...]) -> bool:
        """Does a test on the path read `value` (``if x:``, ``isinstance(x, C)``)? Then the code
        looked at it before using it: whether it can still be None there is not errcat's guess."""
        return any(value in refs(g.expr) for g in (*self.state.frame.guards, *local))

    # ---------------------------------------------------------- the record

    def _add(self, node: cst.CSTNode, kind: CrashKind, template: Template, fails: Guard,
             local: tuple[Guard, ...], crash: Crash, *, push: bool = True) -> None:
        state = self.state
        line = state.line_of(node, self.stmt)
        note = f"raised by Python computing `{crash.expression}`, not by a check of the project"
        self.raise_sites.add_site(node, line, SiteKind.CRASH, kind.exception, [Option(template)], (*local, fails),
                                  [note], crash=crash)
        if push:
            passes = negate(conj([*(g.expr for g in local), fails.expr]))
            state.push(passes, f"not ({fails.text})", GuardOrigin.PRIOR_RAISE, line)


def _raises(kind: CrashKind, computed: Expr, text: str) -> Guard:
    """That computing `computed` raises `kind`'s exception (its base class, as the
    evaluator's exception is Python's own: ``json.loads`` raises a ValueError)."""
    caught = "ValueError" if kind is JSON else kind.exception
    return Guard(Truthy(Apply(RAISES, (Const((caught,)), computed), text)), f"{text} raises {caught}",
                 GuardOrigin.IF)
