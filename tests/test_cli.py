"""CLI: one `errcat: ...` line and exit 2 on bad input, nothing written; exit 0 otherwise."""
from __future__ import annotations

import contextlib
import functools
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from datetime import datetime
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import git
import pytest

from errcat import __version__
from errcat.cli import main
from extractor import source
from tests.present import present

ROOT = Path(__file__).resolve().parents[1]
ME = git.Actor("Test", "test@example.invalid")
PROFILE = "name: tiny\nrepo: example/tiny\ntargets:\n  - pkg/**/*.py\n"
GOOD = 'def check(x):\n    if x < 0:\n        raise ValueError(f"x must be >= 0, got {x}")\n'
BROKEN = "def broken(:\n"


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    """A git repo with tag v1: pkg/good.py (one raise) and pkg/bad.py (does not parse)."""
    root = tmp_path_factory.mktemp("cli") / "repo"
    r = git.Repo.init(root, initial_branch="main")
    for name, text in {"pkg/good.py": GOOD, "pkg/bad.py": BROKEN}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    r.index.add(["pkg/good.py", "pkg/bad.py"])
    when = datetime.fromisoformat("2025-01-01T00:00:00+00:00")
    r.index.commit("c1", author=ME, committer=ME, author_date=when, commit_date=when)
    r.create_tag("v1")
    return root


@pytest.fixture()
def env(tmp_path, repo) -> dict[str, str]:
    """Placeholders for argv templates; every case gets fresh tmp paths."""
    (tmp_path / "tiny.yaml").write_text(PROFILE)
    (tmp_path / "nothing.yaml").write_text(PROFILE.replace("pkg/**/*.py", "lib/**/*.py"))
    (tmp_path / "bad.yaml").write_text("name: [unclosed\n")
    (tmp_path / "nokeys.yaml").write_text("name: x\n")
    (tmp_path / "plain").mkdir()
    (tmp_path / "file").write_text("x")
    return {"repo": str(repo), "tmp": str(tmp_path), "out": str(tmp_path / "out"),
            "cache": str(tmp_path / "cache"), "profile": str(tmp_path / "tiny.yaml")}


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def empty_index(tmp_path, monkeypatch) -> Iterator[str]:
    """An HTTP package index that knows no release; `--release` is pointed at it."""
    root = tmp_path / "index"
    root.mkdir()
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}/pypi"
    monkeypatch.setattr(source, "open_release", functools.partial(source.open_release, index_url=url))
    yield url
    server.shutdown()
    server.server_close()


