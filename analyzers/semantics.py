"""The condition IR's meaning, defined once: a handler per kind turns a node into a function of
the resolved settings (`Values`).

`_ValueCode` gives the Python value of a node (UNKNOWN when it cannot be decided), `_TruthCode`
its Kleene truth. The model the settings come from (`analyzers.eval_model.Model`) is seen
through `Declarations`, and the memo equal sub-trees share their code through (its `EvalCache`)
through `CodeMemo`, so that this module needs neither.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, Protocol

from analyzers.kleene import RAISING, UNKNOWN, as_truth, kleene, negated, raises_in_python, same, truthy
from analyzers.launch import Launch, is_placeholder, placeholder_contains
from analyzers.path_tests import path_test, stand_in_path
from analyzers.py_functions import CONVERSIONS, EXACT, FUNCTIONS, Raised, apply, called, method_call
from analyzers.settings import absent_fact, base_dest, derived_fact, env_value, given_field, item_path, literal_default
from extractor.ir import (
    COMPARE,
    ENV_SETTING,
    IF,
    ON_COMMAND_LINE,
    OR_FALLBACK,
    RAISES,
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
    is_truthiness,
    positional,
    walk,
)


class Declarations(Protocol):
    """What the settings and compiled code read of the evaluator's model (`analyzers.eval_model.Model`)."""

    @property
    def flags(self) -> Any: ...

    @property
    def compiler(self) -> Compiler: ...

    def flag_default(self, dest: str) -> Any: ...

    def env_default(self, name: str) -> Any: ...

    def env_type(self, name: str) -> str | None: ...


class CodeMemo(Protocol):
    """Where a `Compiler` shares code between equal sub-trees (`analyzers.eval_model.EvalCache`)."""

    code: dict[tuple[int, bool], Code]

    def key(self, expr: Expr) -> int: ...


@dataclass(slots=True)
class Values:
    """Resolved settings of one launch: given > adjusted > declared default."""

    model: Declarations
    launch: Launch
    adjusted: dict[str, Any] = field(default_factory=dict)

    def flag(self, name: str) -> Any:
        if name in self.adjusted:
            return self.adjusted[name]
        if name in self.launch.flags:
            return self.launch.flags[name]
        if "." in name and (given := given_field(self.launch, name)) is not UNKNOWN:
            return given  # before a default the field's own declaration gives
        found = self.model.flag_default(name)
        if found is not UNKNOWN:
            return found
        if name.startswith(ENV_SETTING):  # an env var the code sets (the rules' view of it)
            return self.env(name[len(ENV_SETTING):])
        if name[-1:] == ")":  # a helper of the whole config: what the platform states
            return self.launch.facts.get(derived_fact(name), UNKNOWN)
        if "." in name:
            return self._field(name)
        return found

    def _field(self, name: str) -> Any:
        """``x.a.b`` no adjustment set and the command line does not give, of a setting ``x``
        holding a record (what a helper returns): the item of the record's value (an
        unknown path is unknown)."""
        base, _, path = name.partition(".")
        return item_path(self.flag(base), path)

    def env(self, name: str) -> Any:
        if self.adjusted and (ENV_SETTING + name) in self.adjusted:  # set by the code
            return self.adjusted[ENV_SETTING + name]
        if name in self.launch.env:
            return env_value(self.launch.env[name], self.model.env_type(name))
        return self.model.env_default(name)

    def fact(self, ref: Ref) -> Any:
        return self.launch.facts.get(f"{ref.kind}:{ref.name}", UNKNOWN)


def _attempted(func: Callable[..., Any], exact: bool, args: tuple[Code, ...], values: Values) -> Any:
    """``func(*args)``: its value, UNKNOWN, or `Raised` where `exact` and it raises."""
    got = []
    for arg in args:
        value = arg(values)
        if value is UNKNOWN or isinstance(value, Raised):
            return value
        got.append(value)
    try:
        result = func(*got)
    except Exception as exc:
        return Raised(exc) if exact else UNKNOWN
    return result


def _raises(caught: Any, steps: tuple[Code, ...], values: Values) -> Any:
    """Does computing `steps` in order raise one of `caught`? (An exception it does not catch, or a
    step that cannot be computed: unknown.)"""
    for step in steps:
        got = step(values)
        if isinstance(got, Raised):
            return True if got.caught_by(caught) else UNKNOWN
        if got is UNKNOWN:
            return UNKNOWN
    return False


