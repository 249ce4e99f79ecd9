"""Target profiles: the only place project-specific knowledge lives (YAML)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from extractor.errors import ProfileError

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml: ~10x faster on every run


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
    config_classes: frozenset[str] = frozenset()
    config_params: frozenset[str] = frozenset()
    views: frozenset[str] = frozenset()
    setters: frozenset[str] = frozenset()
    # decorators registering functions that return {field: value} decisions: run on every
    # launch (passes), or only for the models named in the decorator (model_overrides)
    passes: frozenset[str] = frozenset()
    model_overrides: frozenset[str] = frozenset()
    env_registries: frozenset[str] = frozenset()
    env_readers: frozenset[str] = frozenset()
    platform_predicates: frozenset[str] = frozenset()
    platform_patterns: tuple[str, ...] = ()
    model_roots: frozenset[str] = frozenset()
    launch: str = ""
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def repo_path(self, dist_path: str) -> str | None:
        """Map a path inside a release archive to the repository layout."""
        for src, dst in self.release_paths:
            if dist_path.startswith(src):
                return dst + dist_path[len(src):]
        return None

    def permalink(self, pin: str, path: str, line: int) -> str:
        return self.url_template.format(repo=self.repo, pin=pin, path=path, line=line)

    def is_platform(self, name: str) -> bool:
        """A function or flag that reports the hardware/platform (listed or by pattern)."""
        return name in self.platform_predicates or any(re.fullmatch(p, name) for p in self.platform_patterns)

    def tag(self, version: str) -> str:
        return self.release_tag.format(version=version)


def _strs(data: dict[str, Any], *keys: str) -> tuple[str, ...]:
    node: Any = data
    for key in keys:
        node = node.get(key, {}) if isinstance(node, dict) else {}
    if node in ({}, None):
        return ()
    if not isinstance(node, list) or not all(isinstance(x, str) for x in node):
        raise ProfileError(f"profile key {'.'.join(keys)} must be a list of strings")
    return tuple(node)


def parse_profile(data: Any, origin: str) -> Profile:
    if not isinstance(data, dict):
        raise ProfileError(f"profile {origin}: expected a mapping at top level")
    missing = [k for k in ("name", "repo", "targets") if k not in data]
    if missing:
        raise ProfileError(f"profile {origin}: missing key(s) {', '.join(missing)}")
    release_paths = data.get("release_paths") or {}
    if not isinstance(release_paths, dict):
        raise ProfileError(f"profile {origin}: release_paths must be a mapping")
    return Profile(
        name=str(data["name"]),
        repo=str(data["repo"]),
        url_template=str(
            data.get("url_template", "https://github.com/{repo}/blob/{pin}/{path}#L{line}")
        ),
        pypi=data.get("pypi"),
        release_paths=tuple((str(k), str(v)) for k, v in release_paths.items()),
        release_tag=str(data.get("release_tag", "v{version}")),
        targets=_strs(data, "targets"),
        flag_globs=_strs(data, "declarations", "flags"),
        env_globs=_strs(data, "declarations", "env"),
        config_classes=frozenset(_strs(data, "config", "classes")),
        config_params=frozenset(_strs(data, "config", "params")),
        views=frozenset(_strs(data, "config", "views")),
        setters=frozenset(_strs(data, "config", "setters")),
        passes=frozenset(_strs(data, "config", "passes")),
        model_overrides=frozenset(_strs(data, "config", "model_overrides")),
        env_registries=frozenset(_strs(data, "env", "registries")),
        env_readers=frozenset(_strs(data, "env", "readers")),
        platform_predicates=frozenset(_strs(data, "platform", "predicates")),
        platform_patterns=_strs(data, "platform", "patterns"),
        model_roots=frozenset(_strs(data, "model", "roots")),
        launch=str(data.get("launch", "")),
        raw=data,
    )


def load_profile(name_or_file: str = "sglang") -> Profile:
    """A shipped profile by name, or a YAML file by path."""
    path = Path(name_or_file)
    if path.suffix in (".yaml", ".yml") or path.exists():
        if not path.is_file():
            raise ProfileError(f"profile file not found: {name_or_file}")
        text, origin = path.read_text(encoding="utf-8"), str(path)
    else:
        res = resources.files("extractor") / "profiles" / f"{name_or_file}.yaml"
        if not res.is_file():
            raise ProfileError(f"unknown profile {name_or_file!r}")
        text, origin = res.read_text(encoding="utf-8"), name_or_file
    try:
        data = yaml.load(text, Loader=_LOADER)  # noqa: S506 - a safe loader, in C when available
    except yaml.YAMLError as exc:
        raise ProfileError(f"profile {origin} is not valid YAML: {str(exc).splitlines()[0]}") from None
    return parse_profile(data, origin)
