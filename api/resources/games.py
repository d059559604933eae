"""/api/v1/games: create games, read them, and play moves."""
from __future__ import annotations

import math
import secrets

import flask
import marshmallow as ma
from flask.views import MethodView

from application.consent import held_for_link
from application.hints import Busy
from application.review import RETRY_AFTER as REVIEW_RETRY
from application.review import Reviews
from application.together import Together

from .. import hints, limits
from ..auth import OPTIONAL_SEAT, SEAT, bearer
from ..blueprint import Blueprint
from ..extensions import credentials, lobby, scheduler, service
from ..language import request_language
from ..problems import ApiError, documented
from ..schemas.common import MAX_VERSION, QueryBoolean, QueryInteger
from ..schemas.games import (Fairness, GameCreate, GameCreated, GamesQuery, GameSummary, NewSeatLink,
                             NewSeatToken, PublicGames)
from ..schemas.me import HeldEmails, Notifications, NotificationsIn, Vacation, VacationIn
from ..schemas.moves import EventsOut, EventsPageQuery, LegalMoves, MovesIn, MovesOut
from ..schemas.positions import ANY_POSITION
from ..schemas.review import ReviewOut, ReviewPending, ReviewQuery

blp = Blueprint("games", __name__, url_prefix="/api/v1/games", description="Games and their moves")

IDEMPOTENCY = {"in": "header", "name": "Idempotency-Key", "required": False, "schema": {"type": "string"},
               "description": "repeat a request safely: the same key and body give the first answer again"}
IF_NONE_MATCH = {"in": "header", "name": "If-None-Match", "required": False, "schema": {"type": "string"},
                 "description": "the ETag of a state you have: 304 while the game has not changed"}


def err(status: int, code: str, description: str):
    return documented(blp, status, code, description)


@blp.route("")
class Games(MethodView):
    @blp.doc(operationId="listGames")
    @blp.arguments(GamesQuery, location="query")
    @blp.response(200, PublicGames, example={"games": [
        {"id": "Xq3vTz8aBc1d", "game": "carcassonne", "round": 12, "players": ["Ada", "Bob", "Cy"],
         "tournament": None, "started": "2025-03-01T12:00:00Z"}]})
    @err(422, "invalid-request", "a status other than active, or a limit outside 1-50")
    def get(self, query):
        """List the games in progress

        The newest games in progress, for anyone to watch at `/play/{id}` (the home page lists
        them): each game's name, round, players' names and start, what its page shows anyone;
        never a token or an email.
        """
        return {"games": service().public_games(query["limit"])}

    @blp.doc(operationId="createGame")
    @blp.arguments(GameCreate,
                   example={"game": "tiletum", "seats": [{"name": "Alice", "email": "alice@example.org"},
                                                          {"name": "Bob"}], "options": {}})
    @blp.response(201, GameCreated)
    @err(400, "invalid-request", "the body is not JSON")
    @err(413, "payload-too-large", "the body is larger than the server accepts (TABLEPOST_MAX_BODY)")
    @err(422, "invalid-request", "invalid request: bad seats, options, or a seed on a server without "
              "--allow-seeded-games; name-not-allowed: a name that looks like a URL, a domain or an email "
              "address")
    def post(self, body):
        """Create a game

        Sets up a new game and returns each seat's secret token (shown only here) and the commitment
        to the game's secret seed. `game`: `tiletum` (2-4 seats; a solo game is one seat and a
        `cardinalbot` seat), `carcassonne` (2-5 seats) or `pillars` (The Pillars of the Earth, 2-4
        seats). A seat is a person (`human`, with an optional email), the AI player (`ai`, with a
        `level`), a registered bot account (`bot`), or open (`open`: the game then waits in the
        lobby until players take the open seats).
        """
        # a game that waits for players (docs/lobby.md)
        if any(s.get("kind") == "open" for s in body["seats"]):
            return lobby().create(body["seats"], body.get("options") or {}, game=body["game"])
        return service().create_game(body["seats"], body.get("options") or {}, game=body["game"],
                                     live_creator=True)


