"""Games that wait for players (docs/lobby.md): how a game with open seats is stored before it starts.

A game's event stream starts with ``GameStarted``, which holds the chance outcomes of its secret
seed, so a game that still waits for players has no stream, no meta, no seed and no commitment
yet: only its *waiting record*, under the game's own hash tag (one slot with everything the game
will have), and the real game is created under the same id when the last seat is taken
(:class:`application.lobby.Lobby`). Nothing seed-dependent exists before then, so nothing of it
can leak.

| key | type | what |
|---|---|---|
| ``g:{<id>}:waiting`` | string | the waiting record (JSON, below); kept ``CANCELLED_TTL`` after a cancellation |
| ``g:{<id>}:join:<nonce>`` | string | a join asked by email, until its one-time link is opened (JSON ``{name, email, at}``) |
| ``lobby:list:{lobby}:<game>:<players>:<rated>`` | zset | game id -> creation time: the listed waiting games, one set per filter (``*`` for any) |
| ``lobby:expires:{ix<nn>}`` (sharded) | zset | game id -> when it is cancelled if still waiting (the sweep's index) |
| ``me:lobby:<player id>`` | zset | game id -> creation time: the waiting games seating an address |

The record: ``{"game", "players", "options", "waiting_days", "rating_range", "private", "created",
"expires", "status", "creator", "invite", "seats"}``, ``status`` one of ``waiting``, ``starting``
(the last seat was taken; the game is being created), ``cancelled``; ``creator`` and ``invite``
are SHA-256 hashes of the creator token and the invitation code; each seat is ``{"kind": "open"}``
or as the game's meta will keep it (a human seat with ``name``, ``email``, ``token_hash``; an AI
seat with its ``level``).

This module imports no service of the package (the game service asks it whether an id it cannot
find is a waiting game)."""  # noqa: E501 (a Markdown table: its rows cannot wrap)
from __future__ import annotations

import json

import redis

import games as hosted

from . import errors
from .clock import iso  # noqa: F401 (the lobby says its times so: waiting.iso)
from .indexes import Sharded, whole
from .players import player_id

WAITING = "waiting"
STARTING = "starting"
CANCELLED = "cancelled"
CANCELLED_TTL = 30 * 86400   # a cancelled game answers "cancelled" this long, then it is unknown
OPEN = Sharded("lobby:open", owner_of=whole)         # the lobby's list before issue 39: only read to adopt it
LIST = "lobby:list:{lobby}"   # one hash tag: a game's entries in every filter's set change in one transaction
ANY = "*"
RATED = {True: "rated", False: "unrated"}
EXPIRES = Sharded("lobby:expires", owner_of=whole)   # zset game id -> when it is cancelled if not full


def player_key(pid: str) -> str:
    return f"me:lobby:{pid}"


def index_seat(r, game_id: str, email: str | None, created: float) -> None:
    """The waiting game is on the dashboard of ``email`` (a seat was given to it). Entries of games
    no longer waiting, or no longer seating the address, are dropped when the dashboard reads them."""
    if email and email.strip():
        r.zadd(player_key(player_id(r, email)), {game_id: created})


def unindex_seat(r, game_id: str, email: str | None) -> None:
    if email and email.strip():
        r.zrem(player_key(player_id(r, email)), game_id)


def list_key(game: str | None = None, players: int | None = None, rated: bool | None = None) -> str:
    """The sorted set of the listed waiting games that match a filter (None: any), newest last."""
    return f"{LIST}:{game or ANY}:{players or ANY}:{ANY if rated is None else RATED[bool(rated)]}"


def list_keys(doc: dict) -> list[str]:
    """Every filter's set a waiting game is in (8: with or without each of game, players, rated)."""
    return [list_key(g, p, r) for g in (doc["game"], None) for p in (doc["players"], None)
            for r in (bool(doc.get("rated")), None)]


def every_list_key() -> list[str]:
    """The sets a game could be in, whatever it is (to drop an entry whose record is gone)."""
    return [list_key(g, p, r) for g in (*hosted.NAMES, None) for p in (*range(1, 7), None)
            for r in (True, False, None)]


