"""Inbound email (mail/mailin.py): extracting moves from replies, the handle_inbound pipeline
with fake dependencies, and a real aiosmtpd listener on loopback."""
from __future__ import annotations

import email.policy
import smtplib
import socket
import threading
import time
from email.message import EmailMessage

import pytest

from application.errors import ServiceError
from mail import addresses, mailin
from workers import listener as smtp_listener
from mail.compose import confirmation_email, error_email
from mail.mailin import Deps, extract_moves, handle_inbound
from mail.reply_text import html_to_text

SECRET = "test-secret"
DOMAIN = "pbem.localhost"
GAME = "g4mEid123"
OWNER = "alice@example.com"  # the seat's own address: replies come from it, answers go to it
LEGAL = [("take F1", "take the Food die showing 1"), ("take G5", "take the Gold die showing 5")]


def addr(game=GAME, seat=1, version=7):
    return addresses.reply_address(SECRET, DOMAIN, game, seat, version)


# --- extract_moves --------------------------------------------------------------------------------

def test_plain_lines_case_and_spacing_kept_as_written():
    assert extract_moves("take G4\n  TAKE  g4 > 2  \n\n# a comment\n\tmerchant köln\n") == \
        ["take G4", "TAKE  g4 > 2", "merchant köln"]


def test_gmail_attribution_and_quote():
    body = ("take F3\ntile B02\n\nOn Mon, 1 Jan 2024 at 10:00, Table Post <play+x.1.2.abc@pbem.localhost> "
            "wrote:\n> Your turn. Legal moves:\n> take F1\n> take G5\n")
    assert extract_moves(body) == ["take F3", "tile B02"]


def test_gmail_attribution_wrapped_over_two_lines():
    body = ("char 4\n\nOn Mon, Jan 1, 2024 at 10:00 AM Table Post <\n"
            "play+abcdef.1.5.0123456789abcdef@pbem.localhost> wrote:\n\n> take F1\n")
    assert extract_moves(body) == ["char 4"]


def test_outlook_header_block_and_original_message():
    outlook = ("end\r\n\r\n________________________________\r\nFrom: Table Post "
               "<noreply@pbem.localhost>\r\nSent: Monday, January 1, 2024 10:00\r\nTo: "
               "alice@example.com\r\nSubject: Your turn\r\n\r\n"
               "take F1\r\n")
    assert extract_moves(outlook) == ["end"]
    older = "skip\n-----Original Message-----\nFrom: Tiletum\ntake G5\n"
    assert extract_moves(older) == ["skip"]
    bare_from = "gain W\nFrom: Table Post <noreply@pbem.localhost>\nDate: today\ntake G5\n"
    assert extract_moves(bare_from) == ["gain W"]


def test_apple_mail_and_iphone():
    body = "take I2\n\nSent from my iPhone\n\n> On 1 Jan 2024, at 10:00, Tiletum wrote:\n> take F1\n"
    assert extract_moves(body) == ["take I2"]
    apple = "take I2\nplace C03 1.1\n\nOn 1 Jan 2024, at 10:00, Table Post <play+x@y> wrote:\n\ntake F1\n"
    assert extract_moves(apple) == ["take I2", "place C03 1.1"]


def test_signatures():
    assert extract_moves("take G4\n-- \nAlice\nbuy S\n") == ["take G4"]
    assert extract_moves("take G4\n--\nAlice\n") == ["take G4"]
    assert extract_moves("take G4\n---\n") == ["take G4", "---"]  # only the real delimiter cuts


def test_quote_marker_first_means_no_moves():
    assert extract_moves("> take F1\ntake G5\n") == []
    assert extract_moves("") == []


def test_too_many_lines():
    """As many move lines as the service plays in one request (MAX_MOVES_PER_REQUEST), no more."""
    assert mailin.MAX_MOVE_LINES == 100
    assert len(extract_moves("skip\n" * 100)) == 100
    with pytest.raises(mailin.TooManyMoves):
        extract_moves("skip\n" * 101)


