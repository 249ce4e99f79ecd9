"""Render condition IR in user terms: flags as ``--options``, env vars as ``NAME=value``."""
from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from analyzers.flags import RESOLVED_FROM, FlagModel, json_field, option_for_dest
from analyzers.named_terms import LONG, named_terms
from analyzers.readable import call_reading
from extractor.ir import (
    ATTRIBUTE,
    DESCRIBED,
    IF,
    KEYWORD,
    MIRRORED_OP,
    NEGATED_OP,
    ON_COMMAND_LINE,
    OR_FALLBACK,
    PARSE_RECORD,
    RAISES,
    REGISTERED,
    SOME_ITEM,
    STATED_OR,
    UNSET_OR,
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
    Seq,
    Truthy,
    Unknown,
    Visitor,
    is_condition,
    is_truthiness,
    map_children,
    refs,
    walk,
)
from extractor.ir_reduce import reduced
from extractor.records import PARAMETER

# Operands of one and/or shown; the rest are counted, so a generated 5,000-term chain
# does not make a 250 KB trigger. Real sglang conditions have at most 12.
MAX_OPERANDS = 40


def more(hidden: int, joiner: str, noun: str) -> str:
    """`` … and 4,960 more conditions`` for what a list leaves out; "" when nothing is."""
    if hidden <= 0:
        return ""
    return f" … {joiner} {hidden:,} more {noun}{'s' if hidden > 1 else ''}"


# dest -> option text (e.g. "--tp-size"); None when the field has no CLI option.
OptionNamer = Callable[[str], "str | None"]

def _no_option(dest: str) -> None:
    return None


