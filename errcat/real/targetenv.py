"""A CPU-only virtualenv in which one release of the profile's target is importable.

What to install comes from the profile (`real.install`: per release range, pip argument
lists run in order, `{target}` standing for the release); pip runs in a virtualenv made by
errcat's own interpreter. Envs are cached under `<cache>/targets/<dist>-<version>-<plan hash>`.
A build happens in a temporary sibling directory under a lock and is renamed into place
after its marker, written last, exists: a killed build never looks done, and two builds
of the same env never collide.
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from errcat.real.runner import target_version
from extractor.atomic import write_bytes_atomically
from extractor.cache import cache_root, downloads_dir, targets_dir, untrusted
from extractor.errors import ErrcatError
from extractor.pep440 import version_key
from extractor.profile import Profile
from extractor.real_profile import Install

MARKER = ".errcat-target.json"  # written last: its presence means the env is complete
TARGET = "{target}"

Runner = Callable[[Sequence[str], Path], int]  # runs a command, output appended to the log -> exit code
Log = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class TargetEnv:
    python: Path
    version: str
    dir: Path


@dataclass(frozen=True, slots=True)
class Plan:
    """What one env is made of; `key` names it (the profile's steps and this interpreter)."""

    dist: str
    version: str
    pip: tuple[tuple[str, ...], ...]  # as the profile has them: `{target}` not yet substituted
    key: str

    def steps(self, target: str) -> tuple[tuple[str, ...], ...]:
        return tuple(tuple(arg.replace(TARGET, target) for arg in args) for args in self.pip)


def describe_range(install: Install) -> str:
    bounds = ([f">={install.start}"] if install.start else []) + ([f"<{install.until}"] if install.until else [])
    return ",".join(bounds) or "any release"


def plan_for(profile: Profile, version: str) -> Plan:
    """The profile's install steps for `version` (first matching range), or a one-line refusal."""
    real = profile.real
    if real is None or not real.install:
        raise ErrcatError(f"profile {profile.name} has no real.install section:"
                          " it does not say how to install its target")
    if not profile.pypi:
        raise ErrcatError(f"profile {profile.name} names no PyPI distribution")
    version_key(version)  # a version it cannot order is refused here (and is never a path)
    install = real.install_for(version)
    if install is None:
        ranges = "; ".join(describe_range(i) for i in real.install)
        raise ErrcatError(f"{profile.pypi} {version}: no install range of profile {profile.name} covers it "
                          f"(ranges: {ranges})")
    # The same steps built by another interpreter or machine are another env.
    ident = {"dist": profile.pypi, "version": version, "pip": install.pip, "python": list(sys.version_info[:2]),
             "implementation": sys.implementation.name, "machine": platform.machine()}
    key = hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:10]
    return Plan(profile.pypi, version, install.pip, key)


def default_env_dir(plan: Plan, cache_dir: str | os.PathLike[str] | None = None) -> Path:
    return targets_dir(cache_dir) / f"{plan.dist}-{plan.version}-{plan.key}"


# ------------------------------------------------------------------ the release wheel


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _supported_tags() -> frozenset[tuple[str, str, str]]:
    """(interpreter, abi, platform) tags this interpreter installs; empty when unknown."""
    try:
        from packaging.tags import sys_tags
    except ImportError:
        return _pip_supported_tags()
    return frozenset((t.interpreter, t.abi, t.platform) for t in sys_tags())


def _pip_supported_tags() -> frozenset[tuple[str, str, str]]:
    """The same from pip's vendored copy of packaging (every interpreter with a venv has pip);
    its Tag is a class of its own to a type checker, hence a function of its own."""
    try:
        from pip._vendor.packaging.tags import sys_tags
    except ImportError:
        return frozenset()
    return frozenset((t.interpreter, t.abi, t.platform) for t in sys_tags())


def cached_wheel(dist: str, version: str, cache_dir: str | os.PathLike[str] | None = None) -> Path | None:
    """A wheel of `dist==version` already in errcat's download cache that this interpreter can install.

    `--release` downloads land there (after their digest matched); one built for another
    platform is skipped, and then pip fetches the release itself.
    """
    tags = _supported_tags()
    for path in sorted(downloads_dir(cache_dir).glob("*.whl")):
        parts = path.name[: -len(".whl")].split("-")
        if len(parts) not in (5, 6) or _norm(parts[0]) != _norm(dist) or parts[1] != version:
            continue
        py, abi, plat = parts[-3:]
        if any((p, a, q) in tags for p in py.split(".") for a in abi.split(".") for q in plat.split(".")):
            return path
    return None


