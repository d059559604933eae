"""Issue 29, "Open games": seats left open, the lobby that lists the games waiting for players, joining
by a one-time email link or a dashboard key, leaving, private games and invitation links, rating
ranges, the abuse limits and the cancellation sweep (docs/lobby.md). Real Redis, real HTTP, real
SMTP on loopback; the worker's sweep runs as Celery runs it, writing its emails to the file
transport."""
from __future__ import annotations

import email
import email.policy
import json
import re
import secrets
import time
from urllib.parse import unquote

import pytest
from conftest import LiveServer, make_app
from test_api_errors import Http, problem

from application import heartbeat, links, waiting
from application.dashboard import dashboard_key_for, is_verified, remember_address
from application.errors import ServiceError
from application.game_service import GameService
from application.lobby import Lobby
from application.players import player_id
from application.rating_service import game_pool, pool_key
from application.store import EventStore
from mail.mailconfig import MailConfig
from mail.notify import Notifier
from mail.outbox import Outbox
from mail.transports import SmtpTransport
from tests.test_pbem_e2e import Mailboxes

GAMES = "/api/v1/games"
LOBBY = "/api/v1/lobby"
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
    box.notifier = Notifier(GameService(EventStore(redis_client)),
                            Outbox(redis_client, SmtpTransport(f"smtp://127.0.0.1:{box.port}")),
                            MailConfig(secret="s", domain="pbem.test", from_addr="t@pbem.test",
                                       public_url="http://pbem.test"))
    yield box
    box.controller.stop()


def addr(who: str) -> str:
    return f"{who}-{secrets.token_hex(4)}@lobby.test"


def open_game(http, players: int = 3, taken: int = 1, game: str = "tiletum", **options) -> dict:
    seats = [{"name": f"Host{i}", "email": addr(f"host{i}")} for i in range(taken)]
    seats += [{"kind": "open"}] * (players - taken)
    return http.ok("POST", GAMES, json={"game": game, "seats": seats, "options": options}, status=201)


def ask(http, gid: str, name: str, address: str, **body) -> dict:
    out = http.ok("POST", f"{LOBBY}/{gid}/join", json={"name": name, "email": address, **body}, status=202)
    assert out == {"game": gid, "status": "pending", "emailed": True}
    return out


def join_token(redis_client, gid: str) -> str:
    """The token of the latest join link the API asked a worker to email."""
    (_, (game, nonce), _), = [m for m in SENT if m[0] == "workers.send_lobby_join"][-1:]
    assert game == gid
    return links.join_token(redis_client, gid, nonce)


def join(http, redis_client, gid: str, name: str, address: str | None = None) -> dict:
    ask(http, gid, name, address or addr(name.lower()))
    return http.ok("POST", f"{LOBBY}/confirm", json={"token": join_token(redis_client, gid)})


def stored(redis_client, gid: str) -> dict[str, bytes]:
    """Every key of the game's slot and its value (what a refused request must not change)."""
    out = {}
    for k in redis_client.scan_iter(match=f"g:{{{gid}}}:*"):
        out[k.decode()] = redis_client.dump(k)
    return out


# --- a waiting game ----------------------------------------------------------------------------

def test_an_open_seat_makes_a_waiting_game_with_nothing_seeded_and_no_email(http, redis_client):
    created = open_game(http, players=3, taken=1, time_control={"days_per_move": 2})
    gid = created["id"]
    assert created["status"] == "waiting" and created["seed_commitment"] is None and created["version"] == 0
    assert [s["kind"] for s in created["seats"]] == ["human", "open", "open"]
    assert created["seats"][0]["token"] and created["seats"][1]["token"] is None
    assert created["creator_token"] and created["invite_url"].startswith(f"/play/lobby#game={gid}&invite=")
    summary = http.ok("GET", f"{GAMES}/{gid}")
    assert (summary["status"] == "waiting" and summary["phase"] == "waiting"
            and summary["seed_commitment"] is None)
    assert [s["name"] for s in summary["seats"]] == ["Host0", None, None]
    token = created["seats"][0]["token"]
    for path in ("state", "legal-moves", "events", "record", "fairness", "board.svg"):
        problem(http.get(f"{GAMES}/{gid}/{path}", token), 409, "game-not-started")
    problem(http.post(f"{GAMES}/{gid}/moves", token, json={"expected_version": 1, "moves": ["end"]}),
            409, "game-not-started")
    # nothing seed-dependent exists: no seed, no stream, no meta; no turn email was asked for
    assert set(stored(redis_client, gid)) == {waiting.record_key(gid)}
    assert not [m for m in SENT if m[0] == "workers.notify_turn"]
    listed = http.ok("GET", LOBBY, params={"limit": 100})["games"]
    entry = next(g for g in listed if g["id"] == gid)
    assert entry == {"id": gid, "game": "tiletum", "players": 3, "open_seats": 2, "seats_taken": ["Host0"],
                     "time_control": entry["time_control"], "rated": True, "rating_range": None,
                     "status": "waiting", "cancelled_by": None, "created_at": entry["created_at"],
                     "expires_at": entry["expires_at"],
                     "joined": [{"name": "Host0", "handle": None, "reliability": None}]}
    assert entry["time_control"]["days_per_move"] == 2
    assert "@" not in json.dumps(listed), "no address is ever listed"
    page = http.get(f"/play/{gid}", headers={"Accept": "text/html"})
    assert page.status_code == 200 and "Waiting for players" in page.text


