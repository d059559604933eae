"""Who is playing live (docs/pbem.md, "No email while you play live").

A seat that plays on the game's page or through the API gets no turn email at once: the email
waits a grace period and goes once the seat is no longer live (the grace after its last action or
look), if the decision is still the seat's (``mail.notify.Notifier``). A page in a background tab
reads the game with ``hidden=true``: such a read is not a look. What the core records for that, per game,
in one hash in the game's index shard (one hash slot with the game's other index entries):

| key | field | value |
|---|---|---|
| ``live:{ix<nn>}:<game>`` | ``act:<seat>`` | ``<via>:<time>``: the seat's last action, ``web`` (the page or the API, with the seat's token) or ``email`` (a reply, a one-click link of an email) |
| | ``seen:<seat>`` | ``<version>:<time>``: the latest version the seat read with its token (the page reads the game when it changes and every minute while it is open; an event stream opened with the seat's token counts as reading what it delivers) |

The hash expires ``TTL`` after its last write. The turn emails deferred for live seats wait in
the sharded sorted set ``mail:later`` (``<game>:<seat>:<version>`` -> when the email is due; in the
game's registry, so a finished game leaves it): the periodic ``sweep_notifications`` sends the
due ones; nothing is scheduled in the broker.
"""  # noqa: E501  (a Markdown table: its rows cannot wrap)
from __future__ import annotations

import time

from .indexes import shard

TTL = 30 * 86400
WEB, EMAIL = "web", "email"
LIVE_SECONDS = 300.0      # an action through the page or the API this recent: the seat is playing live
PRESENT_SECONDS = 180.0   # a read with the seat's token this recent: the seat's page is open


def key(game_id: str) -> str:
    return f"live:{{ix{shard(game_id):02d}}}:{game_id}"


def acted(r, game_id: str, seat: int, via: str, now: float | None = None) -> None:
    """The seat acted (played or tried a move) through ``via`` (``web`` or ``email``)."""
    k = key(game_id)
    pipe = r.pipeline(transaction=True)   # one key
    pipe.hset(k, f"act:{seat}", f"{via}:{now if now is not None else time.time():.3f}")
    pipe.expire(k, TTL)
    pipe.execute()


def seen(r, game_id: str, seat: int, version: int, now: float | None = None) -> None:
    """The seat read the game at ``version`` with its token (its page is open, or a client of its)."""
    k = key(game_id)
    pipe = r.pipeline(transaction=True)   # one key
    pipe.hset(k, f"seen:{seat}", f"{int(version)}:{now if now is not None else time.time():.3f}")
    pipe.expire(k, TTL)
    pipe.execute()


def read_pipe(pipe, game_id: str, seat: int) -> None:
    """Queue the read of the seat's record on ``pipe`` (see :func:`parse`)."""
    pipe.hmget(key(game_id), f"act:{seat}", f"seen:{seat}")


def parse(raw: list) -> dict:
    """``via``, ``acted_at``, ``seen_version``, ``seen_at`` from what :func:`read_pipe` read."""
    act, saw = (raw or [None, None])[:2]
    out: dict = {"via": None, "acted_at": 0.0, "seen_version": -1, "seen_at": 0.0}
    try:
        if act:
            via, at = act.decode().split(":", 1)
            out["via"], out["acted_at"] = via, float(at)
        if saw:
            version, at = saw.decode().split(":", 1)
            out["seen_version"], out["seen_at"] = int(version), float(at)
    except (UnicodeDecodeError, ValueError):   # unreadable: as if nothing were known
        pass
    return out


def read(r, game_id: str, seat: int) -> dict:
    pipe = r.pipeline(transaction=False)
    read_pipe(pipe, game_id, seat)
    return parse(pipe.execute()[0])


def is_live(info: dict, now: float) -> bool:
    """Whether the seat is playing live now: it acted through the page or the API in the last
    ``LIVE_SECONDS``, or read the game with its token in the last ``PRESENT_SECONDS`` (its page is
    open). A seat whose last action came by email, or that never acted, is not, unless its page is
    open."""
    return now <= live_until(info)


def live_until(info: dict) -> float:
    """When the seat stops playing live unless it acts or looks again: ``LIVE_SECONDS`` after its
    last action through the page or the API, ``PRESENT_SECONDS`` after its last read."""
    acted = info["acted_at"] + LIVE_SECONDS if info["via"] == WEB else float("-inf")
    return max(acted, info["seen_at"] + PRESENT_SECONDS)
