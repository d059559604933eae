"""Inbound email: a player's reply to a turn email becomes a move submission.

``handle_inbound(raw, deps, rcpt)`` is the whole pipeline for one delivered message (one
recipient): the reply address ``play+<game>.<seat>.<version>.<sig>@<domain>`` names the game,
the seat and the turn and is checked against its signature (``mail.addresses``); its author must be
the seat's own address, vouched for by the mail server in front (mail/sender_auth.py); the moves
are the lines the player wrote above the quoted turn email (``extract_moves``; the reading of the
text is mail/reply_text.py, pure); they are handed
to the same service as the API (``deps.submit``, i.e. ``GameService.submit_for_seat``), which
applies all of them or none, except that a move revealing chance ends the batch (the lines after
it come back unplayed; docs/pbem.md, "Several moves in one reply"). The player gets one answer by email: a
confirmation, or an error quoting the failing line with the legal moves.

``workers/listener.py`` puts this behind an aiosmtpd SMTP listener (``tablepost serve
--mailin-port P``); ``POST /api/v1/inbound-email`` calls ``handle_inbound`` with the raw RFC 822
bytes. See ``docs/pbem.md``.

No bad input makes ``handle_inbound`` raise: every outcome is a :class:`Result`, logged.
"""
from __future__ import annotations

import email
import email.policy
import email.utils
import hashlib
import logging
import re
import time
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.parser import BytesHeaderParser
from typing import Callable, TypedDict

from application.errors import ServiceError
from application.game_service import MAX_MOVES_PER_REQUEST

from . import addresses
from . import compose as compose_module
from .reply_text import (TooManyMoves, body_text, courtesy_split, greeting_split, normalize_move,
                         without_tail)
from .reply_text import extract_moves as _extract_moves
from . import messages as talk
from .sender_auth import REFUSE, authenticated, sender_refused  # noqa: F401 (authenticated: re-exported)

log = logging.getLogger("tablepost.mailin")

MAX_MOVE_LINES = MAX_MOVES_PER_REQUEST   # what the service plays in one request: more is refused at once
DEFAULT_MAX_BYTES = 256_000


def extract_moves(text: str) -> list[str]:
    """The move lines of a reply (mail/reply_text.py), at most as many as the service plays in one
    request; more raise :class:`TooManyMoves`."""
    return _extract_moves(text, MAX_MOVE_LINES)


# --- dependencies and results --------------------------------------------------------------------

@dataclass
class Deps:
    """What ``handle_inbound`` needs from the service, kept injectable for tests."""
    secret: str                                              # TABLEPOST_MAIL_SECRET
    # (game, seat, version, moves[, then=]) -> the answer: GameService.submit_for_seat; ``then()`` (given
    # when the reply has a message) runs once the moves are saved, before anyone is told of them
    submit: Callable[..., dict]
    legal_moves: Callable[[str, int], list[tuple[str, str]]]  # (game, seat) -> [(move, description)]
    send_reply: Callable[[EmailMessage], None]
    seen: Callable[[str], bool]                              # True if already handled; marks it otherwise
    from_addr: str
    # the answers: composers take the keyword arguments ``_Answer`` gives (the context of every
    # answer and the kind's own) and return an EmailMessage; mail.compose.confirmation_email and
    # error_email take them all
    compose_confirmation: Callable[..., EmailMessage]
    compose_error: Callable[..., EmailMessage]
    # the answer to a reply to an old turn: the current turn, addressed to the seat's own address
    # (or None: then the plain error above goes to the sender)
    compose_stale: Callable[..., EmailMessage | None] | None = None
    max_bytes: int = DEFAULT_MAX_BYTES
    # the seat's own address: the only one a reply may come from and the only one answered
    seat_email: Callable[[str, int], str | None] = lambda game_id, seat: None
    # refuse replies unless our own mail server's Authentication-Results (this authserv-id) pass
    # (mail/sender_auth.py); without one, ``unauthenticated`` says whether a reply counts
    authserv_id: str | None = None
    unauthenticated: str = REFUSE
    # the seat's address, once its reply is vouched for: any reply accepts our email (docs/pbem.md,
    # "Email by consent")
    accepted: Callable[[str], None] | None = None
    # (once-key, message): the answer through the outbox, once per inbound email and kind;
    # when None, ``send_reply`` is used
    send_reply_once: Callable[[str, EmailMessage], None] | None = None
    # (game, seat, line) -> whether the line reads as a move or command of the game (its notation,
    # not its legality): the lines after the moves that do not are a sign-off (``courtesy_split``).
    # None: every line is a move line
    is_move: Callable[[str, int, str], bool] | None = None
    # (game, seat, text) -> the posted message: a reply's table talk (mail/messages.py); None: not taken
    post_message: Callable[[str, int, str], dict] | None = None
    # (game, seat) -> the message number of the seat's current talk address (its latest message email),
    # None when it has none: an older talk address posts nothing (mail/messages.py). None: all count
    talk_current: Callable[[str, int], int | None] | None = None
    clock: Callable[[], float] = time.time   # the day of "told once a day" (refusals)