def test_lobby_options_and_open_seats_are_checked(http):
    problem(http.post(GAMES, json={"seats": [{"name": "A"}, {"name": "B"}], "options": {"waiting_days": 2}}),
            422, "bad-options")
    r = http.post(GAMES, json={"seats": [{"name": "A"}, {"kind": "open", "email": "x@lobby.test"}]})
    problem(r, 422, "invalid-request")
    problem(http.post(GAMES, json={"seats": [{"kind": "cardinalbot", "name": "C"}, {"kind": "open"}]}),
            422, "bad-seats")
    problem(http.post(GAMES, json={"seats": [{"name": "A", "email": addr("a")}, {"kind": "open"}],
                                   "options": {"rated": False, "rating_range": [1400, 1600]}}), 422,
                                   "bad-rating-range")
    problem(http.post(GAMES, json={"seats": [{"name": "A", "email": addr("a")}, {"kind": "open"}],
                                   "options": {"rating_range": [1600, 1400]}}), 422, "bad-rating-range")
    problem(http.post(GAMES, json={"game": "carcassonne", "seats": [{"name": "A"}, {"kind": "open"}],
                                   "options": {"action_tiles": "shuffled"}}), 422, "bad-options")


# --- joining by email ----------------------------------------------------------------------------

def test_a_join_is_confirmed_by_the_emailed_link_once_and_the_last_seat_starts_the_game(http, redis_client,
                                                                                        mailbox):
    created = open_game(http, players=3, taken=1)
    gid = created["id"]
    bob = addr("bob")
    ask(http, gid, "Bob", bob)
    (_, (_, nonce), _), = [m for m in SENT if m[0] == "workers.send_lobby_join"]
    assert mailbox.notifier.send_lobby_join(gid, nonce) == 1
    assert mailbox.notifier.send_lobby_join(gid, nonce) == 0, "once"
    mailbox.wait_for(1)
    msg = mailbox.messages[0]
    assert str(msg["To"]) == bob and "confirm your seat" in str(msg["Subject"])
    token = unquote(re.search(r"/play/lobby#join=(\S+)", msg.get_body(("plain",)).get_content()).group(1))
    assert not is_verified(redis_client, bob)
    assert http.ok("GET", f"{GAMES}/{gid}")["seats"][1]["kind"] == "open", "no seat before the link is opened"
    seated = http.ok("POST", f"{LOBBY}/confirm", json={"token": token})
    assert seated["status"] == "seated" and seated["seat"] == 1 and seated["started"] is False
    assert seated["play_url"].startswith(f"/play/{gid}#token=L1.")
    assert is_verified(redis_client, bob), "the address acted on our email"
    before = stored(redis_client, gid)
    again = http.ok("POST", f"{LOBBY}/confirm", json={"token": token})
    assert again == {"game": gid, "status": "seated", "seat": 1, "name": "Bob", "again": True,
                     "play_url": seated["play_url"], "started": False}, "a second use leads back to the seat"
    assert stored(redis_client, gid) == before, "a second use changes nothing"
    problem(http.post(f"{LOBBY}/confirm", json={"token": token[:-2] + "aa"}), 422, "bad-join-link")
    assert http.ok("GET", f"{LOBBY}/{gid}")["seats_taken"] == ["Host0", "Bob"]
    # the last seat: the game starts, the normal way (seed committed, the first turn's email)
    SENT.clear()
    cy = join(http, redis_client, gid, "Cy")
    assert cy["started"] is True and cy["seat"] == 2
    summary = http.ok("GET", f"{GAMES}/{gid}")
    assert summary["status"] == "active" and summary["version"] == 1 and len(summary["seed_commitment"]) == 64
    assert [s["name"] for s in summary["seats"]] == ["Host0", "Bob", "Cy"]
    assert ("workers.notify_turn", [gid, 1], "email") in SENT
    assert not redis_client.exists(waiting.record_key(gid))
    for tok, seat in ((created["seats"][0]["token"], 0), (seated["token"], 1), (cy["token"], 2),
                      (seated["play_url"].split("#token=")[1], 1)):
        assert http.ok("GET", f"{GAMES}/{gid}/legal-moves", tok)["seat"] == seat
    # both joiners have it on their dashboards
    for who in (bob,):
        games = http.ok("GET", "/api/v1/me/games", dashboard_key_for(redis_client, who))
        assert gid in [g["game"] for g in games["to_move"] + games["waiting"]]
    assert gid not in [g["id"] for g in http.ok("GET", LOBBY, params={"limit": 100})["games"]]
    problem(http.post(f"{LOBBY}/{gid}/join", json={"name": "Dee", "email": addr("dee")}), 409, "game-started")


