"""The board picture the game page (/play/{id}, api/pages.py) and the turn emails show (SVG, and a
PNG for the emails): only what every viewer may see."""
from __future__ import annotations

import flask
from flask.views import MethodView

from application.board_svg import board_picture
from application.together import Together
from mail.board_png import board_png

from .. import language
from ..blueprint import Blueprint
from ..extensions import service
from ..problems import ApiError, documented

blp = Blueprint("play", __name__, description="The board picture")


SVG = "image/svg+xml"
# A client that cannot take image/svg+xml (generated clients know JSON, text/* and
# application/octet-stream) asks for the same bytes as application/octet-stream with its Accept.
PICTURE_TYPES = [SVG, "application/octet-stream"]
SVG_EXAMPLE = '<svg xmlns="http://www.w3.org/2000/svg" width="800" height="600">...</svg>'
LANG_PARAM = {"in": "query", "name": "lang", "required": False, "schema": {"type": "string", "example": "de"},
              "description": "the language of the board's words (`en`, `de`, `fr`); absent or not supported: "
                             "the request's `Accept-Language`, else English. A game whose words speak only "
                             "English draws its board in English"}


def board_language() -> str:
    """The language the board's words are asked in: the request's (api/language.py: ``?lang=``, else
    ``Accept-Language``, else English; the pseudo-locale only in an app under test). (The game page
    passes its own language as ``?lang=``.)"""
    return language.request_language()


def _tag(version: int, lang: str) -> str:
    """The picture's ETag: each language's is its own (English's as it always was)."""
    return f'"v{version}"' if lang == "en" else f'"v{version}-{lang}"'


@blp.route("/api/v1/games/<string:game_id>/board.svg")
class BoardPicture(MethodView):
    @blp.doc(operationId="getBoardPicture", parameters=[{
        "in": "query", "name": "version", "required": False, "schema": {"type": "integer", "minimum": 1},
        "description": "the board after this many events (the replay); absent: now"}, LANG_PARAM],
        responses={200: {
        "description": "the board as SVG: image/svg+xml, or the same bytes as application/octet-stream when "
                       "the request's Accept prefers that",
        "content": {SVG: {"schema": {"type": "string", "format": "binary"}, "example": SVG_EXAMPLE},
                    "application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}}})
    @documented(blp, 404, "game-not-found", "unknown game")
    @documented(blp, 422, "bad-version", "a `version` after the game's current one (or invalid-request)")
    def get(self, game_id):
        """The board as a picture

        The whole public position drawn as SVG (the same picture as in turn emails); with
        `version`, as it was after that many events (the replay).
        """
        version = flask.request.args.get("version")
        if version is None:
            meta, state = service().load(game_id)
        elif version.isascii() and version.isdigit() and len(version) <= 19:
            meta, state = Together(service()).position_at(game_id, int(version))
        else:
            raise ApiError(422, "invalid-request", "`version` is a whole number from 1")
        mimetype = flask.request.accept_mimetypes.best_match(PICTURE_TYPES, default=SVG)
        lang = board_language()
        return flask.Response(board_picture(meta, state, lang), mimetype=mimetype,
                              headers={"Cache-Control": "no-cache", "ETag": _tag(state.version, lang),
                                       "Vary": "Accept, Accept-Language", "Content-Language": lang})


@blp.route("/api/v1/games/<string:game_id>/board.png")
class BoardPng(MethodView):
    @blp.doc(operationId="getBoardPng", parameters=[LANG_PARAM], responses={
        200: {"description": "the board as an 800-pixel-wide PNG",
              "content": {"image/png": {"schema": {"type": "string", "format": "binary"}}}},
        302: {"description": "the PNG cannot be rendered on this host: the SVG instead"}})
    @documented(blp, 404, "game-not-found", "unknown game")
    def get(self, game_id):
        """The board as a PNG

        The same picture as `board.svg`, as an 800-pixel-wide PNG (Gmail and Outlook do not show
        SVG). Rendered once per game version and shared by every process. A turn email carries its
        own pictures inline, each laid out for a phone's email column (a game may picture there the
        part of its board that matters to the seat). A `v` query parameter is ignored: the picture
        is the current board.
        """
        meta, state = service().load(game_id)
        lang = board_language()
        png = board_png(game_id, state.version, lambda: board_picture(meta, state, lang),
                        redis=service().store.r)
        if png is None:
            return flask.redirect(flask.url_for("play.BoardPicture", game_id=game_id,
                                                **({"lang": lang} if lang != "en" else {})))
        return flask.Response(png, mimetype="image/png",
                              headers={"Cache-Control": "no-cache", "ETag": _tag(state.version, lang),
                                       "Vary": "Accept-Language", "Content-Language": lang})
