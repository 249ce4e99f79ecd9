"""extractor.enum_self: ``self.is_x()`` in an enum's dispatching method, as a condition on
the flag the enum member is built from, where the code says so."""
from __future__ import annotations

import textwrap

import pytest

from analyzers.eval_model import Model
from analyzers.evaluate import evaluate
from analyzers.flag_build import build_flag_model
from analyzers.kleene import Truth
from analyzers.launch import Launch
from extractor.callers import CallGraph, with_caller_guards
from extractor.enum_self import Texts, self_meanings
from extractor.ir import unknowns
from extractor.profile import load_profile
from extractor.records import FileSites
from extractor.sites import extract_file
from extractor.source_set import SourceSet

PROFILE = load_profile("sglang")
ARGS = 'def add_cli_args(parser):\n    parser.add_argument("--algo", type=str, default=None)\n'
MODEL = Model(build_flag_model({"p/args.py": ARGS}), ())

ENUM = '''
from enum import Enum, auto
from p.registry import ALIASES, lookup

class Algo(Enum):
    FAST = auto()
    SLOW = auto()
    MID = auto()
    NONE = auto()

    @classmethod
    def from_string(cls, name):
        """Build one."""
        if name is None:
            return cls.NONE
        upper = name.upper()
        try:
            return cls[upper]
        except KeyError:
            pass
        if upper in ALIASES:
            return cls.FAST
        {tail}

    def is_fast(self):
        return self == Algo.FAST

    def is_quick(self):
        return self in (Algo.FAST, Algo.MID)

    def is_named_slow(self):
        return self.name == "SLOW"

    def is_some(self):
        return self != Algo.NONE

    def is_either(self):
        return self.is_fast() or self.is_named_slow()

    def is_odd(self):
        if self.value > 2:
            return True
        return False

    def handle(self, cfg):
        from p.hook import on_fast, on_quick, on_slow, on_some, on_either, on_odd
        if self.is_fast():
            on_fast(cfg)
        elif self.is_named_slow():
            on_slow(cfg)
        if self.is_quick():
            on_quick(cfg)
        if self.is_some():
            on_some(cfg)
        if self.is_either():
            on_either(cfg)
        if self.is_odd():
            on_odd(cfg)
'''
REGISTRY = 'ALIASES = frozenset({"QUICK"})\ndef lookup(name):\n    return None\n'
HOOK = '''
from p.algo import Algo

def on_fast(cfg): pass
def on_slow(cfg): pass
def on_quick(cfg): pass
def on_some(cfg): pass
def on_either(cfg): pass
def on_odd(cfg): pass

def run(cfg):
    algo = None
    if cfg.algo is not None:
        algo = Algo.from_string(cfg.algo)
    if algo is not None:
        algo.handle(cfg)
'''
RAISES = 'raise ValueError(name)'
REGISTERED = ('spec = lookup(upper)\n        if spec is not None:\n            return spec\n'
              '        raise ValueError(name)')


def analysed(tail: str = RAISES, hook: str = HOOK) -> tuple[list[FileSites], SourceSet]:
    texts = {"p/algo.py": textwrap.dedent(ENUM).replace("{tail}", tail), "p/registry.py": REGISTRY,
             "p/hook.py": textwrap.dedent(hook)}
    files = [extract_file(p, t, PROFILE) for p, t in texts.items() if p != "p/registry.py"]
    return files, SourceSet(Texts(texts, texts.get))


def caller_guard(function: str, tail: str = RAISES, hook: str = HOOK):
    files, sources = analysed(tail, hook)
    guarded = with_caller_guards(files, (), sources)
    (hook_file,) = [fs for fs in guarded if fs.path == "p/hook.py"]
    algo_file = next(fs for fs in guarded if fs.path == "p/algo.py")
    found = CallGraph([hook_file, algo_file]).guard(("p/hook.py", function))
    assert found is not None
    return found.expr


@pytest.mark.parametrize(
    ("function", "algo", "expected"),
    [
        # self == Algo.FAST: the flag names FAST, in any case
        ("on_fast", "FAST", Truth.TRUE),
        ("on_fast", "fast", Truth.TRUE),
        ("on_fast", "SLOW", Truth.FALSE),
        ("on_fast", None, Truth.FALSE),
        # an alias the constructor maps to FAST (a constant of another file)
        ("on_fast", "quick", Truth.TRUE),
        # self.name == "SLOW", under `elif` (not FAST)
        ("on_slow", "SLOW", Truth.TRUE),
        ("on_slow", "FAST", Truth.FALSE),
        # self in (FAST, MID)
        ("on_quick", "MID", Truth.TRUE),
        ("on_quick", "SLOW", Truth.FALSE),
        # self != NONE: no flag builds NONE through `is None`; the name NONE does too
        ("on_some", None, Truth.FALSE),
        ("on_some", "none", Truth.FALSE),
        ("on_some", "MID", Truth.TRUE),
        # other predicates combined with `or`
        ("on_either", "SLOW", Truth.TRUE),
        ("on_either", "MID", Truth.FALSE),
        # a name nothing maps: the constructor raises, nothing runs
        ("on_fast", "OTHER", Truth.FALSE),
    ],
)
def test_a_predicate_is_a_condition_on_the_flag(function: str, algo: str | None, expected: Truth) -> None:
    expr = caller_guard(function)
    assert not unknowns(expr)
    assert evaluate(expr, Launch({"algo": algo} if algo is not None else {}), MODEL) is expected