def test_a_joiner_who_opens_the_link_again_after_the_start_is_led_to_the_seat(http, redis_client, mailbox):
    """The confirmation email carries the dashboard link, and the join link opened again after the
    game started leads to the joiner's seat (its link, not its token again), while the joiner holds
    the seat and its links were not renewed; after the account's deletion it leads nowhere."""
    gid = open_game(http, players=2, taken=1)["id"]
    bob = addr("bob")
    ask(http, gid, "Bob", bob)
    (_, (_, nonce), _), = [m for m in SENT if m[0] == "workers.send_lobby_join"]
    assert mailbox.notifier.send_lobby_join(gid, nonce) == 1
    mailbox.wait_for(1)
    text = mailbox.messages[0].get_body(("plain",)).get_content()
    key = dashboard_key_for(redis_client, bob)
    assert f"http://pbem.test/me#key={key}" in text, text   # the dashboard link
    token = unquote(re.search(r"/play/lobby#join=(\S+)", text).group(1))
    seated = http.ok("POST", f"{LOBBY}/confirm", json={"token": token})
    assert seated["started"] is True and seated["seat"] == 1, "the last seat: the game started"
    again = http.ok("POST", f"{LOBBY}/confirm", json={"token": token})
    assert again == {"game": gid, "status": "seated", "seat": 1, "name": "Bob", "again": True,
                     "play_url": seated["play_url"], "started": True}
    assert "token" not in again, "the seat's token is shown once"
    assert http.ok("GET", f"{GAMES}/{gid}/legal-moves", again["play_url"].split("#token=")[1])["seat"] == 1
    # the seat's links renewed since: the old join link does not bring them back
    links.revoke_seat_link(redis_client, gid, 1)
    problem(http.post(f"{LOBBY}/confirm", json={"token": token}), 409, "join-link-used")
    # the account deleted: nothing of the joiner is left under the game, and the link leads nowhere
    assert http.ok("DELETE", "/api/v1/me", key, json={"confirm": "DELETE"})["deleted"] is True
    assert not list(redis_client.scan_iter(match=f"g:{{{gid}}}:joined:*"))
    problem(http.post(f"{LOBBY}/confirm", json={"token": token}), 409, "game-started")


def test_a_dashboard_key_joins_at_once_and_one_address_takes_one_seat(http, redis_client):
    gid = open_game(http, players=4, taken=1)["id"]
    ann = addr("ann")
    remember_address(redis_client, ann)
    key = dashboard_key_for(redis_client, ann)
    SENT.clear()
    seated = http.ok("POST", f"{LOBBY}/{gid}/join", key, json={"name": "Ann"})
    assert seated["status"] == "seated" and seated["seat"] == 1 and seated["token"]
    assert not [m for m in SENT if m[0] == "workers.send_lobby_join"], "no email round trip"
    before = stored(redis_client, gid)
    problem(http.post(f"{LOBBY}/{gid}/join", key, json={"name": "Ann again"}), 409, "already-seated")
    problem(http.post(f"{LOBBY}/{gid}/join", key[:-3] + "aaa", json={"name": "X"}), 401, "unauthorized")
    problem(http.post(f"{LOBBY}/{gid}/join", json={"name": "Nobody"}), 422, "email-required")
    assert stored(redis_client, gid) == before
    # asked by email, it answers as for any address (tests/test_lobby_oracle.py); its link takes no seat
    ask(http, gid, "Ann", ann.upper())
    problem(http.post(f"{LOBBY}/confirm", json={"token": join_token(redis_client, gid)}), 409,
            "already-seated")
    # two links asked for one address: the second seat is refused when its link is opened
    bo = addr("bo")
    ask(http, gid, "Bo", bo)
    first = join_token(redis_client, gid)
    ask(http, gid, "Bo", bo)
    second = join_token(redis_client, gid)
    http.ok("POST", f"{LOBBY}/confirm", json={"token": first})
    problem(http.post(f"{LOBBY}/confirm", json={"token": second}), 409, "already-seated")


