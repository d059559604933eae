"""The outbox's kept-open SMTP connection and its shards (issue 15), against a real SMTP server on
loopback (aiosmtpd) and a real Redis of this module:

- a batch goes out over one connection; a server that drops the connection between two emails
  loses none and sends none twice; one that drops it after taking an email's DATA and before
  answering is the at-least-once window: that email, and only it, arrives twice, with one
  Message-ID;
- a server that is down for a while and comes back: every email arrives, once;
- the kept-open connection survives the server closing idle connections, and is renewed at its
  maximum age;
- every Lua script's keys are in one hash slot (Redis Cluster), in what the outbox really passes.

The outbox's clock is a variable of the test, so the retry backoff passes at once."""
from __future__ import annotations

import base64
import email
import email.policy
import json
import threading
import time
from email.message import EmailMessage

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
import redis
from redis.crc import key_slot

from api.redis_server import EmbeddedRedis, free_port
from tests.servers import wait_for
from mail import outbox as ob
from mail.outbox import Outbox
from mail.transports import SmtpTransport, serialize


class Server:
    """A real SMTP server on a fixed loopback port. ``drop_on_mail``: message numbers (1-based,
    counted over the server's life) before whose MAIL FROM the server closes the connection;
    ``drop_after_data``: message numbers the server keeps and then closes the connection without
    answering the DATA. ``timeout``: the server's idle timeout."""

    def __init__(self, port: int | None = None, timeout: float = 300):
        self.port = port or free_port()
        self.timeout = timeout
        self.messages: list[EmailMessage] = []
        self.sessions = 0
        self.drop_on_mail: set[int] = set()
        self.drop_after_data: set[int] = set()
        self.refuse: set[str] = set()
        self.mails = 0
        self.cond = threading.Condition()
        self.controller = None

    def start(self) -> Server:
        from aiosmtpd.controller import Controller
        box = self

        class Handler:
            async def handle_EHLO(self, server, session, envelope, hostname, responses):
                with box.cond:
                    box.sessions += 1
                session.host_name = hostname
                return responses

            async def handle_MAIL(self, server, session, envelope, address, mail_options):
                with box.cond:
                    box.mails += 1
                    n = box.mails
                if n in box.drop_on_mail:
                    box.drop_on_mail.discard(n)
                    server.transport.close()  # the connection dies before this email's MAIL is answered
                    return "421 closing"
                envelope.mail_from = address
                return "250 OK"

            async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
                if address in box.refuse:
                    return "550 5.1.1 no such mailbox"
                envelope.rcpt_tos.append(address)
                return "250 OK"

            async def handle_DATA(self, server, session, envelope):
                msg = email.message_from_bytes(envelope.content, policy=email.policy.default)
                with box.cond:
                    box.messages.append(msg)
                    n = len(box.messages)
                    box.cond.notify_all()
                if n in box.drop_after_data:  # taken, but the client never sees the answer
                    server.transport.close()
                return "250 OK"

        self.controller = Controller(Handler(), hostname="127.0.0.1", port=self.port, timeout=self.timeout)
        self.controller.start()
        return self

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}"

    def subjects(self) -> list[str]:
        return sorted(str(m["Subject"]) for m in self.messages)


class Clock:
    def __init__(self):
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    server = EmbeddedRedis(tmp_path_factory.mktemp("outbox-smtp-redis")).start()
    yield server.url
    server.stop()


@pytest.fixture()
def r(redis_url):
    client = redis.Redis.from_url(redis_url)
    client.flushdb()
    yield client
    client.close()


@pytest.fixture()
def server():
    s = Server()
    yield s
    s.stop()


def make(i: int) -> EmailMessage:
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = "pbem@pbem.test", f"p{i}@players.test", f"email {i:02d}"
    m.set_content(f"email number {i}\n" + "a line of the turn email\n" * 40)
    return m


def outbox_of(r, server, clock, **transport) -> Outbox:
    return Outbox(r, SmtpTransport(server.url, timeout=5, **transport), clock=clock)


def queue(box: Outbox, n: int) -> list[str]:
    keys = [f"turn:g{i}:0:1" for i in range(n)]
    for i, key in enumerate(keys):
        assert box.enqueue(key, make(i), deliver=False)
    return keys


