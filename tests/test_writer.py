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
from tests.present import present

ROOT = Path(__file__).resolve().parents[1]
OLD: dict[str, writer.Content] = {"catalog.json": "old\n", "entries/a.json": "A\n"}
NEW: dict[str, writer.Content] = {"catalog.json": "new\n", "entries/b.json": "B\n", "graph.graphml": b"<g/>\n"}


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _expect(files: writer.Files) -> dict[str, bytes]:
    """The tree `write_atomically(out, files)` leaves: the files and their manifest."""
    return {k: v if isinstance(v, bytes) else _encoded(v) for k, v in writer.with_manifest(files).items()}


def _encoded(text: writer.Content) -> bytes:
    assert isinstance(text, str)  # the tests write no spliced content
    return text.encode()


@pytest.fixture()
def out(tmp_path: Path) -> Path:
    """tmp_path/out holding the OLD catalog."""
    write_atomically(tmp_path / "out", lambda: dict(OLD))
    return tmp_path / "out"


def _siblings(out: Path) -> list[str]:
    return sorted(p.name for p in out.parent.iterdir())


TINY_PROFILE = "name: tiny\nrepo: example/tiny\ntargets:\n  - pkg/**/*.py\n"
TINY_PY = "def check(x):\n    if x < 0:\n        raise ValueError('x must be >= 0')\n"


@pytest.fixture()
def tiny(tmp_path) -> dict[str, Path]:
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "a.py").write_text(TINY_PY)
    (tmp_path / "tiny.yaml").write_text(TINY_PROFILE)
    return {"tmp": tmp_path, "out": tmp_path / "out"}


def _extract(tiny: dict[str, Path], capsys, *extra: str) -> tuple[int, str]:
    from errcat.cli import main

    code = main(["extract", "--path", str(tiny["tmp"] / "src"), "--profile", str(tiny["tmp"] / "tiny.yaml"),
                 "--out", str(tiny["out"]), "--cache-dir", str(tiny["tmp"] / "cache"), "--jobs", "1", *extra])
    return code, capsys.readouterr().err


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
    proc = subprocess.run([sys.executable, "-c", script], check=False, cwd=ROOT, capture_output=True)
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


@pytest.mark.parametrize("marker", ["catalog.json", None])
def test_refuses_to_replace_a_directory_it_did_not_write(tmp_path, marker):
    home = tmp_path / "home"
    (home / "project").mkdir(parents=True)
    (home / "notes.txt").write_text("precious")
    with pytest.raises(OutputError, match=r"notes.txt was not written by errcat .*not an errcat output directory"):
        write_atomically(home, lambda: dict(NEW), marker=marker)
    assert _tree(home) == {"notes.txt": b"precious"} and (home / "project").is_dir()


def test_a_directory_holding_only_confirm_outcomes_is_written_and_keeps_them(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "confirm.json").write_text('{"outcomes": []}')  # copied in to be reused by the next extract
    write_atomically(out, lambda: dict(NEW))
    assert (out / "confirm.json").read_text() == '{"outcomes": []}' and (out / "catalog.json").is_file()


def test_extract_refuses_a_foreign_output_before_reading_the_source(tiny, capsys):
    tiny["out"].mkdir()
    (tiny["out"] / "notes.txt").write_text("precious")
    (tiny["tmp"] / "src" / "pkg" / "a.py").unlink()  # reading the source would fail otherwise
    (tiny["tmp"] / "src" / "pkg").rmdir()
    (tiny["tmp"] / "src").rmdir()
    code, err = _extract(tiny, capsys)
    assert code == 2 and "refusing to replace" in err and "notes.txt" in err and err.count("\n") == 1


@pytest.mark.parametrize(("existing", "marker"), [
    ({}, "catalog.json"), ({}, None), ({"index.html": "old"}, "index.html"), ({"catalog.json": "old"}, "catalog.json"),
])
def test_replaces_empty_or_legacy_marked_directories(tmp_path, existing, marker):
    out = tmp_path / "out"
    out.mkdir()
    for name, text in existing.items():
        (out / name).write_text(text)
    if "index.html" in existing:  # a marker alone is not enough: index.html is no errcat file name
        with pytest.raises(OutputError, match=r"index\.html was not written by errcat"):
            write_atomically(out, lambda: dict(NEW), marker=marker)
        return
    write_atomically(out, lambda: dict(NEW), marker=marker)
    assert _tree(out) == _expect(NEW)


def test_refuses_filesystem_root():
    with pytest.raises(OutputError, match="refusing"):
        write_atomically("/", lambda: dict(NEW))


# ------------------------------------------------------------------ names (issue 10, item 2)


@pytest.mark.parametrize("name", [
    "{tmp}/abs.json", "../x.json", "entries/../../x.json", "a/./b", "a//b", "entries/", "", "a\x00b",
    "a\nb", "C:\\x.json", "..\\x.json", writer._OWNER,
])
def test_hostile_names_are_refused_before_anything_is_written(tmp_path, name):
    out, name = tmp_path / "sub" / "out", name.format(tmp=tmp_path)
    with pytest.raises(OutputError, match="refusing to write"):
        write_atomically(out, lambda: {"catalog.json": "{}\n", name: "pwned"})
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == []


