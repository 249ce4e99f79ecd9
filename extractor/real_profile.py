"""The profile's `real:` section: how to install and run the target's own validation.

Read by the real side (`errcat.real`: target virtualenvs, the driver, `errcat confirm`);
the static side never looks at it. Per-release knowledge (what a CPU virtualenv needs,
which functions the launcher calls) is a list of release ranges, first match wins.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from extractor.errors import ErrcatError
from extractor.frozen import FrozenMap
from extractor.pep440 import in_range, version_key

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_MODULE = rf"{_IDENT}(?:\.{_IDENT})*"


@dataclass(frozen=True, slots=True)
class Install:
    """pip argument lists run in order; ``{target}`` stands for the release itself."""

    start: str | None
    until: str | None
    pip: tuple[tuple[str, ...], ...]


@dataclass(frozen=True, slots=True)
class Step:
    kind: str  # "call": module function called with the argv; "method": called on what the call returned
    name: str


@dataclass(frozen=True, slots=True)
class Validation:
    start: str | None
    until: str | None
    module: str
    steps: tuple[Step, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"module": self.module, "steps": [{s.kind: s.name} for s in self.steps]}


# what a runtime helper's arguments must be for a stated value to hold
RUNTIME_ARGS = ("any", "model")  # whatever they are / one generated model directory


@dataclass(frozen=True, slots=True)
class Runtime:
    """What a call of a runtime helper (``check_gguf_file(cfg.model_path)``, ``is_in_ci()``)
    returns on a platform, per kind of arguments (`RUNTIME_ARGS`): ``any`` whatever they
    are, ``model`` for one argument that is a generated model directory (a ``<model>``
    stand-in). A value holds only where the launch leaves the `unset` env vars and options
    (``--x``) unset (the helper reads them, or is passed them). Kinds not stated, and other
    arguments, stay unknown."""

    helper: str  # the called name as the source writes it: "is_in_ci", "current_platform.is_out_of_tree"
    returns: tuple[tuple[str, Any], ...]  # argument kind -> value (None: the helper returns None)
    unset: tuple[str, ...] = ()


HERE = "generic"  # the platform named for the machine `errcat confirm` runs on


@dataclass(frozen=True, slots=True)
class Platform:
    """A machine a launch is judged on: the options every launch there gets (unless it gives
    them), what its platform predicates (``is_cuda()``, ``get_platform().is_sm90``) read and
    what runtime helpers return there.

    `generic` is the machine `errcat confirm` runs on: the section's `args` given, every
    predicate false (`analyzers.platform_facts` turns a platform into evaluator facts)."""

    name: str
    args: tuple[str, ...] = ()
    predicates: bool | None = None  # what every predicate not in `facts` reads (None: unknown)
    facts: tuple[tuple[str, Any], ...] = ()  # predicate name -> value, where it reads otherwise
    runtime: tuple[Runtime, ...] = ()  # what runtime helpers return here
    # option dest -> values that load a device runtime this machine lacks (``--device npu``):
    # such a launch fails outside the catalog wherever no check of it fires first
    absent: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # predicate-name regex (full match) -> value, for the predicates `facts` does not state, the
    # first that matches (``(get_platform\(\)\.)?is_hip``: a ROCm machine, whatever the release calls it)
    match: tuple[tuple[str, Any], ...] = ()

    def fact(self, name: str) -> tuple[bool, Any]:
        """(stated, value) of the predicate `name` here: its fact, else the first matching
        pattern, else `predicates` (unstated where that is None)."""
        given = dict(self.facts)
        if name in given:
            return True, given[name]
        for pattern, value in self.match:
            if re.fullmatch(pattern, name):
                return True, value
        return self.predicates is not None, self.predicates


@lru_cache(maxsize=8)
def _parsed(text: str) -> Mapping[str, Any]:
    return json.loads(text)


@dataclass(frozen=True, slots=True)
class ModelProperties:
    """The object the target builds from a model's config (sglang's ``ModelConfig``): how the
    source names it (`names`: a regex a property's path follows, ``model_config.is_multimodal``),
    how the target builds it (`factory`, from parsed server args; read by
    `errcat.real.model_probe`), the options it is built from besides the model (`inputs`: a
    launch giving one gets no measured value) and what it holds for each generated stand-in,
    per release, as measured (`measured`: release -> architecture -> property -> value)."""

    names: str
    factory: str
    inputs: tuple[str, ...] = ()
    measured: tuple[tuple[str, str], ...] = ()  # release -> its measurements as canonical JSON

    def for_release(self, version: str) -> Mapping[str, dict[str, Any]]:
        """Read-only: parsed once per text (a judge asks per launch)."""
        text = dict(self.measured).get(version)
        return _parsed(text) if text is not None else {}


@dataclass(frozen=True, slots=True)
class RealProfile:
    package: str
    install: tuple[Install, ...] = ()
    torch_ops: tuple[tuple[str, tuple[str, ...]], ...] = ()  # namespace -> op schemas
    env: tuple[tuple[str, str], ...] = ()
    args: tuple[str, ...] = ()
    validate: tuple[Validation, ...] = ()
    default_model: str = ""
    # architecture -> config.json text (canonical JSON: frozen and hashable)
    model_configs: tuple[tuple[str, str], ...] = ()
    # the target's model configuration object (`ModelProperties`), where the profile describes it
    model_object: ModelProperties | None = None
    # what every platform predicate reads on the machine confirm runs on (None: unknown)
    platform_default: bool | None = None
    platforms: tuple[Platform, ...] = ()  # named machines (`platform`), in profile order

    def install_for(self, version: str) -> Install | None:
        return next((i for i in self.install if in_range(version, i.start, i.until)), None)

    def validation_for(self, version: str) -> Validation | None:
        return next((v for v in self.validate if in_range(version, v.start, v.until)), None)

    def model_config(self, architecture: str) -> dict[str, Any] | None:
        text = dict(self.model_configs).get(architecture)
        return json.loads(text) if text is not None else None

    def stand_in_config(self, architecture: str) -> dict[str, Any] | None:
        """The config.json a generated model of `architecture` has: the profile's config for
        it, else the default config under its name (checks keyed on the name alone pass)."""
        config = self.model_config(architecture) or self.model_config(self.default_model)
        return None if config is None else {**config, "architectures": [architecture]}

    def platform(self, name: str) -> Platform | None:
        return next((p for p in self.platforms if p.name == name), None)

    def here(self) -> Platform | None:
        """The machine `errcat confirm` runs on (the `generic` platform)."""
        return self.platform(HERE)


# ------------------------------------------------------------------ checking


def _version(value: Any) -> str | None:
    if not isinstance(value, str):
        return "expected a version string such as \"0.5.19\""
    try:
        version_key(value)
    except ErrcatError as exc:
        return str(exc)
    return None


def _strs(value: Any, pattern: str | None = None) -> str | None:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        return "expected a list of non-empty strings"
    bad = next((v for v in value if pattern and not re.fullmatch(pattern, v)), None)
    return None if bad is None else f"{bad!r} is not a valid name"


def _unknown(data: Mapping[str, Any], *known: str) -> str | None:
    bad = next((k for k in data if k not in known), None)
    return None if bad is None else f"{bad}: unknown key (known: {', '.join(known)})"


def _ranged(items: Any, item: Callable[[dict[str, Any]], str | None], where: str) -> str | None:
    if not isinstance(items, list) or not items:
        return f"{where}: expected a non-empty list of release ranges"
    for i, data in enumerate(items):
        at = f"{where}[{i}]"
        if not isinstance(data, dict):
            return f"{at}: expected a mapping"
        for bound in ("from", "until"):
            if bound in data and (p := _version(data[bound])):
                return f"{at}.{bound}: {p}"
        if (p := item(data)) is not None:
            return f"{at}.{p}"
    return None


def _install_item(data: dict[str, Any]) -> str | None:
    if (p := _unknown(data, "from", "until", "pip")) is not None:
        return p
    pip = data.get("pip")
    if not isinstance(pip, list) or not pip:
        return "pip: expected a non-empty list of pip argument lists"
    return next((f"pip[{i}]: {p}" for i, args in enumerate(pip) if (p := _strs(args))), None)


def _validate_item(data: dict[str, Any]) -> str | None:
    if (p := _unknown(data, "from", "until", "module", "steps")) is not None:
        return p
    module = data.get("module")
    if not isinstance(module, str) or not re.fullmatch(_MODULE, module):
        return "module: expected a dotted module name"
    steps = data.get("steps")
    if not isinstance(steps, list) or not steps:
        return "steps: expected a non-empty list"
    for i, step in enumerate(steps):
        ok = isinstance(step, dict) and len(step) == 1 and next(iter(step)) in ("call", "method")
        if not ok or not isinstance(name := next(iter(step.values())), str) or not re.fullmatch(_IDENT, name):
            return f"steps[{i}]: expected {{call: name}} or {{method: name}}"
    if next(iter(steps[0])) != "call":
        return "steps[0]: the first step must be a call (it receives the argv)"
    return None


def _model_object(data: Any) -> str | None:
    if not isinstance(data, dict):
        return "expected a mapping"
    if (p := _unknown(data, "names", "factory", "inputs", "measured")) is not None:
        return p
    if not isinstance(data.get("names"), str):
        return "names: expected a regular expression"
    try:
        re.compile(data["names"])
    except re.error as exc:
        return f"names: {exc}"
    if not isinstance(data.get("factory"), str) or not re.fullmatch(rf"{_MODULE}:{_MODULE}", data["factory"]):
        return "factory: expected module:qualified.name"
    if "inputs" in data and (p := _strs(data["inputs"])) is not None:
        return f"inputs: {p}"
    measured = data.get("measured") or {}
    if not isinstance(measured, dict) or not all(
            isinstance(v, str) and isinstance(by, dict) and all(isinstance(a, dict) for a in by.values())
            for v, by in measured.items()):
        return "measured: expected release -> architecture -> property -> value"
    return None


def _models(data: Any) -> str | None:
    if not isinstance(data, dict):
        return "models: expected a mapping"
    if (p := _unknown(data, "default", "configs", "object")) is not None:
        return f"models.{p}"
    if "object" in data and (p := _model_object(data["object"])) is not None:
        return f"models.object.{p}"
    configs = data.get("configs") or {}
    if not isinstance(configs, dict) or not all(isinstance(c, dict) for c in configs.values()):
        return "models.configs: expected architecture -> config.json mapping"
    if "default" in data and (not isinstance(data["default"], str) or data["default"] not in configs):
        return f"models.default: {data['default']!r} is not one of configs"
    return None


def _plain(value: Any) -> bool:
    """A value a helper can be stated to return: a scalar, or a list or a record (an object
    such as a dataclass instance, as a mapping of its fields) of them."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    return isinstance(value, str | int | float | None)


def _frozen(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return FrozenMap({k: _frozen(v) for k, v in value.items()}) if isinstance(value, dict) else value


def _runtime(data: Any) -> str | None:
    if not isinstance(data, dict) or not all(isinstance(k, str) and re.fullmatch(_MODULE, k) for k in data):
        return "runtime: expected helper name -> {any, model, unset}"
    for helper, said in data.items():
        at = f"runtime.{helper}"
        if not isinstance(said, dict):
            return f"{at}: expected a mapping"
        if (p := _unknown(said, *RUNTIME_ARGS, "unset")) is not None:
            return f"{at}.{p}"
        if not any(kind in said for kind in RUNTIME_ARGS):
            return f"{at}: states no value (give {' or '.join(RUNTIME_ARGS)})"
        bad = next((k for k in RUNTIME_ARGS if k in said and not _plain(said[k])), None)
        if bad is not None:
            return (f"{at}.{bad}: expected a plain value (string, number, true/false or null) "
                    "or a list or a record of them")
        if "unset" in said and _strs(said["unset"]) is not None:
            return f"{at}.unset: expected a list of env var names and options (--x)"
    return None


def _platform(item: Any) -> str | None:
    if not isinstance(item, dict):
        return ": expected a mapping"
    if (p := _unknown(item, "args", "predicates", "facts", "runtime", "absent", "match")) is not None:
        return p
    match = item.get("match", {})
    if not isinstance(match, dict) or not all(isinstance(k, str) and _compiles(k) for k in match):
        return "match: expected predicate-name regular expression -> value"
    absent = item.get("absent", {})
    if not isinstance(absent, dict) or not all(isinstance(k, str) and _strs(v) is None for k, v in absent.items()):
        return "absent: expected option dest -> list of values"
    if "args" in item and _strs(item["args"]) is not None:
        return "args: expected a list of strings"
    if "predicates" in item and not isinstance(item["predicates"], bool):
        return "predicates: expected true or false"
    facts = item.get("facts", {})
    if not isinstance(facts, dict) or not all(isinstance(k, str) and k for k in facts):
        return "facts: expected predicate name -> value"
    return _runtime(item["runtime"]) if "runtime" in item else None


def _compiles(pattern: str) -> bool:
    try:
        re.compile(pattern)
    except re.error:
        return False
    return True


def _platforms(data: Any) -> str | None:
    if not isinstance(data, dict) or not all(isinstance(k, str) and re.fullmatch(_IDENT, k) for k in data):
        return "platforms: expected platform name -> {args, predicates, facts, match, runtime, absent}"
    problems = ((name, p) for name, item in data.items() if (p := _platform(item)) is not None)
    return next((f"platforms.{name}{p if p.startswith(':') else '.' + p}" for name, p in problems), None)


def real_problem(data: Any) -> str | None:
    """The first problem of a `real:` section, as "key: what is wrong"; None when fine."""
    if data is None:
        return None
    if not isinstance(data, dict):
        return "expected a mapping"
    if (p := _unknown(data, "package", "install", "torch_ops", "env", "args", "validate", "models",
                      "platform_default", "platforms")) is not None:
        return p
    if not isinstance(data.get("package"), str) or not re.fullmatch(_MODULE, data["package"]):
        return "package: expected the target's import package name"
    checks: list[tuple[str, Callable[[Any], str | None]]] = [
        ("install", lambda v: _ranged(v, _install_item, "install")),
        ("validate", lambda v: _ranged(v, _validate_item, "validate")),
        ("torch_ops", lambda v: None if isinstance(v, dict) and all(
            isinstance(k, str) and re.fullmatch(_IDENT, k) and _strs(s) is None for k, s in v.items())
            else "torch_ops: expected namespace -> op schemas"),
        ("env", lambda v: None if isinstance(v, dict) and all(
            isinstance(k, str) and isinstance(s, str) for k, s in v.items()) else "env: expected NAME -> string value"),
        ("args", lambda v: None if _strs(v) is None else "args: expected a list of strings"),
        ("models", _models),
        ("platform_default", lambda v: None if isinstance(v, bool) else "platform_default: expected true or false"),
        ("platforms", _platforms),
    ]
    return next((p for key, check in checks if key in data and (p := check(data[key])) is not None), None)


def _ranges(items: Sequence[Mapping[str, Any]]) -> list[tuple[str | None, str | None, Mapping[str, Any]]]:
    return [(d.get("from"), d.get("until"), d) for d in items]


def _parse_platforms(data: Mapping[str, Any]) -> tuple[Platform, ...]:
    """Each platform's `args` default to the section's (what every launch here gets)."""
    return tuple(
        Platform(name, tuple(item.get("args", data.get("args") or ())), item.get("predicates"),
                 tuple(sorted((item.get("facts") or {}).items())),
                 tuple(Runtime(helper, tuple((k, _frozen(said[k])) for k in RUNTIME_ARGS if k in said),
                               tuple(said.get("unset") or ()))
                       for helper, said in sorted((item.get("runtime") or {}).items())),
                 tuple((dest, tuple(values)) for dest, values in sorted((item.get("absent") or {}).items())),
                 tuple((item.get("match") or {}).items()))
        for name, item in (data.get("platforms") or {}).items()
    )


def _parse_model_object(data: Mapping[str, Any] | None) -> ModelProperties | None:
    if not data:
        return None
    return ModelProperties(data["names"], data["factory"], tuple(data.get("inputs") or ()), tuple(
        (version, json.dumps(by, sort_keys=True)) for version, by in sorted((data.get("measured") or {}).items())))


def parse_real(data: Mapping[str, Any] | None) -> RealProfile | None:
    """A checked (`real_problem` is None) section as a `RealProfile`."""
    if not data:
        return None
    models = data.get("models") or {}
    return RealProfile(
        package=data["package"],
        install=tuple(Install(a, b, tuple(tuple(args) for args in d["pip"]))
                      for a, b, d in _ranges(data.get("install") or [])),
        torch_ops=tuple((ns, tuple(ops)) for ns, ops in (data.get("torch_ops") or {}).items()),
        env=tuple((data.get("env") or {}).items()),
        args=tuple(data.get("args") or ()),
        validate=tuple(
            Validation(a, b, d["module"], tuple(Step(*next(iter(s.items()))) for s in d["steps"]))
            for a, b, d in _ranges(data.get("validate") or [])
        ),
        default_model=models.get("default", ""),
        model_object=_parse_model_object(models.get("object")),
        platform_default=data.get("platform_default"),
        platforms=_parse_platforms(data),
        model_configs=tuple(
            (arch, json.dumps(config, sort_keys=True)) for arch, config in sorted((models.get("configs") or {}).items())
        ),
    )
