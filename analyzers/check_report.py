"""What `errcat check` reports: a `Checked` with the catalog's words, as JSON-able data.

The errors come with their message as the user will see it (holes that show a setting
filled with that setting's value for this launch, the rest left as ``…``), the site, the
trigger and meaning, and the fix as a change of the command line (options dropped,
changed, added) with the command after it.
"""
from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from analyzers.argv import option_groups
from analyzers.check import FAILS, REFUSED, Checked
from analyzers.evaluate import evaluate
from analyzers.example_check import ExampleJudge
from analyzers.first_error import OK, UNDECIDED, seen_by
from analyzers.flags import FlagModel, option_for_dest
from analyzers.kleene import UNKNOWN, Truth
from analyzers.launch import Launch
from analyzers.launch import command as shell_line
from analyzers.matching import split_template, strip_receivers
from analyzers.resolution import resolved
from analyzers.semantics import value
from extractor.ir import Ref, RefKind, from_dict

_FILLER = "…"


def check_report(checked: Checked, judge: ExampleJudge, entries: Mapping[str, Mapping[str, Any]],
                 program: Sequence[str], *, release: str | None, platform: str,
                 model: tuple[str, Any] | None = None) -> dict[str, Any]:
    """`checked` in the catalog's words; `model`: the model option's dest and the value the
    user gave it, shown in commands where a stand-in was judged in its place."""
    flags = judge.flags

    def command(launch: Launch, prefix: str) -> str:
        if model is not None and model[1] is not None and model[0] in launch.flags:
            launch = launch.with_flag(model[0], model[1])
        return shell_line(launch, flags, prefix)

    prefix = " ".join(program)
    out: dict[str, Any] = {"status": checked.status, "release": release, "platform": platform,
                           "command": command(checked.launch, prefix),
                           "deprecated": _deprecated(checked.launch, flags)}
    if checked.status == REFUSED and checked.refusal is not None:
        out["refused"] = {"message": checked.refusal.message, "suggestion": checked.refusal.suggestion}
    elif checked.status == FAILS:
        errors = []
        current = checked.launch
        for step in checked.steps:
            error = _entry(entries.get(step.entry), step.entry, judge, current)
            error["fix"] = _change(current, step.fixed, command, prefix) if step.fixed is not None else None
            errors.append(error)
            if step.fixed is None:
                break
            current = step.fixed
        out["errors"] = errors
        fixed = checked.fixed
        out["fixed_command"] = command(fixed, prefix) if fixed is not None else None
        last = checked.steps[-1].then if checked.steps else None
        if last is not None and last.status == UNDECIDED:  # fixed as far as the facts here decide
            out["then_undecided"] = {"command": command(checked.steps[-1].fixed or checked.launch, prefix),
                                     "deciding": list(last.deciding)}
    elif checked.status == UNDECIDED:
        out["deciding"] = list(checked.deciding)
        out["may_fire"] = [_entry(entries.get(i), i, judge, checked.launch) for i in checked.may_fire]
    elif checked.status == OK:
        stand_in = checked.launch.flags.get(model[0]) if model is not None and model[1] is not None else None

        def shown(value: Any) -> Any:  # a setting copied from the model option shows the user's model
            return model[1] if model is not None and stand_in is not None and value == stand_in else value

        out["adjusted"] = [{"setting": _option(a.dest, flags), "dest": a.dest, "from": _json(shown(a.before)),
                            "to": _json(shown(a.after))} for a in checked.adjusted]
    return out


def _entry(entry: Mapping[str, Any] | None, id_: str, judge: ExampleJudge, launch: Launch) -> dict[str, Any]:
    if entry is None:
        return {"entry": id_}
    source = entry.get("source") or {}
    row = _row(entry, id_, judge, launch) or {}  # a table row's own words, where the launch meets one
    return {"entry": id_, "exception": entry.get("exception"),
            "message": filled_message(str(row.get("template") or entry.get("template") or ""), judge, launch),
            "source": {k: source.get(k) for k in ("path", "line", "url")},
            "why": (entry.get("trigger") or {}).get("text"), "meaning": row.get("meaning") or entry.get("meaning"),
            **({"crash": entry["crash"]["missing"]} if entry.get("kind") == "crash" and entry.get("crash") else {})}


def _row(entry: Mapping[str, Any], id_: str, judge: ExampleJudge, launch: Launch) -> Mapping[str, Any] | None:
    """The first row of `entry`'s condition table whose condition surely holds on `launch`."""
    check = judge.checks.get(id_)
    if check is None or not entry.get("variants"):
        return None
    stated = judge.judged(launch)[0]
    model = seen_by(check, judge.pipeline.model)
    for row in entry["variants"]:
        expr = (row.get("trigger") or {}).get("expr")
        if isinstance(expr, dict) and evaluate(from_dict(expr), stated, model) is Truth.TRUE:
            return row
    return None


def filled_message(template: str, judge: ExampleJudge, launch: Launch) -> str:
    """`template` with each hole that reads a setting (``{cfg.tp_size}``, ``{args.x!r}``)
    showing its value for `launch` on the judge's platform; other holes show ``…``."""
    stated = None
    parts = []
    for hole, text in split_template(template):
        if not hole:
            parts.append(text)
            continue
        expr, _, conversion = strip_receivers(text).partition("!")
        name = expr.partition(":")[0].strip()
        flags = judge.flags
        if not name.isidentifier() or flags is None or flags.by_dest(name) is None:
            parts.append(_FILLER)
            continue
        if stated is None:
            stated = judge.judged(launch)[0]
        model = judge.pipeline.model
        ref = Ref(RefKind.FLAG, name, name)
        got = value(ref, resolved(model, stated, model.rule_set(ref)))
        parts.append(_FILLER if got is UNKNOWN else repr(got) if conversion.startswith("r") else str(got))
    return "".join(parts)


def _change(before: Launch, after: Launch, command: Callable[[Launch, str], str], prefix: str) -> dict[str, Any]:
    """What the fix does to the command line, option by option, and the command after it."""
    old = dict(option_groups(shlex.split(command(before, ""))))
    new = dict(option_groups(shlex.split(command(after, ""))))
    return {
        "drop": [o for o in old if o and o not in new],
        "set": [" ".join((o, *v)) for o, v in new.items() if o and old.get(o) != v],
        "env": {k: after.env.get(k) for k in sorted(set(before.env) | set(after.env))
                if before.env.get(k) != after.env.get(k)},
        "command": command(after, prefix),
    }


def _deprecated(launch: Launch, flags: FlagModel | None) -> list[dict[str, Any]]:
    """The options the command gives that the target declares deprecated, with what replaces each."""
    found = (flags.by_dest(dest) for dest in launch.flags) if flags is not None else ()
    return [{"option": f.option, "replacement": f.replacement} for f in found if f is not None and f.deprecated]


def _option(dest: str, flags: FlagModel | None) -> str:
    flag = flags.by_dest(dest) if flags is not None else None
    return (flag.option if flag is not None else None) or option_for_dest(dest)


def _json(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, frozenset, set)):
        return [_json(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)
