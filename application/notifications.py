"""Notification settings and intents: what the core knows about telling players.

The core never sends email. It records *intents* that the mail channel (``mail/``) turns into
emails: a turn that became due (``mail:due``, written by :mod:`application.scheduling`), and
each address's email setting, kept here:

| key | type | what |
|---|---|---|
| ``mail:prefs`` | hash | lower-cased email -> ``move`` (every turn, the default), ``digest`` or ``none`` |
| ``mail:digest`` | set | ``<email>|<game>|<seat>|<version>`` turns waiting for the daily digest |
"""
from __future__ import annotations

from .indexes import DIGEST, PREFS  # noqa: F401 (re-exported; sharded by address)
MODES = ("move", "digest", "none")


def preference(r, email: str | None) -> str:
    """An address's email setting (``none`` for no address)."""
    if not email:
        return "none"
    v = r.hget(PREFS.key(email.lower()), email.lower())
    return v.decode() if v else "move"


def set_preference(r, email: str, mode: str) -> None:
    if mode not in MODES:
        raise ValueError(f"email setting must be one of {', '.join(MODES)}")
    r.hset(PREFS.key(email.lower()), email.lower(), mode)
