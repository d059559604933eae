"""The Pillars of the Earth by email, with real parts: a real SMTP server on loopback (aiosmtpd)
stands for the players' mailboxes, a real Celery worker sends the turn emails through the game
interface's email texts (``games.PILLARS.email_*``), and the inbound SMTP listener takes the
replies. Two players play the first turns of a game by replying with a move the email lists; a
bad reply gets a clear answer and changes nothing. A whole game by email is not played here (it
would take minutes): the move path is the same for every move, and whole games are played over
REST (tests/test_pillars_api.py)."""
from __future__ import annotations

import email
import email.policy
import random
import time

from tests.test_pbem_e2e import headline, legal_moves_in, own_redis, pbem, reply  # noqa: F401 (fixtures)

TITLE = "The Pillars of the Earth"


def new_game(app, seed: str) -> str:
    rv = app.test_client().post("/api/v1/games", json={"game": "pillars", "seats": [
        {"name": "Ada", "email": "ada@players.test"}, {"name": "Bob", "email": "bob@players.test"}],
        "options": {"seed": seed}})
    assert rv.status_code == 201, rv.json
    return rv.json["id"]


def test_the_first_turns_of_a_pillars_game_by_email(pbem):  # noqa: F811
    app, boxes, mailin_port = pbem
    c = app.test_client()
    gid = new_game(app, "pil-by-email")
    seed = app.extensions["tablepost.service"].store.seed(gid)
    rng = random.Random(3)
    handled = replies = 0
    played: list[str] = []
    deadline = time.monotonic() + 120
    bad_sent = False
    while replies < 6:
        boxes.wait_for(handled + 1, timeout=60)
        msg = boxes.messages[handled]
        handled += 1
        other = "Bob" if msg["To"] == "ada@players.test" else "Ada"
        subject = str(msg["Subject"])
        assert subject.removeprefix("Re: ") == f"{TITLE} with {other} (game {gid})", subject
        body = msg.get_body(("plain",)).get_content()
        html = msg.get_body(("html",)).get_content()
        assert seed not in body and seed not in html, "the seed was mailed"
        moves = legal_moves_in(msg)
        if not moves:
            continue   # an answer that asks nothing
        assert headline(msg).startswith("Your turn to take a resource card"), headline(msg)
        assert "Round 1 of 6." in body and "Your craftsmen:" in body and "The others:" in body
        assert html.count('<img src="cid:') == 1, "the board, inline"
        if not bad_sent:   # a move that is no move: a clear answer, nothing played
            bad_sent = True
            version = c.get(f"/api/v1/games/{gid}").json["version"]
            reply(mailin_port, msg, str(msg["To"]), "take nothing")
            boxes.wait_for(handled + 1, timeout=60)
            refusal = boxes.messages[handled]
            handled += 1
            text = refusal.get_body(("plain",)).get_content()
            assert headline(refusal).startswith("Not played") and "take nothing" in text, text
            assert c.get(f"/api/v1/games/{gid}").json["version"] == version
        move = rng.choice([m for m in moves if m != "pass"])
        reply(mailin_port, msg, str(msg["To"]), move.upper() if replies == 2 else move)   # case-tolerant
        played.append(move)
        replies += 1
        assert time.monotonic() < deadline, "the turns by email did not finish in time"
    # the last reply is played once the worker takes it
    for _ in range(100):
        events = c.get(f"/api/v1/games/{gid}/events").json["events"]
        if len(events) == 1 + replies:
            break
        time.sleep(0.1)
    assert [e["move"] for e in events[1:]] == played and not any(e.get("by") for e in events[1:])
    assert [e["seat"] for e in events[1:]] == [0, 1] * 3, "phase I goes round the table"


def test_a_pillars_turn_email_can_be_played_from_the_email_alone(redis_client):
    """What a player needs to reply without opening the game: where the game stands, every legal
    move in notation and words, an example that is a legal move now, and the board picture."""
    import games
    from application.game_service import GameService
    from application.store import EventStore
    from mail.mailconfig import MailConfig
    from mail.notify import Notifier
    from mail.outbox import Outbox
    svc = GameService(EventStore(redis_client), allow_seeded_games=True)
    notifier = Notifier(svc, Outbox(redis_client, None),
                        MailConfig(secret="s", domain="pbem.test", from_addr="pbem@pbem.test", public_url="http://x"))
    g = svc.create_game([{"name": "Ada", "email": "ada@x.test"}, {"name": "Bob", "email": "bob@x.test"}],
                        {"seed": "pil-email-alone"}, game="pillars")
    meta, state = svc.load(g["id"])
    msg = email.message_from_bytes(notifier.turn_message(g["id"], meta, state, 0).as_bytes(),
                                   policy=email.policy.default)
    text = msg.get_body(("plain",)).get_content()
    html = msg.get_body(("html",)).get_content()
    legal = [m for m, _ in games.PILLARS.legal_moves(state)]
    assert legal_moves_in(msg) == legal
    example = text.split("for example:\n", 1)[1].split("\n", 1)[0].strip()
    assert example in legal and f"<code>{example}</code>" in html
    assert "You have 2 VP, 20 gold and 0 stone, 0 wood, 0 sand, 0 metal." in text
    assert "Bob 2 VP, 21 gold" in text and "docs/" not in text + html and ".md" not in text + html
    pictures = [p for p in msg.walk() if p.get_content_type() == "image/png"]
    assert len(pictures) == 1 and pictures[0]["Content-ID"].strip("<>").startswith("board")
