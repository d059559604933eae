"""Every email the service sends goes through one outbox in Redis (docs/pbem.md, "Delivery
guarantees"): written durably before anything is sent, removed only after the SMTP server
accepted it.

The outbox is split into ``SHARDS`` shards so that it runs on Redis Cluster and no key is a hot
spot: the email queued under the once-key ``key`` lives in shard ``crc32(key) % SHARDS``, whose
keys all carry the hash tag ``{o<n>}`` (one slot): ``mail:{o<n>}:sent:<key>`` (the once-key:
``queued``, ``sent`` or ``undeliverable``), ``mail:{o<n>}:outbox`` (hash: key -> the queued
email), ``mail:{o<n>}:due`` (zset: key -> its next attempt) and ``mail:{o<n>}:claim:<key>`` (the
delivering process's lease). Every Lua script touches the keys of one shard only.

``Outbox.enqueue(key, message)`` records the once-key as ``queued`` (never twice: a task that is
retried or runs twice queues one email) and stores the message and its next attempt, in one
script; then it tries to deliver at once. ``deliver(key)`` claims the email with a lease (a lease
that is over is taken over) and reads it in one script, sends it, and on acceptance marks the key
``sent``, drops the stored message and releases the claim in one script; on failure it sets the
next attempt (exponential backoff with jitter, at most 30 minutes apart). ``deliver_due()`` (the
beat task ``workers.sweep_outbox``) sends what is due in every shard, and what a dead worker had
claimed once its lease is over. An email still not accepted after ``TABLEPOST_MAIL_GIVE_UP_HOURS``
(48) is undeliverable: the key says so, the address's dashboard shows it and the log says so at
ERROR.

Each email keeps one Message-ID (derived from its once-key when it has none), on every resend:
SMTP cannot say whether an email whose connection died after DATA was accepted, so delivery is
at least once, and a second copy after such an unknown outcome carries the same Message-ID.

The transports (the SMTP one keeps its connection open across emails) and the serializer of the
stored bytes are in mail/transports.py.

An SMTP outage is visible on ``GET /health`` (``smtp_state``): a failed attempt that says the
server cannot take mail (unreachable, refusing the connection, the login or the sender, a
temporary error; not a recipient refused or content refused for good, which is that email's own
problem) records when the run of failures began in ``mail:smtp:failing``, and an accepted email
deletes it (each process at most every ``SMTP_OK_EVERY`` seconds while it saw no failure, so a
healthy outbox pays no extra round trip per email). SMTP is ``failing`` while that key is older
than ``TABLEPOST_HEALTH_SMTP_SECONDS`` (300) and emails are waiting in the outbox.
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
import zlib
from concurrent.futures import ThreadPoolExecutor
from email.message import EmailMessage

from application.clock import make_clock
from application.dashboard import record_undeliverable

from .compose import message_id
from .signing import Signer
from .transports import env_float, envelope, serialize

log = logging.getLogger("tablepost.outbox")
FAILED = "mail:failed"         # list: every failed attempt, for the operator (newest first, 10000 kept)
SHARDS = 16                    # fixed: a key's shard must never change while its email may be queued
SENT_TTL = 90 * 24 * 3600
BACKOFF_FIRST, BACKOFF_CAP = 30.0, 1800.0
SMTP_FAILING = "mail:smtp:failing"  # when the current run of failed attempts began (real time)
SMTP_OK_EVERY = 10.0                 # a process that saw no failure clears it at most this often


def shard_of(key: str) -> int:
    """The shard of the email queued under ``key``: a stable hash, the same in every process."""
    return zlib.crc32(key.encode("utf-8")) % SHARDS


def shard_keys(shard: int) -> tuple[str, str]:
    """The shard's hash of queued emails and its due zset."""
    return f"mail:{{o{shard}}}:outbox", f"mail:{{o{shard}}}:due"


def sent_key(key: str) -> str:
    return f"mail:{{o{shard_of(key)}}}:sent:{key}"


