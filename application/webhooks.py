"""Webhooks (docs/bots.md, "Webhooks"): a seat or a bot account has its game events POSTed to a URL.

A subscription belongs to a seat of one game (its seat token, with ``game``) or to a bot account
(its token; then it covers the bot's seat in every game). ``events`` picks what is sent:
``your-turn`` (the owner's seat became the one to act), ``game-over``, or ``all`` (every saved
batch of events). Each delivery is a POST of JSON signed with the subscription's secret:
``X-Tiletum-Signature: t=<unix time>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>``.

Keys (each subscription's keys share the hash tag ``{<sid>}``; a game's lookup is per game):

| key | type | holds |
|---|---|---|
| ``wh:{<sid>}`` | hash | url, events, secret, owner, game/seat or bot, active, failures, ``cursor:<game>`` |
| ``wh:{<sid>}:log`` | list | the last 50 delivery attempts (JSON), newest first |
| ``g:{<game>}:hooks`` | set | ``s:<sid>`` (a seat's subscription), ``b:<bot id>`` (a bot seat of the game) |
| ``bot:{<bot id>}:hooks`` | set | the bot account's subscriptions |

After a save, the Dispatcher sends ``workers.deliver_webhooks(game, version)`` when the game's
``hooks`` set is not empty; that task sends ``workers.deliver_webhook(sid, game, version)`` for
each subscription, which calls :meth:`Webhooks.deliver`: it re-reads everything, sends at most
once per (subscription, version) -- the events after the subscription's cursor in that game, at
most ``PAGE`` of them (a delivery with ``"more": true`` is followed at once by the next page) --
and is retried with backoff on failure. After ``max_failures`` failed attempts in a row the
subscription is switched off and its owner emailed (by the worker).

URLs: ``https://`` to a public address, or ``http://`` / ``https://`` to loopback (tests, a bot
on the same host). Private, link-local, multicast and reserved addresses are refused, when the
subscription is made (an address literal) and before each delivery (every address the name
resolves to), so a webhook cannot reach into the service's own network.
"""
from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import secrets
import socket
import time
import urllib.parse

import requests

from . import errors
from .bots import bot_key, looks_like_bot_token
from .store import key as game_key

EVENTS = ("your-turn", "game-over", "all")
LOG_SIZE = 50
MAX_PER_OWNER = 5
TIMEOUT = 5.0
PAGE = 100   # events per delivery: a subscription far behind gets its events over several deliveries


def hook_key(sid: str, what: str = "") -> str:
    return f"wh:{{{sid}}}" + (f":{what}" if what else "")


def bot_hooks_key(bot_id: str) -> str:
    return bot_key(bot_id) + ":hooks"


