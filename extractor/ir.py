"""The condition IR: one representation of "when does this fire", shared by every consumer.

Leaves are `Ref` (a flag, env var, platform/model fact ...), `Const` and `Unknown`;
`Apply` is a known function of terms (``len``, ``str.startswith`` ...). Conditions
combine them with `Truthy`, `Compare`, `In`, `Not`, `And`, `Or`. Consumers: trigger
rendering, three-valued evaluation, solution derivation and graph edges.
"""
from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar, cast

from extractor.compat import StrEnum

# The text of a local errcat cannot follow, in user terms: what kind of value it is and
# why it is unknown, never the local's name (``described("computed in a loop")``).
DESCRIBED = "a value "


def described(reason: str) -> str:
    return f"{DESCRIBED}{reason}"


# an adjustment's target that is an env var the code sets (``envs.X.set(v)``): "env:X"
ENV_SETTING = "env:"


class RefKind(StrEnum):
    FLAG = "flag"  # attribute of the config object (or a view/alias of it)
    ENV = "env"
    PLATFORM = "platform"
    MODEL = "model"
    RUNTIME = "runtime"  # files, installed packages, exceptions raised at run time
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class Ref:
    kind: RefKind
    name: str
    text: str  # source text the reference was read from

    def as_dict(self) -> dict[str, Any]:
        return {"op": "ref", "kind": str(self.kind), "name": self.name, "text": self.text}


@dataclass(frozen=True, slots=True)
class Const:
    value: Any  # None, bool, int, float, str, a tuple or `FrozenMap` of those; see `is_member_text`

    def as_dict(self) -> dict[str, Any]:
        return {"op": "const", "value": json_value(self.value)}


@dataclass(frozen=True, slots=True)
class Unknown:
    text: str

    def as_dict(self) -> dict[str, Any]:
        return {"op": "unknown", "text": self.text}


@dataclass(frozen=True, slots=True)
class Apply:
    fn: str  # "len", "startswith", "endswith", "lower", "isinstance" ...
    args: tuple[Expr, ...]
    text: str

    def as_dict(self) -> dict[str, Any]:
        return {"op": "apply", "fn": self.fn, "args": [a.as_dict() for a in self.args], "text": self.text}


@dataclass(frozen=True, slots=True)
class Seq:
    """A literal tuple/list of terms, e.g. the right side of ``x in (a, b)``."""

    items: tuple[Expr, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"op": "seq", "items": [i.as_dict() for i in self.items]}


@dataclass(frozen=True, slots=True)
class Truthy:
    term: Expr

    def as_dict(self) -> dict[str, Any]:
        return {"op": "truthy", "term": self.term.as_dict()}


@dataclass(frozen=True, slots=True)
class Compare:
    op: str  # == != < <= > >= is "is not"
    left: Expr
    right: Expr

    def as_dict(self) -> dict[str, Any]:
        return {"op": "compare", "cmp": self.op, "left": self.left.as_dict(), "right": self.right.as_dict()}


@dataclass(frozen=True, slots=True)
class In:
    item: Expr
    container: Expr

    def as_dict(self) -> dict[str, Any]:
        return {"op": "in", "item": self.item.as_dict(), "container": self.container.as_dict()}


@dataclass(frozen=True, slots=True)
class Not:
    arg: Expr

    def as_dict(self) -> dict[str, Any]:
        return {"op": "not", "arg": self.arg.as_dict()}


@dataclass(frozen=True, slots=True)
class And:
    args: tuple[Expr, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"op": "and", "args": [a.as_dict() for a in self.args]}


@dataclass(frozen=True, slots=True)
class Or:
    args: tuple[Expr, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"op": "or", "args": [a.as_dict() for a in self.args]}


