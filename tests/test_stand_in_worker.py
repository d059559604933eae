"""The stand-in's turns run on the AI worker (queue ``ai``), not in the deadline sweep: the sweep
counts the missed deadline and hands the turn off, and returns at once even at ``master``; a real
worker of ``tablepost serve``'s command line plays the turn; a second delivery plays nothing; a
worker killed with SIGKILL mid-turn leaves the turn to the next worker; a turn whose message was
lost is handed off again when its lease is over (docs/pbem.md, "The stand-in worker")."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis

from api.cli import worker_command
from application.deadline_store import DEADLINES, NOTICES, REMINDERS
from application.deadlines import Deadlines
from application.game_service import GameService
from application.store import EventStore

ROOT = Path(__file__).resolve().parent.parent
DAY = 86400

SWEEP = """
import json, sys, time
from workers.tasks import sweep_deadlines
t = time.monotonic()
out = sweep_deadlines.apply().get()
with open(sys.argv[1], "w") as f:
    json.dump({"out": out, "seconds": time.monotonic() - t}, f)
"""


class Clock:
    def __init__(self, t: float):
        self.t = t

    def __call__(self) -> float:
        return self.t


@pytest.fixture()
def broker(tmp_path):
    """A Redis of this test's own: the store and the broker (no other test's deadlines or tasks)."""
    from api.redis_server import EmbeddedRedis
    server = EmbeddedRedis(tmp_path / "redis").start()
    yield server
    server.stop()


@pytest.fixture()
def r(broker):
    client = redis.Redis.from_url(broker.url)
    yield client
    client.close()


def env_of(broker, tmp_path, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLEPOST_")}
    env.update({"CELERY_BROKER_URL": broker.url, "REDIS_URL": broker.url, "PYTHONPATH": str(ROOT),
                "TABLEPOST_TEST_CLOCK": "1", "TABLEPOST_MAIL_SECRET": "s",
                "TABLEPOST_DATA_DIR": str(tmp_path)})
    env.update(extra)
    return env


class Worker:
    """``tablepost serve``'s AI worker (api.cli.worker_command), in a process group of its own."""

    def __init__(self, env: dict, log: Path):
        self.log = log
        self.out = open(log, "a")
        self.proc = subprocess.Popen(worker_command(sys.executable, "workers.app", "stand-in", 1), cwd=ROOT,
                                     env=env, stdout=self.out, stderr=subprocess.STDOUT,
                                     start_new_session=True)

    def text(self) -> str:
        return self.log.read_text()

    def kill(self, sig=signal.SIGTERM) -> None:
        try:
            os.killpg(self.proc.pid, sig)
            self.proc.wait(30)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)
        self.out.close()


def wait_for(check, seconds: float, what: str, worker: Worker | None = None):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        if worker is not None:
            assert worker.proc.poll() is None, worker.text()[-3000:]
        time.sleep(0.2)
    raise AssertionError(f"{what} within {seconds} s" + (f":\n{worker.text()[-3000:]}" if worker else ""))


def late_game(r, seed: str):
    """A two-player Tiletum game whose first turn has a deadline set now (no reminders)."""
    r.delete(*DEADLINES.keys(), *REMINDERS.keys(), *NOTICES.keys())
    svc = GameService(EventStore(r), allow_seeded_games=True)
    g = svc.create_game([{"name": "Ada", "email": "ada@x.test"}, {"name": "Bob", "email": "bob@x.test"}],
                        {"seed": seed, "time_control": {"reminders_hours": []}}, game="tiletum")
    meta, state = svc.load(g["id"])
    Deadlines(svc, None, time.time).start_turn(g["id"], meta, state.actor, state.version)
    return svc, g["id"], state.actor, state.version


