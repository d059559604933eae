"""Issue 42, "game pieces, not codes", The Pillars of the Earth: a whole round played by clicking,
and the end-of-round summary on the page checked against the engine's events of that round; and
the Pillars page as the seat to move, another seat, a spectator and a finished game at a phone's
and a laptop's size: its visible text outside notation holds no card id, no move and no piece lies
where it cannot be scrolled to, the layout shifts less than 0.1. Screenshots in tests/artifacts."""
from __future__ import annotations

import random
import re

import pytest
import requests

from pillars.game import replay
from pillars.summary import round_summary
from tests.browser import require_browser, screenshot, wait_until
from tests.conftest import LiveServer, make_app

require_browser()

from playwright.sync_api import expect  # noqa: E402

CARD_ID = re.compile(r"\b(?:MM|WW|SC)\d\b|\b[CPE]\d\d\b|\b(?:sand|wood|stone)\d\b")
SIZES = {"phone": (390, 844), "laptop": (1366, 900)}
OBSERVE = """window.__cls = 0;
new PerformanceObserver(list => {
  for (const e of list.getEntries()) if (!e.hadRecentInput) window.__cls += e.value;
}).observe({type: "layout-shift", buffered: true});"""
VISIBLE_TEXT = """() => {
  const out = [], w = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (w.nextNode()) {
    const el = w.currentNode.parentElement;
    if (!el || el.closest("code, .notation, script, style, title, pre")) continue;
    if (!el.checkVisibility({visibilityProperty: true})) continue;
    out.push(w.currentNode.textContent);
  }
  return out.join(" ");
}"""
OUT_OF_REACH = """() => {
  const W = document.documentElement.scrollWidth, H = document.documentElement.scrollHeight, bad = [];
  const parts = "[data-move], #board-wrap [data-card], #board-wrap [data-craftsman], "
    + "#board-wrap [data-field], #board-wrap [data-seat], #round-end li";
  const wrap = document.getElementById("board-wrap");
  for (const el of document.querySelectorAll(parts)) {
    if (!el.checkVisibility()) continue;
    const r = el.getBoundingClientRect();
    if (wrap && wrap.contains(el)) {   // the board pans in its box: within the box's scroll area
      const w = wrap.getBoundingClientRect(), x = r.left - w.left + wrap.scrollLeft;
      if (x < -1 || x + r.width > wrap.scrollWidth + 1) bad.push(el.outerHTML.slice(0, 80));
      continue;
    }
    const x = r.left + scrollX, y = r.top + scrollY;
    if (x < -1 || y < -1 || x + r.width > W + 1 || y + r.height > H + 1) bad.push(el.outerHTML.slice(0, 80));
  }
  return bad;
}"""


def _api(url, gid):
    return f"{url}/api/v1/games/{gid}"


def _random_until(url: str, g: dict, until, rng: random.Random, limit: int = 3000) -> dict:
    api = _api(url, g["id"])
    for _ in range(limit):
        s = requests.get(api, timeout=10).json()
        if until(s):
            return s
        seat = s["to_act"][0]
        auth = {"Authorization": f"Bearer {g['seats'][seat]['token']}"}
        legal = requests.get(f"{api}/legal-moves", headers=auth, timeout=10).json()
        moves = [m["move"] for m in legal["moves"]]
        rv = requests.post(f"{api}/moves", headers=auth, timeout=10,
                           json={"expected_version": legal["version"], "moves": [rng.choice(moves)]})
        assert rv.status_code == 200, rv.text
    raise AssertionError("never got there")


def _state(url, gid, token=None):
    auth = {"Authorization": f"Bearer {token}"} if token else {}
    return requests.get(f"{_api(url, gid)}/state", headers=auth, timeout=10).json()


def _engine_events(url, gid):
    evs = requests.get(f"{_api(url, gid)}/events?limit=1000", timeout=10).json()["events"]
    keep = ("type", "game", "players", "options", "rules", "seat", "move", "chance")
    return [{k: e[k] for k in keep if k in e} for e in evs]


def _page_summary(page) -> list[tuple[str, list[str]]]:
    return page.evaluate("""() => [...document.querySelectorAll("#round-end h3")].map(h =>
        [h.textContent, [...h.nextElementSibling.querySelectorAll("li")].map(li => li.textContent)])""")


@pytest.fixture(scope="module")
def server(redis_server):
    with LiveServer(make_app(redis_server.url)) as live:
        yield live


