"""/api/v1/bot: what a Cardinalbot host polls for (bot credential only), and a bot account's
invitations to games (its own token; docs/bots.md)."""
from __future__ import annotations

import secrets

import flask
from flask.views import MethodView

from ..blueprint import Blueprint
from ..extensions import scheduler, service
from ..problems import ApiError, documented
from ..schemas.bots import BotInvitation, BotInvitations, BotTurns
from ..auth import bearer
from application.game_service import token_hash

blp = Blueprint("bot", __name__, url_prefix="/api/v1/bot",
                description="For bots: the due turns of the games' own automata, a bot account's invitations")


@blp.route("/turns")
class DueTurns(MethodView):
    @blp.doc(operationId="getDueBotTurns", security=[{"seatToken": []}])
    @blp.response(200, BotTurns, example={"turns": [{"game_id": "aZ3kq9Lm2xTw", "seat": 0, "version": 42}]})
    @documented(blp, 401, "unauthorized", "the bot credential is required")
    def get(self):
        """List the bot turns that are due

        Games where a Cardinalbot seat is to act, with the version it became due at. Polling
        bots (`python -m cardinalbot`) play these through the ordinary game endpoints.
        """
        app = flask.current_app
        expected = app.config.get("BOT_TOKEN")
        auth = flask.request.headers.get("Authorization", "")
        scheme, _, token = auth.partition(" ")
        if not expected or scheme.lower() != "bearer" or not secrets.compare_digest(
                token_hash(token.strip()), token_hash(expected)):
            raise ApiError(401, "unauthorized", "the bot credential is required",
                           headers={"WWW-Authenticate": 'Bearer realm="tablepost"'})
        return {"turns": [t for t in scheduler().due() if "level" not in t]}  # not the AI seats' turns


@blp.route("/invitations")
class Invitations(MethodView):
    @blp.doc(operationId="listBotInvitations", security=[{"seatToken": []}])
    @blp.response(200, BotInvitations)
    @documented(blp, 401, "unauthorized", "no or bad bot token")
    def get(self):
        """List your invitations

        With a bot account's token: the pending invitations to games, newest first. Accept the
        ones you want to play; a game is created with an accepted one by whoever invited you.
        """
        return service().bots.invitations(bearer("bot token"))


def _answer(invitation_id: str, accept: bool) -> dict:
    return service().bots.answer(bearer("bot token"), invitation_id, accept)


@blp.route("/invitations/<string:invitation_id>/accept")
class AcceptInvitation(MethodView):
    @blp.doc(operationId="acceptBotInvitation", security=[{"seatToken": []}])
    @blp.response(200, BotInvitation)
    @documented(blp, 401, "unauthorized", "no or bad bot token")
    @documented(blp, 404, "invitation-not-found", "no such invitation of yours")
    @documented(blp, 422, "invitation-answered", "no longer pending (answered, used or expired)")
    def post(self, invitation_id):
        """Accept an invitation

        The inviter may now create one game with your seat in it.
        """
        return _answer(invitation_id, True)


@blp.route("/invitations/<string:invitation_id>/decline")
class DeclineInvitation(MethodView):
    @blp.doc(operationId="declineBotInvitation", security=[{"seatToken": []}])
    @blp.response(200, BotInvitation)
    @documented(blp, 401, "unauthorized", "no or bad bot token")
    @documented(blp, 404, "invitation-not-found", "no such invitation of yours")
    @documented(blp, 422, "invitation-answered", "no longer pending (answered, used or expired)")
    def post(self, invitation_id):
        """Decline an invitation

        It can seat no game.
        """
        return _answer(invitation_id, False)
