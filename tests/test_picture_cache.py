"""Issue 40, "pictures that cost little": each game version's picture is rendered once per view
and reused for every email of that version, by every worker process (a cache in the project's
real Redis, keyed by game, version and the digest of the drawing); seats whose pictures differ get
their own render, and no seat is ever given a picture drawn for another. Real Redis, a real SMTP
server on loopback (tests/test_pbem_e2e.Mailboxes), the real renderer."""
from __future__ import annotations

import io

import email
import email.policy

import pytest
from PIL import Image

from api.redis_server import free_port
from application.board_svg import email_pictures
from application.game_service import GameService
from application.store import EventStore
from mail import board_png
from mail.mailconfig import MailConfig
from mail.notify import Notifier
from mail.outbox import Outbox
from mail.transports import SmtpTransport
from tests.test_pbem_e2e import Mailboxes

CFG = MailConfig(secret="s", domain="pbem.test", from_addr="pbem@pbem.test", public_url="http://pbem.test")


@pytest.fixture()
def box():
    b = Mailboxes()
    b.controller.start()
    yield b
    b.controller.stop()


def notifier_of(redis_client, box) -> Notifier:
    """A notifier as one worker process has it (its own in-process cache is emptied: a fresh
    process), sending to the real SMTP server."""
    board_png.cache_clear()
    svc = GameService(EventStore(redis_client), allow_seeded_games=True)
    return Notifier(svc, Outbox(redis_client, SmtpTransport(f"smtp://127.0.0.1:{box.port}")), CFG)


def two(a: str, b: str) -> list[dict]:
    return [{"name": "Ada", "email": f"{a}@pc.test"}, {"name": "Bob", "email": f"{b}@pc.test"}]


def pictures_of(msg) -> dict[str, bytes]:
    msg = email.message_from_bytes(msg.as_bytes(), policy=email.policy.default)
    return {p["Content-ID"].strip("<>").split(".")[0]: p.get_payload(decode=True)
            for p in msg.walk() if p.get_content_type() == "image/png"}


def test_one_render_serves_every_email_of_a_version_across_processes(redis_client, box):
    """The turn email and a reminder of one version, and the pictures two more worker processes
    would send: each picture is rendered once (by the first), the others take it from Redis, and
    every email carries the same picture, of that version."""
    first = notifier_of(redis_client, box)
    g = first.service.create_game(two("ada", "bob"),
                                  {"seed": "picture-cache-1", "time_control": {"reminders_hours": []}},
                                  game="tiletum")
    gid = g["id"]
    meta, state = first.service.load(gid)
    k = len(email_pictures(meta, state, 0))   # the table, and a Tiletum seat's own board (for phones)
    assert first.notify(gid, 1) == 1
    assert board_png.cache_info().renders == k
    # two more processes: a reminder's pictures each, same version (a reminder sends them as a
    # turn email does; the reminder's own rules, one per point, are tests/test_inbox_respect.py's)
    assert first.remind(gid, 0, 1, 24) == 1
    boards = []
    for n in (2, 3):
        worker = notifier_of(redis_client, box)
        boards.append({p.name: p.png for p in worker.pictures(gid, meta, state, 0)}["board"])
        info = board_png.cache_info()
        assert (info.renders, info.shared) == (0, k), f"process {n} rendered a picture again: {info}"
    box.wait_for(2)
    boards += [pictures_of(m)["board"] for m in box.messages]
    assert len(boards) == 4 and len(set(boards)) == 1, "every email of the version carries one picture"
    meta, state = first.service.load(gid)
    svg = next(s for name, _, s in email_pictures(meta, state, 0) if name == "board")
    assert board_png.png_width(boards[0]) == 360, "laid out for a phone's email column"
    assert boards[0] == board_png.svg_to_png(svg, 360), "and it is that version's board, as rendered afresh"
    keys = list(redis_client.scan_iter(f"mail:png:{{{gid}}}:*"))
    assert len(keys) == k and all(key.decode().startswith(f"mail:png:{{{gid}}}:1:") for key in keys)
    assert all(0 < redis_client.ttl(key) <= board_png.cache_seconds() for key in keys), "every entry expires"


