"""The scheduler is supervised and reported (issue 27): under `tablepost serve` Celery beat is a part
of its own (exactly one; never a worker's `-B` child, which a killed worker left behind running
beside the next one), each part is a process group that ends whole on stop, restart and when
serve is killed, and /health reports the scheduler by its sweeps' heartbeat (`down` when no
sweep ran for 3 intervals) and an outbound SMTP outage as `degraded`. Real processes, a real
Redis, real SMTP on loopback; sweeps every second so it all takes seconds."""
from __future__ import annotations

import os
import signal
import smtplib
import time
from email.message import EmailMessage

import pytest

from api.parts import CACHE_SECONDS
from api.redis_server import free_port
from application import heartbeat
from mail.outbox import SMTP_FAILING, Outbox, outage, pending_count
from mail.transports import SmtpTransport
from tests.conftest import make_app
from tests.servers import Serve, wait_for
from tests.test_supervision import child_running, health


def processes() -> dict[int, tuple[int, int, str]]:
    """Every process: pid -> (parent pid, process group, command line)."""
    out = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode()
        except (OSError, ValueError, IndexError):
            continue
        if fields[0] != "Z":  # a zombie is dead, only not yet reaped
            out[int(entry)] = (int(fields[1]), int(fields[2]), cmd)
    return out


def in_groups(groups: set[int]) -> dict[int, str]:
    return {pid: cmd for pid, (_, pgid, cmd) in processes().items() if pgid in groups}


# --- /health: the heartbeat and SMTP, on one app over the test Redis ----------------------------

def test_health_says_the_scheduler_is_down_when_no_sweep_ran_for_three_intervals(redis_client, redis_server):
    redis_client.delete(heartbeat.KEY, SMTP_FAILING)
    app = make_app(redis_server.url, HEALTH_SCHEDULER=True, HEALTH_SCHEDULER_GRACE=60)
    r = app.test_client().get("/health")  # just started, no sweep yet: not down
    assert r.status_code == 200 and r.json["parts"] == {"scheduler": "starting"}, r.json

    now = time.time()
    heartbeat.record(redis_client, "workers.sweep_outbox", 30, now=now - 80)     # 2.7 intervals ago
    heartbeat.record(redis_client, "workers.send_digests", 86400, now=now - 3600)
    app = make_app(redis_server.url, HEALTH_SCHEDULER=True, HEALTH_SCHEDULER_GRACE=0)
    r = app.test_client().get("/health")
    assert r.status_code == 200 and r.json == {"status": "ok", "redis": "ok", "smtp": "ok",
                                               "parts": {"scheduler": "ok"}}, r.json

    heartbeat.record(redis_client, "workers.sweep_outbox", 30, now=now - 91)     # past 3 intervals,
    heartbeat.record(redis_client, "workers.send_digests", 86400, now=now - 10)  # though another just ran
    app = make_app(redis_server.url, HEALTH_SCHEDULER=True, HEALTH_SCHEDULER_GRACE=0)
    r = app.test_client().get("/health")
    assert r.status_code == 503 and r.json["code"] == "part-down" and r.json["parts"] == {"scheduler": "down"}
    # within the grace after the API started, an old heartbeat (the beat may be starting too) is not down
    app = make_app(redis_server.url, HEALTH_SCHEDULER=True, HEALTH_SCHEDULER_GRACE=60)
    assert app.test_client().get("/health").json["parts"] == {"scheduler": "starting"}
    # an API that is not told to watch a scheduler does not report one
    assert "parts" not in make_app(redis_server.url).test_client().get("/health").json
    # a worker forgets the sweeps its schedule no longer has
    heartbeat.prune(redis_client, ["workers.sweep_outbox"])
    assert set(heartbeat.beats(redis_client)) == {"workers.sweep_outbox"}
    redis_client.delete(heartbeat.KEY)


