"""The application service: the only place that loads games, calls the engine and appends.

Routes parse and call these methods; workers and the email gateway call them too. A move is
decided against the state at the client's expected version and its events are appended only
at that version, so it is fully applied or not at all.
"""
from __future__ import annotations

import hashlib
import json
import logging
import re
import secrets
import threading
import time
from collections import OrderedDict
from typing import Any

import games

from . import errors, links, live, reliability, waiting
from .bots import BotAccounts, looks_like_bot_token
from .clock import make_clock
from .dashboard import index_game, iso, mark_verified
from .deadlines import Deadlines
from .time_control import check_deadline_options, valid_tz
from .indexes import ACTIVE, GAMES_OVER, NAMES
from .names import check_name
from .notifications import delay_minutes, set_delay_minutes, set_preference
from .players import player_id
from .rated import is_rated
from .resigned import decision_began
from .seats import AI_LEVELS, ai_seats, seat_names
from .store import Conflict, EventStore, GameArchived, StaleMeta, key
from .ids import new_game_id

# What one seat may append (issue 27): a request plays at most MAX_MOVES_PER_REQUEST moves (a whole
# Tiletum turn is far fewer), and takes back at most MAX_UNDOS_PER_REQUEST of them, and at most
# MAX_UNDOS_PER_TURN in one turn of the seat (the trailing run of its own events since another
# seat's event, the game's start or its last 'end'). Without these a seat could grow its game's log
# without end by (move, undo) pairs, and every reader of the log would pay for it.
log = logging.getLogger("tablepost.game_service")
MAX_MOVES_PER_REQUEST = 100
MAX_UNDOS_PER_REQUEST = 10
MAX_UNDOS_PER_TURN = 30
# GET /events answers in pages: EVENTS_PAGE events unless the client asks for another `limit`, at most
# MAX_EVENTS_PAGE.
EVENTS_PAGE = 500
MAX_EVENTS_PAGE = 1000
SERVICE_OPTIONS = ("time_control", "timeout", "rated", "private")   # options of the service, for any game

# An event's text is stored with it in the third person with a marker for each seat it names
# ("{seat1} took the yellow 4 die: ..."), and the seats' names are put in when it is served: a
# name is never frozen into the log (a player who leaves the service is shown as they are now).
_SEAT_MARKER = re.compile(r"\{seat(\d{1,2})\}")


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


State = Any   # a state of any hosted game: its engine's own GameState (games.Game's type parameter)

PUBLIC_SLACK = 30  # games over or gone that one listing of games in progress may step over (and drop)


def to_act(state: State) -> list[int]:
    """Who is to act, in the one shape the API uses for it everywhere (docs/api-changes.md): the
    seats whose decision it is, ``[]`` when the game is over."""
    actor = games.of_state(state).actor(state)
    return [] if actor is None else [actor]


def fairness_algorithm(meta: dict, state) -> str:
    """How this game's chance outcomes come from its seed, per the rules version it started under."""
    return games.of_meta(meta).fairness_algorithm(meta, state)


def seat_meta(s: dict, token: str | None) -> dict:
    """A seat as the game's meta keeps it: no token, only its hash."""
    return {"name": s["name"], "email": s.get("email"), "kind": s.get("kind", "human"),
            # a seat of a game that waited for players keeps the hash of the token it was given then
            "token_hash": token_hash(token) if token else s.get("token_hash"),
            **({"tz": s["tz"]} if s.get("tz") else {}),
            **({"bot": s["bot"]} if s.get("kind") == "bot" else {}),
            **({"level": s.get("level") or "medium"} if s.get("kind") == "ai" else {})}


