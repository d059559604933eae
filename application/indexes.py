"""The Redis indexes that point at games (due work, deadlines, reminders), and how a game leaves
them. A finished or deleted game leaves every one of them (issue 12): its follow-up no longer needs
them, and a sweep must never reprocess an entry of a game that is over or gone.

Members are ``<game>:...`` (a game id holds no colon), or the game id itself (``bot:due``).
This module imports no other module of the package, so every other one may use it."""
from __future__ import annotations

import re

DEADLINES = "deadlines"        # zset "<game>:<seat>:<version>" -> due time
REMINDERS = "reminders"        # zset "<game>:<seat>:<version>:<hours>" -> when to remind
TURNS = "deadlines:turn"       # hash "<game>:<seat>" -> the version of the seat's latest deadline
NOTICES = "deadlines:notices"  # zset "<game>:<seat>:<version>:<stand-in|dropped>": players to tell by email
MAIL_DUE = "mail:due"          # zset "<game>:<seat>:<version>" -> time the turn email became due
DUE = "bot:due"                # zset game id -> time the bot's turn became due
DUE_AT = "bot:due:at"          # hash game id -> "<seat>:<version>"

GAME_ZSETS = (DEADLINES, REMINDERS, MAIL_DUE)


def _glob(text: str) -> str:
    return re.sub(r"([\\*?\[\]])", r"\\\1", text)


def game_members(r, key: str, game_id: str, hash_: bool = False) -> list[bytes]:
    """The members of the zset (or fields of the hash) ``key`` that belong to ``game_id``."""
    prefix = f"{game_id}:".encode()
    match = _glob(game_id) + ":*"
    if hash_:
        return [f for f, _ in r.hscan_iter(key, match=match) if f.startswith(prefix)]
    return [m for m, _ in r.zscan_iter(key, match=match) if m.startswith(prefix)]


def version_of(member: bytes) -> int | None:
    """The version in ``<game>:<seat>:<version>[:...]``, or None when it cannot be read."""
    parts = member.split(b":")
    try:
        return int(parts[2])
    except (IndexError, ValueError):
        return None


def forget_due(r, game_id: str, upto_version: int | None = None) -> int:
    """Take the game's turn emails out of ``mail:due`` (those up to ``upto_version``, or all)."""
    gone = [m for m in game_members(r, MAIL_DUE, game_id)
            if upto_version is None or (version_of(m) or 0) <= upto_version]
    return r.zrem(MAIL_DUE, *gone) if gone else 0


def forget_turns_before(r, game_id: str, version: int) -> None:
    """The game's deadlines and reminders of turns that started before ``version``: one seat acts
    at a time, so a new turn means they are over."""
    pipe = r.pipeline()
    for key in (DEADLINES, REMINDERS):
        old = [m for m in game_members(r, key, game_id) if (version_of(m) or 0) < version]
        if old:
            pipe.zrem(key, *old)
    pipe.execute()


def forget_game(r, game_id: str) -> None:
    """Take a finished (or deleted) game out of every index of due work (not ``deadlines:notices``:
    a player whose last turn the stand-in played is still told)."""
    pipe = r.pipeline()
    for key in GAME_ZSETS:
        members = game_members(r, key, game_id)
        if members:
            pipe.zrem(key, *members)
    turns = game_members(r, TURNS, game_id, hash_=True)
    if turns:
        pipe.hdel(TURNS, *turns)
    pipe.zrem(DUE, game_id)
    pipe.hdel(DUE_AT, game_id)
    pipe.execute()


def games_in_indexes(r) -> set[str]:
    """Every game id some index points at (for the maintenance pass)."""
    ids: set[str] = set()
    for key in GAME_ZSETS:
        ids.update(m.split(b":", 1)[0].decode("utf-8", "replace") for m, _ in r.zscan_iter(key))
    ids.update(f.split(b":", 1)[0].decode("utf-8", "replace") for f, _ in r.hscan_iter(TURNS))
    ids.update(m.decode("utf-8", "replace") for m, _ in r.zscan_iter(DUE))
    ids.update(f.decode("utf-8", "replace") for f, _ in r.hscan_iter(DUE_AT))
    return ids
