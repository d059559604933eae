"""Issue 13, "Pages and tokens": every HTML page sends a Content-Security-Policy that allows no
script or style but its own (inline blocks only by hash), ``frame-ancestors 'none'`` and
``X-Content-Type-Options: nosniff``; the API docs pull nothing from a CDN."""
from __future__ import annotations

import base64
import hashlib
import re

import pytest

import games

from api.pages import PAGES
from mail.addresses import signed_url

# a game page is the page of its game (api.pages.GAME_PAGES): one path per game, filled with a real game
PAGE_PATHS = [rule.replace("<string:game_id>", "{tiletum}").replace("<string:tid>", "T4kq9ZpLm2Qx")
              for rule in PAGES] + ["/play/{carcassonne}", "/play/{pillars}"]


def _fill(client, path: str) -> str:
    for game in games.NAMES:
        if f"{{{game}}}" in path:
            rv = client.post("/api/v1/games", json={"game": game, "seats": [{"name": "A"}, {"name": "B"}]})
            path = path.replace(f"{{{game}}}", rv.json["id"])
    return path


def csp_of(resp) -> dict[str, list[str]]:
    header = resp.headers.get("Content-Security-Policy")
    assert header, f"no Content-Security-Policy on {resp.request.path}"
    out = {}
    for part in header.split(";"):
        words = part.split()
        if words:
            out[words[0]] = words[1:]
    return out


