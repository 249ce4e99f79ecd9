"""What the walk of one module carries: the per-function `Frame` (guard stack, `Scope`,
table rows, ...), what the file yields so far (`Found`), and `WalkState`, which swaps frames
on entering a ``def`` and keeps the guard stack (guard scopes are context managers, so what a
branch pushes is gone when it is left)."""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

import libcst as cst

from extractor.ir import Expr, negate
from extractor.positions import LineIndex
from extractor.profile import Profile
from extractor.records import MODULE, Adjustment, CallSite, Guard, GuardOrigin, PriorTable, Run
from extractor.scope import Scope
from extractor.tables import Pending, RowContext


@dataclass(frozen=True, slots=True)
class ItemLoop:
    """``for name in items:`` over a known collection (`items`: a setting's list) of unknown items."""

    name: str
    items: Expr
    depth: int  # guards on the path at the loop: deeper ones are the body's
    runs: int  # earlier-raise runs at the loop
    source: str  # `items` as the source writes it


@dataclass(slots=True)
class Frame:
    """What the walk of one function carries; a ``def`` swaps in a fresh one and the
    enclosing function's is back, untouched, when the ``def`` is left (`WalkState.entered`)."""

    scope: Scope
    # The guards on the path except earlier raises: those go once into the walker's
    # `prior_blocks` (one list per block that has any) and `runs` says which are in force,
    # so a site records O(depth) items however many checks precede it.
    guards: list[Guard] = field(default_factory=list)
    runs: list[list[int]] = field(default_factory=list)  # [at, block, start, end], see `RaiseSite.prior_runs`
    blocks: list[int | None] = field(default_factory=list)  # per open block: its index in prior_blocks, once it has one
    # exceptions being handled and the name each is bound to (``except E as err``; else ""), innermost last
    except_types: list[tuple[str, str]] = field(default_factory=list)
    catching: list[tuple[str, ...]] = field(default_factory=list)  # what the ``try`` blocks walked catch for good
    tries: list[int] = field(default_factory=list)  # lines of the ``try`` blocks being walked, innermost last
    rows: list[RowContext] = field(default_factory=list)  # table rows being expanded, innermost last
    loop_notes: list[str] = field(default_factory=list)  # loops over statically unknown items
    # loops over a known collection of unknown items (a setting's list), innermost last:
    # a check inside holds for some item (`SOME_ITEM`)
    item_loops: list[ItemLoop] = field(default_factory=list)
    helper_return: cst.Return | None = None  # of the function being walked, if a config helper
    # in a class's ``__init__``: the statements at the top of its body (ids), where an
    # assignment to ``self.attr`` always runs
    initialising: frozenset[int] = frozenset()
    declared: set[str] | None = None  # in a registered provider: locals holding its {field: value}
    declared_at: int = 0  # ... and the provider's last line: its declarations apply when it returns
    # ... and per (that local, field): what it was set to so far, each under the guards then
    decided: dict[tuple[str, str], list[tuple[tuple[Guard, ...], cst.BaseExpression]]] = field(default_factory=dict)
    decided_reads: set[str] = field(default_factory=set)  # locals bound to such a read (`Declarations.declared_read`)
    # locals built as ``d = {...}; d["field"] = v`` for a setter's ``**d``: per name, the
    # (field, value, guards) items so far, or None once a key is not a literal
    splats: dict[str, list[tuple[str, Expr, tuple[Guard, ...]]] | None] = field(default_factory=dict)
    # locals a setter later declares as a setting (``config = f(); ...; setter(x=config)``):
    # writes to their fields are the setting's (`Adjustments.field_write`); closures see them
    records: dict[str, str] = field(default_factory=dict)
    # small nested functions that only write fields (``def _set(p, k, v): setattr(...)``),
    # read at each call with its arguments
    writers: dict[str, cst.FunctionDef] = field(default_factory=dict)
    sets: frozenset[str] = frozenset()  # the attributes the function assigns (`writes.written_attributes`)


@dataclass(slots=True)
class Found:
    """What one file yields besides its sites, in document order."""

    pending: list[Pending] = field(default_factory=list)
    prior_blocks: list[tuple[str, list[Guard]]] = field(default_factory=list)  # (function, earlier raises)
    prior_lines: list[list[int]] = field(default_factory=list)  # per prior block: the line each raise stands for
    calls: list[CallSite] = field(default_factory=list)
    functions: list[str] = field(default_factory=list)
    defined: set[str] = field(default_factory=set)  # `functions`, for lookups
    params: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    defaults: list[tuple[str, tuple[tuple[str, Expr], ...]]] = field(default_factory=list)
    imports: dict[str, str] = field(default_factory=dict)
    adjustments: list[Adjustment] = field(default_factory=list)
    diagnostics: list[str] = field(default_factory=list)
    helpers: list[tuple[str, Expr]] = field(default_factory=list)
    registered: list[str] = field(default_factory=list)  # providers the profile's decorators register
    overrides: list[str] = field(default_factory=list)  # of those, the model overrides
    returns: list[tuple[str, tuple[str, ...], Expr]] = field(default_factory=list)  # see `FileSites.returns`
    attributes: list[tuple[str, Expr]] = field(default_factory=list)  # see `FileSites.attributes`
    rewritten: set[str] = field(default_factory=set)  # ``Cls.attr`` its methods set anywhere else


