"""An entry's meaning: its category, the reason its message, comment, docstring or option help gives."""
from __future__ import annotations

import pytest

from analyzers.entries import Entry, EntryVariant, Trigger
from analyzers.flag_build import build_flag_model
from analyzers.meaning import category, meaning, message_reason, message_rule, row_meaning, sentences
from analyzers.restriction import Category
from analyzers.trigger import Renderer
from extractor.ir import TRUE, And, Apply, Compare, Const, Expr, In, Not, Or, Ref, RefKind, Truthy
from extractor.records import Guard, GuardOrigin, RaiseSite, SiteKind
from extractor.templates import parse_template

ARGS = '''
def add_cli_args(parser):
    parser.add_argument("--enable-lora", action="store_true",
                        help="Serve LoRA adapters over the base model. Needs a base model.")
    parser.add_argument("--tp-size", type=int, default=1)
'''
FLAGS = build_flag_model({"p/args.py": ARGS})
RENDERER = Renderer.for_model(FLAGS)


def flag(name: str) -> Ref:
    return Ref(RefKind.FLAG, name, f"cfg.{name}")


LORA, SPEC, TP = Truthy(flag("enable_lora")), Truthy(flag("enable_spec")), flag("tp_size")
HIP = Truthy(Ref(RefKind.PLATFORM, "is_hip", "is_hip()"))
MOE = Truthy(Ref(RefKind.MODEL, "is_moe", "model_config.is_moe"))
STATE = Truthy(Ref(RefKind.UNKNOWN, "pool", "self.pool"))
CALL = Truthy(Apply("f", (TP,), "f(tp)"))


def entry(template: str, expr: Expr = LORA, *, guard: str = "", origin: GuardOrigin = GuardOrigin.IF,
          exception: str = "ValueError", kind: SiteKind = SiteKind.RAISE, comment: str = "",
          extra: dict | None = None, rows: tuple[tuple[str, Expr], ...] = (), query: str = "") -> Entry:
    guards = (Guard(expr, guard, origin),) if guard else ()
    site = RaiseSite("p/check.py", 10, "check", kind, exception, parse_template(template), guards,
                     comment=comment, query=query)
    variants = tuple(EntryVariant((("r", r),), r, Trigger.build(e, RENDERER)) for r, e in rows)
    return Entry("0" * 16, site, "u", 1, "", Trigger.build(expr, RENDERER), variants, extra=extra or {})


