"""How reliably someone plays (docs/pbem.md, "Your public profile"): per player (an email address,
known by its opaque player id), counters kept as games end and moves land, never a scan.

- **finished**: the player's games that ended with the player still in them;
- **abandoned**: those the player left: resigned while others played on or the game ended by it,
  or dropped for missed deadlines (the stand-in played the seat to the end);
- **stand-in turns**: the turns the stand-in (the AI) played for the player's seat: a missed
  deadline, a seat dropped or resigned in a game that went on;
- **usual time to move**: the median of the player's recent move delays (the last
  :data:`DELAYS_KEPT`): the time from the start of the seat's turn (the decision became its own)
  to its first move of that turn, by any channel; a turn the stand-in played is not a delay.

Only people's seats with an address count (AI seats, bot accounts and the Cardinalbot have no
player). What it costs: on every append, one HSETNX of the turn's start in the game's own slot and,
for a person's first move of a turn, an HGET/HDEL there and an LPUSH/LTRIM of the delay in the
player's slot; at a game's end, one SET NX (counted once, however often the follow-up runs) and one
HINCRBY per person. Reading is one HMGET and one LRANGE of at most :data:`DELAYS_KEPT` numbers.

| key | type | what |
|---|---|---|
| ``rel:{<player id>}`` | hash | ``finished``, ``abandoned``, ``stand_in`` (counts) |
| ``rel:{<player id>}:delays`` | list | the latest move delays in seconds, newest first |
| ``g:{<game>}:turn-start`` | hash | seat -> when its current turn started |
| ``g:{<game>}:reliability`` | string | the game's end was counted (kept 30 days) |

Who sees it: public profiles (``GET /api/v1/players/{handle}``) and, beside each player who
joined a waiting game, the lobby -- only for a player whose profile is public; never an address.
"""  # noqa: E501 (a Markdown table: its rows cannot wrap)
from __future__ import annotations

import logging
import statistics

import games

from .players import player_id
from .store import key

log = logging.getLogger("tablepost.reliability")

DELAYS_KEPT = 200
COUNTED_TTL = 30 * 86400


def rel_key(pid: str) -> str:
    return f"rel:{{{pid}}}"


def delays_key(pid: str) -> str:
    return f"rel:{{{pid}}}:delays"


def _person(r, meta: dict, seat: int | None) -> str | None:
    """The player id of ``seat`` when a person with an address plays it."""
    if seat is None or not 0 <= seat < len(meta["seats"]):
        return None
    s = meta["seats"][seat]
    email = s.get("email")
    return player_id(r, email) if s.get("kind") == "human" and email else None


def moved(r, game_id: str, meta: dict, state, mover: int | None, by: str | None, now: float) -> None:
    """After an append by ``mover`` (``by``: ``"stand-in"`` for the stand-in's turn, ``"resign"``
    for a resignation, None for the seat itself): the mover's delay or stand-in turn is counted, and
    the turn of the seat now to act starts (if it is a person's and had not started)."""
    game = games.of_meta(meta)
    turns = key(game_id, "turn-start")
    pid = _person(r, meta, mover)
    if pid is not None:
        if by == "stand-in":
            r.hincrby(rel_key(pid), "stand_in", 1)
            r.hdel(turns, str(mover))
        elif by == "resign":
            r.hdel(turns, str(mover))
        else:
            pipe = r.pipeline(transaction=True)   # one key
            pipe.hget(turns, str(mover))
            pipe.hdel(turns, str(mover))
            start, _ = pipe.execute()
            if start is not None:
                pipe = r.pipeline(transaction=True)   # the player's slot
                pipe.lpush(delays_key(pid), max(0, round(now - float(start))))
                pipe.ltrim(delays_key(pid), 0, DELAYS_KEPT - 1)
                pipe.execute()
    actor = None if game.is_over(state) else game.actor(state)
    if actor is not None and actor != mover and _person(r, meta, actor) is not None:
        r.hsetnx(turns, str(actor), f"{now:.3f}")
    if game.is_over(state):
        r.delete(turns)


def game_over(r, game_id: str, meta: dict, resigned: list[int], dropped: list[int]) -> int:
    """Count the finished game for each person in it, once: abandoned for a seat in ``resigned``
    or ``dropped``, finished otherwise. Returns the number of players counted (0: counted before)."""
    if not r.set(key(game_id, "reliability"), 1, nx=True, ex=COUNTED_TTL):
        return 0
    n = 0
    left = set(resigned) | set(dropped)
    for seat in range(len(meta["seats"])):
        pid = _person(r, meta, seat)
        if pid is None:
            continue
        r.hincrby(rel_key(pid), "abandoned" if seat in left else "finished", 1)
        n += 1
    return n


def of_player(r, pid: str) -> dict:
    """The player's figures: games finished and abandoned, stand-in turns, the median time to
    move in seconds (None before any move was timed) over ``moves_timed`` recent moves."""
    return of_players(r, [pid])[pid]


def of_players(r, pids: list[str]) -> dict[str, dict]:
    """:func:`of_player` of each of ``pids``, in one pipeline."""
    pids = list(dict.fromkeys(pids))
    if not pids:
        return {}
    pipe = r.pipeline(transaction=False)
    for pid in pids:
        pipe.hmget(rel_key(pid), ["finished", "abandoned", "stand_in"])
        pipe.lrange(delays_key(pid), 0, DELAYS_KEPT - 1)
    got = pipe.execute()
    out = {}
    for i, pid in enumerate(pids):
        counts, delays = got[2 * i], got[2 * i + 1]
        finished, abandoned, stand_in = (int(v) if v else 0 for v in counts)
        secs = [int(d) for d in delays]
        out[pid] = {"games_finished": finished, "games_abandoned": abandoned, "stand_in_turns": stand_in,
                    "median_move_seconds": round(statistics.median(secs)) if secs else None,
                    "moves_timed": len(secs)}
    return out


def forget(r, pid: str) -> None:
    """The player's figures are gone (account deletion, with the profile)."""
    r.delete(rel_key(pid), delays_key(pid))


__all__ = ["DELAYS_KEPT", "forget", "game_over", "moved", "of_player", "of_players"]
