"""The values the witness search (`analyzers.witness`) tries for an option or an env var:
the condition's own constants, the option's declared choices and its type, values a person
passes, stand-ins for files, directories and models, JSON objects for an option that takes
JSON, and values the code compares the setting against elsewhere."""
from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from analyzers.counts import count_values
from analyzers.eval_model import Model
from analyzers.examples import DIR, FILE, JSON_LIST, JSON_WORD, MISSING, MODEL, WORD
from analyzers.flag_types import ValueKind, ValueType, one_word_list, value_type
from analyzers.flags import Flag
from analyzers.json_fields import is_json_field
from analyzers.kleene import UNKNOWN
from extractor.ir import (
    ATTRIBUTE,
    KEYWORD,
    RAISES,
    SOME_ITEM,
    Apply,
    Const,
    Expr,
    Ref,
    RefKind,
    children,
    is_member_text,
)

NOT_GIVEN: Any = UNKNOWN  # as a candidate: drop the flag / unset the variable



def constants_in(expr: Expr) -> list[Any]:
    out: list[Any] = []
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, Apply) and node.fn == "isinstance":  # its constant is a type name, no value
            stack.append(node.args[0])
            continue
        if isinstance(node, Apply) and node.fn == SOME_ITEM and len(node.args) == 3:  # args[1]: the loop's name
            stack += [node.args[2], node.args[0]]
            continue
        if isinstance(node, Apply) and node.fn in (RAISES, KEYWORD) and node.args:  # args[0]: names, no value
            stack.extend(reversed(node.args[1:]))
            continue
        if isinstance(node, Apply) and node.fn == ATTRIBUTE and node.args:  # args[1]: the attribute's name
            stack.append(node.args[0])
            continue
        stack.extend(reversed(children(node)))
        if isinstance(node, Const):  # a tuple's items, a dict's keys (``REGISTRY.get(arch)``)
            out += list(node.value) if isinstance(node.value, (tuple, Mapping)) else [node.value]
        elif isinstance(node, Ref) and node.kind is RefKind.FLAG and node.name.endswith("()"):
            out += _call_args(node.text)
    return out


def _call_args(text: str) -> list[Any]:
    """Literal string arguments in a derived leaf's text: ``x.startswith(("a", "b"))``."""
    return re.findall(r"""["']([^"'\\]*)["']""", text)


_FITS: dict[str, Callable[[Any], bool]] = {
    ValueKind.BOOL: lambda v: isinstance(v, bool),
    ValueKind.INT: lambda v: isinstance(v, int) and not isinstance(v, bool),
    ValueKind.FLOAT: lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    ValueKind.STR: lambda v: isinstance(v, str),
}


def _fits(value: Any, kind: str) -> bool:
    fits = _FITS.get(kind)
    return fits is not None and fits(value)


def numbers_near(consts: Iterable[Any], kind: str) -> list[Any]:
    out: list[Any] = []
    for c in consts:
        if isinstance(c, (int, float)) and not isinstance(c, bool):
            step = 1 if kind == "int" else 0.5
            out += [c, c + step, c - step, c * 2]
    return [int(v) if kind == "int" else float(v) for v in out if kind != "int" or float(v).is_integer()]


def _natural_first(values: list[Any]) -> list[Any]:
    """Positive numbers, then 0, then negative ones (each in their order): where several
    values work, a command shows one a person passes (``--tp-size 2``, not 0 or -1); a
    check about 0 or a negative value still finds one, later."""
    return sorted(values, key=lambda v: 0 if v > 0 else 1 if v == 0 else 2)


# 3: with 2, a pair whose remainder is not 0 (`a % b != 0` checks)
_SAMPLES: dict[str, list[Any]] = {"int": [1, 2, 0, 8, -1, 3], "float": [0.5, 0.25, 1.0, 0.0, 2.0, -1.0],
                                  "bool": [True, False]}


def _free(key: str, dest: str | None, consts: Sequence[Any], model: Model) -> list[Any]:
    """Strings to try beyond the condition's own: the stand-in of a model, file or
    directory flag, else what the code compares this setting against elsewhere, then a
    word nothing names (a JSON object where the flag's help says it takes JSON); an
    empty string last."""
    stand_in = model.examples.stand_in(dest) if dest is not None else None
    if stand_in is not None:  # a file or directory that is there, then one that is not
        return [stand_in, *([MISSING] if stand_in in (FILE, DIR) else []), ""]
    known = [v for v in model.examples.known_values(key) if isinstance(v, str) and v not in consts]
    flag = flag_of(dest, model) if dest is not None else None
    word = JSON_WORD if takes_json(flag) else WORD
    return [*known, word, ""]