@pytest.mark.parametrize(("made", "expected"), [
    # by the code around the check
    (entry("bad config", guard="except json.JSONDecodeError", origin=GuardOrigin.EXCEPT), Category.PARSE),
    (entry("bad paths", Not(Truthy(Apply("isinstance", (flag("paths"), Const("list")), "isinstance(cfg.paths, list)"))),
           guard="not isinstance(cfg.paths, list)"), Category.PARSE),
    # an isinstance check on the model's config is about the model, not a value that does not parse
    (entry("Q1 requires an MTP draft checkpoint", Not(Truthy(Apply("isinstance", (MOE.term, Const("Q1")), "…"))),
           guard="not isinstance(draft, Q1)"), Category.MODEL),
    (entry("could not parse --x"), Category.PARSE),
    # the form of a host:port address, even where "empty" would read as a bound
    (entry("Empty address string", Not(CALL)), Category.PARSE),
    (entry("Missing closing bracket in IPv6 address: {addr!r}", CALL), Category.PARSE),
    (entry("Port out of range (0-65535): {port}", Compare(">", TP, Const(65535))), Category.RANGE),
    (entry("cert file missing", guard="cfg.cert and not os.path.isfile(cfg.cert)"), Category.MISSING),
    (entry("needs granian", guard="except ImportError", origin=GuardOrigin.EXCEPT), Category.MISSING),
    (entry("no weights", exception="FileNotFoundError"), Category.MISSING),
    (entry("FlashInfer is not installed"), Category.MISSING),
    (entry("pool broken", STATE, kind=SiteKind.ASSERT, exception="AssertionError"), Category.INTERNAL),
    (entry("x", extra={"internal": True}), Category.INTERNAL),
    # what the message says the rule is about, checked against what the condition reads
    (entry("--a requires --b in {{x, y}}", And((Compare(">", TP, Const(0)), Compare("==", flag("b"), Const("none"))))),
     Category.COMPANION),  # the shape alone says "range"
    (entry("--a is incompatible with --b", And((LORA, Not(SPEC)))), Category.EXCLUSIVE),
    (entry("--a needs CUDA", And((LORA, HIP))), Category.PLATFORM),
    # a platform fact inside an either-or is still the platform the message names
    (entry("--a requires an SM100 GPU.", And((LORA, Or((Not(SPEC), HIP))))), Category.PLATFORM),
    (entry("--a is not supported for this model", And((LORA, MOE))), Category.MODEL),
    (entry("n must equal gamma + 1", And((LORA, Compare("!=", TP, flag("gamma"))))), Category.RANGE),
    (entry("A requires pinning weights in CPU memory, so --n must be less than or equal to 2 * --m",
           And((LORA, Compare(">", TP, Const(2))))), Category.RANGE),  # the option after ", so" is the rule's
    (entry("--f must be in (0, 1].", Compare(">", TP, Const(1))), Category.RANGE),
    (entry("--n is not in the config's candidate steps", Not(CALL)), Category.RANGE),
    (entry("Cache does not yet support DP attention", And((LORA, Compare(">", TP, Const(1))))), Category.EXCLUSIVE),
    (entry("--a requires the Mooncake linker", And((LORA, CALL))), Category.COMPANION),
    # a table of features one option does not support: a row's wording ("with --tp > 1") is no range
    (entry("{option} does not yet support {mode}", Or((LORA, CALL)),
           rows=(("DP attention with --tp > 1", Compare(">", TP, Const(1))), ("PD multiplexing", SPEC))),
     Category.EXCLUSIVE),
    (entry("LoRA with speculative decoding", LORA), None),  # "decoding" says nothing about parsing
    # the condition's shape
    (entry("x", And((LORA, Not(SPEC)))), Category.COMPANION),
    (entry("x", And((LORA, SPEC))), Category.EXCLUSIVE),
    (entry("x", Compare("<", TP, Const(1))), Category.RANGE),
    (entry("x", Not(In(flag("backend"), Const(("a", "b"))))), Category.RANGE),
    (entry("x", HIP), Category.PLATFORM),
    (entry("x", MOE), Category.MODEL),
    (entry("x", LORA), None),  # one feature, no reason: nothing a reader could use
    (entry("x", CALL), None),
])
def test_category(made, expected):
    assert category(made) == expected


DEVICE = flag("device")


@pytest.mark.parametrize(("made", "expected"), [
    # a test of the device the user chose is about the platform the message names
    (entry("UNO only supports CUDA.", And((LORA, Compare("!=", DEVICE, Const("cuda"))))), Category.PLATFORM),
    (entry("--a requires --device cuda", And((LORA, Compare("!=", DEVICE, Const("cuda"))))), Category.PLATFORM),
    # where the message names no platform, the device is one more option
    (entry("--a is incompatible with the --device given", And((LORA, Compare("==", DEVICE, Const("npu"))))),
     Category.EXCLUSIVE),
])
def test_a_setting_choosing_the_device_is_read_as_the_platform(made, expected):
    assert category(made, frozenset({"device"})) == expected
    assert category(made) != Category.PLATFORM  # without the profile's word, it is one more option


