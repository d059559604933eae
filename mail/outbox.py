"""Sending email exactly once per key, over SMTP or into a local sink.

``Outbox.send_once(key, message)`` claims ``mail:sent:<key>`` with SET NX before handing the
message to the transport, so a task that is retried or runs twice sends one email. When the
transport fails, the claim is released (a retry or the sweep may send it later) and the failure
is recorded in the list ``mail:failed`` with the message, so nothing is lost silently.
"""
from __future__ import annotations

import json
import logging
import os
import smtplib
import time
from email.message import EmailMessage
from pathlib import Path
from urllib.parse import unquote, urlparse

log = logging.getLogger("tiletum.outbox")
FAILED = "mail:failed"
SENT_TTL = 90 * 24 * 3600


class SmtpTransport:
    """``smtp://host:port``, ``smtp+starttls://user:pass@host:587`` or ``smtps://user:pass@host:465``."""

    def __init__(self, url: str, timeout: float = 15.0):
        u = urlparse(url)
        self.scheme, self.host, self.port = u.scheme, u.hostname or "127.0.0.1", u.port
        self.user, self.password = unquote(u.username or ""), unquote(u.password or "")
        self.timeout = timeout
        self._smtp = None

    def _connect(self):
        if self.scheme == "smtps":
            smtp = smtplib.SMTP_SSL(self.host, self.port or 465, timeout=self.timeout)
        else:
            smtp = smtplib.SMTP(self.host, self.port or 25, timeout=self.timeout)
        if self.scheme == "smtp+starttls":
            smtp.starttls()
        if self.user:
            smtp.login(self.user, self.password)
        return smtp

    def send(self, message: EmailMessage) -> None:
        """Send over a kept-open connection (one per process); a dropped one is reopened once."""
        for attempt in (0, 1):
            if self._smtp is None:
                self._smtp = self._connect()
            try:
                self._smtp.send_message(message)
                return
            except (smtplib.SMTPServerDisconnected, OSError):
                self.close()
                if attempt:
                    raise

    def close(self) -> None:
        if self._smtp is not None:
            try:
                self._smtp.quit()
            except Exception:
                pass
            self._smtp = None


class SinkTransport:
    """No mail provider configured: each message becomes an .eml file under ``folder`` and its
    subject, recipient and links are printed, so a new user can play at once."""

    def __init__(self, folder: str | os.PathLike):
        self.folder = Path(folder)

    def send(self, message: EmailMessage) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        name = f"{time.time_ns()}-{(message['To'] or 'nobody').split('@')[0][-20:]}.eml"
        (self.folder / name).write_bytes(bytes(message))
        plain = next((part for part in message.walk() if part.get_content_type() == "text/plain"), None)
        text = plain.get_payload(decode=True).decode("utf-8", "replace") if plain is not None else ""
        links = [w for w in text.split() if w.startswith("http")]
        print(f"[mail sink] to {message['To']}: {message['Subject']} ({self.folder / name})", flush=True)
        for link in links[:5]:
            print(f"[mail sink]   {link}", flush=True)


def transport_from_env(data_dir: str | None = None):
    url = os.environ.get("TILETUM_SMTP_URL")
    if url:
        return SmtpTransport(url)
    return SinkTransport(Path(data_dir or os.environ.get("TILETUM_DATA_DIR", "var")) / "mail")


class Outbox:
    def __init__(self, redis_client, transport):
        self.r = redis_client
        self.transport = transport

    def already_sent(self, key: str) -> bool:
        return bool(self.r.exists(f"mail:sent:{key}"))

    def send_once(self, key: str, message: EmailMessage) -> bool:
        """Send unless a message with this key was sent (or is being sent). True if sent now."""
        claim = f"mail:sent:{key}"
        if not self.r.set(claim, "sending", nx=True, ex=SENT_TTL):
            return False
        try:
            self.transport.send(message)
        except Exception as e:
            self.r.delete(claim)
            self.r.lpush(FAILED, json.dumps({"key": key, "at": time.time(), "error": repr(e)[:300],
                                             "to": message["To"], "subject": message["Subject"]}))
            self.r.ltrim(FAILED, 0, 9999)
            raise
        self.r.set(claim, "sent", ex=SENT_TTL)
        return True
