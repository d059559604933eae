"""Each game's page reads on a phone and on a desktop (issue 53, "A board that reads on a phone"),
in headless Chromium against the app over real HTTP, at 390x844 and at 1366x900:

* no visible text under 12 CSS pixels: an HTML element's computed font size, an SVG label's
  font size times the scale the board is drawn at (its screen matrix): the board pans or zooms
  rather than shrink its words;
* nothing clipped: no text runs out of a box that hides its overflow, nothing runs past the
  screen's right edge unless it lies in a box that pans (overflow auto/scroll: the board's), the
  page itself never scrolls sideways, and no label of a board is cut short ("a neg...");
* the decision in the first screen: the seat to play sees what it decides on without scrolling
  (Carcassonne's tile in hand; every game's moves or the board's parts to tap).

And the finished page (the same pages once the game is over): no "Your turn" over the game's end,
no request that fails (GET /rematch answered 404 on every finished page), a replay's status that
does not say "(you)" to play beside the winner, and the seats' names linking to their public
profiles (only where public; no address anywhere in the page).
TABLEPOST_SKIP_BROWSER=1 (or no Chromium) skips it, like tests/test_browser.py."""
from __future__ import annotations

import pytest

from tests.browser import english_left, require_browser, screenshot, wait_until

require_browser()

from carcassonne.playout import random_game as carcassonne_game  # noqa: E402
from pillars.playout import random_game as pillars_game  # noqa: E402
from tests.conftest import LiveServer, make_app  # noqa: E402
from tiletum.playout import random_game as tiletum_game  # noqa: E402

API = "/api/v1/games"
PLAYOUTS = {"tiletum": tiletum_game, "carcassonne": carcassonne_game, "pillars": pillars_game}
SIZES = [(390, 844), (1366, 900)]
MOVES = {"tiletum": 40, "carcassonne": 30, "pillars": 25}   # a board with pieces on it, mid-game

# What the page shows, measured in the page: the visible text under 12 px, the text that runs out of
# its box or off the screen outside a panning box, and whether the page scrolls sideways.
MEASURE = """() => {
  const small = [], clipped = [];
  const vw = document.documentElement.clientWidth;
  const pans = el => { for (let e = el.parentElement; e; e = e.parentElement) {
    const o = getComputedStyle(e).overflowX; if (o === "auto" || o === "scroll") return e; } return null; };
  for (const el of document.querySelectorAll("body *")) {
    if (el.closest("title, script, style, #sprite, defs, symbol")) continue;
    const own = [...el.childNodes].filter(n => n.nodeType === 3 && n.textContent.trim())
      .map(n => n.textContent).join("").trim();
    if (!own) continue;
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height) continue;
    const cs = getComputedStyle(el);
    if (cs.visibility === "hidden" || parseFloat(cs.opacity) === 0) continue;
    let px = parseFloat(cs.fontSize);
    if (el instanceof SVGElement) {
      const m = el.getScreenCTM();
      px *= Math.sqrt(Math.abs(m.a * m.d - m.b * m.c));
      const svg = el.ownerSVGElement, box = svg.viewBox.baseVal, b = el.getBBox();
      if (box && box.width && (b.x < box.x - 1 || b.x + b.width > box.x + box.width + 1))
        clipped.push("past the picture's edge: " + own);
    } else if (el.scrollWidth > el.clientWidth + 1 && el.clientWidth
               && !["visible", "auto", "scroll"].includes(cs.overflowX)) {
      clipped.push("cut in its box: " + own);
    }
    if (/(\\.\\.\\.|\u2026)$/.test(own) && el instanceof SVGElement) clipped.push("cut short: " + own);
    if (px < 11.95) small.push(own.slice(0, 40) + " @" + px.toFixed(1));
    if (r.right > vw + 1 && !pans(el)) clipped.push("off the screen: " + own.slice(0, 40));
  }
  return {small, clipped, sideways: document.documentElement.scrollWidth > vw + 1};
}"""


def _game(c, game: str, moves: int, names=("Ada", "Bob"), emails=(None, None)) -> tuple[str, list[str], int]:
    """A two-seat game of ``game`` after ``moves`` moves of its seeded random playout; and the seat
    to act."""
    seed = f"phone-{game}"
    rv = c.post(API, json={"game": game, "options": {"seed": seed},
                           "seats": [{"name": n, **({"email": e} if e else {})}
                                     for n, e in zip(names, emails)]})
    assert rv.status_code == 201, rv.json
    gid, tokens = rv.json["id"], [s["token"] for s in rv.json["seats"]]
    events = PLAYOUTS[game](2, seed).events[1:]
    for v, ev in enumerate(events[:moves], start=1):
        rv = c.post(f"{API}/{gid}/moves", headers={"Authorization": f"Bearer {tokens[ev['seat']]}"},
                    json={"expected_version": v, "moves": [ev["move"]]})
        assert rv.status_code == 200, rv.json
    return gid, tokens, c.get(f"{API}/{gid}").json["to_act"][0]


def _measure(page) -> dict:
    return page.evaluate(MEASURE)


# each game's page in English, German and French (longer words)
PAGES = [pytest.param(game, "en", id=game) for game in ("tiletum", "carcassonne", "pillars")] + [
    pytest.param(game, lang, id=f"{game}-{lang}")
    for game in ("tiletum", "carcassonne", "pillars") for lang in ("de", "fr")]