@pytest.mark.parametrize("template, reason", [
    ("X does not support Y: HiSparse selects a non-sharded allocator and owns pages.",
     "HiSparse selects a non-sharded allocator and owns pages."),
    ("Z is supported only on CUDA because draft sampling uses a Triton kernel.",
     "draft sampling uses a Triton kernel."),
    ("K needs static mode; compact/cap-accept are not validated under DCP (got {m!r}).",
     "compact/cap-accept are not validated under DCP."),
    ("Invalid {q}. \nMOE supports only: 'fp8', 'mxfp8', 'nvfp4_online', or bfloat16 (None).", ""),  # a list
    ("A is not supported; response storage must remain disabled in PD mode.",
     "response storage must remain disabled in PD mode."),
    ("UNO requires FA3; got prefill={p!r}, decode={d!r}.", ""),  # values, not a reason
    ("B unsupported under PD; use --strategy extra_buffer instead of it.", ""),  # advice
    # a word that is advice only on its own ("load it"), not as part of another ("load-aware")
    ("E requires --m round_robin; load-aware methods require global load snapshots (got {m}).",
     "load-aware methods require global load snapshots."),
    ("Invalid devices for {c}: {devs}. Available devices: {av}", ""),
    ("x must be positive", ""),
    # a later sentence that explains; a "so" clause; a parenthesis that explains
    ("S is not supported with PP yet. It requires prefill context parallelism, which PP lacks.",
     "It requires prefill context parallelism, which PP lacks."),
    ("Scale-up requires --enable-dp-lm-head so output projection does not depend on TP.",
     "output projection does not depend on TP."),
    ("U does not support PP (whole-envelope transfer has no per-layer entries).",
     "whole-envelope transfer has no per-layer entries."),
    ("Without an EP backend, attention DP (--attn-dp-size) is required (DeepSeek-V4 non-EP DP TBO path).",
     ""),  # a closing parenthesis that names the case, no statement
    ("--dcp-size {d} needs each rank to hold KV heads. Use a smaller --dcp-size.", ""),  # advice after
    ("{name!r} is not overridable; the overridable set is {sorted(HOOKS)}.", ""),  # a value shown
    ("--grpc-port / SGLANG_GRPC_PORT ({cfg.grpc_port}) must be between 1 and 65535", ""),  # a parenthesis cut
    # ", so": the clause before is the reason, the one after the rule it leads to
    ("Enabling overlap loading requires pinning adapter weights in CPU memory, so --max-loaded must be "
     "at most double --per-batch: {limit}", "Enabling overlap loading requires pinning adapter weights in CPU memory."),
    ("--decode-backend flashkda is not supported: FlashKDA is prefill-only. Use --prefill-backend flashkda.",
     "FlashKDA is prefill-only."),  # a short reason
    ("--b trtllm requires chunked prefill (--chunked-prefill-size > 0).", ""),  # a bound, not why
    ("V2 cannot validate a model loaded through a connector. Load it from a model path or use --x deepep.",
     ""),  # advice in a later sentence
])
def test_message_reason_is_the_clause_that_says_why(template, reason):
    assert message_reason(template) == reason


@pytest.mark.parametrize("template, rule", [
    ("DSpark n must equal gamma + 1 (= {w} for gamma={g}), but got n={n}.", "DSpark n must equal gamma + 1"),
    ("--swa-ratio should be in range (0, 1.0].", "--swa-ratio should be in range (0, 1.0]"),  # the bound stays
    ("UNO supports at most Q=128 verify nodes, got Q={q}.", "UNO supports at most Q=128 verify nodes"),
    ("MPS supports only the pytorch backend; got backend={b!r}", "MPS supports only the pytorch backend"),
    ("UNO tree mode does not yet support PDMux.", "UNO tree mode does not yet support PDMux"),
    ("EPLB dynamic migration conflicts with static DWDP partitioning", "EPLB dynamic migration conflicts with "
     "static DWDP partitioning"),
    ("Pipeline parallelism is not compatible with overlap schedule", "Pipeline parallelism is not compatible "
     "with overlap schedule"),
    ("--a and --b are mutually exclusive.", "--a and --b are mutually exclusive"),
    ("UNO manages its own stochastic verification and does not use --speculative-use-rejection-sampling.",
     "UNO manages its own stochastic verification and does not use --speculative-use-rejection-sampling"),
    ("KV4 FA4 MLA expects decode_attention_backend to be one of {choices}, but got {b}",
     "KV4 FA4 MLA expects decode_attention_backend to be one of …"),
    ("failed to read config JSON", ""),  # states no rule
    ("{x} must be positive", ""),  # a value shown, not a rule
    # one value shown in a longer statement: left out
    ("Model type {arch} is not supported for encoder disaggregation. Supported: Qwen2VL",
     "Model type … is not supported for encoder disaggregation"),
    ("{option} does not yet support {mode}", ""),  # the values are the statement
    ("EP size {ep} must be divisible by attention replica size {n}.", "EP size … must be divisible by attention "
     "replica size …"),
    ("Elastic EP scale-up supports decode backend 'full' or 'disabled' (got {b!r}).",
     "Elastic EP scale-up supports decode backend 'full' or 'disabled'"),
    ("Invalid quantization '{q}'. FlashInfer MOE supports only: 'fp8'", ""),  # cut short at the list
    ("{name}={value} must be divisible by --tp-size", ""),  # two values read as one
    ("a should be at least b. a={a}, b={b}", "a should be at least b"),  # the values' own sentence
    ("The {b} backend is only supported on ROCm/HIP. Pick another for CUDA", "The … backend is only supported on "
     "ROCm/HIP"),  # one sentence
    ("the gguf Python package is required to prepare DeepSeek metadata", "the gguf Python package is required to "
     "prepare DeepSeek metadata"),
    ("--{flag} is not supported with CP-TP group sharing.", ""),  # a value inside a word
])
def test_message_rule_is_the_statement_without_its_values(template, rule):
    assert message_rule(template) == rule


