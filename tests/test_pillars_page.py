"""The Pillars of the Earth's game page: /play/<id> of a Pillars game is Pillars' page (valid HTML5,
labelled controls, the same for every game: no seed, no token), and in headless Chromium against
the app over real HTTP a game created on /play/new shows the board picture in the page and the
seat's legal moves as buttons; a click plays one (checked over the API) and the other seat's page
follows; in phase II a master builder is placed by clicking its field (or its card's spot) on the
board.
TILETUM_SKIP_BROWSER=1 (or no Chromium) skips the browser test, like tests/test_browser.py."""
from __future__ import annotations

import os
from urllib.parse import unquote

import pytest
import requests
from test_pages import _parse, _unlabelled

from tests.conftest import LiveServer, make_app


def _create(client, seed: str) -> dict:
    rv = client.post("/api/v1/games", json={"game": "pillars", "seats": [{"name": "Ada"}, {"name": "Bob"}],
                                            "options": {"seed": seed}})
    assert rv.status_code == 201, rv.json
    return rv.json


def test_the_page_of_a_pillars_game_is_its_own_valid_and_the_same_for_every_game(client):
    g = _create(client, "page-pillars")
    rv = client.get(f"/play/{g['id']}")
    assert rv.status_code == 200 and rv.mimetype == "text/html"
    html = rv.get_data(as_text=True)
    assert "<title>The Pillars of the Earth</title>" in html and 'src="/play/scripts/game-page.js"' in html
    doc = _parse(html)
    assert doc.get("lang") == "en" and not _unlabelled(doc), _unlabelled(doc)
    assert g["id"] not in html and "page-pillars" not in html and g["seats"][0]["token"] not in html
    assert client.get(f"/play/{_create(client, 'page-pillars-2')['id']}").get_data(as_text=True) == html
    csp = rv.headers["Content-Security-Policy"]
    assert "script-src 'sha256-" in csp and "'unsafe-inline'" not in csp


def _browser_ready() -> str | None:
    if os.environ.get("TILETUM_SKIP_BROWSER") == "1":
        return "TILETUM_SKIP_BROWSER=1"
    if not os.access("/usr/bin/chromium", os.X_OK):
        return "no /usr/bin/chromium"
    return None


