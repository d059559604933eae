"""Building the emails (pure, no I/O): the turn email, the confirmation and the error answer.

Each message has a plain-text and an HTML part. The turn email carries the board of exactly the
position it describes as an inline PNG (``multipart/related`` inside the HTML alternative, shown
by ``<img src="cid:...">``; ``mail/board_png.py`` renders it), so it shows with remote images
blocked and an old email keeps its own position; the text part says the position in words. The
seat's legal moves are listed one per line in the text part as ``  <move> — <description>``; a
reply may copy such a line whole (``mail/mailin.py``).

Every email of a game to one seat has the same subject, ``<Game> with <the other players> (game
<id>)`` (:func:`thread_subject`), and answers carry ``Re:`` before it: mail clients group a game
into one conversation only when the subjects agree (Gmail also needs the ``References`` chain,
``finish_headers``), so what happened ("your turn", "reminder", "game over") is not in the
subject but in the email's first line, which the inbox list shows after the subject (no hidden
"preheader": hidden text is what spam filters look for, and the first line says it anyway). The id
tells apart two games with the same players.
"""
from __future__ import annotations

import base64
import hashlib
import html
import re
import secrets
import textwrap
import unicodedata
from dataclasses import dataclass, field
from typing import Any
from email.message import EmailMessage
from email.mime.image import MIMEImage
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from email.utils import formatdate, make_msgid

from games import RESIGNED, EmailGame, in_language, title_in
from tablepost.i18n import ENGLISH, N_, Translator

MSGID_DOMAIN = "tiletum-pbem"


# how to resign by reply (mail/mailin_runtime.py, docs/pbem.md), in every turn email
RESIGN_HINT = N_("To resign, reply with the one line: resign.")
TALK_HINT = N_('To write to the other players, add a line "Message:" after your moves (or instead of them) '
               "and your words after it.")   # the table talk's rule (mail/messages.py)

def message_id(once_key: str, domain: str) -> str:
    """The Message-ID of the email sent under ``once_key``: ``<hash-of-the-key@domain>``, the same
    every time it is built, so a resend of the same email keeps it."""
    digest = hashlib.sha256(once_key.encode("utf-8")).hexdigest()[:32]
    return f"<{digest}@{domain}>"


def thread_root_id(game_id: str, seat: int, domain: str) -> str:
    """The Message-ID every email of a game to one seat threads under (the first one's own)."""
    return message_id(f"thread:{game_id}:{seat}", domain)


def _replace(msg, name: str, value: str) -> None:
    del msg[name]
    msg[name] = value


MAX_REFERENCES = 20
_MSGID = re.compile(r"<[^<>\s]+>")


def message_ids(value) -> list[str]:
    """The ``<...>`` message ids in a header value (``References``, ``In-Reply-To``), in order."""
    return _MSGID.findall(str(value or ""))


def references_chain(earlier: list[str], parent: str, limit: int = MAX_REFERENCES) -> str:
    """A ``References`` value (RFC 5322 3.6.4): the parent's own chain, then the parent. Past
    ``limit`` ids the first one (the thread's root) and the latest ones are kept, as RFC 5322
    allows; duplicates are dropped."""
    ids: list[str] = []
    for mid in [*earlier, parent]:
        if mid and mid not in ids:
            ids.append(mid)
    if len(ids) > limit:
        ids = ids[:1] + ids[-(limit - 1):]
    return " ".join(ids)


def finish_headers(msg, *, domain: str, once_key: str | None = None, msgid: str | None = None,
                   in_reply_to: str | None = None, unsubscribe_url: str | None = None,
                   references: list[str] | None = None):
    """The headers every email of the service carries: ``Date``; ``Message-ID`` (``msgid``, or
    derived from ``once_key``, else a fresh one); ``In-Reply-To`` and ``References`` when it answers
    or follows an email (``references``: the ids before ``in_reply_to`` in the thread, oldest
    first); ``List-Unsubscribe`` with one-click ``List-Unsubscribe-Post`` (RFC 8058), and with it a
    ``List-Id`` (RFC 2919: what a player's filter rules can sort on; an unsubscribe header without it
    is a spam sign, SpamAssassin's LIST_PARTIAL)."""
    if "Date" not in msg:
        msg["Date"] = formatdate(usegmt=True)
    if msgid:
        _replace(msg, "Message-ID", msgid)
    elif once_key:
        _replace(msg, "Message-ID", message_id(once_key, domain))
    elif "Message-ID" not in msg:
        msg["Message-ID"] = make_msgid(domain=domain)
    if in_reply_to and in_reply_to != msg["Message-ID"]:
        _replace(msg, "In-Reply-To", in_reply_to)
        _replace(msg, "References", references_chain(list(references or []), in_reply_to))
    if unsubscribe_url:
        _replace(msg, "List-Unsubscribe", f"<{unsubscribe_url}>")
        _replace(msg, "List-Unsubscribe-Post", "List-Unsubscribe=One-Click")
        _replace(msg, "List-Id", list_id(domain))
    return msg


