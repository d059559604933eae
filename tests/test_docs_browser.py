"""The pages under their Content-Security-Policy in headless Chromium (issue 13): the API docs
(Swagger UI from the flask-swagger-ui package, no CDN) render every operation, and no page
reports a CSP violation. TABLEPOST_SKIP_BROWSER=1 skips it, like tests/test_browser.py."""
from __future__ import annotations

from tests.browser import require_browser
from tests.conftest import LiveServer, make_app

require_browser()

from playwright.sync_api import expect  # noqa: E402


def test_pages_and_api_docs_run_under_their_csp_with_nothing_from_elsewhere(redis_server, browser):
    app = make_app(redis_server.url)
    game = app.test_client().post("/api/v1/games", json={"seats": [{"name": "A"}, {"name": "B"}]}).get_json()
    with LiveServer(app) as server:
        page = browser.new_page()
        page.set_default_timeout(20_000)
        violations, elsewhere = [], []
        page.on("console",
                lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
        page.on("request",
                lambda r: elsewhere.append(r.url) if not r.url.startswith(server.url) else None)
        page.goto(f"{server.url}/api/docs")
        expect(page.locator(".opblock").first).to_be_visible()
        assert page.locator(".opblock").count() > 20
        expect(page.locator("#operations-games-submitMoves")).to_be_visible()
        for path in ("/", "/play/new", f"/play/{game['id']}#token={game['seats'][0]['token']}",
                     "/tournaments", "/me"):
            page.goto(server.url + path)
            page.wait_for_load_state("networkidle")
        expect(page.locator("#no-key")).to_contain_text("private link")  # /me ran its script
        assert violations == [], violations
        assert elsewhere == [], elsewhere
