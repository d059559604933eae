"""Configuration, read from the environment (and overridable in ``create_app(config)``).

| variable | default | meaning |
|---|---|---|
| REDIS_URL | (none: ``tablepost serve`` starts its own Redis) | the Redis holding every game; ``redis+cluster://host:port/0`` names one node of a Redis Cluster |
| TABLEPOST_REDIS_CLUSTER | 0 | 1: REDIS_URL (``redis://``) is a node of a Redis Cluster (the same as the ``redis+cluster://`` scheme) |
| TABLEPOST_ALLOW_SEEDED_GAMES | 0 | honour ``options.seed`` at game creation (tests, demos) |
| TABLEPOST_SNAPSHOT_EVERY | 100 | write a snapshot when this many events follow the last one |
| TABLEPOST_RATE_LIMIT | 600 | requests per minute per proven identity (a seat, a dashboard key), else per client address; 0 turns every limit off |
| TABLEPOST_BOT_RATE_LIMIT | 300/minute | the bot credential's budget in each game (docs/deploy.md, "Rate limits") |
| TABLEPOST_CREATE_LIMIT | 60/hour | games, tournaments and bot accounts created per client address (one budget) |
| TABLEPOST_ENTRY_LIMIT | 30/hour | tournament entries per client address |
| TABLEPOST_REMATCH_LIMIT | 20/day | rematches started in a row from one game (its lineage), whoever asks; each rematch ask that proposes or accepts also costs one of the asking client's TABLEPOST_CREATE_LIMIT |
| TABLEPOST_SEAT_LINK_LIMIT | 3/hour;10/day | a seat's link re-issues (`POST /api/v1/games/{id}/seats/{n}/link`, each emails the seat), per seat |
| TABLEPOST_SEAT_LINK_CLIENT_LIMIT | 10/hour;30/day | seat link re-issues per client address (over every seat) |
| TABLEPOST_JOIN_LIMIT | 30/hour | lobby joins and join confirmations per client address (docs/lobby.md) |
| TABLEPOST_JOIN_ADDRESS_LIMIT | 5/hour | lobby joins per joining address (or dashboard key) |
| TABLEPOST_HINT_LIMIT | 30/hour | hints (`GET /api/v1/games/{id}/hint`) per seat |
| TABLEPOST_MESSAGE_LIMIT | 6/minute | table-talk messages (`POST /api/v1/games/{id}/messages`) per seat, on top of the 30 an hour per seat and game of every channel |
| TABLEPOST_TALK_EMAIL_SECONDS | 10800 | a table-talk message no email of the seat told within this goes in an email of its own (docs/pbem.md, "Table talk") |
| TABLEPOST_HINT_LEVEL | medium | the AI level of hints: easy, medium or hard (docs/ai.md) |
| TABLEPOST_HINT_PROCS | 1 | hints computed at once: the processes of the hints worker (queue hints; `tablepost serve` starts it), never the API's |
| TABLEPOST_HINT_WAIT | 10 | seconds a hint request waits for its answer before it gets 202 with Retry-After |
| TABLEPOST_HINT_QUEUE | 2 | hints of the whole service waiting for the hints worker beyond those computing; more are refused at once (429 hints-busy) |
| TABLEPOST_NEW_ADDRESS_LIMIT | 30/day | addresses given seats, entries or bot accounts per client address (each costs one unless the client named it in the last day; whether it plays here changes nothing) |
| TABLEPOST_TRUSTED_PROXIES | 0 | how many reverse proxies in front of the API append to X-Forwarded-For (ProxyFix) |
| TABLEPOST_RATE_LIMIT_STORAGE | REDIS_URL | where the limits count (a limits storage URI, e.g. redis+cluster://...) |
| TABLEPOST_MAX_BODY | 65536 | the largest request body in bytes (413 above) |
| TABLEPOST_PUBLIC_URL | (from the request) | the service's own URL, for links |
| TABLEPOST_BOT_TOKEN | (none: no bot may act) | the Cardinalbot's credential: acts only for seats of kind cardinalbot |
| TABLEPOST_AI_TOKEN | (none: no AI seat may act) | the AI player's credential: acts only for seats of kind ai (docs/ai.md) |
| CELERY_BROKER_URL | REDIS_URL | where bot turns (and other tasks) are enqueued; required with a Redis Cluster (a plain Redis or RabbitMQ) |
| TABLEPOST_MAIL_SECRET | (none: email links are disabled) | signs reply addresses and email links (docs/pbem.md) |
| TABLEPOST_HEALTH_WORKERS | (none) | Celery worker names /health expects to answer a ping, e.g. email,sweeps,seats,stand-in,hints,reviews |
| TABLEPOST_HEALTH_MAILIN | (none) | host:port of the SMTP listener /health expects to answer |
| TABLEPOST_HEALTH_SCHEDULER | 0 (``tablepost serve``: 1) | 1: /health reports the scheduler (beat) by its sweeps' heartbeat, ``down`` after 3 missed intervals |
| TABLEPOST_HEALTH_SCHEDULER_GRACE | 3 x TABLEPOST_SWEEP_SECONDS (90) | seconds after the API starts in which no heartbeat yet is ``starting``, not ``down`` |
| TABLEPOST_HEALTH_SMTP_SECONDS | 300 | seconds of failed deliveries (emails waiting) before /health says ``smtp: failing`` (status ``degraded``) |
| TABLEPOST_STREAM_LISTENERS | 16 (``tablepost serve``: threads - 8) | event streams one API process serves at once (docs/push.md) |
| TABLEPOST_STREAM_PER_ADDRESS | 4 | of those, the streams one client address may hold (the address the rate limits count); 0: no cap |
| TABLEPOST_STREAM_PER_SEAT | 2 | of those, the streams opened with one seat's token; 0: no cap |
| TABLEPOST_STREAM_SECONDS | 300 | how long one event stream lasts before the client reconnects |
| TABLEPOST_STREAM_KEEPALIVE | 15 | seconds between keep-alive comments on a quiet stream |
| TABLEPOST_CLIENT_TIMEOUT | 10 | seconds a read from or write to a client may wait before the API gives up on it (408); read by the gunicorn worker, api/gunicorn_conf.py (docs/deploy.md, "Slow clients") |
| TABLEPOST_INBOUND_SECRET | (none: the inbound webhook is off) | the key of the inbound webhook's X-Tablepost-Signature (docs/pbem.md) |
| TABLEPOST_WEBHOOK_ALLOW_LOOPBACK | 0 | 1: webhooks may go to loopback addresses (tests, local development; docs/bots.md) |
"""  # noqa: E501  (a Markdown table: its rows cannot wrap)
from __future__ import annotations

