"""What a launch states besides its settings, as the evaluator's facts (``Launch.facts``).

Three sources: the platform it runs on (an `extractor.real_profile.Platform`, e.g. the
profile's `generic`: every platform predicate false), what runtime helpers return there
(the platform's `runtime`: ``check_gguf_file(<model dir>)`` is false) and the model its
``--model-path`` stand-in names (``<model:Arch>``: the profile's config.json for that
architecture). The evaluator looks a platform or model leaf up as ``"kind:name"``
(`Values.fact`), a call it cannot compute as ``runtime:<fn>`` (rows of arguments ->
result) and a leaf it could not read as ``runtime:<its text>``; a leaf no fact names
stays unknown. Which names to state comes from the conditions that will be asked
(`fact_names`), so a platform of "every predicate false" is a finite map.
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from analyzers.argv import launch_of_argv
from analyzers.examples import MODEL_STAND_IN, Examples
from analyzers.flags import FlagModel
from analyzers.launch import Launch
from analyzers.option_text import dest_for_option
from analyzers.path_tests import path_test, stand_in_path
from analyzers.settings import absent_fact
from extractor.frozen import FrozenMap
from extractor.ir import Expr, RefKind, refs
from extractor.real_profile import ModelProperties, Platform, RealProfile, Runtime

# a model property the config.json holds as is: ``…hf_config.num_hidden_layers``
_CONFIG_FIELD = re.compile(r"(?:.*\.)?hf_(?:text_)?config\.([A-Za-z_][A-Za-z0-9_]*)")
# the model's whole config (``model_config_of(view).hf_config``), as a helper is handed it
_WHOLE_CONFIG = re.compile(r"(?:.*\.)?hf_(?:text_)?config")


def platform_need(need: str) -> tuple[str, str] | None:
    """An example's `needs` item ``platform:NAME=JSON value`` as (NAME, the JSON text); None
    for a need of another kind (``model:...``, ``launch:...``)."""
    kind, _, fact = need.partition(":")
    if kind != "platform":
        return None
    name, _, value = fact.rpartition("=")
    return name, value


def meets(platform: Platform | None, need: str, default: bool | None = None) -> bool:
    """Does `platform` give what `need` (``platform:NAME=JSON value``) asks: what it states,
    else `default` (what every predicate reads where the platform is not named)?"""
    wanted = platform_need(need)
    if wanted is None:
        return False
    stated, value = platform.fact(wanted[0]) if platform is not None else (False, None)
    if not stated:
        stated, value = default is not None, default
    return stated and wanted[1] == json.dumps(value)


def fact_names(exprs: Iterable[Expr]) -> dict[RefKind, tuple[str, ...]]:
    """Per kind, the names of the leaves of that kind (platform checks, model properties)
    `exprs` read, sorted; one walk of the expressions for every kind."""
    found: dict[RefKind, set[str]] = {}
    for e in exprs:
        for r in refs(e):
            found.setdefault(r.kind, set()).add(r.name)
    return {kind: tuple(sorted(names)) for kind, names in found.items()}


def platform_facts(platform: Platform, names: Iterable[str]) -> dict[str, Any]:
    """``platform:NAME`` -> what each predicate in `names` reads on `platform` (names it
    leaves unknown are absent)."""
    out: dict[str, Any] = {}
    for name in names:
        stated, value = platform.fact(name)  # None included (``get_device_memory_capacity()`` -> None: no GPU)
        if stated:
            out[f"{RefKind.PLATFORM}:{name}"] = value
    return out


def runtime_facts(helpers: Iterable[Runtime], launch: Launch) -> dict[str, Any]:
    """What each helper returns for `launch` (`Runtime`): ``runtime:<helper>`` -> rows of
    (arguments, result) for the calls the evaluator reads with their arguments (``model``:
    one row per generated model directory the launch names, ``any``: arguments None), and
    ``runtime:<helper>()`` -> the result of the call without arguments (``any``). A helper
    reading an env var the launch sets states nothing."""
    stand_ins = sorted({v for v in launch.flags.values() if architecture_of(v, "") is not None})
    out: dict[str, Any] = {}
    for helper in helpers:
        if _given(helper, launch):
            continue
        returns = dict(helper.returns)
        rows: list[tuple[tuple[Any, ...] | None, Any]] = []
        if "model" in returns:
            rows += [((stand_in,), returns["model"]) for stand_in in stand_ins]
        if "any" in returns:
            rows.append((None, returns["any"]))
            out[f"{RefKind.RUNTIME}:{helper.helper}()"] = returns["any"]
        if rows:
            out[f"{RefKind.RUNTIME}:{helper.helper}"] = tuple(rows)
    return out


def _given(helper: Runtime, launch: Launch) -> bool:
    """Does `launch` set an env var or option the helper's stated value holds without?"""
    return any(dest_for_option(name) in launch.flags if name.startswith("--") else name in launch.env
               for name in helper.unset)


