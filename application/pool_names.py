"""Ratings stored under a pool's deprecated name, moved to its name (docs/tournaments.md, "Ratings").

Tiletum's multiplayer pool was first called ``multiplayer``; it is ``tiletum:multiplayer`` now
(:data:`application.rating_service.POOL_ALIASES`). :func:`rename_pools` runs when the service and the
workers start, like :func:`application.indexes.adopt_legacy`: it moves each player's rating, place on
the leaderboard and rated games from the old keys (``ratings:{multiplayer}``, ``...:board``,
``...:hist:<player>``, ``...:done``) to the pool's (``ratings:{tiletum:multiplayer}``, ...), and names
the pool by its name in the history lists kept before the pools had their own
(``ratings:hist:<player>``).

- **Cheap when done**: an EXISTS of each old key and of a marker key (``ratings:pools-renamed``).
- **Once at a time**: a Redis lock; a second process waits for the first, then finds nothing to move.
- **Nothing lost** even if a process of the previous release rates a game of the old pool meanwhile, or
  a run stops half-way: the old and the new keys sit in different hash slots (a cluster cannot RENAME
  between them), so each player is carried in two transactions, one per slot. The first merges into
  the pool (a history entry is carried once, by its game; a rating already there is kept unless the
  old keys hold a later game, and its games count those carried); the second deletes the old entries
  only if they did not change since they were read (WATCH), else the player is carried again.
"""
from __future__ import annotations

import json
import logging

import redis

from .rating_service import POOL_ALIASES, pool_key

log = logging.getLogger("tablepost.ratings")

MARKER = "ratings:pools-renamed"        # string: the legacy history lists were rewritten
LOCK = "ratings:pools-renaming"         # the lock one renaming process holds
LOCK_TIMEOUT = 300                      # s: a crashed holder's lock expires
LOCK_WAIT = 120                         # s: how long a second process waits for the first


def rename_pools(r, aliases: dict[str, str] | None = None) -> int:
    """Move every rating stored under a deprecated pool name to the pool's name; idempotent.
    Returns how many players were carried."""
    aliases = POOL_ALIASES if aliases is None else aliases
    if r.exists(MARKER) and not any(_old_keys_exist(r, old) for old in aliases):
        return 0
    lock = r.lock(LOCK, timeout=LOCK_TIMEOUT, blocking_timeout=LOCK_WAIT)
    if not lock.acquire():
        log.warning("another process is still renaming the rating pools; going on")
        return 0
    try:
        carried = 0
        for old, new in aliases.items():
            carried += _rename(r, old, new)
        if not r.exists(MARKER):
            _rewrite_legacy_histories(r, aliases)
            r.set(MARKER, "1")
        return carried
    finally:
        try:
            lock.release()
        except redis.exceptions.LockError:   # it expired meanwhile: the work is idempotent
            pass


def _old_keys_exist(r, old: str) -> bool:
    """A player's history under a pool is written and removed with their rating: the hash tells."""
    ok = pool_key(old)
    return bool(r.exists(ok) or r.exists(ok + ":board") or r.exists(ok + ":done"))


def _glob(text: str) -> str:
    return "".join("\\" + c if c in "\\*?[]" else c for c in text)


def _rename(r, old: str, new: str) -> int:
    ok = pool_key(old)
    players = {p.decode() for p in r.hkeys(ok)}
    players |= {m.decode() for m, _ in r.zscan_iter(ok + ":board")}
    prefix = ok + ":hist:"
    players |= {k.decode()[len(prefix):] for k in r.scan_iter(match=_glob(prefix) + "*", count=1000)}
    for p in sorted(players):
        _carry(r, old, new, p)
    for game, how in r.hscan_iter(ok + ":done"):
        r.hsetnx(pool_key(new) + ":done", game, how)   # the game stays rated once
        r.hdel(ok + ":done", game)
    if players:
        log.info("moved %d ratings from the pool %r to %r", len(players), old, new)
    return len(players)


def _carry(r, old: str, new: str, p: str) -> None:
    ok = pool_key(old)
    hist = f"{ok}:hist:{p}"
    while True:
        raw, entries = r.hget(ok, p), r.lrange(hist, 0, -1)
        _merge(r, new, p, raw, entries)
        with r.pipeline(transaction=True) as pipe:
            try:
                pipe.watch(ok, hist)
                if pipe.hget(ok, p) != raw or pipe.llen(hist) != len(entries):
                    continue   # rated meanwhile under the old name: carry what it wrote too
                pipe.multi()
                pipe.hdel(ok, p)
                pipe.zrem(ok + ":board", p)
                pipe.delete(hist)
                pipe.execute()
                return
            except redis.WatchError:
                continue


def _merge(r, new: str, p: str, raw_old: bytes | None, old_entries: list[bytes]) -> None:
    """Merge a player's rating and history from the old keys into the pool ``new`` (one slot)."""
    nk = pool_key(new)
    hist = f"{nk}:hist:{p}"
    while True:
        with r.pipeline(transaction=True) as pipe:
            try:
                pipe.watch(nk, hist)
                raw_new = pipe.hget(nk, p)
                have = [json.loads(h) for h in pipe.lrange(hist, 0, -1)]
                known = {h["game"] for h in have}
                carried = [{**h, "pool": new} for h in map(json.loads, old_entries) if h["game"] not in known]
                doc = _merged_doc(raw_new, raw_old, have, carried)
                pipe.multi()
                if doc is not None:
                    pipe.hset(nk, p, json.dumps(doc))
                    pipe.zadd(nk + ":board", {p: doc["rating"]})
                if carried:
                    pipe.delete(hist)
                    pipe.rpush(hist, *(json.dumps(h) for h in sorted(have + carried, key=lambda h: h["at"])))
                pipe.execute()
                return
            except redis.WatchError:
                continue   # rated meanwhile under the new name: merge into what it wrote


def _merged_doc(raw_new: bytes | None, raw_old: bytes | None, have: list[dict],
                carried: list[dict]) -> dict | None:
    """The rating to keep: the new pool's, but the old one's where the new pool has none or the old
    keys hold a later game; its games count the games carried that the new pool had not counted."""
    if raw_old is None:
        return json.loads(raw_new) if raw_new is not None else None
    old = json.loads(raw_old)
    if raw_new is None:
        return old
    doc = json.loads(raw_new)
    if not carried:
        return doc   # carried before (a run stopped half-way): the pool's rating already counts them
    latest_new = max((h["at"] for h in have), default=float("-inf"))
    base = old if max(h["at"] for h in carried) > latest_new else doc
    return {**base, "games": doc["games"] + len(carried)}


def _rewrite_legacy_histories(r, aliases: dict[str, str]) -> None:
    """Name the pool by its name in the histories kept before each pool had its own."""
    for key in r.scan_iter(match="ratings:hist:*", count=1000):
        while True:
            with r.pipeline(transaction=True) as pipe:
                try:
                    pipe.watch(key)
                    entries = [json.loads(h) for h in pipe.lrange(key, 0, -1)]
                    if not any(h.get("pool") in aliases for h in entries):
                        pipe.unwatch()
                        break
                    pipe.multi()
                    pipe.delete(key)
                    pipe.rpush(key, *(json.dumps({**h, "pool": aliases.get(h.get("pool"), h.get("pool"))})
                                      for h in entries))
                    pipe.execute()
                    break
                except redis.WatchError:
                    continue


__all__ = ["rename_pools", "MARKER"]
