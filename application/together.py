"""Playing together (issue 41): resigning, the rematch, and the position at any version of the
game (the replay). docs/architecture.md, "Resigning, the rematch and the replay".

**Resigning.** A seat resigns with an event of the game's stream, ``{"type": "SeatResigned",
"seat": s}`` (folded by ``games.fold_resignations``, the same for every game), appended at the
game's current version like a move: fully or not at all. When every other seat has resigned the
event names the ``winner`` too and ends the game (``Game.end_by_resignation``). Otherwise the seat
leaves the game: its remaining turns are played as the game's ``resign_mode`` says (every hosted
game: ``"stand-in"``, the seat is dropped and the stand-in plays it to the end, like a seat dropped
for missed deadlines). A resigned seat is placed last (:func:`final_places`; the earlier a seat
resigned, the lower its place) and rated as having lost to every seat still in the game.
Only a person's seat resigns, with its own token (or link token): the AI player's and the
Cardinalbot's credentials cannot make their seats resign, and a bot account's seat does not resign
(nothing would play its turns).

**The rematch.** After the end, a seat asks for a rematch: a proposal of a new game with the same
seats, game and options, the seat order rotated by one. The seats of the AI player and the
Cardinalbot accept at once; each person's seat accepts by asking too (the page's button, the
results email's link, ``POST /rematch``). When every seat has accepted, the new game starts, with
the id the proposal reserved (so two last acceptances at once start one game), each person's seat
keeping its seat token. A proposal not accepted by all within :data:`REMATCH_DAYS` days expires:
checked on read, nothing is scheduled; a later request makes a new one. Asking again returns the
same proposal.

**A rematch chain's limit.** A game's rematches in a row (its *lineage*: the game, its rematch,
that one's rematch...) start at most ``limit`` games in ``seconds`` (``rematch_limit``, the API's
``TABLEPOST_REMATCH_LIMIT``, docs/deploy.md "Rate limits"): each rematch's meta carries the start times
of the lineage's rematches within the window (``rematch_starts``), so whoever holds the seats' tokens
cannot loop resign-and-rematch to flood a player with games and emails, from however many client
addresses. A game has one rematch at a time, so a lineage grows one game after another: the count in
a game's own meta is the lineage's. Beyond it an ask is refused (``limited``, 429 with the seconds
until the oldest start leaves the window) and changes nothing; asking again for a rematch that
started is answered as ever.

**The replay.** :meth:`Together.state_at` is the position at any version, by the same rule as
the game's current view (``Game.view``: each seat sees what it could see then, a spectator what
was public).
"""
from __future__ import annotations

import json
import time

import redis

import games

from . import errors, live
from .deadlines import Deadlines
from .resigned import resigned_of
from .game_service import GameExists, GameService, machine_seats, seat_markers
from .store import Conflict, GameArchived, key
from .ids import new_game_id
from .seats import AUTOMA_KINDS

REMATCH_DAYS = 3
REMATCH_KEEP = 10 * 86400   # how long Redis keeps a proposal (expired or started) for reading
AUTO_ACCEPT = frozenset({"ai"}) | AUTOMA_KINDS   # seats that accept a rematch at once
# seats that may resign (with their own token): a person's. A bot account's seat has no stand-in
# behind it (nothing would play its turns), and AI seats and the Cardinalbot play on.
RESIGNABLE = ("human",)


def _iso(ts: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))


