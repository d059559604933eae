"""Building the emails (pure, no I/O): the turn email, the confirmation and the error answer.

Each message has a plain-text and an HTML part; the turn email shows the board as a linked PNG
(``<img src=".../board.png?v=<version>">``, served and cached by the API, ``mail/board_png.py``)
with a link to the SVG, and the seat's legal moves, one per line in the text part as
``  <move> — <description>`` so that a reply can copy them.
"""
from __future__ import annotations

import hashlib
import html
import re
import secrets
import unicodedata
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from email.utils import formatdate, make_msgid

import engine
from engine.describe import describe
from games import TILETUM, Game

MSGID_DOMAIN = "tiletum-pbem"


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


def finish_headers(msg, *, domain: str, once_key: str | None = None, msgid: str | None = None,
                   in_reply_to: str | None = None, unsubscribe_url: str | None = None):
    """The headers every email of the service carries: ``Date``; ``Message-ID`` (``msgid``, or
    derived from ``once_key``, else a fresh one); ``In-Reply-To`` and ``References`` when it answers
    or follows an email; ``List-Unsubscribe`` with one-click ``List-Unsubscribe-Post`` (RFC 8058)."""
    if "Date" not in msg:
        msg["Date"] = formatdate(usegmt=True)
    if msgid or once_key:
        _replace(msg, "Message-ID", msgid or message_id(once_key, domain))
    elif "Message-ID" not in msg:
        msg["Message-ID"] = make_msgid(domain=domain)
    if in_reply_to and in_reply_to != msg["Message-ID"]:
        _replace(msg, "In-Reply-To", in_reply_to)
        _replace(msg, "References", in_reply_to)
    if unsubscribe_url:
        _replace(msg, "List-Unsubscribe", f"<{unsubscribe_url}>")
        _replace(msg, "List-Unsubscribe-Post", "List-Unsubscribe=One-Click")
    return msg


def one_line(text: str) -> str:
    """``text`` fit for an email header: every run of whitespace, control, format or separator
    characters becomes one space (a line break in a header value is refused by ``email``)."""
    return " ".join("".join(" " if ch.isspace() or unicodedata.category(ch)[0] in "CZ" else ch
                            for ch in text).split())


@dataclass
class TurnContext:
    game_id: str
    seat: int
    seat_name: str
    to_addr: str
    from_addr: str
    reply_to: str
    state: engine.GameState
    seat_names: list[str]
    since: list[dict]
    open_url: str
    move_urls: dict[str, str] = field(default_factory=dict)
    unsubscribe_url: str = ""
    dashboard_url: str = ""      # the address's private dashboard (/me#key=...)
    first_email: bool = False    # the address's first email: explain the dashboard link
    deadline: str = ""           # "Sun 22 Nov 2026 09:00 UTC (in 3 days)", when the turn has one
    intro: str = ""              # a sentence before the turn (e.g. why this email is sent again)
    board_img_url: str = ""      # the board as PNG on the server (mail/board_png.py), shown in the HTML
    board_url: str = ""          # the board as SVG on the server (kept as a link)
    game: Game = TILETUM         # the game's rules and words (games/: the email surface)


_PAST = {"take": "took", "end": "ended", "decline": "declined", "advance": "advanced", "exchange": "exchanged",
         "use": "used", "choose": "chose", "place": "placed", "move": "moved", "pay": "paid", "gain": "gained",
         "fulfil": "fulfilled", "discard": "discarded", "receive": "received", "contribute": "contributed",
         "perform": "performed", "stop": "stopped", "build": "built", "score": "scored", "lose": "lost"}
_CLAUSE_VERB = re.compile(r"(^|: |, | and )(" + "|".join(_PAST) + r")\b", re.IGNORECASE)
_DIE_COLOURS = {"G": "yellow", "F": "pink", "W": "light gray", "S": "dark gray", "I": "blue"}


