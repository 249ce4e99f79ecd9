"""What ``self.is_x()`` means inside an enum's methods, when the code says so.

A dispatcher such as ``Algo.handle(self, cfg)`` guards its calls with ``self.is_x()``.
Two readings of the source turn that guard into a condition on a flag:

- the predicate: a method of an ``Enum`` class whose body is one ``return`` comparing
  ``self`` with members (``self == Cls.A``, ``self in (Cls.A, Cls.B)``, ``self.name ==
  "A"``, ``!=``/``not in``, ``and``/``or``/``not`` of such, other such predicates) is
  true for a known set of members;
- the receiver: every analysed call of the dispatching method is ``x.handle(...)`` with
  ``x = Cls.ctor(arg)`` in the calling function, all with the same recorded argument
  (e.g. a flag), and ``ctor`` is a classmethod whose body reads as ordered cases
  (`Case`): ``if arg is None: return cls.M``, ``key = arg.upper()``, ``try: return
  cls[key] except KeyError: ...``, ``if key in CONST: return cls.M``; a statement read
  otherwise makes every later input unknown (e.g. a registry lookup), a ``raise`` ends
  the cases (no member).

Anything else keeps the guard as it was (unknown). Nothing is imported or run.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

import libcst as cst
from libcst.helpers import get_full_name_for_node

from extractor.constant_values import NOT_CONSTANT, ConstScope, constant_value
from extractor.ir import (
    FALSE,
    REGISTERED,
    And,
    Apply,
    Compare,
    Const,
    Expr,
    In,
    Not,
    Or,
    Ref,
    RefKind,
    Truthy,
    Unknown,
    conj,
    described,
    disj,
    map_children,
    simplify,
    unknowns,
)
from extractor.records import CallSite, FileSites, Guard, map_guards
from extractor.source_set import SourceSet
from extractor.symbols import Symbols

Func = tuple[str, str]  # (path, qualified name)
_SELF_CALL = re.compile(r"self\.(\w+)\(\)")
_CASE_METHODS = ("upper", "lower", "strip", "casefold")
_ARG = Ref(RefKind.UNKNOWN, "<ctor argument>", "<ctor argument>")  # the ctor's parameter, substituted later


class Texts(Mapping[str, str]):
    """Python files by repo path, read on first use (`read`: the text, or None)."""

    def __init__(self, paths: Iterable[str], read: Callable[[str], str | None]) -> None:
        self._paths = tuple(p for p in paths if p.endswith(".py"))
        self._read = read
        self._texts: dict[str, str | None] = {}

    def __getitem__(self, path: str) -> str:
        if path not in self._texts:
            self._texts[path] = self._read(path) if path in self._paths else None
        text = self._texts[path]
        if text is None:
            raise KeyError(path)
        return text

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)


# ------------------------------------------------------------------ the enum class

@dataclass(frozen=True, slots=True)
class EnumClass:
    path: str
    name: str
    members: tuple[str, ...]
    methods: Mapping[str, cst.FunctionDef]
    classmethods: frozenset[str]


def _is_enum(node: cst.ClassDef) -> bool:
    return any((get_full_name_for_node(b.value) or "").rpartition(".")[2].endswith("Enum") for b in node.bases)


def read_enum(path: str, name: str, sources: SourceSet) -> EnumClass | None:
    """The top-level ``Enum`` class `name` of `path` (None: not one)."""
    mod = sources.module(path)
    if mod is None:
        return None
    for stmt in mod.tree.body:
        if isinstance(stmt, cst.ClassDef) and stmt.name.value == name and _is_enum(stmt):
            return _enum_of(path, stmt)
    return None


def _enum_of(path: str, node: cst.ClassDef) -> EnumClass:
    members: list[str] = []
    methods: dict[str, cst.FunctionDef] = {}
    classmethods: set[str] = set()
    for stmt in node.body.body:
        if isinstance(stmt, cst.FunctionDef):
            methods[stmt.name.value] = stmt
            if any(get_full_name_for_node(d.decorator) == "classmethod" for d in stmt.decorators):
                classmethods.add(stmt.name.value)
        elif isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Assign) and len(small.targets) == 1 \
                        and isinstance(small.targets[0].target, cst.Name):
                    member = small.targets[0].target.value
                    if not member.startswith("_"):
                        members.append(member)
    return EnumClass(path, node.name.value, tuple(members), methods, frozenset(classmethods))


def _is_docstring(stmt: cst.CSTNode) -> bool:
    return isinstance(stmt, cst.Expr) and isinstance(stmt.value, cst.SimpleString | cst.ConcatenatedString)


def _body(func: cst.FunctionDef) -> list[cst.CSTNode]:
    """The statements of `func` (small ones split out), without its docstring."""
    out: list[cst.CSTNode] = []
    block = func.body
    for stmt in block.body if isinstance(block, cst.IndentedBlock) else ():
        if isinstance(stmt, cst.SimpleStatementLine):
            out.extend(s for s in stmt.body if not _is_docstring(s))
        else:
            out.append(stmt)
    return out


# ------------------------------------------------------------------ predicates

class _Predicates:
    """Per method of `enum`: the members for which it returns true (None: not read)."""

    def __init__(self, enum: EnumClass) -> None:
        self.enum = enum
        self.memo: dict[str, frozenset[str] | None] = {}

    def of(self, method: str) -> frozenset[str] | None:
        if method not in self.memo:
            self.memo[method] = None  # a cycle reads as unknown
            func = self.enum.methods.get(method)
            self.memo[method] = self._read(func) if func is not None and method not in self.enum.classmethods else None
        return self.memo[method]

    def _read(self, func: cst.FunctionDef) -> frozenset[str] | None:
        body = _body(func)
        params = func.params.params
        if len(body) != 1 or not isinstance(body[0], cst.Return) or body[0].value is None \
                or len(params) != 1 or params[0].name.value != "self":
            return None
        return self.members_where(body[0].value)

    def member(self, node: cst.BaseExpression) -> str | None:
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) \
                and node.value.value in (self.enum.name, "cls") and node.attr.value in self.enum.members:
            return node.attr.value
        return None

    def _members(self, node: cst.BaseExpression) -> frozenset[str] | None:
        """``Cls.A`` or a literal tuple/list/set of them."""
        one = self.member(node)
        if one is not None:
            return frozenset({one})
        if isinstance(node, cst.Tuple | cst.List | cst.Set):
            found = [self.member(e.value) for e in node.elements]
            return frozenset(m for m in found if m is not None) if None not in found else None
        return None

    def _names(self, node: cst.BaseExpression) -> frozenset[str] | None:
        """A string literal (or a tuple/list/set of them) naming members."""
        if isinstance(node, cst.SimpleString):
            value = node.evaluated_value
            return frozenset({value}) & frozenset(self.enum.members) if isinstance(value, str) else None
        if isinstance(node, cst.Tuple | cst.List | cst.Set):
            parts = [self._names(e.value) for e in node.elements]
            known = [p for p in parts if p is not None]
            return frozenset().union(*known) if parts and len(known) == len(parts) else None
        return None

    def members_where(self, node: cst.BaseExpression) -> frozenset[str] | None:
        everyone = frozenset(self.enum.members)
        if isinstance(node, cst.BooleanOperation):
            left, right = self.members_where(node.left), self.members_where(node.right)
            if left is None or right is None:
                return None
            return left | right if isinstance(node.operator, cst.Or) else left & right
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            inner = self.members_where(node.expression)
            return None if inner is None else everyone - inner
        if isinstance(node, cst.Call) and not node.args and isinstance(node.func, cst.Attribute) \
                and isinstance(node.func.value, cst.Name) and node.func.value.value == "self":
            return self.of(node.func.attr.value)
        if isinstance(node, cst.Comparison) and len(node.comparisons) == 1:
            return self._comparison(node.left, node.comparisons[0], everyone)
        return None

    def _comparison(self, left: cst.BaseExpression, target: cst.ComparisonTarget,
                    everyone: frozenset[str]) -> frozenset[str] | None:
        op, right = target.operator, target.comparator
        if isinstance(left, cst.Name) and left.value == "self":
            found = self._members(right) if isinstance(op, cst.In | cst.NotIn) else (
                frozenset({m}) if (m := self.member(right)) is not None else None)
        elif isinstance(left, cst.Attribute) and isinstance(left.value, cst.Name) \
                and left.value.value == "self" and left.attr.value == "name":
            found = self._names(right)
        else:
            return None
        if found is None or not isinstance(op, cst.Equal | cst.NotEqual | cst.Is | cst.IsNot | cst.In | cst.NotIn):
            return None
        return everyone - found if isinstance(op, cst.NotEqual | cst.IsNot | cst.NotIn) else found


# ------------------------------------------------------------------ the constructor

@dataclass(frozen=True, slots=True)
class Case:
    """One way the constructor returns: when `when` holds (and no earlier case did), the
    member `member`; `by_name`: the member named by the term `when` tests; neither:
    unknown (a statement not read)."""

    when: Expr
    member: str | None = None
    by_name: Expr | None = None
    registry: str = ""  # an unknown rest: the enum whose run-time registry it looks the name up in


class _Constructor:
    """The cases of a classmethod building a member from its one argument."""

    def __init__(self, enum: EnumClass, scope: ConstScope, preds: _Predicates) -> None:
        self.enum, self.scope, self.preds = enum, scope, preds

    def cases(self, method: str) -> list[Case] | None:
        func = self.enum.methods.get(method)
        if func is None or method not in self.enum.classmethods or len(func.params.params) != 2:
            return None
        local: dict[str, Expr] = {func.params.params[1].name.value: _ARG}
        out: list[Case] = []
        for stmt in _body(func):
            if isinstance(stmt, cst.Raise):
                return out
            step = self._step(stmt, local)
            if step is None:
                # a name the enum does not list: what it stands for is looked up at run time
                out.append(Case(Unknown(described(f"looked up at run time for a name `{self.enum.name}` "
                                                  f"does not list (by `{self.enum.name}.{method}`)")),
                                registry=self.enum.name))
                return out
            out.extend(step)
            if isinstance(stmt, cst.Return):  # `return cls[key]`: any other key raises
                return out
        return out

    def _term(self, node: cst.BaseExpression, local: Mapping[str, Expr]) -> Expr | None:
        if isinstance(node, cst.Name):
            return local.get(node.value)
        if isinstance(node, cst.Call) and not node.args and isinstance(node.func, cst.Attribute) \
                and node.func.attr.value in _CASE_METHODS:
            inner = self._term(node.func.value, local)
            if inner is not None:
                return Apply(node.func.attr.value, (inner,), f"{_text(inner)}.{node.func.attr.value}()")
        return None

    def _step(self, stmt: cst.CSTNode, local: dict[str, Expr]) -> list[Case] | None:
        if isinstance(stmt, cst.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0].target, cst.Name):
            value = self._term(stmt.value, local)
            if value is None:
                return None
            local[stmt.targets[0].target.value] = value
            return []
        if isinstance(stmt, cst.If) and stmt.orelse is None:
            return self._if(stmt, local)
        if isinstance(stmt, cst.Try):
            return self._try(stmt, local)
        if isinstance(stmt, cst.Return) and stmt.value is not None:
            return self._by_name(stmt.value, local)
        return None

    def _returned(self, block: cst.BaseSuite) -> cst.BaseExpression | None:
        body = block.body if isinstance(block, cst.IndentedBlock) else ()
        if len(body) == 1 and isinstance(body[0], cst.SimpleStatementLine) and len(body[0].body) == 1 \
                and isinstance(body[0].body[0], cst.Return):
            return body[0].body[0].value
        return None

    def _if(self, stmt: cst.If, local: Mapping[str, Expr]) -> list[Case] | None:
        value = self._returned(stmt.body)
        member = self.preds.member(value) if value is not None else None
        test = stmt.test
        if member is None or not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
            return None
        left = self._term(test.left, local)
        op, right = test.comparisons[0].operator, test.comparisons[0].comparator
        const = constant_value(right, self.scope)
        if left is None or const is NOT_CONSTANT:
            return None
        if isinstance(op, cst.Is) and const is None:
            return [Case(Compare("is", left, Const(None)), member)]
        if isinstance(op, cst.Equal) and isinstance(const, str):
            return [Case(Compare("==", left, Const(const)), member)]
        if isinstance(op, cst.In) and isinstance(const, tuple | frozenset) and all(isinstance(c, str) for c in const):
            return [Case(In(left, Const(tuple(sorted(const)))), member)]
        return None

    def _by_name(self, value: cst.BaseExpression, local: Mapping[str, Expr]) -> list[Case] | None:
        """``return cls[key]``: the member named `key` (any other key raises)."""
        if isinstance(value, cst.Subscript) and isinstance(value.value, cst.Name) \
                and value.value.value in ("cls", self.enum.name) and len(value.slice) == 1 \
                and isinstance(value.slice[0].slice, cst.Index):
            key = self._term(value.slice[0].slice.value, local)
            if key is not None:
                return [Case(In(key, Const(self.enum.members)), by_name=key)]
        return None

    def _try(self, stmt: cst.Try, local: Mapping[str, Expr]) -> list[Case] | None:
        """``try: return cls[key] except KeyError: pass``."""
        value = self._returned(stmt.body)
        if value is None or stmt.orelse is not None or stmt.finalbody is not None or len(stmt.handlers) != 1:
            return None
        handler = stmt.handlers[0]
        caught = get_full_name_for_node(handler.type) if handler.type is not None else None
        quiet = all(isinstance(s, cst.SimpleStatementLine) and all(isinstance(x, cst.Pass) for x in s.body)
                    for s in (handler.body.body if isinstance(handler.body, cst.IndentedBlock) else ()))
        return self._by_name(value, local) if caught in ("KeyError", "LookupError") and quiet else None


def _text(expr: Expr) -> str:
    return expr.text if isinstance(expr, Ref | Apply) else str(expr)


def member_condition(cases: Sequence[Case], members: frozenset[str], arg: Expr) -> Expr:
    """When the constructor, given `arg`, returns one of `members`."""
    return simplify(_bind(_compact(cases, members) or _ordered_cases(cases, members), arg))


def _ordered_cases(cases: Sequence[Case], members: frozenset[str]) -> Expr:
    """Any cases: case i holds and no earlier one did."""
    options: list[Expr] = []
    earlier: list[Expr] = []
    for case in cases:
        if case.by_name is not None:
            hit: Expr = In(case.by_name, Const(_names(case.when, members)))
        elif case.member is not None:
            hit = case.when if case.member in members else FALSE
        else:
            hit = case.when  # unknown
        options.append(conj([*earlier, hit]))
        earlier.append(Not(case.when))
    return disj(options)


def _compact(cases: Sequence[Case], members: frozenset[str]) -> Expr | None:
    """The usual shape, said once: an optional ``arg is None`` case first, then cases that
    each test one key (``arg.upper()``) against names, then maybe an unknown rest:
    ``arg is None`` (if that gives a member of `members`) or ``key in <names giving one>``,
    or, for a name no case knows, the unknown rest. None: cases of another shape."""
    none_hit: Expr = FALSE
    rest = list(cases)
    if rest and isinstance(rest[0].when, Compare) and rest[0].when.op == "is" and rest[0].by_name is None:
        none_hit = rest[0].when if rest[0].member in members else FALSE
        rest = rest[1:]
    keyed = _keyed(rest, members)
    if keyed is None:
        return None
    key, claimed, hits, unknown = keyed
    base = key
    while isinstance(base, Apply) and base.args:  # the argument itself: `key` is `arg.upper()`
        base = base.args[0]
    tail: Expr = FALSE
    if unknown is not None:  # a name no case knows: what the program registered under it at run time
        tail = Apply(REGISTERED, (key, Const(unknown.registry)), f"{_text(key)} registered at run time") \
            if unknown.registry else unknown.when
    known = disj([In(key, Const(tuple(hits))) if hits else FALSE,
                  conj([Not(In(key, Const(tuple(claimed)))), tail])])
    return disj([none_hit, conj([Compare("is not", base, Const(None)), known])])


def _keyed(cases: Sequence[Case], members: frozenset[str]) -> tuple[Expr, list[str], list[str], Case | None] | None:
    """Cases that each test one key against names, up to an unknown rest: (the key, the names
    they claim, those giving one of `members`, the unknown rest); None: another shape."""
    key: Expr | None = None
    claimed: list[str] = []
    hits: list[str] = []
    for case in cases:
        if isinstance(case.when, Unknown):
            return (key, claimed, hits, case) if key is not None else None
        tested = _tested(case.when)
        if tested is None or (key is not None and tested[0] != key):
            return None
        key, names = tested[0], [n for n in tested[1] if n not in claimed]
        claimed += names
        hits += [n for n in names if (n in members if case.by_name is not None else case.member in members)]
    return (key, claimed, hits, None) if key is not None else None


def _tested(when: Expr) -> tuple[Expr, tuple[str, ...]] | None:
    """``key in (names)`` / ``key == name``: (key, names)."""
    if isinstance(when, In) and isinstance(when.container, Const):
        return when.item, tuple(when.container.value)
    if isinstance(when, Compare) and when.op == "==" and isinstance(when.right, Const):
        return when.left, (when.right.value,)
    return None


def _names(when: Expr, members: frozenset[str]) -> tuple[str, ...]:
    names = when.container.value if isinstance(when, In) and isinstance(when.container, Const) else ()
    return tuple(m for m in names if m in members)


def _bind(expr: Expr, arg: Expr) -> Expr:
    def go(node: Expr) -> Expr:
        if node == _ARG:
            return arg
        if isinstance(node, Apply) and node.args and node.args[0] == _ARG:
            return Apply(node.fn, (arg, *node.args[1:]), node.text.replace(_ARG.text, _text(arg)))
        return map_children(node, go)
    return go(expr)


# ------------------------------------------------------------------ receivers

def _assigned_calls(func: cst.FunctionDef, var: str) -> list[str] | None:
    """Dotted callees of every ``var = f(...)`` in `func` (``var = None`` skipped); None:
    `var` is bound otherwise too."""
    found: list[str] = []
    ok = True

    class Visit(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            nonlocal ok
            if not any(isinstance(t.target, cst.Name) and t.target.value == var for t in node.targets):
                return
            if isinstance(node.value, cst.Call) and (name := get_full_name_for_node(node.value.func)):
                found.append(name)
            elif not (isinstance(node.value, cst.Name) and node.value.value == "None"):
                ok = False

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            nonlocal ok
            ok = ok and not (isinstance(node.target, cst.Name) and node.target.value == var)

    func.visit(Visit())
    return found if ok else None


def _function(sources: SourceSet, path: str, qualname: str) -> cst.FunctionDef | None:
    mod = sources.module(path)
    if mod is None:
        return None
    body: Sequence[cst.CSTNode] = mod.tree.body
    node: cst.CSTNode | None = None
    for part in qualname.split("."):
        node = next((s for s in body if isinstance(s, cst.FunctionDef | cst.ClassDef) and s.name.value == part), None)
        if node is None:
            return None
        inner = node.body
        body = inner.body if isinstance(inner, cst.IndentedBlock) else ()
    return node if isinstance(node, cst.FunctionDef) else None


def _built_from(fs: FileSites, call: CallSite, sources: SourceSet, cls: str) -> tuple[str, Expr] | None:
    """``x.m(...)`` with ``x = cls.ctor(arg)`` (every binding of ``x`` in the calling
    function): (ctor, the argument recorded at that call)."""
    head = call.callee.rpartition(".")[0]
    if "." in head or head in ("self", "cls", cls):
        return None
    func = _function(sources, fs.path, call.caller)
    built = _assigned_calls(func, head) if func is not None else None
    if not built or len(set(built)) != 1 or built[0].rpartition(".")[0] != cls:
        return None
    args = {a for c in fs.calls if c.caller == call.caller and c.callee == built[0] and not c.ref
            for k, a in c.args if k == "0"}
    if len(args) != 1 or unknowns(next(iter(args))):
        return None
    return built[0].rpartition(".")[2], next(iter(args))


def _receiver(files: Sequence[FileSites], sources: SourceSet, cls: str, method: str) -> tuple[str, Expr] | None:
    """(constructor, its recorded argument) when every analysed call of ``x.method(...)``
    has ``x = cls.ctor(arg)`` in its function, with the same ctor and argument."""
    seen: set[tuple[str, Expr] | None] = set()
    for fs in files:
        for call in fs.calls:
            head, _, last = call.callee.rpartition(".")
            if last == method and head and not call.ref:
                seen.add(_built_from(fs, call, sources, cls))
    return next(iter(seen)) if len(seen) == 1 else None


# ------------------------------------------------------------------ the rewrite

def _self_calls(call: CallSite) -> set[str]:
    out = set()
    for guard in call.guards:
        for leaf in unknowns(guard.expr):
            match = _SELF_CALL.fullmatch(leaf.text)
            if match:
                out.add(match.group(1))
    return out


@dataclass(frozen=True, slots=True)
class Meaning:
    """What ``self.p()`` means in one method: the members each predicate is true for, and
    how the receiver is built (`cases` of the constructor, given `arg`)."""

    members: frozenset[str]
    predicates: Mapping[str, frozenset[str]]  # "self.p()" -> members
    cases: tuple[Case, ...]
    arg: Expr

    def members_where(self, expr: Expr) -> frozenset[str] | None:
        """The members for which `expr` (made of ``self.p()`` truths) holds; None: other parts."""
        if isinstance(expr, Truthy) and isinstance(expr.term, Unknown):
            return self.predicates.get(expr.term.text)
        if isinstance(expr, Not):
            inner = self.members_where(expr.arg)
            return None if inner is None else self.members - inner
        if isinstance(expr, And | Or):
            parts = [self.members_where(a) for a in expr.args]
            known = [p for p in parts if p is not None]
            if len(known) != len(parts):
                return None
            return frozenset.intersection(*known) if isinstance(expr, And) else frozenset.union(*known)
        return None

    def guards(self, guards: tuple[Guard, ...]) -> tuple[Guard, ...]:
        """`guards` with those made of ``self.p()`` truths merged into one condition on `arg`
        (at the first one's place); the others as they were."""
        pure = [(g, m) for g in guards if (m := self.members_where(g.expr)) is not None]
        if not pure:
            return guards
        members = frozenset.intersection(*(m for _, m in pure))
        merged = Guard(member_condition(self.cases, members, self.arg), " and ".join(g.text for g, _ in pure),
                       pure[-1][0].origin)
        out: list[Guard] = []
        for g in guards:
            if all(g is not p for p, _ in pure):
                out.append(g)
            elif not any(o is merged for o in out):
                out.append(merged)
        return tuple(out)


def self_meanings(files: Sequence[FileSites], sources: SourceSet) -> dict[Func, Meaning]:
    """Per method (path, ``Cls.method``) whose call sites are guarded by ``self.p()``: what
    those predicates mean, where the code says (see the module docstring)."""
    wanted: dict[Func, set[str]] = {}
    for fs in files:
        for call in fs.calls:
            if call.caller.count(".") == 1 and (names := _self_calls(call)):
                wanted.setdefault((fs.path, call.caller), set()).update(names)
    out: dict[Func, Meaning] = {}
    symbols = Symbols(sources)
    for (path, qual), names in sorted(wanted.items(), key=lambda kv: kv[0]):
        cls, _, method = qual.partition(".")
        enum = read_enum(path, cls, sources)
        found = _receiver(files, sources, cls, method) if enum is not None else None
        if enum is None or found is None:
            continue
        preds = _Predicates(enum)
        cases = _Constructor(enum, ConstScope(path, symbols), preds).cases(found[0])
        known = {f"self.{n}()": m for n in sorted(names) if (m := preds.of(n)) is not None}
        if cases and known:
            out[(path, qual)] = Meaning(frozenset(enum.members), known, tuple(cases), found[1])
    return out


def with_self_meanings(files: Sequence[FileSites], sources: SourceSet | None) -> list[FileSites]:
    """`files` with the call sites' ``self.p()`` guards replaced where `self_meanings` says."""
    if sources is None:
        return list(files)
    meanings = self_meanings(files, sources)
    if not meanings:
        return list(files)
    out = []
    for fs in files:
        calls = tuple(replace(c, guards=meanings[(fs.path, c.caller)].guards(c.guards))
                      if (fs.path, c.caller) in meanings else c for c in fs.calls)
        out.append(replace(fs, calls=calls))
    return out


# ------------------------------------------------------------------ Cls.ctor(cfg.x).p()

# ``SpeculativeAlgorithm.from_string(cfg.speculative_algorithm).is_speculative()``: a member
# built from one setting, asked one predicate (the term the IR keeps unknown, as its text)
_CHAIN = re.compile(r"([A-Za-z_]\w*)\.([A-Za-z_]\w*)\(([A-Za-z_]\w*)\.([A-Za-z_]\w*)\)\.([A-Za-z_]\w*)\(\)")
_CALLED_ON_A_CALL = re.compile(r"\)\s*\.\s*[A-Za-z_]\w*\(\s*\)")  # in the source, however it is laid out
_BOUND_CALL = re.compile(r"=\s*[A-Z]\w*\.[A-Za-z_]\w*\(")  # ``algo = Cls.ctor(...)``, then ``algo.p()``


class _Chains:
    """What each ``Cls.ctor(cfg.x).p()`` text means, read once per text (None: unknown)."""

    def __init__(self, sources: SourceSet, configs: frozenset[str]) -> None:
        self.sources, self.configs = sources, configs
        self.symbols = Symbols(sources)
        self.found: dict[tuple[str, str], Expr | None] = {}

    def meaning(self, path: str, text: str) -> Expr | None:
        key = (path, text)
        if key not in self.found:
            self.found[key] = self._read(path, text)
        return self.found[key]

    def _read(self, path: str, text: str) -> Expr | None:
        match = _CHAIN.fullmatch(text)
        if match is None:
            return None
        cls, ctor, owner, field, pred = match.groups()
        if owner not in self.configs:
            return None
        enum = self._enum(path, cls)
        if enum is None:
            return None
        preds = _Predicates(enum)
        members = preds.of(pred)
        cases = _Constructor(enum, ConstScope(enum.path, self.symbols), preds).cases(ctor)
        if members is None or not cases:
            return None
        return member_condition(cases, members, Ref(RefKind.FLAG, field, f"{owner}.{field}"))

    def _enum(self, path: str, cls: str) -> EnumClass | None:
        """The enum `cls` as `path` binds it at top level, else as one of its imports inside
        a function (``from pkg.spec_info import SpeculativeAlgorithm``) names it."""
        found = self.symbols.resolve(path, cls)
        if found is not None:
            return read_enum(found[0], cls, self.sources)
        text = self.sources.files.get(path) or ""
        modules = set(re.findall(rf"from\s+([\w.]+)\s+import\s+[^\n]*\b{re.escape(cls)}\b", text))
        targets = {t for m in modules if (t := self.symbols.module_for(m)) is not None}
        return read_enum(targets.pop(), cls, self.sources) if len(targets) == 1 else None


def with_chain_meanings(files: Sequence[FileSites], sources: SourceSet | None,
                        configs: frozenset[str]) -> list[FileSites]:
    """`files` with each ``Cls.ctor(cfg.x).p()`` term (`configs`: the names of the config
    object) replaced by the condition on setting ``x`` under which it holds, where the
    enum's constructor and predicate read as the module docstring says; else unchanged."""
    if sources is None:
        return list(files)
    chains = _Chains(sources, configs)
    out = []
    for fs in files:
        text = sources.files.get(fs.path) or ""
        if not _CALLED_ON_A_CALL.search(text) and not _BOUND_CALL.search(text):  # no ``f(...).p()``: nothing to read
            out.append(fs)
            continue

        def rewrite(expr: Expr, path: str = fs.path) -> Expr:
            def go(node: Expr) -> Expr:
                if isinstance(node, Truthy) and isinstance(node.term, Unknown) \
                        and (meant := chains.meaning(path, node.term.text)) is not None:
                    return meant
                return map_children(node, go)
            return go(expr) if any(_CHAIN.fullmatch(u.text) for u in unknowns(expr)) else expr
        calls = tuple(replace(c, guards=map_guards(c.guards, rewrite)) for c in fs.calls)
        out.append(replace(fs.map_exprs(rewrite), calls=calls))
    return out
