"""The WSGI application factory (``api:create_app()``), the problem+json error handling and the
per-token rate limit."""
from __future__ import annotations

import http
import io
import json
import threading
from typing import Any

import flask
import redis
from flask_limiter.errors import RateLimitExceeded
from flask_smorest import Api
from flask_smorest.utils import prepare_response
from werkzeug.exceptions import ClientDisconnected, HTTPException
from werkzeug.middleware.proxy_fix import ProxyFix

from games import UnknownGame

from application.accounts import Accounts
from application.credentials import Credentials
from application.indexes import adopt_legacy
from application.pool_names import rename_pools
from application.redis_conn import connect, is_cluster
from application.dashboard import Dashboard
from application.stand_in import FAST_LEVELS, STAND_IN_QUEUE, STAND_IN_TASK, stand_in_level
from application.errors import ServiceError
from application.game_core import not_hosted
from application.game_service import GameService
from application.profiles import Profiles
from application.lobby import Lobby
from application.push import EventFeed, StreamSlots
from application.rating_service import RatingService
from application.hints import Hints
from application.scheduling import Dispatcher
from application.store import EventStore
from application.tournament_service import TournamentService
from application.webhooks import Webhooks
from mail.outbox import forget_address
from tablepost import i18n
from tablepost.i18n import N_, said

from . import language, limits, settings
from .broker import celery_send_task
from .email_pages import register_email_pages
from .pages import not_found_page, register_pages, wants_page
from .parts import Parts
from .problems import (PROBLEM_CONTENT_TYPE, SERVER_FAILED, ApiError, field_messages, from_service,
                       problem_body)
from .resources import (bot, bots, email, games, health, lobby, me, play, ratings, stream, tournaments,
                        webhooks)
from .resources import players
from .resources import catalog, messages, together
from .schemas.common import Problem
from .schemas.positions import POSITION_SCHEMAS

API_DESCRIPTION = """Play board games by correspondence over HTTP.

Create a game (`POST /api/v1/games`): each seat gets a secret token, shown once. Send it as
`Authorization: Bearer <token>` to read your seat's view, list your legal moves and submit moves.
Moves are short texts in the game's move notation (`GET /api/v1/games/{game_id}/legal-moves` lists
them in words; each game's docs give its notation). Every submission names the `expected_version` it
was chosen at: it applies entirely or not at all, and a stale version gets 409.

Every error is `application/problem+json` with a stable `code`:
401 no or bad token; 403 a seat acting out of turn; 404 unknown game; 408 the body did not
arrive in time; 409 stale version; 413 body too large; 422 unparsable or illegal move (with
`move_index` and `rule`) or invalid request; 429 rate limited.

Fairness: the secret seed behind every roll and draw is committed to (SHA-256) when the game
starts and revealed when it ends (`/fairness`).

""" + language.DOC + """

Web pages, built on this API alone: [the home page](/), [a new game](/play/new), each game at
`/play/{game_id}` (open it as a seat with `#token=<seat token>` in the URL fragment, which never
reaches a server), [the tournaments](/tournaments) and your dashboard at `/me#key=<key>` (the
private link in your first email).
"""

GENERIC_CODES = {400: "bad-request", 401: "unauthorized", 403: "forbidden", 404: "not-found",
                 405: "method-not-allowed", 406: "not-acceptable", 408: "request-timeout",
                 413: "payload-too-large", 415: "unsupported-media-type", 422: "invalid-request",
                 429: "rate-limited", 500: "internal-error", 503: "unavailable"}


def problem_response(body: dict, headers: dict | None = None) -> flask.Response:
    resp = flask.jsonify(body)
    resp.status_code = body["status"]
    resp.mimetype = PROBLEM_CONTENT_TYPE
    for k, v in (headers or {}).items():
        resp.headers[k] = v
    return resp


def strict_nullable(converter, field, ret, **kwargs) -> dict:
    """A nullable nested object is ``anyOf: [<its schema>, null]``. apispec writes OpenAPI 3.0's
    null as ``{"type": "object", "nullable": true}``, which any object matches, so a wrong object
    would pass where the nested schema is closed; ``{"type": "object", "enum": [null], "nullable":
    true}`` matches null only."""
    for i, alt in enumerate(ret.get("anyOf", [])):
        if alt == {"type": "object", "nullable": True}:
            # with a type: OpenAPI 3.0's nullable means nothing without one (Spectral's oas3-schema)
            null = {"type": "object", "enum": [None], "nullable": True}
            ret["anyOf"] = [a for a in ret["anyOf"] if a is not alt] + [null]
            break
    return {}


