"""/api/v1/lobby: games waiting for players (docs/lobby.md): list them, join, confirm, leave."""
from __future__ import annotations

import flask
from flask.views import MethodView

from application.lobby import Lobby as LobbyService

from ..blueprint import Blueprint
from ..extensions import lobby
from ..problems import documented
from ..schemas.lobby import (LobbyCancelled, LobbyConfirmIn, LobbyGame, LobbyJoinIn, LobbyJoinOut, LobbyList,
                             LobbyQuery, LobbySeatFreed)
from ..schemas.review import LobbyPlayer
from ..auth import bearer

blp = Blueprint("lobby", __name__, url_prefix="/api/v1/lobby",
                description="Games waiting for players: find one, join it, leave it")

ENTRY = {"id": "Xq3vTz8aBc1d", "game": "tiletum", "players": 3, "open_seats": 1,
         "seats_taken": ["Ann", "Bob"],
         "time_control": {"days_per_move": 3}, "rated": True, "rating_range": [1400, 1700],
         "status": "waiting", "cancelled_by": None,
         "created_at": "2025-03-01T12:00:00Z", "expires_at": "2025-03-08T12:00:00Z",
         "joined": [{"name": "Ann", "handle": "ann_plays",
                     "reliability": {"games_finished": 12, "games_abandoned": 1, "stand_in_turns": 3,
                                     "median_move_seconds": 5400, "moves_timed": 200}},
                    {"name": "Bob", "handle": None, "reliability": None}]}
SEATED = {"game": "Xq3vTz8aBc1d", "status": "seated", "seat": 2, "name": "Dana",
          "token": "mV3xQ0b8cM1xI4yVtq5tJ1YkZs0Ex9DE", "play_url": "/play/Xq3vTz8aBc1d#token=L2.abc",
          "started": True}
SECURITY_SCHEME = {"type": "http", "scheme": "bearer",
                   "description": "a waiting game's creator token, returned once by POST /api/v1/games"}
PLAYER_OR_NONE: list[dict[str, list[str]]] = [{"dashboardKey": []}, {}]
ANY_OF_THEM: list[dict[str, list[str]]] = [{"seatToken": []}, {"dashboardKey": []}]


def err(status: int, code: str, description: str):
    return documented(blp, status, code, description)


_ROW = LobbyGame()


_JOINED = LobbyPlayer(many=True)


def listing_row(game_id: str, doc: dict) -> dict:
    """A listed game's row of ``GET /lobby``: made by its schema (what the document says), once per
    version of its record (the application keeps it: application/lobby.py ``_Rows``)."""
    return _ROW.dump(LobbyService.entry(game_id, doc))


def listing_finish(row: dict, joined: list[dict]) -> str:
    """The row as JSON with its seated players' public figures, which change apart from the record."""
    return flask.current_app.json.dumps({**row, "joined": _JOINED.dump(joined)})


@blp.route("")
class Lobby(MethodView):
    @blp.doc(operationId="listLobby")
    @blp.arguments(LobbyQuery, location="query")
    @blp.response(200, LobbyList, example={"games": [ENTRY], "more": False, "next_offset": None})
    @err(422, "invalid-request", "an unknown game, a players, offset or limit out of range, or a rated "
                                 "other than true or false")
    def get(self, query):
        """List the games waiting for players

        The games with open seats that anyone may join, newest first (a private game is never
        listed): the game, the players wanted, the names of the seats taken, the time control,
        whether it is rated and its rating range. Filter by `game`, `players` and `rated`; page with
        `offset` and `limit` (`more` and `next_offset` say what follows).
        """
        out = lobby().listing(query.get("game"), query.get("players"), query["offset"], query["limit"],
                              rated=query.get("rated"), render=listing_row, finish=listing_finish)
        # the rows are the schema's JSON already: the page is joined, not dumped field by field again
        dumps = flask.current_app.json.dumps
        body = (f'{{"games":[{",".join(out["games"])}],"more":{dumps(out["more"])},'
                f'"next_offset":{dumps(out["next_offset"])}}}\n')
        return flask.current_app.response_class(body, mimetype="application/json")


@blp.route("/<string:game_id>")
class LobbyGameView(MethodView):
    @blp.doc(operationId="getLobbyGame")
    @blp.response(200, LobbyGame, example=ENTRY)
    @err(404, "game-not-found", "unknown game")
    @err(409, "game-started", "the game has started already (GET /api/v1/games/{id})")
    def get(self, game_id):
        """Read a waiting game

        What the lobby shows of one waiting game (also of a private one, by its id), or
        `status: cancelled` for one that was cancelled before it started.
        """
        return lobby().view(game_id)

    @blp.doc(operationId="cancelWaitingGame", security=[{"creatorToken": []}])
    @blp.response(200, LobbyCancelled, example={"game": "Xq3vTz8aBc1d", "status": "cancelled"})
    @err(401, "unauthorized", "no creator token")
    @err(403, "not-the-creator", "the token is not the game's creator token")
    @err(404, "game-not-found", "unknown game")
    @err(409, "game-started", "the game has started: it is played now")
    def delete(self, game_id):
        """Cancel a waiting game

        The game's creator (the creator token) cancels it before it starts: it leaves the lobby,
        every player seated so far is told by email, and the game answers `status: cancelled`.
        Cancelling a game already cancelled answers the same and changes nothing.
        """
        return lobby().cancel_by_creator(game_id, bearer("creator token"))


