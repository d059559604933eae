"""The game pages as a player sees them, in headless Chromium (Debian's, tests/browser.py) against
the app over real HTTP and a real Redis, at a laptop's 1366x900 and a phone's 390x844:

- a Tiletum turn played only by clicking the board (a die, a Bonus tile, a town for the
  Architect, the same town for a Pillar), each click checked over the API;
- the other seat's page lists what the first did since its last turn at the top and marks the
  town on the board; a die with several legal moves opens a small menu of them in words, from
  the keyboard too; on the phone the board's text is readable (10 CSS px or more);
- the words: the title names the game and its players; no map ids (Koeln), seat numbers,
  versions or HTTP codes in what a player reads;
- axe-core finds no serious or critical violation on the Tiletum and Carcassonne pages, as a
  seat and as a spectator.

Screenshots of each state at both sizes go to tests/artifacts/ (game-page-*.png).
TABLEPOST_SKIP_BROWSER=1 skips it, like the other browser tests."""
from __future__ import annotations

import re

import pytest
import requests

from tests.browser import require_browser, screenshot, wait_until
from tests.conftest import LiveServer, make_app

require_browser()

from axe_playwright_python.sync_playwright import Axe  # noqa: E402
from playwright.sync_api import expect  # noqa: E402

WAIT_MS = 20_000
LAPTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}
# what a player reads: the page's text without the notation shown small under each move's words
WORDS = """() => {
  const copy = document.body.cloneNode(true);
  copy.querySelectorAll('.mv, #board, script, style, #verify, #seed, #commitment').forEach(e => e.remove());
  return copy.innerText;
}"""


@pytest.fixture(scope="module")
def server(redis_server):
    with LiveServer(make_app(redis_server.url)) as live:
        yield live


