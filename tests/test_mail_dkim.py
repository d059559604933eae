"""DKIM: with a key configured (TABLEPOST_DKIM_KEY_FILE, _SELECTOR, _DOMAIN), every email the outbox sends
is signed once when queued; the signature, as a real SMTP server on loopback received it, verifies
with dkimpy against the public key published for the selector, and fails once anything it covers is
changed. Without a key nothing is signed; a key set without a selector stops the process at start."""
from __future__ import annotations

import base64
import shutil
import subprocess
import threading

import dkim
import pytest

from api.redis_server import free_port
from mail.compose import finish_headers, simple_email
from mail.outbox import Outbox
from mail.signing import Signer
from mail.transports import SmtpTransport

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl makes the test's RSA key")


class RawBox:
    """An SMTP server on loopback that keeps the bytes it received."""

    def __init__(self):
        from aiosmtpd.controller import Controller
        self.raw: list[bytes] = []
        self.cond = threading.Condition()
        box = self

        class Handler:
            async def handle_DATA(self, server, session, envelope):
                with box.cond:
                    box.raw.append(envelope.original_content or envelope.content)
                    box.cond.notify_all()
                return "250 OK"
        self.port = free_port()
        self.controller = Controller(Handler(), hostname="127.0.0.1", port=self.port)

    def wait(self, n: int) -> None:
        with self.cond:
            assert self.cond.wait_for(lambda: len(self.raw) >= n, 15), "no email arrived"


@pytest.fixture()
def key(tmp_path):
    """An RSA key pair: the PEM private key's file, and the DNS TXT record of its public key."""
    private = tmp_path / "dkim.pem"
    subprocess.run(["openssl", "genrsa", "-out", str(private), "2048"], check=True, capture_output=True)
    der = subprocess.run(["openssl", "rsa", "-in", str(private), "-pubout", "-outform", "DER"], check=True,
                         capture_output=True).stdout
    return private, b"v=DKIM1; k=rsa; p=" + base64.b64encode(der)


@pytest.fixture()
def box():
    b = RawBox()
    b.controller.start()
    yield b
    b.controller.stop()


def dns(record: bytes, name: bytes = b"pbem2026._domainkey.pbem.example.org."):
    def lookup(qname, timeout=5):
        return record if qname == name else None
    return lookup


def an_email():
    msg = simple_email(subject="Tiletum with Bob (game g1)",
                       from_addr="Board games by mail <noreply@pbem.example.org>",
                       to_addr="ada@players.test", lines=["Hello Ada,", "", "the game is over."],
                       headline="Game over: Ada wins.")
    return finish_headers(msg, domain="pbem.example.org", once_key="final:g1:0",
                          unsubscribe_url="https://pbem.example.org/email/unsubscribe?address=ada%40players.test&sig=x")


def test_outgoing_mail_is_signed_and_the_signature_verifies(redis_client, monkeypatch, key, box):
    private, record = key
    monkeypatch.setenv("TABLEPOST_DKIM_KEY_FILE", str(private))
    monkeypatch.setenv("TABLEPOST_DKIM_SELECTOR", "pbem2026")
    monkeypatch.delenv("TABLEPOST_DKIM_DOMAIN", raising=False)   # the From's domain
    outbox = Outbox(redis_client, SmtpTransport(f"smtp://127.0.0.1:{box.port}", timeout=5))
    assert outbox.signer is not None
    assert outbox.enqueue("dkim-test:1", an_email())
    box.wait(1)
    raw = box.raw[0]
    assert raw.startswith(b"DKIM-Signature:")
    signature = raw.split(b"\r\n\r\n", 1)[0]
    assert b"d=pbem.example.org" in signature and b"s=pbem2026" in signature
    for covered in (b"from", b"to", b"subject", b"message-id", b"list-unsubscribe"):
        assert covered in signature.lower().split(b"h=", 1)[1].split(b";", 1)[0]
    assert dkim.verify(raw, dnsfunc=dns(record))
    # anything it covers changed on the way: the signature fails
    assert not dkim.verify(raw.replace(b"the game is over", b"the game is lost"), dnsfunc=dns(record))
    assert not dkim.verify(raw.replace(b"Subject: Tiletum", b"Subject: Tiletvm"), dnsfunc=dns(record))
    assert not dkim.verify(b"From: someone@evil.test\r\n" + raw, dnsfunc=dns(record)), "From is oversigned"
    # another key published for the selector: it fails
    other = subprocess.run(["openssl", "genrsa", "2048"], check=True, capture_output=True).stdout
    assert not dkim.verify(raw, dnsfunc=dns(b"v=DKIM1; k=rsa; p=" + base64.b64encode(
        subprocess.run(["openssl", "rsa", "-pubout", "-outform", "DER"], input=other, check=True,
                       capture_output=True).stdout)))


def test_the_signing_domain_can_be_set(key):
    private, record = key
    signer = Signer(key=private.read_bytes(), selector="pbem2026", domain="mail.example.net")
    from mail.transports import serialize
    raw = signer.sign(serialize(an_email()))
    assert b"d=mail.example.net" in raw.split(b"\r\n\r\n", 1)[0]
    assert dkim.verify(raw, dnsfunc=dns(record, b"pbem2026._domainkey.mail.example.net."))


def test_without_a_key_nothing_is_signed(redis_client, monkeypatch, box):
    monkeypatch.delenv("TABLEPOST_DKIM_KEY_FILE", raising=False)
    outbox = Outbox(redis_client, SmtpTransport(f"smtp://127.0.0.1:{box.port}", timeout=5))
    assert outbox.signer is None
    assert outbox.enqueue("dkim-test:2", an_email())
    box.wait(1)
    assert b"DKIM-Signature" not in box.raw[0]


def test_a_key_without_a_selector_or_not_a_key_stops_the_start(monkeypatch, key, tmp_path):
    private, _ = key
    monkeypatch.setenv("TABLEPOST_DKIM_KEY_FILE", str(private))
    monkeypatch.delenv("TABLEPOST_DKIM_SELECTOR", raising=False)
    with pytest.raises(RuntimeError, match="SELECTOR"):
        Signer.from_env()
    junk = tmp_path / "junk.pem"
    junk.write_text("not a key")
    monkeypatch.setenv("TABLEPOST_DKIM_KEY_FILE", str(junk))
    monkeypatch.setenv("TABLEPOST_DKIM_SELECTOR", "pbem2026")
    with pytest.raises(RuntimeError, match="no PEM private key"):
        Signer.from_env()
