"""The game pages' replay and resign (issue 41) in headless Chromium against the app over real
HTTP: each title's page steps through the game with the buttons, the slider and the arrow keys,
opens at a step from a link (#v=N, no token in it) and comes back to the game as it stands; the
page draws the position of the step (its board picture asked for that version); a seat resigns
only after confirming, and then may ask for a rematch. TABLEPOST_SKIP_BROWSER=1 (or no Chromium)
skips it, like tests/test_browser.py. axe finds nothing serious in the replay or the confirmation."""
from __future__ import annotations

import pytest

from application import links
from carcassonne.playout import random_game as carcassonne_game
from pillars.playout import random_game as pillars_game
from tests.browser import screenshot, wait_until
from tests.conftest import LiveServer, make_app
from tiletum.playout import random_game as tiletum_game

API = "/api/v1/games"
PLAYOUTS = {"tiletum": tiletum_game, "carcassonne": carcassonne_game, "pillars": pillars_game}


def _serious(page) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe
    results = Axe().run(page)
    return [f"{v['id']}: {v['help']} ({len(v['nodes'])}x: {v['nodes'][0]['target']})"
            for v in results.response["violations"] if v["impact"] in ("serious", "critical")]


def _game(c, game: str, moves: int) -> tuple[str, list[str]]:
    seed = f"replay-page-{game}"
    rv = c.post(API, json={"game": game, "seats": [{"name": "Ada"}, {"name": "Bob"}],
                           "options": {"seed": seed}})
    assert rv.status_code == 201, rv.json
    gid, tokens = rv.json["id"], [s["token"] for s in rv.json["seats"]]
    for v, ev in enumerate(PLAYOUTS[game](2, seed).events[1:moves + 1], start=1):
        rv = c.post(f"{API}/{gid}/moves", headers={"Authorization": f"Bearer {tokens[ev['seat']]}"},
                    json={"expected_version": v, "moves": [ev["move"]]})
        assert rv.status_code == 200, rv.json
    return gid, tokens


@pytest.mark.parametrize("game", ["tiletum", "carcassonne", "pillars"])
def test_the_page_steps_through_the_game(redis_server, browser, game):
    from playwright.sync_api import expect
    app = make_app(redis_server.url, RATE_LIMIT=0)
    c = app.test_client()
    gid, tokens = _game(c, game, 6)
    with LiveServer(app) as server:
        errors: list[str] = []
        page = browser.new_page(viewport={"width": 390, "height": 844})   # a phone first
        page.set_default_timeout(20_000)
        page.on("pageerror", lambda e: errors.append(str(e)))
        boards: list[str] = []
        page.on("request", lambda r: boards.append(r.url) if "/board.svg" in r.url else None)
        page.goto(f"{server.url}/play/{gid}#token={tokens[0]}&stream=0")
        wait_until(page, "document.body.dataset.version === '7'")
        expect(page.locator("#replay-at")).to_contain_text("Step 7 of 7 (now)")
        expect(page.locator("#replay-live")).to_be_disabled()
        # the arrow key steps back; the page draws that step (its board at that version)
        page.locator("h1").click()
        page.keyboard.press("ArrowLeft")
        wait_until(page, "document.body.dataset.version === '6'")
        assert page.evaluate("document.body.classList.contains('replaying')")
        assert any("version=6" in u for u in boards), boards
        expect(page.locator("#replay-at")).to_contain_text("Step 6 of 7")
        shown = page.evaluate("state")
        assert shown == c.get(f"{API}/{gid}/state?version=6",
                              headers={"Authorization": f"Bearer {tokens[0]}"}).json
        # the first step, the next one, the slider
        page.locator("#replay-first").click()
        wait_until(page, "document.body.dataset.version === '1'")
        expect(page.locator("#replay-prev")).to_be_disabled()
        page.locator("#replay-next").click()
        wait_until(page, "document.body.dataset.version === '2'")
        page.locator("#replay-slider").fill("4")
        page.locator("#replay-slider").dispatch_event("change")
        wait_until(page, "document.body.dataset.version === '4'")
        link = page.locator("#replay-link").get_attribute("href")
        assert link == f"/play/{gid}#v=4" and tokens[0] not in link, "the step's link carries no token"
        screenshot(page, f"replay-{game}.png")
        assert not _serious(page), _serious(page)   # axe, in the replay, on a phone-wide screen
        # back to the game as it stands
        page.locator("#replay-live").click()
        wait_until(page, "document.body.dataset.version === '7'"
                         " && !document.body.classList.contains('replaying')")
        # a link to a step opens the replay there, for a spectator too
        other = browser.new_page()
        other.goto(f"{server.url}/play/{gid}#v=3")
        wait_until(other, "document.body.dataset.version === '3'")
        expect(other.locator("#replay-at")).to_contain_text("Step 3 of 7")
        assert other.evaluate("state.viewer") is None
        expect(other.locator("#table-actions")).to_have_count(0)   # a spectator resigns nothing
        assert not errors, errors