def test_html_to_text():
    markup = ("<html><head><style>p{color:red}</style></head><body><div>take&nbsp;F3</div>"
              "<div>tile  B02<br>char\n 4</div><p>merchant k&ouml;ln</p>"
              "<div class=\"gmail_quote\">On Mon wrote:<blockquote>take F1</blockquote></div>"
              "<blockquote type=cite>take G5</blockquote></body></html>")
    assert extract_moves(html_to_text(markup)) == ["take F3", "tile B02", "char 4", "merchant köln"]
    outlook = ("<div>end</div><div id=appendonsend></div><hr><div id=divRplyFwdMsg><b>From:</b> "
               "Tiletum</div><div>take F1</div>")
    assert extract_moves(html_to_text(outlook)) == ["end"]



@pytest.mark.parametrize("markup, moves", [
    # inline markup inside a line keeps the line whole; block elements and <br> break lines
    ("<div><b>take</b> <i>G4</i></div><div>mer<span>chant</span> Koeln</div>", ["take G4", "merchant Koeln"]),
    ("<p>take G4<br/>end</p>", ["take G4", "end"]),
    ("<ul><li>take G4</li><li>end</li></ul>", ["take G4", "end"]),
    ("<table><tr><td>take G4</td></tr><tr><td>end</td></tr></table>", ["take G4", "end"]),
    # whitespace collapses as a browser shows it, except in <pre>
    ("<div>place\n   3,-1\t r90   farmer NE</div>", ["place 3,-1 r90 farmer NE"]),
    ("<pre>take G4\nend</pre>", ["take G4", "end"]),
    # entities, a no-break space, and characters the parser must not mangle
    ("<div>take&#32;F2&gt;3</div><div>place 0,&#45;1 r180</div>", ["take F2>3", "place 0,-1 r180"]),
    # no content: head, title, style, script, template
    ("<html><head><title>x</title><script>take G1</script></head><body><template>end</template>"
     "<div>take G4</div></body></html>", ["take G4"]),
    # quoted mail in any client's container is dropped, nested or not
    ("<div>end</div><div class=\"yahoo_quoted\"><div>take G1</div></div>", ["end"]),
    ("<div>end</div><div class=\"moz-cite-prefix\">On Mon, Tiletum wrote:</div>"
     "<blockquote><div><blockquote>take G1</blockquote>take G2</div></blockquote><div>take G3</div>",
     ["end", "take G3"]),
    ("<div>end</div><div class=\"gmail_signature\">Ada -- sent from a phone</div>", ["end"]),
    # Outlook's <hr> becomes the marker line above its header block
    ("<div>take G4</div><hr/><div><b>From:</b> Tiletum</div><div>take G1</div>", ["take G4"]),
    # broken markup is still read
    ("<div>take G4<div>end", ["take G4", "end"]),
])
def test_html_bodies_read_as_a_mail_client_shows_them(markup, moves):
    assert extract_moves(html_to_text(markup)) == moves


def test_hostile_html_is_read_in_linear_time_and_never_raises():
    """A reply of the order of the size limit (mailin.DEFAULT_MAX_BYTES) can nest 20,000 tags: reading it
    must not take quadratic time (a hand-made tree pass was 130 s for nested quotes), and markup
    the parser refuses is read as the text between its tags."""
    import time
    n = 20_000
    for opening in ("<div>", "<blockquote>", "<pre>", "<div class='gmail_quote'>", "<b>", "<p>", "<li>"):
        body = opening * n + "take G4" + "</div>" * n   # of the order of the size limit
        t0 = time.process_time()
        html_to_text(body)
        assert time.process_time() - t0 < 10, opening   # linear: well under a second here
    assert extract_moves(html_to_text("<div>" * n + "take G4" + "</div>" * n)) == ["take G4"]
    assert extract_moves(html_to_text("<![seDlsm <div>take G4</div>")) == ["take G4"]

# --- handle_inbound with fake dependencies --------------------------------------------------------

