"""The generic game page (api/static/game.html): the page of a game without a page of its own.

It knows no game: it draws the board picture (GET /board.svg) in the page, lists the seat's legal
moves in words as buttons (GET /legal-moves), the history in words (GET /events) and the result,
with the game's title and score unit from the catalog. Here it is served for Carcassonne with its
own page taken away (``api.pages.GAME_PAGES`` without it): a game the page has never heard of.
The example game's end-to-end test (tests/test_example_game.py) opens it for Connect Four, a game
installed beside the platform. In headless Chromium against the app over real HTTP: a move played
by its button (checked over the API), the other seat's page following, the result after a
resignation, a phone-wide screen, no serious axe finding. TABLEPOST_SKIP_BROWSER=1 skips the
browser test."""
from __future__ import annotations

import pytest
import requests

from api import pages
from test_pages import _parse, _unlabelled
from tests.conftest import LiveServer, make_app

PHONE = {"width": 390, "height": 844}


@pytest.fixture()
def without_its_own_page(monkeypatch):
    """Carcassonne as a game without a page of its own (the page chosen when a game is opened)."""
    own = {k: v for k, v in pages.GAME_PAGES.items() if k != "carcassonne"}
    monkeypatch.setattr(pages, "GAME_PAGES", own)


def _create(http_post, game: str = "carcassonne", seed: str = "generic-page"):
    rv = http_post("/api/v1/games", json={"game": game, "seats": [{"name": "Ada"}, {"name": "Bob"}],
                                          "options": {"seed": seed}})
    assert rv.status_code == 201, rv.json
    return rv.json


def test_a_game_without_a_page_of_its_own_gets_the_generic_page(client, without_its_own_page):
    g = _create(client.post)
    rv = client.get(f"/play/{g['id']}")
    assert rv.status_code == 200 and rv.mimetype == "text/html"
    html = rv.get_data(as_text=True)
    assert 'id="board-wrap"' in html and 'src="/play/scripts/game-page.js"' in html
    assert 'src="/play/scripts/site.js"' in html, "the game pages' footer script (a seat link gone stale)"
    assert "Carcassonne" not in html and "carcassonne" not in html, "the page names no game"
    doc = _parse(html)
    assert doc.get("lang") == "en" and not _unlabelled(doc), _unlabelled(doc)
    assert g["seats"][0]["token"] not in html and "generic-page" not in html
    csp = rv.headers["Content-Security-Policy"]
    assert "script-src 'sha256-" in csp and "'unsafe-inline'" not in csp
    assert rv.headers["Referrer-Policy"] == "no-referrer"


def test_games_with_a_page_of_their_own_keep_it(client):
    for game, title in (("carcassonne", "<title>Carcassonne"), ("pillars", "<title>The Pillars")):
        html = client.get(f"/play/{_create(client.post, game)['id']}").get_data(as_text=True)
        assert title in html and 'id="unit"' not in html
    # the first game, whose page is play.html (its meta without a `game` field: the default)
    rv = client.post("/api/v1/games", json={"seats": [{"name": "Ada"}, {"name": "Bob"}]})
    html = client.get(f"/play/{rv.json['id']}").get_data(as_text=True)
    assert "game.html" not in html and 'id="unit"' not in html


def test_the_generic_page_in_a_browser(redis_server, browser, without_its_own_page):
    from axe_playwright_python.sync_playwright import Axe
    from playwright.sync_api import expect

    from tests.browser import require_browser, screenshot, wait_until
    require_browser()
    with LiveServer(make_app(redis_server.url)) as server:
        http = requests.Session()
        g = http.post(f"{server.url}/api/v1/games", timeout=10, json={
            "game": "carcassonne", "seats": [{"name": "Ada"}, {"name": "Bob"}],
            "options": {"seed": "generic-browser"}}).json()
        gid, tokens = g["id"], [s["token"] for s in g["seats"]]
        api = f"{server.url}/api/v1/games/{gid}"
        legal = http.get(f"{api}/legal-moves", timeout=10,
                         headers={"Authorization": f"Bearer {tokens[0]}"}).json()["moves"]
        errors: list[str] = []
        ada = browser.new_page(viewport=PHONE)
        ada.set_default_timeout(20_000)
        ada.on("pageerror", lambda e: errors.append(str(e)))
        ada.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
        ada.goto(f"{server.url}/play/{gid}#token={tokens[0]}")
        wait_until(ada, "Number(document.body.dataset.version || 0) > 0")
        expect(ada.locator("#title")).to_have_text("Carcassonne: Ada and Bob")   # from the catalog
        expect(ada.locator("#status")).to_contain_text("To move: Ada (you)")
        expect(ada.locator("#board-wrap svg")).to_have_count(1)
        assert ada.locator("#board-wrap svg").get_attribute("role") == "img"
        buttons = ada.locator("#moves button.move")
        expect(buttons).to_have_count(len(legal))
        assert ([buttons.nth(i).get_attribute("data-move") for i in range(len(legal))]
                == [m["move"] for m in legal])
        assert buttons.nth(0).locator(".words").inner_text() == legal[0]["description"]
        expect(ada.locator("#seats tr")).to_have_count(2)
        expect(ada.locator("#unit")).to_have_text("Points")
        # the page fits the phone: nothing wider than the screen
        assert ada.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        bob = browser.new_page(viewport={"width": 1200, "height": 900})
        bob.set_default_timeout(20_000)
        bob.goto(f"{server.url}/play/{gid}#token={tokens[1]}")
        expect(bob.locator("#hint")).to_contain_text("Not your turn: waiting for Ada")
        buttons.nth(0).click()
        expect(ada.locator("#hint")).to_contain_text("Not your turn: waiting for Bob")
        events = http.get(f"{api}/events", timeout=10).json()["events"]
        assert (events[-1]["seat"], events[-1]["move"]) == (0, legal[0]["move"])
        expect(bob.locator("#status")).to_contain_text("To move: Bob (you)")
        expect(bob.locator("#history li")).to_have_count(2)
        assert bob.locator("#history li").nth(1).inner_text() == events[-1]["text"]
        expect(bob.locator("#since-list li")).to_have_count(1)
        violations = [f"{v['id']}: {v['help']}" for v in Axe().run(ada).response["violations"]
                      if v["impact"] in ("serious", "critical")]
        assert not violations, violations
        screenshot(ada, "generic-game-page-phone.png")
        # Bob resigns: the game is over and the page says who won
        assert http.post(f"{api}/resign", timeout=10,
                         headers={"Authorization": f"Bearer {tokens[1]}"}).status_code == 200
        expect(ada.locator("#result")).to_have_text("Ada wins (you).")
        expect(ada.locator("#status")).to_have_text("Game over.")
        expect(ada.locator("#play")).to_be_hidden()   # no "Your turn" over the game's end
        expect(ada.locator("#fairness-box")).to_be_visible()
        screenshot(bob, "generic-game-page-over.png")
        assert not errors, errors
