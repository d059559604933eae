"""Issue 42, "Fast and steady": a game page does not move under its reader while the board, the
moves and the history arrive (Lighthouse's mobile run measured a layout shift of 0.62 on the
Tiletum page as the seat to act). Every game's page, as the seat to act and as a spectator, at a
phone's size, with the API's answers slowed down as on a mobile network: the cumulative layout
shift (the browser's own layout-shift entries) stays under 0.1, and the page still shows."""
from __future__ import annotations

import time

import pytest
import requests

import games
from tests.browser import require_browser
from tests.conftest import LiveServer, make_app

require_browser()

from playwright.sync_api import expect  # noqa: E402

OBSERVE = """window.__cls = 0;
new PerformanceObserver(list => {
  for (const e of list.getEntries()) if (!e.hadRecentInput) window.__cls += e.value;
}).observe({type: "layout-shift", buffered: true});"""


@pytest.fixture(scope="module")
def server(redis_server):
    with LiveServer(make_app(redis_server.url)) as live:
        yield live


@pytest.mark.parametrize("who", ["seat", "spectator"])
@pytest.mark.parametrize("name", sorted(games.GAMES))
def test_a_game_page_does_not_shift_as_it_loads(server, browser, name, who):
    g = requests.post(f"{server.url}/api/v1/games", timeout=10,
                      json={"game": name, "seats": [{"name": "Ann"}, {"name": "Bob"}]}).json()
    s = requests.get(f"{server.url}/api/v1/games/{g['id']}", timeout=10).json()
    frag = f"#token={g['seats'][s['to_act'][0]]['token']}" if who == "seat" else ""
    ctx = browser.new_context(viewport={"width": 412, "height": 823}, device_scale_factor=2, is_mobile=True)
    try:
        page = ctx.new_page()

        def slow(route):   # each API answer a little late, as on a phone's network
            time.sleep(0.3)
            route.continue_()
        page.route("**/api/v1/**", slow)
        page.add_init_script(OBSERVE)
        page.goto(f"{server.url}/play/{g['id']}{frag}")
        expect(page.locator("main#main")).to_be_visible(timeout=20_000)
        expect(page.locator("main#main")).not_to_have_attribute("aria-busy", "true", timeout=20_000)
        page.wait_for_timeout(1500)   # what arrives after the first drawing
        cls = page.evaluate("window.__cls")
        assert cls < 0.1, f"layout shift {cls:.3f}"
        if who == "seat":
            expect(page.locator("[data-move], .fit-cell").first).to_be_attached()
    finally:
        ctx.close()
