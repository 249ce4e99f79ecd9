"""A real headless Chromium for the website's tests: the distribution's package, driven by Playwright.

Never downloads a browser (`playwright install` is not used): it starts the system's
``chromium``. Without one (or without Playwright) the tests that need it skip with the
reason, except under CI (``CI`` set), where `.ci/run` installs it and a skip would hide
that the browser tests did not run.
"""
from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _missing(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{reason}: CI must run the browser tests (.ci/run installs chromium)")
    pytest.skip(reason)


def chromium_browser() -> Iterator[Any]:
    """One browser for a module's tests (a generator for a module-scoped fixture)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright is not installed (pip install -e '.[test]')")
    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if executable is None:
        _missing("no chromium on PATH (Debian: apt-get install chromium)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


class Console:
    """What a page reported: console errors and uncaught exceptions."""

    def __init__(self, page: Any) -> None:
        self.errors: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))
