"""`errcat check`'s report (`analyzers.check_report`) as text for a terminal or a log.

Colour only where asked (a TTY without ``NO_COLOR``, decided by the caller); the same
words either way.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from output.titles import headline

_COLOURS = {"bad": "\033[31m", "good": "\033[32m", "maybe": "\033[33m", "dim": "\033[2m", "bold": "\033[1m"}
_RESET = "\033[0m"
MAX_LISTED = 8  # facts and errors listed in text; JSON has them all


Paint = Callable[[str, str], str]


def check_text(report: Mapping[str, Any], *, colour: bool = False) -> str:
    def paint(text: str, kind: str) -> str:
        return f"{_COLOURS[kind]}{text}{_RESET}" if colour else text

    where = f"{report.get('release') or 'this catalog'} on the {report.get('platform')} platform"
    lines = _BY_STATUS.get(report["status"], _ok)(report, where, paint)
    said = _checked_with(report)
    lines += [""] + [paint(line, "dim") for line in said] if said else []
    for old in report.get("deprecated") or ():
        instead = f" (use {old['replacement']})" if old.get("replacement") else ""
        lines += ["", paint(f"note: {old['option']} is deprecated{instead}", "maybe")]
    lines += ["", paint("A static prediction from the catalog; `errcat confirm` runs the real program.", "dim")]
    return "\n".join(lines) + "\n"


def _refused(report: Mapping[str, Any], where: str, paint: Paint) -> list[str]:
    refused = report["refused"]
    said = refused["message"] + (f" (did you mean {refused['suggestion']}?)" if refused.get("suggestion") else "")
    return [paint("✗ refused by the argument parser", "bad") + f" ({where})", f"  {said}"]


def _will_fail(report: Mapping[str, Any], where: str, paint: Paint) -> list[str]:
    errors = report["errors"]
    lines = [paint("✗ will fail", "bad") + f" ({where}): {len(errors)} error(s) on the way to a working command"]
    for number, error in enumerate(errors, 1):
        lines += [""] + _error(error, number, paint)
        if number > 1:
            lines.append(paint("   (met once the errors above are fixed)", "dim"))
    if report.get("fixed_command"):
        return lines + ["", paint("Predicted to work after these changes:", "good"), f"  {report['fixed_command']}"]
    if report.get("then_undecided"):
        then = report["then_undecided"]
        head = paint("After these changes it may still fail; what decides it is not known here:", "maybe")
        return lines + ["", head, f"  {then['command']}"] + [f"  - {f}" for f in then["deciding"][:MAX_LISTED]]
    return lines + ["", "errcat found no change of options after which this command is predicted to work."]


def _undecided(report: Mapping[str, Any], where: str, paint: Paint) -> list[str]:
    lines = [paint("? may fail", "maybe") + f" ({where}): what decides it is not known here"]
    deciding = report.get("deciding") or []
    lines += [f"  - {fact}" for fact in deciding[:MAX_LISTED]] + _more(len(deciding), "fact")
    if any(fact.startswith("model:") for fact in deciding):
        lines.append("  (the model's facts: its config.json in the local Hugging Face cache, or give --model-config "
                     "or --architecture)")
    may = report.get("may_fire") or []
    if may:
        lines += ["", "Errors that may fire, in the order sglang checks:"]
        for number, error in enumerate(may[:MAX_LISTED], 1):
            lines += _error(error, number, paint, short=True)
        lines += _more(len(may), "error")
    return lines


def _ok(report: Mapping[str, Any], where: str, paint: Paint) -> list[str]:
    model = (report.get("model_config") or {}).get("architecture")
    with_model = f" with {model}" if model else ", the model left open"
    lines = [paint("✓ ok", "good") + f" ({where}): argument validation passes{with_model}; no check is "
             "predicted to fire",
             "Not checked: whether the model fits in memory, its shapes beyond what validation reads, and "
             "errors at runtime."]
    adjusted = report.get("adjusted") or []
    if adjusted:
        lines += ["", "The program will adjust these settings for this command:"]
        lines += [f"  {a['setting']}: {_shown(a['from'])} -> {_shown(a['to'])}" for a in adjusted]
    return lines


_BY_STATUS: dict[str, Callable[[Mapping[str, Any], str, Paint], list[str]]] = {
    "refused": _refused, "will-fail": _will_fail, "undecided": _undecided, "ok": _ok}


_WORDS = {"ok": "✓ ok", "will-fail": "✗ will fail", "refused": "✗ refused", "undecided": "? may fail"}


def releases_summary(reports: Sequence[Mapping[str, Any]]) -> str:
    """One line per release checked: whether the command works there, and what stops it first."""
    lines = ["On which releases this command works:"]
    for report in reports:
        status = report["status"]
        first = ""
        if status == "will-fail" and report.get("errors"):
            error = report["errors"][0]
            first = ": " + headline(error.get('exception'), error.get('message'), error.get('source'))
        elif status == "refused":
            first = f": {report['refused']['message']}"
        lines.append(f"  {report.get('release') or '?':<10} {_WORDS.get(status, status)}{first}")
    return "\n".join(lines) + "\n\n"


def _error(error: Mapping[str, Any], number: int, paint: Any, short: bool = False) -> list[str]:
    source = error.get("source") or {}
    head = f"{number}. {headline(error.get('exception'), error.get('message'), source)}"
    if error.get("crash"):  # Python's own error: where it stops says more than its message
        where = f"{str(source.get('path')).rpartition('/')[2]}:{source.get('line')}"
        head = f"{number}. {error.get('exception')} at {where} ({error.get('message')}): a crash, no message of its own"
    lines = [paint(head, "bold"), f"   at {source.get('path')}:{source.get('line')}  [{error['entry']}]"]
    if source.get("url"):
        lines.append(f"   {source['url']}")
    if short:
        return lines
    if error.get("why"):
        lines.append(f"   why: {error['why']}")
    if error.get("meaning"):
        lines.append(f"   meaning: {error['meaning']}")
    fix = error.get("fix")
    if fix is None:
        lines.append("   fix: none found (see the entry's solutions)")
        return lines
    changes = [f"drop {o}" for o in fix["drop"]] + [f"set {s}" for s in fix["set"]]
    changes += [f"unset {k}" if v is None else f"set {k}={v}" for k, v in fix["env"].items()]
    lines.append("   fix: " + ("; ".join(changes) or "no change"))
    return lines


def _checked_with(report: Mapping[str, Any]) -> list[str]:
    """The platform and the model config the check was made with, a line each."""
    lines = [report["platform_detected"]] if report.get("platform_detected") else []
    model = report.get("model_config")
    if model:
        arch = model.get("architecture")
        if arch and model.get("given_architecture"):
            arch += " (--architecture)"
        lines.append(f"model: config {model['used']}" + (f"; architecture {arch}" if arch else ""))
    return lines


def _more(count: int, what: str) -> list[str]:
    return [f"  … and {count - MAX_LISTED} more {what}s (--format json lists them all)"] if count > MAX_LISTED else []


def _shown(value: Any) -> str:
    return json.dumps(value) if not isinstance(value, str) else value