def test_a_seat_resigns_only_after_confirming_and_may_then_ask_for_a_rematch(redis_server, browser):
    from playwright.sync_api import expect
    app = make_app(redis_server.url, RATE_LIMIT=0)
    c = app.test_client()
    gid, tokens = _game(c, "carcassonne", 2)
    with LiveServer(app) as server:
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.set_default_timeout(20_000)
        page.goto(f"{server.url}/play/{gid}#token={tokens[1]}&stream=0")
        wait_until(page, "document.body.dataset.version === '3'")
        page.get_by_role("button", name="Resign…").click()
        dialog = page.get_by_role("alertdialog")
        expect(dialog).to_be_visible()
        expect(dialog).to_contain_text("You cannot take it back")
        page.get_by_role("button", name="Keep playing").click()
        expect(dialog).to_be_hidden()
        assert c.get(f"{API}/{gid}").json["status"] == "active", "nothing happened without confirming"
        page.get_by_role("button", name="Resign…").click()
        screenshot(page, "resign-confirm.png")
        assert not _serious(page), _serious(page)
        page.get_by_role("button", name="Yes, resign").click()
        expect(page.locator("#table-status")).to_have_text("You resigned.")
        summary = c.get(f"{API}/{gid}").json
        assert summary["status"] == "finished" and summary["winner"] == 0
        expect(page.get_by_role("button", name="Resign…")).to_be_hidden()
        page.get_by_role("button", name="Play again").click()
        expect(page.locator("#table-status")).to_have_text("Rematch asked for: waiting for Ada.")
        # Ada opens her results email's link (her seat's link token, &rematch=1): the page is at the
        # button, and her click starts the rematch; the new game's link carries no token of the old
        ada_link = links.seat_token(app.extensions["tablepost.service"].store.r, gid, 0)
        ada = browser.new_page(viewport={"width": 390, "height": 844})
        ada.goto(f"{server.url}/play/{gid}#token={ada_link}&rematch=1")
        expect(ada.get_by_role("button", name="Play again")).to_be_focused()
        expect(ada.locator("#table-status")).to_have_text("Rematch asked for: waiting for Ada.")
        ada.get_by_role("button", name="Play again").click()
        # the page answers once the server has started the game (then the API says so too)
        expect(ada.get_by_role("link", name="Open the new game")).to_be_visible()
        new = c.get(f"{API}/{gid}/rematch").json["new_game"]
        assert new, "everyone accepted: the rematch started"
        expect(ada.get_by_role("link", name="Open the new game")).to_have_attribute("href", f"/play/{new}")
        # Bob's page, asked again, links the new game with his seat token (his token in the new game)
        page.get_by_role("button", name="Play again").click()
        link = page.get_by_role("link", name="Open the new game")
        expect(link).to_have_attribute("href", f"/play/{new}#token={tokens[1]}")
