"""Loops and the collections they walk: a loop over a condition table walked once per row,
other loops once with their variables unknown, and tables or other locals changed in place."""
from __future__ import annotations

from collections.abc import Callable, Sequence

import libcst as cst

from extractor.cst_ir import term
from extractor.cstutil import norm_code
from extractor.ir import described
from extractor.local_bindings import in_place_value, pushed_on, unknown_after
from extractor.loop_exits import BREAK, RETURN, not_left
from extractor.records import GuardOrigin, bound_by_callers
from extractor.scope import Opaque
from extractor.tables import Row, RowContext, Table, grown, iterated, merge_rows, row_bindings, target_names
from extractor.walk_state import ItemLoop, WalkState
from extractor.writes import mutated_name, written_names


class TableLoops:
    """Walks ``for`` loops (the body by the walker's `walk_suite`) and in-place changes of locals."""

    def __init__(self, state: WalkState, walk_suite: Callable[[cst.BaseSuite], None]) -> None:
        self.state = state
        self.walk_suite = walk_suite

    def walk_for(self, node: cst.For) -> None:
        """A loop over a condition table is walked once per row (`extractor.tables`);
        any other loop once, its variables unknown."""
        names = target_names(node.target)
        rows = iterated(node.iter, self.state.scope.lookup)
        # what follows runs where no pass returned (the ``else`` block: nor broke), read
        # before the body's locals turn unknown
        returned = not_left(node, self.state.scope, RETURN)
        broke = None if node.orelse is None else not_left(node, self.state.scope, BREAK)
        with unknown_after(self.state.scope, "computed in a loop"):
            if not rows or not names:  # rows are walked one after another: nothing carried over unseen
                self.carried(node.body, names)
            self._loop_body(node, names, rows)
        if returned is not None:
            self.state.push(*returned, GuardOrigin.EARLY_EXIT)
        if node.orelse is not None:
            with self.state.guarded():
                if broke is not None:
                    self.state.push(*broke, GuardOrigin.EARLY_EXIT)
                self.walk_suite(node.orelse.body)

    def carried(self, body: cst.BaseSuite, names: tuple[str, ...]) -> None:
        """Locals the loop body writes may hold what an earlier pass left: unknown inside it."""
        bindings = self.state.scope.bindings
        for name in written_names(body) - set(names):
            if name in bindings and not isinstance(bindings[name], Opaque):
                bindings[name] = Opaque(described("an earlier pass of a loop may have changed"))

    def _loop_body(self, node: cst.For, names: tuple[str, ...], rows: Sequence[Row] | None) -> None:
        if rows and names:
            self._walk_rows(node, names, rows)
            return
        items = term(node.iter, self.state.scope)
        if len(names) == 1 and isinstance(node.target, cst.Name) and bound_by_callers(items):
            # ``for p in cfg.paths``: the items are the setting's; a check inside holds for some
            # item (a parameter's items: those its call sites bind it to)
            self._unknown_items(names, node)
            frame = self.state.frame
            loop = ItemLoop(names[0], items, len(frame.guards), len(frame.runs), norm_code(node.iter))
            with pushed_on(self.state.frame.item_loops, loop):
                self.walk_suite(node.body)
            return
        with pushed_on(self.state.frame.loop_notes,
                     f"inside a loop over `{norm_code(node.iter)}`, whose items are not known statically"):
            self._unknown_items(names, node)
            self.walk_suite(node.body)

    def _unknown_items(self, names: tuple[str, ...], node: cst.For) -> None:
        for name in names:
            self.state.scope.bindings[name] = Opaque(described("taken from a collection errcat cannot list"))
            self.state.scope.aliases.discard(name)

    def _walk_rows(self, node: cst.For, names: tuple[str, ...], rows: Sequence[Row]) -> None:
        frame, found = self.state.frame, self.state.found
        depth, start = len(frame.guards), len(found.pending)
        for index, row in enumerate(rows):
            for name, value in row_bindings(node.target, row):
                if value is None:
                    self.state.scope.bindings[name] = Opaque(name)
                else:
                    self.state.scope.bind(name, value)
            ctx = RowContext(id(node), index, depth, names, len(found.prior_blocks))
            with self.state.guarded(), pushed_on(frame.rows, ctx):
                active = {id(g) for g in self.state.path_guards()} if row.guards else set()
                frame.guards.extend(g for g in row.guards if id(g) not in active)  # the row's own conditions
                self.state.scope.row_targets.update(names)
                self.walk_suite(node.body)
                self.state.scope.row_targets.difference_update(names)
        for name in names:
            self.state.scope.bindings[name] = Opaque(described("taken from a collection errcat cannot list"))
        found.pending[start:] = merge_rows(found.pending[start:], id(node))

    def item_set(self, tgt: cst.Subscript, value: cst.BaseExpression) -> None:
        """``d[k] = v`` on a dict table: one more row, under the guards in force (a later row
        of the same key wins, as in a dict literal); on anything else, `d` is unknown. Not for
        a provider's declaration dict: its items are adjustments already, and growing it row by
        row under each model's guards makes every read of it a term as large as the provider."""
        name = tgt.value.value if isinstance(tgt.value, cst.Name) else ""
        bound = self.state.scope.bindings.get(name)
        index = tgt.slice[0].slice if len(tgt.slice) == 1 else None
        if isinstance(bound, Table) and bound.is_dict and name not in (self.state.frame.declared or ()) \
                and isinstance(index, cst.Index) \
                and isinstance(index.value, (cst.SimpleString, cst.Integer)):
            self.extend(name, bound, cst.Dict([cst.DictElement(index.value, value)]))
        else:
            self.changed_in_place(tgt)

    def changed_in_place(self, node: cst.BaseExpression) -> None:
        """``s.add(x)``, ``s.discard(x)``, ``s.update(t)`` on a set and ``l.append(x)`` on a
        list rebind the name to what they compute (``s | {x}`` ...); any other change in place
        (``d[k] = v``, ``d.update(...)``) leaves it unknown."""
        name = mutated_name(node)
        bound = self.state.scope.bindings.get(name) if name is not None else None
        if name is None or bound is None or isinstance(bound, Opaque):
            return
        value = in_place_value(name, node, bound) if isinstance(node, cst.Call) else None
        if value is not None:
            self.state.rebind(name, value)
        else:
            self.state.scope.bindings[name] = Opaque(described("changed in place"))

    def extend(self, name: str, table: Table, value: cst.BaseExpression) -> None:
        bigger = grown(table, value, self.state.path_guards())
        self.state.scope.bindings[name] = (bigger if bigger is not None
                                     else Opaque(described("grown item by item")))

    def table_growth(self, node: cst.Call, method: str | None) -> bool:
        """``rows.update/append/extend(...)`` on a condition table grows it (True: done)."""
        func = node.func
        if not isinstance(func, cst.Attribute) or not isinstance(func.value, cst.Name):
            return False
        owner = func.value.value
        bound = self.state.scope.lookup(owner)
        if not isinstance(bound, Table) or method not in ("update", "append", "extend") or not node.args:
            return False
        arg = node.args[0].value
        self.extend(owner, bound, cst.List([cst.Element(arg)]) if method == "append" else arg)
        return True