DOCS = {("p/check.py", "check"): "Validate LoRA settings."}


@pytest.mark.parametrize(("made", "docs", "expected"), [
    # the message's reason first; the function comes last
    (entry("--a is not supported: the draft is built from a static snapshot.", And((LORA, SPEC))), DOCS,
     "sglang refuses options that exclude each other: the draft is built from a static snapshot. "
     "Raised by `check`."),
    # a rule and no reason: the rule, then the comment at the check
    (entry("n must equal gamma + 1, but got {n}", Compare("!=", TP, flag("gamma")), comment="verify window. More."),
     {}, "sglang refuses a value outside its allowed range: n must equal gamma + 1. "
     "Per the comment at the check: “verify window.” Raised by `check`."),
    # a purpose comes with the rule it is the purpose of
    (entry("_late must run after _resolve() so the prefill backend is resolved.", LORA, kind=SiteKind.ASSERT,
           exception="AssertionError"), {},
     "sglang refuses this launch: _late must run after _resolve(), so the prefill backend is resolved. "
     "Asserted in `check`."),
    # no reason in the message: the docstring, else the help of the option the message names
    (entry("--enable-lora and --b", And((LORA, SPEC))), DOCS,
     "sglang refuses options that exclude each other. Per the docstring of `check`: “Validate LoRA settings.”"),
    (entry("--enable-lora and --b", And((LORA, SPEC))), {},
     "sglang refuses options that exclude each other. "
     "Per the help of `--enable-lora`: “Serve LoRA adapters over the base model.” Raised by `check`."),
    # a reason in the message and a comment: both
    (entry("A is off: the pool is not built.", LORA, comment="pool built later"), DOCS,
     "sglang refuses this launch: the pool is not built. Per the comment at the check: “pool built later.” "
     "Raised by `check`."),
    # a plain statement, neither a rule nor a reason (sglang 0.5.23 speculative_hook.py:1036): quoted whole
    (entry("MTP uses its own full-vocabulary embedding and head.", LORA), {},
     "sglang refuses this launch: MTP uses its own full-vocabulary embedding and head. "
     "Per the help of `--enable-lora`: “Serve LoRA adapters over the base model.” Raised by `check`."),
    # a cause that refers back to the rule ("their") comes with it
    (entry("NVFP4 does not yet support LMCache because their host pools drop the scale layout.", LORA), {},
     "sglang refuses this launch: NVFP4 does not yet support LMCache because their host pools drop the scale "
     "layout. Raised by `check`."),
    # a name of two capitalized words keeps its capital; a plain first word does not
    (entry("Muse Spark needs TP4 or TP8.", LORA), {},
     "sglang refuses an option given without the companion option it needs: Muse Spark needs TP4 or TP8. "
     "Per the help of `--enable-lora`: “Serve LoRA adapters over the base model.” Raised by `check`."),
    (entry("The pool needs TP4 or TP8.", LORA), {},
     "sglang refuses an option given without the companion option it needs: the pool needs TP4 or TP8. "
     "Per the help of `--enable-lora`: “Serve LoRA adapters over the base model.” Raised by `check`."),
    # a statement that ends without a full stop is closed with one before the next source
    (entry("MTP uses its own full-vocabulary embedding and head", LORA), {},
     "sglang refuses this launch: MTP uses its own full-vocabulary embedding and head. "
     "Per the help of `--enable-lora`: “Serve LoRA adapters over the base model.” Raised by `check`."),
    # a message that only names the value it shows: what it says before the value
    (entry("Port out of range (0-65535): {port}", LORA), {},
     "sglang refuses this launch: port out of range (0-65535). "
     "Per the help of `--enable-lora`: “Serve LoRA adapters over the base model.” Raised by `check`."),
    # nothing says why: the category, in words
    (entry("bad value", guard="except ValueError", origin=GuardOrigin.EXCEPT), {},
     "sglang cannot parse the value it was given: it is not in the form the option expects. "
     "Per the help of `--enable-lora`: “Serve LoRA adapters over the base model.” Raised by `check`."),
    (entry("x", STATE, kind=SiteKind.ASSERT, exception="AssertionError"), {},
     "An internal invariant of sglang does not hold: the check guards the program's own state, not a "
     "command-line setting. Asserted in `check`."),
])
def test_meaning_says_why_from_the_first_source_that_does(made, docs, expected):
    assert meaning(made, docs, FLAGS, "sglang") == expected


