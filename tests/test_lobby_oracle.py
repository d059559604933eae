"""Issue 39, "No oracle in the lobby": a join asked by email answers the same, byte for byte, for any
address (one that plays here and one that never did, one inside the game's rating range and one
outside it, one that has a seat of the game already), as the twin-seed tests compare answers for
hidden state; only the address's owner learns why it cannot join (the emailed answer, or the answer
to its dashboard key). Real Redis, real HTTP with the rate limits on, real SMTP on loopback."""
from __future__ import annotations

import json
import re
from urllib.parse import unquote

import pytest
from conftest import LiveServer, make_app
from test_api_errors import Http, problem

from application import links
from application.dashboard import dashboard_key_for, remember_address
from application.players import player_id
from application.rating_service import game_pool, pool_key
from application.game_service import GameService
from application.store import EventStore
from mail.mailconfig import MailConfig
from mail.notify import Notifier
from mail.outbox import Outbox
from mail.transports import SmtpTransport
from tests.test_lobby import GAMES, LOBBY, addr
from tests.test_pbem_e2e import Mailboxes

SENT: list = []
# what differs between two requests whatever they ask: the time (and the limit windows' resets,
# which count from a counter's first hit)
VARYING = {"date", "x-ratelimit-reset", "retry-after"}


def limited_app(redis_server, redis_client, **limits):
    for k in redis_client.scan_iter("*LIMITER*"):
        redis_client.delete(k)
    cfg = {"RATE_LIMIT": 1000, "CREATE_LIMIT": "1000/hour", "NEW_ADDRESS_LIMIT": "1000/day",
           "JOIN_LIMIT": "1000/hour", "JOIN_ADDRESS_LIMIT": "5/hour",
           "SEND_TASK": lambda name, args, queue: SENT.append((name, list(args), queue)) or True}
    cfg.update(limits)
    return make_app(redis_server.url, **cfg)


def answer(r) -> tuple:
    """Everything of an answer a client sees, but what varies with the time."""
    headers = sorted((k.lower(), v) for k, v in r.headers.items() if k.lower() not in VARYING)
    return r.status_code, headers, r.content


def rate(redis_client, email: str, rating: float, game: str = "tiletum") -> None:
    """``email`` has played here and is rated ``rating`` in the game's multiplayer pool."""
    remember_address(redis_client, email)
    redis_client.hset(pool_key(game_pool(game)), player_id(redis_client, email),
                      json.dumps({"rating": rating, "rd": 80.0, "vol": 0.06, "games": 12}))


def rated_game(h, host: str, low: int = 1501, high: int = 4000) -> str:
    seats = [{"name": "Host", "email": host}, {"kind": "open"}, {"kind": "open"}, {"kind": "open"}]
    return h.ok("POST", GAMES, json={"game": "tiletum", "seats": seats,
                                     "options": {"rating_range": [low, high]}}, status=201)["id"]


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


@pytest.fixture()
def sent():
    SENT.clear()
    yield SENT


