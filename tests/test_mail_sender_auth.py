"""Inbound sender authentication (issue 51): a move or a message by email counts only when a mail
server vouched for its sender.

Found: a reply to any of a seat's reply addresses (the current turn's, an old turn's, or the table-talk
address, which never changed) with a forged ``From:`` posted a message as that player, and the player
was never told; and a move with a message in one reply could reach the opponent as a turn email first
and the message hours later. Here, with the real service on a real Redis through the signed inbound
webhook (and the outgoing mail in the local sink): a forged From, its ``Authentication-Results`` failing,
is refused on every reply address and the owner is told once; without a mail server in front, the
setting decides; a talk address expires once a newer message email went out; and the opponent's turn
is told only once the reply's message is in the thread.
"""
from __future__ import annotations

import email
import email.policy
import email.utils
from email.message import EmailMessage

import pytest

from application.dashboard import mark_verified
from application.messages import TableTalk
from mail import sender_auth
from mail.addresses import reply_address, talk_address
from mail.mailconfig import unauthenticated_policy
from mail.mailin_runtime import InboundReplies
from mail.messages import TALK_VERSION, TalkMailer
from tests.conftest import INBOUND_SECRET, make_app, post_inbound

SECRET = "auth-secret"
DOMAIN = "pbem.test"
MX = "mx.pbem.test"
ADA, BOB = "ada@players.example.org", "bob@players.example.org"
PASS = f"{MX}; spf=pass smtp.mailfrom=bounce.players.example.org; dkim=pass header.d=players.example.org; " \
       "dmarc=pass header.from=players.example.org"
FORGED = f"{MX}; spf=fail smtp.mailfrom=evil.example; dkim=none; dmarc=fail header.from=players.example.org"


@pytest.fixture()
def env(redis_server, monkeypatch, tmp_path):
    monkeypatch.setenv("TABLEPOST_MAIL_SECRET", SECRET)
    monkeypatch.setenv("TABLEPOST_MAIL_DOMAIN", DOMAIN)
    monkeypatch.delenv("TABLEPOST_SMTP_URL", raising=False)
    monkeypatch.setenv("TABLEPOST_MAIL_AUTHSERV_ID", MX)
    monkeypatch.setenv("TABLEPOST_DATA_DIR", str(tmp_path))
    told_at_append: list[list[str]] = []

    def on_append(game_id, version, state, mover):   # what the next seat's turn email would tell now
        if mover is None:   # the game's start
            return
        meta = svc.meta(game_id)
        unread = TableTalk(svc).unread_for_email(game_id, meta, 1 - mover)[0]
        told_at_append.append([m["text"] for m in unread])
    app = make_app(redis_server.url, MAIL_SECRET=SECRET, INBOUND_SECRET=INBOUND_SECRET, ON_APPEND=on_append)
    svc = app.extensions["tablepost.service"]
    c = app.test_client()
    g = c.post("/api/v1/games", json={"game": "carcassonne", "seats": [{"name": "Ada", "email": ADA},
                                                                        {"name": "Bob", "email": BOB}]}).json
    for address in (ADA, BOB):
        mark_verified(svc.store.r, address)

    class Env:
        client, game, sink, told = c, g["id"], tmp_path / "mail", told_at_append
        tokens = [s["token"] for s in g["seats"]]

        def version(self):
            return c.get(f"/api/v1/games/{g['id']}").json["version"]

        def turn(self, seat, version=None):
            version = self.version() if version is None else version
            return reply_address(SECRET, DOMAIN, g["id"], seat, version)

        def move(self, seat):
            return c.get(f"/api/v1/games/{g['id']}/legal-moves",
                         headers={"Authorization": f"Bearer {self.tokens[seat]}"}).json["moves"][0]["move"]

        def said(self):
            page = c.get(f"/api/v1/games/{g['id']}/messages",
                         headers={"Authorization": f"Bearer {self.tokens[1]}"}).json
            return [m["text"] for m in page["messages"]]

        def sent(self):
            return [email.message_from_bytes(f.read_bytes(), policy=email.policy.default)
                    for f in sorted(self.sink.glob("*.eml"))] if self.sink.exists() else []

        def message_emails(self, seat):
            TalkMailer(InboundReplies(svc).notifier, 0).send(g["id"])
            return [m for m in self.sent()
                    if str(m["To"]) == [ADA, BOB][seat] and "wrote to the table" in text_of(m)]
    return Env()


def mail(to, sender, body, results=()) -> bytes:
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = sender, to, "Re: your game"
    m["Message-ID"] = email.utils.make_msgid(domain="players.example.org")
    for r in results:
        m["Authentication-Results"] = r
    m.set_content(body + "\n\n> quoted email\n")
    return bytes(m)


def text_of(msg) -> str:
    return "\n".join(part.get_content() for part in msg.walk()
                     if part.get_content_type() in ("text/plain", "text/html"))