@dataclass(frozen=True, slots=True)
class Renderer(Visitor[str]):
    """IR in user terms: `value` renders a term (one handler per kind), `text` a condition."""

    option: OptionNamer = option_for_dest
    # dest of a derived setting -> the option it is resolved from (a field of a JSON flag)
    source: OptionNamer = _no_option

    @classmethod
    def for_model(cls, model: FlagModel | None) -> Renderer:
        """Options as declared; a config attribute with no CLI option is a derived setting,
        or a field of the option its help says it is resolved from."""
        if model is None or not model.flags:
            return cls()

        def option(dest: str) -> str | None:
            flag = model.by_dest(dest)
            return flag.option if flag is not None else None

        def source(dest: str) -> str | None:
            flag = model.by_dest(dest)
            found = RESOLVED_FROM.fullmatch(flag.help or "") if flag is not None else None
            return found.group(1) if found and model.by_option(found.group(1)) is not None else None

        return cls(option, source)

    def text(self, expr: Expr) -> str:
        """One sentence fragment, e.g. "`--enable-lora` is set and `--x` is one of A, B"; a long
        one with the values it writes out repeatedly named once (`named_terms`)."""
        condition = reduced(expr)
        said = _Sentence(self, negated=False).visit(condition)
        if len(said) < LONG:
            return said
        return named_terms(said, {self.value(t) for t in {n for n in walk(condition) if isinstance(n, Apply)}
                                  if not is_condition(t)})

    def value(self, expr: Expr) -> str:
        return self.visit(expr)

    def name(self, ref: Ref) -> str:
        if ref.kind is RefKind.FLAG:
            return self._setting(ref.name)
        if ref.kind is RefKind.ENV:
            return f"`{ref.name}`"
        if ref.kind is RefKind.PLATFORM:
            return f"platform check `{ref.name if ref.name.endswith(')') else ref.name + '()'}`" \
                if "." not in ref.name else f"platform check `{ref.name}`"
        if ref.kind is RefKind.MODEL:  # as the source reads it; ``getattr(cfg, "x", d)`` by the field
            return f"model property `{ref.name if ref.text.startswith('getattr(') else ref.text}`"
        if ref.kind is RefKind.RUNTIME:
            return f"`{ref.text}`"
        return _unknown(ref.text)

    def _setting(self, dest: str) -> str:
        """`--tp-size`; a field of a JSON option (```--cuda-graph-config` field `prefill.bs```),
        whether read through its dotted path or filled from it; else a derived setting."""
        option = self.option(dest)
        if option:
            return f"`{option}`"
        head, dot, path = dest.partition(".")
        option = self.option(head) if dot else None
        if option:
            return f"`{option}` field `{path}`"
        option = self.source(dest)
        if option:
            return f"`{option}` field `{json_field(option.lstrip('-').replace('-', '_'), dest)}`"
        if dest.endswith("()"):  # what a function of the whole config computes (`inline._with_derived`)
            return _computed(dest[:-2])
        call, dot, attr = dest.partition("().")
        if dot and call.isidentifier():  # a field of what such a function builds: `model_config_of().dtype`
            return f"{_owner(call)} `{attr}`"
        if _private(dest):  # the program's own bookkeeping (`_resolution_finished`): no name to show
            return f"the code's internal state “{_words(dest)}”"
        return f"`{dest}` (derived setting)"

    # ------------------------------------------------------------ values, per kind

    def visit_Ref(self, expr: Ref) -> str:
        return self.name(expr)

    def visit_Const(self, expr: Const) -> str:
        return _const(expr.value)

    def visit_Unknown(self, expr: Unknown) -> str:
        return _unknown(expr.text)

    def visit_Seq(self, expr: Seq) -> str:
        return ", ".join(self.visit(i) for i in expr.items)

    def visit_Apply(self, expr: Apply) -> str:
        """A computed value in user terms: ``max(`--a`, `--b`) % `--c```, not the source's locals."""
        count = len(expr.args)
        for names, arity, render in _APPLY_FORMS:
            if expr.fn in names and (count == arity if arity is not None else count > 0):
                return render(self, expr)
        if _private(expr.fn):  # a helper of the program's own: what its name says, of what the user gives
            shown = ", ".join(self.visit(a) for a in expr.args if refs(a))
            return _helper(expr.fn) + (f" of {shown}" if shown else "")
        if not any(refs(a) for a in expr.args):
            return f"`{expr.text}`"  # nothing of the user's in it: the code says it best
        if (reading := call_reading(expr.fn)) is not None:  # what its name says it computes, from what
            shown = ", ".join(self.visit(_passed(a)) for a in expr.args if refs(a))
            return f"the {reading[0]} {reading[1]} {shown}"
        return f"{expr.fn}({', '.join(self.visit(a) for a in expr.args)})"

    def visit_And(self, expr: And) -> str:
        return self._junction(expr, " and ")

    def visit_Or(self, expr: Or) -> str:
        return self._junction(expr, " or ")

    def _junction(self, expr: And | Or, joiner: str) -> str:
        if all(is_truthiness(a) for a in expr.args):
            # Python's `x or 1` as a value (the first truthy operand), not a condition
            terms = [cast(Truthy, a).term for a in expr.args]
            if isinstance(expr, Or) and _is_empty(terms[-1]):
                terms.pop()  # `(x or "")`, `(x or {})`: x, read as empty when not given
            if len(terms) == 1:
                return self.visit(terms[0])
            return "(" + joiner.join(self.visit(t) for t in terms) + ")"
        return self._condition(expr)

    def _condition(self, expr: Expr) -> str:
        """A truth value where a value is read: the condition, in parentheses."""
        return f"({self.text(expr)})"

    visit_Truthy = visit_Compare = visit_In = visit_Not = _condition

    # ------------------------------------------------ computed values (`Apply`), per form

    def _operand(self, expr: Expr) -> str:
        shown = self.visit(expr)
        worded = isinstance(expr, Apply) and (_private(expr.fn) or call_reading(expr.fn) is not None)
        return f"({shown})" if isinstance(expr, Apply) and (expr.fn in _BINARY or worded) and " " in shown else shown

    def _len(self, expr: Apply) -> str:
        (arg,) = expr.args
        if isinstance(arg, Apply) and arg.fn == "encode" and arg.args:  # len(text.encode("utf-8"))
            return f"the size in bytes of {self.visit(arg.args[0])}"
        if isinstance(arg, Apply) and arg.fn in ("set", "frozenset") and len(arg.args) == 1 \
                and not isinstance(arg.args[0], Const):  # len(set(x)): duplicates counted once
            return f"the number of distinct items in {self.visit(arg.args[0])}"
        return f"the number of items in {self.visit(arg)}"

    def _json(self, expr: Apply) -> str:
        return f"the JSON in {self.visit(expr.args[0])}"

    def _json_field(self, expr: Apply) -> str | None:
        """``json.loads(x).get("k")`` / ``json.loads(x)["k"]`` / ``Cls.from_cli(x).k``: the
        field as a user writes it."""
        owner, key = expr.args[0], expr.args[1]
        if isinstance(owner, Apply) and owner.fn in ("json.loads", PARSE_RECORD) and isinstance(key, Const):
            return f"field `{key.value}` of the JSON in {self.visit(owner.args[-1])}"
        return None

    def _record(self, expr: Apply) -> str:
        """``KVEventsConfig.from_cli(x)``: the JSON the model reads (its fields' defaults aside)."""
        return f"the {expr.text.partition('.')[0]} read from the JSON in {self.visit(expr.args[-1])}"

    def _collection(self, expr: Apply) -> str:
        """``frozenset({"a", "b"})``: {a, b}, the values as a user writes them; ``set(x)``: x."""
        (arg,) = expr.args
        if not isinstance(arg, Const):
            return self.visit(arg)
        items = arg.value if isinstance(arg.value, tuple) else (arg.value,)
        return "{" + ", ".join(_const(v, True) for v in items) + "}"

    def _conversion(self, expr: Apply) -> str:
        return self.visit(expr.args[0])  # int(x), str(x) ...: the value the user gave

    def _choice(self, expr: Apply) -> str:
        test, then, other = expr.args
        if test in (Truthy(then), Compare("is not", then, Const(None))):  # `x if x else y`
            return f"{self.visit(then)} (if given, else {self.visit(other)})"
        return f"({self.visit(then)} if {self.text(test)}, else {self.visit(other)})"

    def _binary(self, expr: Apply) -> str:
        if expr.fn == "-" and expr.args[1] in (Const((None,)), Const(None)):  # ``set(x) - {None}``
            return f"{self._operand(expr.args[0])} (those given)"
        return f"{self._operand(expr.args[0])} {expr.fn} {self._operand(expr.args[1])}"

    def _unary(self, expr: Apply) -> str:
        return f"{expr.fn}{self._operand(expr.args[0])}"

    def _registered(self, expr: Apply) -> str:
        return f"the `{self.visit(expr.args[1]).strip('`')}` registered at run time under {self.visit(expr.args[0])}"

    def _slice(self, expr: Apply) -> str:
        lower, upper = ("" if b == Const(None) else self.visit(b) for b in expr.args[1:])
        return f"{self._operand(expr.args[0])}[{lower}:{upper}]"

    def _map(self, expr: Apply) -> str:
        return self.visit(expr.args[1])  # [float(x) for x in v]: the items the user gave

    def computed(self, expr: Expr) -> str:
        """A value with its conversion shown (``float(`--x`[1])``): what a `RAISES` step computes."""
        if isinstance(expr, Apply) and expr.fn in _CONVERSIONS and len(expr.args) == 1:
            return f"{expr.fn}({self.visit(expr.args[0])})"
        if isinstance(expr, Apply) and expr.fn == "map" and len(expr.args) == 2 and isinstance(expr.args[0], Const):
            return f"{expr.args[0].value}() of each item of {self.visit(expr.args[1])}"
        return self.visit(expr)

    def _some_item(self, expr: Apply) -> str:
        """``any(c(x) for x in items)``, as a loop's check reads: the loop variable by its name."""
        items, name, holds = expr.args
        var = name.value if isinstance(name, Const) else ""

        def named(node: Expr) -> Expr:
            if isinstance(node, Ref) and node.kind is RefKind.UNKNOWN and node.name == var:
                return Ref(RefKind.RUNTIME, var, var)  # shown as `var`, not as an unknown
            return map_children(node, named)
        return f"for some item `{var}` of {self.visit(items)}: {self.text(named(holds))}"

    def _or_fallback(self, expr: Apply) -> str:
        return f"{self.visit(expr.args[0])} (its declared fallback while unset)"

    def _unset_or(self, expr: Apply) -> str:
        term, default = expr.args
        if isinstance(term, Ref) and term.kind is RefKind.MODEL:  # a field the model's config may lack
            shown = self.visit(term)
            return shown if default == Const(None) else f"{shown} ({self.visit(default)} where the config lacks it)"
        return f"{self.visit(term)} (while unset: {self.visit(default)})"

    def _item(self, expr: Apply) -> str:
        if _is_table(expr.args[0], expr.args[1]):  # ``_TABLE[arch]``: the table's row, not all its keys
            name = expr.text.partition("[")[0]
            table = f"`{name}`" if name.isidentifier() else "table"
            return f"the code's {table} entry for {self.visit(expr.args[1])}"
        items = expr.args[0]  # ``(x or [None])[0]``: x's first item, not given where x is empty
        if isinstance(items, Or) and len(items.args) == 2 and all(is_truthiness(a) for a in items.args) \
                and cast(Truthy, items.args[1]).term == Const((None,)):
            items = cast(Truthy, items.args[0]).term
        return self._json_field(expr) or f"{self._operand(items)}[{self.visit(expr.args[1])}]"

    def _keyword(self, expr: Apply) -> str:
        name = expr.args[0]
        return f"{name.value if isinstance(name, Const) else self.visit(name)}={self.visit(expr.args[1])}"

    def _stated_or(self, expr: Apply) -> str:
        return self.visit(expr.args[0])  # the call as the source makes it

    def _attribute(self, expr: Apply) -> str:
        if field := self._json_field(expr):
            return field
        name = expr.args[1]
        return f"{self._operand(expr.args[0])}.{name.value if isinstance(name, Const) else self.visit(name)}"

    def _method(self, expr: Apply) -> str:
        if expr.fn == "get" and len(expr.args) == 2 and (field := self._json_field(expr)):
            return field
        owner, key = expr.args[0], expr.args[1] if len(expr.args) > 1 else None
        if expr.fn == "get" and isinstance(key, Const) and isinstance(owner, Apply) and owner.fn == "item" \
                and _is_table(owner.args[0], owner.args[1]):  # ``_TABLE[arch].get("algorithm")``
            return f"`{key.value}` of {self.visit(owner)}"
        # a string argument quoted as the code writes it: ``.startswith("{")``, not ``.startswith({)``
        rest = ", ".join(json.dumps(a.value) if isinstance(a, Const) and isinstance(a.value, str) else self.visit(a)
                         for a in expr.args[1:])
        return f"{self._operand(expr.args[0])}.{expr.fn}({rest})"


