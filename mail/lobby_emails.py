"""Lobby emails (docs/lobby.md): confirming a seat taken in the lobby, a game cancelled."""
from __future__ import annotations

import json

import games
from application import links, waiting
from application.lobby import address_refusal
from application.notifications import preference

from .compose import simple_email
from .notify_base import Mailer


class LobbyEmails(Mailer):
    """The lobby's emails: the confirmation link for a seat taken, a game cancelled."""

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
        # to an address that has not accepted our email, nothing another person wrote (docs/pbem.md,
        # "Email by consent"): no names, not even the one typed with the address
        pending = self.stranger(email)
        others = [] if pending else waiting.taken_names(doc)
        if pending:
            ask = dict(ask, name="there")
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
            first = self.first_email(email)
            lines = [f"Hello {ask['name']},", "", asked, why, "",
                     f"Find another game in the lobby: {self.cfg.public_url}/play/lobby", "",
                     "If you did not ask for this, ignore this email: nothing happened.", "",
                     *self.dashboard_lines(email, first)]
            msg = simple_email(subject=f"{title}: you cannot join game {game_id}",
                               from_addr=self.cfg.from_addr, to_addr=email, lines=lines,
                               headline="You cannot join this game")
            return self.send_once(f"lobby-join:{game_id}:{nonce}", email, msg, first)
        url = f"{self.cfg.public_url}/play/lobby#join={links.join_token(self.r, game_id, nonce)}"
        first = self.first_email(email)
        lines = [f"Hello {ask['name']},", "", asked,
                 "Open this link to take your seat (it takes one, until the game is full or cancelled; "
                 "opened again, it leads back to your seat):",
                 url, "", "If you did not ask for this, ignore this email: nothing happens without the link.",
                 "",
                 *self.dashboard_lines(email, first)]
        lines += (["Not you, or not wanted? Refuse, and we never email you again: "
                   f"{self.consent_urls(email)[1]}"]
                  if pending else [f"One click stops every email from us: {self.unsubscribe_url(email)}"])
        msg = simple_email(subject=f"{title}: confirm your seat in game {game_id}",
                           from_addr=self.cfg.from_addr, to_addr=email, lines=lines,
                           headline="Confirm your seat")
        return self.send_once(f"lobby-join:{game_id}:{nonce}", email, msg, first, scope=game_id)

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
                 f"Unsubscribe (one click, every email from us): {self.unsubscribe_url(email)}"]
        msg = simple_email(subject=f"{title}: game {game_id} was cancelled", from_addr=self.cfg.from_addr,
                           to_addr=email, lines=lines, headline="The game was cancelled")
        return self.send_once(f"lobby-cancelled:{game_id}:{seat}", email, msg, scope=game_id)