# --- one connection for a batch; dropped connections -------------------------------------------------

def test_a_batch_goes_out_over_one_connection(r, server):
    server.start()
    clock = Clock()
    box = outbox_of(r, server, clock)
    queue(box, 20)
    assert box.deliver_due() == 20
    assert server.subjects() == [f"email {i:02d}" for i in range(20)]
    assert server.sessions == 1 and box.transport.connections == 1
    assert box.pending() == 0 and r.llen(ob.FAILED) == 0


def test_a_connection_dropped_between_emails_loses_none_and_sends_none_twice(r, server):
    server.drop_on_mail = {4, 9, 15}   # before the 4th, 8th and 13th email's MAIL FROM
    server.start()
    clock = Clock()
    box = outbox_of(r, server, clock)
    keys = queue(box, 20)
    assert box.deliver_due() == 20, "each email resent at once on a new connection"
    assert server.subjects() == [f"email {i:02d}" for i in range(20)], "each exactly once"
    assert box.transport.connections == 4
    assert all(box.status(k) == "sent" for k in keys) and box.pending() == 0
    assert r.llen(ob.FAILED) == 0, "no attempt failed"


def test_a_sender_that_waited_past_its_lease_for_the_connection_does_not_send_twice(r, server):
    """One process, one kept-open connection: a send waits for the one before it. If that wait
    outlasts the lease, another sender takes the email over and sends it; the one that waited
    then finds its claim gone and sends nothing."""
    server.start()
    clock = Clock()
    slow = outbox_of(r, server, clock)
    other = outbox_of(r, server, clock)
    (key,) = queue(slow, 1)
    outcome = []
    with slow._lock:   # the connection busy with another email
        t = threading.Thread(target=lambda: outcome.append(slow.deliver(key)))
        t.start()
        wait_for(lambda: r.exists(ob.claim_key(key)), 10, "the claim")   # now waiting for the connection
        clock.now += slow.lease + 1
        assert other.deliver(key) == "sent", "the lease is over: taken over and sent"
    t.join(10)
    assert outcome == ["busy"], "the sender that waited does not send it again"
    assert server.subjects() == ["email 00"] and slow.status(key) == "sent"


def test_a_connection_dropped_after_data_is_the_at_least_once_window(r, server):
    """SMTP cannot tell whether an email whose answer to DATA was lost was accepted: the outbox
    sends it again after the backoff, with the same Message-ID. Only that email arrives twice."""
    server.drop_after_data = {5}
    server.start()
    clock = Clock()
    box = outbox_of(r, server, clock)
    keys = queue(box, 12)
    assert box.deliver_due() == 11, "the 5th is not known to be sent; the batch goes on"
    assert len(server.messages) == 12, "the server has all 12, the client saw 11 answers"
    lost = str(server.messages[4]["Subject"])   # the one whose answer was lost
    waiting = [k for k in keys if box.status(k) == "queued"]
    assert waiting == [keys[int(lost.split()[1])]] and box.pending() == 1
    assert box.deliver_due() == 0, "not before its backoff"
    clock.now += 3600
    assert box.deliver_due() == 1
    subjects = [str(m["Subject"]) for m in server.messages]
    assert sorted(subjects) == sorted([f"email {i:02d}" for i in range(12)] + [lost])
    twice = [m for m in server.messages if str(m["Subject"]) == lost]
    assert len({str(m["Message-ID"]) for m in twice}) == 1, "the copy carries the same Message-ID"
    assert len({str(m["Message-ID"]) for m in server.messages}) == 12
    assert all(box.status(k) == "sent" for k in keys) and box.pending() == 0
    clock.now += 3600
    assert box.deliver_due() == 0 and len(server.messages) == 13, "nothing more"


def test_a_server_down_for_a_while_then_back_gets_every_email_once(r, server):
    clock = Clock()
    box = outbox_of(r, server, clock)
    keys = [f"turn:g{i}:0:1" for i in range(10)]
    for i, key in enumerate(keys):
        assert box.enqueue(key, make(i))   # tries at once: the server is down
    assert box.pending() == 10
    for minutes in (1, 5, 20, 60, 120):   # sweeps during two hours of outage
        clock.now += minutes * 60
        failures = r.llen(ob.FAILED)
        assert box.deliver_due() == 0
        assert r.llen(ob.FAILED) - failures <= 1, "a sweep stops at the first unreachable attempt"
    server.start()
    clock.now += 3600
    sent = box.deliver_due()
    assert sent == 10 and server.subjects() == [f"email {i:02d}" for i in range(10)]
    assert box.transport.connections == 1
    clock.now += 3600
    assert box.deliver_due() == 0 and len(server.messages) == 10
    assert all(box.status(k) == "sent" for k in keys)


