"""Service secrets kept in Redis: each is made once (SET NX) and then read back, so every process
of the service (API, workers, mail listener) shares it, it survives restarts and it needs no
configuration. Cached per connection pool (per cluster client for a Redis Cluster), because a
secret never changes once made."""
from __future__ import annotations

import secrets
import weakref

_known: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # pool -> {redis key: secret}


def stored_secret(r, key: str) -> bytes:
    """The secret under ``key``, made on first use."""
    cache = _known.setdefault(getattr(r, "connection_pool", r), {})
    known = cache.get(key)
    if known is None:
        r.set(key, secrets.token_hex(32), nx=True)
        known = cache[key] = r.get(key)
    return known