def _some_item(items: Code, key: str, holds: Code, values: Values) -> Any:
    """Does `holds` hold for some item of `items`, the loop variable (fact `key`) bound to it?"""
    found = items(values)
    if found is UNKNOWN or isinstance(found, (str, bytes, Mapping)) or not isinstance(found, Iterable):
        return UNKNOWN
    verdicts = [as_truth(holds(Values(values.model, values.launch.with_fact(key, item), values.adjusted)))
                for item in found]
    return True if True in verdicts else (UNKNOWN if None in verdicts else False)


def _apply1(func: Callable[..., Any], arg: Code, values: Values) -> Any:
    """`apply` of a function of one argument, compiled (the most common call)."""
    got = arg(values)
    return UNKNOWN if got is UNKNOWN else called(func, got)


def _apply2(func: Callable[..., Any], left: Code, right: Code, values: Values) -> Any:
    a, b = left(values), right(values)
    return UNKNOWN if a is UNKNOWN or b is UNKNOWN else called(func, a, b)


def _choose(test: bool | None, branch: Callable[[int], Any]) -> Any:
    """``then if test else other`` (branches 1 and 2); an unknown test decides nothing
    unless both branches agree (a test that raises: unknown)."""
    if test is RAISING:
        return UNKNOWN
    if test is not None:
        return branch(1 if test else 2)
    then, other = branch(1), branch(2)
    return then if then is not UNKNOWN and same(then, other) else UNKNOWN


def _method_ref(ref: Ref, values: Values) -> Any:
    """A derived ``X.method()`` leaf (e.g. ``cfg.device.startswith("cuda")``): the method
    applied to X's value, when the source text shows literal arguments."""
    call = method_call(ref.text)
    if call is None or call[0] != ref.name.rpartition(".")[2][:-2]:
        return UNKNOWN
    return apply(call[0], [values.flag(base_dest(ref.name)), *call[1]])


Code = Callable[[Values], Any]


class Compiler:
    """Compiles nodes; with a cache, equal sub-trees share their code (see `EvalCache.key`)."""

    __slots__ = ("_truth", "_value", "cache")

    def __init__(self, cache: CodeMemo | None) -> None:
        self.cache = cache
        self._value = _ValueCode(self)
        self._truth = _TruthCode(self)

    def value(self, expr: Expr) -> Code:
        return self._code(expr, False)

    def truth(self, expr: Expr) -> Code:
        return self._code(expr, True)

    def _code(self, expr: Expr, condition: bool) -> Code:
        visitor: Visitor[Code] = self._truth if condition else self._value
        if self.cache is None:
            return visitor.visit(expr)
        key = (self.cache.key(expr), condition)
        code = self.cache.code.get(key)
        if code is None:
            code = self.cache.code[key] = visitor.visit(expr)
        return code


def _unknown(values: Values) -> Any:
    return UNKNOWN


def _undecided(values: Values) -> bool | None:
    return None


def _unset_or(name: str, value: Code, default: Code, values: Values) -> Any:
    """A private attribute read with a default: the default while no option declares it,
    the launch does not give it and no adjustment run so far has set it."""
    flags = values.model.flags
    if name in values.adjusted or name in values.launch.flags or flags is None or flags.by_dest(name) is not None:
        return value(values)
    return default(values)


def _absent_or(key: str, value: Code, default: Code, values: Values) -> Any:
    """``getattr(hf_config, "x", default)``: the default where the model is known to lack x."""
    return default(values) if values.launch.facts.get(key) else value(values)


def _or_fallback(name: str, value: Code, values: Values) -> Any:
    """A field's effective value: its value, else (None) the fallback its declaration gives."""
    found = value(values)
    if found is not None:
        return found
    flag = values.model.flags.by_dest(name) if values.model.flags is not None else None
    return literal_default(flag.fallback) if flag is not None else UNKNOWN


def _flag_code(ref: Ref) -> Code:
    name = ref.name
    if base_dest(name) == name:
        return lambda values: values.flag(name)

    def method_flag(values: Values) -> Any:  # set by an adjustment, else the method applied
        got = values.flag(name)
        return _method_ref(ref, values) if got is UNKNOWN else got
    return method_flag


def _env_code(ref: Ref) -> Code:
    name = ref.name
    return lambda values: values.env(name)


def _fact_code(ref: Ref) -> Code:
    key = f"{ref.kind}:{ref.name}"
    return lambda values: values.launch.facts.get(key, UNKNOWN)