Expr = Ref | Const | Unknown | Apply | Seq | Truthy | Compare | In | Not | And | Or
TERM_KINDS: tuple[type, ...] = (Ref, Const, Unknown, Apply, Seq)  # values
CONDITION_KINDS: tuple[type, ...] = (Truthy, Compare, In, Not, And, Or)  # truth values by construction
KINDS = TERM_KINDS + CONDITION_KINDS
IF = "if"  # Apply(IF, (condition, then, else)): Python's ``then if condition else else``
# Apply(ON_COMMAND_LINE, (flag Ref,)): the option is on the command line (whatever its value;
# its default is not): when argparse runs a custom action's ``__call__``; of an env Ref: the
# variable is set (``envs.X.is_set()``), by the environment or by the code
ON_COMMAND_LINE = "on_command_line"
# Apply(UNSET_OR, (flag Ref, default)): ``getattr(cfg, "_x", default)`` of a private attribute
# of the config (no option declares it): the default until code sets it; of a model Ref,
# ``getattr(hf_config, "x", default)``: the default where the model's config lacks it
UNSET_OR = "unset_or"
# Apply(OR_FALLBACK, (flag Ref,)): a profile `config.readers` call ``f(cfg, "x")``: the field's
# value, or the fallback its declaration gives (``Arg(fallback=...)``) while that is None
OR_FALLBACK = "or_fallback"
# Apply(ATTRIBUTE, (value, Const(name))): ``f(x).name`` or ``spec.name`` of a local bound to a
# call: the attribute of what the call returns (a record where a fact states it)
ATTRIBUTE = "attribute"
# Apply(KEYWORD, (Const(name), value)): an argument passed by name, after the positional ones
# (``f(a, b=x)`` is Apply("f", (a, Apply(KEYWORD, (Const("b"), x))))): what `extractor.inline`
# binds to the summarised function's parameter of that name
KEYWORD = "keyword"
# Apply(STATED_OR, (call, body)): what the launch states the call returns (a `runtime` fact),
# else what the function's body computes for its arguments (`extractor.inline`)
STATED_OR = "stated_or"
# Apply(RAISES, (Const(exception names), step, ...)): a try block whose body only computes
# values (``x = float(v[1])``) raises one of the named exceptions: computing the steps in
# order raises one (true), none (false), or another or an unknown (unknown)
RAISES = "try-raises"  # not an identifier: no function of the project has this name
# Apply(SOME_ITEM, (items, Const(name), condition)): ``condition`` holds for some item of
# ``items`` bound to the loop variable ``name`` (read as ``Ref(RefKind.UNKNOWN, name, ...)``):
# a check inside ``for name in items:`` fires for the first item it holds for
SOME_ITEM = "some-item"
# Apply(REGISTERED, (name, Const(enum))): `name` names a member of the enum class `enum` that is
# registered at run time (``from_string`` looks up a registry past its own members: a plugin's)
REGISTERED = "registered-at-run-time"
# Apply(PARSE_RECORD, (Const(model), text)): the record a pydantic model parses JSON text into
# (``Cls.model_validate_json(text)``); `model` describes its fields (`extractor.imported_values`)
PARSE_RECORD = "model_validate_json"


def positional(args: tuple[Expr, ...]) -> tuple[Expr, ...]:
    """A call's arguments passed by position (`KEYWORD` ones left out)."""
    return tuple(a for a in args if not (isinstance(a, Apply) and a.fn == KEYWORD))

TRUE = Const(True)
FALSE = Const(False)

# Each comparison's negation (an order's holds on numbers only: ``not x < 1`` is ``x >= 1``
# where ``x`` is a number) and its mirror (``1 < x`` is ``x > 1``).
NEGATED_OP = {"==": "!=", "!=": "==", "is": "is not", "is not": "is", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}
MIRRORED_OP = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "==", "!=": "!="}
_NEGATED_CMP = {op: NEGATED_OP[op] for op in ("==", "!=", "is", "is not")}  # true of any value


