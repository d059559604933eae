"""Issue 42 in the browser, the Carcassonne page: pieces, not codes; boards that fit. At a laptop's
1366x900 and a phone's 390x844, as the seat to move (a cell chosen on the board), as the other seat,
as a spectator, and on a finished game's large board:

- what a player reads (the page's words, the board's labels, titles and accessible names, without
  notation: `code`/`.notation`) holds no tile letter after "tile" and no "x,y" cell label;
- the tile in hand is its picture with its features in words, and its whole description one tap
  away; a tile on the board says what it is when tapped;
- on the phone the board comes before the tile in hand and the choices;
- no element a move is played from and no piece lies beyond what can be scrolled to, and a
  spectator's and a finished game's board fits its box whole;
- the layout shift while the page loads stays under 0.1.

Screenshots in tests/artifacts (carcassonne-pieces-*.png)."""
from __future__ import annotations

import random
import re

import pytest

from tests.browser import require_browser, screenshot, wait_until
from tests.conftest import LiveServer, make_app

require_browser()

from playwright.sync_api import expect  # noqa: E402

WAIT_MS = 20_000
SIZES = {"laptop": (1366, 900), "phone": (390, 844)}
LETTER = re.compile(r"\b[Tt]ile [A-X]\b")
CELL = re.compile(r"-?\d+\s?,\s?-?\d+(?!\d*\s*(?:points?|tiles?))")
OBSERVE = """window.__cls = 0;
new PerformanceObserver(list => {
  for (const e of list.getEntries()) if (!e.hadRecentInput) window.__cls += e.value;
}).observe({type: "layout-shift", buffered: true});"""
# what a player reads or hears: the text outside notation, the board's labels, titles and names
READ = """() => {
  const copy = document.body.cloneNode(true);
  copy.querySelectorAll('code, .notation, pre, script, style').forEach(e => e.remove());
  const titles = [...copy.querySelectorAll('title')].map(t => t.textContent);
  copy.querySelectorAll('title').forEach(e => e.remove());
  const names = [...copy.querySelectorAll('[aria-label]')].map(e => e.getAttribute('aria-label'));
  const labels = [...copy.querySelectorAll('svg text')].map(t => t.textContent);
  return [document.body.innerText && copy.innerText, ...titles, ...names, ...labels].join('\\n');
}"""
# a move's element or a piece that lies where nothing can scroll to: the board's parts against the
# board picture (which its box pans over, to every edge), the picture against its box's scroll
# area, the rest against the page's
REACH = """() => {
  const doc = document.documentElement, out = [];
  const wrap = document.querySelector('#board-wrap'), svg = wrap.querySelector('svg');
  const w = wrap.getBoundingClientRect(), s = svg.getBoundingClientRect();
  if (s.left < w.left - wrap.scrollLeft - 1 || s.top < w.top - wrap.scrollTop - 1
      || s.width > wrap.scrollWidth + 1 || s.height > wrap.scrollHeight + 1) out.push('the board picture');
  for (const el of document.querySelectorAll('[data-move], g.tile, g.follower, #hand')) {
    const r = el.getBoundingClientRect();
    if (!r.width && !r.height) continue;
    const name = el.dataset.move || el.getAttribute('class') || el.id;
    if (svg.contains(el)) {
      if (r.left < s.left - 1 || r.right > s.right + 1 || r.top < s.top - 1 || r.bottom > s.bottom + 1)
        out.push(name);
    } else if (r.left + scrollX < -1 || r.right + scrollX > doc.scrollWidth + 1) {
      out.push(name);
    }
  }
  if (doc.scrollWidth > innerWidth + 1) out.push('the page is wider than the screen');
  return out;
}"""
FITS = """() => {
  const wrap = document.querySelector('#board-wrap'), svg = wrap.querySelector('svg');
  return svg.getBoundingClientRect().width <= wrap.clientWidth + 1
      && svg.getBoundingClientRect().height <= wrap.clientHeight + 1;
}"""


def _play(client, gid: str, tokens: list[str], rng: random.Random, moves: int | None) -> None:
    """Random legal moves over the API: ``moves`` of them, or to the end of the game."""
    n = 0
    while moves is None or n < moves:
        summary = client.get(f"/api/v1/games/{gid}").get_json()
        if summary["status"] == "finished":
            return
        auth = {"Authorization": f"Bearer {tokens[summary['to_act'][0]]}"}
        legal = client.get(f"/api/v1/games/{gid}/legal-moves", headers=auth).get_json()
        rv = client.post(f"/api/v1/games/{gid}/moves", headers=auth,
                         json={"expected_version": legal["version"],
                               "moves": [rng.choice(legal["moves"])["move"]]})
        assert rv.status_code == 200, rv.get_json()
        n += 1


