"""The service's beat scheduler: Celery's persistent scheduler that sends the schedule only while
it holds a lock in the broker's Redis (``tiletum:beat:lock``, renewed every third of
``TABLEPOST_BEAT_LOCK_SECONDS``, 30). A second beat (an operator starting another, a scaled
service) stands by instead of sending every sweep twice, and takes over once the first one is
gone: at once when it stopped (it gives the lock back), within the lock's lifetime when it was
killed. With a broker that is not Redis (RabbitMQ) there is no lock: keep to one beat.

    celery -A workers.app beat      (workers/app.py names this scheduler: beat_scheduler)
"""
from __future__ import annotations

import logging
import os
import uuid

import redis
from celery.beat import PersistentScheduler

log = logging.getLogger("tablepost.beat")
LOCK = "tiletum:beat:lock"

# KEYS: the lock; ARGV: this beat's token, lifetime (ms). Renew the lock it holds, else take a free one.
_HOLD = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
return 0
"""
# KEYS: the lock; ARGV: this beat's token. Give it back, if it is still this beat's.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class LockedScheduler(PersistentScheduler):
    def __init__(self, *args, **kwargs):
        self.lock_seconds = float(os.environ.get("TABLEPOST_BEAT_LOCK_SECONDS") or 30)
        self.token = uuid.uuid4().hex
        self.holding: bool | None = None  # unknown until the first tick
        self._redis = None
        super().__init__(*args, **kwargs)
        url = self.app.conf.broker_url or ""
        if url.startswith(("redis://", "rediss://", "unix://")):
            self._redis = redis.Redis.from_url(url, socket_timeout=5)
            self._hold = self._redis.register_script(_HOLD)
            self._release = self._redis.register_script(_RELEASE)
        else:
            log.warning("beat: the broker is not Redis, so no lock keeps a second beat from sending: run one")

    def tick(self, *args, **kwargs):
        renew = self.lock_seconds / 3
        if not self._holds():
            return renew
        return min(super().tick(*args, **kwargs), renew)

    def _holds(self) -> bool:
        if self._redis is None:
            return True
        try:
            holding = bool(self._hold(keys=[LOCK], args=[self.token, int(self.lock_seconds * 1000)]))
        except redis.RedisError as e:  # the broker is away: nothing could be sent anyway
            log.warning("beat: cannot reach the broker's Redis for the lock: %s", e)
            return False
        if holding != self.holding:
            log.info("beat: %s", "holding the lock %s: sending the schedule" % LOCK if holding else
                     "another beat holds the lock %s: standing by" % LOCK)
            self.holding = holding
        return holding

    def close(self):
        if self._redis is not None and self.holding:
            try:
                self._release(keys=[LOCK], args=[self.token])
            except redis.RedisError:  # it expires on its own
                pass
        super().close()
