"""Configuration, read from the environment (and overridable in ``create_app(config)``).

| variable | default | meaning |
|---|---|---|
| REDIS_URL | (none: ``tiletum serve`` starts its own Redis) | the Redis holding every game; ``redis+cluster://host:port/0`` names one node of a Redis Cluster |
| TILETUM_REDIS_CLUSTER | 0 | 1: REDIS_URL (``redis://``) is a node of a Redis Cluster (the same as the ``redis+cluster://`` scheme) |
| TILETUM_ALLOW_SEEDED_GAMES | 0 | honour ``options.seed`` at game creation (tests, demos) |
| TILETUM_SNAPSHOT_EVERY | 100 | write a snapshot when this many events follow the last one |
| TILETUM_RATE_LIMIT | 600 | requests per minute per proven identity (a seat, a dashboard key), else per client address; 0 turns every limit off |
| TILETUM_BOT_RATE_LIMIT | 300/minute | the bot credential's budget in each game (docs/deploy.md, "Rate limits") |
| TILETUM_CREATE_LIMIT | 60/hour | games, tournaments and bot accounts created per client address (one budget) |
| TILETUM_ENTRY_LIMIT | 30/hour | tournament entries per client address |
| TILETUM_REMATCH_LIMIT | 20/day | rematches started in a row from one game (its lineage), whoever asks; each rematch ask that proposes or accepts also costs one of the asking client's TILETUM_CREATE_LIMIT |
| TILETUM_SEAT_LINK_LIMIT | 3/hour;10/day | a seat's link re-issues (`POST /api/v1/games/{id}/seats/{n}/link`, each emails the seat), per seat |
| TILETUM_SEAT_LINK_CLIENT_LIMIT | 10/hour;30/day | seat link re-issues per client address (over every seat) |
| TILETUM_JOIN_LIMIT | 30/hour | lobby joins and join confirmations per client address (docs/lobby.md) |
| TILETUM_JOIN_ADDRESS_LIMIT | 5/hour | lobby joins per joining address (or dashboard key) |
| TILETUM_HINT_LIMIT | 30/hour | hints (`GET /api/v1/games/{id}/hint`) per seat |
| TILETUM_MESSAGE_LIMIT | 6/minute | table-talk messages (`POST /api/v1/games/{id}/messages`) per seat, on top of the 30 an hour per seat and game of every channel |
| TILETUM_TALK_EMAIL_SECONDS | 10800 | a table-talk message no email of the seat told within this goes in an email of its own (docs/pbem.md, "Table talk") |
| TILETUM_HINT_LEVEL | medium | the AI level of hints: easy, medium or hard (docs/ai.md) |
| TILETUM_HINT_PROCS | 1 | hints computed at once: the processes of the hints worker (queue hints; `tiletum serve` starts it), never the API's |
| TILETUM_HINT_WAIT | 10 | seconds a hint request waits for its answer before it gets 202 with Retry-After |
| TILETUM_HINT_QUEUE | 2 | hints of the whole service waiting for the hints worker beyond those computing; more are refused at once (429 hints-busy) |
| TILETUM_NEW_ADDRESS_LIMIT | 30/day | addresses given seats, entries or bot accounts per client address (each costs one unless the client named it in the last day; whether it plays here changes nothing) |
| TILETUM_TRUSTED_PROXIES | 0 | how many reverse proxies in front of the API append to X-Forwarded-For (ProxyFix) |
| TILETUM_RATE_LIMIT_STORAGE | REDIS_URL | where the limits count (a limits storage URI, e.g. redis+cluster://...) |
| TILETUM_MAX_BODY | 65536 | the largest request body in bytes (413 above) |
| TILETUM_PUBLIC_URL | (from the request) | the service's own URL, for links |
| TILETUM_BOT_TOKEN | (none: no bot may act) | the Cardinalbot's credential: acts only for seats of kind cardinalbot |
| TILETUM_AI_TOKEN | (none: no AI seat may act) | the AI player's credential: acts only for seats of kind ai (docs/ai.md) |
| CELERY_BROKER_URL | REDIS_URL | where bot turns (and other tasks) are enqueued; required with a Redis Cluster (a plain Redis or RabbitMQ) |
| TILETUM_MAIL_SECRET | (none: email links are disabled) | signs reply addresses and email links (docs/pbem.md) |
| TILETUM_HEALTH_WORKERS | (none) | Celery worker names /health expects to answer a ping, e.g. email,sweeps,seats,stand-in,hints,reviews |
| TILETUM_HEALTH_MAILIN | (none) | host:port of the SMTP listener /health expects to answer |
| TILETUM_HEALTH_SCHEDULER | 0 (``tiletum serve``: 1) | 1: /health reports the scheduler (beat) by its sweeps' heartbeat, ``down`` after 3 missed intervals |
| TILETUM_HEALTH_SCHEDULER_GRACE | 3 x TILETUM_SWEEP_SECONDS (90) | seconds after the API starts in which no heartbeat yet is ``starting``, not ``down`` |
| TILETUM_HEALTH_SMTP_SECONDS | 300 | seconds of failed deliveries (emails waiting) before /health says ``smtp: failing`` (status ``degraded``) |
| TILETUM_STREAM_LISTENERS | 16 (``tiletum serve``: threads - 8) | event streams one API process serves at once (docs/push.md) |
| TILETUM_STREAM_PER_ADDRESS | 4 | of those, the streams one client address may hold (the address the rate limits count); 0: no cap |
| TILETUM_STREAM_PER_SEAT | 2 | of those, the streams opened with one seat's token; 0: no cap |
| TILETUM_STREAM_SECONDS | 300 | how long one event stream lasts before the client reconnects |
| TILETUM_STREAM_KEEPALIVE | 15 | seconds between keep-alive comments on a quiet stream |
| TILETUM_CLIENT_TIMEOUT | 10 | seconds a read from or write to a client may wait before the API gives up on it (408); read by the gunicorn worker, api/gunicorn_conf.py (docs/deploy.md, "Slow clients") |
| TILETUM_INBOUND_SECRET | (none: the inbound webhook is off) | the key of the inbound webhook's X-Tiletum-Signature (docs/pbem.md) |
| TILETUM_WEBHOOK_ALLOW_LOOPBACK | 0 | 1: webhooks may go to loopback addresses (tests, local development; docs/bots.md) |
"""  # noqa: E501  (a Markdown table: its rows cannot wrap)
from __future__ import annotations