def is_number(value: object) -> bool:
    """An int or float constant (a bool is not a number here)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# ------------------------------------------------------------------- dispatch
# The one place that knows which kinds a node can be: consumers ask these questions or
# subclass `Visitor` instead of writing their own isinstance chains.


def is_condition(expr: Expr) -> bool:
    """Whether `expr` is a truth value by construction (a comparison, a junction ...);
    a term (a flag, a call ...) is a value whose truthiness a `Truthy` asks for."""
    return isinstance(expr, CONDITION_KINDS)


def is_truthiness(expr: Expr) -> bool:
    """``Truthy(term)`` around a term: "the value is truthy", not a wrapped condition."""
    return isinstance(expr, Truthy) and not isinstance(expr.term, CONDITION_KINDS)


def as_condition(expr: Expr) -> Expr:
    """`expr` without `Truthy` wrappers around what already is a condition."""
    while isinstance(expr, Truthy) and isinstance(expr.term, CONDITION_KINDS):
        expr = expr.term
    return expr


def conjuncts(expr: Expr) -> tuple[Expr, ...]:
    """The parts that must all hold (a non-conjunction is its own single part)."""
    return expr.args if isinstance(expr, And) else (expr,)


def disjuncts(expr: Expr) -> tuple[Expr, ...]:
    """The parts of which one must hold (a non-disjunction is its own single part)."""
    return expr.args if isinstance(expr, Or) else (expr,)


R = TypeVar("R")


class Visitor(Generic[R]):
    """One handler per IR kind (pyflakes' style): ``visit_Ref`` ... ``visit_Or``.

    Exhaustive by construction: a subclass that leaves a kind without a handler fails when
    it is defined, unless it overrides `generic` (the handler of every kind it leaves out).
    Intermediate bases pass ``abstract=True``. Dispatch is one dict lookup per node.
    """

    _table: ClassVar[dict[type, Callable[[Any, Any], Any]]] = {}

    def __init_subclass__(cls, abstract: bool = False, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if abstract:
            return
        missing = [k.__name__ for k in KINDS if not hasattr(cls, f"visit_{k.__name__}")]
        if missing and cls.generic is Visitor.generic:
            raise TypeError(f"{cls.__name__} has no handler for {', '.join(missing)} (define them or `generic`)")
        cls._table = {k: getattr(cls, f"visit_{k.__name__}", cls.generic) for k in KINDS}

    def visit(self, expr: Expr) -> R:
        handler: Callable[[Any, Any], R] = self._table[type(expr)]
        return handler(self, expr)

    def generic(self, expr: Expr) -> R:
        raise NotImplementedError(type(expr).__name__)


def _children_table() -> dict[type, Callable[[Any], tuple[Expr, ...]]]:
    return {
        Ref: lambda n: (), Const: lambda n: (), Unknown: lambda n: (),
        Apply: lambda n: n.args, Seq: lambda n: n.items, Truthy: lambda n: (n.term,),
        Compare: lambda n: (n.left, n.right), In: lambda n: (n.item, n.container),
        Not: lambda n: (n.arg,), And: lambda n: n.args, Or: lambda n: n.args,
    }


def _rebuild_table() -> dict[type, Callable[[Any, tuple[Expr, ...]], Expr]]:
    return {
        Ref: lambda n, c: n, Const: lambda n, c: n, Unknown: lambda n, c: n,
        Apply: lambda n, c: Apply(n.fn, c, n.text), Seq: lambda n, c: Seq(c), Truthy: lambda n, c: Truthy(c[0]),
        Compare: lambda n, c: Compare(n.op, c[0], c[1]), In: lambda n, c: In(c[0], c[1]),
        Not: lambda n, c: Not(c[0]), And: lambda n, c: And(c), Or: lambda n, c: Or(c),
    }


_CHILDREN = _children_table()
_REBUILD = _rebuild_table()


def children(node: Expr) -> tuple[Expr, ...]:
    """Direct sub-expressions of a node (leaves have none)."""
    return _CHILDREN[type(node)](node)


def rebuild(node: Expr, kids: tuple[Expr, ...]) -> Expr:
    """A node of the same kind and attributes as `node`, with `kids` as its sub-expressions
    (in `children` order); `node` itself when they are the same."""
    if kids == _CHILDREN[type(node)](node):
        return node
    return _REBUILD[type(node)](node, kids)


def map_children(node: Expr, fn: Callable[[Expr], Expr]) -> Expr:
    """`node` with `fn` applied to each direct sub-expression."""
    return rebuild(node, tuple(fn(child) for child in children(node)))


def frozen_json(value: Any) -> Any:
    """JSON lists back to the tuples `Const` holds, at every depth; objects to `FrozenMap`s."""
    if isinstance(value, dict):
        from extractor.frozen import FrozenMap  # only for dict constants
        return FrozenMap((k, frozen_json(v)) for k, v in value.items())
    return tuple(frozen_json(v) for v in value) if isinstance(value, list) else value


def json_value(value: Any) -> Any:
    """A `Const` value as JSON holds it (tuples as lists, at every depth): `frozen_json` inverted."""
    if isinstance(value, Mapping):
        return {k: json_value(v) for k, v in value.items()}
    return [json_value(v) for v in value] if isinstance(value, tuple) else value


def from_dict(data: dict[str, Any]) -> Expr:
    """Inverse of `as_dict` (catalogs are read back for diff and preflight)."""
    op = data["op"]
    if op == "ref":
        return Ref(RefKind(data["kind"]), data["name"], data["text"])
    if op == "const":
        return Const(frozen_json(data["value"]))
    if op == "unknown":
        return Unknown(data["text"])
    if op == "apply":
        return Apply(data["fn"], tuple(from_dict(a) for a in data["args"]), data["text"])
    if op == "seq":
        return Seq(tuple(from_dict(i) for i in data["items"]))
    if op == "truthy":
        return Truthy(from_dict(data["term"]))
    if op == "compare":
        return Compare(data["cmp"], from_dict(data["left"]), from_dict(data["right"]))
    if op == "in":
        return In(from_dict(data["item"]), from_dict(data["container"]))
    if op == "not":
        return Not(from_dict(data["arg"]))
    if op in ("and", "or"):
        args = tuple(from_dict(a) for a in data["args"])
        return And(args) if op == "and" else Or(args)
    raise ValueError(f"unknown IR op {op!r}")


def negate(expr: Expr) -> Expr:
    """Logical negation, pushed one level in where it reads better."""
    if isinstance(expr, Not):
        return expr.arg
    if isinstance(expr, Const) and isinstance(expr.value, bool):
        return Const(not expr.value)
    if isinstance(expr, Compare) and expr.op in _NEGATED_CMP:
        return Compare(_NEGATED_CMP[expr.op], expr.left, expr.right)
    return Not(expr)


def conj(args: list[Expr] | tuple[Expr, ...]) -> Expr:
    """Flattened, constant-folded, de-duplicated conjunction."""
    return _junction(args, And, TRUE, FALSE)


def disj(args: list[Expr] | tuple[Expr, ...]) -> Expr:
    """Flattened, constant-folded, de-duplicated disjunction."""
    return _junction(args, Or, FALSE, TRUE)


def _junction(args: list[Expr] | tuple[Expr, ...], kind: type[And | Or], unit: Const, zero: Const) -> Expr:
    """`kind` (And/Or) of `args`: nested ones of the same kind merged, `unit` dropped, `zero`
    absorbing, the first of equal operands kept (a set: chains of thousands stay linear)."""
    split = conjuncts if kind is And else disjuncts
    out: dict[Expr, None] = {}
    for arg in args:
        parts = split(arg)
        for part in parts:
            if part == unit:
                continue
            if part == zero:
                return zero
            out[part] = None
    if not out:
        return unit
    return next(iter(out)) if len(out) == 1 else kind(tuple(out))


def simplify(expr: Expr) -> Expr:
    """Normalise: flatten and/or, drop double negation, fold constants."""
    handler = _SIMPLIFY.get(type(expr))
    return handler(expr) if handler else expr


def _simplify_truthy(expr: Truthy) -> Expr:
    term = _fold_term(expr.term)
    if isinstance(term, Const):
        return Const(bool(term.value))
    if is_condition(term):
        return simplify(term)
    rows = _sequence_parts(term) if isinstance(term, Apply) else None
    if rows is not None:  # (x,) if c else () + ...: non-empty where some row's condition holds
        return disj([_row_truth(part) for part in rows])
    return Truthy(term)


def _row_truth(part: Expr) -> Expr:
    """Whether one part of a `_sequence_parts` concatenation is non-empty."""
    if isinstance(part, Const):
        return Const(bool(part.value))
    if isinstance(part, Seq):
        return Const(bool(part.items))
    return simplify(part.args[0]) if isinstance(part, Apply) else Truthy(part)  # a row: where its test holds


def _sequence_parts(term: Expr) -> list[Expr] | None:
    """The parts of a concatenation of literal sequences and ``(x,) if c else ()`` rows, each
    part a sequence or such a row (None for any other term)."""
    if isinstance(term, Apply) and term.fn == "+" and len(term.args) == 2:
        left, right = _sequence_parts(term.args[0]), _sequence_parts(term.args[1])
        return None if left is None or right is None else left + right
    if isinstance(term, Seq) or (isinstance(term, Const) and isinstance(term.value, tuple)):
        return [term]
    if isinstance(term, Apply) and term.fn == IF and len(term.args) == 3 and term.args[2] == Const(()) \
            and ((isinstance(term.args[1], Seq) and term.args[1].items)
                 or (isinstance(term.args[1], Const) and isinstance(term.args[1].value, tuple) and term.args[1].value)):
        return [term]
    return None


def _simplify_compare(expr: Compare) -> Expr:
    left, right = _fold_term(expr.left), _fold_term(expr.right)
    if expr.op in ("is", "is not") and right == Const(None) and _built_collection(left):
        return Const(expr.op == "is not")  # ``frozenset({...}) is None``: a built collection never is
    if isinstance(left, Const) and isinstance(right, Const):
        folded = _fold_compare(expr.op, left.value, right.value)
        if folded is not None:
            return Const(folded)
    if isinstance(right, Const) and (chosen := _constant_choice(left)) is not None:
        # ``(a if c else b) == x`` with constants a, b, x: the test itself (or its negation)
        test, then, other = chosen
        sides = [simplify(Compare(expr.op, then, right)), simplify(Compare(expr.op, other, right))]
        if all(isinstance(side, Const) for side in sides):
            return simplify(disj([conj([test, sides[0]]), conj([negate(test), sides[1]])]))
    return Compare(expr.op, left, right)


def _constant_choice(term: Expr) -> tuple[Expr, Const, Const] | None:
    """``a if c else b`` with constant `a` and `b`, as (c, a, b)."""
    if isinstance(term, Apply) and term.fn == IF and len(term.args) == 3 \
            and isinstance(term.args[1], Const) and isinstance(term.args[2], Const):
        return term.args[0], term.args[1], term.args[2]
    return None


def _simplify_in(expr: In) -> Expr:
    item, container = _fold_term(expr.item), _fold_term(expr.container)
    if isinstance(item, Const) and isinstance(container, Const) and isinstance(container.value, (tuple, str)):
        try:
            return Const(item.value in container.value)
        except TypeError:
            pass
    elif isinstance(container, Const) and container.value == ():  # nothing is in an empty collection
        return FALSE
    # "x" in (cfg.a, cfg.b)  ==  cfg.a == "x" or cfg.b == "x"
    elif isinstance(item, Const) and isinstance(container, Seq) and not all(
            isinstance(i, Const) for i in container.items):
        return disj([Compare("==", i, item) for i in container.items])
    elif isinstance(item, Seq) and (rows := _pair_rows(item, container)) is not None:
        # (cfg.a, cfg.b) in ((4, 4), (8, 8))  ==  cfg.a == 4 and cfg.b == 4 or cfg.a == 8 and cfg.b == 8
        return disj([conj([Compare("==", i, Const(v)) for i, v in zip(item.items, row, strict=True)]) for row in rows])
    return In(item, container)


MAX_ROWS = 8  # rows of a table of tuples a tuple of terms is tested against, read row by row


def _pair_rows(item: Seq, container: Expr) -> tuple[tuple[Any, ...], ...] | None:
    """The rows of constant `container` where every row is a tuple of as many values as
    `item` has terms (a few rows at most); else None."""
    if not (isinstance(container, Const) and isinstance(container.value, tuple)):
        return None
    rows = container.value
    if not rows or len(rows) > MAX_ROWS or any(not isinstance(r, tuple) or len(r) != len(item.items) for r in rows):
        return None
    return rows


def _excluded_middle(expr: Expr) -> Expr:
    """`expr` (a conjunction or disjunction) folded where it holds an operand and its negation:
    ``x and not x`` never holds, ``x or not x`` always does (Python's tests are two-valued)."""
    if not isinstance(expr, (And, Or)):
        return expr
    args = set(expr.args)
    if any(negate(a) in args for a in expr.args):
        return FALSE if isinstance(expr, And) else TRUE
    return expr


_SIMPLIFY: dict[type, Callable[[Any], Expr]] = {
    Not: lambda e: negate(simplify(e.arg)),
    And: lambda e: _excluded_middle(conj(_merge_memberships([simplify(a) for a in e.args]))),
    Or: lambda e: _excluded_middle(disj([simplify(a) for a in e.args])),
    Truthy: _simplify_truthy,
    Compare: _simplify_compare,
    In: _simplify_in,
}


def _built_collection(term: Expr) -> bool:
    """``frozenset({"a", "b"})``, ``list(())``: a collection built from a constant; ``s | {"c"}``,
    ``s - {"d"}`` of one."""
    if isinstance(term, Apply) and term.fn in ("|", "-", "&", "^") and len(term.args) == 2:
        return _built_collection(term.args[0])
    return isinstance(term, Apply) and term.fn in ("frozenset", "set", "tuple", "list") and len(term.args) == 1 \
        and isinstance(term.args[0], Const)


def _fold_term(term: Expr) -> Expr:
    """Pick what a term picks when that is known statically: ``(a, b)[0]`` is ``a``,
    ``x if True else y`` is ``x``."""
    if not isinstance(term, Apply):
        return term
    args = tuple(_fold_term(a) for a in term.args)
    if term.fn == "item" and len(args) == 2 and isinstance(args[0], Seq) and isinstance(args[1], Const):
        index = args[1].value
        if isinstance(index, int) and not isinstance(index, bool) and -len(args[0].items) <= index < len(args[0].items):
            return args[0].items[index]
    if term.fn == "item" and len(args) == 2 and isinstance(args[0], Const) and isinstance(args[1], Const):
        picked = _picked(args[0].value, args[1].value)
        if picked is not None:
            return picked
    if term.fn == IF and len(args) == 3:
        test = simplify(args[0])
        if isinstance(test, Const):
            return args[1] if test.value else args[2]
        args = (test, *args[1:])
    return term if args == term.args else Apply(term.fn, args, term.text)


def _picked(container: Any, key: Any) -> Const | None:
    """``c[k]`` of constants, when it is there (a missing key raises: not folded)."""
    if isinstance(container, Mapping):  # a `FrozenMap`
        return Const(container[key]) if isinstance(key, str) and key in container else None
    if isinstance(container, tuple) and isinstance(key, int) and not isinstance(key, bool) \
            and -len(container) <= key < len(container):
        return Const(container[key])
    return None


def _is(a: Any, b: Any) -> bool:
    # Literals have no identity of their own: ``is`` means equal for str/int values, and
    # identity for the singletons None/True/False (``0 is False`` stays False).
    if a is None or b is None or isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return bool(a == b)


def _as_sets(a: Any, b: Any) -> tuple[Any, Any]:
    """A set literal is a tuple in the IR (`Const` values are hashable): compared in order
    with a set (``backends <= {"triton", "fa3"}``: a subset test), it is the set."""
    if isinstance(a, (set, frozenset)) and isinstance(b, tuple):
        return a, frozenset(b)
    if isinstance(b, (set, frozenset)) and isinstance(a, tuple):
        return frozenset(a), b
    return a, b


COMPARE: dict[str, Any] = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
    "is": _is, "is not": lambda a, b: not _is(a, b),
    "<": lambda a, b: operator.lt(*_as_sets(a, b)), "<=": lambda a, b: operator.le(*_as_sets(a, b)),
    ">": lambda a, b: operator.gt(*_as_sets(a, b)), ">=": lambda a, b: operator.ge(*_as_sets(a, b)),
}


def _fold_compare(op: str, left: Any, right: Any) -> bool | None:
    """Compare two literals as Python would (None when the comparison is not defined)."""
    fn = COMPARE.get(op)
    if fn is None:
        return None
    try:
        return bool(fn(left, right))
    except TypeError:
        return None


def is_member_text(value: Any) -> bool:
    """A string constant that is the source of an enum member (``ConnectorType.INSTANCE``):
    what the IR keeps for a class attribute it does not resolve; not a value anyone writes."""
    if not isinstance(value, str) or value.count(".") != 1:
        return False
    owner, attr = value.split(".")
    return owner.isidentifier() and attr.isidentifier() and owner[:1].isupper() and attr.isupper()


def walk(expr: Expr) -> Iterator[Expr]:
    """`expr` and every sub-expression, depth first."""
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(children(node)))


