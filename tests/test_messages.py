"""Message expressions -> templates, checked against what Python actually renders."""
from __future__ import annotations

import ast
import textwrap
import types
from typing import Any

import libcst as cst
import pytest

from extractor.messages import MAX_OPTIONS, Option, build
from extractor.profile import load_profile
from extractor.scope import Scope
from extractor.sites import extract_file
from extractor.templates import Hole, Template, parse_template
from tests.present import present

PROFILE = load_profile("sglang")


def options(src: str) -> list[Option]:
    """Renderings of the last line of `src`; earlier ``name = value`` lines bind names."""
    module = cst.parse_module(textwrap.dedent(src).strip() + "\n")
    scope = Scope(PROFILE, {})
    *prelude, last = module.body
    for line in prelude:
        for small in cst.ensure_type(line, cst.SimpleStatementLine).body:
            assign = cst.ensure_type(small, cst.Assign)
            scope.bind(cst.ensure_type(assign.targets[0].target, cst.Name).value, assign.value)
    return build(cst.ensure_type(cst.ensure_type(last, cst.SimpleStatementLine).body[0], cst.Expr).value, scope)


def texts(src: str) -> list[str]:
    return [o.template.text for o in options(src)]


def site_texts(code: str) -> list[str]:
    """Template and variant templates of the one raise/assert in `code` (through the walker)."""
    (site,) = extract_file("m.py", textwrap.dedent(code), PROFILE).sites
    return [site.template.text] + [v.template.text for v in site.variants]


# ----------------------------------------------------------- expected text, by shape


