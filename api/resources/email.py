"""Email-facing endpoints: one-click move links, unsubscribe, and inbound mail (RFC 822) for
providers' webhooks. Links are signed (mail/addresses.py); a GET never changes anything (mail
scanners fetch links), it shows a button that POSTs."""
from __future__ import annotations

import functools
import html
import http

import flask
from flask.views import MethodView

from application.errors import ServiceError
from application.notifications import set_preference
from mail.addresses import BadAddress, verify_inbound_signature, verify_url_params
from mail.mailin import handle_inbound
from mail.mailin_runtime import inbound_deps

from tablepost.i18n import said

from ..blueprint import Blueprint
from ..extensions import service
from ..problems import PROBLEM_CONTENT_TYPE, ApiError, documented, from_service, problem_body

blp = Blueprint("email", __name__, url_prefix="/api/v1", description="Email links and inbound email")

HTML = {200: {"description": "an HTML page", "content": {"text/html": {"schema": {"type": "string"}}}}}


def _query(name: str, description: str, required: bool = True, example=None,
           pattern: str | None = None) -> dict:
    schema = {"type": "string"}
    if pattern:
        schema["pattern"] = pattern
    param = {"in": "query", "name": name, "required": required, "schema": schema, "description": description}
    if example is not None:
        param["example"] = example
    return param


# The signed query parameters of the links in emails (mail/notify.py builds them, mail/addresses.py
# signs them): ``sig`` covers the path and every other parameter, so none can be changed.
SIG = _query(
    "sig", "the link's signature: HMAC-SHA256 (hex) of the path and the other parameters, keyed with "
           "the server's mail secret", example="3f1c9a5e" * 8, pattern="^[0-9a-fA-F]+$")
EXP = _query("exp", "optional expiry (Unix time): the link is refused after it", required=False,
             pattern="^[0-9]+$")
MOVE_LINK = [_query("seat", "the seat the move is for", example="0", pattern="^[0-9]+$"),
             _query("version", "the game's version the move was offered at", example="12",
                    pattern="^[0-9]+$"),
             _query("move", "the move, in notation", example="take G4"), SIG, EXP]
UNSUBSCRIBE_LINK = [_query("email", "the address that stops getting email", example="ann@example.org"), SIG,
                    EXP]


def html_or_problem(status: int, code: str, description: str):
    """Documents an error of a link endpoint: a person's browser (``Accept`` preferring
    ``text/html``) gets an HTML page, any other client problem+json (see :func:`answers_html`)."""
    example = problem_body(status, code, http.HTTPStatus(status).phrase, description)
    return blp.doc(responses={status: {"description": description + " (an HTML page for a browser)",
                                       "content": {
        "application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}, "example": example},
        "text/html": {"schema": {"type": "string"}}}}})


def _prefers_html() -> bool:
    best = flask.request.accept_mimetypes.best_match([PROBLEM_CONTENT_TYPE, "application/json", "text/html"])
    return best == "text/html"


def answers_html(view):
    """Email links are opened in a browser: errors become an HTML page with the error's status
    when the request prefers ``text/html`` (what browsers send), problem+json otherwise."""
    @functools.wraps(view)
    def wrapped(*args, **kwargs):
        try:
            return view(*args, **kwargs)
        except ServiceError as e:
            error = from_service(e)
        except ApiError as e:
            error = e
        if not _prefers_html():
            raise error
        return _page(error.title or http.HTTPStatus(error.code).phrase, f"<p>{html.escape(error.detail)}</p>",
                     error.code)
    return wrapped


def _secret() -> str:
    secret = flask.current_app.config.get("MAIL_SECRET")
    if not secret:
        raise ApiError(404, "email-disabled", "email play is not configured on this server")
    return secret


def _verified(path: str) -> dict:
    params = dict(flask.request.args)
    try:
        return verify_url_params(_secret(), path, params)
    except BadAddress:
        raise ApiError(403, "bad-signature", "this link is not valid (altered or not from us)") from None


def _page(title: str, body: str, status: int = 200) -> flask.Response:
    return flask.Response(
        f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{html.escape(title)}"
        f"</title><meta name=viewport content='width=device-width'></head><body>"
        f"<h1>{html.escape(title)}</h1>{body}</body></html>", status=status, mimetype="text/html")


@blp.route("/games/<string:game_id>/email-move")
class EmailMove(MethodView):
    @blp.doc(operationId="confirmEmailMove", responses=HTML, parameters=MOVE_LINK)
    @html_or_problem(403, "bad-signature", "the link's signature does not match")
    @html_or_problem(404, "email-disabled", "email play is not configured on this server")
    @answers_html
    def get(self, game_id):
        """Confirm a one-click move from an email

        Shows the move and a button; nothing is played by opening the link.
        """
        p = _verified(flask.request.path)
        move = html.escape(p.get("move", ""))
        return _page(f"Play “{p.get('move', '')}”?",
                     f"<p>Game {html.escape(game_id)}, your seat, at version "
                     f"{html.escape(p.get('version', ''))}.</p><form method=post><button type=submit>Play "
                     f"{move}</button></form>")

    @blp.doc(operationId="playEmailMove", responses=HTML, parameters=MOVE_LINK)
    @html_or_problem(403, "bad-signature", "the link's signature does not match (or not-a-human-seat, "
                                           "not-your-turn)")
    @html_or_problem(404, "email-disabled", "email play is not configured on this server (or game-not-found)")
    @html_or_problem(409, "version-conflict", "the game moved on since the email was sent")
    @html_or_problem(422, "illegal-move", "the move is no longer legal")
    @answers_html
    def post(self, game_id):
        """Play a one-click move from an email

        Plays the signed move for the signed seat at the signed version, like a reply would.
        Errors are an HTML page for a browser (an `Accept` preferring `text/html`), else
        problem+json.
        """
        p = _verified(flask.request.path)
        answer = service().submit_for_seat(game_id, int(p["seat"]), int(p["version"]), [p["move"]])
        return _page("Played",
                     f"<p>{html.escape(p['move'])} is played; the game is at version "
                     f"{answer['version']}.</p>")


