"""Webhooks (docs/bots.md, "Webhooks"): a seat or a bot account has its game events POSTed to a URL.

A subscription belongs to a seat of one game (its seat token, with ``game``) or to a bot account
(its token; then it covers the bot's seat in every game). ``events`` picks what is sent:
``your-turn`` (the owner's seat became the one to act), ``game-over``, or ``all`` (every saved
batch of events). Each delivery is a POST of JSON signed with the subscription's secret:
``X-Tablepost-Signature: t=<unix time>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>``. For one release
each delivery also carries the same values under the service's old names (``X-Tiletum-Signature``,
``X-Tiletum-Delivery``), for receivers that check those (docs/bots.md).

Keys (each subscription's keys share the hash tag ``{<sid>}``; a game's lookup is per game):

| key | type | holds |
|---|---|---|
| ``wh:{<sid>}`` | hash | url, events, secret, owner, game/seat or bot, active, failures, ``cursor:<game>`` |
| ``wh:{<sid>}:log`` | list | the last 50 delivery attempts (JSON), newest first |
| ``g:{<game>}:hooks`` | set | ``s:<sid>`` (a seat's subscription), ``b:<bot id>`` (a bot seat of the game) |
| ``bot:{<bot id>}:hooks`` | set | the bot account's subscriptions |
| ``g:{<game>}:hooks:<seat>`` | set | a seat's subscriptions (its cap) |

After a save, the Dispatcher sends ``workers.deliver_webhooks(game, version)`` when the game's
``hooks`` set is not empty; that task sends ``workers.deliver_webhook(sid, game, version)`` for
each subscription, which calls :meth:`Webhooks.deliver`: it re-reads everything, sends at most
once per (subscription, version) -- the events after the subscription's cursor in that game, at
most ``PAGE`` of them (a delivery with ``"more": true`` is followed at once by the next page) --
and is retried with backoff on failure. After ``max_failures`` failed attempts in a row the
subscription is switched off and its owner emailed (by the worker).

URLs (:func:`check_url`): ``https://`` to a host whose every address is public
(:func:`address_allowed`), read as the HTTP client reads it; loopback (also over ``http://``)
only where the operator allows it (``TABLEPOST_WEBHOOK_ALLOW_LOOPBACK``: tests, local development).
Checked when the subscription is made and again before each delivery, which then connects to the
address just checked (:func:`_pinned_session`), so a webhook cannot reach into the service's own
network, not even through a name re-pointed between the check and the connection.

At most ``MAX_PER_OWNER`` subscriptions per owner: the owner's set of subscription ids
(``bot:{<bot id>}:hooks``, or ``g:{<game>}:hooks:<seat>`` for a seat) is checked and added to in one
Lua script, so simultaneous registrations cannot pass the cap together.
"""
from __future__ import annotations

import builtins
import concurrent.futures
import hashlib
import hmac
import ipaddress
import json
import secrets
import socket
import time
import unicodedata
import urllib.parse
from typing import NamedTuple

import requests
import requests.adapters
import urllib3
import urllib3.connection
import urllib3.util

import games

from . import errors
from .bots import bot_key, looks_like_bot_token
from .dashboard import is_verified
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


def delivery_headers(secret: str, body: bytes, t: int, delivery: str) -> dict[str, str]:
    """A delivery's headers: its signature and id under the service's name, and for one release
    under its old name too (``X-Tiletum-*``, the same values), so that receivers move when they can."""
    sig = signature(secret, body, t)
    return {"Content-Type": "application/json", "User-Agent": "tablepost-webhooks/1",
            "X-Tablepost-Signature": sig, "X-Tablepost-Delivery": delivery,
            "X-Tiletum-Signature": sig, "X-Tiletum-Delivery": delivery}


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


