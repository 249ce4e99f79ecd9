"""Source bytes are read exactly as Python reads a module: cookie, BOM, strict, no NUL."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from errcat.cli import main
from extractor.decode import UndecodableSource, decode_source
from tests.present import present

RAISE = "raise ValueError('caf\u00e9')\n"

CASES = [
    # (name, bytes, text or the error it gives)
    ("utf-8", RAISE.encode(), RAISE),
    ("bom dropped", b"\xef\xbb\xbf" + RAISE.encode(), RAISE),
    ("latin-1 cookie", b"# -*- coding: latin-1 -*-\n" + RAISE.encode("latin-1"),
     "# -*- coding: latin-1 -*-\n" + RAISE),
    ("cookie on line 2", b"#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\nx = '\x80'\n",
     "#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\nx = '\u20ac'\n"),
    ("bom and utf-8 cookie", b"\xef\xbb\xbf# coding: utf-8\nx = 1\n", "# coding: utf-8\nx = 1\n"),
    ("not utf-8", b"x = 1\ny = '\xff'\n", "m.py:2: not valid utf-8: byte 0xff (invalid start byte)"),
    ("cookie on line 3 is no cookie", b"\n\n# coding: latin-1\nx = '\xe9'\n", "m.py:4: not valid utf-8: byte 0xe9"),
    ("lone surrogate", b"x = '\xed\xa0\x80'\n", "m.py:1: not valid utf-8: byte 0xed"),
    ("null byte", b"x = 1\n\ny = 2\0\n", "m.py:3: source code cannot contain null bytes"),
    ("null byte under a cookie", b"# coding: latin-1\n\0", "m.py:2: source code cannot contain null bytes"),
    ("unknown encoding", b"# coding: nope\nx = 1\n", "m.py: unknown encoding: nope"),
    ("bom against cookie", b"\xef\xbb\xbf# coding: latin-1\nx = 1\n", "m.py: encoding problem: utf-8"),
    ("binary codec", b"# coding: hex\nx = 1\n", "m.py: 'hex' is not a text encoding"),
    ("bad utf-16", b"# coding: utf-16\nx = 1\n", "m.py:2: not valid utf-16"),
]


def _python_reads(data: bytes) -> bool:
    try:
        compile(data, "m.py", "exec")
    except (SyntaxError, ValueError):
        return False
    return True


@pytest.mark.parametrize(("name", "data", "expected"), CASES, ids=[c[0] for c in CASES])
def test_decode_source(name, data, expected):
    if _python_reads(data):
        assert decode_source(data, "m.py") == expected
    else:
        with pytest.raises(UndecodableSource) as info:
            decode_source(data, "m.py")
        assert str(info.value).startswith(expected) and "\n" not in str(info.value)


PROFILE = "name: tiny\nrepo: example/tiny\ntargets:\n  - pkg/**/*.py\n"


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    pkg = tmp_path / "src" / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "good.py").write_text("def f(x):\n    raise ValueError('good')\n")
    (tmp_path / "tiny.yaml").write_text(PROFILE)
    return tmp_path


def _extract(tree: Path, files: dict[str, bytes]) -> dict:
    for name, data in files.items():
        (tree / "src" / "pkg" / name).write_bytes(data)
    assert main(["extract", "--path", str(tree / "src"), "--profile", str(tree / "tiny.yaml"),
                 "--out", str(tree / "out"), "--no-cache"]) == 0
    return json.loads((tree / "out" / "catalog.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("data", "diagnostic"),
    [
        (b"# comment\ndef f():\n    raise ValueError('caf\xe9')\n",
         "pkg/bad.py:3: not valid utf-8: byte 0xe9 (invalid continuation byte)"),
        (b"def f():\n    raise ValueError('x')\0\n", "pkg/bad.py:2: source code cannot contain null bytes"),
        (b"# coding: nope\nraise ValueError('x')\n", "pkg/bad.py: unknown encoding: nope"),
    ],
)
def test_file_python_refuses_is_a_diagnostic(tree, data, diagnostic):
    catalog = _extract(tree, {"bad.py": data})
    assert [e["template"] for e in catalog["entries"]] == ["good"]
    assert [d for d in catalog["diagnostics"] if "bad.py" in d] == ["parse error: " + diagnostic]


def test_coding_cookie_text_and_lines(tree):
    data = "# -*- coding: latin-1 -*-\n\ndef f():\n    raise ValueError('caf\u00e9 \u00bd')\n".encode("latin-1")
    catalog = _extract(tree, {"latin.py": data})
    (entry,) = [e for e in catalog["entries"] if e["source"]["path"] == "pkg/latin.py"]
    assert (entry["template"], entry["source"]["line"]) == ("caf\u00e9 \u00bd", 4)
    assert not [d for d in catalog["diagnostics"] if "latin.py" in d]


def test_bom_keeps_lines(tree):
    catalog = _extract(tree, {"bom.py": b"\xef\xbb\xbfdef f():\n    raise ValueError('b\xc3\xb6m')\n"})
    (entry,) = [e for e in catalog["entries"] if e["source"]["path"] == "pkg/bom.py"]
    assert (entry["template"], entry["source"]["line"]) == ("b\u00f6m", 2)


def test_undecodable_declaration_file_is_a_flag_diagnostic(tmp_path):
    from errcat.pipeline import build_flags
    from extractor.profile import parse_profile
    from extractor.source import open_directory

    (tmp_path / "args.py").write_text(
        "import argparse\np = argparse.ArgumentParser()\np.add_argument('--tp', type=int)\n")
    (tmp_path / "environ.py").write_bytes(b"X = 1\n# \xff\n")
    profile = parse_profile({"name": "t", "repo": "e/t", "targets": ["*.py"],
                             "declarations": {"flags": ["args.py"], "env": ["environ.py"]}}, "t")
    model = present(build_flags(open_directory(tmp_path), profile))
    assert [f.option for f in model.flags] == ["--tp"]
    assert [str(d) for d in model.diagnostics] == [
        "environ.py:2: cannot read: not valid utf-8: byte 0xff (invalid start byte)"]
