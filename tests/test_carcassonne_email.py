"""Carcassonne by email (issue 18), end to end with real parts: a real SMTP server on loopback
(aiosmtpd) stands for the players' mailboxes, a real Celery worker sends the turn emails through
the game interface's email surface (``games.Game.email_*``), and the inbound SMTP listener takes
the replies. Two players play a whole game, start to final scoring, by replying with a placement
from the email (and now and then a follower spot it lists); bad replies get a clear answer and
change nothing; a reply from another address plays nothing."""
from __future__ import annotations

import email
import email.policy
import email.utils
import random
import re
import smtplib
import time
from email.message import EmailMessage

import pytest

from carcassonne.pieces import tile_words

from tests.test_pbem_e2e import headline, legal_moves_in, own_redis, pbem, reply  # noqa: F401 (fixtures)

FOLLOWERS = re.compile(r"or add a follower: (.*)$")


def placements_in(msg: EmailMessage) -> dict[str, list[str]]:
    """The email's move rows: placement -> the follower spots it lists for it."""
    text = msg.get_body(("plain",)).get_content()
    rows = {}
    for line in text.splitlines():
        moves = legal_moves_in_line(line)
        if moves:
            m = FOLLOWERS.search(line)
            rows[moves] = [s.strip() for s in m.group(1).split(",")] if m else []
    return rows


def legal_moves_in_line(line: str) -> str | None:
    fake = EmailMessage()
    fake.set_content(line + "\n")
    found = legal_moves_in(fake)
    return found[0] if found else None


def new_game(app, seed: str) -> str:
    rv = app.test_client().post("/api/v1/games", json={"game": "carcassonne", "seats": [
        {"name": "Ada", "email": "ada@players.test"}, {"name": "Bob", "email": "bob@players.test"}],
        "options": {"seed": seed}})
    assert rv.status_code == 201, rv.json
    return rv.json["id"]


@pytest.mark.long(15)
def test_a_two_player_carcassonne_game_entirely_by_email(pbem):  # noqa: F811
    app, boxes, mailin_port = pbem
    gid = new_game(app, "carc-by-email")
    seed = app.extensions["tablepost.service"].store.seed(gid)
    rng = random.Random(7)
    handled = replies = followers = 0
    deadline = time.monotonic() + 420
    while True:
        boxes.wait_for(handled + 1, timeout=60)
        msg = boxes.messages[handled]
        handled += 1
        subject = str(msg["Subject"])
        other = 'Bob' if msg['To'] == 'ada@players.test' else 'Ada'
        assert subject.removeprefix("Re: ") == f"Carcassonne with {other} (game {gid})", subject
        body = msg.get_body(("plain",)).get_content()
        html = msg.get_body(("html",))
        html = html.get_content() if html is not None else ""
        assert seed not in body and seed not in html, "the seed was mailed"
        if headline(msg).startswith("Game over"):
            if sum(1 for m in boxes.messages if headline(m).startswith("Game over")) == 2:
                break
            continue
        rows = placements_in(msg)
        if not rows:
            continue  # an answer that asks nothing
        assert "Your tile to place:" in body and "/board.png?v=" not in html
        assert html.count('<img src="cid:') == 2, "the board and the tile in hand, inline"
        place = rng.choice(sorted(rows))
        move = place
        if rows[place] and rng.random() < 0.4:
            move = f"{place} {rng.choice(rows[place])}"
            followers += 1
        reply(mailin_port, msg, str(msg["To"]), move.upper() if rng.random() < 0.1 else move)  # tolerant
        replies += 1
        assert time.monotonic() < deadline, "the game by email did not finish in time"
    c = app.test_client()
    summary = c.get(f"/api/v1/games/{gid}").json
    assert summary["status"] == "finished" and summary["phase"] == "over"
    events = c.get(f"/api/v1/games/{gid}/events").json["events"]
    played = [e for e in events if e["type"] == "MovePlayed"]
    assert len(played) == replies and not any(e.get("by") for e in played), "every move came by email"
    assert followers > 5 and any(len(e["move"].split()) == 5 for e in played)
    # exactly one turn email per turn: each move hands the tile to the other seat
    turns = {p: sum(1 for m in boxes.messages if str(m["To"]) == p and headline(m) == "Your turn.")
             for p in ("ada@players.test", "bob@players.test")}
    assert turns == {"ada@players.test": sum(1 for e in played if e["seat"] == 0),
                     "bob@players.test": sum(1 for e in played if e["seat"] == 1)}
    over = [m for m in boxes.messages if headline(m).startswith("Game over")]
    assert all("points" in m.get_body(("plain",)).get_content() for m in over)


