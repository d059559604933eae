"""The web pages in German and French (issue 53, docs/i18n.md "The pages"): which language a page is
in, and a pseudo-locale rendering of every page that finds any text of the page's own left
untranslated -- in its markup and in its scripts' messages.

The pseudo-locale (``?lang=en-XA``, only in an app under test) writes every catalog message
transformed and wrapped in ``⟦ ⟧``; what is left outside them is text that did not go through the
catalog. Left out, explicitly: a game's title (its name, marked ``lang="en"``; a game's summary and
opponent are said in the page's language by the game's catalog), the brand (``translate="no"``) and
the footer's language names (each in its own language, ``lang``). Players' names and the games'
texts from the API are not in the markup: they come at run time. The scripts are checked by their
text: every string that reads as words must be a ``t()``/``tn()`` message, or one of the few
technical strings listed here with why.
"""
from __future__ import annotations

import re

import html5lib
import pytest
from babel.messages.jslexer import tokenize

import games
from api import pages
from tablepost import i18n
from tablepost.page_text import inline_scripts, script_messages

NS = "{http://www.w3.org/1999/xhtml}"
PSEUDO = i18n.PSEUDO
# the pages whose own words are not translated yet (docs/i18n.md, "Not yet"): their checks are
# expected to fail (strict: a page translated meanwhile fails here until it is taken off the list)
NOT_YET: set[str] = set()
# every page file served: the routes' pages, each game's own page, the 404 page
PAGE_FILES = sorted({name for _rule, (_e, name, _d) in pages.PAGES.items()} | set(pages.GAME_PAGES.values())
                    | {"not_found.html"})
# what the markup may say outside the catalog: symbols and the notation's own signs
ATTRIBUTES = ("title", "aria-label", "placeholder", "alt")
# strings of the scripts that are not words for a reader: HTTP header names and values, event and
# key names, DOM and storage names
TECHNICAL = {"use strict", "Accept", "Authorization", "Bearer ", "Content-Type", "Escape", "Retry-After",
             "ETag", "Enter", "Accept-Language",
             "If-None-Match", "SELECT", "INPUT", "TEXTAREA",
             # class lists
             "badge badge-", "num score", "btn btn-primary", "mv notation", "site-main site-problem",
             "card problem", "game-card empty",
             "card game-boards", "num supply",
             # a selector (Carcassonne's page: the tile shown where it would go)
             "#preview use",
             # the AI opponent's seat name in the lobby's quick game (a name, like a player's)
             "Robo",
             # the tie-breaks' own names, the same in every language
             "Buchholz", "Sonneborn-Berger",
             # the brand after a page's title (as the markup's <a class="site-brand" translate="no">)
             " · Table Post",
             # catalog.js's rejection, caught at once (the pages say "could not be loaded" in words)
             "no catalog"}


def page_path(client, name: str) -> str:
    """A path that serves the page file ``name``."""
    if name in pages.GAME_PAGE_FILES:
        game = next((g for g, page in pages.GAME_PAGES.items() if page == name), None)
        if game is None:  # the generic page: a game's page taken away is not needed, any game id serves
            return ""
        rv = client.post("/api/v1/games", json={"game": game, "seats": [{"name": "Ann"}, {"name": "Bob"}]})
        return f"/play/{rv.json['id']}"
    if name == "not_found.html":
        return "/no/such/page"
    rule = next(r for r, (_e, n, _d) in pages.PAGES.items() if n == name)
    return (rule.replace("<string:tid>", "T0").replace("<string:handle>", "ada_l")
            .replace("<string:pool>", "tiletum:multiplayer"))


def untranslated_markup(html: str) -> list[str]:
    """The page's own text (text and readable attributes) that did not go through the catalog."""
    doc = html5lib.parse(html)
    lang = doc.get("lang")
    said: list[str] = []

    def walk(el, skip: bool):
        tag = el.tag.replace(NS, "") if isinstance(el.tag, str) else ""
        if not tag:   # a comment (a marker the page's answer fills in)
            return
        skip = skip or tag in ("script", "style") or el.get("translate") == "no" or (
            el.get("lang") not in (None, lang))
        if not skip:
            said.append(el.text or "")
            for a in ATTRIBUTES:
                if el.get(a):
                    said.append(el.get(a))
            if tag == "meta" and el.get("name") == "description":
                said.append(el.get("content", ""))
        for kid in el:
            walk(kid, skip)
            if not skip:
                said.append(kid.tail or "")

    walk(doc, False)
    # each text apart ("|"), but a message's parts (split by its inline tags) within one ⟦ ⟧
    # (innermost first: a message may hold another in a placeholder)
    rest, was = "|".join(said), None
    while rest != was:
        rest, was = re.sub(r"⟦[^⟦⟧]*⟧", "|", rest), rest
    return re.findall(r"[A-Za-z][A-Za-z'’-]+(?:[ \t\n]+[A-Za-z][A-Za-z'’-]*)*", rest)


