"""Public player ids: a player is known inside the service by their email address, which is
never shown; every public listing (standings, ratings) names them by an opaque, stable id,
``p`` + 16 hex digits of HMAC-SHA256(service secret, lower-cased email). The secret is made once
and kept in Redis (``players:secret``), so ids survive restarts and do not depend on config."""
from __future__ import annotations

import hashlib
import hmac

from .indexes import NAMES  # noqa: F401 (sharded hash: player id -> the name last used)
from .service_secrets import stored_secret

SECRET_KEY = "players:secret"


def _secret(r) -> bytes:
    return stored_secret(r, SECRET_KEY)


def player_id(r, email: str) -> str:
    return "p" + hmac.new(_secret(r), email.strip().lower().encode(), hashlib.sha256).hexdigest()[:16]


def remember_name(r, pid: str, name: str) -> None:
    r.hset(NAMES.key(pid), pid, name)


def name_of(r, pid: str) -> str | None:
    v = r.hget(NAMES.key(pid), pid)
    return v.decode() if v else None