def listed(doc: dict | None) -> bool:
    """Whether a waiting game is in the lobby's list: waiting, not private, a seat open."""
    return (doc is not None and doc["status"] == WAITING and not doc.get("private")
            and bool(open_seats(doc)))


def sync_listing(r, game_id: str, doc: dict | None) -> None:
    """Put the game in, or take it out of, every filter's set as its record says (idempotent; the
    sets of one game change together, in one transaction). ``doc`` None: the record is gone."""
    pipe = r.pipeline(transaction=True)
    if listed(doc):
        assert doc is not None
        for k in list_keys(doc):
            pipe.zadd(k, {game_id: doc["created"]})
    else:
        for k in (list_keys(doc) if doc is not None else every_list_key()):
            pipe.zrem(k, game_id)
    pipe.execute()


def record_key(game_id: str) -> str:
    return f"g:{{{game_id}}}:waiting"


def join_key(game_id: str, nonce: str) -> str:
    return f"g:{{{game_id}}}:join:{nonce}"


def load(r, game_id: str) -> dict | None:
    raw = r.get(record_key(game_id))
    return json.loads(raw) if raw else None


def open_seats(doc: dict) -> list[int]:
    return [i for i, s in enumerate(doc["seats"]) if s["kind"] == "open"]


def taken_names(doc: dict) -> list[str]:
    return [s["name"] for s in doc["seats"] if s["kind"] != "open"]


def seated_addresses(doc: dict) -> set[str]:
    return {s["email"].strip().lower() for s in doc["seats"] if s["kind"] == "human" and s.get("email")}


def refuse_not_started(r, game_id: str) -> None:
    """Raise the answer for a game that has not started (409 ``game-not-started``, or
    ``game-cancelled``); return when ``game_id`` is no waiting game either."""
    doc = load(r, game_id)
    if doc is None:
        return
    if doc["status"] == CANCELLED:
        raise errors.refused("game-cancelled", "this game was cancelled before it started: not enough "
                                               "players joined in time")
    raise errors.refused("game-not-started",
                         errors.said("this game has not started: it is waiting for players ({n} open "
                                     "seats; see /api/v1/lobby/{game})", n=len(open_seats(doc)),
                                     game=game_id),
                         open_seats=len(open_seats(doc)))


def update(r, game_id: str, change, also_delete: str | None = None):
    """Apply ``change(doc)`` to the waiting record atomically (optimistic, retried when another
    writer got in between), and delete ``also_delete`` (a key of the game's slot, watched too:
    it must still exist, else ``change`` is called with ``None`` for it) in the same transaction.
    ``change`` may raise a ServiceError: nothing is written. Returns what ``change`` returns."""
    with r.pipeline(transaction=True) as pipe:
        while True:
            try:
                keys = [record_key(game_id)] + ([also_delete] if also_delete else [])
                pipe.watch(*keys)
                raw = pipe.get(record_key(game_id))
                if raw is None:
                    raise errors.not_found()
                extra = pipe.get(also_delete) if also_delete else None
                doc = json.loads(raw)
                out = change(doc, extra) if also_delete else change(doc)
                pipe.multi()
                if doc["status"] == CANCELLED:
                    pipe.set(record_key(game_id), json.dumps(doc), ex=CANCELLED_TTL)
                else:
                    pipe.set(record_key(game_id), json.dumps(doc))
                if also_delete:
                    pipe.delete(also_delete)
                pipe.execute()
                return out
            except redis.WatchError:
                continue




def summary(game_id: str, doc: dict) -> dict:
    """``GET /api/v1/games/{id}`` of a game that has not started: who has a seat so far, nothing
    that depends on a seed (there is none yet)."""
    return {
        "id": game_id, "game": doc["game"],
        "status": CANCELLED if doc["status"] == CANCELLED else WAITING,
        "version": 0, "round": 0, "phase": WAITING, "to_act": [],
        "seats": [{"seat": i, "name": s.get("name"), "kind": s["kind"], "score": 0,
                   **({"level": s.get("level") or "medium"} if s["kind"] == "ai" else {})}
                  for i, s in enumerate(doc["seats"])],
        "winner": None, "seed_commitment": None, "rated": doc.get("rated", False),
    }
