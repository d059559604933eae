"""Issue 51, no URLs from users in the service's emails: the message filter on posting (addresses in
any written form, invisible characters, line separators) and the emails' rule for links
(application/talk_text.py); end to end with the project's Redis and a real SMTP server on loopback:
a seat's message with a URL reaches the other seat's turn email and message email as words with no
link. Tournament names follow the players' names' rule (tests/test_names.py)."""
from __future__ import annotations

import re
import secrets
import sys
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from application.errors import ServiceError
from application.messages import TableTalk, clean_text
from application.names import LINK_LIKE, OTHER_DOTS, link_like
from application.talk_text import ADDRESS, LINK_GONE, is_link, strip_invisible, without_links

# --- the filter on posting ----------------------------------------------------------------------

ADDRESSES = ["write to bob＠mail.com now", "bob﹫mail．com", "bob @ mail . com", "bob (at) mail (dot) com",
             "bob[at]mail[dot]com", "BOB@MAIL.COM", "bob{AT}mail.com", "ab@c。jp", "b\u200bob@ma\u00adil.com",
             "ｂｏｂ＠ｍａｉｌ．ｃｏｍ", "bob\u2060@\u2060mail.com", "kim@例え.テスト"]
KEPT = ["@Ann nice move", "I'm @ work. Back soon", "meet (at) noon", "e.g. 1.5 points", "3 @ 2.5 each"]


@pytest.mark.parametrize("text", ADDRESSES)
def test_an_address_in_any_written_form_is_hidden(text):
    out = clean_text(text)
    assert "[an address]" in out, out
    assert "bob" not in out.lower() and "mail" not in out.lower() and "kim" not in out, out


@pytest.mark.parametrize("text", KEPT)
def test_words_that_are_no_address_are_kept(text):
    assert clean_text(text) == text


def test_invisible_characters_go_and_line_separators_are_line_ends():
    hidden = "a\u200bb\u2028c\u0085d\u202ee\u00adf\u2029g\ufeffh\u2066i\u2064j"
    assert clean_text(hidden) == "ab\nc\ndef\nghij"
    assert clean_text("good \u2764\ufe0f game") == "good \u2764\ufe0f game", "emoji keep their selector"


def test_every_format_and_control_character_is_invisible():
    """The hard-coded set covers every format (Cf) and control character of this Python's Unicode,
    and the separators: none is left by the filter."""
    every = [chr(c) for c in range(sys.maxunicode + 1)
             if unicodedata.category(chr(c)) in ("Cf", "Cc", "Zl", "Zp") and chr(c) != "\n"]
    assert strip_invisible("".join(every)).replace("\n", "") == ""


def _hidden_ok(text: str) -> None:
    assert not [c for c in text if c != "\n" and unicodedata.category(c) in ("Cf", "Cc", "Zl", "Zp")], \
        ascii(text)
    assert ADDRESS.search(unicodedata.normalize("NFKC", text)) is None, ascii(text)
    assert ADDRESS.search(text) is None, ascii(text)


PIECES = st.sampled_from(["@", "＠", "﹫", " @ ", "(at)", "[AT]", "(dot)", ".", "．", "。", " . ", "mail",
                          "com", "bob", "x", "-", "\u200b", "\u00ad", "\u2028", "\u0085", "\u202e", "\u2066",
                          "\ufeff", " ", "\n", "\u3000", "\u0301", "ﬀ", "example"])
MIXED = st.lists(st.one_of(st.text(max_size=8), PIECES), max_size=40).map("".join)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(), MIXED))
def test_filtered_text_has_no_invisible_character_and_no_address(text):
    try:
        out = clean_text(text)
    except ServiceError as e:
        assert e.code in ("empty-message", "message-too-long")
        return
    _hidden_ok(out)
    assert clean_text(out) == out, "filtering again changes nothing"


# --- links in emails ----------------------------------------------------------------------------

LINKS = ["https://evil.example/0", "evil.example/claim", "www.x.y", "hxxp://evil[.]example", "hxxp",
         "hXXps[:]//x", "evil.example", "ｅｖｉｌ．ｅｘａｍｐｌｅ", "evil\u200b.example", "evil(dot)example",
         "evil\u3002example", "1.2.3.4", "kim@example.org", "mailto:x", "evil\u0301.example",
         "evil\ufe0f.example", "пример.рф", "HTTPS://X"]
NO_LINKS = ["e.g.", "1.5", "v1.2", "J.R.R.", "Tolkien", "http", "www", "gg", "[an address]", ":-)"]


@pytest.mark.parametrize("word", LINKS)
def test_a_link_in_any_written_form_is_removed(word):
    assert is_link(word)
    out = without_links(f"Claim your prize: {word}, now")
    assert out == f"Claim your prize: {LINK_GONE}, now", out