@pytest.mark.parametrize(
    "src, expected",
    [
        # literals and implicit concatenation
        ('"requires --kv-canary in {log, raise}"', "requires --kv-canary in {{log, raise}}"),
        ('("a "\n "b "\n f"{x} "\n "c")', "a b {x} c"),
        ('"tab\\there"', "tab\there"),
        ('b"raw"', "b'raw'"),
        ('b"a" b"b"', "b'ab'"),
        # f-strings: hole names, conversions, specs
        ('f"got {cfg.speculative_algorithm}"', "got {cfg.speculative_algorithm}"),
        ('f"LoRA {reason}."', "LoRA {reason}."),
        ('f"{x!r} {x!s} {x!a}"', "{x!r} {x!s} {x!a}"),
        ('f"{v:.2f}"', "{v:.2f}"),
        ('f"{v:{width}.{prec}f}"', "{v:{width}.{prec}f}"),
        ('f"{x!r:^{w!r}}"', "{x!r:^{w!r}}"),
        ('f"{x=}"', "x={x!r}"),
        ('f"{ x = }"', " x = {x!r}"),
        ('f"{x=:>5}"', "x={x:>5}"),
        ('f"{x=!s}"', "x={x!s}"),
        ('f"{{lit}} {x} }}"', "{{lit}} {x} }}"),
        ('rf"\\d+{x}\\n"', "\\d+{x}\\n"),
        ('f"a\\tb\\N{EM DASH}{x}\\u00e9"', "a\tb\u2014{x}\u00e9"),
        ('f"""say "{x}"\nnext"""', 'say "{x}"\nnext'),
        ('f"""a\\t"{x}"""', 'a\t"{x}'),  # a triple-quoted chunk that ends in a quote
        ("f'{d[\"k\"]}'", '{d["k"]}'),
        ('f"{d["k"]}"', '{d["k"]}'),  # PEP 701 quote reuse
        ('f"{foo(\n    a,\n    b,\n)}"', "{foo(a, b)}"),
        ('f"{ {1: 2}[k] }"', "{ {1: 2}[k]}"),
        # + concatenation, constants, str()
        ('"n=" + str(n) + "."', "n={n}."),
        ('PREFIX = "p: "\nPREFIX + f"{a}"', "p: {a}"),
        ('a + b', "{a + b}"),  # no text on either side: may be arithmetic
        ('"-" * 3 + a', "---{a}"),
        ('str(5)', "5"),
        ('repr(a)', "{a!r}"),
        ('format(v, ".1f")', "{v:.1f}"),
        # %-formatting
        ('"%s and %r" % (a, b)', "{a} and {b!r}"),
        ('"%(n)s=%(v).2f" % {"n": a, "v": v}', "{a}={v:.2f}"),
        ('"%s" % a', "{a}"),
        ('"100%% of %d" % n', "100% of {n:d}"),
        ('"%-10s|%10s|%.3s" % (a, a, a)', "{a!s:<10}|{a!s:>10}|{a!s:.3}"),
        ('"%5.1f|%-5d|%05d|%+d|%#x|%i" % (v, n, n, n, n, n)', "{v:5.1f}|{n:<5d}|{n:05d}|{n:+d}|{n:#x}|{n:d}"),
        ('"%*d" % (w, n)', "{n:{w}d}"),
        ('"%s %s" % pair', "{pair[0]} {pair[1]}"),
        ('"%(k)s" % mapping', "{mapping['k']}"),
        ('"%s/%d/%r" % ("x", 5, "y")', "x/5/'y'"),
        ('FMT = "%s!"\nFMT % a', "{a}!"),
        ('n % 2', "{n % 2}"),
        # str.format
        ('"{} {}".format(a, b)', "{a} {b}"),
        ('"{0} {1} {0}".format(a, b)', "{a} {b} {a}"),
        ('"{name} {n:>4}".format(name=a, n=n)', "{a} {n:>4}"),
        ('"{0.real} {1[0]} {m[key]}".format(z, xs, m=mapping)', "{z.real} {xs[0]} {mapping['key']}"),
        ('"{0.real}".format(a + b)', "{(a + b).real}"),
        ('"{{x}} {!r}".format(a)', "{{x}} {a!r}"),
        ('"{:{w}.{p}f}".format(v, w=w, p=p)', "{v:{w}.{p}f}"),
        ('"{:{}}".format(a, w)', "{a:{w}}"),
        ('"{}-{!r}-{:>3}".format("x", "y", 7)', "x-'y'-  7"),
        ('"{} {a}".format(*args, a=a)', "{args[0]} {a}"),
        ('"{k}".format(**kw)', "{kw['k']}"),
        ('"{k}".format_map(kw)', "{kw['k']}"),
        ('MSG = "bad {}"\nMSG.format(a)', "bad {a}"),
        # joins, tuples, string methods
        ('" ".join(["a", f"{b}", "c"])', "a {b} c"),
        ('"".join(("x", "y"))', "xy"),
        ('SEP = ", "\nITEMS = ["a", "b"]\nSEP.join(ITEMS)', "a, b"),
        ('", ".join(x for x in xs)', '{", ".join(x for x in xs)}'),
        ('(a, "b")', "({a!r}, 'b')"),
        ('(a,)', "({a!r},)"),
        ('"  x  ".strip()', "x"),
        ('textwrap.dedent("""\n    a\n      b\n""")', "\na\n  b\n"),
        ('inspect.cleandoc("""\n    a\n      b""")', "a\n  b"),
        ('"A-B".lower()', "a-b"),
        ('"a-b".replace("-", "+")', "a+b"),
        ("ascii('\u00e9')", "'\\xe9'"),
        # a handler's call whose arguments it cannot read stays one hole
        ('"x".strip(a)', '{"x".strip(a)}'),
        ('"x".strip("a", "b")', '{"x".strip("a", "b")}'),  # Python raises: wrong arity
        ('str(a, b)', "{str(a, b)}"),
        ('" ".join(xs, key=1)', '{" ".join(xs, key=1)}'),
        ('fmt.format(a)', "{fmt.format(a)}"),
        ('format(v, spec)', "{format(v, spec)}"),
        ('dedent(text)', "{dedent(text)}"),
        # names
        ('msg = "m"\nmsg', "m"),
        ('reason = compute()\nreason', "{reason}"),
        ('(describe(a))', "{describe(a)}"),
    ],
)
def test_template_text(src: str, expected: str) -> None:
    assert texts(src) == [expected]


def test_conditional_message_gives_one_option_per_branch_with_its_condition() -> None:
    yes, no = options('f"on {a}" if flag else "off"')
    assert (yes.template.text, no.template.text) == ("on {a}", "off")
    assert yes.cond != no.cond


def test_too_many_renderings_collapse_to_one_hole() -> None:
    branches = " + ".join(f'("a" if c{i} else "b")' for i in range(5))  # 32 renderings
    assert MAX_OPTIONS < 2**5
    assert texts(branches) == ["{" + branches + "}"]


