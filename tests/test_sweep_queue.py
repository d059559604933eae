"""Issue 40: the queues are named for their work, and what beat schedules (the sweeps, reminders,
deadlines) runs on a queue and worker of its own, so that a burst of turn emails never delays it.

Real parts: a Redis of the test's own (store and broker), a real SMTP server on loopback, real
Celery processes as deployed (an email worker on ``email``, a sweeps worker on ``sweeps``, one
beat). A burst of turn emails, each with its picture, fills the email queue; while it is still
being worked off, the sweeps keep running on time, and an email the outbox failed to send is
delivered by its sweep before the burst is done."""
from __future__ import annotations

import os
import signal
import time
from email.message import EmailMessage

import pytest

from application import heartbeat, queues
from application.game_service import GameService
from application.store import EventStore
from mail.outbox import Outbox
from tests.servers import wait_for
from tests.test_pbem_e2e import Mailboxes, own_redis, spawn  # noqa: F401,F811 (a fixture)

BURST = 80          # turn emails, each a game of its own with its board picture (~0.1-0.3 s each)
SWEEP_SECONDS = 1   # the sweeps' interval here


def celery(*args: str) -> list[str]:
    return ["-m", "celery", "-A", "workers.app", *args, "--loglevel", "WARNING"]


@pytest.fixture()
def stack(own_redis, tmp_path):  # noqa: F811
    import redis
    boxes = Mailboxes()
    boxes.controller.start()
    env = dict(os.environ, REDIS_URL=own_redis.url, TABLEPOST_SMTP_URL=f"smtp://127.0.0.1:{boxes.port}",
               TABLEPOST_MAIL_SECRET="sq-secret", TABLEPOST_MAIL_DOMAIN="pbem.test",
               TABLEPOST_PUBLIC_URL="http://127.0.0.1:9", TABLEPOST_SWEEP_SECONDS=str(SWEEP_SECONDS),
               TABLEPOST_MAIL_DUE_SECONDS="3600")   # the burst is the email worker's, not a sweep's
    env.pop("CELERY_BROKER_URL", None)
    log = open(tmp_path / "procs.log", "w")
    r = redis.Redis.from_url(own_redis.url)
    procs = []
    try:
        yield r, env, boxes, log, procs, tmp_path
    finally:
        for p in procs:
            os.killpg(p.pid, signal.SIGTERM)
        for p in procs:
            p.wait(30)
        boxes.controller.stop()
        log.close()
        r.close()


def test_a_sweep_runs_on_time_while_the_email_queue_holds_a_burst(stack):
    r, env, boxes, log, procs, tmp_path = stack
    svc = GameService(EventStore(r), allow_seeded_games=True)   # no broker: the games' emails not yet sent
    seats = [[{"name": "Ada", "email": f"ada{i}@sq.test"}, {"name": "Bob", "email": f"bob{i}@sq.test"}]
             for i in range(BURST)]
    gids = [svc.create_game(seats[i], {"seed": f"sweep-queue-{i}"}, game="tiletum")["id"]
            for i in range(BURST)]
    # players who accepted our email: their turn emails carry the board picture (an invitation to a
    # new address draws none, and the burst would be over before the sweeps are measured)
    from application.consent import mark_verified
    for i in range(BURST):
        mark_verified(r, f"ada{i}@sq.test")
    # an email whose first attempt failed: only the outbox's sweep sends it
    failed = EmailMessage()
    failed["From"], failed["To"], failed["Subject"] = "pbem@pbem.test", "late@sq.test", "in the outbox"
    failed.set_content("sent by the sweep\n")
    assert Outbox(r, None).enqueue("sweep-queue-test", failed, deliver=False)
    # the burst: the very message a save publishes, for every game, before any worker runs
    from api.broker import celery_send_task
    send = celery_send_task(env["REDIS_URL"])   # as the API and the workers send it
    for gid in gids:
        send("workers.notify_turn", [gid, 1], queues.EMAIL)
    assert r.llen(queues.EMAIL) == BURST and r.llen(queues.SWEEPS) == 0
    procs.append(spawn(celery("worker", "-Q", queues.EMAIL, "--pool", "solo", "-n", "email@%h"), env, log))
    procs.append(spawn(celery("worker", "-Q", queues.SWEEPS, "--pool", "solo", "-n", "sweeps@%h"), env, log))
    procs.append(spawn(celery("beat", "--schedule", str(tmp_path / "beat")), env, log))
    # while turn emails of the burst are still to come, the outbox sweep runs again and again, on time
    runs: list[float] = []
    waiting: list[int] = []
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        with boxes.cond:   # the turn emails not yet received
            left = BURST - sum(str(m["To"]).startswith("ada") for m in boxes.messages)
        at = heartbeat.beats(r).get("workers.sweep_outbox", {}).get("at")
        if at is not None and (not runs or at > runs[-1]):
            runs.append(at)
            waiting.append(left)
        if left == 0:
            break
        time.sleep(0.1)
    with boxes.cond:
        got = {str(m["To"]) for m in boxes.messages}
    assert "late@sq.test" in got, "the sweep delivered the email that waited in the outbox"
    during = [at for at, left in zip(runs, waiting) if left > 0]
    assert len(during) >= 3, f"sweeps ran during the burst: {len(during)} ({runs}, {waiting})"
    gaps = [b - a for a, b in zip(during, during[1:])]
    assert max(gaps) <= SWEEP_SECONDS + 9, f"a sweep waited behind the emails: gaps {gaps}"
    # the sweeps' email went out while turn emails were still waiting
    with boxes.cond:
        order = [str(m["To"]) for m in boxes.messages]
    assert order.index("late@sq.test") < BURST, f"delivered after the burst: {order.index('late@sq.test')}"
    wait_for(lambda: len(boxes.messages) >= BURST + 1, 240, "every turn email of the burst")
    assert {f"ada{i}@sq.test" for i in range(BURST)} <= {str(m["To"]) for m in boxes.messages}


