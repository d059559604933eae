"""Waking the Cardinalbot: after events are saved that make a bot seat the actor, the game goes
into the due-turns index (Redis sorted set ``bot:due``, scored by when it became due) and one
Celery message ``cardinalbot.play_turn(game_id, seat, version)`` is sent. If the broker is down
the move still stands: the periodic sweep (``workers.tasks.sweep_bot_turns``) re-sends what has
been due for a while. Nothing is scheduled in the broker ahead of time."""
from __future__ import annotations

import logging
import time

log = logging.getLogger("tiletum.scheduling")
DUE = "bot:due"          # zset: game id -> time it became due
DUE_AT = "bot:due:at"    # hash: game id -> "<seat>:<version>"


class BotScheduler:
    def __init__(self, redis_client, sender=None):
        self.r = redis_client
        self.sender = sender  # callable(game_id, seat, version) that enqueues the task

    def after_append(self, game_id: str, version: int, state) -> None:
        so = state.solo
        if so is not None and state.phase == "action" and state.actor == so["bot"]:
            pipe = self.r.pipeline()
            pipe.zadd(DUE, {game_id: time.time()})
            pipe.hset(DUE_AT, game_id, f"{so['bot']}:{version}")
            pipe.execute()
            self.send(game_id, so["bot"], version)
        elif so is not None:
            pipe = self.r.pipeline()
            pipe.zrem(DUE, game_id)
            pipe.hdel(DUE_AT, game_id)
            pipe.execute()

    def send(self, game_id: str, seat: int, version: int) -> bool:
        if self.sender is None:
            return False
        try:
            self.sender(game_id, seat, version)
            return True
        except Exception as e:  # the broker is down: the sweep will send it later
            log.warning("could not enqueue the bot turn of %s at %s: %s", game_id, version, e)
            return False

    def due(self, older_than: float = 0.0) -> list[dict]:
        ids = self.r.zrangebyscore(DUE, "-inf", time.time() - older_than)
        if not ids:
            return []
        at = self.r.hmget(DUE_AT, ids)
        out = []
        for gid, val in zip(ids, at):
            if val:
                seat, version = val.decode().split(":")
                out.append({"game_id": gid.decode(), "seat": int(seat), "version": int(version)})
        return out

    def sweep(self, older_than: float = 30.0) -> int:
        """Re-send the turns due for longer than ``older_than`` seconds; returns how many."""
        n = 0
        for t in self.due(older_than):
            if self.send(t["game_id"], t["seat"], t["version"]):
                self.r.zadd(DUE, {t["game_id"]: time.time()}, xx=True)
                n += 1
        return n


def celery_sender(broker_url: str):
    """A sender that publishes ``cardinalbot.play_turn`` by name (the API never imports the bot)."""
    from celery import Celery
    producer = Celery("tiletum-api", broker=broker_url)
    producer.conf.broker_connection_retry_on_startup = False
    producer.conf.broker_transport_options = {"max_retries": 1}

    def send(game_id: str, seat: int, version: int) -> None:
        producer.send_task("cardinalbot.play_turn", args=[game_id, seat, version], queue="cardinalbot")
    return send
