"""What an option's strings and help text say: the dest argparse gives it, whether the help
marks it deprecated, and the option a deprecation points to."""
from __future__ import annotations

import re
from collections.abc import Iterable


def dest_for_option(option: str) -> str:
    """argparse's dest for an option string: ``--tp-size`` -> ``tp_size``."""
    return option.lstrip("-").replace("-", "_")


_OPTION = r"--[A-Za-z0-9][\w{},-]*"
_REPLACEMENT = re.compile(
    rf"(?i)\b(?:use|pass|alias (?:for|of)|replaced by|in favou?r of|renamed to|switch to)\s+[\"'`]?({_OPTION})"
)
_DEPRECATED_HELP = re.compile(r"(?i)^\W*(?:deprecated|removed)\b")
_OPTION_RE = re.compile(_OPTION)
# "deprecated" then an option before the sentence ends; "Deprecated. X is automatic
# with --y." names no replacement.
_DEPRECATED_THEN_OPTION = re.compile(rf"(?i)\bdeprecated\b[^.;]*?({_OPTION})")


def replacement_option(texts: Iterable[str | None], own: Iterable[str] = ()) -> str | None:
    """The option a deprecation points to.

    Tried in order: a leading option (``new_flag="--new <n>"``), prose such as
    "Use --new instead" / "alias for --new", then an option later in the same
    sentence as "deprecated" ("Deprecated: --new"). Options of the flag itself
    never count.
    """
    skip = set(own)
    for text in texts:
        if not text:
            continue
        leading = _OPTION_RE.match(text.strip())
        found = [leading.group(0)] if leading else []
        found += [mt.group(1) for mt in _REPLACEMENT.finditer(text)]
        found += [mt.group(1) for mt in _DEPRECATED_THEN_OPTION.finditer(text)]
        for candidate in found:
            candidate = candidate.rstrip(",.")
            if candidate not in skip:
                return candidate
    return None


def deprecated_help(help_text: str | None) -> bool:
    return bool(help_text and _DEPRECATED_HELP.match(help_text))