def test_a_player_leaves_and_the_creator_removes_one_before_the_start(http, redis_client):
    created = open_game(http, players=4, taken=1)
    gid, creator = created["id"], created["creator_token"]
    bob = join(http, redis_client, gid, "Bob")
    cy = join(http, redis_client, gid, "Cy")
    link = bob["play_url"].split("#token=")[1]
    problem(http.call("DELETE", f"{LOBBY}/{gid}/seats/1", cy["token"]), 403, "not-your-seat")
    problem(http.call("DELETE", f"{LOBBY}/{gid}/seats/1"), 401, "unauthorized")
    problem(http.call("DELETE", f"{LOBBY}/{gid}/seats/3", creator), 422, "not-a-player-seat")
    assert http.ok("DELETE", f"{LOBBY}/{gid}/seats/1", link) == {"game": gid, "seat": 1, "status": "left"}
    assert links.seat_of_link(redis_client, gid, link) is None, "the seat's old link no longer works"
    assert http.ok("DELETE", f"{LOBBY}/{gid}/seats/2", creator) == {"game": gid, "seat": 2,
                                                                    "status": "removed"}
    assert http.ok("GET", f"{LOBBY}/{gid}")["seats_taken"] == ["Host0"]
    # the freed seats are taken again, and the game starts; then no seat can be freed
    for name in ("Dee", "Eve", "Fay"):
        last = join(http, redis_client, gid, name)
    assert last["started"] and http.ok("GET", f"{GAMES}/{gid}")["status"] == "active"
    problem(http.call("DELETE", f"{LOBBY}/{gid}/seats/1", creator), 409, "game-started")


def test_the_creator_cancels_a_waiting_game_and_the_seated_are_told_once(http, redis_client, mailbox):
    created = open_game(http, players=3, taken=1)
    gid, creator = created["id"], created["creator_token"]
    bob_address = addr("bob")
    bob = join(http, redis_client, gid, "Bob", bob_address)
    before = stored(redis_client, gid)
    problem(http.call("DELETE", f"{LOBBY}/{gid}"), 401, "unauthorized")
    problem(http.call("DELETE", f"{LOBBY}/{gid}", bob["token"]), 403, "not-the-creator")
    invite = created["invite_url"].split("invite=")[1]
    problem(http.call("DELETE", f"{LOBBY}/{gid}", invite), 403, "not-the-creator")
    problem(http.call("DELETE", f"{LOBBY}/nosuchgame", creator), 404, "game-not-found")
    assert stored(redis_client, gid) == before, "a refused cancellation changes nothing"
    SENT.clear()
    assert http.ok("DELETE", f"{LOBBY}/{gid}", creator) == {"game": gid, "status": "cancelled"}
    assert http.ok("DELETE", f"{LOBBY}/{gid}", creator) == {"game": gid, "status": "cancelled"}, "idempotent"
    told = [m for m in SENT if m[0] == "workers.lobby_cancelled"]
    assert told == [("workers.lobby_cancelled", [gid], "email")] * 2
    assert http.ok("GET", f"{GAMES}/{gid}")["status"] == "cancelled"
    assert http.ok("GET", f"{LOBBY}/{gid}")["status"] == "cancelled"
    assert http.ok("GET", f"{LOBBY}/{gid}")["cancelled_by"] == "creator"
    assert gid not in [g["id"] for g in http.ok("GET", LOBBY, params={"limit": 100})["games"]]
    assert redis_client.zscore(waiting.EXPIRES.key(gid), gid) is None, "the sweep has nothing left to do"
    problem(http.post(f"{LOBBY}/{gid}/join", json={"name": "Dee", "email": addr("dee")}),
            409, "game-cancelled")
    # the worker's task, twice (a task run again): each player who confirmed a seat is told once; the
    # address the creator typed into a seat (never confirmed) is not (issue 40: no one floods another)
    from application.dashboard import Dashboard
    lobby = Lobby(mailbox.notifier.service, Dashboard(mailbox.notifier.service))
    assert lobby.tell_cancelled(gid, mailbox.notifier.lobby_cancelled) == 1
    assert lobby.tell_cancelled(gid, mailbox.notifier.lobby_cancelled) == 0, "once"
    mailbox.wait_for(1)
    time.sleep(0.3)
    mine = [m for m in mailbox.messages if gid in str(m["Subject"])]
    assert sorted(str(m["To"]).split("-")[0] for m in mine) == ["bob"]
    assert bob_address in [str(m["To"]) for m in mine]
    for m in mine:
        body = m.get_body(("plain",)).get_content()
        assert "was cancelled" in str(m["Subject"]) and "who posted it cancelled it" in body, body
    # a game that has started cannot be cancelled
    started = open_game(http, players=2, taken=1)
    join(http, redis_client, started["id"], "Eve")
    problem(http.call("DELETE", f"{LOBBY}/{started['id']}", started["creator_token"]), 409, "game-started")
    assert http.ok("GET", f"{GAMES}/{started['id']}")["status"] == "active"


