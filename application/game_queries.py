"""What the game service answers about a game (application/game_service.py): its summary, the
games in progress, a seat's view, its legal moves, a hint's position, the events in words page by
page, the state at a version, the record and the fairness proof."""
from __future__ import annotations

import games

from . import errors, waiting
from .dashboard import iso
from .game_core import NOT_HOSTED, machine_seats, public_event, seat_markers, with_names
from .indexes import ACTIVE
from .players import player_id
from .profiles import Profiles
from .rated import is_rated
from .seat_auth import SeatAuth
from .seats import seat_names
from .state_cache import State
from .store import GameArchived

# GET /events answers in pages: EVENTS_PAGE events unless the client asks for another `limit`, at most
# MAX_EVENTS_PAGE.
EVENTS_PAGE = 500
MAX_EVENTS_PAGE = 1000
PUBLIC_SLACK = 30  # games over or gone that one listing of games in progress may step over (and drop)


def to_act(state: State) -> list[int]:
    """Who is to act, in the one shape the API uses for it everywhere (docs/api-changes.md): the
    seats whose decision it is, ``[]`` when the game is over."""
    actor = games.of_state(state).actor(state)
    return [] if actor is None else [actor]


def fairness_algorithm(meta: dict, state) -> str:
    """How this game's chance outcomes come from its seed, per the rules version it started under."""
    return games.of_meta(meta).fairness_algorithm(meta, state)


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


class GameQueries(SeatAuth):
    """The reads of a game: nothing here appends."""

    # --- reading -----------------------------------------------------------------------------
    def summary(self, game_id: str, handles: bool = False) -> dict:
        """The game's summary; for a game waiting for players (or cancelled before it started),
        who has a seat so far (``status`` waiting or cancelled) and nothing else. ``handles``: each
        seat also with ``handle``, its player's handle where their profile is public (the game
        page links the name to it), else None: never more of the player, never an address."""
        try:
            meta, state = self.load(game_id)
        except errors.ServiceError as e:
            doc = waiting.load(self.store.r, game_id) if e.kind == "conflict" else None
            if doc is None:
                raise
            return waiting.summary(game_id, doc)
        out = summary_of(game_id, meta, state)
        if handles:
            r = self.store.r
            pids = {i: player_id(r, s["email"]) for i, s in enumerate(meta["seats"])
                    if s["kind"] == "human" and s.get("email")}
            public = Profiles.public_handles(r, list(pids.values()))   # one round trip
            for i, seat in enumerate(out["seats"]):
                seat["handle"] = public.get(pids[i]) if i in pids else None
        return out

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
            loaded: tuple | None
            try:
                loaded = self.load(game_id)
            except errors.ServiceError as e:
                if e.code == NOT_HOSTED:   # kept in the index: it is listed again once its rules are
                    continue
                loaded = None
            except GameArchived:
                loaded = None
            game = games.of_meta(loaded[0]) if loaded is not None else None
            if loaded is None or game is None or game.is_over(loaded[1]):
                r.zrem(ACTIVE.key(game_id), game_id)
                continue
            meta, state = loaded
            out.append({"id": game_id, "game": game.name, "round": game.round(state),
                        "players": [s["name"] for s in meta["seats"]],
                        "tournament": (meta.get("tournament") or {}).get("id"),
                        "started": iso(meta.get("created") or created)})
            if len(out) == limit:
                break
        return out

    def state(self, game_id: str, token: str | None, look: bool = True,
              lang: str | None = None) -> tuple[int, dict]:
        """The seat's (or a spectator's) view now. ``look``: the read is the seat looking at the game
        (application/live.py); a page in a background tab reads without looking. ``lang``: the
        position's words (where it has any) in that language, where the game speaks it."""
        meta, state = self.load(game_id)
        game = games.of_meta(meta)
        seat = self.seat_of(meta, token, game_id, game.actor(state))
        if look:
            self.looked(game_id, meta, seat, state.version)
        return state.version, game.view(state, seat, **games.in_language(game, lang))

    def legal_moves(self, game_id: str, token: str | None, lang: str | None = None) -> dict:
        """The seat's legal moves, in notation and in words (in ``lang`` where the game speaks it)."""
        meta, state = self.load(game_id)
        game = games.of_meta(meta)
        actor = game.actor(state)
        seat = self._require_seat(meta, token, game_id, actor)
        self.looked(game_id, meta, seat, state.version)
        moves = game.legal_moves(state, **games.in_language(game, lang)) if seat == actor else []
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

    def events(self, game_id: str, after: int = 0, limit: int = EVENTS_PAGE, lang: str | None = None) -> dict:
        """At most ``limit`` events after version ``after``, each with its ``text`` in words, and
        where the next page starts: ``next_after`` (the version of the last event served, or
        ``after``), ``more`` (whether events after it exist already). Each event's text is stored
        with it (see :meth:`_decide_and_append`), so a page costs what it holds; only events saved
        before texts were stored, and archived games, have their texts made here, from the latest
        snapshot at or before ``after`` when there is one. ``lang``: the texts in that language where
        the game's words speak it (``games.in_language``), made from the events (the stored ones are
        English)."""
        meta = self.meta(game_id)
        game = games.of_meta(meta)
        limit = max(1, min(limit, MAX_EVENTS_PAGE))
        page, version = self.store.page(game_id, after, limit)
        evs = [e for e, _ in page]
        stored = [t for _, t in page]
        said = games.in_language(game, lang)
        as_stored = all(t is not None for t in stored) and not said
        texts: list[str] = ([t for t in stored if t is not None] if as_stored
                            else self._texts_by_folding(game_id, game, meta, after, evs, said))
        names = seat_names(meta)
        texts = [with_names(t, names) for t in texts]
        last = after + len(evs)
        return {"after": after, "events": [{"version": after + i + 1, **public_event(e), "text": text}
                                           for i, (e, text) in enumerate(zip(evs, texts))],
                "next_after": last, "more": last < version}

    def events_after(self, game_id: str, after: int, lang: str | None = None) -> list[dict]:
        """Every event after version ``after`` as ``GET /events`` serves them, page by page (for
        the service's own readers: the emails that list what happened since a turn), their texts in
        ``lang`` where the game speaks it."""
        out: list[dict] = []
        while True:
            page = self.events(game_id, after, MAX_EVENTS_PAGE, lang)
            out += page["events"]
            if not page["more"] or not page["events"]:
                return out
            after = page["next_after"]

    def _texts_by_folding(self, game_id: str, game: games.Game, meta: dict, after: int,
                          evs: list[dict], said: dict | None = None) -> list[str]:
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
                                machines=machine_seats(meta), **(said or {}))

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