class ProblemApi(Api):
    """flask-smorest's Api, answering and documenting every error as problem+json.

    The OpenAPI document is built when it is first read (``GET /api/openapi.json``, the docs page,
    ``tablepost openapi``), not with the app: documenting every operation is most of the time an app
    takes to build, and an app serves its document seldom (a gunicorn worker perhaps never; the
    tests build hundreds of apps). :meth:`document` queues a step; reading :attr:`spec` runs the
    queued steps in order, once, under a lock (a second thread waits for the whole document)."""

    ERROR_SCHEMA = Problem

    def handle_http_exception(self, error: HTTPException):
        status = error.code or 500
        if status == 404 and wants_page():  # a browser at a page that is not there: the site's 404 page
            return not_found_page()
        phrase = http.HTTPStatus(status).phrase if status in http.HTTPStatus._value2member_map_ else "Error"
        tr = language.translator()   # the detail in the request's language (the code stays)
        if isinstance(error, ApiError):
            body = problem_body(status, error.problem_code, error.title or phrase, tr.say(error.detail),
                                error.extra)
            return problem_response(body, error.extra_headers)
        code = GENERIC_CODES.get(status, phrase.lower().replace(" ", "-"))
        extra = {}
        data = getattr(error, "data", None) or {}
        if data.get("messages"):
            extra["errors"] = field_messages(data["messages"], tr)
            code = "invalid-request"
        description: str = (error.description or "") if status != 500 else SERVER_FAILED
        detail = tr.say(description)
        if isinstance(error, RateLimitExceeded):   # the limit in words ("at most 10 in 1 hour")
            detail = _limit_words(error, tr)
        headers = dict(data.get("headers") or {})
        allowed = getattr(error, "valid_methods", None)   # werkzeug's MethodNotAllowed has them
        if allowed:  # 405 must say what is allowed (RFC 9110)
            headers["Allow"] = ", ".join(allowed)
        return problem_response(problem_body(status, code, phrase, detail, extra), headers)

    def __init__(self, app=None, **kwargs):
        self._spec = None
        self._doc_steps: list = []          # what the document still lacks, in order
        self._doc_lock = threading.RLock()  # re-entrant: the steps read self.spec themselves
        self._documenting = False
        super().__init__(app, **kwargs)
        self.ma_plugin.converter.add_attribute_function(strict_nullable)

    @property
    def spec(self):
        if self._doc_steps:
            with self._doc_lock:
                if not self._documenting:   # (a step reading the spec gets it as built so far)
                    self._documenting = True
                    try:
                        while self._doc_steps:   # each step leaves the queue once done, so that
                            self._doc_steps[0]()  # another thread never sees a short queue early
                            self._doc_steps.pop(0)
                    finally:
                        self._documenting = False
        return self._spec

    @spec.setter
    def spec(self, value):  # flask-smorest's init_app sets it
        self._spec = value

    def document(self, step) -> None:
        """Add ``step(spec)`` to the document, when it is built."""
        self._doc_steps.append(lambda: step(self._spec))

    def register_blueprint(self, blp, *, parameters=None, **options):
        """flask-smorest's, with the blueprint's part of the document queued (see the class)."""
        name = options.get("name", blp.name)
        self._app.extensions["flask-smorest"]["blp_name_to_api"][name] = self
        self._app.register_blueprint(blp, **options)

        def step(spec):
            blp.register_views_in_doc(self, self._app, spec, name=name, parameters=parameters)
            spec.tag({"name": name, "description": blp.description})
        self.document(step)

    def _register_responses(self):
        """Document every error response as problem+json (flask-smorest says application/json)."""
        self.document(self._document_responses)

    # flask-smorest's other parts of the document, queued in their order too (they read self.spec)
    def _register_etag_headers(self):
        self._doc_steps.append(super()._register_etag_headers)

    def _register_pagination_header(self):
        """Nothing: no operation is paginated by flask-smorest (its X-Pagination header), so the
        document has no PaginationMetadata schema nor PAGINATION header (Spectral: unused)."""

    def _document_responses(self, spec):
        for status in http.HTTPStatus:
            response = {"description": status.phrase}
            if status == 405:
                response = {"description": "the path has no such method (`method-not-allowed`)", "headers": {
                    "Allow": {"description": "the methods the path has", "schema": {"type": "string"}}}}
            if status >= 400:
                response["schema"] = self.ERROR_SCHEMA
                prepare_response(response, spec, PROBLEM_CONTENT_TYPE)
            spec.components.response(status.name, response, lazy=True)
        response = {"description": "Default error response", "schema": self.ERROR_SCHEMA}
        prepare_response(response, spec, PROBLEM_CONTENT_TYPE)
        spec.components.response("DEFAULT_ERROR", response, lazy=True)