def test_waiting_games_are_on_the_dashboards_of_their_players_until_they_start(http, redis_client):
    host, bob = addr("host"), addr("bob")
    for who in (host, bob):
        remember_address(redis_client, who)   # addresses with a dashboard already
    hk, bk = dashboard_key_for(redis_client, host), dashboard_key_for(redis_client, bob)

    def not_started(key: str) -> dict:
        return {g["game"]: g for g in http.ok("GET", "/api/v1/me/games", key)["not_started"]}

    def post(**options) -> dict:
        seats = [{"name": "Host", "email": host}] + [{"kind": "open"}] * 2
        body = {"game": "carcassonne", "options": options, "seats": seats}
        return http.ok("POST", GAMES, json=body, status=201)

    created, private, dropped = post(), post(private=True), post()
    gid = created["id"]
    mine = not_started(hk)
    assert set(mine) >= {gid, private["id"], dropped["id"]}, "posted games, a private one too"
    assert mine[gid] == {"game": gid, "game_name": "carcassonne", "seat": 0, "name": "Host", "players": 3,
                         "open_seats": 2, "seats_taken": ["Host"], "created_at": mine[gid]["created_at"],
                         "expires_at": mine[gid]["expires_at"], "play_url": mine[gid]["play_url"]}
    assert mine[gid]["play_url"].startswith(f"/play/{gid}#token=L0.")
    assert not_started(bk) == {}
    joined = http.ok("POST", f"{LOBBY}/{gid}/join", bk, json={"name": "Bob"})
    assert not_started(bk)[gid]["seat"] == joined["seat"] == 1
    assert not_started(hk)[gid]["seats_taken"] == ["Host", "Bob"] and not_started(hk)[gid]["open_seats"] == 1
    http.ok("DELETE", f"{LOBBY}/{gid}/seats/1", bk)
    assert gid not in not_started(bk), "left: off the dashboard"
    assert redis_client.zscore(waiting.player_key(player_id(redis_client, bob)), gid) is None
    http.ok("DELETE", f"{LOBBY}/{dropped['id']}", dropped["creator_token"])
    assert dropped["id"] not in not_started(hk), "cancelled: off the dashboard"
    # the last seats: the game starts and is among the games in progress instead
    http.ok("POST", f"{LOBBY}/{gid}/join", bk, json={"name": "Bob"})
    assert join(http, redis_client, gid, "Cy")["started"]
    assert gid not in not_started(hk) and gid not in not_started(bk)
    games = http.ok("GET", "/api/v1/me/games", hk)
    assert gid in [g["game"] for g in games["to_move"] + games["waiting"]]
    host_index = waiting.player_key(player_id(redis_client, host))
    assert redis_client.zscore(host_index, gid) is None, "dropped when read"
    link = mine[gid]["play_url"].split("#token=")[1]
    assert http.ok("GET", f"{GAMES}/{gid}/legal-moves", link)["seat"] == 0, "its link from before the start"
    problem(http.call("GET", "/api/v1/me/games"), 401, "unauthorized")


# --- private games, invitations, rating ranges ----------------------------------------------------

def test_a_private_game_is_listed_nowhere_and_joinable_only_by_its_invitation(http, redis_client):
    created = open_game(http, players=2, taken=1, private=True)
    gid = created["id"]
    code = re.search(r"invite=([^&]+)", created["invite_url"]).group(1)
    assert gid not in [g["id"] for g in http.ok("GET", LOBBY, params={"limit": 100})["games"]]
    before = stored(redis_client, gid)
    problem(http.post(f"{LOBBY}/{gid}/join", json={"name": "Zed", "email": addr("zed")}), 403,
            "bad-invitation")
    problem(http.post(f"{LOBBY}/{gid}/join", json={"name": "Zed", "email": addr("zed"), "invite": "nope"}),
            403, "bad-invitation")
    assert stored(redis_client, gid) == before
    ask(http, gid, "Zed", addr("zed"), invite=code)
    assert http.ok("POST", f"{LOBBY}/confirm", json={"token": join_token(redis_client, gid)})["started"]
    assert http.ok("GET", f"{GAMES}/{gid}")["status"] == "active"
    assert gid not in [g["id"] for g in http.ok("GET", GAMES, params={"limit": 50})["games"]]
    # a private game without open seats is not among the games in progress either
    plain = http.ok("POST", GAMES,
                    json={"seats": [{"name": "A"}, {"name": "B"}], "options": {"private": True}}, status=201)
    assert plain["id"] not in [g["id"] for g in http.ok("GET", GAMES, params={"limit": 50})["games"]]


