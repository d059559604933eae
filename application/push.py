"""Push: a game's events as they are appended, as Server-Sent Events (docs/push.md).

A listener names the last version it has (``after``; a reconnecting browser sends it as
``Last-Event-ID``) and gets, in order:

* ``retry: <ms>``: how long an EventSource waits before it reconnects;
* one SSE event per game event after ``after``, with ``id: <version>`` and as data the event as
  ``GET /events`` serves it (``public_event`` plus ``version`` and ``text``: never the seed, the
  pile order or a face-down token), so ``Last-Event-ID`` resumes exactly where it stopped;
* after each batch (and once at the start), an ``event: turn`` with the game's version, status
  and ``to_act``, the same as the game summary says (for a bot: "is it my turn?");
* a comment line (``: keep-alive``) when nothing happened for ``keepalive`` seconds, which keeps
  proxies from closing an idle connection and tells the server when the client is gone;
* ``event: end`` when the game is over, and then the stream ends.

A stream lasts at most ``lifetime`` seconds; the client reconnects with ``Last-Event-ID`` and
misses nothing. Waiting is one Redis ``XREAD BLOCK`` on the game's own stream key
(``g:{<id>}:events``), no key shared between games, no polling loop.
"""
from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator

from .store import key

RETRY_MS = 2000


def frame(data: dict, event: str | None = None, event_id: int | None = None) -> str:
    """One SSE message (the JSON has no newline, so one ``data:`` line)."""
    head = ""
    if event_id is not None:
        head += f"id: {event_id}\n"
    if event is not None:
        head += f"event: {event}\n"
    return head + "data: " + json.dumps(data, separators=(",", ":")) + "\n\n"


class EventFeed:
    """Waits for new events of a game. ``client`` is a Redis client whose socket timeout is longer
    than the longest wait (a blocked XREAD is a quiet socket)."""

    def __init__(self, games, client, cache_size: int = 256, page: int | None = None):
        self.games = games  # application.game_service.GameService
        self.r = client
        self.page = page    # events per read (None: GET /events' default page)
        # Every listener of a game wakes at the same move and asks for the same events: the
        # first one's answer serves the others (events never change once appended).
        self._cache: OrderedDict[tuple, tuple] = OrderedDict()
        self._size = cache_size
        self._lock = threading.Lock()
        self._inflight: dict[tuple, threading.Lock] = {}

    def _cached(self, k: tuple, compute):
        """``compute()`` once per key: the listeners that wake together wait for the first."""
        with self._lock:
            hit = self._cache.get(k)
            if hit is not None:
                self._cache.move_to_end(k)
                return hit
            busy = self._inflight.setdefault(k, threading.Lock())
        with busy:
            with self._lock:
                hit = self._cache.get(k)
            if hit is not None:
                return hit
            value = compute()
            with self._lock:
                self._cache[k] = value
                self._inflight.pop(k, None)
                while len(self._cache) > self._size:
                    self._cache.popitem(last=False)
            return value

    def batch(self, game_id: str, after: int) -> tuple[list[dict], dict, bool]:
        """A page of the public events after ``after`` (as ``GET /events``), the game's ``turn``
        after them, and whether more events follow the page. Cached while the game is at the same
        version."""
        version = self.games.store.version(game_id)

        def compute():
            page = self.games.events(game_id, after) if self.page is None else self.games.events(game_id, after,
                                                                                                 self.page)
            s = self.games.summary(game_id)
            return page["events"], {"version": s["version"], "status": s["status"], "to_act": s["to_act"]}, page["more"]
        return self._cached((game_id, after, version), compute)

    def wait(self, game_id: str, after: int, seconds: float) -> bool:
        """Block until the game has an event after version ``after`` or ``seconds`` pass."""
        ms = max(1, int(seconds * 1000))
        got = self.r.xread({key(game_id, "events"): f"{after}-0"}, count=1, block=ms)
        return bool(got)

    def frames(self, game_id: str, after: int, *, lifetime: float, keepalive: float,
               clock=time.monotonic) -> Iterator[str]:
        """The SSE text of one stream of ``game_id`` from version ``after`` (see the module doc).
        The caller has checked that the game exists."""
        end = clock() + lifetime
        yield f"retry: {RETRY_MS}\n\n"
        first = True
        while True:
            evs, turn, more = self.batch(game_id, after)
            for ev in evs:
                yield frame(ev, event_id=ev["version"])
                after = ev["version"]
            if more:  # a long log goes a page at a time; the turn follows its last event
                continue
            if evs or first:
                yield frame(turn, event="turn")
                if turn["status"] == "finished":
                    yield frame({"version": turn["version"]}, event="end")
                    return
            first = False
            left = end - clock()
            if left <= 0:
                return
            if not self.wait(game_id, after, min(keepalive, left)):
                yield ": keep-alive\n\n"