# ------------------------------------------ property: templates render what Python renders


STUBS: dict[str, Any] = {
    "a": "alpha",
    "b": "b'q\"",
    "x": "ex",
    "y": "é",
    "v": 3.14159,
    "n": 42,
    "w": 8,
    "p": 2,
    "z": 2 + 3j,
    "xs": ["first", "second"],
    "pair": ("p0", "p1"),
    "mapping": {"k": "kv", "key": "keyv"},
    "kw": {"k": "kwv"},
    "args": ("arg0",),
    "d": {"k": "dk"},
    "cfg": types.SimpleNamespace(speculative_algorithm="EAGLE", x=1),
    "reason": "does not support it",
    "flag": True,
    "textwrap": textwrap,
    "describe": lambda v: f"<{v}>",
    "compute": lambda: "computed",
}

PROPERTY_CASES = [
    'f"got {cfg.speculative_algorithm}: {reason}"',
    '("a "\n "b "\n f"{x} "\n "c")',
    'f"{x!r} {y!s} {y!a} {n:>{w}} {v:{w}.{p}f} {v:.2f}"',
    'f"{x=} {n = } {v=:.1f} {x=!s}"',
    'f"{{lit}} {x} }}"',
    'rf"\\d+{x}\\n"',
    'f"a\\tb\\N{EM DASH}{x}\\u00e9"',
    'f"""say "{x}"\nnext"""',
    'f"""a\\t"{x}"""',
    "f'{d[\"k\"]!r:>12}'",
    'f"{xs[0]:^{w}}|{\', \'.join(xs)}"',
    '"n=" + str(n) + "." + repr(a)',
    '"%s and %r" % (a, b)',
    '"%(n)s=%(v).2f" % {"n": a, "v": v}',
    '"%s" % a',
    '"100%% of %d" % n',
    '"%-10s|%10s|%.3s" % (a, a, a)',
    '"%5.1f|%-5d|%05d|%+d|%#x|%x|%e|%i|%c" % (v, n, n, n, n, n, v, n, n)',
    '"%*d|%-*.*f" % (w, n, w, p, v)',
    '"%s %s" % pair',
    '"%(k)s" % mapping',
    '"{} {}".format(a, b)',
    '"{0} {1} {0!r}".format(a, b)',
    '"{name} {n:>4}".format(name=a, n=n)',
    '"{0.real} {1[0]} {m[key]}".format(z, xs, m=mapping)',
    '"{{x}} {!r}".format(a)',
    '"{:{w}.{p}f}".format(v, w=w, p=p)',
    '"{:{}}|".format(a, w)',
    '"{} {a}".format(*args, a=a)',
    '"{k}".format(**kw) + "{k}".format_map(kw)',
    '" ".join(["a", f"{b}", "c"])',
    '(a, "b", n)',
    '(a,)',
    '"yes " + a if flag else f"no {b}"',
    '"yes " + a if not flag else f"no {b}"',
    'format(v, ".1f") + "-" * 3',
    'describe(a) + "!"',
    'b"a" b"b"',
    'str(b"x") + str(None) + repr(1.5)',
]


def render(template: Template, ns: dict[str, Any]) -> str:
    """Fill each hole by evaluating its expression and formatting it as the hole says."""
    out: list[str] = []
    for part in template.parts:
        if isinstance(part, str):
            out.append(part)
            continue
        spec = render(parse_template(part.spec), ns) if part.spec else ""
        conv = f"!{part.conversion}" if part.conversion else ""
        out.append(("{0" + conv + ":" + spec + "}").format(eval(part.expr, ns)))
    return "".join(out)


@pytest.mark.parametrize("src", PROPERTY_CASES)
def test_some_rendering_reproduces_python_exactly(src: str) -> None:
    ns = dict(STUBS)
    message = str(eval(src, ns))  # what str(ValueError(<expr>)) shows
    found = options(src)
    assert any(render(o.template, ns) == message for o in found), [o.template.text for o in found]


