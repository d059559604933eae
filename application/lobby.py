"""The lobby (docs/lobby.md): games with open seats that strangers join.

A game created with seats of kind ``open`` waits for players (:mod:`application.waiting` says how
it is stored: no event, no seed, only who has a seat so far). It is listed by ``GET /api/v1/lobby``
unless it is private; a player joins it by email (a one-time link confirms the address, and the
seat is taken when it is opened) or at once with a dashboard key (an address that already reads
our email). When the last seat is taken the game is created under the same id through
:meth:`GameService.create_game`, the one start path (seed committed, dashboards, the first turn
email). A game still waiting after its waiting time (``options.waiting_days``, default 7) is
cancelled by the beat sweep (:meth:`Lobby.sweep`), which emails the players already seated.

Credentials: the creator gets a *creator token* (its SHA-256 is kept) to remove a joined player
before the start, and an *invitation code* (a private game is joinable only with it); each seated
player gets a seat token and the seat's link (``/play/<id>#token=L<seat>...``, application/links.py),
both valid once the game starts. A seat that is left or taken away has its links revoked, so the
next player of that seat does not share them.

A join link that took its seat stays the joiner's way back to it: its record becomes
``g:{<id>}:joined:<nonce>`` (the seat, the player id and the seat link's generation then; no
address; :data:`JOINED_SECONDS`), and opening the link again answers the seat's link (never its
token again) while that player still holds the seat and its links were not renewed since.
"""
from __future__ import annotations

import hashlib
import json
import secrets
import threading
import time
from collections.abc import Callable

import games as hosted
from tablepost import i18n
from tournaments.ratings import Rating

from . import errors, links, reliability, waiting
from .clock import make_clock
from .dashboard import Dashboard, mark_verified
from .game_service import GameExists, GameService, token_hash
from .names import check_name
from .players import name_of, player_id, remember_name
from .profiles import Profiles
from .queues import EMAIL
from .rated import unrated_reason
from .rating_service import game_pool, pool_key
from .tournament_service import same_secret
from .ids import new_game_id

JOIN_TASK = "workers.send_lobby_join"
CANCELLED_TASK = "workers.lobby_cancelled"
DEFAULT_WAITING_DAYS = 7.0
LOBBY_OPTIONS = ("waiting_days", "rating_range")   # the lobby's own options: never in the game's meta
OPEN_GAME_KINDS = ("human", "ai", "open")          # the seats an open game may have
LIST_RETRIES = 3   # a listing that met entries of games no longer listed (and dropped them) reads again
JOINED_SECONDS = 90 * 86400   # how long a join link that took its seat leads back to it
ROW_CACHE_SIZE = 20_000   # listing rows this process keeps, each by its game and its record's bytes


class _Rows:
    """Each listed game's row as the caller renders it (the API: its JSON), kept in this process by
    the game and a digest of its record's bytes: a record that changed is another key, so a row is
    never stale, and a listing reads each record once but parses and renders it only when it changed
    (issue 39: a page of 100 spent a third of its time in the schema). Bounded; dropped oldest first."""

    def __init__(self, size: int = ROW_CACHE_SIZE):
        self.size = size
        self.rows: dict[tuple[str, bytes], tuple[bool, tuple[dict, object] | None]] = {}
        self.lock = threading.Lock()

    def get(self, game_id: str, raw: bytes | None,
            render: Callable[[str, dict], object]) -> tuple[bool, tuple[dict, object] | None]:
        """``(listed, (doc, row))``: whether the record says the game is listed, and its parsed record
        and row (None if not)."""
        if raw is None:
            return False, None
        k = (game_id, hashlib.blake2b(raw, digest_size=16).digest())
        hit = self.rows.get(k)
        if hit is not None:
            return hit
        doc = json.loads(raw)
        out: tuple[bool, tuple[dict, object] | None] = \
            (True, (doc, render(game_id, doc))) if waiting.listed(doc) else (False, None)
        with self.lock:
            self.rows[k] = out
            while len(self.rows) > self.size:
                self.rows.pop(next(iter(self.rows)))
        return out


