"""Target virtualenvs: the install plan, the cache, atomic builds, the lock.

Builds here install a tiny wheel written by the test (`pip --no-index`): no network. The
one test marked `network` builds the real sglang 0.5.23 env into the test cache's default root.
"""
from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import threading
import zipfile
from pathlib import Path

import pytest

from errcat.real.targetenv import (
    MARKER,
    cached_wheel,
    default_env_dir,
    ensure_target_env,
    env_python,
    installed_version,
    is_ready,
    plan_for,
    run_logged,
)
from extractor.errors import ErrcatError
from extractor.profile import load_profile, parse_profile
from tests import conftest

ROOT = Path(__file__).resolve().parents[1]


def profile(install: list[dict] | None = None, pypi: str | None = "tgt"):
    install = install if install is not None else [
        {"from": "2.0", "pip": [["--no-index", "--no-deps", "{target}"]]},
        {"from": "1.0", "until": "2.0", "pip": [["--no-index", "{target}"], ["--no-index", "--no-deps", "{target}"]]},
    ]
    data = {"name": "tiny", "repo": "o/tgt", "targets": ["tgt/*.py"], "real": {"package": "tgt", "install": install}}
    return parse_profile({**data, "pypi": pypi} if pypi else data, "tiny")


def make_wheel(folder: Path, version: str = "1.0", tag: str = "py3-none-any", name: str = "tgt") -> Path:
    """A minimal installable wheel of package `name`."""
    info = f"{name}-{version}.dist-info"
    files = {
        f"{name}/__init__.py": f"VERSION = {version!r}\n",
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
        f"{info}/WHEEL": f"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: {tag}\n",
    }
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}-{version}-{tag}.whl"
    with zipfile.ZipFile(path, "w") as zf:
        for member, text in files.items():
            zf.writestr(member, text)
        zf.writestr(f"{info}/RECORD", "".join(f"{m},,\n" for m in [*files, f"{info}/RECORD"]))
    return path


def run(*cmd: object, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout, check=False)


class Counting:
    """The real runner, counting the commands it runs (or refusing to run any)."""

    def __init__(self, allow: bool = True) -> None:
        self.commands: list[list[str]] = []
        self.allow = allow
        self.lock = threading.Lock()

    def __call__(self, cmd, logfile):
        with self.lock:
            self.commands.append(list(cmd))
        if not self.allow:
            raise AssertionError(f"ran {cmd}")
        return run_logged(cmd, logfile)

    @property
    def venvs(self) -> int:
        return sum(1 for c in self.commands if c[1:3] == ["-m", "venv"])


# ------------------------------------------------------------------ the plan (no builds)


@pytest.mark.parametrize("version, target, steps", [
    ("2.0", "tgt==2.0", (("--no-index", "--no-deps", "tgt==2.0"),)),
    ("3.1", "/w/tgt-3.1-py3-none-any.whl", (("--no-index", "--no-deps", "/w/tgt-3.1-py3-none-any.whl"),)),
    ("1.0", "tgt==1.0", (("--no-index", "tgt==1.0"), ("--no-index", "--no-deps", "tgt==1.0"))),
    ("1.9.9", "tgt==1.9.9", (("--no-index", "tgt==1.9.9"), ("--no-index", "--no-deps", "tgt==1.9.9"))),
])
def test_plan_chooses_the_first_covering_range_and_substitutes_the_target(version, target, steps):
    assert plan_for(profile(), version).steps(target) == steps


def test_target_inside_an_argument_is_substituted():
    plan = plan_for(profile([{"pip": [["{target}[extra]"]]}]), "1.0")
    assert plan.steps("tgt==1.0") == (("tgt==1.0[extra]",),)


@pytest.mark.parametrize("prof, version, message", [
    (profile(), "0.9", "tgt 0.9: no install range of profile tiny covers it (ranges: >=2.0; >=1.0,<2.0)"),
    (profile([{"until": "1.0", "pip": [["x"]]}]), "1.0",
     "tgt 1.0: no install range of profile tiny covers it (ranges: <1.0)"),
    (profile(), "1.0/../x", "cannot order version '1.0/../x' (expected e.g. 0.5.23, 0.5.3rc0, 0.5.3.post1)"),
    (profile(pypi=None), "1.0", "profile tiny names no PyPI distribution"),
    (parse_profile({"name": "bare", "repo": "o/r", "targets": ["a.py"]}, "bare"), "1.0",
     "profile bare has no real.install section: it does not say how to install its target"),
])
def test_refusals_are_one_line(prof, version, message):
    with pytest.raises(ErrcatError) as exc:
        plan_for(prof, version)
    assert str(exc.value) == message


