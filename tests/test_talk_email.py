"""The table talk by email (issue 41), end to end with real parts: a real SMTP server on loopback for
the players' mailboxes, a real Celery worker with beat (its ``workers.sweep_talk``), and the inbound
SMTP listener. A message posted over the API (as the page does) reaches the other seat by email; a
reply to that email reaches the thread (the page reads it); a reply with a move and a ``Message:``
line plays the move and posts the message, which reaches the other seat by email too."""
from __future__ import annotations

import time

import pytest

from application.dashboard import mark_verified

from tests.test_pbem_e2e import headline, legal_moves_in, own_redis, pbem, reply, text_of  # noqa: F401

API = "/api/v1/games"


def _html(msg) -> str:
    return msg.get_body(("html",)).get_content()


@pytest.mark.mail_env(TABLEPOST_MAIL_PICTURES="0", TABLEPOST_TALK_EMAIL_SECONDS="0")
def test_messages_by_page_and_by_email(pbem):  # noqa: F811
    app, boxes, mailin_port = pbem
    app.config["TALK_EMAIL_SECONDS"] = 0   # as the workers' TABLEPOST_TALK_EMAIL_SECONDS: no delay here
    c = app.test_client()
    rv = c.post(API, json={"game": "carcassonne", "seats": [
        {"name": "Ada", "email": "ada@players.test"}, {"name": "Bob", "email": "bob@players.test"}]})
    assert rv.status_code == 201, rv.json
    gid = rv.json["id"]
    # both have acted on our emails before (else the limit on emailing strangers allows one email per
    # game: docs/pbem.md, "Email by consent")
    for address in ("ada@players.test", "bob@players.test"):
        mark_verified(app.extensions["tablepost.service"].store.r, address)
    ada, bob = ({"Authorization": f"Bearer {s['token']}"} for s in rv.json["seats"])
    turn = boxes.wait_until(lambda m: str(m["To"]) == "ada@players.test" and "Your tile" in text_of(m))[0]
    assert 'add a line "Message:"' in text_of(turn), "every turn email's footer says the rule"
    # Bob writes on the page: Ada's turn email went already, so an email of its own tells her
    rv = c.post(f"{API}/{gid}/messages", json={"text": "Hello <b>Ada</b> & good luck"}, headers=bob)
    assert rv.status_code == 201, rv.json
    told = boxes.wait_until(
        lambda m: str(m["To"]) == "ada@players.test" and "wrote to the table" in headline(m))
    assert len(told) == 1
    assert "Bob: Hello <b>Ada</b> & good luck" in text_of(told[0])
    assert "Hello &lt;b&gt;Ada&lt;/b&gt; &amp; good luck" in _html(told[0]), "escaped in HTML"
    assert "<b>Ada</b>" not in _html(told[0])
    assert "bob@players.test" not in told[0].as_string(), "no address of another player shows"
    assert not [m for m in boxes.messages if str(m["To"]) == "bob@players.test"
                and "wrote to the table" in headline(m)], "the author is not told their own words"
    # Ada answers the message email: all of it is her message, nothing is played
    reply(mailin_port, told[0], "ada@players.test", "Thanks Bob!")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        said = [m["text"] for m in c.get(f"{API}/{gid}/messages", headers=bob).json["messages"]]
        if "Thanks Bob!" in said:
            break
        time.sleep(0.2)
    assert said == ["Hello <b>Ada</b> & good luck", "Thanks Bob!"]
    assert c.get(f"{API}/{gid}").json["version"] == 1, "nothing played"
    # a move and a message in one reply to her turn email: the move is played, the message posted
    move = legal_moves_in(turn)[0]
    reply(mailin_port, turn, "ada@players.test", f"{move}\nMessage: Your move, Bob.")
    bobs = boxes.wait_until(
        lambda m: str(m["To"]) == "bob@players.test" and "Ada: Your move, Bob." in text_of(m))
    assert bobs and c.get(f"{API}/{gid}").json["version"] > 1
    thread = c.get(f"{API}/{gid}/messages", headers=ada).json["messages"]
    assert "Your move, Bob." in [m["text"] for m in thread]


@pytest.mark.mail_env(TABLEPOST_MAIL_PICTURES="0", TABLEPOST_TALK_EMAIL_SECONDS="0")
def test_no_flood_by_message_emails_and_a_refused_message_is_said(pbem):  # noqa: F811
    """An attacker's seat posting all it may cannot flood the others: each gets at most
    EMAILS_PER_DAY message emails from the game a day (one with the daily digest, none with no
    emails); and a reply whose moves are played while its message is refused (the hour's messages
    spent) gets a confirmation that says so in words."""
    from application.messages import EMAILS_PER_DAY, PER_HOUR, TableTalk
    from application.notifications import set_preference
    app, boxes, mailin_port = pbem
    app.config["TALK_EMAIL_SECONDS"] = 0
    c = app.test_client()
    people = ("ada", "bob", "cy", "di")
    rv = c.post(API, json={"game": "carcassonne", "seats": [
        {"name": n.title(), "email": f"{n}@players.test"} for n in people]})
    assert rv.status_code == 201, rv.json
    gid = rv.json["id"]
    svc = app.extensions["tablepost.service"]
    r = svc.store.r
    for n in people:
        mark_verified(r, f"{n}@players.test")
    set_preference(r, "cy@players.test", "none")
    set_preference(r, "di@players.test", "digest")
    bob = {"Authorization": f"Bearer {rv.json['seats'][1]['token']}"}
    turn = boxes.wait_until(lambda m: str(m["To"]) == "ada@players.test" and "Your tile" in text_of(m))[0]

    def told(who: str) -> list:
        return [m for m in list(boxes.messages) if str(m["To"]) == f"{who}@players.test"
                and "wrote to the table" in headline(m)]

    for i in range(EMAILS_PER_DAY):
        assert c.post(f"{API}/{gid}/messages", json={"text": f"spam {i}"}, headers=bob).status_code == 201
        boxes.wait_until(lambda m, i=i: str(m["To"]) == "ada@players.test" and f"Bob: spam {i}" in text_of(m))
    assert c.post(f"{API}/{gid}/messages", json={"text": "spam more"}, headers=bob).status_code == 201
    time.sleep(8)   # four sweeps (TABLEPOST_SWEEP_SECONDS=2) of the beat
    assert len(told("ada")) == EMAILS_PER_DAY, [text_of(m) for m in told("ada")]
    assert not [m for m in told("ada") if "spam more" in text_of(m)], "the day's message emails are spent"
    assert len(told("di")) == 1, "the daily digest: one message email a game a day"
    assert told("cy") == [], "no emails: no message email"
    # Ada's hour of messages is spent; her reply plays its move and says the message was not posted
    talk = TableTalk(svc)
    for i in range(PER_HOUR):
        talk.post_for_seat(gid, 0, f"mine {i}")
    move = legal_moves_in(turn)[0]
    reply(mailin_port, turn, "ada@players.test", f"{move}\nMessage: one too many")
    done = boxes.wait_until(lambda m: str(m["To"]) == "ada@players.test" and "Played:" in headline(m))
    body = " ".join(text_of(done[0]).split())
    assert "Your moves were played; your message was not posted: at most 30 messages an hour" in body, body
    assert c.get(f"{API}/{gid}").json["version"] > 1
    said = [m["text"] for m in c.get(f"{API}/{gid}/messages", headers=bob).json["messages"]]
    assert "one too many" not in said
