"""The Redis indexes that point at games (due work, deadlines, reminders), and how a game leaves
them. A finished or deleted game leaves every one of them (issue 12): its follow-up no longer needs
them, and a sweep must never reprocess an entry of a game that is over or gone.

**Sharded for Redis Cluster (issue 15).** No index is one key that every move touches: each is
split into :data:`SHARDS` keys ``<name>:{ix<nn>}``, and an entry lives in the shard of its *owner*
(the game id for game entries, the address or player id for the mail and player hashes), chosen
by a CRC32 of the owner. All indexes use the same hash tags ``{ix00}``..``{ix63}``, so everything
one game has in the indexes sits in one hash slot: a transaction over a game's deadline,
reminders and turn stays on one node. Sweeps read every shard (:meth:`Sharded.due`).

A game's entries in the sorted sets are also listed in its *registry* ``ixg:{ix<nn>}:<game>``
(a set of ``<index>|<member>``), so the game's entries are found without scanning an index
(:func:`game_members`); :func:`forget_game` empties the registry with the entries.

Members are ``<game>:...`` (a game id holds no colon), or the game id itself (``bot:due``).
Data written before the sharding (one key per index) is moved into the shards by
:func:`adopt_legacy`, run when the service and the workers start.
This module imports no other module of the package, so every other one may use it."""
from __future__ import annotations

import logging
import re
import zlib

log = logging.getLogger("tablepost.indexes")

SHARDS = 64   # fixed: the shard of an owner must never change (docs/deploy.md)
SEATS = 6     # field names "<game>:<seat>" for seats 0..SEATS-1 are looked up when a game leaves


def shard(owner: str | bytes) -> int:
    if isinstance(owner, str):
        owner = owner.encode("utf-8", "surrogatepass")
    return zlib.crc32(owner) % SHARDS


def game_of(member: bytes | str) -> str:
    """The owner of an entry ``<game>:...`` (or of a bare game id)."""
    if isinstance(member, bytes):
        member = member.decode("utf-8", "replace")
    return member.split(":", 1)[0]


class Sharded:
    """One index split into :data:`SHARDS` keys; ``owner_of(member)`` says whose an entry is."""

    def __init__(self, name: str, kind: str = "zset", owner_of=game_of):
        self.name, self.kind, self.owner_of = name, kind, owner_of

    def key(self, owner: str | bytes) -> str:
        return self.at(shard(owner))

    def at(self, n: int) -> str:
        return f"{self.name}:{{ix{n:02d}}}"

    def keys(self) -> list[str]:
        return [self.at(n) for n in range(SHARDS)]

    def key_of(self, member: bytes | str) -> str:
        return self.key(self.owner_of(member))

    def due(self, r, upto: float | str, start="-inf", limit: int | None = None) -> list[bytes]:
        """The members of every shard scored up to ``upto`` (a sorted set), earliest first."""
        pipe = r.pipeline(transaction=False)
        for k in self.keys():
            if limit is None:
                pipe.zrangebyscore(k, start, upto, withscores=True)
            else:
                pipe.zrangebyscore(k, start, upto, start=0, num=limit, withscores=True)
        found = [pair for part in pipe.execute() for pair in part]
        found.sort(key=lambda p: p[1])
        return [m for m, _ in (found if limit is None else found[:limit])]

    def all_members(self, r) -> list[bytes]:
        """Every member of every shard (a set or sorted set) or every field (a hash)."""
        out: list[bytes] = []
        for k in self.keys():
            if self.kind == "zset":
                out.extend(m for m, _ in r.zscan_iter(k))
            elif self.kind == "hash":
                out.extend(f for f, _ in r.hscan_iter(k))
            else:
                out.extend(r.sscan_iter(k))
        return out

    def card(self, r) -> int:
        pipe = r.pipeline(transaction=False)
        for k in self.keys():
            {"zset": pipe.zcard, "hash": pipe.hlen, "set": pipe.scard}[self.kind](k)
        return sum(pipe.execute())

    def __repr__(self) -> str:
        return f"Sharded({self.name!r})"


DEADLINES = Sharded("deadlines")            # zset "<game>:<seat>:<version>" -> due time
REMINDERS = Sharded("reminders")            # zset "<game>:<seat>:<version>:<hours>" -> when to remind
TURNS = Sharded("deadlines:turn", "hash")   # hash "<game>:<seat>" -> the version
                                            # of the seat's latest deadline
NOTICES = Sharded("deadlines:notices")      # zset "<game>:<seat>:<version>:<stand-in|dropped>":
                                            # players to tell
MAIL_DUE = Sharded("mail:due")              # zset "<game>:<seat>:<version>" -> time the turn email became due
MAIL_LATER = Sharded("mail:later")          # zset "<game>:<seat>:<version>" -> when a live seat's turn email
                                            # is due (application/live.py)
