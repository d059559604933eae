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

Either can be revoked and re-issued on its own (issue 13): each seat and each player has a
*generation* in the Redis hash ``links:gen`` (field ``<game>:<seat>`` or ``me:<player id>``,
absent: 0) that the HMAC covers from generation 1 on (``seat:<game>:<seat>:<gen>``,
``me:<player id>:<gen>``); :func:`revoke_seat_link` and :func:`revoke_dashboard_key` move it on,
so every earlier token stops working at once. Generation 0 keeps the original messages, so the
links already sent stay valid until revoked.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets

from .indexes import GENERATIONS  # noqa: F401 (sharded hash: "<game>:<seat>" | "me:<pid>" -> generation)
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


def current_generation(r, field: str) -> int:
    """The generation of a seat (``<game>:<seat>``) or a player (``me:<player id>``)."""
    return _generation(r, field)


def _generation(r, field: str) -> int:
    raw = r.hget(GENERATIONS.key(field), field)
    return int(raw) if raw else 0


def _versioned(message: str, generation: int) -> str:
    return message if generation == 0 else f"{message}:{generation}"


# --- seat link tokens -------------------------------------------------------------------------

def _seat_mac(r, game_id: str, seat: int, generation: int | None = None) -> str:
    if generation is None:
        generation = _generation(r, f"{game_id}:{seat}")
    return _mac(r, _versioned(f"seat:{game_id}:{seat}", generation))


def seat_token(r, game_id: str, seat: int, generation: int | None = None) -> str:
    """The seat's link token (``generation``: the seat's current one, if the caller read it)."""
    return f"L{seat}.{_seat_mac(r, game_id, seat, generation)}"


def seat_of_link(r, game_id: str, token: str) -> int | None:
    """The seat whose link token this is in ``game_id``; None if it is not a valid one."""
    m = _SEAT_RE.match(token)
    if m is None:
        return None
    seat = int(m.group(1))
    if not secrets.compare_digest(m.group(2), _seat_mac(r, game_id, seat)):
        return None
    return seat


def looks_like_seat_token(token: str) -> bool:
    return _SEAT_RE.match(token) is not None


def revoke_seat_link(r, game_id: str, seat: int) -> int:
    """Every link token of the seat so far stops working; returns the new generation."""
    field = f"{game_id}:{seat}"
    return int(r.hincrby(GENERATIONS.key(field), field, 1))


# --- dashboard keys ---------------------------------------------------------------------------

def _key_mac(r, pid: str, generation: int | None = None) -> str:
    if generation is None:
        generation = _generation(r, "me:" + pid)
    return _mac(r, _versioned("me:" + pid, generation))


def dashboard_key(r, pid: str, generation: int | None = None) -> str:
    """The player's dashboard key (``generation``: the player's current one, if the caller read it)."""
    return f"{pid}.{_key_mac(r, pid, generation)}"


def looks_like_dashboard_key(token: str) -> bool:
    return _KEY_RE.match(token) is not None


def player_of_key(r, key: str) -> str | None:
    """The player id a dashboard key belongs to; None if it is not a valid key."""
    m = _KEY_RE.match(key)
    if m is None:
        return None
    pid = m.group(1)
    if not secrets.compare_digest(m.group(2), _key_mac(r, pid)):
        return None
    return pid


def revoke_dashboard_key(r, pid: str) -> int:
    """Every dashboard key of the player so far stops working; returns the new generation."""
    return int(r.hincrby(GENERATIONS.key("me:" + pid), "me:" + pid, 1))


# --- lobby join links (application/lobby.py) ----------------------------------------------------
# ``J.<game>.<nonce>.<32 base32 characters>``: HMAC of ``join:<game>:<nonce>``. It names a join of an
# open game asked by email (the record ``g:{<game>}:join:<nonce>``), which it takes a seat with once;
# the worker that emails it is given only the game and the nonce, and makes the link again here.
_JOIN_RE = re.compile(r"^J\.([A-Za-z0-9]{1,40})\.([A-Za-z0-9_-]{8,40})\.([a-z2-7]{%d})$" % MAC_LEN)


def join_token(r, game_id: str, nonce: str) -> str:
    return f"J.{game_id}.{nonce}.{_mac(r, f'join:{game_id}:{nonce}')}"


def join_of(r, token: str) -> tuple[str, str] | None:
    """``(game, nonce)`` of a valid join link token; None for anything else."""
    m = _JOIN_RE.match(token)
    if m is None or not secrets.compare_digest(m.group(3), _mac(r, f"join:{m.group(1)}:{m.group(2)}")):
        return None
    return m.group(1), m.group(2)