@dataclass
class Result:
    status: str                  # "applied" | "rejected" | "duplicate" | "ignored"
    code: str | None = None      # why, for everything but "applied": "stale-turn", "bad-notation", ...
    detail: str | None = None
    game_id: str | None = None
    seat: int | None = None
    version: int | None = None   # the turn the reply address is for
    new_version: int | None = None  # after the moves ("applied")
    moves: list[str] = field(default_factory=list)   # "applied": the lines played
    unplayed: list[str] = field(default_factory=list)  # "applied": the lines after a reveal, not played
    ignored: list[str] = field(default_factory=list)   # the lines after the moves taken for a sign-off
    failing_line: str | None = None
    replied: bool = False        # an answer email was handed to deps.send_reply
    said: str | None = None      # the message to the table the reply posted (mail/messages.py)


class _Turn(TypedDict):
    """The turn a signed reply address is for: every Result after the address was read names it."""
    game_id: str
    seat: int
    version: int


# --- the pipeline --------------------------------------------------------------------------------

def _first_address(value) -> str | None:
    if not value:
        return None
    try:
        pairs = email.utils.getaddresses([str(value)])
    except Exception:
        return None
    for _, addr in pairs:
        if addr and "@" in addr:
            return addr
    return None


def _sender(headers) -> str | None:
    for name in ("Reply-To", "From"):
        try:
            addr = _first_address(headers.get(name))
        except Exception:
            addr = None
        if addr:
            return addr
    return None


def _headers_only(raw: bytes):
    """The header block of a message we will not parse whole (too large, or unparsable)."""
    try:
        head = raw[:65536]
        end = re.search(rb"\r?\n\r?\n", head)
        return BytesHeaderParser(policy=email.policy.compat32).parsebytes(head[:end.start()] if end else head)
    except Exception:
        return None


def _is_automatic(headers, deps: Deps, sender: str | None) -> bool:
    """An auto-reply, bounce or list message: never answered (mail loops), never played."""
    try:
        auto = str(headers.get("Auto-Submitted") or "").strip().lower()
        precedence = str(headers.get("Precedence") or "").strip().lower()
        if auto and auto != "no":
            return True
        if precedence in ("bulk", "junk", "list", "auto_reply"):
            return True
        if headers.get("X-Autoreply") or headers.get("X-Autorespond") or headers.get("List-Id"):
            return True
        if headers.get("Return-Path") is not None and str(headers.get("Return-Path")).strip() in ("<>", ""):
            return True
    except Exception:
        return False
    if sender:
        local = sender.split("@", 1)[0].lower()
        if local in ("mailer-daemon", "postmaster"):
            return True
        ours = _first_address(deps.from_addr)
        if ours and sender.lower() == ours.lower():
            return True
    return False


def _reply_address(msg, rcpt: str | None) -> str:
    """The address the player wrote to: the SMTP envelope recipient when known, else the first
    ``play+...`` address in Delivered-To / X-Original-To / To / Cc, else the first To."""
    if rcpt:
        return rcpt.strip().strip("<>")
    candidates: list[str] = []
    for name in ("Delivered-To", "X-Original-To", "To", "Cc"):
        try:
            values = msg.get_all(name) or []
        except Exception:
            values = []
        for v in values:
            try:
                candidates += [a for _, a in email.utils.getaddresses([str(v)]) if a]
            except Exception:
                continue
    for addr in candidates:
        if addr.lower().startswith("play+"):
            return addr
    return candidates[0] if candidates else ""