@pytest.mark.parametrize("game, lang", PAGES)
def test_the_page_reads_on_a_phone_and_a_desktop(redis_server, browser, game, lang):
    app = make_app(redis_server.url, RATE_LIMIT=0)
    c = app.test_client()
    gid, tokens, actor = _game(c, game, MOVES[game])
    with LiveServer(app) as server:
        for w, h in SIZES:
            page = browser.new_page(viewport={"width": w, "height": h})
            page.set_default_timeout(20_000)
            asked = "" if lang == "en" else f"?lang={lang}"
            page.goto(f"{server.url}/play/{gid}{asked}#token={tokens[actor]}&stream=0")
            wait_until(page, "document.body.dataset.version && !document.querySelector('main.loading')")
            page.wait_for_timeout(200)   # the board's first scroll and zoom
            if lang != "en":   # the board came in the page's language
                said = {"de": {"carcassonne": "Seiten: ", "pillars": "Kathedrale:", "tiletum": "Kathedrale"},
                        "fr": {"carcassonne": "Côtés : ", "pillars": "Cathédrale :",
                               "tiletum": "Cathédrale"}}[lang][game]
                wait_until(page, f"document.body.innerHTML.includes({said!r})")
                # the visible text is in the language: none of the catalogs' English messages
                assert page.evaluate("document.documentElement.lang") == lang
                text = page.evaluate("document.body.innerText")
                left = [m for m in english_left(lang) if m in text]
                assert not left, f"{game} in {lang} at {w}px: English left visible: {left[:8]}"
            found = _measure(page)
            screenshot(page, f"phone-{game}{'' if lang == 'en' else '-' + lang}-{w}.png")
            assert not found["small"], f"{game} at {w}px: text under 12 px: {found['small'][:12]}"
            assert not found["clipped"], f"{game} at {w}px: {found['clipped'][:12]}"
            assert not found["sideways"], f"{game} at {w}px: the page scrolls sideways"
            # the decision in the first screen: what the seat decides on, without scrolling
            first = {"carcassonne": "#hand", "tiletum": "#board-wrap", "pillars": "#moves"}[game]
            box = page.locator(first).bounding_box()
            assert box and box["y"] >= 0 and box["y"] + min(box["height"], 96) <= h, \
                f"{game} at {w}px: {first} is below the first screen ({box})"
            if game == "carcassonne":
                assert box["y"] + box["height"] <= h, f"the tile in hand is cut by the fold at {w}px"
            page.close()


@pytest.mark.parametrize("game", ["tiletum", "carcassonne", "pillars"])
def test_the_finished_page_and_its_replay(redis_server, browser, game):
    from playwright.sync_api import expect
    app = make_app(redis_server.url, RATE_LIMIT=0)
    c = app.test_client()
    r = app.extensions["tablepost.service"].store.r
    gid, tokens, _ = _game(c, game, 4, names=("Nina", "Robo"),
                           emails=("nina@example.org", "robo@example.org"))
    # Robo has a public profile; Nina has a handle, not public: her name stays text, and no
    # address shows anywhere
    from application.players import player_id
    from application.profiles import profile_key
    r.hset(profile_key(player_id(r, "robo@example.org")), mapping={"handle": "Robo_7", "public": 1})
    r.hset(profile_key(player_id(r, "nina@example.org")), mapping={"handle": "Nina_9", "public": 0})
    # Nina resigns: the game is over and Robo wins
    rv = c.post(f"{API}/{gid}/resign", headers={"Authorization": f"Bearer {tokens[0]}"})
    assert rv.status_code == 200, rv.json
    with LiveServer(app) as server:
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.set_default_timeout(20_000)
        failed: list[str] = []
        page.on("response",
                lambda resp: failed.append(f"{resp.status} {resp.url}") if resp.status >= 400 else None)
        page.goto(f"{server.url}/play/{gid}#token={tokens[0]}&stream=0")
        wait_until(page, "document.body.dataset.version && !document.querySelector('main.loading')")
        expect(page.locator("#result")).to_contain_text("Robo")
        expect(page.locator("#play")).to_be_hidden()          # no "Your turn" over the game's end
        assert "Your turn" not in page.evaluate("document.body.innerText")
        expect(page.get_by_role("button", name="Play again")).to_be_visible()
        page.wait_for_timeout(300)
        assert not failed, failed                              # no GET /rematch 404 (nor any other)
        # the names lead to the public profile only
        link = page.locator("#title a")
        expect(link).to_have_count(1)
        expect(link).to_have_attribute("href", "/players/Robo_7")
        expect(link).to_have_text("Robo")
        assert "robo@example.org" not in page.content()
        # the replay of the finished game: a step where Nina was to play says the step, not "(you)"
        # beside "Robo wins"
        page.locator("#replay-first").click()
        wait_until(page, "document.body.dataset.version === '1'")
        expect(page.locator("#status")).to_contain_text("Step 1 of")
        expect(page.locator("#result")).to_be_hidden()
        status = page.locator("#status").text_content()
        assert "wins" not in status
        page.locator("#replay-live").click()
        wait_until(page, "!document.body.classList.contains('replaying')")
        expect(page.locator("#result")).to_be_visible()
        screenshot(page, f"finished-{game}.png")