def list_id(domain: str) -> str:
    """The ``List-Id`` of every email of the service (RFC 2919)."""
    return f"Board games by mail <games.{domain}>"


def one_line(text: str) -> str:
    """``text`` fit for an email header: every run of whitespace, control, format or separator
    characters becomes one space (a line break in a header value is refused by ``email``)."""
    return " ".join("".join(" " if ch.isspace() or unicodedata.category(ch)[0] in "CZ" else ch
                            for ch in text).split())


def names_text(names: list[str], tr: Translator = ENGLISH) -> str:
    """``Ann``, ``Ann and Bob``, ``Ann, Bob and Cid`` (in ``tr``'s language)."""
    return tr.list([one_line(n) for n in names])


def thread_subject(title: str, seat_names: list[str], seat: int | None, game_id: str,
                   tr: Translator = ENGLISH) -> str:
    """The subject of every email of a game to ``seat`` (the module's docstring says why it is
    stable): ``Tiletum with Bob and Cid (game <id>)``, naming the other players. Every language's
    ends in ``(game <id>)``'s own words (mail/notify_base.py keeps a thread's first subject)."""
    others = [n for i, n in enumerate(seat_names) if i != seat] or list(seat_names)
    return one_line(tr._("{title} with {names} ({game_ref})", title=title, names=names_text(others, tr),
                         game_ref=game_ref(game_id, tr)) if others
                    else tr._("{title} game {game_id}", title=title, game_id=game_id))


def game_ref(game_id: str, tr: Translator = ENGLISH) -> str:
    """``game <id>``: how a subject names the game (the end of every thread subject, in brackets)."""
    return tr._("game {game_id}", game_id=game_id)


def answer_subject(subject: str, tr: Translator = ENGLISH) -> str:
    """``Re: <subject>`` once, whatever ``Re:``/``Aw:``/``Fwd:`` prefixes it had."""
    bare = re.sub(r"^\s*((re|aw|sv|fwd?)\s*:\s*)+", "", subject or "", flags=re.IGNORECASE)
    return f"Re: {bare}" if bare else "Re: " + tr._("your game")


def html_document(headline: str, body: str, lang: str = "en") -> str:
    """An HTML email: the headline as the first thing shown (and the inbox list's preview), then
    ``body``. Nothing in it is hidden. ``lang``: the language it is written in."""
    return (f'<!doctype html><html lang="{html.escape(lang)}"><head><meta charset="utf-8"></head>'
            '<body '
            'style="font-family:Helvetica,Arial,sans-serif;font-size:15px;line-height:1.45;color:#222222">'
            + f'<p style="font-size:17px"><b>{html.escape(headline)}</b></p>'
            + body + "</body></html>")


@dataclass
class InlineImage:
    """A picture carried in the email (``Content-ID``), shown by ``<img src="cid:...">``."""
    name: str          # "board", "tile": the image's part of its Content-ID and file name
    png: bytes
    alt: str           # what it shows, for a client that blocks images or a screen reader
    width: int         # the width to show it at, in CSS pixels

    def cid(self, game_id: str, version: int) -> str:
        """Unique per game, version and picture (an id, not an address: nothing is fetched)."""
        return f"{self.name}.{version}.{game_id}@{MSGID_DOMAIN}"


def _base64_lines(part) -> None:
    """``email.encoders.encode_base64`` at C speed: the same lines of 76 characters (the standard
    one encodes 57 bytes at a time in Python, 0.4 ms for a turn email's pictures)."""
    data = base64.b64encode(part.get_payload(decode=True))
    part.set_payload(b"".join(data[i:i + 76] + b"\n" for i in range(0, len(data), 76)).decode("ascii"))
    part["Content-Transfer-Encoding"] = "base64"


