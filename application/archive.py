"""Finished games cost little: a game that ended (and whose follow-up, rating and tournament step
are done) is compacted, after a grace period, into one compressed record in its own hash slot.

| key | type | holds |
|---|---|---|
| ``g:{<id>}:archive`` | string | ``<n> <codec>\\n`` + the JSON list of the game's ``n`` events (as stored), compressed |
| ``archive:due:{ix<nn>}`` | zset | game id -> when its follow-up was done; ``nn`` = crc32(id) % 64 |

The stream ``g:{<id>}:events`` and the snapshot ``g:{<id>}:snap`` are gone once a game is archived;
its meta and seed stay as they were (small, and read by every request). The version of an archived
game is the number of its events. :class:`application.store.EventStore` reads the archive where it
would read the stream (``events``, ``version``, ``load``, ``load_for``), so every read of a game,
and everything built on them (the record, the fairness check, the board picture, ratings,
dashboards, standings), is the same before and after. Appending to an archived game is refused
(:class:`GameArchived`): it is over.

Compacting is one Lua script (:data:`COMPACT`): it writes the record and deletes the stream and the
snapshot only if the stream still holds exactly the events the record was made from (their SHA-1
is compared inside the script), so a process that dies at any point leaves either the live game or
the archived one, never neither. :func:`sweep` (beat, ``workers.sweep_archive``; ``tiletum
archive``) archives the games whose follow-up was done more than the grace period ago
(``TABLEPOST_ARCHIVE_AFTER_DAYS``, default 7); it is idempotent and re-reads each game.

The record is compressed with bz2 (the standard library's): on the event logs of random 2-4 player
games it is 18% smaller than zlib at level 9 (1,355 against 1,644 bytes for 24 KB of events), and
decompressing one (0.5 ms) costs less than replaying it. The codec is named in the header, so
records written with another one stay readable.

It imports only :mod:`application.indexes` of the package (the store imports it)."""  # noqa: E501  (a Markdown table: its rows cannot wrap)
from __future__ import annotations

import bz2
import hashlib
import json
import logging
import time
import zlib
from collections.abc import Callable
from collections.abc import Set as AbstractSet

import games as hosted

from .indexes import Sharded, shard

log = logging.getLogger("tablepost.archive")

ARCHIVE_AFTER_DAYS = 7.0
Codec = tuple[Callable[[bytes], bytes], Callable[[bytes], bytes]]   # (compress, decompress)
CODECS: dict[str, Codec] = {"bz2": (lambda b: bz2.compress(b, 9), bz2.decompress),
          "zlib": (lambda b: zlib.compress(b, 9), zlib.decompress)}
CODEC = "bz2"
RETRY_SECONDS = 86400.0  # a game the sweep could not archive is tried again a day later

# KEYS: the stream, the snapshot, the archive record. ARGV: the number of events, the SHA-1 of
# the events' JSON joined by ',', the record. Returns 'ok', 'archived' (already), or 'changed'
# (the stream is not what the record was made from: nothing is written).
COMPACT = """
if redis.call('EXISTS', KEYS[3]) == 1 then return 'archived' end
local n = redis.call('XLEN', KEYS[1])
if n == 0 or n ~= tonumber(ARGV[1]) then return 'changed' end
local raws = {}
for _, entry in ipairs(redis.call('XRANGE', KEYS[1], '-', '+')) do raws[#raws + 1] = entry[2][2] end
if redis.sha1hex(table.concat(raws, ',')) ~= ARGV[2] then return 'changed' end
redis.call('SET', KEYS[3], ARGV[3])
redis.call('DEL', KEYS[1], KEYS[2])
return 'ok'
"""


class GameArchived(Exception):
    """An append to an archived game: it is over."""


# --- the record ----------------------------------------------------------------------------------
def encode(raws: list[bytes], codec: str = CODEC) -> bytes:
    """The archive record of events stored as ``raws`` (each an event's JSON, as in the stream)."""
    return f"{len(raws)} {codec}\n".encode() + CODECS[codec][0](b"[" + b",".join(raws) + b"]")


def decode(record: bytes) -> list[dict]:
    """The events of an archive record."""
    head, _, body = record.partition(b"\n")
    n, codec = head.decode().split(" ")
    events = json.loads(CODECS[codec][1](body))
    if len(events) != int(n):
        raise ValueError(f"archive record holds {len(events)} events, its header says {n}")
    return events


def count(head: bytes) -> int:
    """The number of events of a record, from (at least) its first line."""
    return int(head.partition(b"\n")[0].split(b" ")[0])


def digest(raws: list[bytes]) -> str:
    return hashlib.sha1(b",".join(raws)).hexdigest()


def compact(r, events_key: str, snap_key: str, archive_key: str) -> str:
    """Archive one game (the store's keys of it): 'ok', 'archived' (it was already), 'changed'
    (the stream moved on while the record was made; nothing written) or 'missing' (no stream)."""
    raws = [fields[b"e"] for _, fields in r.xrange(events_key)]
    if not raws:
        return "archived" if r.exists(archive_key) else "missing"
    record = encode(raws)
    if decode(record) != [json.loads(x) for x in raws]:  # pragma: no cover - zlib and json round-trip
        raise RuntimeError("archive record does not round-trip")
    out = r.register_script(COMPACT)(keys=[events_key, snap_key, archive_key],
                                     args=[len(raws), digest(raws), record])
    return out.decode() if isinstance(out, bytes) else out


