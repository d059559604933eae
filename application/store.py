"""The event store: one Redis stream per game, appended only at the expected version.

Keys of a game share the hash tag ``{g:<id>}`` so Redis Cluster keeps them on one node:

| key | type | holds |
|---|---|---|
| ``g:{<id>}:events`` | stream | event n (1-based) at stream id ``n-0``, field ``e`` = event JSON, field ``t`` = the event in words (its ``text``, written with it by the game service; absent in games saved before texts were stored) |
| ``g:{<id>}:meta`` | string | game metadata JSON (seats with token hashes, options, commitment) |
| ``g:{<id>}:seed`` | string | the secret seed (never served until the game is over) |
| ``g:{<id>}:snap`` | string | ``<version>\\n<position JSON>``: the state after that many events |
| ``g:{<id>}:idem:<key>`` | string | the answer to an Idempotency-Key request (24 h) |
| ``g:{<id>}:metagen`` | string | a counter bumped with every write of ``meta``: a process that holds the game and its meta appends with the generation it read, and the append refuses a stale one (the one-round-trip move path) |
| ``g:{<id>}:hooks`` | set | the game's webhook subscriptions (application/webhooks.py); the append says whether it exists |
| ``g:{<id>}:archive`` | string | a finished game's events, compressed, in place of ``events`` and ``snap`` (application/archive.py) |

The version of a game is the length of its stream. ``append`` runs as one Lua script: it
writes the events only if the stream is exactly at the expected version, so two writers can
never both append at the same version, and a request's idempotency record is written with its
events or not at all.

An archived game (application/archive.py) has no stream and no snapshot: its events are read from
its archive record, its version is their number, and appending to it raises ``GameArchived``.
"""  # noqa: E501  (a Markdown table: its rows cannot wrap)
from __future__ import annotations

import json
from dataclasses import dataclass

import redis

from . import archive as archiving
from .archive import GameArchived

# KEYS: the stream, the idempotency record, the hooks set, the meta generation. ARGV: the expected
# version, the idempotent answer, its TTL (0: none), the meta generation read ('' : unchecked), 't' when
# each event comes with its text ('' : events only), then the events (each followed by its text).
APPEND = """
local stream, ikey = KEYS[1], KEYS[2]
local idem = tonumber(ARGV[3]) > 0
if idem then
  local prev = redis.call('GET', ikey)
  if prev then return {'idem', prev} end
end
local len = redis.call('XLEN', stream)
if len ~= tonumber(ARGV[1]) then return {'conflict', tostring(len)} end
if ARGV[4] ~= '' and (redis.call('GET', KEYS[4]) or '0') ~= ARGV[4] then return {'stale', '0'} end
local n = len
if ARGV[5] == 't' then
  for i = 6, #ARGV, 2 do
    n = n + 1
    redis.call('XADD', stream, tostring(n) .. '-0', 'e', ARGV[i], 't', ARGV[i + 1])
  end
else
  for i = 6, #ARGV do
    n = n + 1
    redis.call('XADD', stream, tostring(n) .. '-0', 'e', ARGV[i])
  end
end
if idem then redis.call('SET', ikey, ARGV[2], 'EX', tonumber(ARGV[3])) end
return {'ok', tostring(n), redis.call('EXISTS', KEYS[3])}
"""

LOAD = """
local snap = redis.call('GET', KEYS[2])
local from = 1
if snap then from = tonumber(string.match(snap, '^(%d+)')) + 1 end
local tail = redis.call('XRANGE', KEYS[1], tostring(from) .. '-0', '+')
local out = {snap or '', redis.call('GET', KEYS[3]) or ''}
for _, entry in ipairs(tail) do out[#out + 1] = entry[2][2] end
return out
"""