def distinct_nodes(exprs: Iterable[Expr]) -> list[Expr]:
    """Every node object under `exprs`, each once: a sub-tree shared by several conditions (a
    compiled judge's, `extractor.ir_table`) is walked once. In no particular order."""
    seen: set[int] = set()
    out: list[Expr] = []
    stack = list(exprs)
    while stack:
        node = stack.pop()
        if id(node) not in seen:
            seen.add(id(node))
            out.append(node)
            stack.extend(_CHILDREN[type(node)](node))
    return out


def substitute(expr: Expr, mapping: Mapping[Ref, Expr]) -> Expr:
    """`expr` with the given leaves replaced (e.g. parameters bound at call sites)."""
    return replace_refs(expr, lambda ref: mapping.get(ref, ref))


def replace_refs(expr: Expr, fn: Callable[[Ref], Expr]) -> Expr:
    """`expr` with every reference replaced by `fn(ref)` (return `ref` to keep it)."""
    if isinstance(expr, Ref):
        return fn(expr)
    return _REBUILD[type(expr)](expr, tuple(replace_refs(child, fn) for child in children(expr)))


def depth(expr: Expr) -> int:
    """Levels of nesting (a leaf is 1), counted without recursion."""
    deepest = 0
    stack = [(expr, 1)]
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in children(node))
    return deepest