def _runtime_code(fn: str, args: tuple[Code, ...]) -> Code:
    """A call of a function the evaluator cannot compute (``check_gguf_file(cfg.model_path)``):
    what the launch states it returns there. The fact ``runtime:<fn>`` holds rows of
    (arguments, result), arguments None for any (`analyzers.platform_facts.runtime_facts`);
    a row names the leading arguments it is stated for (the profile states a helper only where
    the others do not change its result); arguments no row names leave it unknown."""
    key = f"{RefKind.RUNTIME}:{fn}"

    def call(values: Values) -> Any:
        rows = values.launch.facts.get(key)
        if not rows:
            return UNKNOWN
        given: tuple[Any, ...] | None = None
        for wanted, result in rows:
            if wanted is None:
                return result
            if given is None:
                given = tuple(a(values) for a in args)
            if len(wanted) <= len(given) and all(same(w, g) for w, g in zip(wanted, given[:len(wanted)], strict=True)):
                return result
        return UNKNOWN
    return call


def runtime_refs(expr: Expr) -> list[Ref]:
    """The facts `expr` reads besides its `Ref`s, as refs of kind runtime: a call of a
    function the evaluator cannot compute (``runtime:<fn>``) and a leaf it could not
    read (``runtime:<its text>``, e.g. ``runtime:is_in_ci()``)."""
    return list(dict.fromkeys(r for node in walk(expr) if (r := runtime_ref(node)) is not None))


def runtime_ref(node: Expr) -> Ref | None:
    """The fact `node` itself reads besides `Ref`s (see `runtime_refs`), if any."""
    if isinstance(node, Apply) and node.fn not in FUNCTIONS and node.fn not in (IF, ON_COMMAND_LINE, RAISES,
                                                                               SOME_ITEM):
        return Ref(RefKind.RUNTIME, node.fn, node.text)
    if isinstance(node, Unknown):
        return Ref(RefKind.RUNTIME, node.text, node.text)
    return None


def _runtime_ref_code(ref: Ref) -> Code:
    """A runtime fact; a test of an option's path (``os.path.isfile(cfg.ssl_keyfile)``) is
    what the option's stand-in is (`analyzers.path_tests`), else what the launch states."""
    fact = _fact_code(ref)
    found = path_test(ref.name)
    if found is None:
        return fact
    test, option = found
    value = _flag_code(Ref(RefKind.FLAG, option, option))

    def code(values: Values) -> Any:
        held = stand_in_path(test, value(values))
        return fact(values) if held is None else held
    return code


_REF_CODE: dict[RefKind, Callable[[Ref], Code]] = {RefKind.FLAG: _flag_code, RefKind.ENV: _env_code,
                                                   RefKind.RUNTIME: _runtime_ref_code}