def document_components(spec) -> None:
    """The security schemes and the position schemas (the state endpoint's oneOf,
    schemas.ANY_POSITION) that no operation's own documentation brings in."""
    spec.components.security_scheme("dashboardKey", me.SECURITY_SCHEME)
    spec.components.security_scheme("botOwnerKey", bots.SECURITY_SCHEME)
    spec.components.security_scheme("creatorToken", lobby.SECURITY_SCHEME)
    for name, schema in POSITION_SCHEMAS.items():
        if isinstance(schema, dict):   # a game described by its format alone
            spec.components.schema(name, component=schema)
        else:
            spec.components.schema(name, schema=schema)


def create_app(config: dict | None = None) -> flask.Flask:
    """The WSGI app. Configuration comes from the environment (api/settings.py), then ``config``."""
    app = flask.Flask("tablepost")
    cfg = settings.from_env()
    cfg.update(config or {})
    app.config.update(cfg)
    app.config.update(
        # A method a path does not document is a 405 with Allow, OPTIONS too: the API serves no CORS
        # preflight (its pages are same-origin), and so the app answers exactly what its document says.
        PROVIDE_AUTOMATIC_OPTIONS=False,
        API_TITLE="Table Post", API_VERSION="4.0.0", OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/api", OPENAPI_JSON_PATH="openapi.json",
        # The docs page /api/docs is api/pages.py's (Swagger UI from a package, under a CSP); no CDN.
        API_SPEC_OPTIONS={
            "info": {"description": API_DESCRIPTION,
                     "contact": {"name": "Table Post", "url": "https://tablepost.example/"}},
            # the API is served with its pages, at the document's own origin
            "servers": [{"url": "/", "description": "this server"}],
            "components": {"securitySchemes": {"seatToken": {
                "type": "http", "scheme": "bearer",
                "description": "the seat token returned once by POST /api/v1/games"}}},
        },
    )
    if not app.config.get("REDIS_URL"):
        raise RuntimeError(
            "REDIS_URL is not set: run 'tablepost serve', which starts a Redis, or set REDIS_URL")
    client = connect(app.config["REDIS_URL"], cluster=app.config["REDIS_CLUSTER"], socket_timeout=5,
                     health_check_interval=30)
    if app.config["REDIS_CLUSTER"] or is_cluster(app.config["REDIS_URL"]):
        if not app.config.get("CELERY_BROKER_URL") and app.config.get("SEND_TASK") is None:
            raise RuntimeError("with a Redis Cluster, set CELERY_BROKER_URL to a plain Redis (or RabbitMQ): "
                               "Celery's Redis transport does not speak Cluster (docs/deploy.md)")
    if app.config["ADOPT_LEGACY"]:
        try:
            adopt_legacy(client)  # indexes written before they were sharded (once; cheap afterwards)
            rename_pools(client)  # ratings stored under a pool's deprecated name (once; cheap afterwards)
        except redis.RedisError as e:  # the API still starts (and answers 503) while Redis is away
            app.logger.warning("could not look for unsharded indexes or renamed pools yet: %s", e)
    store = EventStore(client)
    app.extensions["tablepost.store"] = store
    send_task = app.config.get("SEND_TASK")  # None: Celery on the broker; False: send nothing
    if send_task is None:
        send_task = celery_send_task(app.config.get("CELERY_BROKER_URL") or app.config["REDIS_URL"])
    dispatcher = Dispatcher(client, send_task or None)
    app.extensions["tablepost.scheduler"] = dispatcher
    extra_hook = app.config.get("ON_APPEND")

    def on_append(game_id, version, state, mover, ai_seats=None, hooks=None):
        dispatcher.after_append(game_id, version, state, mover, ai_seats, hooks)
        if extra_hook is not None:
            extra_hook(game_id, version, state, mover)

    app.extensions["tablepost.service"] = GameService(
        store, snapshot_every=app.config["SNAPSHOT_EVERY"],
        allow_seeded_games=app.config["ALLOW_SEEDED_GAMES"],
        on_append=on_append, bot_token=app.config.get("BOT_TOKEN"), ai_token=app.config.get("AI_TOKEN"))
    if send_task and stand_in_level() not in FAST_LEVELS:
        # a withdrawal or a deleted account hands a slow stand-in's turn (hard, master) to the AI
        # worker: no request waits for it (a lost message: the deadline sweep hands it off again)
        app.extensions["tablepost.service"].stand_in_hand_off = (
            lambda game_id, seat, version: dispatcher.send(STAND_IN_TASK, [game_id, seat, version],
                                                           STAND_IN_QUEUE))

    # Event streams wait in XREAD BLOCK: their own connections, with a socket timeout past the wait.
    stream_client = connect(app.config["REDIS_URL"], cluster=app.config["REDIS_CLUSTER"],
                            socket_timeout=app.config["STREAM_KEEPALIVE"] + 10, health_check_interval=30)
    app.extensions["tablepost.feed"] = EventFeed(app.extensions["tablepost.service"], stream_client)
    app.extensions["tablepost.webhooks"] = Webhooks(app.extensions["tablepost.service"],
                                                  allow_loopback=bool(
                                                      app.config.get("WEBHOOK_ALLOW_LOOPBACK")))
    app.extensions["tablepost.stream_slots"] = StreamSlots(app.config["STREAM_LISTENERS"],
                                                         {"address": app.config["STREAM_PER_ADDRESS"],
                                                          "seat": app.config["STREAM_PER_SEAT"]})

    app.extensions["tablepost.parts"] = Parts(app.config.get("CELERY_BROKER_URL") or app.config["REDIS_URL"],
                                            app.config.get("HEALTH_WORKERS") or [],
                                            app.config.get("HEALTH_MAILIN"),
                                            redis=client, scheduler=app.config.get("HEALTH_SCHEDULER", False),
                                            scheduler_grace=app.config.get("HEALTH_SCHEDULER_GRACE", 90.0),
                                            smtp_after=app.config.get("HEALTH_SMTP_SECONDS", 300.0))
    api = ProblemApi(app)
    app.extensions["tablepost.tournaments"] = TournamentService(app.extensions["tablepost.service"],
                                                                  send=dispatcher.send)
    app.extensions["tablepost.ratings"] = RatingService(app.extensions["tablepost.service"])
    # hints: computed by the hints worker, the backlog bounded for the whole service (application/hints.py)
    app.extensions["tablepost.hints"] = Hints(app.extensions["tablepost.service"], send=dispatcher.send,
                                            level=app.config.get("HINT_LEVEL") or "medium",
                                            capacity=max(1, app.config.get("HINT_PROCS", 1))
                                            + max(0, app.config.get("HINT_QUEUE", 2)))
    api.register_blueprint(health.blp)
    api.register_blueprint(play.blp)
    api.register_blueprint(games.blp)
    api.register_blueprint(together.blp)   # resign and rematch (issue 41)
    api.register_blueprint(messages.blp)   # the table talk (issue 41)
    api.register_blueprint(stream.blp)
    api.register_blueprint(bot.blp)
    api.register_blueprint(bots.blp)
    api.register_blueprint(webhooks.blp)
    api.register_blueprint(email.blp)
    api.register_blueprint(tournaments.blp)
    api.register_blueprint(ratings.blp)
    app.extensions["tablepost.dashboard"] = Dashboard(app.extensions["tablepost.service"])
    app.extensions["tablepost.credentials"] = Credentials(app.extensions["tablepost.service"],
                                                        app.extensions["tablepost.dashboard"],
                                                        send=dispatcher.send)
    api.document(document_components)
    api.register_blueprint(me.blp)
    app.extensions["tablepost.profiles"] = Profiles(app.extensions["tablepost.service"],
                                                  app.extensions["tablepost.ratings"])
    app.extensions["tablepost.accounts"] = Accounts(app.extensions["tablepost.dashboard"],
                                                  app.extensions["tablepost.profiles"],
                                                  webhooks=app.extensions["tablepost.webhooks"],
                                                  erasers=[forget_address])
    api.register_blueprint(players.blp)
    app.extensions["tablepost.lobby"] = Lobby(app.extensions["tablepost.service"],
                                            app.extensions["tablepost.dashboard"], send=dispatcher.send)
    api.register_blueprint(lobby.blp)
    api.register_blueprint(catalog.blp)
    register_pages(app)  # /, /play/new, /play/<id>, /tournaments, /tournaments/<id>, /me
    register_email_pages(app)  # /email/move/<id>, /email/unsubscribe: what the links in emails open
    app.register_error_handler(redis.RedisError, _redis_down)
    app.register_error_handler(TimeoutError, lambda e: _too_slow())
    # werkzeug reads a body with a Content-Length through a LimitedStream, which turns the read's
    # error into ClientDisconnected (400)
    app.register_error_handler(ClientDisconnected, lambda e: (
        _too_slow() if isinstance(e.__context__, TimeoutError) else api.handle_http_exception(e)))
    app.register_error_handler(ServiceError, lambda e: api.handle_http_exception(from_service(_kept(e))))
    # a stored game whose rules are not installed, met on any path (application/game_core.py)
    app.register_error_handler(UnknownGame,
                               lambda e: api.handle_http_exception(from_service(not_hosted(e))))

    app.after_request(language.said_headers)   # Content-Language, Vary: Accept-Language
    limits.install(app)
    # Flask's documented way to add WSGI middleware; its stubs declare wsgi_app a method
    limited = LimitChunkedBodies(app.wsgi_app, app.config["MAX_CONTENT_LENGTH"],
                                 pseudo=bool(app.config.get("TESTING")))
    app.wsgi_app = limited   # type: ignore[method-assign]
    if app.config["TRUSTED_PROXIES"]:  # the client address as the trusted proxies saw it
        n = app.config["TRUSTED_PROXIES"]
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=n, x_proto=n, x_host=n)   # type: ignore[method-assign]
    return app


