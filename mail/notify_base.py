"""What every email the service sends goes through (mail/notify.py's kinds share it): the
links in an email, who may be emailed (a stranger's daily cap, a player's preference), sending once
through the outbox under a once-key in the seat's thread, and the sweeps' claim-and-attempt loop."""
from __future__ import annotations

import logging
import time
from email.message import EmailMessage
from typing import Any
from urllib.parse import quote

import games
from games import EmailGame

from application import consent
from application.notifications import voice
from tablepost.i18n import Translator, translator
from application.clock import make_clock
from application.dashboard import TOLD, dashboard_key_for, play_path
from application.deadlines import Deadlines
from application.errors import ServiceError
from application.game_service import GameService
from application.indexes import begin_attempt, end_attempt, forget_game, remove

from . import addresses
from .consent import Gate
from .compose import _replace, dashboard_text, finish_headers, thread_root_id
from .mailconfig import MailConfig
from .compose import MAX_REFERENCES
from .outbox import SENT_TTL, Outbox

log = logging.getLogger("tablepost.notify")

def email_game(meta: dict) -> EmailGame[Any]:
    """The game of a game's stored meta as the email channel plays it (games/base.py's EmailTexts):
    every game whose seats get emails is one (``email = True``)."""
    game = games.email_texts(games.of_meta(meta))
    if game is None:
        raise ValueError(f"the email channel does not play {games.of_meta(meta).name}")
    return game


def chosen(meta: dict) -> bool:
    """Whether the game's players chose it themselves (a tournament's game: they entered it), so its
    first email is one they asked for (mail/consent.py: the budget of what a player needs)."""
    return bool(meta.get("tournament"))


def thread_key(game_id: str, seat: int) -> str:
    """The once-key of the seat's first email in the game: its Message-ID is the thread's root."""
    return f"mail:thread:{game_id}:{seat}"


def subject_key(game_id: str, seat: int) -> str:
    """The subject of the seat's thread in the game, as its first email had it (an invitation names
    no one; the thread keeps it: one conversation per game)."""
    return f"mail:thread:subject:{game_id}:{seat}"


def kept_subject(r, game_id: str, seat: int) -> str | None:
    """The thread's kept subject (:func:`subject_key`), or None before its first email."""
    kept = r.get(subject_key(game_id, seat))
    return kept.decode() if kept is not None else None


def thread_refs_key(game_id: str, seat: int) -> str:
    """The Message-IDs of the latest emails of the seat's thread, oldest first (a capped list):
    each new email replies to the last and references the root and them."""
    return f"mail:thread:refs:{game_id}:{seat}"


