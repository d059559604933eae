"""The game page of a finished game shows the seat's review (issue 31): the costliest decisions, each
with the position before it in words, the move played and the AI's; in headless Chromium against
the app over real HTTP and a real Redis. TILETUM_SKIP_BROWSER=1 skips it."""
from __future__ import annotations

from tests.browser import require_browser, screenshot, wait_until
from tests.conftest import LiveServer, make_app
from tests.test_ai_review import create, play_to_the_end

require_browser()


from application.review import Reviews  # noqa: E402


def test_the_finished_game_page_shows_the_five_costliest_decisions(redis_server, browser):
    app = make_app(redis_server.url)
    client = app.test_client()
    gid, tokens = create(client, "review-page", rated=False)
    play_to_the_end(app, gid, tokens)
    doc = Reviews(app.extensions["tiletum.service"], level=2).compute(gid, 0)
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