def test_a_join_by_email_answers_the_same_for_any_address_and_only_its_owner_learns_why(
        redis_server, redis_client, mailbox, sent):
    host, low, fits, stranger = addr("host"), addr("low"), addr("fits"), addr("stranger")
    rate(redis_client, low, 1338.0)      # plays here, rated below the range
    rate(redis_client, fits, 1720.0)     # plays here, inside it
    with LiveServer(limited_app(redis_server, redis_client)) as live:
        h = Http(live.url)
        gid = rated_game(h, host)
        seen = {}
        for who in (low, fits, stranger, host, host.upper()):
            sent.clear()
            r = h.post(f"{LOBBY}/{gid}/join", json={"name": "Probe", "email": who})
            seen[who] = answer(r)
            (name, (game, nonce), _), = sent
            assert (name, game) == ("workers.send_lobby_join", gid), "every one is emailed the answer"
            seen[who + "#nonce"] = nonce
        # the headers show the client's own budget, one less each request: the same for any address
        order = (low, fits, stranger, host, host.upper())
        left = [dict(seen[who][1])["x-ratelimit-remaining"] for who in order]
        assert [int(x) for x in left] == list(range(int(left[0]), int(left[0]) - len(order), -1)), left
        for who in order:
            seen[who] = (seen[who][0], [(k, v) for k, v in seen[who][1] if k != "x-ratelimit-remaining"],
                         seen[who][2])
        first = seen[low]
        assert first[0] == 202 and json.loads(first[2]) == {"game": gid, "status": "pending", "emailed": True}
        assert any(k == "x-ratelimit-limit" for k, _ in first[1]), "the limits' headers are compared too"
        for who in order[1:]:
            assert seen[who] == first, f"the answer for {who} differs: {seen[who]} != {first}"
        # the owner learns it, by email: why it cannot join, or the link that takes the seat
        told = {}
        for who in (low, fits, stranger, host):
            assert mailbox.notifier.send_lobby_join(gid, seen[who + "#nonce"]) == 1
        mailbox.wait_for(4)
        for msg in mailbox.messages:
            told[str(msg["To"])] = msg.get_body(("plain",)).get_content()
        assert "rated 1501 to 4000" in told[low] and "yours is 1338" in told[low]
        assert "#join=" not in told[low] and "cannot take a seat" in told[low]
        assert "yours is 1500" in told[stranger] and "#join=" not in told[stranger]
        assert "a seat in this game already" in told[host] and "#join=" not in told[host]
        assert "1338" not in told[fits] and "#join=" in told[fits]
        token = unquote(re.search(r"/play/lobby#join=(\S+)", told[fits]).group(1))
        assert h.ok("POST", f"{LOBBY}/confirm", json={"token": token})["seat"] == 1
        # the owner of the low address opening a link (made here as the worker would) learns it too
        own = links.join_token(redis_client, gid, seen[low + "#nonce"])
        p = problem(h.post(f"{LOBBY}/confirm", json={"token": own}), 403, "outside-rating-range")
        assert p["rating"] == 1338 and p["rating_range"] == [1501, 4000]
        # and so does the holder of the address's dashboard key, at once
        p = problem(h.post(f"{LOBBY}/{gid}/join", dashboard_key_for(redis_client, low), json={"name": "Low"}),
                    403, "outside-rating-range")
        assert p["rating"] == 1338
        h.s.close()


def test_the_budget_of_new_addresses_tells_nothing_of_an_address(redis_server, redis_client, sent):
    """A join asked by email costs one of the client's new-address budget whatever the address: when
    it is spent, a known address and an unknown one are refused alike (a known one cost nothing
    before, so a 202 told that it played here)."""
    known, stranger = addr("known"), addr("unknown")
    rate(redis_client, known, 1600.0)
    with LiveServer(limited_app(redis_server, redis_client, NEW_ADDRESS_LIMIT="2/day")) as live:
        h = Http(live.url)
        host = addr("host")
        rate(redis_client, host, 1600.0)   # the game's creation costs one (any address does)
        gid = rated_game(h, host, 1000, 3000)
        assert h.post(f"{LOBBY}/{gid}/join", json={"name": "A", "email": addr("first")}).status_code == 202
        a = h.post(f"{LOBBY}/{gid}/join", json={"name": "B", "email": known})
        b = h.post(f"{LOBBY}/{gid}/join", json={"name": "B", "email": stranger})
        assert a.status_code == 429 and answer(a) == answer(b), (answer(a), answer(b))
        h.s.close()


def created(h, email: str):
    return h.post(GAMES, json={"game": "tiletum",
                               "seats": [{"name": "Ann", "email": email}, {"name": "Bob"}]})


def test_creating_a_game_costs_the_same_for_any_address(redis_server, redis_client, sent):
    """Issue 39: the new-address budget of ``POST /api/v1/games`` charged only addresses that never
    played here, so its headers (one less, or not) and its 429 told anyone whether an address plays
    here. Now any address costs one (but one this client named in a request that succeeded lately):
    the answers for an address that plays here and one that never did are the same, byte for byte."""
    known, other_known, stranger, other_stranger = addr("known"), addr("known2"), addr("new"), addr("new2")
    for who in (known, other_known):
        rate(redis_client, who, 1600.0)
    with LiveServer(limited_app(redis_server, redis_client, NEW_ADDRESS_LIMIT="3/day")) as live:
        h = Http(live.url)
        # 3 a day: the known address costs one as the stranger does; naming it again costs nothing
        answers = [created(h, who) for who in (known, stranger, known, other_known)]
        assert [r.status_code for r in answers] == [201] * 4, [r.text for r in answers]
        # the budget spent: a known address and a stranger are refused alike
        late_known = addr("known3")
        rate(redis_client, late_known, 1600.0)
        a, b = created(h, late_known), created(h, other_stranger)
        assert a.status_code == 429 and answer(a) == answer(b), (answer(a), answer(b))
        assert a.json()["code"] == "rate-limited"
        h.s.close()


