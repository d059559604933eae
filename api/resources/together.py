"""Playing together (issue 41): resign, rematch, and the rematch link of the results email.
The replay (``GET /state?version=N``) is the state endpoint's (api/resources/games.py). Views are
thin: they parse, call application/together.py and return."""
from __future__ import annotations

import html

import flask
import marshmallow as ma
from flask.views import MethodView

from application import errors
from application.together import Together

from ..blueprint import Blueprint
from ..extensions import service
from ..problems import documented
from .email import SIG, _page, _query, _verified, answers_html, html_or_problem
from .games import SEAT, bearer

blp = Blueprint("together", __name__, url_prefix="/api/v1/games",
                description="Resigning and the rematch")


def err(status: int, code: str, description: str):
    return documented(blp, status, code, description)


def together() -> Together:
    return Together(service())


class Resigned(ma.Schema):
    game = ma.fields.String(required=True)
    seat = ma.fields.Integer(required=True, metadata={"description": "your seat, which resigned"})
    version = ma.fields.Integer(required=True, metadata={"description": "the game's version after it"})
    status = ma.fields.String(required=True, validate=ma.validate.OneOf(["finished", "active"]),
                              metadata={"description": "`finished` when your resignation ended the game, "
                                                       "else `active`"})
    winner = ma.fields.Integer(required=True, allow_none=True,
                               metadata={"description": "the winner's seat when it ended the game"})


class RematchSeat(ma.Schema):
    seat = ma.fields.Integer(required=True, metadata={"description": "the seat in this game"})
    name = ma.fields.String(required=True)
    accepted = ma.fields.Boolean(required=True)
    new_seat = ma.fields.Integer(required=True, allow_none=True,
                                 metadata={"description": "its seat in the new game, once it started"})


class Rematch(ma.Schema):
    game = ma.fields.String(required=True, metadata={"description": "this game"})
    status = ma.fields.String(required=True, validate=ma.validate.OneOf(["proposed", "started"]),
                              metadata={"description": "`proposed` (waiting for acceptances) or `started`"})
    new_game = ma.fields.String(required=True, allow_none=True,
                                metadata={"description": "the new game's id, once it started"})
    expires = ma.fields.String(required=True, metadata={"description": "when the proposal lapses unless "
                                                                       "all accepted (UTC, ISO 8601)"})
    seats = ma.fields.List(ma.fields.Nested(RematchSeat), required=True)


@blp.route("/<string:game_id>/resign")
class ResignView(MethodView):
    @blp.doc(operationId="resign", security=SEAT)
    @blp.response(200, Resigned, example={"game": "Xq3vTz8aBc1d", "seat": 1, "version": 58,
                                          "status": "finished", "winner": 0})
    @err(401, "unauthorized", "no or bad seat token")
    @err(403, "not-resignable", "the seat of the AI player, the Cardinalbot or a bot account: it does not "
                                "resign")
    @err(404, "game-not-found", "unknown game")
    @err(409, "game-over", "the game is over; already-resigned: your seat resigned already")
    def post(self, game_id):
        """Resign

        Your seat resigns at once (an event of the game's log). With one other seat left, it wins
        and the game is over; otherwise you leave the game: the stand-in plays your seat's turns
        to the end, and you are placed last (ratings and tournaments count it as a loss).
        """
        return together().resign(game_id, bearer())


@blp.route("/<string:game_id>/rematch")
class RematchView(MethodView):
    @blp.doc(operationId="getRematch")
    @blp.response(200, Rematch)
    @err(404, "rematch-not-found", "no rematch proposed for this game (or it lapsed); game-not-found")
    def get(self, game_id):
        """Read the rematch proposal

        Who has accepted the rematch of a finished game, and the new game once it started.
        """
        doc = together().proposal(game_id)
        if doc is None:
            raise errors.missing("rematch-not-found", "no rematch is proposed for this game")
        return doc

    @blp.doc(operationId="rematch", security=SEAT)
    @blp.response(200, Rematch, example={
        "game": "Xq3vTz8aBc1d", "status": "proposed", "new_game": None, "expires": "2026-12-01T12:00:00Z",
        "seats": [{"seat": 0, "name": "Ann", "accepted": True, "new_seat": None},
                  {"seat": 1, "name": "Bob", "accepted": False, "new_seat": None}]})
    @err(401, "unauthorized", "no or bad seat token")
    @err(404, "game-not-found", "unknown game")
    @err(409, "game-not-over", "the game is not over; rematch-unsupported: a game with a bot account")
    def post(self, game_id):
        """Ask for a rematch, or accept it

        Proposes a new game with the same seats, game and options, the seat order turned by one;
        asking again (or for another seat of the game) accepts the same proposal. AI seats
        accept at once. When every seat has accepted the new game starts (`new_game`); each
        person keeps their seat token. A proposal lapses after a few days (`expires`).
        """
        return together().rematch(game_id, bearer())


REMATCH_LINK = [_query("seat", "the seat that accepts", example="0", pattern="^[0-9]+$"), SIG,
                _query("exp", "optional expiry (Unix time)", required=False, pattern="^[0-9]+$")]


@blp.route("/<string:game_id>/email-rematch")
class EmailRematch(MethodView):
    @blp.doc(operationId="confirmEmailRematch", responses={200: {"description": "an HTML page", "content": {
        "text/html": {"schema": {"type": "string"}}}}}, parameters=REMATCH_LINK)
    @html_or_problem(403, "bad-signature", "the link's signature does not match")
    @html_or_problem(404, "email-disabled", "email play is not configured on this server")
    @answers_html
    def get(self, game_id):
        """Confirm a rematch from the results email

        Shows a button; nothing is accepted by opening the link.
        """
        _verified(flask.request.path)
        return _page("Play again?", "<p>A new game with the same players, game and options. It starts "
                                    "once everyone has accepted.</p><form method=post><button "
                                    "type=submit>Accept the rematch</button></form>")

    @blp.doc(operationId="acceptEmailRematch", responses={200: {"description": "an HTML page", "content": {
        "text/html": {"schema": {"type": "string"}}}}}, parameters=REMATCH_LINK)
    @html_or_problem(403, "bad-signature", "the link's signature does not match")
    @html_or_problem(404, "email-disabled", "email play is not configured on this server (or game-not-found)")
    @html_or_problem(409, "game-not-over", "the game is not over (or rematch-unsupported)")
    @answers_html
    def post(self, game_id):
        """Accept a rematch from the results email

        Asks for or accepts the rematch for the signed seat, like `POST /rematch`.
        """
        p = _verified(flask.request.path)
        doc = together().rematch(game_id, seat=int(p["seat"]))
        if doc["new_game"] is None:
            waiting = [s["name"] for s in doc["seats"] if not s["accepted"]]
            return _page("Rematch accepted", "<p>The new game starts once "
                         + html.escape(", ".join(waiting)) + " accepted too. You get its first email "
                                                              "then.</p>")
        return _page("The rematch has started",
                     f"<p>Everyone accepted: the new game is on. <a href=\"/play/"
                     f"{html.escape(doc['new_game'])}\">Watch the new game</a>; your turn emails follow.</p>")
