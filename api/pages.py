"""The service's own web pages. They are static files in ``api/static`` that talk only to the
public REST API, like any client; they are plain routes, not API operations, so they are not in
the OpenAPI document.

Every secret a page needs (a seat token, a dashboard key, an organizer token, an invitation
code, an entry token) travels in the URL fragment, which browsers never send to servers, so no
page route takes a secret and ``Referrer-Policy: no-referrer`` keeps page addresses out of other
sites' logs. Pages are never cached: a deployed new version shows at the next load.

Each page sends a Content-Security-Policy that allows its own inline ``<script>`` and ``<style>``
blocks by their SHA-256 (computed when the file is first served), and, on a page that loads one,
this origin's scripts (the game pages share ``/play/scripts/game-page.js``, :data:`SCRIPTS`),
requests to this origin only, and no framing (``frame-ancestors 'none'``); every answer of the
app is ``nosniff`` (:func:`security_headers`). The API docs (``/api/docs``) are Swagger UI served from the
``flask-swagger-ui`` package's files, not from a CDN; ReDoc is not served.

The game page ``/play/<id>`` is the page of the game's own game (its meta's ``game`` field,
:data:`GAME_PAGES`): the page its spec names (games/spec.py; Tiletum's ``tiletum.html``,
Carcassonne's ``carcassonne.html``, ...), else the generic game page ``game.html`` (the board picture,
the legal moves in words, the history, the result); an unknown id is a 404 problem
(``game-not-found``). Each draws the game's board picture (``/board.svg``) inline, in the page's DOM
(parsed with DOMParser, its scripts dropped), so its parts can be clicked; the policy needs nothing more
(the picture has no style attributes, and the pages set sizes through the CSSOM, which a style-src
policy does not restrict).
A game's page may draw its pieces from ``/play/pieces/<game>.svg`` (``games.Game.pieces_svg``: the
same for every game of it).

**One site.** Every page has the same layout, written once here: the page files carry markers
that :func:`render` replaces when it serves them -- ``<!--site-head-->`` in ``<head>`` (the shared
stylesheet ``/play/scripts/site.css`` and the favicon ``/favicon.svg``), ``<!--site-header-->``
first in ``<body>`` (the header with the site's navigation, the current page marked) and
``<!--site-footer-->`` last in ``<body>`` (the footer; on a game page also
``/play/scripts/site.js``, which tells a player whose seat link is no longer valid what to do
instead of showing the API's 401), and ``<!--game-catalog-->`` before a page's script that
lists or names the games (``api/static/catalog.js`` put in inline: ``gameCatalog()``, the games
played here from ``GET /api/v1/catalog``). A browser asking for a page that is not there (an unknown
``/play/<id>``, an unknown path outside ``/api/``) gets a 404 page in the same layout with a way
home (:func:`not_found_page`); an API client (``/api/...``, or not asking for HTML) still gets
problem+json.
"""
from __future__ import annotations

import base64
import hashlib
import html
import re
from functools import lru_cache
from importlib import resources
from urllib.parse import quote

import flask
from markupsafe import Markup

import games

from application.errors import ServiceError

from tablepost import i18n
from tablepost.i18n import N_
from tablepost.page_text import inline_scripts

from . import page_i18n
from .extensions import service

# route -> (endpoint, file, what it shows)
# the game page of a game whose spec names no page of its own (api/static/game.html): it draws any game's
# board picture, lists the seat's legal moves in words as buttons, tells the history and the result
GENERIC_GAME_PAGE = "game.html"
PAGES = {
    "/": ("home_page", "home.html",
          "what this is, with links to a new game, the tournaments and the API docs"),
    "/play/lobby": ("lobby_page", "lobby.html",
                    ("the lobby: open games to join, posting one, playing the AI at "
                     "once; #join= takes an emailed seat, #game=&invite= an invitation")),
    "/play/new": ("new_game_page", "new_game.html",
                  "create a game of any game played here (its seats and options, as the game declares them)"),
    "/play/<string:game_id>": ("play_page", GENERIC_GAME_PAGE,
                               "a game: the board, the history, and with #token= that seat's moves "
                               "(GAME_PAGES)"),
    "/tournaments": ("tournaments_page", "tournaments.html",
                     "the tournaments, and the form that creates one"),
    "/tournaments/<string:tid>": ("tournament_page", "tournament.html",
                                  "standings and rounds; #invite= entry, #entry= your games, #organizer= "
                                  "start"),
    "/me": ("me_page", "me.html",
            "your dashboard (#key=): games to move, waiting, finished; email; vacation"),
    "/players/<string:handle>": ("player_page", "player.html",
                                 "a player's public profile with a rating chart per pool"),
    "/leaderboards": ("leaderboards_page", "leaderboards.html",
                      "every game's rating pools, each linking to its leaderboard"),
    "/leaderboards/<string:pool>": ("leaderboard_page", "leaderboard.html",
                                    "a rating pool's leaderboard, a page at a time"),
}
# a game (its meta's `game`) -> its game page: the page its spec names (games/spec.py, as the page's
# key "game:<name>"), where it has one; else GENERIC_GAME_PAGE, which draws any game's board picture
GAME_PAGE_PREFIX = "game:"
GAME_PAGES = {name: GAME_PAGE_PREFIX + name for name, spec in games.specs().items() if spec.page}