@blp.route("/<string:game_id>/join")
class Join(MethodView):
    @blp.doc(operationId="joinGame", security=PLAYER_OR_NONE)
    @blp.arguments(LobbyJoinIn, example={"name": "Dana", "email": "dana@example.org"})
    @blp.response(202, LobbyJoinOut, example={"game": "Xq3vTz8aBc1d", "status": "pending", "emailed": True})
    @blp.alt_response(200, schema=LobbyJoinOut, example=SEATED,
                      description="with a dashboard key: seated at once")
    @err(400, "invalid-request", "the body is not JSON")
    @err(401, "unauthorized", "a dashboard key that is not valid")
    @err(403, "bad-invitation", "a private game without its invitation code; outside-rating-range (with a "
                                "dashboard key only): your rating is outside the game's rating range")
    @err(404, "game-not-found", "unknown game")
    @err(409, "game-full", "every seat is taken; game-cancelled: it was cancelled; game-started: it has "
                           "started; already-seated (with a dashboard key only): you have a seat of the game "
                           "already")
    @err(413, "payload-too-large", "the body is too large")
    @err(422, "email-required", "no email and no dashboard key; name-required: no name (and none used "
                                "before); name-not-allowed: a name that looks like a URL, a domain or an "
                                "email address")
    @err(429, "rate-limited", "too many joins from this client or for this address (TABLEPOST_JOIN_LIMIT, "
                              "TABLEPOST_JOIN_ADDRESS_LIMIT)")
    def post(self, body, game_id):
        """Join a waiting game

        With `name` and `email`: answers 202 and emails the address a link that works once; the
        seat is taken when it is opened (`POST /api/v1/lobby/confirm`), which also verifies the
        address. With your dashboard key (`Authorization: Bearer <dashboard key>`) you are seated
        at once (200), with your seat's token and link. A private game needs `invite`, the code of
        its invitation link. When the last seat is taken the game starts.

        A join asked by email answers the same for every address (202): whether the address can
        take the seat (its rating, a seat it has already) is told to its owner only, by the email
        or, with a dashboard key, in the answer.
        """
        out = lobby().request_join(game_id, body.get("name"), body.get("email"), body.get("invite"),
                                   bearer("dashboard key"), language=body.get("language"))
        return out, (200 if out["status"] == "seated" else 202)


@blp.route("/confirm")
class Confirm(MethodView):
    @blp.doc(operationId="confirmJoin")
    @blp.arguments(LobbyConfirmIn,
                   example={"token": "J.Xq3vTz8aBc1d.q0b8cM1xI4yV.abcdefghijklmnopqrstuvwxyz234567"})
    @blp.response(200, LobbyJoinOut, example=SEATED)
    @err(400, "invalid-request", "the body is not JSON")
    @err(403, "outside-rating-range", "the address's rating is outside the game's rating range")
    @err(404, "game-not-found", "the game is gone")
    @err(409, "join-link-used",
         "the link was used already or expired; game-full, game-cancelled, game-started, "
                                "already-seated: the seat cannot be taken")
    @err(413, "payload-too-large", "the body is too large")
    @err(422, "bad-join-link", "not a join link's token")
    def post(self, body):
        """Take the seat of an emailed join link

        The page `/play/lobby#join=<token>` sends the token of the link in the email. The seat is
        taken once, the address is verified, and the answer holds your seat's token and link.
        Opened again while the same player holds that seat (the game waiting or started), the link
        leads back to it: the answer has `again: true` and the seat's link, never its token again.
        Any other second use is refused and changes nothing.
        """
        return lobby().confirm(body["token"])


@blp.route("/<string:game_id>/seats/<int:seat>")
class Seat(MethodView):
    @blp.doc(operationId="leaveGame", security=[{"seatToken": []}, *ANY_OF_THEM[1:]])
    @blp.response(200, LobbySeatFreed, example={"game": "Xq3vTz8aBc1d", "seat": 2, "status": "left"})
    @err(401, "unauthorized", "no credential")
    @err(403, "not-your-seat", "neither the seat's own credential nor the creator token")
    @err(404, "game-not-found", "unknown game")
    @err(409, "game-started", "the game has started (or game-cancelled)")
    @err(422, "not-a-player-seat", "the seat is open, an AI seat, or not a seat of the game")
    def delete(self, game_id, seat):
        """Leave a waiting game, or remove a player

        Before the start: the seat's player leaves (their seat token, seat link token or dashboard
        key), or the game's creator takes the seat back (the creator token). The seat is open
        again and its old links stop working.
        """
        return lobby().remove(game_id, seat, bearer("seat token, dashboard key or creator token"))