def test_health_is_degraded_while_outbound_smtp_fails(redis_client, redis_server):
    from aiosmtpd.controller import Controller
    redis_client.delete(SMTP_FAILING)
    closed = free_port()
    outbox = Outbox(redis_client, SmtpTransport(f"smtp://127.0.0.1:{closed}", timeout=2))
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "pbem@pbem.localhost", "ada@example.org", "Your turn"
    msg.set_content("move")
    key = f"health-smtp-{time.time_ns()}"
    assert outbox.enqueue(key, msg)  # tried at once: connection refused
    assert outbox.status(key) == "queued" and pending_count(redis_client) >= 1

    r = make_app(redis_server.url, HEALTH_SMTP_SECONDS=0).test_client().get("/health")
    assert r.status_code == 200 and r.json == {"status": "degraded", "redis": "ok", "smtp": "failing"}, r.json
    # a short outage is not reported (the default waits 300 s of failures)
    assert make_app(redis_server.url).test_client().get("/health").json["status"] == "ok"

    class Sink:
        async def handle_DATA(self, server, session, envelope):
            return "250 OK"
    port = free_port()
    smtp = Controller(Sink(), hostname="127.0.0.1", port=port)
    smtp.start()
    try:
        outbox.transport = SmtpTransport(f"smtp://127.0.0.1:{port}")
        assert outbox.deliver(key) == "sent"  # the server is back: the next attempt works
    finally:
        outbox.transport.close()
        smtp.stop()
    r = make_app(redis_server.url, HEALTH_SMTP_SECONDS=0).test_client().get("/health")
    assert r.status_code == 200 and r.json == {"status": "ok", "redis": "ok", "smtp": "ok"}, r.json


def test_a_refused_recipient_or_content_is_no_smtp_outage():
    assert outage(ConnectionRefusedError()) and outage(smtplib.SMTPServerDisconnected("gone"))
    assert outage(smtplib.SMTPSenderRefused(530, b"auth first", "pbem@x"))
    assert outage(smtplib.SMTPDataError(451, b"try later"))
    assert not outage(smtplib.SMTPRecipientsRefused({"a@x": (550, b"no such user")}))
    assert not outage(smtplib.SMTPDataError(554, b"spam"))


# --- `tablepost serve`: the beat part, kill -9, stop ---------------------------------------------

FAST = {"TABLEPOST_RATE_LIMIT": "0", "TABLEPOST_SWEEP_SECONDS": "1", "TABLEPOST_HEALTH_SCHEDULER_GRACE": "1",
        "TABLEPOST_BEAT_LOCK_SECONDS": "3"}  # a killed beat's lock is free again in 3 s


@pytest.fixture(scope="module")
def serve(tmp_path_factory):
    s = Serve(tmp_path_factory.mktemp("beat"), "--workers", "1", "--mailin-port", str(free_port()), env=FAST,
              boot_seconds=120).start()
    yield s
    s.stop()


def beats(serve) -> dict[int, tuple[int, int, str]]:
    """The processes running serve's schedule (its file is in serve's data dir): beats, and a
    worker with -B."""
    schedule = str(serve.data / "celerybeat-schedule")
    return {pid: p for pid, p in processes().items() if schedule in p[2]}


def healthy(serve, part: str):
    return (lambda h: h if h[0] == 200 and h[1]["parts"].get(part) == "ok" else None)(health(serve.url))


def test_a_killed_worker_leaves_no_beat_behind_and_one_beat_runs(serve):
    wait_for(lambda: healthy(serve, "scheduler"), 60, "a healthy scheduler")
    assert len(beats(serve)) == 1, beats(serve)
    sweeps = "workers.app worker -Q sweeps"   # the worker that runs what beat sends
    worker = child_running(serve.proc.pid, sweeps)
    os.kill(worker, signal.SIGKILL)
    wait_for(lambda: (lambda p: p and p != worker)(child_running(serve.proc.pid, sweeps)), 30,
             "the worker to be started again")
    time.sleep(CACHE_SECONDS + 0.5)
    wait_for(lambda: healthy(serve, "worker:sweeps"), 60, "the worker healthy again")
    running = beats(serve)
    assert len(running) == 1, f"exactly one beat, not an orphan beside a new one: {running}"
    (ppid, _, cmd), = running.values()
    assert ppid == serve.proc.pid and " beat " in cmd


