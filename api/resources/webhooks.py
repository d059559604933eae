"""/api/v1/webhooks: deliveries of a seat's or a bot's game events to a URL (docs/bots.md)."""
from __future__ import annotations

from flask.views import MethodView

from ..blueprint import Blueprint
from ..extensions import webhooks
from ..problems import documented
from ..schemas.webhooks import WebhookCreated, WebhookIn, WebhookList, WebhookOut, WebhookQuery
from ..auth import bearer

blp = Blueprint("webhooks", __name__, url_prefix="/api/v1/webhooks",
                description="Webhooks: game events POSTed to a seat's or a bot's URL")

SECURITY: list[dict[str, list[str]]] = [{"seatToken": []}]


def err(status: int, code: str, description: str):
    return documented(blp, status, code, description)


@blp.route("")
class Webhooks(MethodView):
    @blp.doc(operationId="listWebhooks", security=SECURITY)
    @blp.arguments(WebhookQuery, location="query")
    @blp.response(200, WebhookList)
    @err(401, "unauthorized", "no or bad seat or bot token")
    @err(404, "game-not-found", "unknown game")
    @err(422, "game-required", "a seat token without its `game` (also: game-not-for-bots)")
    def get(self, query):
        """List your webhooks

        A bot token lists the bot's webhooks; a seat token (with `game`) the seat's in that game.
        """
        return webhooks().list(bearer("seat or bot token"), query["game"])

    @blp.doc(operationId="createWebhook", security=SECURITY)
    @blp.arguments(WebhookIn,
                   example={"url": "https://bot.example.org/tablepost", "events": ["your-turn", "game-over"]})
    @blp.response(201, WebhookCreated)
    @err(400, "invalid-request", "the body is not JSON")
    @err(401, "unauthorized", "no or bad seat or bot token")
    @err(404, "game-not-found", "unknown game")
    @err(422, "bad-webhook-url",
         "not https (nor http to loopback where allowed), a host that resolves to any "
              "address that is not public, an IPv4 address in a form other than a.b.c.d, a port outside "
              "1-65535, or control characters (also: bad-webhook-events, game-required, game-not-for-bots, "
              "too-many-webhooks, invalid-request)")
    def post(self, body):
        """Register a webhook

        With a seat token (and the seat's `game`) or a bot token: POST the events you choose
        (`your-turn`, `game-over`, `all`) to `url`, signed with the secret in this answer (shown
        only here): `X-Tablepost-Signature: t=<unix time>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`.
        """
        return webhooks().create(bearer("seat or bot token"), body["url"], body["events"], body["game"])


@blp.route("/<string:hook_id>")
class WebhookView(MethodView):
    @blp.doc(operationId="getWebhook", security=SECURITY)
    @blp.response(200, WebhookOut)
    @err(401, "unauthorized", "no or bad token")
    @err(404, "webhook-not-found", "no such webhook, or not yours")
    def get(self, hook_id):
        """Read a webhook and its delivery log

        Whether it is still on, and its last 50 delivery attempts (with the receiver's status).
        """
        return webhooks().show(hook_id, bearer("seat or bot token"))

    @blp.doc(operationId="deleteWebhook", security=SECURITY)
    @blp.response(204)
    @err(401, "unauthorized", "no or bad token")
    @err(404, "webhook-not-found", "no such webhook, or not yours")
    def delete(self, hook_id):
        """Delete a webhook

        Nothing more is sent to it.
        """
        webhooks().delete(hook_id, bearer("seat or bot token"))