class GameService:
    def __init__(self, store: EventStore, snapshot_every: int = 100, allow_seeded_games: bool = False,
                 on_append=None, bot_token: str | None = None, ai_token: str | None = None):
        self.store = store
        self.snapshot_every = snapshot_every
        self.allow_seeded_games = allow_seeded_games
        self.on_append = on_append  # callback(game_id, new_version, state, mover) after a successful append
        # callback(game_id, seat, version) that enqueues the stand-in's turn for the AI worker
        # (application/deadlines.py); None: the stand-in plays inline
        self.stand_in_hand_off = None
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
        game = loaded["game"] = games.of_meta(loaded["meta"])
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

    def seat_of(self, meta: dict, token: str | None, game_id: str, actor: int | None = None) -> int | None:
        """The seat a Bearer token belongs to; None for no token; 401 for a wrong one. Besides a
        seat's own token, the seat link token of ``game_id`` (application/links.py) is accepted for a
        human seat. The AI credential acts for the game's AI seats: the seat to act (``actor``)
        if it is one, else the first of them."""
        if token is None:
            return None
        if looks_like_bot_token(token):  # a bot account acts for its own seat of any game
            bot_id = self.bots.authenticate(token)
            if bot_id is None:
                raise errors.unauthorized("this bot token is not valid")
            for i, s in enumerate(meta["seats"]):
                if s["kind"] == "bot" and s.get("bot") == bot_id:
                    return i
            raise errors.forbidden("not-in-this-game", "this bot account holds no seat of this game")
        h = token_hash(token)
        if self.ai_token_hash is not None and secrets.compare_digest(h, self.ai_token_hash):
            seats = sorted(ai_seats(meta))
            if not seats:
                raise errors.forbidden("not-an-ai-seat", "the AI credential acts only for AI seats")
            return actor if actor in seats else seats[0]
        if self.bot_token_hash is not None and secrets.compare_digest(h, self.bot_token_hash):
            for i, s in enumerate(meta["seats"]):
                if s["kind"] == "cardinalbot":
                    return i
            raise errors.forbidden("not-a-bot-seat", "the bot credential acts only for Cardinalbot seats")
        seat = self._seat_by_token(meta, token, h, game_id)
        if seat is None:
            raise errors.unauthorized("this token belongs to no seat of this game")
        return seat

    def _seat_by_token(self, meta: dict, token: str, h: str, game_id: str) -> int | None:
        """The seat whose token (hash ``h``) or link token (human seats) ``token`` is; None."""
        for i, s in enumerate(meta["seats"]):
            if s.get("token_hash") is not None and secrets.compare_digest(s["token_hash"], h):
                return i
        if links.looks_like_seat_token(token):
            seat = links.seat_of_link(self.store.r, game_id, token)
            if seat is not None and seat < len(meta["seats"]) and meta["seats"][seat]["kind"] == "human":
                self._link_used(game_id, meta, seat)
                return seat
        return None

    def _link_used(self, game_id: str, meta: dict, seat: int) -> None:
        """The seat's link from our emails (or its dashboard) was used: its address reads our email
        (application/dashboard.py, "Verified addresses"). Not in a tournament game, whose links its
        tournament page also shows to whoever entered the address. Once per seat and process."""
        email = meta["seats"][seat].get("email")
        if not email or meta.get("tournament") or (game_id, seat) in self._links_seen:
            return
        mark_verified(self.store.r, email)
        if len(self._links_seen) > 4096:
            self._links_seen.clear()
        self._links_seen.add((game_id, seat))

    def identity(self, token: str, game_id: str | None) -> str | None:
        """Who a Bearer token proves to be, for rate limits: ``seat:<game>:<n>`` (a seat's token
        or link token in ``game_id``), ``bot:<game>`` (the bot credential in a game; ``bot``
        elsewhere), ``player:<id>`` (a dashboard key); None when it proves nothing (unknown,
        invalid, or a kind not checked here), so that junk never earns a budget of its own.
        Never raises. A seat proven once is remembered by this process (``IdentityCache``), so a
        player's requests do not each pay a read of the game's meta for the rate limit; a token
        revoked since still fails its authentication, it only keeps counting against the seat."""
        try:
            if looks_like_bot_token(token):  # a bot account: one budget over all its games
                bot_id = self.bots.authenticate(token)
                return f"botaccount:{bot_id}" if bot_id else None
            h = token_hash(token)
            if self.bot_token_hash is not None and secrets.compare_digest(h, self.bot_token_hash):
                return f"bot:{game_id}" if game_id else "bot"
            if self.ai_token_hash is not None and secrets.compare_digest(h, self.ai_token_hash):
                return f"ai:{game_id}" if game_id else "ai"
            if links.looks_like_dashboard_key(token):
                pid = links.player_of_key(self.store.r, token)
                return f"player:{pid}" if pid else None
            if not game_id:
                return None
            known = self.identities.get((h, game_id))
            if known is not None:
                return known
            meta = self.store.meta(game_id)
            seat = self._seat_by_token(meta, token, h, game_id) if meta is not None else None
            if seat is None:
                return None
            self.identities.put((h, game_id), f"seat:{game_id}:{seat}")
            return f"seat:{game_id}:{seat}"
        except Exception:  # a rate-limit key is never worth an error
            return None

    # --- creating ----------------------------------------------------------------------------
    def _remember_names(self, meta: dict) -> None:
        """A seated address that has no name yet gets its seat's name (docs/lobby.md: a join with a
        dashboard key and no name takes the name last used). Only a first name: the others' names are
        given by whoever creates a game, so they do not overwrite one the player chose (joining,
        entering) or played under (a rated game's end)."""
        r = self.store.r
        pipe = r.pipeline(transaction=False)   # fields of other slots: each write on its own
        for s in meta["seats"]:
            if s.get("kind", "human") == "human" and s.get("email") and s.get("name"):
                pid = player_id(r, s["email"])
                pipe.hsetnx(NAMES.key(pid), pid, s["name"])
        pipe.execute()

    def create_game(self, seats: list[dict], options: dict, *, game_id: str | None = None,
                    tokens: list[str | None] | None = None, extra_meta: dict | None = None,
                    seed: str | None = None, game: str, dry_run: bool = False,
                    live_creator: bool = False, live_seats=None) -> dict:
        """Create a game. Callers inside the service (tournaments) may fix the ``game_id`` (an
        existing id raises :class:`GameExists`), the seats' ``tokens``, ``extra_meta`` and the
        ``seed`` (a tournament created with a seed on a server that allowed it). ``game`` is the
        name of the game (``games.NAMES``). ``dry_run``: check everything, store nothing (the lobby
        checks a game with open seats so, with stand-ins for the players to come). ``live_creator``:
        the game is created through the API (``POST /games``); when it has exactly one human seat
        (a game against the AI or the Cardinalbot), that seat's player is the one at the keyboard and
        counts as playing live (application/live.py): its first turn email waits like any other.
        ``live_seats(meta)``: the seats of the new game (its meta) whose players count as playing
        live now (a rematch: those on the old game's page)."""
        try:
            rules = games.get(game)
        except games.UnknownGame as e:
            raise errors.invalid("unknown-game", str(e)) from None
        options = dict(options or {})
        asked = options.pop("seed", None)
        if asked is not None and not self.allow_seeded_games:
            raise errors.invalid("seeded-games-disabled",
                                    "options.seed is honoured only on a server run with --allow-seeded-games")
        seed = str(asked) if asked is not None else seed if seed is not None else secrets.token_hex(32)
        check_deadline_options(options)
        lobby_only = sorted(k for k in ("waiting_days", "rating_range") if k in options)
        if lobby_only:
            raise errors.invalid("bad-options",
                                 f"{', '.join(lobby_only)}: options of a game with open seats only "
                                                "(a seat of kind 'open'; docs/lobby.md)")
        if not rules.min_players <= len(seats) <= rules.max_players:
            raise errors.invalid("bad-seats", f"a game of {rules.title} has {rules.min_players} to "
                                              f"{rules.max_players} seats")
        for s in seats:
            if game_id is None:   # names set now (a tournament's or a lobby's were checked when set)
                check_name(s.get("name"))   # shown to the other players: never a link
            if s.get("kind", "human") not in rules.seat_kinds:
                raise errors.invalid("bad-seats", f"a game of {rules.title} has seats of kind "
                                                  f"{', '.join(rules.seat_kinds)} only")
            if s.get("kind") == "ai" and s.get("level", "medium") not in AI_LEVELS:
                raise errors.invalid("bad-seats", f"an AI seat's level is one of {', '.join(AI_LEVELS)}")
            if s.get("tz") is not None and not valid_tz(s["tz"]):
                raise errors.invalid("bad-time-zone",
                                     f"{s['tz']!r} is not an IANA time zone name (e.g. Europe/Berlin)")
        seats = self.bots.seats(seats)  # a bot account's seat: registered, and named
        # the game's own seating (Tiletum's Cardinalbot is seat 0) and options (Tiletum's action_tiles, solo)
        service_options = {k: v for k, v in options.items() if k in SERVICE_OPTIONS}
        try:
            seats, game_options, engine_options = rules.setup(seats, {k: v for k, v in options.items()
                                                                       if k not in SERVICE_OPTIONS})
            state, events = rules.new_game(len(seats), seed, engine_options)
        except games.BadSetup as e:
            raise errors.invalid(e.code, e.message) from None
        except ValueError as e:  # e.g. an unknown Challenge card or level
            raise errors.invalid("bad-options", str(e)) from None
        if dry_run:
            return {}
        options = {**service_options, **game_options}
        if tokens is None:
            tokens = [None if s.get("kind") in ("cardinalbot", "bot", "ai") else secrets.token_urlsafe(24)
                      for s in seats]
        meta = {
            "game": rules.name, "players": len(seats), "options": options,
            "seats": [seat_meta(s, t) for s, t in zip(seats, tokens)],
            "seed_commitment": rules.seed_commitment(seed), "created": int(time.time()),
            "rules": rules.rules_version, **(extra_meta or {}),
        }
        self.bots.claim(seats)  # a bot seated by invitation: the invitation is used now, once
        first_text = rules.event_text(None, events[0])
        if game_id is not None:
            created = self.store.create(game_id, meta, seed, events[0], first_text)
            index_game(self.store.r, game_id, meta)  # idempotent: a retried tournament step re-indexes the
                                                     # same game
            if not created:
                raise GameExists(game_id)
        else:
            game_id = self._create_with_new_id(meta, seed, events[0], first_text)
            index_game(self.store.r, game_id, meta)
        self._remember_names(meta)
        self.bots.seated(game_id, meta)
        self.bots.note_game(game_id, seats)
        humans = [i for i, s in enumerate(meta["seats"]) if s["kind"] == "human"]
        if live_creator and len(humans) == 1:
            self._acted(game_id, meta, humans[0], live.WEB)
        for seat in live_seats(meta) if live_seats is not None else ():
            self._acted(game_id, meta, seat, live.WEB)
        self._appended(game_id, meta, state, None)
        return _created(game_id, state, meta, seats, tokens)

    def _create_with_new_id(self, meta: dict, seed: str, first_event: dict, first_text: str) -> str:
        for _ in range(5):
            game_id = new_game_id()
            if self.store.create(game_id, meta, seed, first_event, first_text):
                return game_id
        raise errors.failed("id-collision", "could not allocate a game id")  # pragma: no cover

    # --- reading -----------------------------------------------------------------------------
    def summary(self, game_id: str) -> dict:
        """The game's summary; for a game waiting for players (or cancelled before it started),
        who has a seat so far (``status`` waiting or cancelled) and nothing else."""
        try:
            meta, state = self.load(game_id)
        except errors.ServiceError as e:
            doc = waiting.load(self.store.r, game_id) if e.kind == "conflict" else None
            if doc is None:
                raise
            return waiting.summary(game_id, doc)
        return summary_of(game_id, meta, state)

    def public_games(self, limit: int = 20) -> list[dict]:
        """The newest games in progress, for anyone to watch: what a spectator of each game's page
        sees anyway (the game, its seats' names, its round), never a token, an email or a seed.
        A game that is over or gone leaves the index here (a game that ends leaves it at once,
        ``Dispatcher.after_append``; one indexed again by ``tablepost index-dashboards`` leaves it
        here). Reads at most ``limit`` + ``PUBLIC_SLACK`` games a request."""
        r = self.store.r
        pipe = r.pipeline(transaction=False)
        for k in ACTIVE.keys():
            pipe.zrevrange(k, 0, limit + PUBLIC_SLACK - 1, withscores=True)
        newest = sorted((pair for part in pipe.execute() for pair in part), key=lambda p: -p[1])
        out = []
        for member, created in newest[:limit + PUBLIC_SLACK]:
            game_id = member.decode()
            try:
                meta, state = self.load(game_id)
            except (errors.ServiceError, GameArchived):
                meta = state = None
            game = games.of_meta(meta) if meta is not None else None
            if game is None or game.is_over(state):
                r.zrem(ACTIVE.key(game_id), game_id)
                continue
            out.append({"id": game_id, "game": game.name, "round": game.round(state),
                        "players": [s["name"] for s in meta["seats"]],
                        "tournament": (meta.get("tournament") or {}).get("id"),
                        "started": iso(meta.get("created") or created)})
            if len(out) == limit:
                break
        return out

    def state(self, game_id: str, token: str | None, look: bool = True) -> tuple[int, dict]:
        """The seat's (or a spectator's) view now. ``look``: the read is the seat looking at the game
        (application/live.py); a page in a background tab reads without looking."""
        meta, state = self.load(game_id)
        game = games.of_meta(meta)
        seat = self.seat_of(meta, token, game_id, game.actor(state))
        if look:
            self.looked(game_id, meta, seat, state.version)
        return state.version, game.view(state, seat)

    def looked(self, game_id: str, meta: dict, seat: int | None, version: int) -> None:
        """A human seat read the game with its token: it has seen ``version`` (application/live.py)."""
        if seat is not None and meta["seats"][seat]["kind"] == "human":
            live.seen(self.store.r, game_id, seat, version, self.clock())

    def _acted(self, game_id: str, meta: dict, seat: int, via: str) -> None:
        """A human seat acts (a move, played or refused) through ``via`` (application/live.py)."""
        if 0 <= seat < len(meta["seats"]) and meta["seats"][seat]["kind"] == "human":
            live.acted(self.store.r, game_id, seat, via, self.clock())

    def legal_moves(self, game_id: str, token: str | None) -> dict:
        meta, state = self.load(game_id)
        game = games.of_meta(meta)
        actor = game.actor(state)
        seat = self._require_seat(meta, token, game_id, actor)
        self.looked(game_id, meta, seat, state.version)
        moves = game.legal_moves(state) if seat == actor else []
        return {"seat": seat, "version": state.version, "to_act": to_act(state), "actor": actor,
                "moves": [{"move": m, "description": d} for m, d in moves],
                "can_undo": seat == actor and game.can_undo(state)}

    def hint_view(self, game_id: str, token: str | None) -> tuple[int, dict]:
        """The position a hint is computed from: the seat's own view (the game's ``view``), only for a
        seat whose decision it is, and never in a rated game (application/rated.py: the predicate
        the ratings use; a tournament's games included)."""
        meta, state = self.load(game_id)
        game = games.of_meta(meta)
        seat = self._require_seat(meta, token, game_id, game.actor(state))
        if is_rated(meta):
            raise errors.forbidden("hints-off",
                                   "hints are off in rated games (create a game with options.rated "
                                                "false to have them)")
        if game.is_over(state) or seat != game.actor(state):
            raise errors.forbidden("not-your-turn",
                                   "a hint is for your own decision, and it is not yours now")
        return state.version, game.view(state, seat)

    def events(self, game_id: str, after: int = 0, limit: int = EVENTS_PAGE) -> dict:
        """At most ``limit`` events after version ``after``, each with its ``text`` in words, and
        where the next page starts: ``next_after`` (the version of the last event served, or
        ``after``), ``more`` (whether events after it exist already). Each event's text is stored
        with it (see :meth:`_decide_and_append`), so a page costs what it holds; only events saved
        before texts were stored, and archived games, have their texts made here, from the latest
        snapshot at or before ``after`` when there is one."""
        meta = self.meta(game_id)
        game = games.of_meta(meta)
        limit = max(1, min(limit, MAX_EVENTS_PAGE))
        page, version = self.store.page(game_id, after, limit)
        evs = [e for e, _ in page]
        texts = [t for _, t in page]
        if any(t is None for t in texts):
            texts = self._texts_by_folding(game_id, game, meta, after, evs)
        names = seat_names(meta)
        texts = [with_names(t, names) for t in texts]
        last = after + len(evs)
        return {"after": after, "events": [{"version": after + i + 1, **public_event(e), "text": text}
                                           for i, (e, text) in enumerate(zip(evs, texts))],
                "next_after": last, "more": last < version}

    def events_after(self, game_id: str, after: int) -> list[dict]:
        """Every event after version ``after`` as ``GET /events`` serves them, page by page (for
        the service's own readers: the emails that list what happened since a turn)."""
        out: list[dict] = []
        while True:
            page = self.events(game_id, after, MAX_EVENTS_PAGE)
            out += page["events"]
            if not page["more"] or not page["events"]:
                return out
            after = page["next_after"]

    def _texts_by_folding(self, game_id: str, game: games.Game, meta: dict, after: int,
                          evs: list[dict]) -> list[str]:
        """The texts of ``evs`` (the events after ``after``) from the position before them: the
        latest snapshot if it is at or before ``after``, else the game's start, plus the events
        between."""
        snap = self.store.snapshot(game_id) if after else None
        if snap is not None and snap[0] <= after:
            base, prefix = (game.from_doc(snap[1]),
                            self.store.events(game_id, after=snap[0], upto=after) if after > snap[0] else [])
        else:
            base, prefix = None, self.store.events(game_id, upto=after) if after else []
        return game.event_texts(prefix + evs, start=len(prefix), state=base, names=seat_markers(meta),
                                machines=machine_seats(meta))

    def state_at(self, game_id: str, version: int) -> tuple[dict, object]:
        """The game's meta and its state after ``version`` events (at most the current version):
        this process's state of the game when it is at that version, else the latest snapshot at
        or before it plus the events between, else a fold from the start."""
        meta, state = self.load(game_id)
        if state.version <= version:
            return meta, state
        game = games.of_meta(meta)
        snap = self.store.snapshot(game_id)
        if snap is not None and snap[0] <= version:
            return meta, game.replay(self.store.events(game_id, after=snap[0], upto=version),
                                     game.from_doc(snap[1]))
        return meta, game.replay(self.store.events(game_id, upto=version))

    def record(self, game_id: str) -> str:
        meta, state = self.load(game_id)
        game = games.of_meta(meta)
        events = self.store.events(game_id)
        headers = {"Id": game_id, "SeedCommitment": meta["seed_commitment"]}
        for i, s in enumerate(meta["seats"]):
            headers[f"Seat{i}"] = s["name"]
        # a resignation (application/together.py) is said in a header, "<seat> at <version>", one
        # for each in order; the moves are the engine's record
        resigned = [f"{ev['seat']} at {v}" for v, ev in enumerate(events, 1) if ev["type"] == games.RESIGNED]
        if resigned:
            headers["Resigned"] = ", ".join(resigned)
            events = [ev for ev in events if ev["type"] != games.RESIGNED]
        if game.is_over(state):
            headers["Seed"] = self.store.seed(game_id)
            headers["Result"] = " ".join(str(p) for p in game.scores(state))
        return game.write_record(events, headers)

    def fairness(self, game_id: str) -> dict:
        meta, state = self.load(game_id)
        game = games.of_meta(meta)
        out = {"seed_commitment": meta["seed_commitment"], "algorithm": fairness_algorithm(meta, state),
               "finished": game.is_over(state), "seed": None, "verify": None}
        if out["finished"]:
            out["seed"] = self.store.seed(game_id)
            out["verify"] = (f"curl -s <server>/api/v1/games/{game_id}/record > game.txt && "
                             f"{game.cli} verify game.txt --seed {out['seed']}")
        return out

    # --- moving ------------------------------------------------------------------------------
    def _require_seat(self, meta: dict, token: str | None, game_id: str, actor: int | None = None) -> int:
        seat = self.seat_of(meta, token, game_id, actor)
        if seat is None:
            raise errors.unauthorized()
        return seat

    def submit(self, game_id: str, token: str | None, expected_version: int, moves: list[str],
               idem_key: str | None = None) -> dict:
        """Moves by the seat whose token this is (the API). See :meth:`_submit` for what is
        played: the moves in order, up to and including the first one that reveals chance."""
        def authenticate(meta, state):
            seat = self._require_seat(meta, token, game_id, games.of_meta(meta).actor(state))
            self._acted(game_id, meta, seat, live.WEB)   # before the save: its turn email sees it
            return seat
        try:
            return self._submit(game_id, authenticate, expected_version, moves, idem_key)
        except _Replay as r:
            return r.answer

    def submit_for_seat(self, game_id: str, seat: int, expected_version: int, moves: list[str],
                        idem_key: str | None = None, by: str | None = None,
                        stop_at_reveal: bool = True, then=None) -> dict:
        """Moves by ``seat``, authenticated by the caller (a signed reply address, the stand-in).
        ``by`` labels the events (e.g. "stand-in") in the log and the record. Only the service's
        own players, which choose no move by probing, may pass ``stop_at_reveal=False`` (the
        stand-in plays a whole turn it computed with the rules). ``then()`` runs once the moves are
        saved and before ``on_append`` tells anyone (a reply's message: the next turn email carries it)."""
        def check(meta, state):
            if not 0 <= seat < len(meta["seats"]) or meta["seats"][seat]["kind"] != "human":
                raise errors.forbidden("not-a-human-seat", f"seat {seat} is not a human seat of this game")
            if by is None:   # a reply or a one-click link of an email (not the stand-in): it reads our email
                self._acted(game_id, meta, seat, live.EMAIL)
                mark_verified(self.store.r, meta["seats"][seat].get("email"))
            return seat
        try:
            try:
                return self._submit(game_id, check, expected_version, moves, idem_key, by, stop_at_reveal,
                                    then)
            except errors.ServiceError as e:
                # an email's reply address or link names the version its decision began at: another
                # seat's resignation since (a version of its own) leaves that decision as it was
                now = e.extra.get("current_version") if e.kind == "conflict" and by is None else None
                began = decision_began(self.store, game_id, seat, now) if now is not None else 0
                if now is None or not now > expected_version >= began:
                    raise
                return self._submit(game_id, check, now, moves, idem_key, by, stop_at_reveal, then)
        except _Replay as r:
            return r.answer

    def _submit(self, game_id: str, authenticate, expected_version: int, moves: list[str],
                idem_key: str | None, by: str | None = None, stop_at_reveal: bool = True, then=None) -> dict:
        """Play ``moves`` in order from ``expected_version`` and append them in one step.

        A move that reveals chance (a die rolled, a tile or token drawn) ends the batch: the moves
        up to and including it are applied, and the rest are answered as ``unplayed`` without
        being looked at. Otherwise a batch would be an oracle: reveal, then a move whose legality
        depends on the outcome, then a move that fails; the failure's ``move_index`` would tell
        the outcome while nothing is stored, and the seat could probe until it liked the draw.
        An error before the reveal reveals nothing, as nothing has been drawn yet (a move is
        checked in full before it draws)."""
        fast = self.cache.fast_path(game_id, expected_version)
        if fast is not None:  # one round trip: the append checks the version and the meta's generation
            generation, meta, seed, state = fast
            try:
                return self._decide_and_append(game_id, authenticate, expected_version, moves, idem_key, by,
                                               stop_at_reveal, meta, state, seed,
                                               self.cache.snapshot_hint(game_id), None, generation, then)
            except StaleMeta:  # the meta changed (e.g. a token was revoked): decide again from the store
                self.cache.forget_meta(game_id)
        loaded = self._load(game_id, idem_key)
        snap_version = (loaded["snapshot_version"] if not loaded["from_known"]
                        else self.cache.snapshot_hint(game_id))
        return self._decide_and_append(game_id, authenticate, expected_version, moves, idem_key, by,
                                       stop_at_reveal, loaded["meta"], loaded["state"], loaded["seed"],
                                       snap_version, loaded["idem"], None, then)

    def _decide_and_append(self, game_id, authenticate, expected_version, moves, idem_key, by, stop_at_reveal,
                           meta, state, seed, snap_version, idem_prev, generation, then=None) -> dict:
        """The body of :meth:`_submit` once the game is at hand. ``generation``: the cached meta's
        generation, which the append checks (None: the meta was just read)."""
        game = games.of_meta(meta)
        seat = authenticate(meta, state)
        body_hash = hashlib.sha256(json.dumps([expected_version, moves]).encode()).hexdigest()
        if idem_prev is not None:
            return self._replayed(idem_prev, seat, body_hash)
        if not moves:
            raise errors.invalid("no-moves", "send at least one move")
        if len(moves) > MAX_MOVES_PER_REQUEST:
            raise errors.invalid("too-many-moves", f"at most {MAX_MOVES_PER_REQUEST} moves per request")
        if state.version != expected_version:
            self._raise_conflict(game_id, idem_key, seat, body_hash, state.version, expected_version)
        events: list[dict] = []
        texts: list[str] = []
        played = 0
        batch_undos, turn_undos = 0, None   # turn_undos: read from the log at the batch's first undo
        for i, text in enumerate(moves):
            if game.is_over(state):
                raise errors.invalid("game-over", "the game is over", move_index=i)
            if seat != game.actor(state):
                raise errors.forbidden("not-your-turn",
                                       f"move {i}: it is seat {game.actor(state)}'s decision",
                                       move_index=i)
            before = state
            try:
                evs, state = game.play(state, seat, text, seed)
            except errors.ENGINE_ERRORS as e:
                if i == 0 and isinstance(e, games.ERRORS["NotationError"]):
                    # the first move's refusal says what the seat can type instead: its legal moves'
                    # kinds, which it sees anyway (after a move of the batch that drew or rolled,
                    # that would tell what the batch revealed: not said)
                    e = type(e)(game.refusal(state, seat, str(text), e.message), code=e.code, rule=e.rule)
                raise errors.from_engine(e, i) from None
            for k, ev in enumerate(evs):
                if by is not None:
                    ev["by"] = by
                if ev["type"] == "MoveUndone":
                    batch_undos += 1
                    turn_undos = (self._undos_this_turn(game_id, seat, expected_version)
                                  if turn_undos is None else turn_undos) + 1
                    if batch_undos > MAX_UNDOS_PER_REQUEST or turn_undos > MAX_UNDOS_PER_TURN:
                        raise errors.invalid("too-many-undos",
                                             f"move {i}: at most {MAX_UNDOS_PER_REQUEST} undos "
                                             f"per request and {MAX_UNDOS_PER_TURN} per turn", move_index=i)
                elif _ends_turn(ev):
                    turn_undos = 0
                # the event in words, in the position it was played in: stored with it for GET /events
                texts.append(game.event_text(before, ev, seat_markers(meta), machine_seats(meta)))
                if k + 1 < len(evs):
                    before = game.evolve(before, ev)
            events.extend(evs)
            played = i + 1
            if stop_at_reveal and any(ev.get("chance") for ev in evs):
                break  # the outcome is committed with this append; the rest waits for the seat
        answer = {"version": state.version,
                  "events": [{"version": expected_version + i + 1, **public_event(e)}
                              for i, e in enumerate(events)],
                  "applied": played, "unplayed": moves[played:], "seat": seat, "body": body_hash}
        try:
            result = self.store.append(game_id, expected_version, events, idem_key, answer, generation, texts)
            status, value = result
        except Conflict as c:
            self._raise_conflict(game_id, idem_key, seat, body_hash, c.current, expected_version)
        except GameArchived:  # archived while we decided: it is over (application/archive.py)
            raise errors.invalid("game-over", "the game is over") from None
        if status == "idem":
            return self._replayed(value, seat, body_hash)
        self.cache.put(game_id, state)
        if then is not None:
            try:   # the moves stand whatever it does
                then()
            except Exception:
                log.warning("the follow-up of a move in %s failed", game_id, exc_info=True)
        self._after_append(game_id, meta, state, snap_version, seat, game, hooks=result.hooks, by=by)
        return _public_answer(answer)

    def _undos_this_turn(self, game_id: str, seat: int, version: int) -> int:
        """How many moves ``seat`` took back in its current turn up to ``version``: the MoveUndone
        events of the trailing run of its own events (back to another seat's event, the game's
        start or its own last 'end'). Read backwards in chunks: the run is short, as each turn's
        undos are bounded."""
        undos, upto = 0, version
        while upto > 0:
            chunk = self.store.events_before(game_id, upto, 64)
            for ev in chunk:
                if ev.get("seat") != seat or ev["type"] not in ("MovePlayed", "MoveUndone") or _ends_turn(ev):
                    return undos
                undos += ev["type"] == "MoveUndone"
            if len(chunk) < 64:
                return undos
            upto -= len(chunk)
        return undos

    def set_notifications(self, game_id: str, token: str | None, mode: str, delay: int | None = None) -> dict:
        meta = self.meta(game_id)
        seat = self._require_seat(meta, token, game_id)
        email = meta["seats"][seat].get("email")
        if not email:
            raise errors.invalid("no-email", "this seat has no email address")
        if delay is not None:
            set_delay_minutes(self.store.r, email, delay)
        set_preference(self.store.r, email, mode)
        return {"mode": mode, "delay_minutes": delay_minutes(self.store.r, email)}

    def vacation(self, game_id: str, token: str | None, on: bool) -> dict:
        meta = self.meta(game_id)
        seat = self._require_seat(meta, token, game_id)
        try:
            return Deadlines(self, None, make_clock(self.store.r)).vacation(game_id, seat, on)
        except ValueError as e:
            raise errors.invalid("no-vacation-left", str(e)) from None

    def _raise_conflict(self, game_id, idem_key, seat, body_hash, current, expected):
        """A 409, unless a twin of this request (same Idempotency-Key) has just been applied:
        then its answer is the answer (the twin won the race between our read and our write)."""
        if idem_key:
            prev = self.store.idempotent_answer(game_id, idem_key)
            if prev is not None:
                raise _Replay(self._replayed(prev, seat, body_hash))
        raise errors.conflict(current, expected) from None

    def _replayed(self, prev: dict, seat: int, body_hash: str) -> dict:
        if prev.get("seat") != seat or prev.get("body") != body_hash:
            raise errors.invalid("idempotency-key-reused",
                                    "this Idempotency-Key was used for a different request")
        return _public_answer(prev)

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


