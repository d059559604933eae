"""The pages in German and French in a browser (issue 53): headless Chromium against the app over
real HTTP, per language, on the home page, the new-game page and a game page (the generic game
page, served for a game whose own page is taken away: tests/test_generic_game_page.py), and the games'
own pages of Carcassonne and The Pillars of the Earth (their words from the games' own catalogs). The
footer's switch chooses the language and the next page remembers it (the cookie); ``<html lang>``
says it; the visible text is in that language: the words the scripts write included, and none of
the page's English messages left visible. The games' own texts (the moves' words, the history) are
English in this increment and are not looked at. TABLEPOST_SKIP_BROWSER=1 skips it."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import requests

from api import page_i18n, pages
from tablepost.page_text import extract_game_page, extract_page
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
           "replay": "Wiederholung", "no_game": "Gerade läuft kein Spiel", "round": "Runde ",
           "option": "Aktionsplättchen", "solo": "Solo gegen Cardinalbot", "level": "Kardinaldiakon"},
    "fr": {"home": "Des jeux de société à votre rythme", "switch": "Français", "new": "Créer la partie",
           "heading": "Nouvelle partie : Carcassonne", "players": "2 à 5 joueurs",
           "to_move": "Au trait : Ada (vous).", "turn": "À vous de jouer",
           "waiting": "Ce n’est pas votre tour",
           "replay": "Rejouer la partie", "no_game": "Aucune partie n’est en cours", "round": "Manche ",
           "option": "Tuiles Action", "solo": "En solo contre le Cardinalbot", "level": "Cardinal-diacre"},
}


def english_messages(lang: str, *files: str, game: str | None = None) -> list[str]:
    """The English messages of page files (their markup's and their scripts'), as a reader would
    see them: the placeholders' parts, the tags dropped, the short ones left out, and those the
    language writes the same ("Fairness (JSON)"); with ``game``, of that game's own page (its
    messages from its catalog, then the platform's, as the page says them)."""
    tr = page_i18n.translator(lang, pages.own_catalogs(pages.GAME_PAGE_PREFIX + game) if game else None)
    out = []
    for name in files:
        with open(STATIC / name, "rb") as fp:
            extract = extract_game_page if game and name == f"{game}.html" else extract_page
            for _line, _func, messages, _comments in extract(fp, None, [], {}):
                for m in (messages if isinstance(messages, tuple) else (messages,)):
                    if not m or tr.gettext(m) == m:
                        continue
                    for part in re.split(r"\{\w+\}|<[^>]+>", m):
                        part = part.strip(" .,:;()")
                        if len(part) >= 12 and " " in part:
                            out.append(part)
    return out


def visible_english(page, files: tuple[str, ...], game: str | None = None, without: str = "") -> list[str]:
    """The English messages of ``files`` visible on the page (``without``: a selector of the parts that
    hold the API's texts, which are the API's to say: left out)."""
    text = page.evaluate("""without => {
      const hidden = without ? [...document.querySelectorAll(without)] : [];
      hidden.forEach(el => { el.dataset.was = el.style.display; el.style.display = "none"; });
      const text = document.body.innerText;
      hidden.forEach(el => { el.style.display = el.dataset.was; });
      return text;
    }""", without)
    lang = page.evaluate("document.documentElement.lang")
    return [m for m in english_messages(lang, *files, game=game) if m in text]