def with_images(html_doc: str, images: list[tuple[str, InlineImage]]):
    """The HTML part, and when there are pictures, ``multipart/related`` of it and the pictures
    (RFC 2387), each with its ``Content-ID`` (``images``: (cid, picture))."""
    part = MIMEText(html_doc, "html", "utf-8")
    if not images:
        return part
    related = MIMEMultipart("related", boundary="=_tiletum_" + secrets.token_hex(16))
    related.attach(part)
    for cid, image in images:
        img = MIMEImage(image.png, "png", _encoder=_base64_lines)
        img["Content-ID"] = f"<{cid}>"
        img.add_header("Content-Disposition", "inline", filename=f"{image.name}.png")
        related.attach(img)
    return related


@dataclass
class TurnContext:
    game_id: str
    seat: int
    seat_name: str
    to_addr: str
    from_addr: str
    reply_to: str
    state: Any                   # the game's state (each engine its own GameState; EmailGame[Any] reads it)
    seat_names: list[str]
    since: list[dict]
    open_url: str
    game: EmailGame              # the game's rules and words (games/: the email surface)
    move_urls: dict[str, str] = field(default_factory=dict)
    unsubscribe_url: str = ""
    dashboard_url: str = ""      # the address's private dashboard (/me#key=...)
    first_email: bool = False    # the address's first email: explain the dashboard link
    deadline: str = ""           # "Sun 22 Nov 2026 09:00 UTC (in 3 days)", when the turn has one
    intro: str = ""              # a sentence before the turn (e.g. why this email is sent again)
    headline: str = ""           # the email's first line, the inbox preview (default: "Your turn.")
    subject: str = ""            # default: thread_subject (the same for every email of the game)
    images: list[InlineImage] = field(default_factory=list)   # the board (first) and the tile in hand
    board_url: str = ""          # the board as SVG on the server (kept as a link)
    talk_text: list[str] = field(default_factory=list)   # the others' new messages (mail/messages.py)
    talk_html: str = ""
    consent_urls: tuple[str, str] | None = None   # accept, refuse: to an address that has not accepted
    resigned: list[int] = field(default_factory=list)   # the seats that resigned (the players' lines say so)
    tr: Translator = ENGLISH     # the recipient's language (tablepost/i18n.py): the email's frame in it


def describe_event(event: dict, seat_names: list[str], game: EmailGame, tr: Translator = ENGLISH) -> str:
    """A past move in plain words, with the player's name (``event["text"]``, when the notifier
    put it there, is the move in words as ``GET /events`` says it), and what chance brought with
    it, in the game's words (``EmailTexts.email_past``, ``email_chance``: the game's own texts, in
    ``tr``'s language where the game speaks it, else English; docs/i18n.md)."""
    said = in_language(game, tr.lang)
    who = (seat_names[event["seat"]] if event.get("seat") is not None and event["seat"] < len(seat_names)
           else "?")
    by = f" (played by the {event['by']})" if event.get("by") else ""
    if event.get("text") and event.get("type") == "MovePlayed":
        text = event["text"]
        if event.get("by") and text.endswith(by):
            text = text[: -len(by)]
        elif event.get("by") and said and text.endswith(")"):   # the game said who played it in its language
            text = re.sub(r" \([^()]*\)$", "", text)
        # GET /events' texts already say who did what ("Bob took the yellow 2 die: ..."); older
        # imperative ones ("Take the yellow 2 die: ...") are put in the past by the game
        line = (text if text.startswith(who + " ") else game.email_past(who, text, **said)) + _by(event, tr)
        extra = game.email_chance(event.get("chance") or [], **said)
        return line + ("; " + "; ".join(extra) if extra else "")
    if event.get("type") == "MoveUndone":
        return tr._("{who} took back a move", who=who)
    if event.get("type") == RESIGNED:
        if tr is ENGLISH and event.get("text"):
            return event["text"]
        return tr._("{who} resigned", who=who)
    if event.get("type") != "MovePlayed":
        return tr._("the game started")
    return tr._("{who} played {move}", who=who, move=event["move"]) + _by(event, tr)


def _by(event: dict, tr: Translator) -> str:
    """`` (played by the stand-in)``: who played a seat's move for it, when not its player."""
    if not event.get("by"):
        return ""
    if event["by"] == "stand-in":
        return tr._(" (played by the stand-in)")
    return tr._(" (played by the {who})", who=event["by"])


DASHBOARD_FIRST = N_("Your private dashboard lists all your games: where you are to move, where others "
                     "are, your results, your email setting and your vacation. Keep its link to yourself "
                     "(it is your key).")