_CONVERSIONS = frozenset({"int", "float", "str", "bool"})
_COLLECTIONS = ("frozenset", "set", "tuple", "list")  # ``x in frozenset({...})`` reads as ``x in {...}``
_BINARY = frozenset({"+", "-", "*", "/", "//", "%", "**", "|", "&", "^", "<<", ">>"})
_METHODS = frozenset({"lower", "upper", "strip", "lstrip", "rstrip", "encode",
                      "startswith", "endswith", "split", "get", "replace", "keys", "values",
                      "items", "count", "index", "find"})

# (functions, number of arguments (None: at least one), rendering), first match wins;
# any other `Apply` renders as a call.
_APPLY_FORMS: tuple[tuple[frozenset[str], int | None, Callable[[Renderer, Apply], str]], ...] = (
    (frozenset({"len"}), 1, Renderer._len),
    (_CONVERSIONS, 1, Renderer._conversion),
    (frozenset(_COLLECTIONS), 1, Renderer._collection),
    (frozenset({"slice"}), 3, Renderer._slice),
    (frozenset({"map"}), 2, Renderer._map),
    (frozenset({IF}), 3, Renderer._choice),
    (_BINARY, 2, Renderer._binary),
    (frozenset({"-", "+", "~"}), 1, Renderer._unary),
    (frozenset({"item"}), 2, Renderer._item),
    (frozenset({"json.loads"}), 1, Renderer._json),
    (frozenset({PARSE_RECORD}), 2, Renderer._record),
    (frozenset({SOME_ITEM}), 3, Renderer._some_item),
    (frozenset({REGISTERED}), 2, Renderer._registered),
    (frozenset({ATTRIBUTE}), 2, Renderer._attribute),
    (frozenset({KEYWORD}), 2, Renderer._keyword),
    (frozenset({STATED_OR}), 2, Renderer._stated_or),
    (frozenset({UNSET_OR}), 2, Renderer._unset_or),
    (frozenset({OR_FALLBACK}), 1, Renderer._or_fallback),
    (_METHODS, None, Renderer._method),
)

