"""extractor.pieces: a large file parsed a piece at a time gives the tree of the whole."""
from __future__ import annotations

import ast
from typing import Any

import libcst as cst
import pytest

from extractor import parse, pieces
from extractor.sites import extract_file
from tests.present import present

SNIPPETS = {
    "module statements": "import os\n# c\nX = 1\n\nY = 2; Z = 3\nprint(X)\n",
    "decorated class, methods, comments": (
        "import os\n\n@dec\nclass C:\n    '''doc'''\n    a = 1\n\n    def m(self, cfg):\n        # lead\n"
        "        if cfg.a:\n            raise ValueError('a')\n        x = 1; y = 2\n        for i in range(3):\n"
        "            pass\n\n        assert cfg.b, 'b'\n        return x\n    # class footer\n"
        "def f(cfg):\n    if cfg.x > 1:\n        raise ValueError('x')\n    assert cfg.w\n    assert cfg.v\n"
        "        # deeper comment\n    assert cfg.u\n# module footer\n"
    ),
    "footers of nested blocks": (
        "def f(cfg):\n    if a:\n        if b:\n            x = 1\n            # c12\n          # c10\n        # c8\n"
        "      # c6\n    # c4\n  # c2\n    y = 2\n    try:\n        z = 1\n    except E:\n        w = 2\n"
        "        # handler footer\n    else:\n        v = 3\n        # else footer\n\n    # next\n    if c:\n"
        "        u = 1\n    elif d:\n        t = 2\n        # elif footer\n    s = 1\n"
    ),
    "long method first in its class": "class C:\n    def m(self, cfg):\n" + "".join(
        f"        if cfg.x{i}:\n            raise ValueError('{i}')\n" for i in range(8)) + "    x = 1\n",
    "body on the header line": "class D: x = [\n    1,\n    2,\n    3,\n]\ndef g(): return [\n    1,\n    2,\n]\n",
    "multi-line signature": "def f(\n    a,\n    # arg comment\n    b,\n):  # after colon\n"
                            "    x = a\n    y = b\n    z = 1\n    return x\n",
    "async and nested defs": "async def f(cfg):\n    async with x:\n        pass\n    def g():\n        return 1\n"
                             "    await g()\n    raise ValueError('z')\n",
    "CRLF line ends": "def f(cfg):\r\n    if cfg.a:\r\n        raise ValueError('a')\r\n    x = 1\r\n    y = 2\r\n",
    "no final newline": "def f(cfg):\n    x = 1\n    y = 2\n    raise ValueError('q')",
    "form feed and tabs": "def f(cfg):\n\tx = 1\n\f\n\ty = 2\n\tif y:\n\t\traise ValueError('t')\n",
}


def whole_and_cut(source: str, piece: int) -> tuple[cst.Module, cst.Module]:
    how = pieces.cut(source, ast.parse(source), piece=piece, whole=0)
    assert how is not None
    return cst.parse_module(source), pieces.parse(source, how)


@pytest.mark.parametrize("piece", [1, 2, 3, 5])
@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_cut_parse_equals_whole_parse(name, piece):
    whole, cut = whole_and_cut(SNIPPETS[name], piece)
    assert cut.code == whole.code
    assert len(cut.body) == len(whole.body) and all(a.deep_equals(b) for a, b in zip(cut.body, whole.body, strict=True))
    assert cut.deep_equals(whole)


@pytest.mark.parametrize("lines, whole, expected", [(10, 20, False), (21, 20, True)])
def test_only_files_over_the_whole_limit_are_cut(lines, whole, expected):
    source = "".join(f"x{i} = {i}\n" for i in range(lines))
    assert (pieces.cut(source, ast.parse(source), piece=4, whole=whole) is not None) is expected


CHECKS = "".join(f"    if cfg.x{i} > {i}:\n        raise ValueError('{i}')\n" for i in range(500))


def _sites_parse(source: str) -> cst.Module:  # as the site walker parses a file
    return pieces.parse(source, pieces.cut(source, ast.parse(source)))


@pytest.mark.parametrize("read", [_sites_parse, parse.module], ids=["site walker", "parse.module"])
@pytest.mark.parametrize("source", [
    "def check(cfg):\n" + CHECKS,
    "class C:\n    def check(self, cfg):\n" + CHECKS.replace("\n    ", "\n        ").replace("    if", "        if", 1),
])
def test_a_long_function_is_parsed_in_pieces_of_bounded_size(monkeypatch, source, read):
    """Every reader of a large file (the flag model's too: issue 39) parses it in pieces."""
    sizes: list[int] = []
    real = cst.parse_module

    def counting(text: str, *args: Any, **kw: Any) -> cst.Module:
        sizes.append(text.count("\n"))
        return real(text, *args, **kw)

    monkeypatch.setattr(pieces.cst, "parse_module", counting)
    monkeypatch.setattr(pieces, "WHOLE_LINES", 0)
    monkeypatch.setattr(pieces, "PIECE_LINES", 40)
    module = read(source)
    assert module.deep_equals(real(source))
    assert max(sizes) <= 40 + 3 and sum(sizes) <= 2 * source.count("\n")  # a piece and its headers


def test_a_cut_that_does_not_parse_falls_back_to_the_whole_file():
    source = "def f():\n    x = 1\n    y = 2\n"
    wrong = pieces.Cut(present(pieces.cut(source, ast.parse(source), piece=1, whole=0)).lines, (pieces.Piece(0, 2),))
    assert pieces.parse(source, wrong).code in (source, "def f():\n    x = 1\n")  # never an exception


@pytest.mark.network
@pytest.mark.parametrize("version", ["0.5.18", "0.5.23"])
def test_real_targets_give_the_same_sites_in_pieces(release, sglang_profile, monkeypatch, version):
    snapshot = release(version)
    paths = snapshot.glob(sglang_profile.targets)
    paths = sorted(paths, key=lambda p: -len(snapshot.text(p)))[:6]  # the largest: server_args.py, hooks
    whole = {p: extract_file(p, snapshot.text(p), sglang_profile).as_dict() for p in paths}
    monkeypatch.setattr(pieces, "WHOLE_LINES", 0)
    monkeypatch.setattr(pieces, "PIECE_LINES", 25)
    assert {p: extract_file(p, snapshot.text(p), sglang_profile).as_dict() for p in paths} == whole
