"""Three-valued evaluation of the condition IR on a launch (true / false / unknown).

Shared by example-fix prediction and the preflight command. A leaf is known when
the launch gives it, or when the flag/env model declares a literal default; automatic
adjustments (``if self.lora_paths: self.enable_lora = True``) are applied to a fixed
point first. Platform, model and runtime leaves are unknown unless the launch states
them as facts. Unknown propagates by Kleene logic: ``false and unknown`` is false.

The evaluator is one module per concern, in this order (each imports only earlier ones):
`kleene` (three-valued truth, UNKNOWN), `settings` (setting names, facts, defaults),
`py_functions` (the Python functions it computes), `rules` (adjustments as rules), `reads`
(what an evaluation reads of a launch, as a memo key), `semantics` (the meaning of each IR
kind, compiled: `_ValueCode`, `_TruthCode`), `eval_model` (the `Model` and its `EvalCache`),
`resolution` (`resolve`: adjustments applied), `deciders` (conditions memoised per launch),
and this module, the questions asked of a condition.
`evaluate` is asked tens of thousands of times per catalog by the witness search, so
its answers are memoised in the model's `EvalCache`: a condition other than
and/or/not (a `Plan`) keeps its result per what the launch gives for the settings it
(and its adjustments) can read, and/or/not are decided from their operands with the
same Kleene combinator the compiled code uses. `tests/test_evaluate.py` keeps a plain
tree walk of the same semantics and checks this fast path against it.
"""
from __future__ import annotations

from analyzers.deciders import node
from analyzers.eval_model import Model
from analyzers.kleene import UNKNOWN, Truth
from analyzers.launch import Launch
from analyzers.resolution import resolved
from analyzers.semantics import Values, value
from extractor.ir import (
    Apply,
    Expr,
    Ref,
    RefKind,
    Unknown,
    children,
)


def evaluate(expr: Expr, launch: Launch, model: Model) -> Truth:
    """Does `expr` hold for `launch`? Only adjustments that can matter are applied."""
    return Truth.of(node(model, expr).decide_whole(launch))


def undecided(expr: Expr, launch: Launch, model: Model) -> list[Ref | Unknown | Apply]:
    """The smallest terms of `expr` whose value is unknown for `launch` (why a result is
    unknown): leaves, and calls of functions we cannot evaluate on known arguments."""
    values = resolved(model, launch, model.rule_set(expr))
    out: list[Ref | Unknown | Apply] = []

    def visit(node: Expr) -> None:
        kids = children(node)
        before = len(out)
        for kid in kids:
            visit(kid)
        if len(out) > before or node in out:
            return
        if isinstance(node, Ref | Unknown | Apply) and _is_unknown(node, values):
            out.append(node)

    visit(expr)
    return out


def _is_unknown(term: Ref | Unknown | Apply, values: Values) -> bool:
    """A leaf nobody gives, or a call with arguments (all known) whose result is not."""
    if isinstance(term, Apply) and not term.args:
        return False
    return value(term, values) is UNKNOWN


def undecided_leaves(expr: Expr, launch: Launch, model: Model) -> list[str]:
    """`undecided`, as text: setting names, ``kind:name`` facts, source text otherwise."""
    out: list[str] = []
    for term in undecided(expr, launch, model):
        if isinstance(term, Ref):
            text = term.name if term.kind in (RefKind.FLAG, RefKind.ENV) else f"{term.kind}:{term.name}"
        else:
            text = term.text
        if text not in out:
            out.append(text)
    return out
