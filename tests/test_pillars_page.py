"""The Pillars of the Earth's game page: /play/<id> of a Pillars game is Pillars' page (valid HTML5,
labelled controls, the same for every game: no seed, no token), and in headless Chromium against
the app over real HTTP a game created on /play/new shows the board picture in the page and the
seat's legal moves as buttons; a click plays one (checked over the API) and the other seat's page
follows; in phase II a master builder is placed by clicking its field (or its card's spot) on the
board; every other kind of move is chosen on the board too: a card of the pool (with the choice of
its payments), the pool to pass, the drawn master builder, the market's cubes, the Cathedral's
craftsmen, by mouse, by keyboard only, and on a phone-wide screen, with no serious axe finding.
TABLEPOST_SKIP_BROWSER=1 (or no Chromium) skips the browser test, like tests/test_browser.py."""
from __future__ import annotations

import time
from urllib.parse import unquote

import requests

from pillars.describe import short_card
from test_pages import _parse, _unlabelled

from tests.conftest import LiveServer, make_app
from tests.servers import wait_for


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


def test_the_board_and_the_legal_moves_as_buttons_in_a_browser(redis_server, browser):
    from playwright.sync_api import expect

    from tests.browser import screenshot
    app = make_app(redis_server.url)
    with LiveServer(app) as server:
        http = requests.Session()
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


def test_a_master_builder_is_placed_by_clicking_its_field_on_the_board(redis_server, browser):
    """In phase II the drawn master builder's places are highlighted on the board: the fields, and
    at Kingsbridge and Shiring the spot of each card; a click, or Enter, places it there."""
    from playwright.sync_api import expect

    app = make_app(redis_server.url)
    with LiveServer(app) as server:
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
        bob = browser.new_page(viewport={"width": 1200, "height": 900})
        bob.set_default_timeout(20_000)
        errors: list[str] = []
        bob.on("pageerror", lambda e: errors.append(str(e)))
        bob.goto(f"{server.url}/play/{gid}#token={tokens[1]}")
        expect(bob.locator("#hint")).to_contain_text("Click (or tab to) a highlighted part")
        marked = bob.locator('#board-wrap .can[data-move^="place "]')
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
        expect(page.locator('#board-wrap .can[data-move^="place "]').first).to_be_visible()
        target = page.locator('#board-wrap .can[data-move^="place "]').last
        move = target.get_attribute("data-move")
        so_far = len(http.get(f"{api}/events", timeout=10).json()["events"])
        target.focus()
        page.keyboard.press("Enter")
        expect(page.locator("#history li")).to_have_count(so_far + 1)
        events = http.get(f"{api}/events", timeout=10).json()["events"]
        assert (events[-1]["seat"], events[-1]["move"]) == (seat, move)
        assert not errors, errors


def _pillars_game(http, url: str, seed: str, players: int = 2) -> tuple[str, list[str]]:
    names = ["Ada", "Bob", "Cy", "Dee"][:players]
    g = http.post(f"{url}/api/v1/games", timeout=10, json={
        "game": "pillars", "seats": [{"name": n} for n in names], "options": {"seed": seed}}).json()
    return g["id"], [s["token"] for s in g["seats"]]


def _turn(http, api: str, tokens: list[str]) -> tuple[int, int, list[str]]:
    """The seat to act, the version and its legal moves."""
    summary = http.get(api, timeout=10).json()
    seat = summary["to_act"][0]
    legal = http.get(f"{api}/legal-moves", timeout=10,
                     headers={"Authorization": f"Bearer {tokens[seat]}"}).json()
    return seat, legal["version"], [m["move"] for m in legal["moves"]]


def _drive(http, api: str, tokens: list[str], until, prefer=(), limit: int = 400) -> tuple[int, list[str]]:
    """Play over the API, first of the moves starting with one of ``prefer`` else the first listed
    but not a pass where there is another, until ``until(moves)`` holds for the seat to act."""
    for _ in range(limit):
        seat, version, moves = _turn(http, api, tokens)
        if until(moves):
            return seat, moves
        pick = next((m for p in prefer for m in moves if m.startswith(p)), None)
        pick = pick or next((m for m in moves if m not in ("pass", "redraw")), moves[0])
        rv = http.post(f"{api}/moves", timeout=10, headers={"Authorization": f"Bearer {tokens[seat]}"},
                       json={"expected_version": version, "moves": [pick]})
        assert rv.status_code == 200, rv.text
    raise AssertionError("the position asked for was not reached")


def _last_move(http, api: str) -> tuple[int, str]:
    e = [e for e in http.get(f"{api}/events", timeout=10).json()["events"] if e["type"] == "MovePlayed"][-1]
    return e["seat"], e["move"]


# every move offered on the board (each highlighted part's moves)
ON_BOARD = """() => [...document.querySelectorAll('#board-wrap .can')]
                .flatMap(el => el.dataset.moves.split('|'))"""


def _serious(page) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe
    results = Axe().run(page)
    return [f"{v['id']}: {v['help']} ({len(v['nodes'])}x: {v['nodes'][0]['target']})"
            for v in results.response["violations"] if v["impact"] in ("serious", "critical")]