def _words(value: str) -> bool:
    """Whether a script's string reads as words for a reader (two words, or one capitalised word)."""
    return bool(re.search(r"[A-Za-z]{2,}\s+[A-Za-z]{2,}", value) or re.fullmatch(r"\W*[A-Z][a-z]+\W*", value))


def untranslated_scripts(texts: list[str]) -> list[str]:
    """The strings of the scripts that read as words and are not a ``t()``/``tn()`` message."""
    import warnings
    with warnings.catch_warnings():   # Babel's own JavaScript lexer (its extractor's), used as it is
        warnings.simplefilter("ignore", DeprecationWarning)
        from babel.messages.jslexer import unquote_string
        return _untranslated_scripts(texts, unquote_string)


def _untranslated_scripts(texts, unquote_string) -> list[str]:
    bad = []
    for text in texts:
        # what the extraction reads (a message split by "+" is its parts'; a t() nested in another's
        # arguments is not read at all)
        extracted = " ".join(m if isinstance(m, str) else " ".join(m) for m in script_messages(text))
        tokens = [t for t in tokenize(text) if t.type not in ("linecomment", "multilinecomment")]
        depth_in_call: list[int] = []   # for each open t(/tn( call: the paren depth it opened at
        args_left: list[int] = []
        depth = 0
        prev = None
        for tok in tokens:
            if tok.type == "operator" and tok.value == "(":
                depth += 1
                if prev is not None and prev.type == "name" and prev.value in ("t", "tn", "tp"):
                    depth_in_call.append(depth)
                    args_left.append(1 if prev.value == "t" else 2)   # tp: its context and message
            elif tok.type == "operator" and tok.value == ")":
                if depth_in_call and depth_in_call[-1] == depth:
                    depth_in_call.pop()
                    args_left.pop()
                depth -= 1
            elif tok.type == "operator" and tok.value == "," and depth_in_call and depth_in_call[-1] == depth:
                args_left[-1] -= 1
            elif tok.type in ("string", "template_string"):
                in_message = bool(depth_in_call) and depth_in_call[-1] == depth and args_left[-1] > 0
                value = unquote_string(tok.value) if tok.type == "string" else tok.value
                if not in_message and value not in TECHNICAL and _words(value):
                    bad.append(value)
                elif in_message and value not in extracted:
                    bad.append(f"not extracted: {value}")
            if tok.type not in ("linecomment", "multilinecomment"):
                prev = tok
    return bad


def _params(names):
    return [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason="not translated yet")) if n in NOT_YET
            else n for n in names]


@pytest.mark.parametrize("name", _params(PAGE_FILES))
def test_every_page_s_own_text_goes_through_the_catalog(client, name, monkeypatch):
    path = page_path(client, name)
    if not path:   # the generic page: served for a game whose own page is taken away
        game = next(iter(pages.GAME_PAGES))
        monkeypatch.setattr(pages, "GAME_PAGES", {g: p for g, p in pages.GAME_PAGES.items() if g != game})
        rv = client.post("/api/v1/games", json={"game": game, "seats": [{"name": "Ann"}, {"name": "Bob"}]})
        path = f"/play/{rv.json['id']}"
    rv = client.get(path + "?lang=" + PSEUDO, headers={"Accept": "text/html"})
    html = rv.get_data(as_text=True)
    assert rv.headers["Content-Language"] == PSEUDO and f'<html lang="{PSEUDO}"' in html
    assert untranslated_markup(html) == []
    assert untranslated_scripts(pages.page_scripts(name)) == []