def test_a_new_version_is_drawn_anew(redis_client, box):
    """The cache never hands out an older position: the next version is rendered again."""
    n = notifier_of(redis_client, box)
    g = n.service.create_game(two("ada2", "bob2"), {"seed": "picture-cache-2"}, game="tiletum")
    meta, state = n.service.load(g["id"])
    k = len(email_pictures(meta, state, 0))
    before = n.pictures(g["id"], meta, state, 0)[0].png
    import tiletum
    move = next(m for m in tiletum.legal_moves(state) if m.startswith("take"))
    n.service.submit_for_seat(g["id"], 0, state.version, [move])
    meta, after_state = n.service.load(g["id"])
    after = n.pictures(g["id"], meta, after_state, 0)[0].png
    assert board_png.cache_info().renders == 2 * k and after != before


def test_seats_with_different_views_get_their_own_pictures(redis_client, box):
    """Carcassonne: the seat to play sees the cells where its tile fits and the tile in hand; the
    other seat's picture shows neither. Each view is rendered once, and a seat's email carries
    exactly the picture of its own drawing, whichever seat's picture was cached first."""
    n = notifier_of(redis_client, box)
    g = n.service.create_game(two("ada3", "bob3"), {"seed": "picture-cache-3"}, game="carcassonne")
    gid = g["id"]
    meta, state = n.service.load(gid)
    actor, other = state.actor, 1 - state.actor
    drawn = {seat: {name: svg for name, _, svg in email_pictures(meta, state, seat)} for seat in (0, 1)}
    assert 'class="fit"' in drawn[actor]["board"] and 'class="fit"' not in drawn[other]["board"]
    assert set(drawn[other]) == {"board"}, "the other seat is not shown the tile in hand"
    mine = {p.name: p.png for p in n.pictures(gid, meta, state, actor)}
    # another process, for the other seat: its own render, not the actor's cached picture
    n2 = notifier_of(redis_client, box)
    theirs = {p.name: p.png for p in n2.pictures(gid, meta, state, other)}
    assert board_png.cache_info().renders == 1, "the other seat's board is a render of its own"
    assert set(theirs) == {"board"} and theirs["board"] != mine["board"]
    for seat, got in ((other, theirs), (actor, mine)):
        assert got["board"] == board_png.svg_to_png(drawn[seat]["board"], board_png.png_width(got["board"]))
    assert len(list(redis_client.scan_iter(f"mail:png:{{{gid}}}:*"))) == 3, "two boards and the tile"
    # each view is reused afterwards, by a third process, for either seat
    n3 = notifier_of(redis_client, box)
    assert n3.pictures(gid, meta, state, other)[0].png == theirs["board"]
    assert {p.name: p.png for p in n3.pictures(gid, meta, state, actor)} == mine
    assert board_png.cache_info().renders == 0


def test_a_planted_cache_entry_is_only_ever_served_for_its_own_drawing(redis_client, box):
    """Hostile or stale contents under another view's key never reach a seat: the key is the
    digest of the drawing, and what is not a PNG is ignored and rendered again."""
    n = notifier_of(redis_client, box)
    g = n.service.create_game(two("ada4", "bob4"), {"seed": "picture-cache-4"}, game="tiletum")
    meta, state = n.service.load(g["id"])
    svg = next(s for name, _, s in email_pictures(meta, state, 0) if name == "board")
    key = board_png.redis_key(g["id"], state.version, board_png.view_key(svg, int(board_png.svg_width(svg))))
    redis_client.set(key, b"not a picture", ex=60)
    got = {p.name: p.png for p in n.pictures(g["id"], meta, state, 0)}
    png = got["board"]
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and board_png.cache_info().renders == len(got)
    assert redis_client.get(key) == png, "the render replaced it"


def test_a_redis_that_does_not_answer_costs_a_render_never_the_picture(redis_client, box, caplog):
    """Fault injection: the cache's Redis refuses connections; the email still has its picture."""
    import redis
    n = notifier_of(redis_client, box)
    g = n.service.create_game(two("ada5", "bob5"), {"seed": "picture-cache-5"}, game="tiletum")
    meta, state = n.service.load(g["id"])
    dead = redis.Redis(host="127.0.0.1", port=free_port(), socket_connect_timeout=0.5)
    svg = next(s for name, _, s in email_pictures(meta, state, 0) if name == "board")
    png = board_png.board_png(g["id"], state.version, lambda: svg, natural=True, redis=dead)
    assert png is not None and png[:8] == b"\x89PNG\r\n\x1a\n"
    assert "could not read the picture cache" in caplog.text


