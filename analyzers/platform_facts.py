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

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from analyzers.argv import launch_of_argv
from analyzers.examples import Examples
from analyzers.flags import FlagModel
from analyzers.launch import Launch
from extractor.ir import Expr, RefKind, refs
from extractor.real_profile import Platform, RealProfile, Runtime

_MODEL = re.compile(r"<model(?::([A-Za-z_][A-Za-z0-9_]*))?>")
# a model property the config.json holds as is: ``…hf_config.num_hidden_layers``
_CONFIG_FIELD = re.compile(r"(?:.*\.)?hf_(?:text_)?config\.([A-Za-z_][A-Za-z0-9_]*)")
# the model's whole config (``model_config_of(view).hf_config``), as a helper is handed it
_WHOLE_CONFIG = re.compile(r"(?:.*\.)?hf_(?:text_)?config")


def fact_names(exprs: Iterable[Expr], kind: RefKind) -> tuple[str, ...]:
    """The names of the `kind` leaves (platform checks, model properties) `exprs` read, sorted."""
    return tuple(sorted({r.name for e in exprs for r in refs(e) if r.kind is kind}))


def platform_facts(platform: Platform, names: Iterable[str]) -> dict[str, Any]:
    """``platform:NAME`` -> what each predicate in `names` reads on `platform` (names it
    leaves unknown are absent)."""
    given = dict(platform.facts)
    out: dict[str, Any] = {}
    for name in names:
        found = given.get(name, platform.predicates)
        if found is not None:
            out[f"{RefKind.PLATFORM}:{name}"] = found
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
        if any(name in launch.env for name in helper.unset):
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


def model_helper_facts(helpers: Iterable[Runtime], launch: Launch) -> dict[str, Any]:
    """For a launch whose model is a generated stand-in: ``runtime:<helper>()`` -> what a
    ``model`` helper returns, for the helper called with the whole config
    (``is_mistral_native_format(server_args)``, read as the derived setting
    ``is_mistral_native_format()``: the model directory is what it inspects)."""
    out: dict[str, Any] = {}
    for helper in helpers:
        returns = dict(helper.returns)
        if "model" in returns and not any(name in launch.env for name in helper.unset):
            out[f"{RefKind.RUNTIME}:{helper.helper}()"] = returns["model"]
    return out


def architecture_of(model_path: Any, default: str) -> str | None:
    """The architecture a ``--model-path`` stand-in names (``<model>``: `default`); None
    for anything else (a real path: its config is not known here)."""
    found = _MODEL.fullmatch(model_path) if isinstance(model_path, str) else None
    if found is None:
        return None
    return found.group(1) or default


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
            out[key] = (architecture,) if name.endswith("architectures") else architecture
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

    @classmethod
    def of(cls, exprs: Sequence[Expr], flags: FlagModel | None, platform: Platform, real: RealProfile,
           examples: Examples) -> Stated:
        return cls(flags, platform, real, examples, fact_names(exprs, RefKind.PLATFORM),
                   fact_names(exprs, RefKind.MODEL))

    def launch(self, argv: Sequence[str], env: Iterable[tuple[str, str]] = ()) -> Launch:
        given = on_platform(launch_of_argv(argv, self.flags, env), self.platform, self.flags, self.platform_names)
        facts = dict(given.facts)
        architecture = architecture_of(given.flags.get(self.examples.model), self.real.default_model)
        config = self.real.stand_in_config(architecture) if architecture is not None else None
        if architecture is not None and config is not None:
            facts.update(model_facts(architecture, config, self.model_names, self.examples,
                                     given.flags[self.examples.model]))
            facts = {**model_helper_facts(self.platform.runtime, given), **facts}
        return Launch(given.flags, given.env, facts)