def test_a_stopped_beat_is_reported_down_and_a_killed_one_is_restarted(serve):
    wait_for(lambda: healthy(serve, "scheduler"), 60, "a healthy scheduler")
    beat = child_running(serve.proc.pid, "workers.app beat")
    assert beat, "beat runs as a part of its own"
    os.kill(beat, signal.SIGSTOP)  # alive but sending nothing: only the heartbeat can tell
    try:
        _, body = wait_for(lambda: (lambda h: h if h[0] == 503 else None)(health(serve.url)), 30, "a 503")
        assert body["code"] == "part-down" and body["parts"]["scheduler"] == "down", body
    finally:
        os.kill(beat, signal.SIGKILL)
    wait_for(lambda: (lambda p: p and p != beat)(child_running(serve.proc.pid, "workers.app beat")), 30,
             "beat to be started again")
    wait_for(lambda: healthy(serve, "scheduler"), 60, "the scheduler ok again")
    assert "the scheduler (beat) exited" in serve.output()
    assert len(beats(serve)) == 1


def test_a_second_beat_stands_by_instead_of_doubling_the_schedule(serve, tmp_path):
    import subprocess
    import sys
    redis_url = serve.output().split("(Redis ", 1)[1].split(")", 1)[0]
    env = {**serve.env, **FAST, "REDIS_URL": redis_url}
    env.pop("CELERY_BROKER_URL", None)
    with open(tmp_path / "beat.log", "w") as log:
        second = subprocess.Popen([sys.executable, "-m", "celery", "-A", "workers.app", "beat", "--loglevel",
                                   "INFO", "--schedule", str(tmp_path / "schedule")], env=env, stdout=log,
                                  stderr=subprocess.STDOUT, start_new_session=True)
        try:
            log_text = (tmp_path / "beat.log").read_text
            wait_for(lambda: "standing by" in log_text(), 30, "the second beat to stand by")
            time.sleep(3)  # three sweeps' time
        finally:
            second.terminate()
            second.wait(10)
    out = (tmp_path / "beat.log").read_text()
    assert "Sending due task" not in out, out[-2000:]
    assert "Sending due task" in serve.output()[-20000:], "serve's own beat goes on sending"


def test_stopping_serve_ends_every_process_of_its_parts(serve):
    groups = serve.part_groups()
    # the six workers (reviews has its own), beat, the mail listener, Redis and gunicorn's one worker
    # (api/cli.py)
    assert len(groups) == 10, in_groups(groups)
    t0 = time.monotonic()
    serve.stop()
    assert time.monotonic() - t0 < 25
    assert in_groups(groups | {serve.proc.pid}) == {}


def test_parts_die_with_a_killed_serve(tmp_path):
    s = Serve(tmp_path, "--workers", "1", "--mailin-port", str(free_port()), env=FAST,
              boot_seconds=120).start()
    groups = s.part_groups()
    try:
        assert len(groups) == 10   # the eight parts, Redis and gunicorn's one worker
        os.kill(s.proc.pid, signal.SIGKILL)  # serve alone: its parts lead groups of their own
        s.proc.wait(10)
        # each part is told by its parent-death signal and ends by its own shutdown (a worker's
        # warm shutdown finishes the task in hand): seconds, more on a loaded machine
        try:
            wait_for(lambda: not in_groups(groups), 60, "the parts to end with serve")
        except AssertionError:
            raise AssertionError(f"left after 60 s: {in_groups(groups)}") from None
    finally:
        s.kill()
