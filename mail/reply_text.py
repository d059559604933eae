"""Reading a reply's text: the moves a player wrote above the quoted turn email, the greeting
before them and the sign-off after them, an HTML body as a mail client shows it. Pure: strings and
an already parsed email in, strings out; no Redis, no I/O, no service (the pipeline, mail/mailin.py,
gives the limits and the game's notation)."""
from __future__ import annotations

import html
import logging
import re
from typing import Callable

from bs4 import BeautifulSoup, CData, NavigableString, ParserRejectedMarkup

log = logging.getLogger("tablepost.mailin")


class TooManyMoves(ValueError):
    """More move lines in one email than the service plays in one request."""


_ATTRIBUTION_END = re.compile(
    r"(wrote|writes|schrieb|a\s+écrit|escribió|ha\s+scritto|schreef|skrev|napisał|escreveu)\s*:\s*$",
    re.IGNORECASE)
_MARKERS = [re.compile(p, re.IGNORECASE) for p in (
    r"^-{2,}\s*original\s+message\s*-{2,}",           # Outlook / older clients
    r"^-{2,}\s*ursprüngliche\s+nachricht\s*-{2,}",
    r"^-{2,}\s*message\s+d'origine\s*-{2,}",
    r"^-{2,}\s*forwarded\s+message\s*-{2,}",          # Gmail forward
    r"^begin\s+forwarded\s+message\s*:",               # Apple forward
    r"^_{8,}\s*$",                                     # Outlook's rule above its header block
    r"^\*?(from|von|de|van|da|från|od)\s*:\*?\s*\S",   # a "From: ..." header block
    r"^sent\s+from\s+(my|mail|outlook|yahoo)\b",       # "Sent from my iPhone", "Sent from Mail for Windows"
    r"^sent\s+with\s+proton\s*mail",
    r"^get\s+outlook\s+for\b",
    r"^envoyé\s+de\s+mon\b",
    r"^von\s+meinem\s+.*gesendet",
    r"^gesendet\s+(von|mit)\s+",                          # "Gesendet von meinem iPhone"
    r"^enviado\s+(desde|do)\s+",
    r"^inviato\s+da\s+",
    r"^verzonden\s+(vanaf|met)\s+",
)]
_INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff"


def _clean(line: str) -> str:
    return line.strip().strip(_INVISIBLE).strip()


def is_marker(lines: list[str], i: int) -> bool:
    """Whether line ``i`` starts the quoted email, a forwarded one, or a signature."""
    raw = lines[i].rstrip("\r\n")
    line = _clean(raw)
    if raw in ("-- ", "--") or line == "--":
        return True  # signature delimiter
    if line.startswith(">"):
        return True
    if _ATTRIBUTION_END.search(line):
        return True  # "On Mon, 1 Jan 2024 at 10:00, Tiletum <play+...> wrote:" and translations
    if re.match(r"^(on|am|le|el|il|op|den)\s", line, re.IGNORECASE):
        # an attribution wrapped over up to three lines (Gmail wraps long ones)
        joined = line
        for nxt in lines[i + 1:i + 3]:
            joined += " " + _clean(nxt)
            if _ATTRIBUTION_END.search(joined):
                return True
    return any(p.search(line) for p in _MARKERS)


# "<notation> — <description>" as the turn email lists a move: the description is dropped. A dash
# with a space on both sides (em, en, or one or two hyphens) never stands inside a move
# ("place -1,0 r90" has no space after its minus sign).
_DESCRIPTION = re.compile(r"\s+(?:\u2014|\u2013|--?)\s+.*$")
_TRAILING = re.compile(r"[\s.,;:!?]+$")


def normalize_move(line: str) -> str:
    """A move line as the game's parser reads it: without a description copied from the turn email
    (``take F3 — Take the yellow 3 die``) and without trailing punctuation (``buy F.``)."""
    return _TRAILING.sub("", _DESCRIPTION.sub("", line)).strip() or line.strip()


