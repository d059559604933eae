"""End to end, by email only: a real SMTP server on loopback (aiosmtpd) stands for the players'
mailboxes, a real Celery worker sends the turn emails, and the inbound SMTP listener takes the
replies. Two players play a whole game, start to final scoring, by replying to their emails;
each gets exactly one turn email each time the decision becomes theirs."""
from __future__ import annotations

import email
import email.policy
import os
import random
import re
import signal
import smtplib
import subprocess
import sys
import threading
import time
from email.message import EmailMessage

import pytest

from api.redis_server import free_port
from tests.conftest import make_app

MOVE_LINE = re.compile(r"^\s{2,}([a-z]+(?: \S+)*?)\s+[—-]{1,2}\s")


class Mailboxes:
    """An SMTP server keeping every delivered message, by recipient."""

    def __init__(self):
        from aiosmtpd.controller import Controller
        self.messages: list[EmailMessage] = []
        self.cond = threading.Condition()
        box = self

        class Handler:
            async def handle_DATA(self, server, session, envelope):
                msg = email.message_from_bytes(envelope.content, policy=email.policy.default)
                with box.cond:
                    box.messages.append(msg)
                    box.cond.notify_all()
                return "250 OK"

        self.port = free_port()
        self.controller = Controller(Handler(), hostname="127.0.0.1", port=self.port)

    def wait_for(self, count: int, timeout: float = 30.0) -> None:
        with self.cond:
            assert self.cond.wait_for(lambda: len(self.messages) >= count, timeout), \
                f"no email arrived (have {len(self.messages)})"

    def wait_until(self, predicate, timeout: float = 60.0) -> list[EmailMessage]:
        """The messages ``predicate`` holds for, once there is one (else fails, listing what came)."""
        with self.cond:
            if self.cond.wait_for(lambda: any(predicate(m) for m in self.messages), timeout):
                return [m for m in self.messages if predicate(m)]
            raise AssertionError("no such email arrived: " + "; ".join(f"{m['To']}: {headline(m)}"
                                                                        for m in self.messages))


def spawn(args, env, log):
    return subprocess.Popen([sys.executable, *args], env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)


@pytest.fixture()
def own_redis(tmp_path):
    """A Redis of this test's own: the real worker and beat act on every due entry they find, so
    they must not see other tests' games."""
    from api.redis_server import EmbeddedRedis
    server = EmbeddedRedis(tmp_path / "redis").start()
    yield server
    server.stop()


@pytest.fixture()
def pbem(own_redis, tmp_path, request):
    redis_server = own_redis
    boxes = Mailboxes()
    boxes.controller.start()
    mailin_port = free_port()
    env = dict(os.environ, REDIS_URL=redis_server.url, TABLEPOST_SMTP_URL=f"smtp://127.0.0.1:{boxes.port}",
               TABLEPOST_MAIL_SECRET="e2e-secret", TABLEPOST_MAIL_DOMAIN="pbem.test",
               TABLEPOST_PUBLIC_URL="http://127.0.0.1:9", TABLEPOST_MAIL_DUE_SECONDS="2",
               TABLEPOST_SWEEP_SECONDS="2")
    marker = request.node.get_closest_marker("mail_env")
    env.update(marker.kwargs if marker else {})
    log = open(tmp_path / "procs.log", "w")
    procs = [spawn(["-m", "celery", "-A", "workers.app", "worker", "-Q", "email,sweeps", "--pool", "solo",
                    "-B", "--schedule", str(tmp_path / "beat"), "--loglevel", "WARNING"], env, log),
             spawn(["-m", "workers.mailin_main", "--port", str(mailin_port)], env, log)]
    app = make_app(redis_server.url, SEND_TASK=None, MAIL_SECRET="e2e-secret")  # real Celery messages
    # these players accepted our email long ago (an address that has not is invited first, and its
    # emails name no one: tests/test_mail_consent.py)
    from application.dashboard import mark_verified
    for who in ("ada", "bob", "cid", "dan"):
        for domain in ("players.test", "o.test", "x.test"):
            mark_verified(app.extensions["tablepost.service"].store.r, f"{who}@{domain}")
    try:
        yield app, boxes, mailin_port
    finally:
        for p in procs:
            os.killpg(p.pid, signal.SIGTERM)
        for p in procs:
            p.wait(20)
        boxes.controller.stop()
        log.close()