def _ends_turn(ev: dict) -> bool:
    """A seat's 'end' (Tiletum's end of a turn): its undo count starts again after it."""
    return ev["type"] == "MovePlayed" and ev.get("move") == "end"


class StateCache:
    """This process's most recent state of each recently used game (bounded, LRU). Only a
    shortcut: every load still asks Redis for the events after the cached version, so a state
    another process moved on is brought up to date, never trusted stale."""

    def __init__(self, size: int = 512):
        self.size = size
        self._states: "OrderedDict[str, State]" = OrderedDict()
        self._snap: dict[str, int] = {}
        self._meta: dict[str, tuple[str, dict, str]] = {}   # game -> (meta generation, meta, seed)
        self._lock = threading.Lock()

    def get(self, game_id: str) -> State | None:
        with self._lock:
            state = self._states.get(game_id)
            if state is not None:
                self._states.move_to_end(game_id)
            return state

    def put(self, game_id: str, state: State) -> None:
        with self._lock:
            old = self._states.get(game_id)
            if old is None or old.version <= state.version:
                self._states[game_id] = state
                self._states.move_to_end(game_id)
            while len(self._states) > self.size:
                gone, _ = self._states.popitem(last=False)
                self._snap.pop(gone, None)
                self._meta.pop(gone, None)

    def put_meta(self, game_id: str, generation: str, meta: dict, seed: str) -> None:
        with self._lock:
            if game_id in self._states:
                self._meta[game_id] = (generation, meta, seed)

    def forget_meta(self, game_id: str) -> None:
        with self._lock:
            self._meta.pop(game_id, None)

    def fast_path(self, game_id: str, version: int):
        """``(meta generation, meta, seed, state)`` when this process holds the game at ``version``
        and its meta: a move at that version can be decided without reading Redis first. The
        append still checks that the stream is at ``version`` and the meta unchanged, so nothing
        stale is ever trusted."""
        with self._lock:
            state, known = self._states.get(game_id), self._meta.get(game_id)
            if state is None or known is None or state.version != version:
                return None
            return (*known, state)

    def snapshot_at(self, game_id: str, version: int) -> None:
        self._snap[game_id] = max(version, self._snap.get(game_id, 0))

    def snapshot_hint(self, game_id: str) -> int:
        """The latest snapshot version this process knows of (0 if none): when to write the next."""
        return self._snap.get(game_id, 0)


