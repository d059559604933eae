"""The reply address is not enough to play a seat (issue 12).

Found: a reply from another address (mallory@...) to a turn email played the move, and the
answer went to that address with the seat's link token and the owner's dashboard key; the
unauthenticated inbound webhook emailed attacker-chosen text to any address. Here, with the real
service on a real Redis and the outgoing mail in the local sink: only the seat's own address
plays, every answer goes to the seat's own address, the webhook needs its signature, and where
our mail server records SPF/DKIM/DMARC, a failing result plays nothing.
"""
from __future__ import annotations

import email
import email.policy
import email.utils
import time
from email.message import EmailMessage

import pytest

import tiletum
from mail.addresses import inbound_signature, reply_address
from tests.conftest import INBOUND_SECRET, make_app, post_inbound

MAIL_SECRET = "sender-secret"
DOMAIN = "pbem.test"


@pytest.fixture()
def env(redis_server, monkeypatch, tmp_path):
    monkeypatch.setenv("TABLEPOST_MAIL_SECRET", MAIL_SECRET)
    monkeypatch.setenv("TABLEPOST_MAIL_DOMAIN", DOMAIN)
    monkeypatch.delenv("TABLEPOST_SMTP_URL", raising=False)
    monkeypatch.delenv("TABLEPOST_MAIL_AUTHSERV_ID", raising=False)
    monkeypatch.setenv("TABLEPOST_DATA_DIR", str(tmp_path))
    app = make_app(redis_server.url, MAIL_SECRET=MAIL_SECRET, INBOUND_SECRET=INBOUND_SECRET)
    c = app.test_client()
    g = c.post("/api/v1/games", json={"seats": [{"name": "Ada", "email": "Ada@Example.org"},
                                                {"name": "Bob", "email": "bob@example.org"}],
                                      "options": {"seed": f"sender-{time.time_ns()}"}}).json
    svc = app.extensions["tablepost.service"]
    _, state = svc.load(g["id"])

    class Env:
        client, game, sink = c, g["id"], tmp_path / "mail"
        seat = state.actor
        owner = ["Ada@Example.org", "bob@example.org"][state.actor]
        move = next(m for m in tiletum.legal_moves(state) if m.startswith("take"))
        to = reply_address(MAIL_SECRET, DOMAIN, g["id"], state.actor, 1)

        def version(self):
            return c.get(f"/api/v1/games/{g['id']}").json["version"]

        def sent(self):
            return [email.message_from_bytes(f.read_bytes(), policy=email.policy.default)
                    for f in sorted(self.sink.glob("*.eml"))] if self.sink.exists() else []
    return Env()


def mail(to, sender, body, **headers) -> bytes:
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = sender, to, "Re: your turn"
    m["Message-ID"] = email.utils.make_msgid(domain="example.net")
    for k, v in headers.items():
        m[k.replace("_", "-")] = v
    m.set_content(body + "\n\n> quoted turn email\n")
    return bytes(m)


def text_of(msg) -> str:
    return "\n".join(part.get_content() for part in msg.walk()
                     if part.get_content_type() in ("text/plain", "text/html"))


def test_a_reply_from_another_address_plays_nothing_and_mails_only_the_owner(env):
    r = post_inbound(env.client, mail(env.to, "Mallory <mallory@evil.example>", env.move))
    assert r.status_code == 200 and r.json["code"] == "wrong-sender"
    assert env.version() == 1, "nothing played"
    sent = env.sent()
    assert [str(m["To"]) for m in sent] == [env.owner], "only the seat's own address is told"
    notice = text_of(sent[0])
    assert "mallory@evil.example" in notice and "nothing was played" in notice
    assert "#token=" not in notice and "#key=" not in notice, "no credential in a refusal"
    # a flood of forged replies tells the owner once per turn, and tells mallory nothing
    for _ in range(3):
        post_inbound(env.client, mail(env.to, "mallory@evil.example", env.move))
    assert len(env.sent()) == 1 and env.version() == 1


@pytest.mark.parametrize("sender", ["{owner}", "Ada Lovelace <{upper}>", "{plus}"])
def test_the_seats_address_plays_in_its_usual_forms(env, sender):
    local, domain = env.owner.split("@")
    form = sender.format(owner=env.owner, upper=env.owner.upper(), plus=f"{local}+tiletum@{domain}")
    r = post_inbound(env.client, mail(env.to, form, env.move))
    assert r.json["status"] == "applied" and env.version() == 2
    assert {str(m["To"]) for m in env.sent()} == {env.owner}, "answers go to the seat's address as stored"


def test_the_reply_to_header_cannot_redirect_answers(env):
    r = post_inbound(env.client, mail(env.to, env.owner, env.move, Reply_To="mallory@evil.example"))
    assert r.json["status"] == "applied"
    assert {str(m["To"]) for m in env.sent()} == {env.owner}


def test_a_forged_reply_address_mails_nobody(env):
    forged = env.to.replace(f".{env.seat}.1.", f".{1 - env.seat}.1.")
    r = post_inbound(env.client, mail(forged, "someone@example.net", env.move))
    assert r.json["code"] == "forged-address" and env.sent() == [] and env.version() == 1


@pytest.mark.parametrize("signature", [None, "wrong-key", "stale", "other-body"])
def test_the_webhook_needs_its_signature(env, signature):
    raw = mail(env.to, env.owner, env.move)
    headers = {}
    if signature == "wrong-key":
        headers["X-Tablepost-Signature"] = inbound_signature("not-the-key", raw)
    elif signature == "stale":
        headers["X-Tablepost-Signature"] = inbound_signature(INBOUND_SECRET, raw, int(time.time()) - 3600)
    elif signature == "other-body":
        headers["X-Tablepost-Signature"] = inbound_signature(INBOUND_SECRET, raw + b"x")
    r = env.client.post("/api/v1/inbound-email", data=raw, content_type="message/rfc822", headers=headers)
    assert r.status_code == 401 and r.json["code"] == "bad-signature"
    assert env.version() == 1 and env.sent() == []


def test_the_webhook_is_off_without_its_secret(redis_server):
    app = make_app(redis_server.url, MAIL_SECRET=MAIL_SECRET)
    r = post_inbound(app.test_client(), b"From: a@b\r\n\r\nend\r\n")
    assert r.status_code == 404 and r.json["code"] == "email-disabled"


@pytest.mark.parametrize("results, plays", [
    (["mx.pbem.test; spf=pass smtp.mailfrom={d}; dkim=pass header.d={d}; dmarc=pass"], True),
    (["mx.pbem.test; spf=fail smtp.mailfrom={d}; dkim=none; dmarc=fail"], False),
    (["mx.pbem.test; dkim=pass header.d={d}; dmarc=softfail"], False),
    (["evil.example; spf=pass; dkim=pass; dmarc=pass"], False),   # not our server's: ignored
    ([], False),                                                   # our server said nothing
])
def test_failing_sender_checks_refuse_the_move(env, monkeypatch, results, plays):
    monkeypatch.setenv("TABLEPOST_MAIL_AUTHSERV_ID", "mx.pbem.test")
    m = email.message_from_bytes(mail(env.to, env.owner, env.move), policy=email.policy.default)
    for r in results:
        m["Authentication-Results"] = r.format(d=env.owner.split("@")[1])
    r = post_inbound(env.client, bytes(m))
    assert (r.json["status"] == "applied") is plays
    assert env.version() == (2 if plays else 1)
    if not plays:
        assert r.json["code"] == "unauthenticated-sender"
        assert {str(x["To"]) for x in env.sent()} == {env.owner}
