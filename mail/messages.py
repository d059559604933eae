"""The table talk by email (issue 41; application/messages.py; docs/pbem.md, "Table talk").

**Out.** A seat's turn email tells the others' messages its emails have not told yet
(:func:`turn_email_talk`, under "Table talk"); a message that no email told within the delay
(``TABLEPOST_TALK_EMAIL_SECONDS``, 3 hours) goes in an email of its own (:class:`TalkMailer`, the beat's
``workers.sweep_talk``), whose reply address is the seat's *talk address*: version 0, which no turn has,
numbered by the last message the email told (``play+<game>.<seat>.t<n>.<sig>``, mail/addresses.py).
It expires as a turn's does: once a newer message email went to the seat, a reply to an older one
posts nothing and is answered (mail/mailin.py, ``stale-talk``); so does the fixed address of the
message emails from before talk addresses were numbered.

**In.** A reply carries a message by one of two rules, which never read a move as a message or a
message as a move (:func:`split_reply`):

* a reply to a message email (the talk address): its whole text above the quote is the message;
  nothing in it is played;
* a reply to a turn email: the lines after a line that begins ``Message:`` (the words after the colon
  too) up to the quote are the message; the lines before it are the moves, read as ever (a mistyped
  move among them is refused as a move, and then nothing of the reply is done). A reply with no
  such line carries no message.

Words are plain text: HTML is escaped, no link is made, and a word that looks like a link shows as
"[a link was removed]" (:func:`talk_lines`, application/talk_text.py); a name, never an address.
"""
from __future__ import annotations

import html
import logging
import re
import time
from typing import Callable

import games
from application.errors import ServiceError
from application.messages import DUE, TableTalk, clean_text
from application.talk_text import without_links
from application.notifications import preference
from application.seats import seat_names

from . import addresses, reply_text
from tablepost.i18n import ENGLISH, Translator

from .compose import hello, html_document, simple_email, thread_subject

log = logging.getLogger("tablepost.talk")

TALK_VERSION = 0     # the reply address of a message email: no turn has version 0
# "Message:" (English and French), "Nachricht:" (German): the line that starts a reply's message
_MESSAGE_LINE = re.compile(r"^\s*\*?(?:message|nachricht)\s*:\*?\s?(.*)$", re.IGNORECASE)
_INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff"


def split_reply(text: str, version: int,
                is_marker: Callable[[list[str], int], bool] = reply_text.is_marker) -> tuple[str, str | None]:
    """(the text to read moves from, the message or None). ``is_marker(lines, i)``: whether line i
    starts the quoted email or a signature (mail/reply_text.py). See the module's doc for the rule."""
    lines = (text or "").splitlines()
    end = next((i for i in range(len(lines)) if is_marker(lines, i)), len(lines))
    if version == TALK_VERSION:
        return "", "\n".join(lines[:end]).strip()
    for i in range(end):
        m = _MESSAGE_LINE.match(lines[i].strip(_INVISIBLE))
        if m:
            said = "\n".join([m.group(1)] + lines[i + 1:end]).strip()
            return "\n".join(lines[:i]), said
    return text, None


def talk_lines(said: list[dict], tr: Translator = ENGLISH) -> tuple[list[str], str]:
    """The others' messages for an email: (plain-text lines, HTML), each as its author's name and
    words; the words escaped, never a link or markup of theirs: every email that shows a message
    shows it through here, a word that looks like a link replaced by "[a link was removed]"
    (application/talk_text.py: no mail client makes a link of what is left)."""
    if not said:
        return [], ""
    said = [dict(m, name=without_links(m["name"]), text=without_links(m["text"])) for m in said]
    text = [tr._("Table talk:")]
    for m in said:
        words = m["text"].splitlines() or [""]
        text += [f"  {m['name']}: {words[0]}"] + [f"    {w}" for w in words[1:]]
    text.append("")
    e = html.escape
    items = "".join(
        f'<li><b>{e(m["name"])}</b>: <span style="white-space:pre-wrap">{e(m["text"])}</span></li>'
        for m in said)
    return text, f"<p>{e(text[0])}</p><ul>{items}</ul>"


def turn_email_talk(talk: TableTalk, game_id: str, meta: dict, seat: int,
                    tr: Translator = ENGLISH) -> tuple[list[str], str]:
    """The messages a turn email of ``seat`` tells (marked told: this email carries them)."""
    try:
        said, upto = talk.unread_for_email(game_id, meta, seat)
        if upto:
            talk.mark_told(game_id, seat, upto)
        return talk_lines(said, tr)
    except Exception:   # the talk never costs a player their turn email
        log.warning("could not read the table talk of %s for seat %s", game_id, seat, exc_info=True)
        return [], ""