class Fakes:
    def __init__(self, submit_error: Exception | None = None, legal=LEGAL):
        self.submits: list[tuple] = []
        self.sent: list[EmailMessage] = []
        self.seen_keys: set[str] = set()
        self.submit_error = submit_error
        self.legal = legal
        self.lock = threading.Lock()
        self.composed: list[tuple[str, dict]] = []  # (kind, keyword arguments of the composer)
        self.deps = Deps(secret=SECRET, submit=self.submit, legal_moves=self.legal_moves,
                         send_reply=self.send_reply, seen=self.seen,
                         from_addr=f"Table Post <noreply@{DOMAIN}>", max_bytes=20_000,
                         seat_email=lambda game_id, seat: OWNER,
                         unauthenticated="accept",   # no mail server's checks (test_mail_sender_auth.py)
                         compose_confirmation=self.recording("confirmation", confirmation_email),
                         compose_error=self.recording("error", error_email))

    def recording(self, kind, composer):
        """The real composer (mail/compose.py), its keyword arguments recorded."""
        def compose(**ctx):
            self.composed.append((kind, ctx))
            return composer(**ctx)
        return compose

    def submit(self, game_id, seat, version, moves):
        with self.lock:
            self.submits.append((game_id, seat, version, list(moves)))
        if self.submit_error is not None:
            raise self.submit_error
        return {"version": version + len(moves), "events": []}

    def legal_moves(self, game_id, seat):
        return list(self.legal)

    def send_reply(self, message):
        with self.lock:
            self.sent.append(message)

    def seen(self, key):
        with self.lock:
            if key in self.seen_keys:
                return True
            self.seen_keys.add(key)
            return False

    def text(self, i=-1) -> str:
        m = self.sent[i]
        part = m.get_body(preferencelist=("plain",))
        return part.get_content()

    def ctx(self, i=-1) -> dict:
        return self.composed[i][1]


def reply(body="take F3\ntile B02\n", to=None, sender="alice@example.com", msgid="<m1@example.com>",
          html=None, subject="Re: Tiletum: your turn", extra_headers=None, crlf=False) -> bytes:
    m = EmailMessage()
    m["From"] = f"Alice <{sender}>"
    m["To"] = to or addr()
    m["Subject"] = subject
    if msgid:
        m["Message-ID"] = msgid
    for k, v in (extra_headers or {}).items():
        m[k] = v
    if html is None:
        m.set_content(body)
    else:
        m.set_content(html, subtype="html")
    return m.as_bytes(policy=email.policy.SMTP) if crlf else m.as_bytes()


def test_applied():
    f = Fakes()
    body = ("take F3\n  TILE b02 \n\nOn Mon, 1 Jan 2024, Tiletum <x> wrote:\n> take F1\n")
    r = handle_inbound(reply(body), f.deps)
    assert (r.status, r.game_id, r.seat, r.version, r.new_version) == ("applied", GAME, 1, 7, 9)
    assert f.submits == [(GAME, 1, 7, ["take F3", "TILE b02"])]
    assert len(f.sent) == 1 and r.replied
    sent = f.sent[0]
    assert sent["To"] == "alice@example.com"
    assert "noreply@" in sent["From"]
    assert sent["In-Reply-To"] == "<m1@example.com>"
    kind, ctx = f.composed[0]
    assert kind == "confirmation" and ctx["moves"] == ["take F3", "TILE b02"] and ctx["new_version"] == 9
    assert "take F3" in f.text()


def test_envelope_recipient_wins_over_headers():
    f = Fakes()
    r = handle_inbound(reply(to="someone@else.example"), f.deps, rcpt=addr(seat=2, version=11))
    assert r.status == "applied"
    assert f.submits[0][:3] == (GAME, 2, 11)


def test_reply_address_from_delivered_to_and_cc():
    f = Fakes()
    raw = reply(to="Alice <alice@example.com>", extra_headers={"Cc": f"Tiletum <{addr(version=3)}>"})
    assert handle_inbound(raw, f.deps).status == "applied"
    assert f.submits[0][:3] == (GAME, 1, 3)


def test_html_only_reply():
    f = Fakes()
    html = "<div>take F3<br>tile B02</div><blockquote>take G5</blockquote>"
    r = handle_inbound(reply(html=html), f.deps)
    assert r.status == "applied"
    assert f.submits == [(GAME, 1, 7, ["take F3", "tile B02"])]