class Mailer:
    """What every kind of email shares: the service, the outbox, the mail settings, and the gate
    each email passes before it is sent."""

    def __init__(self, service: GameService, outbox: Outbox, cfg: MailConfig):
        self.service = service
        self.outbox = outbox
        self.cfg = cfg
        self.r = service.store.r
        self.clock = make_clock(self.r)   # live seats, the grace of their turn emails (application/live.py)
        self.gate = Gate(self.r, cfg.budget(), self.clock)

    def deadlines(self):
        return Deadlines(self.service, self, make_clock(self.r))

    def voice(self, email: str | None, seat: dict | None = None) -> tuple[Translator, str | None]:
        """The language (its :class:`Translator`) and time zone of an email to ``email``: the address's
        own choice on its dashboard, else the seat's (``seat``: a seat of a game's meta), else English
        and UTC (application/notifications.py ``voice``; docs/i18n.md)."""
        lang, tz = voice(self.r, email, seat)
        return translator(lang), tz

    # --- links -------------------------------------------------------------------------------
    def reply_to(self, game_id: str, seat: int, version: int) -> str:
        return addresses.reply_address(self.cfg.secret, self.cfg.domain, game_id, seat, version)

    def move_url(self, game_id: str, seat: int, version: int, move: str) -> str:
        return addresses.signed_url(self.cfg.secret, self.cfg.public_url, f"/email/move/{game_id}",
                                    seat=str(seat), version=str(version), move=move)

    def open_url(self, game_id: str, seat: int, generation: int | None = None,
                 lang: str | None = None) -> str:
        """The game page opened as the seat: its link token in the fragment (application/links.py), which
        browsers never send to the server; never in the query string. In ``lang`` (the recipient's, where
        not English): the page opens in the language of the email that links to it."""
        path, _, fragment = play_path(self.r, game_id, seat, generation).partition("#")
        return self.cfg.public_url + path + _in_language(lang) + (f"#{fragment}" if fragment else "")

    def dashboard_url(self, email: str, generation: int | None = None, lang: str | None = None) -> str:
        """The address's private dashboard: ``/me#key=<dashboard key>`` (application/links.py), in
        ``lang`` as :meth:`open_url`."""
        key = dashboard_key_for(self.r, email, generation)
        return f"{self.cfg.public_url}/me{_in_language(lang)}#key={key}"

    def first_email(self, email: str) -> bool:
        """Whether this address has not yet been sent its dashboard link."""
        email = email.strip().lower()
        return not self.r.sismember(TOLD.key(email), email)

    def audience(self, email: str, verified: bool | None = None) -> str:
        """What the address said to our email (application/consent.py): ``accepted``, ``pending``
        (an email to it is its game's invitation, or what the game needs, written without what
        another person wrote: :meth:`neutral_names`) or ``refused``. With consent not asked (a mail
        configuration built by hand without ``new_address_daily``): ``accepted``."""
        if self.cfg.new_address_daily is None:
            return consent.ACCEPTED
        return consent.audience(self.r, email, verified)

    def stranger(self, email: str, verified: bool | None = None) -> bool:
        """Whether the address has not accepted our email yet (its emails say why they came, offer
        to accept or refuse, and show nothing another person wrote)."""
        return self.audience(email, verified) == consent.PENDING

    @staticmethod
    def neutral_names(names: list[str], seat: int, tr: Translator | None = None) -> list[str]:
        """The seats as an email to an address that has not accepted shows them: no name a person
        typed ("Player 2"), the recipient's own as "you"."""
        tr = tr or translator(None)
        return [(tr._("you") if i == seat else tr._("Player {number}", number=i + 1))
                for i in range(len(names))]

    def consent_urls(self, email: str) -> tuple[str, str]:
        """The invitation's two links: accept every email of the service's games, or refuse them all
        (pages with a button: api/email_pages.py; mail scanners open links)."""
        address = email.strip().lower()
        return (addresses.signed_url(self.cfg.secret, self.cfg.public_url, "/email/consent",
                                     address=address, choice="accept"),
                addresses.signed_url(self.cfg.secret, self.cfg.public_url, "/email/consent",
                                     address=address, choice="refuse"))

    @staticmethod
    def others(names: list[str], seat: int, tr: Translator | None = None) -> str:
        """The other players' names, as the thread subject says them."""
        from .compose import names_text
        return names_text([n for i, n in enumerate(names) if i != seat] or names, tr or translator(None))

    def send_once(self, once_key: str, email: str, msg, first: bool = False, *, game_id: str | None = None,
                  seat: int | None = None, after=None, thread: bytes | None = None,
                  refs: list[bytes] | None = None, subject: bytes | None = None, scope: str | None = None,
                  verified: bool | None = None, who: str | None = None, own_game: bool = False) -> int:
        """Send ``msg`` to ``email`` once under ``once_key``; when it was the address's ``first``
        email (the one explaining the dashboard link) and it went out, the address is told.

        Every email gets ``Date``, a ``Message-ID`` derived from ``once_key`` (a resend keeps it)
        and one-click ``List-Unsubscribe``. The emails of one game to one seat form a thread: the
        first one's Message-ID is the seat's thread root; each later one replies to the one before
        it and references the root and the latest ones (``thread_refs_key``), so every client
        threads the game. ``after``: a pipeline of the caller's, executed once the email is queued,
        that records the address as told (instead of a round trip of its own). ``thread`` and
        ``refs``: the seat's thread marker and its latest Message-IDs as the caller read them; the
        marker never changes once set, so only a missing one is set here; ``subject``: the thread's
        kept subject, read with them (:func:`subject_key`). ``scope``: what the email is about, for
        the bound per game of an address that has not accepted (mail/consent.py; the game by
        default, else the once-key); ``verified``: whether the address has acted on our email, and
        ``who``: what it said to our email (application/consent.py), if the caller read them.

        Every email passes the recipient's gate first (mail/consent.py): its budget, and consent;
        one held back is recorded for the dashboard and the game page, and nothing is sent."""
        if game_id is not None and seat is not None and (thread is None or refs is None):
            pipe = self.r.pipeline(transaction=False)
            pipe.get(thread_key(game_id, seat))
            pipe.lrange(thread_refs_key(game_id, seat), 0, -1)
            pipe.get(subject_key(game_id, seat))
            thread, refs, subject = pipe.execute()
        if email:
            opened = thread is not None and thread.decode() != once_key
            verdict = self.gate.check(email, once_key, game_id=game_id, seat=seat, scope=scope or game_id,
                                      thread_open=opened, own_game=own_game, verified=verified, who=who)
            if not verdict.send:
                return 0
        msgid = in_reply_to = None
        earlier: list[str] = []
        if game_id is not None and seat is not None:
            root = thread_root_id(game_id, seat, self.cfg.domain)
            if thread is None:
                key = thread_key(game_id, seat)
                pipe = self.r.pipeline(transaction=False)  # one round trip, in this order
                pipe.set(key, once_key, nx=True, ex=SENT_TTL)
                pipe.get(key)
                _, thread = pipe.execute()
            if (thread or b"").decode() == once_key:
                msgid = root
                self.r.set(subject_key(game_id, seat), str(msg["Subject"]), ex=SENT_TTL)
            else:
                chain = [root] + [r.decode() for r in refs or []]
                in_reply_to, earlier = chain[-1], chain[:-1]
                # the thread keeps its first email's subject (an invitation's names no one, and
                # mail clients thread by subject too): one conversation per game
                # (every language's thread subject ends in the game's id and a bracket)
                if subject is not None and str(msg["Subject"]).endswith(f" {game_id})"):
                    _replace(msg, "Subject", subject.decode())
        finish_headers(msg, domain=self.cfg.domain, once_key=once_key, msgid=msgid, in_reply_to=in_reply_to,
                       references=earlier, unsubscribe_url=self.unsubscribe_url(email) if email else None)
        sent = self.outbox.enqueue(once_key, msg)  # delivered at once, or by the outbox's sweep
        if sent and game_id is not None and seat is not None and msgid is None:
            pipe = after if after is not None else self.r.pipeline(transaction=False)
            key = thread_refs_key(game_id, seat)
            pipe.rpush(key, str(msg["Message-ID"]))
            pipe.ltrim(key, -MAX_REFERENCES, -1)
            pipe.expire(key, SENT_TTL)
            if after is None:
                pipe.execute()
        if sent and first:
            email = email.strip().lower()
            (after if after is not None else self.r).sadd(TOLD.key(email), email)
        return int(sent)

    def notice(self, subject: str, email: str) -> EmailMessage:
        """A plain email from us to ``email``; ``send_once`` adds Date, Message-ID, threading and
        one-click unsubscribe. (Its ``Content-Language`` goes on once its content is set:
        mail/compose.py ``say_language``.)"""
        msg = EmailMessage()
        msg["Subject"], msg["From"], msg["To"] = subject, self.cfg.from_addr, email
        return msg

    def dashboard_lines(self, email: str, first: bool, tr: Translator | None = None) -> list[str]:
        """The dashboard link for the end of an email; explained in the address's first email."""
        return dashboard_text(self.dashboard_url(email, lang=(tr or translator(None)).lang), first,
                              tr or translator(None))

    def unsubscribe_url(self, email: str) -> str:
        # a page (api/email_pages.py); the parameter is not called "email": a link that ends in
        # "email=<the recipient>" is a spam sign to SpamAssassin (GB_CUSTOM_HTM_URI)
        return addresses.signed_url(self.cfg.secret, self.cfg.public_url, "/email/unsubscribe",
                                    address=email.lower())

    def _claimed(self, index, due_by: float, max_attempts: int, budget: float | None):
        """The entries of ``index`` (``mail:due``, ``mail:later``: ``<game>:<seat>:<version>``) due by
        ``due_by``, each claimed for an attempt: (member, game, seat, version, the attempt's number).
        An unreadable entry is dropped, one past ``max_attempts`` given up (an error in the log);
        after ``budget`` seconds the entries left wait for the next sweep."""
        stop_at = time.monotonic() + budget if budget is not None else float("inf")
        for member in index.due(self.r, due_by):
            if time.monotonic() >= stop_at:
                log.warning("the %s sweep ran out of its time: the entries left wait for the next sweep",
                            index.name)
                return
            try:
                game_id, seat, version = member.decode().rsplit(":", 2)
                seat, version = int(seat), int(version)
            except (UnicodeDecodeError, ValueError):
                log.warning("dropping the unreadable %s entry %r", index.name, member)
                remove(self.r, index, member)
                continue
            tries = begin_attempt(self.r, index, member)
            if tries > max_attempts:
                log.error("giving up the %s entry %r: %d attempts failed or did not finish", index.name,
                          member, tries - 1)
                remove(self.r, index, member)
                end_attempt(self.r, index, member)
                continue
            yield member, game_id, seat, version, tries

    def _attempt(self, index, member, game_id: str, tries: int, max_attempts: int, send) -> int:
        """``send()`` for a claimed entry: done, it ends the attempt; a game gone is forgotten; any
        other failure leaves the entry for the next sweep."""
        try:
            sent = send()
        except ServiceError as e:
            if e.kind == "not-found":
                forget_game(self.r, game_id)  # the game is gone
                end_attempt(self.r, index, member)
            else:
                log.warning("%s %r: %s (attempt %d of %d)", index.name, member, e, tries, max_attempts)
        except Exception:
            log.warning("%s %r failed (attempt %d of %d); tried again at the next sweep", index.name, member,
                        tries, max_attempts, exc_info=True)
        else:
            end_attempt(self.r, index, member)
            return sent
        return 0


def _in_language(lang: str | None) -> str:
    """The query that opens a page in ``lang`` (the footer's switch, docs/i18n.md), none for English."""
    return f"?lang={quote(lang)}" if lang and lang != "en" else ""
