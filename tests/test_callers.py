"""extractor.callers: a function's sites fire only when something calls it."""
from __future__ import annotations

import textwrap

import pytest

from analyzers.entries import site_trigger
from extractor.callers import MAX_DEPTH, CallGraph, with_caller_guards
from extractor.ir import FALSE, Apply, Const, Ref, RefKind, refs, unknowns
from extractor.profile import load_profile
from extractor.records import FileSites, GuardOrigin
from extractor.sites import PARAMETER, extract_file

PROFILE = load_profile("sglang")


def files(**sources: str) -> list[FileSites]:
    """One analysed file per keyword: ``pkg__mod="..."`` is pkg/mod.py."""
    return [
        extract_file(name.replace("__", "/") + ".py", textwrap.dedent(src), PROFILE)
        for name, src in sources.items()
    ]


def graph(**sources: str) -> CallGraph:
    return CallGraph(files(**sources))


@pytest.mark.parametrize(
    "source, target",
    [
        # a module-level function of the same file
        ("def leaf(cfg): pass\ndef entry(cfg):\n    leaf(cfg)\n", ("m.py", "leaf")),
        # a nested function shadows a module-level one of the same name
        ("def leaf(cfg): pass\ndef entry(cfg):\n    def leaf(c): pass\n    leaf(cfg)\n", ("m.py", "entry.leaf")),
        # self.method() is the method of the caller's class
        ("class A:\n    def leaf(self): pass\n    def entry(self):\n        self.leaf()\n", ("m.py", "A.leaf")),
        # Cls.m() for a static or class method of a class of this file
        ("class A:\n    @staticmethod\n    def leaf(x): pass\ndef entry(cfg):\n    A.leaf(cfg.x)\n",
         ("m.py", "A.leaf")),
        ("class A:\n    @classmethod\n    def leaf(cls, x): pass\ndef entry(cfg):\n    A.leaf(cfg.x)\n",
         ("m.py", "A.leaf")),
    ],
)
def test_call_sites_resolve_to_their_function(source: str, target: tuple[str, str]) -> None:
    (fs,) = files(m=source)
    (call,) = [c for c in fs.calls if c.caller.endswith("entry")]
    assert CallGraph([fs]).resolve("m.py", call) == [target]


def test_an_imported_function_resolves_to_the_file_it_comes_from() -> None:
    g = graph(
        pkg__a="def check(cfg): pass\n",
        pkg__b="def check(cfg): pass\n",
        pkg__hook="from pkg.b import check\ndef entry(cfg):\n    check(cfg)\n",
    )
    assert (list(g.callers.get(("pkg/a.py", "check"), [])), len(g.callers[("pkg/b.py", "check")])) == ([], 1)


def test_a_function_imported_from_a_package_resolves_to_its_init_module() -> None:
    package = extract_file("pkg/bcg/__init__.py", "def supports(cfg): pass\n", PROFILE)
    g = CallGraph([package, *files(pkg__other="def supports(cfg): pass\n",
                                   pkg__hook="from pkg.bcg import supports\ndef entry(cfg):\n    supports(cfg)\n")])
    assert (len(g.callers.get(("pkg/bcg/__init__.py", "supports"), [])),
            len(g.callers.get(("pkg/other.py", "supports"), []))) == (1, 0)


@pytest.mark.parametrize(
    "method, resolved",
    [
        ("@staticmethod\n    def parse(addr): pass", True),
        ("@classmethod\n    def parse(cls, addr): pass", True),
        # an instance method called through its class takes the object first: not bound
        ("def parse(self, addr): pass", False),
    ],
)
def test_a_method_called_through_an_imported_class(method: str, resolved: bool) -> None:
    g = graph(
        pkg__net=f"class Address:\n    {method}\n",
        pkg__hook="from pkg.net import Address\ndef entry(cfg):\n    Address.parse(cfg.addr)\n",
    )
    assert bool(g.callers.get(("pkg/net.py", "Address.parse"))) is resolved
    if resolved:
        bound = g.bindings(("pkg/net.py", "Address.parse"))
        assert {ref.name: value for ref, value in bound.items()} == {"addr": Ref(RefKind.FLAG, "addr", "cfg.addr")}


def test_an_ambiguous_name_resolves_to_nothing() -> None:
    g = graph(a="def check(cfg): pass\n", b="def check(cfg): pass\n", c="def entry(cfg):\n    check(cfg)\n")
    assert not g.callers


def test_the_guard_is_the_condition_at_the_call_site() -> None:
    g = graph(m="def leaf(cfg): pass\ndef entry(cfg):\n    if cfg.b:\n        leaf(cfg)\n")
    found = g.guard(("m.py", "leaf"))
    assert found is not None and found.text == "called from entry when cfg.b"


