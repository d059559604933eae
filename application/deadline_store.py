"""Where the deadlines live in Redis (docs/pbem.md, "Deadlines"): the sharded indexes of
application/indexes.py (``deadlines`` and ``reminders`` scored by time, ``notices``, the turn
each seat is in) and each seat's clock state, with the reading of their members."""
from __future__ import annotations

import json

from .indexes import (DEADLINES, NOTICES, REMINDERS, SEAT_STATE, TURNS, add,  # noqa: F401 (re-exported)
                      game_members)

# SEAT_STATE: sharded hash "<game>:<seat>" -> {"missed", "dropped", "vacation_since", "vacation_used"}
NEW_SEAT = {"missed": 0, "dropped": False, "vacation_since": None, "vacation_used": 0.0}


class BadEntry(ValueError):
    """An index entry that cannot be read."""


def parse_member(member, parts: int) -> list[str]:
    """``<game>:<a>:<b>...`` split into ``parts`` fields (the game id may hold no colon)."""
    try:
        text = member.decode() if isinstance(member, bytes) else str(member)
    except UnicodeDecodeError as e:
        raise BadEntry(str(e)) from None
    fields = text.rsplit(":", parts - 1)
    if len(fields) != parts or not fields[0] or ":" in fields[0]:
        raise BadEntry(f"expected {parts} fields")
    for f in fields[1:3]:
        if not f.isdigit():
            raise BadEntry(f"{f!r} is not a number")
    if parts == 4 and fields[3] not in ("stand-in", "dropped"):
        try:
            h = float(fields[3])
        except ValueError:
            raise BadEntry(f"{fields[3]!r} is not a number of hours") from None
        if not h == h or h in (float("inf"), float("-inf")):
            raise BadEntry(f"{fields[3]!r} is not a number of hours")
    return fields


def seat_state(r, game_id: str, seat: int) -> dict:
    """The seat's clock state: missed deadlines, dropped, its vacation."""
    raw = r.hget(SEAT_STATE.key(game_id), f"{game_id}:{seat}")
    return json.loads(raw) if raw else dict(NEW_SEAT)


def save_seat_state(r, game_id: str, seat: int, st: dict) -> None:
    r.hset(SEAT_STATE.key(game_id), f"{game_id}:{seat}", json.dumps(st))


def schedule_turn(r, game_id: str, seat: int, version: int, due: float,
                  reminders: dict[float, float]) -> None:
    """The turn's deadline at ``due`` and its reminders (hours before -> when), in one transaction
    (one slot: every key has the game's shard tag)."""
    pipe = r.pipeline(transaction=True)
    add(pipe, DEADLINES, game_id, f"{game_id}:{seat}:{version}", due)
    pipe.hset(TURNS.key(game_id), f"{game_id}:{seat}", version)
    for h, at in reminders.items():
        add(pipe, REMINDERS, game_id, f"{game_id}:{seat}:{version}:{h}", at)
    pipe.execute()


def pending_deadline(r, game_id: str, seat: int) -> tuple[int, float] | None:
    """(version of the seat's turn, its deadline) if the seat has a turn whose deadline is set."""
    raw = r.hget(TURNS.key(game_id), f"{game_id}:{seat}")
    if raw is None:
        return None
    version = int(raw)
    due = r.zscore(DEADLINES.key(game_id), f"{game_id}:{seat}:{version}")
    return None if due is None else (version, due)


def push_back(r, game_id: str, seat: int, seconds: float) -> None:
    """The seat's deadlines and reminders later by ``seconds`` (the reminders move with the deadline)."""
    prefix = f"{game_id}:{seat}:".encode()
    for index in (DEADLINES, REMINDERS):
        for member in game_members(r, index, game_id):
            if member.startswith(prefix):
                r.zincrby(index.key(game_id), seconds, member)