class IdentityCache:
    """The rate-limit identities this process has verified: (token hash, game) -> identity,
    bounded, least recently used first out. Only proven identities are kept."""

    def __init__(self, size: int = 4096):
        self.size = size
        self._known: "OrderedDict[tuple[str, str], str]" = OrderedDict()
        self._lock = threading.Lock()

    def get(self, k: tuple[str, str]) -> str | None:
        with self._lock:
            v = self._known.get(k)
            if v is not None:
                self._known.move_to_end(k)
            return v

    def put(self, k: tuple[str, str], identity: str) -> None:
        with self._lock:
            self._known[k] = identity
            self._known.move_to_end(k)
            while len(self._known) > self.size:
                self._known.popitem(last=False)


class GameExists(Exception):
    """A game with the id a caller fixed exists already."""


class _Replay(Exception):
    """Carries the stored answer of an idempotent twin request out of a conflict."""

    def __init__(self, answer: dict):
        super().__init__("idempotent replay")
        self.answer = answer


def _public_answer(answer: dict) -> dict:
    """What a submission answers (also when replayed for its Idempotency-Key; answers stored
    before ``applied`` existed had every move applied, one event each)."""
    return {"version": answer["version"], "events": answer["events"],
            "applied": answer.get("applied", len(answer["events"])), "unplayed": answer.get("unplayed", [])}


def _created(game_id: str, state, meta: dict, seats: list[dict], tokens: list[str | None]) -> dict:
    return {
        "id": game_id, "version": state.version, "seed_commitment": meta["seed_commitment"],
        "seats": [{"seat": i, "name": s["name"], "kind": s.get("kind", "human"), "token": t}
                  for i, (s, t) in enumerate(zip(seats, tokens))],
    }


def summary_of(game_id: str, meta: dict, state: State) -> dict:
    game = games.of_meta(meta)
    scores = game.scores(state)
    return {
        "id": game_id, "game": game.name,
        "status": "finished" if game.is_over(state) else "active",
        "version": state.version, "round": game.round(state), "phase": game.phase(state),
        "to_act": to_act(state),
        "seats": [{"seat": i, "name": s["name"], "kind": s["kind"], "score": scores[i],
                   **({"level": s.get("level") or "medium"} if s["kind"] == "ai" else {})}
                  for i, s in enumerate(meta["seats"])],
        "winner": game.winner(state),
        "seed_commitment": meta["seed_commitment"],
        "rated": is_rated(meta),
    }
