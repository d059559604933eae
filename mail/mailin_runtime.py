"""The real dependencies of ``mail.mailin.handle_inbound``: the application service, the outbox,
the duplicate filter, and the answers (a confirmation that, while the decision is still the
player's, carries the new position, legal moves and a reply address for the new version).

Every answer is queued in the outbox (mail/outbox.py) under a once-key of the inbound email and
the answer's kind before it is sent, so an SMTP server that is away loses no confirmation or
error email. Over SMTP the first attempt runs in the background: the listener answers its SMTP
client without waiting for our own mail server."""
from __future__ import annotations

import os
import re
import uuid
from functools import lru_cache

from application import errors
from application.game_service import GameService

from .compose import confirmation_email, unplayed_note
from .mailconfig import MailConfig
from .mailin import Deps
from .notify import Notifier, describe_legal
from .outbox import Outbox, SmtpTransport, transport_from_env

SEEN_TTL = 30 * 24 * 3600
VACATION = re.compile(r"^\s*vacation\s+(on|off)\s*$", re.IGNORECASE)


@lru_cache(maxsize=8)
def _outbox(r, smtp_url: str | None, data_dir: str | None) -> Outbox:
    """One outbox (one kept-open SMTP connection, one background sender) per Redis and mail
    settings in this process."""
    transport = transport_from_env()
    return Outbox(r, transport, background=isinstance(transport, SmtpTransport))


def inbound_deps(svc: GameService) -> Deps:
    cfg = MailConfig.from_env()
    r = svc.store.r
    outbox = _outbox(r, os.environ.get("TILETUM_SMTP_URL"), os.environ.get("TILETUM_DATA_DIR"))
    notifier = Notifier(svc, outbox, cfg)

    def legal_moves(game_id: str, seat: int) -> list[tuple[str, str]]:
        _, state = svc.load(game_id)
        return describe_legal(state, seat)

    def seen(key: str) -> bool:
        return not r.set(f"mail:in:{key}", 1, nx=True, ex=SEEN_TTL)

    def confirmation(**ctx):
        meta, state = svc.load(ctx["game_id"])
        seat = ctx["seat"]
        if state.phase != "over" and state.actor == seat:
            # the next step of the same turn
            msg = notifier.turn_message(ctx["game_id"], meta, state, seat, note=unplayed_note(ctx.get("unplayed") or []))
            del msg["Subject"]
            msg["Subject"] = f"Tiletum {ctx['game_id']}: played {', '.join(ctx.get('moves') or [])}; your move"
            return msg
        names = [s["name"] for s in meta["seats"]]
        nxt = names[state.actor] if state.actor is not None else None
        return confirmation_email(to_addr=ctx["to"], from_addr=cfg.from_addr, reply_to=None, game_id=ctx["game_id"],
                                  seat_name=names[seat], moves=ctx.get("moves") or [],
                                  new_version=ctx.get("new_version"), next_to_act=nxt,
                                  in_reply_to=ctx.get("in_reply_to"), unplayed=ctx.get("unplayed") or [])

    def send_reply_once(key: str, msg) -> None:
        to = str(msg["To"] or "")
        if to and "List-Unsubscribe" not in msg:  # every email we send can be stopped
            msg["List-Unsubscribe"] = f"<{notifier.unsubscribe_url(to)}>"
        outbox.enqueue(key, msg)

    def send_reply(msg) -> None:  # an answer without a key of its own: still through the outbox
        send_reply_once(f"reply:{uuid.uuid4().hex}", msg)

    def submit(game_id: str, seat: int, version: int, moves: list[str]) -> dict:
        """Moves by reply; the lines 'vacation on' and 'vacation off' start and stop the seat's
        vacation instead (docs/pbem.md)."""
        commands = [m for m in moves if VACATION.match(m)]
        rest = [m for m in moves if not VACATION.match(m)]
        for cmd in commands:
            try:
                notifier.deadlines().vacation(game_id, seat, VACATION.match(cmd).group(1).lower() == "on")
            except ValueError as e:
                raise errors.invalid("no-vacation-left", str(e), move_index=moves.index(cmd)) from None
        if rest:
            return svc.submit_for_seat(game_id, seat, version, rest)
        return {"version": svc.load(game_id)[1].version}

    return Deps(secret=cfg.secret, submit=submit,
                legal_moves=legal_moves, send_reply=send_reply, seen=seen, from_addr=cfg.from_addr,
                compose_confirmation=confirmation, send_reply_once=send_reply_once)