@pytest.mark.parametrize("name", ["../escape.txt", "{tmp}/escape.txt", "entries/../../escape.txt"])
def test_a_poisoned_catalog_pack_writes_nothing_outside_out(tiny, capsys, monkeypatch, name):
    from errcat import pipeline

    real = pipeline.catalog_files

    def poisoned(*args, **kwargs):
        files, summary, _ = real(*args, **kwargs)
        return {**files, name.format(tmp=tiny["tmp"]): "pwned"}, summary, True

    monkeypatch.setattr(pipeline, "catalog_files", poisoned)
    before = sorted(p.name for p in tiny["tmp"].iterdir())
    code, err = _extract(tiny, capsys)
    assert code == 2 and err.startswith("errcat: refusing to write ") and err.count("\n") == 1
    assert sorted(p.name for p in tiny["tmp"].iterdir()) == sorted({*before, "cache"})
    assert not list(tiny["tmp"].parent.glob("escape.txt")) and not (tiny["tmp"] / "escape.txt").exists()


def test_a_name_that_is_both_file_and_directory_is_refused(tmp_path):
    with pytest.raises(OutputError, match="both a file and a directory"):
        write_atomically(tmp_path / "out", lambda: {"catalog.json": "{}", "catalog.json/x": "y"})
    assert list(tmp_path.iterdir()) == []


def test_write_files_does_not_follow_a_symlink_out_of_root(tmp_path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "link").symlink_to(outside)
    with pytest.raises(OutputError, match="outside"):
        writer.write_files(root, {"a.json": "ok", "link/x.json": "pwned"})
    assert list(outside.iterdir()) == [] and not (root / "a.json").exists()  # all names checked first


# ------------------------------------------------------------------ manifest (issue 10, item 3)

def test_output_carries_a_manifest_of_every_file_with_its_sha256(tiny, capsys):
    import hashlib
    import json

    assert _extract(tiny, capsys)[0] == 0
    tree = _tree(tiny["out"])
    manifest = json.loads(tree.pop(writer.MANIFEST))
    assert manifest["files"] == {k: hashlib.sha256(v).hexdigest() for k, v in tree.items()}


@pytest.mark.parametrize(("fmt", "user_file"), [
    ("json", "src/precious.txt"),
    ("md", "md/notes.md"),
    ("json", "catalog.json.bak"),
])
def test_a_user_file_in_the_output_is_never_deleted(tiny, capsys, fmt, user_file):
    assert _extract(tiny, capsys, "--format", fmt)[0] == 0
    (tiny["out"] / user_file).parent.mkdir(parents=True, exist_ok=True)
    (tiny["out"] / user_file).write_text("precious")
    (tiny["tmp"] / "src" / "pkg" / "a.py").write_text(TINY_PY.replace(">= 0", "> 0"))  # something to rewrite
    before = _tree(tiny["out"])
    code, err = _extract(tiny, capsys, "--format", fmt)
    assert code == 2 and err.count("\n") == 1
    assert err == f"errcat: refusing to replace {tiny['out']}: {user_file} was not written by errcat " \
                  f"(not in its {writer.MANIFEST}); move it away or write elsewhere\n"
    assert _tree(tiny["out"]) == before
    assert _siblings(tiny["out"]) == ["cache", "out", "src", "tiny.yaml"]  # no staging left either


def test_refusal_names_the_first_foreign_file_in_sorted_order(tiny, capsys):
    assert _extract(tiny, capsys)[0] == 0
    for name in ("z.txt", "entries/zz.txt", "b/a.txt"):
        (tiny["out"] / name).parent.mkdir(parents=True, exist_ok=True)
        (tiny["out"] / name).write_text("mine")
    (tiny["tmp"] / "src" / "pkg" / "a.py").write_text(TINY_PY.replace(">= 0", "> 0"))
    code, err = _extract(tiny, capsys)
    assert code == 2 and ": b/a.txt was not written by errcat" in err


@pytest.mark.parametrize("text", ["not json", '{"files": [1]}', '{"files": {"catalog.json": 1}}'])
def test_an_unreadable_manifest_is_refused(out, text):
    (out / writer.MANIFEST).write_text(text)
    with pytest.raises(OutputError, match=f"{writer.MANIFEST} is not a valid errcat manifest"):
        write_atomically(out, lambda: dict(NEW))
    assert (out / writer.MANIFEST).read_text() == text


def test_a_file_changed_since_errcat_wrote_it_is_not_replaced(out):
    (out / "catalog.json").write_text("my edits")
    with pytest.raises(OutputError, match=r"catalog\.json was changed since errcat wrote it"):
        write_atomically(out, lambda: dict(NEW))
    assert (out / "catalog.json").read_text() == "my edits"