import os


def _bool(v: str | None) -> bool:
    return (v or "").strip().lower() in ("1", "true", "yes", "on")


def from_env(env=os.environ) -> dict:
    return {
        "REDIS_URL": env.get("REDIS_URL"),
        "REDIS_CLUSTER": _bool(env.get("TILETUM_REDIS_CLUSTER")),
        "ADOPT_LEGACY": True,   # at start: move indexes written before the sharding into their shards, and
                                # ratings stored under a pool's deprecated name to its name
        "ALLOW_SEEDED_GAMES": _bool(env.get("TILETUM_ALLOW_SEEDED_GAMES")),
        "SNAPSHOT_EVERY": int(env.get("TILETUM_SNAPSHOT_EVERY", "100")),
        "RATE_LIMIT": int(env.get("TILETUM_RATE_LIMIT", "600")),
        "BOT_RATE_LIMIT": env.get("TILETUM_BOT_RATE_LIMIT", "300/minute"),
        "CREATE_LIMIT": env.get("TILETUM_CREATE_LIMIT", "60/hour"),
        "ENTRY_LIMIT": env.get("TILETUM_ENTRY_LIMIT", "30/hour"),
        "JOIN_LIMIT": env.get("TILETUM_JOIN_LIMIT", "30/hour"),
        "REMATCH_LIMIT": env.get("TILETUM_REMATCH_LIMIT", "20/day"),
        "SEAT_LINK_LIMIT": env.get("TILETUM_SEAT_LINK_LIMIT", "3/hour;10/day"),
        "SEAT_LINK_CLIENT_LIMIT": env.get("TILETUM_SEAT_LINK_CLIENT_LIMIT", "10/hour;30/day"),
        "JOIN_ADDRESS_LIMIT": env.get("TILETUM_JOIN_ADDRESS_LIMIT", "5/hour"),
        "NEW_ADDRESS_LIMIT": env.get("TILETUM_NEW_ADDRESS_LIMIT", "30/day"),
        "HINT_LIMIT": env.get("TILETUM_HINT_LIMIT", "30/hour"),
        "MESSAGE_LIMIT": env.get("TILETUM_MESSAGE_LIMIT", "6/minute"),
        "TALK_EMAIL_SECONDS": float(env.get("TILETUM_TALK_EMAIL_SECONDS", "10800")),
        "HINT_LEVEL": env.get("TILETUM_HINT_LEVEL", "medium"),
        "HINT_PROCS": int(env.get("TILETUM_HINT_PROCS", "1")),
        "HINT_WAIT": float(env.get("TILETUM_HINT_WAIT", "10")),
        "HINT_QUEUE": int(env.get("TILETUM_HINT_QUEUE", "2")),
        "TRUSTED_PROXIES": int(env.get("TILETUM_TRUSTED_PROXIES", "0")),
        "RATE_LIMIT_STORAGE": env.get("TILETUM_RATE_LIMIT_STORAGE"),
        "MAX_CONTENT_LENGTH": int(env.get("TILETUM_MAX_BODY", "65536")),
        "PUBLIC_URL": env.get("TILETUM_PUBLIC_URL"),
        "BOT_TOKEN": env.get("TILETUM_BOT_TOKEN"),
        "AI_TOKEN": env.get("TILETUM_AI_TOKEN"),
        "CELERY_BROKER_URL": env.get("CELERY_BROKER_URL"),
        "MAIL_SECRET": env.get("TILETUM_MAIL_SECRET"),
        "INBOUND_SECRET": env.get("TILETUM_INBOUND_SECRET"),
        "HEALTH_WORKERS": [w for w in (env.get("TILETUM_HEALTH_WORKERS") or "").split(",") if w.strip()],
        "STREAM_LISTENERS": int(env.get("TILETUM_STREAM_LISTENERS", "16")),
        "STREAM_PER_ADDRESS": int(env.get("TILETUM_STREAM_PER_ADDRESS", "4")),
        "STREAM_PER_SEAT": int(env.get("TILETUM_STREAM_PER_SEAT", "2")),
        "STREAM_SECONDS": float(env.get("TILETUM_STREAM_SECONDS", "300")),
        "STREAM_KEEPALIVE": float(env.get("TILETUM_STREAM_KEEPALIVE", "15")),
        "HEALTH_MAILIN": env.get("TILETUM_HEALTH_MAILIN") or None,
        "HEALTH_SCHEDULER": _bool(env.get("TILETUM_HEALTH_SCHEDULER")),
        "HEALTH_SCHEDULER_GRACE": float(env.get("TILETUM_HEALTH_SCHEDULER_GRACE")
                                        or 3 * float(env.get("TILETUM_SWEEP_SECONDS") or 30)),
        "HEALTH_SMTP_SECONDS": float(env.get("TILETUM_HEALTH_SMTP_SECONDS") or 300),
        "WEBHOOK_ALLOW_LOOPBACK": _bool(env.get("TILETUM_WEBHOOK_ALLOW_LOOPBACK")),
    }
