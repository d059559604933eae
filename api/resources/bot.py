"""/api/v1/bot: what a Cardinalbot host polls for (bot credential only)."""
from __future__ import annotations

import secrets

import flask
from flask.views import MethodView

from ..blueprint import Blueprint
from ..extensions import scheduler
from ..problems import ApiError, documented
from ..schemas import BotTurns
from application.game_service import token_hash

blp = Blueprint("bot", __name__, url_prefix="/api/v1/bot", description="For Cardinalbot hosts")


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
                           headers={"WWW-Authenticate": 'Bearer realm="tiletum"'})
        return {"turns": [t for t in scheduler().due() if "level" not in t]}  # not the AI seats' turns
