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
* ``event: talk`` (data ``{}``) when a seat of the game posts a message to its table talk
  (application/messages.py): nothing of it, not even who, so a seat's page reads it with its token
  (``GET /messages``); a spectator learns only that the seats talked;
* ``event: end`` when the game is over, and then the stream ends.

A stream lasts at most ``lifetime`` seconds; the client reconnects with ``Last-Event-ID`` and
misses nothing. It also ends, within ``STOP_CHECK`` seconds, once its ``stopping`` event is set:
the server process is stopping gracefully and waits for its open requests (api/gunicorn_conf.py).
Waiting is a Redis ``XREAD BLOCK`` on the game's own stream key (``g:{<id>}:events``), no key
shared between games, of at most ``STOP_CHECK`` seconds at a time.

Each stream holds a thread of its process, so a process serves a bounded number of them
(:class:`StreamSlots`): at most ``total``, and at most so many per client address and per seat,
so that no one client can take every slot.
"""
from __future__ import annotations

import json
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Iterator

from .store import key

RETRY_MS = 2000
STOP_CHECK = 1.0  # seconds: how soon a stream ends once its server begins to stop


READS = 3   # reads of a batch's events and turn until they agree (a move may land between them)


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

    def batch(self, game_id: str, after: int, lang: str | None = None) -> tuple[list[dict], dict, bool]:
        """A page of the public events after ``after`` (as ``GET /events``, their texts in ``lang``
        where the game speaks it), the game's ``turn`` after them, and whether more events follow
        the page. Cached while the game is at the same version."""
        version = self.games.store.version(game_id)

        def compute():
            # a move that lands between the two reads would put the turn ahead of the events
            # told before it: the events are read again (a few times at most) until they reach it
            for _ in range(READS):
                said = {"lang": lang} if lang else {}   # (English: read as it always was)
                page = (self.games.events(game_id, after, **said) if self.page is None
                        else self.games.events(game_id, after, self.page, **said))
                s = self.games.summary(game_id)
                told = page["events"][-1]["version"] if page["events"] else after
                if page["more"] or s["version"] <= told:
                    break
            return page["events"], {"version": s["version"], "status": s["status"],
                                    "to_act": s["to_act"]}, page["more"]
        return self._cached((game_id, after, version, lang), compute)

    def wait(self, game_id: str, after: int, seconds: float) -> bool:
        """Block until the game has an event after version ``after`` or ``seconds`` pass."""
        return self.wait_any(game_id, after, seconds)[0]

    def wait_any(self, game_id: str, after: int, seconds: float,
                 talk: str | None = None) -> tuple[bool, str | None]:
        """Block until the game has an event after version ``after``, or (``talk``: the id of the
        last message of its table talk the stream told) a new message, or ``seconds`` pass: (whether
        events came, the new last message id or None). Both keys share the game's hash tag."""
        ms = max(1, int(seconds * 1000))
        streams = {key(game_id, "events"): f"{after}-0"}
        if talk is not None:
            streams[key(game_id, "talk")] = talk
        got = self.r.xread(streams, count=1, block=ms) or []
        events, said = False, None
        for name, entries in got:
            if (name.decode() if isinstance(name, bytes) else name).endswith(":talk"):
                said = entries[-1][0].decode() if isinstance(entries[-1][0], bytes) else entries[-1][0]
            elif entries:
                events = True
        return events, said

    def talk_last(self, game_id: str) -> str:
        """The id of the table talk's last message ("0-0": none): where a stream starts telling."""
        last = self.r.xrevrange(key(game_id, "talk"), "+", "-", count=1)
        return (last[0][0].decode() if isinstance(last[0][0], bytes) else last[0][0]) if last else "0-0"

    def frames(self, game_id: str, after: int, *, lifetime: float, keepalive: float,
               clock=time.monotonic, stopping: threading.Event | None = None, seen=None,
               lang: str | None = None) -> Iterator[str]:
        """The SSE text of one stream of ``game_id`` from version ``after`` (see the module doc).
        The caller has checked that the game exists. ``stopping``: once set, the stream ends.
        ``seen(version)``: called with the game's version each time the stream has told it (and at
        each keep-alive): a seat's open stream is a seat looking at the game (application/live.py).
        ``lang``: the events' texts in that language where the game speaks it (the request's)."""
        stopping = stopping if stopping is not None else threading.Event()
        end = clock() + lifetime
        yield f"retry: {RETRY_MS}\n\n"
        talk = self.talk_last(game_id)
        first = True
        while True:
            evs, turn, more = self.batch(game_id, after, lang)
            for ev in evs:
                yield frame(ev, event_id=ev["version"])
                after = ev["version"]
            if more:  # a long log goes a page at a time; the turn follows its last event
                continue
            if evs or first:
                yield frame(turn, event="turn")
                if seen is not None:
                    seen(turn["version"])
                if turn["status"] == "finished":
                    yield frame({"version": turn["version"]}, event="end")
                    return
            first = False
            quiet_until = clock() + min(keepalive, max(end - clock(), 0))
            got = said = False
            while not got and not said and not stopping.is_set() and (left := quiet_until - clock()) > 0:
                got, new_talk = self.wait_any(game_id, after, min(left, STOP_CHECK), talk)
                if new_talk is not None:
                    talk, said = new_talk, True
            if said:   # a seat said something: no words, no author (the stream is public)
                yield frame({}, event="talk")
                if not got:
                    continue
            if stopping.is_set() or (not got and end - clock() <= 0):
                return
            if not got:
                yield ": keep-alive\n\n"
                if seen is not None:
                    seen(turn["version"])