def test_meaning_never_repeats_the_trigger():
    made = entry("A is off: the pool is not built.", And((LORA, SPEC)))
    assert made.trigger.text not in meaning(made, {}, FLAGS, "sglang")


def test_each_row_of_a_table_says_why_where_its_message_does():
    made = entry("LoRA {r}.", Truthy(TP), rows=(("does not support plan: batches would run unordered", SPEC),
                                          ("needs a small tp", Compare(">", TP, Const(1)))))
    assert [row_meaning(v.template) for v in made.variants] == ["Refused because batches would run unordered.", ""]
    assert meaning(made, {}, FLAGS, "sglang").endswith(
        "Each of its 2 table rows gives its own reason in its own `meaning`. Raised by `check`.")


def test_an_error_passed_on_points_to_the_entry_of_the_words_shown():
    """``raise AssertionError(str(exc)) from exc``: no category of its own to guess."""
    made = entry("{<caught exception>}", exception="AssertionError", comment="Retry until the pool settles.")
    said = meaning(made, {}, FLAGS, "sglang")
    assert category(made) is None
    assert said.startswith("sglang refuses this launch: `check` passes on, as AssertionError, an error that the "
                           "code it runs raised, with that error's own message")
    assert "Retry until the pool settles" in said


def test_a_failing_device_query_says_it_is_the_device_librarys_error_not_a_check():
    made = entry("Torch not compiled with CUDA enabled", TRUE, query="torch.cuda.get_device_capability")
    assert "is the device library's, not a check of sglang" in meaning(made, {}, FLAGS, "sglang")


@pytest.mark.parametrize("text, count", [
    ("A: b. Raised by `x.y`.", 2),
    ("A. Per the comment at the check: “one. Two.” Raised by `f`.", 3),
    ("A, e.g. b.", 1),
])
def test_sentences_count_a_quotation_as_part_of_its_own(text, count):
    assert len(sentences(text)) == count


@pytest.mark.parametrize("template, expected", [
    ("--a requires --b in {{log, raise}}", "--a requires --b in {log, raise}"),  # braces as printed
    ("LoRA batches need the plan stream: LoRA preparation would run unordered.",
     "LoRA preparation would run unordered"),  # "LoRA" keeps its case
    ("X is off: It breaks the pool layout.", "it breaks the pool layout"),
    # a reason that says "it" comes with the rule it explains
    ("--q only applies to the a2a backend (it removes the Q all-gather); got --b={b}.",
     ": --q only applies to the a2a backend (it removes the Q all-gather)."),
])
def test_the_message_is_quoted_as_printed(template, expected):
    assert expected in meaning(entry(template, And((LORA, SPEC))), {}, FLAGS, "sglang")