@pytest.mark.parametrize("src", PROPERTY_CASES)
def test_matcher_accepts_python_rendering_and_literals_agree(src: str) -> None:
    ns = dict(STUBS)
    message = str(eval(src, ns))
    matching = [o.template for o in options(src) if o.template.match(message) is not None]
    assert matching, message
    literal_chars = sum(len(p) for p in matching[0].parts if isinstance(p, str))
    hole_chars = sum(len(v) for v in present(matching[0].match(message)).values())
    assert literal_chars + hole_chars == len(message)


# --------------------------------------------------- through the walker: message variables


@pytest.mark.parametrize(
    "code, expected",
    [
        ('def f(x):\n    msg = "a"\n    msg += f" {x}"\n    raise ValueError(msg)\n', ["a {x}"]),
        ('MSG = "global failure"\ndef f():\n    raise ValueError(MSG)\n', ["global failure"]),
        ('def f():\n    _, reason = check()\n    raise ValueError(reason)\n', ["{reason}"]),
        ('def f(e):\n    raise AssertionError(str(e)) from e\n', ["{e}"]),
        ('def f(x):\n    assert x, ("bad", x)\n', ["('bad', {x!r})"]),
        ('def f(c):\n    raise ValueError("on" if c else "off")\n', ["on", "on", "off"]),
        ('def f():\n    parts = ["a", "b"]\n    raise ValueError("; ".join(parts))\n', ["a; b"]),
        (  # rows appended under a condition may be absent: the join stays a hole
            'def f(cfg):\n    bad = []\n    if cfg.x:\n        bad.append("x")\n'
            '    if bad:\n        raise ValueError("no: " + "; ".join(bad) + ".")\n',
            ['no: {"; ".join(bad)}.'],
        ),
    ],
)
def test_site_templates(code: str, expected: list[str]) -> None:
    assert site_texts(code) == expected


# ------------------------------------------ independent check on real code (stdlib ast)


def _ast_hole(node: ast.expr) -> str:
    assert isinstance(node, ast.FormattedValue)  # an f-string part that is no literal
    conv = "" if node.conversion == -1 else "!" + chr(node.conversion)
    spec = ""
    if node.format_spec is not None:
        spec = ":" + "".join(
            str(v.value) if isinstance(v, ast.Constant) else _ast_hole(v)
            for v in node.format_spec.values  # type: ignore[attr-defined]
        )
    return "{" + ast.unparse(node.value) + conv + spec + "}"


