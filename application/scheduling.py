"""What happens after a save: at most one broker message, and only when someone new must act.

* the game's own automa (``games.Game.automa``) is now to act (and the mover was not the automa
  itself): the game goes into the due-bot-turns index (``bot:due``) and
  ``seats.play_automa_turn(game_id, seat, version)`` is sent (the seats worker, ``seats/``, plays it
  through the API with the bot credential and the policy the game declares);
* an AI seat (docs/ai.md) is now to act (and the mover was not that seat): the same index, and
  ``seats.play_ai_turn(game_id, seat, version, level)`` is sent (the seats worker plays it through
  the API with the AI credential);
* a human seat is now to act and the mover was someone else (or the game just started): the turn
  goes into the due-notifications index (``mail:due``) and ``workers.notify_turn(game_id, version)``
  is sent, which emails that seat (docs/pbem.md);
* someone has webhooks on the game (its ``g:{<id>}:hooks`` set is not empty):
  ``workers.deliver_webhooks(game_id, version)`` is sent too (application/webhooks.py);
* the game is over: the game goes into ``games:over`` and ``workers.game_over(game_id, version)``
  is sent, which rates the game, moves its tournament on and sends the results (application/finished.py).

The message is sent after the events are saved. If the broker is down the move still stands:
the beat sweeps (``workers.tasks``) find due entries that were not done and send them again.
Nothing is scheduled in the broker ahead of time.
"""
from __future__ import annotations

import logging
import time

import games

from .indexes import ACTIVE, DUE, DUE_AT, GAMES_OVER, MAIL_DUE, add, hmget  # noqa: F401 (MAIL_DUE re-exported)
from .queues import EMAIL, SEATS
from .store import key

WEBHOOKS_TASK = "workers.deliver_webhooks"
# a game's own automa's turn (seats/worker.py; was cardinalbot.play_turn)
AUTOMA_TASK = "seats.play_automa_turn"
AI_TASK = "seats.play_ai_turn"           # an AI seat's turn (seats/worker.py; was cardinalbot.play_ai_turn)

log = logging.getLogger("tablepost.scheduling")


class Dispatcher:
    def __init__(self, redis_client, send_task=None):
        self.r = redis_client
        self.send_task = send_task  # callable(name, args, queue) that enqueues a task by name

    def after_append(self, game_id: str, version: int, state, mover: int | None, ai_seats=None,
                     hooks: bool | None = None) -> None:
        """``hooks``: whether the game has webhooks, as the append script read it (None: look)."""
        if hooks is None:
            hooks = bool(self.r.exists(key(game_id, "hooks")))
        if hooks:  # someone has webhooks on this game (application/webhooks.py)
            self.send(WEBHOOKS_TASK, [game_id, version], EMAIL)
        game = games.of_state(state)
        bot = game.automa_seat(state)  # the seat the game's own automa plays
        over = game.is_over(state)
        actor = None if over else game.actor(state)
        ai_seats = ai_seats or {}
        if (bot is not None or ai_seats) and actor != bot and actor not in ai_seats:
            self._clear_bot(game_id)
        if over:  # its entries leave every index in the follow-up (finished.on_game_over)
            pipe = self.r.pipeline(transaction=True)  # one slot: the game's shard
            pipe.zadd(GAMES_OVER.key(game_id), {game_id: time.time()}, nx=True)
            pipe.zrem(ACTIVE.key(game_id), game_id)  # off the home page's list of games to watch at once
            pipe.execute()
            self.send("workers.game_over", [game_id, version], EMAIL)
            return
        if actor is None:
            return
        if actor in ai_seats:
            if mover != actor:
                level = ai_seats[actor]
                pipe = self.r.pipeline(transaction=True)  # one slot: the game's shard
                pipe.zadd(DUE.key(game_id), {game_id: time.time()})
                pipe.hset(DUE_AT.key(game_id), game_id, f"{actor}:{version}:{level}")
                pipe.execute()
                self.send(AI_TASK, [game_id, actor, version, level], SEATS)
            return
        if actor == bot:
            if mover != bot:
                pipe = self.r.pipeline(transaction=True)  # one slot: the game's shard
                pipe.zadd(DUE.key(game_id), {game_id: time.time()})
                pipe.hset(DUE_AT.key(game_id), game_id, f"{bot}:{version}")
                pipe.execute()
                self.send(AUTOMA_TASK, [game_id, bot, version], SEATS)
            return
        if actor != mover and game.email:  # a game the email channel plays
            pipe = self.r.pipeline(transaction=True)  # one slot: the game's shard and registry
            add(pipe, MAIL_DUE, game_id, f"{game_id}:{actor}:{version}", time.time())
            pipe.execute()
            self.send("workers.notify_turn", [game_id, version], EMAIL)

    def _clear_bot(self, game_id: str) -> None:
        pipe = self.r.pipeline(transaction=True)
        pipe.zrem(DUE.key(game_id), game_id)
        pipe.hdel(DUE_AT.key(game_id), game_id)
        pipe.execute()

    def send(self, name: str, args: list, queue: str) -> bool:
        if self.send_task is None:
            return False
        try:
            self.send_task(name, args, queue)
            return True
        except Exception as e:  # the broker is down: a sweep will send it later
            log.warning("could not enqueue %s%s: %s", name, tuple(args), e)
            return False

    # --- due bot turns -----------------------------------------------------------------------
    def due(self, older_than: float = 0.0) -> list[dict]:
        ids = DUE.due(self.r, time.time() - older_than)
        if not ids:
            return []
        at = hmget(self.r, DUE_AT, [i.decode() for i in ids])
        out = []
        for gid, val in zip(ids, at):
            if val:
                seat, version, *level = val.decode().split(":")
                out.append({"game_id": gid.decode(), "seat": int(seat), "version": int(version),
                            **({"level": level[0]} if level else {})})
        return out

    def sweep(self, older_than: float = 30.0) -> int:
        """Re-send the bot turns due for longer than ``older_than`` seconds; returns how many."""
        n = 0
        for t in self.due(older_than):
            if "level" in t:  # an AI seat's turn
                sent = self.send(AI_TASK,
                                 [t["game_id"], t["seat"], t["version"], t["level"]], SEATS)
            else:
                sent = self.send(AUTOMA_TASK, [t["game_id"], t["seat"], t["version"]],
                                 SEATS)
            if sent:
                self.r.zadd(DUE.key(t["game_id"]), {t["game_id"]: time.time()}, xx=True)
                n += 1
        return n


BotScheduler = Dispatcher  # the name the bot-turn code and tests know

