"""The board picture the game page (/play/{id}, api/pages.py) and the turn emails show (SVG, and a
PNG for the emails): only what every viewer may see."""
from __future__ import annotations

import flask
from flask.views import MethodView

from application.board_svg import board_picture
from application.together import Together
from mail.board_png import board_png

from ..blueprint import Blueprint
from ..extensions import service
from ..problems import ApiError, documented

blp = Blueprint("play", __name__, description="The board picture")


SVG = "image/svg+xml"
# A client that cannot take image/svg+xml (generated clients know JSON, text/* and
# application/octet-stream) asks for the same bytes as application/octet-stream with its Accept.
PICTURE_TYPES = [SVG, "application/octet-stream"]
SVG_EXAMPLE = '<svg xmlns="http://www.w3.org/2000/svg" width="800" height="600">...</svg>'


@blp.route("/api/v1/games/<string:game_id>/board.svg")
class BoardPicture(MethodView):
    @blp.doc(operationId="getBoardPicture", parameters=[{
        "in": "query", "name": "version", "required": False, "schema": {"type": "integer", "minimum": 1},
        "description": "the board after this many events (the replay); absent: now"}], responses={200: {
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
        return flask.Response(board_picture(meta, state), mimetype=mimetype,
                              headers={"Cache-Control": "no-cache", "ETag": f'"v{state.version}"',
                                       "Vary": "Accept"})


@blp.route("/api/v1/games/<string:game_id>/board.png")
class BoardPng(MethodView):
    @blp.doc(operationId="getBoardPng", responses={
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
        png = board_png(game_id, state.version, lambda: board_picture(meta, state), redis=service().store.r)
        if png is None:
            return flask.redirect(flask.url_for("play.BoardPicture", game_id=game_id))
        return flask.Response(png, mimetype="image/png",
                              headers={"Cache-Control": "no-cache", "ETag": f'"v{state.version}"'})
