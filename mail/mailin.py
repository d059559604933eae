"""Inbound email: a player's reply to a turn email becomes a move submission.

``handle_inbound(raw, deps, rcpt)`` is the whole pipeline for one delivered message (one
recipient): the reply address ``play+<game>.<seat>.<version>.<sig>@<domain>`` names the game,
the seat and the turn and is checked against its signature (``mail.addresses``); the moves
are the lines the player wrote above the quoted turn email (``extract_moves``); they are handed
to the same service as the API (``deps.submit``, i.e. ``GameService.submit_for_seat``), which
applies all of them or none, except that a move revealing chance ends the batch (the lines after
it come back unplayed; docs/pbem.md, "Several moves in one reply"). The player gets one answer by email: a
confirmation, or an error quoting the failing line with the legal moves.

``workers/listener.py`` puts this behind an aiosmtpd SMTP listener (``tiletum serve
--mailin-port P``); ``POST /api/v1/inbound-email`` calls ``handle_inbound`` with the raw RFC 822
bytes. See ``docs/pbem.md``.

No bad input makes ``handle_inbound`` raise: every outcome is a :class:`Result`, logged.
"""
from __future__ import annotations

import email
import email.policy
import email.utils
import hashlib
import html
import inspect
import logging
import re
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.parser import BytesHeaderParser
from bs4 import BeautifulSoup, CData, NavigableString, ParserRejectedMarkup
from typing import Callable

from application.errors import ServiceError
from application.game_service import MAX_MOVES_PER_REQUEST

from . import addresses
from . import compose as compose_module
from . import messages as talk

log = logging.getLogger("tiletum.mailin")

MAX_MOVE_LINES = MAX_MOVES_PER_REQUEST   # what the service plays in one request: more is refused at once
DEFAULT_MAX_BYTES = 256_000


# --- extracting the moves from a reply body ------------------------------------------------------

class TooManyMoves(ValueError):
    """More than ``MAX_MOVE_LINES`` move lines in one email."""


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


def _is_marker(lines: list[str], i: int) -> bool:
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


def extract_moves(text: str) -> list[str]:
    """The moves a player wrote in a reply: the lines above the first quoted-reply marker or
    signature, without blank lines and ``#`` comments, each stripped of surrounding whitespace
    but otherwise as written (the engine's parser tolerates case and spacing; an error email
    quotes the failing line as the player wrote it). Raises :class:`TooManyMoves` past
    ``MAX_MOVE_LINES`` lines."""
    lines = (text or "").splitlines()
    moves: list[str] = []
    for i in range(len(lines)):
        if _is_marker(lines, i):
            break
        line = _clean(lines[i])
        if not line or line.startswith("#"):
            continue
        moves.append(line)
        if len(moves) > MAX_MOVE_LINES:
            raise TooManyMoves(f"at most {MAX_MOVE_LINES} moves per email")
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


# --- dependencies and results --------------------------------------------------------------------

def _fallback_email(kind: str, ctx: dict) -> EmailMessage:
    """A plain-text answer, used when ``mail.compose`` is missing or does not fit."""
    m = EmailMessage()
    game = f" {ctx['game_id']}" if ctx.get("game_id") else ""
    title = ctx.get("title") or "Tiletum"
    if kind == "confirmation":
        m["Subject"] = f"{title}{game}: your moves were played"
        lines = ["Your moves were played:", ""] + [f"    {mv}" for mv in ctx.get("moves") or []]
        lines += ["", "You will get an email when it is your turn again."]
    else:
        m["Subject"] = f"{title}{game}: your email was not played"
        lines = [ctx.get("reason") or "Your email could not be handled."]
        if ctx.get("failing_line"):
            lines += ["", "The line that failed:", "", f"> {ctx['failing_line']}"]
        if ctx.get("nothing_played"):
            lines += ["", "None of the moves in your email were played: reply to this email with all "
                          "of them again, one per line."]
        legal = ctx.get("legal_moves") or []
        if legal:
            lines += ["", "Your legal moves now:", ""]
            lines += [f"    {mv:<20} {desc}".rstrip() for mv, desc in legal]
    m.set_content("\n".join(lines) + "\n")
    return m


