"""The service's parts as the workers see them, built once per process from the environment:
the game store, the application service (whose saves dispatch like the API's), the outbox and
the notifier."""
from __future__ import annotations

import logging
import os
from functools import lru_cache

from application.stand_in import STAND_IN_QUEUE, STAND_IN_TASK
from application.game_service import GameService
from application.indexes import adopt_legacy
from application.pool_names import rename_pools
from application.redis_conn import connect
from application.scheduling import Dispatcher
from application.store import EventStore
from mail.mailconfig import MailConfig
from mail.notify import Notifier
from mail.outbox import Outbox
from mail.transports import transport_from_env

from .app import app

log = logging.getLogger("tablepost.workers")


def send_task(name: str, args: list, queue: str) -> None:
    app.send_task(name, args=args, queue=queue)


@lru_cache(maxsize=1)
def redis_client():
    """The service's Redis (a Redis Cluster with ``redis+cluster://`` or TABLEPOST_REDIS_CLUSTER=1)."""
    client = connect(os.environ["REDIS_URL"], cluster=os.environ.get("TABLEPOST_REDIS_CLUSTER", "").lower()
                     in ("1", "true", "yes", "on"), socket_timeout=10)
    try:
        adopt_legacy(client)  # indexes written before they were sharded (once; cheap afterwards)
        rename_pools(client)  # ratings stored under a pool's deprecated name (once; cheap afterwards)
    except Exception as e:  # Redis away: the tasks retry; the next process start moves them
        log.warning("could not look for unsharded indexes or renamed pools yet: %s", e)
    return client


@lru_cache(maxsize=1)
def service() -> GameService:
    dispatcher = Dispatcher(redis_client(), send_task)
    svc = GameService(EventStore(redis_client()), on_append=dispatcher.after_append,
                      bot_token=os.environ.get("TABLEPOST_BOT_TOKEN"))
    # the stand-in's turns are the AI worker's (queue stand-in): no sweep or email waits for the AI
    svc.stand_in_hand_off = lambda game_id, seat, version: send_task(
        STAND_IN_TASK, [game_id, seat, version], STAND_IN_QUEUE)
    return svc


@lru_cache(maxsize=1)
def outbox() -> Outbox:
    """Each email is sent by a background thread of this process over its kept-open SMTP
    connection, while the task goes on to the next one; queued first, so a process that dies
    before sending loses nothing (the sweep sends it)."""
    return Outbox(redis_client(), transport_from_env(), background=True)


@lru_cache(maxsize=1)
def notifier() -> Notifier:
    return Notifier(service(), outbox(), MailConfig.from_env())
