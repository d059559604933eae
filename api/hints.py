"""Hints computed off the request thread (docs/ai.md, "Hints").

A hint is a search (``ai.decide`` at TILETUM_HINT_LEVEL), seconds of CPU at the higher levels, and
must not hold a request thread's share of the process (the GIL) while other requests wait. Each
API process keeps one small pool of worker processes (TILETUM_HINT_PROCS, default 1; made on the
first hint, with the ``forkserver`` start method so that the threaded server is never forked)
and one task per position: ``(game, version, seat, level)``. The request waits for its task at
most TILETUM_HINT_WAIT seconds (default 10); if the answer is not there by then it gets 202 with
Retry-After, and asking again finds the same task (or its answer, kept for the last
``CACHE_SIZE`` positions asked about) instead of starting another search. The search sees only
the seat's view, as before.
"""
from __future__ import annotations

import multiprocessing
import os
import threading
from collections import OrderedDict
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

import ai

CACHE_SIZE = 256   # the positions whose task (pending or done) this process keeps

_lock = threading.Lock()
_pool: ProcessPoolExecutor | None = None
_pool_pid: int | None = None
_tasks: OrderedDict[tuple, Future] = OrderedDict()


def _executor(procs: int) -> ProcessPoolExecutor:
    global _pool, _pool_pid
    if _pool is None or _pool_pid != os.getpid():
        method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        _pool = ProcessPoolExecutor(max_workers=max(1, procs), mp_context=multiprocessing.get_context(method))
        _pool_pid = os.getpid()
        _tasks.clear()
    return _pool


def task(key: tuple, view: dict, level, rng_seed: str, procs: int = 1) -> Future:
    """The task computing the hint of ``key`` (started now unless one exists)."""
    with _lock:
        pool = _executor(procs)
        fut = _tasks.get(key)
        if fut is not None and not (fut.done() and fut.exception() is not None):
            _tasks.move_to_end(key)
            return fut
        fut = pool.submit(ai.decide, view, level, rng_seed)
        _tasks[key] = fut
        while len(_tasks) > CACHE_SIZE:
            _tasks.popitem(last=False)
        return fut


def wait(fut: Future, seconds: float) -> list[str] | None:
    """The task's moves, or None if they are not there within ``seconds``."""
    try:
        return fut.result(timeout=seconds)
    except FutureTimeout:
        return None


def shutdown() -> None:
    """Close this process's pool (tests)."""
    global _pool, _pool_pid
    with _lock:
        if _pool is not None and _pool_pid == os.getpid():
            _pool.shutdown(wait=True, cancel_futures=True)
        _pool, _pool_pid = None, None
        _tasks.clear()