def _adapt(func_name: str, kind: str) -> Callable[..., EmailMessage]:
    """A composer that uses ``mail.compose.<func_name>`` when it exists and its parameters
    can all be filled from the context, else the plain fallback."""

    def compose(**ctx) -> EmailMessage:
        try:
            func = getattr(compose_module, func_name)
            sig = inspect.signature(func)
            kwargs, open_kw = {}, False
            for name, p in sig.parameters.items():
                if p.kind is p.VAR_KEYWORD:
                    open_kw = True
                elif p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and name in ctx:
                    kwargs[name] = ctx[name]
                elif p.default is p.empty and p.kind is not p.VAR_POSITIONAL:
                    raise TypeError(f"{func_name} needs {name!r}")
            message = func(**(ctx if open_kw else kwargs))
            if isinstance(message, EmailMessage):
                return message
        except (AttributeError, TypeError, ValueError):
            pass
        except Exception:
            log.warning("mailin: mail.compose.%s failed; sending a plain answer", func_name,
                        exc_info=True)
        return _fallback_email(kind, ctx)

    compose.__name__ = f"compose_{kind}"
    return compose


@dataclass
class Deps:
    """What ``handle_inbound`` needs from the service, kept injectable for tests."""
    secret: str                                              # TILETUM_MAIL_SECRET
    submit: Callable[[str, int, int, list[str]], dict]       # GameService.submit_for_seat
    legal_moves: Callable[[str, int], list[tuple[str, str]]]  # (game, seat) -> [(move, description)]
    send_reply: Callable[[EmailMessage], None]
    seen: Callable[[str], bool]                              # True if already handled; marks it otherwise
    from_addr: str
    # composers take keyword arguments (see ``_answer``) and return an EmailMessage
    compose_confirmation: Callable[..., EmailMessage] = field(
        default_factory=lambda: _adapt("confirmation_email", "confirmation"))
    compose_error: Callable[..., EmailMessage] = field(default_factory=lambda: _adapt("error_email", "error"))
    # the answer to a reply to an old turn: the current turn, addressed to the seat's own address
    # (or None: then the plain error above goes to the sender)
    compose_stale: Callable[..., EmailMessage | None] | None = None
    max_bytes: int = DEFAULT_MAX_BYTES
    # the seat's own address: the only one a reply may come from and the only one answered
    seat_email: Callable[[str, int], str | None] = lambda game_id, seat: None
    # refuse replies unless our own mail server's Authentication-Results (this authserv-id) pass
    authserv_id: str | None = None
    # (once-key, message): the answer through the outbox, once per inbound email and kind;
    # when None, ``send_reply`` is used
    send_reply_once: Callable[[str, EmailMessage], None] | None = None
    # (game, seat, line) -> whether the line reads as a move or command of the game (its notation,
    # not its legality): the lines after the moves that do not are a sign-off (``courtesy_split``).
    # None: every line is a move line
    is_move: Callable[[str, int, str], bool] | None = None
    # (game, seat, text) -> the posted message: a reply's table talk (mail/messages.py); None: not taken
    post_message: Callable[[str, int, str], dict] | None = None


@dataclass
class Result:
    status: str                  # "applied" | "rejected" | "duplicate" | "ignored"
    code: str | None = None      # why, for everything but "applied": "stale-turn", "bad-notation", ...
    detail: str | None = None
    game_id: str | None = None
    seat: int | None = None
    version: int | None = None   # the turn the reply address is for
    new_version: int | None = None  # after the moves ("applied")
    moves: list[str] = field(default_factory=list)   # "applied": the lines played
    unplayed: list[str] = field(default_factory=list)  # "applied": the lines after a reveal, not played
    ignored: list[str] = field(default_factory=list)   # the lines after the moves taken for a sign-off
    failing_line: str | None = None
    replied: bool = False        # an answer email was handed to deps.send_reply
    said: str | None = None      # the message to the table the reply posted (mail/messages.py)


