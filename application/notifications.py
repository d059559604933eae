"""Notification settings and intents: what the core knows about telling players.

The core never sends email. It records *intents* that the mail channel (``mail/``) turns into
emails: a turn that became due (``mail:due``, written by :mod:`application.scheduling`), and
each address's email setting, kept here:

| key | type | what |
|---|---|---|
| ``mail:prefs`` | hash | lower-cased email -> ``move`` (every turn, the default), ``digest`` or ``none`` |
| ``mail:delay`` | hash | lower-cased email -> minutes a turn email waits while the player plays live (0: at once; absent: the service's default, ``TABLEPOST_MAIL_LIVE_DELAY_MINUTES``, 5) |
| ``mail:lang`` | hash | lower-cased email -> the language of its emails (``de``; absent: the seat's, else English) |
| ``mail:tz`` | hash | lower-cased email -> the time zone of its emails' dates (absent: the seat's, else UTC) |
| ``mail:digest`` | set | ``<email>|<game>|<seat>|<version>`` turns waiting for the daily digest |
"""  # noqa: E501  (a Markdown table: its rows cannot wrap)
from __future__ import annotations

import os

from tablepost import i18n

from .indexes import DIGEST, LANGUAGE, MAIL_DELAY, PREFS, TIME_ZONE  # noqa: F401 (re-exported; sharded by address)
from .time_control import valid_tz
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


# --- the language and time zone of an address's emails (docs/i18n.md) -------------------------------

def language(r, email: str | None) -> str | None:
    """The language the address chose for its emails (its dashboard), or None."""
    if not email:
        return None
    v = r.hget(LANGUAGE.key(email.lower()), email.lower())
    return v.decode() if v else None


def set_language(r, email: str, lang: str | None) -> None:
    """Choose the address's emails' language (``None``: back to each seat's, else English). The
    tests' pseudo-locale is taken too (tablepost/i18n.py); the API offers only the languages."""
    if lang is None:
        r.hdel(LANGUAGE.key(email.lower()), email.lower())
        return
    if not i18n.supported(lang, pseudo=True):
        raise ValueError(f"language must be one of {', '.join(i18n.LANGUAGES)}")
    r.hset(LANGUAGE.key(email.lower()), email.lower(), lang)


def time_zone(r, email: str | None) -> str | None:
    """The time zone the address chose for its emails' dates, or None."""
    if not email:
        return None
    v = r.hget(TIME_ZONE.key(email.lower()), email.lower())
    return v.decode() if v else None


def set_time_zone(r, email: str, tz: str | None) -> None:
    """Choose the address's emails' time zone (an IANA name; ``None``: back to each seat's, else UTC)."""
    if tz is None:
        r.hdel(TIME_ZONE.key(email.lower()), email.lower())
        return
    if not valid_tz(tz):
        raise ValueError(f"{tz!r} is not an IANA time zone name (e.g. Europe/Berlin)")
    r.hset(TIME_ZONE.key(email.lower()), email.lower(), tz)


def voice(r, email: str | None, seat: dict | None = None) -> tuple[str, str | None]:
    """The language and time zone of an email to ``email`` (for ``seat``, a seat of a game's meta,
    when it is about one): the address's own choice, else the seat's (``language``, ``tz``, given
    when the game was created), else English and UTC. One round trip."""
    lang = tz = None
    if email:
        pipe = r.pipeline(transaction=False)
        pipe.hget(LANGUAGE.key(email.lower()), email.lower())
        pipe.hget(TIME_ZONE.key(email.lower()), email.lower())
        raw_lang, raw_tz = pipe.execute()
        lang, tz = (raw_lang.decode() if raw_lang else None), (raw_tz.decode() if raw_tz else None)
    seat = seat or {}
    if not i18n.supported(lang, pseudo=True):
        lang = seat.get("language")
    chosen: str = lang if lang is not None and i18n.supported(lang, pseudo=True) else i18n.DEFAULT
    return chosen, tz or seat.get("tz")
