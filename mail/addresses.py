"""Signed reply addresses and signed links for play-by-email (pure: no I/O).

Reply address (contract in ``docs/pbem.md``)::

    play+<game>.<seat>.<version>.<sig>@<domain>

``sig`` is the first 16 characters of the lower-case, unpadded base32 of
HMAC-SHA256(secret, "<game>.<seat>.<version>"). A message email's *talk address* writes ``t<n>`` for
the version (``play+<game>.<seat>.t<n>.<sig>``, signed over ``"<game>.<seat>.t<n>"``): ``n`` is the last
message that email told, so each message email has an address of its own, which goes stale as a turn's
does (mail/messages.py, :func:`talk_address`, :func:`parse_address`). The signature is compared
without regard to case
(base32 is case-insensitive), but **game ids are case-sensitive**: a mail system that lower-cases
the whole local part turns the game id into another string, the signature no longer matches and
the address is rejected with :class:`BadAddress` (never silently mapped to another game).

Links (play a move that ends the decision, unsubscribe) carry a ``sig`` query
parameter over their path and their other parameters (sorted). A seat's token never goes into a
link: :func:`signed_url` refuses a ``token`` parameter. An optional ``exp`` parameter (Unix time)
makes a link expire; :func:`verify_url_params` checks it.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import time
from email.utils import parseaddr
from typing import Any
from urllib.parse import urlencode

__all__ = ["BadAddress", "reply_address", "talk_address", "parse_reply_address", "parse_address", "sign",
           "signed_url", "verify_url_params"]

ADDRESS_SIG_LEN = 16      # the contract's length for reply addresses
LINK_SIG_LEN = 32         # 160 bits for links (they can play moves)
MAX_GAME_ID = 64
MAX_ADDRESS = 320

GAME_RE = re.compile(r"^[A-Za-z0-9]{1,%d}$" % MAX_GAME_ID)
# the "play" prefix may arrive in any case; the game id keeps its case; seat/version canonical
_ADDRESS_RE = re.compile(
    r"^(?i:play)\+(?P<game>[A-Za-z0-9]{1,%d})\.(?P<seat>0|[1-9][0-9]{0,2})"
    r"\.(?P<version>0|[1-9][0-9]{0,11}|(?i:t)(?:0|[1-9][0-9]{0,11}))\.(?P<sig>[A-Za-z2-7]{%d})@(?P<domain>[^@\s<>]+)$"
    % (MAX_GAME_ID, ADDRESS_SIG_LEN))
_EXP_RE = re.compile(r"^[0-9]{1,12}$")


class BadAddress(ValueError):
    """A reply address or link that is malformed, forged, tampered with or expired."""


def _key(secret: str | bytes) -> bytes:
    key = secret.encode("utf-8") if isinstance(secret, str) else bytes(secret)
    if not key:
        raise ValueError("the mail secret is empty")
    return key


def _b32(digest: bytes, n: int) -> str:
    return base64.b32encode(digest).decode("ascii").rstrip("=").lower()[:n]


def _address_sig(secret: str | bytes, game_id: str, seat: int, version: int | str) -> str:
    msg = f"{game_id}.{seat}.{version}".encode("ascii")
    return _b32(hmac.new(_key(secret), msg, hashlib.sha256).digest(), ADDRESS_SIG_LEN)


# --- reply addresses -----------------------------------------------------------------------

def reply_address(secret: str | bytes, domain: str, game_id: str, seat: int, version: int) -> str:
    """``play+<game>.<seat>.<version>.<sig>@<domain>``."""
    if not isinstance(game_id, str) or not GAME_RE.match(game_id):
        raise BadAddress(f"game id {game_id!r} is not letters and digits")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat <= 999:
        raise BadAddress(f"bad seat {seat!r}")
    if isinstance(version, bool) or not isinstance(version, int) or version < 0:
        raise BadAddress(f"bad version {version!r}")
    if not domain or re.search(r"[@\s<>]", domain):
        raise BadAddress(f"bad domain {domain!r}")
    return f"play+{game_id}.{seat}.{version}.{_address_sig(secret, game_id, seat, version)}@{domain}"


def talk_address(secret: str | bytes, domain: str, game_id: str, seat: int, n: int) -> str:
    """``play+<game>.<seat>.t<n>.<sig>@<domain>``: the reply address of a message email that told the
    thread up to message ``n``."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise BadAddress(f"bad message number {n!r}")
    reply_address(secret, domain, game_id, seat, 0)   # checks the game, the seat and the domain
    return f"play+{game_id}.{seat}.t{n}.{_address_sig(secret, game_id, seat, f't{n}')}@{domain}"


def parse_address(secret: str | bytes, address: str) -> tuple[str, int, int, int | None]:
    """``(game_id, seat, version, talk)`` of a signed reply address: ``talk`` is the message number of
    a talk address (its version is then 0, which no turn has), None for a turn's. Accepts a bare
    address or one with a display name / angle brackets (``"Tiletum" <play+...@domain>``). Raises
    :class:`BadAddress` when it is malformed or its signature does not match."""
    if not isinstance(address, str) or not address.strip() or len(address) > MAX_ADDRESS:
        raise BadAddress("not a reply address")
    _, addr = parseaddr(address.strip())
    m = _ADDRESS_RE.match(addr.strip())
    if m is None:
        raise BadAddress("not a reply address of this service")
    game, seat, written = m.group("game"), int(m.group("seat")), m.group("version").lower()
    expected = _address_sig(secret, game, seat, written)
    if not hmac.compare_digest(m.group("sig").lower(), expected):
        raise BadAddress("the reply address's signature does not match (forged or altered address)")
    if written.startswith("t"):
        return game, seat, 0, int(written[1:])
    return game, seat, int(written), None


