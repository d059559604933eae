"""The tournament pages in headless Chromium against the app over real HTTP: an organizer creates
a tournament on /tournaments, a player asks to enter by the invitation link and confirms by the
emailed link (the email's task is caught here: tests/test_lobby_oracle.py sends it), the organizer starts it,
the player follows "my games" to the game page as their seat and then withdraws; the standings
show the withdrawal. Skipped like tests/test_browser.py (tests/browser.py)."""
from __future__ import annotations

import re
import uuid

from tests.browser import require_browser, screenshot
from tests.conftest import LiveServer, make_app

require_browser()

from playwright.sync_api import expect  # noqa: E402


def test_create_enter_start_play_and_withdraw_in_the_browser(redis_server, browser):
    sent: list = []
    app = make_app(redis_server.url, SEND_TASK=lambda name, args, queue: sent.append((name, args)))
    name = f"Autumn Cup {uuid.uuid4().hex[:6]}"
    with LiveServer(app) as server:
        page = browser.new_page(viewport={"width": 1000, "height": 900})
        page.set_default_timeout(20_000)
        page.goto(f"{server.url}/tournaments")
        page.get_by_label("Name", exact=True).fill(name)
        page.get_by_label("Format").select_option("round_robin")
        page.locator("#entries").fill("Ann <ann@t.test>\nBob <bob@t.test>")
        page.get_by_role("button", name="Create the tournament").click()
        expect(page.locator("#created")).to_be_visible()
        invite = page.locator("#invite-link").text_content()
        assert "#invite=" in invite and "?" not in invite, "secrets only in the fragment"
        organizer = page.locator("#organizer-link").get_attribute("href")
        expect(page.locator("#list")).to_contain_text(name)

        # a third player enters with the invitation link
        page.goto(invite)
        expect(page.locator("#join")).to_be_visible()
        page.get_by_label("Your name").fill("Cy")
        page.get_by_label("Your email", exact=False).fill("cy@t.test")
        page.get_by_role("button", name="Enter").click()
        expect(page.locator("#join-sent")).to_be_visible()
        expect(page.locator("#mine")).to_be_hidden()
        # the emailed link confirms the entry
        from application.tournament_service import TournamentService
        tid, nonce = next(args for name, args in sent if name == "workers.tournament_entry_ask")
        ts = app.extensions["tablepost.tournaments"]
        assert isinstance(ts, TournamentService)
        page.goto(f"{server.url}/tournaments/{tid}#confirm={ts.confirm_token(tid, nonce)}")
        expect(page.locator("#mine")).to_be_visible()
        my_link = page.locator("#my-link").text_content()
        assert "#entry=" in my_link
        expect(page.locator("#standings tr")).to_have_count(3)

        # the organizer starts it: round 1 is seated
        page.goto(organizer)
        page.get_by_role("button", name="Start now").click()
        expect(page.locator("#rounds h3").first).to_contain_text("Round 1")
        expect(page.locator("#organize")).to_be_hidden()
        screenshot(page, "tournament.png")

        # the player's games link to the game page as their seat
        page.goto(my_link)
        games = page.locator("#my-games a")
        expect(games.first).to_be_visible()
        href = games.first.get_attribute("href")
        assert re.fullmatch(r"/play/[A-Za-z0-9]+#token=.+", href), href
        page.goto(server.url + href)
        expect(page.locator("#status")).to_contain_text("Round 1")

        # and withdraws: the standings mark them, their unfinished games go to the stand-in
        page.goto(my_link)
        page.on("dialog", lambda d: d.accept())
        page.get_by_role("button", name="Withdraw from the tournament").click()
        expect(page.locator("#withdraw")).to_be_hidden()
        expect(page.locator("#standings td.withdrawn")).to_have_text("Cy")


def test_a_carcassonne_tournament_from_the_form(redis_server, browser):
    """The form's game choice: the list and the tournament page say Carcassonne, and its round's
    game is a Carcassonne game (the served summary)."""
    import requests
    app = make_app(redis_server.url)
    name = f"Carc Cup {uuid.uuid4().hex[:6]}"
    with LiveServer(app) as server:
        page = browser.new_page(viewport={"width": 1000, "height": 900})
        page.set_default_timeout(20_000)
        page.goto(f"{server.url}/tournaments")
        page.get_by_label("Name", exact=True).fill(name)
        page.locator("#game").select_option("carcassonne")
        page.get_by_label("Format").select_option("knockout")
        page.locator("#entries").fill("Ann <ann@c.test>\nBob <bob@c.test>")
        page.get_by_role("button", name="Create the tournament").click()
        expect(page.locator("#created")).to_be_visible()
        expect(page.locator("#list tr", has_text=name)).to_contain_text("Carcassonne")
        page.goto(page.locator("#organizer-link").get_attribute("href"))
        expect(page.locator("#status")).to_contain_text("Carcassonne, knockout")
        page.get_by_role("button", name="Start now").click()
        expect(page.locator("#rounds h3").first).to_contain_text("Round 1")
        game = page.locator("#rounds a").first.get_attribute("href").rsplit("/", 1)[1]
        assert requests.get(f"{server.url}/api/v1/games/{game}",
                            timeout=10).json()["game"] == "carcassonne"
