"""The pages served by the service (every route of api/pages.py): strictly valid HTML5, every
control labelled, tokens only ever in the URL fragment."""
from __future__ import annotations

from pathlib import Path

import html5lib
import pytest
from conftest import page_code

from api.pages import PAGES

NS = "{http://www.w3.org/1999/xhtml}"
ROOT = Path(__file__).resolve().parents[1]


def _parse(text: str):
    return html5lib.HTMLParser(strict=True, namespaceHTMLElements=True).parse(text)


def _text(el) -> str:
    return "".join(el.itertext()).strip()


def _unlabelled(doc) -> list[str]:
    labels_for = {lab.get("for") for lab in doc.iter(f"{NS}label") if lab.get("for")}
    wrapped = {id(el) for lab in doc.iter(f"{NS}label") for el in lab.iter()
               if el.tag in (f"{NS}input", f"{NS}select", f"{NS}textarea")}
    bad = []
    for el in doc.iter():
        tag = el.tag.replace(NS, "") if isinstance(el.tag, str) else ""
        if tag not in ("input", "select", "textarea", "button") or el.get("type") == "hidden":
            continue
        if el.get("aria-label") or el.get("aria-labelledby"):
            continue
        if tag == "button" and _text(el):
            continue
        if tag != "button" and (el.get("id") in labels_for or id(el) in wrapped):
            continue
        bad.append(f"<{tag} id={el.get('id')!r}>")
    return bad


@pytest.fixture()
def game_id(client):
    return client.post("/api/v1/games", json={"seats": [{"name": "A"}, {"name": "B"}]}).json["id"]


@pytest.mark.parametrize("rule", sorted(PAGES))
def test_every_page_is_valid_html5_with_labelled_controls(client, game_id, rule):
    path = (rule.replace("<string:game_id>", game_id).replace("<string:tid>", "T0")
            .replace("<string:handle>", "ada_l").replace("<string:pool>", "tiletum:multiplayer"))
    assert "<" not in path, f"a page route this test does not know how to fill: {rule}"
    rv = client.get(path)
    assert rv.status_code == 200 and rv.mimetype == "text/html"
    assert rv.headers["Referrer-Policy"] == "no-referrer" and rv.headers["Cache-Control"] == "no-store"
    doc = _parse(rv.get_data(as_text=True))  # raises ParseError on any HTML5 parse error
    assert doc.find(f"{NS}head/{NS}title") is not None and _text(doc.find(f"{NS}head/{NS}title"))
    assert doc.get("lang") == "en"
    assert doc.find(f"{NS}head/{NS}meta[@name='viewport']") is not None, "readable on a phone"
    assert not _unlabelled(doc), _unlabelled(doc)
    for img in doc.iter(f"{NS}img"):
        assert img.get("alt"), "every image has a text alternative"


def test_the_checker_catches_problems():
    with pytest.raises(html5lib.html5parser.ParseError):
        _parse("<!DOCTYPE html><html lang=en><head><title>x</title></head><body><p><div></p></body></html>")
    doc = _parse("<!DOCTYPE html><html lang=en><head><title>x</title></head><body>"
                 "<input id=a><label for=b>B</label><input "
                 "id=b><button></button><button>ok</button></body></html>")
    assert _unlabelled(doc) == ["<input id='a'>", "<button id=None>"]


def test_the_home_page_links_to_everything(client):
    page = client.get("/").get_data(as_text=True)
    for href in ('href="/play/new"', 'href="/tournaments"', 'href="/api/docs"'):
        assert href in page
    assert client.get("/api/docs").status_code == 200, "the API docs stay reachable"


def test_the_game_page_takes_the_token_from_the_fragment_only(client, game_id):
    page = page_code(client, f"/play/{game_id}")
    assert "new URLSearchParams(location.hash.slice(1))" in page and 'frag.get("token")' in page
    assert "location.search" not in page, "tokens never travel in the query string"
    new = client.get("/play/new").get_data(as_text=True)
    assert '"#token=" + encodeURIComponent(s.token)' in new and "?token" not in new


# --- one site (issue 28): the layout on every page, and the 404 page --------------------------

BROWSER_ACCEPT = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}


