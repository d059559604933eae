"""The service's Celery app and its beat schedule. Its queues are named for their work
(application/queues.py): ``email`` (the default: turn emails and every other email, webhooks, a
finished game's follow-up), ``sweeps`` (every task beat schedules: the sweeps, reminders and
deadlines, digests, maintenance), ``stand-in`` (the stand-in's turns), ``hints`` and ``reviews``
(the game reviews), each with a worker of its own, so a burst of emails never delays a sweep or a
reminder, and no review delays an email.

    celery -A workers.app worker -Q email
    celery -A workers.app worker -Q sweeps --concurrency 1
    celery -A workers.app worker -Q stand-in --concurrency 1
    celery -A workers.app worker -Q hints --concurrency 1     (TABLEPOST_HINT_PROCS)
    celery -A workers.app worker -Q reviews --concurrency 1
    celery -A workers.app beat --schedule FILE      (exactly one per deployment)

Beat is a process of its own, never a worker's ``-B``: a worker killed with ``-B`` leaves its beat
running, and the next one starts another. A second beat started by mistake stands by: beat
sends only while it holds a lock in the broker's Redis (workers/beat.py). Each sweep records a
heartbeat when it runs (workers/tasks.py), by which ``GET /health`` tells when the scheduler is
down.

Tasks take ids, re-read what they need, check the work is still due, and are idempotent.
Periodic sweeps find work that is due but was not done (a lost message, a broker that was
down); nothing waits days inside the broker.

A task taken by a worker that dies before acknowledging it (``task_acks_late``) is delivered
again by the Redis broker after ``visibility_timeout``: five minutes here
(``TABLEPOST_VISIBILITY_TIMEOUT``), not Celery's hour. That is safe because every task is
idempotent (it re-reads the game and sends each email once, through the outbox's once-keys) and
short: a task that is still running after five minutes and is delivered a second time does no
harm. Countdowns of retries stay below it (a longer ETA would be redelivered early, harmlessly).

No task may hold a worker for long (issue 27): every task has a soft time limit
(``TABLEPOST_TASK_SOFT_TIME_LIMIT``, 120 s: ``SoftTimeLimitExceeded`` is raised inside it) and a hard
one (``TABLEPOST_TASK_TIME_LIMIT``, 150 s: the worker's pool process is killed and replaced), below
the visibility timeout. The sweeps stop taking entries after half the soft limit
(:data:`SWEEP_BUDGET`); the rest waits for the next sweep, and an entry that fails or never
finishes is given up after ``TABLEPOST_SWEEP_MAX_ATTEMPTS`` attempts (application/indexes.py).
Celery enforces the limits in its default ``prefork`` pool (not in ``--pool solo``).

The stand-in's turns (``workers.stand_in_turn``, application/deadlines.py) go to a queue of their
own, ``stand-in``, served by the AI worker (``celery -A workers.app worker -Q stand-in --concurrency 1``): at
``master`` the AI thinks ``TABLEPOST_AI_MASTER_SECONDS`` a decision on every core, so a late turn
may take minutes, which no sweep or email may wait for. Its limits are sized for that
(:func:`ai_time_limits`), and the visibility timeout stays above them.

The hints players ask for (``workers.hint``, application/hints.py) go to the ``hints`` queue and its
worker, never computed in the API process: a search of seconds, run at a lower CPU priority than
the requests (``nice`` +19), its backlog bounded by the API before it is sent.

The game reviews (``workers.review_game``, application/review.py) go to the ``reviews`` queue and
its worker: seconds of CPU a seat, which on the ``email`` queue held a new game's first email back
(issue 51: four reviews delayed it from 1 to 7 s).
"""
from __future__ import annotations

import gc
import os

from celery import Celery
from celery.signals import worker_process_init, worker_ready

from application.queues import EMAIL, HINTS, REVIEWS, STAND_IN, SWEEPS

broker = os.environ.get("CELERY_BROKER_URL") or os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
app = Celery("tablepost", broker=broker, include=["workers.tasks"])


@worker_ready.connect          # the process that runs the tasks of --pool solo and threads
@worker_process_init.connect   # each process of the prefork pool
def freeze_startup_heap(**_) -> None:
    """Move everything the process holds once started (modules, classes, Celery's own objects)
    out of the garbage collector's reach (``gc.freeze``): none of it is ever garbage, and every
    full collection scanned all of it again. The objects of each task are collected as before.
    In the email worker this was 1-1.5 ms of CPU a turn email (``bench/pbem.py``, about 4% more
    emails a second, measured side by side)."""
    gc.freeze()


def time_limits(environ=os.environ) -> tuple[float, float]:
    """``(soft, hard)`` seconds of every task, from the environment; a soft limit at or above the
    hard one could never fire, so it is refused."""
    soft = float(environ.get("TABLEPOST_TASK_SOFT_TIME_LIMIT", "120"))
    hard = float(environ.get("TABLEPOST_TASK_TIME_LIMIT", "150"))
    if not 0 < soft < hard:
        raise ValueError(f"TABLEPOST_TASK_SOFT_TIME_LIMIT ({soft:g}) must be above 0 and below "
                         f"TABLEPOST_TASK_TIME_LIMIT ({hard:g})")
    return soft, hard


AI_QUEUE = STAND_IN
STAND_IN_DECISIONS = 20   # the decisions of one late turn the AI worker's time limit is sized for