# One round trip for everything a request needs: meta, seed, an idempotent answer (if a key
# is given: ARGV[2] = '1'; KEYS[5] is then its record), and the events after what the caller already has (a
# cached state at version
# ARGV[1]) or else after the latest snapshot.
LOAD_FOR = """
local meta = redis.call('GET', KEYS[3])
if not meta then return {} end
local len = redis.call('XLEN', KEYS[1])
local known = tonumber(ARGV[1])
local idem = ''
if ARGV[2] == '1' then idem = redis.call('GET', KEYS[5]) or '' end
local out = {meta, redis.call('GET', KEYS[4]) or '', idem, tostring(len), '',
             redis.call('GET', KEYS[6]) or '0'}
local from = 1
if known > 0 and known <= len then
  from = known + 1
else
  local snap = redis.call('GET', KEYS[2])
  if snap then
    out[5] = snap
    from = tonumber(string.match(snap, '^(%d+)')) + 1
  end
end
if from <= len then
  local tail = redis.call('XRANGE', KEYS[1], tostring(from) .. '-0', '+')
  for _, entry in ipairs(tail) do out[#out + 1] = entry[2][2] end
end
return out
"""

SNAPSHOT = """
local cur = redis.call('GET', KEYS[1])
if cur and tonumber(string.match(cur, '^(%d+)')) >= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1
"""

IDEM_TTL = 24 * 3600


def key(game_id: str, what: str) -> str:
    return f"g:{{{game_id}}}:{what}"


class Appended(tuple):
    """``("ok", version)`` or ``("idem", answer)``; ``hooks`` says whether the game has webhooks
    (``g:{<id>}:hooks``, read by the append script itself, so the move path needs no extra round
    trip to know whether to send ``workers.deliver_webhooks``)."""
    hooks: bool = False


class StaleMeta(Exception):
    """The append was made with a cached meta whose generation is no longer the stored one (a
    token was revoked, a seat changed): nothing was written; decide again from the stored meta."""


class Conflict(Exception):
    def __init__(self, current: int):
        super().__init__(f"stream is at version {current}")
        self.current = current


@dataclass
class Loaded:
    meta: dict
    snapshot_version: int
    snapshot: dict | None        # position document, or None
    tail: list[dict]             # events after the snapshot