def rating_of(r, game: str, email: str) -> float:
    """The address's rating in the game's multiplayer pool (a new player's 1500 if none)."""
    raw = r.hget(pool_key(game_pool(game)), player_id(r, email))
    return float(json.loads(raw)["rating"]) if raw else Rating().mu


def address_refusal(r, doc: dict, email: str) -> errors.ServiceError | None:
    """Why ``email`` cannot take a seat of the waiting game ``doc`` for reasons of its own (a seat
    of the game already, a rating outside the game's range), or None. Told only to the address's
    owner: the joiner with its dashboard key, the emailed join's email, the opened join link; a join
    asked by email answers the same for every address (no oracle of who plays here, or their rating)."""
    if email in waiting.seated_addresses(doc):
        return errors.refused("already-seated",
                              "this address has a seat of this game already (one seat an address)")
    if doc.get("rating_range"):
        low, high = doc["rating_range"]
        rating = rating_of(r, doc["game"], email)
        if not low <= rating <= high:
            return errors.forbidden("outside-rating-range",
                                    errors.said("this game is for ratings {low}-{high}; this address is "
                                                "rated {rating} in its pool", low=low, high=high,
                                                rating=f"{rating:.0f}"), rating=round(rating),
                                    rating_range=[low, high])
    return None


def confirmed(seat: dict) -> bool:
    """A player seated in a waiting game who confirmed the seat themselves (a join link opened, or a
    join with their dashboard key). An address the creator typed into a seat did not: emails about
    the waiting game (cancelled) go only to confirmed players, so a stranger's address typed into
    seats is never emailed by them (docs/pbem.md, "Email by consent")."""
    return seat["kind"] == "human" and bool(seat.get("email")) and bool(seat.get("confirmed"))



