"""Checks that fire on what the machine holds — a file, an installed package, the network —
rather than on the command line alone: their entries are marked `environment`.

Read from the check's own condition and exception, by name (nothing is imported): a test
of the machine the condition reads (`os.path.isfile(...)`, `importlib...`: a runtime fact,
`extractor.cst_ir`), a ``try`` whose failure it reads where the ``except`` catches an
error of the machine, or the exception itself being one (the builtin `OSError` family —
files, connections, timeouts — and `ImportError`).
"""
from __future__ import annotations

from extractor.exceptions import catches
from extractor.ir import Expr, RefKind, refs
from extractor.records import TRY_RAISES

MACHINE_ERRORS = ("OSError", "ImportError")  # and their subclasses (FileNotFoundError, ModuleNotFoundError, ...)


def machine_error(exception: str) -> bool:
    """Is `exception` (a class name as raised) an error of the machine, not of a value?"""
    return catches(MACHINE_ERRORS, exception)


def _machine_fact(name: str) -> bool:
    """A runtime ref's name: a test of the machine, or a ``try`` catching its errors."""
    found = TRY_RAISES.fullmatch(name)
    if found is None:
        return True
    return any(machine_error(c.strip()) for c in found["caught"].split(","))


def depends_on_environment(exception: str, condition: Expr) -> bool:
    """Does a check raising `exception` under `condition` fire on what the machine holds?"""
    return machine_error(exception) or any(r.kind is RefKind.RUNTIME and _machine_fact(r.name)
                                           for r in refs(condition))
