"""The service's own web pages. They are static files in ``api/static`` that talk only to the
public REST API, like any client; they are plain routes, not API operations, so they are not in
the OpenAPI document.

Every secret a page needs (a seat token, a dashboard key, an organizer token, an invitation
code, an entry token) travels in the URL fragment, which browsers never send to servers, so no
page route takes a secret and ``Referrer-Policy: no-referrer`` keeps page addresses out of other
sites' logs. Pages are never cached: a deployed new version shows at the next load.
"""
from __future__ import annotations

from functools import lru_cache
from importlib import resources

import flask

# route -> (endpoint, file, what it shows)
PAGES = {
    "/": ("home_page", "home.html", "what this is, with links to a new game, the tournaments and the API docs"),
    "/play/new": ("new_game_page", "new_game.html", "create a game: 2-4 players, or solo against the Cardinalbot"),
    "/play/<string:game_id>": ("play_page", "play.html",
                               "a game: the board, the history, and with #token= that seat's moves"),
    "/tournaments": ("tournaments_page", "tournaments.html", "the tournaments, and the form that creates one"),
    "/tournaments/<string:tid>": ("tournament_page", "tournament.html",
                                  "standings and rounds; #invite= entry, #entry= your games, #organizer= start"),
    "/me": ("me_page", "me.html", "your dashboard (#key=): games to move, waiting, finished; email; vacation"),
}
HEADERS = {"Referrer-Policy": "no-referrer", "Cache-Control": "no-store"}


@lru_cache(maxsize=None)
def _text(name: str) -> str:
    return resources.files("api").joinpath("static", name).read_text("utf-8")


def _view(name: str):
    def view(**_path_args) -> flask.Response:
        return flask.Response(_text(name), mimetype="text/html", headers=HEADERS)
    return view


def register_pages(app: flask.Flask) -> None:
    for rule, (endpoint, name, doc) in PAGES.items():
        view = _view(name)
        view.__doc__ = doc
        app.add_url_rule(rule, endpoint, view)