def test_an_address_outside_the_rating_range_is_refused(http, redis_client):
    gid = open_game(http, players=3, taken=1, rating_range=[1600, 1900])["id"]
    assert http.ok("GET", f"{LOBBY}/{gid}")["rating_range"] == [1600, 1900]
    strong, new = addr("strong"), addr("new")
    redis_client.hset(pool_key(game_pool("tiletum")), player_id(redis_client, strong),
                      json.dumps({"rating": 1720.0, "rd": 80.0, "vol": 0.06, "games": 12}))
    remember_address(redis_client, new)
    before = stored(redis_client, gid)
    p = problem(http.post(f"{LOBBY}/{gid}/join", dashboard_key_for(redis_client, new), json={"name": "New"}),
                403, "outside-rating-range")   # told to the address's owner (its key) only
    assert p["rating"] == 1500 and p["rating_range"] == [1600, 1900]
    assert stored(redis_client, gid) == before
    ask(http, gid, "New", new)   # by email: the answer of any address; the link is refused to its owner
    p = problem(http.post(f"{LOBBY}/confirm", json={"token": join_token(redis_client, gid)}), 403,
                "outside-rating-range")
    assert p["rating"] == 1500
    assert join(http, redis_client, gid, "Strong", strong)["seat"] == 1


# --- refusals change nothing; nothing hidden leaks ----------------------------------------------

def test_a_join_for_a_full_or_cancelled_game_is_refused_and_changes_nothing(http, redis_client, server):
    full = open_game(http, players=2, taken=1)["id"]
    ask(http, full, "Late", addr("late"))
    late = join_token(redis_client, full)
    join(http, redis_client, full, "First")
    before = stored(redis_client, full)
    problem(http.post(f"{LOBBY}/confirm", json={"token": late}), 409, "game-started")
    problem(http.post(f"{LOBBY}/{full}/join", json={"name": "X", "email": addr("x")}), 409, "game-started")
    assert stored(redis_client, full) == before
    gone = open_game(http, players=2, taken=1, waiting_days=0.001)["id"]
    ask(http, gone, "Slow", addr("slow"))
    slow = join_token(redis_client, gone)
    lobby = server.app.extensions["tablepost.lobby"]
    told = []
    lobby.sweep(lambda g, doc, seat: told.append((g, seat)), now=lobby.clock() + 3600)
    assert (gone, 0) not in told, "the creator typed that address in: no email about a waiting game"
    assert http.ok("GET", f"{LOBBY}/{gone}")["status"] == "cancelled"
    before = stored(redis_client, gone)
    problem(http.post(f"{LOBBY}/confirm", json={"token": slow}), 409, "game-cancelled")
    problem(http.post(f"{LOBBY}/{gone}/join", json={"name": "X", "email": addr("x")}), 409, "game-cancelled")
    problem(http.get(f"{GAMES}/{gone}/state"), 409, "game-cancelled")
    assert http.ok("GET", f"{GAMES}/{gone}")["status"] == "cancelled"
    assert stored(redis_client, gone) == before
    problem(http.post(f"{LOBBY}/nosuchgame/join", json={"name": "X", "email": addr("x")}), 404,
            "game-not-found")


def test_a_hostile_joiner_learns_nothing_hidden_of_a_waiting_game(http, redis_client):
    created = http.ok("POST", GAMES, json={"seats": [{"name": "Host", "email": addr("h")}, {"kind": "open"},
                                                     {"kind": "open"}],
                                           "options": {"seed": "the-secret-seed-xyz",
                                                       "action_tiles": "shuffled"}},
                      status=201)
    gid = created["id"]
    mole = join(http, redis_client, gid, "Mole")
    seen = [http.get(f"{GAMES}/{gid}{p}", mole["token"]) for p in
            ("", "/state", "/legal-moves", "/events", "/record", "/fairness", "/board.svg", "/hint")]
    seen += [http.get(f"{LOBBY}/{gid}"), http.get(LOBBY, params={"limit": 100})]
    seen += [http.get(f"{GAMES}/{gid}{p}", mole["play_url"].split("#token=")[1]) for p in ("/state",
                                                                                           "/events")]
    for r in seen:
        assert r.status_code in (200, 409), (r.request.url, r.status_code, r.text[:200])
        assert "the-secret-seed-xyz" not in r.text and "shuffled" not in r.text and "@" not in r.text
    # a join link is bound to its game: made for one game, it takes no seat of another
    other = open_game(http, players=2, taken=1)["id"]
    ask(http, gid, "Probe", addr("probe"))
    token = join_token(redis_client, gid)
    forged = token.replace(f"J.{gid}.", f"J.{other}.")
    problem(http.post(f"{LOBBY}/confirm", json={"token": forged}), 422, "bad-join-link")


# --- the lobby's list ------------------------------------------------------------------------------

