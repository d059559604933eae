"""Rate limits (Flask-Limiter, counted in the service's Redis; docs/deploy.md, "Rate limits").

Every limit is keyed on an identity the request *proves*, never on whatever header arrives:

* a valid seat token or link token counts for its seat (``seat:<game>:<n>``), a valid dashboard
  key for its player, the bot credential for the game it acts in (``bot:<game>``, its own
  budget: one shared bot login never stalls every game);
* anything else -- no credential, an unknown or invalid one, a kind not checked here -- counts
  against the client's address, so a fresh junk token per request earns no fresh budget.

On top of the per-identity budget, four actions have limits of their own, per client address:
creating (games, tournaments and bot accounts draw on one budget), entering tournaments, joining
waiting games (asking and confirming, docs/lobby.md; also per joining address, or per dashboard key,
whatever client it comes from), and making the service email addresses (each address in the
request that this client has not named in the last day costs one, whichever of those endpoints it came
through: whether the address plays here changes nothing, which would tell anyone that it does).
Those count only requests that succeeded.

Actions one client can repeat are charged to it too (issue 51): a rematch ask that proposes or
accepts draws on the create budget (:func:`_rematch_cost`; asking again costs nothing), and a
rematch chain is limited per lineage whoever asks (application/together.py, ``REMATCH_LIMIT``); a
seat's link re-issue, which emails the seat each time, has a budget per seat (``SEAT_LINK_LIMIT``)
and one per client address over every seat (``SEAT_LINK_CLIENT_LIMIT``).

The client address is the socket's peer, or with ``TRUSTED_PROXIES`` = N the address N proxies in
front reported in ``X-Forwarded-For`` (werkzeug's ProxyFix), never a header a client could set on
its own.
"""
from __future__ import annotations

import hashlib
import hmac
import math
import time
from typing import Any, Callable, cast

import flask
from flask_limiter import Limiter
from limits import parse as parse_limit

from application.players import SECRET_KEY
from application.together import Together
from application.service_secrets import stored_secret
from application.redis_conn import cluster_url, is_cluster

from tablepost.i18n import N_, said

from .extensions import service
from .problems import ApiError

CREATE_ENDPOINTS = {"games.Games": ["POST"], "tournaments.Tournaments": ["POST"], "bots.Bots": ["POST"],
                    "bots.BotInvitations": ["POST"]}
ENTRY_ENDPOINTS = {"tournaments.Entries": ["POST"], "tournaments.EntryConfirm": ["POST"]}
EMAILING_ENDPOINTS = {"games.Games": ["POST"], "tournaments.Tournaments": ["POST"],
                      "tournaments.Entries": ["POST"], "bots.Bots": ["POST"], "lobby.Join": ["POST"]}
PREFIX = "tablepost"   # the limiter's key prefix (its storage's keys begin with it; transient counters)
JOIN_ENDPOINTS = {"lobby.Join": ["POST"], "lobby.Confirm": ["POST"]}
REMATCH_ENDPOINTS = {"together.RematchView": ["POST"]}   # on the create budget (_rematch_cost)
SEAT_LINK_ENDPOINTS = {"games.SeatLinkView": ["POST"]}


def hashed(who: str) -> str:
    """``who`` (an email address, a player id) as a limiter key may hold it: a keyed hash (HMAC with
    the service's player secret, under a label of its own, so it is not the player id either). The
    counters live in Redis for up to their window; none holds an address or an id, so nothing is left
    of an account after its deletion (docs/pbem.md, "Your data")."""
    secret = stored_secret(service().store.r, SECRET_KEY)
    label = b"rate-limit:" + who.encode("utf-8", "surrogatepass")
    return hmac.new(secret, label, hashlib.sha256).hexdigest()[:32]


def client_address() -> str:
    return "addr:" + (flask.request.remote_addr or "?")


def _bearer() -> str | None:
    scheme, _, token = flask.request.headers.get("Authorization", "").partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


