"""Turn emails: who to tell what after a save (docs/pbem.md).

``Notifier.notify(game_id, version)`` re-reads the game. If a human seat with an email address
became the actor at ``version`` and the game is still there, that seat gets its turn email, once
(key ``turn:<game>:<seat>:<version>``). When the game is over every player gets the results,
once. Players who chose "none" get nothing; "digest" players are collected for the daily digest.
"""
from __future__ import annotations

import logging
from email.message import EmailMessage

import engine
from application.clock import make_clock
from application.dashboard import TOLD, dashboard_key_for, play_path
from application.deadlines import Deadlines
from application.notifications import DIGEST, PREFS, preference  # noqa: F401 (PREFS: re-exported)
from application.game_service import GameService, public_event
from application.scheduling import MAIL_DUE
from engine.describe import describe

from . import addresses
from .compose import TurnContext, dashboard_text, turn_email
from .mailconfig import MailConfig
from .outbox import Outbox

log = logging.getLogger("tiletum.notify")


class Notifier:
    def __init__(self, service: GameService, outbox: Outbox, cfg: MailConfig):
        self.service = service
        self.outbox = outbox
        self.cfg = cfg
        self.r = service.store.r

    def deadlines(self):
        return Deadlines(self.service, self, make_clock(self.r))

    def remind(self, game_id: str, seat: int, version: int, hours: int) -> int:
        """A reminder email before the deadline (once per turn and reminder point)."""
        meta, state = self.service.load(game_id)
        email = meta["seats"][seat].get("email")
        if preference(self.r, email) != "move" or state.actor != seat:
            return 0
        msg = self.turn_message(game_id, meta, state, seat)
        del msg["Subject"]
        msg["Subject"] = f"Tiletum {game_id}: reminder, your move is due in {hours} hours"
        return int(self.outbox.enqueue(f"reminder:{game_id}:{seat}:{version}:{hours}", msg))

    # --- links -------------------------------------------------------------------------------
    def reply_to(self, game_id: str, seat: int, version: int) -> str:
        return addresses.reply_address(self.cfg.secret, self.cfg.domain, game_id, seat, version)

    def move_url(self, game_id: str, seat: int, version: int, move: str) -> str:
        return addresses.signed_url(self.cfg.secret, self.cfg.public_url, f"/api/v1/games/{game_id}/email-move",
                                    seat=str(seat), version=str(version), move=move)

    def open_url(self, game_id: str, seat: int) -> str:
        """The game page opened as the seat: its link token in the fragment (application/links.py), which
        browsers never send to the server; never in the query string."""
        return self.cfg.public_url + play_path(self.r, game_id, seat)

    def dashboard_url(self, email: str) -> str:
        """The address's private dashboard: ``/me#key=<dashboard key>`` (application/links.py)."""
        return f"{self.cfg.public_url}/me#key={dashboard_key_for(self.r, email)}"

    def first_email(self, email: str) -> bool:
        """Whether this address has not yet been sent its dashboard link."""
        return not self.r.sismember(TOLD, email.strip().lower())

    def send_once(self, once_key: str, email: str, msg, first: bool) -> int:
        """Queue ``msg`` to ``email`` in the outbox once under ``once_key`` (it is delivered at once
        or by the sweep); when it was the address's ``first`` email (the one explaining the
        dashboard link) and it is queued, the address is told."""
        sent = self.outbox.enqueue(once_key, msg)
        if sent and first:
            self.r.sadd(TOLD, email.strip().lower())
        return int(sent)

    def dashboard_lines(self, email: str, first: bool) -> list[str]:
        """The dashboard link for the end of an email; explained in the address's first email."""
        return dashboard_text(self.dashboard_url(email), first)

    def unsubscribe_url(self, email: str) -> str:
        return addresses.signed_url(self.cfg.secret, self.cfg.public_url, "/api/v1/email/unsubscribe",
                                    email=email.lower())

    # --- what to send -------------------------------------------------------------------------
    def notify(self, game_id: str, version: int) -> int:
        """Send what is due for the game at ``version``; returns the number of emails queued in the
        outbox (each is delivered at once, or by the sweep when the SMTP server is away)."""
        meta, state = self.service.load(game_id)
        if state.phase == "over":
            return self._results(game_id, meta, state)
        seat = state.actor
        sent = self._turn(game_id, version, meta, state, seat)
        # only once the email is in the outbox (or none is due): a failure before leaves the
        # marker for sweep_notifications
        self.r.zrem(MAIL_DUE, f"{game_id}:{seat}:{version}")
        return sent

    def _turn(self, game_id: str, version: int, meta: dict, state: engine.GameState, seat: int | None) -> int:
        if seat is None or state.version != version or meta["seats"][seat]["kind"] != "human":
            return 0  # the game moved on since: that turn's player is already playing
        deadlines = self.deadlines()
        if deadlines.is_dropped(game_id, seat):
            deadlines.stand_in(game_id, seat)  # dropped for missing deadlines: the stand-in plays on
            return 0
        deadlines.start_turn(game_id, meta, seat, version)
        email = meta["seats"][seat].get("email")
        pref = preference(self.r, email)
        if pref == "none":
            return 0
        if pref == "digest":
            self.r.sadd(DIGEST, f"{email}|{game_id}|{seat}|{version}")
            return 0
        first = self.first_email(email)
        msg = self.turn_message(game_id, meta, state, seat, first=first)
        return self.send_once(f"turn:{game_id}:{seat}:{version}", email, msg, first)

    def turn_message(self, game_id: str, meta: dict, state: engine.GameState, seat: int, first: bool = False,
                     note: str = ""):
        names = [s["name"] for s in meta["seats"]]
        email = meta["seats"][seat]["email"]
        return turn_email(TurnContext(
            game_id=game_id, seat=seat, seat_name=names[seat], to_addr=email, from_addr=self.cfg.from_addr,
            reply_to=self.reply_to(game_id, seat, state.version), state=state, seat_names=names,
            since=self.since_last_turn(game_id, seat), open_url=self.open_url(game_id, seat),
            move_urls=self.one_click_moves(game_id, state, seat),
            unsubscribe_url=self.unsubscribe_url(email), dashboard_url=self.dashboard_url(email),
            first_email=first, note=note))

    def since_last_turn(self, game_id: str, seat: int) -> list[dict]:
        """The public events after this seat's last move (what the others did)."""
        events = self.service.store.events(game_id)
        last = max((i for i, e in enumerate(events) if e.get("seat") == seat and e["type"] != "GameStarted"),
                   default=0)
        return [{"version": i + 1, **public_event(e)} for i, e in enumerate(events) if i > last]

    def one_click_moves(self, game_id: str, state: engine.GameState, seat: int) -> dict[str, str]:
        """Links for the moves that hand the decision to someone else: 'end' in a turn (nothing
        else can end it), or any answer of the King-phase Bonus tile decision."""
        if state.actor != seat:
            return {}
        moves = [str(m) for m in engine.legal(state)]
        if state.phase == "king":
            chosen = moves
        else:
            chosen = [m for m in moves if m == "end"]
        return {m: self.move_url(game_id, seat, state.version, m) for m in chosen}

    def send_digests(self, day: str) -> int:
        """One email per digest reader listing the games awaiting them (once per day)."""
        pending: dict[str, list[tuple[str, int, int]]] = {}
        for raw in self.r.smembers(DIGEST):
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
                if state.actor == seat and state.phase != "over":
                    lines.append(f"  {game_id}: your decision since version {version}; reply to "
                                 f"{self.reply_to(game_id, seat, state.version)} with your moves")
            if lines:
                msg = EmailMessage()
                msg["Subject"] = f"Tiletum: {len(lines)} game(s) await you"
                msg["From"], msg["To"] = self.cfg.from_addr, email
                msg["List-Unsubscribe"] = f"<{self.unsubscribe_url(email)}>"
                first = self.first_email(email)
                msg.set_content("Your daily Tiletum digest.\n\n" + "\n".join(lines) + "\n\n"
                                + "\n".join(self.dashboard_lines(email, first))
                                + f"\n\nStop these emails: {self.unsubscribe_url(email)}\n")
                sent += self.send_once(f"digest:{email}:{day}", email, msg, first)
            for game_id, seat, version in items:
                self.r.srem(DIGEST, f"{email}|{game_id}|{seat}|{version}")
        return sent

    def _results(self, game_id: str, meta: dict, state: engine.GameState) -> int:
        sent = 0
        names = [s["name"] for s in meta["seats"]]
        lines = [f"  {names[i]}: {p.score} VP" for i, p in sorted(enumerate(state.seats), key=lambda x: -x[1].score)]
        for seat, info in enumerate(meta["seats"]):
            email = info.get("email")
            if info["kind"] != "human" or preference(self.r, email) == "none":
                continue
            msg = EmailMessage()
            msg["Subject"] = f"Tiletum {game_id}: game over, {names[state.winner]} wins"
            msg["From"], msg["To"] = self.cfg.from_addr, email
            msg["List-Unsubscribe"] = f"<{self.unsubscribe_url(email)}>"
            first = self.first_email(email)
            msg.set_content("The game is over.\n\n" + "\n".join(lines) + "\n\n"
                            f"The final position: {self.open_url(game_id, seat)}\n\n"
                            "The record and the dice check: "
                            f"{self.cfg.public_url}/api/v1/games/{game_id}/record\n"
                            f"{self.cfg.public_url}/api/v1/games/{game_id}/fairness\n\n"
                            + "\n".join(self.dashboard_lines(email, first)) + "\n")
            sent += self.send_once(f"final:{game_id}:{seat}", email, msg, first)
        return sent


def describe_legal(state: engine.GameState, seat: int) -> list[tuple[str, str]]:
    if state.actor != seat:
        return []
    return [(str(m), describe(state, m)) for m in sorted(engine.legal(state), key=str)]