HEADERS = {"Referrer-Policy": "no-referrer", "Cache-Control": "no-store"}
# the scripts and the stylesheet pages share, served from api/static at /play/scripts/<name> (nothing else is)
SCRIPTS = ("game-page.js", "talk.js", "site.js", "site.css")
# the leaderboards: every game's pools, each linking to its own page
LEADERBOARDS = "/leaderboards"
# the site's navigation (href, label), in the header of every page
NAV = (("/", N_("Home")), ("/play/new", N_("New game")), ("/play/lobby", N_("Lobby")),
       ("/me", N_("Your games")), ("/tournaments", N_("Tournaments")), (LEADERBOARDS, N_("Leaderboards")),
       ("/api/docs", N_("API")))
# a page file -> the navigation entry it is (marked aria-current)
NAV_OF = {"home.html": "/", "new_game.html": "/play/new", "lobby.html": "/play/lobby", "me.html": "/me",
          "tournaments.html": "/tournaments", "tournament.html": "/tournaments",
          "leaderboards.html": LEADERBOARDS, "leaderboard.html": LEADERBOARDS, "player.html": LEADERBOARDS}
GAME_PAGE_FILES = (GENERIC_GAME_PAGE, *GAME_PAGES.values())
SITE_HEAD = ('<link rel="stylesheet" href="/play/scripts/site.css">\n'
             '<link rel="icon" href="/favicon.svg" type="image/svg+xml">')
FOOTER_TEXT = N_('Board games by correspondence: play in the browser, by email or through the '
                 '<a href="/api/docs">API</a>. Every die roll and tile draw can be checked when the game '
                 'ends.')
# where the footer's language switch goes: its links keep the page's path and query (api/page_i18n.py)
LANGUAGE_SWITCH = "<!--site-languages-->"
# the scripts a game page runs besides its own (their messages go in its table: api/page_i18n.py)
GAME_PAGE_SCRIPTS = ("game-page.js", "site.js", "talk.js")

# Any other HTML the app answers (the email link pages): no script, no style, forms to itself.
DEFAULT_HTML_CSP = "default-src 'none'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
# The API docs: Swagger UI's own files from this origin. Swagger UI sets inline styles, and its
# stylesheet uses data: images.
DOCS_CSP = ("default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
            "connect-src 'self'; base-uri 'none'; form-action 'self'; object-src 'none'; frame-ancestors "
            "'none'")
DOCS_ASSETS = ("swagger-ui-bundle.js", "swagger-ui-standalone-preset.js", "swagger-ui.css")


@lru_cache(maxsize=None)
def _text(name: str) -> str:
    """A file of api/static, or a game's own page ("game:<name>": its spec's ``page``)."""
    if name.startswith(GAME_PAGE_PREFIX):
        text = games.spec_of(name[len(GAME_PAGE_PREFIX):]).page_text()
        assert text is not None
        return text
    return resources.files("api").joinpath("static", name).read_text("utf-8")


def _players(game, tr: i18n.Translator = i18n.ENGLISH, name=html.escape) -> str:
    """How many play a game, in words, from its declared seats and automa ("2-4 players, or solo
    against the Cardinalbot"), as HTML (``name``: the opponent's name as markup)."""
    n = (tr.ngettext("{n} player", "{n} players", game.min_players) if game.min_players == game.max_players
         else tr._("{low}-{high} players", low=game.min_players, high=game.max_players))
    automa = getattr(game, "automa", None)
    if automa is not None and automa.seats == 2:
        n = tr._("{players}, or solo against {opponent}", players=n, opponent=name(automa.title))
    return n


