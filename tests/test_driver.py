"""The driver and its pool against a fake target package, run in a subprocess interpreter."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from errcat.real.runner import (
    DRIVER,
    Launch,
    Result,
    Runner,
    driver_setup,
    target_version,
)
from extractor.errors import ErrcatError
from extractor.profile import load_profile

ARGS = textwrap.dedent('''\
    import argparse

    from fakesrv import hooks


    class Args:
        def __init__(self, ns):
            self.ns = ns

        def resolve(self):
            hooks.resolve(self.ns)

        def check(self):
            hooks.check(self.ns)


    def prepare(argv):
        parser = argparse.ArgumentParser(prog="fake serve")
        parser.add_argument("--mode", choices=["a", "b"], default="a")
        parser.add_argument("--size", type=int, default=1)
        parser.add_argument("--device", default="auto")
        parser.add_argument("--action", default="none")
        return Args(parser.parse_args(argv))
''')

HOOKS = textwrap.dedent('''\
    import os
    import signal
    import socket
    import sys
    import threading
    import time


    def resolve(ns):
        if ns.action == "thread":  # a thread that would hold up interpreter shutdown
            threading.Thread(target=time.sleep, args=(600,)).start()
        if ns.action == "env-write":
            os.environ["FAKE_WRITTEN"] = "1"
            os.environ["FAKE_BASE"] = "changed"
            del os.environ["FAKE_GONE"]
            open("litter.txt", "w").close()
        if ns.action == "hang":
            time.sleep(600)
        if ns.action == "exit":
            os._exit(3)
        if ns.action == "segv":
            os.kill(os.getpid(), signal.SIGSEGV)
        if ns.action == "noise":
            print('{"id": 0, "outcome": "ok"}')
            sys.stdout.write("half a line")
            sys.stdout.flush()
            os.write(1, b"raw bytes on fd 1\\n")


    def check(ns):
        if ns.size > 4:
            raise ValueError(f"size {ns.size} is over 4")  # L:value
        assert (
            ns.size != 3  # L:assert
        ), f"size must not be {ns.size}"
        if ns.action == "env-read":
            seen = {n: os.environ.get(n) for n in ("FAKE_WRITTEN", "FAKE_BASE", "FAKE_GONE", "FAKE_LAUNCH")}
            raise ValueError(f"env {sorted(seen.items())} cwd {sorted(os.listdir())}")  # L:env
        if ns.action == "int":
            int(ns.mode)  # L:int
        if ns.action == "net":
            socket.create_connection(("203.0.113.1", 80), timeout=30)
        if ns.action == "exit-msg":
            sys.exit("stopped here")  # L:exit
        if ns.action in ("device", "noise"):
            raise ValueError(f"device {ns.device}")  # L:device
        if ns.action == "forward":
            try:
                parse_mode(ns.mode)
            except ValueError as err:
                raise RuntimeError(str(err)) from err  # L:forward
        if ns.action == "reword":
            try:
                parse_mode(ns.mode)
            except ValueError as err:
                raise RuntimeError(f"bad mode: {err}") from err  # L:reword


    def parse_mode(mode):
        raise ValueError(f"mode {mode} is not a number")  # L:written
''')


@pytest.fixture(scope="module")
def fake(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding the fake target package `fakesrv` and its dist-info."""
    root = tmp_path_factory.mktemp("fake")
    (root / "fakesrv").mkdir()
    (root / "fakesrv" / "__init__.py").write_text("")
    (root / "fakesrv" / "args.py").write_text(ARGS)
    (root / "fakesrv" / "hooks.py").write_text(HOOKS)
    (root / "fakesrv" / "broken.py").write_text("raise ImportError('no such extension: _fake_C')\n")
    dist = root / "fakesrv-1.2.3.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: fakesrv\nVersion: 1.2.3\n")
    return root


def line_of(marker: str) -> int:
    return next(i for i, text in enumerate(HOOKS.splitlines(), 1) if text.endswith(f"# L:{marker}"))


