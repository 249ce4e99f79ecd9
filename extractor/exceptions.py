"""Which ``except`` clauses catch which exceptions, by class name (nothing is imported)."""
from __future__ import annotations

import builtins
from collections.abc import Sequence


def catches(names: Sequence[str], exception: str) -> bool:
    """Does an ``except`` naming the classes `names` catch `exception` (a class name as
    raised)? By name, and by the builtin hierarchy (``except LookupError`` catches
    KeyError; ``BaseException``, a bare ``except``, everything); a project's class is
    caught only by its own name: its bases are not known here."""
    short = exception.rpartition(".")[2]
    raised = getattr(builtins, short, None)
    for name in names:
        if name == short:
            return True
        base = getattr(builtins, name or "", None)
        if isinstance(raised, type) and isinstance(base, type) and issubclass(raised, base):
            return True
    return False