def test_a_turn_emails_pictures_cost_one_read_and_one_write(redis_client, box):
    """A Tiletum turn email has two pictures: they are looked up in one round trip to Redis and the
    renders shared in one more (not one of each per picture); a second process reads both in one."""
    sent: list[list[str]] = []

    class Counting:
        """The real client, each round trip's commands written down."""
        def __init__(self, real):
            self.real = real

        def mget(self, keys):
            sent.append(["MGET"] * len(keys))
            return self.real.mget(keys)

        def pipeline(self, transaction=True):
            real, names = self.real.pipeline(transaction=transaction), []

            class Pipe:
                def set(self, *a, **kw):
                    names.append("SET")
                    real.set(*a, **kw)

                def execute(self):
                    sent.append(names)
                    return real.execute()
            return Pipe()

    n = notifier_of(redis_client, box)
    g = n.service.create_game(two("ada7", "bob7"), {"seed": "picture-cache-7"}, game="tiletum")
    meta, state = n.service.load(g["id"])
    drawn = [(f"email-{name}:0", svg) for name, _, svg in email_pictures(meta, state, 0)]
    assert len(drawn) == 2
    first = board_png.board_pngs(g["id"], state.version, drawn, natural=True, redis=Counting(redis_client))
    assert sent == [["MGET", "MGET"], ["SET", "SET"]] and all(first)
    board_png.cache_clear()   # another process
    sent.clear()
    again = board_png.board_pngs(g["id"], state.version, drawn, natural=True, redis=Counting(redis_client))
    assert sent == [["MGET", "MGET"]] and again == first and board_png.cache_info().renders == 0


def test_the_cache_is_bounded(redis_client, box, monkeypatch):
    """A picture larger than the bound is not kept in Redis; a bad TTL setting is refused clearly."""
    monkeypatch.setattr(board_png, "MAX_CACHED_BYTES", 100)
    n = notifier_of(redis_client, box)
    g = n.service.create_game(two("ada6", "bob6"), {"seed": "picture-cache-6"}, game="tiletum")
    meta, state = n.service.load(g["id"])
    assert n.pictures(g["id"], meta, state, 0)
    assert list(redis_client.scan_iter(f"mail:png:{{{g['id']}}}:*")) == []
    with pytest.raises(ValueError, match="TABLEPOST_PICTURE_CACHE_SECONDS"):
        board_png.cache_seconds({"TABLEPOST_PICTURE_CACHE_SECONDS": "soon"})
    with pytest.raises(ValueError, match="at least 1"):
        board_png.cache_seconds({"TABLEPOST_PICTURE_CACHE_SECONDS": "0"})


def test_the_pages_board_png_is_rendered_once_per_version_for_every_api_process(redis_client, box, app):
    """``GET /api/v1/games/{id}/board.png`` is the page's board (the whole board: a Tiletum turn
    email's board is the shared table laid out for a phone), rendered once per version: a second
    API process takes the first one's render from Redis."""
    n = notifier_of(redis_client, box)
    g = n.service.create_game(two("ada7", "bob7"), {"seed": "picture-cache-7"}, game="tiletum")
    meta, state = n.service.load(g["id"])
    emailed = {p.name: p.png for p in n.pictures(g["id"], meta, state, 0)}["board"]
    board_png.cache_clear()
    first = app.test_client().get(f"/api/v1/games/{g['id']}/board.png")
    assert first.status_code == 200 and first.data != emailed
    assert board_png.png_width(first.data) == 800
    assert board_png.png_width(emailed) == 360, "the email's is the table, for a phone"
    assert Image.open(io.BytesIO(first.data)).height > 600, "the map and every player's board"
    board_png.cache_clear()                        # another API process
    again = app.test_client().get(f"/api/v1/games/{g['id']}/board.png")
    assert again.data == first.data
    assert (board_png.cache_info().renders, board_png.cache_info().shared) == (0, 1)