def test_bad_carcassonne_replies_get_a_clear_answer_and_change_nothing(pbem):  # noqa: F811
    app, boxes, mailin_port = pbem
    c = app.test_client()
    gid = new_game(app, "carc-bad-replies")
    boxes.wait_for(1)
    turn = boxes.messages[0]
    assert str(turn["To"]) == "ada@players.test"
    events_before = c.get(f"/api/v1/games/{gid}/events").json["events"]

    def answer_to(body: str, frm: str = "ada@players.test") -> EmailMessage:
        n = len(boxes.messages)
        out = EmailMessage()
        out["From"], out["To"] = frm, turn["Reply-To"]
        out["Subject"] = "Re: your turn"
        out["Message-ID"] = email.utils.make_msgid(domain="player.test")
        out.set_content(body)
        with smtplib.SMTP("127.0.0.1", mailin_port, timeout=10) as s:
            s.send_message(out)
        boxes.wait_for(n + 1)
        return boxes.messages[n]

    gibberish = answer_to("please put it somewhere nice")
    text = gibberish.get_body(("plain",)).get_content()
    assert (str(gibberish["Subject"]) == f"Re: Carcassonne with Bob (game {gid})"
            and headline(gibberish).startswith("Not played"))
    assert "please put it somewhere nice" in text and "place " in text   # the line, and the legal rows
    illegal = answer_to("place 40,40 r0")     # nowhere near the board
    text = illegal.get_body(("plain",)).get_content()
    assert "> place 40,40 r0" in text and "or add a follower" in text
    # Bob answering Ada's email plays nothing
    n = len(boxes.messages)
    out = EmailMessage()
    out["From"], out["To"] = "bob@players.test", turn["Reply-To"]
    out["Subject"] = "Re: your turn"
    out["Message-ID"] = email.utils.make_msgid(domain="player.test")
    out.set_content(sorted(placements_in(turn))[0])
    with smtplib.SMTP("127.0.0.1", mailin_port, timeout=10) as s:
        s.send_message(out)
    time.sleep(2)
    assert c.get(f"/api/v1/games/{gid}/events").json["events"] == events_before, "nothing changed"
    assert all(str(m["To"]) != "bob@players.test" or "played" not in headline(m).lower()
               for m in boxes.messages[n:])
    # a good reply plays
    good = answer_to(sorted(placements_in(turn))[0])
    assert c.get(f"/api/v1/games/{gid}").json["version"] == 2
    assert good is not None


def test_a_carcassonne_turn_email_can_be_played_from_the_email_alone(redis_client):
    """What a player needs to reply without opening the game: the tile in hand in its four turns,
    the board numbered as the notation counts and the cells where the tile fits marked with their
    coordinates, and an example that is a legal move now, with no pointer to a repository file."""
    import games
    from application.board_svg import email_pictures
    from application.game_service import GameService
    from application.store import EventStore
    from mail.board_png import png_width
    from mail.mailconfig import MailConfig
    from mail.notify import Notifier
    from mail.outbox import Outbox
    svc = GameService(EventStore(redis_client), allow_seeded_games=True)
    notifier = Notifier(svc, Outbox(redis_client, None),
                        MailConfig(secret="s", domain="pbem.test", from_addr="pbem@pbem.test", public_url="http://x"))
    g = svc.create_game([{"name": "Ada", "email": "ada@x.test"}, {"name": "Bob", "email": "bob@x.test"}],
                        {"seed": "carc-email-alone"}, game="carcassonne")
    meta, state = svc.load(g["id"])
    msg = email.message_from_bytes(notifier.turn_message(g["id"], meta, state, 0).as_bytes(),
                                   policy=email.policy.default)     # as a mail client reads it
    text = msg.get_body(("plain",)).get_content()
    html = msg.get_body(("html",)).get_content()
    legal = [m for m, _ in games.CARCASSONNE.legal_moves(state)]
    example = text.split("for example:\n", 1)[1].split("\n", 1)[0].strip()
    assert example in legal and len(example.split()) > 3, "a legal move, with a follower"
    assert f"<code>{example}</code>" in html
    assert "docs/" not in text + html and ".md" not in text + html
    # the pictures: the board with its coordinates and the legal cells, and the tile in hand
    pictures = {p["Content-ID"].strip("<>").split(".")[0]: p.get_payload(decode=True)
                for p in msg.walk() if p.get_content_type() == "image/png"}
    assert set(pictures) == {"board", "tile"} and all(png_width(p) <= 800 for p in pictures.values())
    (_, board_alt, board), (_, tile_alt, tile) = email_pictures(meta, state, 0)
    cells = {tuple(m.split()[1].split(",")) for m in legal}
    for x, y in cells:
        assert f'class="fit" data-x="{x}" data-y="{y}"' in board and f">{x},{y}</text>" in board
    xs = sorted({int(x) for x, _ in cells})
    assert all(f">{x}</text>" in board for x in range(xs[0], xs[-1] + 1)), "the columns are numbered"
    assert ">r0</text>" in tile and ">r270</text>" in tile
    assert f"tile {state.tile}" not in tile and tile_words(state.tile, 0) in tile   # words, not its letter
    assert f'alt="{tile_alt}"' in html and "fits" in board_alt