class WalkState:
    """The walk's place in one module: the function being walked (its `Frame`), the guards on
    the path, and what the file has yielded so far; what the walker's collaborators share."""

    def __init__(self, path: str, profile: Profile, lines: LineIndex, frame: Frame,
                 computed: dict[int, cst.BaseExpression]) -> None:
        self.path = path
        self.profile = profile
        self.lines = lines
        self.qualname: list[str] = []
        self.found = Found()
        self.statement: cst.CSTNode | None = None  # the innermost statement being walked
        self.computed = computed  # module constants' comprehensions, by id: what they compute to
        self.frame = frame

    def priors(self) -> PriorTable:
        """The earlier raises found so far (a site's `prior_runs` index into them)."""
        found = self.found
        return PriorTable(tuple((function, tuple(guards)) for function, guards in found.prior_blocks),
                          tuple(tuple(lines) for lines in found.prior_lines))

    @property
    def function(self) -> str:
        return ".".join(self.qualname) or MODULE

    @property
    def scope(self) -> Scope:
        return self.frame.scope

    def line_of(self, node: cst.CSTNode, within: cst.CSTNode | None = None) -> int:
        """`node`'s first line; `within`: a statement holding it, which spares a part of an
        expression or a handler a whole-file position pass (`positions.LineIndex.line`)."""
        return self.lines.line(node, within)

    def push(self, expr: Expr, text: str, origin: GuardOrigin, line: int = 0) -> None:
        """A guard in force until the enclosing guard scope (or block) is left (`line`: of an
        earlier raise, the line of the raise/assert it stands for)."""
        frame, guard = self.frame, Guard(expr, text, origin)
        if origin is not GuardOrigin.PRIOR_RAISE:
            frame.guards.append(guard)
            return
        block = frame.blocks[-1]
        if block is None:
            block = frame.blocks[-1] = len(self.found.prior_blocks)
            self.found.prior_blocks.append((self.function, []))
            self.found.prior_lines.append([])
        listed = self.found.prior_blocks[block][1]
        at = len(frame.guards)
        last = frame.runs[-1] if frame.runs else None
        if last is not None and last[0] == at and last[1] == block and last[3] == len(listed):
            last[3] += 1  # the same run of consecutive checks grows
        else:
            frame.runs.append([at, block, len(listed), len(listed) + 1])
        listed.append(guard)
        self.found.prior_lines[block].append(line)

    def push_else(self, prior: Sequence[tuple[Expr, str]]) -> None:
        """The earlier branches of a chain were not taken."""
        for expr, text in prior:
            self.push(negate(expr), f"not ({text})", GuardOrigin.ELSE)

    @contextmanager
    def guarded(self) -> Iterator[None]:
        """A guard scope: the guards pushed inside it are dropped on leaving it."""
        guards = self.frame.guards
        depth = len(guards)
        try:
            yield
        finally:
            del guards[depth:]

    @contextmanager
    def block(self) -> Iterator[None]:
        """A block: a guard scope whose earlier raises stop being in force when it ends."""
        frame = self.frame
        frame.blocks.append(None)
        with self.guarded():
            yield
        block = frame.blocks.pop()
        while block is not None and frame.runs and frame.runs[-1][1] == block:
            frame.runs.pop()

    @contextmanager
    def entered(self, frame: Frame) -> Iterator[Frame]:
        """Walk a function body in `frame`; the enclosing function's frame is back after."""
        outer, self.frame = self.frame, frame
        try:
            yield frame
        finally:
            self.frame = outer

    def prior_runs(self) -> tuple[Run, ...]:
        return tuple((at, b, start, end) for at, b, start, end in self.frame.runs)

    def path_guards(self, depth: int = 0, blocks: int = 0) -> tuple[Guard, ...]:
        """The guards on the path in order, earlier raises included, from stack depth
        `depth` and prior block `blocks` on (O(path): for rare uses only)."""
        guards = self.frame.guards
        out: list[Guard] = []
        done = depth
        for at, block, start, end in self.frame.runs:
            if block >= blocks:
                out.extend(guards[done:at])
                done = max(done, at)
                out.extend(self.found.prior_blocks[block][1][start:end])
        out.extend(guards[done:])
        return tuple(out)

    def call_line(self, node: cst.CSTNode) -> int:
        """Where a call runs in program order: its statement's first line (a statement's
        calls run before its own effect, as ``declare_resolution(x=validate(cfg.x))``
        validates before it resolves), else the call's own line."""
        return self.line_of(self.statement if self.statement is not None else node)

    def rebind(self, name: str, value: cst.BaseExpression) -> None:
        """Bind `name` (a branch's rebinding meets the others' where they join: `Join`); a
        module constant's comprehension is the literal it computes to (`computed_literals`)."""
        self.scope.bind(name, self.computed.get(id(value), value))