def model_helper_facts(helpers: Iterable[Runtime], launch: Launch) -> dict[str, Any]:
    """For a launch whose model is a generated stand-in: ``runtime:<helper>()`` -> what a
    ``model`` helper returns, for the helper called with the whole config
    (``is_mistral_native_format(server_args)``, read as the derived setting
    ``is_mistral_native_format()``: the model directory is what it inspects)."""
    out: dict[str, Any] = {}
    for helper in helpers:
        returns = dict(helper.returns)
        if "model" in returns and not _given(helper, launch):
            out[f"{RefKind.RUNTIME}:{helper.helper}()"] = returns["model"]
    return out


def object_property(name: str, names: str) -> str | None:
    """``is_multimodal`` for ``model_config.is_multimodal`` where `names` (a regex) matches
    ``model_config``: the dotted property a leaf reads of the model's configuration object."""
    found = re.fullmatch(rf"(?:{names})\.([A-Za-z_][\w.]*)", name)
    return found.group(1) if found is not None else None


def _path(values: Mapping[str, Any], prop: str) -> Any:
    """The measured value of a dotted property: itself, or an item of a measured parent."""
    if prop in values:
        return values[prop]
    head, _, tail = prop.rpartition(".")
    parent = _path(values, head) if head else _MISSING
    return parent.get(tail, _MISSING) if isinstance(parent, Mapping) else _MISSING


_MISSING = object()
WHOLE_CONFIGS = frozenset({"hf_config", "hf_text_config"})  # what a helper of the model's config is called on
ABSENT = "(absent)"  # the measured names the object lacks (`errcat.real.model_probe`)
VARIES = "(varies)"  # per input setting and value tried, the names it changes ("*": all)
TRIED = "(tried)"  # per release: input setting -> the values tried ("" for a switch)
_ALL = frozenset({"*"})


def measured_facts(props: ModelProperties, version: str, architecture: str, launch: Launch,
                   model_names: Iterable[str], derived: Iterable[str], stand_in: str = "") -> dict[str, Any]:
    """What the model's configuration object holds for `architecture`'s stand-in as measured
    on `version`: ``model:<name>`` per model leaf in `model_names` reading a property, the
    object itself for derived settings read as ``f()`` (``model_config_of()``: a record of
    the measured properties), and what helpers of the model's config returned for it
    (``is_deepseek_dsa(hf_config)``: a ``runtime:<fn>`` row for the `stand_in`, which is what
    the whole config reads as). Where the launch gives an option the object is built from,
    only what the measurement found that option's value leaves unchanged (each option on
    its own: options given together are taken not to interact); nothing for a value not
    tried."""
    measured = props.for_release(version)
    values = measured.get(architecture)
    if not values or "error" in values:
        return {}
    changed = _changed(values, measured.get(TRIED) or {}, props.inputs, launch)
    if changed >= _ALL:
        return {}
    out = _property_facts(values, changed, props.names, model_names)
    # the object as a record of what was measured, less what the launch's inputs change
    record = _record({k: v for k, v in values.items() if "(" not in k and k != ABSENT and not _under(k, changed)})
    for name in derived:
        out[f"{RefKind.RUNTIME}:{name}"] = record
    if stand_in:
        out.update(_helper_facts(values, changed, architecture, stand_in))
    return out


def _property_facts(values: Mapping[str, Any], changed: set[str], names: str,
                    model_names: Iterable[str]) -> dict[str, Any]:
    """``model:<name>`` per model leaf reading a measured property the launch leaves unchanged,
    ``absent:model:<name>`` where the measurement found the object lacks it."""
    out: dict[str, Any] = {}
    absent = set(values.get(ABSENT) or ()) if ABSENT not in changed else set()
    for name in model_names:
        prop = object_property(name, names)
        found = _path(values, prop) if prop is not None and not _under(prop, changed) else _MISSING
        if found is not _MISSING:
            out[f"{RefKind.MODEL}:{name}"] = tuple(found) if isinstance(found, list) else found
        elif prop in absent:
            out[absent_fact(name)] = True
    return out


