"""Readable triggers: no local's bookkeeping, built collection, private helper call or
unbound parameter reaches a reader (`analyzers.readable`)."""
from __future__ import annotations

import textwrap

import pytest

from analyzers.entries import Trigger, site_trigger
from analyzers.readable import internal_markers
from analyzers.trigger import Renderer
from extractor.ir import Apply, Compare, Const, Ref, RefKind, Truthy, Unknown, described
from extractor.profile import load_profile
from extractor.records import PARAMETER
from extractor.sites import extract_file

PROFILE = load_profile("sglang")
R = Renderer()
HF = Ref(RefKind.MODEL, "hf_config", "hf_config")
FLAG = Ref(RefKind.FLAG, "attention_backend", "cfg.attention_backend")
BACKENDS = Apply("frozenset", (Const(("fa3", "triton")),), 'frozenset({"fa3", "triton"})')


@pytest.mark.parametrize(
    "text, kinds",
    [
        ("`tree_capacity (changed by an earlier pass of a loop)` (unknown)", ["bookkeeping"]),
        ("`draft_config (reassigned in a try block)` (unknown) is given", ["bookkeeping"]),
        ("`l (element of declarations)` (unknown)", ["bookkeeping"]),
        ('`frozenset({"a"})` is not given', ["built collection"]),
        ("_resolve_quant_method(model property `hf_config`) is given", ["private call"]),
        ("`parameter name` (unknown) is true/non-empty", ["parameter"]),
        ("`f(...)` is set", ["elided call"]),
        # plain terms pass: a dunder, a public call, a private setting's name
        ("`--tp-size` > 1 and `x.__len__()` (unknown) is 2", []),
        ("is_deepseek_dsa(model property `hf_config`) is true/non-empty", []),
        ("`_raw_input` (derived setting) is set", []),
    ],
)
def test_internal_markers_name_what_leaked(text: str, kinds: list[str]) -> None:
    assert [kind for kind, _ in internal_markers(text)] == kinds


@pytest.mark.parametrize(
    "expr, text",
    [
        # a private helper by what its name says, of what the user gives
        (Compare("is not", Apply("_resolve_quant_method", (HF,), "_resolve_quant_method(hf_config)"), Const(None)),
         "the code's “resolve quant method” of model property `hf_config` is given"),
        (Truthy(Unknown("_supports_extra_buffer()")), "the code's “supports extra buffer” (unknown) is true/non-empty"),
        # a collection built from constants reads as its values; it is never None
        (Compare("<=", Apply("frozenset", (FLAG,), "frozenset(x)"), BACKENDS),
         "`--attention-backend` is a subset of {fa3, triton}"),
        (Compare("is not", BACKENDS, Const(None)), "always"),
        (Compare("is", Apply("|", (BACKENDS, Const(("fa4",))), "b | {'fa4'}"), Const(None)), "never"),
        # a local errcat cannot follow says what kind of value it is; a parameter, who gives it
        (Truthy(Ref(RefKind.UNKNOWN, "cap", described("computed in a loop"))),
         "a value computed in a loop (unknown) is true/non-empty"),
        (Truthy(Ref(RefKind.UNKNOWN, "name", f"{PARAMETER}name")),
         "what its caller passes as `name` (unknown) is true/non-empty"),
    ],
)
def test_render_in_user_terms(expr, text: str) -> None:
    assert R.text(expr) == text
    assert internal_markers(text) == []


@pytest.mark.parametrize(
    "body, local",
    [
        ("cap = 1\n    for d in f():\n        cap *= 2\n", "cap"),  # changed by the loop
        ("cap = None\n    try:\n        cap = g(cfg)\n    except Exception:\n        pass\n", "cap"),
        ("cap = {}\n    cap[k] = 1\n", "cap"),  # changed in place
        ("cap = []\n    for d in f():\n        cap.append(d)\n", "cap"),  # grown in a loop
        ("for cap in f():\n        pass\n", "cap"),  # an item of what errcat cannot list
    ],
)
def test_a_local_errcat_cannot_follow_is_not_named(body: str, local: str) -> None:
    code = f"def f(cfg):\n    {body}    if cfg.x > cap:\n        raise ValueError('v')\n"
    (site,) = extract_file("m.py", textwrap.dedent(code), PROFILE).sites
    text = R.text(site_trigger(site))
    assert "(unknown)" in text and f"`{local}" not in text and internal_markers(text) == [], text


@pytest.mark.parametrize(
    "text, fact",
    [
        (described("computed in a loop"), "unknown:a value computed in a loop"),
        (f"{PARAMETER}name", "unknown:what its caller passes as `name`"),
        ("_underscore_field_names()", "unknown:the code's “underscore field names”"),
        ("_is_ipv6(host)", "unknown:what the code's “is ipv6” says of `host`"),
        ("_derived_widths().get(name)", "unknown:a value the code's “derived widths” computes"),
        ("use_mlx()", "unknown:use_mlx()"),  # a public call: the code says it best
    ],
)
def test_other_names_an_unknown_leaf_in_plain_words(text: str, fact: str) -> None:
    assert Trigger.build(Truthy(Unknown(text)), R).other == (fact,)



@pytest.mark.parametrize(("text", "states"), [
    ("Set `--model-path` to <model> so that parse_connector_type(`--model-path`) is ConnectorType.INSTANCE.", True),
    ("Change `--tp-size` so that derive_attn_tp_size(tp_size=`--tp-size`) % `--dcp-size` is not 0.", True),
    ("Change `--model-path` so that the connector type parsed from `--model-path` is not instance.", True),
    ("Set `--watermark-config` to valid JSON, e.g. `'{}'` (or leave it unset).", False),
    ("Set `--tp-size` to 2 (refused here: 1).", False),
])
def test_a_solution_stating_a_condition_through_the_programs_code_is_told(text, states):
    from analyzers.readable import states_code
    assert states_code(text) is states