@pytest.mark.skipif(_browser_ready() is not None, reason=str(_browser_ready()))
def test_the_board_and_the_legal_moves_as_buttons_in_a_browser(redis_server):
    from playwright.sync_api import expect, sync_playwright

    from tests.browser import launch, screenshot
    app = make_app(redis_server.url)
    with LiveServer(app) as server, sync_playwright() as p:
        http = requests.Session()
        browser = launch(p)
        try:
            errors: list[str] = []
            ada = browser.new_page(viewport={"width": 1200, "height": 900})
            ada.set_default_timeout(20_000)
            ada.on("pageerror", lambda e: errors.append(str(e)))
            ada.on("console",
                   lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
            # --- the game created on /play/new ---------------------------------------------------
            ada.goto(server.url + "/play/new")
            ada.get_by_label("The Pillars of the Earth").check()
            expect(ada.locator("#heading")).to_have_text("New Pillars of the Earth game")
            expect(ada.get_by_label("Solo against the Cardinalbot")).to_be_hidden()
            expect(ada.get_by_label("Player 5 name")).to_be_hidden()
            ada.get_by_label("Player 1 name").fill("Ada")
            ada.get_by_label("Player 2 name").fill("Bob")
            ada.locator("summary").click()
            ada.get_by_label("Seed").fill("pillars-browser")
            ada.get_by_role("button", name="Create the game").click()
            links = ada.locator("input.seat-link")
            expect(links).to_have_count(2)
            ada_url, bob_url = links.nth(0).input_value(), links.nth(1).input_value()
            gid = ada_url.split("/play/")[1].split("#")[0]
            ada_token = unquote(ada_url.split("#token=")[1])
            summary = http.get(f"{server.url}/api/v1/games/{gid}", timeout=10).json()
            assert summary["game"] == "pillars" and [s["name"] for s in summary["seats"]] == ["Ada", "Bob"]
            legal = http.get(f"{server.url}/api/v1/games/{gid}/legal-moves", timeout=10,
                             headers={"Authorization": f"Bearer {ada_token}"}).json()["moves"]
            bob = browser.new_page(viewport={"width": 900, "height": 800})
            bob.set_default_timeout(20_000)
            bob.goto(bob_url + "&poll=600")   # follows by the stream
            expect(bob.locator("#hint")).to_contain_text("Not your turn: waiting for Ada")
            ada.goto(ada_url)
            expect(ada.locator("#status")).to_contain_text("Round 1 of 6. To decide: Ada (you)")
            expect(ada.locator("#board-wrap svg g.field")).to_have_count(8)
            expect(ada.locator("#board-wrap svg g.player")).to_have_count(2)
            buttons = ada.locator("#moves button.move")
            expect(buttons).to_have_count(len(legal))
            assert ([buttons.nth(i).get_attribute("data-move") for i in range(len(legal))]
                    == [m["move"] for m in legal])
            expect(ada.locator("#seats tr").nth(0).locator("td.gold")).to_have_text("20")
            move = next(m for m in legal if m["move"].startswith("take "))
            ada.locator(f'#moves button[data-move="{move["move"]}"]').click()
            expect(ada.locator("#hint")).to_contain_text("Not your turn: waiting for Bob")
            summary = http.get(f"{server.url}/api/v1/games/{gid}", timeout=10).json()
            assert summary["version"] == 2 and summary["to_act"] == [1]
            expect(bob.locator("#status")).to_contain_text("To decide: Bob (you)")
            expect(bob.locator("#history li")).to_have_count(2)
            expect(bob.locator("#moves button.move").first).to_be_visible()
            screenshot(ada, "pillars-page.png")
            assert not errors, errors
        finally:
            browser.close()


@pytest.mark.skipif(_browser_ready() is not None, reason=str(_browser_ready()))
def test_a_master_builder_is_placed_by_clicking_its_field_on_the_board(redis_server):
    """In phase II the drawn master builder's places are highlighted on the board: the fields, and
    at Kingsbridge and Shiring the spot of each card; a click, or Enter, places it there."""
    from playwright.sync_api import expect, sync_playwright

    from tests.browser import launch
    app = make_app(redis_server.url)
    with LiveServer(app) as server, sync_playwright() as p:
        http = requests.Session()
        g = http.post(f"{server.url}/api/v1/games", timeout=10, json={
            "game": "pillars", "seats": [{"name": "Ada"}, {"name": "Bob"}],
            "options": {"seed": "twin-56"}}).json()
        gid, tokens = g["id"], [s["token"] for s in g["seats"]]
        api = f"{server.url}/api/v1/games/{gid}"
        for seat, move in ((0, "pass"), (1, "pass"), (0, "keep")):   # phase I passed; Bob's builder drawn
            version = http.get(api, timeout=10).json()["version"]
            rv = http.post(f"{api}/moves", timeout=10, headers={"Authorization": f"Bearer {tokens[seat]}"},
                           json={"expected_version": version, "moves": [move]})
            assert rv.status_code == 200, rv.text
        summary = http.get(api, timeout=10).json()
        assert summary["to_act"] == [1] and summary["phase"] == "builders"
        legal = http.get(f"{api}/legal-moves", timeout=10,
                         headers={"Authorization": f"Bearer {tokens[1]}"}).json()["moves"]
        places = [m["move"] for m in legal if m["move"].startswith("place ")]
        browser = launch(p)
        try:
            bob = browser.new_page(viewport={"width": 1200, "height": 900})
            bob.set_default_timeout(20_000)
            errors: list[str] = []
            bob.on("pageerror", lambda e: errors.append(str(e)))
            bob.goto(f"{server.url}/play/{gid}#token={tokens[1]}")
            expect(bob.locator("#hint")).to_contain_text("Click a highlighted field")
            marked = bob.locator("#board-wrap .can-place")
            expect(marked).to_have_count(len(places))
            shown = sorted(marked.nth(i).get_attribute("data-move") for i in range(len(places)))
            assert shown == sorted(places)
            shiring = next(m for m in places if m.startswith("place shiring "))
            spot = bob.locator(f'#board-wrap g[data-move="{shiring}"]')
            assert spot.get_attribute("data-spot") is not None, "a card's own spot, not the whole field"
            from tests.browser import screenshot
            screenshot(bob, "pillars-page-placing.png")
            bob.locator('#board-wrap g.field[data-field="priory"]').click()
            expect(bob.locator("#history li")).to_have_count(5)
            events = http.get(f"{api}/events", timeout=10).json()["events"]
            assert (events[-1]["seat"], events[-1]["move"]) == (1, "place priory")
            # the next master builder drawn: its owner places it from the keyboard (Enter)
            summary = http.get(api, timeout=10).json()
            seat = summary["to_act"][0]
            moves = [m["move"] for m in http.get(f"{api}/legal-moves", timeout=10, headers={
                "Authorization": f"Bearer {tokens[seat]}"}).json()["moves"]]
            if "keep" in moves:   # another's builder drawn: the start player lets it stay first
                rv = http.post(f"{api}/moves", timeout=10,
                               headers={"Authorization": f"Bearer {tokens[seat]}"},
                               json={"expected_version": summary["version"], "moves": ["keep"]})
                assert rv.status_code == 200, rv.text
                seat = http.get(api, timeout=10).json()["to_act"][0]
            page = bob if seat == 1 else browser.new_page(viewport={"width": 1200, "height": 900})
            if seat == 0:
                page.goto(f"{server.url}/play/{gid}#token={tokens[0]}")
            expect(page.locator("#board-wrap .can-place").first).to_be_visible()
            target = page.locator("#board-wrap .can-place").last
            move = target.get_attribute("data-move")
            so_far = len(http.get(f"{api}/events", timeout=10).json()["events"])
            target.focus()
            page.keyboard.press("Enter")
            expect(page.locator("#history li")).to_have_count(so_far + 1)
            events = http.get(f"{api}/events", timeout=10).json()["events"]
            assert (events[-1]["seat"], events[-1]["move"]) == (seat, move)
            assert not errors, errors
        finally:
            browser.close()
