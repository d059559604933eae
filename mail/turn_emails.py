"""Turn emails (docs/pbem.md): the turn, its reminders, the stand-in's notice, the emails held
for a player's quiet or delay settings, and their sweeps."""
from __future__ import annotations

import json
import time

import games
from application import consent, live
from application.dashboard import TOLD, VERIFIED
from application.board_svg import email_pictures
from application.deadlines import MAX_ATTEMPTS
from application.time_control import format_deadline, remaining_text, timeout_policy
from application.indexes import (GENERATIONS, MAIL_DELAY, MAIL_DUE, MAIL_LATER, PREFS, SEAT_STATE, add,
                                 forget_due, registry, remove)
from application.messages import TableTalk
from application.notifications import DIGEST, preference
from application.players import player_id
from application.resigned import decision_began, resigned_of
from application.seats import seat_names

from .board_png import board_pngs, png_width
from .compose import (InlineImage, TurnContext, consent_lines, hello, simple_email, thread_subject,
                      turn_email, unsubscribe_line)
from .outbox import SENT_TTL
from .messages import turn_email_talk
from .notify_base import chosen, email_game, log, subject_key, thread_key, thread_refs_key
from .results_emails import ResultsEmails


class TurnEmails(ResultsEmails):   # a finished game's turn email is its results
    """The turn email and what belongs to it: reminders, the stand-in's notice, held emails."""

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
        tr, _tz = self.voice(email, meta["seats"][seat])
        headline = (tr._("Reminder: your move is due in {left}.", left=remaining_text(due - dl.clock(), tr))
                    if due is not None else tr._("Reminder: your move is due soon."))
        said = f"reminded:{game_id}:{seat}:{version}"   # the turn's last reminder: never two the same
        if self.r.get(said) == headline.encode():
            return 0
        pending = self.stranger(email)
        msg = self.turn_message(game_id, meta, state, seat, deadline=due, first=pending, headline=headline,
                                pending=pending)
        key = f"reminder:{game_id}:{seat}:{version}:{hours:g}"
        sent = self.send_once(key, email, msg, game_id=game_id, seat=seat, own_game=chosen(meta))
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
        tr, _tz = self.voice(email, info)
        pending = self.stranger(email)
        if pending:   # nothing another person wrote (docs/pbem.md, "Email by consent")
            names = self.neutral_names(names, seat, tr)
            played = []
        else:
            played = [e["text"] for e in self.service.events_after(game_id, version, tr.lang)
                      if e.get("seat") == seat and e.get("by") == "stand-in"]
        policy = timeout_policy(meta)
        missed = self.deadlines().seat_state(game_id, seat)["missed"]
        lines = [hello(tr._("there") if pending else names[seat], tr), ""]
        if pending:
            lines += consent_lines(email, games.title_in(game, tr.lang), self.consent_urls(email), tr) + [""]
        missed_turn = tr._("Your turn in {title} with {names} missed its deadline, so the stand-in played it "
                           "for you", title=games.title_in(game, tr.lang), names=self.others(names, seat, tr))
        lines += [missed_turn + ("." if pending else ":")]
        if not pending:
            lines += [f"  - {t}" for t in played] or ["  - " + tr._("(nothing: the turn had already passed)")]
        lines.append("")
        if kind == "dropped":
            headline = tr._("You were dropped: the stand-in plays your seat.")
            lines += [tr.ngettext("You missed {n} deadline, so the stand-in plays your seat for the rest "
                                  "of the game.", "You missed {n} deadlines, so the stand-in plays your seat "
                                  "for the rest of the game.", missed),
                      tr._("You get no more turn emails for this game; the results come at the end.")]
        else:
            headline = tr._("The stand-in played your turn.")
            if policy["mode"] == "drop":
                lines.append(tr._("Missed deadlines: {missed} of {limit}; at {limit} the stand-in plays "
                                  "your seat for the rest of the game.", missed=missed,
                                  limit=policy["drop_after"]))
            lines.append(tr._("You keep your seat: your next turn is yours again, with its own email."))
        if not game.is_over(state):
            actor = game.actor(state)
            nxt = names[actor] if actor is not None else None
            if nxt:
                lines.append(tr._("It is now {name}'s decision.", name=nxt))
        lines += ["", tr._("Open the game: {url}", url=self.open_url(game_id, seat, lang=tr.lang)),
                  unsubscribe_line(self.unsubscribe_url(email), tr)]
        msg = simple_email(subject=thread_subject(games.title_in(game, tr.lang), names, seat, game_id, tr),
                           from_addr=self.cfg.from_addr, to_addr=email, lines=lines, headline=headline,
                           lang=tr.lang)
        return self.send_once(f"stand-in:{game_id}:{seat}:{version}:{kind}", email, msg, game_id=game_id,
                              seat=seat, own_game=chosen(meta))

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
                pipe.exists(consent.refused_key(pid[len("me:"):]))
                pipe.get(subject_key(game_id, seat))
                live.read_pipe(pipe, game_id, seat)
                names += ["pref", "told", "seat_generation", "me_generation", "thread", "refs", "delay",
                          "verified", "refused", "subject", "live"]
        out = dict(zip(names, pipe.execute()))
        if "seat_state" in out:
            out["dropped"] = bool(out["seat_state"] and json.loads(out["seat_state"]).get("dropped"))
        if "pref" in out:
            out["pref"] = out["pref"].decode() if out["pref"] else "move"
            out["seat_generation"] = int(out["seat_generation"] or 0)
            out["me_generation"] = int(out["me_generation"] or 0)
            out["verified"] = bool(out["verified"])
            # what the address said to our email (application/consent.py), read here once
            out["audience"] = (consent.ACCEPTED if self.cfg.new_address_daily is None
                               else consent.REFUSED if out["refused"]
                               else consent.ACCEPTED if out["verified"] else consent.PENDING)
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
        # another seat's resignation is a version of its own, not a new decision: one email a decision
        began = decision_began(self.service.store, game_id, seat, version)
        info, now = ahead["live"], self.clock()
        if ahead["delay"] > 0 and live.is_live(info, now):
            # playing live (docs/pbem.md, "No email while you play live"): not now; after the grace,
            # once the seat is no longer live, if the decision is still the seat's (sweep_later)
            add(after, MAIL_LATER, game_id, f"{game_id}:{seat}:{began}", now + ahead["delay"])
            return 0
        return self._send_turn(game_id, began, meta, state, seat, ahead, after, due)

    def _send_turn(self, game_id: str, version: int, meta: dict, state, seat: int, ahead: dict, after,
                   due: float | None, seen: int = 0) -> int:
        """Compose and queue the seat's turn email (once per decision: ``turn:<game>:<seat>:<version>``,
        ``version`` the one its decision began at).
        ``seen``: the latest version the seat looked at (what happened after it is told)."""
        email = meta["seats"][seat].get("email")
        pending = ahead["audience"] == consent.PENDING
        first = not ahead["told"] or pending
        msg = self.turn_message(game_id, meta, state, seat, first=first, deadline=due, seen=seen,
                                generations=(ahead["seat_generation"], ahead["me_generation"]),
                                pending=pending)
        return self.send_once(f"turn:{game_id}:{seat}:{version}", email, msg, first, game_id=game_id,
                              seat=seat, after=after, thread=ahead["thread"], refs=ahead["refs"],
                              subject=ahead["subject"], verified=ahead["verified"], who=ahead["audience"],
                              own_game=chosen(meta))

    def sweep_later(self, max_attempts: int = MAX_ATTEMPTS, budget: float | None = None) -> int:
        """Send the turn emails of live seats whose grace is over (``mail:later``; application/live.py):
        each only if the decision is still the seat's, once the seat is no longer live (one still
        live waits again, until it is not). Each entry leaves the index once handled; one that fails
        stays for the next sweep, ``max_attempts`` times at most. Idempotent: the email's once-key is
        the decision's."""
        n = 0
        for member, game_id, seat, version, tries in self._claimed(MAIL_LATER, self.clock(), max_attempts,
                                                                    budget):
            n += self._attempt(MAIL_LATER, member, game_id, tries, max_attempts,
                               lambda: self.send_later(game_id, seat, version))
        return n

    def send_later(self, game_id: str, seat: int, version: int) -> int:
        """The deferred turn email of ``seat`` for its decision that began at ``version``: sent when it
        is still that decision and the seat is no longer live (a seat that looked at it and left gets
        it too); while the seat is live the entry waits until it is not, else it leaves
        ``mail:later``."""
        meta, state = self.service.load(game_id)
        game = games.of_meta(meta)
        sent = 0
        if (not game.is_over(state) and game.actor(state) == seat and meta["seats"][seat]["kind"] == "human"
                and (state.version == version or version < state.version
                     and decision_began(self.service.store, game_id, seat, state.version) <= version)):
            ahead = self._read_ahead(game_id, meta, state, seat, state.version)
            info = ahead.get("live") or live.parse([])
            if "pref" in ahead and not ahead["dropped"]:
                if ahead["delay"] > 0 and live.is_live(info, self.clock()):
                    # still at the keyboard (it acted or looked since): again once it is no longer live
                    add(self.r, MAIL_LATER, game_id, f"{game_id}:{seat}:{version}", live.live_until(info) + 1)
                    return 0
                email = meta["seats"][seat]["email"]
                if ahead["pref"] == "move":
                    after = self.r.pipeline(transaction=False)
                    # what happened since it last looked, if that was before this decision (one that
                    # looked at the decision and left is told since its last move)
                    seen = info["seen_version"] if 0 <= info["seen_version"] < version else 0
                    sent = self._send_turn(game_id, version, meta, state, seat, ahead, after, None,
                                           seen=seen)
                    after.execute()
                elif ahead["pref"] == "digest":
                    self.r.sadd(DIGEST.key(email), f"{email}|{game_id}|{seat}|{version}")
        remove(self.r, MAIL_LATER, f"{game_id}:{seat}:{version}")
        return sent

    def deadline_line(self, meta: dict, seat: int, due: float | None, tr=None, tz: str | None = None) -> str:
        """``Sun 22 Nov 2026 09:00 UTC (in 3 days)``: in the recipient's language (``tr``) and time zone
        (``tz``: the address's, else the seat's when the game knows it, else UTC)."""
        if due is None:
            return ""
        if tr is None:
            tr, tz = self.voice(meta["seats"][seat].get("email"), meta["seats"][seat])
        now = self.deadlines().clock()
        return tr._("{when} (in {left})", when=format_deadline(due, tz or meta["seats"][seat].get("tz"), tr),
                    left=remaining_text(due - now, tr))

    def turn_message(self, game_id: str, meta: dict, state, seat: int, first: bool = False,
                     deadline: float | None = None, intro: str = "",
                     generations: tuple[int, int] | None = None, headline: str = "", seen: int = 0,
                     pending: bool = False):
        """The turn email of ``seat`` in ``state``, its pictures of exactly that position.
        ``generations``: the seat's and the player's link generations, if already read; ``headline``:
        the first line, when not the turn's own ("Your turn."); ``seen``: the latest version the seat
        looked at (what happened since is told; else since its last move). ``pending``: to an
        address that has not accepted our email (docs/pbem.md, "Email by consent"): the invitation's
        words, and nothing another person wrote (no names, no messages, no pictures that draw names,
        no past moves told by name)."""
        seat_gen, me_gen = generations or (None, None)
        game = email_game(meta)
        names = seat_names(meta)
        email = meta["seats"][seat]["email"]
        tr, tz = self.voice(email, meta["seats"][seat])
        if deadline is None and game.actor(state) == seat:
            deadline = self.deadlines().deadline_of(game_id, seat)
        events = self.service.store.events(game_id)
        if pending:
            names = self.neutral_names(names, seat, tr)
            talk_text: list[str] = []
            talk_html, since, images = "", [], []
        else:
            talk_text, talk_html = turn_email_talk(TableTalk(self.service), game_id, meta, seat, tr)
            since = self.since_last_turn(game_id, seat, game, seen, events, tr.lang)
            images = self.pictures(game_id, meta, state, seat, since, tr.lang)
        return turn_email(TurnContext(
            game_id=game_id, seat=seat, seat_name=tr._("there") if pending else names[seat], to_addr=email,
            from_addr=self.cfg.from_addr,
            reply_to=self.reply_to(game_id, seat, state.version), state=state, seat_names=names,
            since=since,
            open_url=self.open_url(game_id, seat, seat_gen, lang=tr.lang),
            move_urls=self.one_click_moves(game_id, state, seat, game), game=game,
            unsubscribe_url=self.unsubscribe_url(email),
            dashboard_url=self.dashboard_url(email, me_gen, lang=tr.lang),
            first_email=first, deadline=self.deadline_line(meta, seat, deadline, tr, tz), intro=intro,
            headline=headline, tr=tr,
            subject=thread_subject(games.title_in(game, tr.lang), names, seat, game_id, tr),
            images=images, talk_text=talk_text, talk_html=talk_html, resigned=resigned_of(events),
            consent_urls=self.consent_urls(email) if pending else None))

    def pictures(self, game_id: str, meta: dict, state, seat: int,
                 since: list[dict] | None = None, lang: str | None = None) -> list[InlineImage]:
        """The turn email's pictures of ``state`` (the board first) as PNGs, each rendered once per
        game, version and view, shared in Redis; none that cannot be rendered (the text part says
        the position in words, and the email links the board's SVG). None when the operator turned
        them off (``TABLEPOST_MAIL_PICTURES=0``). ``since``: the events the email tells (a game may
        picture where they changed the board). ``lang``: the recipient's, for the pictures' words and
        alt texts (each language's picture is its own view of the cache)."""
        if not self.cfg.pictures:
            return []
        try:
            drawn = email_pictures(meta, state, seat, since, lang)
        except Exception:  # a drawing bug must not cost the player their turn email
            log.warning("could not draw the pictures of %s at version %s", game_id, state.version,
                        exc_info=True)
            return []
        named = [(f"email-{name}:{seat}", svg) for name, _alt, svg in drawn]
        pngs = board_pngs(game_id, state.version, named, natural=True, redis=self.r)
        return [InlineImage(name=name, png=png, alt=alt, width=png_width(png))
                for (name, alt, _svg), png in zip(drawn, pngs) if png]

    def since_last_turn(self, game_id: str, seat: int, game: games.Game, seen: int = 0,
                        events: list[dict] | None = None, lang: str | None = None) -> list[dict]:
        """The public events after this seat's last move (what the others did), and after the version
        ``seen`` it last looked at (several quick moves of others told in one email). ``events``: the
        game's events, if the caller has read them. ``lang``: their texts in the recipient's language,
        where the game's words speak it (made from the events; else the stored English ones)."""
        events = self.service.store.events(game_id) if events is None else events
        last = max((i for i, e in enumerate(events) if e.get("seat") == seat and e["type"] != "GameStarted"),
                   default=0)
        last = max(last, seen - 1)
        if last + 1 >= len(events):
            return []  # nothing since (the game's first turn): no need to replay the game to say so
        # each with its stored text (no fold of the log), unless the game says them in another language
        return self.service.events_after(game_id, last + 1, lang)

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
