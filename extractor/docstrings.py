"""What the source says about a check, for an entry's meaning: first docstring lines of
functions by qualified name, and the comments around each raise/assert."""
from __future__ import annotations

import ast
import io
import tokenize


def first_sentence(doc: str) -> str:
    """The first sentence of a docstring's first paragraph, its lines joined: a summary
    that wraps ("Fail fast at the entrypoint on a --load-publish-endpoint the\n publisher
    cannot serve.") is read whole."""
    paragraph = " ".join(doc.strip().split("\n\n", 1)[0].split())
    head, dot, _ = paragraph.partition(". ")
    return head + "." if dot else paragraph


def first_lines(tree: ast.Module | None) -> tuple[tuple[str, str], ...]:
    """``(("ServerArgs.check", "Check the arguments."), ...)`` for every documented function
    of a file's `ast` (none when Python could not parse it), sorted by name: its docstring's
    `first_sentence`."""
    if tree is None:
        return ()
    out: dict[str, str] = {}
    stack: list[tuple[ast.AST, str]] = [(tree, "")]
    while stack:
        node, prefix = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                qual = f"{prefix}{child.name}"
                doc = ast.get_docstring(child) if not isinstance(child, ast.ClassDef) else None
                line = first_sentence(doc) if doc else ""
                if line:
                    out[qual] = line
                stack.append((child, qual + "."))
    return tuple(sorted(out.items()))


_NOT_PROSE = ("noqa", "type:", "pragma", "fmt:", "pylint", "mypy", "ruff", "isort")


def _comments(source: str) -> dict[int, tuple[str, bool]]:
    """line -> (comment text, stands on its own line)."""
    out: dict[int, tuple[str, bool]] = {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT:
                text = tok.string.lstrip("#").strip()
                if text and not text.lower().startswith(_NOT_PROSE):
                    out[tok.start[0]] = (text, not tok.line[: tok.start[1]].strip())
    except (tokenize.TokenError, SyntaxError):
        pass
    return out


def _above(comments: dict[int, tuple[str, bool]], line: int) -> list[str]:
    """The block of own-line comments right above `line`, top first."""
    block: list[str] = []
    while (line - 1) in comments and comments[line - 1][1]:
        line -= 1
        block.insert(0, comments[line][0])
    return block


def _around(comments: dict[int, tuple[str, bool]], node: ast.stmt, head_end: int) -> list[str]:
    """Comments above `node` and beside its lines up to `head_end`."""
    beside = [comments[n][0] for n in range(node.lineno, head_end + 1) if n in comments and not comments[n][1]]
    return _above(comments, node.lineno) + beside


def check_comments(tree: ast.Module | None, source: str) -> tuple[tuple[int, str], ...]:
    """``((line, "why the check exists"), ...)``: for each ``raise``/``assert`` (by its first
    line), the comments right above and beside the ``if`` whose body holds it, then those
    right above and beside the statement itself, joined; none where there are none."""
    comments = _comments(source) if tree is not None else {}
    if tree is None or not comments:
        return ()
    out: dict[int, str] = {}
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        for child in ast.iter_child_nodes(node):
            stack.append(child)
            if not isinstance(child, (ast.Raise, ast.Assert)):
                continue
            opened = node if isinstance(node, ast.If) and child in node.body else None
            parts = _around(comments, opened, opened.test.end_lineno or opened.lineno) if opened else []
            parts += _around(comments, child, child.end_lineno or child.lineno)
            if parts:
                out[child.lineno] = " ".join(dict.fromkeys(parts))
    return tuple(sorted(out.items()))