def test_a_whole_round_by_clicking_and_its_summary(server, browser):
    url = server.url
    g = requests.post(f"{url}/api/v1/games", timeout=10, json={
        "game": "pillars", "seats": [{"name": "Ann"}, {"name": "Bob"}],
        "options": {"seed": "round-click"}}).json()
    pages = []
    for seat, size in enumerate(SIZES.values()):
        page = browser.new_page(viewport={"width": size[0], "height": size[1]})
        page.set_default_timeout(20_000)
        page.goto(f"{url}/play/{g['id']}#token={g['seats'][seat]['token']}")
        pages.append(page)
    rng = random.Random(5)
    clicks = 0
    while True:
        s = requests.get(_api(url, g["id"]), timeout=10).json()
        if s["round"] == 2:
            break
        seat = s["to_act"][0]
        page = pages[seat]
        wait_until(page, f"Number(document.body.dataset.version || 0) === {s['version']}")
        if page.locator("#keep-form").count():
            page.locator("#keep-form button[type=submit]").click()   # the suggested keep fits
        else:
            buttons = page.locator("#moves button.move")
            moves = buttons.evaluate_all("bs => bs.map(b => b.dataset.move)")
            assert moves, "the seat to move has its moves as buttons"
            # at the market and the Cathedral, end in good time (a random walk could trade long)
            pick = ("pass" if "pass" in moves and moves[0].split()[0] in ("buy", "sell", "pass")
                    and rng.random() < 0.5 else rng.choice(moves))
            buttons.nth(moves.index(pick)).click()
        clicks += 1
        wait_until(page, f"Number(document.body.dataset.version || 0) > {s['version']}")
        assert page.locator("#error").text_content() == ""
        assert clicks < 200
    assert clicks >= 10
    # the summary on each page is the one the engine's events make, nothing computed in the page
    engine = replay(_engine_events(url, g["id"]))
    want = round_summary(engine.round_end)
    assert want["round"] == 1
    names = ["Ann", "Bob"]
    for seat, page in enumerate(pages):
        wait_until(page, f"Number(document.body.dataset.version || 0) === {engine.version}")
        box = page.locator("#round-end")
        expect(box).to_be_visible()
        assert box.get_attribute("open") is not None, "open while the next round's cards are chosen"
        expect(page.locator("#round-end-h")).to_contain_text("The end of round 1")
        shown = _page_summary(page)
        assert len(shown) == 2
        for i, (head, lines) in enumerate(shown):
            s = want["seats"][i]
            assert head.startswith(names[i]) and f"{s['vp'][0]}" in head and f"{s['gold'][1]} gold" in head
            assert lines == (s["lines"] or ["Nothing changed."])
        # against the events themselves: the tax die and the event card the round revealed
        revealed = dict((k, v) for e in _engine_events(url, g["id"]) for k, v in e.get("chance", [])
                        if k in ("tax", "event"))
        assert any(f"the tax die showed {revealed['tax']}" in x for _, ls in shown for x in ls)
        assert all(not CARD_ID.search(x) for _, ls in shown for x in ls)
        screenshot(page, f"pillars-round-end-{list(SIZES)[seat]}.png")


@pytest.fixture(scope="module")
def views(server):
    """A game at round 2's first decision (the summary of round 1 shown) and a finished game."""
    rng = random.Random(11)
    new = lambda seed: requests.post(f"{server.url}/api/v1/games", timeout=10, json={  # noqa: E731
        "game": "pillars", "seats": [{"name": "Ann"}, {"name": "Bob"}, {"name": "Cy"}],
        "options": {"seed": seed}}).json()
    live, done = new("views-live"), new("views-done")
    s = _random_until(server.url, live, lambda s: s["round"] == 2, rng)
    actor = s["to_act"][0]
    _random_until(server.url, done, lambda s: s["phase"] == "over", rng)
    return {"seat": (live, live["seats"][actor]["token"]),
            "other": (live, live["seats"][(actor + 1) % 3]["token"]),
            "spectator": (live, None),
            "finished": (done, done["seats"][0]["token"])}


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("who", ["seat", "other", "spectator", "finished"])
def test_the_pillars_page_shows_pieces_not_codes(server, browser, views, who, size):
    g, token = views[who]
    w, h = SIZES[size]
    ctx = browser.new_context(viewport={"width": w, "height": h})
    try:
        page = ctx.new_page()
        page.set_default_timeout(20_000)
        page.add_init_script(OBSERVE)
        page.goto(f"{server.url}/play/{g['id']}" + (f"#token={token}" if token else ""))
        wait_until(page, "Number(document.body.dataset.version || 0) > 0")
        page.wait_for_timeout(800)
        expect(page.locator("#round-end")).to_be_visible()
        if who == "seat":
            expect(page.locator("#moves button.move").first).to_be_visible()
        text = page.evaluate(VISIBLE_TEXT)
        found = sorted(set(CARD_ID.findall(text)))
        assert not found, f"card ids in the visible text: {found}"
        assert page.evaluate(OUT_OF_REACH) == []
        assert page.evaluate("document.documentElement.scrollWidth") <= w, "the page scrolls sideways"
        cls = page.evaluate("window.__cls")
        assert cls < 0.1, f"layout shift {cls:.3f}"
        state = _state(server.url, g["id"], token)
        assert state["round_summary"]["round"] == (6 if who == "finished" else 1)
        page.locator("#round-end").scroll_into_view_if_needed()
        screenshot(page, f"pillars-page-{who}-{size}.png")
    finally:
        ctx.close()