_SAYS = {"==": "is", "is": "is", "!=": "is not", "is not": "is not"}
_SET_ORDER = {"<=": "is a subset of", "<": "is a proper subset of", ">=": "is a superset of",
              ">": "is a proper superset of"}


def _set_like(expr: Expr) -> bool:
    """Is `expr` a set for sure (``set(x)``, ``frozenset(...)``, ``a - {b}`` of one)?"""
    return isinstance(expr, Apply) and (expr.fn in ("set", "frozenset") or (
        expr.fn in ("-", "|", "&", "^") and any(_set_like(a) for a in expr.args)))


@dataclass(frozen=True, slots=True)
class _Sentence(Visitor[str]):
    """A condition as a sentence fragment, one handler per kind; `negated` renders its
    negation (pushed down to the leaves, De Morgan at and/or)."""

    r: Renderer
    negated: bool

    def visit_Not(self, expr: Not) -> str:
        return _Sentence(self.r, not self.negated).visit(expr.arg)

    def visit_And(self, expr: And) -> str:
        return self._junction(expr.args, conjunction=not self.negated)

    def visit_Or(self, expr: Or) -> str:
        return self._junction(expr.args, conjunction=self.negated)

    def _junction(self, args: tuple[Expr, ...], conjunction: bool) -> str:
        joiner, other = (" and ", " or ") if conjunction else (" or ", " and ")
        # the same words twice say nothing more (one setting read as ``cfg.x`` and ``server_args.x``)
        parts = list(dict.fromkeys(self.visit(a) for a in args[:MAX_OPERANDS]))
        parts = [f"({p})" if other in p else p for p in parts]
        return joiner.join(parts) + more(len(args) - MAX_OPERANDS, joiner.strip(), "condition")

    def visit_Const(self, expr: Const) -> str:
        return "always" if bool(expr.value) != self.negated else "never"

    def visit_Truthy(self, expr: Truthy) -> str:
        return self.visit(expr.term)  # a term: `simplify` leaves no condition or constant in it

    # A term where a condition is read states that it is truthy.

    def visit_Ref(self, expr: Ref) -> str:
        if expr.kind is RefKind.ENV:
            return f"`{expr.name}=0` or unset" if self.negated else f"`{expr.name}=1`"
        if expr.kind is RefKind.FLAG:
            return f"{self.r.name(expr)} is {'not ' if self.negated else ''}set"
        if expr.kind is RefKind.PLATFORM:
            return f"{self.r.name(expr)} is {'false' if self.negated else 'true'}"
        return self._truthy(expr)

    def visit_Apply(self, expr: Apply) -> str:
        form = _SENTENCE_FORMS.get(expr.fn)
        if form is not None and (said := form(self, expr)) is not None:
            return said
        if expr.fn in ("&", "-") and len(expr.args) == 2 and isinstance(expr.args[1], Const) \
                and not _set_like(expr.args[0]):  # ``any(x in C for x in items)`` and kin
            return self._items_in(expr)
        return self._truthy(expr)

    # one sentence per form of `Apply` read as a condition (`_SENTENCE_FORMS`); None: not this form

    def _on_command_line(self, expr: Apply) -> str | None:
        if len(expr.args) != 1:
            return None
        env = isinstance(expr.args[0], Ref) and expr.args[0].kind is RefKind.ENV
        where = "set" if env else "on the command line"
        return f"{self.r.value(expr.args[0])} is {'not ' if self.negated else ''}{where}"

    def _raised(self, expr: Apply) -> str | None:
        return self._raises(expr) if expr.args and isinstance(expr.args[0], Const) else None

    def _some_item(self, expr: Apply) -> str | None:
        if len(expr.args) != 3:
            return None
        shown = self.r.value(expr)
        return f"not ({shown})" if self.negated else shown

    def _registered(self, expr: Apply) -> str | None:
        if len(expr.args) != 2 or not isinstance(expr.args[1], Const):
            return None
        names = "does not name" if self.negated else "names"  # a plugin's, not one the code lists
        return f"{self.r.value(expr.args[0])} {names} a `{expr.args[1].value}` registered at run time"

    def _instance(self, expr: Apply) -> str | None:
        if len(expr.args) != 2:
            return None
        return f"{self.r.value(expr.args[0])} is {'not ' if self.negated else ''}a {self.r.value(expr.args[1])}"

    def _raises(self, expr: Apply) -> str:
        steps = ", ".join(self.r.computed(a) for a in expr.args[1:]) or "nothing"
        names = cast(Const, expr.args[0]).value
        caught = " or ".join(names) if isinstance(names, tuple) else str(names)
        return f"computing {steps} {'raises no' if self.negated else 'raises'} {caught}"

    def _items_in(self, expr: Apply) -> str:
        """``items & C`` (some item is in C), ``items - C`` (some item is not) as a condition."""
        items, within = self.r.value(expr.args[0]), self.r.value(expr.args[1])
        if expr.fn == "&":
            return f"{'no' if self.negated else 'an'} item of {items} is one of {within}"
        if self.negated:
            return f"every item of {items} is one of {within}"
        return f"an item of {items} is not one of {within}"

    def _truthy(self, expr: Expr) -> str:
        return f"{self.r.value(expr)} is {'false/empty' if self.negated else 'true/non-empty'}"

    visit_Seq = visit_Unknown = _truthy

    def visit_Compare(self, expr: Compare) -> str:
        left, right, op = expr.left, expr.right, expr.op
        if isinstance(left, Const) and not isinstance(right, Const):
            left, right, op = right, left, MIRRORED_OP.get(op, op)
        if op in _SET_ORDER and (_set_like(left) or _set_like(right)):  # a partial order: not (a <= b) is no a > b
            said = _SET_ORDER[op] if not self.negated else _SET_ORDER[op].replace("is ", "is not ", 1)
            return f"{self.r.value(left)} {said} {self.r.value(right)}"
        if self.negated:
            op = NEGATED_OP[op]
        if right == Const(None) and op in _SAYS:
            return self._given(left, given=op in ("is not", "!="))
        if _is_env(left) and op in ("==", "is"):
            return f"`{cast(Ref, left).name}={_bare(right)}`"
        return f"{self.r.value(left)} {_SAYS.get(op, op)} {self.r.value(right)}"

    def _given(self, term: Expr, given: bool) -> str:
        if _is_env(term):
            return f"{self.r.value(term)} is {'set' if given else 'unset'}"
        return f"{self.r.value(term)} is {'given' if given else 'not given'}"

    def visit_In(self, expr: In) -> str:
        subject, container = self.r.value(expr.item), expr.container
        if isinstance(expr.item, Seq):  # a pair such as ``(phase, "backend")``
            subject = f"({subject})"
        if isinstance(container, Apply) and container.fn in _COLLECTIONS and len(container.args) == 1 \
                and isinstance(container.args[0], Const) and isinstance(container.args[0].value, tuple):
            container = container.args[0]  # ``x in frozenset({...})`` is ``x in {...}``
        if isinstance(container, Const) and isinstance(container.value, tuple):
            return self._one_of(subject, [None if v is None else _const(v, nested=True) for v in container.value])
        if isinstance(container, Seq):  # `x in (None, 1, cfg.tp_size)`
            return self._one_of(subject, [None if i == Const(None) else self.r.value(i) for i in container.items])
        return f"{subject} is {'not ' if self.negated else ''}in {self.r.value(container)}"

    def _one_of(self, subject: str, values: Sequence[str | None]) -> str:
        """Membership in a literal tuple (items as shown); `None` in it reads as (not) given."""
        named = [v for v in values if v is not None]
        verb = "one of " if len(named) > 1 else ""
        shown = ", ".join(named)
        text = f"{subject} is {'not ' if self.negated else ''}{verb}{shown}" if named else ""
        if len(named) == len(values):
            return text
        joiner, given = (" and ", "is given") if self.negated else (" or ", "is not given")
        return f"{text}{joiner}{given}" if text else f"{subject} {given}"


