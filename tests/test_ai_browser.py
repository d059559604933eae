"""AI seats in the browser: a game with two AI seats created from /play/new, the player's own
seat opened, a turn played by clicking, and the AI seats answering, named as AI seats on the
page. Against a real `tablepost serve` (its workers play the AI seats). Skipped like
tests/test_browser.py (tests/browser.py)."""
from __future__ import annotations

from tests.browser import require_browser

require_browser()

from playwright.sync_api import expect  # noqa: E402

from tests.test_browser import (WAIT_MS, page, play_turn_by_clicking, server,  # noqa: E402,F401
                                wait_my_decision)


def test_create_a_game_with_two_ai_seats_on_play_new_and_see_them_answer(server, page):  # noqa: F811
    page.goto(server + "/play/new")
    page.get_by_label("Player 1 name").fill("Ada")
    page.get_by_label("Player 2 name").fill("Robo")
    page.locator("#by-1").select_option("ai:easy")
    page.get_by_label("Player 3 name").fill("Tron")
    page.locator("#by-2").select_option("ai:medium")
    page.locator("summary").click()
    page.get_by_label("Seed").fill("browser-ai")
    page.get_by_role("button", name="Create the game").click()
    expect(page.locator("input.seat-link")).to_have_count(1)          # only the person gets a link
    expect(page.locator("#links")).to_contain_text("Robo (the AI plays this seat by itself)")
    page.get_by_role("button", name="Open my seat").click()
    wait_my_decision(page)
    expect(page.locator("#status")).to_contain_text("Ada (you)")
    expect(page.locator("#scores")).to_contain_text("Robo (AI, easy)")
    expect(page.locator("h1")).to_have_text("Tiletum: Ada, Robo (AI, easy) and Tron (AI, medium)")
    clicked = play_turn_by_clicking(page)
    assert clicked[0].startswith("take ") and clicked[-1] == "end"
    expect(page.locator("#history")).to_contain_text("Robo (AI, easy) took the ", timeout=WAIT_MS * 3)
    expect(page.locator("#history")).to_contain_text("Tron (AI, medium) took the ", timeout=WAIT_MS * 3)
