"""The clock of deadlines. Tests and demos may shift it: with TABLEPOST_TEST_CLOCK=1 the Redis key
``clock:offset`` (seconds) is added to the real time, in every process at once."""
from __future__ import annotations

import os
import time


def make_clock(redis_client):
    if os.environ.get("TABLEPOST_TEST_CLOCK") != "1":
        return time.time

    def now() -> float:
        off = redis_client.get("clock:offset")
        return time.time() + (float(off) if off else 0.0)
    return now
