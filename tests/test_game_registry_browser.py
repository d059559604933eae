"""Every page's choice of game comes from the registry (issue 38): GET /api/v1/catalog lists
``games.GAMES``, and the tournaments and lobby pages offer each hosted game and say each game by its
name. Before, the tournaments page offered Tiletum and Carcassonne only and called every other
tournament "Tiletum". Headless Chromium against the app over real HTTP; skipped like
tests/test_browser.py (tests/browser.py)."""
from __future__ import annotations

import uuid

import requests

import games
from tests.browser import require_browser
from tests.conftest import LiveServer, make_app

require_browser()

from playwright.sync_api import expect  # noqa: E402


def options(page, select: str) -> list[tuple[str, str]]:
    got = page.locator(f"{select} option").evaluate_all("os => os.map(o => [o.value, o.textContent])")
    return [tuple(o) for o in got]


def test_the_catalog_is_the_registry(redis_server):
    app = make_app(redis_server.url)
    with LiveServer(app) as server:
        got = requests.get(f"{server.url}/api/v1/catalog", timeout=10).json()["games"]
    assert [(g["name"], g["title"], g["min_players"], g["max_players"]) for g in got] == [
        (g.name, g.title, g.min_players, g.max_players) for g in games.GAMES.values()]
    assert [g["name"] for g in got if g["default"]] == [games.DEFAULT]
    pools = [p["pool"] for g in got for p in g["pools"]]
    from application.rating_service import POOLS
    assert sorted(pools) == sorted(POOLS)


def test_the_tournament_page_offers_every_game_and_labels_each_tournament_by_its_game(redis_server, browser):
    app = make_app(redis_server.url)
    name = f"Cathedral Cup {uuid.uuid4().hex[:6]}"
    with LiveServer(app) as server:
        page = browser.new_page(viewport={"width": 390, "height": 844})   # a phone first
        page.set_default_timeout(20_000)
        page.goto(f"{server.url}/tournaments")
        expect(page.locator("#game option")).to_have_count(len(games.GAMES))
        assert options(page, "#game") == [(g.name, g.title) for g in games.GAMES.values()]
        for game in games.GAMES.values():   # each game's own table sizes
            page.locator("#game").select_option(game.name)
            assert [int(v) for v, _ in options(page, "#table_size")] == list(
                range(game.min_players, game.max_players + 1)), game.name
        pillars = games.get("pillars")
        page.get_by_label("Name", exact=True).fill(name)
        page.locator("#game").select_option(pillars.name)
        page.get_by_label("Format").select_option("knockout")
        page.locator("#entries").fill("Ann <ann@p.test>\nBob <bob@p.test>")
        page.get_by_role("button", name="Create the tournament").click()
        expect(page.locator("#created")).to_be_visible()
        row = page.locator("#list tr", has_text=name)
        expect(row.locator("td").nth(1)).to_have_text(pillars.title)
        page.goto(page.locator("#organizer-link").get_attribute("href"))
        expect(page.locator("#status")).to_contain_text(f"{pillars.title}, knockout")
        page.get_by_role("button", name="Start now").click()
        expect(page.locator("#rounds h3").first).to_contain_text("Round 1")
        game = page.locator("#rounds a").first.get_attribute("href").rsplit("/", 1)[1]
        assert requests.get(f"{server.url}/api/v1/games/{game}", timeout=10).json()["game"] == pillars.name


def test_the_lobby_offers_every_game(redis_server, browser):
    app = make_app(redis_server.url)
    with LiveServer(app) as server:
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.set_default_timeout(20_000)
        page.goto(f"{server.url}/play/lobby")
        expect(page.locator("#p-game option")).to_have_count(len(games.GAMES))
        assert options(page, "#p-game") == [(g.name, g.title) for g in games.GAMES.values()]
        assert options(page, "#f-game")[1:] == [(g.name, g.title) for g in games.GAMES.values()]
        assert options(page, "#quick-game") == [(g.name, g.title) for g in games.GAMES.values()
                                                if "ai" in g.seat_kinds]
        carcassonne = games.get("carcassonne")
        page.locator("#p-game").select_option(carcassonne.name)
        assert [int(v) for v, _ in options(page, "#p-players")][-1] == carcassonne.max_players
