"""The real dependencies of ``mail.mailin.handle_inbound`` (:class:`InboundReplies`, one method per
command a reply may hold and per dependency): the application service, the outbox, the duplicate
filter, and the answers (a confirmation that, while the decision is still the
player's, carries the new position, legal moves and a reply address for the new version).

Every answer is queued in the outbox (mail/outbox.py) under a once-key of the inbound email and
the answer's kind before it is sent, so an SMTP server that is away loses no confirmation or
error email. Over SMTP the first attempt runs in the background: the listener answers its SMTP
client without waiting for our own mail server."""
from __future__ import annotations

import logging
import os
import re
import time
import uuid
from functools import lru_cache

import games
from application import consent, errors
from application.clock import make_clock
from application.dashboard import mark_verified
from application.game_service import GameService
from application.seats import seat_names
from application.messages import TableTalk
from application.together import Together

from tablepost.i18n import ENGLISH, N_, Translator

from .compose import (answer_subject, confirmation_email, error_email, finish_headers, hello, ignored_note,
                      message_ids, simple_email, thread_subject, unplayed_note)
from .mailconfig import MailConfig
from .mailin import Deps, _first_address
from .messages import refused_note
from .notify import Notifier
from .notify_base import email_game, kept_subject
from .outbox import Outbox
from .transports import SmtpTransport, transport_from_env

log = logging.getLogger("tablepost.mailin")
SEEN_TTL = 30 * 24 * 3600
# The commands of a reply, in every language (docs/pbem.md, docs/i18n.md): "vacation on/off",
# "Urlaub an/aus", "vacances oui/non"; "resign", "aufgeben", "abandonner". A reply of one of the
# resign words alone resigns.
_ON, _OFF = ("on", "an", "ein", "oui"), ("off", "aus", "non")
VACATION = re.compile(r"^\s*(?:vacation|urlaub|vacances)\s+(" + "|".join(_ON + _OFF) + r")\s*$",
                      re.IGNORECASE)
RESIGN = re.compile(r"^\s*(?:resign|aufgeben|abandonner)\s*$", re.IGNORECASE)

# The pipeline's own reasons for refusing a reply (mail/mailin.py), by code, said in the player's
# language; the service's refusals (application/errors.py, their details said with their catalog
# message) by the catalog; the game's rule as the game said it in the seat's language.
REASONS = {
    "no-moves": N_("no moves were found in your email: write one move per line, above the quoted turn email"),
    "stale-turn": N_("this email was for an old turn, and the game has moved on since. None of its moves "
                     "were played: reply to the latest turn email instead."),
    "resign-alone": N_("to resign, reply with the one line 'resign' and nothing else"),
    "unauthenticated-sender": N_("a reply that claimed to be from you failed our mail server's sender checks "
                                 "(SPF/DKIM/DMARC): nothing was played or posted. If it was you, reply again "
                                 "from your usual mail account; if not, someone wrote in your name, and you "
                                 "need do nothing."),
}


@lru_cache(maxsize=8)
def _outbox(r, smtp_url: str | None, data_dir: str | None) -> Outbox:
    """One outbox (one kept-open SMTP connection, one background sender) per Redis and mail
    settings in this process."""
    transport = transport_from_env()
    return Outbox(r, transport, background=isinstance(transport, SmtpTransport))


def inbound_deps(svc: GameService) -> Deps:
    """What ``handle_inbound`` needs, from the service (:class:`InboundReplies`)."""
    return InboundReplies(svc).deps()


def _switch(line: str) -> bool | None:
    """True for a line 'vacation on', False for 'vacation off', None for any other line."""
    m = VACATION.match(line)
    return None if m is None else m.group(1).lower() in _ON


