"""/api/v1/bots: register a bot account; its owner rotates or revokes its token and deletes it;
anyone invites it to a game (docs/bots.md)."""
from __future__ import annotations

from flask.views import MethodView

from tablepost.i18n import said

from ..blueprint import Blueprint
from ..extensions import service, webhooks
from ..problems import ApiError, documented
from ..schemas.bots import BotCreated, BotIn, BotInvitation, BotOut, BotToken
from ..auth import bearer

blp = Blueprint("bots", __name__, url_prefix="/api/v1/bots",
                description="Bot accounts: programs that play seats")

OWNER: list[dict[str, list[str]]] = [{"botOwnerKey": []}]
SECURITY_SCHEME = {"type": "http", "scheme": "bearer",
                   "description": "a bot account's owner key (`botowner.<id>.<secret>`), from its "
                                  "registration"}


@blp.route("")
class Bots(MethodView):
    @blp.doc(operationId="registerBot")
    @blp.arguments(BotIn, example={"name": "RandomRita", "email": "owner@example.org"})
    @blp.response(201, BotCreated)
    @documented(blp, 400, "invalid-request", "the body is not JSON")
    @documented(blp, 422, "invalid-request", "a missing or bad name or email; name-not-allowed: a name "
                                             "that looks like a URL, a domain or an email address")
    @documented(blp, 429, "rate-limited",
                "too many accounts created from this address (the game-creation limit)")
    def post(self, body):
        """Register a bot account

        A bot account plays the seats games give it (`{"kind": "bot", "bot": "<id>"}` in
        `POST /api/v1/games`, with its `owner_key` or an accepted `invitation`) with its own
        token, through the same endpoints as any seat. The token and the owner key are shown only
        here; the owner's email is never shown.
        """
        return service().bots.register(body["name"], body["email"])


@blp.route("/<string:bot_id>")
class Bot(MethodView):
    @blp.doc(operationId="getBot")
    @blp.response(200, BotOut)
    @documented(blp, 404, "bot-not-found", "no such bot account")
    def get(self, bot_id):
        """Read a bot account

        Its id and name.
        """
        bot = service().bots.get(bot_id)
        if bot is None:
            raise ApiError(404, "bot-not-found", said("no bot account {id}", id=repr(bot_id)))
        return bot

    @blp.doc(operationId="deleteBot", security=OWNER)
    @blp.response(204)
    @documented(blp, 401, "unauthorized", "no owner key, or not this bot's")
    @documented(blp, 404, "bot-not-found", "no such bot account")
    def delete(self, bot_id):
        """Delete a bot account

        With its owner key. Its token stops working, its webhooks and invitations are deleted and
        it can be seated no more; its seats in existing games stay, and nobody plays them. Its id
        is never given to another account.
        """
        webhooks().forget(service().bots.delete(bot_id, bearer("owner key")))


@blp.route("/<string:bot_id>/token")
class BotTokenView(MethodView):
    @blp.doc(operationId="rotateBotToken", security=OWNER)
    @blp.response(201, BotToken)
    @documented(blp, 401, "unauthorized", "no owner key, or not this bot's")
    @documented(blp, 404, "bot-not-found", "no such bot account")
    def post(self, bot_id):
        """Give a bot a new token

        With its owner key. The new token is shown only here; the old one stops working at once.
        """
        return service().bots.rotate_token(bot_id, bearer("owner key"))

    @blp.doc(operationId="revokeBotToken", security=OWNER)
    @blp.response(204)
    @documented(blp, 401, "unauthorized", "no owner key, or not this bot's")
    @documented(blp, 404, "bot-not-found", "no such bot account")
    def delete(self, bot_id):
        """Revoke a bot's token

        With its owner key. The token stops working at once, and the bot has none until its owner
        gives it a new one (`POST /api/v1/bots/{id}/token`).
        """
        service().bots.revoke_token(bot_id, bearer("owner key"))


@blp.route("/<string:bot_id>/invitations")
class BotInvitations(MethodView):
    @blp.doc(operationId="inviteBot")
    @blp.response(201, BotInvitation)
    @documented(blp, 404, "bot-not-found", "no such bot account")
    @documented(blp, 422, "too-many-invitations", "the bot has too many open invitations")
    @documented(blp, 429, "rate-limited",
                "too many things created from this address (the game-creation limit)")
    def post(self, bot_id):
        """Invite a bot to a game

        A bot is seated only by its owner or with its consent: this makes a pending invitation,
        which the bot lists (`GET /api/v1/bot/invitations`) and accepts or declines. Once it is
        accepted, create the game with `{"kind": "bot", "bot": "<id>", "invitation": "<id>"}`:
        each accepted invitation seats one game, within 7 days. Keep the id: it is the
        invitation's only credential.
        """
        return service().bots.invite(bot_id)


@blp.route("/<string:bot_id>/invitations/<string:invitation_id>")
class BotInvitationView(MethodView):
    @blp.doc(operationId="getBotInvitation")
    @blp.response(200, BotInvitation)
    @documented(blp, 404, "invitation-not-found", "no such invitation")
    def get(self, bot_id, invitation_id):
        """Read an invitation

        Whether the bot has answered it (`pending`, `accepted`, `declined`), and once it seated a
        game (`used`), which game.
        """
        return service().bots.invitation(bot_id, invitation_id)