def headline(msg: EmailMessage) -> str:
    """What an email says happened, its first line: the subject is the game's, the same for all its
    emails (mail/compose.py)."""
    return msg.get_body(("plain",)).get_content().split("\n", 1)[0]


def text_of(msg: EmailMessage) -> str:
    return msg.get_body(("plain",)).get_content()


def legal_moves_in(msg: EmailMessage) -> list[str]:
    text = msg.get_body(("plain",)).get_content()
    return [m.group(1) for m in (MOVE_LINE.match(line) for line in text.splitlines()) if m]


def reply(port: int, msg: EmailMessage, frm: str, body: str) -> None:
    out = EmailMessage()
    out["From"], out["To"] = frm, msg["Reply-To"]
    out["Subject"] = "Re: " + str(msg["Subject"])
    out["Message-ID"] = email.utils.make_msgid(domain="player.test")
    out["In-Reply-To"] = msg["Message-ID"]
    quoted = "\n".join("> " + line for line in msg.get_body(("plain",)).get_content().splitlines()[:20])
    out.set_content(f"{body}\n\nOn Sunday the server wrote:\n{quoted}\n")
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as s:
        s.send_message(out)


# a whole game of about a hundred emails: the board pictures (about a second each here) would make it
# the slowest test, and they are checked where they are made (tests/test_deadlines.py) and in the
# Carcassonne game by email
@pytest.mark.mail_env(TABLEPOST_MAIL_PICTURES="0")
def test_a_two_player_game_entirely_by_email(pbem):
    app, boxes, mailin_port = pbem
    players = ["ada@players.test", "bob@players.test"]
    rv = app.test_client().post("/api/v1/games", json={
        "seats": [{"name": "Ada", "email": players[0]}, {"name": "Bob", "email": players[1]}],
        "options": {"seed": "by-email"}})
    assert rv.status_code == 201
    gid = rv.json["id"]
    rng = random.Random(5)
    handled = 0
    replies = 0
    deadline = time.monotonic() + 420
    while True:
        boxes.wait_for(handled + 1, timeout=60)
        msg = boxes.messages[handled]
        handled += 1
        assert gid in str(msg["Subject"]), f"an email about another game: {msg['Subject']}"
        if headline(msg).startswith("Game over"):
            if sum(1 for m in boxes.messages if headline(m).startswith("Game over")) == 2:
                break
            continue
        moves = legal_moves_in(msg)
        if not moves:
            continue  # an answer that asks nothing (e.g. a confirmation after the turn passed)
        move = "end" if "end" in moves and rng.random() < 0.6 else rng.choice(moves)
        reply(mailin_port, msg, str(msg["To"]), move)
        replies += 1
        assert time.monotonic() < deadline, "the game by email did not finish in time"
    summary = app.test_client().get(f"/api/v1/games/{gid}").json
    assert summary["status"] == "finished" and summary["round"] == 4
    # exactly one turn email each time the decision became a player's
    events = app.test_client().get(f"/api/v1/games/{gid}/events").json["events"]
    from tiletum.game import replay
    becomes = {0: 0, 1: 0}
    actor = None
    for i in range(1, len(events) + 1):
        state = replay(events[:i])
        if state.actor is not None and state.actor != actor:
            becomes[state.actor] += 1
        actor = state.actor
    turn_emails = {p: sum(1 for m in boxes.messages if str(m["To"]) == p
                          and headline(m) in ("Your turn.", "Your decision."))
                   for p in players}
    assert turn_emails == {players[0]: becomes[0], players[1]: becomes[1]}
    # one conversation per player: one subject, each email replying to the one before it
    for p in players:
        mine = [m for m in boxes.messages if str(m["To"]) == p]
        assert len({str(m["Subject"]).removeprefix("Re: ") for m in mine}) == 1
        thread = [m for m in mine if not str(m["Subject"]).startswith("Re: ")]   # ours, not answers
        assert all(m["In-Reply-To"] == prev["Message-ID"] for prev, m in zip(thread, thread[1:]))
    assert replies >= 24, "every move came by email"


