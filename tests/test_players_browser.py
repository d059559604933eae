"""The profile, leaderboard and dashboard pages of issue 29's "Players" (docs/pbem.md, "Your public
profile", "Your data") in headless Chromium (Debian's, tests/browser.py) against the app over real
HTTP, at 1366x900 and 390x844: a public profile with its rating chart (drawn by the server) and how
reliably its player plays (also beside them in the lobby), the
leaderboard linking to it, and the dashboard's handle, profile switch, download and deletion with
its confirmation step. axe-core finds nothing serious on each (tests/test_site_pages.py's
``check_page``, which also checks a phone's fit and takes the screenshots, player-*.png).
TABLEPOST_SKIP_BROWSER=1 skips it."""
from __future__ import annotations

import json
import random
import re
import uuid

import pytest
import redis
import requests

from application.dashboard import dashboard_key_for
from application.finished import on_game_over
from tests.browser import require_browser, wait_until
from tests.conftest import LiveServer, make_app
from tests.test_archive import play_out

require_browser()

from playwright.sync_api import expect  # noqa: E402

from tests.test_site_pages import SIZES, check_page  # noqa: E402

HANDLE = f"ada{uuid.uuid4().hex[:8]}"


def mail(who: str) -> str:
    return f"{who}-{uuid.uuid4().hex[:8]}@players.test"


@pytest.fixture(scope="module")
def site(redis_server):
    """A Redis database of this module's own: Ada (public profile) has played two rated games."""
    url = redis_server.url.rsplit("/", 1)[0] + "/10"
    redis.Redis.from_url(url).flushdb()
    app = make_app(url)
    svc = app.extensions["tablepost.service"]
    r = svc.store.r
    ada = mail("ada")
    for i, other in enumerate(("Bob", "Cy")):
        gid = svc.create_game([{"name": "Ada", "email": ada}, {"name": other, "email": mail(other)}],
                              {"seed": f"players-page-{i}"}, game="tiletum")["id"]
        play_out(svc, gid, random.Random(i))
        on_game_over(svc, gid)
    svc.create_game([{"name": "Ada", "email": ada}, {"name": "Di", "email": mail("di")}],
                    {"seed": "players-page-run"}, game="tiletum")
    client = app.test_client()
    key = {"Authorization": "Bearer " + dashboard_key_for(r, ada)}
    assert client.put("/api/v1/me/handle", json={"handle": HANDLE}, headers=key).status_code == 200
    assert client.put("/api/v1/me/profile", json={"public": True}, headers=key).status_code == 200
    with LiveServer(app) as server:
        yield {"url": server.url, "app": app, "svc": svc, "r": r, "ada": ada}


@pytest.fixture(params=list(SIZES))
def page(request, browser):
    phone = request.param == "phone"
    ctx = browser.new_context(viewport=SIZES[request.param], is_mobile=phone, has_touch=phone,
                              accept_downloads=True)
    pg = ctx.new_page()
    pg.set_default_timeout(20_000)
    pg.size = request.param
    yield pg
    ctx.close()


def test_a_public_profile_shows_its_ratings_with_a_chart_and_its_games(site, page):
    page.goto(f"{site['url']}/players/{HANDLE}")
    expect(page.locator("h1")).to_have_text(HANDLE)
    expect(page.locator("#status")).to_contain_text("Ada, playing since")
    chart = page.locator("img.chart")
    expect(chart).to_have_count(1)
    expect(chart).to_have_attribute("alt", f"Chart of {HANDLE}'s rating in Tiletum: from 1500 to "
                                           + page.locator(".pool-stats").inner_text().split()[1] + " over 2 "
                                                                                                   "games")
    wait_until(page, "document.querySelector('img.chart').complete "
                     "&& document.querySelector('img.chart').naturalWidth === 640")
    expect(page.locator("#finished li")).to_have_count(2)
    expect(page.locator("#current li")).to_have_count(1)
    # how reliably Ada plays (application/reliability.py): both games finished, none left
    expect(page.locator("#reliability")).to_contain_text("Finished 2 games, left none")
    assert "@" not in page.content()
    check_page(page, "player-profile")