# --- the index of games to archive ---------------------------------------------------------------
ARCHIVE_DUE = Sharded("archive:due")   # zset game id -> when its follow-up
                                       # was done (sharded like every index)


def shard_of(game_id: str) -> int:
    return shard(game_id)


def archive_due_key(n: int) -> str:
    """The zset of finished games of one shard, by when their follow-up was done."""
    return ARCHIVE_DUE.at(n)


def schedule(r, game_id: str, at: float | None = None) -> None:
    """A finished game's follow-up is done: archive it after the grace period (idempotent: the
    first time counts)."""
    r.zadd(ARCHIVE_DUE.key(game_id), {game_id: time.time() if at is None else at}, nx=True)


def unschedule(r, game_id: str) -> None:
    r.zrem(ARCHIVE_DUE.key(game_id), game_id)


def scheduled_at(r, game_id: str) -> float | None:
    return r.zscore(ARCHIVE_DUE.key(game_id), game_id)


def due(r, before: float, limit: int | None = None) -> list[str]:
    """Game ids scheduled at or before ``before``, earliest first, from every shard (at most ``limit``)."""
    return [m.decode() for m in ARCHIVE_DUE.due(r, before, limit=limit)]


# --- archiving -----------------------------------------------------------------------------------
def archive_game(games, game_id: str, before: float, dry_run: bool = False) -> str:
    """Archive ``game_id`` if that is still to do: it is in the index at or before ``before``,
    over, and not archived yet. Idempotent. Returns what happened: 'archived' (or 'would-archive'
    in a dry run), 'already', 'not-due', 'not-over', 'gone' or 'changed'."""
    r = games.store.r
    at = scheduled_at(r, game_id)
    if games.store.is_archived(game_id):
        if at is not None and not dry_run:
            unschedule(r, game_id)
        return "already"
    if at is None or at > before:
        return "not-due"
    meta = games.store.meta(game_id)
    if meta is None:
        if not dry_run:
            unschedule(r, game_id)
        return "gone"
    _, state = games.load(game_id)
    if not hosted.is_over(state):  # never indexed so; a game is indexed again when its follow-up is done
        if not dry_run:
            unschedule(r, game_id)
        return "not-over"
    if dry_run:
        return "would-archive"
    status = games.store.archive(game_id)
    if status in ("ok", "archived"):
        unschedule(r, game_id)
        return "archived" if status == "ok" else "already"
    return status  # 'changed' or 'missing': left in the index, tried again next time


def sweep(games, older_than_days: float = ARCHIVE_AFTER_DAYS, *, now: float | None = None,
          dry_run: bool = False, limit: int | None = None, progress=None) -> dict:
    """Archive the finished games whose follow-up was done more than ``older_than_days`` ago (at
    most ``limit``). ``progress(done, total, game_id, status)`` is called after each game.
    Returns the count of each outcome. One game's failure never stops the others; it is tried
    again :data:`RETRY_SECONDS` later, so that a game that keeps failing never holds up the rest."""
    before = (time.time() if now is None else now) - older_than_days * 86400
    ids = due(games.store.r, before, limit)
    counts: dict[str, int] = {"due": len(ids)}
    for i, game_id in enumerate(ids, start=1):
        try:
            status = archive_game(games, game_id, before, dry_run)
        except Exception:
            log.warning("could not archive %s; tried again later", game_id, exc_info=True)
            status = "failed"
        # retried in a while, behind the others
        if status in ("failed", "changed", "missing") and not dry_run:
            games.store.r.zadd(ARCHIVE_DUE.key(game_id), {game_id: before + RETRY_SECONDS}, xx=True)
        counts[status] = counts.get(status, 0) + 1
        if progress is not None:
            progress(i, len(ids), game_id, status)
    return counts


def index_existing(games, pending: AbstractSet[str] = frozenset(), progress=None) -> int:
    """Schedule every stored game that is over, not archived and not in ``pending`` (games whose
    follow-up is not done yet: they are scheduled when it is), from now: games that finished
    before archiving existed (``tablepost archive --index-existing``). Idempotent; returns how many
    games are scheduled by this call."""
    r = games.store.r
    n = 0
    for mkey in r.scan_iter(match="g:{*}:meta", count=500):
        game_id = mkey.decode()[len("g:{"):-len("}:meta")]
        if game_id in pending or scheduled_at(r, game_id) is not None or games.store.is_archived(game_id):
            continue
        try:
            _, state = games.load(game_id)
        except Exception:
            log.warning("could not read %s; not scheduled", game_id, exc_info=True)
            continue
        if hosted.is_over(state):
            schedule(r, game_id)
            n += 1
            if progress is not None:
                progress(n, game_id)
    return n

