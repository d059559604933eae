"""The tournament email: every player the organizer entered by email is told once that they are
in, with their private tournament link (``/tournaments/<id>#entry=<entry token>``: their games,
their seat links, withdrawing). Anyone asking with the invitation link to enter an address gets
the same answer whatever the address (issue 39); the address's owner is emailed
(:func:`entry_ask`) the link that confirms the entry, or, when the address is entered already, its
private link again. Turn emails of tournament games are the normal ones (docs/pbem.md)."""
from __future__ import annotations


import games
from application.dashboard import remember_address
from application.notifications import preference
from application.talk_text import without_links
from application.tournament_service import TournamentService, game_of

from .compose import consent_lines, hello, one_line, say_language, simple_email, unsubscribe_line
from .notify import Notifier


def tournament_name(t) -> str:
    """The tournament's name as an email shows it: one line, and no link (a name stored before names
    that look like links were refused: application/talk_text.py ``without_links``)."""
    return one_line(without_links(t.definition["name"]))


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
        tr, _tz = notifier.voice(email, {"language": t.languages[email]} if email in t.languages else None)
        title = games.title_in(game, tr.lang)
        how = (tr._("Each game sends you its turn emails as usual; reply to them with your moves.")
               if game.email
               else tr._("Play your games on their game pages, linked from your tournament page."))
        fmt = t.format.replace("_", " ")
        page = tr._("Your private tournament page (your games, withdrawing): keep it to yourself:")
        # to an address that has not accepted our email, nothing the organizer wrote (docs/pbem.md,
        # "Email by consent"): neither the tournament's name nor the name typed with the address; it
        # is the invitation (accept or refuse), charged to the address's bounds like a game's first email
        pending = notifier.stranger(email)
        if pending:
            msg = notifier.notice(tr._("{title} tournament: you were entered", title=title), email)
            msg.set_content(
                tr._("Hello,") + "\n\n"
                + tr.ngettext("the organizer of a {title} tournament ({format}, {n} player per game) entered "
                              "this address in it.", "the organizer of a {title} tournament ({format}, {n} "
                              "players per game) entered this address in it.", t.table_size, title=title,
                              format=fmt)
                + f"\n\n{page}\n{link}\n\n{how}\n\n"
                + "\n".join(consent_lines(email, title, notifier.consent_urls(email), tr)) + "\n")
        else:
            msg = notifier.notice(tr._("{title} tournament: you are entered in {name}", title=title,
                                       name=tournament_name(t)), email)
            msg.set_content(
                hello(name, tr) + "\n\n"
                + tr.ngettext('you are entered in the tournament "{name}" ({title}, {format}, {n} player '
                              "per game).", 'you are entered in the tournament "{name}" ({title}, {format}, '
                              "{n} players per game).", t.table_size, name=tournament_name(t),
                              title=title, format=fmt)
                + f"\n\n{page}\n{link}\n\n{how}\n\n"
                + "\n".join(notifier.dashboard_lines(email, first, tr)) + "\n\n"
                + unsubscribe_line(notifier.unsubscribe_url(email), tr) + "\n")
        say_language(msg, tr.lang)
        sent += notifier.send_once(f"twelcome:{tid}:{email}", email, msg, first and not pending,
                                   scope=f"tournament:{tid}")
    return sent


def entry_ask(notifier: Notifier, tid: str, nonce: str) -> int:
    """Answer an entry asked for with the invitation link (``POST /tournaments/{id}/entries``
    without the organizer's token), to the address's owner only (once): the link that confirms it,
    or the address's private tournament page when it is entered already, or that entries closed."""
    ts = TournamentService(notifier.service)
    ask = ts.entry_ask(tid, nonce)
    if ask is None:
        return 0
    t = ts.load(tid)
    email = ask["email"]
    tr, _tz = notifier.voice(email, ask)   # the language asked with the entry, if the address chose none
    title = games.title_in(game_of(t), tr.lang)
    # to an address that has not accepted our email, nothing another person wrote (docs/pbem.md,
    # "Email by consent"): neither the tournament's name nor the name typed with the address
    pending = notifier.stranger(email)
    if pending:
        name, ask = tr._("a tournament"), dict(ask, name=tr._("there"))
        asked = tr._("someone (we hope you) asked to enter this address in a {title} tournament.",
                     title=title)
    else:
        name = tournament_name(t)
        asked = tr._('someone (we hope you) asked to enter this address in the {title} tournament '
                     '"{name}".', title=title, name=name)
    page = f"{notifier.cfg.public_url}/tournaments/{tid}"
    if email in t.entrants:
        lines = [hello(t.entrants[email], tr), "", asked,
                 tr._("This address is entered already: your private tournament page (your games, "
                      "withdrawing) is here; keep it to yourself:"),
                 f"{page}#entry={ts.entry_token(tid, email)}", "",
                 tr._("If you did not ask for this, ignore this email: nothing changed.")]
        headline = tr._("You are entered already")
        subject = tr._("{title} tournament: you are entered in {name} already", title=title, name=name)
    elif t.status != "open":
        lines = [hello(ask["name"], tr), "", asked, tr._("It has started, so entries are closed."), "",
                 tr._("If you did not ask for this, ignore this email: nothing happened.")]
        headline = tr._("Entries are closed")
        subject = tr._("{title} tournament: entries to {name} are closed", title=title, name=name)
    else:
        lines = [hello(ask["name"], tr), "", asked,
                 tr._("Open this link to confirm your entry (it works once, until the tournament starts):"),
                 f"{page}#confirm={ts.confirm_token(tid, nonce)}", "",
                 tr._("If you did not ask for this, ignore this email: nothing happens without the "
                      "link."),
                 tr._("One click stops every email from us: {url}", url=notifier.unsubscribe_url(email))]
        headline = tr._("Confirm your entry")
        subject = tr._("{title} tournament: confirm your entry in {name}", title=title, name=name)
    msg = simple_email(subject=subject, from_addr=notifier.cfg.from_addr, to_addr=email, lines=lines,
                       headline=headline, lang=tr.lang)
    return notifier.send_once(f"tentry-ask:{tid}:{nonce}", email, msg, scope=f"tournament:{tid}")