def test_a_forged_from_is_refused_on_every_reply_address_and_the_owner_told_once(env):
    # Ada plays once from her own, authenticated account: her turn's address of version 1 is old now
    old, move = env.turn(0, 1), env.move(0)
    r = post_inbound(env.client, mail(old, ADA, f"{move}\nMessage: hello Bob", [PASS]))
    assert r.json["status"] == "applied", r.json
    assert env.said() == ["hello Bob"]
    # Bob writes; Ada's message email carries her current talk address
    env.client.post(f"/api/v1/games/{env.game}/messages", json={"text": "hi Ada"},
                    headers={"Authorization": f"Bearer {env.tokens[1]}"})
    (told,) = env.message_emails(0)
    talk = str(told["Reply-To"])
    assert ".t" in talk
    before, version, mails = env.said(), env.version(), len(env.sent())
    # Mallory writes as Ada, to each of her reply addresses, with her own server failing the checks
    for to in (env.turn(0), old, talk, talk, env.turn(0), old):
        r = post_inbound(env.client, mail(to, f"Ada <{ADA}>", f"{move}\nMessage: Ada resigns, gg",
                                          [FORGED]))
        assert (r.status_code, r.json["status"]) == (200, "rejected")
        assert r.json["code"] == "unauthenticated-sender"
    # and with a forged header of our server's id, for a result it never recorded: refused all the same
    r = post_inbound(env.client, mail(talk, ADA, "Ada resigns, gg", [FORGED, f"{MX}; dmarc=pass"]))
    assert r.json["code"] == "unauthenticated-sender"
    assert env.said() == before and env.version() == version, "nothing posted, nothing played"
    new = env.sent()[mails:]
    assert [str(m["To"]) for m in new] == [ADA], "the owner is told once; the forger's From nothing"
    assert "sender checks" in text_of(new[0]) and "nothing was played or posted" in text_of(new[0])
    assert "#token=" not in text_of(new[0]), "no credential in a refusal"
    # her own reply, authenticated, to the same talk address still posts
    r = post_inbound(env.client, mail(talk, ADA, "thanks Bob", [PASS]))
    assert r.json["status"] == "applied" and env.said()[-1] == "thanks Bob"


@pytest.mark.parametrize("results", [
    [],                                                                  # our server said nothing
    ["evil.example; spf=pass; dkim=pass header.d=players.example.org; dmarc=pass"],   # not our server
    [f"{MX}; dkim=pass header.d=evil.example; spf=pass smtp.mailfrom=evil.example; dmarc=none"],  # unaligned
    [f"{MX}; dkim=pass header.d=players.example.org; dmarc=temperror"],
    [f"{MX} ;; garbled"],
])
def test_without_a_pass_of_our_server_nothing_counts(env, results):
    r = post_inbound(env.client, mail(env.turn(0), ADA, f"{env.move(0)}\nMessage: hi", results))
    assert r.json["code"] == "unauthenticated-sender" and env.version() == 1 and env.said() == []


@pytest.mark.parametrize("results", [
    [PASS],
    [f"{MX}; dkim=pass header.d=mail.players.example.org; spf=fail smtp.mailfrom=fwd.example; dmarc=none"],
    [f"{MX}; spf=pass smtp.mailfrom=bounce@players.example.org", f"{MX}; dkim=pass header.d=evil.example"],
])
def test_a_pass_aligned_with_the_from_domain_counts(env, results):
    r = post_inbound(env.client, mail(env.turn(0), ADA, env.move(0), results))
    assert r.json["status"] == "applied", r.json


@pytest.mark.parametrize("policy, plays", [("accept", True), ("refuse", False)])
def test_without_a_mail_server_in_front_the_setting_decides(env, monkeypatch, policy, plays):
    monkeypatch.delenv("TABLEPOST_MAIL_AUTHSERV_ID")
    monkeypatch.setenv("TABLEPOST_MAIL_UNAUTHENTICATED", policy)
    r = post_inbound(env.client, mail(env.turn(0), ADA, f"{env.move(0)}\nMessage: hi"))
    assert (r.json["status"] == "applied") is plays
    assert (env.version() > 1) is plays and (env.said() == ["hi"]) is plays


def test_the_setting_is_accept_or_refuse(monkeypatch):
    monkeypatch.delenv("TABLEPOST_MAIL_UNAUTHENTICATED")
    assert unauthenticated_policy() == "refuse", "production refuses what nobody authenticated"
    monkeypatch.setenv("TABLEPOST_MAIL_UNAUTHENTICATED", "yes")
    with pytest.raises(RuntimeError, match="'accept' or 'refuse'"):
        unauthenticated_policy()


