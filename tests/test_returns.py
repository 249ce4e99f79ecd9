"""extractor.returns: what a plain function returns, as one expression of its parameters."""
from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from analyzers.eval_model import Model
from analyzers.kleene import UNKNOWN
from analyzers.launch import Launch
from analyzers.semantics import Values, value
from extractor.inline import inline_helpers, inline_returns, return_definitions
from extractor.ir import STATED_OR, Apply, Const, Ref, RefKind, refs
from extractor.profile import load_profile
from extractor.returns import MAX_PATHS, return_value
from extractor.scope import Opaque, Scope
from extractor.sites import PARAMETER, extract_file

PROFILE = load_profile("sglang")

ALIAS = """
def resolve(algo, draft):
    special = False
    if draft:
        special = probe(draft)
    if algo == "EAGLE3" and special:
        raise ValueError("no")
    if algo == "NEXTN" or algo == "EAGLE":
        if special:
            logger.info("promoting")
            return "FROZEN"
        return "EAGLE"
    return algo
"""


def returned(source: str, **args: object) -> object:
    """What the function in `source` returns for `args` (UNKNOWN: not decided)."""
    node = cst.parse_module(textwrap.dedent(source)).body[0]
    assert isinstance(node, cst.FunctionDef)
    params = [p.name.value for p in node.params.params]
    scope = Scope(PROFILE, {}, bindings={p: Opaque(f"{PARAMETER}{p}") for p in params})
    found = return_value(node.body.body, scope)  # type: ignore[arg-type]
    if found is None:
        return None
    call = Apply("f", tuple(Const(args[p]) for p in params), "f()")
    return value(inline_returns(call, {"f": (tuple(params), found)}), Values(Model(None), Launch()))


@pytest.mark.parametrize(
    "args, expected",
    [
        ({"algo": None, "draft": None}, None),
        ({"algo": "NEXTN", "draft": None}, "EAGLE"),  # an alias
        ({"algo": "EAGLE3", "draft": None}, "EAGLE3"),
        ({"algo": "NEXTN", "draft": "d"}, UNKNOWN),  # decided by what probe() finds
    ],
)
def test_branches_and_returns_make_one_value(args: dict, expected: object) -> None:
    assert returned(ALIAS, **args) == expected


@pytest.mark.parametrize(
    "source, args, expected",
    [
        ("def f(x):\n    if x:\n        return 1\n", {"x": 0}, None),  # falls off the end
        ("def f(x):\n    if not x:\n        raise ValueError\n    return x\n", {"x": 0}, 0),  # only returns x
        ("def f(x):\n    y = x + 1\n    return y\n", {"x": 1}, 2),
        ("def f(x):\n    if x:\n        return 1\n    elif x is None:\n        return 2\n    else:\n"
         "        return 3\n", {"x": None}, 2),
        # a guard clause before a statement not followed: known where it returns, unknown past it
        ("def f(x):\n    if not x:\n        return False\n    for i in x:\n        pass\n    return True\n",
         {"x": 0}, False),
        ("def f(x):\n    if not x:\n        return False\n    for i in x:\n        pass\n    return True\n",
         {"x": 1}, UNKNOWN),
        ("def f(x):\n    if not x:\n        return False\n    try:\n        return g(x)\n    except E:\n"
         "        return 0\n", {"x": ""}, False),
    ],
)
def test_what_a_call_returns(source: str, args: dict, expected: object) -> None:
    assert returned(source, **args) == expected


@pytest.mark.parametrize(
    "source",
    [
        "def f(x):\n    for i in x:\n        return i\n",  # a loop
        "def f(x):\n    try:\n        return g(x)\n    except E:\n        return 0\n",
        "def f(x):\n    yield x\n",  # a generator
        "def f(x):\n    if not x:\n        return 1\n    for i in x:\n        yield i\n",  # ... past a guard
        "def f(x):\n    raise ValueError\n",  # never returns
        "def f(x):\n" + "".join(f"    if x == {i}:\n        x = {i}\n" for i in range(MAX_PATHS + 1))
        + "    return x\n",  # too many paths
    ],
)
def test_functions_not_followed_are_not_summarised(source: str) -> None:
    assert returned(source, x=1) is None


def test_adjustments_computed_through_a_plain_function_are_known() -> None:
    hook = extract_file("p/hook.py", textwrap.dedent("""
        from p.alias import resolve
        def handle(cfg):
            declare_resolution(cfg, "h", speculative_algorithm=resolve(cfg.speculative_algorithm, cfg.draft))
    """), PROFILE)
    alias = extract_file("p/alias.py", textwrap.dedent(ALIAS), PROFILE)
    assert [q for q, _, _ in alias.returns] == ["resolve"]
    (fs,) = inline_helpers([hook], [alias])
    (adj,) = fs.adjustments
    algo = Ref(RefKind.FLAG, "speculative_algorithm", "cfg.speculative_algorithm")
    # what the call returns, unless a launch states otherwise: STATED_OR(call, returned)
    assert isinstance(adj.value, Apply) and adj.value.fn == STATED_OR and algo in refs(adj.value.args[1])
    assert "resolve" not in str(adj.value.args[1].as_dict())
    assert "resolve" in return_definitions([hook, alias])



def test_a_derived_setting_computed_by_a_function_of_the_config_is_what_it_returns() -> None:
    """``x = pick(cfg, use_fast(cfg))``: the setting is what `pick` returns for the same
    config; where that depends on a parameter it does not bind, both branches must agree."""
    hook = extract_file("p/hook.py", textwrap.dedent("""
        from p.pick import pick
        def handle(cfg):
            if cfg.backend is None:
                declare_resolution(cfg, "h", backend=pick(cfg, use_fast(cfg)))
    """), PROFILE)
    pick = extract_file("p/pick.py", textwrap.dedent("""
        def pick(server_args, fast):
            cfg = resolving_view(server_args)
            if cfg.device == "cpu":
                return "torch_native"
            if fast:
                return "triton"
            return "triton"
    """), PROFILE)
    (fs,) = inline_helpers([hook], [pick])
    (adj,) = fs.adjustments
    values = Values(Model(None), Launch({"device": "cuda"}))
    assert value(adj.value, values) == "triton"
    assert value(adj.value, Values(Model(None), Launch({"device": "cpu"}))) == "torch_native"


@pytest.mark.parametrize(("body", "summarised"), [
    # a fact of the machine derived from others: it stands in for its calls
    ("platform = get_platform()\n    return platform.is_cuda or platform.is_hip", True),
    ("if is_xpu():\n        return 'xccl'\n    return 'nccl' if is_cuda_alike() else 'gloo'", True),
    # global state known only as the program runs: not a fact errcat can judge a launch on
    ("return os.environ.get('X') == '1'", False),
    ("return torch.version.cuda is not None", False),
    ("return None", False),
])
def test_a_function_of_no_parameters_is_summarised_only_as_a_derived_platform_fact(body, summarised) -> None:
    found = extract_file("p/facts.py", f"def fact():\n    {body}\n", PROFILE)
    assert [q for q, _, _ in found.returns] == (["fact"] if summarised else [])
