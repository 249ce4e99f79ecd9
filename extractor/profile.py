"""Target profiles: the only place project-specific knowledge lives (YAML)."""
from __future__ import annotations

import json
import re
import string
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from extractor.errors import ProfileError
from extractor.real_profile import RealProfile, parse_real, real_problem

if TYPE_CHECKING:  # (importlib.resources.abc from 3.11) the annotation is all that needs it
    from importlib.abc import Traversable

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml: ~10x faster on every run


@dataclass(frozen=True, slots=True)
class ExampleRules:
    """The `examples:` section: how example commands write the values a user picks
    (`analyzers.examples`). Patterns are regular expressions matching a whole name."""

    model: str = ""  # dest of the flag naming the model: `<model>`, or `<model:Arch>`
    models: tuple[str, ...] = ()  # dests of other flags whose value is a model: `<model>`
    files: tuple[str, ...] = ()  # dests whose value is a file: `<file>`
    dirs: tuple[str, ...] = ()  # dests whose value is a directory: `<dir>`
    architecture: tuple[str, ...] = ()  # model properties holding the architecture (a list or its item)
    # values the program accepts for a flag (dest) or env var where its declaration does not
    # say (a registry or enum looked up at run time): the only values examples give it
    accepts: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # dests of flags that count something (a parallel size): examples give them 1, 2, 4, 8,
    # and 0 or less only where the error is about such a value
    counts: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Profile:
    name: str
    repo: str
    url_template: str
    pypi: str | None
    release_paths: tuple[tuple[str, str], ...]
    release_tag: str
    targets: tuple[str, ...]
    flag_globs: tuple[str, ...] = ()
    env_globs: tuple[str, ...] = ()
    # the declaration helpers' names (``declarations: conventions:``), key -> names, as
    # `analyzers.flags.Conventions.from_mapping` reads them; () keeps its defaults
    conventions: tuple[tuple[str, tuple[str, ...]], ...] = ()
    config_classes: frozenset[str] = frozenset()
    config_params: frozenset[str] = frozenset()
    views: frozenset[str] = frozenset()
    setters: frozenset[str] = frozenset()
    # functions ``f(cfg, "field")`` returning the field's effective value: what code set, else
    # the command line's, else the field's declared fallback (``Arg(fallback=...)``)
    readers: frozenset[str] = frozenset()
    # decorators registering functions that return {field: value} decisions: run on every
    # launch (passes), or only for the models named in the decorator (model_overrides)
    passes: frozenset[str] = frozenset()
    model_overrides: frozenset[str] = frozenset()
    # functions that run every registered model override (a call of one runs them there)
    override_runners: frozenset[str] = frozenset()
    # functions that check what the program's own code hands them (what a registered pass
    # returns): their checks fire on a defect of the program, not on a command line
    contracts: frozenset[str] = frozenset()
    # files outside the targets read only for their calls: code that dispatches to target
    # functions (their callers' guards, and whether a launch reaches them)
    callers: tuple[str, ...] = ()
    # files (globs) outside the targets never followed: a launch reaching their functions
    # makes no entries of their checks (`extractor.reach_files`)
    exclude: tuple[str, ...] = ()
    # functions the launcher runs besides the `real.validate` steps (qualified names)
    entry_points: tuple[str, ...] = ()
    # functions the launcher runs after validation, as the server starts (qualified names):
    # a real launch raises their checks, the validation `errcat confirm` runs never does
    after_validation: frozenset[str] = frozenset()
    env_registries: frozenset[str] = frozenset()
    env_readers: frozenset[str] = frozenset()
    platform_predicates: frozenset[str] = frozenset()
    platform_patterns: tuple[str, ...] = ()
    # settings (dests) that choose the device the program runs on (``--device``): a check of
    # one is a platform restriction, whatever else it reads
    platform_settings: frozenset[str] = frozenset()
    # device queries that raise where the machine lacks the device (``torch.cuda.
    # get_device_capability()`` with no CUDA): called name -> (exception, message)
    platform_raises: tuple[tuple[str, tuple[str, str]], ...] = ()
    model_roots: frozenset[str] = frozenset()
    # the model property naming its architecture, as guards on model-registered code read it
    model_architecture: str = ""
    # a config method call whose path contains one of these reads model data (get_model_config())
    model_calls: tuple[str, ...] = ()
    # names of variables holding a view of the configuration, besides `views` (a regex, searched)
    view_pattern: str = ""
    launch: str = ""
    examples: ExampleRules = ExampleRules()
    real: RealProfile | None = None  # how to run the target's own validation (`errcat confirm`)
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def repo_path(self, dist_path: str) -> str | None:
        """Map a path inside a release archive to the repository layout."""
        for src, dst in self.release_paths:
            if dist_path.startswith(src):
                return dst + dist_path[len(src):]
        return None

    def permalink(self, pin: str, path: str, line: int) -> str:
        return self.url_template.format(repo=self.repo, pin=pin, path=path, line=line)

    def raising_query(self, name: str) -> tuple[str, str] | None:
        """(exception, message) of a device query `platform.raises` names (None: not one)."""
        return _by_name(self.platform_raises).get(name) if self.platform_raises else None

    def is_platform(self, name: str) -> bool:
        """A function or flag that reports the hardware/platform (listed or by pattern)."""
        return name in self.platform_predicates or any(re.fullmatch(p, name) for p in self.platform_patterns)

    def tag(self, version: str) -> str:
        return self.release_tag.format(version=version)