def test_a_talk_address_expires_once_a_newer_message_email_went_out(env):
    bob = {"Authorization": f"Bearer {env.tokens[1]}"}
    env.client.post(f"/api/v1/games/{env.game}/messages", json={"text": "one"}, headers=bob)
    (first,) = env.message_emails(0)
    env.client.post(f"/api/v1/games/{env.game}/messages", json={"text": "two"}, headers=bob)
    second = [m for m in env.message_emails(0) if m["Message-ID"] != first["Message-ID"]]
    assert len(second) == 1 and first["Reply-To"] != second[0]["Reply-To"], "each its own address"
    sent = len(env.sent())
    r = post_inbound(env.client, mail(str(first["Reply-To"]), ADA, "late answer", [PASS]))
    assert r.json["code"] == "stale-talk" and env.said() == ["one", "two"]
    answer = env.sent()[sent:]
    assert [str(m["To"]) for m in answer] == [ADA] and "your message was not posted" in text_of(answer[0])
    # the fixed talk address of the emails before talk addresses were numbered: expired too
    legacy = reply_address(SECRET, DOMAIN, env.game, 0, TALK_VERSION)
    r = post_inbound(env.client, mail(legacy, ADA, "older still", [PASS]))
    assert r.json["code"] == "stale-talk"
    r = post_inbound(env.client, mail(str(second[0]["Reply-To"]), ADA, "current answer", [PASS]))
    assert r.json["status"] == "applied" and env.said() == ["one", "two", "current answer"]
    # a forged talk address (another seat's number signed by nobody) mails nobody
    forged = talk_address("not-our-secret", DOMAIN, env.game, 0, 9)
    r = post_inbound(env.client, mail(forged, ADA, "x", [PASS]))
    assert r.json["code"] == "forged-address"


def test_the_move_and_its_message_are_told_together(env):
    """The opponent's turn is told (``on_append``: the turn email's task) only once the reply's message
    is in the thread, so its turn email carries the message, not an email of its own hours later."""
    r = post_inbound(env.client, mail(env.turn(0), ADA, f"{env.move(0)}\nMessage: your move, Bob", [PASS]))
    assert r.json["status"] == "applied", r.json
    assert env.told == [["your move, Bob"]], "the message was in the thread when the move was told"
    assert env.said() == ["your move, Bob"]


def test_alignment_uses_organizational_domains():
    assert sender_auth.aligned("mail.example.co.uk", "Example.CO.UK")
    assert not sender_auth.aligned("co.uk", "example.co.uk")
    assert not sender_auth.aligned("a.github.io", "b.github.io"), "a public suffix of private names"
    msg = email.message_from_string(f"From: a@example.org\nAuthentication-Results: {MX}; dmarc=pass\n"
                                    f"Authentication-Results: {MX}; dmarc=none\n\nx\n")
    assert sender_auth.check(msg, MX) == "contradicting DMARC results"


def test_the_owner_is_told_again_on_another_day(env, monkeypatch, redis_client):
    """Once a day per game and kind of refusal: never per attempt, and not never again."""
    for _ in range(3):
        post_inbound(env.client, mail(env.turn(0), ADA, env.move(0), [FORGED]))
    assert len(env.sent()) == 1
    monkeypatch.setenv("TABLEPOST_TEST_CLOCK", "1")   # the service's clock a day on (application/clock.py)
    redis_client.set("clock:offset", 86400)
    try:
        post_inbound(env.client, mail(env.turn(0), ADA, env.move(0), [FORGED]))
        post_inbound(env.client, mail(env.turn(0), ADA, env.move(0), [FORGED]))
    finally:
        redis_client.delete("clock:offset")
    assert [str(m["To"]) for m in env.sent()] == [ADA, ADA]


def test_the_smtp_listener_refuses_a_forged_from_alike(env):
    """The same through the real SMTP listener (workers/listener.py) on loopback: the forged reply is
    taken at SMTP (no bounce to its From) and plays and posts nothing; the owner's own reply plays."""
    import smtplib

    from mail.mailin_runtime import inbound_deps
    from tests.test_mailin import free_port
    from workers.listener import start_listener
    port = free_port()
    svc = env.client.application.extensions["tablepost.service"]
    listener = start_listener(inbound_deps(svc), port=port)
    move = env.move(0)
    try:
        with smtplib.SMTP("127.0.0.1", port, timeout=10) as s:
            forged = mail(env.turn(0), ADA, f"{move}\nMessage: hi", [FORGED])
            s.sendmail("bounce@evil.example", [env.turn(0)], forged)
        assert env.version() == 1 and env.said() == []
        assert [str(m["To"]) for m in env.sent()] == [ADA]
        with smtplib.SMTP("127.0.0.1", port, timeout=10) as s:
            s.sendmail(ADA, [env.turn(0)], mail(env.turn(0), ADA, f"{move}\nMessage: hi", [PASS]))
        assert env.version() > 1 and env.said() == ["hi"]
    finally:
        listener.stop()
