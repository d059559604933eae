"""The game page (/play/{id}) and the board picture it shows. The page is static and talks only
to the public REST API; the board picture shows only what every viewer may see."""
from __future__ import annotations

from importlib import resources

import flask
from flask.views import MethodView
from flask_smorest import Blueprint

from ..app import service
from ..problems import documented

blp = Blueprint("play", __name__, description="The board picture")


def _page(name: str) -> flask.Response:
    page = resources.files("api").joinpath("static", name).read_text("utf-8")
    return flask.Response(page, mimetype="text/html", headers={"Referrer-Policy": "no-referrer"})


def play_page(game_id: str):
    """The game page (a page, not an API operation: it is not in the OpenAPI document). It shows
    the board, the status, the history and, opened from a seat's link (``#token=...`` in the
    fragment), that seat's legal moves as buttons, using only the public API."""
    return _page("play.html")


def new_game_page():
    """Create a game from the browser (2-4 players, or solo against the Cardinalbot)."""
    return _page("new_game.html")


def home_page():
    """What this service is, with links to a new game, the tournaments and the API docs."""
    return _page("home.html")


def register_pages(app: flask.Flask) -> None:
    """The plain pages (not API operations, so not in the OpenAPI document)."""
    app.add_url_rule("/", "home_page", home_page)
    app.add_url_rule("/play/new", "new_game_page", new_game_page)
    app.add_url_rule("/play/<string:game_id>", "play_page", play_page)


@blp.route("/api/v1/games/<string:game_id>/board.svg")
class BoardPicture(MethodView):
    @blp.doc(operationId="getBoardPicture", responses={200: {"description": "the board as SVG", "content": {
        "image/svg+xml": {"schema": {"type": "string"},
                          "example": '<svg xmlns="http://www.w3.org/2000/svg" width="800" height="600">...</svg>'}}}})
    @documented(blp, 404, "game-not-found", "unknown game")
    def get(self, game_id):
        """The board as a picture

        The whole public position drawn as SVG (the same picture as in turn emails).
        """
        from workers.board_svg import render_board_svg
        meta, state = service().load(game_id)
        names = [s["name"] for s in meta["seats"]]
        return flask.Response(render_board_svg(state, names), mimetype="image/svg+xml",
                              headers={"Cache-Control": "no-cache", "ETag": f'"v{state.version}"'})