def courtesy_split(lines: list[str], is_move: Callable[[str], bool]) -> tuple[list[str], list[str]]:
    """(the lines to play, the lines ignored): a reply is read up to its first line that is not a
    move once at least one move was read; what follows it is taken for a sign-off ("Thanks,",
    a name, "Sent from ...") and ignored. A line that is not a move before any move was read is
    kept: it is played, and refused with its reason (a reply must never play what its player did
    not mean, and never silently play nothing)."""
    for i, line in enumerate(lines):
        if not is_move(line):
            return (lines, []) if i == 0 else (lines[:i], lines[i:])
    return lines, []


# A greeting a player writes above their moves: "Hi,", "Hello Ben,", "Dear all,", "Hallo,", "Bonjour,",
# "Hey Ann", "Hi there!", "Good morning Ada,". The greeting word first, then at most three words (a
# name, "all", "there"), then punctuation at most; short. No game's move starts with one of these
# words, and ``greeting_split`` reads a line as a greeting only when the game does not read it as a
# move (tests/test_mail_greetings.py checks every legal move of every game against it).
_GREETING = re.compile(
    r"^(?:hi|hii+|hiya|hello|hallo|hullo|hey|heya|howdy|dear|greetings|yo|ahoy|"
    r"good\s+(?:morning|afternoon|evening|day)|morning|evening|"
    r"bonjour|bonsoir|salut|coucou|cher|ch[eè]re|"
    r"guten\s+(?:morgen|tag|abend)|moin(?:\s+moin)?|servus|gr[üu](?:ß|ss)\s+(?:dich|euch|gott)|liebe[rs]?|"
    r"hola|buenos\s+d[ií]as|buenas(?:\s+tardes|\s+noches)?|querid[oa]s?|estimad[oa]s?|"
    r"ciao|salve|buongiorno|buonasera|caro|cara|cari|"
    r"hoi|goedemorgen|goedemiddag|goedenavond|beste|"
    r"hej|hejsan|tjena|god\s+morgen|ol[áa]|oi|bom\s+dia|boa\s+tarde|cze[śs][ćc]|witaj|dzie[ńn]\s+dobry)"
    r"(?:[\s,]+[^\W\d_](?:[^\W\d_]|['’.-])*){0,3}[\s,.!:;)-]*$",
    re.IGNORECASE)
MAX_GREETING = 40   # characters
MAX_GREETING_LINES = 2


def is_greeting(line: str) -> bool:
    """Whether ``line`` reads as a greeting ("Hi,", "Hello Ben,", "Bonjour à tous,", "Dear all,")."""
    line = _clean(line)
    return 0 < len(line) <= MAX_GREETING and bool(_GREETING.match(line))


def greeting_split(lines: list[str], is_move: Callable[[str], bool] | None = None
                   ) -> tuple[list[str], list[str]]:
    """(the greeting lines before the first move, the rest): up to ``MAX_GREETING_LINES`` leading
    lines that read as a greeting and not as a move of the game (``is_move``) are skipped. Any other
    first line stays and is refused with its reason if it is no move: nothing is guessed."""
    def holds_move(line: str) -> bool:   # "Hi, end": the line, or what follows a word of it, is a move
        words = line.split()
        return is_move is not None and any(is_move(" ".join(words[i:]).strip(" ,"))
                                           for i in range(len(words)))
    n = 0
    while n < min(MAX_GREETING_LINES, len(lines)) and is_greeting(lines[n]) and not holds_move(lines[n]):
        n += 1
    return lines[:n], lines[n:]