def test_the_lobby_and_a_waiting_game_name_no_address(redis_server, redis_client, sent):
    """The other answers a stranger gets about a waiting game: names only, never an address or a
    handle, and the same whether the seated players have played here or not."""
    with LiveServer(limited_app(redis_server, redis_client)) as live:
        h = Http(live.url)
        known = addr("known")
        rate(redis_client, known, 1600.0)
        gids = [rated_game(h, who, 1000, 3000) for who in (known, addr("new"))]
        views = [h.get(f"{LOBBY}/{g}") for g in gids]
        bodies = [v.json() for v in views]
        for b, g in zip(bodies, gids):
            assert "@" not in json.dumps(b) and b["seats_taken"] == ["Host"]
        strip = [{k: v for k, v in b.items() if k not in ("id", "created_at", "expires_at")} for b in bodies]
        assert strip[0] == strip[1]
        listing = h.get(LOBBY, params={"limit": 100}).text
        assert "@" not in listing
        h.s.close()


def test_entering_a_tournament_answers_the_same_for_any_address_and_only_its_owner_learns(
        redis_server, redis_client, mailbox, sent):
    """Issue 39: ``409 already-entered`` told anyone with the invitation link whether an address was
    entered. Now asking with the code answers the same, byte for byte, for an entered address and a
    new one; the owner learns by email (its private page again, or the link that confirms)."""
    from mail.tournament_mail import entry_ask
    entered, stranger = addr("entered"), addr("stranger")
    with LiveServer(limited_app(redis_server, redis_client)) as live:
        h = Http(live.url)
        t = h.ok("POST", "/api/v1/tournaments", json={
            "name": "Oracle Cup", "format": "round_robin", "table_size": 2, "invite": True,
            "entries": [{"name": "Ann", "email": entered}, {"name": "Bob", "email": addr("bob")}]},
            status=201)
        tid = t["id"]
        seen, nonces = {}, {}
        for who in (entered, stranger, entered.upper()):
            sent.clear()
            r = h.post(f"/api/v1/tournaments/{tid}/entries", json={"name": "Probe", "email": who,
                                                                   "invite": t["invite_code"]})
            seen[who] = answer(r)
            (name, (tour, nonce), _), = sent
            assert (name, tour) == ("workers.tournament_entry_ask", tid), "every one is emailed the answer"
            nonces[who] = nonce
        left = [int(dict(seen[who][1])["x-ratelimit-remaining"]) for who in seen]
        assert left == list(range(left[0], left[0] - 3, -1)), left   # the client's own budget, one each
        for who in seen:
            seen[who] = (seen[who][0], [(k, v) for k, v in seen[who][1] if k != "x-ratelimit-remaining"],
                         seen[who][2])
        first = seen[entered]
        assert first[0] == 202 and json.loads(first[2]) == {"tournament": tid, "status": "pending",
                                                            "emailed": True}
        assert seen[stranger] == first and seen[entered.upper()] == first
        assert len(h.ok("GET", f"/api/v1/tournaments/{tid}")["players"]) == 2, "nobody entered yet"
        # the owners learn it by email
        for who in (entered, stranger):
            assert entry_ask(mailbox.notifier, tid, nonces[who]) == 1
        mailbox.wait_for(2)
        told = {str(m["To"]): m.get_body(("plain",)).get_content() for m in mailbox.messages}
        assert "entered already" in told[entered] and "#entry=" in told[entered]
        assert "#confirm=" not in told[entered]
        assert "#confirm=" in told[stranger] and "#entry=" not in told[stranger]
        token = unquote(re.search(r"#confirm=(\S+)", told[stranger]).group(1))
        entry = h.ok("POST", f"/api/v1/tournaments/{tid}/entries/confirm", json={"token": token}, status=201)
        assert entry["name"] == "Probe"
        mine = h.ok("GET", f"/api/v1/tournaments/{tid}/my-games", entry["entry_token"])
        assert mine["games"] == [] and len(h.ok("GET", f"/api/v1/tournaments/{tid}")["players"]) == 3
        problem(h.post(f"/api/v1/tournaments/{tid}/entries/confirm", json={"token": token}), 422,
                "bad-entry-link")
        h.s.close()