# --- the pipeline --------------------------------------------------------------------------------

def _first_address(value) -> str | None:
    if not value:
        return None
    try:
        pairs = email.utils.getaddresses([str(value)])
    except Exception:
        return None
    for _, addr in pairs:
        if addr and "@" in addr:
            return addr
    return None


def _sender(headers) -> str | None:
    for name in ("Reply-To", "From"):
        try:
            addr = _first_address(headers.get(name))
        except Exception:
            addr = None
        if addr:
            return addr
    return None


def _headers_only(raw: bytes):
    """The header block of a message we will not parse whole (too large, or unparsable)."""
    try:
        head = raw[:65536]
        end = re.search(rb"\r?\n\r?\n", head)
        return BytesHeaderParser(policy=email.policy.compat32).parsebytes(head[:end.start()] if end else head)
    except Exception:
        return None


def _is_automatic(headers, deps: Deps, sender: str | None) -> bool:
    """An auto-reply, bounce or list message: never answered (mail loops), never played."""
    try:
        auto = str(headers.get("Auto-Submitted") or "").strip().lower()
        precedence = str(headers.get("Precedence") or "").strip().lower()
        if auto and auto != "no":
            return True
        if precedence in ("bulk", "junk", "list", "auto_reply"):
            return True
        if headers.get("X-Autoreply") or headers.get("X-Autorespond") or headers.get("List-Id"):
            return True
        if headers.get("Return-Path") is not None and str(headers.get("Return-Path")).strip() in ("<>", ""):
            return True
    except Exception:
        return False
    if sender:
        local = sender.split("@", 1)[0].lower()
        if local in ("mailer-daemon", "postmaster"):
            return True
        ours = _first_address(deps.from_addr)
        if ours and sender.lower() == ours.lower():
            return True
    return False


def _reply_address(msg, rcpt: str | None) -> str:
    """The address the player wrote to: the SMTP envelope recipient when known, else the first
    ``play+...`` address in Delivered-To / X-Original-To / To / Cc, else the first To."""
    if rcpt:
        return rcpt.strip().strip("<>")
    candidates: list[str] = []
    for name in ("Delivered-To", "X-Original-To", "To", "Cc"):
        try:
            values = msg.get_all(name) or []
        except Exception:
            values = []
        for v in values:
            try:
                candidates += [a for _, a in email.utils.getaddresses([str(v)]) if a]
            except Exception:
                continue
    for addr in candidates:
        if addr.lower().startswith("play+"):
            return addr
    return candidates[0] if candidates else ""


def _body_text(msg) -> str:
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


def _dedupe_key(msg, address: str) -> str:
    mid = str(msg.get("Message-ID") or "").strip()
    if not mid:  # no Message-ID: the same author, date, subject and body is the same email
        h = hashlib.sha256()
        for name in ("From", "Date", "Subject"):
            h.update(str(msg.get(name) or "").encode("utf-8", "replace") + b"\0")
        try:
            h.update(_body_text(msg).encode("utf-8", "replace"))
        except Exception:
            pass
        mid = "sha256:" + h.hexdigest()
    # one message may be delivered to several reply addresses (a hotseat player): each counts
    return f"{mid}|{address}"


def _raw_key(raw: bytes, rcpt: str | None) -> str:
    """What identifies an email that could not be read whole: its bytes and recipient."""
    return f"sha256:{hashlib.sha256(raw).hexdigest()}|{rcpt or ''}"