# ------------------------------------------------------------------ schema
#
# Every key the code reads, with its type; a profile is checked against this when it is
# loaded, so a bad value is one ProfileError naming the key, never a traceback later.
# A nested dict is a mapping with those keys (the section may be absent or empty).

Check = Callable[[Any], "str | None"]  # the problem with a value, or None


def _string(value: Any) -> str | None:
    if not isinstance(value, str):
        return f"expected a string, got {_kind(value)}"
    if any(ord(c) < 32 for c in value):
        return "must be one line without control characters"
    return None


def _nonempty(value: Any) -> str | None:
    return _string(value) or (None if value.strip() else "must not be empty")


def _pattern(rx: str, what: str) -> Check:
    def check(value: Any) -> str | None:
        problem = _string(value)
        return problem or (None if re.fullmatch(rx, value) else f"{value!r} is not {what}")
    return check


def _strings(*, required: bool = False, item: Check = _nonempty) -> Check:
    def check(value: Any) -> str | None:
        if value is None and not required:
            return None
        if not isinstance(value, list):
            return f"expected a list of strings, got {_kind(value)}"
        if required and not value:
            return "must list at least one entry"
        return next((f"item {i + 1}: {p}" for i, x in enumerate(value) if (p := item(x))), None)
    return check


def _names(value: Any) -> str | None:
    """A name or a non-empty list of names (declaration conventions)."""
    return _nonempty(value) if isinstance(value, str) else _strings(required=True)(value)


def _regex(value: Any) -> str | None:
    if (problem := _string(value)) is not None:
        return problem
    try:
        re.compile(value)
    except re.error as exc:
        return f"{value!r} is not a regular expression: {exc}"
    return None


def _template(**dummy: Any) -> Check:
    """A str.format template using only the named placeholders (no attributes, indexes)."""
    known = ", ".join(f"{{{k}}}" for k in dummy)

    def check(value: Any) -> str | None:
        if (problem := _string(value)) is not None:
            return problem
        try:
            fields = [f for _, f, _, _ in string.Formatter().parse(value) if f is not None]
            bad = next((f for f in fields if f not in dummy), None)
            if bad is not None:
                return f"unknown placeholder {{{bad}}} (known: {known})"
            value.format(**dummy)
        except (ValueError, KeyError, IndexError, AttributeError, TypeError) as exc:
            return f"not a valid template ({type(exc).__name__}: {exc}; known placeholders: {known})"
        return None
    return check


def _url_template(value: Any) -> str | None:
    check = _template(repo="o/r", pin="0" * 40, path="a/b.py", line=1)
    if (problem := check(value)) is not None:
        return problem
    return None if value.startswith(("https://", "http://")) else "must start with https:// or http://"


