"""Config adjustments the code makes: a setting assigned or passed to a setter (its ``**d``
splats included), a field of a record setting written (``setattr``, a functional update), an
env var set."""
from __future__ import annotations

import re
from collections.abc import Mapping

import libcst as cst

from extractor.cst_ir import env_registry_name, term
from extractor.cstutil import dotted, string_value
from extractor.ir import ENV_SETTING, Const, Expr, Ref, RefKind
from extractor.records import Adjustment, Guard
from extractor.suite_facts import simple_statements
from extractor.walk_state import WalkState


class Adjustments:
    """Records the walked function's adjustments (`Found.adjustments`) under the guards in force."""

    def __init__(self, state: WalkState) -> None:
        self.state = state

    def splat_start(self, name: str, value: cst.BaseExpression) -> None:
        """``d = {...}`` (literal keys) may become a setter's ``**d``; any other binding ends that."""
        splats = self.state.frame.splats
        splats.pop(name, None)
        if isinstance(value, cst.Dict):
            items = [(string_value(el.key), el.value) if isinstance(el, cst.DictElement) else (None, el.value)
                     for el in value.elements]
            guards = tuple(self.state.frame.guards)
            splats[name] = (None if any(k is None for k, _ in items)
                            else [(k, term(v, self.state.scope), guards) for k, v in items if k is not None])

    def splat_item(self, tgt: cst.Subscript, value: cst.BaseExpression) -> None:
        """``d["field"] = v`` (or ``d[k]`` with `k` bound to a string, as a table row binds it)."""
        splats = self.state.frame.splats
        if not isinstance(tgt.value, cst.Name) or splats.get(tgt.value.value) is None:
            return
        name = tgt.value.value
        index = tgt.slice[0].slice if len(tgt.slice) == 1 else None
        key_node = index.value if isinstance(index, cst.Index) else None
        if isinstance(key_node, cst.Name):
            bound = self.state.scope.lookup(key_node.value)
            key_node = bound if isinstance(bound, cst.BaseExpression) else None
        key = string_value(key_node) if key_node is not None else None
        items = splats[name]
        if key is None or items is None:
            splats[name] = None
        else:
            items.append((key, term(value, self.state.scope), tuple(self.state.frame.guards)))

    def _splat(self, name: str, node: cst.CSTNode) -> None:
        """A setter's ``**name``: one adjustment per item, under the guards of its assignment
        and of the call, except the call's tests of the dict itself (``if fields:``); an item
        whose own guards read the dict (``if d.get(k) == v``) is left out."""
        items = self.state.frame.splats.get(name)
        if not items:
            return
        mentions = re.compile(rf"\b{re.escape(name)}\b")
        at_call = [g for g in self.state.frame.guards if not mentions.search(g.text)]
        for key, value, guards in items:
            if any(mentions.search(g.text) for g in guards):
                continue
            extra = [g for g in at_call if not any(g is h for h in guards)]
            self._adjustment(key, value, (*guards, *extra), node)

    def field_path(self, node: cst.BaseExpression, params: Mapping[str, cst.BaseExpression],
                    seen: frozenset[str] = frozenset()) -> list[str] | None:
        """``["cuda_graph_config", "decode"]`` for ``getattr(config, phase)`` where ``config``
        is a local declared as ``cuda_graph_config`` and ``phase`` reads "decode" (`params`:
        an inlined function's parameters, by the caller's argument expressions; `seen`: the
        locals followed so far, as ``x = x.view()`` refers to itself)."""
        if not self.state.frame.records:  # no local of this function becomes a setting
            return None
        if isinstance(node, cst.Name):
            if node.value in params:
                return self.field_path(params[node.value], {}, seen)
            setting = self.state.frame.records.get(node.value)
            bound = self.state.scope.lookup(node.value)
            if setting is not None:
                return [setting] if bound is not None else None
            if node.value in seen or not isinstance(bound, (cst.Attribute, cst.Call)):
                return None
            return self.field_path(bound, {}, seen | {node.value})  # a part of one: ``decode = config.decode``
        if isinstance(node, cst.Attribute):
            head = self.field_path(node.value, params, seen)
            return None if head is None else [*head, node.attr.value]
        if isinstance(node, cst.Call) and dotted(node.func) == "getattr" and len(node.args) == 2:
            head = self.field_path(node.args[0].value, params, seen)
            key = self._key(node.args[1].value, params)
            return None if head is None or key is None else [*head, key]
        return None

    def _key(self, node: cst.BaseExpression, params: Mapping[str, cst.BaseExpression]) -> str | None:
        if isinstance(node, cst.Name) and node.value in params:
            node = params[node.value]
        found = term(node, self.state.scope)
        return found.value if isinstance(found, Const) and isinstance(found.value, str) else None

    def field_write(self, node: cst.Call, params: Mapping[str, cst.BaseExpression]) -> None:
        """``setattr(<field path>, "key", value)``: an adjustment of the field ``x.a.key``."""
        if dotted(node.func) != "setattr" or len(node.args) != 3:
            return
        head = self.field_path(node.args[0].value, params)
        key = self._key(node.args[1].value, params)
        if head is None or key is None:
            return
        value = node.args[2].value
        if isinstance(value, cst.Name) and value.value in params:
            value = params[value.value]
        self.adjust(".".join([*head, key]), value, node)

    def _env_set(self, node: cst.Call, method: str | None) -> None:
        """``envs.X.set(v)``: the code sets an env var later checks read (an adjustment of ``env:X``)."""
        if method != "set" or len(node.args) != 1 or not isinstance(node.func, cst.Attribute):
            return
        env = env_registry_name(node.func.value, self.state.scope)
        if env is not None:
            self._adjustment(ENV_SETTING + env, term(node.args[0].value, self.state.scope),
                             tuple(self.state.frame.guards), node)

    def _inline_writes(self, writer: cst.FunctionDef, call: cst.Call) -> None:
        """A call of a nested function that only writes fields: its writes, with the
        call's arguments for its parameters (``_set(Phase.DECODE, "backend", x)``)."""
        ps = writer.params
        names = [p.name.value for p in (*ps.posonly_params, *ps.params)]
        if any(a.star for a in call.args):
            return
        params: dict[str, cst.BaseExpression] = {}
        for i, arg in enumerate(call.args):
            name = arg.keyword.value if arg.keyword is not None else (names[i] if i < len(names) else None)
            if name is None:
                return
            params[name] = arg.value
        for stmt in simple_statements(writer):
            if isinstance(stmt, cst.Expr) and isinstance(stmt.value, cst.Call):
                self.field_write(stmt.value, params)

    def _functional_update(self, setting: str, value: cst.BaseExpression, node: cst.CSTNode) -> bool:
        """``setter(x=f(cfg.x, "a", k=v))``: a copy of the record ``x`` with field ``a.k``
        changed (``with_phase``, ``dataclasses.replace``): the adjustment of ``x.a.k``."""
        if not isinstance(value, cst.Call) or not value.args or any(a.star for a in value.args):
            return False
        first, rest = value.args[0], value.args[1:]
        base = term(first.value, self.state.scope)
        if first.keyword is not None or not (isinstance(base, Ref) and base.kind is RefKind.FLAG
                                             and base.name == setting):
            return False
        path = [self._key(a.value, {}) for a in rest if a.keyword is None]
        fields = [a for a in rest if a.keyword is not None]
        if not fields or any(p is None for p in path):
            return False
        for arg in fields:
            assert arg.keyword is not None
            self.adjust(".".join([setting, *(p for p in path if p is not None), arg.keyword.value]), arg.value, node)
        return True

    def adjust(self, flag: str, value: cst.BaseExpression, node: cst.CSTNode) -> None:
        self._adjustment(flag, term(value, self.state.scope), tuple(self.state.frame.guards), node)

    def _adjustment(self, flag: str, value: Expr, guards: tuple[Guard, ...], node: cst.CSTNode) -> None:
        adjustments = self.state.found.adjustments
        # a provider's declarations take effect together when it returns (each reads the view as
        # the provider found it): one place for all, after its own checks
        line = self.state.frame.declared_at if self.state.frame.declared is not None and self.state.frame.declared_at \
            else self.state.line_of(node, self.state.statement)
        adjustments.append(Adjustment(self.state.function, line, flag, value, guards, self.state.path,
                                      len(adjustments)))

    def call(self, node: cst.Call, callee: str, method: str | None) -> None:
        """What a call adjusts: a setter's keywords (a record's field, for a functional update)
        and ``**d``, a ``setattr`` on a record setting's field, an env var set, and the writes of
        a nested function that only writes fields."""
        if method in self.state.profile.setters:
            for arg in node.args:
                if arg.keyword is not None:
                    if not self._functional_update(arg.keyword.value, arg.value, node):
                        self.adjust(arg.keyword.value, arg.value, node)
                elif arg.star == "**" and isinstance(arg.value, cst.Name):
                    self._splat(arg.value.value, node)
        self.field_write(node, {})
        self._env_set(node, method)
        writer = self.state.frame.writers.get(callee)
        if writer is not None:
            self._inline_writes(writer, node)
