"""Runs the target's own argument validation inside the target's interpreter.

Run as a script by that interpreter (``PY driver.py``): standard library only, nothing
from errcat, and nothing newer than Python 3.8 (old releases run on old interpreters).

Protocol, JSON lines on stdin/stdout. The first line is the setup::

    {"package": "pkg", "module": "pkg.args", "steps": [{"call": "prepare"}, {"method": "check"}],
     "torch_ops": {"ns": ["op(Tensor x) -> Tensor"]}, "env": {"NAME": "value"},
     "args": ["--device", "cuda"], "path": ["/dir/prepended/to/sys.path"]}

answered by ``{"ready": true, "version": "1.2", "python": "3.11.7", "import_seconds": 4.9}``
(or ``{"ready": false, "error": "..."}``, and the driver exits). Then every line is a launch
``{"id": 7, "argv": [...], "env": {"NAME": "value" or null}}`` answered by one line::

    {"id": 7, "outcome": "ok" | "error" | "argparse", "type": "ValueError", "message": "...",
     "frame": {"path": "pkg/x.py", "line": 12, "function": "f"} or null, "seconds": 0.01,
     "traceback": "..."}

`frame` is the innermost traceback frame inside the target package (path relative to the
package's parent directory); an error a handler raised again with the same message carries
``"written_at"``, the frame of the raise that wrote it. Between launches the environment, `sys.argv` and the working
directory are restored; every launch runs in a fresh empty temporary directory.

``PY driver.py --version PACKAGE`` prints the installed version of PACKAGE's distribution
(empty when it has none) without importing it.
"""
from __future__ import annotations

import contextlib
import errno
import faulthandler
import importlib
import io
import ipaddress
import json
import os
import platform
import shutil
import socket
import sys
import tempfile
import threading
import time
import traceback
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:  # typing only: the driver runs on the target's interpreter (3.8+), annotations unevaluated
    import _socket  # where typeshed declares socket.socket's connect/connect_ex (the slots patched below)
    from collections.abc import Iterator

    from _typeshed import ReadableBuffer

    Address = tuple[Any, ...] | str | ReadableBuffer  # what socket.connect takes (typeshed's socket._Address)

TRACEBACK_CHARS = 4000  # tail of the formatted traceback sent along (for reports)
PARENT_POLL_SECONDS = 1.0


# ------------------------------------------------------------------ isolation


def _exit_with_parent() -> None:
    """Leave when the process that started us dies (even mid-launch, e.g. in a hang).

    errcat's own helper (extractor/orphans.py) cannot be imported here.
    """
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="driver-parent-watch", daemon=True).start()


def _loopback(address: object) -> bool:
    host = address[0] if isinstance(address, tuple) and address else address
    if not isinstance(host, str):
        return False
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False  # a host name: resolving it would already be network access


def no_network() -> None:
    """TCP connections to anything but loopback fail at once instead of waiting on a
    network the validation must not use (UDP `connect` sends nothing: left alone)."""
    plain_connect, plain_connect_ex = socket.socket.connect, socket.socket.connect_ex

    def refused(sock: _socket.socket, address: Address) -> bool:
        return sock.family in (socket.AF_INET, socket.AF_INET6) and sock.type == socket.SOCK_STREAM \
            and not _loopback(address)

    def connect(self: _socket.socket, address: Address) -> None:
        if refused(self, address):
            raise OSError(errno.ENETUNREACH, f"network disabled by errcat's driver: {address!r}")
        plain_connect(self, address)

    def connect_ex(self: _socket.socket, address: Address) -> int:
        return errno.ENETUNREACH if refused(self, address) else plain_connect_ex(self, address)

    # Patching the class is the point: every socket, whoever creates it, goes through these.
    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]


class _Stderr(io.TextIOBase):
    """sys.stderr for the whole run: passes everything on to fd 2 and, during a launch,
    keeps a copy (argparse's message). Installed once, so loggers that bind sys.stderr
    during a launch keep writing to the real stderr afterwards."""

    def __init__(self, real: TextIO) -> None:
        self._real = real
        self._copy: io.StringIO | None = None

    def write(self, text: str) -> int:
        if self._copy is not None:
            self._copy.write(text)
        self._real.write(text)
        return len(text)

    def flush(self) -> None:
        self._real.flush()

    def fileno(self) -> int:
        return self._real.fileno()

    def isatty(self) -> bool:
        return False

    def writable(self) -> bool:
        return True

    @property  # typeshed declares a plain attribute; this one is the real stream's, read-only
    def encoding(self) -> str:  # type: ignore[override]
        return self._real.encoding

    @contextlib.contextmanager
    def copied(self) -> Iterator[io.StringIO]:
        """Keeps a copy of what is written meanwhile, in the StringIO it yields."""
        self._copy = io.StringIO()
        try:
            yield self._copy
        finally:
            self._copy = None