def _helper_facts(values: Mapping[str, Any], changed: set[str], architecture: str, stand_in: str) -> dict[str, Any]:
    """A ``runtime:<fn>`` row per measured helper of the config the launch leaves unchanged:
    called on the whole config (the stand-in reads as it), or on the architecture."""
    out: dict[str, Any] = {}
    for key, value in values.items():
        helper, paren, argument = key.partition("(")
        if paren and not key.startswith("(") and key not in changed:
            given = architecture if argument.rstrip(")") not in WHOLE_CONFIGS else stand_in
            out[f"{RefKind.RUNTIME}:{helper}"] = (((given,), value),)
    return out


def _changed(values: Mapping[str, Any], tried: Mapping[str, Any], inputs: Iterable[str], launch: Launch) -> set[str]:
    """The measured names the launch's input options change ("*": all, or unknown)."""
    out: set[str] = set()
    varies = values.get(VARIES) or {}
    for dest in inputs:
        if dest not in launch.flags:
            continue
        given = launch.flags[dest]
        key = "" if isinstance(given, bool) else str(given)
        if given is False or key not in (tried.get(dest) or ()):
            return set(_ALL)  # a value the measurement did not try
        out.update((varies.get(dest) or {}).get(key) or ())
    return out


def _under(prop: str, changed: set[str]) -> bool:
    """`prop` or a record it is part of changed (``spec.flag`` under ``spec``)."""
    return prop in changed or any(prop.startswith(c + ".") for c in changed)


def _joined(measured: Mapping[str, Any], stated: Mapping[str, Any]) -> dict[str, Any]:
    """`stated` facts with `measured` ones added: a helper's rows joined (measured first), any
    other fact the stand-in states itself kept."""
    out = {**measured, **stated}
    for key, rows in measured.items():
        if key.startswith(f"{RefKind.RUNTIME}:") and isinstance(rows, tuple) and isinstance(stated.get(key), tuple):
            out[key] = rows + stated[key]
    return out


def _record(values: Mapping[str, Any]) -> Any:
    """Dotted measurements as one nested record (``a.b`` under ``a``)."""
    out: dict[str, Any] = {}
    for key, value in values.items():
        *parents, last = key.split(".")
        at = out
        for part in parents:
            nxt = at.setdefault(part, {})
            if not isinstance(nxt, dict):
                break
            at = nxt
        else:
            at.setdefault(last, value)
    return FrozenMap({k: FrozenMap(v) if isinstance(v, dict) else v for k, v in out.items()})


def architecture_of(model_path: Any, default: str) -> str | None:
    """The architecture a ``--model-path`` stand-in names (``<model>``: `default`); None
    for anything else (a real path: its config is not known here)."""
    found = MODEL_STAND_IN.fullmatch(model_path) if isinstance(model_path, str) else None
    if found is None:
        return None
    return found.group(1) or default


def architecture_fact(name: str, architecture: str) -> Any:
    """What model property `name` (one naming the architecture) reads for a model of
    `architecture`: the name, or a one-item list where the property is the list."""
    return (architecture,) if name.endswith("architectures") else architecture


def model_facts(architecture: str, config: Mapping[str, Any], names: Iterable[str],
                examples: Examples, stand_in: str = "") -> dict[str, Any]:
    """``model:NAME`` -> what each model property in `names` reads for a model of
    `architecture` whose config.json is `config`: the architecture (a name, or a one-item
    list where the name is the list), fields the config holds as they are, and the whole
    config as its `stand_in` (``<model:Arch>``: a runtime helper's ``model`` value is
    stated for a generated model, handed as its directory or as its config)."""
    out: dict[str, Any] = {}
    for name in names:
        key = f"{RefKind.MODEL}:{name}"
        if stand_in and _WHOLE_CONFIG.fullmatch(name):
            out[key] = stand_in
        elif examples.is_architecture(name):
            out[key] = architecture_fact(name, architecture)
        elif (field := _CONFIG_FIELD.fullmatch(name)) is not None and field.group(1) in config:
            value = config[field.group(1)]
            out[key] = tuple(value) if isinstance(value, list) else value
    return out


def on_platform(launch: Launch, platform: Platform, flags: FlagModel | None, names: Iterable[str]) -> Launch:
    """`launch` run on `platform`: its `args` added where the launch does not give the
    option (as the driver adds them), its predicates in `names` and what its runtime
    helpers return stated as facts."""
    added = launch_of_argv(platform.args, flags)
    given = Launch({**{k: v for k, v in added.flags.items() if k not in launch.flags}, **launch.flags}, launch.env)
    return Launch(given.flags, launch.env,
                  {**launch.facts, **platform_facts(platform, names), **runtime_facts(platform.runtime, given)})