class TalkMailer:
    """The message emails: for a game whose messages are due (``talk:due``), each seat whose
    emails have not told the others' messages gets them in an email of their own."""

    def __init__(self, notifier, delay: float):
        self.notifier = notifier
        self.talk = TableTalk(notifier.service, email_delay=delay)
        self.r = notifier.r

    def sweep(self, limit: int = 200) -> int:
        sent = 0
        for game_id in self.talk.due(limit=limit):
            start = time.time()
            later: list[float] = []
            try:
                sent += self.send(game_id, later)
            except ServiceError:   # the game is gone: nothing to tell
                pass
            except Exception:
                log.warning("could not send the table talk of %s", game_id, exc_info=True)
                continue
            self.talk.done(game_id, start)
            if later:   # a seat's emails of the day are spent: its messages wait for the next one
                self.r.zadd(DUE, {game_id: min(later)}, lt=True)
        return sent

    def send(self, game_id: str, later: list[float] | None = None) -> int:
        """Each seat's message email of the game; a seat whose setting is ``none`` gets none (what it
        missed is marked told), one whose day's message emails from this game are spent
        (:data:`application.messages.EMAILS_PER_DAY`, one for ``digest``) gets it when the day is
        over, unless an email or its page told it before (the time goes into ``later``)."""
        meta = self.notifier.service.meta(game_id)
        sent = 0
        for seat, s in enumerate(meta["seats"]):
            said, upto = self.talk.unread_for_email(game_id, meta, seat)
            if not upto:
                continue
            email = s.get("email")
            setting = preference(self.r, email)
            if said and setting != "none":
                wait = self.talk.email_wait(game_id, seat, setting)
                if wait is not None:
                    if later is not None:
                        later.append(wait)
                    continue
                self.talk.talk_address_sent(game_id, seat, upto)   # the one it carries is current now
                msg = self.message(game_id, meta, seat, said, upto)
                sent += self.notifier.send_once(f"talk:{game_id}:{seat}:{upto}", email, msg,
                                                game_id=game_id, seat=seat)
            self.talk.mark_told(game_id, seat, upto)
        return sent

    def message(self, game_id: str, meta: dict, seat: int, said: list[dict], upto: int = 0):
        n = self.notifier
        names = seat_names(meta)
        tr, _tz = n.voice(meta["seats"][seat].get("email"), meta["seats"][seat])
        title = games.title_in(games.of_meta(meta), tr.lang)
        who = sorted({without_links(m["name"]) for m in said})
        headline = (tr._("{names} wrote to the table.", names=tr.list(who)) if len(who) <= 2
                    else tr._("The others wrote to the table."))
        text, markup = talk_lines(said, tr)
        url = n.open_url(game_id, seat, lang=tr.lang)
        answer = tr._("Reply to this email to answer them: all you write above the quoted text goes to the "
                      "table as your message (nothing in it is played).")
        lines = [hello(names[seat], tr), "", *text, answer, "", tr._("Open the game: {url}", url=url)]
        msg = simple_email(subject=thread_subject(title, names, seat, game_id, tr),
                           from_addr=n.cfg.from_addr, to_addr=meta["seats"][seat]["email"], lines=lines,
                           reply_to=addresses.talk_address(n.cfg.secret, n.cfg.domain, game_id, seat, upto),
                           headline=headline, lang=tr.lang)
        e = html.escape
        open_game = tr._("Open the game")
        body = (f"<p>{e(hello(names[seat], tr))}</p>{markup}<p>{e(answer)}</p>"
                f'<p><a href="{e(url)}">{e(open_game)}</a></p>')
        html_part = msg.get_body(("html",))
        assert html_part is not None   # simple_email writes the text and the HTML
        html_part.set_content(html_document(headline, body, tr.lang), subtype="html")
        return msg


def refused_note(why: str | None, tr: Translator = ENGLISH) -> str:
    """What a confirmation says when the reply's moves were played but its message was not posted."""
    if not why:
        return ""
    return tr._("Your moves were played; your message was not posted: {why}.", why=why.rstrip("."))


def check_message(said: str) -> str | None:
    """Why a reply's message cannot be posted as it stands (empty, too long), before anything of the
    reply is done; None when it can."""
    try:
        clean_text(said)
        return None
    except ServiceError as e:
        return e.detail


def post_reply_message(post: Callable[[str, int, str], dict] | None, game_id: str, seat: int,
                       said: str) -> str | None:
    """Post a reply's message (after its moves were played); None, or why it was not posted."""
    if post is None:
        return "messages are not taken by email here"
    try:
        post(game_id, seat, said)
        return None
    except ServiceError as e:
        return e.detail