_SENTENCE_FORMS: dict[str, Callable[[_Sentence, Apply], str | None]] = {
    ON_COMMAND_LINE: _Sentence._on_command_line,
    RAISES: _Sentence._raised,
    SOME_ITEM: _Sentence._some_item,
    REGISTERED: _Sentence._registered,
    "isinstance": _Sentence._instance,
}


_PRIVATE_CALL = re.compile(r"(?:\w+\.)*(_(?!_)\w+)\(\)")  # ``_supports_x()``, ``mod._helper()``
_PRIVATE_CALLED = re.compile(r"(?:\w+\.)*(_(?!_)\w+)\((.+)\)")  # ``_is_ipv6(host)``
_PRIVATE_IN = re.compile(r"(?<![\w.])(?:\w+\.)*(_(?!_)\w+)\(")  # one somewhere in the text


def unknown_fact(text: str) -> str | None:
    """A leaf errcat could not read in plain words, where the words say more than the code:
    a local by what kind of value it is, a parameter no call site binds by who gives it, a
    private helper called with nothing by what its name says. None: the code says it best."""
    if text.startswith(DESCRIBED):
        return text
    if text.startswith(PARAMETER):
        return f"what its caller passes as `{text.removeprefix(PARAMETER)}`"
    called = _PRIVATE_CALL.fullmatch(text)
    if called:
        return _helper(called.group(1))
    if (called := _PRIVATE_CALLED.fullmatch(text)) and "(" not in called.group(2):
        return f"what {_helper(called.group(1))} says of `{called.group(2)}`"
    if inside := _PRIVATE_IN.search(text):  # ``_derived_widths().get(name)``
        return f"a value {_helper(inside.group(1))} computes"
    return None


