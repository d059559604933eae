"""Tournaments in Redis: one event stream per tournament, appended only at the expected version
(the same contract as the game store, :mod:`application.store`).

| key | type | holds |
|---|---|---|
| ``t:{<id>}:events`` | stream | event n (1-based) at stream id ``n-0``, field ``e`` = event JSON |
| ``t:{<id>}:secret`` | string | the tournament's secret: derives entry tokens, the invitation code and seat tokens |
| ``t:{<id>}:lock`` | string | held while one process advances the tournament (expires) |
| ``tournaments`` | zset | every tournament id, by creation time |
| ``tournaments:running`` | set | the ids of tournaments not yet finished (the sweep's work list) |
"""  # noqa: E501  (a Markdown table: its rows cannot wrap)
from __future__ import annotations

import json
import secrets

import redis

from .store import APPEND, Conflict

RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

# Rewrite a tournament's whole stream at once (an account deletion renames an entrant): only while
# the caller holds the advance lock (KEYS[2] = ARGV[1]) and the stream still has ARGV[2] events.
REWRITE = """
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 'unlocked' end
if redis.call('XLEN', KEYS[1]) ~= tonumber(ARGV[2]) then return 'conflict' end
redis.call('DEL', KEYS[1])
for i = 3, #ARGV do
  redis.call('XADD', KEYS[1], tostring(i - 2) .. '-0', 'e', ARGV[i])
end
return 'ok'
"""


def key(tid: str, what: str) -> str:
    return f"t:{{{tid}}}:{what}"


class TournamentStore:
    def __init__(self, client: redis.Redis):
        self.r = client
        self._append = client.register_script(APPEND)
        self._release = client.register_script(RELEASE)
        self._rewrite = client.register_script(REWRITE)

    def create(self, tid: str, first_event: dict, secret: str) -> bool:
        pipe = self.r.pipeline(transaction=True)  # the tournament's own keys: one slot
        pipe.set(key(tid, "secret"), secret, nx=True)
        pipe.xadd(key(tid, "events"), {"e": json.dumps(first_event)}, id="1-0")
        try:
            created, _ = pipe.execute()
        except redis.ResponseError:
            return False
        if created:  # then the listings (other slots; a tournament is created rarely, not per move)
            listing = self.r.pipeline(transaction=False)
            listing.zadd("tournaments", {tid: first_event["at"]})
            listing.sadd("tournaments:running", tid)
            listing.execute()
        return bool(created)

    def events(self, tid: str) -> list[dict] | None:
        entries = self.r.xrange(key(tid, "events"))
        if not entries:
            return None
        return [json.loads(fields[b"e"]) for _, fields in entries]

    def secret(self, tid: str) -> str:
        return self.r.get(key(tid, "secret")).decode()

    def append(self, tid: str, expected: int, events: list[dict]) -> int:
        """Append at ``expected``; raises :class:`application.store.Conflict` at another version."""
        status, value, *_ = self._append(keys=[key(tid, "events"), key(tid, "events"), key(tid, "events")],
                                     args=[expected, "{}", 0, "", ""] + [json.dumps(e) for e in events])
        if status.decode() == "conflict":
            raise Conflict(int(value))
        return int(value)

    def rewrite(self, tid: str, lock: str, expected: int, events: list[dict]) -> bool:
        """Replace the ``expected`` events of the stream by ``events`` (as many, at the same ids), in
        one step, under the advance lock ``lock``; False when the stream changed meanwhile."""
        status = self._rewrite(keys=[key(tid, "events"), key(tid, "lock")],
                               args=[lock, expected] + [json.dumps(e) for e in events])
        return status.decode() == "ok"

    def finished(self, tid: str) -> None:
        self.r.srem("tournaments:running", tid)

    def running(self) -> list[str]:
        return sorted(m.decode() for m in self.r.smembers("tournaments:running"))

    def ids(self, offset: int = 0, limit: int = 50) -> list[str]:
        return [m.decode() for m in self.r.zrevrange("tournaments", offset, offset + limit - 1)]

    def all_ids(self) -> list[str]:
        return [m.decode() for m in self.r.zrange("tournaments", 0, -1)]

    # --- the advance lock ---------------------------------------------------------------------
    def lock(self, tid: str, seconds: int = 120) -> str | None:
        token = secrets.token_hex(8)
        return token if self.r.set(key(tid, "lock"), token, nx=True, ex=seconds) else None

    def unlock(self, tid: str, token: str) -> None:
        self._release(keys=[key(tid, "lock")], args=[token])
