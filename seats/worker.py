"""The seats the service plays itself as a Celery worker on the ``seats`` queue (Redis broker;
application/queues.py names the queues): every game's own automa and every game's AI seats.

    celery -A seats.worker worker -Q seats

The API sends ``seats.play_automa_turn(game_id, seat, version)`` after the events that make it the
turn of a game's own automa (Tiletum's Cardinalbot) are saved. The task plays through the public API
with the bot credential, like any client, with the policy the game declares for its automa
(``seats/runner.py``); it never imports ``api`` and never reads the game store.

It also plays the seats of kind ``ai`` (docs/ai.md): ``seats.play_ai_turn(game_id, seat, version,
level)``, with the AI credential, which acts only for AI seats.

The tasks' names before the automa was the platform's, ``cardinalbot.play_turn`` and
``cardinalbot.play_ai_turn``, are registered too for one release, so that messages already in a
broker are still played (the service sends the new names).

Environment: ``CELERY_BROKER_URL`` (default ``REDIS_URL``), ``TABLEPOST_API_URL``,
``TABLEPOST_BOT_TOKEN``, ``TABLEPOST_AI_TOKEN``, and the time limits of every task (issue 27: no turn
may hold a worker for long), ``TABLEPOST_TASK_SOFT_TIME_LIMIT`` (120 s) and ``TABLEPOST_TASK_TIME_LIMIT``
(150 s), as in workers/app.py. A turn cut short is played again by the due-turn sweep.
"""
from __future__ import annotations

import os

from celery import Celery
from celery.signals import worker_process_init

from ai.tiletum.parallel import may_start_processes

from .ai_runner import play_ai_turn as run_ai_turn
from .client import ApiClient, RateLimited
from .runner import play_automa_turn as run_automa_turn

AUTOMA_TASK = "seats.play_automa_turn"
AI_TASK = "seats.play_ai_turn"
OLD_TASKS = {"cardinalbot.play_turn": AUTOMA_TASK, "cardinalbot.play_ai_turn": AI_TASK}   # for one release

broker = os.environ.get("CELERY_BROKER_URL") or os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
app = Celery("seats", broker=broker)
SOFT_TIME_LIMIT = float(os.environ.get("TABLEPOST_TASK_SOFT_TIME_LIMIT", "120"))
TIME_LIMIT = float(os.environ.get("TABLEPOST_TASK_TIME_LIMIT", "150"))
if not 0 < SOFT_TIME_LIMIT < TIME_LIMIT:
    raise ValueError(f"TABLEPOST_TASK_SOFT_TIME_LIMIT ({SOFT_TIME_LIMIT:g}) must be above 0 and below "
                     f"TABLEPOST_TASK_TIME_LIMIT ({TIME_LIMIT:g})")
app.conf.update(task_default_queue="seats", task_acks_late=True, task_reject_on_worker_lost=True,
                worker_prefetch_multiplier=1, broker_connection_retry_on_startup=True,
                task_ignore_result=True, task_soft_time_limit=SOFT_TIME_LIMIT, task_time_limit=TIME_LIMIT,
                task_annotations={"*": {"soft_time_limit": SOFT_TIME_LIMIT, "time_limit": TIME_LIMIT}})
# an AI seat at master thinks on every core: its pool of processes may start in Celery's pool processes
worker_process_init.connect(may_start_processes, weak=False)
RETRY = dict(bind=True, autoretry_for=(ConnectionError, OSError), retry_backoff=True, retry_backoff_max=60,
             max_retries=8)


def client() -> ApiClient:
    return ApiClient(os.environ.get("TABLEPOST_API_URL", "http://127.0.0.1:8000"),
                     os.environ["TABLEPOST_BOT_TOKEN"])


def _automa_turn(task, game_id: str, seat: int, version: int) -> int:
    try:
        return run_automa_turn(client(), game_id, seat, version)
    except RateLimited as e:
        raise task.retry(countdown=max(1.0, e.retry_after), max_retries=None) from None


def _ai_turn(task, game_id: str, seat: int, version: int, level: str) -> int:
    ai_client = ApiClient(os.environ.get("TABLEPOST_API_URL", "http://127.0.0.1:8000"),
                          os.environ["TABLEPOST_AI_TOKEN"])
    try:
        return run_ai_turn(ai_client, game_id, seat, level, version)
    except RateLimited as e:
        raise task.retry(countdown=max(1.0, e.retry_after), max_retries=None) from None


@app.task(name=AUTOMA_TASK, **RETRY)
def play_automa_turn(self, game_id: str, seat: int, version: int) -> int:
    """Play the game's own automa's turn in ``game_id`` if it is still due at ``version`` or later.
    When the game's budget is spent (429), the task is sent again for later instead of waiting
    inside the worker, which plays every game's turns; the due-turn sweep is the net below it."""
    return _automa_turn(self, game_id, seat, version)


@app.task(name=AI_TASK, **RETRY)
def play_ai_turn(self, game_id: str, seat: int, version: int, level: str) -> int:
    """Play AI seat ``seat``'s decisions in ``game_id`` if still due at ``version`` or later."""
    return _ai_turn(self, game_id, seat, version, level)


@app.task(name="cardinalbot.play_turn", **RETRY)
def old_play_turn(self, game_id: str, seat: int, version: int) -> int:
    """``seats.play_automa_turn`` under its name before (a message already in the broker)."""
    return _automa_turn(self, game_id, seat, version)


@app.task(name="cardinalbot.play_ai_turn", **RETRY)
def old_play_ai_turn(self, game_id: str, seat: int, version: int, level: str) -> int:
    """``seats.play_ai_turn`` under its name before (a message already in the broker)."""
    return _ai_turn(self, game_id, seat, version, level)


play_turn = play_automa_turn   # the task's Python name before
