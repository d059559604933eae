"""How an email leaves the service: the transports the outbox (mail/outbox.py) sends through, and
the bytes it stores.

``SmtpTransport`` speaks SMTP (``smtp://``, ``smtp+starttls://``, ``smtps://``). It keeps one
connection per process open across emails (checked with NOOP after a few idle seconds, renewed
after ``idle_timeout`` idle or ``max_age``), and a connection found dead before the DATA command
is reopened and the email sent on the new one at once; the stored bytes go out as they are (no
parsing again per attempt). ``SinkTransport`` writes each email to an .eml file when no mail
provider is configured. ``transport_from_env`` picks one from ``TABLEPOST_SMTP_URL``.

``serialize`` gives the bytes the outbox stores; ``envelope`` the SMTP envelope of a message.
"""
from __future__ import annotations

import email
import email.generator
import email.utils
import io
import os
import re
import smtplib
import time
from email.message import EmailMessage
from pathlib import Path
from urllib.parse import unquote, urlparse


def env_float(name: str, default: float) -> float:
    """The float in the environment variable ``name``; ``default`` when unset, empty or not a number."""
    try:
        return float(os.environ.get(name) or default)
    except ValueError:
        return default


_BARE_LF = re.compile(rb"(?<!\r)\n")


def envelope(message) -> tuple[str, list[str]] | None:
    """The SMTP envelope smtplib's ``send_message`` would use (the Sender, else the From address;
    the To and Cc addresses), or None when the message needs ``send_message`` itself (Bcc to
    strip, Resent- headers, an address that is not ASCII)."""
    if any(h in message for h in ("Bcc", "Resent-Bcc", "Resent-From", "Resent-Date")):
        return None
    sender = email.utils.getaddresses([str(message.get("Sender") or message.get("From") or "")])
    listed = [str(v) for f in ("To", "Cc") for v in message.get_all(f, [])]
    rcpts = [a for _, a in email.utils.getaddresses(listed) if a]
    addrs = [a for _, a in sender if a] + rcpts
    if len(sender) != 1 or not rcpts or not all(a.isascii() for a in addrs):
        return None
    return sender[0][1], rcpts


class SmtpTransport:
    """``smtp://host:port``, ``smtp+starttls://user:pass@host:587`` or ``smtps://user:pass@host:465``.

    One connection is kept open across emails (one per process; the outbox sends one email at a
    time). Before it is used again after ``noop_after`` idle seconds it is checked with NOOP;
    after ``idle_timeout`` idle seconds (servers close idle connections) or ``max_age`` seconds
    it is replaced. If it turns out dead before the DATA command (nothing was delivered yet), the
    email is sent at once on a new connection; a connection lost during DATA is an error (the
    server may have accepted the email: the outbox tries again later, with the same Message-ID).
    ``TABLEPOST_SMTP_IDLE_TIMEOUT`` (30) and ``TABLEPOST_SMTP_MAX_AGE`` (300) set the two limits."""

    def __init__(self, url: str, timeout: float = 15.0, noop_after: float = 5.0,
                 idle_timeout: float | None = None, max_age: float | None = None):
        u = urlparse(url)
        self.scheme, self.host, self.port = u.scheme, u.hostname or "127.0.0.1", u.port
        self.user, self.password = unquote(u.username or ""), unquote(u.password or "")
        self.timeout = timeout
        self.noop_after = noop_after
        self.idle_timeout = (idle_timeout if idle_timeout is not None
                             else env_float("TABLEPOST_SMTP_IDLE_TIMEOUT", 30))
        self.max_age = max_age if max_age is not None else env_float("TABLEPOST_SMTP_MAX_AGE", 300)
        self._smtp: smtplib.SMTP | None = None
        self._opened = self._used = 0.0
        self.connections = 0          # opened so far (for tests and figures)
        self.unreachable = False      # the last attempt to open a connection failed

    def _connect(self):
        if self.scheme == "smtps":
            smtp = smtplib.SMTP_SSL(self.host, self.port or 465, timeout=self.timeout)
        else:
            smtp = smtplib.SMTP(self.host, self.port or 25, timeout=self.timeout)
        try:
            if self.scheme == "smtp+starttls":
                smtp.starttls()
            if self.user:
                smtp.login(self.user, self.password)
        except BaseException:
            smtp.close()
            raise
        return smtp

    def _ready(self) -> smtplib.SMTP:
        now = time.monotonic()
        if self._smtp is not None and (now - self._used > self.idle_timeout
                                       or now - self._opened > self.max_age):
            self.close()
        if self._smtp is not None and now - self._used > self.noop_after:
            try:
                alive = self._smtp.noop()[0] == 250
            except (smtplib.SMTPException, OSError):
                alive = False
            if not alive:
                self._drop()
        if self._smtp is None:
            try:
                self._smtp = self._connect()
            except (smtplib.SMTPException, OSError):
                self.unreachable = True
                raise
            self.unreachable = False
            self.connections += 1
            self._opened = self._used = time.monotonic()
        return self._smtp

    def send_raw(self, from_addr: str, to_addrs: list[str], raw: bytes) -> None:
        """Send the message's bytes as they are (bare line feeds become CRLF); returns once the
        server accepted them (250 after DATA), raises otherwise."""
        # no CR at all (the generator's own bytes): every LF is bare, and a plain replace is 20 times
        # faster than the pattern over a turn email's 80 KB
        raw = raw.replace(b"\n", b"\r\n") if b"\r" not in raw else _BARE_LF.sub(b"\r\n", raw)
        for attempt in (0, 1):
            smtp = self._ready()
            in_data = False
            try:
                smtp.ehlo_or_helo_if_needed()
                code, resp = smtp.mail(from_addr)
                if code != 250:
                    self._reset(smtp)
                    raise smtplib.SMTPSenderRefused(code, resp, from_addr)
                refused = {}
                for rcpt in to_addrs:
                    code, resp = smtp.rcpt(rcpt)
                    if code not in (250, 251):
                        refused[rcpt] = (code, resp)
                if len(refused) == len(to_addrs):
                    self._reset(smtp)
                    raise smtplib.SMTPRecipientsRefused(refused)
                in_data = True
                code, resp = _data(smtp, raw)
                if code != 250:
                    self._reset(smtp)
                    raise smtplib.SMTPDataError(code, resp)
                self._used = time.monotonic()
                return
            except smtplib.SMTPResponseException:
                raise  # the server answered no: the connection is fine
            except smtplib.SMTPRecipientsRefused:
                raise
            except (smtplib.SMTPException, OSError):
                self._drop()
                if in_data or attempt:
                    raise

    def send(self, message) -> None:
        """Send an email message (its envelope from its headers)."""
        env = envelope(message)
        if env is None:
            smtp = self._ready()
            try:
                smtp.send_message(message)
            except smtplib.SMTPResponseException:
                raise
            except (smtplib.SMTPException, OSError):
                self._drop()
                raise
            self._used = time.monotonic()
            return
        self.send_raw(env[0], env[1], serialize(message))

    def _reset(self, smtp: smtplib.SMTP) -> None:
        try:
            smtp.rset()
        except (smtplib.SMTPException, OSError):
            self._drop()

    def _drop(self) -> None:
        if self._smtp is not None:
            try:
                self._smtp.close()
            except Exception:
                pass
            self._smtp = None

    def close(self) -> None:
        if self._smtp is not None:
            try:
                self._smtp.quit()
            except Exception:
                pass
        self._drop()