def _page(browser, url: str, viewport: dict):
    page = browser.new_page(viewport=viewport)
    page.set_default_timeout(WAIT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
    page._errors = errors  # checked at the end of each test
    page.goto(url)
    wait_until(page, "Number(document.body.dataset.version || 0) > 0")
    return page


def _version(page) -> int:
    return int(page.locator("body").get_attribute("data-version") or 0)


def _click(page, locator) -> None:
    """Click a board part and wait until the page has drawn the game after the move."""
    before = _version(page)
    locator.click()
    wait_until(page, f"Number(document.body.dataset.version || 0) > {before}")


def _moves(server, gid) -> list[str]:
    events = requests.get(f"{server.url}/api/v1/games/{gid}/events", timeout=10).json()["events"]
    return [e["move"] for e in events if e["type"] == "MovePlayed"]


def _serious(page) -> list[str]:
    results = Axe().run(page)
    return [f"{v['id']}: {v['help']} ({len(v['nodes'])}x: {v['nodes'][0]['target']})"
            for v in results.response["violations"] if v["impact"] in ("serious", "critical")]


def _assert_words(page, forbidden=("Koeln", "Nuernberg", "Version", "Seat 0", "Seat 1", "seat 0", "seat 1",
                                   "422", "409", "HTTP")) -> None:
    text = page.evaluate(WORDS)
    found = [w for w in forbidden if re.search(rf"\b{re.escape(w)}\b", text)]
    assert not found, f"{found} in what a player reads: {text[:2000]}"


def test_a_tiletum_turn_by_clicking_the_board_and_what_the_other_seat_sees(server, browser):
    g = requests.post(f"{server.url}/api/v1/games", json={"seats": [{"name": "Ann"}, {"name": "Bob"}],
                                                         "options": {"seed": "page-4"}}, timeout=10).json()
    gid, (ann, bob) = g["id"], [s["token"] for s in g["seats"]]
    url = f"{server.url}/play/{gid}#token="

    # --- Ann, on a laptop: the title, words, and her turn by clicks on the board ----------------
    page = _page(browser, url + ann, LAPTOP)
    expect(page.locator("h1")).to_have_text("Tiletum: Ann and Bob")
    assert page.title().startswith("Tiletum: Ann and Bob")
    expect(page.locator("#status")).to_contain_text("To act: Ann (you)")
    board = page.locator("#board-wrap svg#board")
    expect(board).to_have_count(1)  # the picture is in the page, not an <img>
    die = board.locator('[data-die="F1"]')
    expect(die).to_have_attribute("data-move", "take F1")
    expect(die).to_have_attribute("role", "button")
    expect(die).to_have_attribute("tabindex", "0")
    assert die.get_attribute("aria-label").startswith("Take the pink 1 die")
    _assert_words(page)
    screenshot(page, "game-page-tiletum-turn-1366.png")
    _click(page, die)
    assert _moves(server, gid) == ["take F1"]
    _click(page, board.locator('[data-bonus="B27"]'))
    paris = board.locator('[data-spot="Paris"]')
    expect(paris).to_have_attribute("data-move", "architect Paris")
    expect(paris).to_have_attribute("aria-label", "Move your Architect to Paris")
    _click(page, paris)
    expect(paris).to_have_attribute("data-move", "pillar")  # now the Architect is there: build
    screenshot(page, "game-page-tiletum-architect-1366.png")
    _click(page, paris)
    assert _moves(server, gid) == ["take F1", "tile B27", "architect Paris", "pillar"]
    state = requests.get(f"{server.url}/api/v1/games/{gid}/state", timeout=10).json()
    assert state["pillars"]["Paris"] == [0] and state["seats"][0]["architect"] == "Paris"
    expect(page.locator("#history")).to_contain_text("Ann moved their Architect to Paris")
    expect(page.locator("#history")).to_contain_text("Ann placed a Pillar at the Paris Cathedral")
    _click(page, page.locator('section[data-verb="end"] button.move'))  # ending the turn is a button
    expect(page.locator("#hint")).to_contain_text("waiting for Bob")
    assert not _serious(page), _serious(page)

    # --- Bob, on a phone: since his last turn, at the top; the board readable; a die's menu ------
    phone = _page(browser, url + bob, PHONE)
    since = phone.locator("#since")
    expect(since).to_be_visible()
    expect(phone.locator("#since-h")).to_have_text("Since your last turn")
    expect(phone.locator("#since-list li")).to_have_count(5)
    expect(since).to_contain_text("Ann took the pink 1 die")
    expect(since).to_contain_text("Ann moved their Architect to Paris")
    assert since.bounding_box()["y"] < phone.locator("#board-wrap").bounding_box()["y"], "above the board"
    expect(phone.locator('#board [data-spot="Paris"]')).to_have_class(re.compile(r"\brecent\b"))
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], ("the page does not "
                                                                                      "overflow")
    smallest = phone.evaluate("""() => {
      const svg = document.getElementById('board');
      const k = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
      return Math.min(...[...svg.querySelectorAll('text')].map(t => Number(t.getAttribute('font-size')) * k));
    }""")
    assert smallest >= 11.99, f"the board's smallest text is {smallest:.1f} CSS px on a phone"
    _assert_words(phone)
    screenshot(phone, "game-page-tiletum-since-390.png")
    die = phone.locator('#board [data-die="G3"]')
    expect(die).to_have_attribute("data-move", "take G3|take G3>2|take G3>4")
    die.focus()
    phone.keyboard.press("Enter")  # the keyboard opens the menu too
    menu = phone.locator("#choice")
    expect(menu).to_be_visible()
    expect(menu.locator("button.move")).to_have_count(3)
    expect(menu.locator("button.move").first).to_be_focused()
    expect(menu).to_contain_text("Take the yellow 3 die, paying 2 Gold to turn it into a 2")
    screenshot(phone, "game-page-tiletum-menu-390.png")
    phone.keyboard.press("Escape")
    expect(menu).to_be_hidden()
    expect(die).to_be_focused()
    die.click()
    _click(phone, menu.locator('button.move[data-move="take G3"]'))
    assert _moves(server, gid)[-1] == "take G3"
    expect(phone.locator("#since")).to_be_hidden()  # Bob has acted since
    screenshot(phone, "game-page-tiletum-after-390.png")
    assert not _serious(phone), _serious(phone)

    # --- a spectator, on both sizes; Ann's page at 390 -----------------------------------------
    for size, viewport in (("1366", LAPTOP), ("390", PHONE)):
        spectator = _page(browser, f"{server.url}/play/{gid}", viewport)
        expect(spectator.locator("#play")).to_be_hidden()
        assert spectator.locator("#board .can").count() == 0, "nothing to click for a spectator"
        _assert_words(spectator)
        screenshot(spectator, f"game-page-tiletum-spectator-{size}.png")
        assert not _serious(spectator), _serious(spectator)
        assert not spectator._errors, spectator._errors
        spectator.close()
    ann_phone = _page(browser, url + ann, PHONE)
    expect(ann_phone.locator("#since-list li")).to_have_count(1)
    screenshot(ann_phone, "game-page-tiletum-waiting-390.png")
    bob_laptop = _page(browser, url + bob, LAPTOP)
    screenshot(bob_laptop, "game-page-tiletum-turn-bob-1366.png")
    for p in (page, phone, ann_phone, bob_laptop):
        assert not p._errors, p._errors
        p.close()