def test_nobody_calls_it_means_no_guard() -> None:
    assert graph(m="def leaf(cfg): pass\n").guard(("m.py", "leaf")) is None


def test_several_call_sites_are_alternatives() -> None:
    g = graph(m="def leaf(cfg): pass\ndef a(cfg):\n    if cfg.x:\n        leaf(cfg)\ndef b(cfg):\n    leaf(cfg)\n")
    found = g.guard(("m.py", "leaf"))
    assert found is not None and found.text == "called from a when cfg.x; or called from b when always"


def test_the_guards_of_callers_callers_are_followed_up_to_max_depth() -> None:
    chain = "def f0(cfg): pass\n" + "".join(
        f"def f{i}(cfg):\n    if cfg.c{i}:\n        f{i - 1}(cfg)\n" for i in range(1, MAX_DEPTH + 3)
    )
    found = graph(m=chain).guard(("m.py", "f0"))
    assert found is not None
    assert [f"cfg.c{i}" in found.text for i in range(1, MAX_DEPTH + 3)] == [
        i <= MAX_DEPTH for i in range(1, MAX_DEPTH + 3)]


def test_a_call_cycle_terminates() -> None:
    g = graph(m="def a(cfg):\n    if cfg.x:\n        b(cfg)\ndef b(cfg):\n    if cfg.y:\n        a(cfg)\n")
    found = g.guard(("m.py", "a"))
    assert found is not None and found.text == "called from b when cfg.y, itself called from a when cfg.x"


def test_earlier_raises_in_the_caller_are_not_part_of_the_guard() -> None:
    g = graph(m="def leaf(cfg): pass\ndef entry(cfg):\n    if cfg.x:\n        raise ValueError('x')\n    leaf(cfg)\n")
    found = g.guard(("m.py", "leaf"))
    assert found is not None and found.text == "called from entry when always"


@pytest.mark.parametrize(
    "calls, bound",
    [
        (["check(cfg.tp_size)", "check(cfg.tp_size)"], {"tp": Ref(RefKind.FLAG, "tp_size", "cfg.tp_size")}),
        (["check(tp=4)"], {"tp": Const(4)}),
        (["check(cfg.a)", "check(cfg.b)"], {}),  # different values: stays a parameter
        (["check(local)"], {}),  # not a value the call site can name
        # what reads no local is read as written: module constants, env registry reads
        (["check(SIZES | {8})"], {"tp": Apply("|", (Const((1, 2)), Const((8,))), "SIZES | {8}")}),
        (["check(envs.SGLANG_X.get())"], {"tp": Ref(RefKind.ENV, "SGLANG_X", "envs.SGLANG_X.get()")}),
        (["check(local + 1)"], {}),
    ],
)
def test_parameters_bound_to_what_every_call_site_passes(calls: list[str], bound: dict[str, object]) -> None:
    body = "".join(f"    {c}\n" for c in calls)
    g = graph(m=f"SIZES = {{1, 2}}\ndef check(tp): pass\ndef entry(cfg):\n    local = f()\n{body}")
    assert {ref.name: value for ref, value in g.bindings(("m.py", "check")).items()} == bound
    assert all(ref.text == f"{PARAMETER}{ref.name}" for ref in g.bindings(("m.py", "check")))


def test_self_is_not_a_bound_parameter_of_a_method() -> None:
    g = graph(m="class A:\n    def check(self, tp): pass\n    def entry(self):\n        self.check(4)\n")
    assert {ref.name: value for ref, value in g.bindings(("m.py", "A.check")).items()} == {"tp": Const(4)}


def test_imported_literal_constants_are_known() -> None:
    g = graph(pkg__c="LIMIT = 8\nOTHER = f()\n", pkg__h="from pkg.c import LIMIT, OTHER\n")
    assert g.imported_constants("pkg/h.py") == {Ref(RefKind.UNKNOWN, "LIMIT", "LIMIT"): Const(8)}


def test_with_caller_guards_puts_the_caller_guard_first_and_shifts_prior_runs() -> None:
    (fs,) = with_caller_guards(files(m="""
        def leaf(cfg):
            assert cfg.a
            if cfg.b:
                raise ValueError("x")
        def entry(cfg):
            if cfg.c:
                leaf(cfg)
    """))
    site = fs.sites[1]
    assert [(g.origin, g.text) for g in site.guards] == [
        (GuardOrigin.CALLER, "called from entry when cfg.c"),
        (GuardOrigin.PRIOR_RAISE, "cfg.a"),
        (GuardOrigin.IF, "cfg.b"),
    ]