@blp.route("/<string:game_id>")
class Game(MethodView):
    @blp.doc(operationId="getGame")
    @blp.response(200, GameSummary)
    @err(404, "game-not-found", "unknown game")
    def get(self, game_id):
        """Read a game's summary

        Status, version, round and phase, whose decision it is, every seat's score, the winner,
        and whether the game is rated (then no hints); each seat's player's handle where their
        profile is public (their page: /players/{handle}).
        """
        return service().summary(game_id, handles=True)


class StateQuery(ma.Schema):
    version = QueryInteger(validate=ma.validate.Range(min=1, max=MAX_VERSION))   # documented above
    hidden = QueryBoolean(load_default=False)   # documented above


@blp.route("/<string:game_id>/state")
class GameState(MethodView):
    @blp.doc(operationId="getGameState", security=OPTIONAL_SEAT, parameters=[IF_NONE_MATCH, {
        "in": "query", "name": "version", "required": False,
        "schema": {"type": "integer", "minimum": 1, "maximum": MAX_VERSION},
        "description": "the position after this many events (the replay: 1 is the start); absent: now"}, {
        "in": "query", "name": "hidden", "required": False, "schema": {"type": "boolean", "default": False},
        "description": "true: the reader is not looking (a game page in a background tab), so the read "
                       "does not hold the seat's turn email back (docs/pbem.md, \"No email while you play "
                       "live\")"}])
    @blp.arguments(StateQuery, location="query")
    @blp.response(200, ANY_POSITION, headers={"ETag": {"schema": {"type": "string"},
                                                   "description": "the game's version"}})
    @blp.alt_response(304, description="not modified since the ETag you sent")
    @err(401, "unauthorized", "a token that belongs to no seat")
    @err(404, "game-not-found", "unknown game")
    @err(422, "bad-version", "a version after the game's current one (or invalid-request: not a whole number "
                             "from 1)")
    def get(self, query, game_id):
        """Read the position

        The full position as your seat sees it (Bearer seat token), or as a spectator (no
        token). Face-down piles and face-down tokens appear as counts only. The document is the
        game's own (`TiletumPosition`, `CarcassonnePosition`, ...: one per hosted game, told apart
        by `format`; GET /api/v1/catalog lists the games). With `version`, the position after that
        many events, as your seat (or a spectator) saw it then: the game's replay, by the same rules.
        """
        lang = request_language()
        if query.get("version") is not None:
            version, doc = Together(service()).state_at(game_id, bearer(), query["version"], lang)
        else:
            version, doc = service().state(game_id, bearer(), look=not query["hidden"], lang=lang)
        # the document in another language is another representation: its own ETag (English as before)
        etag = f'"v{version}"' if lang == "en" else f'"v{version}-{lang}"'
        if etag in flask.request.headers.get("If-None-Match", ""):
            resp = flask.make_response("", 304)
            resp.headers["ETag"] = etag
            return resp
        # The answer is made here: the response schema is a oneOf, which flask-smorest cannot dump.
        resp = flask.jsonify(doc)
        resp.headers["ETag"] = etag
        resp.headers["Vary"] = "Authorization"
        return resp


@blp.route("/<string:game_id>/legal-moves")
class LegalMovesView(MethodView):
    @blp.doc(operationId="getLegalMoves", security=SEAT)
    @blp.response(200, LegalMoves)
    @err(401, "unauthorized", "no or bad seat token")
    @err(404, "game-not-found", "unknown game")
    def get(self, game_id):
        """List your legal moves

        Every legal move of your seat, in notation and in words; empty when it is not your
        decision.
        """
        return service().legal_moves(game_id, bearer(), request_language())


class HintOut(ma.Schema):
    seat = ma.fields.Integer(required=True, metadata={"description": "your seat"})
    version = ma.fields.Integer(required=True, metadata={"description": "the version the hint is for"})
    level = ma.fields.String(required=True,
                             metadata={"description": "the AI level that suggested it (docs/ai.md)"})
    moves = ma.fields.List(ma.fields.String(), required=True,
                           metadata={"description": "the suggested moves for your current decision, in "
                                                    "notation, in order (up to the first that reveals "
                                                    "something)"})