@pytest.fixture(scope="module")
def served(redis_server):
    """A game some tiles in (Ann's turn or Bob's) and a finished one, on a live server."""
    app = make_app(redis_server.url)
    client = app.test_client()
    made = {}
    for name, moves in (("mid", 14), ("over", None)):
        g = client.post("/api/v1/games", json={
            "game": "carcassonne", "seats": [{"name": "Ann"}, {"name": "Bob"}],
            "options": {"seed": f"pieces-carc-{name}"}}).get_json()
        tokens = [s["token"] for s in g["seats"]]
        _play(client, g["id"], tokens, random.Random(name), moves)
        made[name] = (g["id"], tokens)
    to_act = client.get(f"/api/v1/games/{made['mid'][0]}").get_json()["to_act"][0]
    with LiveServer(app) as live:
        yield live, made, to_act


@pytest.mark.parametrize("view", ["seat", "other", "spectator", "finished"])
@pytest.mark.parametrize("size", sorted(SIZES))
def test_the_carcassonne_page_shows_pieces_not_codes_and_its_board_fits(served, browser, size, view):
    server, made, to_act = served
    gid, tokens = made["over" if view == "finished" else "mid"]
    frag = {"seat": f"#token={tokens[to_act]}", "other": f"#token={tokens[1 - to_act]}"}.get(view, "")
    width, height = SIZES[size]
    page = browser.new_page(viewport={"width": width, "height": height})
    page.set_default_timeout(WAIT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.add_init_script(OBSERVE)
    page.goto(f"{server.url}/play/{gid}{frag}")
    wait_until(page, "Number(document.body.dataset.version || 0) > 0")
    expect(page.locator("main#main")).not_to_have_attribute("aria-busy", "true")
    page.wait_for_timeout(800)
    cls = page.evaluate("window.__cls")
    assert cls < 0.1, f"layout shift {cls:.3f}"

    hand = page.locator("#hand-text")
    if view == "finished":
        expect(hand).to_have_text("No tile: the game is over.")
        expect(page.locator("#status")).to_contain_text("Game over.")
    else:   # the tile in hand: its picture, its features in words, all about it one tap away
        expect(page.locator("#hand")).to_be_visible()
        assert re.search(r"\b(city|road|cloister|fields)\b", hand.inner_text()), hand.inner_text()
        page.locator("#hand-more summary").click()
        expect(page.locator("#hand-full")).to_contain_text("Sides: north ")
        assert page.locator("#hand-title").text_content().startswith("The tile in hand: ")
    if view != "seat":   # the whole board in its box
        assert page.evaluate(FITS), "the board does not fit its box"
    if size == "phone":  # the tile in hand first (the decision on the first screen), the board, the choices
        board_top = page.locator("#board-sec").bounding_box()["y"]
        hand_box = page.locator("#hand-sec").bounding_box()
        assert hand_box["y"] < board_top
        if view == "seat":
            assert board_top < page.locator("#play").bounding_box()["y"]
            assert hand_box["y"] + hand_box["height"] <= height, "the tile in hand is on the first screen"
            assert board_top < height, "the board starts on the first screen"

    if view == "seat":   # a cell chosen on the board: the tile shown there, its follower spots
        cells = page.locator("#board-wrap rect.fit-cell")
        assert cells.count() > 0
        expect(page.locator("#cell-list")).to_be_visible()
        cells.first.scroll_into_view_if_needed()
        cells.first.click()
        expect(page.locator("#placement")).to_be_visible()
        expect(page.locator("#placement-text")).to_contain_text("of the start tile, turned ")
        assert page.locator("#followers button.move").count() > 0
        assert page.locator("#followers button.move code.notation").count() == \
            page.locator("#followers button.move").count()
    else:                # a tile on the board says what it is when tapped; no cells to choose
        expect(page.locator("#cell-list")).to_be_hidden()
        tile = page.locator("#board-wrap g.tile").last
        tile.scroll_into_view_if_needed()
        tile.click()
        expect(page.locator("#board-info")).to_contain_text("This tile: ")
        assert re.search(r"\b(city|road|cloister|fields?)\b", page.locator("#board-info").inner_text())

    text = page.evaluate(READ)
    letters = sorted(set(LETTER.findall(text)))
    assert not letters, f"tile letters in what a player reads: {letters}"
    assert not CELL.findall(text), f"cell labels in what a player reads: {sorted(set(CELL.findall(text)))}"
    assert page.evaluate(REACH) == [], "a move's element or a piece beyond what can be scrolled to"
    screenshot(page, f"carcassonne-pieces-{view}-{size}.png")
    assert not errors, errors
    page.close()