# ------------------------------------------------------------------ probing an env


def env_python(env_dir: Path) -> Path:
    return env_dir / "bin" / "python"


def installed_version(python: Path, dist: str) -> str | None:
    """The version of `dist` that `python` has installed, or None (also when it does not run)."""
    try:
        return target_version(python, dist)  # the driver's probe: reads metadata, imports nothing
    except ErrcatError:
        return None


def _same_version(a: str, b: str) -> bool:
    try:
        return version_key(a) == version_key(b)
    except ErrcatError:
        return a == b


def _read_marker(env_dir: Path) -> dict[str, object] | None:
    try:
        data = json.loads((env_dir / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def is_ready(env_dir: Path, plan: Plan) -> bool:
    """Complete (marker of this plan) and its python reports the release installed."""
    marker = _read_marker(env_dir)
    if marker is None or marker.get("plan") != plan.key or marker.get("version") != plan.version:
        return False
    got = installed_version(env_python(env_dir), plan.dist)
    return got is not None and _same_version(got, plan.version)


# ------------------------------------------------------------------ building


def run_logged(cmd: Sequence[str], logfile: Path) -> int:
    """The default runner: the command's output appended to `logfile`, no stdin."""
    with open(logfile, "ab") as fh:
        fh.write(f"$ {shlex.join(cmd)}\n".encode())
        fh.flush()
        env = {**os.environ, "PIP_NO_INPUT": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
        return subprocess.run(list(cmd), stdout=fh, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                              env=env, check=False).returncode


def _quiet(_message: str) -> None:
    pass


def _last_error(logfile: Path) -> str:
    try:
        lines = [ln.strip() for ln in logfile.read_text(encoding="utf-8", errors="replace").splitlines() if ln.strip()]
    except OSError:
        lines = []
    errors = [ln for ln in lines if ln.startswith("ERROR:")]
    line = (errors or lines or ["no output"])[-1]
    return line if len(line) <= 300 else line[:297] + "..."


def _short(args: Sequence[str], limit: int = 80) -> str:
    text = " ".join(args)
    return text if len(text) <= limit else f"{text[: limit - 3]}... ({len(args)} arguments)"


@contextmanager
def _locked(env_dir: Path, log: Log) -> Iterator[None]:
    """An exclusive lock per env (a sibling file: the env dir itself is renamed)."""
    path = env_dir.parent / f".{env_dir.name}.lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log(f"waiting for another build of {env_dir}")
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def _refuse_foreign(env_dir: Path) -> None:
    """Never replace something errcat did not build (a --dir pointing at the user's files)."""
    if env_dir.is_symlink() or (env_dir.exists() and not env_dir.is_dir()):
        raise ErrcatError(f"{env_dir} exists and is not a directory")
    if env_dir.is_dir() and any(env_dir.iterdir()) and _read_marker(env_dir) is None:
        raise ErrcatError(f"{env_dir} exists and is not a target env errcat built: choose another directory")


def _sweep(env_dir: Path) -> None:
    """Leftovers of killed builds of this env (only called while holding its lock)."""
    for prefix in (".build-", ".old-"):
        for stale in env_dir.parent.glob(f".{env_dir.name}{prefix}*"):
            shutil.rmtree(stale, ignore_errors=True)


def _relocate(built: Path, final: Path) -> None:
    """Point the scripts venv and pip wrote (shebangs, activate) at the final directory.

    The temporary name is random, so its plain occurrences (the prompt) are replaced too.
    """
    for path in [*(built / "bin").iterdir(), built / "pyvenv.cfg"]:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > 1 << 20:
            continue
        data = path.read_bytes()
        fixed = data.replace(str(built).encode(), str(final).encode()).replace(built.name.encode(), final.name.encode())
        if fixed != data:
            path.write_bytes(fixed)


def _move_into_place(built: Path, env_dir: Path) -> None:
    aside = None
    if env_dir.exists():  # an empty dir, or a stale env of ours: renamed aside, removed after
        aside = Path(tempfile.mkdtemp(prefix=f".{env_dir.name}.old-", dir=env_dir.parent))
        os.replace(env_dir, aside / "env")
    os.replace(built, env_dir)
    if aside is not None:
        shutil.rmtree(aside, ignore_errors=True)


def _build(plan: Plan, env_dir: Path, target: str, runner: Runner, log: Log) -> None:
    _sweep(env_dir)
    built = Path(tempfile.mkdtemp(prefix=f".{env_dir.name}.build-", dir=env_dir.parent))
    logfile = env_dir.parent / f".{env_dir.name}.build.log"
    logfile.unlink(missing_ok=True)
    start = time.monotonic()
    steps = plan.steps(target)
    commands = [(f"creating a virtualenv with {sys.executable}", [sys.executable, "-m", "venv", str(built)])]
    commands += [(f"pip step {i}/{len(steps)} (pip install {_short(args)})",
                  [str(env_python(built)), "-m", "pip", "install", *args]) for i, args in enumerate(steps, 1)]
    try:
        log(f"building {plan.dist} {plan.version} in {env_dir}")
        for what, cmd in commands:
            log(what)
            if runner(cmd, logfile) != 0:
                raise ErrcatError(f"{what} failed: {_last_error(logfile)} (log: {logfile})")
        got = installed_version(env_python(built), plan.dist)
        if got is None or not _same_version(got, plan.version):
            found = "not installed" if got is None else f"at {got}"
            raise ErrcatError(f"after the install steps {plan.dist} is {found}, not {plan.version} (log: {logfile})")
        _relocate(built, env_dir)
        seconds = round(time.monotonic() - start, 1)
        marker = {"dist": plan.dist, "version": plan.version, "plan": plan.key, "pip": steps,
                  "python": platform.python_version(), "seconds": seconds,
                  "built": datetime.now(timezone.utc).isoformat(timespec="seconds")}
        write_bytes_atomically(built / MARKER, json.dumps(marker, indent=1).encode())
        _move_into_place(built, env_dir)
    except BaseException:
        shutil.rmtree(built, ignore_errors=True)
        raise
    logfile.unlink(missing_ok=True)
    log(f"built {plan.dist} {plan.version} in {seconds:.0f} s")


def _refuse_untrusted(cache_dir: str | os.PathLike[str] | None) -> None:
    # Code installed here is run later: a cache others can write is refused, not warned about.
    root = cache_root(cache_dir)
    if (problem := untrusted(root, ("targets",))) is not None:
        raise ErrcatError(f"not using the cache at {root} for target envs: {problem}")


def _make_private(cache_dir: str | os.PathLike[str] | None) -> None:
    root = cache_root(cache_dir)
    root.parent.mkdir(parents=True, exist_ok=True)
    for path in (root, targets_dir(cache_dir)):
        path.mkdir(mode=0o700, exist_ok=True)


def ensure_target_env(
    profile: Profile,
    version: str,
    *,
    root: str | os.PathLike[str] | None = None,
    wheel: str | os.PathLike[str] | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    log: Log = _quiet,
    runner: Runner = run_logged,
) -> TargetEnv:
    """A virtualenv with `version` of the profile's target installed; built unless cached.

    `root`: the env's directory (default: under errcat's cache, named by the plan).
    `wheel`: the release file to install (default: a cached download, else `dist==version`).
    Raises ErrcatError (one line) for an uncovered version or a failing step.
    """
    plan = plan_for(profile, version)
    given = None if root is None or os.fspath(root) == "" else Path(root).expanduser().absolute()
    explicit = given is not None
    env_dir = given if given is not None else default_env_dir(plan, cache_dir)
    env = TargetEnv(python=env_python(env_dir), version=version, dir=env_dir)
    if not explicit:
        _refuse_untrusted(cache_dir)  # also before a cache hit: its python is what runs next
    if is_ready(env_dir, plan):
        return env
    if wheel is not None and not Path(wheel).is_file():
        raise ErrcatError(f"no such wheel: {wheel}")
    if not explicit:
        _make_private(cache_dir)
    env_dir.parent.mkdir(parents=True, exist_ok=True)
    with _locked(env_dir, log):
        if is_ready(env_dir, plan):  # built by another process while this one waited
            return env
        _refuse_foreign(env_dir)
        local = Path(wheel).absolute() if wheel is not None else cached_wheel(plan.dist, version, cache_dir)
        _build(plan, env_dir, str(local) if local else f"{plan.dist}=={version}", runner, log)
    return env
