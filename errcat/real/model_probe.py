"""Reads properties of the target's model configuration object, built by the target itself.

Run as a script by the target's interpreter (``PY model_probe.py``), like `driver.py`
(standard library only, Python 3.8). One JSON object on stdin::

    {"setup": <driver setup line>, "factory": "pkg.mod:Cls.from_server_args",
     "models": {"Arch": "/generated/model-Arch"}, "names": ["is_multimodal", "spec.flag"],
     "helpers": {"is_deepseek_dsa": "hf_config"},
     "variants": {"--quantization": ["fp8"], "--is-embedding": [null]}}

For each model: the setup's first step (``prepare_server_args``) parses ``--model-path DIR``
plus the setup's args, the factory builds the configuration from the result, and each
dotted name is read from it; each helper (a function of the target's loaded modules, found by
its name) is called with the named property, its result stored as ``"helper(property)"``.
One JSON object on stdout: ``{"Arch": {"name": value}}`` with
plain values only (an enum as its value, an object as a mapping of its plain fields); a
name that is not plain is left out, one the object lacks is listed under ``"(absent)"``, and
a model the target cannot build gets ``{"error": "..."}``. With ``variants`` (an input
option -> values to try, null for a switch), the object is built again with each one added,
and what differs from the model's own measurement is listed under ``"(varies)"``: option ->
value (``""`` for a switch) -> the names whose value changed, ``["*"]`` where it did not build.
"""
from __future__ import annotations

import enum
import importlib
import json
import os
import sys
from collections.abc import Callable
from typing import Any

_SKIP = object()
ABSENT = "(absent)"  # the names the object lacks
VARIES = "(varies)"  # what each tried input value changes


def plain(value: Any, depth: int = 0) -> Any:
    """`value` as JSON-shaped data, or _SKIP."""
    if isinstance(value, enum.Enum):  # as the source names it (errcat reads members by name), also an IntEnum's
        return f"{type(value).__name__}.{value.name}"
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if depth >= 2:
        return _SKIP
    if isinstance(value, (list, tuple)):
        items = [plain(v, depth + 1) for v in value]
        return _SKIP if any(v is _SKIP for v in items) else items
    if isinstance(value, dict):
        return _plain_dict(value, depth)
    return _plain_object(value, depth)


def _plain_dict(value: dict, depth: int) -> Any:
    """A dict of text keys whose values are all plain; else _SKIP."""
    if not all(isinstance(k, str) for k in value):
        return _SKIP
    found = {k: plain(v, depth + 1) for k, v in value.items()}
    return _SKIP if any(v is _SKIP for v in found.values()) else found


def _plain_object(value: Any, depth: int) -> Any:
    """An object's public attributes that are plain (not torch's or a builtin's); else _SKIP."""
    fields = getattr(value, "__dict__", None)
    if isinstance(fields, dict) and type(value).__module__.split(".")[0] not in ("torch", "builtins"):
        found = {k: plain(v, depth + 1) for k, v in fields.items() if not k.startswith("_")}
        return {k: v for k, v in found.items() if v is not _SKIP}
    return _SKIP


def _read(obj: Any, name: str) -> Any:
    """``a.b[0]``: attributes, and items by index."""
    for part in name.split("."):
        attr, _, index = part.partition("[")
        obj = getattr(obj, attr)
        if index:
            obj = obj[int(index.rstrip("]"))]
    return obj


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _helper(name: str, package: str) -> Any:
    """The one function of that name the target package's loaded modules define (None: none,
    or several). Another library's function of that name is no helper of the target's: a
    catalog's ``predicate(arch)`` calls a loop variable, which no module defines."""
    found = {id(f): f for m in list(sys.modules.values()) if m is not None and _inside(m.__name__, package)
             for f in [getattr(m, name, None)] if callable(f) and getattr(f, "__name__", "") == name
             and _inside(str(getattr(f, "__module__", "")), package)}
    return next(iter(found.values())) if len(found) == 1 else None


def _factory(spec: str) -> Any:
    module, _, qualname = spec.partition(":")
    found: Any = importlib.import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found


def _measure(config: Any, request: dict) -> dict:
    """The names and helpers of `request` read from `config`, with the absent ones listed."""
    values: dict = {}
    absent: list = []
    for name in request["names"]:
        try:
            value = plain(_read(config, name))
        except AttributeError:  # the object lacks it: a getattr default applies
            absent.append(name)
            continue
        except Exception:  # noqa: BLE001 - raising: not stated
            continue
        if value is not _SKIP:
            values[name] = value
    for helper, argument in sorted((request.get("helpers") or {}).items()):
        fn = _helper(helper, request["setup"]["package"])
        try:
            value = plain(fn(_read(config, argument))) if fn is not None else _SKIP
        except Exception:  # noqa: BLE001 - raising for this model: not stated
            continue
        if value is not _SKIP:
            values[f"{helper}({argument})"] = value
    if absent:
        values[ABSENT] = absent
    return values


def _variations(measured: Callable[[list[str]], dict], argv: list[str], values: dict,
                variants: dict[str, list[Any]]) -> dict[str, Any]:
    """Per option and value tried, the names whose value differs from `values` (``*``: the
    object does not build with it)."""
    varies: dict[str, Any] = {}
    for option, tried in sorted(variants.items()):
        for value in tried:
            extra = [option] if value is None else [option, str(value)]
            try:
                other = measured(argv[:2] + extra + argv[2:])
            except BaseException:  # noqa: BLE001 - this value does not build: nothing holds
                changed = ["*"]
            else:
                changed = sorted(k for k in set(values) | set(other) if values.get(k, _SKIP) != other.get(k, _SKIP))
            if changed:
                varies.setdefault(option, {})["" if value is None else str(value)] = changed
    return varies


def main() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    sys.path.insert(len(sys.path), here)  # for the driver's helpers, after the target's modules
    driver = importlib.import_module("driver")  # found only once the path is set

    request = json.loads(sys.stdin.read())
    setup = request["setup"]
    os.environ.update(setup.get("env") or {})
    sys.path[:0] = list(setup.get("path") or [])
    libraries = driver.define_torch_ops(setup.get("torch_ops") or {})  # noqa: F841 - kept alive
    driver.no_network()
    module = importlib.import_module(setup["module"])
    first = setup["steps"][0]["call"]
    build = _factory(request["factory"])
    out: dict[str, Any] = {}
    for arch, path in sorted(request["models"].items()):
        argv = driver.with_args(["--model-path", path], setup.get("args") or [])

        def measured(args: list[str]) -> dict:
            return _measure(build(getattr(module, first)(args)), request)
        try:
            values = measured(argv)
        except BaseException as exc:  # noqa: BLE001 - reported per model
            out[arch] = {"error": f"{type(exc).__name__}: {exc}"[:300]}
            continue
        varies = _variations(measured, argv, values, request.get("variants") or {})
        if varies:
            values[VARIES] = varies
        out[arch] = values
    sys.stdout.write(json.dumps(out, sort_keys=True) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    code = main()
    os._exit(code)  # no interpreter shutdown: threads the target started would hold it up
