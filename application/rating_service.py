"""Ratings of finished games (docs/tournaments.md, "Ratings"): Glicko-2 from :mod:`tournaments.ratings`,
one multiplayer pool per game, named by it (``tiletum:multiplayer``, ``carcassonne:multiplayer``), and
one per level of a game's own automa for the games against it, named as the game declares
(``games.setup.Automa.pool``: Tiletum's Cardinalbot keeps ``solo:priest``, ...; by default
``<game>:automa:<level>``).
Tiletum's multiplayer pool was first called ``multiplayer``: that name is still taken as a
deprecated alias wherever a client names a pool (:func:`canonical_pool`), and the ratings stored
under it are moved to the pool's name when the service starts (:mod:`application.pool_names`).

:meth:`RatingService.record_game` rates a finished game once (it is called by the game-over
task and by its sweep; a second call does nothing). The update is one Redis transaction over
the pool and the set of rated games, retried when another game of the pool was rated meanwhile,
so concurrent games never lose an update.

| key | type | holds |
|---|---|---|
| ``ratings:{<pool>}`` | hash | player id -> ``{"rating", "rd", "vol", "games"}`` |
| ``ratings:{<pool>}:board`` | zset | player id -> rating (the leaderboard) |
| ``ratings:hist:<player>`` | list | the player's rated games, oldest first |
| ``ratings:done`` | hash | game id -> ``rated`` or why it is not rated |
"""
from __future__ import annotations

import json
import time

import redis

import games as hosted
from tournaments.ratings import Rating, rate_result, rate_solo

from . import errors
from .indexes import RATED, SEAT_STATE
from .players import name_of, player_id, remember_name
from .rated import unrated_reason
from .resigned import final_places, resigned_of

MULTI = "multiplayer"


def game_pool(game: str) -> str:
    """The multiplayer pool of a game: ``<game>:multiplayer``."""
    return f"{game}:{MULTI}"


def automa_pool(game: hosted.Game, level: str) -> str:
    """The pool of games against ``game``'s own automa at ``level`` (its declared name)."""
    if game.automa is None or level not in game.automa.level_names:
        raise ValueError(f"{game.title} has no automa level {level!r}")
    return game.automa.pool_of(game.name, level)


# a pool per level of a game's own automa, named as the game declares
SOLO_POOLS = tuple(automa_pool(game, level) for game in hosted.GAMES.values() for level in game.automa_levels)
# each automa's player id at each level -> its name in words ("Cardinalbot (priest)")
AUTOMA_PLAYERS = {game.automa.player_of(game.name, level): f"{game.automa.name} ({level})"
                  for game in hosted.GAMES.values() if game.automa is not None
                  for level in game.automa_levels}
# the first game's multiplayer pool, its solo pools, then every other game's (the order of 3.x)
POOLS = ((game_pool(hosted.DEFAULT),) + SOLO_POOLS
         + tuple(game_pool(name) for name in hosted.NAMES if name != hosted.DEFAULT))
# deprecated pool names a client may still send -> the pool's name: the first game's multiplayer pool
# was plain ``multiplayer`` (3.x). Answers always name the pool by its name.
POOL_ALIASES = {MULTI: game_pool(hosted.DEFAULT)}


def canonical_pool(pool: str) -> str:
    """The pool's name for ``pool`` or a deprecated alias of it (an unknown name is left as it is)."""
    return POOL_ALIASES.get(pool, pool)


FORMER_PREFIX = "former:"


def former_id(game_id: str, seat: int) -> str:
    """The id a former player's seat (a deleted account) is rated under in one game: it keeps no rating."""
    return f"{FORMER_PREFIX}{game_id}:{seat}"


def pool_key(pool: str) -> str:
    """The pool's ratings (hash player -> rating). Everything a rating transaction touches shares
    the pool's hash tag: ``<pool_key>:board`` (zset), ``<pool_key>:done`` (hash game -> "rated")
    and ``<pool_key>:hist:<player>`` (list), so it runs on one node of a cluster."""
    return f"ratings:{{{pool}}}"