def _dedupe_key(msg, address: str) -> str:
    mid = str(msg.get("Message-ID") or "").strip()
    if not mid:  # no Message-ID: the same author, date, subject and body is the same email
        h = hashlib.sha256()
        for name in ("From", "Date", "Subject"):
            h.update(str(msg.get(name) or "").encode("utf-8", "replace") + b"\0")
        try:
            h.update(body_text(msg).encode("utf-8", "replace"))
        except Exception:
            pass
        mid = "sha256:" + h.hexdigest()
    # one message may be delivered to several reply addresses (a hotseat player): each counts
    return f"{mid}|{address}"


def _raw_key(raw: bytes, rcpt: str | None) -> str:
    """What identifies an email that could not be read whole: its bytes and recipient."""
    return f"sha256:{hashlib.sha256(raw).hexdigest()}|{rcpt or ''}"


def handle_inbound(raw: bytes, deps: Deps, rcpt: str | None = None) -> Result:
    """Handle one delivered reply (for one recipient). Never raises for bad input."""
    try:
        result = _handle(raw, deps, rcpt)
    except Exception as e:  # a bug or a broken dependency: log, answer nothing, change nothing more
        log.exception("mailin: unexpected error handling an inbound email")
        result = Result("rejected", "internal-error", f"{type(e).__name__}: {e}")
    log.info("mailin: %s %s game=%s seat=%s version=%s%s", result.status, result.code or "",
             result.game_id, result.seat, result.version, f" ({result.detail})" if result.detail else "")
    return result


class _Answer:
    """Sends at most one answer for an inbound email and records it on the result."""

    def __init__(self, deps: Deps, sender: str | None, msg, reply_to: str | None, once: str = ""):
        self.deps, self.sender, self.msg, self.reply_to = deps, sender, msg, reply_to
        self.once = once  # what identifies the inbound email (its dedupe key): the answer's once-key

    def __call__(self, result: Result, kind: str, **ctx) -> Result:
        if not self.sender:
            return result
        subject = ""
        in_reply_to = None
        references: list[str] = []
        if self.msg is not None:
            try:
                subject = str(self.msg.get("Subject") or "")
                in_reply_to = str(self.msg.get("Message-ID") or "").strip() or None
                references = compose_module.message_ids(self.msg.get("References"))
            except Exception:
                pass
        ctx = dict(ctx, to=self.sender, from_addr=self.deps.from_addr, game_id=result.game_id,
                   seat=result.seat, version=result.version, code=result.code, subject=subject,
                   in_reply_to=in_reply_to, references=references, reply_to=self.reply_to,
                   ignored=list(result.ignored))
        ctx.setdefault("reason", result.detail)
        try:
            composer = self.deps.compose_confirmation if kind == "confirmation" else self.deps.compose_error
            message = composer(**ctx)
            _fix_headers(message, ctx)
            if self.deps.send_reply_once is not None and self.once:
                digest = hashlib.sha256(self.once.encode("utf-8", "replace")).hexdigest()[:32]
                self.deps.send_reply_once(f"reply:{kind}:{digest}", message)
            else:
                self.deps.send_reply(message)
            result.replied = True
        except Exception:
            log.exception("mailin: could not send the %s email to %s", kind, self.sender)
        return result


def _fix_headers(message: EmailMessage, ctx: dict) -> None:
    """Whatever built the answer, it goes to the sender, from us, threaded under their email."""
    for name, value in (("To", ctx["to"]), ("From", ctx["from_addr"])):
        if name in message:
            del message[name]
        message[name] = value
    if not message.get("Subject"):
        subj = re.sub(r"^\s*((re|aw|sv|fwd?)\s*:\s*)+", "", ctx.get("subject") or "", flags=re.IGNORECASE)
        message["Subject"] = f"Re: {subj}" if subj else "Re: your game"
    if ctx.get("in_reply_to") and "In-Reply-To" not in message:
        message["In-Reply-To"] = ctx["in_reply_to"]
        message["References"] = compose_module.references_chain(ctx.get("references") or [],
                                                                ctx["in_reply_to"])
    if ctx.get("reply_to") and "Reply-To" not in message:
        message["Reply-To"] = ctx["reply_to"]
    if "Auto-Submitted" not in message:
        message["Auto-Submitted"] = "auto-replied"  # RFC 3834: other robots do not answer it