class SinkTransport:
    """No mail provider configured: each message becomes an .eml file under ``folder`` and its
    subject, recipient and links are printed, so a new user can play at once."""

    def __init__(self, folder: str | os.PathLike):
        self.folder = Path(folder)

    def send(self, message: EmailMessage) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        name = f"{time.time_ns()}-{(message['To'] or 'nobody').split('@')[0][-20:]}.eml"
        (self.folder / name).write_bytes(serialize(message))
        plain = next((part for part in message.walk() if part.get_content_type() == "text/plain"), None)
        payload = plain.get_payload(decode=True) if plain is not None else None   # bytes: a leaf part
        text = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else ""
        links = [w for w in text.split() if w.startswith("http")]
        print(f"[mail sink] to {message['To']}: {message['Subject']} ({self.folder / name})", flush=True)
        for link in links[:5]:
            print(f"[mail sink]   {link}", flush=True)


def dot_stuffed(raw: bytes) -> bytes:
    """``raw`` (CRLF line ends) as the DATA command sends it (RFC 5321 4.5.2): a line that starts
    with a period gets another, and the last line its CRLF; what smtplib's ``_quote_periods`` does
    with a pattern, which took 0.6 ms of a turn email's 80 KB (a plain replace: 0.02 ms)."""
    q = raw.replace(b"\n.", b"\n..")
    if q[:1] == b".":
        q = b"." + q
    return q if q[-2:] == b"\r\n" else q + b"\r\n"


def _data(smtp: smtplib.SMTP, raw: bytes) -> tuple[int, bytes]:
    """``smtp.data(raw)`` for bytes, with :func:`dot_stuffed`: the same commands and bytes."""
    smtp.putcmd("data")
    code, repl = smtp.getreply()
    if code != 354:
        raise smtplib.SMTPDataError(code, repl)
    smtp.send(dot_stuffed(raw) + b".\r\n")
    return smtp.getreply()


# a header value that folding leaves as it is: printable ASCII words, single spaces, no encoded word
_PLAIN_HEADER = re.compile(r"(?!.*=\?)[!-~]+(?: [!-~]+)*")


class _Generator(email.generator.BytesGenerator):
    """The standard generator, but a compat32 header (a plain ``str``) that needs neither
    folding nor encoding is written as it is: the same bytes, without the folding machinery,
    which cost more than half of serializing a turn email (issue 15); and a body is written at
    once, not line by line (the same bytes: a turn email's pictures are some 2,000 lines of
    base64, 1 ms of writes; issue 40)."""

    def _write_lines(self, lines):
        if lines:
            self.write(self._NL.join(email.generator.NLCRE.split(lines)))

    def _write_headers(self, msg):
        for name, value in msg.raw_items():
            if (type(value) is str and len(name) + len(value) < 990
                    and name.isascii() and _PLAIN_HEADER.fullmatch(value)):
                self._fp.write(f"{name}: {value}{self._NL}".encode("ascii"))
            else:
                self._fp.write(self.policy.fold_binary(name, value))
        self.write(self._NL)


def serialize(message) -> bytes:
    """The message's bytes with header lines folded only past SMTP's 998-character limit: a long
    header such as List-Unsubscribe stays on one line (a fold would survive the outbox's store
    and parse as a leading space)."""
    out = io.BytesIO()
    _Generator(out, mangle_from_=False, policy=message.policy.clone(max_line_length=998)).flatten(message)
    return out.getvalue()


def transport_from_env(data_dir: str | None = None):
    url = os.environ.get("TABLEPOST_SMTP_URL")
    if url:
        return SmtpTransport(url)
    return SinkTransport(Path(data_dir or os.environ.get("TABLEPOST_DATA_DIR", "var")) / "mail")
