"""Common situations an entry's condition reads off the code: a deprecated flag still
passed, a platform the check requires (a part of it says the flag is given or the platform
check is true; one under an "or", or one it needs unset or false, is no situation the error
happens in)."""
from __future__ import annotations

from typing import Any

from analyzers.polarity import says
from analyzers.trigger import Renderer
from extractor.ir import Expr, RefKind, Truthy, conjuncts, refs, simplify


def situations(expr: Expr, flags: Any, renderer: Renderer) -> list[str]:
    """The situations in which `expr` is met, as one line each (`flags`: the flag model or None)."""
    out: list[str] = []
    required = {found[0] for part in conjuncts(simplify(expr)) if (found := says(part)) is not None and found[1]}
    for ref in refs(expr):
        if ref.kind is RefKind.FLAG and flags is not None and ref in required:  # passed, not left out
            for flag in flags.flags_for_dest(ref.name):
                if flag.deprecated and flag.option:
                    hint = f"; use `{flag.replacement}`" if flag.replacement else ""
                    out.append(f"Still passing the deprecated `{flag.option}`{hint}.")
        elif ref.kind is RefKind.PLATFORM and ref in required:
            out.append(f"Running where {renderer.text(Truthy(ref))}.")
    return list(dict.fromkeys(out))
