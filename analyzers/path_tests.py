"""Tests of the path an option gives (``os.path.isfile(cfg.ssl_keyfile)``): which option they
read, and what they are where it gives a stand-in that `errcat.real.materials` makes real:
``<file>`` an existing file, ``<dir>`` an existing directory, a model (``<model>``,
``<model:Arch>``) a generated model directory, ``<missing>`` nothing. A path the user writes
stays unknown: errcat does not look at the machine's files."""
from __future__ import annotations

import re
from typing import Any

from analyzers.examples import DIR, FILE, MISSING, MODEL_STAND_IN

_PATH_TEST = re.compile(r"os\.path\.(isfile|isdir|exists)\([A-Za-z_]\w*\.([A-Za-z_]\w*)\)")


def path_test(name: str) -> tuple[str, str] | None:
    """(the test, the option it reads) of a runtime fact that tests an option's path, else None."""
    found = _PATH_TEST.fullmatch(name)
    return (found.group(1), found.group(2)) if found is not None else None


def path_option(name: str) -> str | None:
    """The option whose path the runtime fact `name` tests (``ssl_keyfile``), or None."""
    found = path_test(name)
    return found[1] if found is not None else None


def stand_in_path(test: str, value: Any) -> bool | None:
    """What `test` (isfile, isdir, exists) is of the path `value`, where it is a stand-in."""
    if value == MISSING:
        return False
    kind = "file" if value == FILE else "dir" if value == DIR or (
        isinstance(value, str) and MODEL_STAND_IN.fullmatch(value)) else None
    if kind is None:
        return None
    return test == "exists" or (test == "isfile") == (kind == "file")
