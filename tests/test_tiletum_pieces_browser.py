"""Issue 42 in the browser: the Tiletum game page shows pieces, not codes. At a laptop's 1366x900
and a phone's 390x844, as the seat to act with tiles in the offers and the Storehouse: what a
player reads (the page's words and the board's labels, without notation: `code`/`.notation`) holds
no component id (K12, C42, B03), every move's notation is marked up as code, and no element a
move is played from lies beyond what can be scrolled to. Screenshots in tests/artifacts
(pieces-tiletum-*.png)."""
from __future__ import annotations

import re

import pytest
import requests

from tests.browser import require_browser, screenshot, wait_until
from tests.conftest import LiveServer, make_app

require_browser()

from playwright.sync_api import expect  # noqa: E402

WAIT_MS = 20_000
ID = re.compile(r"\b[KCB]\d\d\b")
READ = """() => {
  const copy = document.body.cloneNode(true);
  copy.querySelectorAll('code, .notation, script, style, title').forEach(e => e.remove());
  const board = copy.querySelector('#board');
  const labels = board ? [...board.querySelectorAll('text')].map(t => t.textContent) : [];
  if (board) board.remove();
  return copy.innerText + '\\n' + labels.join('\\n');
}"""
# every element a move is played from, with where it is against what the page and its box can show
REACH = """() => {
  const doc = document.documentElement;
  const out = [];
  for (const el of document.querySelectorAll('[data-move]')) {
    const r = el.getBoundingClientRect();
    if (!r.width && !r.height) continue;             // not drawn (a closed dialog)
    const box = el.closest('#board-wrap');
    if (box) {                                        // a board part: inside the board, which pans
      const b = document.querySelector('#board').getBoundingClientRect();
      if (r.left < b.left - 1 || r.right > b.right + 1 || r.top < b.top - 1 || r.bottom > b.bottom + 1)
        out.push(el.dataset.move);
    } else if (r.left + window.scrollX < -1 || r.right + window.scrollX > doc.scrollWidth + 1) {
      out.push(el.dataset.move);
    }
  }
  return out;
}"""


@pytest.fixture(scope="module")
def server(redis_server):
    with LiveServer(make_app(redis_server.url)) as live:
        yield live


def _play_into_the_storehouse(url: str, g: dict) -> str:
    """Moves over the API that fill Storehouses (tiles, Characters, Contracts taken): the token of
    the seat to act afterwards."""
    gid = g["id"]
    for _ in range(40):
        s = requests.get(f"{url}/api/v1/games/{gid}", timeout=10).json()
        token = g["seats"][s["to_act"][0]]["token"]
        auth = {"Authorization": f"Bearer {token}"}
        legal = requests.get(f"{url}/api/v1/games/{gid}/legal-moves", headers=auth, timeout=10).json()
        moves = [m["move"] for m in legal["moves"]]
        store = requests.get(f"{url}/api/v1/games/{gid}/state", headers=auth, timeout=10).json()
        filled = any(len(p["storehouse"]) >= 2 for p in store["seats"])
        if filled and any(m.startswith("take") for m in moves):
            return token
        pick = (next((m for m in moves if m.split()[0] in ("tile", "char", "contract")), None)
                or next((m for m in moves if m.startswith("take")), None)
                or ("end" if "end" in moves else next(m for m in moves if m != "undo")))
        rv = requests.post(f"{url}/api/v1/games/{gid}/moves", headers=auth, timeout=10,
                           json={"expected_version": legal["version"], "moves": [pick]})
        assert rv.status_code == 200, rv.text
    raise AssertionError("no Storehouse filled in 40 moves")


@pytest.mark.parametrize("size", [(1366, 900), (390, 844)], ids=["laptop", "phone"])
def test_the_tiletum_page_shows_pieces_not_codes(server, browser, size):
    g = requests.post(f"{server.url}/api/v1/games", timeout=10,
                      json={"seats": [{"name": "Ann"}, {"name": "Bob"}],
                            "options": {"seed": "pieces-page"}}).json()
    token = _play_into_the_storehouse(server.url, g)
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    page.set_default_timeout(WAIT_MS)
    page.goto(f"{server.url}/play/{g['id']}#token={token}")
    wait_until(page, "Number(document.body.dataset.version || 0) > 0")
    expect(page.locator("#moves button.move").first).to_be_visible()
    text = page.evaluate(READ)
    assert "Storehouse" in text and "Contract offer" in text
    assert not ID.findall(text), f"component ids in what a player reads: {sorted(set(ID.findall(text)))}"
    notation = page.locator("#moves button.move code.notation")
    assert notation.count() == page.locator("#moves button.move").count() > 0
    assert page.evaluate(REACH) == [], "a move's element beyond what can be scrolled to"
    # the first Storehouse piece says what it is on hover or tap (its title), without its id
    title = page.locator("#board .store-tile title").first.text_content()
    assert title and not ID.search(title) and title[0].isupper()
    screenshot(page, f"pieces-tiletum-{'laptop' if size[0] > 1000 else 'phone'}.png")
    page.close()