@pytest.mark.parametrize(
    ("algo", "expected"),
    [("FAST", Truth.TRUE), ("SLOW", Truth.FALSE), (None, Truth.FALSE), ("PLUGIN", Truth.UNKNOWN)],
)
def test_names_a_registry_may_resolve_stay_unknown(algo: str | None, expected: Truth) -> None:
    expr = caller_guard("on_fast", REGISTERED)
    assert evaluate(expr, Launch({"algo": algo} if algo is not None else {}), MODEL) is expected


def test_a_name_a_registry_may_resolve_reads_as_one_registered_at_run_time() -> None:
    from analyzers.trigger import Renderer

    text = Renderer().text(caller_guard("on_fast", REGISTERED))
    assert "`--algo`.upper() names a `Algo` registered at run time" in text and "looked up" not in text


@pytest.mark.parametrize(
    ("tail", "algo", "expected"),
    [
        # `return cls[key]` with no `try`: other names raise, later code never runs
        ("return cls[upper]\n        return cls.FAST", "OTHER", Truth.FALSE),
        ("return cls[upper]\n        return cls.FAST", "fast", Truth.TRUE),
        # cases testing different keys: read one by one (each when no earlier one held)
        ("if upper.strip() == 'SWIFT':\n            return cls.FAST\n        raise ValueError(name)", " swift",
         Truth.TRUE),
        ("if upper.strip() == 'SWIFT':\n            return cls.FAST\n        raise ValueError(name)", "SLOW",
         Truth.FALSE),
    ],
)
def test_constructor_shapes(tail: str, algo: str, expected: Truth) -> None:
    assert evaluate(caller_guard("on_fast", tail), Launch({"algo": algo}), MODEL) is expected


def test_a_method_with_other_logic_stays_unknown() -> None:
    assert [u.text for u in unknowns(caller_guard("on_odd"))] == ["self.is_odd()"]


@pytest.mark.parametrize(
    "hook",
    [
        # the receiver is built otherwise somewhere
        HOOK + "\ndef other(cfg, algo):\n    algo.handle(cfg)\n",
        # built from another argument at another call site
        HOOK + "\ndef other(cfg):\n    x = Algo.from_string(cfg.other)\n    x.handle(cfg)\n",
        # rebound to something else in the same function
        HOOK.replace("    if algo is not None:", "    algo = pick()\n    if algo is not None:"),
    ],
)
def test_receivers_the_code_does_not_tie_to_one_flag_leave_the_guard_unknown(hook: str) -> None:
    assert "self.is_fast()" in [u.text for u in unknowns(caller_guard("on_fast", hook=hook))]


def test_elif_chains_merge_into_one_condition() -> None:
    files, sources = analysed()
    meaning = self_meanings(files, sources)[("p/algo.py", "Algo.handle")]
    guards = next(c.guards for c in files[0].calls if c.callee == "on_slow")
    (merged,) = meaning.guards(guards)
    assert merged.text == "not (self.is_fast()) and self.is_named_slow()"


def test_without_sources_the_guard_stays_as_the_code_reads() -> None:
    files, _ = analysed()
    hook, algo = (next(fs for fs in with_caller_guards(files) if fs.path == p) for p in ("p/hook.py", "p/algo.py"))
    found = CallGraph([hook, algo]).guard(("p/hook.py", "on_fast"))
    assert found is not None and [u.text for u in unknowns(found.expr)] == ["self.is_fast()"]


CHAIN_HOOK = '''
def check(cfg):
    from p.algo import Algo

    if cfg.cache and Algo.from_string(cfg.algo).is_some():
        raise ValueError("the cache does not support an algorithm")
'''


@pytest.mark.parametrize(("algo", "expected"), [
    (None, Truth.FALSE),  # from_string(None) is NONE
    ("fast", Truth.TRUE),
    ("quick", Truth.TRUE),  # an alias
    ("bogus", Truth.FALSE),  # from_string raises (its own error): this check does not fire
])
def test_a_member_built_from_a_setting_and_asked_a_predicate_is_a_condition_on_the_setting(algo, expected):
    files, sources = analysed(hook=CHAIN_HOOK)
    guarded = with_caller_guards(files, (), sources, PROFILE.config_params)
    (site,) = next(fs for fs in guarded if fs.path == "p/hook.py").sites
    condition = site.guards[-1].expr
    assert not unknowns(condition)
    launch = Launch({"cache": True, **({"algo": algo} if algo is not None else {})})
    assert evaluate(condition, launch, MODEL) is expected


def test_without_the_config_names_the_chain_stays_unknown():
    files, sources = analysed(hook=CHAIN_HOOK)
    (site,) = next(fs for fs in with_caller_guards(files, (), sources) if fs.path == "p/hook.py").sites
    assert [u.text for u in unknowns(site.guards[-1].expr)] == ["Algo.from_string(cfg.algo).is_some()"]