def test_plan_key_names_version_and_steps():
    one, two = plan_for(profile(), "1.0"), plan_for(profile(), "1.1")
    assert plan_for(profile(), "1.0").key == one.key and one.key != two.key
    changed = profile([{"pip": [["--no-index", "{target}"], ["other"]]}])
    assert plan_for(changed, "1.0").key != one.key
    assert default_env_dir(one, "/c") == Path(f"/c/targets/tgt-1.0-{one.key}")


@pytest.mark.parametrize("files, chosen", [
    ([], None),
    (["tgt-1.0-py3-none-any.whl"], "tgt-1.0-py3-none-any.whl"),
    (["tgt-1.0-cp311-cp311-nosuchplatform.whl"], None),  # built for another platform
    (["tgt-1.0-cp311-cp311-nosuchplatform.whl", "tgt-1.0-py3-none-any.whl"], "tgt-1.0-py3-none-any.whl"),
    (["tgt-1.01-py3-none-any.whl", "other-1.0-py3-none-any.whl", "tgt-1.0.tar.gz"], None),
    (["Tgt-1.0-py2.py3-none-any.whl"], "Tgt-1.0-py2.py3-none-any.whl"),
])
def test_cached_wheel_is_a_compatible_download(tmp_path, files, chosen):
    (tmp_path / "downloads").mkdir()
    for name in files:
        (tmp_path / "downloads" / name).write_bytes(b"")
    found = cached_wheel("tgt", "1.0", tmp_path)
    assert (found.name if found else None) == chosen


# ------------------------------------------------------------------ builds (local wheel, no network)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """One env built from a wheel in errcat's download cache, into the default root."""
    cache = tmp_path_factory.mktemp("cache")
    make_wheel(cache / "downloads")
    runner = Counting()
    env = ensure_target_env(profile(), "1.0", cache_dir=cache, runner=runner)
    return env, runner, cache


def test_build_installs_the_cached_wheel_with_the_plans_steps(built):
    env, runner, cache = built
    wheel = str(cache / "downloads" / "tgt-1.0-py3-none-any.whl")
    assert env.dir == default_env_dir(plan_for(profile(), "1.0"), cache) and env.python == env_python(env.dir)
    assert runner.commands[0] == [sys.executable, "-m", "venv", runner.commands[0][3]]
    assert [c[4:] for c in runner.commands[1:]] == [["--no-index", wheel], ["--no-index", "--no-deps", wheel]]
    assert installed_version(env.python, "tgt") == "1.0"
    assert run(env.python, "-c", "import tgt; print(tgt.VERSION)").stdout == "1.0\n"


def test_build_leaves_only_the_env_and_its_lock(built):
    env, _, _ = built
    assert sorted(p.name for p in env.dir.parent.iterdir()) == sorted([env.dir.name, f".{env.dir.name}.lock"])
    marker = json.loads((env.dir / MARKER).read_text())
    assert (marker["dist"], marker["version"], marker["plan"]) == ("tgt", "1.0", plan_for(profile(), "1.0").key)


def test_scripts_point_at_the_final_directory(built):
    env, _, _ = built
    pip = (env.dir / "bin" / "pip").read_text()
    assert (pip.splitlines()[0].startswith(f"#!{env.dir}/bin/python")
            and ".build-" not in (env.dir / "bin" / "activate").read_text())
    assert run(env.dir / "bin" / "pip", "--version").returncode == 0


def test_cache_hit_runs_no_pip(built):
    env, _, cache = built
    again = ensure_target_env(profile(), "1.0", cache_dir=cache, runner=Counting(allow=False))
    assert again == env