def test_the_turn_email_sweep_hands_due_emails_to_the_email_queue(redis_client):
    """The sweep of due turn emails sends none itself (that would hold the sweeps worker for the
    whole burst): it hands each to the email queue and leaves it due again after its wait; an entry
    whose email went out leaves the index. A broker that refuses changes nothing."""
    from application.indexes import MAIL_DUE
    from mail.mailconfig import MailConfig
    from mail.notify import Notifier
    from application.scheduling import Dispatcher
    svc = GameService(EventStore(redis_client), allow_seeded_games=True,   # a save marks its email due
                      on_append=Dispatcher(redis_client, None).after_append)
    n = Notifier(svc, Outbox(redis_client, None), MailConfig(secret="s", domain="pbem.test",
                                                             from_addr="p@pbem.test", public_url="http://x"))
    seats = [{"name": "Ada", "email": "ada-h@sq.test"}, {"name": "Bob", "email": "bob-h@sq.test"}]
    gid = svc.create_game(seats, {"seed": "sweep-hand-off"}, game="tiletum")["id"]
    member = f"{gid}:0:1"
    assert member.encode() in MAIL_DUE.due(redis_client, time.time())

    def refuse(game_id, version):
        raise ConnectionError("broker away")
    key = MAIL_DUE.key_of(member)
    redis_client.zadd(key, {member: time.time() - 100})        # due for 100 s
    assert n.sweep_due(10, hand_off=refuse) == 0                # attempt 1: still due, nothing lost
    assert member.encode() in MAIL_DUE.due(redis_client, time.time() - 10)
    handed: list = []   # (other tests' entries in this Redis are handed off too: only this game's count)
    assert n.sweep_due(10, hand_off=lambda g, v: handed.append((g, v))) >= 1
    mine = lambda: [h for h in handed if h[0] == gid]   # noqa: E731
    assert mine() == [(gid, 1)] and not Outbox(redis_client, None).already_sent(f"turn:{gid}:0:1")
    # attempt 2: due again 20 s from now (score now + 10), attempt 3: 40 s (score now + 30)
    assert 5 < redis_client.zscore(key, member) - time.time() <= 10.5
    redis_client.zadd(key, {member: time.time() - 100})
    n.sweep_due(10, hand_off=lambda g, v: handed.append((g, v)))
    assert mine() == [(gid, 1)] * 2 and 25 < redis_client.zscore(key, member) - time.time() <= 30.5
    n.notify(gid, 1)                     # what the email worker does with it
    handed.clear()
    n.sweep_due(0, hand_off=lambda g, v: handed.append((g, v)))
    assert (gid, 1) not in handed
