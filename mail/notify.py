"""Turn emails: who to tell what after a save (docs/pbem.md).

``Notifier.notify(game_id, version)`` re-reads the game. If a human seat with an email address
became the actor at ``version`` and the game is still there, that seat gets its turn email, once
(key ``turn:<game>:<seat>:<version>``). When the game is over every player gets the results,
once. Players who chose "none" get nothing; "digest" players are collected for the daily digest.
"""
from __future__ import annotations

import json
import logging
import time
from email.message import EmailMessage

import games
from application import links, live, waiting
from application.clock import make_clock
from application.dashboard import ME_EMAIL, TOLD, VERIFIED, dashboard_key_for, play_path
from application.board_svg import email_pictures
from application.deadlines import (MAX_ATTEMPTS, Deadlines, format_deadline, plural, remaining_text,
                                  timeout_policy)
from application.errors import ServiceError
from application.game_service import GameService
from application.indexes import (GENERATIONS, MAIL_DELAY, MAIL_DUE, MAIL_LATER, PREFS, SEAT_STATE, add,
                                 begin_attempt, end_attempt, forget_due, forget_game, registry, remove)
from application.lobby import address_refusal
from application.notifications import DIGEST, preference
from application.players import player_id
from application.resigned import final_places, resigned_of
from application.seats import seat_names

from . import addresses
from .board_png import board_png, png_width
from .compose import (InlineImage, TurnContext, dashboard_text, finish_headers, first_contact, one_line,
                      simple_email, thread_root_id, thread_subject, turn_email)
from .mailconfig import MailConfig
from .compose import MAX_REFERENCES
from .outbox import SENT_TTL, Outbox

log = logging.getLogger("tiletum.notify")

# KEYS: the address's allowance in one scope, its count today (one slot: the player id's hash tag);
# ARGV: the once-key, the daily cap, the scope's and the day's lifetimes. 1: send, 0: do not.
STRANGER_GATE = """
local held = redis.call('GET', KEYS[1])
if held then
  if held == ARGV[1] then return 1 end
  return 0
end
local n = tonumber(redis.call('GET', KEYS[2]) or '0')
if n >= tonumber(ARGV[2]) then return 0 end
redis.call('INCR', KEYS[2])
redis.call('EXPIRE', KEYS[2], ARGV[4])
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[3])
return 1
"""


def thread_key(game_id: str, seat: int) -> str:
    """The once-key of the seat's first email in the game: its Message-ID is the thread's root."""
    return f"mail:thread:{game_id}:{seat}"


def thread_refs_key(game_id: str, seat: int) -> str:
    """The Message-IDs of the latest emails of the seat's thread, oldest first (a capped list):
    each new email replies to the last and references the root and them."""
    return f"mail:thread:refs:{game_id}:{seat}"