BUCKETS = """
    def rule(arg_name, buckets):
        if not buckets:
            return
        assert buckets[0] in ("a", "b"), f"{arg_name} bad rule"
        if buckets[0] == "a":
            raise ValueError(f"{arg_name} needs more")
    def entry(cfg):
        rule("--x", cfg.x)
        if cfg.on:
            rule("--y", cfg.y)
"""


def _site(fs: FileSites, line: int):
    return next(s for s in fs.sites if s.line == line)


def test_call_sites_binding_a_parameter_differently_give_one_variant_each() -> None:
    (fs,) = with_caller_guards(files(m=BUCKETS))
    site = _site(fs, 7)
    assert [(dict(v.values), v.template.text) for v in site.variants] == [
        ({"arg_name": "--x"}, "--x needs more"), ({"arg_name": "--y"}, "--y needs more")]
    first, second = (v.guards for v in site.variants)
    assert first[0].origin is GuardOrigin.CALLER and "cfg.on" not in first[0].text
    assert second[0].text == "called from entry when cfg.on"
    assert not any(unknowns(g.expr) for v in site.variants for g in v.guards)
    read = {r.name for g in second for r in refs(g.expr)}
    assert {"y", "on"} <= read and "x" not in read  # each row reads its own flag


START_SOURCE = """
def prepare(argv):
    check(argv)
def check(cfg): parse(cfg.a)
class Ports:
    def init_new(cfg): parse(cfg.b)
def parse(addr): later(addr)
def later(x): pass
def start(cfg): Ports.init_new(cfg)
"""


@pytest.mark.parametrize("points", [
    (("pkg/m.py", "prepare"), ("pkg/m.py", "start")),
    (("pkg/m.py", "prepare"),),  # the launcher's own code, which calls it, is not read
])
@pytest.mark.parametrize(("function", "expected"), [
    ("Ports.init_new", "start"),  # what the launcher runs after validation
    ("later", "true"), ("parse", "true"),  # validation calls them too
])
def test_what_only_the_server_start_reaches_is_at_the_start(points, function: str, expected: str) -> None:
    from extractor.callers import EntryPoints, reachability

    found = reachability(files(pkg__m=START_SOURCE), (), EntryPoints(points, after=frozenset({"Ports.init_new"})))
    assert found[("pkg/m.py", function)] == expected


@pytest.mark.parametrize(("call", "expected"), [
    ("pkg_version.parse(cfg.v)", "unknown"),  # a module errcat does not read: its own parse (the method's
    # reach is then what any method nothing resolved reaches has)
    ("obj.parse(cfg.v)", "true"),  # an object: the one class analysed that defines parse
])
def test_a_method_named_like_one_class_s_is_that_class_s_unless_its_module_is_not_read(call, expected) -> None:
    from extractor.callers import EntryPoints, reachability

    source = (f"from packaging import version as pkg_version\ndef prepare(cfg):\n    {call}\n"
              "class Address:\n    def parse(addr): pass\n")
    found = reachability(files(pkg__m=source), (), EntryPoints((("pkg/m.py", "prepare"),)))
    assert found[("pkg/m.py", "Address.parse")] == expected


def test_what_only_the_server_start_calls_is_at_the_start_too() -> None:
    from extractor.callers import EntryPoints, reachability

    source = START_SOURCE.replace("def check(cfg): parse(cfg.a)", "def check(cfg): pass")
    found = reachability(files(pkg__m=source), (), EntryPoints((("pkg/m.py", "prepare"),),
                                                               after=frozenset({"Ports.init_new"})))
    assert found[("pkg/m.py", "parse")] == found[("pkg/m.py", "later")] == "start"


def test_a_row_of_one_binding_names_the_functions_whose_calls_pass_it() -> None:
    (fs,) = with_caller_guards(files(m=BUCKETS.replace("if cfg.on:\n            rule", "if cfg.on:\n            other")
                                     + "    def other(cfg, v):\n        rule('--y', v)\n"))
    assert sorted(v.callers for v in _site(fs, 7).variants) == [(("m.py", "entry"),), (("m.py", "other"),)]


def test_the_entry_trigger_is_the_or_of_the_bindings_and_keeps_the_listing() -> None:
    (fs,) = with_caller_guards(files(m=BUCKETS))
    site = _site(fs, 7)
    assert not unknowns(site_trigger(site))  # earlier raises reading the parameter are the rows'
    assert [g.text for g in site.guards] == [  # the parameter's guards are still listed
        "called from entry when always; or called from entry when cfg.on", "not (not buckets)",
        "buckets[0] in (\"a\", \"b\")",
        "buckets[0] == \"a\""]
    caller = site.direct[0].expr
    assert {r.name for r in refs(caller)} == {"x", "y", "on"}


