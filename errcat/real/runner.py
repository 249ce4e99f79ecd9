"""A pool of driver processes running launches in the target's interpreter.

Each worker is one `driver.py` subprocess (its own process group) fed one launch at a
time over JSON lines. A launch over its timeout kills its worker's whole group and is
recorded as "timeout"; a worker that dies mid-launch (segfault, `os._exit`) is recorded
as "crash" with the tail of its stderr; either way the worker is started again and the
run goes on. A worker that cannot become ready (the target does not import) is an
`ErrcatError`: nothing would run. Results come back in input order whatever `jobs` is.

One thread drives every worker (select on their stdout): no thread of ours outlives a
run, and the drivers leave by themselves when errcat dies (they watch their parent).
"""
from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import tempfile
import time
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from analyzers.judge import frame_at
from extractor.errors import ErrcatError
from extractor.real_profile import RealProfile

DRIVER = Path(__file__).with_name("driver.py")
OUTCOMES = ("ok", "error", "argparse", "timeout", "crash")
STDERR_TAIL = 2000  # characters of a crashed worker's stderr kept as the detail
# the target's interpreter sees its own packages only (a setup's "path" adds directories)
_DROPPED_ENV = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")


@dataclass(frozen=True, slots=True)
class Launch:
    argv: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()  # set for this launch only


@dataclass(frozen=True, slots=True)
class Result:
    outcome: str  # one of OUTCOMES
    type: str | None = None  # exception class name ("SystemExit" for argparse)
    message: str | None = None  # str(exception); argparse: the text after "error: "
    path: str | None = None  # innermost frame inside the target package, relative to its parent dir
    line: int | None = None
    function: str | None = None
    written_at: tuple[str, int] | None = None  # where the message was written, when raised again unchanged
    seconds: float = 0.0
    detail: str = ""  # traceback tail (error, argparse), stderr tail (crash), the limit (timeout)


def driver_setup(real: RealProfile, version: str, *, path: Iterable[str] = ()) -> dict[str, Any]:
    """The driver's setup line for release `version` of the profile's target; `path`:
    directories put first on the target's sys.path (a checkout that is not installed)."""
    validation = real.validation_for(version)
    if validation is None:
        raise ErrcatError(f"the profile declares no validation entry point for {real.package} {version}")
    return {
        "package": real.package, **validation.as_dict(), "torch_ops": {ns: list(ops) for ns, ops in real.torch_ops},
        "env": dict(real.env), "args": list(real.args), "path": [str(p) for p in path],
    }


def _worker_env(env: Mapping[str, str] | None) -> dict[str, str]:
    if env is not None:
        return dict(env)
    return {k: v for k, v in os.environ.items() if k not in _DROPPED_ENV}