def identity() -> str:
    """The key of the per-identity budget (see the module docstring); worked out once a request."""
    if "tablepost_identity" not in flask.g:
        token = _bearer()
        who = None
        if token is not None:
            game_id = (flask.request.view_args or {}).get("game_id")
            who = service().identity(token, game_id)
            if who is not None and who.startswith("player:"):   # a dashboard key: its player, hashed
                who = "player:" + hashed(who[len("player:"):])
        flask.g.tablepost_identity = who or client_address()
    return flask.g.tablepost_identity


def _identity_limit() -> str:
    cfg = flask.current_app.config
    if identity().startswith(("bot:", "ai:")):  # a bot credential in one game: that game's own budget
        return cfg["BOT_RATE_LIMIT"]
    return f"{cfg['RATE_LIMIT']}/minute"


def _emails_in_body() -> list[str]:
    body = flask.request.get_json(silent=True)
    if not isinstance(body, dict):
        return []
    found = []
    for key in ("seats", "entries"):
        for item in body.get(key) or ():
            if isinstance(item, dict) and isinstance(item.get("email"), str):
                found.append(item["email"])
    if isinstance(body.get("email"), str):
        found.append(body["email"])
    return found


def joining_address() -> str:
    """The per-address budget of joins: the address in the body (lower-cased), else the proven
    identity (a dashboard key's player), else the client."""
    body = flask.request.get_json(silent=True)
    email = body.get("email") if isinstance(body, dict) else None
    if isinstance(email, str) and email.strip():
        return "join:" + hashed(email.strip().lower())
    return "join:" + identity()


NAMED_SECONDS = 24 * 3600   # how long a client's named addresses stay free for it again


def _named_key() -> str:
    """The addresses this client has been charged for lately, each as :func:`hashed` holds it (in the
    limits' namespace: nothing of an address or of the client in the clear)."""
    return "LIMITER/tablepost-named/" + hashed(client_address())


def _new_address_cost() -> int:
    """Worked out once, before the view runs: the limit is checked before and deducted after a
    successful request. An address costs one unless this client named it in a request that
    succeeded in the last day (:data:`NAMED_SECONDS`): what it costs never depends on whether the
    address plays here, which would tell anyone that it does (issue 39); a client naming the same
    friends again and again pays for them once."""
    if "tablepost_new_addresses" not in flask.g and flask.request.endpoint == "lobby.Join":
        # a join asked by email costs one whether or not the address ever played: a cost (a 429, a
        # header) that depended on it would tell anyone whether an address plays here (docs/lobby.md)
        body = flask.request.get_json(silent=True)
        flask.g.tablepost_new_addresses = int(_bearer() is None and isinstance(body, dict)
                                            and isinstance(body.get("email"), str))
    if "tablepost_new_addresses" not in flask.g:
        try:
            emails = sorted({e.strip().lower() for e in _emails_in_body() if e.strip()})
            fresh = [hashed(e) for e in emails]
            if fresh:
                r, named = service().store.r, _named_key()
                pipe = r.pipeline(transaction=False)
                for h in fresh:
                    pipe.sismember(named, h)
                fresh = [h for h, known in zip(fresh, pipe.execute()) if not known]
            flask.g.tablepost_named = fresh
            flask.g.tablepost_new_addresses = len(fresh)
        except Exception:  # a malformed body is the schema's to refuse
            flask.g.tablepost_new_addresses = 0
    return flask.g.tablepost_new_addresses


def _remember_named(response):
    """After a request that succeeded and was charged for addresses: they are free for this client
    for a day."""
    fresh = flask.g.get("tablepost_named")
    if fresh and response.status_code < 400:
        try:
            pipe = service().store.r.pipeline(transaction=False)
            pipe.sadd(_named_key(), *fresh)
            pipe.expire(_named_key(), NAMED_SECONDS)
            pipe.execute()
        except Exception:   # the limits' storage failed: as every other limit does (swallow_errors)
            pass
    return response