def parse_reply_address(secret: str | bytes, address: str) -> tuple[str, int, int]:
    """``(game_id, seat, version)`` of a signed reply address (a talk address's version is 0).
    Accepts a bare address or one with a display name / angle brackets (``"Tiletum"
    <play+...@domain>``). Raises :class:`BadAddress` when it is malformed or its signature does not
    match."""
    game, seat, version, _ = parse_address(secret, address)
    return game, seat, version


# --- signed links --------------------------------------------------------------------------

def sign(secret: str | bytes, *parts: Any) -> str:
    """A 32-character lower-case base32 signature over ``parts`` (each turned into ``str``).
    The encoding is unambiguous (``sign(k, "a.b")`` differs from ``sign(k, "a", "b")``) and
    separate from the reply-address signature."""
    msg = json.dumps(["tiletum-link/1", *[str(p) for p in parts]], ensure_ascii=False,
                     separators=(",", ":")).encode("utf-8")
    return _b32(hmac.new(_key(secret), msg, hashlib.sha256).digest(), LINK_SIG_LEN)


def _link_parts(path: str, params: dict[str, str]) -> list[str]:
    return [path, *[f"{k}={params[k]}" for k in sorted(params)]]


def signed_url(secret: str | bytes, base_url: str, path: str, **params: Any) -> str:
    """``<base_url><path>?<params, sorted>&sig=<sig>``; ``sig`` covers the path and every
    parameter. ``None`` values are left out; other values are turned into ``str``."""
    if not path.startswith("/"):
        raise ValueError("path must start with '/'")
    for reserved in ("sig", "token"):
        if reserved in params:
            raise ValueError(f"a signed link may not carry a {reserved!r} parameter")
    clean = {k: str(v) for k, v in params.items() if v is not None}
    query = [(k, clean[k]) for k in sorted(clean)]
    query.append(("sig", sign(secret, *_link_parts(path, clean))))
    return f"{base_url.rstrip('/')}{path}?{urlencode(query)}"


def verify_url_params(secret: str | bytes, path: str, params: Any,
                      now: float | None = None) -> dict[str, str]:
    """Check the ``sig`` of a link's query parameters (a dict, a ``parse_qs`` result or a
    werkzeug ``MultiDict``) for ``path``; return the parameters without ``sig``. Raises
    :class:`BadAddress` when the signature is missing or wrong, a parameter is repeated, or
    the link carries an ``exp`` in the past."""
    flat: dict[str, str] = {}
    getlist = getattr(params, "getlist", None)
    for k in list(params.keys()):
        v = getlist(k) if getlist is not None else params[k]
        if isinstance(v, (list, tuple)):
            if len(v) != 1:
                raise BadAddress(f"parameter {k!r} is repeated")
            v = v[0]
        if not isinstance(k, str) or not isinstance(v, str):
            raise BadAddress("bad link parameters")
        flat[k] = v
    sig = flat.pop("sig", None)
    if not sig:
        raise BadAddress("the link has no signature")
    expected = sign(secret, *_link_parts(path, flat))
    try:
        ok = hmac.compare_digest(sig.lower().encode("utf-8"), expected.encode("ascii"))
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise BadAddress("the link's signature does not match (forged or altered link)")
    if "exp" in flat:
        if not _EXP_RE.match(flat["exp"]):
            raise BadAddress("bad expiry")
        if (time.time() if now is None else now) > int(flat["exp"]):
            raise BadAddress("the link has expired")
    return flat


# --- the inbound webhook's signature ------------------------------------------------------------
# A mail provider (or the relay the operator runs) posts each received email to
# POST /api/v1/inbound-email with the header
#     X-Tablepost-Signature: t=<unix time>,v1=<hex HMAC-SHA256(TABLEPOST_INBOUND_SECRET, "<t>." + body)>
# so only holders of the secret can hand the service a reply, and an old request cannot be
# replayed after INBOUND_TOLERANCE seconds (docs/pbem.md, "The inbound webhook").

INBOUND_TOLERANCE = 300


def inbound_signature(secret: str | bytes, body: bytes, t: int | None = None) -> str:
    """The ``X-Tablepost-Signature`` header value for ``body`` at unix time ``t`` (now)."""
    t = int(time.time()) if t is None else int(t)
    mac = hmac.new(_key(secret), f"{t}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={t},v1={mac}"


def verify_inbound_signature(secret: str | bytes, header: str | None, body: bytes,
                             now: float | None = None, tolerance: int = INBOUND_TOLERANCE) -> None:
    """Raise :class:`BadAddress` unless ``header`` signs ``body`` with ``secret`` within
    ``tolerance`` seconds of ``now``."""
    fields: dict[str, list[str]] = {}
    for part in (header or "").split(","):
        k, _, v = part.strip().partition("=")
        fields.setdefault(k, []).append(v)
    try:
        t = int(fields["t"][0])
    except (KeyError, ValueError, IndexError):
        raise BadAddress("no signature timestamp") from None
    now = time.time() if now is None else now
    if abs(now - t) > tolerance:
        raise BadAddress("the signature is too old (or from the future)")
    expected = inbound_signature(secret, body, t).split("v1=", 1)[1]
    if not any(hmac.compare_digest(expected.encode(),
                                   v.encode("ascii", "replace")) for v in fields.get("v1", [])):
        raise BadAddress("the signature does not match")