def test_gibberish_quotes_the_failing_line_and_lists_legal_moves():
    err = ServiceError("invalid", "bad-notation", "'tak G4': unknown verb 'tak'", rule="notation",
                       move_index=1)
    f = Fakes(submit_error=err)
    r = handle_inbound(reply("take F3\ntak G4\nend\n"), f.deps)
    assert (r.status, r.code, r.failing_line) == ("rejected", "bad-notation", "tak G4")
    assert len(f.submits) == 1  # the one atomic attempt
    kind, ctx = f.composed[0]
    assert kind == "error" and ctx["failing_line"] == "tak G4" and "unknown verb" in ctx["reason"]
    assert ctx["legal_moves"] == LEGAL
    text = f.text()
    assert "tak G4" in text and "unknown verb" in text
    assert "take F1" in text and "take G5" in text
    assert f.sent[0]["Reply-To"] == addr()  # a corrected reply goes to the same turn


def test_illegal_move():
    err = ServiceError("invalid", "illegal-move", "'take G4': there is no G4 die on the Action Wheel",
                   rule="no-such-die", move_index=0)
    f = Fakes(submit_error=err)
    r = handle_inbound(reply("take G4\n"), f.deps)
    assert (r.status, r.code, r.failing_line) == ("rejected", "illegal-move", "take G4")
    assert "no G4 die" in f.ctx()["reason"] and f.ctx()["legal_moves"] == LEGAL
    assert "take G4" in f.text() and "take F1" in f.text()


def test_not_your_turn_is_403():
    err = ServiceError("forbidden", "not-your-turn", "move 0: it is seat 0's decision", move_index=0)
    f = Fakes(submit_error=err, legal=[])
    r = handle_inbound(reply("skip\n"), f.deps)
    assert (r.status, r.code, r.failing_line) == ("rejected", "not-your-turn", "skip")
    assert len(f.sent) == 1


def test_old_turn():
    err = ServiceError("conflict", "version-conflict", "the game is at version 9, not 7", current_version=9)
    f = Fakes(submit_error=err)
    r = handle_inbound(reply(), f.deps)
    assert (r.status, r.code) == ("rejected", "stale-turn")
    assert len(f.submits) == 1
    assert len(f.sent) == 1
    assert "old turn" in f.ctx()["reason"] and f.ctx()["legal_moves"] == []
    assert f.ctx()["current_version"] == 9


def test_forged_address():
    f = Fakes()
    good = addr()
    forged = good.replace(".1.7.", ".0.7.")  # someone else's seat with the signature of seat 1
    r = handle_inbound(reply(to=forged), f.deps)
    assert (r.status, r.code) == ("rejected", "forged-address")
    assert f.submits == []
    assert f.sent == [], "no game, no seat: nobody is mailed (no backscatter to a forger)"
    assert handle_inbound(reply(to="random@pbem.localhost", msgid="<m2@x>"), f.deps).code == "forged-address"
    assert f.submits == []


def test_huge_message():
    f = Fakes()
    raw = reply("take F3\n" + "x" * 30_000 + "\n")
    r = handle_inbound(raw, f.deps)
    assert (r.status, r.code) == ("rejected", "too-large")
    assert f.submits == []
    assert len(f.sent) == 1 and f.sent[0]["To"] == "alice@example.com"


@pytest.mark.parametrize(
    "raw", [b"\x00\xff\xfe garbage \x81", b"", b"just some text\r\n\r\nbody", "not bytes"])
def test_malformed(raw):
    f = Fakes()
    if raw == "not bytes":
        raw = 12345
    r = handle_inbound(raw, f.deps)
    assert (r.status, r.code) == ("rejected", "malformed")
    assert f.submits == [] and f.sent == []


def test_duplicate_delivery():
    f = Fakes()
    raw = reply()
    assert handle_inbound(raw, f.deps).status == "applied"
    r = handle_inbound(raw, f.deps)
    assert (r.status, r.code) == ("duplicate", "duplicate")
    assert len(f.submits) == 1 and len(f.sent) == 1