def test_the_kept_connection_survives_the_server_closing_idle_connections(r):
    server = Server(timeout=0.4).start()   # the server closes a connection idle for 0.4 s
    try:
        clock = Clock()
        box = outbox_of(r, server, clock, idle_timeout=60, max_age=600)
        for i in range(3):
            assert box.enqueue(f"k{i}", make(i)) is True
        assert box.transport.connections == 1
        time.sleep(1.0)   # closed by the server meanwhile; the client does not know yet
        assert box.enqueue("k3", make(3)) is True
        assert box.status("k3") == "sent", "sent at once on a new connection"
        assert box.transport.connections == 2 and r.llen(ob.FAILED) == 0
        # checked with NOOP after a short idle time: the dead connection is found before MAIL
        box.transport.noop_after = 0.2
        time.sleep(1.0)
        assert box.enqueue("k4", make(4)) is True and box.status("k4") == "sent"
        assert box.transport.connections == 3 and r.llen(ob.FAILED) == 0
        assert server.subjects() == [f"email {i:02d}" for i in range(5)]
    finally:
        server.stop()


def test_the_connection_is_renewed_at_its_maximum_age(r, server):
    server.start()
    clock = Clock()
    box = outbox_of(r, server, clock, max_age=0.3)
    box.enqueue("a", make(0))
    box.enqueue("b", make(1))
    assert box.transport.connections == 1
    time.sleep(0.5)
    box.enqueue("c", make(2))
    assert box.transport.connections == 2 and server.sessions == 2
    assert server.subjects() == ["email 00", "email 01", "email 02"]


def test_a_refused_email_keeps_the_connection_and_is_retried(r, server):
    """A 5xx answer is the server's word on this email: no new connection, a later attempt."""
    server.refuse = {"p1@players.test"}
    server.start()
    clock = Clock()
    box = outbox_of(r, server, clock)
    for i in range(3):
        box.enqueue(f"k{i}", make(i))
    assert [box.status(f"k{i}") for i in range(3)] == ["sent", "queued", "sent"]
    assert box.transport.connections == 1 and server.sessions == 1
    assert "SMTPRecipientsRefused" in json.loads(r.lindex(ob.FAILED, 0))["error"]
    server.refuse = set()
    clock.now += 3600
    assert box.deliver_due() == 1 and server.subjects() == ["email 00", "email 01", "email 02"]


# --- Redis Cluster: one slot per script -------------------------------------------------------------

def test_every_script_keeps_its_keys_in_one_slot():
    for i in range(2000):
        key = f"turn:game{i}:{i % 4}:{i}"
        for name, keys in ob.script_keys(key).items():
            assert len({key_slot(k.encode()) for k in keys}) == 1, (name, keys)
    shards = {ob.shard_of(f"turn:game{i}:0:{i}") for i in range(2000)}
    assert shards == set(range(ob.SHARDS)), "every shard is used"
    assert len({key_slot(ob.shard_keys(n)[0].encode()) for n in range(ob.SHARDS)}) == ob.SHARDS, \
        "the shards are spread over the slots"


def test_what_the_outbox_really_passes_its_scripts_is_one_slot_each(r, server):
    """Every script call of enqueue, delivery, retry and give-up, as made."""
    calls: list[tuple[str, list[str]]] = []
    register = r.register_script

    def recording(source):
        script = register(source)

        def call(keys=(), args=(), client=None):
            calls.append((source.strip().splitlines()[0], list(keys)))
            return script(keys=keys, args=args, client=client)
        return call

    r.register_script = recording
    server.drop_after_data = {2}   # the answer to s1's DATA (after s0's)
    server.start()
    clock = Clock()
    box = Outbox(r, SmtpTransport(server.url, timeout=5), clock=clock, give_up_hours=1)
    for i in range(6):
        box.enqueue(f"turn:s{i}:0:1", make(i))
    server.stop()
    box.enqueue("turn:late:0:1", make(9))
    clock.now += 7200
    for key in ("turn:s1:0:1", "turn:late:0:1"):
        assert box.deliver(key) == "undeliverable"
    r.register_script = register
    assert len(calls) >= 14
    for first_line, keys in calls:
        assert len({key_slot(k.encode()) for k in keys}) == 1, (first_line, keys)


