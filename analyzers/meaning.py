"""An entry's `meaning`: why the launch is refused, in a person's words.

It leads with what the program refuses (the entry's `Category`, read off the message, the
code around the check and the shape of its condition) and why, from the first source that
says: the message's own reason (`message_reason`), else the rule it states; then the comment
at the check, the function's docstring, or the help of the option the message names. Who
refuses (the function) comes last, and only while the text stays within three sentences.
The trigger is its own field: never repeated here.
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from analyzers.entries import Entry
from analyzers.message_advice import named_options
from analyzers.restriction import Category, kinds, restriction
from extractor.ir import RefKind, refs
from extractor.records import CAUGHT_BY, Guard, GuardOrigin, RaiseSite
from extractor.templates import RERAISED

# What the program refuses, per category: the lead, and what it adds where no source says why.
LEADS: dict[Category | None, tuple[str, str]] = {
    Category.PARSE: ("{p} cannot parse the value it was given", "it is not in the form the option expects"),
    Category.COMPANION: ("{p} refuses an option given without the companion option it needs", ""),
    Category.EXCLUSIVE: ("{p} refuses options that exclude each other", ""),
    Category.RANGE: ("{p} refuses a value outside its allowed range", ""),
    Category.PLATFORM: ("{p} does not support this setup on this platform", ""),
    Category.MODEL: ("{p} does not support this setup for this model", ""),
    Category.INTERNAL: ("An internal invariant of {p} does not hold",
                        "the check guards the program's own state, not a command-line setting"),
    Category.MISSING: ("{p} cannot find a file or package this setup needs", ""),
    None: ("{p} refuses this launch", ""),
}

_OWN = (GuardOrigin.IF, GuardOrigin.ELSE, GuardOrigin.ASSERT, GuardOrigin.EXCEPT, GuardOrigin.WHILE,
        GuardOrigin.CASE)
_MISSING_EXC = ("FileNotFoundError", "ModuleNotFoundError", "ImportError")
_MISSING_CODE = re.compile(r"os\.path\.(?:exists|isfile|isdir)|\.exists\(\)|find_spec|"
                           r"except\b.*\b(?:ImportError|ModuleNotFoundError|FileNotFoundError)\b")
_MISSING_TEXT = re.compile(r"\b(?:not found|does not exist|no such file|not installed|pip install|installation|"
                           r"cannot import|could not import|failed to import)\b", re.IGNORECASE)
# an ``except`` the raise is in, around a conversion: the value did not parse
_PARSE_CODE = re.compile(r"except\b.*\b(?:JSONDecodeError|ValueError|TypeError|IndexError|UnicodeError|"
                         r"YAMLError|SyntaxError)\b")
_NOT_INSTANCE = re.compile(r"\bnot \(?isinstance\(")  # ``if not isinstance(x, list): raise``
_PARSE_TEXT = re.compile(r"\b(?:pars(?:e|ing)|json|malformed|could not convert|invalid (?:literal|format|syntax|port)|"
                         r"hex digits|contain only|cannot contain|must be an? (?:integer|string|list|dict|number)|"
                         r"address|brackets?)\b",  # the form of a host:port address
                         re.IGNORECASE)
_EXCLUSIVE_TEXT = re.compile(r"\b(?:incompatible|not compatible|mutually exclusive|conflicts? with|"
                             r"cannot be (?:used|combined|enabled|set) (?:together|with|at the same time)|"
                             r"at the same time|simultaneously|only one of)\b", re.IGNORECASE)
# "X does not support Y", "X is not supported with Y": one feature refused with another
_UNSUPPORTED_TEXT = re.compile(r"\b(?:does not|doesn't|do not|cannot) (?:yet |currently )?support|"
                               r"(?:not|never) (?:yet |currently )?supported|unsupported|only supports?\b",
                               re.IGNORECASE)
# "X requires --y", "needs SGLANG_Z=1", "only supported with --w": another option (by its name or field) is needed
_COMPANION_TEXT = re.compile(r"\b(?:requires?|required|needs?|must (?:also )?be (?:set|enabled|specified|given)|"
                             r"only (?:works|supported|valid|available|allowed|applies) (?:with|when|to)|depends on)\b"
                             r"[^.;:,]*?(?:--[a-z]|\bSGLANG_[A-Z_]+|\b[a-z]+_[a-z0-9_]+\b)")
_PLATFORM_TEXT = re.compile(r"\b(?:cuda|rocm|hip|npu|xpu|cpu|mps|gpus?|sm ?\d+\+?|platforms?|hardware|ascend|"
                            r"nvidia|amd|intel|blackwell|hopper|musa|hpu)\b", re.IGNORECASE)
_MODEL_TEXT = re.compile(r"\b(?:models?|model_\w+|\w*arch\w*|checkpoints?|weights|hf_config|layers?|heads?|vocab|"
                         r"moe|mla|deepseek\S*|qwen\S*|llama\S*|kimi\S*|glm\S*|gemma\S*|mistral|ernie\S*|"
                         r"nemotron\S*|minimax\S*|olmo\S*)\b", re.IGNORECASE)
_RANGE_TEXT = re.compile(r"\b(?:positive|non-negative|negative|at least|at most|between|greater than|less than|"
                         r"larger than|smaller than|multiple of|divisible|divide|equal|out of range|in range|"
                         r"exceeds?|too (?:large|small|many|few|long)|power of|not in|one of|empty|duplicates)\b|"
                         r"[<>]=?|\bin [(\[]",
                         re.IGNORECASE)
_REQUIRES = re.compile(r"\b(?:requires?|needs?)\b", re.IGNORECASE)


def category(entry: Entry, platform_settings: frozenset[str] = frozenset()) -> Category | None:
    """The entry's `Category`: internal, missing and parse failures by the code around the
    check; otherwise what the message says the rule is about, then the condition's shape.
    `platform_settings`: the settings choosing the device (read like a platform fact)."""
    if entry.site.template.text == RERAISED:  # it passes on another raise's error: no category of its own
        return None
    found = kinds(entry.trigger.expr)
    text = entry.site.template.text
    rows = ((v.template, kinds(v.trigger.expr)) for v in entry.variants)  # a table's rows say what it is
    # a platform fact inside an either-or ("not cuda or not SM100") still makes it about the
    # platform, as does a test of the device the user chose (``--device npu``)
    platform = "platform" not in found and any(
        r.kind is RefKind.PLATFORM or (r.kind is RefKind.FLAG and r.name in platform_settings)
        for r in refs(entry.trigger.expr))
    said = _by_message(text, [*found, "platform"] if platform else found)
    # a table refusing each row's feature with one ("{option} does not yet support {mode}"):
    # what excludes what is the rows' business, not a row's wording ("with --x > 1" is no range)
    table = Category.EXCLUSIVE if entry.variants and _UNSUPPORTED_TEXT.search(text) else None
    return (_by_code(entry, found) or said or restriction(entry.trigger.expr)
            or _requires(text, found) or table
            or next((c for row, row_found in rows if (c := _by_message(row, row_found))), None))


def _by_code(entry: Entry, found: Sequence[str]) -> Category | None:
    """Internal, platform (a device query), missing or parse, by the code around the check."""
    site = entry.site
    text = site.template.text
    own = _own(site.direct)  # the earlier raises (never its own) are in the prior runs: not walked
    code = " ".join(g.text for g in own)
    caught = " ".join(g.text for g in own if g.origin is GuardOrigin.EXCEPT or g.text.startswith(CAUGHT_BY))
    user = {r.kind for r in refs(entry.trigger.expr)} & {RefKind.FLAG, RefKind.ENV}
    if entry.extra.get("internal") or (site.kind == "assert" and not user):
        return Category.INTERNAL
    if site.query:
        return Category.PLATFORM
    if site.exception in _MISSING_EXC or _MISSING_CODE.search(code) or _MISSING_TEXT.search(text):
        return Category.MISSING
    if _PARSE_CODE.search(caught) or (_NOT_INSTANCE.search(code) and "type" in found) or _PARSE_TEXT.search(text):
        return Category.PARSE
    return None


def _requires(text: str, found: Sequence[str]) -> Category | None:
    """"X requires the Mooncake linker": a setting needed that the message does not name as an option."""
    return Category.COMPANION if _REQUIRES.search(text) and set(found) - {"platform", "model", "other"} else None


def _own(guards: Sequence[Guard]) -> list[Guard]:
    """The guards of the check itself (not its callers', not the earlier checks')."""
    return [g for g in guards if g.origin in _OWN]


def _by_message(text: str, found: Sequence[str]) -> Category | None:
    """The category the message names, checked against what the condition reads (`found`)."""
    settings = [k for k in found if k not in ("platform", "model", "other")]
    if "platform" in found and _PLATFORM_TEXT.search(text):
        return Category.PLATFORM
    if "model" in found and (_MODEL_TEXT.search(text) or _UNSUPPORTED_TEXT.search(text)):
        return Category.MODEL
    parts = [k for k in found if k not in ("platform", "model")]  # on settings, read or not
    if _EXCLUSIVE_TEXT.search(text) or (settings and len(parts) >= 2 and _UNSUPPORTED_TEXT.search(text)):
        return Category.EXCLUSIVE
    if {"range", "relation"} & set(found) and _RANGE_TEXT.search(text):
        return Category.RANGE
    if _COMPANION_TEXT.search(text):
        return Category.COMPANION
    # a comparison errcat cannot read ("other") may be the bound the message states
    if {"value", "other"} & set(found) and _RANGE_TEXT.search(text):
        return Category.RANGE
    return None


# ------------------------------------------------------------------ the message's reason


# A clause of a message that is a value dump or advice, not a reason ("got x", "use y").
_NOT_A_REASON = re.compile(
    r"(got|but got|current values?|supported|allowed|available|valid|expected|please|use|set|unset|"
    r"disable|enable|pass|remove|run|add|select|raise|lower|build|declare|try|consider|see|e\.g\.|"
    r"for example|options|choices|values|received|found|instead|only|defaulting|falling back|load|remove|drop|"
    r"switch|install|upgrade|specify|provide|turn|restart|rerun|increase|decrease|reduce|change|make|pick|choose|"
    r"avoid)(?![\w-])",  # a word of its own: "load-aware methods ..." is no advice to load
    re.IGNORECASE)
# Where a message moves from what is refused to why: "...: <why>", "...; <why>", "because <why>",
# "requires X so <why>", "... (<why>)".
_REASON_SPLIT = re.compile(r"(?::|;| --| —| \() (?=\S)|(?<=\S) \((?=\S)|(?=\b(?:because|since|so that|so|otherwise) )")
# Sentences after the first: "X is not supported yet. It requires Y, which ..." (a hole may start one).
_SENTENCE = re.compile(r"(?<=[a-z0-9)\]}'`\"][.!?]) +(?=[A-Z{`'\"(])")
_LEADS = ("because ", "since ", "so that ", "so ", "otherwise ")
_GOT = re.compile(r"\s*\((?:got|but got)\b[^)]*\)", re.IGNORECASE)  # "(got {x!r})" inside a reason
_THEREFORE = re.compile(r",\s+so (?!that)")  # "A requires B, so C must ...": A is the reason, C the rule
# A rule the message states: "X must equal gamma + 1", "X is not supported with Y"
_RULE = re.compile(r"\b(?:must|should|requires?|needs?|expects?|only|cannot|can't|not supported|unsupported|"
                   r"supports|is supported (?:with|on|for|by)|(?:is|are) required|do(?:es)? not (?:support|use)|"
                   r"does not (?:yet|currently) support|has not (?:yet )?(?:been )?\w+ed|"
                   r"conflicts? with|(?:not compatible|incompatible) with|mutually exclusive|"
                   r"not allowed|exceeds?|at most|at least)\b", re.IGNORECASE)
_RULE_END = re.compile(r"(?::|;| --| —) |(?=\b(?:because|since|so that|so|otherwise) )")
_PRONOUN = re.compile(r"(?:it|its|they|their|this|these)\b", re.IGNORECASE)  # a reason that needs its rule
_VALUE_TAIL = re.compile(r"\.\s+\w+=\{.*$|[,;]?\s*\b(?:but |)got\b.*$|\s*\([^)]*\{[^)]*\)|\s*[:=]\s*\{[^}]*\}\S*$",
                         re.IGNORECASE)


_HOLE = re.compile(r"(?<!\{)\{(?!\{)[^{}]*\}")  # a template's replacement field, not an escaped brace
_CUT = re.compile(r"\b(?:only|in|of|for|with|by|to|supports)$|\}\W{0,1}\{")  # cut short; two values as one
_PART_WORD = re.compile(r"[\w.-]\{(?!\{)|(?<!\})\}[\w-]")  # a field inside a word ("--{flag}"): no word left
_BOUND = re.compile(r"\s[<>]=?\s|\s[!=]=\s")


def _as_reason(clause: str, least: int = 3) -> str:
    """`clause` as a reason, or "" where it only shows values or gives advice."""
    clause = _GOT.sub("", clause).strip().rstrip(".").rstrip(")").strip()
    for lead in _LEADS:
        clause = clause.removeprefix(lead)
    words = clause.split()
    holes = clause.count("{") - 2 * clause.count("{{")
    listing = clause.count("'") > 2 or clause.count(",") >= len(words) / 3  # a list of values
    listing = listing or clause.endswith("}")  # "the overridable set is {sorted(x)}": shows a value
    if clause.count(")") > clause.count("("):  # the rest of a parenthesis: "({port}) must be between 1 and 65535"
        return ""
    if _BOUND.search(clause):  # "(--chunked-prefill-size > 0)": the bound the rule states, not why
        return ""
    if len(words) >= least and holes <= 1 and not listing and not _NOT_A_REASON.match(clause) and "=" not in clause:
        return _literal(_clip(clause)) + "."
    return ""


def message_reason(template: str) -> str:
    """The part of a message that says why, e.g. "the draft is built from a static
    snapshot" from "X does not support Y: the draft is built from a static snapshot.",
    "A requires B" from "A requires B, so C must be at most 2", or a later sentence that
    explains ("... yet. It requires prefill context parallelism."); "" when the message
    only states the refusal, shows values or gives advice."""
    first, *later = _SENTENCE.split(template.strip())
    therefore = _THEREFORE.search(first)
    if therefore and (reason := _as_reason(_REASON_SPLIT.split(first[:therefore.start()])[-1], least=5)):
        return reason
    candidates = _REASON_SPLIT.split(first)[1:]
    for sentence in later:
        candidates += [sentence, *_REASON_SPLIT.split(sentence)[1:]]
    return next((r for c in candidates if not _label(c) and (r := _as_reason(c))), "")


# a word that makes a clause a statement ("(whole-envelope transfer has no per-layer entries)")
_VERB = re.compile(r"\b(?:is|are|was|were|has|have|had|does|do|did|can|cannot|can't|must|will|would|should|may|"
                   r"might|need|needs|require|requires|lack|lacks|hold|holds|run|runs|use|uses|depend|depends|"
                   r"expect|expects|break|breaks|keep|keeps|remove|removes|apply|applies|own|owns|manage|manages|"
                   r"read|reads|write|writes|fail|fails|work|works|only)\b", re.IGNORECASE)


def _label(clause: str) -> bool:
    """A closing parenthesis with no statement in it names the case ("(DeepSeek-V4 non-EP DP TBO
    path)"): no reason."""
    return clause.rstrip().rstrip(".").endswith(")") and "(" not in clause and not _VERB.search(clause)


