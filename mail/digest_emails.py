"""The daily digest (docs/pbem.md): one email a day to the players who chose it."""
from __future__ import annotations


import games
from application.notifications import DIGEST
from application.seats import seat_names

from .compose import say_language, thread_subject, unsubscribe_line
from .notify_base import Mailer


class DigestEmails(Mailer):
    """The daily digest."""

    def send_digests(self, day: str) -> int:
        """One email per digest reader listing the games awaiting them (once per day)."""
        pending: dict[str, list[tuple[str, int, int]]] = {}
        for raw in DIGEST.all_members(self.r):
            email, game_id, seat_s, version_s = raw.decode().rsplit("|", 3)
            pending.setdefault(email, []).append((game_id, int(seat_s), int(version_s)))
        sent = 0
        for email, items in sorted(pending.items()):
            tr, _tz = self.voice(email)
            lines = []
            for game_id, seat, version in sorted(items):
                try:
                    meta, state = self.service.load(game_id)
                except Exception:
                    continue
                game = games.of_meta(meta)
                if game.actor(state) == seat and not game.is_over(state):
                    title = thread_subject(games.title_in(game, tr.lang), seat_names(meta), seat, game_id, tr)
                    lines.append("  " + tr._("{game}: your move; reply to {address} with your moves",
                                             game=title, address=self.reply_to(game_id, seat, state.version)))
            if lines:
                msg = self.notice(tr.ngettext("Your games: {n} game awaits your move",
                                              "Your games: {n} games await your move", len(lines)),
                                  email)
                first = self.first_email(email)
                msg.set_content(
                    tr._("Your daily digest of the games awaiting your move.") + "\n\n" + "\n".join(lines)
                    + "\n\n" + "\n".join(self.dashboard_lines(email, first, tr))
                    + "\n\n" + unsubscribe_line(self.unsubscribe_url(email), tr) + "\n")
                say_language(msg, tr.lang)
                sent += self.send_once(f"digest:{email}:{day}", email, msg, first)
            for game_id, seat, version in items:
                self.r.srem(DIGEST.key(email), f"{email}|{game_id}|{seat}|{version}")
        return sent
