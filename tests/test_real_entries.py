"""Concrete entries of real sglang releases, as a user would look them up."""
from __future__ import annotations

import ast
from typing import Any

import pytest

pytestmark = pytest.mark.network

LORA_PATH = "python/sglang/srt/arg_groups/lora_hook.py"


@pytest.fixture(scope="module")
def catalog_0523(extracted):
    return extracted.catalog("0.5.23")


@pytest.fixture(scope="module")
def lora_entry(catalog_0523):
    (entry,) = [e for e in catalog_0523.entries if e.site.path == LORA_PATH and e.site.line == 299]
    return entry


def test_lora_speculative_entry_template_and_location(lora_entry) -> None:
    site = lora_entry.site
    assert (site.exception, site.template.text, site.function) == (
        "ValueError", "LoRA with EAGLE/NEXTN/EAGLE3 speculative decoding {reason}.",
        "check_lora_speculative_compatibility",
    )
    assert lora_entry.url.endswith(f"/v0.5.23/{LORA_PATH}#L299")


def test_lora_speculative_entry_guard_has_caller_and_early_return(lora_entry) -> None:
    texts = {(str(g.origin), g.text) for g in lora_entry.site.guards}
    assert ("early-exit", 'not (cfg.speculative_algorithm in ["NGRAM", None])') in texts
    callers = [t for o, t in texts if o == "caller"]
    assert callers and "check_lora_server_args" in callers[0] and "cfg.enable_lora" in callers[0]
    assert {"--enable-lora", "--speculative-algorithm"} <= set(lora_entry.trigger.flags)


@pytest.mark.parametrize(
    "row, reason_start, flags, env",
    [
        (0, "does not support SGLANG_RAGGED_VERIFY_MODE={ragged_mode!r}",
         ["--speculative-algorithm"], ["SGLANG_RAGGED_VERIFY_MODE"]),
        (1, "does not support --speculative-adaptive", ["--speculative-adaptive"], []),
        (2, "does not support the experimental_sgl_trtllm MoE runner",
         ["--moe-runner-backend", "--speculative-moe-runner-backend"], []),
        (3, "does not support SGLANG_ENABLE_OVERLAP_PLAN_STREAM=1", [], ["SGLANG_ENABLE_OVERLAP_PLAN_STREAM"]),
    ],
)
def test_lora_speculative_entry_has_one_variant_per_table_row(lora_entry, row, reason_start, flags, env) -> None:
    assert len(lora_entry.variants) == 4
    variant = lora_entry.variants[row]
    assert dict(variant.values)["reason"].startswith(reason_start)
    assert variant.template.startswith("LoRA with EAGLE/NEXTN/EAGLE3 speculative decoding " + reason_start)
    assert (list(variant.trigger.flags), list(variant.trigger.env)) == (flags, env)


def _loop_iterables_over_local_literals(source: str) -> set[str]:
    """Independent (stdlib ast): names iterated by a ``for`` that were bound to a literal table."""
    found = set()
    for func in ast.walk(ast.parse(source)):
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        literals = {
            t.id for node in ast.walk(func) if isinstance(node, ast.Assign)
            and isinstance(node.value, (ast.List, ast.Tuple, ast.Dict))
            for t in node.targets if isinstance(t, ast.Name)
        }
        for loop in ast.walk(func):
            if isinstance(loop, ast.For) and any(isinstance(n, ast.Raise) for n in ast.walk(loop)):
                it = (loop.iter.func.value
                      if isinstance(loop.iter, ast.Call) and isinstance(loop.iter.func, ast.Attribute)
                      else loop.iter)
                if isinstance(it, ast.Name) and it.id in literals:
                    found.add(it.id)
    return found


def test_every_table_loop_in_the_targets_is_expanded(catalog_0523, release, sglang_profile) -> None:
    snap = release("0.5.23")
    expected = set().union(*(_loop_iterables_over_local_literals(snap.text(p)) for p in catalog_0523.targets))
    not_expanded = {
        note for e in catalog_0523.entries for note in e.site.notes if "loop over" in note
    }
    assert expected and not any(f"`{name}`" in note for name in expected for note in not_expanded)
    assert len([e for e in catalog_0523.entries if e.variants]) >= 10


@pytest.mark.parametrize("version", ["0.4.10", "0.5.18", "0.5.23"])
def test_no_config_attribute_is_left_unknown(extracted, version) -> None:
    """Unknown leaves are parameters, run-time values and foreign code, never a read of a
    declared flag through the config object (``cfg.<declared dest>``) in the targets (outside
    them, ``self.quantization`` is another class's field of the same name)."""
    import re

    catalog = extracted.catalog(version)
    config_read = re.compile(r"^(cfg|self|server_args|view|args)\.(\w+)$")
    unknown = [
        o for e in catalog.entries if not e.extra.get("outside_targets") for t in e.triggers
        for o in t.other if o.startswith("unknown:")
        for m in [config_read.match(o[len("unknown:"):])] if m and catalog.flags.by_dest(m.group(2))
    ]
    assert unknown == []


def test_pass_contract_checks_are_internal_and_retired_shims_do_not_guard(catalog_0523) -> None:
    """overrides.py checks what post-process passes return and what declarations name
    (`config.contracts`): internal;
    `_check_tilelang_dsa_fp8_kv`, a compatibility shim nothing in 0.5.23 names, adds no
    "maybe it runs" to the DSA backend checks it calls."""
    overrides = "python/sglang/srt/arg_groups/overrides.py"
    by_function: dict[str, list[Any]] = {}
    for e in catalog_0523.entries:
        if e.site.path == overrides:
            by_function.setdefault(e.site.function, []).append(e)
    assert all(e.extra.get("internal") for f in ("run_post_process_pass", "validate_declarations",
                                                 "declare_resolution") for e in by_function[f])
    assert not any(e.extra.get("internal") for e in by_function["_check_dsa_backend_constraints"])
    dsa = by_function["_check_dsa_backend_constraints"]
    assert all("_check_tilelang_dsa_fp8_kv" not in e.trigger.text for e in dsa)