class InboundReplies:
    """A reply's commands played on the service, and the answers. A reply holds moves, or the
    lines 'vacation on' / 'vacation off' among them (a setting of the seat, applied once the moves
    are), or the one line 'resign' (docs/pbem.md): :meth:`submit` hands each to its command's
    method (:meth:`moves`, :meth:`vacation`, :meth:`resign`), and :meth:`confirmation` says what
    each did. :meth:`deps` is what ``mail.mailin.handle_inbound`` is given."""

    def __init__(self, svc: GameService):
        self.svc = svc
        self.cfg = MailConfig.from_env()
        self.r = svc.store.r
        self.outbox = _outbox(self.r, os.environ.get("TABLEPOST_SMTP_URL"),
                              os.environ.get("TABLEPOST_DATA_DIR"))
        self.notifier = Notifier(svc, self.outbox, self.cfg)

    def deps(self) -> Deps:
        return Deps(secret=self.cfg.secret, submit=self.submit, legal_moves=self.legal_moves,
                    send_reply=self.send_reply, seen=self.seen, from_addr=self.cfg.from_addr,
                    compose_confirmation=self.confirmation, compose_error=self.error,
                    compose_stale=self.stale, seat_email=self.seat_email, authserv_id=self.cfg.authserv_id,
                    accepted=lambda email: consent.accept(self.svc.store.r, email, time.time()),
                    unauthenticated=self.cfg.unauthenticated, send_reply_once=self.send_reply_once,
                    is_move=self.is_move, post_message=self.post_message, talk_current=self.talk_current,
                    clock=make_clock(self.r))

    # --- the commands ------------------------------------------------------------------------------

    def post_message(self, game_id: str, seat: int, text: str) -> dict:
        """A reply's message to the table (mail/messages.py), from the seat's own address."""
        mark_verified(self.svc.store.r, self.seat_email(game_id, seat))
        return TableTalk(self.svc).post_for_seat(game_id, seat, text)

    def talk_current(self, game_id: str, seat: int) -> int | None:
        """The message number of the seat's current talk address: its latest message email's."""
        return TableTalk(self.svc).talk_address(game_id, seat)

    def is_move(self, game_id: str, seat: int, line: str) -> bool:
        """Whether ``line`` is written as a move of the game or a command of a reply."""
        if _switch(line) is not None or RESIGN.match(line):
            return True
        try:
            games.of_meta(self.svc.meta(game_id)).parse(line)
            return True
        except errors.ENGINE_ERRORS:
            return False

    def submit(self, game_id: str, seat: int, version: int, lines: list[str], then=None) -> dict:
        """A reply's lines, each to its command: all or nothing, as the API plays moves. ``then``: what
        to do once they are saved and before anyone is told (the reply's message, posted)."""
        if any(RESIGN.match(line) for line in lines):
            return self.resign(game_id, seat, lines)   # the message after it (``then`` is not run)
        if any(_switch(line) is not None for line in lines):
            return self.vacation(game_id, seat, version, lines, then)
        return self.moves(game_id, seat, version, lines, then)

    def moves(self, game_id: str, seat: int, version: int, moves: list[str], then=None) -> dict:
        """Moves by reply, played as the API plays them."""
        # the reply came from the seat's own address to the signed reply address of our email to it:
        # verified before its moves, whose emails (tasks that may run at once) must see it
        mark_verified(self.r, self.seat_email(game_id, seat))
        # a move refused is answered in the seat's language, its reason too (the game's words)
        return self.svc.submit_for_seat(game_id, seat, version, moves, then=then,
                                        lang=self.lang_of(game_id, seat))

    def vacation(self, game_id: str, seat: int, version: int, lines: list[str], then=None) -> dict:
        """'vacation on' / 'vacation off' lines start and stop the seat's vacation; the other lines
        are moves. A setting that would be refused plays nothing; the settings apply only once the
        moves are played, so a reply whose moves are refused (illegal, an old turn) changes nothing."""
        switches = [(i, _switch(line)) for i, line in enumerate(lines) if _switch(line) is not None]
        rest = [line for line in lines if _switch(line) is None]
        deadlines = self.notifier.deadlines()
        for i, on in switches:
            try:
                deadlines.check_vacation(game_id, seat, on)
            except ValueError as e:
                raise errors.invalid("no-vacation-left", e.args[0], move_index=i) from None
        if rest:
            answer = self.moves(game_id, seat, version, rest, then)
        else:
            mark_verified(self.r, self.seat_email(game_id, seat))
            answer = None
        for _, on in switches:
            try:
                deadlines.vacation(game_id, seat, on)
            except ValueError:  # pragma: no cover - the allowance ran out since the check: the moves stand
                log.warning("mailin: %s seat %s: vacation %s after the moves, refused: no vacation time left",
                            game_id, seat, "on" if on else "off")
        return answer if answer is not None else {"version": self.svc.load(game_id)[1].version}

    @staticmethod
    def vacation_done(lines: list[str], tr: Translator = ENGLISH) -> list[str]:
        """What a reply's vacation lines did, in words ('vacation on')."""
        return [tr._("vacation on") if on else tr._("vacation off")
                for on in map(_switch, lines) if on is not None]

    def resign(self, game_id: str, seat: int, lines: list[str]) -> dict:
        """A reply of the one line 'resign' resigns the seat; with anything else, nothing is done."""
        if len(lines) > 1:   # never a move played and the game resigned by one reply
            raise errors.invalid("resign-alone", "to resign, reply with the one line 'resign' and "
                                                 "nothing else", move_index=0)
        # the reply came from the seat's own address to our signed reply address: verified before
        # the resignation, whose results email (a task that may run at once) must see it
        mark_verified(self.r, self.seat_email(game_id, seat))
        try:
            done = Together(self.svc).resign(game_id, seat=seat)
        except errors.ServiceError as e:   # over, or resigned already: said as such, not "an old turn"
            if e.kind != "conflict":
                raise
            raise errors.invalid(e.code, e.detail, move_index=0) from None
        return {"version": done["version"]}

    # --- what the pipeline reads ---------------------------------------------------------------------

    def legal_moves(self, game_id: str, seat: int) -> list[tuple[str, str]]:
        meta, state = self.svc.load(game_id)
        game, info = email_game(meta), meta["seats"][seat]
        tr = self.notifier.voice(info.get("email"), info)[0]   # the moves' words in the seat's language
        return game.email_moves(state, seat, seat_names(meta), **games.in_language(game, tr.lang))

    def lang_of(self, game_id: str, seat: int) -> str:
        """The language the seat's emails speak (its address's choice, else the seat's)."""
        info = self.svc.meta(game_id)["seats"][seat]
        return self.notifier.voice(info.get("email"), info)[0].lang

    def seen(self, key: str) -> bool:
        return not self.r.set(f"mail:in:{key}", 1, nx=True, ex=SEEN_TTL)

    def seat_email(self, game_id: str, seat: int) -> str | None:
        seats = self.svc.meta(game_id)["seats"]
        if not 0 <= seat < len(seats) or seats[seat]["kind"] != "human":
            return None
        return seats[seat].get("email")

    def title_of(self, game_id: str | None) -> str:
        try:
            return games.of_meta(self.svc.meta(game_id) if game_id else {}).title
        except Exception:  # an unknown game: the answer still goes out, titled by the registry's default
            return games.get(None).title

    # --- the answers -------------------------------------------------------------------------------

    def error(self, **ctx):
        """The styled error email (mail/compose.py) for every refusal: the failing line, why, the
        seat's legal moves and a legal example, in the game's thread."""
        game_id, seat = ctx.get("game_id"), ctx.get("seat")
        extra: dict = {"title": self.title_of(game_id)}
        try:
            meta, state = self.svc.load(game_id)
            game, names = games.of_meta(meta), seat_names(meta)
            tr = extra["tr"] = self.notifier.voice(meta["seats"][seat].get("email"), meta["seats"][seat])[0]
            if ctx.get("code") in REASONS and tr is not ENGLISH:
                extra["reason"] = tr._(REASONS[ctx["code"]])
            elif ctx.get("reason") and tr is not ENGLISH:   # the service's refusal (a Said) in the
                extra["reason"] = tr.say(ctx["reason"])     # language; the game's, said in it already
            # no link to the game: a refusal may answer a forged email, and carries no credential
            extra.update(seat_name=names[seat], subject=kept_subject(self.svc.store.r, game_id, seat)
                         or thread_subject(games.title_in(game, tr.lang), names, seat, game_id, tr))
            extra["title"] = games.title_in(game, tr.lang)
            if ctx.get("legal_moves"):
                extra["example"] = game.email_example(state, seat)
                extra["hint"] = game.email_reply_hint(**games.in_language(game, tr.lang))
        except Exception:  # the game is gone or unreadable: the answer still goes out
            log.warning("mailin: no game context for the error answer on %s", game_id, exc_info=True)
        return error_email(**{**ctx, **extra})

    def confirmation(self, **ctx):
        """What the reply did: resigned; the next step of the same turn (the turn email again);
        vacation on or off; or the moves played and whose decision it is now."""
        notifier, cfg = self.notifier, self.cfg
        meta, state = self.svc.load(ctx["game_id"])
        game = games.of_meta(meta)
        seat = ctx["seat"]
        names = seat_names(meta)
        tr, _tz = notifier.voice(meta["seats"][seat].get("email"), meta["seats"][seat])
        title = games.title_in(game, tr.lang)
        subject = answer_subject(kept_subject(self.svc.store.r, ctx["game_id"], seat)
                                 or thread_subject(title, names, seat, ctx["game_id"], tr), tr)
        moves = ctx.get("moves") or []
        if any(RESIGN.match(m) for m in moves):
            return simple_email(subject=subject, from_addr=cfg.from_addr, to_addr=ctx["to"],
                                lines=[hello(names[seat], tr), "", tr._("You resigned from this game."),
                                       "", tr._("Open the game: {url}",
                                                url=notifier.open_url(ctx["game_id"], seat, lang=tr.lang))],
                                headline=tr._("You resigned."), lang=tr.lang)
        # "vacation on/off" is a setting, not a move: say so, and what was played besides
        switches = [on for on in map(_switch, moves) if on is not None]
        done = self.vacation_done(moves, tr)
        played = [m for m in moves if _switch(m) is None]
        settings = bool(done)
        if played:
            done.insert(0, tr._("played {moves}", moves=", ".join(played)))
        what = "; ".join(done) or tr._("nothing played")
        ignored = ctx.get("ignored") or []
        said = refused_note(ctx.get("message_refused"), tr)   # the moves were played, the message not
        if not game.is_over(state) and game.actor(state) == seat:
            # the next step of the same turn; say first what was done besides moves, which lines
            # were ignored, and which moves were not played because one revealed chance
            intro = " ".join(x for x in (said, tr._("Done: {what}.", what=what) if settings else "",
                                         ignored_note(ignored, tr),
                                         unplayed_note(ctx.get("unplayed") or [], tr))
                             if x)
            msg = notifier.turn_message(ctx["game_id"], meta, state, seat, intro=intro,
                                        headline=tr._("{what}. Your move again.",
                                                      what=f"{what[:1].upper()}{what[1:]}"))
            del msg["Subject"]
            msg["Subject"] = subject
            return msg
        if settings and not played:
            lines = [hello(names[seat], tr), "", tr._("Your clock stops while you are on vacation.")
                     if switches[-1] else
                     tr._("Your clock runs again; your deadline moved back by the time you were away.")]
            if ignored:
                lines += ["", ignored_note(ignored, tr)]
            if said:
                lines += ["", said]
            return simple_email(subject=subject, from_addr=cfg.from_addr, to_addr=ctx["to"], lines=lines,
                                headline=tr._("Done: {what}.", what=what), lang=tr.lang)
        actor = None if game.is_over(state) else game.actor(state)
        nxt = names[actor] if actor is not None else None
        return confirmation_email(to_addr=ctx["to"], from_addr=cfg.from_addr, reply_to=None,
                                  game_id=ctx["game_id"], seat_name=names[seat], moves=played,
                                  next_to_act=nxt, in_reply_to=ctx.get("in_reply_to"),
                                  references=ctx.get("references"),
                                  unplayed=ctx.get("unplayed") or [], ignored=ignored, title=title,
                                  subject=subject,
                                  open_url=notifier.open_url(ctx["game_id"], seat, lang=tr.lang),
                                  message_note=said, tr=tr)

    def stale(self, game_id: str, seat: int, version: int, current_version=None, moves=(), in_reply_to=None,
              **_):
        """A reply to an old turn: the current turn when it is the seat's decision (its reply address
        is the current one), else whose decision it is. Only to the seat's own address."""
        meta, state = self.svc.load(game_id)
        game = games.of_meta(meta)
        email = meta["seats"][seat].get("email")
        if not email:
            return None
        names = seat_names(meta)
        tr, _tz = self.notifier.voice(email, meta["seats"][seat])
        title = games.title_in(game, tr.lang)
        subject = answer_subject(kept_subject(self.svc.store.r, game_id, seat)
                                 or thread_subject(title, names, seat, game_id, tr), tr)
        why = tr._("Your email was for an old turn, and the game has moved on since: none of its moves were "
                   "played.")
        if not game.is_over(state) and game.actor(state) == seat:
            msg = self.notifier.turn_message(
                game_id, meta, state, seat,
                intro=why + " " + tr._("Here is your decision now: reply to this email."),
                headline=tr._("That email was for an old turn; your move now."))
            del msg["Subject"]
            msg["Subject"] = subject
            return msg
        actor = game.actor(state)   # None once the game is over
        now = tr._("The game is over.") if game.is_over(state) or actor is None else (
            tr._("It is now {name}'s decision; you get an email when it is yours again.", name=names[actor]))
        return simple_email(subject=subject, from_addr=self.cfg.from_addr, to_addr=email,
                            lines=[hello(names[seat], tr), "", why, now, "",
                                   tr._("Open the game: {url}",
                                        url=self.notifier.open_url(game_id, seat, lang=tr.lang))],
                            headline=tr._("That email was for an old turn: nothing was played."),
                            lang=tr.lang)

    def send_reply_once(self, key: str, msg) -> None:
        to = _first_address(str(msg["To"] or "")) or ""
        theirs = str(msg["In-Reply-To"] or "").strip() or None
        chain = [m for m in message_ids(msg["References"]) if m != theirs]
        # Date, a Message-ID of our domain derived from the once-key (the same on every resend),
        # threaded under the player's email, and one-click unsubscribe: every email we send; then
        # through the outbox, which keeps it until the SMTP server has accepted it
        finish_headers(msg, domain=self.cfg.domain, once_key=key, in_reply_to=theirs, references=chain,
                       unsubscribe_url=self.notifier.unsubscribe_url(to) if to else None)
        self.outbox.enqueue(key, msg)

    def send_reply(self, msg) -> None:  # an answer without a key of its own: still through the outbox
        theirs = str(msg["In-Reply-To"] or "").strip()
        self.send_reply_once(f"answer:{theirs}:{msg['Subject']}:{msg['Reply-To'] or ''}" if theirs
                             else f"reply:{uuid.uuid4().hex}", msg)