def _rematch_cost() -> int:
    """Worked out once, before the view runs (as :func:`_new_address_cost`): a rematch ask costs one
    of the client's create budget when it changes the proposal (proposes, or accepts for its seat:
    the last acceptance starts a game), nothing when it only reads it again (accepted already, or
    started). Without a proven seat of the game it costs one (the view refuses it, so nothing is
    deducted)."""
    if "tablepost_rematch_cost" not in flask.g:
        cost = 1
        game_id = (flask.request.view_args or {}).get("game_id")
        who = identity()
        if game_id and who.startswith(f"seat:{game_id}:"):
            try:
                cost = int(Together(service()).asks_anew(game_id, int(who.rsplit(":", 1)[1])))
            except Exception:   # the view answers whatever went wrong
                cost = 1
        flask.g.tablepost_rematch_cost = cost
    return flask.g.tablepost_rematch_cost


def rematch_limit() -> tuple[int, int] | None:
    """``REMATCH_LIMIT`` as (games, seconds) for application/together.py; None when the limits are
    off."""
    cfg = flask.current_app.config
    if not cfg.get("RATE_LIMIT") or not cfg.get("REMATCH_LIMIT"):
        return None
    item = parse_limit(cfg["REMATCH_LIMIT"])
    return item.amount, item.get_expiry()


def _seat_link_key() -> str:
    """The seat of a link re-issue, from its URL: only a re-issue that succeeded (with a credential
    of that very seat) is counted, so nobody else can spend a seat's budget."""
    args = flask.request.view_args or {}
    return f"seat-link:{args.get('game_id')}:{args.get('seat')}"


def _succeeded(response) -> bool:
    return response.status_code < 400


def _own_retry_after(response):
    """A Retry-After the view set for a reason of its own (``flask.g.retry_after``: a hint still
    being computed) stays what it said; the limiter writes its window's reset over any."""
    own = flask.g.get("retry_after")
    if own is not None:
        response.headers["Retry-After"] = str(own)
    return response


def charge_hint() -> None:
    """One hint of the seat's budget (TABLEPOST_HINT_LIMIT, per identity: the seat), charged by the
    hint view when it starts a search (api/hints.py): asking again for a hint being computed, or
    computed, costs nothing, and a refusal (no room in the pool, budget spent) costs nothing.
    Raises 429 ``rate-limited`` with Retry-After (the window's reset) when the budget is spent."""
    _charge("tablepost_hint_budget", "hint", "rate-limited",
            N_("at most {item} hints per seat: ask again later"))


def charge_message() -> None:
    """One table-talk message of the seat's budget (TABLEPOST_MESSAGE_LIMIT, per identity: the seat),
    charged by the post view once the seat is known (api/resources/messages.py). Raises 429
    ``too-many-messages`` with Retry-After when it is spent."""
    _charge("tablepost_message_budget", "message", "too-many-messages",
            N_("at most {item} messages per seat: wait a moment"))


def _charge(budget_name: str, scope: str, code: str, detail: str) -> None:
    """One unit of a seat's budget kept by the app's limiter (``budget_name`` in its extensions);
    429 ``code`` with Retry-After (the window's reset) when it is spent. Nothing when the limits are
    off, or when their storage fails (as every other limit: swallow_errors)."""
    budget = flask.current_app.extensions.get(budget_name)
    if budget is None:   # limits off
        return
    limiter, item = budget
    who = identity()
    try:
        if limiter.limiter.hit(item, PREFIX, scope, who):
            return
        reset = limiter.limiter.get_window_stats(item, PREFIX, scope, who).reset_time
    except Exception:   # the limits' storage failed: let it pass
        return
    retry = max(1, math.ceil(reset - time.time()))
    flask.g.retry_after = retry   # kept over the limiter's own Retry-After (_own_retry_after)
    raise ApiError(429, code, said(detail, item=item), headers={"Retry-After": str(retry)})