def test_what_reaching_a_check_needs_is_said_per_binding_not_of_the_parameter() -> None:
    """The earlier assert on ``buckets[0]`` (line 5) is passed as each call site binds
    ``buckets``: of --x, or of --y where ``cfg.on``; no `parameter buckets` is left."""
    from analyzers.entries import site_reach
    (fs,) = with_caller_guards(files(m=BUCKETS))
    reach, _ = site_reach(_site(fs, 7))
    assert [line for line, _ in reach] == [5]
    (_, passes), = reach
    assert not unknowns(passes.expr) and {r.name for r in refs(passes.expr)} == {"x", "y", "on"}


@pytest.mark.parametrize(
    "calls, variants",
    [
        (["rule('--x', cfg.x)", "rule('--x', cfg.x)"], 0),  # one binding: substituted as before
        (["rule('--x', cfg.x)", "rule('--y', local)"], 2),  # the message still differs; buckets stays unknown
        (["rule(cfg.n, cfg.x)", "rule(cfg.m, cfg.y)"], 2),  # config reads: no hole text, guards differ
        ([f"rule('--{i}', cfg.x{i})" for i in range(9)], 0),  # more bindings than MAX_BINDINGS
    ],
)
def test_how_many_variants_the_bindings_give(calls: list[str], variants: int) -> None:
    body = "".join(f"    {c}\n" for c in calls)
    source = textwrap.dedent(BUCKETS).split("def entry")[0] + f"def entry(cfg):\n    local = f()\n{body}"
    (fs,) = with_caller_guards(files(m=source))
    assert len(_site(fs, 7).variants) == variants


def test_a_call_site_passing_an_option_is_a_variant_beside_callers_passing_unknowns() -> None:
    """``parse(cfg.addr)`` in one caller, ``parse(endpoint[6:])`` in two others: the check
    reads `--addr` from the first and stays the parameter (not a caller's local) from the rest."""
    (fs,) = with_caller_guards(files(m="""
        def parse(addr):
            if ":" not in addr:
                raise ValueError("no port")
        def entry(cfg):
            parse(cfg.addr)
        def other(endpoint):
            parse(endpoint[6:])
        def third(endpoint):
            parse(endpoint[7:])
    """))
    (site,) = fs.sites
    read = [sorted(r.text for g in v.guards for r in refs(g.expr)) for v in site.variants]
    assert read == [["cfg.addr"], [f"{PARAMETER}addr"]]


def test_table_rows_are_split_per_binding() -> None:
    (fs,) = with_caller_guards(files(m="""
        def check(name, value, cfg):
            for cond, why in ((cfg.a, "a"), (cfg.b, "b")):
                if cond and value:
                    raise ValueError(f"{name}: {why}")
        def entry(cfg):
            check("--x", cfg.x, cfg)
            check("--y", cfg.y, cfg)
    """))
    (site,) = fs.sites
    assert [v.template.text for v in site.variants] == ["--x: a", "--x: b", "--y: a", "--y: b"]


@pytest.mark.parametrize(
    "source, unknown",
    [
        ("def _private(cfg):\n    cfg.a = 1\n", True),  # called from code not analysed: when is unknown
        ("def public(cfg):\n    cfg.a = 1\n", False),  # an entry point
        ("def _private(cfg):\n    cfg.a = 1\ndef entry(cfg):\n    _private(cfg)\n", False),
        ("@register_post_process\ndef _private(cfg):\n    cfg.a = 1\n", False),  # a registry runs it
    ],
)
def test_adjustments_of_uncalled_private_functions_run_under_an_unknown(source: str, unknown: bool) -> None:
    (fs,) = with_caller_guards(files(m=source))
    assert any(unknowns(g.expr) for g in fs.adjustments[0].guards) is unknown


@pytest.mark.parametrize(
    "source",
    [
        "def leaf(cfg): return {}\ndef entry(cfg):\n    out = {}\n    if cfg.x:\n        out.update(leaf(cfg))\n",
        "def leaf(cfg): return {}\ndef entry(cfg):\n    if cfg.x:\n        return leaf(cfg).get('a')\n",
    ],
)
def test_calls_inside_arguments_and_callee_chains_are_call_sites(source: str) -> None:
    g = graph(m=source)
    found = g.guard(("m.py", "leaf"))
    assert found is not None and "cfg.x" in found.text