def test_the_checks_find_english_left_over():
    page = ('<!DOCTYPE html><html lang="en-XA"><head><title>⟦Ţîţlé⟧</title></head><body>'
            '<p>⟦Hî⟧ Hello there</p>'
            '<button aria-label="Close">x</button><p lang="en">A game\'s summary</p>'
            '<a translate="no">Table Post</a></body></html>')
    assert untranslated_markup(page) == ["Hello there", "Close"]
    script = ('el("p", t("Fine") + " " + "Not fine"); tn("a {n}", "b {n}", n); x("Send");'
              'h["Accept"] = "Bearer " + k;'
              't("Fine {x}", {x: t("Nested")}); tp("side", "Far North");')
    assert untranslated_scripts([script]) == ["Not fine", "Send", "not extracted: Nested"]


@pytest.mark.parametrize("asked, headers, said", [
    ("?lang=de", {}, "de"), ("?lang=fr", {"Accept-Language": "de"}, "fr"),
    ("", {"Accept-Language": "fr-CH, fr;q=0.9, en;q=0.5"}, "fr"),
    ("", {"Accept-Language": "pl, de;q=0.5"}, "de"),
    ("", {"Accept-Language": "pl"}, "en"), ("", {}, "en"), ("?lang=xx", {"Accept-Language": "de"}, "de"),
    ("", {"Accept-Language": PSEUDO}, "en"),
])
def test_which_language_a_page_is_in(client, asked, headers, said):
    rv = client.get("/" + asked, headers=headers)
    html = rv.get_data(as_text=True)
    assert rv.status_code == 200 and rv.headers["Content-Language"] == said and f'<html lang="{said}"' in html
    assert set(rv.headers["Vary"].replace(" ", "").split(",")) >= {"Accept-Language", "Cookie"}
    cookie = rv.headers.get("Set-Cookie")
    if asked.startswith("?lang=") and asked[6:] in i18n.LANGUAGES:
        assert cookie.startswith(f"lang={said};") and "SameSite=Lax" in cookie and "HttpOnly" in cookie
    else:
        assert cookie is None, "only a choice is remembered"


def test_the_chosen_language_is_remembered_over_the_browser_s(client):
    client.get("/?lang=fr")
    rv = client.get("/play/new", headers={"Accept-Language": "de"})
    assert rv.headers["Content-Language"] == "fr" and "Créer la partie" in rv.get_data(as_text=True)
    client.get("/?lang=en")
    assert client.get("/play/new", headers={"Accept-Language": "de"}).headers["Content-Language"] == "en"


def test_the_footer_switch_keeps_the_path_and_query_as_a_relative_link(client):
    html = client.get("/play/new?game=tiletum&lang=de").get_data(as_text=True)
    switch = re.search(r'<nav class="site-languages" aria-label="Sprache">(.*?)</nav>', html, re.S).group(1)
    links = re.findall(r'<a href="([^"]+)" hreflang="(\w+)" lang="\w+" data-lang="\w+"'
                       r'( aria-current="true")?>([^<]+)<', switch)
    assert [(h, code, bool(cur), n) for h, code, cur, n in links] == [
        ("?game=tiletum&amp;lang=en", "en", False, "English"),
        ("?game=tiletum&amp;lang=de", "de", True, "Deutsch"),
        ("?game=tiletum&amp;lang=fr", "fr", False, "Français")]


def test_the_pseudo_locale_is_for_the_tests_only(app, client):
    app.config["TESTING"] = False
    try:
        assert client.get("/?lang=" + PSEUDO).headers["Content-Language"] == "en"
    finally:
        app.config["TESTING"] = True


def test_each_language_has_its_own_policy_and_table(client):
    policies, tables = set(), set()
    for lang in ("en", "de", "fr"):
        rv = client.get("/?lang=" + lang)
        html = rv.get_data(as_text=True)
        policies.add(rv.headers["Content-Security-Policy"])
        table = re.search(r"const LANG = (\"\w+\"), ASK = \"[\w-]+\", T = (\{.*?\});\n", html).group(0)
        tables.add(table)
        # every inline script is allowed by its hash: the table's among them
        for body in inline_scripts(html):
            import base64
            import hashlib
            digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
            assert f"'sha256-{digest}'" in rv.headers["Content-Security-Policy"]
    assert len(policies) == 3 and len(tables) == 3
    de = client.get("/?lang=de").get_data(as_text=True)
    assert '"started today": "heute begonnen"' in de and "Brettspiele in deinem Tempo" in de