def in_the_past(who: str, text: str) -> str:
    """'Take the yellow 2 die: gain 2 Gold' said of a player: 'Bob took the yellow 2 die: gained 2
    Gold'. A sentence that does not start with a known verb is kept as 'Bob: <text>'."""
    if not _CLAUSE_VERB.match(text):
        return f"{who}: {text}"
    past = _CLAUSE_VERB.sub(lambda m: m.group(1) + _PAST[m.group(2).lower()], text)
    past = re.sub(r"\byour\b", "their", past)
    past = re.sub(r"\byou\b", "they", past)
    return f"{who} {past}"


def chance_words(chance: list) -> list[str]:
    """What chance brought with a move, in words: new dice rolled, tiles drawn."""
    out, dice = [], []
    colour = None
    for kind, value in chance or []:
        if kind == "die-colour":
            colour = _DIE_COLOURS.get(value, value)
        elif kind == "die-roll" and colour:
            dice.append(f"{colour} {value}")
            colour = None
        elif kind.startswith("draw:"):
            out.append(f"a new {kind[5:].title()} tile came out ({value})")
        elif kind == "corruption":
            out.append("a Corruption token was revealed")
    if dice:
        out.insert(0, "the dice rolled: " + ", ".join(dice))
    return out


def describe_event(state_before, event: dict, seat_names: list[str]) -> str:
    """A past move in plain words, with the player's name (``event["text"]``, when the notifier
    put it there, is the move in words from ``application.history.event_texts``)."""
    who = seat_names[event["seat"]] if event.get("seat") is not None and event["seat"] < len(seat_names) else "?"
    by = f" (played by the {event['by']})" if event.get("by") else ""
    if event.get("text") and event.get("type") == "MovePlayed":
        text = event["text"]
        if event.get("by") and text.endswith(by):
            text = text[: -len(by)]
        line = in_the_past(who, text) + by
        extra = chance_words(event.get("chance"))
        return line + ("; " + "; ".join(extra) if extra else "")
    if event.get("type") == "MoveUndone":
        return f"{who} took back a move"
    if event.get("type") != "MovePlayed":
        return "the game started"
    text = event["move"]
    if state_before is not None:
        try:
            return f"{who}: {describe(state_before, engine.parse(text))}{by}"
        except Exception:  # a description is a courtesy; the notation always works
            pass
    return f"{who} played {text}{by}"


DASHBOARD_FIRST = ("Your private dashboard lists all your Tiletum games: where you are to move, where others "
                   "are, your results, your email setting and your vacation. Keep its link to yourself "
                   "(it is your key).")


FIRST_CONTACT = ("You get this email because {to} was entered as a player in a {title} game. If you did not "
                 "expect it, one click stops every email from us: {url}")


def first_contact(to_addr: str, unsubscribe_url: str, title: str = "Tiletum") -> str:
    """Why an address that never played gets our email, and how to stop all of it: the opening of
    its first email (anyone may enter any address in a game; docs/pbem.md)."""
    return FIRST_CONTACT.format(to=to_addr, url=unsubscribe_url, title=title)


def dashboard_text(url: str, first: bool) -> list[str]:
    """The dashboard link in a plain-text email; explained in the address's first email."""
    if first:
        import textwrap
        return ["", *textwrap.wrap(DASHBOARD_FIRST, 76), f"Your dashboard: {url}", ""]
    return [f"All your games: {url}"]