DUE = Sharded("bot:due")                    # zset game id -> time the bot's turn became due
DUE_AT = Sharded("bot:due:at", "hash")      # hash game id -> "<seat>:<version>"
GAMES_OVER = Sharded("games:over")          # zset game id -> when it ended, until its follow-up is done
ACTIVE = Sharded("games:active")            # zset game id -> when it was created, while it is in progress
SEAT_STATE = Sharded("seatstate", "hash")   # hash "<game>:<seat>" -> the seat's deadline state (deadlines.py)


def whole(member: bytes | str) -> str:
    """The owner of an entry that is its own owner (an address, a player id, a field)."""
    return member.decode("utf-8", "replace") if isinstance(member, bytes) else member


def first_of_bar(member: bytes | str) -> str:
    return whole(member).split("|", 1)[0]


# Indexes of addresses and players, read when a turn email goes out: sharded the same way.
PREFS = Sharded("mail:prefs", "hash", whole)           # hash address -> "every" | "digest" | "none"
DIGEST = Sharded("mail:digest", "set", first_of_bar)   # set "<address>|<game>|<seat>|<version>"
ME_EMAIL = Sharded("me:email", "hash", whole)          # hash player id -> address
ME_RESULTS = Sharded("me:results", "hash")             # hash game id -> its result for dashboards
TOLD = Sharded("me:told", "set", whole)                # set of addresses told about the dashboard
NAMES = Sharded("players:names", "hash", whole)        # hash player id -> the name last used
MAIL_DELAY = Sharded("mail:delay", "hash", whole)      # hash address -> minutes a live turn email waits
LANGUAGE = Sharded("mail:lang", "hash", whole)         # hash address -> its emails' language (docs/i18n.md)
TIME_ZONE = Sharded("mail:tz", "hash", whole)          # hash address -> its emails' time zone (IANA name)
GENERATIONS = Sharded("links:gen", "hash", whole)      # hash "<game>:<seat>" | "me:<pid>" -> generation
RATED = Sharded("ratings:done", "hash")                # hash game id -> how the game was rated

GAME_ZSETS = (DEADLINES, REMINDERS, MAIL_DUE, MAIL_LATER)
REGISTERED = (DEADLINES, REMINDERS, MAIL_DUE, NOTICES, MAIL_LATER)   # zsets whose members the registry lists


def hmget(r, index: Sharded, fields: list[str]) -> list[bytes | None]:
    """HMGET over a sharded hash: each field from its owner's shard (one round trip)."""
    if not fields:
        return []
    pipe = r.pipeline(transaction=False)
    for f in fields:
        pipe.hget(index.key_of(f), f)
    return pipe.execute()


def registry(game_id: str) -> str:
    return f"ixg:{{ix{shard(game_id):02d}}}:{game_id}"


def add(pipe, index: Sharded, game_id: str, member: str, score: float, **zadd_options) -> None:
    """Put ``member`` (an entry of ``game_id``) into ``index`` and the game's registry."""
    pipe.zadd(index.key(game_id), {member: score}, **zadd_options)
    if index in REGISTERED:
        pipe.sadd(registry(game_id), f"{index.name}|{member}")


def remove(r, index: Sharded, *members: bytes | str, pipe=None) -> int:
    """Take entries out of ``index`` (and their games' registries); returns how many were there.
    With ``pipe`` (a pipeline of the caller's) the removals are only queued there, and the number
    returned is of those queued."""
    if not members:
        return 0
    queued = pipe is not None
    pipe = pipe if queued else r.pipeline(transaction=False)
    for m in members:
        pipe.zrem(index.key_of(m), m)
        if index in REGISTERED:
            text = m.decode("utf-8", "replace") if isinstance(m, bytes) else m
            pipe.srem(registry(index.owner_of(m)), f"{index.name}|{text}")
    if queued:
        return len(members)
    return sum(pipe.execute()[::2 if index in REGISTERED else 1])


def game_members(r, index: Sharded, game_id: str, members: set[bytes] | None = None) -> list[bytes]:
    """The members of ``index`` that belong to ``game_id`` (from the game's registry, or from
    ``members``, that registry as the caller already read it)."""
    prefix = f"{index.name}|".encode()
    if members is None:
        members = r.smembers(registry(game_id))
    return [m[len(prefix):] for m in members if m.startswith(prefix)]


def version_of(member: bytes) -> int | None:
    """The version in ``<game>:<seat>:<version>[:...]``, or None when it cannot be read."""
    parts = member.split(b":")
    try:
        return int(parts[2])
    except (IndexError, ValueError):
        return None


def forget_due(r, game_id: str, upto_version: int | None = None, members: set[bytes] | None = None,
               pipe=None) -> int:
    """Take the game's turn emails out of ``mail:due`` (those up to ``upto_version``, or all);
    ``members``: the game's registry as read by the caller (entries added since are newer);
    ``pipe``: only queue the removals on this pipeline of the caller's (see ``remove``)."""
    gone = [m for m in game_members(r, MAIL_DUE, game_id, members)
            if upto_version is None or (version_of(m) or 0) <= upto_version]
    return remove(r, MAIL_DUE, *gone, pipe=pipe)