def test_the_lobby_filters_by_game_and_players_and_pages(http):
    mine = [open_game(http, players=3, taken=1, game="carcassonne")["id"] for _ in range(3)]
    two = open_game(http, players=2, taken=1, game="carcassonne")["id"]
    found = http.ok("GET", LOBBY, params={"game": "carcassonne", "players": 3, "limit": 100})["games"]
    ids = [g["id"] for g in found]
    assert set(mine) <= set(ids) and two not in ids and all(g["players"] == 3 for g in found)
    assert all(g["game"] == "carcassonne" for g in found)
    first = http.ok("GET", LOBBY, params={"game": "carcassonne", "players": 3, "limit": 1})
    assert first["more"] and first["next_offset"] == 1 and first["games"][0]["id"] == mine[-1], "newest first"
    second = http.ok("GET", LOBBY, params={"game": "carcassonne", "players": 3, "limit": 1, "offset": 1})
    assert second["games"][0]["id"] == mine[-2]
    problem(http.get(LOBBY, params={"game": "chess"}), 422, "invalid-request")
    problem(http.get(LOBBY, params={"limit": "0"}), 422, "invalid-request")


def test_play_now_against_the_ai_is_one_request(http):
    created = http.ok("POST", GAMES,
                      json={"seats": [{"name": "Me"}, {"name": "Robo", "kind": "ai", "level": "easy"}]},
                      status=201)
    assert http.ok("GET", f"{GAMES}/{created['id']}")["status"] == "active"


# --- abuse ---------------------------------------------------------------------------------------

def test_joins_are_rate_limited_per_address_and_per_client(redis_server, redis_client):
    for k in redis_client.scan_iter("*LIMITER*"):
        redis_client.delete(k)
    app = make_app(redis_server.url, RATE_LIMIT=1000, CREATE_LIMIT="1000/hour", NEW_ADDRESS_LIMIT="1000/day",
                   JOIN_LIMIT="5/hour", JOIN_ADDRESS_LIMIT="2/hour")
    with LiveServer(app) as live:
        h = Http(live.url)
        gids = [open_game(h, players=4, taken=1)["id"] for _ in range(3)]
        one = addr("spam")
        codes = [h.post(f"{LOBBY}/{g}/join", json={"name": "S", "email": one}).status_code for g in gids]
        assert codes == [202, 202, 429], codes   # one address: 2 an hour, over any games
        r = h.post(f"{LOBBY}/{gids[0]}/join", json={"name": "T", "email": addr("t")})
        assert r.status_code == 202
        codes = [h.post(f"{LOBBY}/{gids[1]}/join", json={"name": "U", "email": addr("u")}).status_code
                 for _ in range(3)]
        assert codes[-1] == 429 and problem(
            h.post(f"{LOBBY}/{gids[2]}/join", json={"name": "V", "email": addr("v")}),
            429, "rate-limited")
        h.s.close()


# --- the cancellation sweep, as the worker runs it -----------------------------------------------

