"""A provider's declarations: a function a profile decorator registers as returning
{field: value} decisions, the dicts it builds them in, and its reads back of what it decided."""
from __future__ import annotations

import libcst as cst

from extractor.adjustments import Adjustments
from extractor.cst_ir import to_ir
from extractor.cstutil import last_name, norm_code, string_value
from extractor.ir import TRUE, Const, Expr, In, Ref, RefKind, Unknown, conj, described, negate, replace_refs
from extractor.records import GuardOrigin
from extractor.scope import MAX_BRANCH_VALUES, Binding, Conditional, Opaque
from extractor.walk_state import WalkState


class Declarations:
    """The declarations of the provider being walked, as adjustments (`Adjustments`)."""

    def __init__(self, state: WalkState, adjustments: Adjustments) -> None:
        self.state = state
        self.adjustments = adjustments

    def provider(self, node: cst.FunctionDef, qual: str) -> set[str] | None:
        """For a function a profile decorator registers as returning {field: value}
        decisions: record it, guard a model override by the models it names, and
        start tracking its declaration dicts (else None)."""
        for dec in node.decorators:
            call = dec.decorator if isinstance(dec.decorator, cst.Call) else None
            name = last_name(call.func if call is not None else dec.decorator)
            if name in self.state.profile.passes or name in self.state.profile.model_overrides:
                self.state.found.registered.append(qual)
                if name in self.state.profile.model_overrides:
                    self.state.found.overrides.append(qual)
                    args = call.args if call is not None else ()
                    models = tuple(v for a in args if (v := string_value(a.value)))
                    text = f"the model is registered for {name}({', '.join(models)})"
                    name_ref = self.state.profile.model_architecture
                    arch = Ref(RefKind.MODEL, name_ref, name_ref) if name_ref else None
                    guard: Expr = Unknown(text)
                    if arch is not None and models:
                        guard = In(arch, Const(models))
                    elif arch is not None and len(args) == 1 and isinstance(args[0].value, cst.Lambda):
                        guard, text = self._predicate_of(args[0].value, arch), norm_code(args[0].value.body)
                    self.state.push(guard, text, GuardOrigin.CALLER)
                return set()
        return None

    def _predicate_of(self, predicate: cst.Lambda, arch: Ref) -> Expr:
        """``@register_...(lambda arch: "X" in arch)``: the lambda's test of the model's
        architecture (unknown unless it takes exactly that one argument)."""
        params = predicate.params
        if len(params.params) != 1 or params.posonly_params or params.kwonly_params \
                or isinstance(params.star_arg, (cst.Param, cst.ParamStar)) or params.star_kwarg is not None:
            return Unknown(norm_code(predicate))
        name = params.params[0].name.value
        if self.state.scope.lookup(name) is not None:  # shadows a name the module binds: not read here
            return Unknown(norm_code(predicate))
        return replace_refs(to_ir(predicate.body, self.state.scope),
                            lambda r: arch if r.kind is RefKind.UNKNOWN and r.name == name else r)

    def declare(self, fields: cst.BaseExpression, node: cst.CSTNode) -> None:
        """`{"field": value, ...}` declared by a provider: one adjustment per literal key."""
        if isinstance(fields, cst.Dict):
            for el in fields.elements:
                key = string_value(el.key) if isinstance(el, cst.DictElement) else None
                if key is not None and isinstance(el, cst.DictElement):
                    self.adjustments.adjust(key, el.value, node)

    def _declared_key(self, tgt: cst.Subscript) -> str | None:
        """``field`` for ``declared["field"]`` where `declared` is a provider's declaration dict."""
        declared = self.state.frame.declared
        if not declared or not isinstance(tgt.value, cst.Name) or tgt.value.value not in declared:
            return None
        if len(tgt.slice) != 1 or not isinstance(tgt.slice[0].slice, cst.Index):
            return None
        return string_value(tgt.slice[0].slice.value)

    def declared_item(self, tgt: cst.Subscript, value: cst.BaseExpression, node: cst.CSTNode) -> None:
        """``declared["field"] = value``: an adjustment, and what the field is set to so far
        under the guards in force (read back by `declared_read`)."""
        key = self._declared_key(tgt)
        if key is None:
            return
        self.adjustments.adjust(key, value, node)
        frame, scope = self.state.frame, self.state.scope
        bound = scope.lookup(value.value) if isinstance(value, cst.Name) else None
        entry = (tuple(frame.guards), bound if isinstance(bound, cst.BaseExpression) else value)
        frame.decided.setdefault((cst.ensure_type(tgt.value, cst.Name).value, key), []).append(entry)

    def declared_read(self, value: cst.BaseExpression) -> Binding | None:
        """``declared.get("field", default)`` in a provider: what it set the field to, under
        the guards it was set under (the latest first), else `default` (None if not given)."""
        read = _declared_get(value, self.state.frame.declared)
        if read is None:
            return None
        name, key, found = read
        decided = self.state.frame.decided.get((name, key), [])
        if len(decided) > MAX_BRANCH_VALUES:
            return Opaque(described(f"set in more than {MAX_BRANCH_VALUES} places"))
        here = set(self.state.frame.guards)  # what holds where it is read need not be tested again
        ruled_out = {negate(g.expr) for g in here}  # a branch that returned before the read
        for guards, set_to in decided:  # a later setting wins where its guards hold
            if not any(g.expr in ruled_out for g in guards):
                cond = conj([g.expr for g in guards if g not in here])
                found = set_to if cond == TRUE else Conditional(cond, set_to, found)
        return found

    def declaration_dict(self, name: str, value: cst.BaseExpression, node: cst.CSTNode) -> None:
        """In a provider, ``declared = {...}`` starts a dict of decisions it returns."""
        declared = self.state.frame.declared
        if declared is not None and isinstance(value, cst.Dict):
            declared.add(name)
            self.declare(value, node)

    def declared_update(self, node: cst.Call, method: str | None) -> None:
        """``declared.update({...})`` / ``declared.update(field=value)`` in a provider."""
        declared, func = self.state.frame.declared, node.func
        if not declared or method != "update" or not isinstance(func, cst.Attribute) \
                or not isinstance(func.value, cst.Name) or func.value.value not in declared:
            return
        for arg in node.args:
            if arg.keyword is not None:
                self.adjustments.adjust(arg.keyword.value, arg.value, node)
            else:
                self.declare(arg.value, node)


def _declared_get(value: cst.BaseExpression, declared: set[str] | None) -> tuple[str, str, Binding] | None:
    """(dict, field, default) of ``declared.get("field", default)`` on one of the `declared` dicts."""
    if not declared or not isinstance(value, cst.Call) or not isinstance(value.func, cst.Attribute):
        return None
    owner = value.func.value
    if value.func.attr.value != "get" or not isinstance(owner, cst.Name) or owner.value not in declared:
        return None
    if not 1 <= len(value.args) <= 2 or any(a.keyword is not None or a.star for a in value.args):
        return None
    key = string_value(value.args[0].value)
    if key is None:
        return None
    return owner.value, key, value.args[1].value if len(value.args) == 2 else cst.Name("None")