def test_phase_one_and_the_drawn_builder_by_the_board_only(redis_server, browser):
    """A resource card (one move: a click plays it), a craftsman (his payments offered in a short
    choice), passing by the pool, the drawn master builder's decision: all by clicks on the board;
    a card taken by the keyboard alone (Tab to it, Enter); axe finds nothing serious."""
    from playwright.sync_api import expect

    from tests.browser import screenshot
    app = make_app(redis_server.url)
    with LiveServer(app) as server:
        http = requests.Session()
        gid, tokens = _pillars_game(http, server.url, "board-clicks")
        api = f"{server.url}/api/v1/games/{gid}"
        errors: list[str] = []
        pages = []
        for tok in tokens:
            pg = browser.new_page(viewport={"width": 1200, "height": 900})
            pg.set_default_timeout(15_000)
            pg.on("pageerror", lambda e: errors.append(str(e)))
            pg.goto(f"{server.url}/play/{gid}#token={tok}")
            pages.append(pg)
        ada, bob = pages
        seat, version, moves = _turn(http, api, tokens)
        assert seat == 0
        expect(ada.locator("#board-wrap .can").first).to_be_visible()
        # every legal move is on a highlighted part of the board
        assert sorted(ada.evaluate(ON_BOARD)) == sorted(moves)
        assert not _serious(ada), _serious(ada)
        # a resource card: one move, a click plays it
        card = next(m for m in moves if m.startswith("take ") and m[5:9] in ("wood", "ston", "sand"))
        ada.locator(f'#board-wrap [data-card="{card[5:]}"]').click()
        expect(ada.locator("#hint")).to_contain_text("Not your turn")
        assert _last_move(http, api) == (0, card)
        # a craftsman: his payments offered, one chosen
        seat, version, moves = _turn(http, api, tokens)
        assert seat == 1
        crafts = [m for m in moves if m.startswith("take C")]
        assert len(crafts) >= 2, moves
        cid = crafts[0].split()[1]
        expect(bob.locator(f'#board-wrap [data-card="{cid}"].can')).to_be_visible()
        bob.locator(f'#board-wrap [data-card="{cid}"]').click()
        expect(bob.locator("#choice")).to_be_visible()
        # the card by what it is (issue 42), never its id
        expect(bob.locator("#choice-h")).to_contain_text(f"The card in the pool: {short_card(cid)}")
        expect(bob.locator("#choice-h")).not_to_contain_text(cid)
        options = bob.locator("#choice button.move")
        expect(options).to_have_count(len([m for m in moves if m.split()[:2] == ["take", cid]]))
        assert not _serious(bob), _serious(bob)
        chosen = options.last.get_attribute("data-move")
        options.last.click()
        expect(bob.locator("#choice")).to_be_hidden()
        expect(bob.locator("#hint")).to_contain_text("Not your turn")
        assert _last_move(http, api) == (1, chosen)
        # the keyboard alone: Tab from the board's region to the first highlighted part, Enter
        ada.locator("#board-wrap").focus()
        expect(ada.locator("#board-wrap .can").first).to_be_visible()
        for _ in range(30):
            ada.keyboard.press("Tab")
            if ada.evaluate("document.activeElement.classList.contains('can')"):
                break
        focused = ada.evaluate("[document.activeElement.dataset.moves, "
                               "document.activeElement.getAttribute('aria-label')]")
        assert focused[1] and "|" not in focused[1], focused
        ring = ada.evaluate("getComputedStyle(document.activeElement.querySelector('rect, circle'))"
                            ".strokeWidth")
        assert ring == "5px", ring   # the focus is seen
        ada.keyboard.press("Enter")
        if "|" in focused[0]:   # a choice: its first move has the focus
            expect(ada.locator("#choice")).to_be_visible()
            ada.keyboard.press("Enter")
        expect(ada.locator("#hint")).to_contain_text("Not your turn")
        assert _last_move(http, api)[0] == 0 and _last_move(http, api)[1] in focused[0].split("|")
        # passing: the pool
        for pg, me in ((bob, 1), (ada, 0)):
            seat, version, moves = _turn(http, api, tokens)
            if seat != me or "pass" not in moves or http.get(api, timeout=10).json()["phase"] != "cards":
                break
            pool = pg.locator('#board-wrap [data-part="pool"]')
            expect(pool).to_have_class("pool can")
            pool.click()
            if pg.locator("#choice").is_visible():
                pg.locator('#choice button[data-move="pass"]').click()
            expect(pg.locator("#hint")).to_contain_text("Not your turn")
            assert _last_move(http, api) == (me, "pass")
        # the drawn master builder: keep / redraw / pass on it
        def drawn_builder(ms: list[str]) -> bool:
            if "keep" in ms:
                return True
            placing = "pass" in ms and any(m.startswith("place ") for m in ms)
            return placing and http.get(api, timeout=10).json()["phase"] == "builders"
        seat, moves = _drive(http, api, tokens, drawn_builder)
        pg = pages[seat]
        pg.reload()
        drawn = pg.locator('#board-wrap [data-part="drawn"]')
        expect(drawn).to_have_class("drawn can")
        drawn.click()
        expect(pg.locator("#choice")).to_be_visible()
        bare = [m for m in moves if m in ("keep", "redraw", "pass")]
        expect(pg.locator("#choice button.move")).to_have_count(len(bare))
        screenshot(pg, "pillars-page-drawn.png")
        pg.locator(f'#choice button[data-move="{bare[0]}"]').click()
        expect(pg.locator("#choice")).to_be_hidden()
        # the seat goes on (it places the builder it kept): no "Not your turn" to wait for, so wait
        # for the move itself (the click's request may still be on its way)
        deadline = time.monotonic() + 20
        while _last_move(http, api) != (seat, bare[0]) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _last_move(http, api) == (seat, bare[0])
        assert not errors, errors