def test_duplicate_without_message_id():
    f = Fakes()
    raw = reply(msgid=None)
    assert handle_inbound(raw, f.deps).status == "applied"
    assert handle_inbound(raw, f.deps).status == "duplicate"
    assert len(f.submits) == 1


def test_no_moves():
    f = Fakes()
    r = handle_inbound(reply("\n\n# thinking\n> take F1\n"), f.deps)
    assert (r.status, r.code) == ("rejected", "no-moves")
    assert f.submits == []
    assert f.ctx()["legal_moves"] == LEGAL
    assert "take F1" in f.text() and "take G5" in f.text()


def test_too_many_moves():
    f = Fakes()
    r = handle_inbound(reply("skip\n" * 201), f.deps)
    assert (r.status, r.code) == ("rejected", "too-many-moves")
    assert f.submits == []


def test_auto_replies_are_ignored():
    f = Fakes()
    r = handle_inbound(reply(extra_headers={"Auto-Submitted": "auto-replied"}), f.deps)
    assert r.status == "ignored"
    r = handle_inbound(reply(sender="MAILER-DAEMON@example.com", msgid="<m3@x>"), f.deps)
    assert r.status == "ignored"
    assert f.submits == [] and f.sent == []


def test_broken_dependencies_do_not_raise():
    f = Fakes(submit_error=RuntimeError("redis is down"))
    r = handle_inbound(reply(), f.deps)
    assert (r.status, r.code) == ("rejected", "internal-error")

    def boom(message):
        raise OSError("smtp down")

    g = Fakes()
    g.deps.send_reply = boom
    r = handle_inbound(reply(), g.deps)
    assert r.status == "applied" and not r.replied


# --- a real SMTP listener on loopback -------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture()
def listener():
    f = Fakes()
    calls: list[tuple] = []
    done = threading.Event()

    def recording(raw, deps, rcpt=None):
        result = handle_inbound(raw, deps, rcpt)
        calls.append((rcpt, result))
        done.set()
        return result

    port = free_port()
    controller = smtp_listener.start_listener(f.deps, port=port,
                                              handler=smtp_listener.MailinHandler(f.deps, recording))
    try:
        yield f, calls, done, port
    finally:
        controller.stop()


def test_listener_plays_a_reply(listener):
    f, calls, done, port = listener
    msg = reply("take F3\ntile B02\n\nOn Mon wrote:\n> take F1\n", to=f"Tiletum <{addr()}>", crlf=True)
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as smtp:
        refused = smtp.sendmail("alice@example.com", [addr()], msg)
    assert refused == {}
    assert done.wait(5)
    assert calls[0][0] == addr() and calls[0][1].status == "applied"
    assert f.submits == [(GAME, 1, 7, ["take F3", "tile B02"])]
    assert len(f.sent) == 1


def test_listener_refuses_oversized_message(listener):
    f, calls, done, port = listener
    big = reply("take F3\n" + ("x" * 70 + "\n") * 400, crlf=True)  # ~29 KB > max_bytes 20 KB
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as smtp:
        smtp.ehlo()
        assert smtp.has_extn("size")
        # without SIZE= on MAIL FROM the server must still refuse it after DATA
        smtp.mail("alice@example.com")
        assert smtp.rcpt(addr())[0] == 250
        code, _ = smtp.data(big)
        assert code == 552
        # and a client that declares the size is refused at MAIL FROM
        with pytest.raises(smtplib.SMTPSenderRefused):
            smtp.sendmail("alice@example.com", [addr()], big)
    time.sleep(0.2)
    assert calls == [] and f.submits == []


def test_listener_refuses_forged_recipient(listener):
    f, calls, done, port = listener
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as smtp:
        with pytest.raises(smtplib.SMTPRecipientsRefused):
            smtp.sendmail("alice@example.com", ["play+nope.0.1.deadbeef@pbem.localhost"], reply(crlf=True))
    time.sleep(0.2)
    assert calls == [] and f.submits == []
