"""The Carcassonne game page in headless Chromium (Debian's, tests/browser.py; nothing downloads a
browser) against the app over real HTTP and a real Redis: a 2-player game created on /play/new,
the first seat places its tile by clicking a highlighted cell on the board (again to turn it) and
then a follower spot on the tile; the move lands (checked over the API) and the second seat's
page, open all along, follows by the event stream. A typed illegal move (the server's reason, in
words) and a stale one made by keyboard on a page that does not follow the game are shown, and the page reads
the game again. TABLEPOST_SKIP_BROWSER=1 skips it, like tests/test_browser.py."""
from __future__ import annotations

import random
import re
from urllib.parse import unquote

import requests

from tests.browser import require_browser, screenshot, wait_until
from tests.conftest import LiveServer, make_app

require_browser()

from playwright.sync_api import expect  # noqa: E402

WAIT_MS = 20_000
PLACE = re.compile(r"^place (-?\d+),(-?\d+) r(\d+)(?: (\w+)(?: (\w+))?)?$")


def _rendered(page) -> int:
    return int(page.locator("body").get_attribute("data-version") or 0)


def test_place_a_tile_and_a_follower_by_clicking_and_the_other_seat_sees_it(redis_server, browser):
    app = make_app(redis_server.url)
    with LiveServer(app) as server:
        ada = browser.new_page(viewport={"width": 1200, "height": 900})
        ada.set_default_timeout(WAIT_MS)
        errors: list[str] = []
        ada.on("pageerror", lambda e: errors.append(str(e)))
        ada.on("console",
               lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
        ada.on("response", lambda r: errors.append(f"{r.status} {r.url}")  # a missing part, a failure
               if r.status in (404, 500) and not r.url.endswith("/favicon.ico") else None)

        # --- create the game on /play/new ---------------------------------------------------
        ada.goto(server.url + "/play/new")
        ada.get_by_label("Carcassonne").check()
        expect(ada.locator("#heading")).to_have_text("New Carcassonne game")
        expect(ada.get_by_label("Solo against the Cardinalbot")).to_be_hidden()
        expect(ada.get_by_label("Player 5 name")).to_be_visible()
        ada.get_by_label("Player 1 name").fill("Ada")
        ada.get_by_label("Player 2 name").fill("Bob")
        ada.locator("summary").click()
        ada.get_by_label("Seed").fill("browser-carcassonne")
        ada.get_by_role("button", name="Create the game").click()
        links = ada.locator("input.seat-link")
        expect(links).to_have_count(2)
        ada_url, bob_url = links.nth(0).input_value(), links.nth(1).input_value()
        gid = re.fullmatch(re.escape(server.url) + r"/play/([A-Za-z0-9]+)#token=[^&?]+", ada_url).group(1)
        summary = requests.get(f"{server.url}/api/v1/games/{gid}", timeout=10).json()
        assert (summary["game"] == "carcassonne"
                and [s["name"] for s in summary["seats"]] == ["Ada", "Bob"])
        ada_token = ada_url.split("#token=")[1]
        auth = {"Authorization": f"Bearer {unquote(ada_token)}"}

        # --- Bob's page follows the game; Ada's page shows her tile and where it fits ---------
        bob = browser.new_page(viewport={"width": 900, "height": 800})
        bob.set_default_timeout(WAIT_MS)
        bob.goto(bob_url + "&poll=600")  # no polling to speak of: it follows by the stream
        expect(bob.locator("#hint")).to_contain_text("Not your turn: waiting for Ada")
        ada.goto(ada_url)
        expect(ada.locator("#status")).to_contain_text("To play: Ada (you)")
        expect(ada.locator("#attribution")).to_contain_text("JCloisterZone")
        expect(ada.locator("#seats tr")).to_have_count(2)
        expect(ada.locator("#seats tr").nth(0).locator("td.supply")).to_have_text("7")
        legal = requests.get(f"{server.url}/api/v1/games/{gid}/legal-moves", headers=auth,
                             timeout=10).json()
        fits: dict[str, dict[int, list[str]]] = {}
        for m in legal["moves"]:
            x, y, rot, _, _ = PLACE.match(m["move"]).groups()
            fits.setdefault(f"{x},{y}", {}).setdefault(int(rot), []).append(m["move"])
        cells = ada.locator("#board-wrap svg rect.fit-cell")
        expect(cells).to_have_count(len(fits))
        assert sorted(cells.evaluate_all("els => els.map(e => e.dataset.cell)")) == sorted(fits)
        wait_until(ada, "Number(document.body.dataset.version || 0) > 0", timeout=WAIT_MS)
        assert ada.evaluate("document.querySelector('#tile-' + document.querySelector('#hand-use')"
                            ".getAttribute('href').slice(6)) !== null"), "the tile in hand is drawn"
        version = _rendered(ada)

        # --- a move the rules refuse (typed) is shown with the server's reason; nothing changes --
        ada.locator("#move-input").fill("place 40,40 r0")
        ada.get_by_role("button", name="Play", exact=True).click()
        expect(ada.locator("#error")).not_to_be_empty()
        assert "422" not in ada.locator("#error").inner_text()
        assert requests.get(f"{server.url}/api/v1/games/{gid}", timeout=10).json()["version"] == version
        expect(ada.locator("#board-wrap svg rect.fit-cell")).to_have_count(len(fits))

        # --- click a highlighted cell (one where a follower can go, and turns if it can) -----
        key = max(fits, key=lambda k: (len(fits[k]), sum(len(v) for v in fits[k].values())))
        rots = sorted(fits[key])
        cell = ada.locator(f'#board-wrap rect.fit-cell[data-cell="{key}"]')
        cell.click()
        kx, ky = (int(v) for v in key.split(","))
        where = " and ".join(([f"{abs(kx)} {'east' if kx > 0 else 'west'}"] if kx else [])
                             + ([f"{abs(ky)} {'north' if ky > 0 else 'south'}"] if ky else []))
        where += " of the start tile"
        expect(ada.locator("#placement-text")).to_contain_text(f"{where}, turned {rots[0]}°")
        expect(ada.locator("#placement-text code.notation")).to_have_text(f"place {key} r{rots[0]}")
        rot = rots[0]
        if len(rots) > 1:  # a click on the tile shown there turns it to the next rotation that fits
            ada.locator("#preview use.preview").click()
            rot = rots[1]
            expect(ada.locator("#placement-text")).to_contain_text(f"{where}, turned {rot}°")
        offered = sorted(
            ada.locator("#followers button.move").evaluate_all("els => els.map(e => e.dataset.move)"))
        assert offered == sorted(fits[key][rot]), ("the follower choices are the legal moves of that "
                                                   "placement")
        spots = ada.locator("#preview circle.spot")
        expect(spots).to_have_count(len([m for m in fits[key][rot] if PLACE.match(m).group(4)]))
        assert spots.count() >= 1
        screenshot(ada, "carcassonne-choosing.png")
        chosen = spots.first.get_attribute("data-move")
        spots.first.click()

        # --- the move landed, and both pages show it -----------------------------------------
        wait_until(ada, f"Number(document.body.dataset.version || 0) > {version}", timeout=WAIT_MS)
        events = requests.get(f"{server.url}/api/v1/games/{gid}/events", timeout=10).json()["events"]
        assert (events[-1]["move"] == chosen and events[-1]["seat"] == 0
                and events[-1]["version"] == version + 1)
        state = requests.get(f"{server.url}/api/v1/games/{gid}/state", timeout=10).json()
        assert state["to_act"] == [1] and state["supply"][0] == 6 and len(state["board"]) == 2
        expect(ada.locator("#hint")).to_contain_text("Not your turn: waiting for Bob")
        expect(ada.locator("#seats tr").nth(0).locator("td.supply")).to_have_text("6")
        wait_until(bob, f"Number(document.body.dataset.version || 0) > {version}", timeout=WAIT_MS)
        expect(bob.locator("#status")).to_contain_text("To play: Bob (you)")
        expect(bob.locator("#history li").last).to_contain_text("Ada placed a tile with")
        expect(bob.locator("#board-wrap svg g.tile")).to_have_count(2)
        expect(bob.locator("#board-wrap svg g.follower")).to_have_count(1)
        expect(bob.locator("#board-wrap svg rect.fit-cell").first).to_be_visible()
        screenshot(bob, "carcassonne-other-seat.png")

        # --- a stale page (no stream, no polling) sends a move at an old version: 409 shown, ----
        # --- and the page reads the game again --------------------------------------------------
        stale = browser.new_page(viewport={"width": 900, "height": 800})
        stale.set_default_timeout(WAIT_MS)
        stale.goto(bob_url + "&stream=0&poll=600")
        wait_until(stale, "Number(document.body.dataset.version || 0) > 0", timeout=WAIT_MS)
        at = _rendered(stale)
        expect(stale.locator("#board-wrap svg rect.fit-cell").first).to_be_visible()
        bob_auth = {"Authorization": f"Bearer {unquote(bob_url.split('#token=')[1])}"}
        move = requests.get(f"{server.url}/api/v1/games/{gid}/legal-moves", headers=bob_auth,
                            timeout=10).json()["moves"][0]["move"]
        r = requests.post(f"{server.url}/api/v1/games/{gid}/moves", headers=bob_auth, timeout=10,
                          json={"expected_version": at, "moves": [move]})
        assert r.status_code == 200, r.text
        # by keyboard this time: the list of cells opened, a cell's button, Enter; the first follower
        # choice has the focus
        stale.locator("#cell-list summary").focus()
        stale.keyboard.press("Enter")
        stale.locator("#cells button").first.focus()
        stale.keyboard.press("Enter")
        expect(stale.locator("#followers button.move").first).to_be_focused()
        stale.keyboard.press("Enter")
        expect(stale.locator("#error")).to_contain_text("The game moved on meanwhile")
        wait_until(stale, f"Number(document.body.dataset.version || 0) > {at}", timeout=WAIT_MS)
        expect(stale.locator("#hint")).to_contain_text("waiting for Ada")
        assert requests.get(f"{server.url}/api/v1/games/{gid}", timeout=10).json()["version"] == at + 1
        expect(ada.locator("#status")).to_contain_text("To play: Ada (you)")  # by the stream
        assert not errors, errors


def test_a_spectator_follows_a_whole_game_to_its_end_and_sees_the_seed_only_then(redis_server, browser):
    app = make_app(redis_server.url)
    client = app.test_client()
    seed = "browser-carcassonne-end"
    g = client.post("/api/v1/games", json={"game": "carcassonne", "seats": [{"name": "Ada"}, {"name": "Bob"}],
                                           "options": {"seed": seed}}).get_json()
    tokens = [s["token"] for s in g["seats"]]
    with LiveServer(app) as server:
        page = browser.new_page(viewport={"width": 1000, "height": 800})
        page.set_default_timeout(WAIT_MS)
        page.goto(f"{server.url}/play/{g['id']}")
        wait_until(page, "Number(document.body.dataset.version || 0) > 0", timeout=WAIT_MS)
        expect(page.locator("#play")).to_be_hidden()  # no token: nothing to play
        expect(page.locator("#board-wrap svg rect.fit-cell")).to_have_count(0)
        moves, rng = 0, random.Random(seed)
        while True:  # a random legal move each turn, over the API, while the page follows
            summary = client.get(f"/api/v1/games/{g['id']}").get_json()
            if summary["status"] == "finished":
                break
            auth = {"Authorization": f"Bearer {tokens[summary['to_act'][0]]}"}
            legal = client.get(f"/api/v1/games/{g['id']}/legal-moves", headers=auth).get_json()
            rv = client.post(f"/api/v1/games/{g['id']}/moves", headers=auth,
                             json={"expected_version": legal["version"],
                                   "moves": [rng.choice(legal["moves"])["move"]]})
            assert rv.status_code == 200, rv.get_json()
            moves += 1
            if moves == 10:
                assert seed not in page.content(), "the seed is not on the page before the end"
        final = client.get(f"/api/v1/games/{g['id']}/state").get_json()
        wait_until(page, f"Number(document.body.dataset.version || 0) === {final['version']}",
                   timeout=WAIT_MS)
        expect(page.locator("#status")).to_contain_text("Game over.")
        expect(page.locator("#result")).to_contain_text("Final scoring: Ada road")
        winners = " and ".join(["Ada", "Bob"][w] for w in final["winners"])
        expect(page.locator("#result")).to_contain_text(winners)
        for seat in (0, 1):
            expect(page.locator("#seats tr").nth(seat).locator("td.score")).to_have_text(
                str(final["scores"][seat]))
        assert max(final["scores"]) > 0
        expect(page.locator("#hand-text")).to_have_text("No tile: the game is over.")
        expect(page.locator("#board-wrap svg g.follower")).to_have_count(len(final["followers"]))
        expect(page.locator("#board-wrap svg g.tile")).to_have_count(len(final["board"]))
        expect(page.locator("#seed")).to_have_text(seed)
        expect(page.locator("#fair-ok")).to_contain_text(
            "Checked: the secret revealed now is the one locked in")
        expect(page.locator("#history li")).to_have_count(final["version"])
        screenshot(page, "carcassonne-end.png")
        page.set_viewport_size({"width": 380, "height": 800})
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), "fits a phone"
        screenshot(page, "carcassonne-end-phone.png")


def test_an_ai_seat_is_named_as_the_ai_on_the_page(redis_server, browser):
    """The shared page script names an AI seat 'Robo (AI, hard)' (docs/ai.md), on Carcassonne's
    page too; the person's page loads with no error (the shared script allowed by the CSP)."""
    app = make_app(redis_server.url)
    with LiveServer(app) as server:
        created = requests.post(f"{server.url}/api/v1/games", timeout=10, json={
            "game": "carcassonne",
            "seats": [{"name": "Ada"}, {"name": "Robo", "kind": "ai", "level": "hard"}]}).json()
        page = browser.new_page()
        page.set_default_timeout(WAIT_MS)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console",
                lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
        page.goto(f"{server.url}/play/{created['id']}#token={created['seats'][0]['token']}")
        expect(page.locator("#seats")).to_contain_text("Robo (AI, hard)")
        expect(page.locator("#seats")).to_contain_text("Ada")
        assert errors == []
