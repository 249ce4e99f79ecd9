"""The README is a front door: short, its commands few, each one run here, and the outputs
its tour shows are what those commands print (scripts/readme_tour.py writes them)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from scripts import readme_tour

ROOT = Path(__file__).resolve().parent.parent
README = readme_tour.README
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_the_readme_is_short_and_every_command_in_it_is_setup_or_errcat() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    found = readme_tour.commands(text)
    assert [c.line for c in found if not c.setup and not c.line.startswith("errcat ")] == []
    # the first two lines: set up and build the 0.5.23 catalog, then the tests
    assert [c.line for c in found[:5]] == [*readme_tour.SETUP[:3], "errcat extract --release 0.5.23 --out catalog",
                                           readme_tour.SETUP[3]]


def test_the_setup_steps_are_the_ones_ci_runs() -> None:
    """Steps that make the environment cannot run inside it: CI runs them (.ci/run), and the
    extra they install is the project's."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "pip install --quiet -e '.[test]'" in ci and "\npython -m pytest -q\n" in ci
    assert "python3 -m venv .venv\n. .venv/bin/activate\n" in ci
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r"^\[project\.optional-dependencies\]\ntest = \[.*\"pytest", pyproject, re.MULTILINE)


@pytest.mark.parametrize("page", [README, *sorted((ROOT / "docs").glob("*.md"))], ids=lambda p: p.name)
def test_relative_links_lead_to_files(page: Path) -> None:
    targets = [t for t in LINK.findall(page.read_text(encoding="utf-8")) if "://" not in t]
    assert [t for t in targets if not (page.parent / t).exists()] == []


@pytest.mark.network
def test_every_readme_command_runs_and_prints_what_the_readme_shows(extracted, tmp_path, monkeypatch) -> None:
    # the releases the README extracts, each extracted once per session: its own extracts are warm ones
    versions = [c.line.split()[3] for c in readme_tour.commands(README.read_text(encoding="utf-8"))
                if c.line.startswith("errcat extract --release ")]
    monkeypatch.setenv("ERRCAT_CACHE_DIR", str(extracted.caches(versions, tmp_path / "cache")))
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))  # no model cached here: check says so alike everywhere
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    readme = README.read_text(encoding="utf-8")
    assert readme_tour.refreshed(readme, tmp_path) == readme, "run: python scripts/readme_tour.py DIR --write"