# --- the stored bytes ------------------------------------------------------------------------------

def test_serialize_writes_the_same_bytes_as_the_standard_generator():
    """serialize's short cut for plain headers changes no byte, whatever the headers hold."""
    from email.mime.multipart import MIMEMultipart
    from email.mime.text import MIMEText

    from tiletum.game import new_game
    from games import TILETUM
    from mail.compose import InlineImage, TurnContext, finish_headers, simple_email, turn_email

    def standard(m) -> bytes:
        return m.as_bytes(policy=m.policy.clone(max_line_length=998))

    state, _ = new_game(3, "serialize")
    turn = turn_email(TurnContext(
        game_id="g1", seat=0, seat_name="Zoë", to_addr="zoe@players.test",
        from_addr="Table Post <pbem@pbem.test>",
        reply_to="play+g1.0.1.abc@pbem.test", state=state, seat_names=["Zoë", "Bob", "Ann"], since=[],
        open_url="http://x/play/g1#token=t", move_urls={"end": "http://x/m?move=end&sig=" + "a" * 80},
        unsubscribe_url="http://x/u?sig=" + "b" * 1200, dashboard_url="http://x/me#key=k", first_email=True,
        images=[InlineImage("board", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40, "the board", 800)],
        board_url="http://x/b.svg", game=TILETUM))
    finish_headers(turn, domain="pbem.test", once_key="turn:g1:0:1", in_reply_to="<root@pbem.test>",
                   unsubscribe_url="http://x/u?sig=" + "b" * 600)
    odd = MIMEMultipart("alternative")
    odd.attach(MIMEText("body\n", "plain", "utf-8"))
    odd.attach(MIMEText("mixed\r\nline\rends\n\nand none at the end", "plain", "us-ascii"))
    odd.attach(MIMEText("", "plain", "us-ascii"))
    for name, value in [("Subject", "Zoë's turn"), ("X-Two", "two  spaces"), ("X-Lead", " leading"),
                        ("X-Trail", "trailing "), ("X-Word", "=?utf-8?q?a?="), ("X-Long", "w " * 600),
                        ("X-Tab", "a\tb"), ("X-Comma", "a,b;c d"), ("X-Empty", "")]:
        odd[name] = value
    notice = simple_email(subject="Tiletum g1: résumé", from_addr="pbem@pbem.test", to_addr="a@players.test",
                          lines=["Hello", "x" * 300])
    for m in (turn, odd, notice, make(1)):
        assert serialize(m) == standard(m)
    assert b"\nList-Unsubscribe: <http://x/u?sig=" + b"b" * 600 + b">\n" in serialize(turn), "one line"


# --- the DATA command's bytes ------------------------------------------------------------------------

@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([b".", b"..", b"\r\n", b"\n", b"\r", b"a", b" ", b".\r\n", b"x.y"]),
                max_size=40))
def test_dot_stuffing_is_smtplibs(parts):
    """The transport's DATA bytes are smtplib's for any bytes with CRLF line ends (the transport
    turns every bare LF into CRLF first): a line's leading period doubled, the last line ended."""
    import smtplib

    from mail.transports import dot_stuffed
    raw = b"".join(parts)
    raw = raw.replace(b"\n", b"\r\n") if b"\r" not in raw else raw
    expected = smtplib._quote_periods(raw)
    if expected[-2:] != b"\r\n":
        expected += b"\r\n"
    assert dot_stuffed(raw) == expected