@pytest.mark.parametrize("rule", sorted(PAGES))
def test_every_page_has_the_site_layout_with_its_own_entry_marked(client, game_id, rule):
    from api.pages import NAV, NAV_OF
    path = (rule.replace("<string:game_id>", game_id).replace("<string:tid>", "T0")
            .replace("<string:handle>", "ada_l").replace("<string:pool>", "tiletum:multiplayer"))
    html = client.get(path).get_data(as_text=True)
    assert "<!--site-" not in html, "every marker is replaced"
    doc = _parse(html)
    headers = [h for h in doc.iter(f"{NS}header") if h.get("class") == "site-header"]
    assert len(headers) == 1
    links = [(a.get("href"), _text(a)) for a in headers[0].iter(f"{NS}a") if a.get("class") != "site-brand"]
    assert links == list(NAV)
    current = [a.get("href") for a in headers[0].iter(f"{NS}a") if a.get("aria-current") == "page"]
    assert current == ([NAV_OF[PAGES[rule][1]]] if PAGES[rule][1] in NAV_OF else [])
    assert len([f for f in doc.iter(f"{NS}footer") if f.get("class") == "site-footer"]) == 1
    assert doc.find(f".//{NS}main[@id='main']") is not None, "the skip link's target"
    if PAGES[rule][0] != "play_page":  # words, not internals (the game pages are their own work)
        for internal in ("docs/", "Version ", "Unprocessable", "422 ", ".md)", "JSON.stringify(g.errors"):
            assert internal not in html, f"{rule} shows {internal!r} to players"


@pytest.mark.parametrize(
    "path", ["/play/NoSuchGame00", "/no/such/page", "/play/new/extra", "/tournaments/a/b"])
def test_a_browser_at_an_unknown_game_or_page_gets_the_404_page(client, path):
    rv = client.get(path, headers=BROWSER_ACCEPT)
    assert rv.status_code == 404 and rv.mimetype == "text/html"
    html = rv.get_data(as_text=True)
    doc = _parse(html)
    assert _text(doc.find(f".//{NS}h1")) == "We could not find that page"
    assert '<a class="btn btn-primary" href="/">Go to the home page</a>' in html
    assert "default-src 'none'" in rv.headers["Content-Security-Policy"]
    assert rv.headers["Cache-Control"] == "no-store"


@pytest.mark.parametrize("path,accept", [("/play/NoSuchGame00", "*/*"), ("/no/such/page", "application/json"),
                                         ("/api/v1/games/NoSuchGame00", BROWSER_ACCEPT["Accept"]),
                                         ("/api/v1/nothing", BROWSER_ACCEPT["Accept"])])
def test_an_api_client_still_gets_problem_json(client, path, accept):
    rv = client.get(path, headers={"Accept": accept})
    assert rv.status_code == 404 and rv.mimetype == "application/problem+json"
    assert rv.json["code"] in ("game-not-found", "not-found")


# --- issue 52: the leaderboards' index, the home page's game cards, the new-game heading ---------

def test_the_leaderboards_page_lists_every_game_s_pools_from_the_catalog(client):
    from api.pages import NAV
    assert ("/leaderboards", "Leaderboards") in NAV
    page = page_code(client, "/leaderboards")
    assert "gameCatalog()" in page and '"/leaderboards/" + encodeURIComponent(p.pool)' in page
    catalog = client.get("/api/v1/catalog").get_json()["games"]
    assert all(g["pools"] for g in catalog), "every game has a board to list"
    for g in catalog:   # each pool's own page is there to link to
        for p in g["pools"]:
            assert client.get(f"/leaderboards/{p['pool']}").status_code == 200


def test_the_home_cards_are_links_to_a_new_game_of_their_game(client):
    # (the page file keeps no list of games: tests/test_game_blind.py; the cards are drawn from the
    # registered specs where the page says <!--game-cards-->, api/pages.py)
    assert "<!--game-cards-->" in (ROOT / "api" / "static" / "home.html").read_text("utf-8")
    doc = _parse(client.get("/").get_data(as_text=True))
    links = {_text(a): a.get("href") for h in doc.iter(f"{NS}h3") for a in h.iter(f"{NS}a")}
    catalog = client.get("/api/v1/catalog").get_json()["games"]
    assert len(links) == len(catalog)
    for g in catalog:
        assert links[g["title"]] == f"/play/new?game={g['name']}", "each card starts a game of its game"
    new = page_code(client, "/play/new")
    assert 'new URLSearchParams(location.search).get("game")' in new
    # the heading follows the game chosen, which a reset (after a game is created) keeps
    assert '$("heading").textContent = t("New {game} game", {game: g.title' in new
    assert "const keep = GAMES.length ? chosen().name" in new
