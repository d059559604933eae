"""The table talk on the game page (issue 41) in headless Chromium against the app over real HTTP:
a message one seat sends from its page reaches the other seat's page (woken by the stream's
``talk``), marked new, its HTML shown as text; a spectator's page has no talk at all.
TABLEPOST_SKIP_BROWSER=1 (or no Chromium) skips it, like tests/test_browser.py."""
from __future__ import annotations

import pytest

from tests.browser import wait_until
from tests.conftest import LiveServer, make_app

API = "/api/v1/games"


def test_a_message_from_one_page_reaches_the_other(redis_server, browser):
    from playwright.sync_api import expect
    app = make_app(redis_server.url, RATE_LIMIT=0)
    c = app.test_client()
    rv = c.post(API, json={"game": "carcassonne", "seats": [{"name": "Ada"}, {"name": "Bob"}]})
    gid, tokens = rv.json["id"], [s["token"] for s in rv.json["seats"]]
    with LiveServer(app) as server:
        errors: list[str] = []
        pages = []
        for token in tokens:
            page = browser.new_page(viewport={"width": 390, "height": 844})   # a phone first
            page.set_default_timeout(20_000)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"{server.url}/play/{gid}#token={token}")
            wait_until(page, "!!document.getElementById('talk-form')")
            pages.append(page)
        ada, bob = pages
        ada.fill("#talk-text", "<img src=x onerror=alert(1)> hello Bob")
        ada.click("#talk-form button[type=submit]")
        expect(ada.locator("#talk-list li")).to_have_count(1)
        item = bob.locator("#talk-list li")
        expect(item).to_contain_text("Ada: <img src=x onerror=alert(1)> hello Bob", timeout=40_000)
        expect(item).to_have_class("new")
        assert bob.locator("#talk-list img").count() == 0, "the words are text, never markup"
        expect(bob.locator("#talk-new")).to_have_text("1 new")
        spectator = browser.new_page()
        spectator.goto(f"{server.url}/play/{gid}")
        wait_until(spectator, "document.body.dataset.version === '1'")
        assert spectator.locator("#talk").count() == 0
        assert not errors, errors


def game_with_a_word_from_bob(redis_server):
    """A game of Ada and Bob where Bob has said hello: the app, its test client, the game's id
    and the seats' tokens."""
    app = make_app(redis_server.url, RATE_LIMIT=0)
    c = app.test_client()
    rv = c.post(API, json={"game": "carcassonne", "seats": [{"name": "Ada"}, {"name": "Bob"}]})
    gid, tokens = rv.json["id"], [s["token"] for s in rv.json["seats"]]
    c.post(f"{API}/{gid}/messages", json={"text": "hello from Bob"},
           headers={"Authorization": f"Bearer {tokens[1]}"})
    return app, c, gid, tokens


@pytest.mark.parametrize("viewport", [{"width": 390, "height": 844}, {"width": 1366, "height": 900}])
def test_mute_and_unmute_on_the_page_by_keyboard(redis_server, browser, viewport):
    """Ada mutes Bob from his message, sees him listed as muted, and unmutes him with the
    keyboard alone; the whole game is muted and unmuted with one button."""
    from playwright.sync_api import expect
    app, c, gid, tokens = game_with_a_word_from_bob(redis_server)
    with LiveServer(app) as server:
        errors: list[str] = []
        page = browser.new_page(viewport=viewport)
        page.set_default_timeout(20_000)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{server.url}/play/{gid}#token={tokens[0]}")
        expect(page.locator("#talk-list li")).to_contain_text("hello from Bob")
        expect(page.locator("#talk-muted")).to_be_hidden()
        page.get_by_role("button", name="Mute Bob").focus()
        page.keyboard.press("Enter")
        unmute = page.get_by_role("button", name="Unmute Bob")
        expect(unmute).to_be_visible()
        expect(unmute).to_be_focused()   # the button pressed went with the message: focus is not lost
        expect(page.locator("#talk-list li")).to_have_count(0)
        assert c.get(f"{API}/{gid}/messages", headers={"Authorization": f"Bearer {tokens[0]}"}
                     ).json["muted"]["seats"] == [1]
        page.keyboard.press("Enter")
        expect(page.locator("#talk-muted")).to_be_hidden()
        expect(page.locator("#talk-list li")).to_contain_text("hello from Bob")
        whole = page.locator("#talk-mute-all")
        expect(whole).to_be_focused()
        expect(whole).to_have_text("Mute this game's messages")
        page.keyboard.press("Space")
        expect(whole).to_have_text("Unmute this game's messages")
        expect(whole).to_have_attribute("aria-pressed", "true")
        expect(page.locator("#talk-list li")).to_have_count(0)
        page.keyboard.press("Enter")
        expect(whole).to_have_attribute("aria-pressed", "false")
        expect(page.locator("#talk-list li")).to_have_count(1)
        box = whole.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"], "on screen"
        wide = page.evaluate("document.documentElement.scrollWidth")
        assert wide <= viewport["width"], "no sideways scroll"
        assert not errors, errors


def test_muting_and_unmuting_at_once_leaves_the_list_as_the_last_press_said(redis_server, browser):
    """The whole game muted and at once unmuted, while the list read after the first press is still
    on its way (its answer held back, then let through): that answer, of the muted list, is dropped,
    not shown in the unmuted one, and the button stays as the last press left it."""
    from playwright.sync_api import expect
    app, c, gid, tokens = game_with_a_word_from_bob(redis_server)
    with LiveServer(app) as server:
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.set_default_timeout(20_000)
        page.goto(f"{server.url}/play/{gid}#token={tokens[0]}")
        expect(page.locator("#talk-list li")).to_contain_text("hello from Bob")
        held, hold = [], [True]

        def read_route(route):
            if hold[0]:
                held.append((route, route.fetch()))   # answered by the server now, delivered later
            else:
                route.continue_()
        page.route("**/messages?after=*", read_route)
        whole = page.locator("#talk-mute-all")
        whole.click()                                   # mute the game
        expect(whole).to_have_attribute("aria-pressed", "true")
        for _ in range(200):                            # the muted list's read, held
            if held:
                break
            page.wait_for_timeout(50)
        assert held, "the list was not read again after the mute"
        hold[0] = False
        whole.click()                                   # unmute it while that read is out
        expect(whole).to_have_attribute("aria-pressed", "false")
        for route, answer in held:
            route.fulfill(response=answer)              # the muted list's answer arrives last
        expect(page.locator("#talk-list li")).to_have_count(1)
        expect(page.locator("#talk-list li")).to_contain_text("hello from Bob")
        page.wait_for_timeout(500)
        expect(whole).to_have_attribute("aria-pressed", "false")
        expect(page.locator("#talk-list li")).to_have_count(1)
        assert c.get(f"{API}/{gid}/messages", headers={"Authorization": f"Bearer {tokens[0]}"}
                     ).json["muted"]["all"] is False