def test_caller_files_give_their_guards_without_sites_of_their_own() -> None:
    target = files(pkg__hook="def _handle(cfg):\n    raise ValueError('x')\n")
    caller = files(pkg__disp="from pkg.hook import _handle\ndef run(cfg):\n    if cfg.algo == 'A':\n"
                              "        _handle(cfg)\n")
    (fs,) = with_caller_guards(target, caller)
    assert fs.sites[0].guards[0].origin is GuardOrigin.CALLER and "cfg.algo" in fs.sites[0].guards[0].text


REACH_SOURCE = """
def prepare(argv):
    run_hook(hook, argv)
    helper(argv)
def run_hook(fn, a): fn(a)
def hook(cfg): pass
def helper(cfg): pass
def retired(): raise RuntimeError('retired')
def called_by_name(): pass
def entry2(x):
    x.called_by_name()
class View:
    def __setattr__(self, n, v): raise AttributeError('read-only')
class Other:
    def method(self): pass
def collect(sources): pass
def shared(): pass
def registered(cfg): shared()
TABLE = collect([View, Other])
run_hook(registered, None)
shared()
"""


@pytest.mark.parametrize(
    "function, expected",
    [
        ("prepare", "true"), ("hook", "true"),  # an entry point; a function handed to a call
        ("helper", "true"), ("retired", "false"),  # called; nothing reaches it
        ("called_by_name", "unknown"),  # named like a call errcat cannot resolve
        ("View.__setattr__", "false"),  # a read-only view's write hook
        ("Other.method", "unknown"),  # a method may run through an object or a property
        ("collect", "import"),  # called by module-level code only: before any argument is read
        ("registered", "true"), ("shared", "true"),  # a function kept as a value may run at launch
    ],
)
def test_reachability_from_the_entry_points(function: str, expected: str) -> None:
    from extractor.callers import EntryPoints, reachability

    found = reachability(files(pkg__m=REACH_SOURCE), (),
                         EntryPoints((("pkg/m.py", "prepare"),), views=frozenset({"View"})))
    assert found[("pkg/m.py", function)] == expected


def test_a_call_from_a_private_function_nothing_calls_runs_only_maybe() -> None:
    """A wrapper nobody analysed calls (a retired method, or one called from code we do not
    read) does not make its callee run on every launch."""
    (fs,) = files(m="class A:\n    def _old(self):\n        leaf(self)\n\ndef leaf(cfg):\n    raise ValueError('x')\n")
    found = CallGraph([fs]).guard(("m.py", "leaf"))
    assert found is not None and [u.text for u in unknowns(found.expr)] == [
        "A._old runs (called from outside the analysed files)"]


@pytest.mark.parametrize(
    "names, texts, once",
    [
        ({"_f"}, {"a.py": "def _f(): pass\n"}, {"_f"}),  # only its definition
        ({"_f"}, {"a.py": "def _f(): pass\n", "b.py": "from a import _f\n"}, set()),  # imported elsewhere
        ({"_f"}, {"a.py": "def _f(): pass\nHOOKS = [_f]\n"}, set()),  # named in a table
        ({"_f"}, {"a.py": "def _f(): pass\n# see _f_old and _f2\n"}, {"_f"}),  # other words are not it
        ({"_f"}, {"a.py": "def _f(): pass\n", "b.py": "getattr(m, '_f')()\n"}, set()),  # a string may be a use
        (set(), {"a.py": "def _f(): pass\n"}, set()),
    ],
)
def test_written_once_finds_names_only_their_definition_writes(
        names: set[str], texts: dict[str, str], once: set[str]) -> None:
    from extractor.callers import written_once

    assert written_once(names, texts) == once


