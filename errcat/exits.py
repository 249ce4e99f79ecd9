"""errcat's exit codes: one table for every verb, shown in ``--help`` and the README.

1 is a verb's negative answer and 3 an answer left partly open; what each means for each
verb is `MEANINGS`. Bad input or usage is 2 everywhere (one ``errcat: ...`` line on stderr).
"""
from __future__ import annotations

import enum
import sys
from collections.abc import Callable, Iterable

from extractor.errors import ErrcatError


class Exit(enum.IntEnum):
    OK = 0
    NO = 1  # check: will fail; explain: no entry renders an error; diff, gaps: a --fail-on change
    USAGE = 2  # bad input or usage, every verb
    PARTIAL = 3  # extract: incomplete catalog; check: undecided
    INTERRUPTED = 130  # Ctrl-C


# Per verb, what each code other than 2 and 130 says (a verb not listed returns 0 when done).
MEANINGS: dict[str, dict[Exit, str]] = {
    "extract": {Exit.OK: "catalog written",
                Exit.PARTIAL: "catalog written, but incomplete (a file could not be analysed: listed in it)"},
    "check": {Exit.OK: "predicted to work", Exit.NO: "will fail, or refused by the argument parser",
              Exit.PARTIAL: "undecided: may fail (what decides it is listed)"},
    "explain": {Exit.OK: "every error found in the text is a catalog entry",
                Exit.NO: "an error no entry renders (the closest are listed), or no error found"},
    "diff": {Exit.OK: "no change of a --fail-on kind", Exit.NO: "a change of a --fail-on kind"},
    "gaps": {Exit.OK: "listed (with --fail-on new: no crash the older catalog lacks)",
             Exit.NO: "--fail-on new: a crash the older catalog lacks"},
}
_EVERY = {Exit.USAGE: "bad input or usage (one `errcat: ...` line on stderr, nothing written)",
          Exit.INTERRUPTED: "interrupted"}


def table(verb: str | None = None) -> str:
    """The exit codes as ``--help`` shows them: every verb's, or `verb`'s."""
    lines = ["exit codes:"]
    verbs = [verb] if verb is not None else list(MEANINGS)
    for name in verbs:
        for code, said in MEANINGS.get(name, {Exit.OK: "done"}).items():
            lines.append(f"  {int(code):<3} {name + ': ' if verb is None else ''}{said}")
    if verb is None:
        lines.append(f"  {int(Exit.OK):<3} every other verb: done")
    lines += [f"  {int(code):<3} {said}" for code, said in _EVERY.items()]
    return "\n".join(lines)


def script_exit(name: str, work: Callable[[], Iterable[str]]) -> int:
    """A script's exit: the lines `work` reports, printed; bad input one ``name: ...`` line on
    stderr and `Exit.USAGE`, Ctrl-C `Exit.INTERRUPTED` (as every verb of the CLI)."""
    try:
        report = list(work())
    except ErrcatError as exc:
        print(f"{name}: {exc}", file=sys.stderr)
        return Exit.USAGE
    except KeyboardInterrupt:
        print(f"{name}: interrupted", file=sys.stderr)
        return Exit.INTERRUPTED
    print("\n".join(report))
    return Exit.OK