def _rating(raw: bytes | None) -> tuple[Rating, int]:
    if not raw:
        return Rating(), 0
    d = json.loads(raw)
    return Rating(d["rating"], d["rd"], d["vol"]), d["games"]


def _doc(r: Rating, games: int) -> str:
    return json.dumps({"rating": r.mu, "rd": r.rd, "vol": r.vol, "games": games})


class RatingService:
    def __init__(self, games, clock=time.time):
        self.games = games
        self.r: redis.Redis = games.store.r
        self.clock = clock

    # --- what a game is worth ------------------------------------------------------------------
    def assess(self, game_id: str) -> dict:
        """How a finished game is rated: ``{"pool", "players", ...}`` or ``{"unrated": why}``."""
        meta, state = self.games.load(game_id)
        if not hosted.is_over(state):
            return {"unrated": "not finished"}
        opts = meta.get("options") or {}
        why = unrated_reason(meta)  # the same predicate forbids hints in the game (application/rated.py)
        if why is not None:
            return {"unrated": why}
        seats = meta["seats"]
        humans = [i for i, s in enumerate(seats) if s["kind"] == "human"]
        # a former player's seat (the account was deleted) plays under an id of its own and keeps no rating
        pids = {i: former_id(game_id, i) if seats[i].get("former") else player_id(self.r, seats[i]["email"])
                for i in humans}
        names = {pids[i]: seats[i]["name"] for i in humans if not seats[i].get("former")}
        dropped = self._dropped(game_id, len(seats))
        game = hosted.of_meta(meta)
        resigned = resigned_of(self.games.store.events(game_id))   # placed last, rated as a loss
        automa = game.automa
        if automa is not None and game.automa_seat(state) is not None:   # a game against its own automa
            level = (opts.get(automa.option) or {}).get("level")
            if level is None:  # such a game always names its level (unrated_reason)
                return {"unrated": f"games against {automa.title} without a level are not rated"}
            if level not in automa.level_names:   # a level the game no longer declares: no pool
                return {"unrated": f"{automa.title} has no level {level!r} now"}
            human = humans[0]
            if human in dropped:
                return {"unrated": "the stand-in played the human seat to the end"}
            return {"pool": automa_pool(game, level), "solo": True, "human": pids[human],
                    "bot": automa.player_of(game.name, level),
                    "human_won": game.winner(state) == human, "names": names}
        # the game's own tie-break (or shared places); the resigned seats last
        finish = final_places(game.places(state), resigned)
        return {"pool": game_pool(game.name), "solo": False, "names": names,
                "result": {"players": [pids[i] for i in range(len(seats))], "finish": finish,
                           "dropped": [pids[i] for i in dropped]}}

    def _dropped(self, game_id: str, n: int) -> list[int]:
        raw = self.r.hmget(SEAT_STATE.key(game_id), [f"{game_id}:{i}" for i in range(n)])
        return [i for i, v in enumerate(raw) if v and json.loads(v).get("dropped")]

    # --- rating --------------------------------------------------------------------------------
    def record_game(self, game_id: str) -> bool:
        """Rate a finished game once; True if this call rated it."""
        if self.r.hexists(RATED.key(game_id), game_id):
            return False
        a = self.assess(game_id)
        if "unrated" in a:
            if a["unrated"] != "not finished":
                self.r.hsetnx(RATED.key(game_id), game_id, "unrated: " + a["unrated"])
            return False
        pk = pool_key(a["pool"])
        done = pk + ":done"  # in the pool's slot: the transaction checks it (RATED is the game's)
        players = [a["human"], a["bot"]] if a["solo"] else a["result"]["players"]
        while True:
            with self.r.pipeline(transaction=True) as pipe:
                try:
                    pipe.watch(pk, done)
                    if pipe.hexists(done, game_id):
                        self.r.hsetnx(RATED.key(game_id), game_id, "rated")
                        return False
                    before = {p: _rating(raw) for p, raw in zip(players, pipe.hmget(pk, players))}
                    after = self._rate(a, {p: rg[0] for p, rg in before.items()})
                    now = self.clock()
                    pipe.multi()
                    for p in players:
                        if p.startswith(FORMER_PREFIX):
                            continue
                        old, games = before[p]
                        new = after[p]
                        pipe.hset(pk, p, _doc(new, games + 1))
                        pipe.zadd(pk + ":board", {p: new.mu})
                        pipe.rpush(f"{pk}:hist:{p}", json.dumps({
                            "game": game_id, "pool": a["pool"], "at": now,
                            "before": {"rating": old.mu, "rd": old.rd},
                            "after": {"rating": new.mu, "rd": new.rd}}))
                    pipe.hset(done, game_id, "rated")
                    pipe.execute()
                    for p, name in a["names"].items():
                        remember_name(self.r, p, name)
                    self.r.hset(RATED.key(game_id), game_id, "rated")
                    return True
                except redis.WatchError:
                    continue  # another game of the pool was rated meanwhile: rate from its result

    @staticmethod
    def _rate(a: dict, ratings: dict[str, Rating]) -> dict[str, Rating]:
        if a["solo"]:
            h, b = rate_solo(ratings[a["human"]], ratings[a["bot"]], a["human_won"])
            return {a["human"]: h, a["bot"]: b}
        new = rate_result(ratings, a["result"])
        return {p: new.get(p, ratings[p]) for p in a["result"]["players"]}

    # --- reading -------------------------------------------------------------------------------
    def leaderboard(self, pool: str, offset: int = 0, limit: int = 50) -> dict:
        pool = canonical_pool(pool)
        if pool not in POOLS:
            raise errors.missing("pool-not-found", errors.said("no rating pool {pool} (pools: {pools})",
                                                                 pool=repr(pool), pools=", ".join(POOLS)))
        pk = pool_key(pool)
        ids = [m.decode() for m in self.r.zrevrange(pk + ":board", offset, offset + limit - 1)]
        rows = []
        for rank, (p, raw) in enumerate(zip(ids, self.r.hmget(pk, ids) if ids else []), start=offset + 1):
            rating, games = _rating(raw)
            rows.append({"rank": rank, "player": p, "name": self._name(p), "rating": round(rating.mu, 1),
                         "rd": round(rating.rd, 1), "volatility": round(rating.vol, 6), "games": games})
        return {"pool": pool, "total": self.r.zcard(pk + ":board"), "ratings": rows}

    def player(self, pid: str) -> dict:
        pipe = self.r.pipeline(transaction=False)  # the history before pools kept it, then each pool's
        pipe.lrange(f"ratings:hist:{pid}", 0, -1)
        for pool in POOLS:
            pipe.lrange(f"{pool_key(pool)}:hist:{pid}", 0, -1)
        hist = sorted((json.loads(x) for part in pipe.execute() for x in part), key=lambda h: h["at"])
        for h in hist:   # a history entry written before the pool was renamed, not moved yet
            h["pool"] = canonical_pool(h["pool"])
        if not hist:
            raise errors.missing("player-not-found", "no rated games for this player")
        ratings = {}
        for pool in sorted({h["pool"] for h in hist}):
            rating, games = _rating(self.r.hget(pool_key(pool), pid))
            ratings[pool] = {"rating": round(rating.mu, 1), "rd": round(rating.rd, 1),
                             "volatility": round(rating.vol, 6), "games": games}
        return {"player": pid, "name": self._name(pid), "ratings": ratings, "history": hist}

    def _name(self, pid: str) -> str:
        if pid in AUTOMA_PLAYERS:
            return AUTOMA_PLAYERS[pid]
        return name_of(self.r, pid) or pid