def _mailbox(address: str | None) -> str | None:
    """``local@domain`` lower-cased, without a display name or a ``+tag`` on the local part."""
    addr = _first_address(address)
    if not addr:
        return None
    local, _, domain = addr.strip().lower().rpartition("@")
    return f"{local.split('+', 1)[0]}@{domain}" if local and domain else None


def same_mailbox(a: str | None, b: str | None) -> bool:
    """Whether two addresses name one mailbox: case-insensitive, display names and plus-address
    tags ignored (``Ann <Ann+games@Example.org>`` is ``ann@example.org``)."""
    ma, mb = _mailbox(a), _mailbox(b)
    return ma is not None and ma == mb


def _seat_address(deps: Deps, game_id: str, seat: int) -> str | None:
    try:
        return deps.seat_email(game_id, seat)
    except Exception:
        log.warning("mailin: could not read the address of %s seat %s", game_id, seat, exc_info=True)
        return None


def _answer_the_seat(deps: Deps, headers, rcpt: str | None, result: Result, once: str = "") -> Result:
    """Answer an email we could not read whole, only when it was written to a valid reply
    address, and then only to that seat's own address."""
    try:
        game_id, seat, version = addresses.parse_reply_address(deps.secret, _reply_address(headers, rcpt))
    except Exception:
        return result
    owner = _seat_address(deps, game_id, seat)
    if owner is None or not same_mailbox(_first_address(headers.get("From")), owner):
        return result
    if sender_refused(headers, deps.authserv_id, deps.unauthenticated) is not None:
        return result   # anyone can write the owner's From: no answer to what no one vouched for
    result.game_id, result.seat, result.version = game_id, seat, version
    return _Answer(deps, owner, None, None, once)(result, "error")


def _send_stale(deps: Deps, msg, result: Result, current, once: str = "") -> bool:
    """Answer a reply to an old turn with the current turn (``deps.compose_stale``), which goes to
    the seat's own address, never to whoever wrote. False when there is none to send."""
    if deps.compose_stale is None:
        return False
    try:
        in_reply_to = str(msg.get("Message-ID") or "").strip() or None
        message = deps.compose_stale(game_id=result.game_id, seat=result.seat, version=result.version,
                                     current_version=current, moves=result.moves, in_reply_to=in_reply_to)
        if message is None:
            return False
        if in_reply_to:
            del message["In-Reply-To"], message["References"]
            message["In-Reply-To"] = in_reply_to
            message["References"] = compose_module.references_chain(
                compose_module.message_ids(msg.get("References")), in_reply_to)
        if "Auto-Submitted" not in message:
            message["Auto-Submitted"] = "auto-replied"
        if deps.send_reply_once is not None and once:
            deps.send_reply_once(
                f"reply:stale:{hashlib.sha256(once.encode('utf-8', 'replace')).hexdigest()[:32]}",
                message)
        else:
            deps.send_reply(message)
        result.replied = True
        return True
    except Exception:
        log.exception("mailin: could not send the current turn for a stale reply")
        return False


def _stale_talk(deps: Deps, game_id: str, seat: int, n: int | None) -> str | None:
    """Why a reply to a talk address posts nothing (an older message email's, or the fixed address of
    the emails before talk addresses were numbered), or None when it is the seat's current one."""
    if deps.talk_current is None and n is not None:
        return None
    try:
        current = deps.talk_current(game_id, seat) if deps.talk_current is not None else None
    except Exception:
        log.warning("mailin: could not read the talk address of %s seat %s", game_id, seat, exc_info=True)
        current = None
    if n is not None and current is not None and n >= current:
        return None
    return ("this email was not the latest message email of this game, and its reply address has expired "
            "as an old turn's does: your message was not posted. Reply to the latest message email, write "
            "it after a line 'Message:' in a reply to your turn email, or post it on the game's page.")


def _legal(deps: Deps, game_id: str, seat: int) -> list[tuple[str, str]]:
    try:
        return [(str(m), str(d)) for m, d in deps.legal_moves(game_id, seat)]
    except Exception:
        log.warning("mailin: could not list the legal moves of %s seat %s", game_id, seat, exc_info=True)
        return []


