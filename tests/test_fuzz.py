"""Fuzz: random nesting, odd syntax and odd text never crash the extractor or lose a file.

For every generated file: the extractor returns (no exception, no dead process), and a
file with a raise statement that Python compiles yields a site or a diagnostic, never
neither. Examples run in a long-lived child process, so a segfault fails the example
that caused it instead of killing pytest. Derandomized: CI sees the same examples.
"""
from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]
FUZZ = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# ------------------------------------------------------------------ generated files

_IDENTS = ["x", "ñame", "变量", "ǅx", "𝑥", "_", "__x", "Σ", "a1"]  # noqa: RUF001, RUF003 - 𝑥 is x after NFKC
_RAISES = [
    "raise ValueError('v')", "raise ValueError(f'{x!r:>{w}}')", "raise", "raise E from None",
    "raise (E if x else F)('m')", "raise E(*a, **k)", "assert x, (y := 1)", "raise ValueError('é\\u00e9\\N{BULLET}')",
    "raise ValueError(f\"{f'{x}'}\")", "raise ValueError(rb'\\x'.decode())", "raise ValueError('a' 'b' f'{x}')",
    "raise ValueError('%s' % (x,))", "raise ValueError('{}'.format(x))", "raise ValueError('''\n  m\n''')",
]


def _nest(kind: str, n: int, inner: str) -> str:
    """`inner` nested `n` times in a shape of `kind`."""
    shapes = {
        "(": ("(" * n, ")" * n), "[": ("[" * n, "]" * n), "{": ("{" * n, "}" * n),
        "-": ("-" * n, ""), "not": ("not " * n, ""), "~": ("~" * n, ""), "await": ("await " * n, ""),
        "lambda": ("(" + "lambda: " * n, ")" + "()" * 0), "attr": ("", ".a" * n), "call": ("", "()" * n),
        "index": ("", "[0]" * n), "ternary": ("", " if x else y" * n), "power": ("", " ** x" * n),
    }
    head, tail = shapes[kind]
    return head + inner + tail


@st.composite
def conditions(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["nest", "chain", "walrus", "plain", "compare"]))
    x = draw(st.sampled_from(_IDENTS))
    if kind == "nest":
        shape = draw(st.sampled_from(
            ["(", "[", "-", "not", "~", "lambda", "attr", "call", "index", "ternary", "power"]))
        limit = 260 if shape in "([" else 1200
        return _nest(shape, draw(st.integers(1, limit)), x)
    if kind == "chain":
        n = draw(st.integers(2, 3000))
        ops = draw(st.lists(st.sampled_from([" and ", " or "]), min_size=1, max_size=3))
        return "".join(f"{x}{i}{ops[i % len(ops)]}" for i in range(n - 1)) + f"{x}{n}"
    if kind == "walrus":
        return f"(n := len({x})) > 1"
    if kind == "compare":
        return " < ".join([x] * draw(st.integers(2, 500)))
    return x


@st.composite
def statements(draw: st.DrawFn) -> str:
    """One top-level statement with (usually) a raise in it."""
    cond, raise_ = draw(conditions()), draw(st.sampled_from(_RAISES))
    form = draw(st.sampled_from(["if", "def", "decorated", "match", "async", "try", "class", "with", "while", "elif"]))
    if form == "if":
        return f"if {cond}:\n    {raise_}\n"
    if form == "def":
        return f"def f(a, /, b=lambda: 1, *c, d: 'T' = 2, **e):\n    if {cond}:\n        {raise_}\n"
    if form == "decorated":
        decorators = draw(st.lists(st.sampled_from(["@a", "@a.b(c)", "@(lambda f: f)", "@x[0]", "@a(*b)"]),
                                   max_size=30))
        return "".join(f"{d}\n" for d in decorators) + f"def g(cfg):\n    if {cond}:\n        {raise_}\n"
    if form == "match":
        return (f"match cfg.mode:\n    case 'a' | 'b' if {cond}:\n        {raise_}\n"
                f"    case {{'k': [1, *rest]}} | Point(x=0):\n        pass\n    case _:\n        {raise_}\n")
    if form == "async":
        return f"async def h():\n    async with a as b, c:\n        if {cond}:\n            {raise_}\n"
    if form == "try":
        return (f"try:\n    pass\nexcept* (OSError, ValueError) as eg:\n"
                f"    if {cond}:\n        {raise_}\nfinally:\n    pass\n")
    if form == "class":
        return f"class K(B, metaclass=M):\n    def m(self):\n        if {cond}:\n            {raise_}\n"
    if form == "with":
        return f"with (open(p) as f, g()):\n    if {cond}:\n        {raise_}\n"
    if form == "while":
        return f"while {cond}:\n    {raise_}\nelse:\n    {raise_}\n"
    return "if a == 0:\n    pass\n" + "".join(f"elif a == {i}:\n    pass\n" for i in range(draw(st.integers(1, 300)))) \
        + f"else:\n    if {cond}:\n        {raise_}\n"