def claim_key(key: str) -> str:
    return f"mail:{{o{shard_of(key)}}}:claim:{key}"


def script_keys(key: str) -> dict[str, list[str]]:
    """The keys each script is given for the email ``key`` (all in the shard's slot)."""
    outbox, due = shard_keys(shard_of(key))
    return {"enqueue": [sent_key(key), outbox, due], "claim": [claim_key(key), outbox, due],
            "done": [sent_key(key), outbox, due, claim_key(key)], "retry": [outbox, due, claim_key(key)]}


# KEYS: sent, outbox, due
_ENQUEUE = """
if redis.call('SET', KEYS[1], 'queued', 'NX', 'EX', ARGV[4]) then
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
  redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
  return 1
end
return 0
"""
# KEYS: claim, outbox, due. A claim is "<token>|<lease end>" on the outbox's clock; a lease that
# is over is taken over. Returns the stored email (and makes it due again when the lease is
# over, should this process die inside SMTP), 0 when another process holds it, '' when gone;
# with ARGV[6] '1' (the caller holds the email it has just queued) 1 instead of the email.
_CLAIM = """
local v = redis.call('GET', KEYS[1])
if v then
  local sep = string.find(v, '|', 1, true)
  if sep and tonumber(string.sub(v, sep + 1)) > tonumber(ARGV[2]) then return 0 end
end
local item = 1
if ARGV[6] == '1' then
  if redis.call('HEXISTS', KEYS[2], ARGV[5]) == 0 then return '' end
else
  item = redis.call('HGET', KEYS[2], ARGV[5])
  if not item then return '' end
end
redis.call('SET', KEYS[1], ARGV[1] .. '|' .. ARGV[3], 'EX', ARGV[4])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[5])
return item
"""
# KEYS: sent, outbox, due, claim: the email is over (sent or undeliverable); the claim is released
_DONE = """
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
local v = redis.call('GET', KEYS[4])
if v and string.sub(v, 1, string.len(ARGV[4]) + 1) == ARGV[4] .. '|' then redis.call('DEL', KEYS[4]) end
return 1
"""
# KEYS: outbox, due, claim: a failed attempt: the email and its next attempt; the claim is released
_RETRY = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
end
local v = redis.call('GET', KEYS[3])
if v and string.sub(v, 1, string.len(ARGV[4]) + 1) == ARGV[4] .. '|' then redis.call('DEL', KEYS[3]) end
return 1
"""


def message_bytes(item: dict) -> bytes:
    """The bytes of a stored email: ``bytes`` (each byte a character, Latin-1; a quarter of the CPU of
    base64 in JSON, 0.6 ms a turn email), or ``raw`` (base64) as queued before issue 40."""
    if "bytes" in item:
        return item["bytes"].encode("latin-1")
    return base64.b64decode(item["raw"])


def outage(error: Exception) -> bool:
    """Whether a failed attempt says the SMTP server cannot take mail now, rather than refusing
    this one email: its recipients, or its content for good (a 5xx answer to DATA)."""
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        return False
    return not (isinstance(error, smtplib.SMTPDataError) and error.smtp_code >= 500)


def pending_count(r) -> int:
    """How many emails are queued and not yet accepted (every shard)."""
    pipe = r.pipeline(transaction=False)
    for n in range(SHARDS):
        pipe.zcard(shard_keys(n)[1])
    return sum(pipe.execute())


def smtp_state(r, after: float, now: float | None = None) -> str:
    """``failing`` when delivery attempts have failed for want of the SMTP server for ``after``
    seconds or more (no email accepted since) and emails are waiting for it; else ``ok``."""
    since = r.get(SMTP_FAILING)
    if since is None:
        return "ok"
    try:
        failing_for = (time.time() if now is None else now) - float(since)
    except ValueError:
        return "ok"
    if failing_for < after:
        return "ok"
    return "failing" if pending_count(r) else "ok"


def message_id_for(key: str, message: EmailMessage) -> str:
    """The stable Message-ID of the email queued under ``key`` (compose.message_id), in the From
    address's domain (else ``TABLEPOST_MAIL_DOMAIN``)."""
    addr = email.utils.parseaddr(str(message.get("From") or ""))[1]
    domain = (addr.rsplit("@", 1)[1] if "@" in addr
              else os.environ.get("TABLEPOST_MAIL_DOMAIN", "pbem.localhost"))
    return message_id(key, domain)