@pytest.mark.parametrize("template, expected", [
    # the first sentence shows the value refused; a later one states the rule
    ("Invalid quantization '{q}'. \nFlashInfer MOE supports only: 'fp8', 'mxfp8', or bfloat16 (None).",
     ": FlashInfer MOE supports only: 'fp8', 'mxfp8', or bfloat16 (None)."),
    # a rule with no subject is the value's
    ("Unsupported {arg} rule type: '{rule}'. Must be one of: 'tse', 'default'", ": the value must be one of: 'tse', "
     "'default'."),
    ("Unknown cp_strategy={value!r}; expected one of {{'zigzag', 'interleave'}}",
     ": the value must be one of {'zigzag', 'interleave'}."),
    ("expected GGUF architecture deepseek4, got {a!r}", ": expected GGUF architecture deepseek4."),
    # values shown in parentheses are left out; an option named by a value is "this option"
    ("Method in the config ({q}) does not match the method given by --quantization ({m}).",
     ": method in the config does not match the method given by --quantization."),
    ("--{flag} is not supported with CP-TP group sharing.", ": this option is not supported with CP-TP group sharing."),
])
def test_a_rule_stated_beside_the_value_shown_is_quoted(template, expected):
    assert expected in meaning(entry(template, And((LORA, SPEC))), {}, FLAGS, "sglang")


@pytest.mark.parametrize("template, expected", [
    # what the message states around a value or two it shows, the values as "…"
    ("manifest {field} is not a SHA-256 digest", ": manifest … is not a SHA-256 digest."),
    ("No valid IB devices specified for {context}", ": no valid IB devices specified for …"),
    ("stop_regex is {n} bytes, over the {limit}-byte limit", ": stop_regex is … bytes, over the …-byte limit."),
    # a full stop with no space after it still ends the statement
    ("Invalid modality '{m}' in --limit-mm-data-per-request.Allowed modalities are: {allowed}",
     ": invalid modality '…' in --limit-mm-data-per-request."),
    # opening with a value, a longer statement
    ("{p} looks like a JSON str, but it does not contain 'lora_name' and 'lora_path' keys",
     ": … looks like a JSON str, but it does not contain 'lora_name' and 'lora_path' keys."),
])
def test_a_statement_around_the_values_shown_is_quoted(template, expected):
    assert expected in meaning(entry(template, LORA), {}, None, "sglang")


@pytest.mark.parametrize("template", [
    "--cuda-graph-config[{phase}].backend={b!r} not allowed; allowed: {ALLOWED[phase]}",  # the rule is a value
    "{flag}: unknown fields: {sorted(unknown)}",  # values around a word or two
    "{option} does not yet support {mode}",  # opens with a value, and says too little around the values
    "--x={d} requires backend {b!r}, but --y={e!r} was set. Remove the backend option and select only the dtype.",
])
def test_a_message_that_says_nothing_but_values_is_only_its_category(template):
    from analyzers.meaning import category_only
    assert category_only(meaning(entry(template, LORA), {}, None, "sglang"))


def test_a_comment_is_quoted_to_its_first_full_stop():
    made = entry("x", LORA, comment="Check the ratio: branches reset it (e.g. Step3p forces 1.0). Then more.")
    assert "“Check the ratio: branches reset it (e.g. Step3p forces 1.0).”" in meaning(made, {}, FLAGS, "sglang")


def test_a_help_of_a_few_words_says_nothing():
    flags = build_flag_model({"p/args.py": 'def f(p):\n    p.add_argument("--enable-lora", help="Enable LoRA.")\n'})
    assert "help" not in meaning(entry("--enable-lora and --b", And((LORA, SPEC))), {}, flags, "sglang")


@pytest.mark.parametrize(("text", "bare"), [
    ("sglang refuses options that exclude each other. Raised by `check`.", True),
    ("sglang cannot parse the value it was given: it is not in the form the option expects. Raised by `f`.", True),
    ("sglang refuses a value outside its allowed range. Each of its 2 table rows has its own condition. "
     "Asserted in `v`.", True),
    ("sglang refuses options that exclude each other: the draft is built from a static snapshot.", False),
    ("sglang refuses this launch. Per the comment at the check: “pool built later.”", False),
])
def test_a_meaning_that_is_only_its_category_is_told_apart(text, bare):
    from analyzers.meaning import category_only
    assert category_only(text) is bare
