"""The clock of deadlines. Tests and demos may shift it: with TABLEPOST_TEST_CLOCK=1 the Redis key
``clock:offset`` (seconds) is added to the real time, in every process at once."""
from __future__ import annotations

import os
import time
from datetime import datetime, timezone


def make_clock(redis_client):
    if os.environ.get("TABLEPOST_TEST_CLOCK") != "1":
        return time.time

    def now() -> float:
        off = redis_client.get("clock:offset")
        return time.time() + (float(off) if off else 0.0)
    return now


def iso(ts: float | None) -> str | None:
    """A time as the API and the pages say it: ISO 8601 in UTC (``2026-11-29T04:30:00Z``); None stays None."""
    if ts is None:
        return None
    return datetime.fromtimestamp(ts, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