def test_a_call_from_a_private_function_nothing_names_never_runs() -> None:
    """Where the program's whole source names a private wrapper only at its definition, its
    calls never run: they add nothing to the callee's guard (a retired compatibility shim)."""
    source = "def _shim(cfg):\n    leaf(cfg)\n\ndef leaf(cfg):\n    raise ValueError('x')\n\ndef entry(cfg):\n" \
             "    if cfg.a:\n        leaf(cfg)\n"
    g = CallGraph(files(m=source))
    g.find_never_run({"m.py": source})
    found = g.guard(("m.py", "leaf"))
    assert found is not None and not unknowns(found.expr) and "cfg.a" in found.text
    g.find_never_run({"m.py": source, "other.py": "from m import _shim\n"})  # named elsewhere: maybe
    assert unknowns(g.guard(("m.py", "leaf")).expr)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "argument, bound",
    [
        ("dp_enabled_of(cfg)", True),  # a derived setting: the helper's value
        ('getattr(cfg, "use_x", False)', True),  # private state with a default
        ("cfg.tp_size", True),
        ("cfg.archs[0] if cfg.archs else None", True),  # a choice between reads
        ("f(g(cfg))", False),  # calls in calls are not interpreted at every call site
        ("compute(cfg.a, cfg.b)", False),  # a function of values, not of the config
    ],
)
def test_which_call_arguments_bind_a_parameter(argument: str, bound: bool) -> None:
    (fs,) = with_caller_guards(files(m=f"""
        def check(*, flag):
            if flag:
                raise ValueError("x")
        def entry(cfg):
            check(flag={argument})
    """))
    assert (not any(u for g in fs.sites[0].guards for u in refs(g.expr)
                    if u.kind is RefKind.UNKNOWN and u.name == "flag")) is bound


@pytest.mark.parametrize(
    "local, bound",
    [
        ("bool(cfg.enable_lora) or (cfg.enable_lora is None and bool(cfg.lora_paths))", True),  # reads only
        ("compute(cfg.a)", False),  # a function of the project's: not interpreted at every call site
        ("other and cfg.a", False),  # reads another local
    ],
)
def test_a_local_bound_to_config_reads_binds_a_parameter(local: str, bound: bool) -> None:
    (fs,) = with_caller_guards(files(m=f"""
        def check(*, flag):
            if flag:
                raise ValueError("x")
        def entry(cfg, other):
            enabled = {local}
            check(flag=enabled)
    """))
    assert (not any(u for g in fs.sites[0].guards for u in refs(g.expr)
                    if u.kind is RefKind.UNKNOWN and u.name == "flag")) is bound


def test_a_nested_function_takes_the_bindings_of_the_function_it_is_defined_in() -> None:
    (fs,) = with_caller_guards(files(m="""
        def validate(value, name):
            def one(part):
                if not value.strip():
                    raise ValueError(f"{name} is empty")
            if value.startswith("a"):
                one(value)
        def entry(cfg):
            validate(cfg.x, "--x")
            if cfg.on:
                validate(cfg.y, "--y")
    """))
    (site,) = fs.sites
    assert [v.template.text for v in site.variants] == ["--x is empty", "--y is empty"]
    assert not unknowns(site_trigger(site))
    assert {r.name for r in refs(site_trigger(site))} >= {"x", "y", "on"}


IB_DEVICES = """
    def validate(device_str):
        def normalize(raw_value):
            if not isinstance(raw_value, str):
                raise ValueError("expected a string")
        normalized = device_str.strip()
        parsed = parse(normalized)
        if isinstance(parsed, str):
            return normalize(normalized)
        for key, devices in parsed.items():
            normalize(devices)
"""


@pytest.mark.parametrize(
    "entry, variants, read",
    [
        # the enclosing function called for two flags: each call site under each of its bindings
        ("validate(cfg.x)\n    if cfg.on:\n        validate(cfg.y)", 4, {"x", "y", "on"}),
        # called alike everywhere: the nested call sites read what it is bound to
        ("validate(cfg.x)", 2, {"x"}),
    ],
)
def test_a_nested_function_passed_a_local_of_the_enclosing_parameter_is_bound_per_call_site(
        entry: str, variants: int, read: set[str]) -> None:
    """sglang 0.5.23 validate_ib_devices: the nested ``_normalize_device_group`` is passed
    ``device_str.strip()`` by one call and a loop item by the other: one row per call site
    (and binding of the enclosing function), and no unknown parameter left."""
    (fs,) = with_caller_guards(files(m=textwrap.dedent(IB_DEVICES) + f"def entry(cfg):\n    {entry}\n"))
    (site,) = fs.sites
    assert len(site.variants) == variants
    params = [r for v in site.variants for g in v.guards for r in refs(g.expr) if r.text.startswith(PARAMETER)]
    assert params == []
    assert not [r for r in refs(site_trigger(site)) if r.text.startswith(PARAMETER)]
    assert {r.name for r in refs(site_trigger(site))} >= read


def test_free_names_every_call_binds_alike_are_substituted_in_a_nested_function() -> None:
    (fs,) = with_caller_guards(files(m="""
        def validate(value):
            def one():
                if value > 1:
                    raise ValueError("too big")
            one()
        def entry(cfg):
            validate(cfg.x)
    """))
    assert {r.name for r in refs(site_trigger(fs.sites[0]))} == {"x"}