def _all_solutions(entry):
    return [*entry.solutions, *(s for v in entry.variants for s in v.solutions or ())]


@pytest.mark.parametrize("version", ["0.5.18", "0.5.23"])
def test_every_listed_solution_is_a_change_not_predicted_to_fail(extracted, version) -> None:
    """Issue 37: a solution is a change (what no option changes is a note); one with a command
    gets past its error in the whole pipeline, or is undecided, never predicted to fail."""
    sols = [s for e in extracted.catalog(version).entries for s in _all_solutions(e)]
    assert sols
    assert not [s.text for s in sols if s.text.startswith(("Not changeable by flags", "Depends on "))]
    assert not [s.text for s in sols if s.predicted == "false"]
    with_command = [s for s in sols if s.command]
    assert with_command and all(s.change and s.before and s.predicted in ("true", "unknown") for s in with_command)


def test_every_meaning_gives_the_reason_its_source_gives_in_one_to_three_sentences(catalog_0523) -> None:
    """No meaning is only a category where the message, the comment at the check or the
    function's docstring says why; each is one to three sentences."""
    from analyzers.meaning import message_reason, sentences
    from extractor.docstrings import first_lines, first_sentence

    def head(text: str) -> str:
        return " ".join(first_sentence(text).split()).rstrip(".")[:40].lower()

    docs: dict[str, dict[str, str]] = {}
    bare = []
    for entry in catalog_0523.entries:
        site, said = entry.site, entry.meaning.lower()
        assert 1 <= len(sentences(entry.meaning)) <= 3, entry.meaning
        if site.query or site.crash is not None:  # a device library's or Python's own error, not a check:
            continue  # says so instead (tests/test_real_crash.py reads a crash's meaning)
        if site.path not in docs:
            docs[site.path] = dict(first_lines(ast.parse(catalog_0523.snapshot.read(site.path))))
        reason, doc = message_reason(site.template.text), docs[site.path].get(site.function, "")
        wanted = [r for r in (reason and head(reason), site.comment and head(site.comment),
                              not reason and not site.comment and doc and head(doc)) if r]
        if not all(w in said for w in wanted):
            bare.append((site.path, site.line, entry.meaning))
    assert not bare, bare[:5]


# (function, a piece of the message) -> the category its meaning leads with (issue 37)
CATEGORIES = [
    ("load_watermark_config", "failed to read watermark config JSON", "PARSE"),
    ("check_server_args", "--kv-canary-sweep-interval requires --kv-canary", "COMPANION"),
    ("handle_kv_cache_sharding", "does not support dynamic chunk sizing", "EXCLUSIVE"),
    ("_handle_dspark", "must equal gamma + 1", "RANGE"),
    ("handle_cache_compatibility", "LMCacheUnifiedRadixCache does not yet support DP attention", "EXCLUSIVE"),
    ("handle_encoder_disaggregation", "is not supported for encoder disaggregation", "MODEL"),
    ("__getattr__", "has no attribute", "INTERNAL"),
    ("_handle_uno", "UNO only supports CUDA", "PLATFORM"),  # a check of --device, the setting choosing it
]


def test_every_meaning_leads_with_its_category_and_known_ones_are_right(catalog_0523) -> None:
    """Issue 37: each meaning opens with the lead of the category `category` gives its entry,
    and the categories of a table of known checks are the right ones."""
    from analyzers.meaning import LEADS, category
    from analyzers.restriction import Category

    program = "sglang"  # the profile's name for the program
    device = catalog_0523.profile.platform_settings  # the settings choosing the device (`--device`)
    off = [(e.site.path, e.site.line) for e in catalog_0523.entries if not e.site.query and e.site.crash is None
           and not e.meaning.lower().startswith(LEADS[category(e, device)][0].format(p=program).lower()[:25])]
    assert not off, off[:5]
    found = {(f, piece): [category(e, device) for e in catalog_0523.entries
                          if e.site.function == f and piece in e.site.template.text] for f, piece, _ in CATEGORIES}
    assert {k: v for k, v in found.items() if not v} == {}
    assert {k: {str(c and c.name) for c in v} for k, v in found.items()} == {
        (f, piece): {Category[name].name} for f, piece, name in CATEGORIES}


def test_the_messages_own_advice_and_the_form_that_parses_are_solutions(catalog_0523) -> None:
    """Issue 37: "requires --enable-watermark", "unset SGLANG_DISABLE_LAZY_COMPACTION" in the
    message are solutions with their commands; a JSON parse failure names valid JSON that the
    whole pipeline lets through."""
    def texts(function: str, piece: str) -> list[str]:
        return [s.text for e in catalog_0523.entries if e.site.function == function and piece in e.site.template.text
                for s in e.solutions if s.predicted == "true" and s.command]

    assert "Pass `--enable-watermark`, as the message advises." in texts(
        "check_watermark_server_args", "--watermark-config requires --enable-watermark")
    assert "Unset `SGLANG_DISABLE_LAZY_COMPACTION`, as the message advises." in texts(
        "handle_unified_memory_pool", "unset SGLANG_DISABLE_LAZY_COMPACTION")
    assert "Set `--watermark-config` to valid JSON, e.g. `'{}'` (or leave it unset)." in texts(
        "load_watermark_config", "failed to read watermark config JSON")