def message_rule(template: str) -> str:
    """The rule a message states, its shown values left out: "DSpark speculative_num_draft_tokens
    must equal gamma + 1" from "... must equal gamma + 1 (= {w} for gamma={g}), but got ..."."""
    first = _SENTENCE.split(template.strip())[0]
    head = _RULE_END.split(_VALUE_TAIL.sub("", first))[0].strip().rstrip(".,")
    holes = len(_HOLE.findall(head))
    words = len(_HOLE.sub("", head).split())
    if not _RULE.search(head) or holes > 2 or words < 3 + holes + (holes > 1) or _PART_WORD.search(head) \
            or _CUT.search(head):
        return ""
    # a value or two shown in a longer statement ("Model type {arch} is not supported for ..."): an ellipsis
    return sentences(_literal(_clip(_HOLE.sub("…", head))))[0].rstrip(".")


def _literal(text: str) -> str:
    """A template's text as printed: ``{{`` is a brace."""
    return text.replace("{{", "{").replace("}}", "}")


def row_meaning(template: str) -> str:
    """Why one row of a condition table refuses, where its message says."""
    reason = message_reason(template)
    return f"Refused because {_lower_first(reason)}" if reason else ""


def _clip(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " …"


def _lower_first(text: str) -> str:
    """"It requires" -> "it requires"; "DSpark", "FlashKDA", "--x" and a name of two
    capitalized words ("Muse Spark", "Elastic EP") stay."""
    word, _, rest = text.partition(" ")
    named = rest[:1].isupper()
    return text[0].lower() + text[1:] if len(word) > 1 and word[0].isupper() and word[1:].islower() \
        and not named else text


# ------------------------------------------------------------------ the meaning


_QUOTED = re.compile(r"“[^”]*”|`[^`]*`")
_SENTENCE_END = re.compile(r"(?:(?<=[.!?])|(?<=[.!?]”))\s+(?=[A-Z`“\"(])")


def sentences(text: str) -> list[str]:
    """`text`'s sentences, a quotation (“...”) or code span counted as part of its own."""
    masked = _QUOTED.sub(lambda m: "x" * (len(m.group()) - 2) + m.group()[-2:] if m.group()[0] == "“"
                         else "x" * len(m.group()), text)
    out, start = [], 0
    for cut in _SENTENCE_END.finditer(masked):
        out.append(text[start:cut.start()])
        start = cut.end()
    return out + [text[start:]] if text[start:].strip() else out


_FULL_STOP = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\betc)\.\s+(?=[A-Z`])")  # not after "e.g."


def _first(text: str) -> str:
    """The first sentence of a comment, docstring or help ("(e.g. Step3p forces 1.0)" does not end one)."""
    paragraph = " ".join(text.strip().split("\n\n", 1)[0].split())
    return _FULL_STOP.split(paragraph, 1)[0]


def _quote(text: str) -> str:
    quoted = _clip(_first(text), 200)
    return "“" + (quoted if quoted.endswith("…") else quoted.rstrip(".") + ".") + "”"


def source_reason(site: RaiseSite, doc: str, helps: Sequence[tuple[str, str]]) -> str:
    """Why, from the code around the check where the message does not say: the comment at
    it, else the function's docstring, else the help of the first option the message names."""
    if site.comment.strip():
        return f"Per the comment at the check: {_quote(site.comment)}"
    if doc:
        return f"Per the docstring of `{site.function}`: {_quote(doc)}"
    for option, text in helps:
        return f"Per the help of `{option}`: {_quote(text)}"
    return ""


def option_helps(entry: Entry, flags: Any) -> list[tuple[str, str]]:
    """(option, help) of the options the message names (as ``--x`` or by their field), in its
    order, else of the trigger's one option; helps of a few words ("Speculative algorithm.") say nothing."""
    if flags is None:
        return []
    text = entry.site.template.text
    named = named_options(text, flags)
    named += [o for o in entry.trigger.flags if (f := flags.by_option(o)) is not None and re.search(
        rf"\b{re.escape(f.dest)}\b", text)]
    if not named and len(entry.trigger.flags) == 1:
        named = list(entry.trigger.flags)
    out: list[tuple[str, str]] = []
    for option in dict.fromkeys(named):
        flag = flags.by_option(option)
        if flag is None or not flag.help or flag.hidden:
            continue
        if "{" not in flag.help and len(_first(flag.help).split()) >= 4:
            out.append((option, flag.help))
    return out


def meaning(entry: Entry, docstrings: Mapping[tuple[str, str], str], flags: Any = None,
            program: str = "the program", platform_settings: frozenset[str] = frozenset()) -> str:
    """Why `entry`'s check refuses the launch, 1-3 sentences (see the module's docstring);
    `platform_settings`: the settings choosing the device (`category`)."""
    site = entry.site
    if site.crash is not None and "crash" in entry.extra:  # Python's own error: the check it lacks
        return str(entry.extra["crash"]["meaning"])
    if site.query:
        return (f"On a machine without the device `{site.function}` asks about (no GPU, or a build of the "
                f"library without its support), the query `{site.query}()` itself fails with this error: it "
                f"is the device library's, not a check of {program}. It needs a machine with the device, or "
                f"a launch that does not take this path.")
    if site.template.text == RERAISED:  # the words are the caught error's: its own entry says why
        lead = LEADS[None][0].format(p=program)
        text = [f"{lead}: `{site.function}` passes on, as {site.exception}, an error that the code it runs "
                "raised, with that error's own message; the entry whose message you see says why."]
        why = source_reason(site, docstrings.get((site.path, site.function), ""), option_helps(entry, flags))
        return " ".join([*text, why] if why else text)
    lead, plain = LEADS[category(entry, platform_settings)]
    lead = lead.format(p=program)
    lead = lead[0].upper() + lead[1:] if lead.startswith("the ") else lead
    reason, said = _said(site.template.text)
    if reason and not site.comment.strip():
        why = ""
    else:  # the comment beside a reason; without one, the docstring or an option's help too
        why = source_reason(site, docstrings.get((site.path, site.function), ""),
                            [] if reason else option_helps(entry, flags))
    text = [_ended(f"{lead}: {_lower_first(said)}") if said else f"{lead}: {plain}." if plain else f"{lead}."]
    text += [why] if why else []
    if entry.variants:
        says = any(row_meaning(v.template) for v in entry.variants)
        text.append(f"Each of its {len(entry.variants)} table rows " +
                    ("gives its own reason in its own `meaning`." if says else "has its own condition."))
    if len(text) < 3 and site.function and not why.startswith("Per the docstring"):
        text.append(("Asserted in" if site.kind == "assert" else "Raised by") + f" `{site.function}`.")
    return " ".join(text)


def _ended(sentence: str) -> str:
    """`sentence` closed with a full stop where the message's words end without one."""
    return sentence if sentence.rstrip().endswith((".", "!", "?", "…")) else f"{sentence.rstrip()}."


_BOOKKEEPING = re.compile(r"(?:Raised by|Asserted in) `[^`]*`\.|Each of its \d+ table rows has its own condition\.")


def category_only(text: str) -> bool:
    """Is the meaning `text` only its category's lead (and who refuses), no reason?"""
    leads = "|".join(re.escape(f"{lead}: {plain}." if plain else f"{lead}.").replace(re.escape("{p}"), ".+?")
                     for lead, plain in LEADS.values())
    said = [s for s in sentences(text) if not _BOOKKEEPING.fullmatch(s.strip())]
    return len(said) == 1 and re.fullmatch(f"(?i:{leads})", said[0].strip()) is not None


def _said(template: str) -> tuple[str, str]:
    """The message's reason, and what the meaning quotes of it: the reason, else the rule it states;
    a reason that says "it" ("(it removes the Q gather)") comes with the rule it explains."""
    reason, rule = message_reason(template), message_rule(template)
    if reason and rule and _PRONOUN.match(reason) and reason.rstrip(".") in rule:
        return reason, rule + "."
    # a purpose ("X must run after Y so the backend is resolved") says nothing without its rule
    purpose = re.search(rf"\b(so that|so) {re.escape(reason.rstrip('.'))}", _literal(template)) if reason else None
    if purpose and rule:
        return reason, f"{rule}, {purpose.group(1)} {reason}"
    # a cause that says "their" ("... because their host pools do not ...") comes with the rule it explains
    cause = re.search(rf"\b(because|since) {re.escape(reason.rstrip('.'))}", _literal(template)) \
        if reason and _PRONOUN.match(reason) else None
    if cause and rule:
        return reason, f"{rule} {cause.group(1)} {reason}"
    if not reason and not rule:  # a plain statement of why ("MTP uses its own ... head."): quoted whole
        return "", _statement(template) or _stated_rule(template) or _shown_statement(template)
    return reason, reason or (rule + ".").lstrip(".")


_OPTION_HOLE = re.compile(r"--\{[^{}]*\}")  # an option the message names by a value ("--{flag} is not ...")
_SHOWN = re.compile(r"\s*\([^()]*\{[^()]*\)")  # a value shown in parentheses: "the model config ({q})"
_EXPECTED = re.compile(r"(?:must be|expected(?: to be)?)\s+", re.IGNORECASE)  # a rule with no subject
_OF_KIND = re.compile(r"(?:one of|an?)\b", re.IGNORECASE)  # ... about the value: "expected one of", "a string"
_MISMATCH = re.compile(r"\bdo(?:es)? not match\b", re.IGNORECASE)


def _stated_rule(template: str) -> str:
    """Where the message's first statement shows the value it refuses ("Invalid quantization
    '{q}'."), the rule a clause or a later sentence states with no value in it, whole
    ("FlashInfer MOE supports only: 'fp8', 'mxfp8'."); one with no subject is the value's
    ("Must be one of: 'tse', 'default'": "the value must be one of: 'tse', 'default'"). An option
    named by a value is "this option"; values shown in parentheses are left out."""
    text = _SHOWN.sub("", _OPTION_HOLE.sub("this option", " ".join(template.split())))
    first, *later = _SENTENCE.split(text)
    for part in [first, *_RULE_END.split(first)[1:], *later]:
        part = _VALUE_TAIL.sub("", part).strip().rstrip(".").strip()
        subjectless = _EXPECTED.match(part)
        if _HOLE.search(part) or len(part.split()) < 3 or not (_RULE.search(part) or _MISMATCH.search(part)
                                                                or subjectless):
            continue
        if subjectless is None and _NOT_A_REASON.match(part):  # advice ("Remove the backend option ...")
            continue
        if subjectless is not None and _OF_KIND.match(part, subjectless.end()):
            part = "the value must be " + part[subjectless.end():]
        return _literal(_clip(part))
    return ""


def _shown_statement(template: str) -> str:
    """The message's first statement where it shows a value or two in a statement of four words
    or more (six where it opens with a value), the values as "…" ("manifest {field} is not a
    SHA-256 digest": "manifest … is not a SHA-256 digest"); "" where it shows more, or says
    too little around them."""
    text = _GLUED.sub(". ", " ".join(template.split()))  # "...-request.Allowed ...": two sentences
    first = _RULE_END.split(_SENTENCE.split(text)[0])[0].strip().rstrip(".,")
    holes, words = len(_HOLE.findall(first)), _HOLE.sub("", first)
    least = 6 if _HOLE.match(first) else 4
    if not 0 < holes <= 2 or len(words.split()) < least or not (_VERB.search(words) or _FAULT.search(words)):
        return ""
    return _literal(_clip(_HOLE.sub("…", first)))


_GLUED = re.compile(r"(?<=[a-z])\.(?=[A-Z][a-z])")  # a full stop with no space after it
_FAULT = re.compile(r"\b(?:could|not|no|invalid|unknown|unsupported|missing)\b", re.IGNORECASE)  # says what is wrong


def _statement(template: str) -> str:
    """The message's first sentence where it shows no value and says something (4 words or more);
    else what it says before the value it shows ("Port out of range (0-65535): {port}"), in 3 words or more."""
    first = sentences(_literal(template.strip()))[0].strip() if template.strip() else ""
    if first and not _HOLE.search(first) and len(first.split()) >= 4:
        return first
    head, colon, shown = first.partition(": ")
    whole = colon and _HOLE.fullmatch(shown.strip().rstrip(".").strip("'\"`")) is not None
    return head.strip() if whole and not _HOLE.search(head) and len(head.split()) >= 3 else ""
