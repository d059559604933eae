"""Playing together (issue 41): resign and rematch (the results email's rematch link opens the
game page as the seat, which asks with one click: no capability in a query string). The replay
(``GET /state?version=N``) is the state endpoint's (api/resources/games.py). Views are thin: they
parse, call application/together.py and return."""
from __future__ import annotations

import marshmallow as ma
from flask.views import MethodView

from application import errors
from application.together import Together

from ..blueprint import Blueprint
from ..extensions import service
from ..limits import rematch_limit
from ..problems import documented
from ..auth import SEAT, bearer

blp = Blueprint("together", __name__, url_prefix="/api/v1/games",
                description="Resigning and the rematch")


def err(status: int, code: str, description: str):
    return documented(blp, status, code, description)


def together() -> Together:
    return Together(service(), rematch_limit=rematch_limit())   # a rematch chain's limit (api/limits.py)


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
    @err(403, "not-resignable", "the seat of the AI player, a game's own automa or a bot account: it "
                                "does not resign")
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
    @err(429, "rate-limited", "the client's create budget is spent (an ask that proposes or accepts costs "
                              "one), or the game's rematch chain started its games for the day; Retry-After")
    def post(self, game_id):
        """Ask for a rematch, or accept it

        Proposes a new game with the same seats, game and options, the seat order turned by one;
        asking again (or for another seat of the game) accepts the same proposal. AI seats
        accept at once. When every seat has accepted the new game starts (`new_game`); each
        person keeps their seat token. A proposal lapses after a few days (`expires`).

        An ask that proposes or accepts costs one of your client's create budget (as `POST /games`;
        asking again costs nothing), and a chain of rematches starts a limited number of games a day.
        """
        return together().rematch(game_id, bearer())
