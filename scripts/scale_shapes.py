"""Generated sources for the scale benchmark and tests (issue 10 item 12).

    python scripts/scale_shapes.py SHAPE N DIR     # writes DIR/pkg/gen.py and DIR/profile.yaml

Shapes, each about N lines:

* ``one-if``: ONE function ``def check(cfg):`` with N ``if cfg.xI > I: raise ValueError(...)``
* ``one-assert``: the same with ``assert cfg.xI <= I, f"..."``
* ``one-elif``: the same, mixing ``if``/``elif`` chains (three tests per chain) and asserts
* ``many``: N/5 small functions, each with one raise
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

SHAPES = ("one-if", "one-assert", "one-elif", "many")
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


def source(shape: str, lines: int) -> str:
    """About `lines` lines of Python in `shape`."""
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


def write(shape: str, lines: int, root: Path) -> Path:
    """`root`/pkg/gen.py in `shape`, and `root`/profile.yaml targeting it; returns the profile."""
    (root / "pkg").mkdir(parents=True, exist_ok=True)
    (root / TARGET).write_text(source(shape, lines), encoding="utf-8")
    profile = root / "profile.yaml"
    profile.write_text(PROFILE, encoding="utf-8")
    return profile


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