# Python 3.11's is_global still calls these global; none is a public host on the Internet.
_NOT_PUBLIC = tuple(ipaddress.ip_network(n) for n in (
    "192.0.0.0/24",      # IETF protocol assignments (DS-Lite, NAT64 discovery, ...)
    "::/96",             # IPv4-compatible IPv6 (deprecated; ::a00:1 is 10.0.0.1)
    "64:ff9b:1::/48",    # local-use NAT64
    "fec0::/10",         # site-local (deprecated, still routed inside some networks)
))
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
NOT_PUBLIC = errors.N_("webhooks go to public addresses only: not private, shared, link-local, loopback, "
                       "multicast or reserved ones, nor an IPv6 address that embeds one")
RESOLVE_TIMEOUT = 3.0
_resolver = concurrent.futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="webhook-dns")


class Target(NamedTuple):
    """A checked webhook URL: the host and port the HTTP client will connect to, and every address
    that host resolved to (all of them allowed)."""
    url: str
    host: str
    port: int
    addresses: tuple[str, ...]


def _embedded_v4(a: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address leads to: IPv4-mapped, 6to4, Teredo (server and client)
    and NAT64 (the well-known prefix)."""
    out = [x for x in (a.ipv4_mapped, a.sixtofour) if x is not None]
    out.extend(a.teredo or ())
    if a in _NAT64:
        out.append(ipaddress.IPv4Address(int(a) & 0xFFFFFFFF))
    return out


def _loopback(a) -> bool:
    return a.is_loopback or (a.version == 6 and a.ipv4_mapped is not None and a.ipv4_mapped.is_loopback)


def address_allowed(ip: str, allow_loopback: bool = False) -> bool:
    """Whether a webhook may connect to ``ip``: a global unicast address (and so is every IPv4
    address it embeds), or loopback when the operator allows it (tests, local development)."""
    try:
        a = ipaddress.ip_address(ip.split("%", 1)[0])
    except ValueError:
        return False
    if allow_loopback and _loopback(a):
        return True
    if a.version == 6:
        embedded = _embedded_v4(a)
        if a.ipv4_mapped is not None or a in _NAT64:  # these are the IPv4 address (a DNS64 network's
            return address_allowed(str(embedded[-1]))    # public hosts), though Python calls them reserved
        if any(not address_allowed(str(e)) for e in embedded):
            return False
    if (not a.is_global or a.is_multicast or a.is_reserved or a.is_link_local or a.is_loopback
            or a.is_unspecified or a.is_private or (a.version == 6 and a.is_site_local)):
        return False
    return not any(a in n for n in _NOT_PUBLIC if n.version == a.version)


def system_resolve(host: str, port: int) -> list[str]:
    """Every address the OS resolver (getaddrinfo, as the HTTP client uses it) gives for ``host``."""
    return [str(i[4][0]) for i in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)]


def _resolve(resolve, host: str, port: int, timeout: float) -> list[str]:
    """``resolve(host, port)`` without waiting longer than ``timeout``: getaddrinfo has no timeout
    of its own, and a slow name server must not hold a request (or a worker) for half a minute."""
    future = _resolver.submit(resolve, host, port)
    try:
        return list(future.result(timeout=timeout))
    except concurrent.futures.TimeoutError:
        future.cancel()
        raise OSError(f"resolving {host} took longer than {timeout:g} s") from None


def check_url(url: str, allow_loopback: bool = False, resolve=system_resolve,
              timeout: float = RESOLVE_TIMEOUT) -> Target:
    """The :class:`Target` of ``url`` if a webhook may be sent there; else a 422 ``bad-webhook-url``
    saying why. The host is read the way the HTTP client (requests, urllib3) will read it -- IDNA,
    then the OS resolver -- and every address it resolves to must be allowed
    (:func:`address_allowed`). An address written in a form other than the canonical one
    (``10.1``, ``0x0a.0.0.1``, ``167772161``, ``012.0.0.1``, ``0``, full-width digits) is refused
    outright: the resolver would read it as an IPv4 address, and nobody writes a real URL so."""
    def bad(why: str):
        return errors.invalid("bad-webhook-url", why)
    if not isinstance(url, str) or len(url) > 2000:
        raise bad(errors.N_("the url must be a string of at most 2000 characters"))
    if any(unicodedata.category(c)[0] in "CZ" for c in url):
        raise bad(errors.N_("the url may not contain control characters, spaces or invisible characters"))
    try:
        p = urllib.parse.urlsplit(url)
        port = p.port
        raw_host = p.hostname
    except ValueError as e:  # a bracketed host that is no IPv6 address, a port that is no number
        raise bad(errors.said("not a valid url: {why}", why=str(e))) from None
    if p.scheme not in ("http", "https"):
        raise bad(errors.N_("webhooks go to https:// URLs"))
    if not raw_host or p.username is not None or p.password is not None:
        raise bad(errors.N_("the url needs a host and no user name or password"))
    if port is not None and not 1 <= port <= 65535:
        raise bad(errors.N_("the port must be between 1 and 65535"))
    port = port or (443 if p.scheme == "https" else 80)
    folded = unicodedata.normalize("NFKC", raw_host).lower().rstrip(".")
    try:
        ipaddress.ip_address(folded.split("%", 1)[0])
        literal = True
    except ValueError:
        literal = False
    if literal and not address_allowed(folded, allow_loopback):
        raise bad(NOT_PUBLIC)
    if not literal:
        try:
            socket.inet_aton(folded)
            raise bad(errors.N_("write an IPv4 address in dotted decimal (a.b.c.d), or use a host name"))
        except OSError:
            pass  # not an IPv4 address in any form: a name
    if folded != raw_host.lower().rstrip("."):
        raise bad(errors.N_("the host must be written in ASCII (IDNA, xn--...) without look-alike "
                            "characters"))
    try:
        prepared = requests.Request("POST", url).prepare()
        host = urllib3.util.parse_url(prepared.url or "").host or ""   # a prepared request has its URL
    except (requests.RequestException, ValueError) as e:
        raise bad(errors.said("not a url the service can send to: {why}", why=str(e))) from None
    host = host.strip("[]")
    if literal:
        addresses = [host]
    else:
        try:
            addresses = _resolve(resolve, host, port, timeout)
        except (OSError, UnicodeError):
            addresses = []
        if not addresses:
            raise bad(errors.said("the host {host} does not resolve", host=host))
    if not all(address_allowed(a, allow_loopback) for a in addresses):
        raise bad(NOT_PUBLIC)
    if p.scheme == "http" and not all(_loopback(ipaddress.ip_address(a.split("%", 1)[0])) for a in addresses):
        raise bad(errors.N_("webhooks go to https:// URLs (http:// only to loopback, where the operator "
                            "allows it)"))
    return Target(url, host, port, tuple(dict.fromkeys(addresses)))


def _pinned_session(address: str) -> requests.Session:
    """A requests session whose every connection goes to ``address``, whatever the URL's host
    resolves to by then (no DNS rebinding between the check and the connection). The Host header,
    TLS SNI and certificate check still use the URL's host name: urllib3 connects to its
    ``_dns_host``, which is all this changes. No proxy from the environment: a proxy would
    resolve the name again."""
    def pinned(base):
        class Pinned(base):
            def _new_conn(self):
                self._dns_host = address
                return super()._new_conn()
        return Pinned
    pools = {"http": type("PinnedPool", (urllib3.HTTPConnectionPool,),
                          {"ConnectionCls": pinned(urllib3.connection.HTTPConnection)}),
             "https": type("PinnedTLSPool", (urllib3.HTTPSConnectionPool,),
                           {"ConnectionCls": pinned(urllib3.connection.HTTPSConnection)})}
    session = requests.Session()
    session.trust_env = False
    for prefix in ("http://", "https://"):
        adapter = requests.adapters.HTTPAdapter(max_retries=0)
        adapter.poolmanager.pool_classes_by_scheme = pools
        session.mount(prefix, adapter)
    return session


# Reserve one of an owner's MAX_PER_OWNER places and take it in one step: two registrations at
# once must not both see 4 and make 6. The owner's set is one key (one slot in a cluster).
RESERVE = """
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('SADD', KEYS[1], ARGV[1])
return 1
"""


def owned_key(owner: dict) -> str:
    """The set of an owner's subscription ids: the bot's, or the seat's in its game's slot."""
    return (bot_hooks_key(owner["bot"]) if owner.get("bot")
            else game_key(owner["game"], f"hooks:{owner['seat']}"))


class Webhooks:
    def __init__(self, games, max_failures: int = 5, allow_loopback: bool = False, resolve=system_resolve,
                 resolve_timeout: float = RESOLVE_TIMEOUT, page: int = PAGE):
        self.games = games  # GameService
        self.page = page    # events per delivery
        self.r = games.store.r
        self.max_failures = max_failures
        self.allow_loopback = allow_loopback  # TABLEPOST_WEBHOOK_ALLOW_LOOPBACK: tests, local development
        self.resolve, self.resolve_timeout = resolve, resolve_timeout
        self._reserve = self.r.register_script(RESERVE)

    def check(self, url: str) -> Target:
        return check_url(url, self.allow_loopback, self.resolve, self.resolve_timeout)

    # --- subscriptions ---------------------------------------------------------------------
    def _owner(self, token: str | None, game_id: str | None) -> dict:
        if token is None:
            raise errors.unauthorized("send a seat token or a bot token as 'Authorization: Bearer <token>'")
        if looks_like_bot_token(token):
            bot_id = self.games.bots.authenticate(token)
            if bot_id is None:
                raise errors.unauthorized("this bot token is not valid")
            if game_id is not None:
                raise errors.invalid("game-not-for-bots",
                                     "a bot's webhook covers all its games: send no 'game'")
            return {"owner": f"bot:{bot_id}", "bot": bot_id}
        if game_id is None:
            raise errors.invalid("game-required", "with a seat token, name the seat's game in 'game'")
        meta = self.games.meta(game_id)
        seat = self.games.seat_of(meta, token, game_id)
        return {"owner": f"seat:{game_id}:{seat}", "game": game_id, "seat": seat}

    def create(self, token: str | None, url: str, events: list[str], game_id: str | None = None) -> dict:
        owner = self._owner(token, game_id)
        events = sorted(set(events))
        if not events or any(e not in EVENTS for e in events):
            raise errors.invalid("bad-webhook-events", errors.said("events: one or more of {events}",
                                                                       events=", ".join(EVENTS)))
        self.check(url)
        sid, secret = secrets.token_hex(8), "whsec_" + secrets.token_urlsafe(24)
        if not self._reserve(keys=[owned_key(owner)], args=[sid, MAX_PER_OWNER]):
            raise errors.invalid("too-many-webhooks", errors.said("at most {n} webhooks per seat or bot",
                                                                      n=MAX_PER_OWNER))
        fields = {"url": url, "events": ",".join(events), "secret": secret, "owner": owner["owner"],
                  "active": 1, "failures": 0, "created": int(time.time())}
        if "bot" in owner:
            fields["bot"] = owner["bot"]
        else:
            fields.update(game=owner["game"], seat=owner["seat"])
        self.r.hset(hook_key(sid), mapping=fields)
        if "bot" not in owner:  # a bot's set (reserved above) is its lookup too
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
        if token is None:  # no credential: 401 before anything is looked up, whether the id exists or not
            self._owner(token, None)
        h = self._load(sid)
        if h is None:
            raise errors.not_found("no such webhook", "webhook-not-found")
        owner = self._owner(token, h.get("game"))
        if owner["owner"] != h["owner"]:
            raise errors.not_found("no such webhook", "webhook-not-found")
        return h

    def list(self, token: str | None, game_id: str | None = None) -> dict:
        """The caller's webhooks (a bot's, or a seat's in ``game_id``), without their logs."""
        owner = self._owner(token, game_id)
        out = []
        for m in sorted(self.r.smembers(owned_key(owner))):
            h = self._load(m.decode())
            if h is not None and h["owner"] == owner["owner"]:
                out.append(self._public(m.decode(), h))
        return {"webhooks": out}

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
            self.r.srem(owned_key({"game": h["game"], "seat": h["seat"]}), sid)

    def forget(self, sids: builtins.list[str]) -> None:
        """Delete subscriptions outright (those of a bot account just deleted)."""
        for sid in sids:
            self.r.delete(hook_key(sid), hook_key(sid, "log"))

    def show_host(self, sid: str) -> str | None:
        """The host of the subscription's URL as the HTTP client sends it (ASCII, IDNA): all an
        email quotes of a URL a stranger may have chosen."""
        h = self._load(sid)
        if h is None:
            return None
        try:
            url = requests.Request("POST", h["url"]).prepare().url or ""   # a prepared request has its URL
            return (urllib3.util.parse_url(url).host or "")[:255]
        except (requests.RequestException, ValueError):
            return None

    def owner_email(self, sid: str) -> str | None:
        """Where to write about the subscription: the bot's owner or the seat's address, and only
        when that address is verified (it has acted on an email of ours: application/dashboard.py).
        Anyone may type any address into a seat or a bot account; an unverified one gets nothing."""
        h = self._load(sid)
        if h is None:
            return None
        if h.get("bot"):
            email = self.games.bots.owner(h["bot"])
        else:
            email = self.games.meta(h["game"])["seats"][int(h["seat"])].get("email")
        return email if is_verified(self.r, email) else None

    # --- after a save ------------------------------------------------------------------------
    def subscriptions_of(self, game_id: str) -> builtins.list[str]:
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
            (i for i, s in enumerate(meta["seats"]) if s["kind"] == "bot" and s.get("bot") == h.get("bot")),
            None)
        if seat is None or (h.get("game") not in (None, game_id)):
            return "skipped"
        if self.games.store.version(game_id) < version:
            return "skipped"
        _, state = self.games.state_at(game_id, version)
        last: dict = next(iter(self.games.store.events(game_id, after=version - 1, upto=version)), {})
        mover = last.get("seat")
        over = games.is_over(state)
        actor = games.actor(state)
        your_turn = actor == seat and mover != seat
        wanted = set(h["events"].split(","))
        kind = "game-over" if over else "your-turn" if your_turn else "events"
        if not ("all" in wanted or (over and "game-over" in wanted) or (your_turn and "your-turn" in wanted)):
            return "skipped"
        # A page of events per delivery (``page``): the first after the cursor; the next page is the
        # next delivery, sent at once when this one was accepted (``more``).
        events = [e for e in self.games.events(game_id, cursor, self.page)["events"]
                  if e["version"] <= version]
        upto = events[-1]["version"] if events else version
        payload = {"type": kind, "subscription": sid, "game": game_id, "seat": seat, "version": version,
                   "status": "finished" if over else "active",
                   "to_act": [] if actor is None else [actor],
                   "events": events, "more": upto < version}
        body = json.dumps(payload, separators=(",", ":")).encode()
        t = int(time.time())
        entry = {"at": t, "version": version, "type": kind, "attempt": attempt + 1}
        try:  # the same rules as at registration, on what the name resolves to now
            target = self.check(h["url"])
        except errors.ServiceError:
            target = None
            entry.update(ok=False,
                         error="the url is refused now: its host resolves to an address that is not "
                                         "public (or to none)")
        if target is not None:
            with _pinned_session(target.addresses[0]) as http:  # connect to the address just checked
                try:
                    resp = http.post(h["url"], data=body, timeout=TIMEOUT, allow_redirects=False,
                                     headers=delivery_headers(h["secret"], body, t, f"{sid}:{upto}"))
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
