"""Every email the service sends goes through one outbox in Redis (docs/pbem.md, "Delivery
guarantees"): written durably before anything is sent, removed only after the SMTP server
accepted it.

``Outbox.enqueue(key, message)`` records the once-key ``mail:sent:<key>`` as ``queued`` (never
twice: a task that is retried or runs twice queues one email) and stores the message in the
hash ``mail:outbox`` and the due zset ``mail:outbox:due`` (score: the next attempt), all in one
Lua script; then it tries to deliver at once. ``deliver(key)`` claims the email with a lease
(``mail:outbox:claim:<key>``; a lease that is over is taken over), sends it, and on acceptance marks the key ``sent``
and drops the stored message; on failure it sets the next attempt (exponential backoff with
jitter, at most 30 minutes apart). ``deliver_due()`` (the beat task ``workers.sweep_outbox``)
sends what is due, and what a dead worker had claimed once its lease is over. An email still
not accepted after ``TILETUM_MAIL_GIVE_UP_HOURS`` (48) is undeliverable: the key says so, the
address's dashboard shows it and the log says so at ERROR.

Each email keeps one Message-ID (derived from its once-key when it has none), on every resend:
SMTP cannot say whether an email whose connection died after DATA was accepted, so delivery is
at least once, and a second copy after such an unknown outcome carries the same Message-ID.
"""
from __future__ import annotations

import base64
import email
import email.policy
import email.utils
import json
import logging
import os
import random
import smtplib
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from email.message import EmailMessage
from pathlib import Path
from urllib.parse import unquote, urlparse

from application.clock import make_clock
from application.dashboard import record_undeliverable

from .compose import message_id

log = logging.getLogger("tiletum.outbox")
FAILED = "mail:failed"         # list: every failed attempt, for the operator (newest first, 10000 kept)
OUTBOX = "mail:outbox"         # hash: once-key -> the queued email (JSON: raw bytes, attempts, times)
DUE = "mail:outbox:due"        # zset: once-key -> time of its next attempt
CLAIM = "mail:outbox:claim:"   # + once-key: the delivering process's token, with the lease as TTL
SENT_TTL = 90 * 24 * 3600
BACKOFF_FIRST, BACKOFF_CAP = 30.0, 1800.0

_ENQUEUE = """
if redis.call('SET', KEYS[1], 'queued', 'NX', 'EX', ARGV[4]) then
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
  redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
  return 1
end
return 0
"""
_DONE = """
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
return 1
"""
# a claim is "<token>|<lease end>" on the outbox's clock; a lease that is over is taken over
_CLAIM = """
local v = redis.call('GET', KEYS[1])
if v then
  local sep = string.find(v, '|', 1, true)
  if sep and tonumber(string.sub(v, sep + 1)) > tonumber(ARGV[2]) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1] .. '|' .. ARGV[3], 'EX', ARGV[4])
return 1
"""
_RELEASE = """
local v = redis.call('GET', KEYS[1])
if v and string.sub(v, 1, string.len(ARGV[1]) + 1) == ARGV[1] .. '|' then return redis.call('DEL', KEYS[1]) end
return 0
"""


def message_id_for(key: str, message: EmailMessage) -> str:
    """The stable Message-ID of the email queued under ``key`` (compose.message_id), in the From
    address's domain (else ``TILETUM_MAIL_DOMAIN``)."""
    addr = email.utils.parseaddr(str(message.get("From") or ""))[1]
    domain = addr.rsplit("@", 1)[1] if "@" in addr else os.environ.get("TILETUM_MAIL_DOMAIN", "pbem.localhost")
    return message_id(key, domain)


def _env_float(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name) or default)
    except ValueError:
        return default




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
        (self.folder / name).write_bytes(serialize(message))
        plain = next((part for part in message.walk() if part.get_content_type() == "text/plain"), None)
        text = plain.get_payload(decode=True).decode("utf-8", "replace") if plain is not None else ""
        links = [w for w in text.split() if w.startswith("http")]
        print(f"[mail sink] to {message['To']}: {message['Subject']} ({self.folder / name})", flush=True)
        for link in links[:5]:
            print(f"[mail sink]   {link}", flush=True)


def serialize(message) -> bytes:
    """The message's bytes with header lines folded only past SMTP's 998-character limit: a long
    header such as List-Unsubscribe stays on one line (a fold would survive the outbox's store
    and parse as a leading space)."""
    return message.as_bytes(policy=message.policy.clone(max_line_length=998))


def transport_from_env(data_dir: str | None = None):
    url = os.environ.get("TILETUM_SMTP_URL")
    if url:
        return SmtpTransport(url)
    return SinkTransport(Path(data_dir or os.environ.get("TILETUM_DATA_DIR", "var")) / "mail")


