"""What every browser test shares: Debian's headless Chromium (nothing downloads a browser), the
flags this closed network needs, where screenshots go, and the skip rule (TABLEPOST_SKIP_BROWSER=1,
or no Chromium installed: .ci/run installs it).

The browser is Debian's ``chromium-headless-shell`` (Chromium's own headless build, the one
Playwright drives by default) where installed, else the full ``chromium`` in headless mode. The
full browser keeps a renderer of its own UI busy for as long as it runs (about 0.08 of a core per
second, with no page doing anything; the shell: none) and starts in three times the CPU: on the
suite's ~20 browsers that was about 85 core-seconds.

A test module calls :func:`require_browser` at import time, before importing Playwright."""
from __future__ import annotations

import os
import pathlib

import pytest

SHELL = "/usr/bin/chromium-headless-shell"
CHROMIUM = SHELL if os.access(SHELL, os.X_OK) else "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = pathlib.Path(__file__).parent / "artifacts"


def browser_missing() -> str | None:
    """Why browser tests cannot or should not run here, or None."""
    if os.environ.get("TABLEPOST_SKIP_BROWSER") == "1":
        return "TABLEPOST_SKIP_BROWSER=1: browser tests skipped"
    if not os.access(CHROMIUM, os.X_OK):
        return (f"no {SHELL} or {CHROMIUM}: install Debian's chromium-headless-shell package "
                "(.ci/run does)")
    return None


def require_browser() -> None:
    """Skip the calling test module (with the reason) when browser tests cannot or should not run."""
    why = browser_missing()
    if why:
        pytest.skip(why, allow_module_level=True)


def launch(playwright):
    """Headless Chromium from Debian's packages (the headless shell where installed)."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


WRITTEN: list[str] = []  # the screenshots of this run (tests/conftest.py names the folder at the end)


def screenshot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name), full_page=True)
    WRITTEN.append(name)


def wait_until(page, expression: str, timeout: float = 20_000) -> None:
    """Like ``page.wait_for_function(expression)``, which pages under a Content-Security-Policy
    without 'unsafe-eval' refuse (Playwright polls by eval in the page): polls from here with
    ``page.evaluate``, which the DevTools protocol runs outside the page's policy."""
    import time
    deadline = time.monotonic() + timeout / 1000
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {expression}")
        time.sleep(0.05)


def english_left(lang: str) -> list[str]:
    """The English messages of every catalog (the platform's and each game's: ``*/translations``)
    that ``lang`` says otherwise, as a reader would see a part of them: placeholders and tags
    dropped, 12 characters and a space at least. One of them visible on a page in ``lang`` is
    English left over."""
    import re

    from babel.messages.pofile import read_po

    out = set()
    for po in sorted(pathlib.Path(__file__).resolve().parents[1].glob(f"*/translations/{lang}.po")):
        with open(po, "rb") as fp:
            catalog = read_po(fp)
        for message in catalog:
            if not message.id or not message.string:
                continue
            ids = message.id if isinstance(message.id, tuple) else (message.id,)
            said = message.string if isinstance(message.string, tuple) else (message.string,)
            for m in ids:
                if m in said:
                    continue
                for part in re.split(r"\{\w+\}|%\(\w+\)s|<[^>]+>", m):
                    part = part.strip(" .,:;()")
                    if len(part) >= 12 and " " in part:
                        out.add(part)
    return sorted(out)