def handle_inbound(raw: bytes, deps: Deps, rcpt: str | None = None) -> Result:
    """Handle one delivered reply (for one recipient). Never raises for bad input."""
    try:
        result = _handle(raw, deps, rcpt)
    except Exception as e:  # a bug or a broken dependency: log, answer nothing, change nothing more
        log.exception("mailin: unexpected error handling an inbound email")
        result = Result("rejected", "internal-error", f"{type(e).__name__}: {e}")
    log.info("mailin: %s %s game=%s seat=%s version=%s%s", result.status, result.code or "",
             result.game_id, result.seat, result.version, f" ({result.detail})" if result.detail else "")
    return result


class _Answer:
    """Sends at most one answer for an inbound email and records it on the result."""

    def __init__(self, deps: Deps, sender: str | None, msg, reply_to: str | None, once: str = ""):
        self.deps, self.sender, self.msg, self.reply_to = deps, sender, msg, reply_to
        self.once = once  # what identifies the inbound email (its dedupe key): the answer's once-key

    def __call__(self, result: Result, kind: str, **ctx) -> Result:
        if not self.sender:
            return result
        subject = ""
        in_reply_to = None
        references: list[str] = []
        if self.msg is not None:
            try:
                subject = str(self.msg.get("Subject") or "")
                in_reply_to = str(self.msg.get("Message-ID") or "").strip() or None
                references = compose_module.message_ids(self.msg.get("References"))
            except Exception:
                pass
        ctx = dict(ctx, to=self.sender, from_addr=self.deps.from_addr, game_id=result.game_id,
                   seat=result.seat, version=result.version, code=result.code, subject=subject,
                   in_reply_to=in_reply_to, references=references, reply_to=self.reply_to,
                   ignored=list(result.ignored))
        ctx.setdefault("reason", result.detail)
        try:
            composer = self.deps.compose_confirmation if kind == "confirmation" else self.deps.compose_error
            message = composer(**ctx)
            _fix_headers(message, ctx)
            if self.deps.send_reply_once is not None and self.once:
                digest = hashlib.sha256(self.once.encode("utf-8", "replace")).hexdigest()[:32]
                self.deps.send_reply_once(f"reply:{kind}:{digest}", message)
            else:
                self.deps.send_reply(message)
            result.replied = True
        except Exception:
            log.exception("mailin: could not send the %s email to %s", kind, self.sender)
        return result


def _fix_headers(message: EmailMessage, ctx: dict) -> None:
    """Whatever built the answer, it goes to the sender, from us, threaded under their email."""
    for name, value in (("To", ctx["to"]), ("From", ctx["from_addr"])):
        if name in message:
            del message[name]
        message[name] = value
    if not message.get("Subject"):
        subj = re.sub(r"^\s*((re|aw|sv|fwd?)\s*:\s*)+", "", ctx.get("subject") or "", flags=re.IGNORECASE)
        message["Subject"] = f"Re: {subj}" if subj else "Re: your game"
    if ctx.get("in_reply_to") and "In-Reply-To" not in message:
        message["In-Reply-To"] = ctx["in_reply_to"]
        message["References"] = compose_module.references_chain(ctx.get("references") or [],
                                                                ctx["in_reply_to"])
    if ctx.get("reply_to") and "Reply-To" not in message:
        message["Reply-To"] = ctx["reply_to"]
    if "Auto-Submitted" not in message:
        message["Auto-Submitted"] = "auto-replied"  # RFC 3834: other robots do not answer it


def _mailbox(address: str | None) -> str | None:
    """``local@domain`` lower-cased, without a display name or a ``+tag`` on the local part."""
    addr = _first_address(address)
    if not addr:
        return None
    local, _, domain = addr.strip().lower().rpartition("@")
    return f"{local.split('+', 1)[0]}@{domain}" if local and domain else None


def same_mailbox(a: str | None, b: str | None) -> bool:
    """Whether two addresses name one mailbox: case-insensitive, display names and plus-address
    tags ignored (``Ann <Ann+games@Example.org>`` is ``ann@example.org``)."""
    ma, mb = _mailbox(a), _mailbox(b)
    return ma is not None and ma == mb


