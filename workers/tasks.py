"""Celery tasks of the service (service side: they may read the game store)."""
from __future__ import annotations

import os

import redis

from .app import app


def _redis() -> redis.Redis:
    return redis.Redis.from_url(os.environ["REDIS_URL"])


@app.task(name="workers.sweep_bot_turns")
def sweep_bot_turns(older_than: float | None = None) -> int:
    """Re-send Cardinalbot turns that have been due for a while (a lost message, a broker that
    was down when the move landed). Sending twice is harmless: the bot's task is idempotent."""
    from api.scheduling import BotScheduler, celery_sender
    broker = os.environ.get("CELERY_BROKER_URL") or os.environ["REDIS_URL"]
    wait = float(older_than if older_than is not None else os.environ.get("TILETUM_BOT_DUE_SECONDS", "30"))
    return BotScheduler(_redis(), celery_sender(broker)).sweep(older_than=wait)