def extract_moves(text: str, max_lines: int) -> list[str]:
    """The moves a player wrote in a reply: the lines above the first quoted-reply marker or
    signature, without blank lines and ``#`` comments, each stripped of surrounding whitespace
    but otherwise as written (the engine's parser tolerates case and spacing; an error email
    quotes the failing line as the player wrote it). Raises :class:`TooManyMoves` past
    ``max_lines`` lines (the pipeline's ``MAX_MOVE_LINES``)."""
    lines = (text or "").splitlines()
    moves: list[str] = []
    for i in range(len(lines)):
        if is_marker(lines, i):
            break
        line = _clean(lines[i])
        if not line or line.startswith("#"):
            continue
        moves.append(line)
        if len(moves) > max_lines:
            raise TooManyMoves(f"at most {max_lines} moves per email")
    return moves


# What a mail client shows of an HTML body: block elements and <br> break lines, whitespace
# collapses as a browser would (but in <pre>), entities are unescaped, quoted mail (<blockquote>,
# the quote and signature containers of Gmail, Thunderbird and Yahoo) and non-content are dropped,
# and <hr> becomes a line of underscores (the marker Outlook puts above the quoted email).
_HTML_BLOCK = {"p", "div", "tr", "li", "ul", "ol", "table", "h1", "h2", "h3", "h4", "h5", "h6",
               "pre", "section", "article", "header", "footer", "dl", "dt", "dd", "body"}
_HTML_SKIP = {"blockquote", "style", "script", "head", "title", "template"}
_HTML_SKIP_CLASSES = {"gmail_quote", "gmail_signature", "moz-cite-prefix", "yahoo_quoted"}


def html_to_text(markup: str) -> str:
    """The text of an HTML body, line by line as a mail client shows it. BeautifulSoup's lenient
    parser builds the tree (broken markup too); one pass over it, in document order with a stack
    of its own (no recursion, and linear in the size however deep the nesting: a hostile reply
    of 20,000 nested tags is read in well under a second), writes the text."""
    try:
        soup = BeautifulSoup(markup, "html.parser")
    except ParserRejectedMarkup:  # e.g. a marked section html.parser refuses: the text between tags
        log.warning("mailin: could not parse an HTML body; reading the text between its tags")
        return html.unescape(re.sub(r"<[^>]*>", "\n", markup))
    out: list[str] = []
    stack: list = [(soup, False)]    # (node, done): done marks the end of an element
    pre = 0
    while stack:
        node, done = stack.pop()
        if done:                      # the end of a block element
            out.append("\n")
            if node.name == "pre":
                pre -= 1
            continue
        if isinstance(node, NavigableString):
            if type(node) in (NavigableString, CData):   # text, not a comment or declaration
                text = str(node).replace("\xa0", " ")
                out.append(text if pre else re.sub(r"\s+", " ", text))
            continue
        name = node.name
        if name in _HTML_SKIP or any(c in _HTML_SKIP_CLASSES for c in node.get("class") or ()):
            out.append("\n")         # quoted mail and non-content: not shown
            continue
        if name == "br":
            out.append("\n")
        elif name == "hr":
            out.append("\n" + "_" * 32 + "\n")
        elif name in _HTML_BLOCK:
            out.append("\n")
            if name == "pre":
                pre += 1
            stack.append((node, True))
        stack.extend((child, False) for child in reversed(node.contents))
    return "".join(out)


def body_text(msg) -> str:
    """The text of an email's body as its reader sees it: the plain part, else the HTML part's text."""
    part = msg.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    try:
        text = part.get_content()
    except Exception:  # an unknown charset, a broken transfer encoding
        payload = part.get_payload(decode=True) or b""
        text = payload.decode("utf-8", errors="replace") if isinstance(payload, bytes) else str(payload)
    if not isinstance(text, str):
        return ""
    if part.get_content_subtype() == "html":
        text = html_to_text(text)
    return text


def without_tail(lines: list[str], tail: list[str]) -> list[str]:
    """``lines`` less the moves the service left unplayed (the last ones; command lines such as
    'vacation on' may stand among them)."""
    out = list(lines)
    for move in reversed(tail):
        for i in range(len(out) - 1, -1, -1):
            if out[i] == move:
                del out[i]
                break
    return out