def sweep_task(env: dict, tmp_path: Path) -> dict:
    """The beat's ``workers.sweep_deadlines`` run in a process of its own, as a worker runs it."""
    out = tmp_path / "sweep.json"
    done = subprocess.run([sys.executable, "-c", SWEEP, str(out)], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(out.read_text())


def stand_in_moves(svc, gid: str, version: int) -> list[dict]:
    return [e for e in svc.events_after(gid, version) if e.get("by") == "stand-in"]


def queue_idle(r) -> bool:
    """No message waits in the queue ``ai`` and none is taken and not acknowledged."""
    return r.llen("stand-in") == 0 and r.hlen("unacked") == 0


def test_the_sweep_hands_the_turn_off_at_once_and_the_ai_worker_plays_it_at_master(broker, r, tmp_path):
    svc, gid, seat, version = late_game(r, "standin-master")
    r.set("clock:offset", 4 * DAY)   # the deadline (3 days) passed, in every process
    env = env_of(broker, tmp_path, TABLEPOST_STAND_IN_LEVEL="master", TABLEPOST_AI_MASTER_SECONDS="1")
    worker = Worker(env, tmp_path / "ai.log")
    try:
        done = sweep_task(env, tmp_path)
        assert done["out"]["stand_in_turns"] == 1
        assert done["seconds"] < 5, done   # it waited for no AI (each decision alone takes 1 s on every core)
        assert Deadlines(svc, None).seat_state(gid, seat)["missed"] == 1   # counted by the sweep, once
        moves = wait_for(lambda: stand_in_moves(svc, gid, version), 180, "the AI worker played the turn",
                         worker)
        assert {e["seat"] for e in moves} == {seat}
        _, state = svc.load(gid)
        assert state.actor != seat                                      # the whole turn, to its end
        wait_for(lambda: f"{gid}:{seat}:{version}:stand-in".encode() in NOTICES.due(r, "+inf"), 30,
                 "the notice recorded", worker)
        assert f"{gid}:{seat}:{version}".encode() not in DEADLINES.due(r, "+inf"), "its entry is done"
        assert "succeeded" in worker.text() and "workers.stand_in_turn" in worker.text()
        # master itself played, on every core (not the fixed rule it falls back to)
        assert "the AI failed" not in worker.text(), worker.text()[-3000:]
        # the next sweep tells the player and hands nothing off again
        done = sweep_task(env, tmp_path)
        assert (done["out"]["notices"], done["out"]["stand_in_turns"]) == (1, 0), done
        assert Deadlines(svc, None).seat_state(gid, seat)["missed"] == 1
    finally:
        worker.kill()


def test_a_second_delivery_plays_nothing(broker, r, tmp_path):
    from celery import Celery
    svc, gid, seat, version = late_game(r, "standin-twice")
    sender = Celery(broker=broker.url)
    svc.stand_in_hand_off = lambda g, s, v: [sender.send_task("workers.stand_in_turn", [g, s, v],
                                                              queue="stand-in")
                                             for _ in range(2)]   # the broker delivers it twice
    done = Deadlines(svc, None, Clock(time.time() + 4 * DAY)).sweep()
    assert done["stand_in_turns"] == 1
    worker = Worker(env_of(broker, tmp_path, TABLEPOST_STAND_IN_LEVEL="easy"), tmp_path / "ai.log")
    try:
        wait_for(lambda: stand_in_moves(svc, gid, version) and queue_idle(r)
                 and worker.text().count("succeeded") == 2, 120, "both deliveries handled", worker)
        results = sorted(line.rsplit(":", 1)[1].strip() for line in worker.text().splitlines()
                         if "workers.stand_in_turn" in line and "succeeded" in line)
        assert results == ["0", "1"], worker.text()[-3000:]   # played once; the second found nothing due
        moves = stand_in_moves(svc, gid, version)
        after = svc.events_after(gid, version)
        assert after == moves and {e["seat"] for e in moves} == {seat}
        _, state = svc.load(gid)
        assert state.actor != seat
    finally:
        worker.kill()


@pytest.mark.long(25)
def test_a_worker_killed_mid_turn_leaves_the_turn_to_the_next_worker(broker, r, tmp_path):
    from celery import Celery
    svc, gid, seat, version = late_game(r, "standin-killed")
    sender = Celery(broker=broker.url)
    svc.stand_in_hand_off = lambda g, s, v: sender.send_task("workers.stand_in_turn", [g, s, v],
                                                             queue="stand-in")
    assert Deadlines(svc, None, Clock(time.time() + 4 * DAY)).sweep()["stand_in_turns"] == 1
    # master thinks 3 s a decision; the broker delivers again what a dead worker took after 15 s
    env = env_of(broker, tmp_path, TABLEPOST_STAND_IN_LEVEL="master", TABLEPOST_AI_MASTER_SECONDS="3",
                 TABLEPOST_AI_TASK_TIME_LIMIT="12", TABLEPOST_VISIBILITY_TIMEOUT="15")
    first = Worker(env, tmp_path / "first.log")
    try:
        wait_for(lambda: "workers.stand_in_turn" in first.text() and "received" in first.text(), 90,
                 "the first worker took the turn", first)
        time.sleep(1.0)
        assert not stand_in_moves(svc, gid, version), "still thinking"
    finally:
        first.kill(signal.SIGKILL)   # the whole worker, mid-turn: nothing acknowledged
    assert r.hlen("unacked") == 1 and not stand_in_moves(svc, gid, version)
    # The next worker (a restart, or another machine) comes once the taken message is past its
    # visibility timeout: the broker then delivers it again at that worker's first look for such
    # messages (kombu looks at start and then every 100 s: a worker already running could wait that).
    [(_, taken_at)] = r.zrange("unacked_index", 0, -1, withscores=True)
    time.sleep(max(0.0, taken_at + 15.5 - time.time()))
    second = Worker(env, tmp_path / "second.log")
    try:
        moves = wait_for(lambda: stand_in_moves(svc, gid, version), 120, "the next worker played the turn",
                         second)
        assert {e["seat"] for e in moves} == {seat}
        wait_for(lambda: queue_idle(r), 30, "the redelivered message acknowledged", second)
        assert "the AI failed" not in first.text() + second.text(), second.text()[-3000:]
        _, state = svc.load(gid)
        assert state.actor != seat
        assert Deadlines(svc, None).seat_state(gid, seat)["missed"] == 1
    finally:
        second.kill()


def test_a_turn_handed_off_and_never_played_is_handed_off_again_after_its_lease(r):
    """A lost message (or a broker that was down): the turn's entry stays in ``deadlines``, due at
    the end of the lease; the sweep then hands it off again without counting the deadline twice,
    and gives it up after ``max_attempts`` hand-offs."""
    svc, gid, seat, version = late_game(r, "standin-lost")
    sent = []
    svc.stand_in_hand_off = lambda g, s, v: sent.append((g, s, v))
    clock = Clock(time.time() + 4 * DAY)
    dl = Deadlines(svc, None, clock, lease=600, max_attempts=3)
    assert dl.sweep()["stand_in_turns"] == 1 and sent == [(gid, seat, version)]
    assert dl.sweep()["stand_in_turns"] == 0, "within the lease: the AI worker has it"
    clock.t += 601
    assert dl.sweep()["stand_in_turns"] == 1 and len(sent) == 2
    assert dl.seat_state(gid, seat)["missed"] == 1, "one missed deadline, however often handed off"
    clock.t += 601
    dl.sweep()
    clock.t += 601
    assert dl.sweep()["stand_in_turns"] == 0 and len(sent) == 3, "given up after 3 hand-offs"
    assert f"{gid}:{seat}:{version}".encode() not in DEADLINES.due(r, "+inf")
    # a broker that is down: the sweep tries again soon, still without counting the deadline twice
    svc2, gid2, seat2, version2 = late_game(r, "standin-broker-down")

    def down(*_):
        raise ConnectionError("broker down")
    svc2.stand_in_hand_off = down
    dl2 = Deadlines(svc2, None, clock)
    assert dl2.sweep()["stand_in_turns"] == 0
    svc2.stand_in_hand_off = lambda g, s, v: sent.append((g, s, v))   # the broker is back
    dl2 = Deadlines(svc2, None, clock)
    clock.t += 61
    assert dl2.sweep()["stand_in_turns"] == 1 and sent[-1] == (gid2, seat2, version2)
    assert dl2.seat_state(gid2, seat2)["missed"] == 1


def test_a_dropped_seat_s_turn_is_handed_off_and_tells_nobody(r):
    """A withdrawn or deleted player's seat (or one dropped for missed deadlines): its turn goes to
    the AI worker too, with the same lease, and playing it records no notice."""
    svc, gid, seat, version = late_game(r, "standin-dropped")
    sent = []
    svc.stand_in_hand_off = lambda g, s, v: sent.append((g, s, v))
    dl = Deadlines(svc, None, time.time)
    dl.drop(gid, seat)
    assert dl.stand_in_later(gid, seat) == 1 and sent == [(gid, seat, version)]
    assert not stand_in_moves(svc, gid, version), "nothing played in the caller"
    assert f"{gid}:{seat}:{version}".encode() in DEADLINES.due(r, "+inf")   # the lease
    assert dl.stand_in_later(gid, 1 - seat) == 0, "not that seat's decision: nothing to do"
    assert dl.play_late_turn(gid, seat, version) == 1                       # what the AI worker does
    assert dl.play_late_turn(gid, seat, version) == 0                       # a second delivery
    assert stand_in_moves(svc, gid, version) and not NOTICES.due(r, "+inf")
    assert f"{gid}:{seat}:{version}".encode() not in DEADLINES.due(r, "+inf")


def test_after_its_thinking_time_the_stand_in_plays_the_rest_of_the_turn_quickly(r, monkeypatch):
    import ai
    from application import stand_in
    levels = []

    def decide(view, level, seed):
        levels.append(level)
        return real(view, "easy", seed)
    real = ai.decide
    monkeypatch.setattr(stand_in.ai, "decide", decide)
    monkeypatch.setenv("TABLEPOST_STAND_IN_LEVEL", "master")
    svc, gid, seat, _ = late_game(r, "standin-think")
    assert Deadlines(svc, None).stand_in(gid, seat, think=0) == 1
    assert levels and set(levels) == {"medium"}, levels
    levels.clear()
    _, state = svc.load(gid)
    assert Deadlines(svc, None).stand_in(gid, state.actor, think=3600) == 1
    assert levels and set(levels) == {"master"}, levels


def test_the_api_hands_a_slow_stand_in_s_turn_to_the_ai_worker(redis_server, monkeypatch):
    """A withdrawal or a deleted account at ``hard`` or ``master``: no request waits for the AI."""
    from tests.conftest import make_app
    sent = []
    monkeypatch.setenv("TABLEPOST_STAND_IN_LEVEL", "master")
    app = make_app(redis_server.url, SEND_TASK=lambda name, args, queue: sent.append((name, args, queue)))
    app.extensions["tablepost.service"].stand_in_hand_off("g", 1, 7)
    assert sent == [("workers.stand_in_turn", ["g", 1, 7], "stand-in")]
    monkeypatch.setenv("TABLEPOST_STAND_IN_LEVEL", "medium")
    app = make_app(redis_server.url, SEND_TASK=lambda name, args, queue: sent.append((name, args, queue)))
    assert app.extensions["tablepost.service"].stand_in_hand_off is None, "medium answers at once"


def _start_a_process_pool(allow: bool) -> int:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from ai.tiletum.parallel import may_start_processes
    if allow:
        may_start_processes()
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("forkserver")) as ex:
        return ex.submit(abs, -3).result(timeout=60)


def test_a_celery_pool_process_may_start_the_master_ai_s_processes():
    """Celery's prefork pool processes (billiard's) could not start the master AI's pool: both
    workers' apps connect ``may_start_processes`` to ``worker_process_init``. The pool process
    is forked from one whose fork server runs (as a test process's may be): it starts its own."""
    from multiprocessing import forkserver

    from billiard.pool import Pool
    from celery.signals import worker_process_init

    import seats.worker  # noqa: F401
    import workers.tasks  # noqa: F401
    from ai.tiletum.parallel import may_start_processes
    assert any(receiver is may_start_processes for _, receiver in worker_process_init.receivers)
    forkserver.ensure_running()   # this process's: the pool process below inherits its bookkeeping
    pool = Pool(1)
    try:
        with pytest.raises(AssertionError, match="daemonic"):
            pool.apply(_start_a_process_pool, (False,))
        assert pool.apply(_start_a_process_pool, (True,)) == 3
    finally:
        pool.terminate()
        pool.join()