class SlotRefused(Exception):
    """No stream slot: ``reason`` is ``process`` (every slot of the process is taken), ``address``
    or ``seat`` (that client already holds its share)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class Slot:
    """One taken stream slot. :meth:`release` may be called any number of times, from any thread
    (the end of the stream, the server closing the response, the response being dropped): the
    slot is given back exactly once."""

    def __init__(self, owner: StreamSlots, keys: tuple[str, ...]):
        self._owner, self._keys = owner, keys
        self._released = False

    def release(self) -> None:
        with self._owner._lock:
            if self._released:
                return
            self._released = True
            self._owner._free(self._keys)


class StreamSlots:
    """The event streams one process may serve at once: ``total`` in all, and for each kind of
    client key in ``per_key`` (e.g. ``{"address": 4, "seat": 2}``) at most that many with the same
    key (0: no cap of that kind)."""

    def __init__(self, total: int, per_key: dict[str, int]):
        self.total = max(0, total)
        self.per_key = dict(per_key)
        self._lock = threading.Lock()
        self._used = 0
        self._held: Counter = Counter()  # (kind, key) -> slots held

    def take(self, **keys: str | None) -> Slot:
        """A slot for a client with these keys (``kind=key``; None: the client has no key of that
        kind), or :class:`SlotRefused`. A client's own caps are checked first: a client at its
        share is told so even when the process is full too."""
        held = tuple(f"{kind}:{key}" for kind, key in keys.items()
                     if key is not None and self.per_key.get(kind))
        with self._lock:
            for kind, key in keys.items():
                cap = self.per_key.get(kind)
                if key is not None and cap and self._held[f"{kind}:{key}"] >= cap:
                    raise SlotRefused(kind)
            if self._used >= self.total:
                raise SlotRefused("process")
            self._used += 1
            self._held.update(held)
            return Slot(self, held)

    def _free(self, keys: tuple[str, ...]) -> None:  # under the lock
        self._used -= 1
        self._held.subtract(keys)
        for k in keys:
            if self._held[k] <= 0:
                del self._held[k]

    def in_use(self) -> int:
        with self._lock:
            return self._used