def send_raw(port: int, frm: str, to: str, data: bytes) -> None:
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as s:
        s.sendmail(frm, [to], data)


def test_bad_replies_get_a_clear_answer_and_change_nothing(pbem):
    app, boxes, mailin_port = pbem
    c = app.test_client()
    g = c.post("/api/v1/games", json={"seats": [{"name": "Ada", "email": "ada@players.test"},
                                                {"name": "Bob", "email": "bob@players.test"}],
                                      "options": {"seed": "bad-replies"}}).json
    gid = g["id"]
    boxes.wait_for(1)
    turn = boxes.messages[0]
    events_before = c.get(f"/api/v1/games/{gid}/events").json["events"]

    def answer_to(body: str, to: str | None = None) -> EmailMessage:
        n = len(boxes.messages)
        out = EmailMessage()
        out["From"], out["To"] = "ada@players.test", to or turn["Reply-To"]
        out["Subject"] = "Re: your turn"
        out["Message-ID"] = email.utils.make_msgid(domain="player.test")
        out.set_content(body)
        with smtplib.SMTP("127.0.0.1", mailin_port, timeout=10) as s:
            s.send_message(out)
        boxes.wait_for(n + 1)
        return boxes.messages[n]

    gibberish = answer_to("please make a nice move for me")
    assert "please make a nice move for me" in gibberish.get_body(("plain",)).get_content()
    assert headline(gibberish).startswith("Not played: \u201cplease make a nice move for me\u201d")
    assert (str(gibberish["Subject"]) == f"Re: Tiletum with Bob (game {gid})"
            and "Hello Ada," in text_of(gibberish))
    illegal = answer_to("end")  # no die taken yet
    text = illegal.get_body(("plain",)).get_content()
    assert "> end" in text and "take a die" in text and "take " in text  # the line, why, the legal moves
    # a forged address is refused at the SMTP level (the sender's mail system bounces it)
    with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
        answer_to("take G1", to=str(turn["Reply-To"]).replace(".0.1.", ".0.2.", 1))
    assert b"not a valid Table Post reply address" in list(refused.value.recipients.values())[0][1]
    # a huge message is refused by the listener itself
    with pytest.raises(smtplib.SMTPException):
        send_raw(mailin_port, "ada@players.test", str(turn["Reply-To"]),
                 b"Subject: x\r\n\r\n" + b"take G1\r\n" * 60000)
    assert c.get(f"/api/v1/games/{gid}/events").json["events"] == events_before, "nothing changed"
    # a reply to an old turn: play one move with a good reply, then reply to the first email again
    legal = legal_moves_in(turn)
    good = answer_to(next(m for m in legal if m.startswith("take")))
    assert c.get(f"/api/v1/games/{gid}").json["version"] == 2
    stale = answer_to(legal[0])
    assert "old turn" in stale.get_body(("plain",)).get_content().lower() or \
        "moved on" in stale.get_body(("plain",)).get_content().lower()
    assert c.get(f"/api/v1/games/{gid}").json["version"] == 2
    assert good is not None