def sha256_source(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"


@pytest.mark.parametrize("path", PAGE_PATHS)
def test_every_page_sends_a_csp_that_allows_only_its_own_hashed_scripts_and_styles(client, path):
    resp = client.get(_fill(client, path))
    assert resp.status_code == 200 and resp.mimetype == "text/html"
    assert resp.headers["X-Content-Type-Options"] == "nosniff"
    csp = csp_of(resp)
    assert csp["default-src"] == ["'none'"]
    assert csp["frame-ancestors"] == ["'none'"]
    assert csp["base-uri"] == ["'none'"] and csp["object-src"] == ["'none'"]
    for directive in ("script-src", "style-src"):
        assert ("'unsafe-inline'" not in csp.get(directive, [])
                and "'unsafe-eval'" not in csp.get(directive, []))
        assert not any(s.startswith(("http:", "https:", "*")) for s in csp.get(directive, [])), csp
    html = resp.get_data(as_text=True)
    scripts = re.findall(r"<script>(.*?)</script>", html, re.S)
    styles = re.findall(r"<style>(.*?)</style>", html, re.S)
    for body in scripts:
        assert sha256_source(body) in csp["script-src"], f"{path}: an inline script is not allowed by hash"
    for body in styles:
        assert sha256_source(body) in csp["style-src"], f"{path}: an inline style is not allowed by hash"
    # nothing a hash cannot cover: no event-handler or style attributes, no javascript: URLs
    assert not re.search(r"\son[a-z]+\s*=", html, re.I), path
    assert not re.search(r"\sstyle\s*=", html, re.I), path
    assert "javascript:" not in html.lower()
    assert not re.search(r"<script[^>]+src=[\"']?https?:", html, re.I), path


def test_every_api_answer_is_nosniff(client):
    for resp in (client.get("/api/v1/games/nope"), client.get("/health"), client.get("/api/openapi.json"),
                 client.post("/api/v1/games", json={}), client.get("/api/v1/games/nope/board.svg")):
        assert resp.headers["X-Content-Type-Options"] == "nosniff", resp.request.path


def test_the_email_link_pages_send_a_csp_too(redis_server):
    from conftest import make_app
    app = make_app(redis_server.url, MAIL_SECRET="csp-secret")
    client = app.test_client()
    url = signed_url("csp-secret", "", "/api/v1/email/unsubscribe", email="csp@example.org")
    for resp in (client.get(url, headers={"Accept": "text/html"}),
                 client.get(url + "x", headers={"Accept": "text/html"})):
        assert resp.mimetype == "text/html", resp.status
        csp = csp_of(resp)
        assert csp["default-src"] == ["'none'"] and csp["frame-ancestors"] == ["'none'"]
        assert csp["form-action"] == ["'self'"]
        assert resp.headers["X-Content-Type-Options"] == "nosniff"


def test_the_api_docs_page_loads_nothing_from_elsewhere(client):
    resp = client.get("/api/docs")
    assert resp.status_code == 200 and resp.mimetype == "text/html"
    html = resp.get_data(as_text=True)
    assert not re.search(r"(src|href)=[\"']?(https?:)?//", html, re.I), "no external script or stylesheet"
    assert "<script>" not in html, "no inline script"
    csp = csp_of(resp)
    assert csp["script-src"] == ["'self'"] and csp["frame-ancestors"] == ["'none'"]
    # like every page: its address never reaches another site (a link out of the docs)
    assert resp.headers["Referrer-Policy"] == "no-referrer"
    scripts = re.findall(r"<script src=\"([^\"]+)\"", html)
    assert any(s.endswith("swagger-ui-bundle.js") for s in scripts), scripts
    for src in scripts:
        asset = client.get(src)
        assert asset.status_code == 200, src
        assert asset.mimetype in ("text/javascript", "application/javascript"), (src, asset.mimetype)
        assert len(asset.get_data()) > 0
    for href in re.findall(r"<link[^>]+href=\"([^\"]+)\"", html):
        asset = client.get(href)
        assert asset.status_code == 200 and asset.mimetype == "text/css", href
    assert client.get("/api/docs/assets/../../app.py").status_code == 404
    assert client.get("/api/redoc").status_code == 404, "ReDoc (a CDN script) is not served"


@pytest.mark.parametrize("game", list(games.NAMES))
def test_a_game_page_loads_only_the_shared_scripts_of_this_origin(client, game):
    """The game pages share /play/scripts/game-page.js, and the site's site.js (a seat link that no
    longer works, in words): 'self' joins the hashes on those pages only, the scripts are served
    as JavaScript and revalidated, and no other file is served there."""
    resp = client.get(_fill(client, f"/play/{{{game}}}"))
    html = resp.get_data(as_text=True)
    sources = re.findall(r"<script src=\"([^\"]+)\"", html)
    assert sources == ["/play/scripts/game-page.js", "/play/scripts/site.js"], sources
    assert "'self'" in csp_of(resp)["script-src"]
    for src, marker in zip(sources, ("function startGamePage(", "This link to your seat no longer works")):
        script = client.get(src)
        assert script.status_code == 200 and script.mimetype == "text/javascript"
        assert (script.headers["Cache-Control"] == "no-cache"
                and script.headers["X-Content-Type-Options"] == "nosniff")
        assert marker in script.get_data(as_text=True)
    for other in ("/play/scripts/play.html", "/play/scripts/docs.js", "/play/scripts/..%2Fpages.py",
                  "/play/scripts/game-page.js.map", "/play/scripts/favicon.svg"):
        missing = client.get(other)
        assert missing.status_code == 404 and missing.mimetype == "application/problem+json", other


@pytest.mark.parametrize("path", PAGE_PATHS)
def test_every_page_loads_the_site_stylesheet_and_icon_of_this_origin(client, path):
    """One layout (issue 28): the shared stylesheet is this origin's, allowed by 'self' in
    style-src beside the page's own hashes, served as CSS; the icon is an SVG of this origin."""
    resp = client.get(_fill(client, path))
    html = resp.get_data(as_text=True)
    assert re.findall(r'<link rel="stylesheet" href="([^"]+)"', html) == ["/play/scripts/site.css"]
    assert "'self'" in csp_of(resp)["style-src"] and "'unsafe-inline'" not in csp_of(resp)["style-src"]
    css = client.get("/play/scripts/site.css")
    assert (css.status_code == 200 and css.mimetype == "text/css"
            and ".site-header" in css.get_data(as_text=True))
    assert '<link rel="icon" href="/favicon.svg" type="image/svg+xml">' in html
    icon = client.get("/favicon.svg")
    assert icon.status_code == 200 and icon.mimetype == "image/svg+xml"
    assert (icon.get_data(as_text=True).lstrip().startswith("<svg")
            and "<script" not in icon.get_data(as_text=True))


def test_pages_without_a_script_of_their_own_origin_keep_hashes_only(client):
    for path in ("/", "/play/new", "/tournaments", "/me"):
        csp = csp_of(client.get(path))
        assert "'self'" not in csp.get("script-src", []), path