def test_target_gone_from_a_marked_env_means_rebuild(tmp_path):
    wheel = make_wheel(tmp_path / "w")
    env = ensure_target_env(profile(), "1.0", root=tmp_path / "env", wheel=wheel)
    plan = plan_for(profile(), "1.0")
    subprocess.run([env.python, "-m", "pip", "uninstall", "-yq", "tgt"], check=True, capture_output=True)
    assert (env.dir / MARKER).is_file() and not is_ready(env.dir, plan)
    runner = Counting()
    assert ensure_target_env(profile(), "1.0", root=env.dir, wheel=wheel, runner=runner) == env
    assert runner.venvs == 1 and is_ready(env.dir, plan)


def test_env_without_marker_is_not_ready_and_not_replaced(tmp_path):
    wheel = make_wheel(tmp_path / "w")
    env = ensure_target_env(profile(), "1.0", root=tmp_path / "env", wheel=wheel)
    (env.dir / MARKER).unlink()  # e.g. a copy made while a build was running
    assert not is_ready(env.dir, plan_for(profile(), "1.0"))
    with pytest.raises(ErrcatError, match="is not a target env errcat built"):
        ensure_target_env(profile(), "1.0", root=env.dir, wheel=wheel, runner=Counting(allow=False))


def test_marker_of_another_version_is_not_ready(built):
    env, _, _ = built
    assert not is_ready(env.dir, plan_for(profile(), "1.1"))


def test_failing_pip_step_is_one_line_and_leaves_nothing(tmp_path):
    prof = profile([{"pip": [["--no-index", "{target}"], ["--no-index", "nosuchpkg==9"]]}])
    with pytest.raises(ErrcatError) as exc:
        ensure_target_env(prof, "1.0", root=tmp_path / "env", wheel=make_wheel(tmp_path / "w"))
    message = str(exc.value)
    log = tmp_path / ".env.build.log"
    assert message.startswith("pip step 2/2 (pip install --no-index nosuchpkg==9) failed: ERROR: ")
    assert "nosuchpkg" in message.split("failed: ")[1] and message.endswith(f"(log: {log})")
    assert "\n" not in message and log.is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == [".env.build.log", ".env.lock", "w"]


def test_wrong_version_installed_is_refused(tmp_path):
    wheel = make_wheel(tmp_path / "w", version="1.1")
    with pytest.raises(ErrcatError, match=r"^after the install steps tgt is at 1\.1, not 1\.0 \(log: "):
        ensure_target_env(profile([{"pip": [["--no-index", str(wheel)]]}]), "1.0", root=tmp_path / "env")
    assert not (tmp_path / "env").exists()


def test_interrupted_build_never_looks_done_and_is_swept(tmp_path):
    wheel = make_wheel(tmp_path / "w")

    def killed(cmd, logfile):
        if "pip" in cmd:
            raise KeyboardInterrupt
        return run_logged(cmd, logfile)

    with pytest.raises(KeyboardInterrupt):
        ensure_target_env(profile(), "1.0", root=tmp_path / "env", wheel=wheel, runner=killed)
    assert not (tmp_path / "env").exists() and not list(tmp_path.glob(".env.build-*"))
    (tmp_path / ".env.build-left").mkdir()  # what a SIGKILLed build leaves behind
    ensure_target_env(profile(), "1.0", root=tmp_path / "env", wheel=wheel)
    assert not (tmp_path / ".env.build-left").exists() and (tmp_path / "env" / MARKER).is_file()


@pytest.mark.parametrize("content", ["file", "dir"])
def test_foreign_directory_is_never_replaced(tmp_path, content):
    root = tmp_path / "mine"
    root.mkdir()
    (root / "notes.txt").write_text("keep") if content == "file" else (root / "sub").mkdir()
    with pytest.raises(ErrcatError, match=r"mine exists and is not a target env errcat built: choose another"):
        ensure_target_env(profile(), "1.0", root=root, wheel=make_wheel(tmp_path / "w"), runner=Counting(allow=False))
    assert [p.name for p in root.iterdir()] == (["notes.txt"] if content == "file" else ["sub"])


def test_empty_directory_is_used(tmp_path):
    (tmp_path / "env").mkdir()
    env = ensure_target_env(profile(), "1.0", root=tmp_path / "env", wheel=make_wheel(tmp_path / "w"))
    assert installed_version(env.python, "tgt") == "1.0"