@dataclass(frozen=True, slots=True)
class Stated:
    """How a command line becomes the launch the evaluator judges on one platform: its
    options parsed by their declarations, the platform's args and predicates, and the
    facts of the model its model flag's stand-in names (`RealProfile.stand_in_config`)."""

    flags: FlagModel | None
    platform: Platform
    real: RealProfile
    examples: Examples
    platform_names: tuple[str, ...]  # the platform checks the conditions read
    model_names: tuple[str, ...]  # the model properties they read
    version: str = ""  # the release judged: what its model configuration object holds (measured)
    derived_objects: tuple[str, ...] = ()  # derived settings that are that object (``model_config_of()``)
    path_tests: tuple[str, ...] = ()  # ``os.path.isfile(cfg.x)`` leaves the conditions read
    # the user's model (`errcat check --model-config`): its architecture and config.json,
    # whose fields are stated over those of the stand-in the launch names for it
    given_model: tuple[str, Mapping[str, Any]] | None = None

    @classmethod
    def of(cls, exprs: Sequence[Expr], flags: FlagModel | None, platform: Platform, real: RealProfile,
           examples: Examples, version: str = "") -> Stated:
        return cls.of_names(fact_names(exprs), flags, platform, real, examples, version)

    @classmethod
    def of_names(cls, names: Mapping[RefKind, tuple[str, ...]], flags: FlagModel | None, platform: Platform,
                 real: RealProfile, examples: Examples, version: str = "") -> Stated:
        """`of`, given the names of the facts the conditions read (`fact_names`, compiled ahead)."""
        props = real.model_object
        derived: tuple[str, ...] = ()
        if props is not None:
            pattern = re.compile(props.names)
            calls = {name if name.endswith(")") else name.partition(").")[0] + ")"
                     for name in names.get(RefKind.FLAG, ()) if name.endswith(")") or ")." in name}
            derived = tuple(sorted(c for c in calls if pattern.fullmatch(c)))
        tests = tuple(n for n in names.get(RefKind.RUNTIME, ()) if path_test(n) is not None)
        return cls(flags, platform, real, examples, names.get(RefKind.PLATFORM, ()),
                   names.get(RefKind.MODEL, ()), version, derived, tests)

    def foreign(self, launch: Launch) -> tuple[str, ...]:
        """``platform:NAME=JSON value`` for each option `launch` gives a value that loads a
        device runtime the platform lacks (its `absent`: ``--device npu`` here): sglang loads it
        during validation, outside the catalog, so only such a machine decides the launch
        (sorted; empty: this platform does)."""
        return tuple(sorted(f"{RefKind.PLATFORM}:{dest}={json.dumps(launch.flags[dest])}"
                            for dest, values in self.platform.absent
                            if dest in launch.flags and launch.flags[dest] in values))

    def launch(self, argv: Sequence[str], env: Iterable[tuple[str, str]] = ()) -> Launch:
        given = on_platform(launch_of_argv(argv, self.flags, env), self.platform, self.flags, self.platform_names)
        facts = dict(given.facts)
        architecture = architecture_of(given.flags.get(self.examples.model), self.real.default_model)
        config = self.real.stand_in_config(architecture) if architecture is not None else None
        if architecture is not None and config is not None:
            facts.update(model_facts(architecture, config, self.model_names, self.examples,
                                     given.flags[self.examples.model]))
            facts = {**model_helper_facts(self.platform.runtime, given), **facts}
            if self.real.model_object is not None and self.version:
                measured = measured_facts(self.real.model_object, self.version, architecture, given,
                                          self.model_names, self.derived_objects, given.flags[self.examples.model])
                facts = _joined(measured, facts)
        if self.given_model is not None:  # the fields of the user's config.json win over the stand-in's
            facts.update(model_facts(*self.given_model, self.model_names, self.examples))
        facts.update(path_facts(self.path_tests, given))
        return Launch(given.flags, given.env, facts)


def path_facts(tests: Iterable[str], launch: Launch) -> dict[str, bool]:
    """``runtime:os.path.isfile(cfg.x)`` -> what it is where option x gives a stand-in
    (`analyzers.path_tests`)."""
    out: dict[str, bool] = {}
    for name in tests:
        found = path_test(name)
        held = stand_in_path(found[0], launch.flags.get(found[1])) if found is not None else None
        if held is not None:
            out[f"{RefKind.RUNTIME}:{name}"] = held
    return out