def limited(view: Any) -> Callable[..., Any]:
    """A view wrapped in one of flask-limiter's limits, as Flask's view table holds it: the
    decorator's return type allows coroutine views too, which the service (synchronous) has none of."""
    return cast(Callable[..., Any], view)


def install(app: flask.Flask) -> Limiter | None:
    """Put the limits on ``app`` (after its Blueprints are registered). ``RATE_LIMIT`` = 0 turns
    every limit off (tests, benchmarks)."""
    cfg = app.config
    if not cfg.get("RATE_LIMIT"):
        return None
    app.after_request(_own_retry_after)   # registered before the limiter's hook, so it runs after it
    app.after_request(_remember_named)
    storage = cfg["RATE_LIMIT_STORAGE"] or cfg["REDIS_URL"]
    if not cfg["RATE_LIMIT_STORAGE"] and cfg.get("REDIS_CLUSTER"):
        storage = cluster_url(storage)  # the limits storage's own scheme for a cluster
    elif is_cluster(storage):
        storage = cluster_url(storage.replace("+cluster", ""))
    limiter = Limiter(identity, app=app, storage_uri=storage,
                      strategy="fixed-window", key_prefix=PREFIX, headers_enabled=True,
                      # one budget over every route
                      swallow_errors=True, application_limits=[_identity_limit],
                      application_limits_exempt_when=lambda: not flask.request.path.startswith("/api/v1"))

    def wrap(endpoints: dict, limit: str, scope: str, **kw) -> None:
        # one shared budget per scope: a limit per endpoint would let a client create its full
        # allowance of games, and again of tournaments, and again of bot accounts
        for endpoint, methods in endpoints.items():
            view = app.view_functions[endpoint]
            app.view_functions[endpoint] = limited(limiter.shared_limit(
                limit, scope, key_func=client_address, methods=methods, override_defaults=False, **kw)(view))

    app.extensions["tablepost_hint_budget"] = (limiter, parse_limit(cfg["HINT_LIMIT"]))   # charge_hint
    app.extensions["tablepost_message_budget"] = (limiter,
                                                  parse_limit(cfg["MESSAGE_LIMIT"]))   # charge_message
    wrap(CREATE_ENDPOINTS, cfg["CREATE_LIMIT"], scope="create", deduct_when=_succeeded)
    wrap(ENTRY_ENDPOINTS, cfg["ENTRY_LIMIT"], scope="enter", deduct_when=_succeeded)
    wrap(JOIN_ENDPOINTS, cfg["JOIN_LIMIT"], scope="join")   # every attempt counts: refusals probe too
    view = app.view_functions["lobby.Join"]
    # shared (though on one endpoint): the headers then show the client's own budget, never how many
    # joins others asked for this address
    app.view_functions["lobby.Join"] = limited(limiter.shared_limit(
        cfg["JOIN_ADDRESS_LIMIT"], "join-address", key_func=joining_address, methods=["POST"],
        override_defaults=False)(view))
    wrap(EMAILING_ENDPOINTS, cfg["NEW_ADDRESS_LIMIT"], scope="new-addresses", cost=_new_address_cost,
         deduct_when=_succeeded)
    # a rematch makes a game: the same budget as POST /games (a loop of resign and rematch is not free)
    wrap(REMATCH_ENDPOINTS, cfg["CREATE_LIMIT"], scope="create", cost=_rematch_cost, deduct_when=_succeeded)
    # each seat link re-issue emails the seat: per client over every seat, and per seat whoever asks
    wrap(SEAT_LINK_ENDPOINTS, cfg["SEAT_LINK_CLIENT_LIMIT"], scope="seat-link", deduct_when=_succeeded)
    for endpoint in SEAT_LINK_ENDPOINTS:
        app.view_functions[endpoint] = limited(limiter.shared_limit(
            cfg["SEAT_LINK_LIMIT"], "seat-link-seat", key_func=_seat_link_key, methods=["POST"],
            override_defaults=False, deduct_when=_succeeded)(app.view_functions[endpoint]))
    return limiter