def test_missing_wheel_is_refused(tmp_path):
    with pytest.raises(ErrcatError, match=r"^no such wheel: .*nope\.whl$"):
        ensure_target_env(profile(), "1.0", root=tmp_path / "env", wheel=tmp_path / "nope.whl")


def test_untrusted_cache_is_refused_even_when_the_env_is_there(built):
    env, _, cache = built
    os.chmod(env.dir.parent, 0o777)
    try:
        with pytest.raises(ErrcatError, match=r"^not using the cache at .* for target envs: .*targets is writable by "
                                              r"group or others \(chmod go-w "):
            ensure_target_env(profile(), "1.0", cache_dir=cache, runner=Counting(allow=False))
    finally:
        os.chmod(env.dir.parent, 0o700)


def test_a_held_lock_is_waited_for(tmp_path):
    wheel, root = make_wheel(tmp_path / "w"), tmp_path / "env"
    lock = os.open(tmp_path / ".env.lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(lock, fcntl.LOCK_EX)
    messages: list[str] = []
    worker = threading.Thread(target=ensure_target_env, args=(profile(), "1.0"),
                              kwargs={"root": root, "wheel": wheel, "log": messages.append})
    worker.start()
    worker.join(1.0)
    assert worker.is_alive() and messages == [f"waiting for another build of {root}"]
    os.close(lock)
    worker.join(120)
    assert not worker.is_alive() and is_ready(root, plan_for(profile(), "1.0"))


def test_concurrent_builds_of_one_env_build_it_once(tmp_path):
    wheel, root, runner = make_wheel(tmp_path / "w"), tmp_path / "env", Counting()
    results: list[object] = []
    workers = [threading.Thread(target=lambda: results.append(
        ensure_target_env(profile(), "1.0", root=root, wheel=wheel, runner=runner))) for _ in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(180)
    assert len(results) == 2 and results[0] == results[1] and runner.venvs == 1


# ------------------------------------------------------------------ the script


@pytest.mark.parametrize("argv, error", [
    (["--release", "0.1.0"], "target_env: sglang 0.1.0: no install range of profile sglang covers it (ranges: "),
    ([], "target_env: the following arguments are required: --release"),
    (["--release", "1.0", "--profile", "nope"], "target_env: unknown profile 'nope'"),
])
def test_script_bad_input_is_one_line_exit_2(argv, error):
    done = run(sys.executable, ROOT / "scripts" / "target_env.py", *argv)
    assert done.returncode == 2 and done.stdout == "" and done.stderr.startswith(error)
    assert len(done.stderr.splitlines()) == 1


def test_script_prints_the_python(tmp_path):
    yaml_file = tmp_path / "tiny.yaml"
    yaml_file.write_text(json.dumps({"name": "tiny", "repo": "o/tgt", "pypi": "tgt", "targets": ["a.py"],
                                     "real": {"package": "tgt", "install": [{"pip": [["--no-index", "{target}"]]}]}}))
    wheel = make_wheel(tmp_path / "w")
    cmd = [sys.executable, ROOT / "scripts" / "target_env.py", "--release", "1.0", "--profile", yaml_file,
           "--dir", tmp_path / "env", "--wheel", wheel]
    done = run(*cmd)
    assert done.returncode == 0 and done.stdout == f"{tmp_path / 'env' / 'bin' / 'python'}\n"
    assert "building tgt 1.0 in" in done.stderr
    again = run(*cmd)
    assert again.stdout == done.stdout and again.stderr == ""  # cached: nothing built, nothing said


# ------------------------------------------------------------------ the real target


@pytest.mark.network
def test_real_sglang_0_5_23_env():
    """Builds (or reuses) the env the confirm sample test uses: the test cache's default root."""
    profile = load_profile("sglang")
    env = ensure_target_env(profile, "0.5.23", cache_dir=conftest.test_cache_dir())
    assert env.dir.parent == conftest.test_cache_dir() / "targets"
    # sglang itself imports only with the profile's torch op shim: the driver's business
    # (tests/test_real_confirm.py runs it); here, what is installed where
    code = ("import importlib.util as u, importlib.metadata as m; "
            "print(m.version('sglang'), u.find_spec('sglang').origin)")
    done = run(env.python, "-c", code, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    version, where = done.stdout.split()[-2:]
    assert version == "0.5.23" and where.startswith(str(env.dir))
