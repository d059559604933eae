"""What every part of the game service (application/game_service.py) shares: its state (the store,
this process's caches, the service's credentials, its clock), loading a game, the helpers of an
event's words and of a token, a seat acting and looking (application/live.py), and what follows an
append (a snapshot where due, the end's time, the reliability figures, ``on_append``)."""
from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Callable

import games

from . import errors, live, reliability, waiting
from .bots import BotAccounts
from .clock import make_clock
from .seats import ai_seats
from .state_cache import IdentityCache, State, StateCache
from .store import EventStore, key
from .indexes import GAMES_OVER

log = logging.getLogger("tablepost.game_service")   # the game service's one logger, as before its parts

# An event's text is stored with it in the third person with a marker for each seat it names
# ("{seat1} took the yellow 4 die: ..."), and the seats' names are put in when it is served: a
# name is never frozen into the log (a player who leaves the service is shown as they are now).
_SEAT_MARKER = re.compile(r"\{seat(\d{1,2})\}")

# the refusal of a stored game whose rules are not installed (an operator removed its distribution):
# nothing of it is lost, and it plays again once they are
NOT_HOSTED = "game-not-hosted"


def not_hosted(e: games.UnknownGame) -> errors.ServiceError:
    """The refusal of a request about a stored game whose rules are not installed (a 500 with its own
    code: the service's state, not the request, is at fault)."""
    return errors.failed(NOT_HOSTED, errors.said(
        "this service does not host {game} at the moment: its rules are not installed", game=str(e.name)))


def seat_markers(meta: dict) -> list[str]:
    return ["{seat%d}" % i for i in range(len(meta["seats"]))]


def machine_seats(meta: dict) -> frozenset[int]:
    """The seats not played by a person (the Cardinalbot, AI seats, bots): said as "its"."""
    return frozenset(i for i, s in enumerate(meta["seats"]) if s.get("kind", "human") != "human")


def with_names(text: str, names: list[str]) -> str:
    return _SEAT_MARKER.sub(lambda m: names[int(m.group(1))] if int(m.group(1)) < len(names) else "A player",
                            text)


