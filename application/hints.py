"""Hints off the API process (docs/ai.md, "Hints"; issue 39).

A hint is a search (``ai.decide`` at the hint level), seconds of CPU at the higher levels. The API
process never runs it: :meth:`Hints.ask` reserves a place for it and sends ``workers.hint`` (by
its ids: game, version, seat, level) to the ``hints`` queue, whose worker process computes it at
a lower CPU priority than the requests (workers/tasks.py) and stores the moves under
``g:{<id>}:hint:<version>:<seat>:<level>`` for an hour (:meth:`Hints.compute`, idempotent). The
API reads them back (:meth:`Hints.answer`), waiting a little, else it answers 202.

The backlog is bounded for the whole service, not per process: the searches asked for and not yet
done are the members of one sorted set (``hints:inflight``, scored by when they were asked), and a
Lua script adds one only while it holds fewer than ``capacity`` (the hint worker's processes and
the searches that may wait for one). Beyond that a request is refused at once (:class:`Busy`:
the API's 429 ``hints-busy``) before it costs anything. Asking again for a hint being computed
finds its member and starts nothing (and is not charged); only a request that starts a search is
charged to the seat's budget (``admit``), after its place is reserved and before it is sent, so a
refusal of either kind costs nothing. A member whose task was lost (a hint worker that died,
a broker that was down) leaves the set after :data:`STALE_SECONDS`.

The search sees only the seat's view (the game's ``view``), as before.
"""
from __future__ import annotations

import json
import time
from collections.abc import Callable

import ai
import games

from .queues import HINTS
from .store import key

INFLIGHT = "hints:inflight"   # the searches asked for and not done: member game:version:seat:level
STALE_SECONDS = 180           # a member older than this was lost (above the task's hard time limit)
RESULT_SECONDS = 3600         # how long a computed hint is kept
POLL_SECONDS = 0.05           # how often a waiting request looks for the answer
TASK = "workers.hint"

# 0: no room (busy); 1: asked for already (pending); 2: reserved now (the caller sends the task)
_RESERVE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 1 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return 2
"""


class Busy(Exception):
    """The hint worker computes and queues as many searches as it takes: ask again later."""


def result_key(game_id: str, version: int, seat: int, level: str) -> str:
    return key(game_id, f"hint:{version}:{seat}:{level}")


def member(game_id: str, version: int, seat: int, level: str) -> str:
    return f"{game_id}:{version}:{seat}:{level}"


class Hints:
    def __init__(self, service, send: Callable[[str, list, str], bool] | None = None,
                 level: str = "medium", capacity: int = 3):
        self.service = service
        self.r = service.store.r
        self.send = send
        self.level = level
        self.capacity = max(1, capacity)
        self._reserve = self.r.register_script(_RESERVE)

    def ask(self, game_id: str, token: str | None, admit: Callable[[], None] | None = None) -> dict:
        """The hint of the seat's current decision: ``{seat, version, level, moves}`` with ``moves``
        None while it is being computed. Raises :class:`Busy` (no room: nothing charged, nothing
        sent), what ``admit`` raises (the seat's budget: nothing sent), and the service's errors
        (not the seat's decision, a rated game)."""
        version, view = self.service.hint_view(game_id, token)
        seat, level = view["viewer"], self.level
        doc = {"seat": seat, "version": version, "level": level,
               "moves": self._stored(game_id, version, seat)}
        if doc["moves"] is not None:
            return doc
        who = member(game_id, version, seat, level)
        now = time.time()
        outcome = int(self._reserve(keys=[INFLIGHT], args=[who, now, now - STALE_SECONDS, self.capacity]))
        if outcome == 0:
            raise Busy()
        if outcome == 2:
            try:
                if admit is not None:
                    admit()
                if self.send is None or not self.send(TASK, [game_id, version, seat, level], HINTS):
                    raise Busy()   # no broker: nothing will compute it
            except BaseException:
                self.r.zrem(INFLIGHT, who)
                raise
        return doc

    def _stored(self, game_id: str, version: int, seat: int) -> list[str] | None:
        raw = self.r.get(result_key(game_id, version, seat, self.level))
        return None if raw is None else json.loads(raw)

    def answer(self, game_id: str, version: int, seat: int, seconds: float) -> list[str] | None:
        """The hint's moves once the worker has stored them, waiting at most ``seconds``."""
        deadline = time.monotonic() + seconds
        while True:
            moves = self._stored(game_id, version, seat)
            if moves is not None or time.monotonic() >= deadline:
                return moves
            time.sleep(POLL_SECONDS)

    def compute(self, game_id: str, version: int, seat: int, level: str) -> list[str] | None:
        """Compute and store the hint (the ``hints`` worker's task; idempotent: a stored hint is
        not computed again, and a position already left behind is not computed at all)."""
        done = result_key(game_id, version, seat, level)
        try:
            raw = self.r.get(done)
            if raw is not None:
                return json.loads(raw)
            meta, state = self.service.load(game_id)
            game = games.of_meta(meta)
            if state.version != version or game.is_over(state) or game.actor(state) != seat:
                return None
            moves = ai.decide(game.view(state, seat), level, f"{game_id}:{version}")
            self.r.set(done, json.dumps(moves), ex=RESULT_SECONDS)
            return moves
        finally:
            self.r.zrem(INFLIGHT, member(game_id, version, seat, level))


__all__ = ["Busy", "Hints", "INFLIGHT", "TASK"]