class Lobby:
    def __init__(self, games: GameService, dashboard: Dashboard, clock=None, send=None):
        self.games = games
        self.dashboard = dashboard
        self.r = games.store.r
        self.clock = clock or make_clock(self.r)   # waiting times (TABLEPOST_TEST_CLOCK shifts it)
        self.send = send   # Dispatcher.send: enqueue a task by name (None: no broker)
        self._rows = _Rows()   # the listing's rows (entry), by record
        self._rendered: dict[Callable, _Rows] = {}   # the same for each caller's own rendering

    # --- creating ------------------------------------------------------------------------------
    def create(self, seats: list[dict], options: dict, game: str = hosted.DEFAULT) -> dict:
        """A game with open seats, waiting for players (``POST /api/v1/games`` with a seat of kind
        ``open``). Everything the start will check is checked now (a dry run of the game's
        creation), so a full game always starts."""
        options = dict(options or {})
        seats = [{**s, "kind": s.get("kind", "human")} for s in seats]
        days = float(options.pop("waiting_days", None) or DEFAULT_WAITING_DAYS)
        rating_range = options.pop("rating_range", None)
        for s in seats:
            if s.get("kind", "human") not in OPEN_GAME_KINDS:
                raise errors.invalid("bad-seats",
                                     "a game with open seats has seats of kind human, ai or open "
                                                  "(no game's own automa, no bot account)")
        # the rest (AI levels, time zones, the game's own seats and options) as for any game: a dry run
        placeholders = [{"name": f"Open seat {i}", "email": f"open{i}@lobby.invalid", "kind": "human"}
                        if s["kind"] == "open" else s for i, s in enumerate(seats)]
        self.games.create_game(placeholders, dict(options), game=game, dry_run=True)
        rated = unrated_reason({"options": options, "seats": [{"kind": s.get("kind", "human"), **s}
                                                               for s in placeholders]}) is None
        if rating_range is not None:
            low, high = rating_range
            if low > high:
                raise errors.invalid("bad-rating-range", "rating_range is [lowest, highest]")
            if not rated:
                why = unrated_reason({"options": options, "seats": placeholders})
                raise errors.invalid("bad-rating-range",
                                     errors.said("only a rated game has a rating range: this one is not "
                                                 "({why})", why=why))
        now = self.clock()
        creator, invite = secrets.token_urlsafe(24), secrets.token_urlsafe(12)
        tokens: list[str | None] = []
        kept: list[dict] = []
        for s in seats:
            kind = s.get("kind", "human")
            if kind == "open":
                kept.append({"kind": "open"})
                tokens.append(None)
            elif kind == "ai":
                kept.append({"kind": "ai", "name": s["name"], "level": s.get("level") or "medium"})
                tokens.append(None)
            else:
                token = secrets.token_urlsafe(24)
                kept.append({"kind": "human", "name": s["name"], "email": s.get("email"),
                             "token_hash": token_hash(token), **({"tz": s["tz"]} if s.get("tz") else {}),
                             **({"language": s["language"]} if s.get("language") else {})})
                tokens.append(token)
        doc = {"game": hosted.get(game).name, "players": len(seats), "options": options, "waiting_days": days,
               "rating_range": list(rating_range) if rating_range is not None else None,
               "private": bool(options.get("private")), "rated": rated, "created": now,
               "expires": now + days * 86400,
               "status": waiting.WAITING, "creator": token_hash(creator), "invite": token_hash(invite),
               "seats": kept}
        for _ in range(5):
            game_id = new_game_id()
            if self.games.store.meta(game_id) is None and not self.games.store.is_archived(game_id) \
                    and self.r.set(waiting.record_key(game_id), json.dumps(doc), nx=True):
                break
        else:  # pragma: no cover
            raise errors.failed("id-collision", "could not allocate a game id")
        self.r.zadd(waiting.EXPIRES.key(game_id), {game_id: doc["expires"]})
        waiting.sync_listing(self.r, game_id, doc)   # in the lobby's list unless private
        for s in kept:
            if s["kind"] == "human":
                waiting.index_seat(self.r, game_id, s.get("email"), now)   # on the creator's dashboard
        return {"id": game_id, "status": waiting.WAITING, "version": 0, "seed_commitment": None,
                "seats": [{"seat": i, "name": s.get("name"), "kind": s["kind"], "token": t}
                          for i, (s, t) in enumerate(zip(kept, tokens))],
                "creator_token": creator,
                "invite_url": f"/play/lobby#game={game_id}&invite={invite}",
                "expires_at": waiting.iso(doc["expires"])}

    # --- reading -------------------------------------------------------------------------------
    def _doc(self, game_id: str) -> dict:
        doc = waiting.load(self.r, game_id)
        if doc is None:
            if self.games.store.meta(game_id) is not None or self.games.store.is_archived(game_id):
                raise errors.refused("game-started",
                                     "this game has started already: it takes no more players")
            raise errors.not_found()
        return doc

    def joined(self, docs: list[dict]) -> list[list[dict]]:
        """Each waiting game's seated players (``docs``), as anyone may see them: the name, and for
        a person whose profile is public the handle and how reliably they play
        (application/reliability.py); never an address. One pipeline for the page's profiles."""
        seated = [[s for s in doc["seats"] if s["kind"] != "open"] for doc in docs]
        pids = {s["email"]: player_id(self.r, s["email"]) for seats in seated for s in seats
                if s["kind"] == "human" and s.get("email")}
        public = Profiles.public_handles(self.r, list(pids.values()))
        rel = reliability.of_players(self.r, list(public))
        out = []
        for seats in seated:
            row = []
            for s in seats:
                pid = pids.get(s.get("email") or "")
                shown = pid if pid is not None and pid in public else None   # a player with a public handle
                row.append({"name": s["name"], "handle": public[shown] if shown is not None else None,
                            "reliability": rel[shown] if shown is not None else None})
            out.append(row)
        return out

    @staticmethod
    def entry(game_id: str, doc: dict, joined: list[dict] | None = None) -> dict:
        """A waiting game as anyone may see it: names only, never an address, a token or an option
        that is not the players' business (no seed: there is none yet); ``joined``: its seated
        players with their public figures (:meth:`joined`)."""
        opts = doc["options"]
        cancelled = doc["status"] == waiting.CANCELLED
        return {"id": game_id, "game": doc["game"], "players": doc["players"],
                "open_seats": len(waiting.open_seats(doc)), "seats_taken": waiting.taken_names(doc),
                "time_control": opts.get("time_control"), "rated": doc["rated"],
                "rating_range": doc["rating_range"],
                "status": doc["status"] if doc["status"] == waiting.CANCELLED else waiting.WAITING,
                "cancelled_by": (doc.get("cancelled_by") or "waiting-time") if cancelled else None,
                "created_at": waiting.iso(doc["created"]), "expires_at": waiting.iso(doc["expires"]),
                "joined": joined if joined is not None else
                [{"name": n, "handle": None, "reliability": None} for n in waiting.taken_names(doc)]}

    def view(self, game_id: str) -> dict:
        doc = self._doc(game_id)
        return self.entry(game_id, doc, self.joined([doc])[0])

    def listing(self, game: str | None = None, players: int | None = None, offset: int = 0,
                limit: int = 20, rated: bool | None = None,
                render: Callable[[str, dict], object] | None = None,
                finish: Callable[[object, list[dict]], object] | None = None) -> dict:
        """The waiting games that are listed (not private), newest first, filtered by game, number
        of players and rated; ``more`` says whether another page follows. Read from the filter's own
        sorted set (:func:`waiting.list_key`): a page costs O(log n + limit) whatever the filter or the
        offset, in two round trips, and one more for the seated players' public figures
        (:meth:`joined`, which change apart from the record). Each game is ``render(id, record)``, kept
        per record (:class:`_Rows`: a record read again unchanged is not parsed or rendered again),
        then ``finish(row, joined)``; by default :meth:`entry` with its ``joined``.
        An entry whose game is no longer listed (the index is written just after the record, so a
        crash in between leaves one) is dropped here and the page read again."""
        key = waiting.list_key(game, players, rated)
        rows = self._rows if render is None else self._rendered.setdefault(render, _Rows())
        draw = render or self.entry
        for _ in range(LIST_RETRIES):
            # one more than the page: whether another follows
            ids = [m.decode() for m in self.r.zrevrange(key, offset, offset + limit)]
            pipe = self.r.pipeline(transaction=False)
            for game_id in ids:
                pipe.get(waiting.record_key(game_id))
            raws = pipe.execute() if ids else []
            page = [(i, raw, rows.get(i, raw, draw)) for i, raw in zip(ids, raws)]
            stale = [(i, raw) for i, raw, (listed, _) in page if not listed]
            for game_id, raw in stale:
                waiting.sync_listing(self.r, game_id, json.loads(raw) if raw else None)
            if not stale:
                break
        listed = [row for _, _, (ok, row) in page if ok and row is not None]
        more = len(listed) > limit
        shown = listed[:limit]
        joined = self.joined([doc for doc, _ in shown])
        done = finish or (lambda row, j: {**row, "joined": j})   # type: ignore[dict-item]
        return {"games": [done(row, j) for (_, row), j in zip(shown, joined)], "more": more,
                "next_offset": offset + limit if more else None}

    def reindex(self) -> int:
        """Put in the lobby's list every waiting game that should be there and is not (a crash between
        its record and its index; idempotent; run by the sweep): the waiting games (the expiry index)
        not in the list are read, and listed if they should be. One listed that should not be is
        dropped by the listing that meets it. Also adopts the list of before issue 39
        (``lobby:open``), then deletes it. Returns how many games were put right."""
        listed = {m.decode() for m in self.r.zrange(waiting.list_key(), 0, -1)}
        legacy = waiting.OPEN.due(self.r, "+inf")
        waiting_games = waiting.EXPIRES.due(self.r, "+inf") + legacy
        candidates = [g for g in dict.fromkeys(m.decode() for m in waiting_games)
                      if g not in listed]   # mostly the private games
        fixed = 0
        for start in range(0, len(candidates), 500):
            chunk = candidates[start:start + 500]
            pipe = self.r.pipeline(transaction=False)
            for game_id in chunk:
                pipe.get(waiting.record_key(game_id))
            for game_id, raw in zip(chunk, pipe.execute()):
                doc = json.loads(raw) if raw else None
                if waiting.listed(doc):
                    waiting.sync_listing(self.r, game_id, doc)
                    fixed += 1
        if legacy:
            pipe = self.r.pipeline(transaction=False)
            for k in waiting.OPEN.keys():
                pipe.delete(k)
            pipe.execute()
        return fixed

    # --- joining -------------------------------------------------------------------------------
    def _joinable(self, game_id: str, doc: dict, email: str, invite: str | None) -> None:
        """Refuse a join that cannot be (nothing is changed by the refusal)."""
        self._open_to(doc, invite)
        refusal = address_refusal(self.r, doc, email)
        if refusal is not None:
            raise refusal

    @staticmethod
    def _open_to(doc: dict, invite: str | None) -> None:
        """The refusals that do not depend on who joins: the same answer for any address."""
        if doc["status"] == waiting.CANCELLED:
            raise errors.refused("game-cancelled", "this game was cancelled before it started")
        if doc["status"] != waiting.WAITING or not waiting.open_seats(doc):
            raise errors.refused("game-full", "every seat of this game is taken")
        if doc.get("private") and not (invite and same_secret(token_hash(invite), doc["invite"])):
            raise errors.forbidden("bad-invitation", "this game is private: join it with the invitation link "
                                                     "its creator sent you")

    def rating(self, game: str, email: str) -> float:
        """The address's rating in the game's multiplayer pool (a new player's 1500 if none)."""
        return rating_of(self.r, game, email)

    def request_join(self, game_id: str, name: str | None, email: str | None, invite: str | None = None,
                     key: str | None = None, language: str | None = None) -> dict:
        """``POST /api/v1/lobby/{game}/join``: with a dashboard key the seat is taken at once;
        else a one-time link goes to ``email`` and the seat is taken when it is opened. ``language``:
        the seat's emails' (docs/i18n.md), kept with the seat."""
        doc = self._doc(game_id)
        if language is not None and not i18n.supported(language):
            raise errors.invalid("bad-language",
                                 errors.said("{lang} is not a language of the service ({langs})",
                                             lang=repr(language), langs=", ".join(i18n.LANGUAGES)))
        check_name(name)   # shown at the table and in the lobby: never a link
        if key is not None:
            pid, email = self.dashboard.player(key)   # 401 for a bad key; marks the address verified
            name = name or self.dashboard_name(pid)
            if not name:
                raise errors.invalid("name-required", "say the name to show at the table (`name`)")
            self._joinable(game_id, doc, email, invite)
            return self._seat(game_id, name, email, invite, language=language)
        if not email:
            raise errors.invalid("email-required", "give the address to confirm (`email`), or join with your "
                                                   "dashboard key ('Authorization: Bearer <key>')")
        email = email.strip().lower()
        if not name:
            raise errors.invalid("name-required", "say the name to show at the table (`name`)")
        # only what is the same for every address: whether this address already has a seat, or
        # fits the rating range, is for its owner alone (the emailed answer, mail/notify.py)
        self._open_to(doc, invite)
        nonce = secrets.token_urlsafe(12)
        ttl = max(60, int(doc["expires"] - self.clock()) + 60)
        self.r.set(waiting.join_key(game_id, nonce),
                   json.dumps({"name": name, "email": email, "invite": invite, "at": self.clock(),
                               **({"language": language} if language else {})}), ex=ttl)
        emailed = self.send is not None and self.send(JOIN_TASK, [game_id, nonce], EMAIL)
        return {"game": game_id, "status": "pending", "emailed": bool(emailed)}

    def dashboard_name(self, pid: str) -> str | None:
        return name_of(self.r, pid)

    def pending_join(self, game_id: str, nonce: str) -> dict | None:
        """A join asked by email and not yet confirmed (for its email: application never sends)."""
        raw = self.r.get(waiting.join_key(game_id, nonce))
        return json.loads(raw) if raw else None

    def confirm(self, token: str) -> dict:
        """The one-time link of a join asked by email was opened: the address is verified and the
        seat taken (if the game can still take it). A link works once: a second use is refused."""
        found = links.join_of(self.r, token)
        if found is None:
            raise errors.invalid("bad-join-link",
                                 "this join link is not valid: open the link from the email again")
        game_id, nonce = found
        again = self._seat_again(game_id, nonce)
        if again is not None:
            return again
        return self._seat(game_id, None, None, None, join=nonce)

    def _seat_again(self, game_id: str, nonce: str) -> dict | None:
        """A join link opened again after it took its seat (the game waiting or started): the seat's
        link, while the same player holds the seat and its links are the ones of then; None when
        the link took no seat (it is pending, used by someone who left since, or expired)."""
        raw = self.r.get(joined_key(game_id, nonce))
        if raw is None:
            return None
        took = json.loads(raw)
        seat = int(took["seat"])
        doc = waiting.load(self.r, game_id)
        if doc is not None:
            seats, started = doc["seats"], False
        else:
            meta = self.games.store.meta(game_id)
            if meta is None:
                return None
            seats, started = meta["seats"], True
        s = seats[seat] if 0 <= seat < len(seats) else {}
        email = s.get("email") if s.get("kind") == "human" and not s.get("former") else None
        if not email or player_id(self.r, email) != took["pid"]:
            return None
        if links.current_generation(self.r, f"{game_id}:{seat}") != took["gen"]:
            raise errors.refused("join-link-used", "this seat's links were renewed since this join link took "
                                                   "it: open your seat from your newest email or your "
                                                   "dashboard")
        return {"game": game_id, "status": "seated", "seat": seat, "name": s.get("name"), "again": True,
                "play_url": f"/play/{game_id}#token={links.seat_token(self.r, game_id, seat, took['gen'])}",
                "started": started}

    def _seat(self, game_id: str, name: str | None, email: str | None, invite: str | None,
              join: str | None = None, language: str | None = None) -> dict:
        token = secrets.token_urlsafe(24)
        taken: dict = {}

        def change(doc, pending=None):
            nonlocal name, email, language
            if join is not None:
                if pending is None:
                    raise errors.refused("join-link-used", "this join link was used already (or it expired): "
                                                           "each link takes a seat once")
                p = json.loads(pending)
                name, email, language = p["name"], p["email"], p.get("language")
                self._joinable(game_id, doc, email, p.get("invite"))
            else:
                self._joinable(game_id, doc, email, invite)
            seat = waiting.open_seats(doc)[0]
            doc["seats"][seat] = {"kind": "human", "name": name, "email": email,
                                  "token_hash": token_hash(token), "confirmed": True,
                                  **({"language": language} if language else {})}
            if not waiting.open_seats(doc):
                doc["status"] = waiting.STARTING
            taken["seat"], taken["created"], taken["doc"] = seat, doc["created"], doc
            return doc["status"]

        try:
            status = waiting.update(self.r, game_id, change,
                                    also_delete=waiting.join_key(game_id, join) if join else None)
        except errors.ServiceError as e:
            if e.kind == "not-found":
                self._doc(game_id)   # started meanwhile: game-started
            raise
        seat = taken["seat"]
        # change() has them: the joiner's own, or (a join link) those the pending join asked with
        assert name is not None and email is not None
        if join is not None:   # the link leads back to the seat when opened again
            self.r.set(joined_key(game_id, join),
                       json.dumps({"seat": seat, "pid": player_id(self.r, email),
                                   "gen": links.current_generation(self.r, f"{game_id}:{seat}")}),
                       ex=JOINED_SECONDS)
        waiting.sync_listing(self.r, game_id, taken["doc"])   # the last seat taken: off the list
        if status == waiting.WAITING:
            waiting.index_seat(self.r, game_id, email, taken["created"])   # on the joiner's dashboard
        mark_verified(self.r, email)   # it acted on our email (or used its dashboard key)
        remember_name(self.r, player_id(self.r, email), name)
        started = status == waiting.STARTING and self.start(game_id)
        return {"game": game_id, "status": "seated", "seat": seat, "name": name, "token": token,
                "play_url": f"/play/{game_id}#token={links.seat_token(self.r, game_id, seat)}",
                "started": bool(started)}

    # --- starting ------------------------------------------------------------------------------
    def start(self, game_id: str) -> bool:
        """Create the real game of a full waiting game (idempotent: a game already created under the
        id is left as it is). The normal start path: seed, commitment, dashboards, first turn email."""
        doc = waiting.load(self.r, game_id)
        if doc is None or doc["status"] != waiting.STARTING:
            return False
        seats = [dict(s) for s in doc["seats"]]
        try:
            self.games.create_game(seats, dict(doc["options"]), game_id=game_id, tokens=[None] * len(seats),
                                   game=doc["game"])
        except GameExists:
            pass
        self.forget(game_id, doc={**doc, "status": waiting.STARTING})
        self.r.delete(waiting.record_key(game_id))
        return True

    def forget(self, game_id: str, doc: dict | None = None) -> None:
        """The game leaves the lobby's list and the expiry index (it started, or was cancelled)."""
        doc = doc if doc is not None else waiting.load(self.r, game_id)
        waiting.sync_listing(self.r, game_id, {**doc, "status": waiting.CANCELLED} if doc else None)
        self.r.zrem(waiting.EXPIRES.key(game_id), game_id)

    # --- leaving -------------------------------------------------------------------------------
    def remove(self, game_id: str, seat: int, token: str | None) -> dict:
        """A seated player leaves (their seat token, seat link or dashboard key), or the creator
        takes a joined player's seat away (the creator token), before the start. The seat is open
        again, and its links are revoked."""
        if token is None:
            raise errors.unauthorized(
                "send the creator token, or your seat's token or link, or your dashboard key")
        self._doc(game_id)   # 404, or 409 game-started
        pid = links.player_of_key(self.r, token) if links.looks_like_dashboard_key(token) else None
        freed: dict = {}

        def change(doc):
            if doc["status"] == waiting.CANCELLED:
                raise errors.refused("game-cancelled", "this game was cancelled before it started")
            if doc["status"] != waiting.WAITING:
                raise errors.refused("game-started", "this game has started: its seats are played now")
            if not 0 <= seat < len(doc["seats"]) or doc["seats"][seat]["kind"] != "human":
                raise errors.invalid("not-a-player-seat", errors.said(
                    "seat {seat} is not a player's seat of this game", seat=seat))
            s = doc["seats"][seat]
            creator = same_secret(token_hash(token), doc["creator"])
            own = (same_secret(token_hash(token), s.get("token_hash") or "")
                   or links.seat_of_link(self.r, game_id, token) == seat
                   or (pid is not None and s.get("email") and player_id(self.r, s["email"]) == pid))
            if not (creator or own):
                raise errors.forbidden("not-your-seat",
                                       "only the seat's player or the game's creator may free it")
            freed["email"] = s.get("email")
            doc["seats"][seat] = {"kind": "open"}
            return "removed" if not own else "left"

        how = waiting.update(self.r, game_id, change)
        now = waiting.load(self.r, game_id) or {"seats": []}
        if freed["email"] and freed["email"].strip().lower() not in waiting.seated_addresses(now):
            waiting.unindex_seat(self.r, game_id, freed["email"])   # off their dashboard
        links.revoke_seat_link(self.r, game_id, seat)   # the next player of the seat does not share its links
        waiting.sync_listing(self.r, game_id, waiting.load(self.r, game_id))   # a seat open: listed again
        return {"game": game_id, "seat": seat, "status": how}

    # --- the waiting time ------------------------------------------------------------------------
    def cancel(self, game_id: str) -> dict | None:
        """Cancel a game still waiting (idempotent); the record as it is now when it is cancelled
        (also when it was already), None when it started or is gone."""
        def change(doc):
            if doc["status"] == waiting.WAITING:
                doc["status"] = waiting.CANCELLED
            return doc

        try:
            doc = waiting.update(self.r, game_id, change)
        except errors.ServiceError:
            return None
        if doc["status"] != waiting.CANCELLED:
            self.start(game_id)   # left half-started (a crash between the last seat and the start)
            return None
        return doc

    def cancel_by_creator(self, game_id: str, token: str | None) -> dict:
        """The creator cancels a game still waiting (the creator token). Idempotent: a game already
        cancelled answers the same. Those seated are told by email (``workers.lobby_cancelled``,
        once per seat), and the game leaves the lobby's indexes."""
        if token is None:
            raise errors.unauthorized("send the creator token")
        self._doc(game_id)   # 404, or 409 game-started

        def change(doc):
            if not same_secret(token_hash(token), doc["creator"]):
                raise errors.forbidden("not-the-creator", "only the game's creator may cancel it")
            if doc["status"] == waiting.STARTING:
                raise errors.refused("game-started", "this game has started already")
            if doc["status"] == waiting.WAITING:
                doc["status"] = waiting.CANCELLED
                doc["cancelled_by"] = "creator"
            return doc

        try:
            waiting.update(self.r, game_id, change)
        except errors.ServiceError as e:
            if e.kind == "not-found":   # started between the read and the change
                raise errors.refused("game-started", "this game has started already") from None
            raise
        self.forget(game_id)
        if self.send is not None:
            self.send(CANCELLED_TASK, [game_id], EMAIL)
        return {"game": game_id, "status": waiting.CANCELLED}

    def tell_cancelled(self, game_id: str, tell) -> int:
        """``tell(game_id, doc, seat)`` each player who confirmed a seat in a cancelled game (the
        worker's email)."""
        doc = waiting.load(self.r, game_id)
        if doc is None or doc["status"] != waiting.CANCELLED:
            return 0
        return sum(tell(game_id, doc, seat) or 0 for seat, s in enumerate(doc["seats"]) if confirmed(s))

    def sweep(self, tell, now: float | None = None, budget: float | None = None) -> int:
        """Cancel every game whose waiting time is over, and ``tell(game_id, doc, seat)`` each player
        seated in it (the email; sent once per seat, so a sweep cut short is redone safely); the game
        leaves the indexes only after. Returns how many games were cancelled."""
        now = self.clock() if now is None else now
        begun = time.monotonic()
        n = 0
        for member in waiting.EXPIRES.due(self.r, now, limit=500):
            if budget is not None and time.monotonic() - begun > budget:
                break
            game_id = member.decode()
            doc = self.cancel(game_id)
            if doc is not None:
                for seat, s in enumerate(doc["seats"]):
                    if confirmed(s):
                        tell(game_id, doc, seat)
                n += 1
            self.forget(game_id)
        if budget is None or time.monotonic() - begun <= budget:
            self.reindex()   # puts right the list after a crash between a record and its index
        return n


def joined_key(game_id: str, nonce: str) -> str:
    """A join link that took its seat: the seat, the player id and the seat link's generation."""
    return f"g:{{{game_id}}}:joined:{nonce}"