def _private_streams() -> tuple[io.TextIOBase, io.TextIOBase]:
    """The protocol on private copies of fds 0 and 1; the target's fd 1 goes to stderr and
    its fd 0 reads nothing, so its prints and prompts cannot corrupt or steal protocol lines."""
    sys.stdout.flush()
    proto_in = os.fdopen(os.dup(0), "r", encoding="utf-8")
    proto_out = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    return proto_in, proto_out


def _send(out: io.TextIOBase, data: dict) -> None:
    out.write(json.dumps(data) + "\n")
    out.flush()


# ------------------------------------------------------------------ setup


def _distribution_version(package: str) -> str | None:
    try:
        from importlib import metadata
    except ImportError:  # Python < 3.8
        return None
    names = []
    if hasattr(metadata, "packages_distributions"):  # 3.10+
        names = list(metadata.packages_distributions().get(package, ()))
    for name in names + [package]:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return None


def define_torch_ops(torch_ops: dict) -> list:
    """Operator schemas the target's imports need before they run (kept alive: a
    dropped Library object deletes its definitions)."""
    if not torch_ops:
        return []
    import torch

    libraries = []
    for namespace, schemas in torch_ops.items():
        library = torch.library.Library(namespace, "DEF")
        for schema in schemas:
            library.define(schema)
        libraries.append(library)
    return libraries


def _package_dirs(package: str) -> list[str]:
    module = sys.modules[package]
    dirs = list(getattr(module, "__path__", None) or [os.path.dirname(module.__file__ or "")])
    return [os.path.realpath(d) for d in dirs if d]


# ------------------------------------------------------------------ one launch


def with_args(argv: list[str], args: list[str]) -> list[str]:
    """argv plus each option of `args` (with its values) that argv does not give itself."""
    groups: list[list[str]] = []
    for token in args:
        if token.startswith("-") or not groups:
            groups.append([token])
        else:
            groups[-1].append(token)
    given = {t.split("=", 1)[0] for t in argv if t.startswith("-")}
    return list(argv) + [t for group in groups if group[0] not in given for t in group]


def _restore_env(saved: dict) -> None:
    for name in [n for n in os.environ if n not in saved]:
        del os.environ[name]
    for name, value in saved.items():
        if os.environ.get(name) != value:
            os.environ[name] = value