def _unknown(text: str) -> str:
    return f"{unknown_fact(text) or f'`{text}`'} (unknown)"


def _computed(fn: str) -> str:
    """What function `fn` of the whole config computes, as its name says."""
    reading = call_reading(fn)
    return _helper(fn) if _private(fn) else f"the {reading[0]} {reading[1]} the settings" if reading \
        else f"what `{fn}(…)` returns"


def _owner(fn: str) -> str:
    """Whose field a ``fn().x`` read is: ``model_config_of``: "the model config's" (a name
    ``<what>_of`` says what it builds), else the value `_computed` names."""
    what = fn.strip("_").removeprefix("get_").removesuffix("_of")
    return f"the {what.replace('_', ' ')}'s" if fn.endswith("_of") and what else f"{_computed(fn)}, field"


def _helper(fn: str) -> str:
    """``_resolve_quant_method``: the code's “resolve quant method”."""
    return f"the code's “{_words(fn)}”"


def _words(name: str) -> str:
    """``mod._resolve_quant_method``: "resolve quant method"."""
    return name.rpartition(".")[2].strip("_").replace("_", " ")


def _passed(arg: Expr) -> Expr:
    """What an argument passes (a keyword argument's value)."""
    return arg.args[1] if isinstance(arg, Apply) and arg.fn == KEYWORD and len(arg.args) == 2 else arg