@pytest.mark.parametrize("word", NO_LINKS)
def test_other_words_are_kept(word):
    assert without_links(f"well {word} played") == f"well {word} played"


def test_the_issue_s_message():
    said = "Claim your prize: https://evil.example/0"
    assert without_links(said) == "Claim your prize: [a link was removed]"
    assert without_links("(see evil.example.)\nok") == "(see [a link was removed].)\nok"


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(), st.lists(st.one_of(st.text(max_size=6), st.sampled_from(
    ["https://", "hxxp", "www.", ".", "．", "。", "[.]", "(dot)", "evil", "example", "/", "@", " ", "\n",
     "\u200b", "\u00a0", "\u0301", "\ufe0f", ":", "1", "ｅ"])), max_size=30).map("".join)))
def test_an_email_shows_no_link(text):
    out = without_links(text)
    assert not link_like(out), ascii(out)
    assert LINK_LIKE.search(unicodedata.normalize("NFKC", out).translate(OTHER_DOTS)) is None, ascii(out)
    assert not [w for w in re.split(r"\s+", out) if w and is_link(w)], ascii(out)
    assert without_links(out) == out


# --- end to end: real Redis, real SMTP ------------------------------------------------------------


def test_a_message_with_a_url_reaches_the_other_seat_s_emails_without_it(redis_client):
    from application.dashboard import mark_verified
    from application.game_service import GameService
    from application.store import EventStore
    from mail.mailconfig import MailConfig
    from mail.messages import TalkMailer
    from mail.notify import Notifier
    from mail.outbox import Outbox
    from mail.transports import SmtpTransport
    from tests.test_pbem_e2e import Mailboxes, text_of

    boxes = Mailboxes()
    boxes.controller.start()
    try:
        svc = GameService(EventStore(redis_client), allow_seeded_games=True)
        ours = "https://pbem.test"
        cfg = MailConfig(secret="s", domain="pbem.test", from_addr="pbem@pbem.test", public_url=ours)
        notifier = Notifier(svc, Outbox(redis_client, SmtpTransport(f"smtp://127.0.0.1:{boxes.port}")), cfg)
        ada, bob = (f"{who}-{secrets.token_hex(4)}@talk.test" for who in ("ada", "bob"))
        for address in (ada, bob):
            mark_verified(redis_client, address)
        g = svc.create_game([{"name": "Ada", "email": ada}, {"name": "Bob", "email": bob}],
                            {"seed": "links"}, game="tiletum")
        talk = TableTalk(svc, email_delay=0)
        talk.post_for_seat(g["id"], 1, "Claim your prize: https://evil.example/0")
        assert notifier.notify(g["id"], 1) == 1   # Ada's turn email tells Bob's message
        boxes.wait_for(1)
        talk.post_for_seat(g["id"], 1, "or www.evil.example, evil.example/claim, hxxp://evil[.]example "
                                        "or write to bob＠evil.example")
        assert TalkMailer(notifier, 0).send(g["id"]) == 1   # and a message email the next one
        boxes.wait_for(2)
        with boxes.cond:
            emails = [m for m in boxes.messages if str(m["To"]) == ada]
        assert len(emails) == 2
        turn, told = emails
        assert "Bob: Claim your prize: [a link was removed]" in text_of(turn)
        assert "Bob: or [a link was removed], [a link was removed], [a link was removed] or write to " \
               "[an address]" in " ".join(text_of(told).split())
        for msg in emails:
            for part in ("plain", "html"):
                body = msg.get_body((part,)).get_content()
                assert "evil" not in body.lower(), body
                urls = re.findall(r"(?i)(?:[a-z][a-z0-9+.-]*://|www\.)[^\s\"'<>]*", body)
                assert urls and all(u.startswith(ours + "/") for u in urls), urls   # only our own
            assert "evil" not in str(msg["Subject"]).lower()
        # the page keeps the words as posted (it shows them as text, never a link)
        assert talk._rows(g["id"], 0)[0]["t"] == "Claim your prize: https://evil.example/0"
    finally:
        boxes.controller.stop()


def test_a_fullwidth_stop_before_the_at_sign_leaves_no_address_as_written_either():
    """Found by Hypothesis: '：' (fullwidth colon) reads as an address's local part as written, and
    as a stop after NFKC: the text is kept in its NFKC form, which holds no address."""
    from application.talk_text import ADDRESS, hide_addresses
    out = hide_addresses("\uff1a@0(DOT)A")
    assert ADDRESS.search(out) is None and ADDRESS.search(unicodedata.normalize("NFKC", out)) is None