def forget_turns_before(r, game_id: str, version: int, members: set[bytes] | None = None) -> None:
    """The game's deadlines and reminders of turns that started before ``version``: one seat acts
    at a time, so a new turn means they are over. ``members``: the game's registry, if read."""
    if members is None:
        members = r.smembers(registry(game_id))
    for index in (DEADLINES, REMINDERS):
        old = [m for m in game_members(r, index, game_id, members) if (version_of(m) or 0) < version]
        remove(r, index, *old)


def forget_game(r, game_id: str, scan: bool = False) -> None:
    """Take a finished (or deleted) game out of every index of due work (not ``deadlines:notices``:
    a player whose last turn the stand-in played is still told). ``scan`` also looks through the
    game's shards for entries its registry does not list (the maintenance pass)."""
    for index in GAME_ZSETS:
        members = set(game_members(r, index, game_id))
        if scan:
            prefix = f"{game_id}:".encode()
            members.update(m for m, _ in r.zscan_iter(index.key(game_id), match=_glob(game_id) + ":*")
                           if m.startswith(prefix))
        remove(r, index, *members)
    pipe = r.pipeline(transaction=True)   # one slot: every key here has the game's shard tag
    pipe.hdel(TURNS.key(game_id), *[f"{game_id}:{s}" for s in range(SEATS)])
    pipe.zrem(DUE.key(game_id), game_id)
    pipe.hdel(DUE_AT.key(game_id), game_id)
    pipe.zrem(ACTIVE.key(game_id), game_id)
    pipe.execute()
    left = [m for m in r.smembers(registry(game_id)) if not m.startswith(f"{NOTICES.name}|".encode())]
    if left:
        r.srem(registry(game_id), *left)


# --- attempts of the sweeps at one entry (issue 27) ----------------------------------------------
# A sweep counts each attempt at an entry *before* it handles it and forgets the count once the
# entry was handled: an entry that fails every time, or whose handling never ends (the worker is
# killed at its time limit), is seen by its count and given up after ``max_attempts`` instead of
# being tried for ever. One small counter key per entry, in the entry's owner's shard, which
# expires by itself (an entry taken out by another path leaves nothing behind for long).
ATTEMPTS_TTL = 7 * 86400


def attempts_key(index: Sharded, member: bytes | str) -> str:
    text = member.decode("utf-8", "replace") if isinstance(member, bytes) else member
    return f"attempts:{{ix{shard(index.owner_of(member)):02d}}}:{index.name}|{text}"


def begin_attempt(r, index: Sharded, member: bytes | str) -> int:
    """Count one more attempt at ``member`` of ``index``; returns the attempts so far, this one included."""
    pipe = r.pipeline(transaction=True)   # one key
    key = attempts_key(index, member)
    pipe.incr(key)
    pipe.expire(key, ATTEMPTS_TTL)
    return int(pipe.execute()[0])


def end_attempt(r, index: Sharded, member: bytes | str) -> None:
    """The entry was handled (or removed): its attempts are forgotten."""
    r.delete(attempts_key(index, member))


def _glob(text: str) -> str:
    return re.sub(r"([\\*?\[\]])", r"\\\1", text)


def games_in_indexes(r) -> set[str]:
    """Every game id some index points at (for the maintenance pass; reads every shard)."""
    ids: set[str] = set()
    for index in (*GAME_ZSETS, TURNS, DUE, DUE_AT):
        ids.update(game_of(m) for m in index.all_members(r))
    return ids


# --- data written before the sharding --------------------------------------------------------
LEGACY = (DEADLINES, REMINDERS, TURNS, NOTICES, MAIL_DUE, DUE, DUE_AT, GAMES_OVER, SEAT_STATE,
          PREFS, DIGEST, ME_EMAIL, ME_RESULTS, TOLD, NAMES, GENERATIONS, RATED)


def adopt_legacy(r, indexes=None) -> int:
    """Move the entries of the pre-sharding keys (``deadlines``, ``mail:due``, ...) into their
    shards and delete the old keys; idempotent, and cheap when there is nothing to move (one
    EXISTS per index). Returns how many entries moved."""
    moved = 0
    for index in indexes or LEGACY:
        old = index.name
        if not r.exists(old):
            continue
        kind = r.type(old).decode()
        if kind == "zset":
            for m, score in r.zscan_iter(old):
                pipe = r.pipeline(transaction=False)
                owner = index.owner_of(m)
                if index in REGISTERED:
                    add(pipe, index, owner, m.decode("utf-8", "replace"), score, nx=True)
                else:
                    pipe.zadd(index.key(owner), {m: score}, nx=True)
                pipe.zrem(old, m)
                pipe.execute()
                moved += 1
        elif kind == "hash":
            for f, v in r.hscan_iter(old):
                r.hsetnx(index.key(index.owner_of(f)), f, v)
                r.hdel(old, f)
                moved += 1
        elif kind == "set":
            for m in r.sscan_iter(old):
                r.sadd(index.key(index.owner_of(m)), m)
                r.srem(old, m)
                moved += 1
        else:
            log.warning("legacy index %s is a %s; left alone", old, kind)
            continue
        log.info("moved the legacy index %s into %d shards", old, SHARDS)
    return moved