FIRST_CONTACT = N_("You get this email because {to} was entered as a player in a game of {title}. If you "
                   "did not expect it, one click stops every email from us: {url}")


def first_contact(to_addr: str, unsubscribe_url: str, title: str = "Table Post",
                  tr: Translator = ENGLISH) -> str:
    """Why an address that never played gets our email, and how to stop all of it: the opening of
    its first email (anyone may enter any address in a game; docs/pbem.md)."""
    return tr._(FIRST_CONTACT, to=to_addr, url=unsubscribe_url, title=title)


HOW_TO_REPLY = [
    N_("How to play by email: reply to this email with your moves, one per line, above the quoted text. A "
       "greeting before them and your name after them are fine. Copy a line of the list as it stands; the "
       "words after its dash may stay or go."),
    N_("Several moves in one reply are played in order, all of them or none; a move that reveals something "
       "new (a die, a tile, a card) ends what one email plays, and you get an email with the outcome."),
    N_("Going away? Reply with the line \u201cvacation on\u201d and your clock stops until you reply "
       "\u201cvacation off\u201d. Every email of this game comes in one conversation, and its links are "
       "yours alone: please do not forward it."),
]


CONSENT_WHY = N_("Someone who set up a game of {title} on Table Post, a site for board games by email, "
                 "entered {to} as a player.")
CONSENT_ASK = N_("We email you nothing more of it until you accept. Until then we show no names or messages "
                 "that other people wrote, and you get only what keeps you from losing the game without "
                 "knowing: a reminder before your deadline, the notice when a stand-in played for you, and "
                 "the result.")
CONSENT_ACCEPT = N_("Accept (one click, or reply to this email with anything):")
CONSENT_REFUSE = N_("Not you, or not wanted? Refuse, and we never email you again:")


def consent_lines(to_addr: str, title: str, urls: tuple[str, str], tr: Translator = ENGLISH) -> list[str]:
    """The invitation's words in a plain-text email to an address that has not accepted our email
    (docs/pbem.md, "Email by consent"): why it came, who entered it, how to accept or refuse."""
    accept, refuse = urls
    return [*textwrap.wrap(tr._(CONSENT_WHY, title=title, to=to_addr), 76),
            *textwrap.wrap(tr._(CONSENT_ASK), 76), "", tr._(CONSENT_ACCEPT), f"  {accept}", "",
            tr._(CONSENT_REFUSE), f"  {refuse}"]


def consent_html(to_addr: str, title: str, urls: tuple[str, str], tr: Translator = ENGLISH) -> str:
    e = html.escape
    accept, refuse = urls
    yes, also, no = (tr._("Accept"), tr._("(or reply to this email with anything)"),
                     tr._("Refuse every email from us"))
    return (f"<p>{e(tr._(CONSENT_WHY, title=title, to=to_addr))} {e(tr._(CONSENT_ASK))}</p>"
            f'<p><a href="{e(accept)}"><b>{e(yes)}</b></a> {e(also)} · <a href="{e(refuse)}">{e(no)}</a></p>')

# Under the board picture of a turn email: what it is and where to see more. With the position in
# words above it and the header of the moves' table, these make sure an email with few legal moves
# is never "a picture with few words" to a spam filter (SpamAssassin's HTML_IMAGE_ONLY_*, up to 2.8
# points, fires at up to 3,200 bytes of HTML beside an image; docs/pbem.md, "Reaching the inbox").
BOARD_CAPTION = N_("The board as it stands now. The words above and below it say where the game stands and "
                   "what you can play, for reading with pictures turned off.")
BOARD_CAPTION_LINK = N_("{open}Open the game{close} to see the board larger, to read every move of the game "
                        "so far, and to play your moves by click instead of by reply.")


def board_caption(url: str, tr: Translator = ENGLISH) -> str:
    e = html.escape
    link = e(tr._(BOARD_CAPTION_LINK, open="\0", close="\1"))
    link = link.replace("\0", f'<a href="{e(url)}">').replace("\1", "</a>")
    return f'<p style="color:#555555;font-size:13px">{e(tr._(BOARD_CAPTION))} {link}</p>'


def moves_head(tr: Translator = ENGLISH) -> str:
    e = html.escape
    move, does = tr._("Move (copy it into your reply)"), tr._("What it does")
    return f'<tr><th align="left">{e(move)}</th><th align="left">{e(does)}</th><th></th></tr>'