class Outbox:
    """The outbox over ``redis_client``, delivering through ``transport``.

    ``clock``: the time of attempts (the shared test clock by default, application/clock.py);
    ``background``: deliver the email just enqueued in a background thread, so the caller (the
    SMTP listener answering its client) does not wait for the SMTP server; the sweep makes good
    what a dying process did not send. ``lease``, ``give_up_hours``: ``TILETUM_MAIL_LEASE_SECONDS``
    (120) and ``TILETUM_MAIL_GIVE_UP_HOURS`` (48)."""

    def __init__(self, redis_client, transport, clock=None, background: bool = False,
                 lease: float | None = None, give_up_hours: float | None = None):
        self.r = redis_client
        self.transport = transport
        self.clock = clock or make_clock(redis_client)
        self.lease = int(lease if lease is not None else _env_float("TILETUM_MAIL_LEASE_SECONDS", 120))
        self.give_up = 3600 * (give_up_hours if give_up_hours is not None
                               else _env_float("TILETUM_MAIL_GIVE_UP_HOURS", 48))
        self._enqueue = redis_client.register_script(_ENQUEUE)
        self._done = redis_client.register_script(_DONE)
        self._claim = redis_client.register_script(_CLAIM)
        self._release = redis_client.register_script(_RELEASE)
        self._lock = threading.Lock()  # one SMTP conversation at a time on the kept-open connection
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="outbox") if background else None

    def already_sent(self, key: str) -> bool:
        """Whether an email was queued under ``key`` (sent, waiting, or given up)."""
        return bool(self.r.exists(f"mail:sent:{key}"))

    def enqueue(self, key: str, message: EmailMessage, deliver: bool = True) -> bool:
        """Queue ``message`` under the once-key ``key`` unless an email was queued under it
        already; True if it is queued now. Then (``deliver``) try to send it at once: a failure
        is not raised, the sweep tries again."""
        if "Message-ID" not in message:
            message["Message-ID"] = message_id_for(key, message)
        now = self.clock()
        item = {"raw": base64.b64encode(serialize(message)).decode("ascii"), "to": str(message.get("To") or ""),
                "subject": str(message.get("Subject") or ""), "queued": now, "attempts": 0}
        if not self._enqueue(keys=[f"mail:sent:{key}", OUTBOX, DUE],
                             args=[key, json.dumps(item), now, SENT_TTL]):
            return False
        if deliver:
            if self._pool is not None:
                self._pool.submit(self._deliver_logged, key)
            else:
                self._deliver_logged(key)
        return True

    def _deliver_logged(self, key: str) -> str:
        try:
            return self.deliver(key)
        except Exception:  # Redis gone: the email stays queued for the sweep
            log.exception("outbox: delivering %s", key)
            return "error"

    def deliver(self, key: str) -> str:
        """Try to send the email queued under ``key``: ``sent``, ``retry`` (a later attempt is
        set), ``undeliverable``, ``busy`` (another process holds its claim) or ``gone`` (not
        queued, e.g. already sent)."""
        token = uuid.uuid4().hex
        claim = CLAIM + key
        now = self.clock()
        if not self._claim(keys=[claim], args=[token, now, now + self.lease, 2 * self.lease + 60]):
            return "busy"
        try:
            raw = self.r.hget(OUTBOX, key)
            if raw is None:
                return "gone"
            # if this process dies inside SMTP, the email is due again once the lease is over
            self.r.zadd(DUE, {key: now + self.lease})
            item = json.loads(raw)
            message = email.message_from_bytes(base64.b64decode(item["raw"]), policy=email.policy.default)
            try:
                with self._lock:
                    self.transport.send(message)
            except Exception as e:
                return self._failed(key, item, e)
            self._done(keys=[f"mail:sent:{key}", OUTBOX, DUE], args=[key, "sent", SENT_TTL])
            return "sent"
        finally:
            self._release(keys=[claim], args=[token])

    def _failed(self, key: str, item: dict, error: Exception) -> str:
        now = self.clock()
        item["attempts"] = int(item.get("attempts", 0)) + 1
        item["error"] = repr(error)[:300]
        self.r.lpush(FAILED, json.dumps({"key": key, "at": now, "error": item["error"], "to": item["to"],
                                         "subject": item["subject"], "attempt": item["attempts"]}))
        self.r.ltrim(FAILED, 0, 9999)
        if now - float(item["queued"]) >= self.give_up:
            self._done(keys=[f"mail:sent:{key}", OUTBOX, DUE], args=[key, "undeliverable", SENT_TTL])
            for _, addr in email.utils.getaddresses([item["to"]]):
                if addr:
                    record_undeliverable(self.r, addr, {"subject": item["subject"], "queued": item["queued"],
                                                        "given_up": now, "reason": item["error"]})
            log.error("outbox: undeliverable, given up after %.1f hours and %d attempts: %s to %s (%s): %s",
                      (now - float(item["queued"])) / 3600, item["attempts"], key, item["to"],
                      item["subject"], item["error"])
            return "undeliverable"
        delay = min(BACKOFF_CAP, BACKOFF_FIRST * 2 ** (item["attempts"] - 1)) * random.uniform(0.75, 1.25)
        pipe = self.r.pipeline()
        pipe.hset(OUTBOX, key, json.dumps(item))
        pipe.zadd(DUE, {key: now + delay})
        pipe.execute()
        log.warning("outbox: %s to %s not sent (attempt %d, next in %.0f s): %s", key, item["to"],
                    item["attempts"], delay, item["error"])
        return "retry"

    def deliver_due(self, limit: int = 200) -> int:
        """Send the emails whose next attempt is due (including those a dead process had
        claimed, once their lease is over); returns how many were sent. A batch stops at the
        first failure to reach the server: the rest wait for the next sweep."""
        sent = 0
        for raw_key in self.r.zrangebyscore(DUE, "-inf", self.clock(), start=0, num=limit):
            outcome = self.deliver(raw_key.decode())
            if outcome == "sent":
                sent += 1
            elif outcome in ("retry", "undeliverable") and self._unreachable():
                break
        return sent

    def _unreachable(self) -> bool:
        """Whether the last failure was the server not answering at all (no connection kept)."""
        return getattr(self.transport, "_smtp", True) is None

    def pending(self) -> int:
        """How many emails are queued and not yet accepted."""
        return int(self.r.zcard(DUE))
