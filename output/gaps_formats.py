"""`errcat gaps` as text: Markdown for people, JSON for tools, GitHub workflow commands for CI."""
from __future__ import annotations

import json
from collections.abc import Sequence

from analyzers.gaps import Gap
from output import md_escape as md
from output.diff_formats import gh_data, gh_prop

FORMATS = ("md", "json", "github")


def render_gaps(found: Sequence[Gap], fmt: str, *, new: Sequence[Gap] | None = None, release: str = "") -> str:
    """`found` in `fmt`; `new`: those an older catalog lacks (`--against`), marked as such."""
    fresh = {g.entry for g in new} if new is not None else set()
    if fmt == "json":
        return json.dumps({"release": release or None, "gaps": [{**g.as_dict(), **({"new": g.entry in fresh}
                                                                                    if new is not None else {})}
                                                                 for g in found]}, indent=2) + "\n"
    if fmt == "github":
        return "".join(_workflow(g, g.entry in fresh) for g in found)
    return _markdown(found, fresh if new is not None else None, release)


def _workflow(gap: Gap, fresh: bool) -> str:
    props = f"file={gh_prop(gap.path)},line={gh_prop(str(gap.line))},title={gh_prop('errcat gap: ' + gap.exception)}"
    said = f"{'new: ' if fresh else ''}{gap.missing}: `{gap.command or 'no command found'}` stops with " \
           f"{gap.exception}: {gap.message}\nsuggested check:\n{gap.check}"
    return f"::{'error' if fresh else 'warning'} {props}::{gh_data(said)}\n"


def _markdown(found: Sequence[Gap], fresh: set[str] | None, release: str) -> str:
    of = f" of {release}" if release else ""
    out = [f"# Missing checks{of}", "",
           f"{len(found)} place(s) where a command line makes Python itself stop the launch (no message of the "
           "program's own), the plainest command first.", ""]
    if fresh is not None:
        out += [f"{len(fresh)} of them are new since the older catalog.", ""]
    for i, gap in enumerate(found, 1):
        mark = " (new)" if fresh is not None and gap.entry in fresh else ""
        out += [f"## {i}. {md.text(gap.exception, inline=True)} at {md.code(f'{gap.path}:{gap.line}')}{mark}", "",
                f"{md.prose(gap.missing, inline=True)} ({md.text(gap.operation, inline=True)} in "
                f"{md.code(gap.function)}; entry {md.code(gap.entry)}).", ""]
        if gap.command:
            out += ["Crashes:", "", md.fence(gap.command, "sh"), ""]
        out += [f"Python's message: {md.code(gap.message)}; the example confirmed by the real program: "
                f"{md.text(gap.confirmed, inline=True)}.", "",
                "Suggested check:", "", md.fence(gap.check, "python"), ""]
    return "\n".join(out)