# --- the reply pipeline, step by step ------------------------------------------------------------
# Each step returns what the next one needs, or the Result that ends the pipeline (answered or not).

@dataclass
class _Reply:
    """A readable reply, not seen before, and the turn its signed address is for."""
    msg: EmailMessage
    address: str                 # the reply address it was sent to
    dedupe: str                  # what identifies it (mail:in:<dedupe>): its answer's once-key too
    named: _Turn                 # the game, seat and turn the signed address names
    talk_n: int | None           # the message number of a talk address, None for a turn's
    owner: str                   # the seat's own address: every answer goes there
    answer: _Answer


@dataclass
class _Lines:
    """What the reply says: the moves as the game reads them (``written``: as the player wrote
    them), the lines after the moves ignored as a sign-off, and a message to the table."""
    written: list[str]
    moves: list[str]
    ignored: list[str]
    said: str | None


def _handle(raw: bytes, deps: Deps, rcpt: str | None) -> Result:
    read = _parse(raw, deps, rcpt)                      # 1. parse and dedupe
    if isinstance(read, Result):
        return read
    reply = _address(deps, *read)                       # 2. who and which turn: the signed address
    if isinstance(reply, Result):
        return reply
    refused = _check_sender(deps, reply)                # 3. the seat's player, vouched for
    if refused is not None:
        return refused
    stale = _check_talk(deps, reply)                    # 4. a talk address still open
    if stale is not None:
        return stale
    lines = _read_lines(deps, reply)                    # 5. the moves, and a message to the table
    if isinstance(lines, Result):
        return lines
    return _play(deps, reply, lines)                    # 6. play them, and answer


def _parse(raw: bytes, deps: Deps, rcpt: str | None) -> Result | tuple[EmailMessage, str, str]:
    """Step 1: the message, its reply address and its dedupe key; or the Result for a message too
    large or unreadable (answered from the headers alone, if there is someone to answer), automatic,
    or seen before."""
    if isinstance(raw, str):
        raw = raw.encode("utf-8", errors="surrogateescape")
    if not isinstance(raw, (bytes, bytearray)):
        return Result("rejected", "malformed", "the message is not bytes")
    raw = bytes(raw)
    if len(raw) > deps.max_bytes:
        return _unreadable(deps, raw, rcpt, Result(
            "rejected", "too-large", f"your email is {len(raw)} bytes; the limit is {deps.max_bytes}. Reply "
            "with just your moves, without attachments or the quoted images."))
    try:
        msg = email.message_from_bytes(raw, policy=email.policy.default)
        keys = msg.keys()
        from_value = msg.get("From")
    except Exception:
        return _unreadable(deps, raw, rcpt, Result("rejected", "malformed", "your email could not be read"))
    if not keys or from_value is None:
        return Result("rejected", "malformed", "not an email: no headers or no From")
    assert isinstance(msg, EmailMessage)   # the message class of the default policy
    if _is_automatic(msg, deps, _sender(msg)):
        return Result("ignored", "automatic", "an auto-reply, bounce or list message")
    address = _reply_address(msg, rcpt)
    dedupe = _dedupe_key(msg, address)
    if deps.seen(dedupe):
        return Result("duplicate", "duplicate", "this email was already handled")
    return msg, address, dedupe


def _unreadable(deps: Deps, raw: bytes, rcpt: str | None, result: Result) -> Result:
    """A message the pipeline cannot read: answered from its headers alone, when they name a seat
    and are no automatic message."""
    headers = _headers_only(raw)
    sender = _sender(headers) if headers is not None else None
    if headers is None or _is_automatic(headers, deps, sender):
        return result
    return _answer_the_seat(deps, headers, rcpt, result, _raw_key(raw, rcpt))


def _address(deps: Deps, msg: EmailMessage, address: str, dedupe: str) -> Result | _Reply:
    """Step 2: the game, seat and turn of the signed reply address, and the seat's own address
    (every answer from here on goes there, never to whoever wrote)."""
    try:
        game_id, seat, version, talk_n = addresses.parse_address(deps.secret, address)
    except ValueError:  # addresses.BadAddress is a ValueError
        # no game, so no seat to answer: never mail an address that is not a seat's (backscatter)
        return Result("rejected", "forged-address",
                      f"{address or 'the address'} is not a valid Table Post reply address")
    turn = _Turn(game_id=game_id, seat=seat, version=version)
    owner = _seat_address(deps, game_id, seat)
    if owner is None:
        return Result("rejected", "no-seat-address", "this seat has no email address now", **turn)
    # a corrected reply to an error goes to the same turn
    return _Reply(msg, address, dedupe, turn, talk_n, owner, _Answer(deps, owner, msg, address, dedupe))