SETUP = {"package": "fakesrv", "module": "fakesrv.args",
         "steps": [{"call": "prepare"}, {"method": "resolve"}, {"method": "check"}],
         "torch_ops": {}, "env": {"FAKE_BASE": "base", "FAKE_GONE": "here"}, "args": ["--device", "cuda"]}


def env_for(fake: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(fake)}


def runner(fake: Path, **kw: Any) -> Runner:
    return Runner(sys.executable, {**SETUP, **kw.pop("setup", {})}, env=env_for(fake), **kw)


def launch(*argv: str, **env: str) -> Launch:
    return Launch(argv, tuple(env.items()))


def seen(launch_value: str | None = None) -> str:
    """What the env-read hook reports in a clean launch: setup env, the launch's own, an empty cwd."""
    env = [("FAKE_BASE", "base"), ("FAKE_GONE", "here"), ("FAKE_LAUNCH", launch_value), ("FAKE_WRITTEN", None)]
    return f"env {env} cwd []"


def hooks_frame(marker: str, function: str = "check") -> dict[str, object]:
    return {"path": "fakesrv/hooks.py", "line": line_of(marker), "function": function}


CASES = [  # launch, expected fields of its Result
    (launch(), {"outcome": "ok", "type": None, "path": None}),
    (launch("--size", "7"), {"outcome": "error", "type": "ValueError", "message": "size 7 is over 4",
                             **hooks_frame("value")}),
    # a multi-line assert: the line reported depends on the interpreter (3.11 and 3.13 the
    # condition's, 3.8-3.10 and 3.12 the `assert`'s, 3.7 the message's): any of the statement
    (launch("--size", "3"), {"outcome": "error", "type": "AssertionError", "message": "size must not be 3",
                             **hooks_frame("assert"), "line": range(line_of("assert") - 1, line_of("assert") + 2)}),
    (launch("--mode", "c"), {"outcome": "argparse", "type": "SystemExit",
                             "message": "argument --mode: invalid choice: 'c' (choose from 'a', 'b')",
                             "path": "fakesrv/args.py", "function": "prepare"}),
    (launch("--size", "x"), {"outcome": "argparse", "message": "argument --size: invalid int value: 'x'"}),
    (launch("--action", "int"), {"outcome": "error", "type": "ValueError",
                                 "message": "invalid literal for int() with base 10: 'a'", **hooks_frame("int")}),
    (launch("--action", "exit-msg"), {"outcome": "error", "type": "SystemExit", "message": "stopped here",
                                      **hooks_frame("exit")}),
    # setup args are added unless the launch gives the option, in either spelling
    (launch("--action", "device"), {"message": "device cuda", **hooks_frame("device")}),
    (launch("--action", "device", "--device=cpu"), {"message": "device cpu"}),
    (launch("--action", "device", "--device", "cpu"), {"message": "device cpu"}),
    # prints to stdout (even raw fd 1) do not corrupt the protocol
    (launch("--action", "noise", "--device", "npu"), {"outcome": "error", "message": "device npu"}),
    # setup env applied; a launch's env for that launch; cwd an empty directory
    (launch("--action", "env-read", FAKE_LAUNCH="x"), {"message": seen("x")}),
    # a handler raising the caught message again: where it was written, beside where it surfaced
    (launch("--action", "forward"), {"type": "RuntimeError", "message": "mode a is not a number",
                                     **hooks_frame("forward"), "written_at": ("fakesrv/hooks.py", line_of("written"))}),
    (launch("--action", "reword"), {"message": "bad mode: mode a is not a number", **hooks_frame("reword"),
                                    "written_at": None}),
    # no network: fails at once instead of waiting 30 s
    (launch("--action", "net"), {"outcome": "error", "type": "OSError"}),
]


@pytest.fixture(scope="module")
def results(fake: Path) -> list[tuple[Launch, Result]]:
    with runner(fake, jobs=2) as pool:
        return list(pool.run([case for case, _ in CASES]))