@st.composite
def odd_text(draw: st.DrawFn, text: str) -> str:
    """`text` with odd line endings, a BOM, a coding cookie, form feeds, or random damage."""
    change = draw(st.sampled_from(["none", "crlf", "cr", "bom", "cookie", "formfeed", "tabs", "insert", "cut", "nul"]))
    if change == "crlf":
        return text.replace("\n", "\r\n")
    if change == "cr":
        return text.replace("\n", "\r")
    if change == "bom":
        return "\ufeff" + text
    if change == "cookie":
        return "# -*- coding: latin-1 -*-\n" + text
    if change == "formfeed":
        return "\f" + text.replace("\n", "\n\f")
    if change == "tabs":
        return text.replace("    ", "\t")
    if change in ("insert", "cut", "nul"):
        at = draw(st.integers(0, len(text)))
        if change == "cut":
            return text[:at]
        extra = "\0" if change == "nul" else draw(st.text(min_size=1, max_size=3))  # surrogates included
        return text[:at] + extra + text[at:]
    return text


@st.composite
def files(draw: st.DrawFn) -> str:
    text = "".join(draw(st.lists(statements(), min_size=1, max_size=3)))
    return draw(odd_text(text))


def compiles_with_raise(text: str) -> bool:
    """Would Python compile this file, and does it hold a raise or assert statement?"""
    import ast

    try:
        tree = ast.parse(text)
        compile(tree, "<fuzz>", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return any(isinstance(n, (ast.Raise, ast.Assert)) for n in ast.walk(tree))


# ------------------------------------------------------------------ a child that analyses

_CHILD = """
import json, sys
from extractor.profile import load_profile
from extractor.records import FileSites
from extractor.sites import extract_file
profile = load_profile("sglang")
for line in sys.stdin:
    fs = extract_file("fuzz.py", json.loads(line), profile)
    back = FileSites.from_dict(json.loads(json.dumps(fs.as_dict())))  # as the parent process reads it
    print(json.dumps([len(back.sites), back.parse_error]), flush=True)
"""


class Child:
    """A child process running extract_file on texts sent to it; restarted after a death."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[str] | None = None

    def extract(self, text: str) -> tuple[int, str | None]:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = subprocess.Popen([sys.executable, "-c", _CHILD], cwd=ROOT, text=True,
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(text) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            code = self.proc.wait()
            self.proc = None
            raise AssertionError(f"extract_file killed its process (exit {code})")
        sites, error = json.loads(line)
        return sites, error

    def close(self) -> None:
        if self.proc is not None:
            self.proc.stdin.close()  # type: ignore[union-attr]
            self.proc.wait()


@pytest.fixture(scope="module")
def child() -> Iterator[Child]:
    worker = Child()
    yield worker
    worker.close()


@FUZZ
@given(text=files())
def test_extract_file_never_crashes_nor_loses_a_file_silently(child: Child, text: str) -> None:
    sites, error = child.extract(text)
    if compiles_with_raise(text):
        assert sites or error, "a file Python compiles, with a raise, gave neither a site nor a diagnostic"


@FUZZ
@given(text=st.text(max_size=300))
def test_any_text_at_all_is_a_result(child: Child, text: str) -> None:
    child.extract(text)


# ------------------------------------------------------------------ the pipeline

_PROFILE = "name: fuzz\nrepo: example/fuzz\ntargets:\n  - pkg/**/*.py\n"


@settings(max_examples=3, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture])
@given(texts=st.lists(files(), min_size=2, max_size=3), junk=st.binary(max_size=200))
def test_the_pipeline_catalogs_or_reports_every_file(tmp_path_factory, texts: list[str], junk: bytes) -> None:
    root = tmp_path_factory.mktemp("fuzz")
    pkg = root / "src" / "pkg"
    pkg.mkdir(parents=True)
    written: dict[str, str] = {}
    for i, text in enumerate(texts):
        try:
            data = text.encode("latin-1" if text.startswith("# -*- coding: latin-1") else "utf-8")
        except UnicodeEncodeError:  # surrogates, or beyond latin-1: as bytes Python refuses
            data = text.encode("utf-8", "surrogatepass")
        (pkg / f"f{i}.py").write_bytes(data)
        written[f"pkg/f{i}.py"] = text
    (pkg / "junk.py").write_bytes(b"raise ValueError('junk')\n" + junk)
    (root / "p.yaml").write_text(_PROFILE)
    proc = subprocess.run(
        [sys.executable, "-m", "errcat", "extract", "--path", str(root / "src"), "--profile", str(root / "p.yaml"),
         "--out", str(root / "out"), "--jobs", "2", "--no-cache"],
        capture_output=True, text=True, cwd=ROOT, check=False)
    assert proc.returncode in (0, 3) and "Traceback" not in proc.stderr, (proc.returncode, proc.stderr[-2000:])
    catalog = json.loads((root / "out" / "catalog.json").read_text())
    listed = {e["source"]["path"] for e in catalog["entries"]}
    for path, text in written.items():
        if compiles_with_raise(text) and "raise ValueError('v')" in text:
            assert path in listed or any(path in d for d in catalog["diagnostics"]), path
