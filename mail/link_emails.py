"""Link emails: a seat's new link to its game, a player's new link to their dashboard."""
from __future__ import annotations


import games
from application import links
from application.dashboard import ME_EMAIL
from application.seats import seat_names

from .compose import hello, say_language
from .notify_base import Mailer


class LinkEmails(Mailer):
    """New links, sent on request: to a seat's game, to a player's dashboard."""

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
        tr, _tz = self.voice(email, meta["seats"][seat])
        title = games.title_in(games.of_meta(meta), tr.lang)
        msg = self.notice(tr._("{title} with {names}: your new private link", title=title,
                               names=self.others(seat_names(meta), seat, tr)), email)
        msg.set_content(
            hello(meta['seats'][seat]['name'], tr) + "\n\n"
            + tr._("as asked, your private link to game {game_id} is renewed; the links in earlier emails no "
                   "longer work. Your new link (keep it to yourself):", game_id=game_id) + "\n"
            + f"{self.open_url(game_id, seat, lang=tr.lang)}\n\n"
            + tr._("If you did not ask for this, someone else had your link: they no longer have it.")
            + "\n\n"
            + "\n".join(self.dashboard_lines(email, first, tr))
            + "\n\n" + tr._("Stop all emails from us: {url}", url=self.unsubscribe_url(email)) + "\n")
        say_language(msg, tr.lang)
        return self.send_once(f"newlink:{game_id}:{seat}:{generation}", email, msg, first, scope=game_id)

    def send_dashboard_link(self, pid: str, generation: int) -> int:
        """Email the player's new dashboard link after the key was revoked (once per generation)."""
        if links.current_generation(self.r, "me:" + pid) != generation:
            return 0
        raw = self.r.hget(ME_EMAIL.key(pid), pid)
        if raw is None:
            return 0
        email = raw.decode()
        tr, _tz = self.voice(email)
        msg = self.notice(tr._("Your new dashboard link"), email)
        msg.set_content(
            tr._("As asked, your private dashboard link is renewed; the one in earlier emails no longer "
                 "works. Your new link (keep it to yourself):")
            + f"\n{self.dashboard_url(email, lang=tr.lang)}\n\n"
            + tr._("If you did not ask for this, someone else had your link: they no longer have it.") + "\n")
        say_language(msg, tr.lang)
        return self.send_once(f"newkey:{pid}:{generation}", email, msg, False)