@pytest.mark.parametrize(("i", "expected"), [(i, e) for i, (_, e) in enumerate(CASES)],
                         ids=[" ".join(c.argv) or "bare" for c, _ in CASES])
def test_outcome(results: list[tuple[Launch, Result]], i: int, expected: dict[str, object]) -> None:
    launch_, result = results[i]
    assert launch_ == CASES[i][0]  # input order, with two workers
    got = {k: getattr(result, k) for k in expected}
    assert got == {k: got[k] if isinstance(v, range) and got[k] in v else v for k, v in expected.items()}
    assert result.seconds < 5


@pytest.mark.parametrize(("sequence", "expected"), [
    # hooks write os.environ and the working directory: the next launch sees neither
    ([launch("--action", "env-write"), launch("--action", "env-read")], [("ok", None), ("error", seen())]),
    ([launch("--action", "env-read", FAKE_LAUNCH="x"), launch("--action", "env-read")],
     [("error", seen("x")), ("error", seen())]),
    # a hang is a timeout, a dead interpreter a crash; the worker comes back for the next launch
    ([launch("--action", "hang"), launch("--size", "7")], [("timeout", None), ("error", "size 7 is over 4")]),
    ([launch("--action", "exit"), launch("--action", "segv"), launch("--size", "7")],
     [("crash", None), ("crash", None), ("error", "size 7 is over 4")]),
])
def test_sequence_one_worker(fake: Path, sequence: list[Launch], expected: list[tuple[str, str | None]]) -> None:
    with runner(fake, jobs=1, timeout=3) as pool:
        got = list(pool.run(sequence))
    assert [launch_ for launch_, _ in got] == sequence
    assert [(r.outcome, r.message) for _, r in got] == expected


@pytest.mark.parametrize(("action", "outcome", "detail"), [
    ("hang", "timeout", "no answer within 2 s"),
    ("exit", "crash", "exit status 3"),
    ("segv", "crash", "killed by SIGSEGV\nFatal Python error: Segmentation fault"),
])
def test_lost_launch_detail(fake: Path, action: str, outcome: str, detail: str) -> None:
    with runner(fake, timeout=2) as pool:
        (_, result), = pool.run([launch("--action", action)])
    assert (result.outcome, result.detail[:len(detail)]) == (outcome, detail)


