"""GET /api/v1/games/{id}/stream: a game's events pushed as Server-Sent Events (docs/push.md).

Each stream holds one of this process's threads while it lasts, so a process serves at most
``STREAM_LISTENERS`` streams at once (more get 503 ``too-many-listeners`` with Retry-After, and
the game page falls back to polling), of which one client address holds at most
``STREAM_PER_ADDRESS`` and one seat (a stream opened with a seat token) ``STREAM_PER_SEAT`` (more
get 429 ``too-many-streams``); each stream ends after ``STREAM_SECONDS`` (the client reconnects
with ``Last-Event-ID`` and misses nothing).

The slot is given back however the response ends: when the stream ends, when the server closes
the response (which a WSGI server does even when it never iterates it: a HEAD request, a client
gone before the first byte), and when the response object is dropped unserved.

A stream ends within a second once ``SERVER_STOPPING`` is set: gunicorn's worker sets it when it
begins a graceful stop (api/gunicorn_conf.py), which then need not wait for streams that would
last minutes more.
"""
from __future__ import annotations

import threading
import weakref

import flask
import marshmallow as ma
from flask.views import MethodView

from application.errors import ServiceError
from application.push import SlotRefused

from tablepost.i18n import said

from ..blueprint import Blueprint
from ..extensions import feed, service
from ..language import request_language
from ..limits import client_address, identity
from ..problems import ApiError, documented
from ..schemas.moves import EventsQuery

SERVER_STOPPING = threading.Event()

blp = Blueprint("stream", __name__, url_prefix="/api/v1/games",
                description="Push: a game's events as they happen")

LAST_EVENT_ID = {"in": "header", "name": "Last-Event-ID", "required": False,
                 "schema": {"type": "string", "pattern": "^[0-9]{1,20}$"},
                 "description": "the last version you have (an EventSource sends it when it reconnects): "
                              "the same range as `after`, 0 to 2**63-1 in decimal digits; it takes "
                              "precedence over `after`"}
STREAM_RESPONSE = {200: {"description": "an endless `text/event-stream` (docs/push.md): one message per game "
                                        "event (`id` = its version, data = the event as `GET /events` serves "
                                        "it), `event: turn` after each batch, `: keep-alive` comments, "
                                        "`event: end` when the game is over",
                         "content": {"text/event-stream": {"schema": {
                             "type": "object", "description": "one server-sent event",
                             "properties": {"id": {"type": "string", "description": "the event's version"},
                                            "event": {"type": "string", "enum": ["message", "turn", "end"]},
                                            "data": {"type": "string",
                                                     "description": "JSON: the event as GET "
                                                     "/events serves it; for `turn` version, status and "
                                                     "to_act"},
                                            "retry": {"type": "integer"}}}}}}}


@blp.route("/<string:game_id>/stream")
class Stream(MethodView):
    @blp.doc(operationId="streamGameEvents", parameters=[LAST_EVENT_ID], responses=STREAM_RESPONSE)
    @blp.arguments(EventsQuery, location="query")
    @documented(blp, 404, "game-not-found", "unknown game")
    @documented(blp, 422, "invalid-request", "`after` or Last-Event-ID is not a version (0 to 2**63-1)")
    @documented(blp, 429, "too-many-streams", "this client address (or seat token) holds as many streams "
                                              "of this server process as one client may; close one, or "
                                              "retry after Retry-After seconds, or poll")
    @documented(blp, 503, "too-many-listeners", "this server process has as many streams as it holds; "
                                                "retry after Retry-After seconds or poll")
    def get(self, query, game_id):
        """Follow a game's events (Server-Sent Events)

        The events after `after` (or the `Last-Event-ID` header), then each new one as it is
        saved, with no token needed: the stream carries only what the public event log shows.
        A stream ends after a few minutes (docs/push.md); reconnect with `Last-Event-ID`.
        """
        after = query["after"]
        last = flask.request.headers.get("Last-Event-ID")
        if last is not None and last.strip():
            try:  # read as `after` is: the same digits and the same range
                after = EventsQuery().load({"after": last.strip()})["after"]
            except ma.ValidationError:
                raise ApiError(422, "invalid-request", "Last-Event-ID must be a version: 0 to 2**63-1, in "
                                                       "decimal digits (the range of `after`)") from None
        service().meta(game_id)  # 404 before the stream starts
        cfg = flask.current_app.config
        slot = _take_slot()
        frames = feed().frames(game_id, after, lifetime=cfg["STREAM_SECONDS"],
                               keepalive=cfg["STREAM_KEEPALIVE"], stopping=SERVER_STOPPING,
                               seen=_seen(game_id), lang=request_language())

        def body():
            try:
                yield from frames
            finally:
                slot.release()
        resp = flask.Response(body(), mimetype="text/event-stream")
        # A generator that never starts never runs its finally: the server's close() of the
        # response does (HEAD, a client gone before the first byte), and so does dropping it.
        resp.call_on_close(slot.release)
        weakref.finalize(resp, slot.release)
        resp.headers["Cache-Control"] = "no-store"
        resp.headers["X-Accel-Buffering"] = "no"  # nginx: pass each event on at once
        return resp


def _seen(game_id: str):
    """A stream opened with a seat's token (an API client; a browser's page reads the game with its
    token instead) tells that the seat is looking at the game (application/live.py); None else.
    The token is checked against the game as it is now (not the rate limits' remembered identity):
    a revoked token must not keep a seat's turn emails away."""
    scheme, _, token = flask.request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    svc = service()
    meta = svc.meta(game_id)
    try:
        seat = svc.seat_of(meta, token.strip(), game_id)
    except ServiceError:
        return None
    if seat is None:
        return None

    def seen(version: int) -> None:
        try:
            svc.looked(game_id, meta, seat, version)
        except Exception:   # a stream never fails for it
            pass
    return seen


def _take_slot():
    """This process's slot for the stream, or the problem that says why there is none. The client
    address is the one the rate limits count (api/limits.py); a seat is one a Bearer token proves."""
    who = identity()
    try:
        return flask.current_app.extensions["tablepost.stream_slots"].take(
            address=client_address(), seat=who if who.startswith("seat:") else None)
    except SlotRefused as e:
        if e.reason == "process":
            raise ApiError(503, "too-many-listeners", "this server holds as many event streams as it can; "
                           "retry later or poll GET /events", headers={"Retry-After": "10"}) from None
        raise ApiError(429, "too-many-streams",
                       said("this {who} holds as many event streams of this server as one client may; "
                            "close one, retry later or poll GET /events", who=e.reason),
                       headers={"Retry-After": "10"}) from None