def _art(name: str, svg: str, lang: str = i18n.DEFAULT, title: str = "") -> str:
    """A game's card picture, inline and labelled by its title: ``title`` (its spec's ``art_title``,
    said in ``lang`` by the game), else the picture's own (the game's words: marked English)."""
    said = "" if lang == i18n.DEFAULT or title else ' lang="en"'
    svg = re.sub(r"<svg\b", f'<svg class="game-art" role="img" aria-labelledby="art-{name}"{said}',
                 svg.strip(), count=1)
    if title:
        labelled = f'<title id="art-{name}">{html.escape(title)}</title>'
        return re.sub(r"<title>.*?</title>", lambda _m: labelled, svg, count=1, flags=re.S)
    return re.sub(r"<title>", f'<title id="art-{name}">', svg, count=1)


def _game_words(text: str, lang: str, speaks: bool = False) -> str:
    """A game's own words (its title: its name; its summary and opponent where the game does not speak
    ``lang``), marked as English on a page in another language; words the game says in ``lang``
    (``speaks``) as they are."""
    return text if lang == i18n.DEFAULT or speaks else f'<span lang="en">{text}</span>'


@lru_cache(maxsize=None)
def game_cards(lang: str = i18n.DEFAULT) -> str:
    """The home page's card of each hosted game, from its spec: its picture, its title (a link that
    starts a game of it), its summary and who plays it; the summary and the opponent are the game's
    declared words, said in ``lang`` where the game speaks it (``games.declared_words``)."""
    e = html.escape
    tr = i18n.translator(lang)
    out = []
    for name, spec in games.specs().items():
        g = spec.game
        art = spec.art_svg()
        say, speaks = games.declared_words(g, lang), bool(games.in_language(g, lang))
        summary = _game_words(e(say(spec.summary)), lang, speaks) + " " if spec.summary else ""
        players = _players(g, tr, lambda title: _game_words(e(say(title)), lang, speaks))
        title = say(spec.art_title) if spec.art_title and (speaks or lang == i18n.DEFAULT) else ""
        out.append('<li class="card game-card">' + (_art(name, art, lang, title) if art else "")
                   + f'<h3><a class="game-link" data-game="{e(name)}" href="/play/new?game={quote(name)}">'
                   + f"{_game_words(e(games.title_in(g, lang)), lang, speaks)}</a></h3><p>{summary}"
                   + f"{players}.</p></li>")
    return "\n".join(out)


def game_titles(lang: str = i18n.DEFAULT) -> str:
    """The hosted games' titles in a sentence: "<strong>A</strong>, <strong>B</strong> and ..."."""
    said = [(games.title_in(g, lang), bool(games.in_language(g, lang))) for g in games.GAMES.values()]
    titles = [f"<strong>{_game_words(html.escape(title), lang, speaks)}</strong>" for title, speaks in said]
    return i18n.translator(lang).list(titles)


def _header(name: str, tr: i18n.Translator = i18n.ENGLISH) -> str:
    current = NAV_OF.get(name)
    links = "".join(
        f'<li><a href="{href}"' + (' aria-current="page"' if href == current else "")
        + f">{html.escape(tr._(label))}</a></li>"
        for href, label in NAV)
    # (the messages outside the f-strings: the extraction does not read inside them)
    skip, site = html.escape(tr._("Skip to the content")), html.escape(tr._("Site"))
    return (f'<a class="site-skip" href="#main">{skip}</a>\n'
            '<header class="site-header"><div class="site-bar">'
            '<a class="site-brand" href="/" translate="no">'
            '<span>Table <span class="site-brand-sub">Post</span></span></a>'
            f'<nav aria-label="{site}"><ul>{links}</ul></nav></div></header>')


def _footer(tr: i18n.Translator) -> str:
    text, label = tr._(FOOTER_TEXT), html.escape(tr._("Language"))
    return (f'<footer class="site-footer"><p>{text}</p>'
            f'<nav class="site-languages" aria-label="{label}">{LANGUAGE_SWITCH}</nav>'
            '</footer>')


def language_switch(lang: str) -> str:
    """The footer's links to this page in each language: its query with ``lang`` set, as a link
    relative to the page (``?lang=de``: the same path; the page stays the same text for every
    game, and the page's fragment is added in the browser when one is clicked: api/page_i18n.py)."""
    args = [(k, v) for k, v in flask.request.args.items(multi=True) if k != "lang"]
    out = []
    for code, own_name in i18n.LANGUAGES.items():
        query = "&".join(f"{quote(k)}={quote(v)}" for k, v in [*args, ("lang", code)])
        href = html.escape(f"?{query}")
        current = ' aria-current="true"' if code == lang else ""
        out.append(f'<li><a href="{href}" hreflang="{code}" lang="{code}" data-lang="{code}"{current}>'
                   f"{html.escape(own_name)}</a></li>")
    return "<ul>" + "".join(out) + "</ul>"