def test_the_leaderboard_links_public_profiles_and_pages(site, page):
    page.goto(f"{site['url']}/leaderboards/tiletum:multiplayer")
    expect(page.locator("h1")).to_have_text("Leaderboard: Tiletum")
    expect(page.locator("#rows tr")).to_have_count(3)
    expect(page.locator("#status")).to_have_text("Players 1 to 3 of 3.")
    expect(page.locator("#prev")).to_be_disabled()
    expect(page.locator("#next")).to_be_disabled()
    expect(page.locator(".site-header nav a[aria-current=page]")).to_have_text("Leaderboards")
    check_page(page, "player-leaderboard")
    page.locator("#rows").get_by_role("link", name=HANDLE).click()
    expect(page).to_have_url(f"{site['url']}/players/{HANDLE}")
    # the pool's deprecated name: the page shows the pool by its name in words, at the pool's address
    page.goto(f"{site['url']}/leaderboards/multiplayer")
    expect(page.locator("h1")).to_have_text("Leaderboard: Tiletum")
    expect(page.locator("#rows tr")).to_have_count(3)
    expect(page).to_have_url(re.compile(r"/leaderboards/tiletum(:|%3A)multiplayer$"))
    expect(page.locator("#pools a[aria-current=page]")).to_have_text("Tiletum")
    assert "multiplayer" not in page.locator("main").inner_text()
    page.goto(f"{site['url']}/leaderboards/solo:bishop")
    expect(page.locator("#status")).to_have_text("Nobody is rated here yet.")
    page.goto(f"{site['url']}/leaderboards/nonsense")
    expect(page.locator("#error")).to_contain_text("no rating pool")


def test_the_lobby_says_how_reliably_a_seated_player_plays_when_their_profile_is_public(site, page):
    client = site["app"].test_client()
    rv = client.post("/api/v1/games", json={"game": "carcassonne", "options": {"rated": False}, "seats": [
        {"name": "Ada", "email": site["ada"]}, {"name": "Eve", "email": mail("eve")}, {"kind": "open"}]})
    assert rv.status_code == 201, rv.get_data(as_text=True)
    creator = {"Authorization": "Bearer " + rv.get_json()["creator_token"]}
    try:
        page.goto(f"{site['url']}/play/lobby")
        card = page.locator("#open-list li.game-card").filter(has_text="Seated: Ada, Eve")
        expect(card).to_have_count(1)
        joined = card.locator("ul.joined li")
        expect(joined).to_have_count(1)    # Eve's profile is not public: her name only, in "Seated"
        expect(joined).to_contain_text("Ada: Finished 2 games, left none")
        expect(joined.get_by_role("link", name="Ada")).to_have_attribute("href", f"/players/{HANDLE}")
        assert "@" not in page.content()
        check_page(page, "player-lobby")
    finally:   # the module's site is shared by both page sizes: the next one lists its own game only
        client.delete(f"/api/v1/lobby/{rv.get_json()['id']}", headers=creator)


def test_the_dashboard_chooses_a_handle_downloads_the_data_and_deletes_the_account(site, page):
    svc, r = site["svc"], site["r"]
    me = mail("eve")
    gid = svc.create_game([{"name": "Eve", "email": me}, {"name": "Fay", "email": mail("fay")}],
                          {"seed": f"players-page-eve-{page.size}"}, game="tiletum")["id"]
    key = dashboard_key_for(r, me)
    handle = f"eve{uuid.uuid4().hex[:8]}"
    page.goto(f"{site['url']}/me#key={key}")
    expect(page.locator("#to-move li")).to_have_count(1)
    expect(page.locator("#public")).to_be_disabled()
    page.fill("#handle", handle)
    page.click("#handle-save")
    expect(page.locator("#handle")).to_be_disabled()
    expect(page.locator("#profile-link a")).to_have_text(f"/players/{handle}")
    page.check("#public")
    page.locator("#public-form button[type=submit]").click()
    expect(page.locator("#public-saved")).to_have_text("Saved: your profile is public.")
    assert requests.get(f"{site['url']}/api/v1/players/{handle}", timeout=10).json()["public"] is True
    check_page(page, "player-dashboard")
    with page.expect_download() as info:
        page.click("#export")
    download = info.value
    assert download.suggested_filename == "tablepost-my-data.json"
    with open(download.path(), encoding="utf-8") as f:
        data = json.load(f)
    assert data["email"] == me and data["handle"] == handle and [g["game"] for g in data["games"]] == [gid]
    page.click("#delete")
    expect(page.locator("#delete-form")).to_be_visible()
    page.fill("#confirm", "delete")
    page.locator("#delete-form button[type=submit]").click()
    expect(page.locator("#error")).to_contain_text("DELETE")
    check_page(page, "player-delete-confirm")
    page.fill("#confirm", "DELETE")
    page.locator("#delete-form button[type=submit]").click()
    expect(page.locator("#status")).to_have_text("Your account is deleted. Thank you for playing.")
    expect(page.locator("#lists")).to_be_hidden()
    assert requests.get(f"{site['url']}/api/v1/me/games", headers={"Authorization": f"Bearer {key}"},
                        timeout=10).status_code == 401
    assert requests.get(f"{site['url']}/api/v1/games/{gid}",
                        timeout=10).json()["seats"][0]["name"] == "a former player"