def _check_sender(deps: Deps, reply: _Reply) -> Result | None:
    """Step 3: the reply address is not a credential on its own: the author must be the seat's
    player, and a mail server must vouch for the From (mail/sender_auth.py). None when they are
    (the reply then accepts our email); else the refusal, told to the owner once a day."""
    msg, owner, turn = reply.msg, reply.owner, reply.named
    game_id, seat = turn["game_id"], turn["seat"]
    author = _first_address(msg.get("From"))
    refused = None
    if not same_mailbox(author, owner):
        refused = Result("rejected", "wrong-sender",
                         f"a reply to your game's email came from {author or 'an unknown address'}, not from "
                         f"your address: nothing was played or posted. If it was you, reply from {owner}.",
                         **turn)
    else:
        why = sender_refused(msg, deps.authserv_id, deps.unauthenticated)
        if why is not None:
            log.warning("mailin: unauthenticated sender for %s seat %s: %s", game_id, seat, why)
            refused = Result("rejected", "unauthenticated-sender",
                             "a reply that claimed to be from you failed our mail server's sender checks "
                             "(SPF/DKIM/DMARC): nothing was played or posted. If it was you, reply again "
                             "from your usual mail account; if not, someone wrote in your name, and you need "
                             "do nothing.", **turn)
    if refused is None:
        if deps.accepted is not None:
            deps.accepted(owner)   # any reply of the seat's own, vouched for, accepts our email
        return None
    log.warning("mailin: %s for %s seat %s (From %s)", refused.code, game_id, seat, author)
    # the owner is told once a day per game and kind, whatever the reply address: a flood of
    # forged replies (to any turn's or the talk address) tells them nothing more, and the
    # writer nothing at all
    once = f"refused:{refused.code}:{game_id}:{seat}:{int(deps.clock() // 86400)}"
    if deps.seen(once):
        return refused
    reply.answer.once = once
    return reply.answer(refused, "error", failing_line=None, legal_moves=[], nothing_played=True)


def _check_talk(deps: Deps, reply: _Reply) -> Result | None:
    """Step 4: a reply to a talk address (or the talk version) whose address expired is refused,
    answered without that address again; None otherwise."""
    turn = reply.named
    if reply.talk_n is None and turn["version"] != talk.TALK_VERSION:
        return None
    stale = _stale_talk(deps, turn["game_id"], turn["seat"], reply.talk_n)
    if stale is None:
        return None
    reply.answer.reply_to = None   # not the expired address again
    return reply.answer(Result("rejected", "stale-talk", stale, **turn), "error", failing_line=None,
                        legal_moves=[], nothing_played=True)


def _read_lines(deps: Deps, reply: _Reply) -> Result | _Lines:
    """Step 5: the moves, and a message to the table: the lines after a line "Message:", or the
    whole text of a reply to a message email (mail/messages.py); never a line of moves. A message
    alone is posted here (nothing played, no answer); a bad message, too many lines or no moves at
    all end the pipeline."""
    turn, answer = reply.named, reply.answer
    game_id, seat = turn["game_id"], turn["seat"]
    body, said = talk.split_reply(body_text(reply.msg), turn["version"])
    why = talk.check_message(said) if said is not None else None
    if why is not None:
        return answer(Result("rejected", "bad-message", f"{why}: nothing was done", **turn), "error",
                      failing_line=None, legal_moves=[], nothing_played=True)
    try:
        written = extract_moves(body)
    except TooManyMoves as e:
        result = Result("rejected", "too-many-moves", f"{e}; nothing was played", **turn)
        return answer(result, "error", failing_line=None, legal_moves=_legal(deps, game_id, seat),
                      nothing_played=True)
    # as the game reads them: a description copied with the move and trailing punctuation go, and
    # the lines after the moves that are no move (a sign-off) are ignored
    moves = [normalize_move(line) for line in written]
    ignored: list[str] = []

    def is_move(line: str) -> bool:
        if deps.is_move is None:
            return True
        try:
            return bool(deps.is_move(game_id, seat, line))
        except Exception:
            return True   # cannot tell: it is played, and refused with its reason if it is none
    # a greeting before the moves ("Hi,", "Hello Ben,") is skipped, never played
    greeting, moves = greeting_split(moves, is_move if deps.is_move is not None else None)
    written = written[len(greeting):]
    if deps.is_move is not None and moves:
        moves, rest = courtesy_split(moves, is_move)
        ignored, written = written[len(moves):], written[:len(moves)]
    if said is not None and not moves:   # a message alone: posted, nothing played, no answer
        why = talk.post_reply_message(deps.post_message, game_id, seat, said)
        if why is None:
            return Result("applied", "message", None, said=said, **turn)
        return answer(Result("rejected", "message-refused", f"your message was not posted: {why}", **turn),
                      "error", failing_line=None, legal_moves=[], nothing_played=True)
    if not moves:
        result = Result("rejected", "no-moves",
                        "no moves were found in your email: write one move per line, above the quoted "
                        "turn email", **turn)
        return answer(result, "error", failing_line=None, legal_moves=_legal(deps, game_id, seat),
                      nothing_played=False)
    return _Lines(written, moves, ignored, said)


