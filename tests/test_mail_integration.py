"""The email paths inside the service, on a real Redis: the inbound webhook (raw RFC 822) plays
a reply like the SMTP listener does, 'vacation on/off' by email, and an accepted move costs at
most one broker message."""
from __future__ import annotations

import email.utils
from email.message import EmailMessage

import pytest

import tiletum
from tests.conftest import INBOUND_SECRET, make_app, post_inbound
from tests.test_pbem_e2e import headline
from mail.addresses import reply_address


@pytest.fixture()
def mail_env(monkeypatch, tmp_path):
    monkeypatch.setenv("TABLEPOST_MAIL_SECRET", "int-secret")
    monkeypatch.setenv("TABLEPOST_MAIL_DOMAIN", "pbem.test")
    monkeypatch.delenv("TABLEPOST_SMTP_URL", raising=False)
    monkeypatch.setenv("TABLEPOST_DATA_DIR", str(tmp_path))        # the local sink writes here
    return tmp_path


def raw_reply(to: str, body: str) -> bytes:
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = "ada@x.test", to, "Re: your turn"
    m["Message-ID"] = email.utils.make_msgid(domain="x.test")
    m.set_content(body + "\n\n> quoted text from our email\n")
    return bytes(m)


def test_the_inbound_webhook_plays_a_reply(redis_server, mail_env):
    sent = []
    app = make_app(redis_server.url, MAIL_SECRET="int-secret", INBOUND_SECRET=INBOUND_SECRET,
                   SEND_TASK=lambda name, args, q: sent.append((name, tuple(args))))
    c = app.test_client()
    g = c.post("/api/v1/games", json={"seats": [{"name": "Ada", "email": "ada@x.test"}, {"name": "Bob"}],
                                      "options": {"seed": "hook"}}).json
    _, state = app.extensions["tablepost.service"].load(g["id"])
    move = next(m for m in tiletum.legal_moves(state) if m.startswith("take"))
    to = reply_address("int-secret", "pbem.test", g["id"], 0, 1)
    rv = post_inbound(c, raw_reply(to, move))
    assert rv.status_code == 200 and rv.json["status"] == "applied"
    assert c.get(f"/api/v1/games/{g['id']}").json["version"] == 2
    again = post_inbound(c, raw_reply(to, move))
    assert again.json["status"] == "rejected" and again.json["code"] == "stale-turn"
    assert c.get(f"/api/v1/games/{g['id']}").json["version"] == 2, "a reply to an old turn changes nothing"
    answers = sorted((mail_env / "mail").glob("*.eml"))
    assert len(answers) == 2, "a confirmation and an error answer, in the local sink"
    # vacation by email
    to2 = reply_address("int-secret", "pbem.test", g["id"], 0, 2)
    rv = post_inbound(c, raw_reply(to2, "Vacation on"))
    assert rv.json["status"] == "applied"
    from application.deadlines import Deadlines
    assert Deadlines(app.extensions["tablepost.service"], None).seat_state(g["id"],
                                                                         0)["vacation_since"] is not None
    assert c.get(f"/api/v1/games/{g['id']}").json["version"] == 2


def test_the_webhook_is_off_without_a_mail_secret(redis_server):
    app = make_app(redis_server.url, MAIL_SECRET=None)
    rv = app.test_client().post("/api/v1/inbound-email", data=b"Subject: x\r\n\r\nend\r\n")
    assert rv.status_code == 404 and rv.json["code"] == "email-disabled"


def test_an_accepted_move_costs_at_most_one_broker_message(redis_server):
    sent = []
    app = make_app(redis_server.url, SEND_TASK=lambda name, args, q: sent.append(name))
    c = app.test_client()
    g = c.post("/api/v1/games", json={"seats": [{"name": "A"}, {"name": "B"}, {"name": "C"}],
                                      "options": {"seed": "one-message"}}).json
    assert sent == ["workers.notify_turn"]
    svc = app.extensions["tablepost.service"]
    moves = 0
    for _ in range(120):
        _, state = svc.load(g["id"])
        if state.phase == "over":
            break
        before = len(sent)
        legal = tiletum.legal_moves(state)
        m = "end" if "end" in legal else legal[0]
        c.post(f"/api/v1/games/{g['id']}/moves", json={"expected_version": state.version, "moves": [m]},
               headers={"Authorization": f"Bearer {g['seats'][state.actor]['token']}"})
        _, after = svc.load(g["id"])
        assert len(sent) - before <= 1
        assert (len(sent) - before == 1) == (after.actor != state.actor), \
            "a message exactly when the decision passes to someone else"
        moves += 1
    assert moves >= 60


