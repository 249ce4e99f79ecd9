"""Render condition IR in user terms: flags as ``--options``, env vars as ``NAME=value``."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from analyzers.flags import FlagModel, option_for_dest
from extractor.ir import (
    IF,
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
    refs,
    simplify,
)

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


@dataclass(frozen=True, slots=True)
class Renderer:
    option: OptionNamer = option_for_dest

    @classmethod
    def for_model(cls, model: FlagModel | None) -> Renderer:
        """Options as declared; a config attribute with no CLI option is a derived setting."""
        if model is None or not model.flags:
            return cls()

        def option(dest: str) -> str | None:
            flag = model.by_dest(dest)
            return flag.option if flag is not None else None

        return cls(option)

    def name(self, ref: Ref) -> str:
        if ref.kind is RefKind.FLAG:
            option = self.option(ref.name)
            return f"`{option}`" if option else f"`{ref.name}` (derived setting)"
        if ref.kind is RefKind.ENV:
            return f"`{ref.name}`"
        if ref.kind is RefKind.PLATFORM:
            return f"platform check `{ref.name if ref.name.endswith(')') else ref.name + '()'}`" \
                if "." not in ref.name else f"platform check `{ref.name}`"
        if ref.kind is RefKind.MODEL:
            return f"model property `{ref.text}`"
        if ref.kind is RefKind.RUNTIME:
            return f"`{ref.text}`"
        return f"`{ref.text}` (unknown)"

    def value(self, expr: Expr) -> str:
        if isinstance(expr, Const):
            return _const(expr.value)
        if isinstance(expr, Ref):
            return self.name(expr)
        if isinstance(expr, Seq):
            return ", ".join(self.value(i) for i in expr.items)
        if isinstance(expr, Apply):
            return self._apply(expr)
        if isinstance(expr, Unknown):
            return f"`{expr.text}` (unknown)"
        if isinstance(expr, (And, Or)) and all(_is_operand(a) for a in expr.args):
            # Python's `x or 1` as a value (the first truthy operand), not a condition
            joiner = " or " if isinstance(expr, Or) else " and "
            return "(" + joiner.join(self.value(a.term) for a in expr.args) + ")"  # type: ignore[union-attr]
        return f"({self.text(expr)})"

    def _apply(self, expr: Apply) -> str:
        """A computed value in user terms: ``max(`--a`, `--b`) % `--c```, not the source's locals."""
        fn, args = expr.fn, expr.args
        if fn == "len" and len(args) == 1:
            return f"the number of items in {self.value(args[0])}"
        if fn in ("int", "float", "str", "bool") and len(args) == 1:
            return self.value(args[0])  # a conversion: the value the user gave
        if fn == IF and len(args) == 3:
            test, then, other = args
            if test in (Truthy(then), Compare("is not", then, Const(None))):  # `x if x else y`
                return f"{self.value(then)} (if given, else {self.value(other)})"
            return f"({self.value(then)} if {self.text(test)}, else {self.value(other)})"
        if fn in _BINARY and len(args) == 2:
            return f"{self._operand(args[0])} {fn} {self._operand(args[1])}"
        if fn in ("-", "+", "~") and len(args) == 1:
            return f"{fn}{self._operand(args[0])}"
        if fn == "item" and len(args) == 2:
            return f"{self._operand(args[0])}[{self.value(args[1])}]"
        if fn in _METHODS and args:
            rest = ", ".join(self.value(a) for a in args[1:])
            return f"{self._operand(args[0])}.{fn}({rest})"
        if not args or not any(refs(a) for a in args):
            return f"`{expr.text}`"  # nothing of the user's in it: the code says it best
        return f"{fn}({', '.join(self.value(a) for a in args)})"

    def _operand(self, expr: Expr) -> str:
        shown = self.value(expr)
        return f"({shown})" if isinstance(expr, Apply) and expr.fn in _BINARY else shown

    def text(self, expr: Expr) -> str:
        """One sentence fragment, e.g. "`--enable-lora` is set and `--x` is one of A, B"."""
        return self._cond(simplify(expr), negated=False)

    def _cond(self, expr: Expr, negated: bool) -> str:
        if isinstance(expr, Not):
            return self._cond(expr.arg, not negated)
        if isinstance(expr, (And, Or)):
            is_and = isinstance(expr, And) != negated  # De Morgan
            joiner = " and " if is_and else " or "
            parts = [self._cond(a, negated) for a in expr.args[:MAX_OPERANDS]]
            parts = [f"({p})" if (" or " in p and is_and) or (" and " in p and not is_and) else p for p in parts]
            return joiner.join(parts) + more(len(expr.args) - MAX_OPERANDS, joiner.strip(), "condition")
        if isinstance(expr, Const):
            return "always" if bool(expr.value) != negated else "never"
        if isinstance(expr, Truthy):
            return self._truthy(expr.term, negated)
        if isinstance(expr, Compare):
            return self._compare(expr, negated)
        if isinstance(expr, In):
            return self._in(expr, negated)
        return self._truthy(expr, negated)

    def _truthy(self, term: Expr, negated: bool) -> str:
        if isinstance(term, Apply) and term.fn == "isinstance" and len(term.args) == 2:
            kind = self.value(term.args[1])
            return f"{self.value(term.args[0])} is {'not ' if negated else ''}a {kind}"
        if isinstance(term, Ref) and term.kind is RefKind.ENV:
            return f"`{term.name}=0` or unset" if negated else f"`{term.name}=1`"
        if isinstance(term, Ref) and term.kind is RefKind.FLAG:
            return f"{self.name(term)} is {'not ' if negated else ''}set"
        if isinstance(term, Ref) and term.kind is RefKind.PLATFORM:
            return f"{self.name(term)} is {'false' if negated else 'true'}"
        return f"{self.value(term)} is {'false/empty' if negated else 'true/non-empty'}"

    def _compare(self, expr: Compare, negated: bool) -> str:
        left, right, op = expr.left, expr.right, expr.op
        if isinstance(left, Const) and not isinstance(right, Const):
            left, right = right, left
            op = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}.get(op, op)
        if negated:
            op = {"==": "!=", "!=": "==", "is": "is not", "is not": "is", "<": ">=", ">=": "<",
                  ">": "<=", "<=": ">"}[op]
        subject = self.value(left)
        if isinstance(right, Const) and right.value is None and op in ("is", "==", "is not", "!="):
            given = op in ("is not", "!=")
            if isinstance(left, Ref) and left.kind is RefKind.ENV:
                return f"{subject} is {'set' if given else 'unset'}"
            return f"{subject} is {'given' if given else 'not given'}"
        if isinstance(left, Ref) and left.kind is RefKind.ENV and op in ("==", "is"):
            return f"`{left.name}={_bare(right)}`"
        if op in ("==", "is"):
            return f"{subject} is {self.value(right)}"
        if op in ("!=", "is not"):
            return f"{subject} is not {self.value(right)}"
        return f"{subject} {op} {self.value(right)}"

    def _in(self, expr: In, negated: bool) -> str:
        subject = self.value(expr.item)
        container = expr.container
        if isinstance(container, Const) and isinstance(container.value, tuple):
            values = [v for v in container.value if v is not None]
            has_none = len(values) != len(container.value)
            shown = ", ".join(_const(v, nested=True) for v in values)
            verb = "one of " if len(values) > 1 else ""
            if negated:
                text = f"{subject} is not {verb}{shown}" if values else ""
                if has_none:
                    text = (text + " and is given") if text else f"{subject} is given"
                return text
            text = f"{subject} is {verb}{shown}" if values else ""
            if has_none:
                text = (text + " or is not given") if text else f"{subject} is not given"
            return text
        return f"{subject} is {'not ' if negated else ''}in {self.value(container)}"


def _is_operand(expr: Expr) -> bool:
    """A value operand of and/or in value position: `Truthy` of a term, not a condition."""
    return isinstance(expr, Truthy) and not isinstance(expr.term, (Truthy, Compare, In, Not, And, Or))


_BINARY = frozenset({"+", "-", "*", "/", "//", "%", "**", "|", "&", "^", "<<", ">>"})
_METHODS = frozenset({"lower", "upper", "strip", "startswith", "endswith", "split", "get", "replace", "keys", "values",
                      "items", "count", "index", "find"})


def _const(value: Any, nested: bool = False) -> str:
    if isinstance(value, tuple):
        inner = ", ".join(_const(v, True) for v in value)
        return f"({inner})" if nested else inner
    if value is None:
        return "not given"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _bare(expr: Expr) -> str:
    return _const(expr.value) if isinstance(expr, Const) else f"{expr}"

