"""Notification settings and intents: what the core knows about telling players.

The core never sends email. It records *intents* that the mail channel (``mail/``) turns into
emails: a turn that became due (``mail:due``, written by :mod:`application.scheduling`), and
each address's email setting, kept here:

| key | type | what |
|---|---|---|
| ``mail:prefs`` | hash | lower-cased email -> ``move`` (every turn, the default), ``digest`` or ``none`` |
| ``mail:delay`` | hash | lower-cased email -> minutes a turn email waits while the player plays live (0: at once; absent: the service's default, ``TABLEPOST_MAIL_LIVE_DELAY_MINUTES``, 5) |
| ``mail:digest`` | set | ``<email>|<game>|<seat>|<version>`` turns waiting for the daily digest |
"""  # noqa: E501  (a Markdown table: its rows cannot wrap)
from __future__ import annotations

import os

from .indexes import DIGEST, MAIL_DELAY, PREFS  # noqa: F401 (re-exported; sharded by address)
MODES = ("move", "digest", "none")
MAX_DELAY_MINUTES = 1440


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


def delay_minutes_default() -> float:
    """The service's grace of a live player's turn email (``TABLEPOST_MAIL_LIVE_DELAY_MINUTES``, 5)."""
    try:
        return min(MAX_DELAY_MINUTES, max(0.0, float(os.environ.get("TABLEPOST_MAIL_LIVE_DELAY_MINUTES",
                                                                    "5"))))
    except ValueError:
        return 5.0


def delay_minutes(r, email: str) -> int:
    """How long an address's turn email waits while it plays live (docs/pbem.md); 0: at once."""
    v = r.hget(MAIL_DELAY.key(email.lower()), email.lower())
    try:
        return int(v) if v is not None else round(delay_minutes_default())
    except ValueError:
        return round(delay_minutes_default())


def set_delay_minutes(r, email: str, minutes: int) -> None:
    if not isinstance(minutes, int) or isinstance(minutes, bool) or not 0 <= minutes <= MAX_DELAY_MINUTES:
        raise ValueError(f"delay_minutes is a whole number from 0 to {MAX_DELAY_MINUTES}")
    r.hset(MAIL_DELAY.key(email.lower()), email.lower(), minutes)