@blp.route("/email/unsubscribe")
class Unsubscribe(MethodView):
    @blp.doc(operationId="confirmUnsubscribe", responses=HTML, parameters=UNSUBSCRIBE_LINK)
    @html_or_problem(403, "bad-signature", "the link's signature does not match")
    @html_or_problem(404, "email-disabled", "email play is not configured on this server")
    @answers_html
    def get(self):
        """Confirm unsubscribing

        Shows a button that stops all email to this address.
        """
        p = _verified(flask.request.path)
        return _page("Stop emails?", f"<p>No more email to {html.escape(p['email'])} from any game.</p>"
                                     "<form method=post><button type=submit>Unsubscribe</button></form>")

    @blp.doc(operationId="unsubscribe", responses=HTML, parameters=UNSUBSCRIBE_LINK)
    @html_or_problem(403, "bad-signature", "the link's signature does not match")
    @html_or_problem(404, "email-disabled", "email play is not configured on this server")
    @answers_html
    def post(self):
        """Unsubscribe (also RFC 8058 one-click)

        Sets this address's email preference to none for every game.
        """
        p = _verified(flask.request.path)
        set_preference(service().store.r, p["email"], "none")
        return _page("Unsubscribed", f"<p>{html.escape(p['email'])} will get no more email from us.</p>")


@blp.route("/inbound-email")
class InboundEmail(MethodView):
    @blp.doc(operationId="receiveEmail", parameters=[{
        "in": "header", "name": "X-Tablepost-Signature", "required": True, "schema": {"type": "string"},
        "description": 't=<unix time>,v1=<hex HMAC-SHA256 of "<t>." + the body, keyed with '
                       'TABLEPOST_INBOUND_SECRET>',
        "example": "t=1700000000,v1=5d41402abc4b2a76b9719d911017c592"}, {
        "in": "header", "name": "X-Tiletum-Signature", "required": False, "deprecated": True,
        "schema": {"type": "string"},
        "description": "the same, under the service's old name: read, for one release, when "
                       "X-Tablepost-Signature is absent"}], requestBody={
        "required": True,
        "description": "the raw email (RFC 822), as a mail provider's inbound webhook posts it",
        "content": {"message/rfc822": {"schema": {"type": "string", "format": "binary"}},
                    "application/octet-stream": {"schema": {"type": "string", "format": "binary"}},
                    "text/plain": {"schema": {"type": "string"}}}},
        responses={200: {"description": "what was done with it", "content": {"application/json": {
            "schema": {"type": "object",
                       "properties": {"status": {"type": "string"}, "code": {"type": "string"}},
                       "required": ["status"]}}}}})
    @documented(blp, 401, "bad-signature",
                "no X-Tablepost-Signature, a wrong one, or one older than 5 minutes")
    @documented(blp, 404, "email-disabled",
                "email play or the inbound webhook (TABLEPOST_INBOUND_SECRET) is off")
    @documented(blp, 413, "payload-too-large", "the email is larger than the server accepts")
    def post(self):
        """Receive a reply by email (webhook)

        Handles a raw RFC 822 reply exactly like the SMTP listener: finds the game, seat and turn
        from the signed address, checks that the author is the seat's player, plays the moves,
        and emails a confirmation or an error to the seat's own address (never to anyone else).
        The request must carry `X-Tablepost-Signature: t=<unix time>,v1=<hex HMAC-SHA256 of
        "<t>." + the body, keyed with TABLEPOST_INBOUND_SECRET>`, at most 5 minutes old
        (`X-Tiletum-Signature`, the service's old name, is read for one release when it is absent).
        """
        _secret()
        key = flask.current_app.config.get("INBOUND_SECRET")
        if not key:
            raise ApiError(404, "email-disabled", "the inbound webhook is off: set TABLEPOST_INBOUND_SECRET")
        try:
            verify_inbound_signature(key, flask.request.headers.get("X-Tablepost-Signature")
                                     or flask.request.headers.get("X-Tiletum-Signature"),  # for one release
                                     flask.request.get_data())
        except BadAddress as e:
            raise ApiError(401, "bad-signature", said("the webhook request is not signed with our key: {why}",
                                                                why=str(e)),
                           headers={"WWW-Authenticate": 'Tablepost-Signature realm="inbound-email"'}
                           ) from None
        result = handle_inbound(flask.request.get_data(), inbound_deps(service()),
                                rcpt=flask.request.headers.get("X-Original-To"))
        return flask.jsonify({"status": result.status, "code": result.code})
