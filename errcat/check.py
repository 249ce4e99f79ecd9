"""`errcat check -- COMMAND`: the command line as the user has it, checked offline against a catalog.

Reads the command (leading ``NAME=value`` words, the program, its arguments), the
environment, the model's ``config.json`` and the platform; loads the catalog (a directory,
or a source errcat extracts or takes from its cache) and asks `analyzers.check`. Never
imports or runs the target.
"""
from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from analyzers.argv import group_words, launch_of_argv, option_groups
from analyzers.check import Checked, check_launch
from analyzers.example_check import ExampleJudge
from analyzers.launch import ENV_WORD, CommandLine
from analyzers.outcomes import release_of
from analyzers.solution import Change
from extractor.errors import ErrcatError
from extractor.profile import Profile
from extractor.real_profile import Platform
from extractor.shape import ShapeError

if TYPE_CHECKING:
    from analyzers.judge_data import CompiledPipeline

UNKNOWN_PLATFORM = "unknown"  # every platform check unknown, no option added
AUTO_PLATFORM = "auto"  # the machine check runs on (`errcat.machine`)
_PYTHON = re.compile(r"(.*/)?python[0-9.]*")


def split_words(words: Sequence[str]) -> CommandLine:
    """``A=1 python -m sglang.launch_server --x`` / ``sglang serve --x``: the program is
    ``python -m MODULE``, the target's own command and its subcommand, or one executable."""
    words = list(words)
    env = []
    while words and ENV_WORD.match(words[0]):
        name, _, value = words.pop(0).partition("=")
        env.append((name, value))
    if not words:
        raise ErrcatError("no command after --: give the command line to check, e.g. "
                          "-- python -m sglang.launch_server --model-path DIR")
    if _PYTHON.fullmatch(words[0]) and len(words) >= 3 and words[1] == "-m":
        size = 3
    elif len(words) >= 2 and not words[1].startswith("-") and Path(words[0]).name in ("sglang",):
        size = 2  # sglang serve
    else:
        size = 1
    return CommandLine(tuple(env), tuple(words[:size]), tuple(words[size:]))


def launches(program: Sequence[str], launch: str) -> bool:
    """Whether `program` (`split_words`'s) runs the profile's `launch` (``python -m MODULE``):
    that module under any Python, or its package's ``serve`` command (``sglang serve``)."""
    module = launch.split()[-1] if launch else ""
    if len(program) == 3:
        return program[2] == module
    return len(program) == 2 and Path(program[0]).name == module.split(".")[0] and program[1] == "serve"


def refuse_other_programs(command: CommandLine, launch: str) -> None:
    if launch and not launches(command.program, launch):
        shown = " ".join(command.program + command.argv[:2])
        raise ErrcatError(f"check: `{shown}` is not a launch of {launch} (nor of "
                          f"{launch.split()[-1].split('.')[0]} serve)")


def read_model_config(path: str | os.PathLike[str], what: str = "--model-config") -> dict[str, Any]:
    """A model's ``config.json`` (the file, or the directory holding it)."""
    where = Path(path)
    if where.is_dir():
        where = where / "config.json"
    try:
        data = json.loads(where.read_text(encoding="utf-8"))
    except (OSError, UnicodeError, ValueError) as exc:
        raise ErrcatError(f"{what}: cannot read {where}: {exc}") from None
    if not isinstance(data, dict):
        raise ErrcatError(f"{what}: {where} is not a JSON object")
    return data


def model_config(given: str | None, model_path: object, revision: object,
                 env: Mapping[str, str]) -> tuple[dict[str, Any] | None, str]:
    """The model's ``config.json`` and where it came from: `given` (``--model-config``), else a
    local ``--model-path`` directory, else a hub id's in the local Hugging Face cache (at the
    command's ``--revision``); never downloaded."""
    from errcat.hfcache import cached_config, hub_cache, is_hub_id

    if given:
        return read_model_config(given), f"{given} (--model-config)"
    if not isinstance(model_path, str):
        return None, "none (no --model-path)"
    if (Path(model_path) / "config.json").is_file():
        return read_model_config(model_path, "--model-path"), f"{Path(model_path) / 'config.json'} (--model-path)"
    if not is_hub_id(model_path):
        return None, f"none ({model_path} is neither a directory with a config.json nor a hub id)"
    found = cached_config(model_path, revision if isinstance(revision, str) else None, env)
    if found is None:
        at = f" at revision {revision}" if isinstance(revision, str) else ""
        return None, f"none ({model_path}{at} is not in the local Hugging Face cache {hub_cache(env)})"
    return read_model_config(found, "--model-path"), f"{found} (local Hugging Face cache)"


