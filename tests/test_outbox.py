"""Every email is delivered, once (docs/pbem.md, "Delivery guarantees"), against a real SMTP
server on loopback (aiosmtpd) that the tests stop, restart on the same port, or make stall:

- an SMTP outage of hours loses nothing: turn emails and the answers to replies (webhook and
  SMTP listener) are kept in the outbox and arrive, once each, when the server is back;
- an email that cannot be delivered for the give-up time is declared undeliverable: the
  player's dashboard shows it and the operator's log says so;
- a worker killed with SIGKILL while inside SMTP: its email is sent after the claim's lease;
- in the normal path every email arrives exactly once.

The outbox's time is the shared test clock (``TABLEPOST_TEST_CLOCK=1``, Redis ``clock:offset``),
so hours pass in a second."""
from __future__ import annotations

import asyncio
import email
import email.policy
import email.utils
import logging
import os
import signal
import smtplib
import subprocess
import sys
import threading
import time
from email.message import EmailMessage

import pytest

from api.redis_server import EmbeddedRedis, free_port
from tests.conftest import INBOUND_SECRET, make_app, post_inbound
from tests.servers import wait_for
from tests.test_pbem_e2e import headline
from mail import outbox as ob

SECRET = "outbox-secret"
DOMAIN = "pbem.test"


class Box:
    """A mailbox behind a real SMTP server on a fixed loopback port, stoppable and restartable.
    ``stall=True``: the server takes the whole message and then never answers the DATA."""

    def __init__(self, port: int | None = None):
        self.port = port or free_port()
        self.messages: list[EmailMessage] = []
        self.cond = threading.Condition()
        self.controller = None
        self.in_data = threading.Event()

    def start(self, stall: bool = False) -> "Box":
        from aiosmtpd.controller import Controller
        box = self

        class Handler:
            async def handle_DATA(self, server, session, envelope):
                if stall:
                    box.in_data.set()
                    await asyncio.sleep(3600)  # never answers: the sender is killed meanwhile
                    return "451 4.3.0 too late"
                msg = email.message_from_bytes(envelope.content, policy=email.policy.default)
                with box.cond:
                    box.messages.append(msg)
                    box.cond.notify_all()
                return "250 OK"

        self.controller = Controller(Handler(), hostname="127.0.0.1", port=self.port)
        self.controller.start()
        return self

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}"

    def wait_for(self, count: int, timeout: float = 20.0) -> None:
        with self.cond:
            assert self.cond.wait_for(lambda: len(self.messages) >= count, timeout), \
                f"expected {count} emails, have {len(self.messages)}"

    def ids(self) -> list[str]:
        return [str(m["Message-ID"]) for m in self.messages]