class Notifier:
    def __init__(self, service: GameService, outbox: Outbox, cfg: MailConfig):
        self.service = service
        self.outbox = outbox
        self.cfg = cfg
        self.r = service.store.r
        self.clock = make_clock(self.r)   # live seats, the grace of their turn emails (application/live.py)
        self._stranger_gate = self.r.register_script(STRANGER_GATE)

    def deadlines(self):
        return Deadlines(self.service, self, make_clock(self.r))

    def remind(self, game_id: str, seat: int, version: int, hours: float) -> int:
        """A reminder email before the deadline (once per turn and reminder point). It says the
        true time left, from the seat's actual deadline (moved by a vacation), not ``hours``."""
        meta, state = self.service.load(game_id)
        email = meta["seats"][seat].get("email")
        if preference(self.r, email) != "move" or games.of_meta(meta).actor(state) != seat:
            return 0
        dl = self.deadlines()
        due = dl.deadline_of(game_id, seat)
        if due is not None and due <= dl.clock():
            return 0   # the deadline passed: the deadline sweep acts, a reminder would say "due in 0 minutes"
        left = f"due in {remaining_text(due - dl.clock())}" if due is not None else "due soon"
        headline = f"Reminder: your move is {left}."
        said = f"reminded:{game_id}:{seat}:{version}"   # the turn's last reminder: never two the same
        if self.r.get(said) == headline.encode():
            return 0
        msg = self.turn_message(game_id, meta, state, seat, deadline=due, first=self.stranger(email),
                                headline=headline)
        key = f"reminder:{game_id}:{seat}:{version}:{hours:g}"
        sent = self.send_once(key, email, msg, game_id=game_id, seat=seat)
        if sent:
            self.r.set(said, headline, ex=SENT_TTL)
        return sent

    def stand_in_notice(self, game_id: str, seat: int, version: int, kind: str) -> int:
        """Tell a player that the stand-in played their turn that started at ``version`` (it missed
        its deadline), or that they were dropped (``kind == "dropped"``). Once per turn."""
        meta, state = self.service.load(game_id)
        info = meta["seats"][seat]
        email = info.get("email")
        if info["kind"] != "human" or not email or preference(self.r, email) == "none":
            return 0
        names = seat_names(meta)
        game = games.of_meta(meta)
        played = [e["text"] for e in self.service.events_after(game_id, version)
                  if e.get("seat") == seat and e.get("by") == "stand-in"]
        policy = timeout_policy(meta)
        missed = self.deadlines().seat_state(game_id, seat)["missed"]
        lines = [f"Hello {names[seat]},", "",
                 f"Your turn in {game.title} with {self.others(names, seat)} missed its deadline, so the "
                 "stand-in played it for you:"]
        lines += [f"  - {t}" for t in played] or ["  - (nothing: the turn had already passed)"]
        lines.append("")
        if kind == "dropped":
            headline = "You were dropped: the stand-in plays your seat."
            lines += [f"You missed {plural(missed, 'deadline')}, so the stand-in plays your seat for the "
                      "rest of the game.",
                      "You get no more turn emails for this game; the results come at the end."]
        else:
            headline = "The stand-in played your turn."
            if policy["mode"] == "drop":
                lines.append(
                    f"Missed deadlines: {missed} of {policy['drop_after']}; at {policy['drop_after']} the "
                    "stand-in plays your seat for the rest of the game.")
            lines.append("You keep your seat: your next turn is yours again, with its own email.")
        if not game.is_over(state):
            actor = game.actor(state)
            nxt = names[actor] if actor is not None else None
            if nxt:
                lines.append(f"It is now {nxt}'s decision.")
        lines += ["", f"Open the game: {self.open_url(game_id, seat)}",
                  f"Unsubscribe (one click, every email from us): {self.unsubscribe_url(email)}"]
        msg = simple_email(subject=thread_subject(game.title, names, seat, game_id),
                           from_addr=self.cfg.from_addr, to_addr=email, lines=lines, headline=headline)
        return self.send_once(f"stand-in:{game_id}:{seat}:{version}:{kind}", email, msg, game_id=game_id,
                              seat=seat)

    # --- links -------------------------------------------------------------------------------
    def reply_to(self, game_id: str, seat: int, version: int) -> str:
        return addresses.reply_address(self.cfg.secret, self.cfg.domain, game_id, seat, version)

    def move_url(self, game_id: str, seat: int, version: int, move: str) -> str:
        return addresses.signed_url(self.cfg.secret, self.cfg.public_url, f"/email/move/{game_id}",
                                    seat=str(seat), version=str(version), move=move)

    def open_url(self, game_id: str, seat: int, generation: int | None = None) -> str:
        """The game page opened as the seat: its link token in the fragment (application/links.py), which
        browsers never send to the server; never in the query string."""
        return self.cfg.public_url + play_path(self.r, game_id, seat, generation)

    def dashboard_url(self, email: str, generation: int | None = None) -> str:
        """The address's private dashboard: ``/me#key=<dashboard key>`` (application/links.py)."""
        return f"{self.cfg.public_url}/me#key={dashboard_key_for(self.r, email, generation)}"

    def first_email(self, email: str) -> bool:
        """Whether this address has not yet been sent its dashboard link."""
        email = email.strip().lower()
        return not self.r.sismember(TOLD.key(email), email)

    def stranger(self, email: str, verified: bool | None = None) -> bool:
        """Whether an email to this address must say why it came and how to stop every email (as
        the address's first email does): it has never acted on an email of ours (a stranger may have
        typed it), where the limit on emailing such addresses is on (``MailConfig.new_address_daily``)."""
        if self.cfg.new_address_daily is None:
            return False
        if verified is None:
            verified = bool(self.r.exists(VERIFIED + player_id(self.r, email)))
        return not verified or self.first_email(email)

    def may_email(self, email: str, scope: str, once_key: str, verified: bool | None = None) -> bool:
        """The limit on emailing an address that has never acted on our email (docs/pbem.md, "No one
        floods another's inbox"): at most one email per ``scope`` (a game, a waiting game) and
        ``MailConfig.new_address_daily`` a day across the service, all kinds together. The email
        allowed for a scope stays allowed (``once_key``: the same email queued again). A verified
        address, or none limit configured: always."""
        cap = self.cfg.new_address_daily
        if cap is None:
            return True
        pid = player_id(self.r, email)
        if verified is None:
            verified = bool(self.r.exists(VERIFIED + pid))
        if verified:
            return True
        day = time.strftime("%Y-%m-%d", time.gmtime(self.clock()))
        allowed = self._stranger_gate(keys=[f"mail:stranger:{{{pid}}}:g:{scope}",
                                            f"mail:stranger:{{{pid}}}:d:{day}"],
                                      args=[once_key, cap, SENT_TTL, 2 * 86400])
        if not allowed:
            log.info("not emailing %s (%s): an address that never acted on our email, at its limit", pid,
                     once_key)
        return bool(allowed)

    @staticmethod
    def others(names: list[str], seat: int) -> str:
        """The other players' names, as the thread subject says them."""
        from .compose import names_text
        return names_text([n for i, n in enumerate(names) if i != seat] or names)

    def send_once(self, once_key: str, email: str, msg, first: bool = False, *, game_id: str | None = None,
                  seat: int | None = None, after=None, thread: bytes | None = None,
                  refs: list[bytes] | None = None, scope: str | None = None,
                  verified: bool | None = None) -> int:
        """Send ``msg`` to ``email`` once under ``once_key``; when it was the address's ``first``
        email (the one explaining the dashboard link) and it went out, the address is told.

        Every email gets ``Date``, a ``Message-ID`` derived from ``once_key`` (a resend keeps it)
        and one-click ``List-Unsubscribe``. The emails of one game to one seat form a thread: the
        first one's Message-ID is the seat's thread root; each later one replies to the one before
        it and references the root and the latest ones (``thread_refs_key``), so every client
        threads the game. ``after``: a pipeline of the caller's, executed once the email is queued,
        that records the address as told (instead of a round trip of its own). ``thread`` and
        ``refs``: the seat's thread marker and its latest Message-IDs as the caller read them; the
        marker never changes once set, so only a missing one is set here. ``scope``: what the email
        is about for the limit on emailing strangers (``may_email``; the game by default, else the
        once-key); ``verified``: whether the address has acted on our email, if the caller read it."""
        if email and not self.may_email(email, scope or game_id or once_key, once_key, verified):
            return 0
        msgid = in_reply_to = None
        earlier: list[str] = []
        if game_id is not None and seat is not None:
            root = thread_root_id(game_id, seat, self.cfg.domain)
            if thread is None or refs is None:
                key = thread_key(game_id, seat)
                pipe = self.r.pipeline(transaction=False)  # one round trip, in this order
                pipe.set(key, once_key, nx=True, ex=SENT_TTL)
                pipe.get(key)
                pipe.lrange(thread_refs_key(game_id, seat), 0, -1)
                _, thread, refs = pipe.execute()
            if (thread or b"").decode() == once_key:
                msgid = root
            else:
                chain = [root] + [r.decode() for r in refs or []]
                in_reply_to, earlier = chain[-1], chain[:-1]
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
        one-click unsubscribe."""
        msg = EmailMessage()
        msg["Subject"], msg["From"], msg["To"] = subject, self.cfg.from_addr, email
        return msg

    def dashboard_lines(self, email: str, first: bool) -> list[str]:
        """The dashboard link for the end of an email; explained in the address's first email."""
        return dashboard_text(self.dashboard_url(email), first)

    def unsubscribe_url(self, email: str) -> str:
        # a page (api/email_pages.py); the parameter is not called "email": a link that ends in
        # "email=<the recipient>" is a spam sign to SpamAssassin (GB_CUSTOM_HTM_URI)
        return addresses.signed_url(self.cfg.secret, self.cfg.public_url, "/email/unsubscribe",
                                    address=email.lower())

    # --- what to send -------------------------------------------------------------------------
    def notify(self, game_id: str, version: int) -> int:
        """Send what is due for the game at ``version``; returns the number of emails queued in the
        outbox (each is delivered at once, or by the sweep when the SMTP server is away)."""
        meta, state = self.service.load(game_id)
        game = games.of_meta(meta)
        if game.is_over(state):
            forget_due(self.r, game_id)
            return self._results(game_id, meta, state)
        seat = game.actor(state)
        ahead = self._read_ahead(game_id, meta, state, seat, version)
        after = self.r.pipeline(transaction=False)  # what follows the email, in one round trip
        sent = self._turn(game_id, version, meta, state, seat, ahead, after)
        # only once the email is in the outbox (or none is due): a failure before leaves the
        # marker for sweep_notifications; this turn's entry, and any older one, leave the index
        # (the game's registry as read above: an entry added since is a later turn's)
        forget_due(self.r, game_id, upto_version=state.version, members=ahead.get("registry"), pipe=after)
        after.execute()
        return sent

    def _read_ahead(self, game_id: str, meta: dict, state, seat: int | None,
                    version: int) -> dict:
        """What a turn email reads from Redis besides the game, in one round trip (a pipeline, not a
        transaction: on a cluster its keys are in several slots): the game's index registry, the
        seat's deadline state, the address's email setting and whether it was told its dashboard
        link, and the link generations of the seat and of the player."""
        pipe = self.r.pipeline(transaction=False)
        pipe.smembers(registry(game_id))
        names = ["registry"]
        if seat is not None and state.version == version and meta["seats"][seat]["kind"] == "human":
            pipe.hget(SEAT_STATE.key(game_id), f"{game_id}:{seat}")
            names.append("seat_state")
            email = meta["seats"][seat].get("email")
            if email:  # the same keys as notifications.preference and first_email
                field, pid = f"{game_id}:{seat}", "me:" + player_id(self.r, email)
                pipe.hget(PREFS.key(email.lower()), email.lower())
                pipe.sismember(TOLD.key(email.strip().lower()), email.strip().lower())
                pipe.hget(GENERATIONS.key(field), field)
                pipe.hget(GENERATIONS.key(pid), pid)
                pipe.get(thread_key(game_id, seat))
                pipe.lrange(thread_refs_key(game_id, seat), 0, -1)
                pipe.hget(MAIL_DELAY.key(email.lower()), email.lower())
                pipe.exists(VERIFIED + pid[len("me:"):])
                live.read_pipe(pipe, game_id, seat)
                names += ["pref", "told", "seat_generation", "me_generation", "thread", "refs", "delay",
                          "verified", "live"]
        out = dict(zip(names, pipe.execute()))
        if "seat_state" in out:
            out["dropped"] = bool(out["seat_state"] and json.loads(out["seat_state"]).get("dropped"))
        if "pref" in out:
            out["pref"] = out["pref"].decode() if out["pref"] else "move"
            out["seat_generation"] = int(out["seat_generation"] or 0)
            out["me_generation"] = int(out["me_generation"] or 0)
            out["verified"] = bool(out["verified"])
            out["live"] = live.parse(out["live"])
            try:
                out["delay"] = float(out["delay"]) * 60 if out["delay"] is not None else self.cfg.live_delay
            except ValueError:
                out["delay"] = self.cfg.live_delay
        return out

    def _turn(self, game_id: str, version: int, meta: dict, state, seat: int | None,
              ahead: dict, after) -> int:
        if seat is None or state.version != version or meta["seats"][seat]["kind"] != "human":
            return 0  # the game moved on since: that turn's player is already playing
        deadlines = self.deadlines()
        if ahead["dropped"]:
            deadlines.stand_in_later(game_id, seat)  # dropped for missing deadlines: the stand-in plays on
            return 0
        due = deadlines.start_turn(game_id, meta, seat, version, ahead["registry"])
        email = meta["seats"][seat].get("email")
        pref = ahead.get("pref", "none")
        if pref == "none":
            return 0
        if pref == "digest":
            self.r.sadd(DIGEST.key(email), f"{email}|{game_id}|{seat}|{version}")
            return 0
        info, now = ahead["live"], self.clock()
        if ahead["delay"] > 0 and info["seen_version"] >= version:
            return 0   # the seat has read this decision with its token already: it knows
        if ahead["delay"] > 0 and live.is_live(info, now):
            # playing live (docs/pbem.md, "No email while you play live"): not now; after the grace,
            # if the decision is still the seat's and it has not looked (sweep_later)
            add(after, MAIL_LATER, game_id, f"{game_id}:{seat}:{version}", now + ahead["delay"])
            return 0
        return self._send_turn(game_id, version, meta, state, seat, ahead, after, due)

    def _send_turn(self, game_id: str, version: int, meta: dict, state, seat: int, ahead: dict, after,
                   due: float | None, seen: int = 0) -> int:
        """Compose and queue the seat's turn email (once per decision: ``turn:<game>:<seat>:<version>``).
        ``seen``: the latest version the seat looked at (what happened after it is told)."""
        email = meta["seats"][seat].get("email")
        first = not ahead["told"] or (self.cfg.new_address_daily is not None and not ahead["verified"])
        msg = self.turn_message(game_id, meta, state, seat, first=first, deadline=due, seen=seen,
                                generations=(ahead["seat_generation"], ahead["me_generation"]))
        return self.send_once(f"turn:{game_id}:{seat}:{version}", email, msg, first, game_id=game_id,
                              seat=seat, after=after, thread=ahead["thread"], refs=ahead["refs"],
                              verified=ahead["verified"])

    def sweep_later(self, max_attempts: int = MAX_ATTEMPTS, budget: float | None = None) -> int:
        """Send the turn emails of live seats whose grace is over (``mail:later``; application/live.py):
        each only if the decision is still the seat's and the seat has not looked at the game since
        it became theirs. Each entry leaves the index once handled; one that fails stays for the next
        sweep, ``max_attempts`` times at most. Idempotent: the email's once-key is the decision's."""
        n = 0
        for member, game_id, seat, version, tries in self._claimed(MAIL_LATER, self.clock(), max_attempts,
                                                                    budget):
            n += self._attempt(MAIL_LATER, member, game_id, tries, max_attempts,
                               lambda: self.send_later(game_id, seat, version))
        return n

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

    def send_later(self, game_id: str, seat: int, version: int) -> int:
        """The deferred turn email of ``seat`` for its decision that began at ``version``: sent when it
        is still that decision and the seat has not looked since; the entry leaves ``mail:later``."""
        meta, state = self.service.load(game_id)
        game = games.of_meta(meta)
        sent = 0
        if (not game.is_over(state) and game.actor(state) == seat and state.version == version
                and meta["seats"][seat]["kind"] == "human"):
            ahead = self._read_ahead(game_id, meta, state, seat, version)
            info = ahead.get("live") or live.parse([])
            if "pref" in ahead and info["seen_version"] < version and not ahead["dropped"]:
                email = meta["seats"][seat]["email"]
                if ahead["pref"] == "move":
                    after = self.r.pipeline(transaction=False)
                    sent = self._send_turn(game_id, version, meta, state, seat, ahead, after, None,
                                           seen=max(info["seen_version"], 0))
                    after.execute()
                elif ahead["pref"] == "digest":
                    self.r.sadd(DIGEST.key(email), f"{email}|{game_id}|{seat}|{version}")
        remove(self.r, MAIL_LATER, f"{game_id}:{seat}:{version}")
        return sent

    def deadline_line(self, meta: dict, seat: int, due: float | None) -> str:
        """``Sun 22 Nov 2026 09:00 UTC (in 3 days)``: in the seat's time zone when the game knows it."""
        if due is None:
            return ""
        now = self.deadlines().clock()
        return f"{format_deadline(due, meta['seats'][seat].get('tz'))} (in {remaining_text(due - now)})"

    def turn_message(self, game_id: str, meta: dict, state, seat: int, first: bool = False,
                     deadline: float | None = None, intro: str = "",
                     generations: tuple[int, int] | None = None, headline: str = "", seen: int = 0):
        """The turn email of ``seat`` in ``state``, its pictures of exactly that position.
        ``generations``: the seat's and the player's link generations, if already read; ``headline``:
        the first line, when not the turn's own ("Your turn."); ``seen``: the latest version the seat
        looked at (what happened since is told; else since its last move)."""
        seat_gen, me_gen = generations or (None, None)
        game = games.of_meta(meta)
        names = seat_names(meta)
        email = meta["seats"][seat]["email"]
        if deadline is None and game.actor(state) == seat:
            deadline = self.deadlines().deadline_of(game_id, seat)
        since = self.since_last_turn(game_id, seat, game, seen)
        return turn_email(TurnContext(
            game_id=game_id, seat=seat, seat_name=names[seat], to_addr=email, from_addr=self.cfg.from_addr,
            reply_to=self.reply_to(game_id, seat, state.version), state=state, seat_names=names,
            since=since,
            open_url=self.open_url(game_id, seat, seat_gen),
            move_urls=self.one_click_moves(game_id, state, seat, game), game=game,
            unsubscribe_url=self.unsubscribe_url(email), dashboard_url=self.dashboard_url(email, me_gen),
            first_email=first, deadline=self.deadline_line(meta, seat, deadline), intro=intro,
            headline=headline, subject=thread_subject(game.title, names, seat, game_id),
            images=self.pictures(game_id, meta, state, seat, since)))

    def pictures(self, game_id: str, meta: dict, state, seat: int,
                 since: list[dict] | None = None) -> list[InlineImage]:
        """The turn email's pictures of ``state`` (the board first) as PNGs, each rendered once per
        game, version and view, shared in Redis; none that cannot be rendered (the text part says
        the position in words, and the email links the board's SVG). None when the operator turned
        them off (``TILETUM_MAIL_PICTURES=0``). ``since``: the events the email tells (a game may
        picture where they changed the board)."""
        if not self.cfg.pictures:
            return []
        try:
            drawn = email_pictures(meta, state, seat, since)
        except Exception:  # a drawing bug must not cost the player their turn email
            log.warning("could not draw the pictures of %s at version %s", game_id, state.version,
                        exc_info=True)
            return []
        out = []
        for name, alt, svg in drawn:
            png = board_png(game_id, state.version, lambda svg=svg: svg, picture=f"email-{name}:{seat}",
                            natural=True, redis=self.r)
            if png:
                out.append(InlineImage(name=name, png=png, alt=alt, width=png_width(png)))
        return out

    def since_last_turn(self, game_id: str, seat: int, game: games.Game, seen: int = 0) -> list[dict]:
        """The public events after this seat's last move (what the others did), and after the version
        ``seen`` it last looked at (several quick moves of others told in one email)."""
        events = self.service.store.events(game_id)
        last = max((i for i, e in enumerate(events) if e.get("seat") == seat and e["type"] != "GameStarted"),
                   default=0)
        last = max(last, seen - 1)
        if last + 1 >= len(events):
            return []  # nothing since (the game's first turn): no need to replay the game to say so
        return self.service.events_after(game_id, last + 1)  # each with its stored text: no fold of the log

    def one_click_moves(self, game_id: str, state, seat: int,
                        game: games.EmailGame) -> dict[str, str]:
        """Links for the moves the game offers one click for (Tiletum: 'end' in a turn, nothing else
        can end it, or any answer of the King-phase Bonus tile decision)."""
        return {m: self.move_url(game_id, seat, state.version, m) for m in game.one_click_moves(state, seat)}

    def sweep_due(self, older_than: float = 60.0, max_attempts: int = MAX_ATTEMPTS,
                  budget: float | None = None, hand_off=None) -> int:
        """Send the turn emails due for longer than ``older_than`` seconds and never sent (a lost
        broker message). Each entry leaves ``mail:due`` once handled, and so does one that cannot
        be read or whose game is over or gone; a failed send stays for the next sweep, up to
        ``max_attempts`` attempts that failed or never finished (then it is given up, with an error
        in the log). After ``budget`` seconds the entries left wait for the next sweep.
        ``hand_off(game_id, version)``: instead of sending, hand each entry to the email queue
        (the sweep stays short however many emails are due) and leave it due again after
        ``older_than``, twice that after a second hand-off, and so on; each counts as an attempt."""
        n = 0
        for member, game_id, _seat, version, tries in self._claimed(MAIL_DUE, time.time() - older_than,
                                                                     max_attempts, budget):
            if hand_off is not None:
                try:
                    hand_off(game_id, version)
                except Exception as e:  # the broker is away: the next sweep hands it off
                    log.warning("mail:due %r: could not hand it to the email queue: %s", member, e)
                    continue
                # due again after older_than, doubling with each hand-off: an email still waiting
                # behind a long burst is not handed off again and again
                again = time.time() + older_than * (2 ** min(tries - 1, 16) - 1)
                self.r.zadd(MAIL_DUE.key_of(member), {member: again}, xx=True)
                n += 1
                continue
            n += self._attempt(MAIL_DUE, member, game_id, tries, max_attempts,
                               lambda: self.notify(game_id, version))
        return n

    # --- re-issued links (application/credentials.py) ----------------------------------------
    def send_seat_link(self, game_id: str, seat: int, generation: int) -> int:
        """Email the seat's new private link after its links were revoked (once per generation;
        nothing if they were revoked again since: that later task sends the newer link)."""
        if links.current_generation(self.r, f"{game_id}:{seat}") != generation:
            return 0
        meta = self.service.meta(game_id)
        email = meta["seats"][seat].get("email")
        if not email:
            return 0
        first = self.first_email(email)
        msg = self.notice(f"{games.of_meta(meta).title} with {self.others(seat_names(meta), seat)}: your new "
                          "private link", email)
        msg.set_content(
            f"Hello {meta['seats'][seat]['name']},\n\nas asked, your private link to game {game_id} is "
            "renewed; the links in earlier emails no longer work. Your new link (keep it to yourself):\n"
            f"{self.open_url(game_id, seat)}\n\n"
            "If you did not ask for this, someone else had your link: they no longer have it.\n\n"
            + "\n".join(self.dashboard_lines(email, first))
            + f"\n\nStop all emails from us: {self.unsubscribe_url(email)}\n")
        return self.send_once(f"newlink:{game_id}:{seat}:{generation}", email, msg, first, scope=game_id)

    def send_dashboard_link(self, pid: str, generation: int) -> int:
        """Email the player's new dashboard link after the key was revoked (once per generation)."""
        if links.current_generation(self.r, "me:" + pid) != generation:
            return 0
        raw = self.r.hget(ME_EMAIL.key(pid), pid)
        if raw is None:
            return 0
        email = raw.decode()
        msg = self.notice("Your new dashboard link", email)
        msg.set_content(
            "As asked, your private dashboard link is renewed; the one in earlier emails no longer "
            f"works. Your new link (keep it to yourself):\n{self.dashboard_url(email)}\n\n"
            "If you did not ask for this, someone else had your link: they no longer have it.\n")
        return self.send_once(f"newkey:{pid}:{generation}", email, msg, False)

    # --- the lobby (application/lobby.py, docs/lobby.md) ----------------------------------------
    def send_lobby_join(self, game_id: str, nonce: str) -> int:
        """Email the one-time link that takes the seat asked for with ``POST /lobby/{game}/join``
        (once; nothing when the join was confirmed, or expired, meanwhile)."""
        raw = self.r.get(waiting.join_key(game_id, nonce))
        doc = waiting.load(self.r, game_id)
        if raw is None or doc is None:
            return 0
        ask = json.loads(raw)
        email, title = ask["email"], games.get(doc["game"]).title
        others = waiting.taken_names(doc)
        asked = (f"someone (we hope you) asked to join a game of {title} for {doc['players']} players"
                 + (f" with {', '.join(others)}" if others else "") + ".")
        refusal = address_refusal(self.r, doc, email)   # told to this address only: the API answers
        if refusal is not None:                          # the same for every address
            if refusal.code == "already-seated":
                why = ("This address has a seat in this game already (one seat an address): your seat's "
                       "link is in the email you got when you took it, and on your dashboard.")
            else:
                low, high = refusal.extra["rating_range"]
                why = (f"This game is for players rated {low} to {high} in its rating pool, and yours is "
                       f"{refusal.extra['rating']}, so this address cannot take a seat in it.")
            lines = [f"Hello {ask['name']},", "", asked, why, "",
                     f"Find another game in the lobby: {self.cfg.public_url}/play/lobby", "",
                     "If you did not ask for this, ignore this email: nothing happened."]
            msg = simple_email(subject=f"{title}: you cannot join game {game_id}",
                               from_addr=self.cfg.from_addr, to_addr=email, lines=lines,
                               headline="You cannot join this game")
            return self.send_once(f"lobby-join:{game_id}:{nonce}", email, msg)
        url = f"{self.cfg.public_url}/play/lobby#join={links.join_token(self.r, game_id, nonce)}"
        lines = [f"Hello {ask['name']},", "", asked,
                 "Open this link to take your seat (it works once, until the game is full or cancelled):",
                 url, "", "If you did not ask for this, ignore this email: nothing happens without the link.",
                 f"One click stops every email from us: {self.unsubscribe_url(email)}"]
        msg = simple_email(subject=f"{title}: confirm your seat in game {game_id}",
                           from_addr=self.cfg.from_addr, to_addr=email, lines=lines,
                           headline="Confirm your seat")
        return self.send_once(f"lobby-join:{game_id}:{nonce}", email, msg, scope=game_id)

    def lobby_cancelled(self, game_id: str, doc: dict, seat: int) -> int:
        """Tell a player seated in a waiting game that it was cancelled (once per seat)."""
        s = doc["seats"][seat]
        email = s.get("email")
        if s["kind"] != "human" or not email or preference(self.r, email) == "none":
            return 0
        title = games.get(doc["game"]).title
        days = doc["waiting_days"]
        by_creator = doc.get("cancelled_by") == "creator"
        why = ("the player who posted it cancelled it before it started" if by_creator
               else f"its open seats were not all taken within {days:g} {'day' if days == 1 else 'days'}, "
                    "so it never started")
        lines = [f"Hello {s['name']},", "",
                 f"the game of {title} ({game_id}) you had a seat in was cancelled: {why}.",
                 f"Find another game in the lobby: {self.cfg.public_url}/play/lobby",
                 f"Stop these emails: {self.unsubscribe_url(email)}"]
        msg = simple_email(subject=f"{title}: game {game_id} was cancelled", from_addr=self.cfg.from_addr,
                           to_addr=email, lines=lines, headline="The game was cancelled")
        return self.send_once(f"lobby-cancelled:{game_id}:{seat}", email, msg, scope=game_id)

    def send_digests(self, day: str) -> int:
        """One email per digest reader listing the games awaiting them (once per day)."""
        pending: dict[str, list[tuple[str, int, int]]] = {}
        for raw in DIGEST.all_members(self.r):
            email, game_id, seat, version = raw.decode().rsplit("|", 3)
            pending.setdefault(email, []).append((game_id, int(seat), int(version)))
        sent = 0
        for email, items in sorted(pending.items()):
            lines = []
            for game_id, seat, version in sorted(items):
                try:
                    meta, state = self.service.load(game_id)
                except Exception:
                    continue
                game = games.of_meta(meta)
                if game.actor(state) == seat and not game.is_over(state):
                    title = thread_subject(game.title, seat_names(meta), seat, game_id)
                    lines.append(
                        f"  {title}: your move; reply to {self.reply_to(game_id, seat, state.version)} "
                        "with your moves")
            if lines:
                msg = self.notice(
                    f"Your games: {plural(len(lines), 'game')} await{'s' if len(lines) == 1 else ''} "
                    "your move", email)
                first = self.first_email(email)
                msg.set_content(
                    "Your daily digest of the games awaiting your move.\n\n" + "\n".join(lines) + "\n\n"
                    + "\n".join(self.dashboard_lines(email, first))
                    + f"\n\nUnsubscribe (one click, every email from us): {self.unsubscribe_url(email)}\n")
                sent += self.send_once(f"digest:{email}:{day}", email, msg, first)
            for game_id, seat, version in items:
                self.r.srem(DIGEST.key(email), f"{email}|{game_id}|{seat}|{version}")
        return sent

    def _results(self, game_id: str, meta: dict, state) -> int:
        sent = 0
        game = games.of_meta(meta)
        names = seat_names(meta)
        scores = game.scores(state)
        lines = [f"  {names[i]}: {v} {game.score_unit}" for i,
                 v in sorted(enumerate(scores), key=lambda x: -x[1])]
        # by the game's own tie-break (Tiletum's decides one winner), the seats that resigned last
        resigned = resigned_of(self.service.store.events(game_id))
        places = final_places(game.places(state), resigned)
        top = [one_line(names[i]) for i, place in enumerate(places) if place == 1]
        outcome = f"{top[0]} wins" if len(top) == 1 else f"{' and '.join(top)} share the victory"
        if resigned:
            lines += ["", " ".join(f"{one_line(names[i])} resigned." for i in resigned)]
        # a rematch (application/together.py) is offered to the seats of a game that has one
        rematch = not any(s["kind"] == "bot" or s.get("former") for s in meta["seats"])
        for seat, info in enumerate(meta["seats"]):
            email = info.get("email")
            if info["kind"] != "human" or preference(self.r, email) == "none":
                continue
            first = self.first_email(email)
            stop = (first_contact(email, self.unsubscribe_url(email), game.title) if self.stranger(email)
                    else f"Stop these emails: {self.unsubscribe_url(email)}")   # why it came, to a stranger
            page = self.open_url(game_id, seat)
            # the game page shows the seat's review (GET /review, docs/ai.md "Game review") and,
            # with review=1 in the fragment, opens at it
            review = (["Your decisions reviewed by the AI (the costliest five, with what it would have "
                       "played):",
                       f"{page}&review=1", ""] if game.review else [])
            body = ([f"Hello {names[seat]},", "", "the game is over. The final scores:"] + lines
                    + ["", f"The final position: {page}", ""] + review
                    # the game page as the seat, at its "Play again" button (game-page.js)
                    + (["Play again with the same players (a rematch; it starts once everyone has "
                        "accepted):", f"{page}&rematch=1", ""] if rematch else [])
                    + ["The game's record to download and the fairness check of every draw are on the "
                       "game's page too.", ""]
                    + self.dashboard_lines(email, first)
                    + ["", stop])
            msg = simple_email(subject=thread_subject(game.title, names, seat, game_id),
                               from_addr=self.cfg.from_addr, to_addr=email, lines=body,
                               headline=f"Game over: {outcome}.")
            sent += self.send_once(f"final:{game_id}:{seat}", email, msg, first, game_id=game_id, seat=seat)
        return sent
