"""Lobby emails (docs/lobby.md): confirming a seat taken in the lobby, a game cancelled."""
from __future__ import annotations

import json

import games
from application import links, waiting
from application.lobby import address_refusal
from application.notifications import preference

from .compose import hello, simple_email, unsubscribe_line
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
        email = ask["email"]
        tr, _tz = self.voice(email, ask)
        title = games.title_in(games.get(doc["game"]), tr.lang)
        # to an address that has not accepted our email, nothing another person wrote (docs/pbem.md,
        # "Email by consent"): no names, not even the one typed with the address
        pending = self.stranger(email)
        others = [] if pending else waiting.taken_names(doc)
        if pending:
            ask = dict(ask, name=tr._("there"))
        asked = (tr._("someone (we hope you) asked to join a game of {title} for {n} players with {names}.",
                      title=title, n=doc["players"], names=", ".join(others)) if others
                 else tr._("someone (we hope you) asked to join a game of {title} for {n} players.",
                           title=title, n=doc["players"]))
        lobby = tr._("Find another game in the lobby: {url}", url=f"{self.cfg.public_url}/play/lobby")
        refusal = address_refusal(self.r, doc, email)   # told to this address only: the API answers
        if refusal is not None:                          # the same for every address
            if refusal.code == "already-seated":
                why = tr._("This address has a seat in this game already (one seat an address): your seat's "
                           "link is in the email you got when you took it, and on your dashboard.")
            else:
                low, high = refusal.extra["rating_range"]
                why = tr._("This game is for players rated {low} to {high} in its rating pool, and yours is "
                           "{rating}, so this address cannot take a seat in it.", low=low, high=high,
                           rating=refusal.extra["rating"])
            first = self.first_email(email)
            lines = [hello(ask["name"], tr), "", asked, why, "", lobby, "",
                     tr._("If you did not ask for this, ignore this email: nothing happened."), "",
                     *self.dashboard_lines(email, first, tr)]
            msg = simple_email(subject=tr._("{title}: you cannot join game {game_id}", title=title,
                                            game_id=game_id),
                               from_addr=self.cfg.from_addr, to_addr=email, lines=lines,
                               headline=tr._("You cannot join this game"), lang=tr.lang)
            return self.send_once(f"lobby-join:{game_id}:{nonce}", email, msg, first)
        url = f"{self.cfg.public_url}/play/lobby#join={links.join_token(self.r, game_id, nonce)}"
        first = self.first_email(email)
        lines = [hello(ask["name"], tr), "", asked,
                 tr._("Open this link to take your seat (it takes one, until the game is full or cancelled; "
                      "opened again, it leads back to your seat):"),
                 url, "",
                 tr._("If you did not ask for this, ignore this email: nothing happens without the link."),
                 "",
                 *self.dashboard_lines(email, first, tr)]
        lines += ([tr._("Not you, or not wanted? Refuse, and we never email you again: {url}",
                        url=self.consent_urls(email)[1])]
                  if pending else [tr._("One click stops every email from us: {url}",
                                        url=self.unsubscribe_url(email))])
        msg = simple_email(subject=tr._("{title}: confirm your seat in game {game_id}", title=title,
                                        game_id=game_id),
                           from_addr=self.cfg.from_addr, to_addr=email, lines=lines,
                           headline=tr._("Confirm your seat"), lang=tr.lang)
        return self.send_once(f"lobby-join:{game_id}:{nonce}", email, msg, first, scope=game_id)

    def lobby_cancelled(self, game_id: str, doc: dict, seat: int) -> int:
        """Tell a player seated in a waiting game that it was cancelled (once per seat)."""
        s = doc["seats"][seat]
        email = s.get("email")
        if s["kind"] != "human" or not email or preference(self.r, email) == "none":
            return 0
        tr, _tz = self.voice(email, s)
        title = games.title_in(games.get(doc["game"]), tr.lang)
        days = doc["waiting_days"]
        by_creator = doc.get("cancelled_by") == "creator"
        why = (tr._("the player who posted it cancelled it before it started") if by_creator
               else tr._("its open seats were not all taken within {days}, so it never started",
                         days=tr.ngettext("{n} day", "{n} days", days)))
        lines = [hello(s["name"], tr), "",
                 tr._("the game of {title} ({game_id}) you had a seat in was cancelled: {why}.", title=title,
                      game_id=game_id, why=why),
                 tr._("Find another game in the lobby: {url}", url=f"{self.cfg.public_url}/play/lobby"),
                 unsubscribe_line(self.unsubscribe_url(email), tr)]
        msg = simple_email(subject=tr._("{title}: game {game_id} was cancelled", title=title,
                                        game_id=game_id),
                           from_addr=self.cfg.from_addr, to_addr=email, lines=lines,
                           headline=tr._("The game was cancelled"), lang=tr.lang)
        return self.send_once(f"lobby-cancelled:{game_id}:{seat}", email, msg, scope=game_id)
