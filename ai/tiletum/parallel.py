"""Root-parallel search for a time budget (level ``master``; docs/ai.md, "Levels").

A decision at ``master`` is hard's search and look-ahead, run for as long as the budget allows
(``Settings.seconds``) on every core (``Settings.procs``, 0: ``os.cpu_count()``):

1. **Search** (the first 60% of the budget): each process searches the same position
   (``ai.tiletum.search``) with a random state of its own, sized to the time it has (a short probe first
   measures its speed); the trees come back pruned (``Node.pruned``: every move at the root, below
   it the nodes visited at least twice) and are merged at the root (``Node.merge``: visits and
   values summed, child by child, the best the better of each).
2. **Look-ahead** (up to 85%): the merged tree's best ``k`` moves are judged by the seat's next
   turn (``ai.tiletum.lookahead.rerank_totals``) on sampled futures of each process's own, until the time
   is spent; the totals are summed, and the best move played.
3. The answer is that move and the moves planned after it in the merged tree (``ai.tiletum.plan.plan_after``).

The processes are one pool per process that decides (created once, on the first ``master``
decision, with the ``forkserver`` start method so that a threaded parent is never forked), kept
for the next decisions. A worker sees a determinized state (``state.to_doc()``), never the view's
game: it holds nothing the seat does not know. The answer depends on the machine's speed, so
``master`` is not reproducible as the iteration levels are. The first decision of a process also
pays its pool's start (about a second). As with any ``multiprocessing`` start method but fork, a
script that decides at ``master`` must keep its work under ``if __name__ == "__main__":`` (the
workers import the main module).
"""
from __future__ import annotations

import multiprocessing
import os
import random
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from tiletum.state import GameState

from .lookahead import pick, ranked_lines, rerank_totals
from .plan import check_decision, plan_after
from .search import Node, best_child, moves_of, search
from ..settings import Settings
from .view import sample_seed

SEARCH_SHARE = 0.6    # of the budget, for the search; the look-ahead ends at LOOK_SHARE
LOOK_SHARE = 0.85     # the rest is the margin for merging, planning and sending the trees
PROBE = 40            # iterations of the probe that measures a process's speed
MAX_FUTURES = 256     # sampled futures a process may get for the look-ahead

_pool: ProcessPoolExecutor | None = None
_pool_key: tuple[int, int] | None = None     # (pid, processes) the pool was made for


def processes(settings: Settings) -> int:
    return settings.procs or os.cpu_count() or 1


def pool(procs: int) -> ProcessPoolExecutor:
    """This process's pool of ``procs`` workers (made once; again after a fork or a broken pool)."""
    global _pool, _pool_key
    key = (os.getpid(), procs)
    if _pool is None or _pool_key != key:
        if _pool is not None and _pool_key[0] == os.getpid():
            _pool.shutdown(wait=False, cancel_futures=True)
        method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        _pool = ProcessPoolExecutor(max_workers=procs, mp_context=multiprocessing.get_context(method))
        _pool_key = key
    return _pool


def may_start_processes(**_) -> None:
    """Let this process start the pool (a Celery ``worker_process_init`` handler of both workers).

    A pool process of Celery's ``prefork`` pool is, to ``multiprocessing``, billiard's daemonic
    process object (billiard sets it as ``multiprocessing``'s current process): ``multiprocessing``
    refuses it children, and could not pickle its authentication key for a ``forkserver`` child
    anyway, so a ``master`` decision failed there (the stand-in fell back to its fixed rule). Here
    the process may start processes, with a key ``multiprocessing`` can hand them. The pool's
    processes still end with it: their queues close when it dies, killed at its hard time limit or not."""
    me = multiprocessing.current_process()
    config = {k: v for k, v in me._config.items() if k != "daemon"}
    config["authkey"] = multiprocessing.process.AuthenticationString(bytes(me.authkey))
    me._config = config
    _forget_inherited_forkserver()