def _play(deps: Deps, reply: _Reply, lines: _Lines) -> Result:
    """Step 6: play the moves, all or nothing, up to a move that reveals chance, and answer: a
    confirmation, or the error with the failing line. The message is posted once the moves are
    saved and before anyone is told of them, so the next seat's turn email carries it."""
    turn, answer = reply.named, reply.answer
    game_id, seat, version = turn["game_id"], turn["seat"], turn["version"]
    written, moves, said = lines.written, lines.moves, lines.said
    posted: list[str | None] = []

    def post_said() -> None:
        if not posted and said is not None:
            posted.append(talk.post_reply_message(deps.post_message, game_id, seat, said))
    try:
        applied = (deps.submit(game_id, seat, version, moves, then=post_said) if said is not None
                   else deps.submit(game_id, seat, version, moves))
    except ServiceError as e:
        extra = e.extra
        if e.kind == "conflict":
            current = extra.get("current_version")
            result = Result("rejected", "stale-turn",
                            "this email was for an old turn, and the game has moved on since. None of its "
                            "moves were played: reply to the latest turn email instead.", moves=moves, **turn)
            if _send_stale(deps, reply.msg, result, current, reply.dedupe):
                return result
            answer.reply_to = None
            return answer(result, "error", failing_line=None, legal_moves=[], nothing_played=True,
                          current_version=current)
        index = extra.get("move_index")
        # as written
        failing = written[index] if isinstance(index, int) and 0 <= index < len(written) else None
        playable = e.kind in ("forbidden", "invalid")  # the player can correct and reply again
        if not playable:
            answer.reply_to = None
        result = Result("rejected", e.code, e.detail, moves=moves, failing_line=failing, **turn)
        legal = _legal(deps, game_id, seat) if playable else []
        return answer(result, "error", failing_line=failing, legal_moves=legal, nothing_played=True,
                      rule=extra.get("rule"), move_index=index)
    except Exception:
        # the store or the service failed: nothing was played (submit is atomic). The email is
        # marked seen, so ask the player to send it again rather than wait for a redelivery.
        log.exception("mailin: submit failed for %s seat %s", game_id, seat)
        result = Result("rejected", "internal-error",
                        "the server could not play your moves just now; none were played. Please send "
                        "them again in a few minutes.", moves=moves, **turn)
        return answer(result, "error", failing_line=None, legal_moves=[], nothing_played=True)
    new_version = applied.get("version") if isinstance(applied, dict) else None
    unplayed = list(applied.get("unplayed") or []) if isinstance(applied, dict) else []
    played = without_tail(moves, unplayed)
    if said is not None:
        post_said()   # when the service did not (an idempotent replay): after the moves, as ever
    why = posted[0] if posted else None
    result = Result("applied", None, why, moves=played, unplayed=unplayed, new_version=new_version,
                    ignored=lines.ignored, said=said if said is not None and why is None else None, **turn)
    return answer(result, "confirmation", moves=played, unplayed=unplayed, new_version=new_version,
                  message_refused=why)
