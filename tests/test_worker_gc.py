"""The workers freeze their startup heap (workers/app.py, ``freeze_startup_heap``): once a worker
is ready, and in each prefork process, what the process holds is moved out of the collector's
reach, so full collections no longer scan the modules and Celery's objects at every task."""
from __future__ import annotations

import gc
import weakref

from celery.signals import worker_process_init, worker_ready

from workers.app import freeze_startup_heap


def _receivers(signal) -> list:
    return [ref() if isinstance(ref, weakref.ReferenceType) else ref for _key, ref in signal.receivers]


def test_it_runs_when_a_worker_is_ready_and_in_each_pool_process():
    for signal in (worker_ready, worker_process_init):
        assert freeze_startup_heap in _receivers(signal), f"not connected to {signal.name}"


def test_it_moves_what_the_process_holds_out_of_the_collectors_reach():
    held = [{"n": i} for i in range(1000)]   # stand-ins for what a process holds once started
    before = gc.get_freeze_count()
    try:
        freeze_startup_heap()
        assert gc.get_freeze_count() >= before + len(held)
        assert not any(o is held for o in gc.get_objects()), "frozen objects are not scanned"
    finally:
        gc.unfreeze()   # the rest of this test process as it was