class HintPending(ma.Schema):
    seat = ma.fields.Integer(required=True, metadata={"description": "your seat"})
    version = ma.fields.Integer(required=True, metadata={"description": "the version the hint is for"})
    level = ma.fields.String(required=True, metadata={"description": "the AI level suggesting it"})
    status = ma.fields.String(required=True, metadata={"description": "`computing`"})
    retry_after = ma.fields.Integer(required=True, metadata={"description": "seconds to wait before asking "
                                                                            "again (also the Retry-After "
                                                                            "header)"})


@blp.route("/<string:game_id>/hint")
class GameHint(MethodView):
    @blp.doc(operationId="getHint", security=SEAT)
    @blp.response(200, HintOut)
    @blp.alt_response(202, schema=HintPending, description="the hint is being computed off the request "
                      "(it took longer than TABLEPOST_HINT_WAIT): ask again after Retry-After seconds")
    @err(401, "unauthorized", "no or bad seat token")
    @err(403, "hints-off", "hints are off in rated games (the summary's `rated`); not-your-turn: not your "
                           "decision")
    @err(404, "game-not-found", "unknown game")
    @err(429, "rate-limited", "too many hints (TABLEPOST_HINT_LIMIT per seat: each hint the server starts "
                              "computing costs one); hints-busy: the server is computing as many hints as "
                              "it takes, ask again after Retry-After")
    def get(self, game_id):
        """Ask the AI for a hint

        The AI player's suggested moves for your current decision (docs/ai.md), computed from
        your own view of the position only, in a worker process: if that takes longer than the
        server waits (TABLEPOST_HINT_WAIT), 202 with Retry-After, and asking again gets the answer.
        Off in rated games (the game summary's `rated`: every human seat with its own email
        address, not created with `rated: false`, no AI seat or bot account); rate-limited per
        seat (each hint the server starts computing costs one; asking again for it costs none);
        429 `hints-busy` at once when the server computes as many hints as it takes.
        """
        cfg = flask.current_app.config
        retry = max(1, math.ceil(float(cfg.get("HINT_RETRY", 2))))
        svc = flask.current_app.extensions["tablepost.hints"]
        try:
            doc = svc.ask(game_id, bearer(), admit=limits.charge_hint)
        except Busy:
            # spread over [retry, 2 * retry]: clients refused together do not all come back together
            retry += secrets.randbelow(retry + 1)
            flask.g.retry_after = retry     # kept over the rate limiter's own (api/limits.py)
            raise ApiError(429, "hints-busy", "the server is computing as many hints as it takes: ask again "
                           "in a moment", headers={"Retry-After": str(retry)}) from None
        moves = doc.pop("moves")
        if moves is None:
            moves = hints.wait(lambda s: svc.answer(game_id, doc["version"], doc["seat"], s),
                               float(cfg.get("HINT_WAIT", 10)), waiters=svc.capacity)
        if moves is None:
            resp = flask.jsonify({**doc, "status": "computing", "retry_after": retry})
            resp.status_code = 202
            resp.headers["Retry-After"] = str(retry)
            flask.g.retry_after = retry     # kept over the rate limiter's own (api/limits.py)
            return resp
        return {**doc, "moves": moves}


@blp.route("/<string:game_id>/review")
class GameReview(MethodView):
    @blp.doc(operationId="getReview", security=OPTIONAL_SEAT)
    @blp.arguments(ReviewQuery, location="query")
    @blp.response(200, ReviewOut)
    @blp.alt_response(202, schema=ReviewPending, description="the review is being computed: ask again after "
                      "Retry-After seconds")
    @err(401, "unauthorized", "a bad token, or none for a rated game's review")
    @err(403, "review-private", "a rated game's review is for its own seat only")
    @err(404, "game-not-found", "unknown game")
    @err(409, "game-not-over", "the game is not over yet; review-unsupported: a game without a review")
    @err(422, "invalid-request", "no seat, or not a number 0-4; bad-seat: no such seat; not-a-human-seat")
    def get(self, args, game_id):
        """Review a finished game

        For each decision of the seat: the move played, the move the AI prefers and the estimated
        difference in final points, computed in the background at a fixed level by the game's AI
        (docs/ai.md, "Game review"). Each loss and the total are estimates bounded by what the game
        could give (`bound`). The seat's own token reads it; anyone may read the review of a game
        that is not rated. 202 with Retry-After while it is being computed.
        """
        reviews = Reviews(service(), scheduler().send)
        doc = reviews.get(game_id, args["seat"], bearer(), request_language())
        if doc is None:
            resp = flask.jsonify({"status": "computing", "retry_after": REVIEW_RETRY})
            resp.status_code = 202
            resp.headers["Retry-After"] = str(REVIEW_RETRY)
            flask.g.retry_after = REVIEW_RETRY
            return resp
        return doc