@pytest.mark.parametrize(("extra", "foreign"), [
    ({}, None),
    ({"md/README.md": "x", "md/entries/0123456789abcdef.md": "x", "graph.graphml": "x"}, None),
    ({"src/precious.txt": "x"}, "src/precious.txt"),
    ({"entries/notes.json": "x"}, "entries/notes.json"),
    ({"md/mine.md": "x"}, "md/mine.md"),
])
def test_an_output_of_an_errcat_without_manifests_is_replaced_only_if_all_its_files_are_errcats(
        tmp_path, extra, foreign):
    old = tmp_path / "out"
    writer.write_files(old, {"catalog.json": "{}", "entries/0123456789abcdef.json": "{}", **extra})
    before = _tree(old)
    if foreign is None:
        write_atomically(old, lambda: dict(NEW))
        assert _tree(old) == _expect(writer.with_manifest(NEW))
    else:
        with pytest.raises(OutputError, match=f": {foreign} was not written by errcat .no {writer.MANIFEST}"):
            write_atomically(old, lambda: dict(NEW))
        assert _tree(old) == before


def test_rerun_rewrites_nothing_and_keeps_the_manifest(tiny, capsys):
    assert _extract(tiny, capsys)[0] == 0
    stamps = {p: (p.stat().st_ino, p.stat().st_mtime_ns) for p in tiny["out"].rglob("*")}
    assert _extract(tiny, capsys)[0] == 0
    assert {p: (p.stat().st_ino, p.stat().st_mtime_ns) for p in tiny["out"].rglob("*")} == stamps
    assert (tiny["out"] / writer.MANIFEST).is_file()


# ------------------------------------------------------------------ stale staging (issue 10, item 10)

_HOLD = """
import os, signal, sys
from output.writer import atomic_dir, write_files
with atomic_dir({out!r}) as staging:
    write_files(staging, {{"catalog.json": "half"}})
    print(staging, flush=True)
    if {kill}:
        os.kill(os.getpid(), signal.SIGKILL)
    sys.stdin.read()  # hold the staging directory until the parent closes stdin
"""


def _start(out: Path, *, kill: bool) -> tuple[subprocess.Popen, Path]:
    proc = subprocess.Popen([sys.executable, "-c", _HOLD.format(out=str(out), kill=kill)], cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    staging = Path(present(proc.stdout).readline().strip())
    assert staging.name.startswith(f"{out.name}{writer._NEW}")
    return proc, staging


def test_stale_staging_is_removed_and_a_live_ones_is_kept(out):
    dead = [_start(out, kill=True) for _ in range(2)]
    for proc, _ in dead:
        assert proc.wait() == -9
    live, live_staging = _start(out, kill=False)
    try:
        write_atomically(out, lambda: dict(NEW))
        assert _siblings(out) == sorted(["out", live_staging.name])
        assert (live_staging / "catalog.json").read_text() == "half"
    finally:
        present(live.stdin).close()
        assert live.wait() == 0
    assert _siblings(out) == ["out"]


def test_a_parked_copy_left_after_a_completed_swap_is_removed(out):
    script = textwrap.dedent(f"""
        import os, shutil, signal
        from output import writer
        shutil.rmtree = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)  # die right after the swap
        writer.write_atomically({str(out)!r}, lambda: {{"catalog.json": "new"}})
    """)
    assert subprocess.run([sys.executable, "-c", script], check=False, cwd=ROOT).returncode == -9
    assert len(_siblings(out)) == 2  # out + the parked old copy
    write_atomically(out, lambda: dict(NEW))
    assert _siblings(out) == ["out"]


def test_staging_of_unknown_origin_is_left_alone(out):
    stranger = out.parent / f"out{writer._NEW}mine"
    stranger.mkdir()
    (stranger / "keep.txt").write_text("x")
    write_atomically(out, lambda: dict(NEW))
    assert (stranger / "keep.txt").read_text() == "x"


@pytest.mark.parametrize("content", ["", "ascii only", "é" * 7, "a€𝄞b" * 5, b"\xff raw bytes"])
def test_encoded_chunks_join_to_the_whole_encoding(monkeypatch, content):
    from output import writer

    monkeypatch.setattr(writer, "_CHUNK", 3)
    whole = content if isinstance(content, bytes) else content.encode("utf-8")
    assert b"".join(writer.encoded_chunks(content)) == whole


@pytest.mark.parametrize("texts", [(), ('{\n  "a": 1\n}\n',), ('{\n  "a": 1\n}\n', '{\n  "b": "é"\n}\n')])
def test_spliced_text_is_written_as_it_reads(tmp_path, texts):
    from output.writer import Spliced, as_bytes, as_text, write_files

    content = Spliced('{\n  "entries": [\n    ', texts, "\n  ]\n}\n")
    text = as_text(content)
    assert as_bytes(content) == text.encode("utf-8") and len(content) <= len(text)
    write_files(tmp_path, {"catalog.json": content})
    assert (tmp_path / "catalog.json").read_text(encoding="utf-8") == text