class EventStore:
    def __init__(self, client: redis.Redis):
        self.r = client
        self._append = client.register_script(APPEND)
        self._load = client.register_script(LOAD)
        self._snapshot = client.register_script(SNAPSHOT)
        self._load_for = client.register_script(LOAD_FOR)

    # --- games ----------------------------------------------------------------------------
    def create(self, game_id: str, meta: dict, seed: str, first_event: dict,
               first_text: str | None = None) -> bool:
        """Create a game with its first event (and that event in words); False if the id is taken."""
        if self.is_archived(game_id):  # its stream is gone, but the id is taken
            return False
        mkey = key(game_id, "meta")
        pipe = self.r.pipeline(transaction=True)
        pipe.set(mkey, json.dumps(meta), nx=True)
        pipe.set(key(game_id, "seed"), seed, nx=True)
        pipe.xadd(key(game_id, "events"), {"e": json.dumps(first_event),
                                           **({"t": first_text} if first_text is not None else {})}, id="1-0")
        try:
            created, _, _ = pipe.execute()
        except redis.ResponseError:  # the stream already exists: the id is taken
            return False
        return bool(created)

    def meta(self, game_id: str) -> dict | None:
        raw = self.r.get(key(game_id, "meta"))
        return json.loads(raw) if raw else None

    def set_meta(self, game_id: str, meta: dict) -> None:
        pipe = self.r.pipeline(transaction=True)
        pipe.set(key(game_id, "meta"), json.dumps(meta))
        pipe.incr(key(game_id, "metagen"))  # a cached meta of another process is now stale
        pipe.execute()

    def update_meta(self, game_id: str, change) -> dict | None:
        """Apply ``change(meta)`` (in place) to the game's meta atomically (optimistic: retried if
        another writer got in between); the new meta, or None for an unknown game."""
        mkey = key(game_id, "meta")
        with self.r.pipeline(transaction=True) as pipe:
            while True:
                try:
                    pipe.watch(mkey)
                    raw = pipe.get(mkey)
                    if raw is None:
                        return None
                    meta = json.loads(raw)
                    change(meta)
                    pipe.multi()
                    pipe.set(mkey, json.dumps(meta))
                    pipe.incr(key(game_id, "metagen"))  # a cached meta of another process is now stale
                    pipe.execute()
                    return meta
                except redis.WatchError:
                    continue

    def seed(self, game_id: str) -> str:
        return self.r.get(key(game_id, "seed")).decode()

    def version(self, game_id: str) -> int:
        n = self.r.xlen(key(game_id, "events"))
        if n == 0:  # no stream: an archived game (a live one always holds its first event), or none
            head = self.r.getrange(key(game_id, "archive"), 0, 31)
            return archiving.count(head) if head else 0
        return n

    # --- events ---------------------------------------------------------------------------
    def append(self, game_id: str, expected: int, events: list[dict], idem_key: str | None = None,
               idem_answer: dict | None = None, meta_generation: str | None = None,
               texts: list[str] | None = None) -> Appended:
        """Append atomically at ``expected`` (with each event's ``texts``, when given: ``GET /events``
        then reads them instead of folding the log to say them). Returns ("ok", new_version) or
        ("idem", answer); raises :class:`Conflict` when the stream is at another version."""
        if texts is not None and len(texts) != len(events):
            raise ValueError("one text per event")
        if expected < 1:  # the first event is written by create; a missing stream is never appended to
            raise ValueError("a game is appended to at version 1 or later")
        # Every key of the script is the game's (one hash slot): without an Idempotency-Key the
        # second key is the stream itself, unused (a TTL of 0 says so).
        ikey = key(game_id, "idem:" + idem_key) if idem_key else key(game_id, "events")
        status, value, *hooks = self._append(
            keys=[key(game_id, "events"), ikey, key(game_id, "hooks"), key(game_id, "metagen")],
            args=[expected, json.dumps(idem_answer or {}), IDEM_TTL if idem_key else 0, meta_generation or "",
                  "t" if texts is not None else ""]
            + ([x for e, t in zip(events, texts) for x in (json.dumps(e), t)] if texts is not None
               else [json.dumps(e) for e in events]))
        status = status.decode()
        if status == "stale":
            raise StaleMeta(game_id)
        if status == "conflict":
            if int(value) == 0 and self.is_archived(game_id):
                raise GameArchived(f"game {game_id} is archived: it is over")
            raise Conflict(int(value))
        if status == "idem":
            return Appended(("idem", json.loads(value)))
        done = Appended(("ok", int(value)))
        done.hooks = bool(hooks and hooks[0])
        return done

    def idempotent_answer(self, game_id: str, idem_key: str) -> dict | None:
        raw = self.r.get(key(game_id, "idem:" + idem_key))
        return json.loads(raw) if raw else None

    def events(self, game_id: str, after: int = 0, upto: int | None = None) -> list[dict]:
        """The events with versions after ``after`` and, if given, up to ``upto``."""
        entries = self.r.xrange(key(game_id, "events"), min=f"{after + 1}-0",
                                max="+" if upto is None else f"{upto}-0")
        if not entries:
            archived = self.archived_events(game_id)
            if archived is not None:
                return archived[after:upto]
        return [json.loads(fields[b"e"]) for _, fields in entries]

    def events_before(self, game_id: str, upto: int, count: int) -> list[dict]:
        """At most ``count`` events up to version ``upto``, newest first (a live game's only)."""
        entries = self.r.xrevrange(key(game_id, "events"), max=f"{upto}-0", min="-", count=count)
        return [json.loads(fields[b"e"]) for _, fields in entries]

    def page(self, game_id: str, after: int, limit: int) -> tuple[list[tuple[dict, str | None]], int]:
        """At most ``limit`` events after version ``after``, each with its stored text (None where
        none was stored), and the game's version: one XRANGE from ``after`` and an XLEN, so a
        page costs what it holds, however long the log."""
        pipe = self.r.pipeline(transaction=False)
        pipe.xrange(key(game_id, "events"), min=f"{after + 1}-0", max="+", count=limit)
        pipe.xlen(key(game_id, "events"))
        entries, length = pipe.execute()
        if length == 0:  # no stream: an archived game (its record is read whole anyway), or none
            archived = self.archived_events(game_id)
            if archived is not None:
                return [(e, None) for e in archived[after:after + limit]], len(archived)
        return [(json.loads(f[b"e"]), f[b"t"].decode() if b"t" in f else None) for _, f in entries], length

    def snapshot(self, game_id: str) -> tuple[int, dict] | None:
        """The latest snapshot: (its version, the position document), or None."""
        raw = self.r.get(key(game_id, "snap"))
        if not raw:
            return None
        head, _, body = raw.partition(b"\n")
        return int(head), json.loads(body)

    def load(self, game_id: str) -> Loaded | None:
        """Metadata, the latest snapshot and the events after it, in one round trip."""
        out = self._load(keys=[key(game_id, "events"), key(game_id, "snap"), key(game_id, "meta")])
        snap, meta = out[0], out[1]
        if not meta:
            return None
        version, doc = 0, None
        if snap:
            head, _, body = snap.partition(b"\n")
            version, doc = int(head), json.loads(body)
        tail = [json.loads(e) for e in out[2:]]
        if not snap and not tail:  # no stream: an archived game
            tail = self.archived_events(game_id) or []
        return Loaded(json.loads(meta), version, doc, tail)

    def load_for(self, game_id: str, known: int = 0, idem_key: str | None = None) -> dict | None:
        """Meta, seed, idempotent answer, version, and the events after ``known`` (a version the
        caller holds) -- or after the latest snapshot, returned as ``snapshot``."""
        out = self._load_for(keys=[key(game_id, "events"), key(game_id, "snap"), key(game_id, "meta"),
                                   key(game_id, "seed"),
                                   key(game_id, "idem:" + idem_key) if idem_key else key(game_id, "events"),
                                   key(game_id, "metagen")],
                             args=[known, "1" if idem_key else "0"])
        if not out:
            return None
        meta, seed, idem, length, snap, generation = out[:6]
        res = {"meta": json.loads(meta), "seed": seed.decode(), "idem": json.loads(idem) if idem else None,
               "version": int(length), "snapshot_version": 0, "snapshot": None, "from_known": False,
               "meta_generation": generation.decode(), "tail": [json.loads(e) for e in out[6:]]}
        if snap:
            head, _, body = snap.partition(b"\n")
            res["snapshot_version"], res["snapshot"] = int(head), json.loads(body)
        elif known and known <= res["version"]:
            res["from_known"] = True
        if res["version"] == 0:  # no stream: an archived game (a live one always holds its first event)
            archived = self.archived_events(game_id)
            if archived is not None:
                res["version"] = len(archived)
                res["from_known"] = bool(known) and known <= len(archived)
                res["tail"] = archived[known:] if res["from_known"] else archived
        return res

    def save_snapshot(self, game_id: str, version: int, doc: dict) -> bool:
        return bool(self._snapshot(keys=[key(game_id, "snap")],
                                   args=[version, f"{version}\n{json.dumps(doc, separators=(',', ':'))}"]))

    # --- finished games, archived (application/archive.py) ------------------------------------
    def is_archived(self, game_id: str) -> bool:
        return bool(self.r.exists(key(game_id, "archive")))

    def archived_events(self, game_id: str) -> list[dict] | None:
        """The events of an archived game; None when it is not archived."""
        raw = self.r.get(key(game_id, "archive"))
        return archiving.decode(raw) if raw is not None else None

    def archive(self, game_id: str) -> str:
        """Compact the game's events and snapshot into its archive record, atomically (see
        :func:`application.archive.compact`): 'ok', 'archived', 'changed' or 'missing'."""
        return archiving.compact(self.r, key(game_id, "events"), key(game_id, "snap"),
                                 key(game_id, "archive"))

    def ping(self) -> bool:
        return bool(self.r.ping())