def _english_browser(browser):
    """A browser context that says English (``Accept-Language``), a page of it, and the page's script
    errors and Content-Security-Policy refusals as they come."""
    context = browser.new_context(locale="en-GB", viewport={"width": 1200, "height": 900})
    page = context.new_page()
    page.set_default_timeout(20_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
    return context, page, errors


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
        context, page, errors = _english_browser(browser)
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
        # a game's declared words (its options, its automa's levels), from the catalog in the language
        page.goto(f"{server.url}/play/new?game=tiletum")
        expect(page.locator("#own-options")).to_contain_text(said["option"])
        expect(page.locator("#kind-solo-words")).to_contain_text(said["solo"])
        expect(page.locator("#level")).to_contain_text(said["level"])

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


# what the games' own pages say, from the games' own catalogs (carcassonne/translations, pillars/translations,
# tiletum/translations)
OWN = {
    "de": {"carcassonne": {"hand": "Das Plättchen auf der Hand", "left": "Gefolgsleute im Vorrat",
                           "hint": "Tippe auf ein hervorgehobenes Feld", "attribution": "Plättchendaten",
                           "placed": "Dein Plättchen (", "none": "Lege es ohne Gefolgsmann",
                           "board": "Der Spielplan: die gelegten Plättchen"},
           "pillars": {"title": "Die Säulen der Erde", "status": "Runde 1 von 6. Am Zug: ",
                       "head": "Handwerker",
                       "attribution": "Grundspiel", "board": "Der Spielplan: die Felder",
                       "hint": "Klicke auf einen hervorgehobenen Teil"},
           "tiletum": {"status": "Runde 1 von 4, Aktionsphase (Durchgang 1 von 3). Am Zug: ",
                       "scores": "Ada 10 SP", "wheel": "Aktionsrad",
                       "hint": "tippe auf einen hervorgehobenen Teil",
                       "take": "Einen Würfel nehmen", "moves": "Deine Züge", "fairness": "Fairness-Prüfung",
                       "board": "Der Spielplan: die Karte, das Aktionsrad", "several": "wähle einen",
                       "choose": "wähle einen Zug"}},
    "fr": {"carcassonne": {"hand": "La tuile en main", "left": "Partisans en réserve",
                           "hint": "Touchez une case en surbrillance", "attribution": "Données des tuiles",
                           "placed": "Votre tuile (", "none": "Poser sans partisan",
                           "board": "Le plateau : les tuiles posées"},
           "pillars": {"title": "Les Piliers de la Terre", "status": "Manche 1 sur 6. Au trait : ",
                       "head": "Artisans", "attribution": "jeu de base", "board": "Le plateau : les lieux",
                       "hint": "Cliquez sur une partie du plateau"},
           "tiletum": {"status": "Manche 1 sur 4, phase d’actions (tour 1 sur 3). Au trait : ",
                       "scores": "Ada 10 PV", "wheel": "Roue d’actions",
                       "hint": "touchez une partie en surbrillance",
                       "take": "Prendre un dé", "moves": "Vos coups", "fairness": "Vérification de l’équité",
                       "board": "Le plateau : la carte, la roue d’actions", "several": "choisissez-en un",
                       "choose": "choisissez un coup"}},
}
SHARED = ("game-page.js", "talk.js")


def _open_acting_seat(page, server, http, game: str, seed: str) -> None:
    """The game's page opened with the token of the seat to move (a new game of Ada and Bob)."""
    g = http.post(f"{server.url}/api/v1/games", timeout=10, json={
        "game": game, "seats": [{"name": "Ada"}, {"name": "Bob"}], "options": {"seed": seed}}).json()
    for seat in (0, 1):
        page.goto(f"{server.url}/play/{g['id']}#token={g['seats'][seat]['token']}")
        wait_until(page, "Number(document.body.dataset.version || 0) > 0")
        if page.evaluate("actorOf(state) === state.viewer"):
            return
    raise AssertionError("no seat to move")


@pytest.mark.parametrize("lang", ["de", "fr"])
def test_the_games_own_pages_in_the_language(redis_server, browser, lang):
    """Carcassonne's, The Pillars of the Earth's and Tiletum's own pages: their status, their players'
    table (Tiletum's: its scores line), their board's parts and choices and their attribution
    (Tiletum's page has none) in the language, none of their English messages visible (the games'
    texts from the API aside: the moves' and events' words)."""
    from playwright.sync_api import expect
    said, own = SAID[lang], OWN[lang]
    with LiveServer(make_app(redis_server.url)) as server:
        http = requests.Session()
        context, page, errors = _english_browser(browser)
        page.goto(f"{server.url}/?lang={lang}")   # the choice, remembered for the game pages

        # --- Carcassonne: the tile in hand, a cell chosen on the board, its follower choices ---------
        _open_acting_seat(page, server, http, "carcassonne", "i18n-own-carcassonne")
        c = own["carcassonne"]
        assert page.evaluate("document.documentElement.lang") == lang
        expect(page.locator("#status")).to_contain_text(said["to_move"])
        expect(page.locator("#hand-h")).to_have_text(c["hand"])
        expect(page.locator("#seats-h + table thead")).to_contain_text(c["left"])
        expect(page.locator("#attribution")).to_contain_text(c["attribution"])
        expect(page.locator("#hint")).to_contain_text(c["hint"])
        assert page.locator("#board-wrap svg").get_attribute("aria-label").startswith(c["board"])
        page.locator("#board-wrap .fit-cell").first.click()
        expect(page.locator("#placement-text")).to_contain_text(c["placed"])
        expect(page.locator("#followers")).to_contain_text(c["none"])
        assert visible_english(page, ("carcassonne.html", *SHARED), game="carcassonne") == []
        screenshot(page, f"i18n-carcassonne-{lang}.png")

        # --- The Pillars of the Earth: the round, the players' table, the board's parts ---------------
        _open_acting_seat(page, server, http, "pillars", "i18n-own-pillars")
        p = own["pillars"]
        assert page.evaluate("document.documentElement.lang") == lang
        expect(page.locator("#title")).to_contain_text(p["title"])
        assert page.title().startswith(p["title"])
        expect(page.locator("#status")).to_contain_text(p["status"])
        expect(page.locator("#seats-h + table thead")).to_contain_text(p["head"])
        expect(page.locator("#attribution")).to_contain_text(p["attribution"])
        expect(page.locator("#hint")).to_contain_text(p["hint"])
        assert page.locator("#board-wrap svg").get_attribute("aria-label").startswith(p["board"])
        assert visible_english(page, ("pillars.html", *SHARED), game="pillars") == []
        screenshot(page, f"i18n-pillars-{lang}.png")

        # --- Tiletum: the round and phase, the players' scores, the board's parts, the moves' groups ----
        _open_acting_seat(page, server, http, "tiletum", "i18n-own-tiletum")
        t = own["tiletum"]
        assert page.evaluate("document.documentElement.lang") == lang
        expect(page.locator("#status")).to_contain_text(t["status"])
        expect(page.locator("#scores")).to_contain_text(t["scores"])
        expect(page.locator("#play-h")).to_have_text(t["moves"])
        expect(page.locator("#show-wheel")).to_have_text(t["wheel"])
        expect(page.locator("#board-hint")).to_contain_text(t["hint"])
        expect(page.locator("#moves .verb h3").first).to_have_text(t["take"])
        expect(page.locator("#fairness-link")).to_have_text(t["fairness"])
        assert page.locator("#board-wrap svg").get_attribute("aria-label").startswith(t["board"])
        # a board part that several moves are played from: its label and its choice's heading
        labels = page.evaluate("[...document.querySelectorAll('#board-wrap .can')]"
                               ".map(e => e.getAttribute('aria-label'))")
        several = [x for x in labels if t["several"] in x]
        assert labels and not [x for x in labels if "choose one" in x], labels
        if several:
            page.locator("#board-wrap .can[aria-label*='" + t["several"] + "']").first.click()
            expect(page.locator("#choice-h")).to_contain_text(t["choose"])
            page.locator("#choice-close").click()
        # (the moves' buttons and the history are the API's words: English until the API says them in
        # the request's language)
        assert visible_english(page, ("tiletum.html", *SHARED), game="tiletum",
                               without="#moves .words, #history, #since-list") == []
        screenshot(page, f"i18n-tiletum-{lang}.png")
        assert errors == [], errors
        context.close()


def test_the_check_finds_a_game_page_s_english():
    """It can fail: the English of a game page's own messages is what it looks for (the game's catalog's)."""
    assert "Then place it with or without a follower" in english_messages("de", "carcassonne.html",
                                                                          game="carcassonne")
    assert english_messages("de", "carcassonne.html") == [], "the platform's extraction leaves it out"