def dashboard_text(url: str, first: bool, tr: Translator = ENGLISH) -> list[str]:
    """The dashboard link in a plain-text email; explained in the address's first email."""
    if first:
        return ["", *textwrap.wrap(tr._(DASHBOARD_FIRST), 76), tr._("Your dashboard: {url}", url=url), ""]
    return [tr._("All your games: {url}", url=url)]


def unsubscribe_line(url: str, tr: Translator = ENGLISH) -> str:
    """The plain-text line of the one-click unsubscribe link at the end of an email."""
    return tr._("Unsubscribe (one click, every email from us): {url}", url=url)


def hello(name: str, tr: Translator = ENGLISH) -> str:
    return tr._("Hello {name},", name=name)


def round_end_html(lines: list[str]) -> str:
    """A round's end (``EmailTexts.email_round_end``: a heading line, then each player's line and
    its items, indented "  - ") as HTML: the heading, then each player in bold with a list."""
    e = html.escape
    out, items = [f"<p>{e(lines[0])}</p>"], []
    for line in lines[1:] + [""]:
        if line.startswith("  - "):
            items.append(f"<li>{e(line[4:])}</li>")
            continue
        if items:
            out.append("<ul>" + "".join(items) + "</ul>")
            items = []
        if line:
            out.append(f"<p><b>{e(line)}</b></p>")
    return "".join(out)