@pytest.fixture()
def world(tmp_path, monkeypatch):
    """An own Redis (sweeps act on every queued email they find), the app over it, the mail
    settings in the environment (as the workers and the listener read them) and the test clock."""
    server = EmbeddedRedis(tmp_path / "redis").start()
    box = Box()
    monkeypatch.setenv("REDIS_URL", server.url)
    monkeypatch.setenv("TABLEPOST_MAIL_SECRET", SECRET)
    monkeypatch.setenv("TABLEPOST_MAIL_DOMAIN", DOMAIN)
    monkeypatch.setenv("TABLEPOST_PUBLIC_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("TABLEPOST_SMTP_URL", box.url)
    monkeypatch.setenv("TABLEPOST_TEST_CLOCK", "1")
    app = make_app(server.url, MAIL_SECRET=SECRET, INBOUND_SECRET=INBOUND_SECRET)
    try:
        yield app, box, server
    finally:
        box.stop()
        server.stop()


def advance(r, seconds: float) -> None:
    r.incrbyfloat("clock:offset", seconds)


def notifier_of(app):
    from mail.mailconfig import MailConfig
    from mail.notify import Notifier
    from mail.outbox import Outbox
    from mail.transports import transport_from_env
    service = app.extensions["tablepost.service"]
    return Notifier(service, Outbox(service.store.r, transport_from_env()), MailConfig.from_env())


def sweep(notifier) -> None:
    """What the beat does: the turn emails still due (workers.sweep_notifications), then the
    outbox's due and stale emails (workers.sweep_outbox, where there is one)."""
    from application.scheduling import MAIL_DUE
    for member in MAIL_DUE.due(notifier.r, "+inf"):
        game_id, _, version = member.decode().rsplit(":", 2)
        try:
            notifier.notify(game_id, int(version))
        except (smtplib.SMTPException, OSError):
            pass
    deliver_due = getattr(notifier.outbox, "deliver_due", None)
    if deliver_due is not None:
        deliver_due()


def new_game(app, who: str, seed: str) -> str:
    rv = app.test_client().post("/api/v1/games", json={
        "seats": [{"name": who.title(), "email": f"{who}@players.test"}, {"name": "Bot-less"}],
        "options": {"seed": seed}})
    assert rv.status_code == 201
    return rv.json["id"]


def turn_email_attempt(notifier, game_id: str) -> None:
    """The worker's task: notify, whose SMTP errors Celery retries and finally gives up on."""
    try:
        notifier.notify(game_id, 1)
    except (smtplib.SMTPException, OSError):
        pass


def reply(game_id: str, body: str, sender: str) -> bytes:
    from mail.addresses import reply_address
    m = EmailMessage()
    m["From"], m["To"] = sender, reply_address(SECRET, DOMAIN, game_id, 0, 1)
    m["Subject"] = "Re: your turn"
    m["Message-ID"] = email.utils.make_msgid(domain="players.test")
    m.set_content(body + "\n\n> quoted\n")
    return bytes(m)


def a_move(app, game_id: str) -> str:
    import tiletum
    _, state = app.extensions["tablepost.service"].load(game_id)
    return next(m for m in tiletum.legal_moves(state) if m.startswith("take"))


# --- (1) an outage of hours loses nothing ---------------------------------------------------------

def test_an_smtp_outage_of_hours_loses_no_email(world):
    app, box, _ = world
    n = notifier_of(app)
    r = n.r
    games = [new_game(app, f"p{i}", f"outage-{i}") for i in range(3)]
    for g in games:  # the SMTP server is down: each task fails and is retried, then given up
        turn_email_attempt(n, g)
    # a reply by the webhook: its move is played, its confirmation cannot be sent now
    rv = post_inbound(app.test_client(), reply(games[0], a_move(app, games[0]), "p0@players.test"))
    assert rv.json["status"] == "applied"
    for minutes in (1, 4, 10, 60, 180):  # sweeps through three hours of outage
        advance(r, minutes * 60)
        sweep(n)
    assert box.messages == []
    box.start()
    advance(r, 3600)
    sweep(n)
    box.wait_for(4)
    sweep(n)
    advance(r, 3600)
    sweep(n)
    time.sleep(0.5)
    got = sorted((str(m["To"]), str(m["Subject"]).split(":")[0]) for m in box.messages)
    assert len(box.messages) == 4, got
    assert sorted(str(m["To"]) for m in box.messages) == sorted(
        ["p0@players.test", "p0@players.test", "p1@players.test", "p2@players.test"])
    assert len(set(box.ids())) == 4, "each email has its own Message-ID"
    assert any(headline(m).startswith("Played") for m in box.messages), "the confirmation of the reply"


def test_the_listener_answers_at_once_and_its_confirmation_survives_an_outage(world):
    from mail.mailin_runtime import inbound_deps
    from workers.listener import start_listener
    app, box, _ = world
    n = notifier_of(app)
    g = new_game(app, "lis", "listener-outage")
    port = free_port()
    listener = start_listener(inbound_deps(app.extensions["tablepost.service"]), port=port)
    try:
        started = time.monotonic()
        with smtplib.SMTP("127.0.0.1", port, timeout=10) as s:
            s.sendmail("lis@players.test", [reply_address_of(g)],
                       reply(g, a_move(app, g), "lis@players.test"))
        assert time.monotonic() - started < 5, "the SMTP client is answered promptly"
    finally:
        listener.stop()
    assert app.test_client().get(f"/api/v1/games/{g}").json["version"] == 2
    # The listener's outbox tried the confirmation at once, in a thread of its own, and failed (the
    # box is down). That attempt must be over before the clock jumps past its claim's lease: else
    # the sweep sends the email too while the thread is still in SMTP (a double a loaded run
    # showed; at-least-once, as when a sender stalls longer than the lease)
    from mail.outbox import FAILED
    wait_for(lambda: n.r.llen(FAILED), 10, "the end of the listener's first attempt")
    advance(n.r, 600)
    sweep(n)
    box.start()
    advance(n.r, 3600)
    sweep(n)
    box.wait_for(1)  # the confirmation (the next step of the same turn: the turn at version 1 is past)
    time.sleep(0.3)
    sweep(n)
    got = [(m["To"], m["Message-ID"], headline(m)) for m in box.messages]   # said if it fails
    assert len(got) == 1 and got[0][2].startswith("Played"), got


def reply_address_of(game_id: str) -> str:
    from mail.addresses import reply_address
    return reply_address(SECRET, DOMAIN, game_id, 0, 1)


# --- (2) give up after the give-up time ------------------------------------------------------------

def test_an_email_undeliverable_for_the_give_up_time_is_shown_and_logged(world, monkeypatch, caplog):
    from application.dashboard import dashboard_key_for
    app, box, _ = world
    monkeypatch.setenv("TABLEPOST_MAIL_GIVE_UP_HOURS", "2")
    n = notifier_of(app)
    g = new_game(app, "gone", "give-up")
    turn_email_attempt(n, g)
    caplog.set_level(logging.WARNING, logger="tablepost.outbox")
    advance(n.r, 3600)
    sweep(n)
    assert n.outbox.status(f"turn:{g}:0:1") == "queued", "still trying after an hour"
    advance(n.r, 3600 + 60)
    sweep(n)
    assert n.outbox.status(f"turn:{g}:0:1") == "undeliverable"
    assert any(rec.levelno == logging.ERROR and "undeliverable" in rec.getMessage() and "gone@players.test"
               in rec.getMessage() for rec in caplog.records)
    key = dashboard_key_for(n.r, "gone@players.test")
    me = app.test_client().get("/api/v1/me/games", headers={"Authorization": f"Bearer {key}"}).json
    assert [u["subject"] for u in me["undeliverable"]] == [f"Tiletum {g}: your turn"] or \
        g in me["undeliverable"][0]["subject"]
    assert me["undeliverable"][0]["given_up_at"] and me["undeliverable"][0]["queued_at"]
    box.start()
    sweep(n)
    time.sleep(0.3)
    assert box.messages == [], "given up: not sent any more"


# --- (3) a worker killed inside SMTP ---------------------------------------------------------------

WORKER = """
import sys
from workers.runtime import notifier
notifier().notify(sys.argv[1], 1)
print("returned", flush=True)
"""


def test_a_worker_killed_inside_smtp_sends_the_email_after_restart(world, tmp_path, monkeypatch):
    app, box, server = world
    monkeypatch.setenv("TABLEPOST_MAIL_LEASE_SECONDS", "4")  # real seconds here: the recovery is measured
    n = notifier_of(app)
    g = new_game(app, "kill", "killed-worker")
    box.start(stall=True)
    log = open(tmp_path / "worker.log", "w")
    proc = subprocess.Popen([sys.executable, "-c", WORKER, g], env=dict(os.environ), stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        assert box.in_data.wait(60), "the worker reached DATA"
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        log.close()
    killed = time.monotonic()
    queued = n.outbox.stored(f"turn:{g}:0:1")
    assert queued is not None, "the email the worker was sending is still in the outbox"
    queued_id = str(email.message_from_bytes(ob.message_bytes(queued))["Message-ID"])
    box.stop()
    assert box.messages == [], "the stalled server's half delivery counts for nothing"
    box = Box(box.port).start()
    sweep(n)  # at once: the dead worker's claim is still valid, so nothing is sent twice
    time.sleep(0.3)
    assert box.messages == []
    while not box.messages:  # the beat's sweeps, until the claim's lease is over
        assert time.monotonic() - killed < 30, "not sent after the lease"
        time.sleep(0.5)
        sweep(n)
    box.wait_for(1)
    recovered = time.monotonic() - killed
    assert recovered >= 3, "not before the dead worker's lease is over"
    advance(n.r, 3600)
    sweep(n)
    time.sleep(0.3)
    assert len(box.messages) == 1 and str(box.messages[0]["To"]) == "kill@players.test"
    assert str(box.messages[0]["Message-ID"]) == queued_id, "the Message-ID it was queued with"
    print(f"recovered {recovered:.2f}s after the kill (lease 4 s, a sweep every 0.5 s)")
    box.stop()


# --- (4) the normal path ---------------------------------------------------------------------------

def test_in_the_normal_path_every_email_arrives_exactly_once(world):
    app, box, _ = world
    box.start()
    n = notifier_of(app)
    games = [new_game(app, f"n{i}", f"normal-{i}") for i in range(8)]
    for g in games:
        assert n.notify(g, 1) == 1
        assert n.notify(g, 1) == 0, "a task run twice sends nothing more"
    box.wait_for(8)
    for _ in range(3):
        advance(n.r, 3600)
        sweep(n)
    time.sleep(0.5)
    assert len(box.messages) == 8 and len(set(box.ids())) == 8
    assert sorted(str(m["To"]) for m in box.messages) == sorted(f"n{i}@players.test" for i in range(8))
    assert n.outbox.pending() == 0 and not any(n.r.scan_iter("mail:{o*}:outbox")), "nothing left queued"


def test_unacknowledged_tasks_come_back_within_minutes():
    from workers.app import app
    assert (app.conf.broker_transport_options or {}).get("visibility_timeout", 3600) <= 600