@blp.route("/<string:game_id>/moves")
class Moves(MethodView):
    @blp.doc(operationId="submitMoves", security=SEAT, parameters=[IDEMPOTENCY])
    @blp.arguments(MovesIn, example={"expected_version": 12, "moves": ["take G4", "king", "end"]})
    @blp.response(200, MovesOut)
    @err(400, "invalid-request", "the body is not JSON")
    @err(401, "unauthorized", "no or bad seat token")
    @err(403, "not-your-turn", "not your decision (move_index says which move)")
    @err(404, "game-not-found", "unknown game")
    @err(409, "version-conflict", "expected_version is stale (current_version says the version now)")
    @err(413, "payload-too-large", "the body is larger than the server accepts (TABLEPOST_MAX_BODY)")
    @err(422, "illegal-move", "an unparsable or illegal move (move_index, rule), or an invalid body")
    def post(self, body, game_id):
        """Submit moves

        Plays the moves in order as one atomic step at `expected_version`: the moves apply, or
        none does (an error names the failing `move_index`). A move that reveals chance (a die
        rolled, a tile or Corruption token drawn) ends the batch: the moves up to and including
        it are played, `applied` says how many, and the rest come back in `unplayed`, not looked
        at, to be sent again at the new version once you have seen the outcome. So no answer
        ever depends on an outcome that is not committed to the game.
        """
        return service().submit(game_id, bearer(), body["expected_version"], body["moves"],
                                flask.request.headers.get("Idempotency-Key"), lang=request_language())


@blp.route("/<string:game_id>/events")
class Events(MethodView):
    @blp.doc(operationId="getEvents")
    @blp.arguments(EventsPageQuery, location="query")
    @blp.response(200, EventsOut, headers={"Link": {"schema": {"type": "string"}, "description":
                                                    'when `more`: `<URL of the next page>; rel="next"`'}})
    @err(404, "game-not-found", "unknown game")
    @err(422, "invalid-request", "`after` or `limit` is not a whole number in its range")
    def get(self, query, game_id):
        """Read the event log

        The game's events after version `after`, with the chance outcomes each revealed and
        each event in words (`text`), a page at a time: at most `limit` events (default 500, at
        most 1000). While `more` is true, events after `next_after` exist already: read them with
        `after=next_after` (the `Link` header with `rel="next"` is that URL).
        """
        page = service().events(game_id, query["after"], query["limit"], request_language())
        resp = flask.jsonify(EventsOut().dump(page))
        if page["more"]:
            nxt = flask.url_for("games.Events", game_id=game_id, after=page["next_after"],
                                limit=query["limit"])
            resp.headers["Link"] = f'<{nxt}>; rel="next"'
        return resp


@blp.route("/<string:game_id>/record")
class Record(MethodView):
    @blp.doc(operationId="getRecord", responses={200: {
        "description": "the game record (each game's docs give its notation)",
        "content": {"text/plain": {"schema": {"type": "string"}}}}})
    @err(404, "game-not-found", "unknown game")
    def get(self, game_id):
        """Export the game record

        The game in move notation, which `tiletum-engine replay` plays back to the same
        position. The seed is included once the game is over.
        """
        return flask.Response(service().record(game_id), mimetype="text/plain")


@blp.route("/<string:game_id>/fairness")
class FairnessView(MethodView):
    @blp.doc(operationId="getFairness")
    @blp.response(200, Fairness)
    @err(404, "game-not-found", "unknown game")
    def get(self, game_id):
        """Check the dice

        The commitment to the secret seed; once the game is over, the seed and a command that
        verifies every roll and draw from it.
        """
        return service().fairness(game_id)


