"""How many games the soak tests (marker ``soak``, ``make soak``) play: their base counts times
``TABLEPOST_SOAK_SCALE`` (a whole number, default 1: what CI runs after ``make test``, about a minute
on 2 cores). ``make soak TABLEPOST_SOAK_SCALE=10`` plays ten times as many, on seeds that extend the
default run's (every scale plays the default run's games first), for a long soak before a rules
release."""
from __future__ import annotations

import os


def soak_scale() -> int:
    raw = os.environ.get("TABLEPOST_SOAK_SCALE", "1")
    try:
        scale = int(raw)
    except ValueError:
        raise ValueError(f"TABLEPOST_SOAK_SCALE must be a whole number (1, 10, ...), not {raw!r}") from None
    if not 1 <= scale <= 1000:
        raise ValueError(f"TABLEPOST_SOAK_SCALE must be from 1 to 1000, not {scale}")
    return scale


SOAK_SCALE = soak_scale()