def turn_email(ctx: TurnContext):
    """The turn email: multipart/alternative (text, and HTML showing the board as a linked PNG)."""
    state, game = ctx.state, ctx.game
    what = game.email_what(state)
    legal = game.email_moves(state, ctx.seat)
    position = game.email_position_lines(state, ctx.seat, ctx.seat_names)
    since = [describe_event(None, e, ctx.seat_names) for e in ctx.since]
    example = legal[0][0] if legal else ""
    stranger = first_contact(ctx.to_addr, ctx.unsubscribe_url, game.title) if ctx.first_email and ctx.unsubscribe_url else ""
    text = [f"Hello {ctx.seat_name},", ""] + ([stranger, ""] if stranger else []) + ([ctx.intro, ""] if ctx.intro else [])
    text += [f"It is {what} in {game.title} game {ctx.game_id}.", ""]
    if since:
        text += ["Since your last turn:"] + [f"  - {s}" for s in since] + [""]
    if ctx.deadline:
        text += [f"Your deadline: {ctx.deadline}.", ""]
    text += position + ["", "Your legal moves:"]
    text += [f"  {m} — {d}" for m, d in legal]
    text += ["", "Reply to this email with your moves, one per line, for example:", f"    {example}",
             game.email_reply_hint(), ""]
    if ctx.move_urls:
        text += ["One-click moves:"] + [f"  {m}: {u}" for m, u in sorted(ctx.move_urls.items())] + [""]
    text += [f"Open the game: {ctx.open_url}"]
    if ctx.board_url:
        text += [f"The board: {ctx.board_url}"]
    if ctx.dashboard_url:
        text += dashboard_text(ctx.dashboard_url, ctx.first_email)
    if ctx.unsubscribe_url:
        text += [f"Stop these emails: {ctx.unsubscribe_url}"]
    e = html.escape
    stranger_html = (f"<p>You get this email because {e(ctx.to_addr)} was entered as a player in a {game.title} game. "
                     f'If you did not expect it, <a href="{e(ctx.unsubscribe_url)}">one click stops every email from '
                     "us</a>.</p>") if stranger else ""
    parts = [f"<p>Hello {e(ctx.seat_name)},</p>" + stranger_html + (f"<p>{e(ctx.intro)}</p>" if ctx.intro else "")
             + f"<p>It is <b>{e(what)}</b> in {e(game.title)} game {e(ctx.game_id)}.</p>"]
    if since:
        parts.append("<p>Since your last turn:</p><ul>" + "".join(f"<li>{e(s)}</li>" for s in since) + "</ul>")
    if ctx.deadline:
        parts.append(f"<p>Your deadline: <b>{e(ctx.deadline)}</b>.</p>")
    parts.append("<p>" + "<br>".join(e(x) for x in position) + "</p>")
    if ctx.board_img_url:
        parts.append(f'<p><img src="{e(ctx.board_img_url)}" alt="the board" width="800" '
                     'style="max-width:100%;height:auto"></p>')
    if ctx.board_url:
        parts.append(f'<p><a href="{e(ctx.board_url)}">The board as SVG</a> (sharper, zoomable)</p>')
    rows = "".join(f"<tr><td><code>{e(m)}</code></td><td>{e(d)}</td>"
                   + (f'<td><a href="{e(ctx.move_urls[m])}">play</a></td>' if m in ctx.move_urls else "<td></td>")
                   + "</tr>" for m, d in legal)
    parts.append(f"<p>Your legal moves:</p><table>{rows}</table>")
    parts.append(f"<p>Reply with your moves, one per line, e.g. <code>{e(example)}</code>.</p>")
    parts.append(f'<p><a href="{e(ctx.open_url)}">Open the game</a>'
                 + (f' · <a href="{e(ctx.dashboard_url)}">All your games</a>' if ctx.dashboard_url else "")
                 + (f' · <a href="{e(ctx.unsubscribe_url)}">Stop these emails</a>' if ctx.unsubscribe_url else "")
                 + "</p>")
    if ctx.dashboard_url and ctx.first_email:
        parts.append(f'<p>{e(DASHBOARD_FIRST)} <a href="{e(ctx.dashboard_url)}">Your dashboard</a></p>')
    # The classic MIME classes: the same structure as EmailMessage's, at a fraction of the cost of
    # its header parsing (this runs for every turn of every game).
    # a boundary of our own (random, and the parts are base64): the generator then need not
    # compile a regular expression per email to check one it made up
    alternative = MIMEMultipart("alternative", boundary="=_tiletum_" + secrets.token_hex(16))
    alternative.attach(MIMEText("\n".join(text) + "\n", "plain", "utf-8"))
    alternative.attach(MIMEText("<!doctype html><html><body>" + "".join(parts) + "</body></html>", "html", "utf-8"))
    msg = alternative
    msg["Subject"] = f"{game.title} {ctx.game_id}: {what} (round {game.round(state)})"
    msg["From"], msg["To"], msg["Reply-To"] = ctx.from_addr, ctx.to_addr, ctx.reply_to
    msg["Message-ID"] = make_msgid(domain=MSGID_DOMAIN)
    if ctx.unsubscribe_url:
        msg["List-Unsubscribe"] = f"<{ctx.unsubscribe_url}>"
        msg["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    return msg


def simple_email(*, subject: str, from_addr: str, to_addr: str, lines: list[str],
                 reply_to: str | None = None) -> EmailMessage:
    """A short email (a notice): the lines as text, and as HTML paragraphs."""
    msg = EmailMessage()
    msg["Subject"] = subject
    msg["From"], msg["To"] = from_addr, to_addr
    if reply_to:
        msg["Reply-To"] = reply_to
    msg.set_content("\n".join(lines) + "\n")
    msg.add_alternative("<p>" + "<br>".join(html.escape(x) for x in lines) + "</p>", subtype="html")
    return msg


def _answer(subject: str, from_addr: str, to_addr: str, reply_to: str | None, in_reply_to: str | None) -> EmailMessage:
    """The headers of an answer to a player's email, threaded under it."""
    msg = EmailMessage()
    msg["Subject"] = subject
    msg["From"], msg["To"] = from_addr, to_addr
    if reply_to:
        msg["Reply-To"] = reply_to
    if in_reply_to:
        msg["In-Reply-To"] = msg["References"] = in_reply_to
    msg["Message-ID"] = make_msgid(domain=MSGID_DOMAIN)
    return msg


def unplayed_note(unplayed: list[str]) -> str:
    """Why the moves after a reveal in a reply were not played (docs/pbem.md, "Several moves")."""
    if not unplayed:
        return ""
    return ("Not played: " + ", ".join(unplayed) + ". A move you sent revealed chance (a die, a tile or a "
            "token), which ends what one email plays; see the outcome, then send those moves again if you "
            "still want them.")


def confirmation_email(*, to_addr, from_addr, reply_to, game_id, seat_name, moves, new_version, next_to_act,
                       in_reply_to=None, unplayed=(), title="Tiletum") -> EmailMessage:
    msg = _answer(f"{title} {game_id}: played {', '.join(moves)}", from_addr, to_addr, reply_to, in_reply_to)
    nxt = f"It is now {next_to_act}'s decision." if next_to_act else "The game is over."
    lines = [f"Hello {seat_name},", "", "Played: " + ", ".join(moves) + f" (the game is at version {new_version}).", nxt]
    if unplayed:
        lines += ["", unplayed_note(list(unplayed))]
    msg.set_content("\n".join(lines) + "\n")
    msg.add_alternative("<p>" + "<br>".join(html.escape(x) for x in lines) + "</p>", subtype="html")
    return msg


def error_email(*, to_addr, from_addr, reply_to, game_id, seat_name, failing_line, reason, legal_moves,
                in_reply_to=None, title="Tiletum") -> EmailMessage:
    msg = _answer(f"{title} {game_id}: your moves were not played", from_addr, to_addr, reply_to, in_reply_to)
    lines = [f"Hello {seat_name or 'player'},", "", "Nothing was played."]
    if failing_line:
        lines += ["This line failed:", f"> {failing_line}"]
    lines += [f"Why: {reason}", ""]
    if legal_moves:
        lines += ["Your legal moves:"] + [f"  {m} — {d}" for m, d in legal_moves]
    msg.set_content("\n".join(lines) + "\n")
    msg.add_alternative("<pre>" + html.escape("\n".join(lines)) + "</pre>", subtype="html")
    return msg