SHIM = """
    def check(kv, *, hip):
        if hip and kv == "fp8":
            raise ValueError("no fp8 on hip")
    def _retired_shim(kv, hip):
        check(kv, hip=hip)
    def entry(cfg):
        check(cfg.kv, hip=get_platform().is_hip)
"""


def test_a_call_site_in_a_function_that_never_runs_binds_nothing() -> None:
    """The retired shim passes its own unknown `hip`; nothing names the shim, so the one
    live call site's value is the parameter's."""
    from extractor.source_set import SourceSet
    source = textwrap.dedent(SHIM)
    (fs,) = with_caller_guards(files(m=SHIM), (), SourceSet({"m.py": source}))
    site = _site(fs, 4)
    assert not unknowns(site_trigger(site))
    assert {r.name for r in refs(site_trigger(site))} >= {"kv", "get_platform().is_hip"}


@pytest.mark.parametrize("caller", [
    "run_hook(check, cfg)",  # handed to a runner: the hook's arguments, not its tuning ones
    "check(cfg)",  # called without it: Python binds the default
])
def test_a_parameter_nobody_passes_is_its_literal_default(caller: str) -> None:
    (fs,) = with_caller_guards(files(m=f"""
        def check(cfg, mem=None):
            if mem is None:
                mem = probe(cfg.device)
            if cfg.tp_size > mem:
                raise ValueError("x")
        def entry(cfg):
            {caller}
    """))
    read = {r.name for g in fs.sites[0].guards for r in refs(g.expr)}
    assert f"{PARAMETER}mem" not in read and "mem" not in read


def test_a_registered_pass_runs_where_it_is_handed_to_its_runner() -> None:
    """``@register_post_process`` only appends to a list nothing iterates; the pass runs
    where ``run_post_process_pass(cfg, _force)`` hands it over, here only ``if cfg.hrm``."""
    g = graph(m="""
        @register_post_process
        def _force(view):
            return {"attention_backend": "triton"}
        def entry(cfg):
            if cfg.hrm:
                run_post_process_pass(cfg, _force)
    """)
    found = g.guard(("m.py", "_force"))
    assert found is not None and "cfg.hrm" in found.text



PASSED_ON = """
    import json
    def parse_key(value):
        if not isinstance(value, str):
            raise ValueError("not a str")
    def read(source):
        if not source.startswith("/"):
            raise ValueError("not absolute")
    def load(source):
        if source.startswith("{"):
            raw = json.loads(source)
        else:
            raw = json.loads(read(source))
        for name in ("key", "key_b"):
            if raw.get(name) is not None:
                parse_key(raw[name])
    def hook(cfg):
        load(cfg.config)
"""


@pytest.mark.parametrize("line", [5, 8])
def test_a_parameter_passed_on_is_bound_where_the_caller_is(line: int) -> None:
    """``read(source)`` in ``load(source)``, itself called with ``cfg.config``: both the
    callee's own check and the guard of the call read ``--config``."""
    (fs,) = with_caller_guards(files(m=PASSED_ON))
    trigger = site_trigger(_site(fs, line))
    assert not unknowns(trigger)
    assert "config" in {r.name for r in refs(trigger)}


def test_an_item_a_table_row_passes_binds_the_parameter_per_row() -> None:
    """``parse_key(raw[name])`` per name of ("key", "key_b"): one variant each."""
    (fs,) = with_caller_guards(files(m=PASSED_ON))
    site = _site(fs, 5)
    assert len(site.variants) == 2
    assert all(not unknowns(g.expr) for v in site.variants for g in v.guards)


CAUGHT = """
    def parse_key(value):
        if not isinstance(value, str):
            raise ValueError("not a str")
    def load(cfg):
        try:
            parse_key(cfg.key)
        except ValueError as error:
            raise KeyError(str(error))
"""


@pytest.mark.parametrize(("more", "fires_via"), [
    ("", None),  # every call catches it: the user sees the handler's error instead
    ("def other(cfg):\n    parse_key(cfg.other)\n", "other"),  # only through the call that does not
    ("def other(cfg):\n    try:\n        parse_key(cfg.other)\n    except Exception:\n        pass\n", None),
])
def test_an_error_a_caller_catches_does_not_reach_the_user_through_that_call(more: str, fires_via: str | None) -> None:
    source = CAUGHT.replace("raise KeyError(str(error))", 'raise KeyError("bad key")')
    (fs,) = with_caller_guards(files(m=source + textwrap.indent(more, "    ")))
    trigger = site_trigger(_site(fs, 4))
    if fires_via is None:
        assert trigger == FALSE
    else:
        assert {r.name for r in refs(trigger)} == {fires_via}


