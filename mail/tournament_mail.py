"""The tournament email: every player the organizer entered by email is told once that they are
in, with their private tournament link (``/tournaments/<id>#entry=<entry token>``: their games,
their seat links, withdrawing). Players who entered with the invitation link got that link on
the page already. Turn emails of tournament games are the normal ones (docs/pbem.md)."""
from __future__ import annotations


from application.dashboard import remember_address
from application.notifications import preference
from application.tournament_service import TournamentService, game_of

from .compose import one_line
from .notify import Notifier


def welcome(notifier: Notifier, tid: str) -> int:
    """Send the missing welcome emails of tournament ``tid``; returns how many were sent."""
    ts = TournamentService(notifier.service)
    t = ts.load(tid)
    sent = 0
    for email, name in t.entrants.items():
        if (t.entered_via.get(email) != "list" or email in t.withdrawn
            or preference(notifier.r, email) == "none"):
            continue
        link = f"{notifier.cfg.public_url}/tournaments/{tid}#entry={ts.entry_token(tid, email)}"
        remember_address(notifier.r, email)
        first = notifier.first_email(email)
        game = game_of(t)
        title = game.title
        how = ("Each game sends you its turn emails as usual; reply to them with your moves." if game.email
               else "Play your games on their game pages, linked from your tournament page.")
        msg = notifier.notice(f"{title} tournament: you are entered in {one_line(t.definition['name'])}",
                              email)
        fmt = t.format.replace("_", " ")
        msg.set_content(
            f"Hello {name},\n\nyou are entered in the tournament \"{t.definition['name']}\" "
            f"({title}, {fmt}, {t.table_size} players per game).\n\n"
            f"Your private tournament page (your games, withdrawing): keep it to yourself:\n{link}\n\n"
            f"{how}\n\n"
            + "\n".join(notifier.dashboard_lines(email, first)) + "\n\n"
            f"Unsubscribe (one click, every email from us): {notifier.unsubscribe_url(email)}\n")
        sent += notifier.send_once(f"twelcome:{tid}:{email}", email, msg, first)
    return sent