import os


def _bool(v: str | None) -> bool:
    return (v or "").strip().lower() in ("1", "true", "yes", "on")


def from_env(env=os.environ) -> dict:
    return {
        "REDIS_URL": env.get("REDIS_URL"),
        "REDIS_CLUSTER": _bool(env.get("TABLEPOST_REDIS_CLUSTER")),
        "ADOPT_LEGACY": True,   # at start: move indexes written before the sharding into their shards, and
                                # ratings stored under a pool's deprecated name to its name
        "ALLOW_SEEDED_GAMES": _bool(env.get("TABLEPOST_ALLOW_SEEDED_GAMES")),
        "SNAPSHOT_EVERY": int(env.get("TABLEPOST_SNAPSHOT_EVERY", "100")),
        "RATE_LIMIT": int(env.get("TABLEPOST_RATE_LIMIT", "600")),
        "BOT_RATE_LIMIT": env.get("TABLEPOST_BOT_RATE_LIMIT", "300/minute"),
        "CREATE_LIMIT": env.get("TABLEPOST_CREATE_LIMIT", "60/hour"),
        "ENTRY_LIMIT": env.get("TABLEPOST_ENTRY_LIMIT", "30/hour"),
        "JOIN_LIMIT": env.get("TABLEPOST_JOIN_LIMIT", "30/hour"),
        "REMATCH_LIMIT": env.get("TABLEPOST_REMATCH_LIMIT", "20/day"),
        "SEAT_LINK_LIMIT": env.get("TABLEPOST_SEAT_LINK_LIMIT", "3/hour;10/day"),
        "SEAT_LINK_CLIENT_LIMIT": env.get("TABLEPOST_SEAT_LINK_CLIENT_LIMIT", "10/hour;30/day"),
        "JOIN_ADDRESS_LIMIT": env.get("TABLEPOST_JOIN_ADDRESS_LIMIT", "5/hour"),
        "NEW_ADDRESS_LIMIT": env.get("TABLEPOST_NEW_ADDRESS_LIMIT", "30/day"),
        "HINT_LIMIT": env.get("TABLEPOST_HINT_LIMIT", "30/hour"),
        "MESSAGE_LIMIT": env.get("TABLEPOST_MESSAGE_LIMIT", "6/minute"),
        "TALK_EMAIL_SECONDS": float(env.get("TABLEPOST_TALK_EMAIL_SECONDS", "10800")),
        "HINT_LEVEL": env.get("TABLEPOST_HINT_LEVEL", "medium"),
        "HINT_PROCS": int(env.get("TABLEPOST_HINT_PROCS", "1")),
        "HINT_WAIT": float(env.get("TABLEPOST_HINT_WAIT", "10")),
        "HINT_QUEUE": int(env.get("TABLEPOST_HINT_QUEUE", "2")),
        "TRUSTED_PROXIES": int(env.get("TABLEPOST_TRUSTED_PROXIES", "0")),
        "RATE_LIMIT_STORAGE": env.get("TABLEPOST_RATE_LIMIT_STORAGE"),
        "MAX_CONTENT_LENGTH": int(env.get("TABLEPOST_MAX_BODY", "65536")),
        "PUBLIC_URL": env.get("TABLEPOST_PUBLIC_URL"),
        "BOT_TOKEN": env.get("TABLEPOST_BOT_TOKEN"),
        "AI_TOKEN": env.get("TABLEPOST_AI_TOKEN"),
        "CELERY_BROKER_URL": env.get("CELERY_BROKER_URL"),
        "MAIL_SECRET": env.get("TABLEPOST_MAIL_SECRET"),
        "INBOUND_SECRET": env.get("TABLEPOST_INBOUND_SECRET"),
        "HEALTH_WORKERS": [w for w in (env.get("TABLEPOST_HEALTH_WORKERS") or "").split(",") if w.strip()],
        "STREAM_LISTENERS": int(env.get("TABLEPOST_STREAM_LISTENERS", "16")),
        "STREAM_PER_ADDRESS": int(env.get("TABLEPOST_STREAM_PER_ADDRESS", "4")),
        "STREAM_PER_SEAT": int(env.get("TABLEPOST_STREAM_PER_SEAT", "2")),
        "STREAM_SECONDS": float(env.get("TABLEPOST_STREAM_SECONDS", "300")),
        "STREAM_KEEPALIVE": float(env.get("TABLEPOST_STREAM_KEEPALIVE", "15")),
        "HEALTH_MAILIN": env.get("TABLEPOST_HEALTH_MAILIN") or None,
        "HEALTH_SCHEDULER": _bool(env.get("TABLEPOST_HEALTH_SCHEDULER")),
        "HEALTH_SCHEDULER_GRACE": float(env.get("TABLEPOST_HEALTH_SCHEDULER_GRACE")
                                        or 3 * float(env.get("TABLEPOST_SWEEP_SECONDS") or 30)),
        "HEALTH_SMTP_SECONDS": float(env.get("TABLEPOST_HEALTH_SMTP_SECONDS") or 300),
        "WEBHOOK_ALLOW_LOOPBACK": _bool(env.get("TABLEPOST_WEBHOOK_ALLOW_LOOPBACK")),
    }