class Outbox:
    """The outbox over ``redis_client``, delivering through ``transport``.

    ``clock``: the time of attempts (the shared test clock by default, application/clock.py);
    ``background``: deliver the email just enqueued in a background thread, so the caller (the
    SMTP listener answering its client) does not wait for the SMTP server; the sweep makes good
    what a dying process did not send. ``lease``, ``give_up_hours``: ``TABLEPOST_MAIL_LEASE_SECONDS``
    (120) and ``TABLEPOST_MAIL_GIVE_UP_HOURS`` (48). ``signer``: signs each email with DKIM when it is
    queued (mail/signing.py; by default from ``TABLEPOST_DKIM_KEY_FILE``, none when unset)."""

    def __init__(self, redis_client, transport, clock=None, background: bool = False,
                 lease: float | None = None, give_up_hours: float | None = None, signer="env"):
        self.r = redis_client
        self.signer: Signer | None = Signer.from_env() if signer == "env" else signer
        self.transport = transport
        self.clock = clock or make_clock(redis_client)
        self.lease = int(lease if lease is not None else env_float("TABLEPOST_MAIL_LEASE_SECONDS", 120))
        self.give_up = 3600 * (give_up_hours if give_up_hours is not None
                               else env_float("TABLEPOST_MAIL_GIVE_UP_HOURS", 48))
        self._enqueue = redis_client.register_script(_ENQUEUE)
        self._claim = redis_client.register_script(_CLAIM)
        self._done = redis_client.register_script(_DONE)
        self._retry = redis_client.register_script(_RETRY)
        self._lock = threading.Lock()  # one SMTP conversation at a time on the kept-open connection
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="outbox") if background else None
        self._next_shard = 0
        self._smtp_cleared: float | None = None  # when this process last cleared SMTP_FAILING (None: it must)

    # --- state ---------------------------------------------------------------------------------
    def status(self, key: str) -> str | None:
        """``queued``, ``sent`` or ``undeliverable`` for an email queued under ``key``, else None."""
        value = self.r.get(sent_key(key))
        return value.decode() if value is not None else None

    def already_sent(self, key: str) -> bool:
        """Whether an email was queued under ``key`` (sent, waiting, or given up)."""
        return self.status(key) is not None

    def stored(self, key: str) -> dict | None:
        """The queued email under ``key`` as stored (its bytes: :func:`message_bytes`; attempts,
        times), or None."""
        raw = self.r.hget(shard_keys(shard_of(key))[0], key)
        return json.loads(raw) if raw is not None else None

    def pending(self) -> int:
        """How many emails are queued and not yet accepted (every shard)."""
        return pending_count(self.r)

    # --- queue and send ------------------------------------------------------------------------
    def enqueue(self, key: str, message: EmailMessage, deliver: bool = True) -> bool:
        """Queue ``message`` under the once-key ``key`` unless an email was queued under it
        already; True if it is queued now. Then (``deliver``) try to send it at once: a failure
        is not raised, the sweep tries again."""
        if "Message-ID" not in message:
            message["Message-ID"] = message_id_for(key, message)
        now = self.clock()
        data = serialize(message)
        if self.signer is not None:
            data = self.signer.sign(data)   # once: every attempt sends the bytes that were signed
        item = {"bytes": data.decode("latin-1"),   # each byte one character: JSON's own escapes only
                "to": str(message.get("To") or ""), "subject": str(message.get("Subject") or ""),
                "queued": now, "attempts": 0}
        env = envelope(message)
        if env is not None:
            item["env"] = [env[0], env[1]]
        if not self._enqueue(keys=script_keys(key)["enqueue"], args=[key, json.dumps(item), now, SENT_TTL]):
            return False
        if deliver:
            # its first attempt sends this item, not a copy read back from Redis
            if self._pool is not None:
                self._pool.submit(self._deliver_logged, key, item)
            else:
                self._deliver_logged(key, item)
        return True

    def _deliver_logged(self, key: str, held: dict | None = None) -> str:
        try:
            return self.deliver(key, held)
        except Exception:  # Redis gone: the email stays queued for the sweep
            log.exception("outbox: delivering %s", key)
            return "error"

    def deliver(self, key: str, held: dict | None = None) -> str:
        """Try to send the email queued under ``key``: ``sent``, ``retry`` (a later attempt is
        set), ``undeliverable``, ``busy`` (another process holds its claim) or ``gone`` (not
        queued, e.g. already sent). ``held``: the email's item as this process has just queued it,
        so that the claim need not send 80 KB back; an attempt another process
        made in between is then not counted in the next one's backoff, which is all it changes
        (the claim still guards against sending twice)."""
        token = uuid.uuid4().hex
        keys = script_keys(key)
        now = self.clock()
        # claimed and read in one step; if this process dies inside SMTP, the email is due again
        # once the lease is over
        raw = self._claim(keys=keys["claim"], args=[token, now, now + self.lease, 2 * self.lease + 60, key,
                                                    "1" if held is not None else "0"])
        if raw == 0:
            return "busy"
        if not raw:
            return "gone"
        item = held if held is not None else json.loads(raw)
        try:
            if not self._send_holding(key, token, item, now):
                return "busy"
        except Exception as e:
            return self._failed(key, item, e, token)
        self._done(keys=keys["done"], args=[key, "sent", SENT_TTL, token])
        self._smtp_works()
        return "sent"

    def _send_holding(self, key: str, token: str, item: dict, claimed_at: float) -> bool:
        """Send ``item`` on the process's one connection; False (not sent) when the wait for the
        connection (another send on it), or any pause since the claim at ``claimed_at``, outlasted
        the lease and another sender has taken the email over, which must not go out twice. Only
        after a wait, or once the lease is over, is the claim read again."""
        waited = not self._lock.acquire(blocking=False)
        if waited:
            self._lock.acquire()
        try:
            # a thread paused between its claim and the lock (a busy machine) may find the lock free
            # and still be past its lease: the clock says so, not only the wait
            if waited or self.clock() - claimed_at >= self.lease:
                v = self.r.get(claim_key(key))
                if v is None or not v.decode().startswith(token + "|"):
                    return False
            self._send(item)
            return True
        finally:
            self._lock.release()

    def _smtp_works(self) -> None:
        """An email was accepted: the SMTP server is not failing (see SMTP_FAILING)."""
        now = time.monotonic()
        if self._smtp_cleared is None or now - self._smtp_cleared >= SMTP_OK_EVERY:
            self.r.delete(SMTP_FAILING)
            self._smtp_cleared = now

    def _send(self, item: dict) -> None:
        data = message_bytes(item)
        send_raw = getattr(self.transport, "send_raw", None)
        if send_raw is not None and item.get("env"):
            send_raw(item["env"][0], item["env"][1], data)
        else:
            self.transport.send(email.message_from_bytes(data, policy=email.policy.default))

    def _failed(self, key: str, item: dict, error: Exception, token: str) -> str:
        keys = script_keys(key)
        now = self.clock()
        item["attempts"] = int(item.get("attempts", 0)) + 1
        item["error"] = repr(error)[:300]
        pipe = self.r.pipeline(transaction=False)
        pipe.lpush(FAILED, json.dumps({"key": key, "at": now, "error": item["error"], "to": item["to"],
                                       "subject": item["subject"], "attempt": item["attempts"]}))
        pipe.ltrim(FAILED, 0, 9999)
        if outage(error):
            pipe.set(SMTP_FAILING, time.time(), nx=True)
            self._smtp_cleared = None  # the next accepted email clears it at once
        pipe.execute()
        if now - float(item["queued"]) >= self.give_up:
            self._done(keys=keys["done"], args=[key, "undeliverable", SENT_TTL, token])
            for _, addr in email.utils.getaddresses([item["to"]]):
                if addr:
                    record_undeliverable(self.r, addr, {"subject": item["subject"], "queued": item["queued"],
                                                        "given_up": now, "reason": item["error"]})
            log.error("outbox: undeliverable, given up after %.1f hours and %d attempts: %s to %s (%s): %s",
                      (now - float(item["queued"])) / 3600, item["attempts"], key, item["to"],
                      item["subject"], item["error"])
            return "undeliverable"
        delay = min(BACKOFF_CAP, BACKOFF_FIRST * 2 ** (item["attempts"] - 1)) * random.uniform(0.75, 1.25)
        self._retry(keys=keys["retry"], args=[key, json.dumps(item), now + delay, token])
        log.warning("outbox: %s to %s not sent (attempt %d, next in %.0f s): %s", key, item["to"],
                    item["attempts"], delay, item["error"])
        return "retry"

    def close(self) -> None:
        """Wait for the background sends, then close the SMTP connection."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
        close = getattr(self.transport, "close", None)
        if close is not None:
            with self._lock:
                close()

    # --- the sweep -----------------------------------------------------------------------------
    def deliver_due(self, limit: int = 200) -> int:
        """Send the emails whose next attempt is due in every shard (including those a dead
        process had claimed, once their lease is over), over the one kept-open connection;
        returns how many were sent. A sweep stops at the first failure to reach the server at
        all: the rest wait for the next sweep. The shards are visited from a rotating start, so a
        full one does not starve the others."""
        now = self.clock()
        pipe = self.r.pipeline(transaction=False)
        order = [(self._next_shard + i) % SHARDS for i in range(SHARDS)]
        self._next_shard = (self._next_shard + 1) % SHARDS
        for n in order:
            pipe.zrangebyscore(shard_keys(n)[1], "-inf", now, start=0, num=limit)
        sent = 0
        budget = limit
        for due in pipe.execute():
            for raw_key in due:
                if budget <= 0:
                    return sent
                budget -= 1
                outcome = self.deliver(raw_key.decode())
                if outcome == "sent":
                    sent += 1
                elif outcome in ("retry", "undeliverable") and self._unreachable():
                    return sent
        return sent

    def _unreachable(self) -> bool:
        """Whether the last failure was the server not answering at all (no connection made)."""
        return bool(getattr(self.transport, "unreachable", True))


def forget_address(r, address: str) -> int:
    """Delete every trace of ``address`` in the outbox (the deletion of an account,
    application/accounts.py): emails still queued to it (with their due entries and claims), the
    once-keys that name it (a digest's, a tournament welcome's) and the failed attempts logged for
    it. Returns how many entries went. Reads every shard: an account is deleted rarely."""
    address = address.strip().lower()
    gone = 0
    for shard in range(SHARDS):
        outbox, due = shard_keys(shard)
        for field, raw in list(r.hscan_iter(outbox)):
            try:
                to = json.loads(raw).get("to") or ""
            except ValueError:
                continue
            if address in to.lower():
                key = field.decode()
                pipe = r.pipeline(transaction=True)   # one slot: the shard's hash tag
                pipe.hdel(outbox, field)
                pipe.zrem(due, field)
                pipe.delete(claim_key(key))
                pipe.execute()
                gone += 1
    # a glob that matches the address in any case (a once-key keeps it as the game's seat had it)
    pattern = "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else "\\" + c if c in "\\*?[]" else c
                      for c in address)
    for k in list(r.scan_iter(match=f"mail:*{pattern}*", count=1000)):
        gone += r.delete(k)
    for raw in r.lrange(FAILED, 0, -1):
        if address in raw.decode("utf-8", "replace").lower():
            gone += r.lrem(FAILED, 0, raw)
    return gone