def page_scripts(name: str) -> list[str]:
    """The texts of the scripts a page runs (its inline ones, the games' catalog, a game page's shared
    ones): the messages of its table."""
    texts = [_text(name)]
    if "<!--game-catalog-->" in texts[0]:
        texts.append(_text("catalog.js"))
    if name in GAME_PAGE_FILES:
        texts += [_text(s) for s in GAME_PAGE_SCRIPTS]
    return [*inline_scripts(texts[0]), *texts[1:]]


def own_catalogs(name: str) -> tuple[str, str] | None:
    """The catalogs of a game's own page's words: its game's (``catalogs``: folder and domain,
    docs/i18n.md "A game's own page"), where the game has them; None: the platform's alone."""
    if not name.startswith(GAME_PAGE_PREFIX):
        return None
    catalogs = getattr(games.get(name[len(GAME_PAGE_PREFIX):]), "catalogs", None)   # (a game's default: None)
    return (str(catalogs[0]), catalogs[1]) if catalogs else None


@lru_cache(maxsize=None)
def render(name: str, lang: str = i18n.DEFAULT) -> str:
    """A page file in a language, with the site's layout put in at its markers (see the module
    docstring); the footer's language links are put in per request (:func:`language_switch`). A game's
    own page speaks its words from the game's catalog, then the platform's (api/page_i18n.py)."""
    tr = i18n.translator(lang)
    own = own_catalogs(name)
    html = page_i18n.render_template(_text(name), lang, own, game_titles=Markup(game_titles(lang)),
                                     languages=i18n.LANGUAGES)
    html = re.sub(r'<html lang="[^"]*"', f'<html lang="{lang}"', html, count=1)
    footer = _footer(tr)
    if name in GAME_PAGE_FILES:
        footer += '\n<script src="/play/scripts/site.js"></script>'
    html = re.sub(r"<main(?![^>]*\bid=)", '<main id="main"', html, count=1)  # the skip link's target
    # the games played here (api/static/catalog.js), inline: the page's policy keeps to hashes
    catalog = f"<script>\n{_text('catalog.js')}</script>"
    head = page_i18n.head_script(lang, page_scripts(name), own) + "\n" + SITE_HEAD
    return (html.replace("<!--site-head-->", head).replace("<!--site-header-->", _header(name, tr))
            .replace("<!--site-footer-->", footer).replace("<!--game-catalog-->", catalog)
            .replace("<!--game-cards-->", game_cards(lang)).replace("<!--game-titles-->", game_titles(lang)))


def _hashes(html: str, tag: str) -> list[str]:
    return ["'sha256-" + base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode() + "'"
            for body in re.findall(rf"<{tag}>(.*?)</{tag}>", html, re.S)]


@lru_cache(maxsize=None)
def page_csp(name: str, lang: str = i18n.DEFAULT) -> str:
    """The Content-Security-Policy of a page in a language: its inline scripts (its message table
    among them: one policy per language) and styles by hash, and this origin's scripts and
    stylesheet if it loads one (``<script src="/...">``, ``<link rel="stylesheet" href="/...">``:
    only :data:`SCRIPTS` are served)."""
    html = render(name, lang)
    parts = ["default-src 'none'"]
    scripts = _hashes(html, "script")
    if re.search(r'<script src="/', html):  # a script of this origin's (SCRIPTS)
        scripts.append("'self'")
    if scripts:
        parts.append("script-src " + " ".join(scripts))
    styles = _hashes(html, "style")
    if re.search(r'<link rel="stylesheet" href="/', html):  # the site's stylesheet (SCRIPTS)
        styles.append("'self'")
    if styles:
        parts.append("style-src " + " ".join(styles))
    parts += ["img-src 'self'", "connect-src 'self'", "form-action 'self'", "base-uri 'none'",
              "object-src 'none'", "frame-ancestors 'none'"]
    return "; ".join(parts)


def _view(name: str, status: int = 200):
    def view(**_path_args) -> flask.Response:
        lang, remember = page_i18n.page_language()
        text = render(name, lang).replace(LANGUAGE_SWITCH, language_switch(lang))
        resp = flask.Response(text, status=status, mimetype="text/html",
                              headers={**HEADERS, "Content-Security-Policy": page_csp(name, lang)})
        return page_i18n.answer(resp, lang, remember)
    return view