def test_a_refused_move_is_said_in_words(server, browser):
    g = requests.post(f"{server.url}/api/v1/games", json={"seats": [{"name": "Ann"}, {"name": "Bob"}],
                                                         "options": {"seed": "page-4"}}, timeout=10).json()
    page = _page(browser, f"{server.url}/play/{g['id']}#token={g['seats'][0]['token']}", PHONE)
    page.locator("#move-input").fill("take X9")
    page.get_by_role("button", name="Play", exact=True).click()
    expect(page.locator("#error")).not_to_be_empty()
    assert not re.search(r"\b(422|Unprocessable)\b", page.locator("#error").inner_text())
    screenshot(page, "game-page-tiletum-refused-390.png")
    page.close()


def test_carcassonne_words_since_last_turn_and_accessibility(server, browser):
    g = requests.post(f"{server.url}/api/v1/games",
                      json={"game": "carcassonne", "options": {"seed": "page-c"},
                           "seats": [{"name": "Ann"}, {"name": "Bob"}]},
                      timeout=10).json()
    gid, (ann, bob) = g["id"], [s["token"] for s in g["seats"]]
    auth = {"Authorization": f"Bearer {ann}"}
    move = requests.get(f"{server.url}/api/v1/games/{gid}/legal-moves", headers=auth,
                        timeout=10).json()["moves"][0]
    rv = requests.post(f"{server.url}/api/v1/games/{gid}/moves", headers=auth, timeout=10,
                       json={"expected_version": 1, "moves": [move["move"]]})
    assert rv.status_code == 200, rv.text
    for size, viewport in (("1366", LAPTOP), ("390", PHONE)):
        page = _page(browser, f"{server.url}/play/{gid}#token={bob}", viewport)
        expect(page.locator("h1")).to_have_text("Carcassonne: Ann and Bob")
        expect(page.locator("#since")).to_be_visible()
        expect(page.locator("#since-list li")).to_have_count(1)
        expect(page.locator("#since-list")).to_contain_text("Ann placed a tile with")
        assert page.locator("#board-wrap svg .recent").count() == 1, "the tile placed since is marked"
        _assert_words(page)
        screenshot(page, f"game-page-carcassonne-since-{size}.png")
        assert not _serious(page), _serious(page)
        spectator = _page(browser, f"{server.url}/play/{gid}", viewport)
        expect(spectator.locator("h1")).to_have_text("Carcassonne: Ann and Bob")
        _assert_words(spectator)
        screenshot(spectator, f"game-page-carcassonne-spectator-{size}.png")
        assert not _serious(spectator), _serious(spectator)
        for p in (page, spectator):
            assert not p._errors, p._errors
            p.close()