_AUTH_RESULT = re.compile(r"\b(spf|dkim|dmarc)\s*=\s*([a-z]+)", re.IGNORECASE)


def authenticated(msg, authserv_id: str) -> bool:
    """Whether our own mail server (``authserv_id``, RFC 8601) recorded the message's sender checks
    and none of SPF, DKIM and DMARC failed. Headers from any other server are ignored: anyone can
    write an Authentication-Results header into their own email."""
    ours = []
    for value in msg.get_all("Authentication-Results") or []:
        text = str(value).strip()
        if text.split(";", 1)[0].strip().split()[0:1] == [authserv_id]:
            ours.append(text)
    if not ours:
        return False
    results = [r.lower() for text in ours for _, r in _AUTH_RESULT.findall(text)]
    return bool(results) and not any(r in ("fail", "softfail", "permerror") for r in results)


def _seat_address(deps: Deps, game_id: str, seat: int) -> str | None:
    try:
        return deps.seat_email(game_id, seat)
    except Exception:
        log.warning("mailin: could not read the address of %s seat %s", game_id, seat, exc_info=True)
        return None


def _answer_the_seat(deps: Deps, headers, rcpt: str | None, result: Result, once: str = "") -> Result:
    """Answer an email we could not read whole, only when it was written to a valid reply
    address, and then only to that seat's own address."""
    try:
        game_id, seat, version = addresses.parse_reply_address(deps.secret, _reply_address(headers, rcpt))
    except Exception:
        return result
    owner = _seat_address(deps, game_id, seat)
    if owner is None or not same_mailbox(_first_address(headers.get("From")), owner):
        return result
    result.game_id, result.seat, result.version = game_id, seat, version
    return _Answer(deps, owner, None, None, once)(result, "error")


def _send_stale(deps: Deps, msg, result: Result, current, once: str = "") -> bool:
    """Answer a reply to an old turn with the current turn (``deps.compose_stale``), which goes to
    the seat's own address, never to whoever wrote. False when there is none to send."""
    if deps.compose_stale is None:
        return False
    try:
        in_reply_to = str(msg.get("Message-ID") or "").strip() or None
        message = deps.compose_stale(game_id=result.game_id, seat=result.seat, version=result.version,
                                     current_version=current, moves=result.moves, in_reply_to=in_reply_to)
        if message is None:
            return False
        if in_reply_to:
            del message["In-Reply-To"], message["References"]
            message["In-Reply-To"] = in_reply_to
            message["References"] = compose_module.references_chain(
                compose_module.message_ids(msg.get("References")), in_reply_to)
        if "Auto-Submitted" not in message:
            message["Auto-Submitted"] = "auto-replied"
        if deps.send_reply_once is not None and once:
            deps.send_reply_once(
                f"reply:stale:{hashlib.sha256(once.encode('utf-8', 'replace')).hexdigest()[:32]}",
                message)
        else:
            deps.send_reply(message)
        result.replied = True
        return True
    except Exception:
        log.exception("mailin: could not send the current turn for a stale reply")
        return False


def _legal(deps: Deps, game_id: str, seat: int) -> list[tuple[str, str]]:
    try:
        return [(str(m), str(d)) for m, d in deps.legal_moves(game_id, seat)]
    except Exception:
        log.warning("mailin: could not list the legal moves of %s seat %s", game_id, seat, exc_info=True)
        return []


