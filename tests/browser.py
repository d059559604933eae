"""What every browser test shares: Debian's headless Chromium (/usr/bin/chromium; nothing
downloads a browser), the flags this closed network needs, where screenshots go, and the skip
rule (TILETUM_SKIP_BROWSER=1, or no Chromium installed: .ci/run installs it).

A test module calls :func:`require_browser` at import time, before importing Playwright."""
from __future__ import annotations

import os
import pathlib

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = pathlib.Path(__file__).parent / "artifacts"


def require_browser() -> None:
    """Skip the calling test module (with the reason) when browser tests cannot or should not run."""
    if os.environ.get("TILETUM_SKIP_BROWSER") == "1":
        pytest.skip("TILETUM_SKIP_BROWSER=1: browser tests skipped", allow_module_level=True)
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip(f"no {CHROMIUM}: install Debian's chromium package (.ci/run does)", allow_module_level=True)


def launch(playwright):
    """Headless Chromium from Debian's package."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


def screenshot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name), full_page=True)
