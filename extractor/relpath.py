"""Is a file name a plain relative path? One rule for every name errcat writes or unpacks."""
from __future__ import annotations

import re

# A backslash or control character, an absolute or drive ("C:") prefix, an empty, "." or ".." part.
_BAD = re.compile(r"[\x00-\x1f\x7f\\]|^/|^[A-Za-z]:|(?:^|/)\.{0,2}(?:/|$)")


def relative_name_problem(name: object) -> str | None:
    """Why `name` is not a plain relative POSIX path that stays below its directory (None: it is)."""
    if not isinstance(name, str) or not name:
        return "not a file name"
    bad = _BAD.search(name)
    if bad is None:
        return None
    text = bad.group()
    if text == "\\" or (len(text) == 1 and text not in "/."):
        return "backslash or control character in the name"
    if bad.start() == 0 and (text.startswith("/") or text.endswith(":")):
        return "absolute path"
    return "empty, '.' or '..' part"