def token_hash(token: str) -> str:
    """The SHA-256 of a token: any string hashes (a client's non-ASCII token too), so comparing
    hashes never fails where comparing the strings would."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def public_event(ev: dict) -> dict:
    """An event as clients see it. Events hold no secrets (chance is drawn at reveal time, the
    seed is never in an event); this keeps only the documented fields."""
    out = {k: ev[k] for k in ("type", "seat", "move", "players", "options", "rules", "chance", "by", "winner")
           if k in ev}
    return out


class GameCore:
    """The service's state and what every part of it uses: loading, a seat acting and looking, and
    what follows an append."""

    def __init__(self, store: EventStore, snapshot_every: int = 100, allow_seeded_games: bool = False,
                 on_append=None, bot_token: str | None = None, ai_token: str | None = None):
        self.store = store
        self.snapshot_every = snapshot_every
        self.allow_seeded_games = allow_seeded_games
        self.on_append = on_append  # callback(game_id, new_version, state, mover) after a successful append
        # callback(game_id, seat, version) that enqueues the stand-in's turn for the AI worker
        # (application/deadlines.py); None: the stand-in plays inline
        self.stand_in_hand_off: Callable[[str, int, int], object] | None = None
        self.bot_token_hash = token_hash(bot_token) if bot_token else None
        self.bots = BotAccounts(store.r)  # registered bot accounts (application/bots.py)
        self.ai_token_hash = token_hash(ai_token) if ai_token else None   # the AI player's credential
        self.cache = StateCache()
        self.identities = IdentityCache()
        self.clock = make_clock(store.r)   # when seats act and look (application/live.py)
        self._links_seen: set[tuple[str, int]] = set()   # seat links whose address this process verified

    # --- loading ---------------------------------------------------------------------------
    def load(self, game_id: str) -> tuple[dict, State]:
        loaded = self._load(game_id)
        return loaded["meta"], loaded["state"]

    def _load(self, game_id: str, idem_key: str | None = None) -> dict:
        """Everything a request needs in one round trip: meta, seed, a stored idempotent answer,
        and the current state -- from this process's cached state of the game plus the events
        after it, or from the latest snapshot plus the events after it."""
        cached = self.cache.get(game_id)
        loaded = self.store.load_for(game_id, cached.version if cached is not None else 0, idem_key)
        if loaded is None:
            waiting.refuse_not_started(self.store.r, game_id)   # a game waiting for players: 409
            raise errors.not_found()
        try:
            game = loaded["game"] = games.of_meta(loaded["meta"])
        except games.UnknownGame as e:   # its rules' distribution is not installed here (any more)
            raise not_hosted(e) from None
        if loaded["from_known"]:
            state = game.replay(loaded["tail"], cached) if loaded["tail"] else cached
        else:
            base = game.from_doc(loaded["snapshot"]) if loaded["snapshot"] else None
            state = game.replay(loaded["tail"], base)
            self.cache.snapshot_at(game_id, loaded["snapshot_version"])
        self.cache.put(game_id, state)
        self.cache.put_meta(game_id, loaded["meta_generation"], loaded["meta"], loaded["seed"])
        loaded["state"] = state
        return loaded

    def meta(self, game_id: str) -> dict:
        meta = self.store.meta(game_id)
        if meta is None:
            waiting.refuse_not_started(self.store.r, game_id)   # a game waiting for players: 409
            raise errors.not_found()
        return meta

    def ended_at(self, game_id: str) -> float | None:
        """When a finished game ended: the time its last event was saved (``g:{<id>}:ended``,
        written by the append that ended it; for a game that ended before that key existed, when
        the follow-up index saw it end, while it is there); None when unknown or not over."""
        raw = self.store.r.get(key(game_id, "ended"))
        if raw:
            return float(raw)
        score = self.store.r.zscore(GAMES_OVER.key(game_id), game_id)
        return float(score) if score is not None else None

    # --- a seat acts and looks (application/live.py) -----------------------------------------
    def looked(self, game_id: str, meta: dict, seat: int | None, version: int) -> None:
        """A human seat read the game with its token: it has seen ``version`` (application/live.py)."""
        if seat is not None and meta["seats"][seat]["kind"] == "human":
            live.seen(self.store.r, game_id, seat, version, self.clock())

    def _acted(self, game_id: str, meta: dict, seat: int, via: str) -> None:
        """A human seat acts (a move, played or refused) through ``via`` (application/live.py)."""
        if 0 <= seat < len(meta["seats"]) and meta["seats"][seat]["kind"] == "human":
            live.acted(self.store.r, game_id, seat, via, self.clock())

    # --- after an append ---------------------------------------------------------------------
    def _appended(self, game_id: str, meta: dict, state: State, mover: int | None,
                  hooks: bool | None = None, by: str | None = None) -> None:
        """Record when the game ended (the time of its last event: :meth:`ended_at`), count the
        move's reliability figures, and tell ``on_append``; with the game's AI seats (seat -> level)
        when it has any, and ``hooks`` when the append said whether the game has webhooks (None: not
        known)."""
        if games.of_state(state).is_over(state):
            self.store.r.set(key(game_id, "ended"), f"{self.clock():.3f}", nx=True)
        try:   # counters only: a failure here never undoes or delays the move, which is stored
            reliability.moved(self.store.r, game_id, meta, state, mover, by, self.clock())
        except Exception:
            log.warning("could not count the reliability of a move in %s", game_id, exc_info=True)
        if self.on_append:
            extra: dict[str, object] = {}
            ai = ai_seats(meta)
            if ai:
                extra["ai_seats"] = ai
            if hooks is not None:
                extra["hooks"] = hooks
            self.on_append(game_id, state.version, state, mover, **extra)

    def _after_append(self, game_id: str, meta: dict, state: State, snap_version: int, mover: int,
                      game: games.Game, hooks: bool | None = None, by: str | None = None) -> None:
        """After an append by ``mover`` (``by``: who played for the seat, or ``"resign"``): a
        snapshot where due, the players' reliability (application/reliability.py), then
        ``on_append``."""
        # Snapshots are taken only where the game allows (Tiletum: where no move can still be
        # undone, as a position document has no undo history).
        if state.version - snap_version >= self.snapshot_every and game.can_snapshot(state):
            self.store.save_snapshot(game_id, state.version, state.to_doc())
            self.cache.snapshot_at(game_id, state.version)
        self._appended(game_id, meta, state, mover, hooks, by)