def test_the_email_link_pages_speak_the_address_s_language_else_the_page_s(redis_server):
    """The pages an email's links open (api/email_pages.py): in the address's own language for its
    emails, else the browser's."""
    from types import SimpleNamespace

    from application import notifications
    from mail.mailconfig import MailConfig
    from mail.notify import Notifier
    from tests.conftest import make_app

    secret = "mail-secret-for-the-link-pages"
    app = make_app(redis_server.url, MAIL_SECRET=secret)
    client = app.test_client()
    notifier = SimpleNamespace(cfg=MailConfig(secret=secret, domain="pbem.localhost",
                                              from_addr="x@pbem.localhost", public_url="http://localhost"))
    r = app.extensions["tablepost.service"].store.r
    address = "lang-pages@example.org"
    notifications.set_language(r, address, "fr")
    try:
        path = Notifier.unsubscribe_url(notifier, address).removeprefix("http://localhost")
        rv = client.get(path, headers={"Accept": "text/html", "Accept-Language": "de"})
        page = rv.get_data(as_text=True)
        assert rv.status_code == 200 and rv.headers["Content-Language"] == "fr" and "<html lang=fr>" in page
        assert "Se désabonner ?" in page and "Plus d’e-mail à lang-pages@example.org d’aucune partie." in page
        notifications.set_language(r, address, None)   # no choice of its own: the browser's
        rv = client.get(path, headers={"Accept": "text/html", "Accept-Language": "de"})
        assert rv.headers["Content-Language"] == "de" and "Abmelden?" in rv.get_data(as_text=True)
        rv = client.get(path, headers={"Accept": "text/html"})
        assert rv.headers["Content-Language"] == "en" and "Unsubscribe?" in rv.get_data(as_text=True)
    finally:
        notifications.set_language(r, address, None)


# --- a game's own page: its words from the game's own catalog (docs/i18n.md, "A game's own page") ------

def _table(html: str) -> dict:
    import json
    found = re.search(r"const LANG = \"[\w-]+\", ASK = \"[\w-]+\", T = (\{.*?\});\n", html)
    return json.loads(found.group(1))


def _declaring() -> list[str]:
    """The games whose own page declares its catalog (its words are the game's catalog's)."""
    from tablepost.page_text import own_catalog
    return [game for game, name in pages.GAME_PAGES.items() if own_catalog(pages._text(name))]


def test_carcassonne_s_and_pillars_pages_declare_their_catalogs():
    assert {"carcassonne", "pillars"} <= set(_declaring())


@pytest.mark.parametrize("game", _declaring())
def test_a_game_s_own_page_declares_its_catalog_and_the_extraction_puts_its_words_there(game):
    """Each page that declares a catalog is the page of a game with that catalog, which its babel.cfg
    extracts into; the platform's extraction leaves it out (Tiletum's page: its messages marked and its
    catalog's entries are all it needs)."""
    from pathlib import Path

    import games
    from tablepost.page_text import extract_game_page, extract_page, own_catalog
    name = pages.GAME_PAGES[game]
    text = pages._text(name)
    assert games.get(game).catalogs, f"{game}'s page declares a catalog the game does not have"
    folder, domain = games.get(game).catalogs
    assert own_catalog(text) == domain == game
    assert pages.own_catalogs(name) == (str(folder), domain)
    cfg = (Path(folder) / "babel.cfg").read_text()
    assert f"[tablepost.page_text.extract_game_page: api/static/{game}.html]" in cfg
    page_file = Path(pages.__file__).parent / "static" / f"{game}.html"
    with open(page_file, "rb") as fp:
        assert list(extract_page(fp, None, [], {})) == [], "the platform's catalog leaves it out"
    with open(page_file, "rb") as fp:
        said = [m for _l, _f, m, _c in extract_game_page(fp, None, [], {})]
    assert len(said) > 30 and any(isinstance(m, tuple) for m in said)


