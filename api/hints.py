"""Hints computed off the request thread, in a bounded pool (docs/ai.md, "Hints").

A hint is a search (``ai.decide`` at TILETUM_HINT_LEVEL), seconds of CPU at the higher levels. It
never runs on a request thread, and its backlog never slows other requests: each API process
keeps one small pool of worker processes (TILETUM_HINT_PROCS, default 1; made when a gunicorn
worker starts, :func:`warm`, else on the first hint; with the ``forkserver`` start method so that
the server is never forked; they run at a lower CPU priority, ``nice`` +10, than the requests)
and at most
TILETUM_HINT_QUEUE more searches waiting for one (default 2). A request that would start a search
beyond that is refused at once (:class:`Busy`: 429 ``hints-busy`` with Retry-After), before it
costs anything. There is one task per position, ``(game, version, seat, level)``: asking again
finds the same task (or its answer, kept for the last ``CACHE_SIZE`` positions asked about)
instead of starting another search, and only a request that starts a search is charged to the
seat's hint budget (``admit``, api/limits.py). A request waits for its task at most
TILETUM_HINT_WAIT seconds (default 10), and only as many requests wait at once as the pool takes
searches (the others get 202 at once): hints hold at most that many of the process's request
threads, however many clients ask. The search sees only the seat's view, as before.
"""
from __future__ import annotations

import multiprocessing
import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

import ai

CACHE_SIZE = 256   # the positions whose task (pending or done) this process keeps
NICE = 10          # how much lower the hint processes' CPU priority is than the request threads'

_lock = threading.Lock()
_pool: ProcessPoolExecutor | None = None
_pool_pid: int | None = None
_tasks: OrderedDict[tuple, Future] = OrderedDict()
_inflight: set[Future] = set()   # searches submitted and not done (running or waiting for a process)
_waiting = 0                     # request threads waiting for a task now


class Busy(Exception):
    """The pool computes and queues as many searches as it takes: ask again later."""


def _lower_priority() -> None:
    try:
        os.nice(NICE)
    except OSError:   # not allowed here: the search runs at the same priority
        pass


def _executor(procs: int) -> ProcessPoolExecutor:
    global _pool, _pool_pid
    if _pool is None or _pool_pid != os.getpid():
        method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        _pool = ProcessPoolExecutor(max_workers=max(1, procs), mp_context=multiprocessing.get_context(method),
                                    initializer=_lower_priority)
        _pool_pid = os.getpid()
        _tasks.clear()
        _inflight.clear()
    return _pool


def warm(procs: int = 1) -> None:
    """Start this process's pool and its worker processes now (gunicorn's post_worker_init,
    api/gunicorn_conf.py) rather than on the first hint: starting them takes a second or more,
    during which a gevent worker answers nothing."""
    with _lock:
        pool = _executor(procs)
    pool.submit(int).result(timeout=120)


def capacity(procs: int, queue: int) -> int:
    """How many searches one API process computes or queues at once."""
    return max(1, procs) + max(0, queue)


def task(key: tuple, view: dict, level, rng_seed: str, procs: int = 1, queue: int = 2,
         admit: Callable[[], None] | None = None) -> Future:
    """The task computing the hint of ``key``: the one asked for already, or a new one. A new one is
    started only if the pool has room (else :class:`Busy`) and ``admit()`` does not raise (the
    seat's budget), in that order, so a refusal costs nothing."""
    with _lock:
        pool = _executor(procs)
        fut = _tasks.get(key)
        if fut is not None and not (fut.done() and fut.exception() is not None):
            _tasks.move_to_end(key)
            return fut
        if len(_inflight) >= capacity(procs, queue):
            raise Busy()
        if admit is not None:
            admit()
        fut = pool.submit(ai.decide, view, level, rng_seed)
        _inflight.add(fut)
        fut.add_done_callback(_inflight.discard)
        _tasks[key] = fut
        while len(_tasks) > CACHE_SIZE:
            _tasks.popitem(last=False)
        return fut


def wait(fut: Future, seconds: float, waiters: int = 3) -> list[str] | None:
    """The task's moves, or None if they are not there within ``seconds``. At most ``waiters``
    request threads of this process wait at once; beyond them a request does not wait at all."""
    global _waiting
    with _lock:
        counted = _waiting < waiters
        if counted:
            _waiting += 1
    try:
        return fut.result(timeout=seconds if counted else 0)
    except FutureTimeout:
        return None
    finally:
        if counted:
            with _lock:
                _waiting -= 1


def shutdown() -> None:
    """Close this process's pool (tests)."""
    global _pool, _pool_pid
    with _lock:
        if _pool is not None and _pool_pid == os.getpid():
            _pool.shutdown(wait=True, cancel_futures=True)
        _pool, _pool_pid = None, None
        _tasks.clear()
        _inflight.clear()
