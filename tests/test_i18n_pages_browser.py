"""The pages in German and French in a browser (issue 53): headless Chromium against the app over
real HTTP, per language, on the home page, the new-game page and a game page (the generic game
page, served for a game whose own page is taken away: tests/test_generic_game_page.py). The
footer's switch chooses the language and the next page remembers it (the cookie); ``<html lang>``
says it; the visible text is in that language: the words the scripts write included, and none of
the page's English messages left visible. The games' own texts (the moves' words, the history) are
English in this increment and are not looked at. TABLEPOST_SKIP_BROWSER=1 skips it."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import requests

from api import pages
from tablepost import i18n
from tablepost.page_text import extract_page
from tests.browser import require_browser, screenshot, wait_until
from tests.conftest import LiveServer, make_app

require_browser()

ROOT = Path(__file__).resolve().parents[1]
STATIC = ROOT / "api" / "static"
# what each language says, as a reader sees it (from its catalog: tablepost/translations)
SAID = {
    "de": {"home": "Brettspiele in deinem Tempo", "switch": "Deutsch", "new": "Spiel erstellen",
           "heading": "Neues Spiel: Carcassonne", "players": "2–5 Spieler",
           "to_move": "Am Zug: Ada (du).", "turn": "Du bist am Zug", "waiting": "Du bist nicht am Zug",
           "replay": "Wiederholung", "no_game": "Gerade läuft kein Spiel", "round": "Runde "},
    "fr": {"home": "Des jeux de société à votre rythme", "switch": "Français", "new": "Créer la partie",
           "heading": "Nouvelle partie : Carcassonne", "players": "2 à 5 joueurs",
           "to_move": "Au trait : Ada (vous).", "turn": "À vous de jouer",
           "waiting": "Ce n’est pas votre tour",
           "replay": "Rejouer la partie", "no_game": "Aucune partie n’est en cours", "round": "Manche "},
}


def english_messages(lang: str, *files: str) -> list[str]:
    """The English messages of page files (their markup's and their scripts'), as a reader would
    see them: the placeholders' parts, the tags dropped, the short ones left out, and those the
    language writes the same ("Fairness (JSON)")."""
    tr = i18n.translator(lang)
    out = []
    for name in files:
        with open(STATIC / name, "rb") as fp:
            for _line, _func, messages, _comments in extract_page(fp, None, [], {}):
                for m in (messages if isinstance(messages, tuple) else (messages,)):
                    if not m or tr.gettext(m) == m:
                        continue
                    for part in re.split(r"\{\w+\}|<[^>]+>", m):
                        part = part.strip(" .,:;()")
                        if len(part) >= 12 and " " in part:
                            out.append(part)
    return out


def visible_english(page, files: tuple[str, ...]) -> list[str]:
    text = page.evaluate("document.body.innerText")
    return [m for m in english_messages(page.evaluate("document.documentElement.lang"), *files) if m in text]


@pytest.fixture()
def without_its_own_page(monkeypatch):
    own = {k: v for k, v in pages.GAME_PAGES.items() if k != "carcassonne"}
    monkeypatch.setattr(pages, "GAME_PAGES", own)


@pytest.mark.parametrize("lang", ["de", "fr"])
def test_home_new_game_and_a_game_page_in_the_language(redis_server, browser, without_its_own_page, lang):
    from playwright.sync_api import expect
    said = SAID[lang]
    with LiveServer(make_app(redis_server.url)) as server:
        http = requests.Session()
        context = browser.new_context(locale="en-GB", viewport={"width": 1200, "height": 900})
        page = context.new_page()
        page.set_default_timeout(20_000)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
        # the browser says English: the home page is English, until the footer's switch is used
        page.goto(f"{server.url}/")
        assert page.evaluate("document.documentElement.lang") == "en"
        page.locator(f".site-languages a[hreflang={lang}]").click()
        page.wait_for_url(re.compile(rf"\?lang={lang}$"))
        assert page.evaluate("document.documentElement.lang") == lang
        expect(page.locator("h1")).to_have_text(said["home"])
        expect(page.locator(".site-languages a[aria-current]")).to_have_text(said["switch"])
        # the script's words: the games in progress (the session's Redis may hold some), or none
        wait_until(page, "document.querySelector('#live li') "
                         "|| !document.getElementById('live-status').textContent.endsWith('…')")
        live = page.locator("#live").inner_text() + page.locator("#live-status").inner_text()
        assert said["no_game"] in live or said["round"] in live, live
        assert visible_english(page, ("home.html",)) == []
        screenshot(page, f"i18n-home-{lang}.png")

        # the next page, without ?lang=: the choice is remembered
        page.goto(f"{server.url}/play/new?game=carcassonne")
        assert page.evaluate("document.documentElement.lang") == lang
        expect(page.locator("#heading")).to_have_text(said["heading"])          # the script's words
        expect(page.locator("#create-button")).to_have_text(said["new"])
        expect(page.locator("#kind-multi-words")).to_have_text(said["players"])
        assert visible_english(page, ("new_game.html",)) == []
        screenshot(page, f"i18n-new-game-{lang}.png")

        # a game page, opened with a seat's token in the fragment
        g = http.post(f"{server.url}/api/v1/games", timeout=10, json={
            "game": "carcassonne", "seats": [{"name": "Ada"}, {"name": "Bob"}],
            "options": {"seed": "i18n-browser"}}).json()
        gid, token = g["id"], g["seats"][0]["token"]
        page.goto(f"{server.url}/play/{gid}#token={token}")
        wait_until(page, "Number(document.body.dataset.version || 0) > 0")
        assert page.evaluate("document.documentElement.lang") == lang
        expect(page.locator("#status")).to_contain_text(said["to_move"])
        expect(page.locator("#play-h")).to_have_text(said["turn"])
        expect(page.locator("#replay-h")).to_have_text(said["replay"])          # game-page.js's words
        assert visible_english(page, ("game.html", "game-page.js", "talk.js")) == []
        screenshot(page, f"i18n-game-{lang}.png")
        # a move: the other seat's turn, said in the language
        page.locator("#moves button.move").first.click()
        expect(page.locator("#hint")).to_contain_text(said["waiting"])
        # what happened, from the API in the page's language (the browser itself asks for en-GB: the
        # page's scripts send Accept-Language, game-page.js)
        events = http.get(f"{server.url}/api/v1/games/{gid}/events?lang={lang}", timeout=10).json()["events"]
        english = http.get(f"{server.url}/api/v1/games/{gid}/events", timeout=10).json()["events"]
        assert events[-1]["text"] != english[-1]["text"]
        expect(page.locator("#history")).to_contain_text(events[-1]["text"])

        # the switch on the game page keeps the seat (the fragment stays in the browser)
        other = "fr" if lang == "de" else "de"
        page.locator(f".site-languages a[hreflang={other}]").click()
        page.wait_for_url(re.compile(rf"\?lang={other}#token="))
        wait_until(page, "Number(document.body.dataset.version || 0) > 0")
        assert page.evaluate("document.documentElement.lang") == other
        expect(page.locator("#hint")).to_contain_text(SAID[other]["waiting"])
        assert errors == [], errors
        context.close()
