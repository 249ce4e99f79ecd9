"""The README's commands, run, and the output its tour shows, made by running them.

    python scripts/readme_tour.py DIR            # run every README command in DIR; print the README as it should be
    python scripts/readme_tour.py DIR --write    # ... and write it into README.md

The README's code blocks hold its commands: ```sh blocks (the setup; commands joined by ``&&``)
and ```console blocks, where a line ``$ errcat ...`` is a command and the lines after it, up to
the next ``$``, its output (cut to its first `SHOWN` lines and a line ``…`` when longer; a
measured size and duration shown as ``… MB in …s``). Every
``errcat`` command runs in-process in DIR, in order; the setup steps that make the environment
(`SETUP`) cannot run inside it and are checked against the project instead (tests/test_readme.py).
"""
from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import shlex
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
# steps that build the environment the other commands run in: not runnable from inside it
SETUP = ("python3 -m venv .venv", ". .venv/bin/activate", "pip install -e '.[test]'", "python -m pytest -q")
SHOWN = 16  # output lines a console block shows before cutting
CUT = "…"
# what `errcat site` measures (its size holds paths of this machine, its time the load): not the same twice
_MEASURED = re.compile(r" \d+(?:\.\d+)? MB in \d+(?:\.\d+)?s -> ")
_BLOCK = re.compile(r"^```(sh|console)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True, slots=True)
class Command:
    line: str  # as the README writes it (without the prompt)
    shown: tuple[str, ...] | None  # a console command's output as shown; None in a sh block

    @property
    def setup(self) -> bool:
        return self.line in SETUP


def commands(readme: str) -> list[Command]:
    """Every command of the README's sh and console blocks, in order."""
    found: list[Command] = []
    for match in _BLOCK.finditer(readme):
        kind, body = match.group(1), match.group(2)
        if kind == "sh":
            found += [Command(step.strip(), None) for line in body.splitlines() if line.strip()
                      for step in line.split("&&")]
        else:
            found += [Command(line, tuple(shown)) for line, shown in _console(body)]
    return found


def _console(body: str) -> Iterator[tuple[str, list[str]]]:
    line: str | None = None
    shown: list[str] = []
    for text in body.splitlines():
        if text.startswith("$ "):
            if line is not None:
                yield line, shown
            line, shown = text[2:], []
        elif line is not None:
            shown.append(text)
    if line is not None:
        yield line, shown


def run(line: str, cwd: Path) -> tuple[int, str]:
    """An ``errcat`` command run in-process in `cwd`: its exit code and what it printed."""
    from errcat.cli import main

    words = shlex.split(line)
    if words[:1] != ["errcat"]:
        raise ValueError(f"readme_tour: not an errcat command: {line}")
    out = io.StringIO()
    here = Path.cwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out):
            code = main(words[1:])
    finally:
        os.chdir(here)
    return code, out.getvalue()


def shown(output: str) -> list[str]:
    """What a console block shows of `output`."""
    lines = _MEASURED.sub(" … MB in …s -> ", output).rstrip("\n").split("\n") if output.strip() else []
    return lines if len(lines) <= SHOWN else lines[:SHOWN] + [CUT]


def refreshed(readme: str, cwd: Path) -> str:
    """`readme` with every command run in `cwd` (raising on a failure the README does not show)
    and each console block's output replaced by what its command printed."""
    outputs: dict[str, list[str]] = {}
    for command in commands(readme):
        if command.setup:
            continue
        code, printed = run(command.line, cwd)
        if code not in (0, 1, 3):  # 1 and 3 are answers (will fail, undecided), 2 a usage error
            raise RuntimeError(f"readme_tour: `{command.line}` exited {code}")
        outputs[command.line] = shown(printed)

    def block(match: re.Match[str]) -> str:
        if match.group(1) != "console":
            return match.group(0)
        lines = [t for line, _ in _console(match.group(2)) for t in ["$ " + line, *outputs[line]]]
        return "```console\n" + "\n".join(lines) + "\n```"

    return _BLOCK.sub(block, readme)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dir", type=Path, help="where the commands run (the catalog is built there)")
    parser.add_argument("--write", action="store_true", help="write the outputs into README.md")
    args = parser.parse_args(argv)
    args.dir.mkdir(parents=True, exist_ok=True)
    readme = README.read_text(encoding="utf-8")
    new = refreshed(readme, args.dir)
    if args.write:
        README.write_text(new, encoding="utf-8")
    else:
        print(new, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