def sink(mail_env):
    import email as _email
    import email.policy as _policy
    return [_email.message_from_bytes(p.read_bytes(), policy=_policy.default)
            for p in sorted((mail_env / "mail").glob("*.eml"))]


def text_of(msg) -> str:
    return msg.get_body(("plain",)).get_content()


def test_a_reply_to_an_old_turn_gets_the_current_turn(redis_server, mail_env):
    app = make_app(redis_server.url, MAIL_SECRET="int-secret", INBOUND_SECRET=INBOUND_SECRET)
    c = app.test_client()
    g = c.post("/api/v1/games", json={"seats": [{"name": "Ada", "email": "ada@x.test"},
                                                {"name": "Bob", "email": "bob@x.test"}],
                                      "options": {"seed": "old-turn"}}).json
    svc = app.extensions["tablepost.service"]
    _, state = svc.load(g["id"])
    move = next(m for m in tiletum.legal_moves(state) if m.startswith("take"))
    old = reply_address("int-secret", "pbem.test", g["id"], 0, 1)
    assert post_inbound(c, raw_reply(old, move)).json["status"] == "applied"
    n = len(sink(mail_env))
    # the same seat is still deciding (version 2): the answer is its turn now, to reply to
    rv = post_inbound(c, raw_reply(old, "end"))
    assert rv.json["code"] == "stale-turn"
    answer = sink(mail_env)[n]
    assert str(answer["To"]) == "ada@x.test", "only ever to the seat's own address"
    assert str(answer["Reply-To"]) == reply_address("int-secret", "pbem.test", g["id"], 0, 2), \
        "the current turn's reply address"
    body = text_of(answer)
    assert "old turn" in body and "Your legal moves" in body and "Resources:" in body
    _, now = svc.load(g["id"])
    assert all(f"  {m} — " in body for m in tiletum.legal_moves(now))
    # a reply from that answer plays
    legal = tiletum.legal_moves(now)
    assert post_inbound(c, raw_reply(str(answer["Reply-To"]),
                                     "end" if "end" in legal else legal[0])).json["status"] \
        == "applied"
    _, now = svc.load(g["id"])
    while now.actor == 0:  # Ada ends her turn
        legal = tiletum.legal_moves(now)
        svc.submit_for_seat(g["id"], 0, now.version, ["end" if "end" in legal else legal[0]])
        _, now = svc.load(g["id"])
    # now it is Bob's decision: an old reply of Ada's is told whose turn it is, with nothing to reply to
    n = len(sink(mail_env))
    rv = post_inbound(c, raw_reply(old, "end"))
    answer = sink(mail_env)[n]
    assert str(answer["To"]) == "ada@x.test" and "Reply-To" not in answer
    assert "It is now Bob's decision" in text_of(answer)


def test_vacation_by_email_is_confirmed_as_vacation(redis_server, mail_env):
    app = make_app(redis_server.url, MAIL_SECRET="int-secret", INBOUND_SECRET=INBOUND_SECRET)
    c = app.test_client()
    g = c.post("/api/v1/games", json={"seats": [{"name": "Ada", "email": "ada@x.test"}, {"name": "Bob"}],
                                      "options": {"seed": "vacation-mail"}}).json
    to = reply_address("int-secret", "pbem.test", g["id"], 0, 1)
    for line, word in (("vacation on", "vacation on"), ("Vacation OFF", "vacation off")):
        n = len(sink(mail_env))
        rv = post_inbound(c, raw_reply(to, line))
        assert rv.json["status"] == "applied"
        answer = sink(mail_env)[n]
        subject = headline(answer).lower()
        assert word in subject and "played" not in subject, subject
        assert "played" not in text_of(answer).split("\n\n")[1].lower()


