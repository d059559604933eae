"""The site's own pages as a player meets them (issue 28), in headless Chromium (Debian's,
tests/browser.py) against the app over real HTTP, at a desktop's 1366x900 and a phone's 390x844:
one layout with the same navigation everywhere, error pages in words (an unknown game or page: the
404 page with a way home; a seat link the game does not know: what to do instead), the home page's
games in progress, the new-game form with its time control (and reset after a game is created),
the dashboard and the tournaments pages; axe-core finds no serious or critical violation on any of
them, and on a phone nothing scrolls sideways, text is at least 14 px and tap targets 40 px high.

Screenshots of every page at both sizes go to tests/browser.py's ARTIFACTS (site-*.png). One
browser for the module; the app's data lives in a Redis database of its own (the home page lists
this module's games only). TABLEPOST_SKIP_BROWSER=1 skips it, like tests/test_browser.py."""
from __future__ import annotations

import time
import uuid

import pytest
import redis
import requests

from application.dashboard import dashboard_key_for
from tests.browser import require_browser, screenshot
from tests.conftest import LiveServer, make_app

require_browser()

from axe_playwright_python.sync_playwright import Axe  # noqa: E402
from playwright.sync_api import expect  # noqa: E402

SIZES = {"desktop": {"width": 1366, "height": 900}, "phone": {"width": 390, "height": 844}}
NAV = [("Home", "/", "Board games at your own pace"), ("New game", "/play/new", "New Tiletum game"),
       ("Lobby", "/play/lobby", "Lobby"), ("Your games", "/me", "Your games"),
       ("Tournaments", "/tournaments", "Tournaments"),
       ("Leaderboards", "/leaderboards", "Leaderboards")]
MAIL = f"site-{uuid.uuid4().hex[:8]}@players.test"
AXE = Axe()


@pytest.fixture(scope="module")
def site(redis_server):
    """The app on a Redis database of this module's own, with a Tiletum game (whose first seat has
    an email: the dashboard) and a Carcassonne game in progress, and a tournament."""
    url = redis_server.url.rsplit("/", 1)[0] + "/9"
    redis.Redis.from_url(url).flushdb()
    app = make_app(url)
    client = app.test_client()
    duel = client.post("/api/v1/games",
                       json={"seats": [{"name": "Ann", "email": MAIL}, {"name": "Bob"}]}).get_json()
    carc = client.post("/api/v1/games", json={"game": "carcassonne", "seats": [
        {"name": "Cleo"}, {"name": "Dan", "email": MAIL}, {"name": "Eve"}]}).get_json()
    with LiveServer(app) as server:
        yield {"url": server.url, "app": app, "duel": duel, "carc": carc,
               "key": dashboard_key_for(app.extensions["tablepost.service"].store.r, MAIL)}


@pytest.fixture(params=list(SIZES))
def page(request, browser):
    phone = request.param == "phone"
    ctx = browser.new_context(viewport=SIZES[request.param], is_mobile=phone, has_touch=phone)
    pg = ctx.new_page()
    pg.set_default_timeout(20_000)
    pg.size = request.param
    yield pg
    ctx.close()


def check_page(page, name: str) -> None:
    """axe-core finds nothing serious; on a phone the page fits, reads and taps well; a screenshot."""
    found = AXE.run(page).response["violations"]
    bad = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3]) for v in found
           if v["impact"] in ("serious", "critical")]
    assert not bad, f"{name}: {bad}"
    if page.size == "phone":
        fit = page.evaluate("""() => {
            const small = [], tiny = [];
            for (const el of document.querySelectorAll('body *')) {
                const r = el.getBoundingClientRect(), s = getComputedStyle(el);
                if (!r.width || !r.height || s.visibility === 'hidden') continue;
                const text = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
                if (text && parseFloat(s.fontSize) < 14)
                    small.push(el.tagName + ' ' + el.textContent.slice(0, 30));
                const control = el.matches(
                                    'button, input, select, textarea, summary, nav a, a.btn, a.open, td a')
                                && !el.matches('input[type=checkbox], input[type=radio]');
                const box = el.matches('input[type=checkbox], input[type=radio]') ? el.closest('label') : el;
                if ((control || box !== el) && box && box.getBoundingClientRect().height < 40)
                    tiny.push(el.tagName + '#' + el.id + ' '
                              + (el.textContent || el.value || '').slice(0, 30));
            }
            return {doc: document.documentElement.scrollWidth, view: innerWidth, small, tiny};
        }""")
        assert fit["doc"] <= fit["view"], f"{name} scrolls sideways on a phone: {fit}"
        assert not fit["small"], f"{name}: text under 14px: {fit['small']}"
        assert not fit["tiny"], f"{name}: tap targets under 40px: {fit['tiny']}"
    screenshot(page, f"site-{name}-{page.size}.png")