def given_model(config: Mapping[str, Any] | None, architecture: str | None) -> tuple[str, Mapping[str, Any]] | None:
    """(architecture, config) the launch states: `architecture` wins over the config's first."""
    config = dict(config or {})
    archs = config.get("architectures")
    name = architecture or (archs[0] if isinstance(archs, list) and archs and isinstance(archs[0], str) else None)
    if name is None:
        return None
    return name, {**config, "architectures": [name]}


def platform_of(profile: Profile, name: str) -> Platform:
    if name == UNKNOWN_PLATFORM:
        return Platform(UNKNOWN_PLATFORM, (), None)
    real = profile.real
    found = real.platform(name) if real is not None else None
    if found is None:
        presets = real.platforms if real is not None else ()
        known = sorted({UNKNOWN_PLATFORM, AUTO_PLATFORM, *(p.name for p in presets)})
        raise ErrcatError(f"--platform: unknown platform {name!r} (known: {', '.join(known)})")
    return found


def environment(names: Iterable[str], given: Sequence[str], command: CommandLine,
                current: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """The env vars the launch sees that the catalog knows: the current environment's, then
    ``--env K=V``, then the command's own ``K=V`` words."""
    known = set(names)
    out = {k: v for k, v in current.items() if k in known}
    for item in given:
        name, eq, value = item.partition("=")
        if not eq or not ENV_WORD.match(name + "="):
            raise ErrcatError(f"--env: expected NAME=VALUE, got {item!r}")
        out[name] = value
    out.update(dict(command.env))
    return tuple(sorted(out.items()))


@dataclass(frozen=True, slots=True)
class Checker:
    """One catalog ready to check command lines on one platform."""

    entries: Mapping[str, Mapping[str, Any]]  # the catalog's entries by id (what a report shows)
    judge: ExampleJudge
    release: str | None

    @classmethod
    def of(cls, data: dict[str, Any], profile: Profile, platform: Platform) -> Checker:
        """From catalog.json's data: the pipeline built from its entries."""
        from errcat.judging import judge_of

        release = release_of(data.get("source") or {}, profile)
        try:
            judge = judge_of(data, profile, release=release, platform=platform)
        except ValueError as exc:  # shape.ShapeError: a catalog.json of another shape
            raise ErrcatError(f"the catalog's data cannot be read: {exc}") from exc
        if judge is None:
            raise ErrcatError(f"check needs a release whose validation the profile {profile.name!r} knows how to "
                              f"run (this catalog's: {release or 'none'})")
        return cls({e["id"]: e for e in data["entries"] if isinstance(e, dict) and "id" in e}, judge, release)

    @classmethod
    def of_compiled(cls, compiled: CompiledPipeline, release: str, directory: str | os.PathLike[str],
                    profile: Profile, platform: Platform) -> Checker:
        """From the compiled pipeline extract wrote beside a catalog (`load_compiled`), each
        entry read from ``entries/<id>.json`` when a report shows it."""
        from errcat.judging import judge_on
        from output.entry_files import EntryFiles

        judge = judge_on(compiled.pipeline, compiled.names, profile, release=release, platform=platform)
        return cls(EntryFiles(directory), judge, release)

    def warm(self) -> Checker:
        """This checker with every check's condition and every adjustment compiled (a bare
        launch of the default model checked): what the first check pays, whatever its command."""
        argv = ["--" + self.judge.stated.examples.model.replace("_", "-"), "<model>"]
        check_launch(self.judge, argv, launch_of_argv(argv, self.judge.flags))
        return self

    def with_model(self, model: tuple[str, Mapping[str, Any]] | None) -> Checker:
        """Checks of launches of the user's model (architecture, config.json), where the model
        option names no stand-in."""
        judge = self.judge
        stated = replace(judge.stated, given_model=model)
        return replace(self, judge=judge.restated(stated))

    def model_path(self, command: CommandLine) -> Any:
        """What the command gives the model option (``--model-path``)."""
        return self.given(command, self.judge.stated.examples.model)

    def given(self, command: CommandLine, dest: str) -> Any:
        """What the command gives the option of `dest` (None: not given)."""
        return launch_of_argv(command.argv, self.judge.flags).flags.get(dest)

    def check(self, command: CommandLine) -> Checked:
        """`command` checked; where the user's model is given (`with_model`), the model option
        names errcat's stand-in of its architecture, whose measured facts stand for it."""
        from analyzers.examples import model_of

        argv = command.argv
        model = self.judge.stated.given_model
        flag = self.judge.flags.by_dest(self.judge.stated.examples.model) if self.judge.flags else None
        if model is not None and flag is not None:
            argv = group_words((o, (model_of(model[0]),) if o in flag.options else v) for o, v in option_groups(argv))
        launch = launch_of_argv(argv, self.judge.flags, command.env)
        return check_launch(self.judge, argv, launch, self.advised)

    def advised(self, eid: str) -> list[Change]:
        """The changes of `eid`'s solutions the pipeline says get past it, in the catalog's
        order: the entry's own, then its rows'."""
        entry = self.entries.get(eid) or {}
        listed = [*(entry.get("solutions") or ()), *(s for v in entry.get("variants") or ()
                                                     for s in v.get("solutions") or ())]
        out = []
        for sol in listed:
            if isinstance(sol, Mapping) and sol.get("predicted") == "true" and sol.get("verified") != "false":
                try:
                    out.append(Change.from_dict(sol.get("change")))
                except ShapeError:  # a solution with no change stored: words only
                    continue
        return out

    def env_names(self) -> list[str]:
        flags = self.judge.flags
        return [v.name for v in flags.env] if flags is not None else []


@dataclass(frozen=True, slots=True)
class Request:
    """What `errcat check` was asked, apart from where the catalog comes from."""

    words: tuple[str, ...]  # the command after --
    platform: str = AUTO_PLATFORM
    env: tuple[str, ...] = ()  # --env K=V
    model_config: str | None = None
    architecture: str | None = None
    platform_said: str | None = None  # how `auto` was resolved (one line)


def on_this_machine(request: Request, profile: Profile, machine: Any = None) -> Request:
    """`request` with ``--platform auto`` resolved to the profile's preset for this machine
    (`machine`: an `errcat.machine.Machine`, detected when None) and the command's --device."""
    from errcat.machine import described, detect, device_of, preset

    if request.platform != AUTO_PLATFORM:
        return request
    found = detect() if machine is None else machine
    device = device_of(split_words(request.words).argv)
    name = preset(found, device)
    if profile.real is None or profile.real.platform(name) is None:
        name = UNKNOWN_PLATFORM
    return replace(request, platform=name, platform_said=described(found, device, name))


# how a checker of one catalog is made on a platform (the platform is known once the command is read)
Load = Callable[[Platform], Checker]


def load_data(data: dict[str, Any], profile: Profile) -> Load:
    """Checkers of catalog.json's `data`."""
    return lambda platform: Checker.of(data, profile, platform)


def load_compiled(directory: str | os.PathLike[str], profile: Profile) -> Load | None:
    """Checkers of the catalog directory `directory` from its compiled pipeline (`judge.json`);
    None where it has none that is up to date (then its catalog.json is read)."""
    from analyzers.judge_data import pipeline_of_data
    from errcat.judging import validation_of
    from output.judge_file import judge_key, read_judge

    found = read_judge(directory, judge_key(profile))
    release = found.release if found is not None else None
    if found is None or release is None or validation_of(profile, release) is None:
        return None
    try:
        compiled = pipeline_of_data(found.pipeline, profile.examples)
    except (ValueError, KeyError, TypeError, IndexError):  # not what extract writes: read catalog.json
        return None
    return lambda platform: Checker.of_compiled(compiled, release, directory, profile, platform)


def check_catalog(load: Load, profile: Profile, request: Request,
                  current_env: Mapping[str, str]) -> tuple[Checked, dict[str, Any]]:
    """`request` checked against one catalog (`load`: its checker on a platform): the result and its report."""
    from analyzers.check_report import check_report

    command = split_words(request.words)
    refuse_other_programs(command, profile.launch)
    request = on_this_machine(request, profile)
    platform = platform_of(profile, request.platform)
    checker = load(platform)
    path = checker.model_path(command)
    config, config_said = model_config(request.model_config, path, checker.given(command, "revision"), current_env)
    model = given_model(config, request.architecture)
    checker = checker.with_model(model)
    env = environment(checker.env_names(), request.env, command, current_env)
    checked = checker.check(replace(command, env=env))
    report = check_report(checked, checker.judge, checker.entries, command.program, release=checker.release,
                          platform=platform.name, model=(checker.judge.stated.examples.model, path))
    report["platform_detected"] = request.platform_said
    report["model_config"] = {"used": config_said, "architecture": model[0] if model else None,
                              "given_architecture": request.architecture}
    return checked, report