def ai_time_limits(environ=os.environ) -> tuple[float, float]:
    """``(soft, hard)`` seconds of a stand-in turn on the ``stand-in`` queue (``workers.stand_in_turn``):
    ``TABLEPOST_AI_TASK_TIME_LIMIT``, by default room for :data:`STAND_IN_DECISIONS` decisions at
    ``master`` (TABLEPOST_AI_MASTER_SECONDS each) and a minute more, and at least the other tasks'
    hard limit; the soft limit is 90% of it. The stand-in plays the turn's later decisions at
    ``medium`` once its thinking time is spent, so the turn ends inside the soft limit."""
    from ai.settings import master_seconds
    default = max(float(environ.get("TABLEPOST_TASK_TIME_LIMIT", "150")),
                  STAND_IN_DECISIONS * master_seconds() + 60)
    raw = environ.get("TABLEPOST_AI_TASK_TIME_LIMIT")
    try:
        hard = float(raw) if raw else default
    except ValueError:
        raise ValueError(f"TABLEPOST_AI_TASK_TIME_LIMIT must be a number of seconds, not {raw!r}") from None
    if not 0 < hard < float("inf"):
        raise ValueError(f"TABLEPOST_AI_TASK_TIME_LIMIT ({hard:g}) must be above 0")
    return hard * 0.9, hard


def visibility_timeout(ai_hard: float, environ=os.environ) -> int:
    """Seconds after which the broker delivers again a message taken by a worker that died:
    ``TABLEPOST_VISIBILITY_TIMEOUT``, by default 300, or half a minute more than the AI worker's hard limit
    (a longer stand-in turn must not be delivered a second time while it runs)."""
    raw = environ.get("TABLEPOST_VISIBILITY_TIMEOUT")
    if not raw:
        return int(max(300, ai_hard + 30))
    if float(raw) <= ai_hard:
        raise ValueError(f"TABLEPOST_VISIBILITY_TIMEOUT ({raw}) must be above the AI worker's hard time "
                         f"limit ({ai_hard:g} s, TABLEPOST_AI_TASK_TIME_LIMIT)")
    return int(raw)


class Limits:
    """The time limits set on each task itself (its ``soft_time_limit`` and ``time_limit``, whatever
    runs it): the AI worker's for the stand-in's turns, everyone else's for the rest (a Celery
    annotation; a ``"*"`` entry would override the stand-in's own)."""

    def annotate(self, task) -> dict:
        if task.name in AI_TASKS:
            return {"soft_time_limit": AI_SOFT_TIME_LIMIT, "time_limit": AI_TIME_LIMIT}
        return {"soft_time_limit": SOFT_TIME_LIMIT, "time_limit": TIME_LIMIT}


AI_TASKS = ("workers.stand_in_turn",)
SOFT_TIME_LIMIT, TIME_LIMIT = time_limits()
AI_SOFT_TIME_LIMIT, AI_TIME_LIMIT = ai_time_limits()
SWEEP_BUDGET = SOFT_TIME_LIMIT / 2
SWEEP_MAX_ATTEMPTS = int(os.environ.get("TABLEPOST_SWEEP_MAX_ATTEMPTS", "10"))
VISIBILITY_TIMEOUT = visibility_timeout(AI_TIME_LIMIT)


def _every(task: str, seconds_var: str, default: float) -> dict:
    """A beat entry: ``workers.<task>`` every ``$seconds_var`` seconds (``default``)."""
    return {"task": f"workers.{task}", "schedule": float(os.environ.get(seconds_var, str(default)))}


SWEEP = "TABLEPOST_SWEEP_SECONDS"   # the sweeps that keep turns, emails and tournaments moving
BEAT_SCHEDULE = {
    **{name.replace("_", "-"): _every(name, SWEEP, 30)
       for name in ("sweep_bot_turns", "sweep_outbox", "sweep_notifications", "sweep_deadlines",
                    "sweep_tournaments", "sweep_talk")},
    "sweep-lobby": _every("sweep_lobby", "TABLEPOST_LOBBY_SWEEP_SECONDS", 300),
    "purge-finished": _every("purge_finished", "TABLEPOST_PURGE_SECONDS", 3600),
    "sweep-archive": _every("sweep_archive", "TABLEPOST_ARCHIVE_SWEEP_SECONDS", 3600),
    "send-digests": _every("send_digests", "TABLEPOST_DIGEST_SECONDS", 24 * 3600),
}
# every task beat sends runs on the sweeps queue and its own worker (a burst of emails on the email
# queue never delays them); the stand-in's turns, the hints and the reviews on theirs; everything
# else on the email queue
SWEEP_TASKS = tuple(entry["task"] for entry in BEAT_SCHEDULE.values())
ROUTES = {**{name: {"queue": SWEEPS} for name in SWEEP_TASKS},
          **{name: {"queue": AI_QUEUE} for name in AI_TASKS},
          "workers.hint": {"queue": HINTS},
          "workers.review_game": {"queue": REVIEWS}}
app.conf.update(
    task_default_queue=EMAIL, task_acks_late=True, task_reject_on_worker_lost=True,
    worker_prefetch_multiplier=1, broker_connection_retry_on_startup=True, task_ignore_result=True,
    broker_transport_options={"visibility_timeout": VISIBILITY_TIMEOUT},
    task_routes=ROUTES,
    beat_scheduler="workers.beat:LockedScheduler",
    task_soft_time_limit=SOFT_TIME_LIMIT, task_time_limit=TIME_LIMIT,
    # also on each task itself (its time_limit and soft_time_limit), whatever runs it
    task_annotations=(Limits(),),
    beat_schedule=BEAT_SCHEDULE,
)