def test_the_sweep_cancels_a_game_past_its_waiting_time_and_emails_the_seated_once(http, redis_client,
                                                                                   redis_server, monkeypatch,
                                                                                   tmp_path):
    created = open_game(http, players=3, taken=1, waiting_days=0.001)   # about 86 seconds
    gid = created["id"]
    join(http, redis_client, gid, "Bob", addr("bob"))
    keep = open_game(http, players=2, taken=1)["id"]   # 7 days: stays
    monkeypatch.setenv("REDIS_URL", redis_server.url)
    monkeypatch.setenv("TABLEPOST_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("TABLEPOST_TEST_CLOCK", "1")
    monkeypatch.setenv("TABLEPOST_MAIL_SECRET", "lobby-sweep-secret")
    monkeypatch.delenv("TABLEPOST_SMTP_URL", raising=False)
    from workers import runtime, tasks
    for f in (runtime.redis_client, runtime.service, runtime.outbox, runtime.notifier):
        f.cache_clear()
    redis_client.set("clock:offset", 3600)   # an hour later, on the clock every process shares
    try:
        redis_client.hdel(heartbeat.KEY, "workers.sweep_lobby")
        assert tasks.sweep_lobby.apply().get() >= 1
        assert "workers.sweep_lobby" in heartbeat.beats(redis_client), "the sweep beats like the others"
        tasks.sweep_lobby.apply().get()   # again: nothing sent twice
    finally:
        redis_client.delete("clock:offset")
        for f in (runtime.redis_client, runtime.service, runtime.outbox, runtime.notifier):
            f.cache_clear()
    mine = []
    for _ in range(100):   # the worker's outbox delivers in a background thread
        mails = [email.message_from_bytes(p.read_bytes(), policy=email.policy.default)
                 for p in sorted((tmp_path / "mail").glob("*.eml"))]
        mine = [m for m in mails if gid in str(m["Subject"])]
        if len(mine) >= 1:
            break
        time.sleep(0.05)
    time.sleep(0.3)
    mine = [m for m in (email.message_from_bytes(p.read_bytes(), policy=email.policy.default)
                        for p in sorted((tmp_path / "mail").glob("*.eml"))) if gid in str(m["Subject"])]
    # only the player who confirmed a seat: not the address the creator typed in (issue 40)
    assert sorted(str(m["To"]).split("-")[0] for m in mine) == ["bob"], [str(m["To"]) for m in mine]
    assert all("was cancelled" in str(m["Subject"]) for m in mine)
    assert all("not all taken" in m.get_body(("plain",)).get_content() for m in mine)
    assert http.ok("GET", f"{GAMES}/{gid}")["status"] == "cancelled"
    assert http.ok("GET", f"{LOBBY}/{gid}")["cancelled_by"] == "waiting-time"
    assert http.ok("GET", f"{LOBBY}/{keep}")["status"] == "waiting"
    assert gid not in [g["id"] for g in http.ok("GET", LOBBY, params={"limit": 100})["games"]]
    assert redis_client.zscore(waiting.EXPIRES.key(gid), gid) is None


def test_a_lobby_service_over_the_store_alone(redis_client):
    """The core without Flask: a creator's seats are checked with stand-ins (a dry run), so a full
    game always starts."""
    games = GameService(EventStore(redis_client))
    from application.dashboard import Dashboard
    lobby = Lobby(games, Dashboard(games))
    created = lobby.create([{"name": "A", "email": addr("a")}, {"kind": "open"}], {})
    assert lobby.view(created["id"])["open_seats"] == 1
    # an AI seat's level and a seat's time zone are checked by the dry run, as for any game created
    for seat, code in (({"kind": "ai", "name": "R", "level": "grandmaster"}, "bad-seats"),
                       ({"name": "B", "email": addr("b"), "tz": "Mars/Olympus_Mons"}, "bad-time-zone")):
        with pytest.raises(ServiceError) as e:
            lobby.create([{"name": "A", "email": addr("a")}, seat, {"kind": "open"}], {})
        assert e.value.code == code


def test_a_pillars_game_waits_in_the_lobby_and_starts_when_its_seats_are_taken(http, redis_client):
    """The lobby is any game's: a waiting Pillars of the Earth game is found by its game and starts
    when its last seat is taken, then it is a Pillars game like any other."""
    gid = open_game(http, players=3, taken=1, game="pillars")["id"]
    found = http.ok("GET", LOBBY, params={"game": "pillars", "players": 3, "limit": 100})["games"]
    assert gid in [g["id"] for g in found] and all(g["game"] == "pillars" for g in found)
    assert gid not in [g["id"] for g in http.ok("GET", LOBBY, params={"game": "carcassonne", "limit": 100})[
        "games"]]
    assert not join(http, redis_client, gid, "Bea")["started"]
    assert join(http, redis_client, gid, "Cy")["started"]
    summary = http.ok("GET", f"{GAMES}/{gid}")
    assert (summary["game"], summary["status"], summary["phase"]) == ("pillars", "active", "cards")
    state = http.ok("GET", f"{GAMES}/{gid}/state")
    assert state["format"] == "pillars-position/1" and state["players"] == 3


def test_a_join_says_its_seat_s_language_which_the_confirmation_and_the_game_keep(http, redis_client,
                                                                                 mailbox):
    """``language`` on a join (docs/i18n.md): the email that confirms it speaks it, the seat keeps it
    into the started game (its emails follow it), and a language the service lacks changes nothing."""
    gid = open_game(http, players=2, taken=1)["id"]
    before = stored(redis_client, gid)
    problem(http.post(f"{LOBBY}/{gid}/join", json={"name": "Jo", "email": addr("jo"), "language": "pl"}),
            422, "invalid-request")
    assert stored(redis_client, gid) == before and not [m for m in SENT if m[0] == "workers.send_lobby_join"]
    jo = addr("jo")
    ask(http, gid, "Jo", jo, language="de")
    (_, (_, nonce), _), = [m for m in SENT if m[0] == "workers.send_lobby_join"]
    assert mailbox.notifier.send_lobby_join(gid, nonce) == 1
    mailbox.wait_for(1)
    msg = mailbox.messages[0]
    assert msg["Content-Language"] == "de"
    token = unquote(re.search(r"/play/lobby#join=(\S+)", msg.get_body(("plain",)).get_content()).group(1))
    assert http.ok("POST", f"{LOBBY}/confirm", json={"token": token})["started"] is True
    meta = GameService(EventStore(redis_client)).meta(gid)
    assert meta["seats"][1].get("language") == "de" and "language" not in meta["seats"][0]