@pytest.mark.long(18)
def test_turn_emails_survive_a_broker_outage(own_redis, tmp_path):
    """The broker (its own Redis here) is stopped while moves land: the moves stand, and once it
    is back the beat sweep sends every due turn email, none twice."""
    from api.redis_server import EmbeddedRedis
    redis_server = own_redis
    boxes = Mailboxes()
    boxes.controller.start()
    broker = EmbeddedRedis(tmp_path / "broker").start()
    env = dict(os.environ, REDIS_URL=redis_server.url, CELERY_BROKER_URL=broker.url,
               TABLEPOST_SMTP_URL=f"smtp://127.0.0.1:{boxes.port}", TABLEPOST_MAIL_SECRET="e2e-secret",
               TABLEPOST_MAIL_DOMAIN="pbem.test", TABLEPOST_MAIL_DUE_SECONDS="1", TABLEPOST_SWEEP_SECONDS="1")
    log = open(tmp_path / "worker.log", "w")
    worker = spawn(["-m", "celery", "-A", "workers.app", "worker", "-Q", "email,sweeps", "--pool", "solo",
                    "-B", "--schedule", str(tmp_path / "beat"), "--loglevel", "WARNING"], env, log)
    from api.broker import celery_send_task
    app = make_app(redis_server.url, SEND_TASK=celery_send_task(broker.url), MAIL_SECRET="e2e-secret")
    c = app.test_client()
    try:
        g = c.post("/api/v1/games", json={"seats": [{"name": "Ada", "email": "ada@o.test"},
                                                    {"name": "Bob", "email": "bob@o.test"}],
                                          "options": {"seed": "outage"}}).json
        boxes.wait_for(1)
        tokens = [s["token"] for s in g["seats"]]
        # they play through the API here, but want each turn email at once (issue 40: a seat playing
        # live otherwise gets it after a grace), and their addresses read our email (it verified them)
        from application.dashboard import mark_verified
        for address, token in zip(("ada@o.test", "bob@o.test"), tokens):
            mark_verified(app.extensions["tablepost.service"].store.r, address)
            rv = c.put(f"/api/v1/games/{g['id']}/notifications", headers={"Authorization": f"Bearer {token}"},
                       json={"mode": "move", "delay_minutes": 0})
            assert rv.json["delay_minutes"] == 0
        broker.stop()                                   # the broker goes down
        turns_started = 0
        for _ in range(3):                              # three whole turns land meanwhile
            state_doc = c.get(f"/api/v1/games/{g['id']}").json
            seat = state_doc["to_act"][0]
            while True:
                legal = c.get(f"/api/v1/games/{g['id']}/legal-moves",
                              headers={"Authorization": f"Bearer {tokens[seat]}"}).json
                if not legal["moves"]:
                    break
                moves = [m["move"] for m in legal["moves"]]
                m = "end" if "end" in moves else next((x for x in moves if x.startswith("take")), moves[0])
                rv = c.post(f"/api/v1/games/{g['id']}/moves",
                            headers={"Authorization": f"Bearer {tokens[seat]}"},
                            json={"expected_version": legal["version"], "moves": [m]})
                assert rv.status_code == 200, "moves are saved while the broker is down"
            turns_started += 1
        assert len(boxes.messages) == 1, "no email could be sent while the broker was down"
        broker = EmbeddedRedis(tmp_path / "broker", port=broker.port).start()   # back
        deadline = time.monotonic() + 40
        while time.monotonic() < deadline and len(boxes.messages) < 2:
            time.sleep(0.2)
        time.sleep(3)                                   # a few more sweeps: nothing may come twice
        keys = [(str(m["To"]), str(m["Reply-To"])) for m in boxes.messages]
        assert len(keys) == len(set(keys)), "no email twice"
        actor = c.get(f"/api/v1/games/{g['id']}").json["to_act"][0]
        assert keys[-1][0] == ["ada@o.test", "bob@o.test"][actor], "the player now to act got their email"
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(20)
        broker.stop()
        boxes.controller.stop()
        log.close()