def test_killed_launches_leave_no_directory(fake: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker killed mid-launch never cleans up itself: its launch directory lives in the runner's home."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)  # tempfile caches the directory it chose
    with runner(fake, jobs=1, timeout=2) as pool:
        list(pool.run([launch("--action", a) for a in ("hang", "exit", "segv")] + [launch("--size", "1")]))
    assert list(tmp_path.iterdir()) == []


def test_many_runs_and_order(fake: Path) -> None:
    """Two workers, one of them restarted mid-run: every result in input order."""
    sizes = [str(n % 9) for n in range(30)]
    todo = [launch("--size", s) for s in sizes[:15]] + [launch("--action", "exit")] + \
        [launch("--size", s) for s in sizes[15:]]
    with runner(fake, jobs=2) as pool:
        first = [r.outcome for _, r in pool.run(todo)]
        again = [r.outcome for _, r in pool.run(todo)]
        assert pool.version() == "1.2.3"
    expected = [("error" if int(s) > 4 or s == "3" else "ok") for s in sizes]
    assert first == again == expected[:15] + ["crash"] + expected[15:]


def test_abandoned_run_does_not_leak_answers(fake: Path) -> None:
    with runner(fake, jobs=1) as pool:
        next(iter(pool.run([launch("--size", "7"), launch("--size", "3")])))
        (_, result), = pool.run([launch()])
    assert result.outcome == "ok"


@pytest.mark.parametrize(("setup", "env", "problem"), [
    ({"module": "fakesrv.broken"}, None, "ImportError: no such extension: _fake_C"),
    ({"module": "fakesrv.missing"}, None, "ModuleNotFoundError: No module named 'fakesrv.missing'"),
    ({"torch_ops": {"ns": ["f(Tensor x) -> Tensor"]}}, None, "No module named 'torch'"),
])
def test_not_ready_is_one_error(fake: Path, setup: dict[str, object], env: dict[str, str] | None,
                                problem: str) -> None:
    pool = Runner(sys.executable, {**SETUP, **setup}, jobs=2, env={**env_for(fake), **(env or {})})
    with pytest.raises(ErrcatError, match="the target does not start") as caught:
        pool.__enter__()
    assert problem in str(caught.value)


@pytest.mark.parametrize(("with_dist", "version"), [(True, "1.2.3"), (False, None)])
def test_version(fake: Path, tmp_path: Path, with_dist: bool, version: str | None) -> None:
    if not with_dist:  # the same package without its dist-info
        (tmp_path / "fakesrv").symlink_to(fake / "fakesrv")
        fake = tmp_path
    assert target_version(sys.executable, "fakesrv", env=env_for(fake)) == version
    with runner(fake) as pool:
        assert (pool.version(), pool.ready["python"]) == (version, ".".join(map(str, sys.version_info[:3])))


def test_protocol_stream_is_clean(fake: Path) -> None:
    """Run the driver by hand: stdout carries protocol lines only, whatever the target prints."""
    lines = [SETUP, {"id": 1, "argv": ["--action", "noise"]}, {"id": 2, "argv": []}]
    done = subprocess.run([sys.executable, str(DRIVER)], input="".join(json.dumps(x) + "\n" for x in lines),
                          capture_output=True, text=True, env=env_for(fake), timeout=60, check=True)
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(a.get("ready"), a.get("id"), a.get("outcome")) for a in answers] == [
        (True, None, None), (None, 1, "error"), (None, 2, "ok")]
    assert "raw bytes on fd 1" in done.stderr and "half a line" in done.stderr


def test_setup_from_profile() -> None:
    real = load_profile("sglang").real
    assert real is not None
    setup = driver_setup(real, "0.5.23")
    assert (setup["module"], setup["steps"][0], setup["args"]) == (
        "sglang.srt.server_args", {"call": "prepare_server_args"}, ["--device", "cuda"])
    with pytest.raises(ErrcatError, match="no validation entry point"):
        driver_setup(real, "0.1.0")


def test_workers_end_with_the_runner(fake: Path) -> None:
    """At the end of input a driver leaves by itself at once, even when the target left a thread running."""
    with runner(fake, jobs=2) as pool:
        assert [r.outcome for _, r in pool.run([launch("--action", "thread")] * 2)] == ["ok", "ok"]
        procs = [w.proc for w in pool._workers]  # the test looks at the processes themselves
    assert [p.returncode for p in procs] == [0, 0]  # exited, not killed after the grace period


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")  # a zombie is gone, only not reaped yet


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_workers_die_with_errcat(fake: Path, tmp_path: Path) -> None:
    """errcat killed (-9) while its workers run and hang: they leave by themselves. (Its
    runner's home, which a killed errcat cannot remove, is made below `tmp_path`.)"""
    script = textwrap.dedent(f"""
        import sys
        from errcat.real.runner import Launch, Runner
        with Runner(sys.executable, {SETUP!r}, jobs=2, env={env_for(fake)!r}) as pool:
            print(*[w.proc.pid for w in pool._workers], flush=True)
            list(pool.run([Launch(("--action", "hang"))] * 2))
    """)
    errcat = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "TMPDIR": str(tmp_path)})
    pids = [int(p) for p in errcat.stdout.readline().split()]  # type: ignore[union-attr]
    time.sleep(0.5)  # both launches are hanging now
    errcat.kill()
    errcat.wait()
    deadline = time.monotonic() + 10
    while any(map(_alive, pids)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert len(pids) == 2 and not any(map(_alive, pids))