def signature(secret: str, body: bytes, t: int) -> str:
    mac = hmac.new(secret.encode(), f"{t}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={t},v1={mac}"


def verify(secret: str, body: bytes, header: str, tolerance: float = 300, now: float | None = None) -> bool:
    """What a receiver does: the MAC matches and the timestamp is recent (no replay)."""
    try:
        parts = dict(p.split("=", 1) for p in header.split(","))
        t = int(parts["t"])
    except (ValueError, KeyError):
        return False
    if abs((now if now is not None else time.time()) - t) > tolerance:
        return False
    return hmac.compare_digest(signature(secret, body, t), header)


def _refused_address(ip: str) -> bool:
    a = ipaddress.ip_address(ip)
    if a.is_loopback:
        return False
    return a.is_private or a.is_link_local or a.is_multicast or a.is_reserved or a.is_unspecified


def check_url(url: str) -> str:
    """The URL if a webhook may be sent there; else a 422 ``bad-webhook-url`` saying why."""
    def bad(why: str):
        return errors.invalid("bad-webhook-url", why)
    if not isinstance(url, str) or len(url) > 2000:
        raise bad("the url must be a string of at most 2000 characters")
    p = urllib.parse.urlsplit(url)
    host = (p.hostname or "").lower()
    if not host or p.username or p.password:
        raise bad("the url needs a host and no user name or password")
    try:
        literal = ipaddress.ip_address(host)
    except ValueError:
        literal = None
    loopback = host == "localhost" or (literal is not None and literal.is_loopback)
    if p.scheme == "http" and not loopback:
        raise bad("webhooks go to https:// URLs (http:// only to loopback: 127.0.0.1, ::1, localhost)")
    if p.scheme not in ("http", "https"):
        raise bad("webhooks go to https:// URLs")
    if literal is not None and _refused_address(host):
        raise bad("webhooks may not go to private, link-local or reserved addresses")
    return url


def resolved_ok(url: str) -> bool:
    """Whether every address the URL's host resolves to may be reached (checked before sending)."""
    p = urllib.parse.urlsplit(url)
    try:
        infos = socket.getaddrinfo(p.hostname, p.port or (443 if p.scheme == "https" else 80), type=socket.SOCK_STREAM)
    except OSError:
        return False
    addrs = {i[4][0] for i in infos}
    return bool(addrs) and not any(_refused_address(a.split("%")[0]) for a in addrs)


class Webhooks:
    def __init__(self, games, max_failures: int = 5, session: requests.Session | None = None, page: int = PAGE):
        self.games = games  # GameService
        self.page = page    # events per delivery
        self.r = games.store.r
        self.max_failures = max_failures
        self.http = session or requests.Session()

    # --- subscriptions ---------------------------------------------------------------------
    def _owner(self, token: str | None, game_id: str | None) -> dict:
        if token is None:
            raise errors.unauthorized("send a seat token or a bot token as 'Authorization: Bearer <token>'")
        if looks_like_bot_token(token):
            bot_id = self.games.bots.authenticate(token)
            if bot_id is None:
                raise errors.unauthorized("this bot token is not valid")
            if game_id is not None:
                raise errors.invalid("game-not-for-bots", "a bot's webhook covers all its games: send no 'game'")
            return {"owner": f"bot:{bot_id}", "bot": bot_id}
        if game_id is None:
            raise errors.invalid("game-required", "with a seat token, name the seat's game in 'game'")
        meta = self.games.meta(game_id)
        seat = self.games.seat_of(meta, token, game_id)
        return {"owner": f"seat:{game_id}:{seat}", "game": game_id, "seat": seat}

    def create(self, token: str | None, url: str, events: list[str], game_id: str | None = None) -> dict:
        owner = self._owner(token, game_id)
        check_url(url)
        events = sorted(set(events))
        if not events or any(e not in EVENTS for e in events):
            raise errors.invalid("bad-webhook-events", f"events: one or more of {', '.join(EVENTS)}")
        owned = (self.r.smembers(bot_hooks_key(owner["bot"])) if "bot" in owner else
                 [m for m in self.r.smembers(game_key(owner["game"], "hooks")) if m.startswith(b"s:")])
        mine = [m for m in owned if self.r.hget(hook_key(m.decode().removeprefix("s:")), "owner")
                == owner["owner"].encode()]
        if len(mine) >= MAX_PER_OWNER:
            raise errors.invalid("too-many-webhooks", f"at most {MAX_PER_OWNER} webhooks per seat or bot")
        sid, secret = secrets.token_hex(8), "whsec_" + secrets.token_urlsafe(24)
        fields = {"url": url, "events": ",".join(events), "secret": secret, "owner": owner["owner"],
                  "active": 1, "failures": 0, "created": int(time.time())}
        if "bot" in owner:
            fields["bot"] = owner["bot"]
        else:
            fields.update(game=owner["game"], seat=owner["seat"])
        self.r.hset(hook_key(sid), mapping=fields)
        if "bot" in owner:
            self.r.sadd(bot_hooks_key(owner["bot"]), sid)
        else:
            self.r.sadd(game_key(owner["game"], "hooks"), f"s:{sid}")
        return {**self._public(sid, fields), "secret": secret}

    def _load(self, sid: str) -> dict | None:
        if not isinstance(sid, str) or len(sid) != 16:
            return None
        raw = self.r.hgetall(hook_key(sid))
        return {k.decode(): v.decode() for k, v in raw.items()} if raw else None

    def _public(self, sid: str, h: dict) -> dict:
        return {"id": sid, "url": h["url"], "events": str(h["events"]).split(","), "game": h.get("game"),
                "seat": int(h["seat"]) if h.get("seat") is not None else None, "bot": h.get("bot"),
                "active": str(h.get("active")) == "1", "failures": int(h.get("failures", 0))}

    def _mine(self, sid: str, token: str | None) -> dict:
        h = self._load(sid)
        if h is None:
            raise errors.not_found("no such webhook", "webhook-not-found")
        owner = self._owner(token, h.get("game"))
        if owner["owner"] != h["owner"]:
            raise errors.not_found("no such webhook", "webhook-not-found")
        return h

    def show(self, sid: str, token: str | None) -> dict:
        h = self._mine(sid, token)
        log = [json.loads(x) for x in self.r.lrange(hook_key(sid, "log"), 0, LOG_SIZE - 1)]
        return {**self._public(sid, h), "deliveries": log}

    def delete(self, sid: str, token: str | None) -> None:
        h = self._mine(sid, token)
        self.r.delete(hook_key(sid), hook_key(sid, "log"))
        if h.get("bot"):
            self.r.srem(bot_hooks_key(h["bot"]), sid)
        else:
            self.r.srem(game_key(h["game"], "hooks"), f"s:{sid}")

    def show_url(self, sid: str) -> str | None:
        h = self._load(sid)
        return h["url"] if h else None

    def owner_email(self, sid: str) -> str | None:
        h = self._load(sid)
        if h is None:
            return None
        if h.get("bot"):
            return self.games.bots.owner(h["bot"])
        return self.games.meta(h["game"])["seats"][int(h["seat"])].get("email")

    # --- after a save ------------------------------------------------------------------------
    def subscriptions_of(self, game_id: str) -> list[str]:
        """Every subscription that may want the events of ``game_id``."""
        out = []
        for m in sorted(self.r.smembers(game_key(game_id, "hooks"))):
            kind, _, ref = m.decode().partition(":")
            if kind == "s":
                out.append(ref)
            else:
                out.extend(sorted(s.decode() for s in self.r.smembers(bot_hooks_key(ref))))
        return out

    def deliver(self, sid: str, game_id: str, version: int, attempt: int = 0) -> str:
        """Send subscription ``sid`` what it wants of ``game_id`` at ``version`` (re-read): "sent",
        "more" (a page was sent and more events up to ``version`` wait: deliver again), "skipped"
        (gone, off, already sent, nothing it wants), "retry" or "off" (just switched off)."""
        h = self._load(sid)
        if h is None or h.get("active") != "1":
            return "skipped"
        cursor = int(h.get(f"cursor:{game_id}", 0))
        if version <= cursor:
            return "skipped"
        meta = self.games.meta(game_id)
        seat = int(h["seat"]) if h.get("seat") is not None else next(
            (i for i, s in enumerate(meta["seats"]) if s["kind"] == "bot" and s.get("bot") == h.get("bot")), None)
        if seat is None or (h.get("game") not in (None, game_id)):
            return "skipped"
        if self.games.store.version(game_id) < version:
            return "skipped"
        _, state = self.games.state_at(game_id, version)
        mover = next(iter(self.games.store.events(game_id, after=version - 1, upto=version)), {}).get("seat")
        over = state.phase == "over"
        your_turn = state.actor == seat and mover != seat
        wanted = set(h["events"].split(","))
        kind = "game-over" if over else "your-turn" if your_turn else "events"
        if not ("all" in wanted or (over and "game-over" in wanted) or (your_turn and "your-turn" in wanted)):
            return "skipped"
        # A page of events per delivery (``page``): the first after the cursor; the next page is the
        # next delivery, sent at once when this one was accepted (``more``).
        events = [e for e in self.games.events(game_id, cursor, self.page)["events"] if e["version"] <= version]
        upto = events[-1]["version"] if events else version
        payload = {"type": kind, "subscription": sid, "game": game_id, "seat": seat, "version": version,
                   "status": "finished" if over else "active", "to_act": [] if state.actor is None else [state.actor],
                   "events": events, "more": upto < version}
        body = json.dumps(payload, separators=(",", ":")).encode()
        t = int(time.time())
        entry = {"at": t, "version": version, "type": kind, "attempt": attempt + 1}
        if not resolved_ok(h["url"]):
            entry.update(ok=False, error="the host resolves to a refused address (or not at all)")
        else:
            try:
                resp = self.http.post(h["url"], data=body, timeout=TIMEOUT, allow_redirects=False, headers={
                    "Content-Type": "application/json", "User-Agent": "tiletum-webhooks/1",
                    "X-Tiletum-Signature": signature(h["secret"], body, t), "X-Tiletum-Delivery": f"{sid}:{upto}"})
                entry.update(ok=200 <= resp.status_code < 300, status=resp.status_code)
            except requests.RequestException as e:
                entry.update(ok=False, error=type(e).__name__)
        pipe = self.r.pipeline(transaction=True)  # both keys carry the hash tag {sid}
        pipe.lpush(hook_key(sid, "log"), json.dumps(entry))
        pipe.ltrim(hook_key(sid, "log"), 0, LOG_SIZE - 1)
        if entry["ok"]:
            pipe.hset(hook_key(sid), mapping={f"cursor:{game_id}": upto, "failures": 0})
            pipe.execute()
            return "more" if upto < version else "sent"
        pipe.hincrby(hook_key(sid), "failures", 1)
        failures = pipe.execute()[-1]
        if failures >= self.max_failures:
            self.r.hset(hook_key(sid), "active", 0)
            return "off"
        return "retry"