def wants_page() -> bool:
    """Whether this request is a browser's for a page (not an API client's): outside ``/api/``,
    and asking for HTML before JSON (a browser's ``Accept``; an API client's ``*/*`` or JSON
    is answered problem+json)."""
    if flask.request.path.startswith("/api/") or flask.request.method not in ("GET", "HEAD"):
        return False
    accept = flask.request.accept_mimetypes
    return accept.best_match(["application/problem+json", "application/json", "text/html"]) == "text/html"


def not_found_page() -> flask.Response:
    """The 404 page, in the site's layout, with the ways on (home, a new game, your games)."""
    return _view("not_found.html", 404)()


def play_page(game_id: str) -> flask.Response:
    """The page of the game's own game; a game waiting for players (or cancelled before it
    started) is the lobby's page of that game; an unknown game is the 404 page for a browser and
    the service's 404 problem (``game-not-found``) for any other client."""
    try:
        name = games.of_meta(service().meta(game_id)).name
    except ServiceError as e:
        if e.code in ("game-not-started", "game-cancelled"):
            return _view("lobby.html")()
        if e.kind == "not-found" and wants_page():
            return not_found_page()
        raise
    return _view(GAME_PAGES.get(name, GENERIC_GAME_PAGE))()


def favicon() -> flask.Response:
    """The site's icon (an SVG: a tile), on every page and in the header."""
    return flask.Response(_text("favicon.svg"), mimetype="image/svg+xml",
                          headers={"Cache-Control": "public, max-age=86400"})


def pieces_picture(game: str) -> flask.Response:
    """The pictures of a game's pieces (``games.Game.pieces_svg``), for its page, with their words in
    the page's language (``?lang=``, as the page asks)."""
    lang, _remember = page_i18n.page_language()
    try:
        g = games.get(game)
        svg = g.pieces_svg(**games.in_language(g, lang))
    except games.UnknownGame:
        svg = None
    if svg is None:
        flask.abort(404)
    resp = flask.Response(svg, mimetype="image/svg+xml", headers={"Cache-Control": "no-cache"})
    return page_i18n.answer(resp, lang, False)


def page_script(name: str) -> flask.Response:
    """A script or the stylesheet the pages share (:data:`SCRIPTS`); revalidated at every load,
    like the pages."""
    if name not in SCRIPTS:
        flask.abort(404)
    mimetype = "text/css" if name.endswith(".css") else "text/javascript"
    return flask.Response(_text(name), mimetype=mimetype, headers={"Cache-Control": "no-cache"})


def docs_page() -> flask.Response:
    """The API documentation (Swagger UI)."""
    return flask.Response(_text("docs.html"), mimetype="text/html",
                          headers={"Cache-Control": "no-cache", "Referrer-Policy": "no-referrer",
                                   "Content-Security-Policy": DOCS_CSP})


def docs_asset(name: str) -> flask.Response:
    """Swagger UI's files, from the flask-swagger-ui package (pinned by the installed version)."""
    if name == "docs.js":
        return flask.Response(_text("docs.js"), mimetype="text/javascript",
                              headers={"Cache-Control": "no-cache"})
    if name not in DOCS_ASSETS:
        flask.abort(404)
    dist = resources.files("flask_swagger_ui").joinpath("dist")
    mimetype = "text/css" if name.endswith(".css") else "text/javascript"
    return flask.Response(dist.joinpath(name).read_bytes(), mimetype=mimetype,
                          headers={"Cache-Control": "public, max-age=86400"})


def security_headers(resp: flask.Response) -> flask.Response:
    """On every answer: no MIME sniffing; on HTML without a policy of its own, the default one."""
    resp.headers.setdefault("X-Content-Type-Options", "nosniff")
    if resp.mimetype == "text/html":
        resp.headers.setdefault("Content-Security-Policy", DEFAULT_HTML_CSP)
        resp.headers.setdefault("X-Frame-Options", "DENY")
    return resp


def register_pages(app: flask.Flask) -> None:
    for rule, (endpoint, name, doc) in PAGES.items():
        if endpoint == "play_page":  # the page of the game's own game
            view = play_page
        else:
            view = _view(name)
            view.__doc__ = doc
        app.add_url_rule(rule, endpoint, view)
    app.add_url_rule("/play/pieces/<string:game>.svg", "pieces_picture", pieces_picture)
    app.add_url_rule("/play/scripts/<string:name>", "page_script", page_script)
    app.add_url_rule("/favicon.svg", "favicon", favicon)
    app.add_url_rule("/api/docs", "api_docs", docs_page)
    app.add_url_rule("/api/docs/assets/<string:name>", "api_docs_asset", docs_asset)
    app.after_request(security_headers)