def test_the_market_and_the_cathedral_by_the_board_on_a_phone(redis_server, browser):
    """Phase III on a 360 px wide screen: the board fits the width and its parts stay tappable;
    buying at the market is a tap on the market's cube and a count chosen, selling a tap on one's
    own resource; leaving the market a tap on its field; a Cathedral conversion a tap on the
    craftsman."""
    from playwright.sync_api import expect

    from tests.browser import screenshot
    app = make_app(redis_server.url)
    with LiveServer(app) as server:
        http = requests.Session()
        gid, tokens = _pillars_game(http, server.url, "board-market")
        api = f"{server.url}/api/v1/games/{gid}"
        seat, moves = _drive(http, api, tokens, lambda ms: any(m.startswith("buy ") for m in ms),
                             prefer=("take wood", "take stone", "take sand", "keep", "place market",
                                     "place cathedral", "place king"))
        errors: list[str] = []
        page = browser.new_page(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
        page.set_default_timeout(15_000)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{server.url}/play/{gid}#token={tokens[seat]}")
        buy = next(m for m in moves if m.startswith("buy "))
        cube = page.locator(f'#board-wrap [data-market="{buy.split()[1]}"]')
        expect(cube).to_have_class("res can")
        assert sorted(page.evaluate(ON_BOARD)) == sorted(moves)
        expect(cube).to_have_class("res can")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 360, f"the page scrolls sideways: {width} px"
        box = cube.bounding_box()
        assert box["height"] >= 24 and box["width"] >= 60, box   # about 27 px high: a finger fits
        screenshot(page, "pillars-page-phone-market.png")
        cube.tap()
        expect(page.locator("#choice")).to_be_visible()
        counts = [m for m in moves if m.startswith(" ".join(buy.split()[:2]) + " ")]
        expect(page.locator("#choice button.move")).to_have_count(len(counts))
        page.locator(f'#choice button[data-move="{counts[-1]}"]').tap()
        expect(page.locator("#choice")).to_be_hidden()
        # the panel hides when the tap is taken; the move's request may still be on its way
        wait_for(lambda: _last_move(http, api) == (seat, counts[-1]), 15, f"{counts[-1]} to be played")
        # still at the market (the other resources, or selling): leave it by its field
        seat2, version, moves = _turn(http, api, tokens)
        if seat2 == seat and "pass" in moves and any(m.startswith(("buy ", "sell ")) for m in moves):
            # the page drawn at this version first: a tap on the board drawn before the purchase
            # (its market still open) can land on an element the redraw replaces, and is lost
            expect(page.locator("body")).to_have_attribute("data-version", str(version))
            expect(page.locator('#board-wrap [data-field="market"].can')).to_be_visible()
            page.locator('#board-wrap [data-field="market"]').tap()
            expect(page.locator("#board-wrap [data-field=\"market\"].can")).to_have_count(0)
            wait_for(lambda: _last_move(http, api) == (seat, "pass"), 15, "the market left")
        # the Cathedral: a craftsman works
        seat, moves = _drive(http, api, tokens, lambda ms: any(m.startswith("use ") for m in ms),
                             prefer=("pass", "done", "take wood", "take stone", "take sand", "keep",
                                     "place cathedral"))
        use = next(m for m in moves if m.startswith("use "))
        cid = use.split()[1]
        page.goto(f"{server.url}/play/{gid}#token={tokens[seat]}")
        chip = page.locator(f'#board-wrap [data-seat="{seat}"] [data-craftsman="{cid}"]')
        expect(chip).to_have_class("craftsman can")
        assert sorted(page.evaluate(ON_BOARD)) == sorted(moves)
        options = [m for m in moves if m.startswith(f"use {cid} ")]
        chip.tap()
        if len(options) > 1:
            expect(page.locator("#choice")).to_be_visible()
            page.locator(f'#choice button[data-move="{options[0]}"]').tap()
        deadline = time.monotonic() + 10
        while _last_move(http, api) != (seat, options[0]) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _last_move(http, api) == (seat, options[0])
        assert not _serious(page), _serious(page)
        assert not errors, errors
