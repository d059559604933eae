"""Consent to email (docs/pbem.md, "Email by consent"): whether an address accepted our email,
refused it, or has not answered yet, and the emails held back from it.

Anyone may type any address into a seat, a lobby join or a tournament entry, so an address is
*pending* until it acts on an email of ours: it accepts (the invitation's button, any reply from
it, its dashboard key used, a one-click move: what :func:`mark_verified`
records) or refuses (the invitation's other button: nothing more, ever, until it acts again of
its own will). What a pending address may still be sent, and the budget of every address, is the
mail channel's gate (mail/consent.py); here is only the state, which the dashboard reads too.

| key | type | holds |
|---|---|---|
| ``me:verified:<player id>`` | string | the address accepted (it acted on our email) |
| ``mail:refused:{<player id>}`` | string | when the address refused every email |
| ``mail:held:{<player id>}`` | list | the emails held back from it, newest first (JSON; capped) |

No key holds the address itself: every key is the player's opaque id.
"""
from __future__ import annotations

import json
import time

from .clock import iso
from .notifications import set_preference
from .players import player_id

VERIFIED = "me:verified:"


def mark_verified(r, email: str | None = None, pid: str | None = None) -> None:
    """The address (or player id) has acted on an email of ours: it accepted our email (see the
    module docstring and application/dashboard.py's)."""
    if pid is None:
        if not email or not email.strip():
            return
        pid = player_id(r, email)
    r.set(VERIFIED + pid, int(time.time()), nx=True)


def is_verified(r, email: str | None) -> bool:
    if not email or not email.strip():
        return False
    return bool(r.exists(VERIFIED + player_id(r, email)))


ACCEPTED, PENDING, REFUSED = "accepted", "pending", "refused"
HELD_KEPT = 30

# why an email was held back, in words a player reads on their dashboard and the game page
REASONS = {
    "consent": "your address has not accepted email from us yet: accept it and the game's emails follow",
    "consent-limit": "your address has not accepted email from us yet, and it got as many emails as we "
                     "send before that (a few a day, a few a game)",
    "budget": "your address got as many emails caused by other players as we send in a short time "
              "(new games, new links, table talk, invitations)",
    "budget-needed": "your address got as many emails as we send in a short time",
    "refused": "your address refused email from us",
}


def refused_key(pid: str) -> str:
    return f"mail:refused:{{{pid}}}"


def held_key(pid: str) -> str:
    return f"mail:held:{{{pid}}}"


def audience(r, email: str, verified: bool | None = None) -> str:
    """``accepted``, ``pending`` or ``refused``: what the address said to our email. ``verified``:
    whether it acted on our email, if the caller already read it."""
    pid = player_id(r, email)
    if verified is None:
        pipe = r.pipeline(transaction=False)
        pipe.exists(VERIFIED + pid)
        pipe.exists(refused_key(pid))
        verified, refused = (bool(x) for x in pipe.execute())
    else:
        refused = bool(r.exists(refused_key(pid)))
    if refused:
        return REFUSED
    return ACCEPTED if verified else PENDING


def accept(r, email: str, now: float) -> None:
    """The address accepts our email (a click, a reply): it is verified, and a refusal it made
    before is lifted (it chose again)."""
    pid = player_id(r, email)
    if r.delete(refused_key(pid)):   # it refused before, and now accepts: its games' emails again
        set_preference(r, email, "move")
    r.delete(f"mail:b:{{{pid}}}:pend:inv")   # its unanswered invitations: none now
    mark_verified(r, pid=pid)


def refuse(r, email: str, now: float) -> None:
    """The address refuses every email: none goes to it again (its setting is ``none`` too, so a
    later change of heart is the dashboard's or an accept link's)."""
    pid = player_id(r, email)
    r.set(refused_key(pid), int(now))
    set_preference(r, email, "none")


def record_held(r, pid: str, kind: str, reason: str, now: float, game_id: str | None = None,
                seat: int | None = None) -> None:
    """Remember an email held back from the address (newest first, capped): the same email held
    again (a sweep's retry) is not listed twice."""
    item = {"kind": kind, "reason": reason, "at": now, "game": game_id, "seat": seat}
    key = held_key(pid)
    last = r.lindex(key, 0)
    if last is not None:
        prev = json.loads(last)
        if (prev.get("kind"), prev.get("game"), prev.get("seat"), prev.get("reason")) == (
                kind, game_id, seat, reason):
            return
    pipe = r.pipeline(transaction=False)
    pipe.lpush(key, json.dumps(item))
    pipe.ltrim(key, 0, HELD_KEPT - 1)
    pipe.expire(key, 30 * 86400)
    pipe.execute()


KIND_WORDS = {
    "turn": "a turn email", "reminder": "a reminder", "stand-in": "the stand-in's notice",
    "final": "the results", "newlink": "a new link to a seat", "talk": "table talk",
    "lobby-join": "a request to confirm a seat", "lobby-cancelled": "a cancelled game",
    "twelcome": "a tournament welcome", "tentry-ask": "a tournament entry to confirm",
    "digest": "the daily digest", "webhook-off": "a webhook notice",
}


def held_of(r, pid: str, game_id: str | None = None) -> list[dict]:
    """The emails held back from the player (of one game, when ``game_id``), newest first, in words."""
    out = []
    for raw in r.lrange(held_key(pid), 0, -1):
        item = json.loads(raw)
        if game_id is not None and item.get("game") != game_id:
            continue
        out.append({"kind": item["kind"], "what": KIND_WORDS.get(item["kind"], "an email"),
                    "reason": item["reason"], "why": REASONS.get(item["reason"], ""),
                    "game": item.get("game"), "seat": item.get("seat"), "at": iso(item.get("at"))})
    return out


def forget(r, pid: str) -> None:
    """Drop what is kept of the player here and by the mail gate's budget (their account is
    deleted): every key of the player's hash slot ``{<player id>}`` under ``mail:``."""
    keys = [refused_key(pid), held_key(pid)] + list(r.scan_iter(match=f"mail:b:{{{pid}}}:*", count=500))
    if keys:
        r.delete(*keys)


def held_for_link(service, game_id: str, token: str | None) -> dict:
    """The emails of the game held back from a seat's address, for its game page. Only with the
    seat's *link* token (``#token=L...``, which travels only in emails to that address and on its
    dashboard): a seat token is the game creator's too, and what was held (the address has not
    accepted) would tell them whether the address plays here."""
    from . import errors, links
    if token is None:
        raise errors.unauthorized("a seat's link token is required: send 'Authorization: Bearer <token>'")
    meta = service.meta(game_id)
    r = service.store.r
    seat = links.seat_of_link(r, game_id, token)
    if seat is None:
        if links.looks_like_seat_token(token):
            raise errors.unauthorized("this link is not valid any more: open the game from your latest email "
                                      "or from your dashboard")
        if service.seat_of(meta, token, game_id) is None:   # a wrong token raises 401 itself
            raise errors.unauthorized()
        raise errors.forbidden("link-token-required", "what was held back from a player's address is shown "
                               "only on the page opened from their email or dashboard")
    email = (meta["seats"][seat].get("email") or "").strip()
    if not email:
        return {"seat": seat, "held": []}
    return {"seat": seat, "held": held_of(r, player_id(r, email), game_id)}