def turn_email(ctx: TurnContext):
    """The turn email: multipart/alternative of the text and of the HTML with its pictures inline
    (multipart/related), so it reads the same with remote images blocked. Its frame in ``ctx.tr``'s
    language; the game's own words (what the decision is, the moves, the position) as the game says
    them (docs/i18n.md)."""
    state, game, tr = ctx.state, ctx.game, ctx.tr
    said = in_language(game, tr.lang)   # the game's own words in the recipient's language, where it speaks it
    what = game.email_what(state, **said)
    headline = ctx.headline or f"{what[:1].upper()}{what[1:]}."
    legal = game.email_moves(state, ctx.seat, ctx.seat_names, **said)
    marked = [tr._("{name} (resigned)", name=n) if i in ctx.resigned else n
              for i, n in enumerate(ctx.seat_names)]
    # the players' lines say who resigned
    position = game.email_position_lines(state, ctx.seat, marked, **said)
    since = [describe_event(e, ctx.seat_names, game, tr) for e in ctx.since]
    # what a round's end did, and why
    round_end = game.email_round_end(state, ctx.seat, ctx.seat_names, **said)
    example = game.email_example(state, ctx.seat) if legal else ""
    others = [n for i, n in enumerate(ctx.seat_names) if i != ctx.seat]
    title = title_in(game, tr.lang)   # the title of its edition in the recipient's language
    where = tr._("{title} with {names}", title=title, names=names_text(others, tr)) if others else title
    stranger = (first_contact(ctx.to_addr, ctx.unsubscribe_url, title, tr) if ctx.first_email
                and ctx.unsubscribe_url else "")
    if ctx.consent_urls:
        stranger = ""
    text = [headline, "", hello(ctx.seat_name, tr), ""] + ([stranger, ""] if stranger else [])
    if ctx.consent_urls:
        text += consent_lines(ctx.to_addr, title, ctx.consent_urls, tr) + [""]
    text += [ctx.intro, ""] if ctx.intro else []
    text += [tr._("It is {what} in {where}.", what=what, where=where), ""]
    if since:
        text += [tr._("Since your last turn:")] + [f"  - {s}" for s in since] + [""]
    if round_end:
        text += round_end + [""]
    text += ctx.talk_text
    if ctx.deadline:
        text += [tr._("Your deadline: {when}.", when=ctx.deadline), ""]
    text += position + ["", tr._("Your legal moves:")]
    text += [f"  {m} — {d}" for m, d in legal]
    text += ["", tr._("Reply to this email with your moves, one per line, for example:"), f"    {example}",
             game.email_reply_hint(**said), tr._(RESIGN_HINT), tr._(TALK_HINT), ""]
    if legal:
        text += [line for para in HOW_TO_REPLY for line in [*textwrap.wrap(tr._(para), 76), ""]]
    if ctx.move_urls:
        text += [tr._("One-click moves:")] + [f"  {m}: {u}" for m, u in sorted(ctx.move_urls.items())] + [""]
    text += [tr._("Open the game (the board, and moves by click): {url}", url=ctx.open_url)]
    if ctx.board_url:
        text += [tr._("The board: {url}", url=ctx.board_url)]
    if ctx.dashboard_url:
        text += dashboard_text(ctx.dashboard_url, ctx.first_email, tr)
    if ctx.unsubscribe_url:
        text += [unsubscribe_line(ctx.unsubscribe_url, tr)]
    e = html.escape
    images = [(img.cid(ctx.game_id, state.version), img) for img in ctx.images]

    # the pictures' alt texts are the game's words: in the recipient's language where the game speaks it,
    # else English, marked so (a screen reader then reads them as English)
    alt_lang = ' lang="en"' if tr.lang != "en" and not said else ""

    def picture(cid: str, img: InlineImage) -> str:
        return (f'<p><img src="cid:{e(cid)}" alt="{e(img.alt)}"{alt_lang} width="{img.width}" '
                'style="max-width:100%;height:auto;border:0"></p>')

    def linked(message: str, url: str, **values) -> str:   # a message with a link around {open}...{close}
        said = e(tr._(message, open="\0", close="\1", **values))
        return said.replace("\0", f'<a href="{e(url)}">').replace("\1", "</a>")
    stranger_html = ("<p>" + linked(N_("You get this email because {to} was entered as a player in a game "
                                       "of {title}. If you did not expect it, {open}one click stops every "
                                       "email from us{close}."), ctx.unsubscribe_url, to=ctx.to_addr,
                                    title=title)
                     + "</p>") if stranger else ""
    if ctx.consent_urls:
        stranger_html = consent_html(ctx.to_addr, title, ctx.consent_urls, tr)
    it_is = e(tr._("It is {what} in {where}.", what="\0", where="\1")).replace(
        "\0", f"<b>{e(what)}</b>").replace("\1", e(where))
    parts = [f"<p>{e(hello(ctx.seat_name, tr))}</p>" + stranger_html
             + (f"<p>{e(ctx.intro)}</p>" if ctx.intro else "") + f"<p>{it_is}</p>"]
    if since:
        since_head = tr._("Since your last turn:")
        parts.append(f"<p>{e(since_head)}</p><ul>"
                     + "".join(f"<li>{e(s)}</li>" for s in since) + "</ul>")
    if round_end:
        parts.append(round_end_html(round_end))
    parts.append(ctx.talk_html)   # escaped by mail/messages.py
    if ctx.deadline:
        deadline = e(tr._("Your deadline: {when}.", when="\0"))
        parts.append("<p>" + deadline.replace("\0", f"<b>{e(ctx.deadline)}</b>") + "</p>")
    parts.append("<p>" + "<br>".join(e(x) for x in position) + "</p>")
    parts += [picture(cid, img) for cid, img in images[1:]]   # the tile in hand, by the position
    if images:
        parts.append(picture(*images[0]) + board_caption(ctx.open_url, tr))
    if ctx.board_url:
        parts.append("<p>" + linked(N_("{open}The board as SVG{close} (sharper, zoomable)"),
                                        ctx.board_url) + "</p>")
    play = e(tr._("play"))
    rows = "".join(f"<tr><td><code>{e(m)}</code></td><td>{e(d)}</td>"
                   + (f'<td><a href="{e(ctx.move_urls[m])}">{play}</a></td>' if m in ctx.move_urls
                      else "<td></td>")
                   + "</tr>" for m, d in legal)
    legal_head = tr._("Your legal moves:")
    parts.append(f"<p>{e(legal_head)}</p>"
                 f"<table>{moves_head(tr) if legal else ''}{rows}</table>")
    reply_with = e(tr._("Reply with your moves, one per line, for example {example}.", example="\0")).replace(
        "\0", f"<code>{e(example)}</code>")
    parts.append(f"<p>{reply_with} {e(game.email_reply_hint(**said))} {e(tr._(RESIGN_HINT))} "
                 f"{e(tr._(TALK_HINT))}</p>")
    if legal:
        parts.append('<div style="color:#555555;font-size:13px">'
                     + "".join(f"<p>{e(tr._(para))}</p>" for para in HOW_TO_REPLY) + "</div>")
    open_game, all_games, unsubscribe = tr._("Open the game"), tr._("All your games"), tr._("Unsubscribe")
    parts.append(f'<p><a href="{e(ctx.open_url)}">{e(open_game)}</a>'
                 + (f' · <a href="{e(ctx.dashboard_url)}">{e(all_games)}</a>' if ctx.dashboard_url else "")
                 + (f' · <a href="{e(ctx.unsubscribe_url)}">{e(unsubscribe)}</a>' if ctx.unsubscribe_url
                    else "")
                 + "</p>")
    if ctx.dashboard_url and ctx.first_email:
        yours = tr._("Your dashboard")
        parts.append(f'<p>{e(tr._(DASHBOARD_FIRST))} <a href="{e(ctx.dashboard_url)}">{e(yours)}</a></p>')
    # The classic MIME classes: the same structure as EmailMessage's, at a fraction of the cost of
    # its header parsing (this runs for every turn of every game).
    # a boundary of our own (random, and the parts are base64): the generator then need not
    # compile a regular expression per email to check one it made up
    alternative = MIMEMultipart("alternative", boundary="=_tiletum_" + secrets.token_hex(16))
    alternative.attach(MIMEText("\n".join(text) + "\n", "plain", "utf-8"))
    alternative.attach(with_images(html_document(headline, "".join(parts), tr.lang), images))
    msg = alternative
    msg["Subject"] = ctx.subject or thread_subject(title, ctx.seat_names, ctx.seat, ctx.game_id, tr)
    msg["From"], msg["To"], msg["Reply-To"] = ctx.from_addr, ctx.to_addr, ctx.reply_to
    msg["Content-Language"] = tr.content_language
    msg["Message-ID"] = make_msgid(domain=MSGID_DOMAIN)
    if ctx.unsubscribe_url:
        msg["List-Unsubscribe"] = f"<{ctx.unsubscribe_url}>"
        msg["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    return msg


def simple_email(*, subject: str, from_addr: str, to_addr: str, lines: list[str],
                 reply_to: str | None = None, headline: str = "", lang: str = "en") -> EmailMessage:
    """A short email (a notice): the lines as text, and as HTML paragraphs; ``headline`` first
    when given. ``lang``: the language it is written in (its ``Content-Language``)."""
    msg = EmailMessage()
    msg["Subject"] = subject
    msg["From"], msg["To"] = from_addr, to_addr
    if reply_to:
        msg["Reply-To"] = reply_to
    msg.set_content("\n".join(([headline, ""] if headline else []) + lines) + "\n")
    body = "<p>" + "<br>".join(html.escape(x) for x in lines) + "</p>"
    msg.add_alternative(html_document(headline, body, lang) if headline else body, subtype="html")
    return say_language(msg, lang)


def say_language(msg, lang: str):
    """``Content-Language`` (RFC 3282) on the whole email, once its content is set (setting the
    content of an ``EmailMessage`` drops or moves its Content-* headers)."""
    _replace(msg, "Content-Language", lang)
    return msg


def _answer(subject: str, from_addr: str, to_addr: str, reply_to: str | None, in_reply_to: str | None,
            references: list[str] | None = None, lang: str = "en") -> EmailMessage:
    """The headers of an answer to a player's email, threaded under it."""
    msg = EmailMessage()
    msg["Subject"] = subject
    msg["From"], msg["To"] = from_addr, to_addr
    if reply_to:
        msg["Reply-To"] = reply_to
    if in_reply_to:
        msg["In-Reply-To"] = in_reply_to
        msg["References"] = references_chain(list(references or []), in_reply_to)
    msg["Message-ID"] = make_msgid(domain=MSGID_DOMAIN)
    return msg


def unplayed_note(unplayed: list[str], tr: Translator = ENGLISH) -> str:
    """Why the moves after a reveal in a reply were not played (docs/pbem.md, "Several moves")."""
    if not unplayed:
        return ""
    return tr._("Not played: {moves}. A move you sent revealed chance (a die, a tile or a token), which ends "
                "what one email plays; see the outcome, then send those moves again if you still want them.",
                moves=", ".join(unplayed))


def ignored_note(ignored: list[str], tr: Translator = ENGLISH) -> str:
    """Which lines after the moves of a reply were taken for a sign-off and not read."""
    if not ignored:
        return ""
    quoted = ", ".join(tr._("\u201c{line}\u201d", line=one_line(x)) for x in ignored[:5]) + (
        " ..." if len(ignored) > 5 else "")
    return tr._("Not read as moves, and ignored: {lines}. A reply is read up to its first line that is not a "
                "move; if one of those was meant as a move, reply with it again.", lines=quoted)


def _styled_lines(lines: list[str]) -> str:
    """Plain lines as HTML: paragraphs at blank lines, ``> quoted`` lines as a quote, indented
    lines (moves) in a monospace block."""
    out: list[str] = []
    para: list[str] = []

    def flush():
        if para:
            out.append("<p>" + "<br>".join(para) + "</p>")
            para.clear()
    for line in lines:
        if not line.strip():
            flush()
        elif line.startswith("> "):
            flush()
            out.append('<blockquote style="margin:0 0 1em 0;padding:4px 10px;border-left:3px solid #c0392b;'
                       f'background:#fbeeee"><code>{html.escape(line[2:])}</code></blockquote>')
        elif line.startswith("  "):
            para.append(f"<code>{html.escape(line.strip())}</code>")
        else:
            para.append(html.escape(line))
    flush()
    return "".join(out)


def confirmation_email(*, to_addr=None, to=None, from_addr, reply_to=None, game_id, seat_name=None, moves,
                       next_to_act=None, in_reply_to=None, unplayed=(), ignored=(), title="Table Post",
                       subject="", references=None, open_url="", message_note="", tr: Translator = ENGLISH,
                       **_context) -> EmailMessage:
    """The answer to a reply whose moves were played (the game's turn passed to someone else, or
    it is over). ``subject``: the game's thread subject (``Re:`` is put before it); ``message_note``:
    why the reply's message to the table was not posted (mail/messages.py), or nothing."""
    msg = _answer(answer_subject(subject or tr._("{title} game {game_id}", title=title, game_id=game_id), tr),
                  from_addr, to_addr or to, reply_to, in_reply_to, references, tr.lang)
    headline = tr._("Played: {moves}.", moves=", ".join(moves)) if moves else tr._("Nothing was played.")
    nxt = tr._("It is now {name}'s decision; you get an email when it is yours again.", name=next_to_act) \
        if next_to_act else tr._("The game is over; the results follow.")
    lines = [hello(seat_name or tr._("player"), tr), "",
             tr._("Your moves in {title} were played: {moves}.", title=title, moves=", ".join(moves)), nxt]
    for note in (message_note, ignored_note(list(ignored), tr), unplayed_note(list(unplayed), tr)):
        if note:
            lines += ["", note]
    if open_url:
        lines += ["", tr._("Open the game: {url}", url=open_url)]
    msg.set_content("\n".join([headline, ""] + lines) + "\n")
    msg.add_alternative(html_document(headline, _styled_lines(lines), tr.lang), subtype="html")
    return say_language(msg, tr.lang)


def error_email(*, to_addr=None, to=None, from_addr, reason, game_id=None, seat_name=None, failing_line=None,
                legal_moves=(), reply_to=None, in_reply_to=None, title="Table Post", subject="",
                references=None, nothing_played=True, example="", open_url="", hint="", code=None,
                tr: Translator = ENGLISH,
                **_context) -> EmailMessage:
    """The answer to a reply that played nothing: the line that failed and why, the seat's legal
    moves and an example to copy. Takes the context ``mail.mailin`` gives every answer. ``reason``
    is said as given (the service's or the game's words: English in this increment, docs/i18n.md)."""
    msg = _answer(answer_subject(subject or (tr._("{title} game {game_id}", title=title, game_id=game_id)
                                             if game_id else title), tr), from_addr,
                  to_addr or to, reply_to, in_reply_to, references, tr.lang)
    headline = (tr._("Not played: \u201c{line}\u201d is not a move you can play now.",
                     line=one_line(failing_line))
                if failing_line else tr._("Not played: nothing in your email was played."))
    lines = [hello(seat_name or tr._("player"), tr), ""]
    lines += [tr._("None of the moves in your email were played.") if nothing_played
              else tr._("Your email was not played.")]
    if failing_line:
        lines += ["", tr._("This line failed:"), f"> {failing_line}"]
    lines += ["", tr._("Why: {reason}", reason=reason or tr._("your email could not be read."))]
    if legal_moves:
        lines += ["", tr._("Your legal moves now:")] + [f"  {m} — {d}" for m, d in legal_moves]
        example = example or legal_moves[0][0]
        lines += ["", tr._("Reply to this email with your moves, one per line, for example:"), f"  {example}"]
        if code in ("bad-notation", "no-moves"):   # how the game's moves are written, in words
            lines += ["", tr._("How to write a move: copy a line of the list above (what follows its dash "
                               "may go).") + (f" {hint}" if hint else "")]
    if open_url:
        lines += ["", tr._("Open the game (moves by click): {url}", url=open_url)]
    msg.set_content("\n".join([headline, ""] + lines) + "\n")
    msg.add_alternative(html_document(headline, _styled_lines(lines), tr.lang), subtype="html")
    return say_language(msg, tr.lang)