def _forget_inherited_forkserver() -> None:
    """A process forked from one that had started ``multiprocessing``'s fork server inherits that
    server's bookkeeping but is not its parent: using it fails (``waitpid``: no child process).
    Forget it, so that this process starts a fork server of its own when it needs one. (The
    module keeps one ``ForkServer`` whose bound methods it exports, so its fields are reset in
    place; they are CPython's, checked by tests/test_stand_in_worker.py.)"""
    from multiprocessing import forkserver
    server = forkserver._forkserver
    if getattr(server, "_forkserver_pid", None) is None:
        return
    alive = getattr(server, "_forkserver_alive_fd", None)
    if alive is not None:
        try:
            os.close(alive)   # this copy only: the parent's server lives on while the parent holds its own
        except OSError:
            pass
    server._forkserver_pid = None
    server._forkserver_address = None
    server._forkserver_alive_fd = None


def shutdown() -> None:
    """Close this process's pool (tests; a worker's pool otherwise lives as long as the worker)."""
    global _pool, _pool_key
    if _pool is not None and _pool_key[0] == os.getpid():
        _pool.shutdown(wait=True, cancel_futures=True)
    _pool, _pool_key = None, None


def _search_worker(doc: dict, seat: int, settings: Settings, seed: str, deadline: float) -> Node:
    """One process's search until ``deadline`` (``time.time()``): a probe, then as many iterations
    as its speed allows in the time left; the merged tree, pruned for the trip back."""
    state = GameState.from_doc(doc, validate=False)
    rng = random.Random(seed)
    t0 = time.perf_counter()
    tree = search(state, seat, PROBE, rng, settings, deadline=t0 + max(0.0, deadline - time.time()))
    rate = max(tree.n, 1) / max(time.perf_counter() - t0, 1e-6)
    left = deadline - time.time()
    if left > 0:
        more = search(state, seat, max(1, int(rate * left * 0.9)), rng, settings,
                      deadline=time.perf_counter() + left)
        tree.merge(more)
    return tree.pruned()


def _look_worker(doc: dict, seat: int, lines, settings: Settings, seed: str, deadline: float):
    state = GameState.from_doc(doc, validate=False)
    rng = random.Random(seed)
    seeds = [sample_seed(rng) for _ in range(MAX_FUTURES)]
    left = deadline - time.time()
    return rerank_totals(lines, state, seat, seeds, settings.lookahead[2], settings,
                         deadline=time.perf_counter() + max(0.0, left))


def _gather(futures, timeout: float):
    try:
        return [f.result(timeout=timeout) for f in futures]
    except BrokenProcessPool:
        shutdown()   # a worker died: the next decision makes a new pool
        raise


def parallel_search(state: GameState, seat: int, settings: Settings, seeds: list[str],
                    deadline: float) -> tuple[Node, list[Node]]:
    """The merged tree of one search per seed, each in a worker process until ``deadline``
    (``time.time()``), and the workers' own (pruned) trees."""
    doc = state.to_doc()
    ex = pool(len(seeds))
    trees = _gather([ex.submit(_search_worker, doc, seat, settings, s, deadline) for s in seeds],
                    timeout=max(1.0, deadline - time.time()) + 30)
    merged = Node()
    for t in trees:
        merged.merge(t.pruned(min_visits=0))   # a copy: the workers' trees stay as they came
    return merged, trees


def decide_state(state: GameState, seat: int, settings: Settings, rng: random.Random) -> list[str]:
    """``ai.decide`` at a time budget: search, look-ahead and plan as the module says."""
    start = time.time()
    check_decision(state, seat)
    if len(moves_of(state)) == 1:
        return plan_after(state, seat, next(iter(moves_of(state))), None, rng, settings)
    procs = processes(settings)
    seeds = [sample_seed(rng) for _ in range(procs)]
    tree, _ = parallel_search(state, seat, settings, seeds, start + SEARCH_SHARE * settings.seconds)
    if settings.lookahead:
        lines = ranked_lines(tree, settings.lookahead[0])
        if len(lines) >= 2:
            end = start + LOOK_SHARE * settings.seconds
            doc = state.to_doc()
            ex = pool(procs)
            got = _gather([ex.submit(_look_worker, doc, seat, lines, settings, sample_seed(rng), end)
                           for _ in range(procs)], timeout=max(1.0, end - time.time()) + 30)
            totals = [sum(t[i] for t, _ in got) for i in range(len(lines))]
            first = pick(lines, totals)
        else:
            first = lines[0][0]
    else:
        first = best_child(tree)
    return plan_after(state, seat, first, tree, rng, settings)