def _path_map(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        return f"expected a mapping of archive path -> repository path, got {_kind(value)}"
    return next((f"{k!r}: {p}" for k, v in value.items() if (p := _string(k) or _string(v))), None)


@cache
def _by_name(pairs: tuple[tuple[str, tuple[str, str]], ...]) -> dict[str, tuple[str, str]]:
    return dict(pairs)


def _mapping(what: str, item: Callable[[Any], bool], expected: str) -> Check:
    """A mapping of names (`what`) to values `item` accepts; `expected`: what a value must be."""
    def check(value: Any) -> str | None:
        if not isinstance(value, dict):
            return f"expected a mapping of {what}, got {_kind(value)}"
        for name, found in value.items():
            if (problem := _string(name)) is not None:
                return f"{name!r}: {problem}"
            if not item(found):
                return f"{name!r}: expected {expected}"
        return None
    return check


_raises = _mapping("called name -> {exception, message}",
                   lambda r: isinstance(r, dict) and set(r) == {"exception", "message"}
                   and all(isinstance(v, str) and v for v in r.values()),
                   "{exception: <name>, message: <text>}")
_accepts = _mapping("flag dest or env var -> accepted values",
                    lambda vs: isinstance(vs, list) and bool(vs) and all(isinstance(v, str) and v for v in vs),
                    "a list of values")


def _optional(check: Check) -> Check:
    return lambda value: None if value is None else check(value)


_DIST = r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?"  # a PEP 508 distribution name
_SCHEMA: dict[str, Any] = {
    "name": _nonempty,
    "repo": _pattern(r"[^\s]+", "a repository name such as owner/name"),
    "url_template": _url_template,
    "pypi": _optional(_pattern(_DIST, "a package name")),
    "release_paths": _path_map,
    "release_tag": _template(version="1.0"),
    "targets": _strings(required=True),
    "declarations": {"flags": _strings(), "env": _strings(),
                     "conventions": {"arg": _names, "derived": _names, "field": _names}},
    "config": {**{key: _strings() for key in ("classes", "params", "views", "setters", "readers", "passes",
                                                        "model_overrides", "override_runners",
                                                        "contracts", "callers", "exclude", "entry_points",
                                                        "after_validation")},
               "view_pattern": _regex},
    "env": {"registries": _strings(), "readers": _strings()},
    "platform": {"predicates": _strings(), "patterns": _strings(item=_regex), "settings": _strings(),
                 "raises": _optional(_raises)},
    "model": {"roots": _strings(), "architecture": _nonempty, "calls": _strings()},
    "launch": _string,
    "examples": {"model": _optional(_pattern(r"[A-Za-z_][A-Za-z0-9_]*", "a flag dest")),
                 **{key: _strings(item=_regex) for key in ("models", "files", "dirs", "architecture", "counts")},
                 "accepts": _optional(_accepts)},
    "real": real_problem,
}
_REQUIRED = ("name", "repo", "targets")


def _kind(value: Any) -> str:
    names = {bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "a list",
             dict: "a mapping", type(None): "nothing"}
    return names.get(type(value), type(value).__name__)


def _problem(data: Any, schema: dict[str, Any], where: str) -> str | None:
    """The first problem of mapping `data` against `schema`, as "key.path: what is wrong"."""
    if data is None and where:
        return None  # an empty section: all defaults
    if not isinstance(data, dict):
        return f"{where.rstrip('.') or 'top level'}: expected a mapping, got {_kind(data)}"
    for key, value in data.items():
        path = f"{where}{key}"
        if key not in schema:
            known = ", ".join(schema)
            return f"{path}: unknown key (known{' in ' + where.rstrip('.') if where else ''}: {known})"
        check = schema[key]
        problem = _problem(value, check, f"{path}.") if isinstance(check, dict) else check(value)
        if problem is not None:
            return problem if isinstance(check, dict) else f"{path}: {problem}"
    return None


def _strs(data: dict[str, Any], *keys: str) -> tuple[str, ...]:
    """The list at `keys` (validated already); () when absent or empty."""
    node: Any = data
    for key in keys:
        node = node.get(key) if isinstance(node, dict) else None
    return tuple(node or ())


def _conventions(data: dict[str, Any]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``declarations: conventions:`` (validated already), each key's name or names as a tuple."""
    given = (data.get("declarations") or {}).get("conventions") or {}
    return tuple((key, (names,) if isinstance(names, str) else tuple(names)) for key, names in given.items())


def parse_profile(data: Any, origin: str) -> Profile:
    if not isinstance(data, dict):
        raise ProfileError(f"profile {origin}: expected a mapping at top level")
    missing = [k for k in _REQUIRED if k not in data]
    if missing:
        raise ProfileError(f"profile {origin}: missing key(s) {', '.join(missing)}")
    problem = _problem(data, _SCHEMA, "")
    if problem is not None:
        raise ProfileError(f"profile {origin}: {problem}")
    return Profile(
        name=data["name"],
        repo=data["repo"],
        url_template=data.get("url_template", "https://github.com/{repo}/blob/{pin}/{path}#L{line}"),
        pypi=data.get("pypi"),
        release_paths=tuple((data.get("release_paths") or {}).items()),
        release_tag=data.get("release_tag", "v{version}"),
        targets=_strs(data, "targets"),
        flag_globs=_strs(data, "declarations", "flags"),
        env_globs=_strs(data, "declarations", "env"),
        conventions=_conventions(data),
        config_classes=frozenset(_strs(data, "config", "classes")),
        config_params=frozenset(_strs(data, "config", "params")),
        views=frozenset(_strs(data, "config", "views")),
        setters=frozenset(_strs(data, "config", "setters")),
        readers=frozenset(_strs(data, "config", "readers")),
        passes=frozenset(_strs(data, "config", "passes")),
        model_overrides=frozenset(_strs(data, "config", "model_overrides")),
        override_runners=frozenset(_strs(data, "config", "override_runners")),
        contracts=frozenset(_strs(data, "config", "contracts")),
        callers=_strs(data, "config", "callers"),
        exclude=_strs(data, "config", "exclude"),
        entry_points=_strs(data, "config", "entry_points"),
        after_validation=frozenset(_strs(data, "config", "after_validation")),
        env_registries=frozenset(_strs(data, "env", "registries")),
        env_readers=frozenset(_strs(data, "env", "readers")),
        platform_predicates=frozenset(_strs(data, "platform", "predicates")),
        platform_patterns=_strs(data, "platform", "patterns"),
        platform_settings=frozenset(_strs(data, "platform", "settings")),
        platform_raises=tuple(sorted((name, (r["exception"], r["message"])) for name, r in
                                     ((data.get("platform") or {}).get("raises") or {}).items())),
        model_roots=frozenset(_strs(data, "model", "roots")),
        model_architecture=(data.get("model") or {}).get("architecture", ""),
        model_calls=_strs(data, "model", "calls"),
        view_pattern=(data.get("config") or {}).get("view_pattern", ""),
        launch=data.get("launch", ""),
        examples=ExampleRules(
            (data.get("examples") or {}).get("model") or "", _strs(data, "examples", "models"),
            _strs(data, "examples", "files"), _strs(data, "examples", "dirs"), _strs(data, "examples", "architecture"),
            tuple(sorted((name, tuple(values)) for name, values in
                         ((data.get("examples") or {}).get("accepts") or {}).items())),
            _strs(data, "examples", "counts"),
        ),
        real=parse_real(data.get("real")),
        raw=data,
    )


def load_profile(name_or_file: str = "sglang") -> Profile:
    """A shipped profile by name, or a YAML file by path."""
    path = Path(name_or_file)
    home: Traversable
    if path.suffix in (".yaml", ".yml") or path.exists():
        if not path.is_file():
            raise ProfileError(f"profile file not found: {name_or_file}")
        text, origin, home = path.read_text(encoding="utf-8"), str(path), path.parent
    else:
        home = resources.files("extractor") / "profiles"
        res = home / f"{name_or_file}.yaml"
        if not res.is_file():
            raise ProfileError(f"unknown profile {name_or_file!r}")
        text, origin = res.read_text(encoding="utf-8"), name_or_file
    try:
        data = yaml.load(text, Loader=_LOADER)  # a safe loader, in C when available
    except yaml.YAMLError as exc:
        raise ProfileError(f"profile {origin} is not valid YAML: {str(exc).splitlines()[0]}") from None
    _read_measured(data, home, origin)
    return parse_profile(data, origin)


def _read_measured(data: Any, home: Traversable, origin: str) -> None:
    """``real.models.object.measured: FILE`` (a JSON file beside the profile, as
    `scripts/measure_model_properties.py` writes it) read in place."""
    found = data.get("real") if isinstance(data, dict) else None
    found = found.get("models") if isinstance(found, dict) else None
    found = found.get("object") if isinstance(found, dict) else None
    if not isinstance(found, dict) or not isinstance(found.get("measured"), str):
        return
    name = found["measured"]
    try:
        found["measured"] = json.loads((home / name).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ProfileError(f"profile {origin}: cannot read real.models.object.measured {name}: {exc}") from None