def target_version(python: str | Path, package: str, *, env: Mapping[str, str] | None = None) -> str | None:
    """The installed version of `package`'s distribution in interpreter `python` (None:
    not installed), read without importing it."""
    try:
        done = subprocess.run([str(python), str(DRIVER), "--version", package], capture_output=True, text=True,
                              env=_worker_env(env), timeout=120, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ErrcatError(f"cannot run the target interpreter {python}: {exc}") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise ErrcatError(f"the target interpreter {python} failed: {last}")
    return done.stdout.strip() or None


class _Worker:
    """One driver process and what it is doing (mutable: owned by the Runner's loop)."""

    def __init__(self, python: str, setup: Mapping[str, Any], env: dict[str, str], cwd: str) -> None:
        self.stderr: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the worker
        try:
            self.proc = subprocess.Popen([python, str(DRIVER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=self.stderr, env=env, cwd=cwd, start_new_session=True)
        except OSError as exc:
            self.stderr.close()
            raise ErrcatError(f"cannot run the target interpreter {python}: {exc}") from None
        stdin, stdout = self.proc.stdin, self.proc.stdout
        assert stdin is not None and stdout is not None  # both are pipes
        self.stdin, self.stdout = stdin, stdout
        self.fd = stdout.fileno()
        self.buffer = b""
        self.ready: dict[str, Any] | None = None
        self.task: tuple[int, Launch] | None = None
        self.started = time.monotonic()
        self.stderr_at = 0
        self._write(setup)

    def _write(self, data: Mapping[str, Any]) -> None:
        try:
            self.stdin.write((json.dumps(data) + "\n").encode())
            self.stdin.flush()
        except OSError:
            pass  # it died already: its stdout ends, and the loop sees that

    def send(self, index: int, launch: Launch) -> None:
        self.task = (index, launch)
        self.started = time.monotonic()
        self.stderr_at = self.stderr.seek(0, os.SEEK_END)
        self._write({"id": index, "argv": list(launch.argv), "env": dict(launch.env)})

    def read(self) -> list[bytes] | None:
        """Complete lines read now; None at end of output (the process is gone)."""
        chunk = os.read(self.fd, 1 << 16)
        if not chunk:
            return None
        lines = (self.buffer + chunk).split(b"\n")
        self.buffer = lines.pop()
        return lines

    def stderr_tail(self, since: int = 0) -> str:
        self.stderr.seek(max(since, self.stderr.seek(0, os.SEEK_END) - 4 * STDERR_TAIL))
        return self.stderr.read().decode(errors="replace")[-STDERR_TAIL:]

    def kill(self) -> str:
        """Ends the whole process group; how the driver ended."""
        with contextlib.suppress(ProcessLookupError, PermissionError):  # the group is gone already
            os.killpg(self.proc.pid, signal.SIGKILL)
        code = self.proc.wait()
        for stream in (self.stdin, self.stdout):
            with contextlib.suppress(OSError):
                stream.close()
        return f"killed by {signal.Signals(-code).name}" if code < 0 else f"exit status {code}"

    def close(self) -> None:
        """Ask the driver to leave (end of input), then make sure it did."""
        try:
            self.stdin.close()
            self.proc.wait(timeout=2)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self.kill()
        self.stderr.close()


def _result(answer: Mapping[str, Any]) -> Result:
    frame = answer.get("frame") or {}
    outcome = answer.get("outcome")
    if outcome not in ("ok", "error", "argparse"):
        raise ValueError(f"unknown outcome {outcome!r}")
    return Result(outcome=outcome, type=answer.get("type"), message=answer.get("message"),
                  path=frame.get("path"), line=frame.get("line"), function=frame.get("function"),
                  written_at=frame_at(answer.get("written_at")), seconds=float(answer.get("seconds") or 0.0),
                  detail=answer.get("traceback") or "")


class Runner:
    """`with Runner(python, setup, jobs=2) as runner: for launch, result in runner.run(launches)`."""

    def __init__(self, python: str | Path, setup: Mapping[str, Any], *, jobs: int = 1, timeout: float = 60.0,
                 ready_timeout: float = 600.0, env: Mapping[str, str] | None = None) -> None:
        if jobs < 1:
            raise ErrcatError(f"jobs must be at least 1, got {jobs}")
        if timeout <= 0 or ready_timeout <= 0:
            raise ErrcatError("timeouts must be positive")
        self.python, self.setup, self.jobs = str(python), dict(setup), jobs
        self.timeout, self.ready_timeout = timeout, ready_timeout
        self._env = _worker_env(env)
        self._workers: list[_Worker] = []
        self._home: tempfile.TemporaryDirectory[str] | None = None
        self._ready: dict[str, Any] | None = None

    # -------------------------------------------------------------- lifetime

    def __enter__(self) -> Runner:  # noqa: PYI034 - Python 3.10 has no typing.Self
        self._home = tempfile.TemporaryDirectory(prefix="errcat-runner-")
        try:
            self._workers = [self._spawn() for _ in range(self.jobs)]
            while any(w.ready is None for w in self._workers):
                self._step({})
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        for worker in self._workers:
            worker.close()
        self._workers = []
        if self._home is not None:
            self._home.cleanup()
            self._home = None

    def version(self) -> str | None:
        """The target's version as the driver read it from the installed distribution."""
        return self.ready["version"]

    @property
    def ready(self) -> Mapping[str, Any]:
        """The driver's ready answer: version, python, import_seconds."""
        if self._ready is None:
            raise ErrcatError("the runner is not started (use it as a context manager)")
        return self._ready

    def _spawn(self) -> _Worker:
        assert self._home is not None
        return _Worker(self.python, self.setup, self._env, self._home.name)

    # -------------------------------------------------------------- running

    def run(self, launches: Iterable[Launch]) -> Iterator[tuple[Launch, Result]]:
        """Every launch with its result, in input order."""
        if not self._workers:
            raise ErrcatError("the runner is not started (use it as a context manager)")
        todo = deque(enumerate(launches))
        total, done = len(todo), 0
        results: dict[int, tuple[Launch, Result]] = {}
        try:
            while done < total:
                for worker in self._workers:
                    if worker.ready is not None and worker.task is None and todo:
                        worker.send(*todo.popleft())
                while done in results:
                    yield results.pop(done)
                    done += 1
                if done < total:
                    self._step(results)
        finally:
            # abandoned mid-run: a busy worker's late answer must not reach the next run
            self._workers = [self._restart(w, None) if w.task is not None else w for w in self._workers]

    def _step(self, results: dict[int, tuple[Launch, Result]]) -> None:
        """Waits for the next answer, death or deadline, and handles it."""
        now = time.monotonic()
        deadlines = [self._deadline(w) for w in self._workers if w.task is not None or w.ready is None]
        wait = max(0.0, min(deadlines) - now) if deadlines else None
        readable, _, _ = select.select([w.fd for w in self._workers], [], [], wait)
        for i, worker in enumerate(self._workers):
            if worker.fd in readable:
                self._workers[i] = self._answer(worker, results)
        now = time.monotonic()
        for i, worker in enumerate(self._workers):
            if now < self._deadline(worker):
                continue
            if worker.ready is None:
                worker.kill()
                raise ErrcatError(f"the target did not become ready within {self.ready_timeout:g} s "
                                  f"({self.python}): {worker.stderr_tail()[-300:].strip()}")
            if worker.task is not None:
                self._workers[i] = self._restart(worker, results, Result(
                    "timeout", seconds=round(now - worker.started, 3), detail=f"no answer within {self.timeout:g} s"))

    def _deadline(self, worker: _Worker) -> float:
        if worker.ready is None:
            return worker.started + self.ready_timeout
        return worker.started + self.timeout if worker.task is not None else float("inf")

    def _answer(self, worker: _Worker, results: dict[int, tuple[Launch, Result]]) -> _Worker:
        lines = worker.read()
        if lines is None:
            return self._died(worker, results)
        for line in lines:
            try:
                answer = json.loads(line)
                if worker.ready is None:
                    self._accept_ready(worker, answer)
                    continue
                if worker.task is None or answer.get("id") != worker.task[0]:
                    raise ValueError(f"unexpected answer {line[:200]!r}")
                result = _result(answer)
            except (ValueError, AttributeError) as exc:  # not our protocol: treat as a broken worker
                if worker.ready is None:
                    raise ErrcatError(f"the target interpreter {self.python} answered no driver protocol: "
                                      f"{exc}") from None
                return self._restart(worker, results, Result("crash", detail=f"protocol error: {exc}"))
            index, launch = worker.task
            results[index] = (launch, result)
            worker.task = None
        return worker

    def _accept_ready(self, worker: _Worker, answer: Mapping[str, Any]) -> None:
        if not answer.get("ready"):
            worker.kill()
            raise ErrcatError(f"the target does not start in {self.python}: {answer.get('error', 'unknown error')}")
        worker.ready = dict(answer)
        self._ready = self._ready or worker.ready

    def _died(self, worker: _Worker, results: dict[int, tuple[Launch, Result]]) -> _Worker:
        how = worker.kill()
        if worker.ready is None:
            tail = worker.stderr_tail().strip().splitlines()
            raise ErrcatError(f"the target interpreter {self.python} ended before it was ready ({how})"
                              + (f": {tail[-1]}" if tail else ""))
        since_launch = worker.stderr_tail(worker.stderr_at)
        return self._restart(worker, results, Result("crash", seconds=round(time.monotonic() - worker.started, 3),
                                                     detail=f"{how}\n{since_launch}".strip()))

    def _restart(self, worker: _Worker, results: dict[int, tuple[Launch, Result]] | None,
                 result: Result | None = None) -> _Worker:
        if results is not None and result is not None and worker.task is not None:
            index, launch = worker.task
            results[index] = (launch, result)
        worker.close()
        return self._spawn()