_JSON = re.compile(r"\bjson\b", re.IGNORECASE)


def takes_json(flag: Flag | None) -> bool:
    """Does the flag's help say it takes JSON text?"""
    return flag is not None and bool(_JSON.search(flag.help or ""))


def _scalars(dest: str, kind: str, consts: Sequence[Any], model: Model) -> list[Any]:
    """Values of one kind to try: the condition's own constants first."""
    if kind == "int" and model.examples.counts(dest):
        out = count_values(numbers_near(consts, kind))
    elif kind in ("int", "float"):
        out = _natural_first(numbers_near(consts, kind) + _SAMPLES[kind])
    elif kind == "bool":
        out = [True, False]
    else:
        own = [c for c in consts if isinstance(c, str)]
        out = _json_texts(dest, consts, model) + own + _free(f"{RefKind.FLAG}:{dest}", dest, own, model)
    return [v for v in out if _fits(v, kind)]


def _json_texts(dest: str, consts: Sequence[Any], model: Model) -> list[Any]:
    """For a flag whose help says it takes JSON, first: the objects a dict flag would try
    (`_dict_values`) with the condition's names as keys, and one whose key it does not
    name, as the text a command line gives, so a check that parses it
    (``json.loads(cfg.x).get("window")``) can be met."""
    flag = flag_of(dest, model)
    if not takes_json(flag):
        return []
    keys = [c for c in consts if not isinstance(c, str) or c.isidentifier()]
    objects = [*_dict_values(keys), {WORD: "value"}]
    return [json.dumps(v) if isinstance(v, Mapping) else v for v in unique(objects)]


def _writable(consts: Sequence[Any]) -> list[Any]:
    """The constants a command line can carry: not an enum member's source text."""
    return [c for c in consts if not is_member_text(c)]


def flag_of(dest: str, model: Model) -> Flag | None:
    return model.flags.by_dest(dest) if model.flags is not None else None


def flag_candidates(dest: str, consts: Sequence[Any], model: Model) -> list[Any]:
    """NOT_GIVEN, then values that fit the flag: declared choices (the condition's
    constants among them first), else values from its type. Every value can be pasted:
    the model flag is only its stand-in, and argparse's declared choices are the only
    values of a choice flag (values outside a ``Literal`` type come last: the Python API
    takes them)."""
    flag = flag_of(dest, model)
    out: list[Any] = [] if flag is not None and flag.required else [NOT_GIVEN]  # a required flag stays given
    values = _flag_values(dest, flag, _writable(consts), model)
    if is_json_field(dest, model.flags):  # JSON holds any kind of value: one the field's own type check refuses
        values += [_OTHER_KIND.get(value_type(flag).kind, 1)]
    return list(unique(out + values))


# for a field of an option's JSON: a value of another kind than the field's (``{"key": 1}``
# where a check asks ``isinstance(key, str)``)
_OTHER_KIND: dict[str, Any] = {ValueKind.STR: 1, ValueKind.INT: WORD, ValueKind.FLOAT: WORD, ValueKind.BOOL: WORD}


def _flag_values(dest: str, flag: Flag | None, consts: list[Any], model: Model) -> list[Any]:
    """One candidate source per kind of value the flag takes (see `analyzers.flag_types`)."""
    if dest == model.examples.model:
        return [MODEL]  # facts about the model are stated by its stand-in (`<model:Arch>`), not by a value
    takes = value_type(flag)
    declared = declared_values(dest, flag, model)
    if takes.kind is ValueKind.BOOL:
        return [True, False]
    if takes.kind is ValueKind.LIST:
        found = _list_values(dest, takes.item_kind, declared, consts, model,
                             empty=flag is None or flag.nargs != "+")  # argparse refuses none for nargs="+"
        # one word of JSON its parser reads: also JSON that is no list of its items (its own type check)
        return found + [{"key": "value"}, (1,)] if one_word_list(flag) else found
    if takes.kind is ValueKind.DICT:
        return _dict_values(consts)
    if declared or takes.literal_choices:
        return _choice_values(dest, takes, declared, consts, model)
    return _scalars(dest, takes.kind, consts, model)


def declared_values(dest: str, flag: Flag | None, model: Model) -> list[Any]:
    """The flag's declared choices, else the program's own list of accepted values (the profile's)."""
    declared = list(flag.choices) if flag is not None and isinstance(flag.choices, tuple) else []
    return declared or list(model.examples.accepted(dest))