@blp.route("/<string:game_id>/vacation")
class VacationView(MethodView):
    @blp.doc(operationId="setVacation", security=SEAT)
    @blp.arguments(VacationIn, example={"on": True})
    @blp.response(200, Vacation, example={"on": True, "used_days": 0.0, "allowance_days": 14.0})
    @err(401, "unauthorized", "no or bad seat token")
    @err(404, "game-not-found", "unknown game")
    @err(422, "no-vacation-left", "the seat's vacation allowance is used up")
    @err(400, "invalid-request", "the body is not JSON")
    @err(413, "payload-too-large", "the body is too large")
    def post(self, body, game_id):
        """Start or stop your vacation

        While you are on vacation your deadline clock stops, up to the game's allowance; the
        deadline moves back by the time you were away.
        """
        return service().vacation(game_id, bearer(), body["on"])


@blp.route("/<string:game_id>/notifications")
class NotificationsView(MethodView):
    @blp.doc(operationId="setNotifications", security=SEAT)
    @blp.arguments(NotificationsIn, example={"mode": "digest"})
    @blp.response(200, Notifications, example={"mode": "digest", "delay_minutes": 5})
    @err(401, "unauthorized", "no or bad seat token")
    @err(404, "game-not-found", "unknown game")
    @err(422, "no-email", "the seat has no email address")
    @err(400, "invalid-request", "the body is not JSON")
    @err(413, "payload-too-large", "the body is too large")
    def put(self, body, game_id):
        """Choose your emails

        An email whenever it is your decision, one daily digest of the games awaiting you, or
        none. The choice belongs to your email address, for all its games.
        """
        return service().set_notifications(game_id, bearer(), body["mode"], body.get("delay_minutes"))


@blp.route("/<string:game_id>/held-emails")
class HeldEmailsView(MethodView):
    @blp.doc(operationId="getHeldEmails", security=SEAT)
    @blp.response(200, HeldEmails, example={"seat": 1, "held": []})
    @err(401, "unauthorized", "no or bad token")
    @err(403, "link-token-required", "a seat token, not the seat's link token from an email")
    @err(404, "game-not-found", "unknown game")
    def get(self, game_id):
        """Emails held back from you

        The emails of this game the service did not send to your address, and why: it had not
        accepted our email yet, or too many came in a short time (docs/pbem.md, "Email by consent").
        Only with your seat's link token (the `#token=L...` of the links in your emails and on your
        dashboard).
        """
        return held_for_link(service(), game_id, bearer("seat link token"))


@blp.route("/<string:game_id>/seats/<int:seat>/token")
class SeatTokenView(MethodView):
    @blp.doc(operationId="renewSeatToken", security=SEAT)
    @blp.response(200, NewSeatToken, example={"game": "Xq3vTz8aBc1d", "seat": 1,
                                              "token": "mV3xQ0b8cM1xI4yVtq5tJ1YkZs0Ex9DE"})
    @err(401, "unauthorized", "no or bad token")
    @err(403, "not-your-seat", "the token is another seat's (or not-a-human-seat)")
    @err(404, "game-not-found", "unknown game")
    def post(self, game_id, seat):
        """Re-issue your seat token

        With your seat's token or its link token: a new seat token, shown only here; the old
        token stops working at once. The seat's link token and the other seats are unaffected.
        """
        return credentials().new_seat_token(game_id, seat, bearer())


@blp.route("/<string:game_id>/seats/<int:seat>/link")
class SeatLinkView(MethodView):
    @blp.doc(operationId="renewSeatLink", security=SEAT)
    @blp.response(202, NewSeatLink, example={"game": "Xq3vTz8aBc1d", "seat": 1, "emailed": True})
    @err(401, "unauthorized", "no or bad token")
    @err(403, "not-your-seat", "the token is another seat's (or not-a-human-seat)")
    @err(404, "game-not-found", "unknown game")
    @err(422, "no-email", "the seat has no email address")
    @err(429, "rate-limited", "the seat's re-issues (a few an hour and a day), or the client's, are spent; "
                              "Retry-After; nothing was revoked")
    def post(self, game_id, seat):
        """Revoke your seat's links and email a new one

        With your seat's token or its link token: every link token of the seat so far (the
        `#token=L...` links in emails and on the dashboard) stops working at once, and the new
        link goes by email to the seat's address only. The seat token is unaffected. A seat's
        links are re-issued a few times an hour and a day at most (docs/deploy.md, "Rate limits").
        """
        return credentials().new_seat_link(game_id, seat, bearer())
