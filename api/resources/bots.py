"""/api/v1/bots: register a bot account (docs/bots.md)."""
from __future__ import annotations

from flask.views import MethodView

from ..blueprint import Blueprint
from ..extensions import service
from ..problems import ApiError, documented
from ..schemas import BotCreated, BotIn, BotOut

blp = Blueprint("bots", __name__, url_prefix="/api/v1/bots", description="Bot accounts: programs that play seats")


@blp.route("")
class Bots(MethodView):
    @blp.doc(operationId="registerBot")
    @blp.arguments(BotIn, example={"name": "RandomRita", "email": "owner@example.org"})
    @blp.response(201, BotCreated)
    @documented(blp, 400, "invalid-request", "the body is not JSON")
    @documented(blp, 422, "invalid-request", "a missing or bad name or email")
    @documented(blp, 429, "rate-limited", "too many accounts created from this address (the game-creation limit)")
    def post(self, body):
        """Register a bot account

        A bot account plays the seats games give it (`{"kind": "bot", "bot": "<id>"}` in
        `POST /api/v1/games`) with its own token, through the same endpoints as any seat. The
        token is shown only here; the owner's email is never shown.
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
            raise ApiError(404, "bot-not-found", f"no bot account {bot_id!r}")
        return bot
