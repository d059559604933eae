"""The game page of a finished game shows the seat's review (issue 31): the costliest decisions, each
with the position before it in words, the move played and the AI's; in headless Chromium against
the app over real HTTP and a real Redis. TABLEPOST_SKIP_BROWSER=1 skips it."""
from __future__ import annotations

import pytest

from tests.browser import require_browser, screenshot, wait_until
from tests.conftest import LiveServer, make_app
from tests.test_ai_review import create, play_randomly, play_to_the_end

require_browser()


from application.review import Reviews  # noqa: E402


def test_the_finished_game_page_shows_the_five_costliest_decisions(redis_server, browser):
    app = make_app(redis_server.url)
    client = app.test_client()
    gid, tokens = create(client, "review-page", rated=False)
    play_to_the_end(app, gid, tokens)
    doc = Reviews(app.extensions["tablepost.service"], level=2).compute(gid, 0)
    assert doc["costliest"]
    with LiveServer(app) as live:
        page = browser.new_page(viewport={"width": 1366, "height": 900})
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{live.url}/play/{gid}#token={tokens[0]}&review=1")
        wait_until(page, "document.querySelectorAll('#review-list li').length > 0")
        items = page.locator("#review-list li").all_inner_texts()
        assert len(items) == len(doc["costliest"]) <= 5
        first = doc["decisions"][doc["costliest"][0]]
        assert items[0].startswith("Round ") and first["played_words"] in items[0]
        assert first["preferred_words"] in items[0] and "VP more" in items[0]
        assert "costliest" in page.locator("#review-status").inner_text()
        screenshot(page, "review-page.png")
    assert not errors, errors


def _open_costliest(page, doc):
    """Click the costliest decision's link: the replay opens at its step with both moves said."""
    first = doc["decisions"][doc["costliest"][0]]
    link = page.locator("#review-list li a.review-step").first
    assert link.get_attribute("href") == f"#v={first['version']}"
    link.click()
    wait_until(page, f"document.body.dataset.version === '{first['version']}'")
    said = page.locator("#replay-at").inner_text()
    assert f"Step {first['version']} of" in said
    assert first["played_words"] in said and first["preferred_words"] in said and "estimated" in said
    return first


@pytest.mark.parametrize("name", ["carcassonne", "pillars"])
def test_a_reviewed_decision_opens_the_replay_at_its_step_with_both_moves_drawn(redis_server, browser, name):
    """Carcassonne's and Pillars' reviews (the generic search's) on a phone: the costliest
    decision's link opens the replay before it, the move played and the AI's marked on the board
    (Carcassonne: the cells outlined; Pillars: the parts of the board they act on), both said in
    words; the figures are said as estimates, none above the game's bound."""
    app = make_app(redis_server.url)
    client = app.test_client()
    rv = client.post("/api/v1/games", json={"game": name, "options": {"rated": False},
                                            "seats": [{"name": "Ann"}, {"name": "Bob"}]})
    gid, tokens = rv.get_json()["id"], [s["token"] for s in rv.get_json()["seats"]]
    play_randomly(app, gid, tokens, "review-browser")
    doc = Reviews(app.extensions["tablepost.service"], level=2).compute(gid, 0)
    assert doc["costliest"] and all(d["loss"] <= doc["bound"] for d in doc["decisions"])
    with LiveServer(app) as live:
        page = browser.new_page(viewport={"width": 390, "height": 844})
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{live.url}/play/{gid}#token={tokens[0]}")
        wait_until(page, "document.querySelectorAll('#review-list li').length > 0")
        status = page.locator("#review-status").inner_text()
        unit = "VP" if name == "pillars" else "point"
        assert "estimate" in status and f"{doc['total_loss']:g} {unit}" in status
        first = _open_costliest(page, doc)
        assert page.locator("#board-wrap svg .review-played").count() >= 1
        assert page.locator("#board-wrap svg .review-preferred").count() >= 1
        assert "solid orange" in page.locator("#replay-at").inner_text()
        assert page.evaluate("document.documentElement.scrollWidth <= innerWidth + 1"), "no sideways scroll"
        screenshot(page, f"review-decision-{name}-phone.png")
        # the step is a link of its own (#v=N opens the replay there)
        other = browser.new_page(viewport={"width": 390, "height": 844})
        other.goto(f"{live.url}/play/{gid}#v={first['version']}")
        wait_until(other, f"document.body.dataset.version === '{first['version']}'")
    assert not errors, errors


def test_the_tiletum_review_opens_its_steps_on_a_desktop_too(redis_server, browser):
    app = make_app(redis_server.url)
    client = app.test_client()
    gid, tokens = create(client, "review-steps", rated=False)
    play_to_the_end(app, gid, tokens)
    doc = Reviews(app.extensions["tablepost.service"], level=2).compute(gid, 0)
    with LiveServer(app) as live:
        page = browser.new_page(viewport={"width": 1366, "height": 900})
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{live.url}/play/{gid}#token={tokens[0]}&review=1")
        wait_until(page, "document.querySelectorAll('#review-list li').length > 0")
        first = _open_costliest(page, doc)
        # both moves drawn where they are played from: a spot of the map, a die, an offer, an
        # Action, a tile (a move of another kind, such as ending the turn, is said in words only)
        drawn = ("merchant", "architect", "cathedral", "house", "pillar", "take", "char", "contract",
                 "action", "place", "crest", "fulfil", "use", "tile")
        for cls, move in (("review-played", first["played"]), ("review-preferred", first["preferred"])):
            marked = page.locator(f"#board .{cls}").count()
            assert (marked > 0) == (move.split()[0] in drawn), (cls, move, marked)
        screenshot(page, "review-decision-desktop.png")
    assert not errors, errors