def _list_values(dest: str, item_kind: str, declared: list[Any], consts: list[Any], model: Model, *,
                 empty: bool = True) -> list[Any]:
    """Declared choices are each item's: the condition's own, then one it does not name;
    one item, none (where the command line can give none: `empty`), two, and one item four
    times (length checks)."""
    if declared:
        named = [c for c in consts if c in declared]
        items = list(unique(named + [c for c in declared if c not in named][:1]))
        singles = [(c,) for c in items if isinstance(c, str)]
    else:
        found = list(unique(_scalars(dest, item_kind, consts, model)))
        # two values a person passes, then those that are not (a check on some item: ``i < 0``)
        odd = [v for v in found[2:] if isinstance(v, (int, float)) and not isinstance(v, bool) and v <= 0][:2]
        items = found[:2] + (odd or found[2:3])
        singles = [(c,) for c in consts if isinstance(c, str)]
    first = items[0] if items else WORD
    # last, each other value alone (a check on some item: ``any(i < 0 for i in ids)``)
    others = [] if declared else [(c,) for c in items[1:] if not isinstance(c, str)]
    return singles + [(first,), *([()] if empty else []), tuple(items[:2]), (first,) * 4, *others,
                      *_rule_with_numbers(item_kind, consts)]


def _rule_with_numbers(item_kind: str, consts: Sequence[Any]) -> list[tuple[Any, ...]]:
    """A list of words the condition reads as a rule and its numbers (``--buckets tse 1 2 -1``:
    ``rule[0] == "tse"``, ``float(rule[1])``): each rule it names, with numbers a person
    writes and one below zero (a check on some number)."""
    numbers = any(isinstance(c, (int, float)) and not isinstance(c, bool) for c in consts)
    rules = [c for c in consts if isinstance(c, str) and c.isidentifier()][:3]
    return [(rule, "1", "2", "-1") for rule in rules] if item_kind == "str" and numbers else []


def _dict_values(consts: list[Any]) -> list[Any]:
    """Keys the condition names first (`"image" in cfg.x`), each with the numbers next to
    the condition's own (``x.get("threshold", 0) < 0``: -1) and a word; a JSON value that
    is no object last: the program's own type check (`not a dict`)."""
    numbers = [c for c in consts if isinstance(c, (int, float)) and not isinstance(c, bool)][:2]
    values = [*unique(v for n in numbers for v in (n - 1, n + 1)), "value"]
    return [{c: v} for c in consts if isinstance(c, str) for v in values] + [{"key": "value"}, {}, JSON_LIST]


def _choice_values(dest: str, takes: ValueType, declared: list[Any], consts: list[Any], model: Model) -> list[Any]:
    """The condition's constants among the choices first; declared choices are all argparse
    accepts, a ``Literal`` type's are followed by other values of its kind."""
    choices = declared or list(takes.literal_choices)
    out = [c for c in consts if c in choices] + choices
    if not declared:
        out += [v for v in _scalars(dest, takes.kind, consts, model) if v not in choices]
    return out


def env_candidates(name: str, consts: Sequence[Any], model: Model) -> list[Any]:
    """NOT_GIVEN, then strings: the condition's constants as the variable would hold them,
    numbers near them; only the values the program accepts where the profile lists them."""
    kind = model.env_type(name) or "str"
    consts = _writable(consts)
    out: list[Any] = ["1", "0"] if kind == "bool" else []
    out += [_env_text(c) for c in consts if c is not None]
    if kind in ("int", "float"):
        out += [str(v) for v in numbers_near(consts, kind)] + ["1", "0", "2"]
    accepted = model.examples.accepted(name)
    if accepted:  # only these, the condition's own first
        out = [v for v in out if v in accepted] + list(accepted)
    elif kind == "str":
        out += [v for v in _free(f"{RefKind.ENV}:{name}", None, out, model) if v]
    return list(unique([NOT_GIVEN, *out]))


def _env_text(value: Any) -> str:
    """A constant as an env var holds it (``True`` is ``1``)."""
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def unique(values: Iterable[Any]) -> Iterable[Any]:
    """`values` without repeats: the same object, or an equal value of the same type."""
    hashed: set[tuple[type, Any]] = set()
    unhashable: list[Any] = []
    for v in values:
        try:
            key: tuple[type, Any] | None = (type(v), v)
            hash(key)
        except TypeError:
            key = None
        if key is not None and key in hashed:
            continue
        if any(v is s or (type(v) is type(s) and v == s) for s in unhashable):
            continue
        if key is None:
            if any(type(v) is t and v == s for t, s in hashed):
                continue
            unhashable.append(v)
        else:
            hashed.add(key)
        yield v