def leaves(expr: Expr) -> Iterator[Ref | Const | Unknown]:
    """Every leaf in source order."""
    stack = [expr]
    while stack:
        node = stack.pop()
        kids = children(node)
        if kids:
            stack.extend(reversed(kids))
        else:
            yield cast(Ref | Const | Unknown, node)  # a node without children is a leaf


def _membership(part: Expr) -> tuple[Expr, str, tuple[Any, ...]] | None:
    """(term, "only" | "not", values) for ``t in (..)``, ``t == c``, ``t not in (..)``, ``t != c``."""
    negated = isinstance(part, Not)
    inner = part.arg if isinstance(part, Not) else part
    if isinstance(inner, In) and isinstance(inner.container, Const) and isinstance(inner.container.value, tuple):
        return inner.item, "not" if negated else "only", inner.container.value
    if isinstance(inner, Compare) and isinstance(inner.right, Const) and inner.op in ("==", "!=", "is", "is not"):
        positive = (inner.op in ("==", "is")) != negated
        return inner.left, "only" if positive else "not", (inner.right.value,)
    return None


def _merge_memberships(parts: list[Expr]) -> list[Expr]:
    """``x in (A, B, C) and x != B and x is not None`` -> ``x in (A, C)``: one set per term."""
    allowed: dict[Expr, list[Any]] = {}
    for part in parts:
        found = _membership(part)
        if found and found[1] == "only":
            term, _, values = found
            allowed[term] = [v for v in allowed.get(term, values) if v in values]
    if not allowed:
        return parts
    for part in parts:
        found = _membership(part)
        if found and found[1] == "not" and found[0] in allowed:
            allowed[found[0]] = [v for v in allowed[found[0]] if v not in found[2]]
    out: list[Expr] = []
    placed: set[Expr] = set()
    for part in parts:  # the merged constraint takes the place of the term's first one
        found = _membership(part)
        if found is None or found[0] not in allowed:
            out.append(part)
        elif found[0] not in placed:
            placed.add(found[0])
            kept = allowed[found[0]]
            if not kept:
                out.append(FALSE)
            elif len(kept) == 1:
                out.append(Compare("is" if kept[0] is None else "==", found[0], Const(kept[0])))
            else:
                out.append(In(found[0], Const(tuple(kept))))
    return out


def refs(expr: Expr) -> list[Ref]:
    """Every `Ref` leaf, in first-seen order, without duplicates."""
    return list(dict.fromkeys(leaf for leaf in leaves(expr) if isinstance(leaf, Ref)))


def unknowns(expr: Expr) -> list[Unknown]:
    """Leaves that could not be interpreted, including `Ref`s of kind unknown."""
    out: list[Unknown] = []
    for leaf in leaves(expr):
        if isinstance(leaf, Unknown):
            out.append(leaf)
        elif isinstance(leaf, Ref) and leaf.kind is RefKind.UNKNOWN:
            out.append(Unknown(leaf.text))
    return out