class _ValueCode(Visitor[Code]):
    """The value of a node; a condition's is its truth (UNKNOWN for unknown)."""

    def __init__(self, sub: Compiler) -> None:
        self.sub = sub

    def visit_Const(self, expr: Const) -> Code:
        const = expr.value
        return lambda values: const

    def visit_Ref(self, expr: Ref) -> Code:
        return _REF_CODE.get(expr.kind, _fact_code)(expr)

    def visit_Unknown(self, expr: Unknown) -> Code:  # a call the launch may state (``is_in_ci()``)
        return _fact_code(Ref(RefKind.RUNTIME, expr.text, expr.text))

    def visit_Seq(self, expr: Seq) -> Code:
        items = tuple(self.sub.value(i) for i in expr.items)

        def seq(values: Values) -> Any:
            out = []
            for item in items:
                got = item(values)
                if got is UNKNOWN:
                    return UNKNOWN
                out.append(got)
            return tuple(out)
        return seq

    def visit_Apply(self, expr: Apply) -> Code:
        args = tuple(self.sub.value(a) for a in expr.args)
        form = _SPECIAL_FORMS.get(expr.fn)
        code = form(self, expr, args) if form is not None else None
        return code if code is not None else self._call(expr, args)

    # The IR's own functions, each when its arguments have the shape it is written in
    # (else None: it is a call like any other).

    def _if(self, expr: Apply, args: tuple[Code, ...]) -> Code | None:
        """``then if test else other``, decided lazily."""
        if len(args) != 3:
            return None
        test = self.sub.truth(expr.args[0])
        return lambda values: _choose(test(values), lambda i: args[i](values))

    def _on_command_line(self, expr: Apply, args: tuple[Code, ...]) -> Code | None:
        if not (len(expr.args) == 1 and isinstance(expr.args[0], Ref)):
            return None
        name = expr.args[0].name
        if expr.args[0].kind is RefKind.ENV:
            return lambda values: name in values.launch.env or ENV_SETTING + name in values.adjusted
        return lambda values: name in values.launch.flags

    def _unset_or(self, expr: Apply, args: tuple[Code, ...]) -> Code | None:
        if not (len(expr.args) == 2 and isinstance(expr.args[0], Ref)):
            return None
        if expr.args[0].kind is RefKind.MODEL:
            return partial(_absent_or, absent_fact(expr.args[0].name), args[0], args[1])
        return partial(_unset_or, expr.args[0].name, args[0], args[1])

    def _or_fallback(self, expr: Apply, args: tuple[Code, ...]) -> Code | None:
        if not (len(expr.args) == 1 and isinstance(expr.args[0], Ref)):
            return None
        return partial(_or_fallback, expr.args[0].name, args[0])

    def _stated_or(self, expr: Apply, args: tuple[Code, ...]) -> Code | None:
        if len(args) != 2:
            return None
        stated, computed = args
        return lambda values: found if (found := stated(values)) is not UNKNOWN else computed(values)

    def _raises(self, expr: Apply, args: tuple[Code, ...]) -> Code | None:
        if not (expr.args and isinstance(expr.args[0], Const)):
            return None
        return partial(_raises, expr.args[0].value, tuple(self._attempt(a) for a in expr.args[1:]))

    def _some_item(self, expr: Apply, args: tuple[Code, ...]) -> Code | None:
        if not (len(expr.args) == 3 and isinstance(expr.args[1], Const)):
            return None
        return partial(_some_item, args[0], f"{RefKind.UNKNOWN}:{expr.args[1].value}", self.sub.truth(expr.args[2]))

    def _call(self, expr: Apply, args: tuple[Code, ...]) -> Code:
        """A function the evaluator computes, else one a launch may state per positional arguments."""
        fn = expr.fn
        if fn not in FUNCTIONS:
            return _runtime_code(fn, tuple(self.sub.value(a) for a in positional(expr.args)))
        if len(args) == 1:
            return partial(_apply1, FUNCTIONS[fn], args[0])
        if len(args) == 2:
            return partial(_apply2, FUNCTIONS[fn], *args)
        return lambda values: apply(fn, [a(values) for a in args])

    def _attempt(self, expr: Expr) -> Code:
        """The value of `expr`, or `Raised` where one of its functions raises as the real one would."""
        if not (isinstance(expr, Apply) and expr.fn in FUNCTIONS):
            return self.sub.value(expr)
        args = tuple(self._attempt(a) for a in expr.args)
        return partial(_attempted, FUNCTIONS[expr.fn], expr.fn in EXACT, args)

    def visit_And(self, expr: And) -> Code:
        return self._deciding(expr.args, stop=False)

    def visit_Or(self, expr: Or) -> Code:
        return self._deciding(expr.args, stop=True)

    def _deciding(self, args: tuple[Expr, ...], stop: bool) -> Code:
        """Python's ``a and b`` (`stop` False: a falsy operand decides) or ``a or b``
        (`stop` True: a truthy one does): the deciding operand's value."""
        parts = tuple(self.sub.value(a) for a in args)

        def and_or(values: Values) -> Any:
            last: Any = UNKNOWN
            for part in parts:
                last = part(values)
                if last is UNKNOWN:
                    return UNKNOWN
                try:
                    decided = bool(last)
                except Exception:
                    return UNKNOWN
                if decided == stop:
                    return last
            return last
        return and_or

    def visit_Truthy(self, expr: Truthy) -> Code:
        if is_truthiness(expr):  # an operand of ``a or b`` in value position
            return self.sub.value(expr.term)
        return self.generic(expr)

    def generic(self, expr: Expr) -> Code:
        """A condition (compare, in, not, truthy of a condition): its truth as a value."""
        check = self.sub.truth(expr)

        def condition(values: Values) -> Any:
            result = check(values)
            return UNKNOWN if result is None or result is RAISING else result
        return condition


_SPECIAL_FORMS: dict[str, Callable[[_ValueCode, Apply, tuple[Code, ...]], Code | None]] = {
    IF: _ValueCode._if, ON_COMMAND_LINE: _ValueCode._on_command_line, UNSET_OR: _ValueCode._unset_or,
    OR_FALLBACK: _ValueCode._or_fallback, STATED_OR: _ValueCode._stated_or, RAISES: _ValueCode._raises,
    SOME_ITEM: _ValueCode._some_item,
}