class LimitChunkedBodies:
    """MAX_CONTENT_LENGTH for bodies sent without a Content-Length (chunked): werkzeug only
    truncates those, so read up to the limit here and answer 413 beyond it."""

    def __init__(self, app, limit: int, pseudo: bool = False):
        self.app, self.limit, self.pseudo = app, limit, pseudo

    def __call__(self, environ, start_response):
        if (self.limit and not environ.get("CONTENT_LENGTH")
                and "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()):
            try:
                body = environ["wsgi.input"].read(self.limit + 1)
            except TimeoutError:  # a stalled client (api/gunicorn_conf.py)
                return self.problem(environ, start_response, 408, "request-timeout", "Request Timeout",
                                    TOO_SLOW)
            if len(body) > self.limit:
                return self.problem(environ, start_response, 413, "payload-too-large", "Content Too Large",
                                    said("the body is larger than {limit} bytes", limit=self.limit))
            environ["wsgi.input"] = io.BytesIO(body)
            environ["CONTENT_LENGTH"] = str(len(body))
            environ.pop("HTTP_TRANSFER_ENCODING", None)
            environ["wsgi.input_terminated"] = False
        return self.app(environ, start_response)

    def problem(self, environ: dict, start_response, status: int, code: str, title: str,
                detail: str) -> list[bytes]:
        """The problem, its ``detail`` in the request's language (api/language.py; there is no
        request context yet here)."""
        lang = language.environ_language(environ, self.pseudo)
        payload = json.dumps(problem_body(status, code, title, i18n.translator(lang).say(detail))).encode()
        start_response(f"{status} {title}", [("Content-Type", PROBLEM_CONTENT_TYPE),
                                             ("Content-Length", str(len(payload))),
                                             ("Content-Language", lang), ("Vary", "Accept-Language")])
        return [payload]


TOO_SLOW = N_("the request body did not arrive in time; nothing was changed")
STORE_DOWN = N_("the game store is unreachable; nothing was changed, retry later")


def _kept(e: ServiceError) -> ServiceError:
    """A refusal for a budget of the core's own (``limited``: a rematch chain's, the table talk's)
    says when to ask again; its Retry-After is kept over the rate limiter's own (api/limits.py)."""
    if e.kind == "limited":
        flask.g.retry_after = e.extra.get("retry_after", 60)
    return e


def _too_slow() -> flask.Response:
    """The answer to a client whose request stalled past the socket timeout the gunicorn worker
    sets (api/gunicorn_conf.py): a read of the body timed out. The server closes the connection
    (its body never arrived whole)."""
    return problem_response(problem_body(408, "request-timeout", "Request Timeout",
                                         language.translator().say(TOO_SLOW)))


def _redis_down(e: redis.RedisError):
    return problem_response(problem_body(503, "storage-unavailable", "Service Unavailable",
                                         language.translator().say(STORE_DOWN)),
                            {"Retry-After": "5"})


def _limit_words(error, tr) -> str:
    """A rate limit refused, in the request's language: its amount and its window (Babel's units and
    plural forms), not the limiter's English ("10 per 1 hour")."""
    item: Any = getattr(getattr(error, "limit", None), "limit", None)
    try:
        amount, seconds = int(item.amount), int(item.get_expiry())
    except (AttributeError, TypeError, ValueError):
        return tr.say(said("too many requests: at most {limit}", limit=error.description))
    return tr.ngettext("too many requests: at most {n} request in {period}",
                       "too many requests: at most {n} requests in {period}", amount,
                       period=tr.duration(seconds))