# --- the layout and its navigation --------------------------------------------------------------

def test_every_page_has_the_same_navigation_and_each_link_leads_to_its_page(site, page):
    page.goto(site["url"] + "/")
    for label, path, heading in NAV:
        page.locator(".site-header nav").get_by_role("link", name=label, exact=True).click()
        expect(page).to_have_url(site["url"] + path)
        expect(page.locator("h1")).to_have_text(heading)
        expect(page.locator(".site-header nav a[aria-current=page]")).to_have_text(label)
        expect(page.locator(".site-header nav a")).to_have_text([n[0] for n in NAV] + ["API"])
        expect(page.locator(".site-footer")).to_be_visible()
    page.locator(".site-header nav").get_by_role("link", name="API", exact=True).click()
    expect(page).to_have_url(site["url"] + "/api/docs")
    icon = requests.get(site["url"] + "/favicon.svg", timeout=10)
    assert icon.status_code == 200 and icon.headers["Content-Type"].startswith("image/svg+xml")


# --- error pages -----------------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["/play/NoSuchGame00", "/no/such/page"])
def test_an_unknown_game_or_page_is_the_404_page_with_a_way_home(site, page, path):
    answer = page.goto(site["url"] + path)
    assert answer.status == 404 and answer.headers["content-type"].startswith("text/html")
    expect(page.locator("h1")).to_have_text("We could not find that page")
    assert "problem+json" not in page.content() and "404" not in page.locator("body").inner_text()
    check_page(page, "not-found" if "play" in path else "not-found-page")
    page.get_by_role("link", name="Go to the home page").click()
    expect(page).to_have_url(site["url"] + "/")
    # an API client still gets problem+json, even when it asks for HTML
    api = requests.get(site["url"] + "/api/v1/games/NoSuchGame00", headers={"Accept": "text/html"},
                       timeout=10)
    assert api.status_code == 404 and api.headers["Content-Type"] == "application/problem+json"


def test_a_seat_link_the_game_does_not_know_says_how_to_get_one_that_works(site, page):
    gid = site["duel"]["id"]
    page.goto(f"{site['url']}/play/{gid}#token=not-a-real-token")
    expect(page.locator("#bad-link-h")).to_have_text("This link to your seat no longer works")
    body = page.locator("body").inner_text()
    assert "401" not in body and "Unauthorized" not in body, body
    expect(page.locator("main.site-problem")).to_contain_text("Your games")
    check_page(page, "bad-link")
    page.get_by_role("link", name="Watch the game without a seat").click()
    expect(page).to_have_url(f"{site['url']}/play/{gid}")
    expect(page.locator("#bad-link-h")).to_have_count(0)


# --- the home page ---------------------------------------------------------------------------------

def test_the_home_page_lists_the_games_in_progress_to_watch(site, page):
    page.goto(site["url"] + "/")
    cards = page.locator("#live li")
    expect(page.locator("#live")).to_contain_text("Ann vs Bob")
    expect(page.locator("#live")).to_contain_text("Cleo, Dan and Eve")
    expect(cards.filter(has_text="Cleo").locator(".badge")).to_have_text("Carcassonne")
    expect(cards.filter(has_text="Ann").locator(".badge")).to_have_text("Tiletum")
    expect(page.get_by_role("link", name="Your games").first).to_have_attribute("href", "/me")
    text = page.locator("body").inner_text()
    assert "Version" not in text and "docs/" not in text and MAIL not in page.content()
    check_page(page, "home")
    cards.filter(has_text="Ann").get_by_role("link").click()
    expect(page).to_have_url(f"{site['url']}/play/{site['duel']['id']}")


# --- the new-game form -----------------------------------------------------------------------------

