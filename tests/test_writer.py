"""Atomic catalog directories: a failed, killed or interrupted write leaves the old one."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from extractor.errors import OutputError
from output import writer
from output.writer import atomic_dir, dumps, write_atomically

ROOT = Path(__file__).resolve().parents[1]
OLD = {"catalog.json": "old\n", "entries/a.json": "A\n"}
NEW = {"catalog.json": "new\n", "entries/b.json": "B\n", "graph.graphml": b"<g/>\n"}


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _expect(files: dict[str, str | bytes]) -> dict[str, bytes]:
    return {k: v if isinstance(v, bytes) else v.encode() for k, v in files.items()}


@pytest.fixture()
def out(tmp_path: Path) -> Path:
    """tmp_path/out holding the OLD catalog."""
    write_atomically(tmp_path / "out", lambda: dict(OLD))
    return tmp_path / "out"


def _siblings(out: Path) -> list[str]:
    return sorted(p.name for p in out.parent.iterdir())


def test_writes_new_directory(tmp_path):
    write_atomically(tmp_path / "a" / "b", lambda: dict(NEW))
    assert _tree(tmp_path / "a" / "b") == _expect(NEW)


def test_replaces_previous_catalog_whole(out):
    write_atomically(out, lambda: dict(NEW))
    assert _tree(out) == _expect(NEW)  # entries/a.json is gone, not merged
    assert _siblings(out) == ["out"]  # no staging or parked copies left


def test_result_is_a_normal_directory_not_0700(out):
    mask = os.umask(0o022)
    os.umask(mask)
    assert out.stat().st_mode & 0o777 == 0o777 & ~mask


def test_dumps_is_canonical():
    assert dumps({"b": 1, "a": ["é"]}) == '{\n  "b": 1,\n  "a": [\n    "é"\n  ]\n}\n'


def _boom() -> dict[str, str]:
    raise RuntimeError("render failed")


def test_render_failure_leaves_old_catalog(out):
    with pytest.raises(RuntimeError):
        write_atomically(out, _boom)
    assert _tree(out) == _expect(OLD)
    assert _siblings(out) == ["out"]


@pytest.mark.parametrize("exc", [RuntimeError("disk full"), KeyboardInterrupt()])
def test_failure_inside_staging_leaves_old_catalog(out, exc):
    with pytest.raises(type(exc)), atomic_dir(out) as staging:
        writer.write_files(staging, NEW)
        raise exc  # as if the process died half way through writing
    assert _tree(out) == _expect(OLD)
    assert _siblings(out) == ["out"]


def test_sigkill_mid_write_leaves_old_catalog(out):
    script = textwrap.dedent(f"""
        import os, signal
        from output.writer import atomic_dir, write_files
        with atomic_dir({str(out)!r}) as staging:
            write_files(staging, {{"catalog.json": "half"}})
            os.kill(os.getpid(), signal.SIGKILL)
    """)
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True)
    assert proc.returncode == -9
    assert _tree(out) == _expect(OLD)
    write_atomically(out, lambda: dict(NEW))  # the next run is not confused by the leftover
    assert _tree(out) == _expect(NEW)


def test_failed_second_rename_puts_old_catalog_back(out, monkeypatch):
    real = os.replace

    def replace(src, dst):
        if writer._NEW in Path(src).name:
            raise OSError(28, "No space left on device")
        real(src, dst)

    monkeypatch.setattr(writer.os, "replace", replace)
    with pytest.raises(OutputError, match="No space left"):
        write_atomically(out, lambda: dict(NEW))
    assert _tree(out) == _expect(OLD)
    assert _siblings(out) == ["out"]


def _interrupt_swap(out: Path) -> Path:
    """The state a kill between the swap's two renames leaves: only the parked copy."""
    parked = out.parent / f"{out.name}{writer._OLD}x1"
    parked.mkdir()
    out.rename(parked / "catalog")
    return parked


@pytest.mark.parametrize("name", ["out", "o[1]*"])
def test_interrupted_swap_is_recovered_even_if_this_run_fails(tmp_path, name):
    out = tmp_path / name
    write_atomically(out, lambda: dict(OLD))
    _interrupt_swap(out)
    with pytest.raises(RuntimeError), atomic_dir(out):
        raise RuntimeError("this run fails too")
    assert _tree(out) == _expect(OLD)
    assert _siblings(out) == [name]


def test_interrupted_swap_then_success(out):
    _interrupt_swap(out)
    write_atomically(out, lambda: dict(NEW))
    assert _tree(out) == _expect(NEW)
    assert _siblings(out) == ["out"]


def test_out_path_is_a_file(tmp_path):
    path = tmp_path / "out"
    path.write_text("keep")
    with pytest.raises(OutputError, match="not a directory"):
        write_atomically(path, lambda: dict(NEW))
    assert path.read_text() == "keep"


def test_out_below_a_file(tmp_path):
    (tmp_path / "file").write_text("keep")
    with pytest.raises(OutputError, match="cannot create output directory"):
        write_atomically(tmp_path / "file" / "out", lambda: dict(NEW))
    assert (tmp_path / "file").read_text() == "keep"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root ignores permissions")
def test_unwritable_parent(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        with pytest.raises(OutputError, match="not writable"):
            write_atomically(locked / "out", lambda: dict(NEW))
        assert list(locked.iterdir()) == []
    finally:
        locked.chmod(0o755)


def test_refuses_to_replace_a_directory_it_did_not_write(tmp_path):
    home = tmp_path / "home"
    (home / "project").mkdir(parents=True)
    (home / "notes.txt").write_text("precious")
    with pytest.raises(OutputError, match="not an errcat output directory"):
        write_atomically(home, lambda: dict(NEW))
    assert _tree(home) == {"notes.txt": b"precious"}


@pytest.mark.parametrize(
    ("existing", "marker"),
    [({}, "catalog.json"), ({"x.txt": "y"}, None), ({"index.html": "old"}, "index.html")],
)
def test_replaces_empty_or_marked_directories(tmp_path, existing, marker):
    out = tmp_path / "out"
    out.mkdir()
    for name, text in existing.items():
        (out / name).write_text(text)
    write_atomically(out, lambda: dict(NEW), marker=marker)
    assert _tree(out) == _expect(NEW)


def test_refuses_filesystem_root():
    with pytest.raises(OutputError, match="refusing"):
        write_atomically("/", lambda: dict(NEW))