def _private(fn: str) -> bool:
    """``_resolve_quant_method``, ``mod._helper``: a private function (not a dunder)."""
    last = fn.rpartition(".")[2]
    return last.startswith("_") and not last.startswith("__")


def _is_env(expr: Expr) -> bool:
    return isinstance(expr, Ref) and expr.kind is RefKind.ENV


def _is_empty(expr: Expr) -> bool:
    """An empty literal (``""``, ``()``, ``{}``, ``[]``) as a fallback value."""
    return (isinstance(expr, Seq) and not expr.items) or (
        isinstance(expr, Const) and isinstance(expr.value, (str, tuple, Mapping, frozenset)) and not expr.value)


def _is_table(expr: Expr, key: Expr) -> bool:
    """A mapping the code holds as a constant and the catalog keeps as its keys alone (a tuple
    of names), read by `key` (a name, not a position)."""
    if not isinstance(expr, Const) or not expr.value:  # a mapping with its values shows them: `{'a': 'b'}[x]`
        return False
    by_name = not (isinstance(key, Const) and isinstance(key.value, int))
    return isinstance(expr.value, tuple) and by_name and all(isinstance(v, str) for v in expr.value)


def _const(value: Any, nested: bool = False) -> str:
    if isinstance(value, tuple):
        inner = ", ".join(_const(v, True) for v in value)
        return f"({inner})" if nested or not value else inner
    if isinstance(value, str) and not value:
        return '""'
    if isinstance(value, Mapping) and not value:
        return "{}"
    if value is None:
        return "not given"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _bare(expr: Expr) -> str:
    return _const(expr.value) if isinstance(expr, Const) else f"{expr}"

