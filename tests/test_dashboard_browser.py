"""The dashboard page /me in headless Chromium (Debian's, tests/browser.py; nothing downloads a
browser) against the app over real HTTP: the key from the fragment, the three lists with links
to the game page as the seat, the email setting and the vacation switch, at phone width.
TABLEPOST_SKIP_BROWSER=1 skips it, like tests/test_browser.py."""
from __future__ import annotations

import uuid


from application.dashboard import dashboard_key_for
from tests.browser import require_browser, screenshot
from tests.conftest import LiveServer, make_app
from tests.test_dashboard import finish


require_browser()

from playwright.sync_api import expect  # noqa: E402


def test_the_dashboard_page_shows_the_games_and_changes_the_settings(redis_server, browser):
    app = make_app(redis_server.url)
    service = app.extensions["tablepost.service"]
    client = app.test_client()
    me = f"page-{uuid.uuid4().hex[:8]}@players.test"
    ids = {}
    for label, seats in (("mine", [{"name": "Me", "email": me}, {"name": "Zed"}]),
                         ("theirs", [{"name": "Yan"}, {"name": "Me", "email": me}]),
                         ("over", [{"name": "Me", "email": me}, {"name": "Xi"}])):
        rv = client.post("/api/v1/games", json={"seats": seats, "options": {"seed": f"page-{label}"}})
        ids[label] = rv.get_json()["id"]
    finish(client, service, ids["over"])
    key = dashboard_key_for(service.store.r, me)
    with LiveServer(app) as server:
        page = browser.new_page(viewport={"width": 380, "height": 800})
        page.set_default_timeout(20_000)
        page.goto(f"{server.url}/me#key={key}")
        expect(page.locator("#status")).to_have_text("One game awaits your move.")
        expect(page.locator("#to-move li")).to_have_count(1)
        expect(page.locator("#to-move li a.open")).to_have_text("Play against Zed")
        expect(page.locator("#waiting li")).to_contain_text("waiting for Yan")
        expect(page.locator("#finished li")).to_contain_text("VP")
        href = page.locator("#to-move li a.open").get_attribute("href")
        assert href.startswith(f"/play/{ids['mine']}#token=L0.")
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), "fits a phone"
        expect(page.locator("#mode")).to_have_value("move")
        page.get_by_label("Emails I get").select_option("digest")
        page.locator("#notify-form").get_by_role("button", name="Save").click()
        expect(page.locator("#mode-saved")).to_have_text(
            "Saved: one email a day listing the games awaiting me.")
        page.get_by_label("I am on vacation", exact=False).check()
        page.get_by_role("button", name="Apply").click()
        expect(page.locator("#vacation-report li")).to_have_count(2)
        expect(page.locator("#to-move li")).to_contain_text("on vacation")
        screenshot(page, "dashboard-phone.png")
        page.reload()
        expect(page.locator("#vacation")).to_be_checked()
        expect(page.locator("#mode")).to_have_value("digest")
        page.goto(f"{server.url}/me")
        expect(page.locator("#no-key")).to_contain_text("private link")
        page.goto(f"{server.url}/me#key={key[:-2]}xx")
        expect(page.locator("#error")).to_contain_text("not valid")


def test_the_dashboard_offers_the_browser_s_language_and_time_zone_for_the_emails(redis_server, browser):
    """A German browser in Berlin: the page is German (its Accept-Language), offers the browser's
    language and time zone for the emails, and saves them (PUT /api/v1/me/notifications)."""
    app = make_app(redis_server.url)
    service = app.extensions["tablepost.service"]
    client = app.test_client()
    me = f"lang-{uuid.uuid4().hex[:8]}@players.test"
    client.post("/api/v1/games", json={"seats": [{"name": "Me", "email": me}, {"name": "Zed"}]})
    key = dashboard_key_for(service.store.r, me)
    with LiveServer(app) as server:
        context = browser.new_context(locale="de-DE", timezone_id="Europe/Berlin")
        page = context.new_page()
        page.set_default_timeout(20_000)
        page.goto(f"{server.url}/me#key={key}")
        assert page.evaluate("document.documentElement.lang") == "de"
        expect(page.locator("#status")).to_have_text("Ein Spiel wartet auf deinen Zug.")
        expect(page.locator("#email-language")).to_have_value("")   # each game's own, until chosen
        expect(page.locator("#email-language option[value=de]")).to_have_text("Deutsch (die dieses Browsers)")
        expect(page.locator("#email-tz option[value='Europe/Berlin']")).to_have_text(
            "Europe/Berlin (die dieses Browsers)")
        page.get_by_label("Sprache meiner E-Mails").select_option("de")
        page.get_by_label("Zeitzone der Daten in meinen E-Mails").select_option("Europe/Berlin")
        page.locator("#notify-form").get_by_role("button", name="Speichern").click()
        expect(page.locator("#mode-saved")).to_contain_text("Gespeichert")
        saved = client.get("/api/v1/me/notifications", headers={"Authorization": f"Bearer {key}"}).get_json()
        assert (saved["language"], saved["time_zone"]) == ("de", "Europe/Berlin")
        page.reload()
        expect(page.locator("#email-language")).to_have_value("de")
        expect(page.locator("#email-tz")).to_have_value("Europe/Berlin")
        context.close()