def ast_template(node: ast.expr) -> str | None:
    """Template text of a "simple" message (literal, implicit concatenation, f-string)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.replace("{", "{{").replace("}", "}}")
    if isinstance(node, ast.JoinedStr):
        return "".join(
            str(v.value).replace("{", "{{").replace("}", "}}") if isinstance(v, ast.Constant) else _ast_hole(v)
            for v in node.values
        )
    return None


def simple_messages(source: str) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(source)):
        msg: ast.expr | None = None
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            args = node.exc.args
            if len(args) == 1 and not node.exc.keywords and not isinstance(args[0], ast.Starred):
                msg = args[0]
        elif isinstance(node, ast.Assert):
            msg = node.msg
        text = ast_template(msg) if msg is not None else None
        if text is not None:
            assert isinstance(node, (ast.Raise, ast.Assert))
            found.append((node.lineno, text))
    return found


def same_template(ours: str, theirs: str) -> bool:
    """Equal text, or equal up to how the hole expressions are spelled (quotes, spacing)."""
    if ours == theirs:
        return True
    a, b = parse_template(ours), parse_template(theirs)
    if len(a.parts) != len(b.parts):
        return False
    for x, y in zip(a.parts, b.parts, strict=True):
        if isinstance(x, Hole) and isinstance(y, Hole):
            if (x.conversion, x.spec) != (y.conversion, y.spec):
                return False
            if ast.unparse(ast.parse(x.expr, mode="eval")) != ast.unparse(ast.parse(y.expr, mode="eval")):
                return False
        elif x != y:
            return False
    return True


@pytest.mark.network
@pytest.mark.parametrize("version", ["0.5.18", "0.5.23"])
def test_simple_messages_equal_an_independent_ast_rendering(release, version: str) -> None:
    snapshot = release(version)
    compared, mismatches = 0, []
    for path in snapshot.glob(PROFILE.targets):
        source = snapshot.text(path)
        by_line: dict[int, list[str]] = {}
        for site in extract_file(path, source, PROFILE).sites:
            by_line.setdefault(site.line, []).append(site.template.text)
        for line, expected in simple_messages(source):
            compared += 1
            ours = by_line.get(line, [])
            if not any(same_template(t, expected) for t in ours):
                mismatches.append(f"{path}:{line}: ast {expected!r} errcat {ours!r}")
    assert compared > 300
    assert mismatches == []


# ------------------------------------------------------- long ``+`` chains: linear work

SUM_PARTS = {  # part i of a chain, and the chain's expected rendering
    "f-string": ("f'{{a{i}}}'", lambda n: ["{" + " + ".join(f"f'{{a{i}}}'" for i in range(n)) + "}"]),
    "str()": ("str(a{i})", lambda n: ["{" + " + ".join(f"str(a{i})" for i in range(n)) + "}"]),
    "name": ("a{i}", lambda n: ["{" + " + ".join(f"a{i}" for i in range(n)) + "}"]),
    "text": ("'x' + f'{{a{i}}}'", lambda n: ["".join(f"x{{a{i}}}" for i in range(n))]),
    "ternaries": ("('x' if c{i} else y{i})", None),
}


def _sum_work(src: str, monkeypatch: pytest.MonkeyPatch) -> tuple[list[Option], int]:
    """Options of `src`, and the rendering work done: characters of code generated plus
    calls of the fast renderer (which walks a subtree without generating code)."""
    from extractor import cstutil

    work = [0]
    generate, fast = cst.Module.code_for_node, cstutil._fast

    def counted_generate(self: cst.Module, node: cst.CSTNode) -> str:
        text = generate(self, node)
        work[0] += len(text)
        return text

    def counted_fast(node: cst.CSTNode) -> str | None:
        work[0] += 1
        return fast(node)

    with monkeypatch.context() as patch:
        patch.setattr(cst.Module, "code_for_node", counted_generate)
        patch.setattr(cstutil, "_fast", counted_fast)
        found = options(src)
    return found, work[0]


@pytest.mark.parametrize("shape", SUM_PARTS)
def test_long_sums_render_each_part_once(shape: str, monkeypatch: pytest.MonkeyPatch) -> None:
    part, _ = SUM_PARTS[shape]
    def chain(n: int) -> str:
        return " + ".join(part.format(i=i) for i in range(n))

    (_, small), (_, large) = _sum_work(chain(100), monkeypatch), _sum_work(chain(200), monkeypatch)
    assert large <= 2.5 * max(small, 1)  # twice the parts, about twice the work (quadratic: 4x)


@pytest.mark.parametrize("shape", [s for s, (_, expected) in SUM_PARTS.items() if expected])
def test_a_sum_of_2000_parts_renders_right(shape: str) -> None:
    part, expected = SUM_PARTS[shape]
    assert expected is not None
    assert texts(" + ".join(part.format(i=i) for i in range(2000))) == expected(2000)


# ------------------------------------------- integers past Python's int/str digit limit

HUGE = "1" * 5000  # CPython compiles it; int("...") and str(...) of it raise ValueError
HUGE_HEX = "0x" + "f" * 5000  # int() reads it, but its decimal form is past the limit


@pytest.mark.parametrize("code, expected", [
    (f"def f(x):\n    if x == {HUGE}:\n        raise ValueError('big')\n", ["big"]),
    (f"def f(x):\n    if x > -{HUGE_HEX}:\n        raise ValueError('big')\n", ["big"]),
    (f"def f(x):\n    raise ValueError('n=%d' % {HUGE})\n", [f"n={{{HUGE}:d}}"]),
    (f"def f(x):\n    raise ValueError('n=' + str({HUGE_HEX}))\n", [f"n={{{HUGE_HEX}}}"]),
    (f"def f(x):\n    raise ValueError(str(({HUGE}, 1)))\n", [f"({{{HUGE}!r}}, 1)"]),
    (f"def f(x):\n    raise ValueError('-' * {HUGE})\n", [f"{{'-' * {HUGE}}}"]),
])
def test_a_huge_integer_literal_is_an_unknown_value(code: str, expected: list[str]) -> None:
    assert site_texts(code) == expected
