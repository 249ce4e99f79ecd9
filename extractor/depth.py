"""Deeply nested but legal code, analysed without overflowing a stack.

libcst's native parser recurses once per nesting level on the C stack: on the
default 8 MB stack it segfaults past ~1,200 nested brackets or ~20,000 ``and``
operands, taking the process (or a pool worker) with it. The walker and libcst's code
generator recurse in Python and hit the 1,000-frame limit at a few hundred levels.

CPython bounds what it accepts: at most 200 nested brackets and a few thousand levels
of any other nesting, except ``and``/``or`` chains, which it keeps flat but libcst nests
one level per operand. So a file is measured first (with `ast`, cheap, in C), refused
with a diagnostic when deeper than `LIMIT`, and otherwise analysed in a thread whose
stack and recursion limit fit `LIMIT` levels.
"""
from __future__ import annotations

import ast
import io
import sys
import threading
import tokenize
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")

LIMIT = 20_000  # libcst nesting levels analysed: far past CPython's own ~3,000 (chains aside)
_STACK = 512 << 20  # bytes of thread stack: virtual, only the depth actually reached is touched
_FRAMES = 25 * LIMIT  # recursion limit while analysing: Python frames per level of the walker and codegen
_PARSER_DEPTH = 6_000  # deepest nesting CPython's parser accepts (its MAXSTACK), chains aside
_lock = threading.Lock()  # the recursion limit is per interpreter: one deep call at a time


@dataclass(frozen=True, slots=True)
class TooDeep:
    """Why a file is not analysed: Python refuses it too (it never runs), or only errcat."""

    reason: str
    line: int | None = None  # where Python stopped, when it says
    by_python: bool = True


def parse(source: str) -> tuple[ast.Module | None, TooDeep | None]:
    """The `ast` of `source`, or None and why Python refuses it (None: a plain syntax error).

    Only nesting refusals are returned: a syntax error may be newer grammar than this
    Python's, which libcst still reads.
    """
    try:
        return ast.parse(source), None
    except SyntaxError as exc:
        if exc.msg.startswith(("too many nested parentheses", "too many levels of indentation", "too complex")):
            return None, TooDeep(exc.msg, exc.lineno)
        return None, None
    except RecursionError:  # CPython's parser has its own depth limit
        return None, TooDeep("too deeply nested for Python to parse")
    except MemoryError:  # deep nesting, or this machine's memory: counted as errcat's failure
        return None, TooDeep("out of memory parsing it", by_python=False)
    except ValueError:  # NUL bytes: libcst reports those itself
        return None, None


def nesting(tree: ast.AST) -> int:
    """How deep libcst nests the tree: as `ast` does, plus one level per extra operand
    of an ``and``/``or`` chain (libcst's ``a and b and c`` is ``(a and b) and c``)."""
    deepest = 0
    stack: list[tuple[ast.AST, int]] = [(tree, 1)]
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        if isinstance(node, ast.BoolOp):
            level += len(node.values) - 1
        stack.extend((child, level + 1) for child in ast.iter_child_nodes(node))
    return deepest


def token_bound(source: str) -> int:
    """An upper bound on the nesting of a file `ast` cannot read (newer grammar, or
    broken): every level of an expression takes a token of its statement, and blocks
    nest by indentation. Counts up to where tokenizing fails, as a parser would."""
    most = line = indent = 0
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.INDENT:
                indent += 1
            elif tok.type == tokenize.DEDENT:
                indent -= 1
            elif tok.type == tokenize.NEWLINE:
                line = 0
            else:
                line += 1
                most = max(most, line + 4 * indent)
    except (tokenize.TokenError, SyntaxError):
        pass
    return most


def refusal(source: str) -> tuple[ast.Module | None, TooDeep | None]:
    """The `ast` of `source` (when Python reads it) and why it is too deep to analyse, if it is."""
    tree, refused = parse(source)
    if refused is not None:
        return None, refused
    if tree is None:  # Python refuses it anyway: the bound just keeps libcst off it
        depth = token_bound(source)
    elif _PARSER_DEPTH + source.count("and") + source.count("or") <= LIMIT:
        return tree, None  # too few and/or chains to reach the limit: no need to measure
    else:
        depth = nesting(tree)
    if depth > LIMIT:
        return tree, TooDeep(f"too deeply nested to analyse (depth {depth} > {LIMIT})", by_python=tree is None)
    return tree, None


def call_deep(fn: Callable[..., T], *args: object) -> T:
    """`fn(*args)` on a thread with room for `LIMIT` levels of nesting; its result or exception."""
    out: list[T] = []
    err: list[BaseException] = []

    def run() -> None:
        try:
            out.append(fn(*args))
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            err.append(exc)

    with _lock:
        size = threading.stack_size(_STACK)
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, _FRAMES))
        try:
            worker = threading.Thread(target=run, name="errcat-deep")
            worker.start()
        except RuntimeError:  # no room for such a stack (address-space limit): run here, shallower
            worker = None
        finally:
            threading.stack_size(size)
        try:
            if worker is None:
                sys.setrecursionlimit(limit)
                run()
            else:
                worker.join()
        finally:
            sys.setrecursionlimit(limit)
    if err:
        raise err[0]
    return out[0]
