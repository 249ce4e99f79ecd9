"""Common situations an entry's condition reads off the code: a deprecated flag still
passed, a platform the check names."""
from __future__ import annotations

from typing import Any

from analyzers.trigger import Renderer
from extractor.ir import Expr, RefKind, Truthy, refs


def situations(expr: Expr, flags: Any, renderer: Renderer) -> list[str]:
    """The situations in which `expr` is met, as one line each (`flags`: the flag model or None)."""
    out: list[str] = []
    for ref in refs(expr):
        if ref.kind is RefKind.FLAG and flags is not None:
            for flag in flags.flags_for_dest(ref.name):
                if flag.deprecated and flag.option:
                    hint = f"; use `{flag.replacement}`" if flag.replacement else ""
                    out.append(f"Still passing the deprecated `{flag.option}`{hint}.")
        elif ref.kind is RefKind.PLATFORM:
            out.append(f"Running where {renderer.text(Truthy(ref))}.")
    return list(dict.fromkeys(out))