def test_the_new_game_form_sets_the_time_control_creates_one_game_and_starts_afresh(site, page):
    service = site["app"].extensions["tablepost.service"]
    who = uuid.uuid4().hex[:6]
    mail = f"new-{who}@players.test"
    page.goto(site["url"] + "/play/new")
    expect(page.get_by_label("Days per move")).to_have_value("3")            # the API's defaults, shown
    expect(page.get_by_label("Reminder emails")).to_have_value("24,2")
    expect(page.get_by_label("Weekends do not count", exact=False)).not_to_be_checked()
    check_page(page, "new-game")
    page.get_by_label("Player 1 name").fill(f"Ida {who}")
    page.get_by_label("Player 1 email (optional)").fill(mail)
    page.get_by_label("Player 2 name").fill(f"Jo {who}")
    page.get_by_label("Days per move").select_option("7")
    page.get_by_label("Weekends do not count", exact=False).check()
    page.get_by_label("Quiet hours", exact=False).check()
    page.get_by_label("From (UTC)").select_option("23")
    page.get_by_label("To (UTC)").select_option("6")
    page.get_by_label("Reminder emails").select_option("24")
    page.get_by_role("button", name="Create the game").dblclick()   # a double click makes one game
    expect(page.locator("#created")).to_be_visible()
    url = page.locator("input.seat-link").first.input_value()
    gid = url.split("/play/", 1)[1].split("#", 1)[0]
    time.sleep(0.3)  # a second request, if the double click had sent one, has landed by now
    mine = [g for g in requests.get(site["url"] + "/api/v1/games", timeout=10).json()["games"]
            if f"Ida {who}" in g["players"]]
    assert [g["id"] for g in mine] == [gid], "exactly one game was created"
    # the stored game has the time control chosen (no endpoint shows a game's time control yet)
    assert service.meta(gid)["options"]["time_control"] == {
        "days_per_move": 7, "pause_weekends": True, "quiet_hours": [23, 6], "vacation_days": 14,
        "reminders_hours": [24]}
    check_page(page, "new-game-created")
    # the form has started afresh, for another game
    expect(page.locator("#create")).to_be_hidden()
    page.get_by_role("button", name="Start another game").click()
    expect(page.get_by_label("Player 1 name")).to_have_value("Player 1")
    expect(page.get_by_label("Player 1 email (optional)")).to_have_value("")
    expect(page.get_by_label("Days per move")).to_have_value("3")
    expect(page.get_by_label("Quiet hours", exact=False)).not_to_be_checked()
    expect(page.get_by_role("button", name="Create the game")).to_be_enabled()
    expect(page.locator("#created")).to_be_hidden()


@pytest.mark.parametrize("page", ["phone"], indirect=True)
def test_the_new_game_form_says_what_is_wrong_in_words(site, page):
    page.goto(site["url"] + "/play/new")
    page.get_by_label("Player 1 email (optional)").fill("ann@")
    # past the browser's own check
    page.get_by_label("Player 1 email (optional)").evaluate("e => e.type = 'text'")
    page.get_by_role("button", name="Create the game").click()
    expect(page.locator("#error")).to_contain_text("Player 1's email")
    text = page.locator("#error").inner_text()
    assert "422" not in text and "{" not in text and "Unprocessable" not in text, text


# --- the dashboard and the tournaments -------------------------------------------------------------

def test_the_dashboard_says_which_game_each_is(site, page):
    page.goto(f"{site['url']}/me#key={site['key']}")
    expect(page).to_have_title("(1) Your games · Table Post")
    expect(page.locator("#to-move li")).to_have_count(1)
    expect(page.locator("#to-move li .badge")).to_have_text("Tiletum")
    expect(page.locator("#to-move li a.open")).to_have_text("Play against Bob")
    expect(page.locator("#waiting li", has_text="Cleo")).to_contain_text("Carcassonne")
    check_page(page, "dashboard")
    page.goto(f"{site['url']}/me")
    expect(page.locator("#no-key")).to_be_visible()
    expect(page.locator("#to-move")).to_be_hidden()
    check_page(page, "dashboard-no-key")


def test_the_tournaments_pages_help_when_there_are_none_and_show_one(site, page):
    page.goto(site["url"] + "/tournaments")
    if page.size == "desktop":  # the first run of this module's database: no tournament yet
        expect(page.locator("#list-status")).to_contain_text("No tournament yet")
    check_page(page, f"tournaments-{'empty' if page.size == 'desktop' else 'list'}")
    page.get_by_label("Name", exact=True).fill(f"Spring Cup {page.size}")
    page.locator("#entries").fill("Ann <ann@t.test>\nBob <bob@t.test>")
    page.get_by_role("button", name="Create the tournament").click()
    expect(page.locator("#created")).to_be_visible()
    expect(page.locator("#list")).to_contain_text(f"Spring Cup {page.size}")
    expect(page.locator("#list tr", has_text=f"Spring Cup {page.size}")).to_contain_text("open for entries")
    page.get_by_role("link", name="Open the organizer's page").click()
    expect(page.locator("h1")).to_have_text(f"Spring Cup {page.size}")
    expect(page.locator("#status")).to_contain_text("Tiletum, Swiss")
    expect(page.locator("#standings tr")).to_have_count(2)
    check_page(page, "tournament")