@pytest.mark.parametrize(("handler", "passed_on"), [
    ("raise KeyError(str(error)) from error", True),  # the user reads the inner message
    ("raise KeyError(error)", True),
    ('raise KeyError(f"{error}")', True),
    ("raise", True),
    ('raise KeyError(f"bad key: {error}")', False),  # a message of its own
    ("raise KeyError(str(other))", False),
])
def test_a_handler_that_passes_the_message_on_keeps_the_inner_error_reachable(handler: str, passed_on: bool) -> None:
    (fs,) = with_caller_guards(files(m=CAUGHT.replace("raise KeyError(str(error))", handler)))
    trigger = site_trigger(_site(fs, 4))
    assert ({r.name for r in refs(trigger)} == {"key"}) is passed_on
    assert (trigger == FALSE) is not passed_on


@pytest.mark.parametrize(("callee_calls", "known"), [
    ("", True),  # the callee raises only at its raise sites: what the block raises is theirs
    ("    log(value)\n", False),  # it calls what errcat does not read: the block may raise anything
])
def test_what_a_try_block_raises_is_what_the_functions_it_calls_raise(callee_calls: str, known: bool) -> None:
    source = CAUGHT.replace('        raise ValueError("not a str")\n',
                               '        raise ValueError("not a str")\n' + textwrap.indent(callee_calls, "    "))
    (fs,) = with_caller_guards(files(m=source))
    trigger = site_trigger(next(s for s in fs.sites if s.exception == "KeyError"))
    assert (not unknowns(trigger) and {r.name for r in refs(trigger)} == {"key"}) is known


def test_a_local_computed_in_steps_binds_what_a_call_in_a_try_is_passed() -> None:
    """``width = size + cfg.b`` with ``size = cfg.a * 2``: what the block raises reads both."""
    source = """
    def parse_key(value):
        if value < 0:
            raise ValueError("negative")
    def load(cfg):
        size = cfg.a * 2
        width = size + cfg.b
        try:
            parse_key(width)
        except ValueError as error:
            raise KeyError(str(error))
"""
    (fs,) = with_caller_guards(files(m=source))
    trigger = site_trigger(next(s for s in fs.sites if s.exception == "KeyError"))
    assert not unknowns(trigger) and {r.name for r in refs(trigger)} == {"a", "b"}


BOTH_TILELANG = """
    def check(dtype, prefill, decode, *, hip):
        chosen = {prefill, decode}
        if not hip and {"triton"} & chosen:
            raise ValueError("triton is ROCm only")
        if hip or dtype != "fp8" or "tilelang" not in chosen:
            return
        if prefill != "tilelang" or decode != "tilelang":
            raise ValueError("both tilelang")
    def a(cfg):
        check(cfg.dtype, cfg.prefill, cfg.decode, hip=cfg.hip)
    def b(cfg):
        check(cfg.dtype, "tilelang", cfg.decode, hip=False)
"""


def test_an_earlier_raise_reading_a_parameter_is_bound_per_call_site_too() -> None:
    """The second check's trigger reads what each call passes, its earlier raise included."""
    (fs,) = with_caller_guards(files(m=textwrap.dedent(BOTH_TILELANG)))
    site = next(s for s in fs.sites if s.template.text == "both tilelang")
    assert not unknowns(site_trigger(site))
    assert all(not unknowns(g.expr) for v in site.variants for g in v.guards)


DEFAULTED = """
    AUDITED = frozenset({"a", "b"})
    MHA = frozenset({"d"})
    def check(cfg, *, allowed=None):
        if allowed is None:
            allowed = AUDITED
        if cfg.dcp > 1:
            allowed = allowed - {"a"}
        if cfg.backend not in allowed:
            raise ValueError("not audited")
    def entry(cfg):
        if cfg.x:
            check(cfg, allowed=AUDITED | {"c"})
        if cfg.y:
            check(cfg, allowed=MHA)
"""


def test_a_parameter_computed_on_under_a_condition_is_still_bound_per_call_site() -> None:
    """``allowed = allowed - {...}`` after ``if allowed is None: allowed = DEFAULT`` computes on
    the parameter itself in one branch (sglang 0.5.23 kv_cache_hook.py:519): each call site's
    value stands in it, no unknown "computed from the parameter" is left."""
    (fs,) = with_caller_guards(files(m=DEFAULTED))
    site = _site(fs, 10)
    assert len(site.variants) == 2
    for variant in site.variants:
        assert not [u for g in variant.guards for u in unknowns(g.expr)]
        assert not [r for g in variant.guards for r in refs(g.expr) if r.text.startswith(PARAMETER)]
