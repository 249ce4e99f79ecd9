"""Generated sources for the scale benchmark and tests (issue 10 item 12).

    python scripts/scale_shapes.py SHAPE N DIR     # writes DIR/pkg/gen.py and DIR/profile.yaml

Shapes, each about N lines:

* ``one-if``: ONE function ``def check(cfg):`` with N ``if cfg.xI > I: raise ValueError(...)``
* ``one-assert``: the same with ``assert cfg.xI <= I, f"..."``
* ``one-elif``: the same, mixing ``if``/``elif`` chains (three tests per chain) and asserts
* ``many``: N/5 small functions, each with one raise
* ``server-args``: sglang's own layout (``python/sglang/srt/server_args.py``, the shipped
  profile, so examples are judged by the whole pipeline): one method of ``ServerArgs`` with
  N/2 ``if self.opt_I < 0: raise ValueError(...)`` pairs (issue 39)
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

SHAPES = ("one-if", "one-assert", "one-elif", "many", "server-args")
PROFILE = "name: scale\nrepo: example/scale\ntargets:\n  - pkg/**/*.py\nconfig:\n  params: [cfg]\n"
TARGET = "pkg/gen.py"


def _check_if(i: int) -> list[str]:
    return [f'    if cfg.x{i} > {i}:', f'        raise ValueError(f"bad {i}: {{cfg.x{i}}}")']


def _check_assert(i: int) -> list[str]:
    return [f'    assert cfg.x{i} <= {i}, f"bad {i}: {{cfg.x{i}}}"']


def _check_elif(i: int) -> list[str]:
    """Rotates: an if/elif/elif chain (one statement per test), a plain if, an assert."""
    if i % 5 == 0:
        return [f'    if cfg.x{i} > {i}:', f'        raise ValueError(f"bad {i}: {{cfg.x{i}}}")']
    if i % 5 in (1, 2):
        return [f'    elif cfg.x{i} == "{i}":', f'        raise TypeError(f"odd {i}: {{cfg.x{i}}}")']
    if i % 5 == 3:
        return _check_if(i)
    return _check_assert(i)


SERVER_ARGS = "python/sglang/srt/server_args.py"


def target(shape: str) -> str:
    """The file `write` puts the shape in, relative to its root."""
    return SERVER_ARGS if shape == "server-args" else TARGET


def _server_args(lines: int) -> str:
    out = ["from dataclasses import dataclass", "", "", "@dataclass", "class ServerArgs:", "    tp_size: int = 1", "",
           "    def check_server_args(self):"]
    i = 0
    while len(out) < lines:
        out += [f"        if self.opt_{i} < 0:",
                f'            raise ValueError(f"opt_{i} must be >= 0, got {{self.opt_{i}}}")']
        i += 1
    return "\n".join(out) + "\n"


def source(shape: str, lines: int) -> str:
    """About `lines` lines of Python in `shape`."""
    if shape == "server-args":
        return _server_args(lines)
    if shape == "many":
        out: list[str] = []
        for i in range(max(1, lines // 5)):
            out += [f"def check_{i}(cfg):", f"    if cfg.x{i} > {i}:",
                    f'        raise ValueError(f"bad {i}: {{cfg.x{i}}}")', "    return cfg", ""]
        return "\n".join(out) + "\n"
    step = {"one-if": _check_if, "one-assert": _check_assert, "one-elif": _check_elif}[shape]
    out = ["def check(cfg):"]
    i = 0
    while len(out) < lines:
        out += step(i)
        i += 1
    return "\n".join(out) + "\n"


def write(shape: str, lines: int, root: Path) -> str:
    """The shape's file under `root` (`target`), and `root`/profile.yaml targeting it; returns
    the profile to extract with (a path, or the shipped profile's name)."""
    (root / target(shape)).parent.mkdir(parents=True, exist_ok=True)
    (root / target(shape)).write_text(source(shape, lines), encoding="utf-8")
    if shape == "server-args":
        return "sglang"
    profile = root / "profile.yaml"
    profile.write_text(PROFILE, encoding="utf-8")
    return str(profile)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shape", choices=SHAPES)
    parser.add_argument("lines", type=int)
    parser.add_argument("dir", type=Path)
    args = parser.parse_args(argv)
    print(write(args.shape, args.lines, args.dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