def test_answers_have_date_message_id_threading_and_one_click_unsubscribe(redis_server, mail_env):
    app = make_app(redis_server.url, MAIL_SECRET="int-secret", INBOUND_SECRET=INBOUND_SECRET)
    c = app.test_client()
    g = c.post("/api/v1/games", json={"seats": [{"name": "Ada", "email": "ada@x.test"}, {"name": "Bob"}],
                                      "options": {"seed": "headers"}}).json
    to = reply_address("int-secret", "pbem.test", g["id"], 0, 1)
    for body in ("nonsense move", "vacation on"):
        n = len(sink(mail_env))
        raw = raw_reply(to, body)
        post_inbound(c, raw)
        answer = sink(mail_env)[n]
        theirs = email.message_from_bytes(raw)["Message-ID"]
        assert answer["Date"] and answer["Message-ID"].endswith("@pbem.test>")
        assert answer["In-Reply-To"] == theirs and theirs in answer["References"]
        assert answer["List-Unsubscribe"] and answer["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"


def html_of(msg) -> str:
    return msg.get_body(("html",)).get_content()


@pytest.mark.parametrize("form,ignored", [
    ("{move}\n\nThanks,\nAda", ["Thanks,", "Ada"]),            # a sign-off without "-- "
    ("{move}.", []),                                            # a full stop after the move
    ("{move}\n\nGesendet von meinem iPhone", []),               # a phone's signature
    ("  {move} — {words}", []),                                 # the line copied from the email
    ("{move} - {words}!", []),
])
def test_a_reply_as_people_write_it_plays_its_move(redis_server, mail_env, form, ignored):
    """Courtesy around the move does not fail the reply: a sign-off after the moves is ignored,
    and the confirmation says so; trailing punctuation and a copied description are dropped."""
    from tiletum.describe import describe
    app = make_app(redis_server.url, MAIL_SECRET="int-secret", INBOUND_SECRET=INBOUND_SECRET)
    c = app.test_client()
    g = c.post("/api/v1/games", json={"seats": [{"name": "Ada", "email": "ada@x.test"}, {"name": "Bob"}],
                                      "options": {"seed": "courtesy"}}).json
    _, state = app.extensions["tablepost.service"].load(g["id"])
    move = next(m for m in tiletum.legal_moves(state) if m.startswith("take"))
    body = form.format(move=move, words=describe(state, tiletum.parse(move)))
    rv = post_inbound(c, raw_reply(reply_address("int-secret", "pbem.test", g["id"], 0, 1), body))
    assert rv.json["status"] == "applied", rv.json
    assert c.get(f"/api/v1/games/{g['id']}/events").json["events"][-1]["move"] == move
    answer = sink(mail_env)[-1]
    assert headline(answer) == f"Played {move}. Your move again."
    said = text_of(answer)
    assert ("Not read as moves, and ignored" in said) == bool(ignored)
    assert all(f"\u201c{line}\u201d" in said for line in ignored)


@pytest.mark.parametrize("body,failing", [
    ("Thanks for the game!\ntake G4", "Thanks for the game!"),   # no move read yet: never skipped
    ("take Z9 — whatever", "take Z9 — whatever"),                 # quoted as written
])
def test_a_reply_whose_lines_fail_gets_the_styled_explanation(redis_server, mail_env, body, failing):
    """A line that is no move before any move was read fails the reply (nothing is guessed), and
    the answer is the styled error email: the line as written, why, the seat's name, the legal
    moves and a legal example, in the game's thread; no version numbers."""
    app = make_app(redis_server.url, MAIL_SECRET="int-secret", INBOUND_SECRET=INBOUND_SECRET)
    c = app.test_client()
    g = c.post("/api/v1/games", json={"seats": [{"name": "Ada", "email": "ada@x.test"}, {"name": "Bob"}],
                                      "options": {"seed": "styled-error"}}).json
    rv = post_inbound(c, raw_reply(reply_address("int-secret", "pbem.test", g["id"], 0, 1), body))
    assert rv.json["status"] == "rejected"
    assert c.get(f"/api/v1/games/{g['id']}").json["version"] == 1, "nothing played"
    answer = sink(mail_env)[-1]
    assert str(answer["Subject"]) == f"Re: Tiletum with Bob (game {g['id']})"
    assert headline(answer) == f"Not played: \u201c{failing}\u201d is not a move you can play now."
    text, html = text_of(answer), html_of(answer)
    assert "Hello Ada," in text and f"> {failing}" in text and "Why: " in text
    _, state = app.extensions["tablepost.service"].load(g["id"])
    example = text.split("for example:\n", 1)[1].split("\n", 1)[0].strip()
    assert example in tiletum.legal_moves(state)
    assert "display:none" not in html and "<blockquote" in html, "the styled email: nothing hidden, the line"
    assert "version" not in text.lower()