def test_a_game_s_own_page_speaks_the_game_s_catalog_then_the_platform_s(client):
    seats = [{"name": "Ann"}, {"name": "Bob"}]
    rv = client.post("/api/v1/games", json={"game": "carcassonne", "seats": seats})
    path = f"/play/{rv.json['id']}"
    de = client.get(path + "?lang=de", headers={"Accept": "text/html"}).get_data(as_text=True)
    assert "Gefolgsleute im Vorrat" in de and "<title>Carcassonne</title>" in de
    table = _table(de)
    assert table["Place without a follower"] == "Lege es ohne Gefolgsmann"          # the game's catalog
    assert table["spot\u0004north"] == "nördlichen"                 # a message with its context
    assert table["{n} east"] == "{n} östlich"             # the game's own words, as its emails say them
    # the platform's, where the game's catalog lacks it (game-page.js's)
    assert table["Step {step} of {steps}: "] == "Schritt {step} von {steps}: "
    fr = _table(client.get(path + "?lang=fr", headers={"Accept": "text/html"}).get_data(as_text=True))
    # the plural forms of French (three), of a game's message and of a platform's message alike
    assert fr["{n} tile face down."] == ["{n} tuile face cachée.", "{n} tuiles face cachée.",
                                         "{n} tuiles face cachée."]
    assert len(fr["{n} new"]) == 3 and fr["{n} new"][0] != fr["{n} new"][1]
    pillars = client.post("/api/v1/games", json={"game": "pillars", "seats": seats}).json["id"]
    html = client.get(f"/play/{pillars}?lang=fr", headers={"Accept": "text/html"}).get_data(as_text=True)
    assert "<title>Les Piliers de la Terre</title>" in html
    assert _table(html)["field\u0004the King's Court"] == "la cour du roi"


@pytest.mark.parametrize("game", ["carcassonne", "pillars"])
def test_a_game_s_own_page_has_a_policy_per_language(client, game):
    import base64
    import hashlib
    rv = client.post("/api/v1/games", json={"game": game, "seats": [{"name": "Ann"}, {"name": "Bob"}]})
    policies = set()
    for lang in ("en", "de", "fr"):
        page = client.get(f"/play/{rv.json['id']}?lang={lang}", headers={"Accept": "text/html"})
        policy = page.headers["Content-Security-Policy"]
        policies.add(policy)
        for body in inline_scripts(page.get_data(as_text=True)):
            digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
            assert f"'sha256-{digest}'" in policy
    assert len(policies) == 3


def test_the_games_declared_words_are_in_the_page_s_language(client):
    """The home page's game cards say each game's summary and opponent in the page's language (only
    the game's title, its name, and its picture stay marked English); the new-game form builds its
    inputs from the catalog, which the page asks in its language (api/static/catalog.js: ``LANG``) and
    which says every declared word (options, choices, the automa's) from the game's catalog."""
    html = client.get("/?lang=" + PSEUDO, headers={"Accept": "text/html"}).get_data(as_text=True)
    doc = html5lib.parse(html)
    cards = [li for li in doc.iter(NS + "li") if "game-card" in (li.get("class") or "")]
    assert cards
    for card in cards:
        english = [el for el in card.iter() if el.get("lang") == "en"]
        assert {el.tag.replace(NS, "") for el in english} <= {"span", "svg", "{http://www.w3.org/2000/svg}svg"}
        titles = {g.title for g in games.GAMES.values()}
        assert all(el.tag.endswith("svg") or el.text in titles for el in english)
        said = "".join(card.find(NS + "p").itertext())
        assert "⟦" in said and not re.findall(r"[A-Za-z]{4,}", re.sub(r"⟦[^⟧]*⟧", "", said)), said
    assert 'fetch("/api/v1/catalog?lang=" + encodeURIComponent(LANG)' in pages.render("new_game.html", PSEUDO)
    rv = client.get("/api/v1/catalog?lang=" + PSEUDO)
    assert rv.headers["Content-Language"] == PSEUDO
    for g in rv.json["games"]:
        specs = g["option_specs"] + (g["automa"]["settings"] if g["automa"] else [])
        words = [w for o in specs for w in (o["title"], o["description"], *(
            x for c in o["choices"] for x in (c["title"], c["description"])))]
        if g["automa"]:
            a = g["automa"]
            words += [a["title"], a["description"],
                      *(x for v in a["levels"] for x in (v["title"], v["description"]))]
        assert all(w.startswith("⟦") and w.endswith("⟧") for w in words if w), (g["name"], words)
