"""The table talk (issue 41): a game's message thread for its seats. Views are thin: they parse,
call application/messages.py and return. The seats read and write with their seat token;
spectators, and the AI player's, the Cardinalbot's and bot accounts' credentials, neither."""
from __future__ import annotations

import flask
from flask.views import MethodView

from application.messages import TableTalk

from ..blueprint import Blueprint
from ..extensions import service
from ..limits import charge_message
from ..schemas.messages import Message, Messages, MessageIn, MessagesQuery, Muted, MuteIn, Reported, ReportIn
from ..problems import documented
from ..auth import SEAT, bearer

blp = Blueprint("messages", __name__, url_prefix="/api/v1/games",
                description="Table talk: the seats' messages in a game")

EXAMPLE = {"id": 3, "seat": 1, "name": "Bob", "text": "Nice move! gg soon?", "at": "2026-11-27T18:02:11Z",
           "mine": False}


def err(status: int, code: str, description: str):
    return documented(blp, status, code, description)


def talk() -> TableTalk:
    cfg = flask.current_app.config
    return TableTalk(service(), email_delay=float(cfg.get("TALK_EMAIL_SECONDS", 3 * 3600)))


@blp.route("/<string:game_id>/messages")
class MessagesView(MethodView):
    @blp.doc(operationId="listMessages", security=SEAT)
    @blp.arguments(MessagesQuery, location="query")
    @blp.response(200, Messages, example={"messages": [EXAMPLE], "last": 3, "more": False, "open": True,
                                          "closes": None, "muted": {"all": False, "seats": []}})
    @err(401, "unauthorized", "no seat token, or one of no seat of this game: spectators read nothing")
    @err(403, "not-a-talking-seat", "the AI player's, an automa's or a bot account's credential")
    @err(404, "game-not-found", "unknown game")
    def get(self, query, game_id):
        """Read the table talk

        The seats' messages, oldest first, a page at a time (`after` = the `last` of the page
        before). The game's event stream says `event: talk` when one is posted.
        """
        return talk().read(game_id, bearer(), query["after"], query["limit"])

    @blp.doc(operationId="postMessage", security=SEAT)
    @blp.arguments(MessageIn)
    @err(400, "invalid-request", "the body is not JSON")
    @blp.response(201, Message, example=dict(EXAMPLE, mine=True))
    @err(401, "unauthorized", "no seat token, or one of no seat of this game")
    @err(403, "not-a-talking-seat", "the AI player's, an automa's or a bot account's credential")
    @err(404, "game-not-found", "unknown game")
    @err(409, "talk-closed", "the game ended long enough ago that its thread is closed")
    @err(422, "message-too-long", "over the length or lines a message holds; empty-message: nothing to say")
    @err(429, "too-many-messages", "your seat's messages in this game this hour, or per minute "
                                   "(TABLEPOST_MESSAGE_LIMIT), are spent: retry after Retry-After seconds")
    def post(self, body, game_id):
        """Post a message

        Your seat says something to the others: plain text, shown as written (never HTML, no
        links made clickable). The others read it on the game page and in their next email.
        """
        t = talk()
        meta, seat = t.seat(game_id, bearer())
        charge_message()
        return t.post_for_seat(game_id, seat, body["text"], meta), 201


@blp.route("/<string:game_id>/messages/mute")
class MuteView(MethodView):
    @blp.doc(operationId="muteMessages", security=SEAT)
    @blp.arguments(MuteIn)
    @err(400, "invalid-request", "the body is not JSON")
    @blp.response(200, Muted, example={"all": False, "seats": [2]})
    @err(401, "unauthorized", "no seat token, or one of no seat of this game")
    @err(403, "not-a-talking-seat", "the AI player's, an automa's or a bot account's credential")
    @err(404, "game-not-found", "unknown game")
    @err(422, "bad-seat", "not another seat of this game")
    def put(self, body, game_id):
        """Mute the table talk

        Mute every other seat's messages in this game (`all`), or some seats' (`seats`); they are
        left out of your page and your emails. Send `all: false` and `seats: []` to hear all again.
        """
        return talk().mute(game_id, bearer(), body["all"], body["seats"])


@blp.route("/<string:game_id>/messages/<int:message_id>/report")
class ReportView(MethodView):
    @blp.doc(operationId="reportMessage", security=SEAT)
    @blp.arguments(ReportIn)
    @err(400, "invalid-request", "the body is not JSON")
    @blp.response(202, Reported, example={"game": "Xq3vTz8aBc1d", "message": 3, "reported": True})
    @err(401, "unauthorized", "no seat token, or one of no seat of this game")
    @err(403, "not-a-talking-seat", "the AI player's, an automa's or a bot account's credential")
    @err(404, "message-not-found", "no such message in this game; game-not-found")
    @err(422, "own-message", "your own message")
    def post(self, body, game_id, message_id):
        """Report a message

        Another seat's message goes to the operator, with its text, for a look. Its author is not told.
        """
        return talk().report(game_id, bearer(), message_id, body["reason"]), 202
