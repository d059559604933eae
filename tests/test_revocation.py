"""Issue 13, "Pages and tokens": seat tokens, seat link tokens and dashboard keys are revoked and
re-issued one at a time. The old credential is refused right after, the new one works, and no
other credential changes; new links go by email only. Real Redis, real HTTP, real SMTP."""
from __future__ import annotations

import re
from urllib.parse import unquote

import pytest

from application import links
from application.dashboard import dashboard_key_for
from application.game_service import GameService
from application.store import EventStore
from application.tournament_service import TournamentService
from conftest import LiveServer, make_app
from mail.mailconfig import MailConfig
from mail.notify import Notifier
from mail.outbox import Outbox
from mail.transports import SmtpTransport
from test_api_errors import API, Http, problem
from tests.test_pbem_e2e import Mailboxes

SENT: list = []


@pytest.fixture(scope="module")
def server(redis_server):
    app = make_app(redis_server.url, SEND_TASK=lambda name, args,
                   queue: SENT.append((name, list(args), queue)))
    with LiveServer(app) as live:
        live.app = app
        yield live


@pytest.fixture()
def http(server):
    SENT.clear()
    h = Http(server.url)
    yield h
    h.s.close()


@pytest.fixture()
def mailbox(redis_client):
    box = Mailboxes()
    box.controller.start()
    games = GameService(EventStore(redis_client))
    box.notifier = Notifier(games, Outbox(redis_client, SmtpTransport(f"smtp://127.0.0.1:{box.port}")),
                            MailConfig(secret="s", domain="pbem.test", from_addr="t@pbem.test",
                                       public_url="http://pbem.test"))
    yield box
    box.controller.stop()


def three_seats(http, tag: str) -> dict:
    seats = [{"name": "Ann", "email": f"ann-{tag}@rev.test"}, {"name": "Bob", "email": f"bob-{tag}@rev.test"},
             {"name": "Cy"}]
    game = http.ok("POST", API, json={"seats": seats}, status=201)
    game["tokens"] = [s["token"] for s in game["seats"]]
    return game


def works(http, gid: str, token: str) -> bool:
    r = http.get(f"{API}/{gid}/legal-moves", token)
    assert r.status_code in (200, 401), r.text
    return r.status_code == 200


def test_a_seat_token_is_reissued_and_the_old_one_refused_at_once(http, redis_client):
    game = three_seats(http, "tok")
    gid, tokens = game["id"], game["tokens"]
    link1 = links.seat_token(redis_client, gid, 1)
    answer = http.ok("POST", f"{API}/{gid}/seats/1/token", tokens[1])
    assert answer["game"] == gid and answer["seat"] == 1 and answer["token"] not in tokens
    assert not works(http, gid, tokens[1]), "the old seat token is refused right after"
    problem(http.get(f"{API}/{gid}/state", tokens[1]), 401, "unauthorized")
    assert http.ok("GET", f"{API}/{gid}/legal-moves", answer["token"])["seat"] == 1
    assert works(http, gid, tokens[0]) and works(http, gid, tokens[2]), "other seats are untouched"
    assert works(http, gid, link1), "the seat's link token is untouched"
    # the link token may re-issue the seat token too; the old token cannot
    again = http.ok("POST", f"{API}/{gid}/seats/1/token", link1)
    assert not works(http, gid, answer["token"]) and works(http, gid, again["token"])
    problem(http.post(f"{API}/{gid}/seats/1/token", tokens[1]), 401, "unauthorized")


def test_only_the_seat_itself_may_reissue(http):
    game = three_seats(http, "who")
    gid, tokens = game["id"], game["tokens"]
    problem(http.post(f"{API}/{gid}/seats/1/token"), 401, "unauthorized")
    problem(http.post(f"{API}/{gid}/seats/1/token", tokens[0]), 403, "not-your-seat")
    problem(http.post(f"{API}/{gid}/seats/7/token", tokens[0]), 403, "not-your-seat")
    problem(http.post(f"{API}/{gid}/seats/1/link", tokens[2]), 403, "not-your-seat")
    problem(http.post(f"{API}/nope/seats/1/token", tokens[0]), 404, "game-not-found")
    assert all(works(http, gid, t) for t in tokens), "nothing changed"