class _TruthCode(Visitor[Code]):
    """The Kleene truth of a node; a term's is its truthiness."""

    def __init__(self, sub: Compiler) -> None:
        self.sub = sub

    def visit_Not(self, expr: Not) -> Code:
        return partial(negated, self.sub.truth(expr.arg))

    def visit_And(self, expr: And) -> Code:
        return partial(kleene, tuple(self.sub.truth(a) for a in expr.args), False)

    def visit_Or(self, expr: Or) -> Code:
        return partial(kleene, tuple(self.sub.truth(a) for a in expr.args), True)

    def visit_Compare(self, expr: Compare) -> Code:
        op = COMPARE.get(expr.op)  # one comparison semantics for constant folding and evaluation
        if op is None:
            return _undecided
        if expr.op in ("is", "is not") and Const(None) in (expr.left, expr.right) \
                and any(isinstance(s, Apply) and s.fn in CONVERSIONS for s in (expr.left, expr.right)):
            never = expr.op == "is not"  # ``str(x) is None``: a conversion gives a value (or raises)
            return lambda values: never
        for side, field_name in ((expr.left, "left"), (expr.right, "right")):
            if isinstance(side, Apply) and side.fn == IF and len(side.args) == 3:
                # ``(a if t else b) == c``: where t is unknown, decided if both branches agree
                then, other = (replace(expr, left=b) if field_name == "left" else replace(expr, right=b)
                               for b in side.args[1:])
                return self._branches(side.args[0], then, other)
        left, right, cmp = self.sub.value(expr.left), self.sub.value(expr.right), expr.op

        def comparison(values: Values) -> bool | None:
            a = left(values)
            if a is UNKNOWN:
                return None
            b = right(values)
            if b is UNKNOWN:
                return None
            try:
                return bool(op(a, b))
            except Exception:
                return RAISING if raises_in_python(cmp, a, b) else None
        return comparison

    def _branches(self, test: Expr, then: Expr, other: Expr) -> Code:
        decide, yes, no = self.sub.truth(test), self.sub.truth(then), self.sub.truth(other)

        def branches(values: Values) -> bool | None:
            found = decide(values)
            if found is RAISING:
                return found
            if found is not None:
                return yes(values) if found else no(values)
            one = yes(values)
            return one if one is not None and one == no(values) else None
        return branches

    def visit_In(self, expr: In) -> Code:
        item = self.sub.value(expr.item)
        if isinstance(expr.container, Seq):  # decided by the known items even if some are not
            elems = tuple(self.sub.value(e) for e in expr.container.items)

            def among(values: Values) -> bool | None:
                wanted = item(values)
                found: list[Any] = []
                for elem in elems:
                    got = elem(values)
                    found.append(None if got is UNKNOWN or wanted is UNKNOWN else got == wanted)
                return True if True in found else None if None in found else False
            return among
        container = self.sub.value(expr.container)

        def contains(values: Values) -> bool | None:
            wanted = item(values)
            if wanted is UNKNOWN:
                return None
            within = container(values)
            if within is UNKNOWN:
                return None
            if is_placeholder(within) and isinstance(wanted, str):
                return placeholder_contains(wanted)  # the path it stands for decides, not its markup
            try:
                return wanted in within
            except Exception:
                return None
        return contains

    def visit_Truthy(self, expr: Truthy) -> Code:
        return self.sub.truth(expr.term)  # a term's truthiness, or the condition's truth

    def generic(self, expr: Expr) -> Code:
        """A term (a leaf, a call, a tuple, ``a and b`` as a value): its truthiness."""
        return partial(truthy, self.sub.value(expr))


_UNSHARED = Compiler(None)


def compile_value(expr: Expr, model: Declarations | None = None) -> Code:
    """The value of `expr` as a function of the settings (UNKNOWN when undecided; with
    `model`, equal sub-trees share their code: see `EvalCache.key`)."""
    return (model.compiler if model is not None else _UNSHARED).value(expr)


def compile_truth(expr: Expr, model: Declarations | None = None) -> Code:
    """The truth of `expr` as a function of the settings (True, False, None or `RAISING`:
    `as_truth` reads it)."""
    return (model.compiler if model is not None else _UNSHARED).truth(expr)


def value(expr: Expr, values: Values) -> Any:
    """The Python value a term has (UNKNOWN when it cannot be decided)."""
    return compile_value(expr, values.model)(values)


def truth(expr: Expr, values: Values) -> bool | None:
    """Kleene truth of a condition: True, False or None (unknown)."""
    return as_truth(compile_truth(expr, values.model)(values))