class Together:
    def __init__(self, service: GameService, clock=time.time, rematch_limit: tuple[int, int] | None = None):
        """``rematch_limit``: (games, seconds), the rematches one lineage may start in that many
        seconds (None: no limit)."""
        self.service = service
        self.r = service.store.r
        self.clock = clock
        self.rematch_limit = rematch_limit

    def resigned(self, game_id: str) -> list[int]:
        return resigned_of(self.service.store.events(game_id))

    # --- resigning ---------------------------------------------------------------------------
    def resign(self, game_id: str, token: str | None = None, seat: int | None = None) -> dict:
        """The seat of ``token`` (or ``seat``, authenticated by the caller: a signed reply address)
        resigns. 401/403 for a bad token or a seat that does not resign; 409 ``game-over``,
        ``already-resigned``."""
        svc = self.service
        for _ in range(10):
            meta, state = svc.load(game_id)
            game = games.of_meta(meta)
            if seat is None:
                seat = svc._require_seat(meta, token, game_id, games.actor(state))
            if not 0 <= seat < len(meta["seats"]) or meta["seats"][seat]["kind"] not in RESIGNABLE:
                raise errors.forbidden("not-resignable",
                                       "only a person's own seat resigns: the AI player, a game's own automa "
                                       "and bot accounts play on")
            if game.is_over(state):
                raise errors.refused("game-over", "the game is over")
            gone = self.resigned(game_id)
            if seat in gone:
                # asked again: make sure the stand-in has the seat (a crash right after the append
                # left it to the seat), then say so
                self._leave(game_id, seat)
                raise errors.refused("already-resigned", "this seat has resigned already")
            left = [i for i in range(len(meta["seats"])) if i != seat and i not in gone]
            ev: dict = {"type": games.RESIGNED, "seat": seat}
            if len(left) == 1:
                ev["winner"] = left[0]
            text = game.event_text(state, ev, seat_markers(meta), machine_seats(meta))
            try:
                svc.store.append(game_id, state.version, [ev], texts=[text])
            except Conflict:
                continue   # someone moved meanwhile: decide again at the new version
            except GameArchived:
                raise errors.refused("game-over", "the game is over") from None
            after = game.replay([ev], state)
            svc.cache.put(game_id, after)
            svc._after_append(game_id, meta, after, svc.cache.snapshot_hint(game_id), seat, game, by="resign")
            if "winner" not in ev:   # the seat leaves the game: the stand-in plays it from now on
                self._leave(game_id, seat)
            return {"game": game_id, "seat": seat, "version": after.version,
                    "status": "finished" if game.is_over(after) else "active",
                    "winner": ev.get("winner")}
        raise errors.failed("busy", "the game kept moving; try again")   # pragma: no cover

    def _leave(self, game_id: str, seat: int) -> None:
        """The game's ``resign_mode`` for a seat that resigned while others play on (every hosted
        game: the stand-in plays it to the end). Idempotent."""
        meta, state = self.service.load(game_id)
        game = games.of_meta(meta)
        if game.is_over(state) or game.resign_mode != "stand-in":
            return
        deadlines = Deadlines(self.service, None)
        if not deadlines.is_dropped(game_id, seat):
            deadlines.drop(game_id, seat)
        deadlines.stand_in_later(game_id, seat)

    # --- the replay --------------------------------------------------------------------------
    def state_at(self, game_id: str, token: str | None, version: int,
                 lang: str | None = None) -> tuple[int, dict]:
        """The position after ``version`` events as the token's seat (None: a spectator) saw it
        then: the game's own view of that position (its words in ``lang`` where the game speaks it)."""
        svc = self.service
        meta, state = svc.load(game_id)
        seat = svc.seat_of(meta, token, game_id, games.actor(state))
        meta, then = self.position_at(game_id, version)
        game = games.of_meta(meta)
        return version, game.view(then, seat, **games.in_language(game, lang))

    def position_at(self, game_id: str, version: int) -> tuple[dict, object]:
        """The game's meta and its state after ``version`` events; 422 ``bad-version`` outside
        1 to the current version."""
        current = self.service.store.version(game_id)
        if current == 0:
            self.service.meta(game_id)   # 404 (or 409 for a game waiting for players)
        if not 1 <= version <= current:
            raise errors.invalid("bad-version", errors.said("the game's versions are 1 to {current}",
                                                                   current=current))
        return self.service.state_at(game_id, version)

    # --- the rematch -------------------------------------------------------------------------
    def _key(self, game_id: str) -> str:
        return key(game_id, "rematch")

    def _read(self, game_id: str) -> dict | None:
        raw = self.r.get(self._key(game_id))
        return json.loads(raw) if raw else None

    def rematch(self, game_id: str, token: str | None = None, seat: int | None = None) -> dict:
        """The seat of ``token`` (or ``seat``, authenticated by the caller: a signed email link)
        asks for a rematch, or accepts the one proposed; the proposal (see the module's doc)."""
        svc = self.service
        meta, state = svc.load(game_id)
        game = games.of_meta(meta)
        asked_on_page = seat is None   # with the seat's token: the game's page or the API
        if seat is None:
            seat = svc._require_seat(meta, token, game_id, games.actor(state))
        if not 0 <= seat < len(meta["seats"]):
            raise errors.forbidden("not-your-seat", "no such seat")
        if not game.is_over(state):
            raise errors.refused("game-not-over", "a rematch is offered once the game is over")
        if asked_on_page:
            svc._acted(game_id, meta, seat, live.WEB)
        if any(s["kind"] == "bot" or s.get("former") for s in meta["seats"]):
            raise errors.refused("rematch-unsupported",
                                 "a game with a bot account or a former player has no rematch")
        self._within_lineage_limit(game_id, meta)
        doc = self._accept(game_id, meta, seat)
        if doc["new_game"] is None and all(doc["accepted"]):
            doc = self._start(game_id, meta, doc)
        return self._public(game_id, meta, doc)

    def _recent_starts(self, meta: dict, now: float) -> list[float]:
        """The start times of the lineage's rematches up to this game, within the limit's window."""
        if self.rematch_limit is None:
            return []
        seconds = self.rematch_limit[1]
        return [t for t in meta.get("rematch_starts") or () if t > now - seconds]

    def _within_lineage_limit(self, game_id: str, meta: dict) -> None:
        """429 (``limited``, ``rate-limited``) when the lineage started its ``rematch_limit`` of
        games in the window and this game's rematch has not started yet (that one is answered)."""
        if self.rematch_limit is None:
            return
        now = self.clock()
        starts = self._recent_starts(meta, now)
        if len(starts) < self.rematch_limit[0]:
            return
        doc = self._read(game_id)
        if doc is not None and doc["new_game"] is not None:
            return   # started already: asking again reads it
        n, seconds = self.rematch_limit
        # the start whose leaving the window leaves room for one more
        oldest = sorted(starts)[-n] if 0 < n <= len(starts) else now
        retry = max(1, int(oldest + seconds - now) + 1)
        raise errors.limited("rate-limited",
                             errors.said("at most {n} rematches in a row in {hours} hours: play another "
                                         "game, or ask later",
                                         n=self.rematch_limit[0], hours=self.rematch_limit[1] // 3600 or 1),
                             retry_after=retry)

    def _accept(self, game_id: str, meta: dict, seat: int) -> dict:
        """The proposal with ``seat`` accepted (a new one if there is none, or it lapsed), written
        only if nobody changed it meanwhile (WATCH)."""
        k = self._key(game_id)
        while True:
            with self.r.pipeline(transaction=True) as pipe:
                try:
                    pipe.watch(k)
                    raw = pipe.get(k)
                    doc = json.loads(raw) if raw else None
                    now = self.clock()
                    if doc is None or (doc["new_game"] is None and doc["expires"] <= now):
                        doc = self._proposal(game_id, meta, now)
                    if doc["new_game"] is None:
                        doc["accepted"][seat] = True
                    pipe.multi()
                    pipe.set(k, json.dumps(doc), ex=REMATCH_KEEP)
                    pipe.execute()
                    return doc
                except redis.WatchError:
                    continue

    def asks_anew(self, game_id: str, seat: int) -> bool:
        """Whether ``seat`` asking for the rematch would change anything: a new proposal, or the
        seat's acceptance. False when the live proposal has it already, or started (asking again
        only reads it): what the API charges to the client's create budget (api/limits.py)."""
        doc = self._read(game_id)
        if doc is None or (doc["new_game"] is None and doc["expires"] <= self.clock()):
            return True
        if doc["new_game"] is not None:
            return False
        return not (0 <= seat < len(doc["accepted"]) and doc["accepted"][seat])

    def proposal(self, game_id: str) -> dict | None:
        """The game's rematch proposal as :meth:`rematch` answers it (None: none, or expired)."""
        meta = self.service.meta(game_id)
        doc = self._read(game_id)
        if doc is None or (doc["new_game"] is None and doc["expires"] <= self.clock()):
            return None
        return self._public(game_id, meta, doc)

    def _proposal(self, game_id: str, meta: dict, now: float) -> dict:
        n = len(meta["seats"])
        return {"id": new_game_id(),
                "order": [(i + 1) % n for i in range(n)],    # the old seats in the new game's order
                "accepted": [s["kind"] in AUTO_ACCEPT for s in meta["seats"]],
                "created": now, "expires": now + REMATCH_DAYS * 86400, "new_game": None}

    def _start(self, game_id: str, meta: dict, doc: dict) -> dict:
        seats = []
        for i in doc["order"]:
            s = meta["seats"][i]
            seats.append({k: v for k, v in s.items()
                          if k in ("name", "email", "kind", "tz", "level", "token_hash") and v is not None})
        options = {k: v for k, v in (meta.get("options") or {}).items() if k != "seed"}
        now = self.clock()
        extra: dict[str, object] = {"rematch_of": game_id}
        if self.rematch_limit is not None:   # the lineage's starts in the window, this one's too
            extra["rematch_starts"] = self._recent_starts(meta, now) + [now]
        try:
            self.service.create_game(seats, options, game_id=doc["id"], tokens=[None] * len(seats),
                                     game=games.of_meta(meta).name, extra_meta=extra,
                                     live_seats=lambda new: self._on_the_page(game_id, meta, new))
        except GameExists:
            pass   # another acceptance started it a moment ago: the same game
        doc = dict(doc, new_game=doc["id"])
        self.r.set(self._key(game_id), json.dumps(doc), ex=REMATCH_KEEP)
        return doc

    def _on_the_page(self, game_id: str, meta: dict, new_meta: dict) -> list[int]:
        """The rematch's seats whose players are playing live in the old game now (its page open, or
        they just asked or accepted there): no turn email at once for them (application/live.py)."""
        now, out = self.service.clock(), []
        for j, s in enumerate(new_meta["seats"]):
            i = next((i for i, old in enumerate(meta["seats"]) if _same_seat(old, s)), None)
            if i is not None and s["kind"] == "human" and live.is_live(live.read(self.r, game_id, i), now):
                out.append(j)
        return out

    def _public(self, game_id: str, meta: dict, doc: dict) -> dict:
        new_seats: list[int | None] = [None] * len(meta["seats"])
        new_meta = self.service.store.meta(doc["new_game"]) if doc["new_game"] else None
        if new_meta is not None:   # where each seat sits in the new game (its own seating may differ)
            free = list(range(len(new_meta["seats"])))
            for i, s in enumerate(meta["seats"]):
                j = next((j for j in free if _same_seat(s, new_meta["seats"][j])), None)
                if j is not None:
                    free.remove(j)
                    new_seats[i] = j
        return {"game": game_id, "new_game": doc["new_game"],
                "status": "started" if doc["new_game"] else "proposed",
                "expires": _iso(doc["expires"]),
                "seats": [{"seat": i, "name": meta["seats"][i]["name"], "accepted": doc["accepted"][i],
                           "new_seat": new_seats[i]} for i in range(len(meta["seats"]))]}


def _same_seat(old: dict, new: dict) -> bool:
    return all(old.get(k) == new.get(k) for k in ("name", "kind", "token_hash", "level"))
