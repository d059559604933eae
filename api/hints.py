"""How many of this API process's request threads (or greenlets) wait for a hint's answer at once.

The hint itself is computed by the ``hints`` worker, never here (application/hints.py). A request
that asked for one may wait up to TABLEPOST_HINT_WAIT seconds for its answer (reading Redis every
50 ms), but only as many requests of this process wait at once as the service computes and queues
searches (TABLEPOST_HINT_PROCS + TABLEPOST_HINT_QUEUE); the others get 202 at once, so that hints hold
at most that many of the process's request threads, however many clients ask."""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

_lock = threading.Lock()
_waiting = 0


def wait(answer: Callable[[float], T], seconds: float, waiters: int) -> T:
    """``answer(seconds)`` while fewer than ``waiters`` requests of this process wait, else
    ``answer(0)`` (a look without waiting)."""
    global _waiting
    with _lock:
        counted = _waiting < waiters
        if counted:
            _waiting += 1
    try:
        return answer(seconds if counted else 0)
    finally:
        if counted:
            with _lock:
                _waiting -= 1