def run(argv: list[str], env: dict[str, str], capsys) -> tuple[int, str, str]:
    code = main([a.format(**env) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


BAD = [
    # (case, argv after `extract`, text the one line must contain)
    ("unknown commit", ["--repo", "{repo}", "--commit", "0123456789abcdef0123456789abcdef01234567"],
     "unknown revision"),
    ("unknown branch", ["--repo", "{repo}", "--commit", "no-such-branch"], "unknown revision"),
    ("not a git repo", ["--repo", "{tmp}/plain"], "not a git repository"),
    ("missing repo path", ["--repo", "{tmp}/missing"], "no such git repository"),
    ("unreachable url", ["--repo", "file://{tmp}/missing.git"], "cannot clone"),
    ("option as repo", ["--repo=--upload-pack=touch {tmp}/pwned"], "starts with '-'"),
    ("ext transport", ["--repo", "ext::sh -c touch% {tmp}/pwned"], "remote-helper"),
    ("option in url", ["--repo", "file://{repo} --upload-pack=touch {tmp}/pwned"], "embeds an option"),
    ("option as commit", ["--repo", "{repo}", "--commit=--output={tmp}/pwned"], "starts with '-'"),
    ("release and path", ["--release", "0.5.23", "--path", "{tmp}/plain"], "only one source"),
    ("repo and release", ["--repo", "{repo}", "--release", "0.5.23"], "only one source"),
    ("commit without repo", ["--commit", "v1"], "--commit needs --repo"),
    ("missing path", ["--path", "{tmp}/missing"], "not a directory"),
    ("empty path", ["--path", ""], "--path is empty"),
    ("empty release", ["--release", ""], "--release is empty"),
    ("empty commit", ["--repo", "{repo}", "--commit", ""], "--commit is empty"),
    ("globs match nothing", ["--repo", "{repo}", "--profile", "{tmp}/nothing.yaml"], "lib/**/*.py"),
    ("profile not yaml", ["--repo", "{repo}", "--profile", "{tmp}/bad.yaml"], "not valid YAML"),
    ("profile keys missing", ["--repo", "{repo}", "--profile", "{tmp}/nokeys.yaml"], "missing key(s) repo, targets"),
    ("profile file missing", ["--repo", "{repo}", "--profile", "{tmp}/none.yaml"], "profile file not found"),
    ("profile name unknown", ["--repo", "{repo}", "--profile", "nosuchprofile"], "unknown profile"),
    ("out is a file", ["--repo", "{repo}", "--out", "{tmp}/file"], "not a directory"),
    ("out below a file", ["--repo", "{repo}", "--out", "{tmp}/file/out"], "cannot create output directory"),
    ("out not a catalog", ["--repo", "{repo}", "--out", "{tmp}"], "not an errcat output directory"),
    ("cache below a file", ["--repo", "file://{repo}", "--cache-dir", "{tmp}/file/c"], "Not a directory"),
    ("unknown option", ["--repo", "{repo}", "--bogus"], "unrecognized arguments: --bogus"),
]


@pytest.mark.parametrize(("argv", "expected"), [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_bad_input_one_line_exit_2_nothing_written(env, capsys, argv, expected):
    for option, default in (("--profile", "{profile}"), ("--out", "{out}"), ("--cache-dir", "{cache}")):
        if option not in argv:
            argv = [*argv, option, default]
    before = sorted(set(os.listdir(env["tmp"])) - {"cache"})
    code, out, err = run(["extract", *argv], env, capsys)
    assert (code, out) == (2, "")
    assert err.startswith("errcat: ") and err.count("\n") == 1 and "Traceback" not in err
    assert expected.format(**env) in err
    assert sorted(set(os.listdir(env["tmp"])) - {"cache"}) == before  # no out dir, no pwned file


def test_release_not_on_index(env, capsys, empty_index):
    code, _, err = run(["extract", "--release", "9.9.9", "--out", "{out}", "--cache-dir", "{cache}"], env, capsys)
    assert (code, err) == (2, "errcat: release sglang==9.9.9 not found on the index\n")
    assert not Path(env["out"]).exists()


@pytest.mark.network
def test_release_not_on_pypi(env, capsys):
    code, _, err = run(["extract", "--release", "0.0.0.0.1", "--out", "{out}", "--cache-dir", "{cache}"], env, capsys)
    assert (code, err) == (2, "errcat: release sglang==0.0.0.0.1 not found on the index\n")
    assert not Path(env["out"]).exists()


def test_failed_run_leaves_previous_catalog(env, capsys):
    base = ["extract", "--repo", "{repo}", "--profile", "{profile}", "--out", "{out}", "--cache-dir", "{cache}"]
    assert run(base, env, capsys)[0] == 0
    before = {p: p.read_bytes() for p in Path(env["out"]).rglob("*") if p.is_file()}
    assert run([*base, "--commit", "nope"], env, capsys)[0] == 2
    assert {p: p.read_bytes() for p in Path(env["out"]).rglob("*") if p.is_file()} == before


def test_unparsable_target_is_a_note_not_an_error(env, capsys):
    code, out, err = run(["extract", "--repo", "{repo}", "--commit", "v1", "--profile", "{profile}",
                          "--out", "{out}", "--cache-dir", "{cache}"], env, capsys)
    assert code == 0
    assert "1 entries" in out and "note: parse error: pkg/bad.py" in err
    catalog = json.loads((Path(env["out"]) / "catalog.json").read_text())
    assert [d for d in catalog["diagnostics"] if "pkg/bad.py" in d]
    assert [e["source"]["path"] for e in catalog["entries"]] == ["pkg/good.py"]


@pytest.mark.parametrize(
    ("argv", "expected"),
    [(["--version"], f"errcat {__version__}"), (["--help"], "usage: errcat"), (["extract", "--help"], "--release")],
)
def test_version_and_help_exit_0(env, capsys, argv, expected):
    code, out, _ = run(argv, env, capsys)
    assert code == 0 and expected in out


def test_the_installed_version_is_the_one_errcat_stamps() -> None:
    # pyproject.toml reads it from extractor/tool.py (setuptools dynamic): one place
    import importlib.metadata

    assert importlib.metadata.version("errcat") == __version__


@pytest.mark.parametrize("argv", [[], ["nosuchcommand"]])
def test_missing_or_unknown_command_exit_2(env, capsys, argv):
    code, _, err = run(argv, env, capsys)
    assert code == 2 and err.startswith("errcat: ") and err.count("\n") == 1


@pytest.mark.parametrize(
    ("argv", "code", "stdout", "stderr"),
    [
        (["--commit", "v1"], 0, "example/tiny@", "note: parse error"),
        (["--commit", "nope"], 2, "", "errcat: unknown revision 'nope'"),
    ],
)
def test_real_subprocess(env, argv, code, stdout, stderr):
    proc = subprocess.run(
        [sys.executable, "-m", "errcat", "extract", "--repo", env["repo"], *argv, "--profile", env["profile"],
         "--out", env["out"], "--cache-dir", env["cache"]],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert (proc.returncode, stdout in proc.stdout, stderr in proc.stderr) == (code, True, True)
    assert "Traceback" not in proc.stderr
    assert (Path(env["out"]) / "catalog.json").exists() == (code == 0)


# ------------------------------------------------------------------ incomplete catalogs


def test_file_that_cannot_be_analysed_exits_3_catalog_still_written(env, capsys, monkeypatch):
    from extractor import sites

    run_walker = sites.SiteWalker.run

    def out_of_memory(self):
        if self.state.path == "pkg/good.py":
            raise MemoryError()
        return run_walker(self)

    monkeypatch.setattr(sites.SiteWalker, "run", out_of_memory)
    code, _, err = run(["extract", "--repo", "{repo}", "--commit", "v1", "--profile", "{profile}",
                        "--out", "{out}", "--jobs", "1", "--no-cache"], env, capsys)
    assert code == 3
    lines = [line for line in err.splitlines() if line.startswith("errcat:")]
    assert lines == ["errcat: catalog incomplete: 1 file(s) could not be analysed: pkg/good.py (out of memory)"]
    catalog = json.loads((Path(env["out"]) / "catalog.json").read_text())
    assert catalog["incomplete"] == [{"path": "pkg/good.py", "reason": "out of memory"}]


# ------------------------------------------------------------------ worker processes


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        with contextlib.suppress(OSError):
            found.update(int(p) for p in task.read_text().split())
    return found


def _alive(pid: int) -> bool:
    """Running (a zombie nobody reaps does not count)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs /proc")
def test_workers_exit_when_the_parent_is_killed(tmp_path):
    import signal
    import time

    from scripts import scale_shapes

    profile = scale_shapes.write("many", 3000, tmp_path)
    for i in range(12):  # enough work that the workers are busy when the parent dies
        (tmp_path / f"pkg/gen{i}.py").write_text(scale_shapes.source("one-if", 1500))
    proc = subprocess.Popen(
        [sys.executable, "-m", "errcat", "extract", "--path", str(tmp_path), "--profile", str(profile),
         "--out", str(tmp_path / "out"), "--jobs", "2", "--no-cache"],
        cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    workers: set[int] = set()
    try:
        deadline = time.monotonic() + 60
        while len(workers) < 2 and time.monotonic() < deadline and proc.poll() is None:
            workers = {p for p in _children(proc.pid) if _alive(p)}
            time.sleep(0.05)
        assert len(workers) >= 2, "the pool never started"
        time.sleep(0.5)  # the workers run their initializer and pick up a file
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 15
        while any(_alive(p) for p in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [p for p in workers if _alive(p)]
    finally:  # never leave them behind, whatever failed
        proc.kill()
        for pid in workers | _children(proc.pid):
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


POOL_SCRIPT = """
import os, sys, time
from concurrent.futures import ProcessPoolExecutor
from extractor import orphans
if sys.argv[1] == "poll":  # no kernel help: the polling thread alone
    orphans._death_signal = lambda: None
    orphans.POLL_SECONDS = 0.1
def pid():
    return os.getpid()
with ProcessPoolExecutor(2, initializer=orphans.exit_with_parent, initargs=(os.getpid(),)) as pool:
    print(*{pool.submit(pid).result() for _ in range(20)}, flush=True)
    pool.submit(time.sleep, 600)
    pool.submit(time.sleep, 600)
    time.sleep(600)
"""


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs /proc")
@pytest.mark.parametrize("how", ["prctl", "poll"])
def test_pool_initializer_ends_workers_with_their_parent(how):
    import signal
    import time

    proc = subprocess.Popen([sys.executable, "-c", POOL_SCRIPT, how], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    workers = {int(p) for p in present(proc.stdout).readline().split()}
    try:
        assert workers and all(_alive(p) for p in workers)
        proc.kill()
        proc.wait()
        deadline = time.monotonic() + 10
        while any(_alive(p) for p in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [p for p in workers if _alive(p)]
    finally:
        proc.kill()
        for pid in workers:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