def _handle(raw: bytes, deps: Deps, rcpt: str | None) -> Result:
    if isinstance(raw, str):
        raw = raw.encode("utf-8", errors="surrogateescape")
    if not isinstance(raw, (bytes, bytearray)):
        return Result("rejected", "malformed", "the message is not bytes")
    raw = bytes(raw)

    # 1. too large or unreadable: answer from the headers alone, if there is someone to answer
    if len(raw) > deps.max_bytes:
        headers = _headers_only(raw)
        sender = _sender(headers) if headers is not None else None
        result = Result("rejected", "too-large",
                        f"your email is {len(raw)} bytes; the limit is {deps.max_bytes}. Reply with just "
                        "your moves, without attachments or the quoted images.")
        if headers is None or _is_automatic(headers, deps, sender):
            return result
        return _answer_the_seat(deps, headers, rcpt, result, _raw_key(raw, rcpt))
    try:
        msg = email.message_from_bytes(raw, policy=email.policy.default)
        keys = msg.keys()
        from_value = msg.get("From")
    except Exception:
        headers = _headers_only(raw)
        sender = _sender(headers) if headers is not None else None
        result = Result("rejected", "malformed", "your email could not be read")
        if headers is None or _is_automatic(headers, deps, sender):
            return result
        return _answer_the_seat(deps, headers, rcpt, result, _raw_key(raw, rcpt))
    if not keys or from_value is None:
        return Result("rejected", "malformed", "not an email: no headers or no From")
    sender = _sender(msg)
    if _is_automatic(msg, deps, sender):
        return Result("ignored", "automatic", "an auto-reply, bounce or list message")

    # 2. who and which turn: the signed reply address
    address = _reply_address(msg, rcpt)
    dedupe = _dedupe_key(msg, address)
    if deps.seen(dedupe):
        return Result("duplicate", "duplicate", "this email was already handled")
    try:
        game_id, seat, version = addresses.parse_reply_address(deps.secret, address)
    except ValueError:  # addresses.BadAddress is a ValueError
        # no game, so no seat to answer: never mail an address that is not a seat's (backscatter)
        return Result("rejected", "forged-address",
                      f"{address or 'the address'} is not a valid Tiletum reply address")
    base = dict(game_id=game_id, seat=seat, version=version)
    owner = _seat_address(deps, game_id, seat)
    if owner is None:
        return Result("rejected", "no-seat-address", "this seat has no email address now", **base)
    # every answer from here on goes to the seat's own address, never to whoever wrote
    answer = _Answer(deps, owner, msg, address, dedupe)  # a corrected reply to an error goes to the same turn

    # the reply address is not a credential on its own: the author must be the seat's player
    author = _first_address(msg.get("From"))
    refused = None
    if not same_mailbox(author, owner):
        refused = Result("rejected", "wrong-sender",
                         f"a reply to your turn email came from {author or 'an unknown address'}, not from "
                         f"your address: nothing was played. If it was you, reply from {owner}.", **base)
    elif deps.authserv_id and not authenticated(msg, deps.authserv_id):
        refused = Result("rejected", "unauthenticated-sender",
                         "a reply from your address failed our mail server's sender checks (SPF/DKIM/DMARC): "
                         "nothing was played. Reply again from your usual mail account.", **base)
    if refused is not None:
        log.warning("mailin: %s for %s seat %s (From %s)", refused.code, game_id, seat, author)
        if deps.seen(f"refused:{game_id}:{seat}:{version}"):
            return refused  # the owner was told once for this turn: a flood tells them nothing more
        return answer(refused, "error", failing_line=None, legal_moves=[], nothing_played=True)

    # 3. the moves, and a message to the table: the lines after a line "Message:", or the whole text of
    # a reply to a message email (mail/messages.py); never a line of moves
    body, said = talk.split_reply(_body_text(msg), version, _is_marker)
    why = talk.check_message(said) if said is not None else None
    if why is not None:
        return answer(Result("rejected", "bad-message", f"{why}: nothing was done", **base), "error",
                      failing_line=None, legal_moves=[], nothing_played=True)
    try:
        written = extract_moves(body)
    except TooManyMoves as e:
        result = Result("rejected", "too-many-moves", f"{e}; nothing was played", **base)
        return answer(result, "error", failing_line=None, legal_moves=_legal(deps, game_id, seat),
                      nothing_played=True)
    # as the game reads them: a description copied with the move and trailing punctuation go, and
    # the lines after the moves that are no move (a sign-off) are ignored
    moves = [normalize_move(line) for line in written]
    ignored: list[str] = []

    def is_move(line: str) -> bool:
        if deps.is_move is None:
            return True
        try:
            return bool(deps.is_move(game_id, seat, line))
        except Exception:
            return True   # cannot tell: it is played, and refused with its reason if it is none
    # a greeting before the moves ("Hi,", "Hello Ben,") is skipped, never played
    greeting, moves = greeting_split(moves, is_move if deps.is_move is not None else None)
    written = written[len(greeting):]
    if deps.is_move is not None and moves:
        moves, rest = courtesy_split(moves, is_move)
        ignored, written = written[len(moves):], written[:len(moves)]
    if said is not None and not moves:   # a message alone: posted, nothing played, no answer
        why = talk.post_reply_message(deps.post_message, game_id, seat, said)
        if why is None:
            return Result("applied", "message", None, said=said, **base)
        return answer(Result("rejected", "message-refused", f"your message was not posted: {why}", **base),
                      "error", failing_line=None, legal_moves=[], nothing_played=True)
    if not moves:
        result = Result("rejected", "no-moves",
                        "no moves were found in your email: write one move per line, above the quoted "
                        "turn email", **base)
        return answer(result, "error", failing_line=None, legal_moves=_legal(deps, game_id, seat),
                      nothing_played=False)

    # 4. play them: all or nothing, up to a move that reveals chance
    try:
        applied = deps.submit(game_id, seat, version, moves)
    except ServiceError as e:
        extra = e.extra
        if e.kind == "conflict":
            current = extra.get("current_version")
            result = Result("rejected", "stale-turn",
                            "this email was for an old turn, and the game has moved on since. None of its "
                            "moves were played: reply to the latest turn email instead.", moves=moves, **base)
            if _send_stale(deps, msg, result, current, dedupe):
                return result
            answer.reply_to = None
            return answer(result, "error", failing_line=None, legal_moves=[], nothing_played=True,
                          current_version=current)
        index = extra.get("move_index")
        # as written
        failing = written[index] if isinstance(index, int) and 0 <= index < len(written) else None
        playable = e.kind in ("forbidden", "invalid")  # the player can correct and reply again
        if not playable:
            answer.reply_to = None
        result = Result("rejected", e.code, e.detail, moves=moves, failing_line=failing, **base)
        legal = _legal(deps, game_id, seat) if playable else []
        return answer(result, "error", failing_line=failing, legal_moves=legal, nothing_played=True,
                      rule=extra.get("rule"), move_index=index)
    except Exception:
        # the store or the service failed: nothing was played (submit is atomic). The email is
        # marked seen, so ask the player to send it again rather than wait for a redelivery.
        log.exception("mailin: submit failed for %s seat %s", game_id, seat)
        result = Result("rejected", "internal-error",
                        "the server could not play your moves just now; none were played. Please send "
                        "them again in a few minutes.", moves=moves, **base)
        return answer(result, "error", failing_line=None, legal_moves=[], nothing_played=True)
    new_version = applied.get("version") if isinstance(applied, dict) else None
    unplayed = list(applied.get("unplayed") or []) if isinstance(applied, dict) else []
    played = _without_tail(moves, unplayed)
    why = talk.post_reply_message(deps.post_message, game_id, seat, said) if said is not None else None
    result = Result("applied", None, why, moves=played, unplayed=unplayed, new_version=new_version,
                    ignored=ignored, said=said if said is not None and why is None else None, **base)
    return answer(result, "confirmation", moves=played, unplayed=unplayed, new_version=new_version)


def _without_tail(lines: list[str], tail: list[str]) -> list[str]:
    """``lines`` less the moves the service left unplayed (the last ones; command lines such as
    'vacation on' may stand among them)."""
    out = list(lines)
    for move in reversed(tail):
        for i in range(len(out) - 1, -1, -1):
            if out[i] == move:
                del out[i]
                break
    return out
