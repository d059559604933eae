"""No task holds a worker for long (issue 27): the workers `tablepost serve` starts
(api.cli.worker_command) enforce every task's hard time limit, so a task that never ends is
killed and the next task runs. With the old `--pool solo` the task after it waited for good."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from api.cli import worker_command

ROOT = Path(__file__).resolve().parent.parent


def test_a_task_that_never_ends_is_stopped_at_its_limit_and_the_next_one_runs(redis_server, redis_client,
                                                                               tmp_path):
    from celery import Celery
    # one pool process: nothing runs beside the hanging task, so only its limit frees the worker
    cmd = worker_command(sys.executable, "tests.fixtures.celery_limits_app", "limits-test", 1)
    env = {**os.environ, "CELERY_BROKER_URL": redis_server.url, "REDIS_URL": redis_server.url,
           "TEST_MARK_REDIS": redis_server.url, "TABLEPOST_TASK_SOFT_TIME_LIMIT": "1",
           "TABLEPOST_TASK_TIME_LIMIT": "2", "PYTHONPATH": str(ROOT)}
    log = open(tmp_path / "worker.log", "w")
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    key = f"limits:{time.time_ns()}"
    try:
        sender = Celery(broker=redis_server.url)
        sender.send_task("tests.hang", [key], queue="limits-test")
        sender.send_task("tests.mark", [key], queue="limits-test")
        deadline = time.monotonic() + 60  # the worker's start on a busy machine, then 2 s of limit
        while time.monotonic() < deadline and not redis_client.get(key + ":marked"):
            assert proc.poll() is None, (tmp_path / "worker.log").read_text()[-3000:]
            time.sleep(0.2)
        assert redis_client.get(key + ":marked"), "the task after a hanging one never ran:\n" + \
            (tmp_path / "worker.log").read_text()[-3000:]
        assert redis_client.get(key + ":started") == b"1"       # killed once, not delivered again
        assert redis_client.get(key + ":soft") == b"1"          # the soft limit was raised in it first
        assert redis_client.get(key + ":hang-finished") is None  # it was stopped, it did not end
        assert "Hard time limit (2" in (tmp_path / "worker.log").read_text()
    finally:
        os.killpg(proc.pid, 15)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
        log.close()


def test_serve_starts_its_workers_with_a_pool_that_enforces_limits():
    for app, queue in (("workers.app", "tiletum"), ("workers.app", "ai"),
                       ("seats.worker", "seats")):
        cmd = worker_command("python", app, queue, 1)
        assert cmd[cmd.index("--pool") + 1] == "prefork"
    source = (ROOT / "api" / "cli.py").read_text(encoding="utf-8")
    assert '"--pool", "solo"' not in source
    # seats, email, sweeps, stand-in, hints, reviews
    assert source.count("supervisor.start(worker_command(") == 6