def test_lines_that_start_with_a_period_arrive_as_written(r, server):
    """Through a real SMTP server: a line of one period, lines that start with periods, a body whose
    last line has no line feed: the server's message is the one queued."""
    server.start()
    box = outbox_of(r, server, Clock())
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = "pbem@pbem.test", "p@players.test", "periods"
    body = ".\n..two\n. a space\nmiddle . period\n.\n...\nthe end"
    m.set_content(body)
    assert box.enqueue("turn:periods:0:1", m, deliver=False)
    assert box.deliver_due() == 1
    (got,) = server.messages
    assert got.get_content().replace("\r\n", "\n").rstrip("\n") == body


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=3000))
def test_the_pictures_base64_is_the_standard_encoders(data):
    """The inline pictures' base64 (mail/compose.py, at C speed) is email.encoders' own, line for line."""
    from email.mime.image import MIMEImage

    from mail.compose import _base64_lines
    png = b"\x89PNG\r\n\x1a\n" + data
    assert MIMEImage(png, "png", _encoder=_base64_lines).as_bytes() == MIMEImage(png, "png").as_bytes()


def test_an_email_queued_before_the_upgrade_is_still_sent(r, server):
    """An email stored as base64 (``raw``, before the stored bytes became Latin-1 characters) goes
    out byte for byte as the new format's does."""
    server.start()
    box = outbox_of(r, server, Clock())
    queue(box, 2)
    shard_hash = ob.shard_keys(ob.shard_of("turn:g0:0:1"))[0]
    item = json.loads(r.hget(shard_hash, "turn:g0:0:1"))
    raw = item.pop("bytes").encode("latin-1")
    item["raw"] = base64.b64encode(raw).decode("ascii")
    r.hset(shard_hash, "turn:g0:0:1", json.dumps(item))
    assert box.deliver_due() == 2
    assert server.subjects() == ["email 00", "email 01"]
    old, new = sorted(server.messages, key=lambda m: str(m["Subject"]))
    assert old.get_content().startswith("email number 0\r\n")
    assert new.get_content().startswith("email number 1\r\n")
    assert ob.message_bytes(item) == raw and ob.message_bytes({"bytes": raw.decode("latin-1")}) == raw


def test_eight_bit_bytes_survive_the_store(r, server):
    """A body sent as 8-bit UTF-8 (every byte above 127 stored as one character) arrives as written."""
    server.start()
    box = outbox_of(r, server, Clock())
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = "pbem@pbem.test", "zoe@players.test", "8bit"
    body = "Zoë played Brügge for 3 Gold \u2014 then ß, \u00ff, \u0100 and \U0001f3b2\n"
    m.set_content(body, cte="8bit")
    assert box.enqueue("turn:8bit:0:1", m, deliver=False)
    stored = box.stored("turn:8bit:0:1")
    assert "Zo\u00c3\u00ab" in stored["bytes"]        # the UTF-8 bytes of ë, one character each
    assert box.deliver_due() == 1
    (got,) = server.messages
    assert got.get_content().replace("\r\n", "\n") == body


def test_the_first_attempt_sends_what_was_queued_without_reading_it_back(r, server):
    """Enqueue's own attempt claims the email without the claim sending its bytes back (the
    script answers 1, not the 80 KB item), and what arrives is exactly the bytes queued; an email
    another process has sent meanwhile is 'gone' to it, never sent twice."""
    answers: list = []
    register = r.register_script

    def recording(source):
        script = register(source)

        def call(keys=(), args=(), client=None):
            out = script(keys=keys, args=args, client=client)
            if source is ob._CLAIM:
                answers.append(out)
            return out
        return call

    r.register_script = recording
    try:
        server.start()
        box = outbox_of(r, server, Clock())
    finally:
        r.register_script = register
    assert box.enqueue("turn:held:0:1", make(1))
    assert answers == [1], "the claim of the email just queued carries no copy of it"
    stored = box.stored("turn:held:0:1")
    assert stored is None and box.status("turn:held:0:1") == "sent"
    assert server.subjects() == ["email 01"]
    # another process's sweep sent the next one first: the held attempt finds it gone
    assert box.enqueue("turn:held:0:2", make(2), deliver=False)
    item = json.loads(r.hget(ob.shard_keys(ob.shard_of("turn:held:0:2"))[0], "turn:held:0:2"))
    other = outbox_of(r, server, Clock())
    assert other.deliver("turn:held:0:2") == "sent"
    assert box.deliver("turn:held:0:2", item) == "gone"
    assert server.subjects() == ["email 01", "email 02"], "nothing sent twice"