class Driver:
    def __init__(self, setup: dict, stderr: _Stderr) -> None:
        self.setup = setup
        self.stderr = stderr
        self.module = importlib.import_module(setup["module"])
        self.package_dirs = _package_dirs(setup["package"])
        self._real: dict[str, str | None] = {}
        self.libraries: list = []  # the torch op libraries defined for the target: alive as long as the driver

    def _inside(self, filename: str) -> str | None:
        """`filename` relative to the package's parent directory, when inside the package."""
        if filename not in self._real:
            real = os.path.realpath(filename)
            self._real[filename] = next(
                (os.path.relpath(real, os.path.dirname(d)).replace(os.sep, "/")
                 for d in self.package_dirs if real.startswith(d + os.sep)),
                None,
            )
        return self._real[filename]

    def _frame(self, exc: BaseException) -> dict | None:
        for frame, line in reversed(list(traceback.walk_tb(exc.__traceback__))):
            path = self._inside(frame.f_code.co_filename)
            if path is not None:
                return {"path": path, "line": line, "function": frame.f_code.co_name}
        return None

    def _written_at(self, exc: BaseException) -> dict | None:
        """Where the message was written, when a handler passed it on unchanged
        (``raise E(str(err)) from err``): the innermost frame of the deepest such cause."""
        found, seen = None, {id(exc)}
        cause = exc.__cause__ or exc.__context__
        while cause is not None and id(cause) not in seen and _message(cause) == _message(exc):
            seen.add(id(cause))
            found = self._frame(cause) or found
            cause = cause.__cause__ or cause.__context__
        return found

    def _validate(self, argv: list[str]) -> None:
        target = None
        for step in self.setup["steps"]:
            (kind, name), = step.items()
            if kind == "call":
                target = getattr(self.module, name)(argv)
            else:
                getattr(target, name)()

    def launch(self, request: dict) -> dict:
        argv = with_args(request.get("argv") or [], self.setup.get("args") or [])
        saved_env, saved_argv, home = dict(os.environ), sys.argv, os.getcwd()
        # Inside the runner's home (our cwd), which the parent removes: a worker killed
        # mid-launch never runs the finally below, and must not leave its directory behind.
        workdir = tempfile.mkdtemp(prefix="errcat-launch-", dir=home)
        answer: dict = {"id": request.get("id"), "outcome": "ok"}
        start = time.perf_counter()
        try:
            for name, value in (request.get("env") or {}).items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
            sys.argv = [sys.argv[0]] + argv
            os.chdir(workdir)
            with self.stderr.copied() as printed:
                try:
                    self._validate(argv)
                except BaseException as exc:  # noqa: BLE001 - every exception is an outcome
                    answer.update(self._failure(exc, printed.getvalue()))
        finally:
            answer["seconds"] = round(time.perf_counter() - start, 6)
            os.chdir(home)
            shutil.rmtree(workdir, ignore_errors=True)
            sys.argv = saved_argv
            _restore_env(saved_env)
        return answer

    def _failure(self, exc: BaseException, printed: str) -> dict:
        tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        failure = {"outcome": "error", "type": type(exc).__name__, "message": _message(exc),
                   "frame": self._frame(exc), "traceback": tb[-TRACEBACK_CHARS:]}
        written = self._written_at(exc)
        if written is not None:
            failure["written_at"] = written
        if isinstance(exc, SystemExit) and exc.code not in (0, None) and _from_argparse(exc):
            at = printed.find(": error: ", max(printed.rfind("usage:"), 0))
            message = printed[at + len(": error: "):].strip() if at >= 0 else printed.strip()
            failure.update(outcome="argparse", message=message)
        return failure


def _message(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception as problem:  # noqa: BLE001 - a broken __str__ must not end the run
        return f"<str() failed: {type(problem).__name__}>"


def _from_argparse(exc: BaseException) -> bool:
    import argparse

    home = os.path.realpath(argparse.__file__)
    return any(os.path.realpath(frame.f_code.co_filename) == home for frame, _ in traceback.walk_tb(exc.__traceback__))


# ------------------------------------------------------------------ main


def _start(setup: dict, stderr: _Stderr) -> tuple[Driver | None, dict]:
    start = time.perf_counter()
    try:
        os.environ.update(setup.get("env") or {})
        sys.path[:0] = list(setup.get("path") or [])
        libraries = define_torch_ops(setup.get("torch_ops") or {})
        driver = Driver(setup, stderr)
        driver.libraries = libraries
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, which decides
        text = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        return None, {"ready": False, "error": text,
                      "traceback": traceback.format_exc()[-TRACEBACK_CHARS:]}
    return driver, {
        "ready": True,
        "version": _distribution_version(setup["package"]),
        "python": platform.python_version(),
        "import_seconds": round(time.perf_counter() - start, 3),
    }


def main(argv: list[str]) -> int:
    if argv[:1] == ["--version"] and len(argv) == 2:
        print(_distribution_version(argv[1]) or "")
        return 0
    # the script's own directory must not shadow the target's modules
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    _exit_with_parent()
    proto_in, proto_out = _private_streams()
    stderr = _Stderr(sys.stderr)
    sys.stderr = stderr
    no_network()
    line = proto_in.readline()
    if not line:
        return 1
    driver, ready = _start(json.loads(line), stderr)
    _send(proto_out, ready)
    if driver is None:
        return 1
    for line in proto_in:
        if line.strip():
            _send(proto_out, driver.launch(json.loads(line)))
    return 0


if __name__ == "__main__":
    faulthandler.enable()  # a crash leaves its Python stack in the stderr tail
    code = main(sys.argv[1:])
    sys.stdout.flush()
    sys.stderr.flush()
    # no interpreter shutdown: threads the target started would hold it up (seconds on
    # sglang), and nothing of a validation run needs cleaning up
    os._exit(code)