def test_a_seat_link_is_revoked_and_the_new_one_emailed(http, redis_client, mailbox):
    game = three_seats(http, "link")
    gid, tokens = game["id"], game["tokens"]
    old = [links.seat_token(redis_client, gid, s) for s in range(3)]
    assert all(works(http, gid, t) for t in old)
    answer = http.ok("POST", f"{API}/{gid}/seats/0/link", old[0], status=202)
    assert answer == {"game": gid, "seat": 0, "emailed": True}
    assert "L0." not in str(answer), "the new link is never in the answer"
    assert not works(http, gid, old[0]), "the old link token is refused right after"
    assert works(http, gid, old[1]) and works(http, gid, old[2]), "other seats' links are untouched"
    assert works(http, gid, tokens[0]), "the seat token is untouched"
    assert [m for m in SENT if m[0] != "workers.notify_turn"] == [
        ("workers.send_seat_link", [gid, 0, 1], "email")]
    # the worker's task emails the new link to the seat's address, once
    assert mailbox.notifier.send_seat_link(gid, 0, 1) == 1
    assert mailbox.notifier.send_seat_link(gid, 0, 1) == 0
    mailbox.wait_for(1)
    msg = mailbox.messages[0]
    assert str(msg["To"]) == "ann-link@rev.test" and "new private link" in str(msg["Subject"])
    new = unquote(re.search(r"/play/" + gid + r"#token=(\S+)", msg.get_content()).group(1))
    assert new != old[0] and works(http, gid, new)
    # revoked again before the worker ran: the stale task sends nothing, the newer one does
    http.ok("POST", f"{API}/{gid}/seats/0/link", tokens[0], status=202)
    assert not works(http, gid, new)
    assert mailbox.notifier.send_seat_link(gid, 0, 1) == 0
    # a seat without an email cannot get a new link: 422, and its link keeps working
    problem(http.post(f"{API}/{gid}/seats/2/link", tokens[2]), 422, "no-email")
    assert works(http, gid, old[2])


def test_a_dashboard_key_is_revoked_and_the_new_one_emailed(http, redis_client, mailbox):
    game = three_seats(http, "key")
    ann, bob = "ann-key@rev.test", "bob-key@rev.test"
    key, other = dashboard_key_for(redis_client, ann), dashboard_key_for(redis_client, bob)
    assert http.get("/api/v1/me/games", key).status_code == 200
    answer = http.ok("POST", "/api/v1/me/key", key, status=202)
    assert answer["emailed"] is True and set(answer) == {"player", "emailed"}
    problem(http.get("/api/v1/me/games", key), 401, "unauthorized")
    problem(http.post("/api/v1/me/key", key), 401, "unauthorized")
    assert http.get("/api/v1/me/games", other).status_code == 200, "another player's key is untouched"
    assert works(http, game["id"], links.seat_token(redis_client, game["id"], 0)), "seat links are untouched"
    assert [m for m in SENT if m[0] != "workers.notify_turn"] == [
        ("workers.send_dashboard_link", [answer["player"], 1], "email")]
    assert mailbox.notifier.send_dashboard_link(answer["player"], 1) == 1
    mailbox.wait_for(1)
    msg = mailbox.messages[0]
    assert str(msg["To"]) == ann
    new = unquote(re.search(r"/me#key=(\S+)", msg.get_content()).group(1))
    assert new == dashboard_key_for(redis_client, ann) != key
    assert http.ok("GET", "/api/v1/me/games", new)["player"] == answer["player"]
    problem(http.post("/api/v1/me/key"), 401, "unauthorized")


def test_a_tournament_entrant_still_gets_a_working_token_after_reissuing_a_seat_token(http, server):
    ts: TournamentService = server.app.extensions["tablepost.tournaments"]
    t = ts.create({"name": "Rev", "format": "round_robin", "table_size": 2,
                   "entries": [{"name": "Ann", "email": "ann-t@rev.test"},
                               {"name": "Bob", "email": "bob-t@rev.test"}]})
    tid = t["id"]
    ts.start(tid, t["organizer_token"])
    entry = ts.entry_token(tid, "ann-t@rev.test")
    mine = http.ok("GET", f"/api/v1/tournaments/{tid}/my-games", entry)["games"][0]
    gid, seat = mine["game"], mine["seat"]
    new = http.ok("POST", f"{API}/{gid}/seats/{seat}/token", mine["token"])["token"]
    assert not works(http, gid, mine["token"]) and works(http, gid, new)
    again = http.ok("GET", f"/api/v1/tournaments/{tid}/my-games", entry)["games"][0]
    assert again["token"] != mine["token"] and works(http, gid, again["token"])


def test_a_turn_email_after_revocations_carries_the_current_link_and_key(http, redis_client, mailbox):
    """The turn email reads the seat's and the player's link generations ahead, in one round trip
    with the other reads (mail/notify.py): after both were revoked, its links are the new ones."""
    game = three_seats(http, "turn")
    gid, tokens = game["id"], game["tokens"]
    ann = "ann-turn@rev.test"
    old_link, old_key = links.seat_token(redis_client, gid, 0), dashboard_key_for(redis_client, ann)
    http.ok("POST", f"{API}/{gid}/seats/0/link", tokens[0], status=202)
    http.ok("POST", "/api/v1/me/key", old_key, status=202)
    state = http.ok("GET", f"{API}/{gid}/state", tokens[0])
    assert state["version"] == 1
    assert mailbox.notifier.notify(gid, 1) == 1
    assert mailbox.notifier.notify(gid, 1) == 0, "once"
    mailbox.wait_for(1)
    (msg,) = [m for m in mailbox.messages if str(m["To"]) == ann]
    text = msg.get_body(("plain",)).get_content()
    link = unquote(re.search(r"/play/" + gid + r"#token=(\S+)", text).group(1))
    key = unquote(re.search(r"/me#key=(\S+)", text).group(1))
    assert link == links.seat_token(redis_client, gid, 0) != old_link and works(http, gid, link)
    assert not works(http, gid, old_link)
    assert key == dashboard_key_for(redis_client, ann) != old_key
    assert http.ok("GET", "/api/v1/me/games", key)["player"]
