"""The scheduler's heartbeat: each periodic sweep, when a worker runs it, records when it ran and
how often it is scheduled, in the hash ``scheduler:heartbeat`` (sweep name -> ``{"at", "every"}``,
real time, never the test clock). ``GET /health`` reads it: the scheduler (Celery beat) is
``down`` when a sweep has not run for 3 of its intervals, which is what an operator sees of a
beat that died, hangs, or sends into a broker no worker reads. One hash, written once a sweep:
cheap, and one key on a Redis Cluster. A worker drops the entries of sweeps no longer in its
schedule (``prune``), so a sweep removed in an upgrade does not read as late forever."""
from __future__ import annotations

import json
import time

KEY = "scheduler:heartbeat"
MISSED = 3  # intervals without any sweep before the scheduler is "down"


def record(r, sweep: str, every: float, now: float | None = None) -> None:
    """Sweep ``sweep`` (scheduled every ``every`` seconds) runs now."""
    r.hset(KEY, sweep, json.dumps({"at": time.time() if now is None else now, "every": float(every)}))


def prune(r, scheduled) -> None:
    """Forget the sweeps that are not in ``scheduled`` (names)."""
    gone = [name for name in r.hkeys(KEY) if name.decode() not in set(scheduled)]
    if gone:
        r.hdel(KEY, *gone)


def beats(r) -> dict[str, dict]:
    """Each sweep's last run: name -> ``{"at": time, "every": seconds}`` (unreadable entries skipped)."""
    out = {}
    for name, raw in r.hgetall(KEY).items():
        try:
            beat = json.loads(raw)
            out[name.decode()] = {"at": float(beat["at"]), "every": float(beat["every"])}
        except (ValueError, KeyError, TypeError):
            continue
    return out


def state(r, since: float, grace: float, now: float | None = None) -> str:
    """``ok`` when some sweep has run and none is ``MISSED`` intervals late; else ``starting``
    while the caller is younger than ``grace`` seconds (it started at ``since``: a beat that has
    just started sends its first sweeps one interval later), else ``down``."""
    now = time.time() if now is None else now
    last = beats(r).values()
    if last and all(now - b["at"] <= MISSED * b["every"] for b in last):
        return "ok"
    return "starting" if now - since < grace else "down"
