"""Issue 51: a game page in a background tab is not its player looking. In headless Chromium
against the app over real HTTP: while ``document.hidden`` the seat's page reads the game with
``hidden=true`` and the service records no look (application/live.py); shown again, it reads at
once and that read is a look. TABLEPOST_SKIP_BROWSER=1 (or no Chromium) skips it."""
from __future__ import annotations

from application import live
from tests.browser import wait_until
from tests.conftest import LiveServer, make_app

API = "/api/v1/games"
# the page's visibility, as the test says (a headless page is always shown)
HIDDEN = ('Object.defineProperty(document, "hidden", '
          "{configurable: true, get: () => !!window.testHidden});")


def test_a_hidden_page_reads_without_looking_and_looks_when_shown(redis_server, redis_client, browser):
    app = make_app(redis_server.url, RATE_LIMIT=0)
    c = app.test_client()
    rv = c.post(API, json={"game": "carcassonne", "seats": [{"name": "Ada"}, {"name": "Bob"}],
                           "options": {"seed": "hidden-page"}})
    assert rv.status_code == 201, rv.json
    gid, token = rv.json["id"], rv.json["seats"][0]["token"]
    with LiveServer(app) as server:
        page = browser.new_page()
        page.set_default_timeout(20_000)
        page.add_init_script(HIDDEN)
        reads: list[str] = []
        page.on("request", lambda r: reads.append(r.url) if f"/{gid}/state" in r.url else None)
        page.goto(f"{server.url}/play/{gid}#token={token}&stream=0&poll=0.3")
        wait_until(page, "document.body.dataset.version === '1'")
        assert live.read(redis_client, gid, 0)["seen_at"] > 0, "a shown page looks"
        # to the background: its reads say so, and none is a look
        page.evaluate("window.testHidden = true; document.dispatchEvent(new Event('visibilitychange'))")
        page.wait_for_timeout(500)   # a read begun while shown has landed
        n = len(reads)
        redis_client.hdel(live.key(gid), "seen:0")
        page.wait_for_timeout(1500)   # about five polls
        hidden = reads[n:]
        assert hidden and all(u.endswith("/state?hidden=true") for u in hidden), reads[n:]
        assert live.read(redis_client, gid, 0)["seen_at"] == 0, "no look from a background tab"
        # shown again: it reads at once, a look
        page.evaluate("window.testHidden = false; document.dispatchEvent(new Event('visibilitychange'))")
        page.wait_for_timeout(500)
        assert live.read(redis_client, gid, 0)["seen_at"] > 0
        assert reads[-1].endswith("/state"), reads[-3:]
