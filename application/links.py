"""Capabilities carried in links (docs/pbem.md, "Links in emails" and "Your dashboard").

Both are HMAC-SHA256 under one service secret made once and kept in Redis (``links:secret``,
the pattern of :mod:`application.players`), so they survive restarts, need no storage per game or per
player, and cannot be forged without the secret. They travel only in URL fragments
(``#token=``, ``#key=``), which browsers never send to the server or in a Referer.

- **Seat link token** ``L<seat>.<32 base32 characters>``: HMAC of ``seat:<game>:<seat>``. It acts
  as that seat's Bearer token in that game (and no other), besides the seat's own token; only
  for human seats. Turn, reminder and results emails open the game page with it:
  ``<public_url>/play/<game>#token=<token>``.
- **Dashboard key** ``<player id>.<32 base32 characters>``: HMAC of ``me:<player id>``, where the
  player id is the opaque ``p...`` id of :mod:`application.players` (it reveals no email address). It is
  the Bearer credential of ``/api/v1/me/...`` and opens ``<public_url>/me#key=<key>``.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets

from .service_secrets import stored_secret

SECRET_KEY = "links:secret"
MAC_LEN = 32   # base32 characters: 160 bits

_SEAT_RE = re.compile(r"^L(0|[1-9][0-9]?)\.([a-z2-7]{%d})$" % MAC_LEN)
_KEY_RE = re.compile(r"^(p[0-9a-f]{16})\.([a-z2-7]{%d})$" % MAC_LEN)


def _secret(r) -> bytes:
    return stored_secret(r, SECRET_KEY)


def _mac(r, message: str) -> str:
    digest = hmac.new(_secret(r), message.encode("utf-8"), hashlib.sha256).digest()
    return base64.b32encode(digest).decode("ascii").rstrip("=").lower()[:MAC_LEN]


# --- seat link tokens -------------------------------------------------------------------------

def seat_token(r, game_id: str, seat: int) -> str:
    return f"L{seat}.{_mac(r, f'seat:{game_id}:{seat}')}"


def seat_of_link(r, game_id: str, token: str) -> int | None:
    """The seat whose link token this is in ``game_id``; None if it is not a valid one."""
    m = _SEAT_RE.match(token)
    if m is None:
        return None
    seat = int(m.group(1))
    if not secrets.compare_digest(m.group(2), _mac(r, f"seat:{game_id}:{seat}")):
        return None
    return seat


def looks_like_seat_token(token: str) -> bool:
    return _SEAT_RE.match(token) is not None


# --- dashboard keys ---------------------------------------------------------------------------

def dashboard_key(r, pid: str) -> str:
    return f"{pid}.{_mac(r, 'me:' + pid)}"


def looks_like_dashboard_key(token: str) -> bool:
    return _KEY_RE.match(token) is not None


def player_of_key(r, key: str) -> str | None:
    """The player id a dashboard key belongs to; None if it is not a valid key."""
    m = _KEY_RE.match(key)
    if m is None:
        return None
    pid = m.group(1)
    if not secrets.compare_digest(m.group(2), _mac(r, "me:" + pid)):
        return None
    return pid
